//! The languages the pipeline understands, one static row each ([`LanguageRow`]): the name and code-block tag
//! prompts use, which files are the language's and which of them are tests, how they parse and outline (and which
//! node kinds make classes, functions and base classes: a [`Grammar`]), the syntax check, how `search_class` renders
//! a class, how a reproducer is asked for, saved and run, how the repository's own tests check a patch, and whether
//! the playground's tab can run it. [`Language`] is the handle the faces pass around; [`Language::row`] is the one
//! place that tells the languages apart, and every consumer reads the row.
//!
//! Python is the first row and keeps AutoCodeRover's conventions exactly. Java (with the `java` feature) is the
//! second: classes, interfaces, enums, records and annotation types are classes; methods and constructors are
//! methods (each overload its own definition); a type declared inside another is named `Outer.Inner`; methods of
//! anonymous classes and enum-constant bodies belong to the enclosing named type; `extends` and `implements` name
//! the bases; test files follow Maven's and Gradle's conventions. A repository can mix both: each file is indexed
//! by its extension.

use tree_sitter::{Parser, Tree};

use crate::gate::SyntaxProblem;
use crate::index::ParsedFile;
use crate::repo::Repo;
use crate::runner::RunOutcome;
use crate::search::LineTable;

/// Node kinds and field names that the index reads from a grammar: one row per [`Language`].
#[derive(Debug, Clone, Copy)]
pub struct Grammar {
    /// Node kinds of class-like definitions.
    pub class_kinds: &'static [&'static str],
    /// Node kinds of function-like definitions (functions, methods, constructors).
    pub function_kinds: &'static [&'static str],
    /// Field holding a definition's name.
    pub name_field: &'static str,
    /// Kinds of a class's direct children that list its bases (Python's superclass list, Java's `extends` and
    /// `implements` clauses).
    pub base_holders: &'static [&'static str],
    /// Kinds inside a base list that are looked into for names (Java's type lists and generic types).
    pub base_wrappers: &'static [&'static str],
    /// Node kinds inside the base list that name a base class (plain and dotted names).
    pub base_kinds: &'static [&'static str],
    /// Base class names that carry no information and are dropped.
    pub ignored_bases: &'static [&'static str],
    /// Node kinds that can hold definitions: the walk skips every other subtree, such as expressions, unless it
    /// contains a syntax error. `None`: every subtree can (Java's anonymous classes sit in expressions).
    pub container_kinds: Option<&'static [&'static str]>,
    /// Whether a class declared inside another is named `Outer.Inner` (Java) or by its own name (Python, as ACR).
    pub qualify_nested: bool,
}

/// A language with a row ([`Language::row`]): the serialisable handle the faces pass around.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Language {
    /// Python 3 (`.py`); also the language assumed for files of no known language.
    #[default]
    Python,
    /// Java (`.java`), with the `java` feature.
    #[cfg(feature = "java")]
    Java,
}

/// The Python row: AutoCodeRover's four tables as its `ast` walk builds them.
pub const PYTHON: Grammar = Grammar {
    class_kinds: &["class_definition"],
    function_kinds: &["function_definition"],
    name_field: "name",
    base_holders: &["argument_list"],
    base_wrappers: &[],
    base_kinds: &["identifier", "attribute"],
    ignored_bases: &["object", "type"],
    container_kinds: Some(&[
        "module",
        "block",
        "class_definition",
        "function_definition",
        "decorated_definition",
        "if_statement",
        "elif_clause",
        "else_clause",
        "for_statement",
        "while_statement",
        "try_statement",
        "except_clause",
        "finally_clause",
        "with_statement",
        "match_statement",
        "case_clause",
    ]),
    qualify_nested: false,
};

