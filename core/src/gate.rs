//! The syntax gate: would CPython accept this source?
//!
//! AutoCodeRover runs `pylint --errors-only` over every candidate file and looks for `syntax-error`; that takes
//! about a second per file and misses what CPython's compiler refuses after parsing (`return` outside a function, a
//! repeated keyword argument). This gate answers CPython 3.12's `compile(source, name, "exec")` question in a few
//! milliseconds, and reports the first problem with CPython's message, line and column:
//!
//! | stage | module | what it refuses |
//! |---|---|---|
//! | source | `source` | unknown or unusable encoding declarations, null bytes |
//! | tokens | `tokens` | CPython's tokenizer: indentation (`IndentationError`, `TabError`), unterminated strings, bad number literals, brackets, f-string structure |
//! | parse | `parser`, `stmt`, `expr`, `targets`, `params`, `patterns`, `strings` | CPython's PEG grammar, ported rule by rule with its `invalid_*` rules, so errors land where CPython puts them |
//! | symbols | `symbols` | the symbol table's errors: `nonlocal` and `global` misuse, duplicate parameters, `yield` in a comprehension |
//! | compile | `compile` | the compiler's: `return`/`yield`/`await` outside a function, `break`/`continue` outside a loop, repeated keyword arguments, `__debug__`, starred expressions, pattern rules |
//!
//! It follows one version's grammar, CPython 3.12 (the reference the tests compare with); where other versions
//! differ is listed in the README. Its agreement with CPython is measured by `core/tests/gate_cpython.rs`.

mod ast;
#[cfg(feature = "js")]
mod block_braces;
mod compile;
mod expr;
#[cfg(feature = "js")]
mod generic_arrows;
#[cfg(feature = "incremental")]
mod incremental;
#[cfg(feature = "java")]
pub mod java;
#[cfg(feature = "js")]
mod line_break_semicolons;
mod memo;
#[cfg(feature = "js")]
mod newer_typescript;
mod outline;
mod params;
mod parser;
mod parts;
mod patterns;
#[cfg(feature = "js")]
mod redeclaration;
#[cfg(feature = "js")]
mod regex_literal;
#[cfg(feature = "js")]
pub mod script;
#[cfg(feature = "js")]
mod script_grammar;
mod source;
mod stmt;
mod strings;
mod symbols;
mod targets;
mod tokens;
#[cfg(any(feature = "java", feature = "js"))]
mod tree_problems;
#[cfg(feature = "js")]
mod typescript_grammar;
#[cfg(feature = "js")]
mod viable_prefix;

use std::fmt;
use std::hash::{Hash, Hasher};

use serde::Serialize;

pub(crate) use outline::{Outline, outline};

/// The Python version whose grammar the gate follows.
pub const PYTHON_VERSION: (u8, u8) = (3, 12);

/// Which compiler's acceptance a syntax check reproduces: a property of a language's row
/// ([`crate::language::LanguageRow::syntax`]) that the [`Gate`] and the index act on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum SyntaxCheck {
    /// CPython 3.12's `compile(source, name, "exec")` ([`check`]).
    #[default]
    CPython312,
    /// `javac`'s parser's (the `gate::java` module), with the `java` feature.
    #[cfg(feature = "java")]
    Javac,
    /// V8's parser's, as `node --check` runs it (the `gate::script` module), with the `js` feature.
    #[cfg(feature = "js")]
    JavaScript,
    /// The `typescript` package's parser's, for `.ts` files (the `gate::script` module), with the `js` feature.
    #[cfg(feature = "js")]
    TypeScript,
    /// The same for `.tsx` files, which allow JSX.
    #[cfg(feature = "js")]
    Tsx,
    /// No check: a file of no language (a configuration, a requirements list, a page of documentation) is taken as
    /// written, as AutoCodeRover checks only Python files.
    Unchecked,
}

impl SyntaxCheck {
    /// `Ok` when the compiler would accept the source, otherwise the problem it reports.
    pub fn check(self, source: &str) -> Result<(), SyntaxProblem> {
        match self {
            SyntaxCheck::CPython312 => check(source),
            #[cfg(feature = "java")]
            SyntaxCheck::Javac => java::check(source),
            #[cfg(feature = "js")]
            SyntaxCheck::JavaScript => {
                script::check(tree_sitter_javascript::LANGUAGE.into(), script::Compiler::V8, source)
            }
            #[cfg(feature = "js")]
            SyntaxCheck::TypeScript => {
                script::check(tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(), script::Compiler::TypeScript, source)
            }
            #[cfg(feature = "js")]
            SyntaxCheck::Tsx => {
                script::check(tree_sitter_typescript::LANGUAGE_TSX.into(), script::Compiler::TypeScript, source)
            }
            SyntaxCheck::Unchecked => Ok(()),
        }
    }

