//! The node kinds and field names the index reads from each tree-sitter grammar ([`Grammar`]), one const per
//! language ([`PYTHON`], `JAVA`, `JAVASCRIPT`, `TYPESCRIPT`), and a parser set to a grammar. The languages' rows
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
    /// Nodes that wrap one definition, with the field that holds it (Python's decorators, JavaScript's `export`):
    /// the definition's unit starts at the wrapper.
    pub wrappers: &'static [(&'static str, &'static str)],
    /// Nodes that define a function by binding one to a name (JavaScript's `const f = () => ...`, a class field
    /// holding an arrow, an object's `key: function () {...}`), or a class by binding a class with no name of its
    /// own (`const Impl = class { ... }`); empty where a name is always declared with its function or class.
    pub bindings: &'static [Binding],
    /// Node kinds of a function value, which make a binding a function's definition.
    pub function_values: &'static [&'static str],
    /// Node kinds of a class's fields, which `search_class`'s member view shows whole.
    pub field_kinds: &'static [&'static str],
}

/// A node kind that binds a value to a name, and the fields of the two.
#[derive(Debug, Clone, Copy)]
pub struct Binding {
    /// The node kind (`variable_declarator`).
    pub kind: &'static str,
    /// The field holding the name.
    pub name: &'static str,
    /// The field holding the value.
    pub value: &'static str,
}

/// Node kinds of a name a binding can give a function: plain and private names, never a string or a computed key.
const BOUND_NAMES: &[&str] = &["identifier", "property_identifier", "private_property_identifier"];

impl Grammar {
    /// The name of the definition `node` is: its name field for a class or function kind; for a binding (see
    /// [`Grammar::bindings`]) the name it gives a function value or a class with no name of its own. `None` for
    /// every other node, and for a definition with no name or a name the parser had to invent.
    pub fn definition_name<'s>(&self, node: tree_sitter::Node<'_>, src: &'s [u8]) -> Option<&'s str> {
        let kind = node.kind();
        let name = if self.class_kinds.contains(&kind) || self.function_kinds.contains(&kind) {
            node.child_by_field_name(self.name_field)?
        } else {
            self.bound_function_name(node).or_else(|| self.bound_class(node).map(|(name, _)| name))?
        };
        let text = name.utf8_text(src).ok()?;
        (!text.is_empty() && !name.is_missing()).then_some(text)
    }

    /// Whether `node` binds a function value to a name (see [`Grammar::bindings`]).
    pub fn binds_function(&self, node: tree_sitter::Node<'_>) -> bool {
        self.bound_function_name(node).is_some()
    }

    /// The class `node` binds to a name, when it binds one that has no name of its own (`const Impl = class {}`).
    pub fn bound_class<'t>(
        &self,
        node: tree_sitter::Node<'t>,
    ) -> Option<(tree_sitter::Node<'t>, tree_sitter::Node<'t>)> {
        let (name, value) = self.bound(node)?;
        let anonymous_class =
            self.class_kinds.contains(&value.kind()) && value.child_by_field_name(self.name_field).is_none();
        anonymous_class.then_some((name, value))
    }

    /// The name node of a binding of a function value.
    fn bound_function_name<'t>(&self, node: tree_sitter::Node<'t>) -> Option<tree_sitter::Node<'t>> {
        let (name, value) = self.bound(node)?;
        self.function_values.contains(&value.kind()).then_some(name)
    }

    /// The name and value nodes of a binding whose name is a plain or private name.
    fn bound<'t>(&self, node: tree_sitter::Node<'t>) -> Option<(tree_sitter::Node<'t>, tree_sitter::Node<'t>)> {
        let binding = self.bindings.iter().find(|b| b.kind == node.kind())?;
        let value = node.child_by_field_name(binding.value)?;
        let name = node.child_by_field_name(binding.name)?;
        BOUND_NAMES.contains(&name.kind()).then_some((name, value))
    }

    /// The definition a node holds when it wraps one (see [`Grammar::wrappers`]).
    pub fn wrapped<'t>(&self, node: tree_sitter::Node<'t>) -> Option<tree_sitter::Node<'t>> {
        let (_, field) = self.wrappers.iter().find(|(kind, _)| *kind == node.kind())?;
        node.child_by_field_name(field)
    }
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
    wrappers: &[("decorated_definition", "definition")],
    bindings: &[],
    function_values: &[],
    field_kinds: &[],
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
    wrappers: &[],
    bindings: &[],
    function_values: &[],
    field_kinds: &["field_declaration", "constant_declaration"],
};

