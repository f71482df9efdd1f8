//! The syntax gate: does a Python source parse?
//!
//! AutoCodeRover runs `pylint --errors-only` over every candidate file and looks for `syntax-error`; that takes
//! about a second per file. This gate answers the same question in microseconds with two passes:
//!
//! 1. tree-sitter-python: the source must parse with no `ERROR` and no `MISSING` node;
//! 2. a line scan that applies the rules tree-sitter's grammar is lenient about but CPython's tokenizer and parser
//!    are not: a dedent to a column that no enclosing block uses ("unindent does not match any outer indentation
//!    level"), tabs and spaces mixed so that the meaning depends on the tab size (`TabError`), and the Python 2
//!    `print`/`exec` statements that the grammar still accepts.
//!
//! What it does not reject, like CPython's parser (`ast.parse`): compiler-stage errors such as `return` outside a
//! function or `break` outside a loop. Its agreement with CPython is measured by `core/tests/gate_agreement.rs`.
//!
//! Checking an edit ([`Gate::check_edit`]) does not parse the whole file: the line scan runs over it (linear and
//! cheap) and tree-sitter parses only the statements around the edit (see the `window` submodule), which keeps an
//! edit to a 4,000-line file under a millisecond.

mod lines;
mod window;

use std::fmt;

use serde::Serialize;
use tree_sitter::{Node, Parser, Tree};

use crate::index::python_parser;

/// What is wrong at a [`SyntaxProblem`]'s position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum ProblemKind {
    /// The parser could not fit the text here into the grammar.
    Unparsable {
        /// The start of the text it could not place (one line at most, shortened).
        near: String,
    },
    /// The parser expected a token that is not there (for example a `:` or a closing bracket).
    Missing {
        /// The token or construct the parser expected.
        expected: String,
    },
    /// A dedent to a column that matches no enclosing block.
    UnindentMismatch,
    /// A line indented deeper than the line before it, where no block opens.
    UnexpectedIndent,
    /// A line ending in `:` opens a block, but the next line is not indented deeper.
    ExpectedIndentedBlock,
    /// A `try` block with neither `except` nor `finally`.
    TryWithoutHandler,
    /// Tabs and spaces are mixed so that the indentation depends on the tab width.
    InconsistentTabs,
    /// A Python 2 `print` or `exec` statement.
    Python2Statement {
        /// `print` or `exec`.
        keyword: String,
    },
    /// The parser gave up (it only does so when cancelled).
    ParserFailed,
}

/// The first syntax problem in a source, with a 1-based line and a 1-based column counted in characters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SyntaxProblem {
    /// 1-based line number.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
    /// What is wrong there.
    #[serde(flatten)]
    pub kind: ProblemKind,
}

impl fmt::Display for ProblemKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProblemKind::Unparsable { near } if near.is_empty() => write!(f, "invalid syntax"),
            ProblemKind::Unparsable { near } => write!(f, "invalid syntax near `{near}`"),
            ProblemKind::Missing { expected } => write!(f, "expected `{expected}`"),
            ProblemKind::UnindentMismatch => {
                write!(f, "unindent does not match any outer indentation level")
            }
            ProblemKind::UnexpectedIndent => write!(f, "unexpected indent"),
            ProblemKind::ExpectedIndentedBlock => {
                write!(f, "expected an indented block after the line ending in `:`")
            }
            ProblemKind::TryWithoutHandler => {
                write!(f, "`try` block without `except` or `finally`")
            }
            ProblemKind::InconsistentTabs => {
                write!(f, "inconsistent use of tabs and spaces in indentation")
            }
            ProblemKind::Python2Statement { keyword } => {
                write!(f, "Python 2 `{keyword}` statement (call `{keyword}(...)` instead)")
            }
            ProblemKind::ParserFailed => write!(f, "parser gave up"),
        }
    }
}

impl fmt::Display for SyntaxProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}: {}", self.line, self.column, self.kind)
    }
}

