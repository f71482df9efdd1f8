//! TypeScript run as JavaScript, by removing its types: [`strip_types`] blanks every annotation, type declaration,
//! type argument and modifier JavaScript does not have with spaces (line breaks kept), so each remaining token stays
//! on its line and in its column and a stack trace points into the TypeScript source. It is what Node's own type
//! stripping does, done here so that Node 20 and the playground's tab can run TypeScript with no compiler.
//!
//! Two constructs have a runtime meaning and are rewritten on their own lines instead: an `enum` becomes the object
//! TypeScript emits for it, and a constructor's parameter properties (`constructor(private x: number)`) become
//! assignments at the start of its body (after its `super(...)` call). Imports TypeScript would leave out, those of
//! names used only as types, are left out as it does. What needs a compiler is refused by name ([`Unrunnable`]):
//! namespaces holding values, `import x = require(...)`, `export =` and decorators.

use std::collections::HashSet;
use std::fmt;
use std::ops::Range;

use tree_sitter::{Node, Parser};

use crate::grammar::has_token;

/// Why a TypeScript source cannot be run by removing its types.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unrunnable {
    /// What stands in the way, in words (`a namespace holding values`).
    pub what: &'static str,
    /// Its line, from 1.
    pub line: usize,
}

impl fmt::Display for Unrunnable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {} needs the TypeScript compiler, not only its types removed", self.line, self.what)
    }
}

impl std::error::Error for Unrunnable {}

/// The JavaScript of a TypeScript source (`tsx`: with JSX, parsed with the TSX grammar, whose JSX stays as it is).
pub fn strip_types(source: &str, tsx: bool) -> Result<String, Unrunnable> {
    let language = if tsx {
        tree_sitter_typescript::LANGUAGE_TSX.into()
    } else {
        tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()
    };
    let mut parser = Parser::new();
    parser.set_language(&language).map_err(|_| Unrunnable { what: "the TypeScript grammar", line: 1 })?;
    let tree = parser.parse(source, None).ok_or(Unrunnable { what: "parsing", line: 1 })?;
    let root = tree.root_node();
    if root.has_error() {
        let line = first_error(root).map_or(1, |n| n.start_position().row + 1);
        return Err(Unrunnable { what: "a syntax error", line });
    }
    let mut edits = Edits { source, list: Vec::new() };
    edits.visit(root)?;
    edits.leave_out_type_only_imports(root);
    Ok(edits.apply())
}

/// The names a TypeScript module exports as values, read from its top-level `export` statements (a declaration's
/// names, an export list's names), and whether it has a default export: what a module standing in for it must export
/// for the modules that import it to link. Type-only exports are left out.
pub fn exported_names(source: &str) -> (Vec<String>, bool) {
    let mut parser = Parser::new();
    let language = tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into();
    let Some(tree) = parser.set_language(&language).ok().and_then(|()| parser.parse(source, None)) else {
        return (Vec::new(), false);
    };
    let root = tree.root_node();
    let text = |n: Node| source[n.byte_range()].to_string();
    let (mut names, mut default) = (Vec::new(), false);
    let mut cursor = root.walk();
    for export in root.named_children(&mut cursor).filter(|n| n.kind() == "export_statement") {
        default |= has_token(export, "default");
        if has_token(export, "type") {
            continue;
        }
        let mut inner = export.walk();
        for part in export.named_children(&mut inner) {
            match part.kind() {
                "lexical_declaration" | "variable_declaration" => {
                    let mut declarators = part.walk();
                    names.extend(
                        part.named_children(&mut declarators)
                            .filter_map(|d| d.child_by_field_name("name"))
                            .filter(|n| n.kind() == "identifier")
                            .map(text),
                    );
                }
                "export_clause" => {
                    let mut specifiers = part.walk();
                    for specifier in part.named_children(&mut specifiers).filter(|s| !has_token(*s, "type")) {
                        let name = specifier.child_by_field_name("alias").or(specifier.child_by_field_name("name"));
                        names.extend(name.filter(|n| n.kind() == "identifier").map(text));
                    }
                }
                kind if !is_type_only_declaration(part) && kind.ends_with("declaration")
                    || kind == "internal_module" =>
                {
                    names.extend(
                        part.child_by_field_name("name")
                            .filter(|n| n.kind() == "identifier" || n.kind() == "type_identifier")
                            .map(text),
                    );
                }
                _ => {}
            }
        }
    }
    names.sort();
    names.dedup();
    (names, default)
}