/// The Java row.
#[cfg(feature = "java")]
pub const JAVA: Grammar = Grammar {
    class_kinds: &[
        "class_declaration",
        "interface_declaration",
        "enum_declaration",
        "record_declaration",
        "annotation_type_declaration",
    ],
    function_kinds: &["method_declaration", "constructor_declaration", "compact_constructor_declaration"],
    name_field: "name",
    base_holders: &["superclass", "super_interfaces", "extends_interfaces"],
    base_wrappers: &["type_list", "generic_type"],
    base_kinds: &["type_identifier", "scoped_type_identifier"],
    ignored_bases: &["Object", "java.lang.Object"],
    // Anonymous classes (and their methods) can sit in any expression: every subtree is walked.
    container_kinds: None,
    qualify_nested: true,
};

/// Everything the pipeline knows about one language. Each function points into the module that implements it.
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
    /// A faster reader of a file's definitions than the tree-sitter walk, giving the same [`ParsedFile`] for sources
    /// it accepts; `None` (from the reader) sends the file to tree-sitter.
    pub outline: Option<fn(&str, &str) -> Option<ParsedFile>>,
    /// Whether a file of this language (by its path) is a test file.
    pub is_test_file: fn(&str) -> bool,
    /// The syntax gate's check: `Ok` when the language's compiler would accept the source.
    pub check: fn(&str) -> Result<(), SyntaxProblem>,
    /// Whether the gate judges an edit of a source that passed by re-checking only the top-level statements the
    /// edit touched (the Python gate can: its checks of one statement need little of the others).
    pub rechecks_edits: bool,
    /// `search_class`'s signature view of the class declared from line `start` to `end` (1-based): the lines shown,
    /// or `None` when no class starts there.
    pub(crate) class_signature: fn(&str, &LineTable, u32, u32) -> Option<Vec<u32>>,
    /// How a reproducer is asked for, saved and run.
    pub reproducer: Reproducer,
    /// How the repository's own tests that touch a patch's files are run to catch regressions; `None` when they
    /// are not (they ran whole as the reproducer, or there is no such runner).
    pub regression: Option<TestRunner>,
    /// Whether the playground's in-tab runner (Python in the browser) can run this language's code.
    pub runs_in_tab: bool,
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
    /// The request for a reproducer of an issue (the wording reads the file and command from this row).
    pub request: fn(&str, &Reproducer) -> String,
    /// What a run must do to show the bug, as the request after a run that did not says it.
    pub must: &'static str,
    /// The repository's own tests, run by the harness before any reproducer is asked for: when some fail on the
    /// original program they reproduce the issue. `None`: a reproducer is always written.
    pub project_tests: Option<ProjectTests>,
}

/// How a run of the repository's own tests is read.
#[derive(Debug)]
pub struct ProjectTests {
    /// The tests the run reports as failed.
    pub failures: fn(&RunOutcome) -> Vec<&str>,
    /// The source of the failing tests, for a reviewer to read.
    pub failing_source: fn(&Repo, &RunOutcome) -> String,
}

/// A script that runs the repository's own tests, one `PASS` or `FAIL` line per test (see [`crate::agent::regression`]).
#[derive(Debug)]
pub struct TestRunner {
    /// The script's file name in the run's folder.
    pub file: &'static str,
    /// The script.
    pub source: &'static str,
    /// The command that runs it, before the test files are named.
    pub command: &'static str,
}

/// The Python row: AutoCodeRover's conventions.
pub static PYTHON_ROW: LanguageRow = LanguageRow {
    name: "Python",
    fence: "python",
    extensions: &["py"],
    grammar: &PYTHON,
    tree_sitter: || tree_sitter_python::LANGUAGE.into(),
    parse: crate::python::parse,
    outline: Some(crate::index::gate_outline),
    is_test_file: python_test_file,
    check: crate::gate::check,
    rechecks_edits: true,
    class_signature: crate::search::python_class_signature,
    reproducer: Reproducer {
        file: "reproducer.py",
        harness: &[],
        command: "python3 reproducer.py",
        request: crate::prompt::text::script_reproducer,
        must: "it must exit non-zero with an AssertionError",
        project_tests: None,
    },
    regression: Some(TestRunner {
        file: "acr_run_tests.py",
        source: crate::agent::regression::RUNNER,
        command: "python3 acr_run_tests.py",
    }),
    runs_in_tab: true,
};