/// One replaced byte range, for [`Gate::check_edit`]: `old[start..old_end]` became `new[start..new_end]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextEdit {
    /// First changed byte.
    pub start: usize,
    /// End of the replaced range in the old text.
    pub old_end: usize,
    /// End of the replacement in the new text.
    pub new_end: usize,
}

/// A reusable syntax gate (it keeps one tree-sitter parser).
pub struct Gate {
    parser: Parser,
}

impl Default for Gate {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for Gate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Gate")
    }
}

impl Gate {
    /// A gate for Python.
    pub fn new() -> Self {
        Gate { parser: python_parser() }
    }

    /// `Ok` when the source passes, otherwise the first problem (earliest position).
    pub fn check(&mut self, source: &str) -> Result<(), SyntaxProblem> {
        first(self.problems(source, 1))
    }

    /// Whether the edit that turned `old` into `new` adds a syntax problem: `Err` with the first problem it adds.
    /// For an `old` that passes the gate this is exactly [`Gate::check`] of `new`; for an `old` that already
    /// fails, problems it already had are not held against the edit.
    ///
    /// Only the statements around the edit are parsed: the statements at the edit's indentation level that it
    /// touches, with one neighbour on each side (so an `else:` or a decorator that joins a neighbour is seen),
    /// found by the line scan and parsed on their own under an `if 1:` header when indented. The line scan itself
    /// covers both texts in full. So the cost does not grow with the file beyond a linear scan.
    pub fn check_edit(&mut self, old: &str, new: &str, edit: TextEdit) -> Result<(), SyntaxProblem> {
        let valid = edit.start <= edit.old_end
            && edit.old_end <= old.len()
            && edit.start <= edit.new_end
            && edit.new_end <= new.len()
            && old.get(..edit.start) == new.get(..edit.start)
            && old.get(edit.old_end..) == new.get(edit.new_end..);
        let window = if valid { window::find(old, new, edit) } else { None };
        let Some(w) = window else {
            return self.check_against(old, new);
        };
        let new_lines = lines::problems(new, usize::MAX);
        let old_lines_count = if new_lines.is_empty() { 0 } else { lines::problems(old, usize::MAX).len() };
        let new_window = self.window_problems(new, w.new_span, w.indented, w.first_row);
        if !new_window.is_empty() {
            let old_window = self.window_problems(old, w.old_span, w.indented, w.first_row);
            if !old_window.is_empty() {
                // The region was already broken: judge the whole file against the whole old file.
                return self.check_against(old, new);
            }
        }
        if new_lines.len() <= old_lines_count && new_window.is_empty() {
            return Ok(());
        }
        let mut found = new_window;
        if new_lines.len() > old_lines_count {
            found.extend(new_lines);
        }
        found.sort_by_key(|p| (p.line, p.column));
        first(found)
    }

    /// `new`'s problems, unless `old` had at least as many (then the edit is not to blame).
    fn check_against(&mut self, old: &str, new: &str) -> Result<(), SyntaxProblem> {
        let problems = self.problems(new, usize::MAX);
        if problems.is_empty() {
            return Ok(());
        }
        let before = self.problems(old, problems.len() + 1).len();
        if before >= problems.len() && before > 0 { Ok(()) } else { first(problems) }
    }

    /// Tree-sitter's problems in `source[span]` parsed on its own, with lines counted in `source`.
    fn window_problems(
        &mut self,
        source: &str,
        span: (usize, usize),
        indented: bool,
        first_row: u32,
    ) -> Vec<SyntaxProblem> {
        let Some(body) = source.get(span.0..span.1) else {
            return self.problems(source, 1);
        };
        let (text, header_rows) = if indented { (format!("if 1:\n{body}"), 1) } else { (body.to_string(), 0) };
        let mut found = Vec::new();
        match crate::python::parse(&mut self.parser, &text) {
            Some(tree) => tree_problems(&tree, &text, 1, &mut found),
            None => found.push(SyntaxProblem { line: 1, column: 1, kind: ProblemKind::ParserFailed }),
        }
        for p in &mut found {
            p.line = (p.line + first_row).saturating_sub(header_rows);
        }
        found
    }