#[cfg(feature = "js")]
/// Node kinds of JavaScript's and TypeScript's functions, of every form (declarations, expressions, arrows,
/// methods): the syntax gate's scopes, and where `await` may be.
pub const SCRIPT_FUNCTIONS: &[&str] = &[
    "function_declaration",
    "generator_function_declaration",
    "function_expression",
    "function",
    "generator_function",
    "arrow_function",
    "method_definition",
];

/// The node kinds of a function value in JavaScript and TypeScript.
#[cfg(feature = "js")]
const SCRIPT_FUNCTION_VALUES: &[&str] = &["arrow_function", "function_expression", "function", "generator_function"];

/// The bindings JavaScript and TypeScript share: a declared variable and an object's property.
#[cfg(feature = "js")]
const SCRIPT_BINDINGS: [Binding; 2] = [
    Binding { kind: "variable_declarator", name: "name", value: "value" },
    Binding { kind: "pair", name: "key", value: "value" },
];

/// JavaScript's kinds (with the `js` feature): classes; functions in every form people write (declarations,
/// generators, methods with their getters, setters and private `#names`, and a function value bound to a variable,
/// a class field or an object's property); `extends` names the base.
#[cfg(feature = "js")]
pub const JAVASCRIPT: Grammar = Grammar {
    // `class` is a class expression: named (`cls => class Builder extends cls {}`), or bound to a name.
    class_kinds: &["class_declaration", "class"],
    function_kinds: &["function_declaration", "generator_function_declaration", "method_definition"],
    name_field: "name",
    base_holders: &["class_heritage"],
    base_wrappers: &[],
    base_kinds: &["identifier", "member_expression"],
    ignored_bases: &[],
    // Functions are defined inside any expression (callbacks, object literals): every subtree is walked.
    container_kinds: None,
    qualify_nested: false,
    wrappers: &[("export_statement", "declaration")],
    bindings: &[
        SCRIPT_BINDINGS[0],
        SCRIPT_BINDINGS[1],
        Binding { kind: "field_definition", name: "property", value: "value" },
    ],
    function_values: SCRIPT_FUNCTION_VALUES,
    field_kinds: &["field_definition"],
};

/// TypeScript's kinds (with the `js` feature), for both of tree-sitter-typescript's grammars (TypeScript and TSX):
/// JavaScript's, with abstract classes, interfaces and enums as classes, signatures (overloads, `declare`, interface
/// and abstract members) as functions, and `implements` and an interface's `extends` as bases.
#[cfg(feature = "js")]
pub const TYPESCRIPT: Grammar = Grammar {
    class_kinds: &[
        "class_declaration",
        "class",
        "abstract_class_declaration",
        "interface_declaration",
        "enum_declaration",
    ],
    function_kinds: &[
        "function_declaration",
        "generator_function_declaration",
        "method_definition",
        "function_signature",
        "method_signature",
        "abstract_method_signature",
    ],
    base_holders: &["class_heritage", "extends_type_clause"],
    base_wrappers: &["extends_clause", "implements_clause", "generic_type"],
    base_kinds: &["identifier", "member_expression", "type_identifier", "nested_type_identifier"],
    bindings: &[
        SCRIPT_BINDINGS[0],
        SCRIPT_BINDINGS[1],
        Binding { kind: "public_field_definition", name: "name", value: "value" },
    ],
    field_kinds: &["public_field_definition", "property_signature"],
    ..JAVASCRIPT
};

/// A parser set to a bundled tree-sitter grammar.
pub fn parser(language: tree_sitter::Language) -> Parser {
    let mut parser = Parser::new();
    parser.set_language(&language).expect("the bundled grammar matches the runtime");
    parser
}

/// Whether a node has an anonymous child token of `kind` (`async`, `get`, `type`, `declare`).
#[cfg(feature = "js")]
pub(crate) fn has_token(node: tree_sitter::Node<'_>, kind: &str) -> bool {
    let mut cursor = node.walk();
    node.children(&mut cursor).any(|c| !c.is_named() && c.kind() == kind)
}