fn first_error(mut node: Node) -> Option<Node> {
    loop {
        if node.is_error() || node.is_missing() {
            return Some(node);
        }
        let mut cursor = node.walk();
        node = node.children(&mut cursor).find(|c| c.has_error() || c.is_missing())?;
    }
}

/// One change to the source.
enum Edit {
    /// Spaces in place of the bytes' characters, line breaks kept.
    Blank(Range<usize>),
    /// Text put in at a byte.
    Insert(usize, String),
    /// Text in place of the bytes (an enum's parts, on their own lines).
    Replace(Range<usize>, String),
}

impl Edit {
    fn start(&self) -> usize {
        match self {
            Edit::Blank(r) | Edit::Replace(r, _) => r.start,
            Edit::Insert(at, _) => *at,
        }
    }
}

/// Which children of a node the walk goes on with.
enum Next<'t> {
    /// None: the node is done with (blanked, rewritten, or a leaf).
    Done,
    /// All of them.
    Children,
    /// This one alone.
    Child(Node<'t>),
}

/// The node kinds that are types or type declarations through and through.
const TYPE_ONLY: &[&str] = &[
    "type_annotation",
    "opting_type_annotation",
    "omitting_type_annotation",
    "adding_type_annotation",
    "asserts_annotation",
    "type_predicate_annotation",
    "type_parameters",
    "type_arguments",
    "implements_clause",
    "interface_declaration",
    "type_alias_declaration",
    "ambient_declaration",
    "function_signature",
    "abstract_method_signature",
    "method_signature",
    "index_signature",
    "accessibility_modifier",
    "override_modifier",
];

struct Edits<'a> {
    source: &'a str,
    list: Vec<Edit>,
}