    /// Up to `limit` problems, in source order (tree-sitter's and the line scan's merged).
    pub fn problems(&mut self, source: &str, limit: usize) -> Vec<SyntaxProblem> {
        let mut found = lines::problems(source, limit);
        match crate::python::parse(&mut self.parser, source) {
            Some(tree) => tree_problems(&tree, source, limit, &mut found),
            None => found.push(SyntaxProblem { line: 1, column: 1, kind: ProblemKind::ParserFailed }),
        }
        found.sort_by_key(|p| (p.line, p.column));
        found.dedup_by_key(|p| p.line);
        found.truncate(limit);
        found
    }
}

fn first(problems: Vec<SyntaxProblem>) -> Result<(), SyntaxProblem> {
    match problems.into_iter().next() {
        None => Ok(()),
        Some(p) => Err(p),
    }
}

/// Checks one source with a fresh [`Gate`]. Prefer a long-lived gate when checking many sources.
pub fn check(source: &str) -> Result<(), SyntaxProblem> {
    Gate::new().check(source)
}

/// Collects `ERROR` and `MISSING` nodes, in document order (only subtrees that contain an error are entered).
fn tree_problems(tree: &Tree, source: &str, limit: usize, out: &mut Vec<SyntaxProblem>) {
    let root = tree.root_node();
    let mut cursor = root.walk();
    let mut added = 0usize;
    loop {
        let node = cursor.node();
        let problem = node_problem(node, source);
        let descend = problem.is_none() && node.has_error();
        if let Some(kind) = problem {
            out.push(at(node, source, kind));
            added += 1;
            if added >= limit {
                return;
            }
        }
        if descend && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

fn node_problem(node: Node<'_>, source: &str) -> Option<ProblemKind> {
    if node.is_missing() {
        return Some(ProblemKind::Missing { expected: node.kind().to_string() });
    }
    if node.is_error() {
        let text = source.get(node.byte_range()).unwrap_or("");
        let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        let near: String = first.trim().chars().take(40).collect();
        return Some(ProblemKind::Unparsable { near });
    }
    None
}

fn at(node: Node<'_>, source: &str, kind: ProblemKind) -> SyntaxProblem {
    let p = node.start_position();
    SyntaxProblem { line: p.row as u32 + 1, column: char_column(source, node.start_byte(), p.column) + 1, kind }
}

/// Character column of a byte offset whose byte column on its line is `byte_col`.
fn char_column(source: &str, byte: usize, byte_col: usize) -> u32 {
    let start = byte.saturating_sub(byte_col);
    let mut end = byte.min(source.len());
    while end > start && !source.is_char_boundary(end) {
        end -= 1;
    }
    source.get(start..end).map_or(0, |s| s.chars().count() as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first(src: &str) -> Option<SyntaxProblem> {
        check(src).err()
    }

    #[test]
    fn valid_source_passes() {
        assert_eq!(first("def f(x):\n    return x + 1\n"), None);
        assert_eq!(first(""), None);
        assert_eq!(first("x = 1"), None);
        assert_eq!(first("return 1\n"), None, "compiler-stage errors pass");
    }

    #[test]
    fn missing_colon_is_reported_with_position() {
        let p = first("x = 1\nif x\n    pass\n").unwrap();
        assert_eq!(p.line, 2);
        assert!(p.column >= 1);
    }

    #[test]
    fn unclosed_bracket_is_reported() {
        let p = first("x = f(1,\ny = 2\n").unwrap();
        assert!(p.line <= 2, "{p}");
    }

    #[test]
    fn inconsistent_dedent_is_reported() {
        let p = first("def f():\n    if x:\n        a = 1\n      b = 2\n").unwrap();
        assert_eq!((p.line, p.column), (4, 7), "{p}");
        assert_eq!(p.kind, ProblemKind::UnindentMismatch);
    }

    #[test]
    fn unexpected_indent_is_reported() {
        let p = first("def f():\n    a = 1\n        b = 2\n").unwrap();
        assert_eq!((p.line, &p.kind), (3, &ProblemKind::UnexpectedIndent), "{p}");
        let p = first("  x = 1\n").unwrap();
        assert_eq!(p.kind, ProblemKind::UnexpectedIndent);
        assert_eq!(first("if x: pass\nelse:\n    y = (1,\n  2)\n"), None);
        assert_eq!(first("class A(\n    B\n):\n    x = 1\n"), None);
        assert_eq!(first("if a and \\\n   b:\n    pass\n"), None);
    }

    #[test]
    fn a_backslash_needs_a_line_to_join() {
        let p = first("x = \\\n\ny = 1\n").unwrap();
        assert_eq!(p.line, 2, "{p}");
        assert_eq!(first("x = [1, \\\n# c\n2]\n"), None);
        assert_eq!(first("x = 1 + \\\n    2\n"), None);
    }

    #[test]
    fn a_block_needs_an_indented_body() {
        let p = first("def f():\nx = 1\n").unwrap();
        assert_eq!((p.line, &p.kind), (2, &ProblemKind::ExpectedIndentedBlock), "{p}");
        let p = first("if x:\n    # only a comment\n").unwrap();
        assert_eq!(p.kind, ProblemKind::ExpectedIndentedBlock, "{p}");
        assert_eq!(first("d = {1:\n  2}\nx = a[1:]\nif x: y = 1\n"), None);
    }

    #[test]
    fn try_needs_a_handler() {
        let p = first("try:\n    x = 1\ny = 2\n").unwrap();
        assert_eq!(p.kind, ProblemKind::TryWithoutHandler, "{p}");
        assert_eq!(first("try:\n    x = 1\nfinally:\n    y = 2\n"), None);
    }

    #[test]
    fn tab_confusion_is_reported() {
        let p = first("if x:\n\tif y:\n\t\ta = 1\n        b = 2\n").unwrap();
        assert_eq!(p.line, 4, "{p}");
    }

    #[test]
    fn python2_print_is_reported() {
        let p = first("x = 1\nprint x\n").unwrap();
        assert_eq!(p.line, 2);
        assert!(matches!(p.kind, ProblemKind::Python2Statement { .. }), "{p}");
    }

    #[test]
    fn brackets_strings_and_continuations_do_not_confuse_the_indent_scan() {
        let src = "x = (1,\n  2)\ns = '''\n  text\n'''\ny = 1 + \\\n      2\nz = \"a#(\"\n";
        assert_eq!(first(src), None);
    }

    #[test]
    fn incremental_checks_agree_with_full_checks() {
        let old = "def f():\n    x = 1\n    return x\n";
        let mut gate = Gate::new();
        assert_eq!(gate.check(old), Ok(()));
        for replacement in ["    x = 2\n", "    x = (2\n", "x = 2\n", "        x = 2\n", ""] {
            let start = old.find("    x = 1").unwrap();
            let old_end = start + "    x = 1\n".len();
            let new = format!("{}{replacement}{}", &old[..start], &old[old_end..]);
            let edit = TextEdit { start, old_end, new_end: start + replacement.len() };
            let incremental = gate.check_edit(old, &new, edit);
            assert_eq!(incremental, Gate::new().check(&new), "{replacement:?}");
        }
        // A bogus range falls back to a full check.
        let bogus = TextEdit { start: 5, old_end: 1, new_end: 999 };
        assert_eq!(gate.check_edit(old, "x = (", bogus), Gate::new().check("x = ("));
    }

    #[test]
    fn columns_count_characters() {
        let p = first("s = 'é'; if\n").unwrap();
        assert_eq!(p.line, 1);
        assert!(p.column <= 13, "{p}");
    }
}