/// The Java row.
#[cfg(feature = "java")]
pub static JAVA_ROW: LanguageRow = LanguageRow {
    name: "Java",
    fence: "java",
    extensions: &["java"],
    grammar: &JAVA,
    tree_sitter: || tree_sitter_java::LANGUAGE.into(),
    parse: |parser, text| parser.parse(text, None),
    outline: None,
    is_test_file: java_test_file,
    check: crate::gate::java::check,
    rechecks_edits: false,
    class_signature: |src, table, start, _end| crate::search::java_class_signature(src, table, start),
    reproducer: Reproducer {
        // At the repository's root: the compiler reads a class's package from the file, not its folder.
        file: "AcrReproducerTest.java",
        harness: &[(crate::agent::junit::HARNESS_FILE, crate::agent::junit::HARNESS)],
        command: crate::agent::junit::COMMAND,
        request: crate::prompt::text::junit_reproducer,
        must: "its test must fail, and the code must compile",
        project_tests: Some(ProjectTests {
            failures: crate::agent::junit::failures,
            failing_source: crate::agent::junit::failing_tests_source,
        }),
    },
    // The written reproducer runs with every test of the repository already.
    regression: None,
    runs_in_tab: false,
};

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
fn test_folder_and_name(path: &str) -> (bool, &str) {
    let (folders, name) = path.rsplit_once('/').unwrap_or(("", path));
    (folders.split('/').any(|part| part == "test" || part == "tests"), name)
}

/// AutoCodeRover's rule: a `test` or `tests` folder, `test_*` or `*_test.py`.
fn python_test_file(path: &str) -> bool {
    let (in_test_folder, name) = test_folder_and_name(path);
    in_test_folder || name.starts_with("test_") || name.ends_with("_test.py")
}

/// A `test` or `tests` folder (Maven's and Gradle's `src/test/java`) or the names their test runners pick up
/// (`Test*.java`, `*Test.java`, `*Tests.java`, `*TestCase.java`).
#[cfg(feature = "java")]
fn java_test_file(path: &str) -> bool {
    let (in_test_folder, name) = test_folder_and_name(path);
    let stem = name.strip_suffix(".java").unwrap_or(name);
    let test_prefix = stem.strip_prefix("Test").is_some_and(|rest| rest.starts_with(char::is_uppercase));
    in_test_folder
        || test_prefix
        || ["Test", "Tests", "TestCase"].iter().any(|s| stem.ends_with(s) && stem.len() > s.len())
}

