//! The languages the pipeline understands, one static row each ([`LanguageRow`]): the name and code-block tag
//! prompts use, which files are the language's and which of them are tests, how they parse and outline (and which
//! node kinds make classes, functions and base classes: a [`Grammar`]), the syntax check, how `search_class` renders
//! a class, how a reproducer is asked for, saved and run, how the repository's own tests check a patch, and whether
//! the playground's tab can run it. [`Language`] is the handle the faces pass around; [`Language::row`] is the one
//! place that tells the languages apart, and every consumer reads the row.
//!
//! Each row lives in its language's file (`python`, `java`) with the code that is the language's alone (its
//! test-file rule, its reproducer request, Python's regression runner script, Java's JUnit harness in `junit`);
//! what a row is made of is `row`; the grammars' node kinds are [`crate::grammar`]'s. Everything a row points
//! to sits here or below (the gate's [`SyntaxCheck`], the parser, the runner's outcome): the consumers above read it.
//!
//! Python is the first row and keeps AutoCodeRover's conventions exactly. Java (with the `java` feature) is the
//! second: classes, interfaces, enums, records and annotation types are classes; methods and constructors are
//! methods (each overload its own definition); a type declared inside another is named `Outer.Inner`; methods of
//! anonymous classes and enum-constant bodies belong to the enclosing named type; `extends` and `implements` name
//! the bases; test files follow Maven's and Gradle's conventions. A repository can mix both: each file is indexed
//! by its extension.

use tree_sitter::{Parser, Tree};

#[cfg(feature = "java")]
mod java;
#[cfg(feature = "js")]
mod javascript;
pub mod junit;
#[cfg(feature = "js")]
pub mod module_specifiers;
mod python;
mod row;
#[cfg(feature = "js")]
pub mod strip_types;

#[cfg(feature = "java")]
pub use crate::grammar::JAVA;
pub use crate::grammar::{Grammar, PYTHON};
#[cfg(feature = "js")]
pub use crate::grammar::{JAVASCRIPT, TYPESCRIPT};
#[cfg(feature = "java")]
pub use java::{JAVA_ROW, junit_reproducer};
#[cfg(feature = "js")]
pub use javascript::{
    JAVASCRIPT_ROW, TSX_ROW, TYPESCRIPT_LOADER, TYPESCRIPT_ROW, for_node, node_reproducer, runnable_typescript,
    runs_once_stripped, typescript_candidates,
};
pub use python::{PRINT_STACKTRACE, PYTHON_ROW, RUNNER, script_reproducer};
pub use row::{ClassView, DefinitionShape, Helper, LanguageRow, ProjectTests, Reproducer, TestRunner};

pub use crate::gate::SyntaxCheck;

/// A language with a row ([`Language::row`]): the serialisable handle the faces pass around.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Language {
    /// Python 3 (`.py`); also the language assumed for files of no known language.
    #[default]
    Python,
    /// Java (`.java`), with the `java` feature.
    #[cfg(feature = "java")]
    Java,
    /// JavaScript (`.js`, `.mjs`, `.cjs`, `.jsx`), with the `js` feature.
    #[cfg(feature = "js")]
    JavaScript,
    /// TypeScript (`.ts`, `.mts`, `.cts`), with the `js` feature.
    #[cfg(feature = "js")]
    TypeScript,
    /// TypeScript with JSX (`.tsx`), with the `js` feature: its own grammar.
    #[cfg(feature = "js")]
    Tsx,
}

impl Language {
    /// Every language this build understands.
    pub const ALL: &'static [Language] = &[
        Language::Python,
        #[cfg(feature = "java")]
        Language::Java,
        #[cfg(feature = "js")]
        Language::JavaScript,
        #[cfg(feature = "js")]
        Language::TypeScript,
        #[cfg(feature = "js")]
        Language::Tsx,
    ];

    /// The language's row: the one place that tells the languages apart.
    pub fn row(self) -> &'static LanguageRow {
        match self {
            Language::Python => &PYTHON_ROW,
            #[cfg(feature = "java")]
            Language::Java => &JAVA_ROW,
            #[cfg(feature = "js")]
            Language::JavaScript => &JAVASCRIPT_ROW,
            #[cfg(feature = "js")]
            Language::TypeScript => &TYPESCRIPT_ROW,
            #[cfg(feature = "js")]
            Language::Tsx => &TSX_ROW,
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
        crate::grammar::parser((self.row().tree_sitter)())
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