    /// Whether an edit of a source that passed can be judged by re-checking only the top-level statements it
    /// touched (the CPython check can: its checks of one statement need little of the others).
    pub fn rechecks_edits(self) -> bool {
        self == SyntaxCheck::CPython312
    }

    /// Whether the check's parse also outlines a valid source's definitions, so that the index can read them from
    /// it instead of from tree-sitter ([`crate::index::gate_outline`]).
    pub fn outlines(self) -> bool {
        self == SyntaxCheck::CPython312
    }
}

/// Which kind of error CPython would raise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProblemKind {
    /// `SyntaxError` from the tokenizer or the parser.
    Syntax,
    /// `IndentationError`: unexpected indent, expected an indented block, unindent does not match.
    Indentation,
    /// `TabError`: tabs and spaces mixed so that the meaning depends on the tab width.
    Tab,
    /// `SyntaxError` raised after parsing, by the symbol table or the compiler (`'return' outside function`).
    Compile,
    /// The source cannot be read as Python source: an encoding declaration it cannot honour, or a null byte.
    Encoding,
    /// The source nests deeper than the gate checks (CPython itself gives up on such sources with a
    /// `MemoryError` or `RecursionError` at some depth).
    TooComplex,
}

/// The first syntax problem in a source: CPython's message, 1-based line and 1-based column in characters.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct SyntaxProblem {
    /// 1-based line number.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
    /// Which error CPython would raise.
    pub kind: ProblemKind,
    /// CPython's message, e.g. `expected ':'` or `'return' outside function`.
    pub message: String,
}

impl SyntaxProblem {
    pub(crate) fn new(kind: ProblemKind, message: impl Into<String>, line: u32, column: u32) -> SyntaxProblem {
        SyntaxProblem { line: line.max(1), column: column.max(1), kind, message: message.into() }
    }
}

impl fmt::Display for ProblemKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ProblemKind::Syntax | ProblemKind::Compile | ProblemKind::Encoding => "SyntaxError",
            ProblemKind::Indentation => "IndentationError",
            ProblemKind::Tab => "TabError",
            ProblemKind::TooComplex => "too complex",
        })
    }
}

impl fmt::Display for SyntaxProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}: {}", self.line, self.column, self.message)
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

/// A reusable syntax gate. It remembers the verdict on the last "old" text of [`Gate::check_edit`], so trying
/// several candidates against one file checks the file once; and the last Python text it saw pass, so that an edit
/// of it is judged by re-checking only the top-level statements the edit touched (the `incremental` module).
#[derive(Debug, Default)]
pub struct Gate {
    last_old: Option<(u64, usize, Result<(), SyntaxProblem>)>,
    syntax: SyntaxCheck,
    #[cfg(feature = "incremental")]
    passed: Option<incremental::Checked>,
}

impl Gate {
    /// A gate for CPython 3.12's grammar.
    pub fn new() -> Self {
        Gate::default()
    }

    /// Judges sources by `syntax` from now on (a language's row says which: Python's by CPython's rules, the
    /// default; Java's, with the `java` feature, by `javac`'s parser's).
    pub fn set_syntax(&mut self, syntax: SyntaxCheck) {
        if self.syntax != syntax {
            self.syntax = syntax;
            self.last_old = None;
            #[cfg(feature = "incremental")]
            {
                self.passed = None;
            }
        }
    }

    /// `Ok` when the source passes (for Python: CPython would compile it), otherwise the problem reported.
    pub fn check(&mut self, source: &str) -> Result<(), SyntaxProblem> {
        self.judge(source)
    }

    fn judge(&self, source: &str) -> Result<(), SyntaxProblem> {
        self.syntax.check(source)
    }

    /// Whether the edit that turned `old` into `new` breaks the source: for an `old` that passes, exactly
    /// [`Gate::check`] of `new`. For an `old` that already fails, the edit is not blamed for the problem the file
    /// had: `new` passes when its first problem is the old one (same message, on the same line once the lines the
    /// edit added or removed are counted). CPython reports one problem, so an edit after that problem is not seen.
    pub fn check_edit(&mut self, old: &str, new: &str, edit: TextEdit) -> Result<(), SyntaxProblem> {
        #[cfg(feature = "incremental")]
        if let Some(passed) = self.passed.as_ref().filter(|p| p.is(old)) {
            match passed.recheck(new) {
                Some(next) => self.passed = Some(next),
                None => self.remember(new)?,
            }
            return Ok(());
        }
        let problem = match self.remember(new) {
            Ok(()) => return Ok(()),
            Err(p) => p,
        };
        let before = self.old_verdict(old);
        match before {
            Ok(()) => Err(problem),
            Err(before) if same_problem(&before, &problem, old, new, edit) => Ok(()),
            Err(_) => Err(problem),
        }
    }

