//! Problems in a tree-sitter parse, for the syntax checks that read one (Java's, JavaScript's and TypeScript's): the
//! first `ERROR` or `MISSING` node, where it is in the source's lines and characters (or where the source ends), the
//! walk their checks beyond the grammar share, and a token shortened for a message.

use tree_sitter::Node;

use super::{ProblemKind, SyntaxProblem};

/// The first `ERROR` or `MISSING` node in document order, descending only into subtrees that hold one.
pub(super) fn first_problem(root: Node<'_>) -> Option<Node<'_>> {
    let mut node = root;
    'descend: loop {
        if node.is_missing() || node.is_error() {
            // An ERROR node's own first problem is itself: its children are what the parser skipped.
            return Some(node);
        }
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if child.has_error() || child.is_missing() {
                node = child;
                continue 'descend;
            }
        }
        return None;
    }
}

/// A syntax problem at `node`'s start, with `message`; the column counts characters, as CPython's do.
pub(super) fn problem_at(node: Node<'_>, source: &str, message: &str) -> SyntaxProblem {
    let at = node.start_position();
    let line_start = node.start_byte() - at.column;
    let column = source.get(line_start..node.start_byte()).map_or(at.column, |s| s.chars().count());
    SyntaxProblem::new(ProblemKind::Syntax, message, at.row as u32 + 1, column as u32 + 1)
}

/// A syntax problem at byte `at` of the source (a char boundary), its column counted in characters.
#[cfg(feature = "js")]
pub(super) fn problem_at_byte(source: &str, at: usize, message: &str) -> SyntaxProblem {
    let before = &source[..at];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = before.matches('\n').count() as u32 + 1;
    let column = before[line_start..].chars().count() as u32 + 1;
    SyntaxProblem::new(ProblemKind::Syntax, message, line, column)
}

/// The source before byte `at` with the comments and white space that end it passed over (a line comment is known
/// by its line opening with `//`).
#[cfg(feature = "js")]
pub(super) fn code_before(source: &str, mut at: usize) -> &str {
    loop {
        let before = source[..at].trim_end();
        if before.ends_with("*/")
            && let Some(open) = before.rfind("/*")
        {
            at = open;
            continue;
        }
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        if before[line_start..].trim_start().starts_with("//") {
            at = line_start;
            continue;
        }
        return before;
    }
}

/// A syntax problem at the end of the source, where compilers put a source that ends too soon: after its last line
/// break.
#[cfg(feature = "js")]
pub(super) fn problem_at_end(source: &str, message: &str) -> SyntaxProblem {
    let line = source.matches('\n').count() as u32 + 1;
    let column = source.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u32 + 1;
    SyntaxProblem::new(ProblemKind::Syntax, message, line, column)
}

/// A step of [`walk`]: a node entered (before its children) or left (after them).
pub(super) enum Step<'t> {
    Enter(Node<'t>),
    Leave(Node<'t>),
}

/// Walks the tree under `root` depth first, telling `visit` each node as it enters and as it leaves it; stops at the
/// first `Err`.
pub(super) fn walk<'t, E>(root: Node<'t>, mut visit: impl FnMut(Step<'t>) -> Result<(), E>) -> Result<(), E> {
    let mut cursor = root.walk();
    loop {
        visit(Step::Enter(cursor.node()))?;
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            visit(Step::Leave(cursor.node()))?;
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return Ok(());
            }
        }
    }
}

/// A token for a message: its first 20 characters, with an ellipsis when there are more.
pub(super) fn shorten(token: &str) -> String {
    match token.char_indices().nth(20) {
        Some((i, _)) => format!("{}…", &token[..i]),
        None => token.to_string(),
    }
}