impl Edits<'_> {
    fn text(&self, node: Node) -> &str {
        &self.source[node.byte_range()]
    }

    fn blank(&mut self, range: Range<usize>) {
        self.list.push(Edit::Blank(range));
    }

    /// Blanks a node and the comma that follows it in its list, if one does.
    fn blank_with_comma(&mut self, node: Node) {
        let end = match node.next_sibling() {
            Some(next) if next.kind() == "," => next.end_byte(),
            _ => node.end_byte(),
        };
        self.blank(node.start_byte()..end);
    }

    fn refuse<'t>(node: Node, what: &'static str) -> Result<Next<'t>, Unrunnable> {
        Err(Unrunnable { what, line: node.start_position().row + 1 })
    }

    /// Walks the tree from `root` in the source's order with a stack of its own (a deeply nested source cannot
    /// exhaust the thread's), each node as [`Edits::step`] says.
    fn visit(&mut self, root: Node<'_>) -> Result<(), Unrunnable> {
        let mut pending = vec![root];
        while let Some(node) = pending.pop() {
            match self.step(node)? {
                Next::Done => {}
                Next::Child(child) => pending.push(child),
                Next::Children => {
                    let mut cursor = node.walk();
                    let children: Vec<Node> = node.children(&mut cursor).collect();
                    pending.extend(children.into_iter().rev());
                }
            }
        }
        Ok(())
    }

    /// Blanks the unnamed tokens of `node` among `tokens` (`readonly`, `?`, `!`, `abstract`, `declare`).
    fn blank_tokens(&mut self, node: Node, tokens: &[&str]) {
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if !child.is_named() && tokens.contains(&child.kind()) {
                self.blank(child.byte_range());
            }
        }
    }

    /// What to do at `node`: its edits, and which of its children to walk.
    fn step<'t>(&mut self, node: Node<'t>) -> Result<Next<'t>, Unrunnable> {
        let kind = node.kind();
        if TYPE_ONLY.contains(&kind) {
            self.blank(node.byte_range());
            return Ok(Next::Done);
        }
        match kind {
            "decorator" => Self::refuse(node, "a decorator"),
            "import_alias" | "import_require_clause" => Self::refuse(node, "`import ... =`"),
            "export_statement" => self.export(node),
            "import_statement" => self.import(node),
            "import_specifier" | "export_specifier" if has_token(node, "type") => {
                self.blank_with_comma(node);
                Ok(Next::Done)
            }
            "expression_statement" => match node.named_child(0) {
                Some(module) if matches!(module.kind(), "internal_module" | "module") => self.namespace(node, module),
                _ => Ok(Next::Children),
            },
            "internal_module" | "module" => self.namespace(node, node),
            "enum_declaration" => self.enumeration(node),
            "as_expression" | "satisfies_expression" => {
                let value = node.named_child(0).expect("an expression before `as`");
                self.blank(value.end_byte()..node.end_byte());
                Ok(Next::Child(value))
            }
            "non_null_expression" => {
                self.blank(node.end_byte() - 1..node.end_byte());
                Ok(Next::Children)
            }
            "public_field_definition" => {
                if has_token(node, "declare") || has_token(node, "abstract") {
                    self.blank(node.byte_range());
                    return Ok(Next::Done);
                }
                self.blank_tokens(node, &["readonly", "?", "!"]);
                Ok(Next::Children)
            }
            "variable_declarator" => {
                self.blank_tokens(node, &["!"]);
                Ok(Next::Children)
            }
            "method_definition" => {
                self.blank_tokens(node, &["?"]);
                if node.child_by_field_name("name").is_some_and(|n| self.text(n) == "constructor") {
                    self.parameter_properties(node)?;
                }
                Ok(Next::Children)
            }
            "required_parameter" | "optional_parameter" => {
                if node.child_by_field_name("pattern").is_some_and(|p| p.kind() == "this") {
                    self.blank_with_comma(node);
                    return Ok(Next::Done);
                }
                self.blank_tokens(node, &["readonly", "?"]);
                Ok(Next::Children)
            }
            "abstract_class_declaration" => {
                self.blank_tokens(node, &["abstract"]);
                Ok(Next::Children)
            }
            _ => Ok(Next::Children),
        }
    }

    /// `export` of a type-only declaration goes with it; `export =` and `export as namespace` are a module system
    /// of their own.
    fn export<'t>(&mut self, node: Node<'t>) -> Result<Next<'t>, Unrunnable> {
        if has_token(node, "=") {
            return Self::refuse(node, "`export =`");
        }
        let declaration = node.child_by_field_name("declaration");
        let type_only = declaration.is_some_and(|d| is_type_only_declaration(d));
        if type_only || has_token(node, "type") || has_token(node, "as") && has_token(node, "namespace") {
            self.blank(node.byte_range());
            return Ok(Next::Done);
        }
        Ok(Next::Children)
    }

    fn import<'t>(&mut self, node: Node<'t>) -> Result<Next<'t>, Unrunnable> {
        let clause = node.named_child(0).filter(|c| c.kind() == "import_clause");
        if has_token(node, "type") && clause.is_some() {
            self.blank(node.byte_range());
            return Ok(Next::Done);
        }
        Ok(Next::Children)
    }

    /// A namespace of types alone is blanked; one holding values would need TypeScript's rewriting.
    fn namespace<'t>(&mut self, statement: Node, module: Node) -> Result<Next<'t>, Unrunnable> {
        if is_type_only_declaration(module) {
            self.blank(statement.byte_range());
            Ok(Next::Done)
        } else {
            Self::refuse(module, "a namespace holding values")
        }
    }

    /// `enum E { A, B = 5, C = "c" }` as TypeScript emits it, each member on its own line:
    /// `var E; (function (E) { E[E["A"] = 0] = "A"; ... })(E || (E = {}));`. A member with no value follows the one
    /// before by one, counted here when that one is a whole number written out (as TypeScript counts them).
    fn enumeration<'t>(&mut self, node: Node) -> Result<Next<'t>, Unrunnable> {
        let (Some(name), Some(body)) = (node.child_by_field_name("name"), node.child_by_field_name("body")) else {
            return Self::refuse(node, "an enum without a name or body");
        };
        let name = self.text(name).to_string();
        self.list.push(Edit::Replace(node.start_byte()..body.start_byte(), format!("var {name}; (function ({name}) ")));
        // The member before: its key, and its value when it is a whole number written out.
        let mut previous: Option<(String, Option<i64>)> = None;
        let mut cursor = body.walk();
        for member in body.children(&mut cursor) {
            let (key_node, value) = match member.kind() {
                "enum_assignment" => (member.child_by_field_name("name"), member.child_by_field_name("value")),
                "property_identifier" | "string" | "number" | "computed_property_name" => (Some(member), None),
                "," => {
                    self.blank(member.byte_range());
                    continue;
                }
                "}" => {
                    self.list.push(Edit::Replace(member.byte_range(), format!("}})({name} || ({name} = {{}}));")));
                    continue;
                }
                _ => continue,
            };
            let Some(key_node) = key_node else { continue };
            let key = match key_node.kind() {
                "string" => self.text(key_node).to_string(),
                _ => serde_json::to_string(self.text(key_node)).unwrap_or_default(),
            };
            let (text, number) = match value {
                Some(v) if v.kind() == "string" || v.kind() == "template_string" => {
                    (format!("{name}[{key}] = {};", self.text(v)), None)
                }
                Some(v) => {
                    let number = self.text(v).parse::<i64>().ok();
                    (format!("{name}[{name}[{key}] = {}] = {key};", self.text(v)), number)
                }
                None => {
                    let (next, number) = match &previous {
                        None => ("0".to_string(), Some(0)),
                        Some((_, Some(n))) => ((n + 1).to_string(), Some(n + 1)),
                        Some((p, None)) => (format!("{name}[{p}] + 1"), None),
                    };
                    (format!("{name}[{name}[{key}] = {next}] = {key};"), number)
                }
            };
            self.list.push(Edit::Replace(member.byte_range(), text));
            previous = Some((key, number));
        }
        Ok(Next::Done)
    }

    /// `constructor(private x: number)` assigns `this.x = x` where the body starts, or after its `super(...)` call,
    /// and declares the field `x;` first in the class, as TypeScript does for ES2022 and later.
    fn parameter_properties(&mut self, constructor: Node) -> Result<(), Unrunnable> {
        let (Some(parameters), Some(body)) =
            (constructor.child_by_field_name("parameters"), constructor.child_by_field_name("body"))
        else {
            return Ok(());
        };
        let mut names = Vec::new();
        let mut cursor = parameters.walk();
        for parameter in parameters.named_children(&mut cursor) {
            let mut inner = parameter.walk();
            let property = parameter.children(&mut inner).any(|c| {
                matches!(c.kind(), "accessibility_modifier" | "override_modifier")
                    || (!c.is_named() && c.kind() == "readonly")
            });
            let pattern = parameter.child_by_field_name("pattern");
            match pattern {
                Some(p) if property && p.kind() == "identifier" => names.push(self.text(p).to_string()),
                Some(p) if property => {
                    return Self::refuse(p, "a parameter property that is not a plain name").map(drop);
                }
                _ => {}
            }
        }
        if names.is_empty() {
            return Ok(());
        }
        let mut cursor = body.walk();
        let super_call = body.named_children(&mut cursor).find(|s| {
            s.kind() == "expression_statement"
                && s.named_child(0).is_some_and(|c| {
                    c.kind() == "call_expression"
                        && c.child_by_field_name("function").is_some_and(|f| f.kind() == "super")
                })
        });
        let at = super_call.map_or(body.start_byte() + 1, |s| s.end_byte());
        let assignments: String = names.iter().map(|n| format!(" this.{n} = {n};")).collect();
        self.list.push(Edit::Insert(at, assignments));
        if let Some(class_body) = constructor.parent().filter(|p| p.kind() == "class_body") {
            let fields: String = names.iter().map(|n| format!(" {n};")).collect();
            self.list.push(Edit::Insert(class_body.start_byte() + 1, fields));
        }
        Ok(())
    }

    /// Leaves out what TypeScript leaves out of an import: the names used only as types (so no longer used once
    /// the types are blanked), and the whole statement when none of its names is used.
    fn leave_out_type_only_imports(&mut self, root: Node) {
        let blanks: Vec<Range<usize>> = self
            .list
            .iter()
            .filter_map(|e| match e {
                Edit::Blank(r) | Edit::Replace(r, _) => Some(r.clone()),
                Edit::Insert(..) => None,
            })
            .collect();
        let blanked = |node: Node| blanks.iter().any(|b| b.start <= node.start_byte() && node.end_byte() <= b.end);
        let mut used = HashSet::new();
        let mut imports = Vec::new();
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            if blanked(node) {
                continue;
            }
            match node.kind() {
                "import_statement" => imports.push(node),
                "identifier" | "shorthand_property_identifier" => {
                    used.insert(self.text(node));
                }
                _ => {
                    let mut cursor = node.walk();
                    stack.extend(node.children(&mut cursor));
                }
            }
        }
        let mut edits = Vec::new();
        for import in imports {
            let Some(clause) = import.named_child(0).filter(|c| c.kind() == "import_clause") else { continue };
            let mut bindings = Vec::new();
            let mut cursor = clause.walk();
            for part in clause.named_children(&mut cursor) {
                match part.kind() {
                    "identifier" => bindings.push((part, part)),
                    "namespace_import" => {
                        if let Some(name) = part.named_child(0) {
                            bindings.push((part, name));
                        }
                    }
                    "named_imports" => {
                        let mut inner = part.walk();
                        for specifier in part.named_children(&mut inner).filter(|s| s.kind() == "import_specifier") {
                            if blanked(specifier) {
                                continue;
                            }
                            let local =
                                specifier.child_by_field_name("alias").or(specifier.child_by_field_name("name"));
                            if let Some(local) = local {
                                bindings.push((specifier, local));
                            }
                        }
                    }
                    _ => {}
                }
            }
            let unused: Vec<Node> =
                bindings.iter().filter(|(_, local)| !used.contains(self.text(*local))).map(|(part, _)| *part).collect();
            if !bindings.is_empty() && unused.len() == bindings.len() {
                edits.push(Edit::Blank(import.byte_range()));
                continue;
            }
            for part in unused {
                let end = match part.next_sibling() {
                    Some(next) if next.kind() == "," => next.end_byte(),
                    _ => part.end_byte(),
                };
                edits.push(Edit::Blank(part.start_byte()..end));
            }
        }
        self.list.extend(edits);
    }

    /// The source with the edits made. An edit inside one made before it (a type inside a blanked declaration) is
    /// already done.
    fn apply(mut self) -> String {
        self.list.sort_by_key(Edit::start);
        let mut out = String::with_capacity(self.source.len());
        let mut at = 0;
        for edit in &self.list {
            let start = edit.start();
            if start < at {
                continue;
            }
            out.push_str(&self.source[at..start]);
            match edit {
                Edit::Blank(range) => {
                    out.extend(self.source[range.clone()].chars().map(|c| match c {
                        '\n' | '\r' | '\u{2028}' | '\u{2029}' => c,
                        _ => ' ',
                    }));
                    at = range.end;
                }
                Edit::Insert(_, text) => {
                    out.push_str(text);
                    at = start;
                }
                Edit::Replace(range, text) => {
                    out.push_str(text);
                    let lines = self.source[range.clone()].matches('\n').count();
                    out.extend(std::iter::repeat_n('\n', lines));
                    at = range.end;
                }
            }
        }
        out.push_str(&self.source[at..]);
        out
    }
}