    fn old_verdict(&mut self, old: &str) -> Result<(), SyntaxProblem> {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        old.hash(&mut h);
        let key = h.finish();
        if let Some((k, len, verdict)) = &self.last_old
            && *k == key
            && *len == old.len()
        {
            return verdict.clone();
        }
        let verdict = self.remember(old);
        self.last_old = Some((key, old.len(), verdict.clone()));
        verdict
    }

    /// The verdict on `text`; a text that passes, of a language whose check re-checks edits, is remembered for
    /// [`Gate::check_edit`] (with the `incremental` feature).
    fn remember(&mut self, text: &str) -> Result<(), SyntaxProblem> {
        #[cfg(feature = "incremental")]
        if self.syntax.rechecks_edits() {
            if let Some(checked) = incremental::Checked::check(text)? {
                self.passed = Some(checked);
            }
            return Ok(());
        }
        self.judge(text)
    }
}

/// Whether `after` (a problem of `new`) is `before` (a problem of `old`) moved by the edit.
fn same_problem(before: &SyntaxProblem, after: &SyntaxProblem, old: &str, new: &str, edit: TextEdit) -> bool {
    if before.message != after.message || before.kind != after.kind {
        return false;
    }
    let line_of = |text: &str, at: usize| text.get(..at.min(text.len())).map_or(0, |s| s.matches('\n').count()) + 1;
    let valid = edit.start <= edit.old_end && edit.old_end <= old.len() && edit.new_end <= new.len();
    if !valid {
        return before.line == after.line;
    }
    let first = line_of(old, edit.start) as u32;
    let old_last = line_of(old, edit.old_end) as u32;
    let new_last = line_of(new, edit.new_end) as u32;
    let moved = |line: u32| if line > old_last { line + new_last - old_last } else { line };
    if before.line < first {
        after.line == before.line
    } else if before.line > old_last {
        after.line == moved(before.line)
    } else {
        after.line >= first && after.line <= new_last
    }
}

/// How much of the thread's stack the recursive parts of the gate may use before refusing a source as too complex
/// ([`ProblemKind::TooComplex`]). CPython refuses what nests deeper than its own limits (200 brackets, 100
/// indentation levels) before this is reached; the budget guards against the rest (thousands of unary operators or
/// chained binary operators) and keeps the gate inside a wasm instance's 1 MiB stack.
const STACK_BUDGET: usize = if cfg!(debug_assertions) { 1536 * 1024 } else { 640 * 1024 };

/// A stack-depth guard: where the stack stood when a check began.
pub(crate) struct Stack {
    base: usize,
}

impl Stack {
    fn here() -> usize {
        let marker = 0u8;
        std::hint::black_box(&marker) as *const u8 as usize
    }

    pub(crate) fn new() -> Stack {
        Stack { base: Self::here() }
    }

    /// Whether the stack has grown past the budget since [`Stack::new`] (stacks grow down on every target the
    /// core builds for).
    pub(crate) fn exhausted(&self) -> bool {
        self.base.saturating_sub(Self::here()) > STACK_BUDGET
    }

    pub(crate) fn problem(line: u32) -> SyntaxProblem {
        SyntaxProblem::new(ProblemKind::TooComplex, "the source nests too deeply to be checked", line, 1)
    }
}

/// Checks one source the way CPython 3.12's `compile(source, name, "exec")` does.
pub fn check(source: &str) -> Result<(), SyntaxProblem> {
    let text = source::prepare(source)?;
    let tokens = tokens::tokenize(&text);
    check_tokens(&text, &tokens).map(|_| ())
}

/// Parses and compiles a tokenised source: natively, a large one first in parts on several threads (when they all
/// pass, so does the source), and otherwise whole, which gives CPython's first problem.
fn check_tokens(text: &str, tokens: &tokens::Tokens) -> Result<parts::Passed, SyntaxProblem> {
    #[cfg(not(target_family = "wasm"))]
    if let Some(passed) = parts::parallel::check_in_parallel(text, tokens) {
        return Ok(passed);
    }
    parts::check(text, tokens, true)
}

#[cfg(test)]
mod tests;
