//! The languages the index understands, as rows of data: which files are theirs, which are tests, how they parse,
//! and which node kinds make classes, functions and base classes (a [`Grammar`]).
//!
//! Python is the first row and keeps AutoCodeRover's conventions exactly. Java (with the `java` feature) is the
//! second: classes, interfaces, enums, records and annotation types are classes; methods and constructors are
//! methods (each overload its own definition); a type declared inside another is named `Outer.Inner`; methods of
//! anonymous classes and enum-constant bodies belong to the enclosing named type; `extends` and `implements` name
//! the bases; test files follow Maven's and Gradle's conventions. A repository can mix both: each file is indexed
//! by its extension.

use tree_sitter::{Parser, Tree};

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

/// A language with a row in the index.
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

impl Language {
    /// Every language this build understands.
    pub const ALL: &'static [Language] = &[
        Language::Python,
        #[cfg(feature = "java")]
        Language::Java,
    ];

    /// The language of a file, by its extension; `None` for files the index does not read.
    pub fn of_path(path: &str) -> Option<Language> {
        let ext = path.rsplit_once('.').map(|(_, e)| e)?;
        Language::ALL.iter().copied().find(|l| l.extensions().contains(&ext))
    }

    /// The language's name, as prompts and messages write it.
    pub fn name(self) -> &'static str {
        match self {
            Language::Python => "Python",
            #[cfg(feature = "java")]
            Language::Java => "Java",
        }
    }

    /// The info string of a Markdown code block of this language (`python`, `java`).
    pub fn fence(self) -> &'static str {
        match self {
            Language::Python => "python",
            #[cfg(feature = "java")]
            Language::Java => "java",
        }
    }

    /// The language of a file's code block: its own, or Python's for files of no known language.
    pub fn fence_of(path: &str) -> &'static str {
        Language::of_path(path).unwrap_or_default().fence()
    }

    /// File extensions (without the dot).
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            Language::Python => &["py"],
            #[cfg(feature = "java")]
            Language::Java => &["java"],
        }
    }

    /// The node kinds and fields the index reads.
    pub fn grammar(self) -> &'static Grammar {
        match self {
            Language::Python => &PYTHON,
            #[cfg(feature = "java")]
            Language::Java => &JAVA,
        }
    }

    /// A parser set to this language.
    pub fn parser(self) -> Parser {
        let mut parser = Parser::new();
        let language: tree_sitter::Language = match self {
            Language::Python => tree_sitter_python::LANGUAGE.into(),
            #[cfg(feature = "java")]
            Language::Java => tree_sitter_java::LANGUAGE.into(),
        };
        parser.set_language(&language).expect("the bundled grammar matches the runtime");
        parser
    }

    /// Parses a file of this language; `None` only when the parser was cancelled. Python goes through
    /// [`crate::python::parse`] (comment runs blanked, so the parse stays linear).
    pub fn parse(self, parser: &mut Parser, text: &str) -> Option<Tree> {
        match self {
            Language::Python => crate::python::parse(parser, text),
            #[cfg(feature = "java")]
            Language::Java => parser.parse(text, None),
        }
    }

    /// Whether a file of this language is a test file. Python: AutoCodeRover's rule (a `test` or `tests` folder,
    /// `test_*` or `*_test.py`). Java: a `test` or `tests` folder (Maven's and Gradle's `src/test/java`) or the names
    /// their test runners pick up (`Test*.java`, `*Test.java`, `*Tests.java`, `*TestCase.java`).
    pub fn is_test_file(self, path: &str) -> bool {
        let (folders, name) = path.rsplit_once('/').unwrap_or(("", path));
        let in_test_folder = folders.split('/').any(|part| part == "test" || part == "tests");
        match self {
            Language::Python => in_test_folder || name.starts_with("test_") || name.ends_with("_test.py"),
            #[cfg(feature = "java")]
            Language::Java => {
                let stem = name.strip_suffix(".java").unwrap_or(name);
                let test_prefix = stem.strip_prefix("Test").is_some_and(|rest| rest.starts_with(char::is_uppercase));
                in_test_folder
                    || test_prefix
                    || ["Test", "Tests", "TestCase"].iter().any(|s| stem.ends_with(s) && stem.len() > s.len())
            }
        }
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
