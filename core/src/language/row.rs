//! What a language's row holds ([`LanguageRow`]) and the pieces it is made of. Each field is plain data or a
//! function of the language's own files (`python`, `java`, `junit`) or of modules below the languages; a consumer
//! that needs something of its own per language reads a plain property of the row ([`SyntaxCheck`],
//! [`ClassView`]) and keeps the code that acts on it.

use tree_sitter::{Parser, Tree};

use crate::gate::SyntaxCheck;
use crate::grammar::Grammar;
use crate::runner::RunOutcome;

/// Everything the pipeline knows about one language.
#[derive(Debug)]
pub struct LanguageRow {
    /// The language's name, as prompts and messages write it (`Python`).
    pub name: &'static str,
    /// The info string of a Markdown code block of this language (`python`).
    pub fence: &'static str,
    /// File extensions (without the dot); a file is the language's by its extension.
    pub extensions: &'static [&'static str],
    /// The node kinds and fields the index reads.
    pub grammar: &'static Grammar,
    /// The tree-sitter grammar.
    pub tree_sitter: fn() -> tree_sitter::Language,
    /// Parses a file with a parser set to [`LanguageRow::tree_sitter`]; `None` only when the parser was cancelled.
    pub parse: fn(&mut Parser, &str) -> Option<Tree>,
    /// Whether a file of this language (by its path) is a test file.
    pub is_test_file: fn(&str) -> bool,
    /// The syntax gate's check: which compiler's acceptance it reproduces (and with it whether an edit is re-checked
    /// by the statements it touched, and whether the index reads valid files from the check's outline).
    pub syntax: SyntaxCheck,
    /// `search_class`'s signature view of a class.
    pub class_view: ClassView,
    /// How a reproducer is asked for, saved and run.
    pub reproducer: Reproducer,
    /// How the repository's own tests that touch a patch's files are run to catch regressions; `None` when they
    /// are not (they ran whole as the reproducer, or there is no such runner).
    pub regression: Option<TestRunner>,
    /// Whether the playground's in-tab runner (Python in the browser, or JavaScript on the page's own engine) can run
    /// this language's code.
    pub runs_in_tab: bool,
    /// How the definition-edit instructions show a definition: where one starts, an example, and the line comment
    /// a placeholder would be written with.
    pub definition: DefinitionShape,
}

/// How the instructions of definition edits show this language's definitions.
#[derive(Debug)]
pub struct DefinitionShape {
    /// Where a definition starts, after "from" (`its decorators and `def` or `class` line`).
    pub starts: &'static str,
    /// The example definition, as the instructions show it (the definition reader leaves a copy of it out).
    pub example: &'static str,
    /// The line comment a placeholder is written with (`#`).
    pub line_comment: &'static str,
}

/// Which lines of a class `search_class` shows as its signature (the `search` module draws them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClassView {
    /// AutoCodeRover's: the header, each method's decorators and `def` lines, and the plain class-level
    /// assignments, read from an indentation-structured parse.
    DefLines,
    /// The declaration up to its opening brace, every field, each member's head up to its opening brace, each enum
    /// constant's first line and the head of each type declared inside (Java's, JavaScript's and TypeScript's).
    #[cfg(any(feature = "java", feature = "js"))]
    MemberHeads,
}

/// How a language's reproducer is asked for, saved and run.
#[derive(Debug)]
pub struct Reproducer {
    /// The file a written reproducer is saved as, at the repository's root.
    pub file: &'static str,
    /// Files every run writes beside the repository's (path, text): a harness that compiles and runs the tests.
    pub harness: &'static [(&'static str, &'static str)],
    /// The command that runs the reproducer (with the harness).
    pub command: &'static str,
    /// The request for a reproducer of an issue (the wording reads the file and command from this row). The second
    /// text says where the code the issue names is defined (empty when nothing is known), put right after the issue.
    pub request: fn(&str, &str, &Reproducer) -> String,
    /// What a run must do to show the bug, as the request after a run that did not says it.
    pub must: &'static str,
    /// A helper the request shows for the script to paste and call; a script that calls it without pasting it gets
    /// it added ([`crate::script_check::mended`]).
    pub helper: Option<Helper>,
    /// The repository's own tests, run by the harness before any reproducer is asked for: when some fail on the
    /// original program they reproduce the issue. `None`: a reproducer is always written.
    pub project_tests: Option<ProjectTests>,
}

/// A function the reproducer request gives the model to put in its script.
#[derive(Debug)]
pub struct Helper {
    /// The name the script calls it by.
    pub name: &'static str,
    /// Its whole definition, as the request shows it.
    pub definition: &'static str,
}

/// How a run of the repository's own tests is read.
#[derive(Debug)]
pub struct ProjectTests {
    /// The tests the run reports as failed.
    pub failures: fn(&RunOutcome) -> Vec<&str>,
    /// The source of the failing tests, for a reviewer to read, found among the repository's files (path, text).
    pub failing_source: fn(&[(&str, &str)], &RunOutcome) -> String,
}

/// A script that runs the repository's own tests, one `PASS` or `FAIL` line per test (see [`crate::agent::regression`]).
#[derive(Debug)]
pub struct TestRunner {
    /// The script's file name in the run's folder.
    pub file: &'static str,
    /// The script.
    pub source: &'static str,
    /// Files the run needs beside the script (path, text): acr's TypeScript loader.
    pub with: &'static [(&'static str, &'static str)],
    /// The command that runs it, before the test files are named.
    pub command: &'static str,
    /// Whether the test file at `path`, whose text is `text`, loads one of the `changed` files of the row's language.
    pub touches: fn(path: &str, text: &str, changed: &[&str]) -> bool,
}

impl LanguageRow {
    /// Whether a path has one of the row's extensions.
    pub fn owns(&self, path: &str) -> bool {
        self.stem(path).is_some()
    }

    /// A path of this language without its extension (`pkg/mod.py` → `pkg/mod`).
    pub fn stem<'a>(&self, path: &'a str) -> Option<&'a str> {
        let (stem, ext) = path.rsplit_once('.')?;
        self.extensions.contains(&ext).then_some(stem)
    }
}

/// Whether a path has a folder named `test` or `tests`, and its file name.
pub(super) fn test_folder_and_name(path: &str) -> (bool, &str) {
    let (folders, name) = path.rsplit_once('/').unwrap_or(("", path));
    (folders.split('/').any(|part| part == "test" || part == "tests"), name)
}