/// Whether a declaration exists only for the type checker: an interface, a type alias, a `declare`d one, an
/// overload's signature, or a namespace holding nothing else.
fn is_type_only_declaration(node: Node) -> bool {
    // With a stack of its own: namespaces nest without bound.
    let mut pending = vec![node];
    while let Some(node) = pending.pop() {
        match node.kind() {
            "interface_declaration" | "type_alias_declaration" | "ambient_declaration" | "function_signature" => {}
            "expression_statement" => match node.named_child(0) {
                Some(expression) => pending.push(expression),
                None => return false,
            },
            "export_statement" => match node.child_by_field_name("declaration") {
                Some(declaration) => pending.push(declaration),
                None => return false,
            },
            "internal_module" | "module" => {
                if let Some(body) = node.child_by_field_name("body") {
                    let mut cursor = body.walk();
                    pending.extend(body.named_children(&mut cursor).filter(|s| s.kind() != "comment"));
                }
            }
            _ => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn js(ts: &str) -> String {
        strip_types(ts, false).unwrap_or_else(|e| panic!("{e}: {ts}"))
    }

    /// A text without its spaces and its leading and trailing empty lines: what the stripped source and the expected one are
    /// compared by (the blanks' widths are not the point; the tokens and the lines are).
    fn squeeze(text: &str) -> String {
        text.replace(' ', "").trim().to_string()
    }

    /// Asserts that `ts` strips to `expected`, up to spaces.
    #[track_caller]
    fn strips_to(ts: &str, expected: &str) {
        assert_eq!(squeeze(&js(ts)), squeeze(expected), "{ts}");
    }

    #[test]
    fn annotations_and_declarations_become_spaces_and_lines_stay() {
        let ts = "interface P {\n  x: number;\n}\ntype Id = string;\nexport function add(a: number, b?: number): number {\n  return a + (b ?? 0) as number;\n}\n";
        let out = js(ts);
        assert_eq!(out.len(), ts.len(), "same length, so the same places");
        assert_eq!(out.lines().count(), ts.lines().count());
        strips_to(ts, "export function add(a, b) {\nreturn a + (b ?? 0);\n}");
    }

    #[test]
    fn generics_assertions_and_non_null_go() {
        strips_to(
            "const m = new Map<string, number>();\nconst n = f<T>(x!)!.y;\nlet v = <any>w;",
            "const m = new Map();\nconst n = f(x).y;\nlet v = w;",
        );
        strips_to("const id = <T,>(x: T): T => x;", "const id = (x) => x;");
        strips_to("let done!: boolean;\nconst c = { a: 1 } satisfies R;", "let done;\nconst c = { a: 1 };");
    }

    #[test]
    fn classes_lose_their_modifiers_and_keep_their_fields() {
        let ts = "export abstract class A<T> extends B<T> implements C, D {\n  private readonly x: number = 1;\n  declare y: string;\n  abstract run(): void;\n  static z?: number;\n  protected get v(): number { return this.x; }\n  f(a: string): void;\n  f(a: any) {}\n}";
        strips_to(ts, "export class A extends B {\nx = 1;\n;\n;\nstatic z;\nget v() { return this.x; }\n;\nf(a) {}\n}");
    }

    #[test]
    fn parameter_properties_are_assigned_where_the_body_starts_or_after_super() {
        strips_to(
            "class P {\n  constructor(private x: number, public readonly y = 2, z: string) {\n    this.z = z;\n  }\n}",
            "class P { x; y;\nconstructor(x, y = 2, z) { this.x = x; this.y = y;\nthis.z = z;\n}\n}",
        );
        strips_to(
            "class Q extends P {\n  constructor(protected w: number) {\n    super(w);\n    log();\n  }\n}",
            "class Q extends P { w;\nconstructor(w) {\nsuper(w); this.w = w;\nlog();\n}\n}",
        );
    }

    #[test]
    fn enums_become_the_object_typescript_emits_line_for_line() {
        let ts = "export enum Color {\n  Red,\n  Green = 5,\n  Blue,\n  Name = \"n\",\n}\nconsole.log(Color.Blue);";
        let out = js(ts);
        assert_eq!(out.lines().count(), ts.lines().count());
        strips_to(
            ts,
            "export var Color; (function (Color) {\nColor[Color[\"Red\"] = 0] = \"Red\";\nColor[Color[\"Green\"] = 5] = \"Green\";\nColor[Color[\"Blue\"] = 6] = \"Blue\";\nColor[\"Name\"] = \"n\";\n})(Color || (Color = {}));\nconsole.log(Color.Blue);",
        );
        strips_to(
            "enum E { A = f(), B }",
            "var E; (function (E) { E[E[\"A\"] = f()] = \"A\"; E[E[\"B\"] = E[\"A\"] + 1] = \"B\"; })(E || (E = {}));",
        );
    }

    #[test]
    fn type_only_imports_and_exports_are_left_out_as_typescript_leaves_them() {
        let ts = "import type { A } from './a.js';\nimport { B, type C, D } from './b.js';\nimport E from './e.js';\nimport * as F from './f.js';\nimport './side.js';\nexport type { A };\nexport interface G {}\nlet x: B = D;\nlet y: E;\nexport const h = F.h;";
        strips_to(
            ts,
            "import { D } from './b.js';\n\nimport * as F from './f.js';\nimport './side.js';\n\n\nlet x = D;\nlet y;\nexport const h = F.h;",
        );
    }

    #[test]
    fn what_needs_the_compiler_is_refused_with_its_line() {
        let refused = |ts: &str| strip_types(ts, false).unwrap_err();
        assert_eq!(refused("let a = 1;\nnamespace N { export const x = 1; }").line, 2);
        assert_eq!(refused("import fs = require('fs');").what, "`import ... =`");
        assert_eq!(refused("export = 1;").what, "`export =`");
        assert_eq!(refused("@sealed\nclass A {}").what, "a decorator");
        assert_eq!(refused("let x: = 1;").what, "a syntax error");
        strips_to("namespace T { export interface I {} }\ndeclare const d: number;\nlet k = 1;", "let k = 1;");
    }

    #[test]
    fn the_names_a_module_exports_are_read_from_its_exports() {
        let ts = "export const a = 1, b = 2;\nexport function f() {}\nexport class C {}\nexport enum E { X }\n\
                  export interface I {}\nexport type T = 1;\nexport { g as h, type J };\nnamespace N {}\nexport default C;\n";
        assert_eq!(exported_names(ts), (["C", "E", "a", "b", "f", "h"].map(String::from).to_vec(), true));
    }

    #[test]
    fn a_deeply_nested_source_does_not_exhaust_the_stack() {
        let depth = 50_000;
        let ts = format!("let x: number = {}1{};\n", "(".repeat(depth), ")".repeat(depth));
        let length = ts.len();
        let out = std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(move || strip_types(&ts, false).map(|js| js.len()))
            .expect("a thread")
            .join()
            .expect("no overflow");
        assert_eq!(out, Ok(length), "stripped, every place kept");
    }

    #[test]
    fn this_parameters_and_overloads_go() {
        strips_to(
            "export function f(x: string): string;\nexport function f(x: any) { return x; }\nfunction g(this: Window, e: Event) {}",
            "export function f(x) { return x; }\nfunction g(e) {}",
        );
    }
}