impl Language {
    /// Every language this build understands.
    pub const ALL: &'static [Language] = &[
        Language::Python,
        #[cfg(feature = "java")]
        Language::Java,
    ];

    /// The language's row: the one place that tells the languages apart.
    pub fn row(self) -> &'static LanguageRow {
        match self {
            Language::Python => &PYTHON_ROW,
            #[cfg(feature = "java")]
            Language::Java => &JAVA_ROW,
        }
    }

    /// The language of a file, by its extension; `None` for files the index does not read.
    pub fn of_path(path: &str) -> Option<Language> {
        Language::ALL.iter().copied().find(|l| l.row().owns(path))
    }

    /// The language of a file, or the default (Python) for files of no known language.
    pub fn for_path(path: &str) -> Language {
        Language::of_path(path).unwrap_or_default()
    }

    /// A regular-expression group matching the extension of any language of this build (`(?:py|java)`).
    pub fn extension_pattern() -> String {
        let extensions: Vec<&str> = Language::ALL.iter().flat_map(|l| l.extensions().iter().copied()).collect();
        format!("(?:{})", extensions.join("|"))
    }

    /// The language's name, as prompts and messages write it.
    pub fn name(self) -> &'static str {
        self.row().name
    }

    /// The info string of a Markdown code block of this language (`python`, `java`).
    pub fn fence(self) -> &'static str {
        self.row().fence
    }

    /// The language of a file's code block: its own, or Python's for files of no known language.
    pub fn fence_of(path: &str) -> &'static str {
        Language::for_path(path).fence()
    }

    /// File extensions (without the dot).
    pub fn extensions(self) -> &'static [&'static str] {
        self.row().extensions
    }

    /// The node kinds and fields the index reads.
    pub fn grammar(self) -> &'static Grammar {
        self.row().grammar
    }

    /// A parser set to this language.
    pub fn parser(self) -> Parser {
        let mut parser = Parser::new();
        parser.set_language(&(self.row().tree_sitter)()).expect("the bundled grammar matches the runtime");
        parser
    }

    /// Parses a file of this language; `None` only when the parser was cancelled. Python goes through
    /// [`crate::python::parse`] (comment runs blanked, so the parse stays linear).
    pub fn parse(self, parser: &mut Parser, text: &str) -> Option<Tree> {
        (self.row().parse)(parser, text)
    }

    /// Whether a file of this language is a test file. Python: AutoCodeRover's rule (a `test` or `tests` folder,
    /// `test_*` or `*_test.py`). Java: a `test` or `tests` folder (Maven's and Gradle's `src/test/java`) or the names
    /// their test runners pick up (`Test*.java`, `*Test.java`, `*Tests.java`, `*TestCase.java`).
    pub fn is_test_file(self, path: &str) -> bool {
        (self.row().is_test_file)(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_recognised_by_extension() {
        assert_eq!(Language::of_path("pkg/m.py"), Some(Language::Python));
        assert_eq!(Language::of_path("README.md"), None);
        assert_eq!(Language::of_path("Makefile"), None);
        assert_eq!(Language::of_path("dir.py/notes"), None);
    }

    #[test]
    fn each_file_belongs_to_at_most_one_row() {
        let mut seen: Vec<&str> = Vec::new();
        for &language in Language::ALL {
            let row = language.row();
            assert!(!row.name.is_empty() && !row.fence.is_empty() && !row.reproducer.file.is_empty());
            for ext in row.extensions {
                assert!(!seen.contains(ext), "{ext} is claimed twice");
                seen.push(ext);
                assert_eq!(Language::of_path(&format!("pkg/m.{ext}")), Some(language));
                assert!(Language::extension_pattern().contains(ext));
            }
            assert_eq!(row.stem(&format!("pkg/m.{}", row.extensions[0])), Some("pkg/m"));
        }
        assert_eq!(Language::for_path("README.md"), Language::default());
    }

    #[test]
    fn python_tests_follow_autocoderover() {
        let py = Language::Python;
        assert!(py.is_test_file("tests/test_x.py") && py.is_test_file("pkg/test/helpers.py"));
        assert!(py.is_test_file("pkg/test_models.py") && py.is_test_file("pkg/models_test.py"));
        assert!(!py.is_test_file("pkg/testing.py") && !py.is_test_file("pkg/contest/a.py"));
        assert!(!py.is_test_file("pkg/latest_test_utils.py"));
    }

    #[cfg(feature = "java")]
    #[test]
    fn java_tests_follow_maven_and_gradle() {
        let java = Language::Java;
        assert_eq!(Language::of_path("src/main/java/a/B.java"), Some(java));
        assert!(java.is_test_file("src/test/java/shop/CartTest.java"));
        assert!(java.is_test_file("app/CartTests.java") && java.is_test_file("app/CartTestCase.java"));
        assert!(java.is_test_file("app/TestCart.java"));
        assert!(!java.is_test_file("src/main/java/shop/Cart.java"));
        assert!(!java.is_test_file("src/main/java/shop/Testament.java"), "Test followed by a lower-case letter");
        assert!(!java.is_test_file("src/main/java/shop/Test.java"), "a class named Test is not a test by name");
        assert!(!java.is_test_file("src/main/java/contest/Entry.java"));
    }
}
