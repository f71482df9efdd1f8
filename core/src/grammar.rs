//! The node kinds and field names the index reads from each tree-sitter grammar ([`Grammar`]), one const per
//! language ([`PYTHON`], `JAVA`), and a parser set to a grammar. The languages' rows
//! ([`crate::language::LanguageRow::grammar`]) point here; so does the Java syntax check, which reads the same kinds.

use tree_sitter::Parser;

/// Node kinds and field names that the index reads from a grammar: one per language.
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

/// Python's kinds: AutoCodeRover's four tables as its `ast` walk builds them.
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

/// Java's kinds.
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

/// A parser set to a bundled tree-sitter grammar.
pub fn parser(language: tree_sitter::Language) -> Parser {
    let mut parser = Parser::new();
    parser.set_language(&language).expect("the bundled grammar matches the runtime");
    parser
}
