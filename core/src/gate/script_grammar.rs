//! What V8's parser refuses in JavaScript that tree-sitter-javascript's grammar accepts, found in one walk of a tree
//! with no error (names declared twice are [`super::redeclaration`]'s):
//!
//! - an empty element in an object, a call's arguments, a parameter list or an import or export list
//!   (`f(a,, b)`; an array may have holes);
//! - a `try` with neither `catch` nor `finally`, and a `switch` with two `default` clauses;
//! - an arrow function as the operand of a binary operator (`a == x => x`), or called, indexed or read a member of
//!   without parentheses (`() => {}[0]`);
//! - a class with no name used as a statement;
//! - `await` inside a function that is not `async` (at the top level it is allowed, as in a module);
//! - a private name (`#x`) used where no enclosing class declares it, or declared twice by one class (a getter
//!   and a setter may share it);
//! - a regular expression literal V8 finds invalid ([`super::regex_literal`]);
//! - an `export` anywhere but at the top level; a function with no name as a statement; `++` or `--` on what
//!   cannot be assigned (`++f()`);
//! - in a module (a source with a top-level `import` or `export`, so strict code that is not wrapped in a function
//!   as CommonJS is): a `return` outside a function and a name exported twice;
//! - in strict code (a module, a class, or a source or function whose first statements say `"use strict"`): a
//!   number written with a leading zero (`010`, `08`).
//!
//! Each is measured against V8 by `core/tests/gate_node.rs` on mutants of real packages.

use std::collections::HashMap;

use tree_sitter::Node;

use super::SyntaxProblem;
use super::tree_problems::{Step, problem_at, walk};
use crate::grammar::{SCRIPT_FUNCTIONS as FUNCTIONS, has_token};

/// JavaScript's reserved words: never a name, and called tokens rather than identifiers in V8's messages.
pub(super) const RESERVED: [&str; 36] = [
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "import",
    "in",
    "instanceof",
    "new",
    "null",
    "return",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "var",
    "void",
    "while",
    "with",
];

/// Lists whose elements may not be empty.
pub(super) const NO_HOLES: &[&str] =
    &["object", "object_pattern", "arguments", "formal_parameters", "named_imports", "export_clause"];

/// How a private name is declared in a class body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PrivateKind {
    Getter,
    Setter,
    Other,
}

/// The first construct V8 refuses that the grammar accepted, with V8's message.
pub(super) fn check(root: Node<'_>, source: &str) -> Result<(), SyntaxProblem> {
    let src = source.as_bytes();
    let fail = |node: Node<'_>, message: &str| Err(problem_at(node, source, message));
    // Enclosing functions (node id, whether async) and class bodies (node id, private names declared).
    let mut functions: Vec<(usize, bool)> = Vec::new();
    let mut classes: Vec<(usize, HashMap<&str, PrivateKind>)> = Vec::new();
    let module = is_module(root);
    let mut exported: HashMap<&str, ()> = HashMap::new();
    walk(root, |step| {
        let node = match step {
            Step::Enter(node) => node,
            Step::Leave(node) => {
                if functions.last().is_some_and(|(f, _)| *f == node.id()) {
                    functions.pop();
                }
                if classes.last().is_some_and(|(c, _)| *c == node.id()) {
                    classes.pop();
                }
                return Ok(());
            }
        };
        let kind = node.kind();
        if FUNCTIONS.contains(&kind) {
            functions.push((node.id(), has_token(node, "async")));
        }
        match kind {
            k if NO_HOLES.contains(&k) => {
                if let Some(comma) = empty_element(node) {
                    return fail(comma, "Unexpected token ','");
                }
            }
            "try_statement" if lacks_catch_and_finally(node) => {
                return fail(node.next_sibling().unwrap_or(node), "Missing catch or finally after try");
            }
            "regex" => {
                let part = |field: &str| node.child_by_field_name(field).and_then(|n| n.utf8_text(src).ok());
                if let Some(why) =
                    super::regex_literal::problem(part("pattern").unwrap_or(""), part("flags").unwrap_or(""))
                {
                    return fail(node, &why);
                }
            }
            "switch_body" => {
                let mut inner = node.walk();
                let defaults: Vec<Node<'_>> =
                    node.named_children(&mut inner).filter(|c| c.kind() == "switch_default").collect();
                if let Some(second) = defaults.get(1) {
                    return fail(*second, "More than one default clause in switch statement");
                }
            }
            "arrow_function" if node.parent().is_some_and(|p| p.kind() == "binary_expression") => {
                return fail(node, "Malformed arrow function parameter list");
            }
            "arrow_function" if is_operand(node) => {
                let next = node.next_sibling().unwrap_or(node);
                let token = next.utf8_text(src).unwrap_or("").chars().next().unwrap_or('(');
                return fail(next, &format!("Unexpected token '{token}'"));
            }
            "expression_statement" if node.named_child(0).is_some_and(|c| c.kind() == "class") => {
                return fail(node, "Unexpected token '{'");
            }
            "expression_statement"
                if node.named_child(0).is_some_and(|c| {
                    matches!(c.kind(), "function_expression" | "function" | "generator_function")
                        && c.child_by_field_name("name").is_none()
                }) =>
            {
                return fail(node, "Function statements require a function name");
            }
            "update_expression" if node.child_by_field_name("argument").is_some_and(|a| !assignable(a)) => {
                let prefix = node.child(0).is_some_and(|c| !c.is_named());
                let operation = if prefix { "prefix" } else { "postfix" };
                return fail(node, &format!("Invalid left-hand side expression in {operation} operation"));
            }
            "await_expression" if functions.last().is_some_and(|(_, is_async)| !is_async) => {
                return fail(node, "await is only valid in async functions and the top level bodies of modules");
            }
            "export_statement" if node.parent().is_some_and(|p| p.kind() != "program") => {
                return fail(node, "Unexpected token 'export'");
            }
            "export_statement" if module => {
                for name in export_names(node) {
                    let text = name.utf8_text(src).unwrap_or("");
                    let text = if name.kind() == "default" { "default" } else { text.trim_matches(['"', '\'']) };
                    if exported.insert(text, ()).is_some() {
                        return fail(name, &format!("Duplicate export of '{text}'"));
                    }
                }
            }
            "return_statement" if module && functions.is_empty() => {
                return fail(node, "Illegal return statement");
            }
            "number" => {
                let text = node.utf8_text(src).unwrap_or("");
                let digits = text.len() > 1 && text.starts_with('0') && text.bytes().all(|b| b.is_ascii_digit());
                if !digits || !(module || is_strict(node, src)) {
                    return Ok(());
                }
                if text.bytes().all(|b| b < b'8') {
                    return fail(node, "Octal literals are not allowed in strict mode.");
                } else {
                    return fail(node, "Decimals with leading zeros are not allowed in strict mode.");
                }
            }
            "class_body" => classes.push((node.id(), private_names(node, source)?)),
            "private_property_identifier" if uses_private_name(node) => {
                let name = node.utf8_text(src).unwrap_or("");
                if !classes.iter().any(|(_, names)| names.contains_key(name)) {
                    let message = format!("Private field '{name}' must be declared in an enclosing class");
                    return fail(node, &message);
                }
            }
            _ => {}
        }
        Ok(())
    })
}

/// In a tree with errors, the first place before `before` (a byte) where V8 stops on a rule of the module's
/// structure rather than on a token: an `export` that is not at the top level (a closing brace lost before it), or,
/// in a module, a `return` outside any function (an opening line lost before it). Nodes inside tree-sitter's `ERROR`
/// nodes are not read.
pub(super) fn structure_problem(root: Node<'_>, source: &str, before: usize) -> Option<SyntaxProblem> {
    let module = is_module(root);
    let mut functions: Vec<usize> = Vec::new();
    let mut found = None;
    let _ = walk(root, |step| {
        let node = match step {
            Step::Enter(node) if node.start_byte() >= before => return Err(()),
            Step::Enter(node) => node,
            Step::Leave(node) => {
                if functions.last() == Some(&node.id()) {
                    functions.pop();
                }
                return Ok(());
            }
        };
        if node.is_error() {
            return Err(());
        }
        if FUNCTIONS.contains(&node.kind()) {
            functions.push(node.id());
        }
        let message = match node.kind() {
            "export_statement" if node.parent().is_some_and(|p| p.kind() != "program") => "Unexpected token 'export'",
            "return_statement" if module && functions.is_empty() => "Illegal return statement",
            _ => return Ok(()),
        };
        found = Some(problem_at(node, source, message));
        Err(())
    });
    found
}

/// Whether `++` and `--` can assign to an expression: a name, a member or an element, in parentheses or not.
fn assignable(mut node: Node<'_>) -> bool {
    while node.kind() == "parenthesized_expression" {
        let Some(inner) = node.named_child(0) else { return false };
        node = inner;
    }
    matches!(node.kind(), "identifier" | "member_expression" | "subscript_expression")
}

/// Whether the code around a node is strict outside a module: inside a class, or inside a function body or a source
/// whose directive prologue (its first statements, when they are string literals) holds `"use strict"`.
fn is_strict(node: Node<'_>, src: &[u8]) -> bool {
    let mut current = node.parent();
    while let Some(scope) = current {
        let says_strict = match scope.kind() {
            "class_body" => return true,
            "program" => true,
            "statement_block" => scope.parent().is_some_and(|p| FUNCTIONS.contains(&p.kind())),
            _ => false,
        };
        if says_strict && directs_strict(scope, src) {
            return true;
        }
        current = scope.parent();
    }
    false
}

/// Whether a body's directive prologue holds `"use strict"` (written with no escapes, as the language requires).
fn directs_strict(body: Node<'_>, src: &[u8]) -> bool {
    let mut cursor = body.walk();
    for statement in body.named_children(&mut cursor).filter(|c| c.kind() != "comment") {
        let directive = (statement.kind() == "expression_statement")
            .then(|| statement.named_child(0))
            .flatten()
            .filter(|e| e.kind() == "string");
        let Some(directive) = directive else { return false };
        if matches!(directive.utf8_text(src), Ok("'use strict'" | "\"use strict\"")) {
            return true;
        }
    }
    false
}

/// Whether the source is a module: a top-level `import` or `export` statement.
fn is_module(root: Node<'_>) -> bool {
    let mut cursor = root.walk();
    root.named_children(&mut cursor).any(|c| matches!(c.kind(), "import_statement" | "export_statement"))
}

/// The nodes naming what a top-level `export` exports: each name of its list (as exported), its declaration's
/// names, `default`, or the namespace of `export * as ns`.
fn export_names(export: Node<'_>) -> Vec<Node<'_>> {
    let mut names = Vec::new();
    let mut cursor = export.walk();
    for part in export.children(&mut cursor) {
        match part.kind() {
            "default" => names.push(part),
            "export_clause" => {
                let mut inner = part.walk();
                for specifier in part.named_children(&mut inner).filter(|s| s.kind() == "export_specifier") {
                    names.extend(specifier.child_by_field_name("alias").or(specifier.child_by_field_name("name")));
                }
            }
            "namespace_export" => names.extend(part.named_child(0)),
            "lexical_declaration" | "variable_declaration" => {
                let mut inner = part.walk();
                names.extend(
                    part.named_children(&mut inner)
                        .filter_map(|d| d.child_by_field_name("name"))
                        .filter(|n| n.kind() == "identifier"),
                );
            }
            kind if kind.ends_with("declaration") => names.extend(part.child_by_field_name("name")),
            _ => {}
        }
    }
    names
}

/// Whether a `try` statement has neither a `catch` nor a `finally` (the grammar lets both go).
pub(super) fn lacks_catch_and_finally(node: Node<'_>) -> bool {
    node.kind() == "try_statement"
        && node.child_by_field_name("handler").is_none()
        && node.child_by_field_name("finalizer").is_none()
}

/// The first empty element under `root` whose comma comes before byte `end`: the list that holds it (one of
/// [`NO_HOLES`]) and the comma.
pub(super) fn first_hole_before<'t>(root: Node<'t>, end: usize) -> Option<(Node<'t>, Node<'t>)> {
    let mut hole: Option<(Node<'t>, Node<'t>)> = None;
    let _ = walk(root, |step| {
        if let Step::Enter(node) = step
            && let Some(comma) = hole_before(node, end)
            // A list inside another's element can hold a hole before the outer one's.
            && hole.is_none_or(|(_, first)| comma.start_byte() < first.start_byte())
        {
            hole = Some((node, comma));
        }
        Ok::<(), ()>(())
    });
    hole
}

/// The comma that leaves an element of `list` empty ([`empty_element`]) when `list` is one of [`NO_HOLES`] and the
/// comma comes before byte `end`.
pub(super) fn hole_before(list: Node<'_>, end: usize) -> Option<Node<'_>> {
    if list.start_byte() >= end || !NO_HOLES.contains(&list.kind()) {
        return None;
    }
    empty_element(list).filter(|comma| comma.start_byte() < end)
}

/// The comma that leaves an element empty in a list: one right after the opening bracket or another comma.
pub(super) fn empty_element(list: Node<'_>) -> Option<Node<'_>> {
    let mut cursor = list.walk();
    let mut previous: Option<&str> = None;
    for child in list.children(&mut cursor) {
        let kind = child.kind();
        if kind == "comment" {
            continue;
        }
        if kind == "," && matches!(previous, Some("," | "(" | "{")) {
            return Some(child);
        }
        previous = Some(kind);
    }
    None
}

/// The private names a class body declares with how; `Err` when one is declared twice (other than a getter and a
/// setter).
fn private_names<'s>(body: Node<'_>, source: &'s str) -> Result<HashMap<&'s str, PrivateKind>, SyntaxProblem> {
    let src = source.as_bytes();
    let mut names: HashMap<&'s str, PrivateKind> = HashMap::new();
    let mut cursor = body.walk();
    for member in body.named_children(&mut cursor) {
        let name = match member.kind() {
            "method_definition" => member.child_by_field_name("name"),
            "field_definition" => member.child_by_field_name("property"),
            _ => None,
        };
        let Some(name) = name.filter(|n| n.kind() == "private_property_identifier") else { continue };
        let text = name.utf8_text(src).unwrap_or("");
        let how = if has_token(member, "get") {
            PrivateKind::Getter
        } else if has_token(member, "set") {
            PrivateKind::Setter
        } else {
            PrivateKind::Other
        };
        let pair = |a, b| {
            matches!((a, b), (PrivateKind::Getter, PrivateKind::Setter) | (PrivateKind::Setter, PrivateKind::Getter))
        };
        match names.get(text) {
            Some(&before) if !pair(before, how) => {
                return Err(problem_at(name, source, &format!("Identifier '{text}' has already been declared")));
            }
            _ => {
                names.insert(text, how);
            }
        }
    }
    Ok(names)
}

/// Whether an arrow function is called, indexed or has a member read without parentheses around it, which the
/// grammar allows and the language does not (`() => {}[0]`).
fn is_operand(arrow: Node<'_>) -> bool {
    let Some(parent) = arrow.parent() else { return false };
    let field = match parent.kind() {
        "call_expression" => "function",
        "subscript_expression" | "member_expression" => "object",
        _ => return false,
    };
    parent.child_by_field_name(field).is_some_and(|n| n.id() == arrow.id())
}

/// Whether a private name is used (`this.#x`, `#x in o`) rather than declared.
fn uses_private_name(name: Node<'_>) -> bool {
    name.parent().is_some_and(|p| matches!(p.kind(), "member_expression" | "binary_expression"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(src: &str) -> Result<(), (u32, String)> {
        let mut parser = crate::grammar::parser(tree_sitter_javascript::LANGUAGE.into());
        let tree = parser.parse(src, None).unwrap();
        assert!(!tree.root_node().has_error(), "{src}");
        check(tree.root_node(), src).map_err(|p| (p.line, p.message))
    }

    #[test]
    fn what_v8_refuses_beyond_the_grammar_is_refused() {
        assert_eq!(verdict("f(a,\n  , b);\n").map_err(|e| e.0), Err(2));
        assert!(verdict("x = { a,, b };\n").is_err());
        assert!(verdict("try {\n  f();\n}\ng();\n").is_err());
        assert!(verdict("switch (x) { default: break; case 1: break; default: }\n").is_err());
        assert!(verdict("module.exports == tree => tree;\n").is_err());
        assert!(verdict("class  {\n  root;\n}\n").is_err());
        assert_eq!(verdict("const g = (a) => {\n  return a\n}[0]\n"), Err((3, "Unexpected token '['".into())));
        assert!(verdict("function r() {\n  return (await this.load()).name;\n}\n").is_err());
        assert!(verdict("class A {\n  m() { return this.#missing; }\n}\n").is_err());
        assert!(verdict("class A {\n  #x = 1;\n  #x() {}\n}\n").is_err());
    }

    #[test]
    fn a_statement_function_has_a_name_and_increments_assign() {
        assert_eq!(
            verdict("function (a) {\n  return a;\n}\n").map_err(|e| e.1),
            Err("Function statements require a function name".into())
        );
        assert_eq!(
            verdict("x = 1;\n++f();\n"),
            Err((2, "Invalid left-hand side expression in prefix operation".into()))
        );
        assert_eq!(
            verdict("(a + b)--;\n").map_err(|e| e.1),
            Err("Invalid left-hand side expression in postfix operation".into())
        );
        for src in
            ["(function (a) { return a; })();\n", "i++;\n--o.n;\n(a)++;\nx[i]--;\n", "const f = function () {};\n"]
        {
            assert_eq!(verdict(src), Ok(()), "{src}");
        }
    }

    #[test]
    fn a_module_is_strict_and_exports_each_name_once_at_its_top_level() {
        let module = |body: &str| verdict(&format!("import {{ a }} from './a.js';\n{body}"));
        assert_eq!(module("function f() {\n  export const x = 1;\n}\n"), Err((3, "Unexpected token 'export'".into())));
        assert_eq!(module("export { a };\nexport const b = 1, a = 2;\n"), Err((3, "Duplicate export of 'a'".into())));
        assert_eq!(
            module("export { x } from './x.js';\nexport { y as x } from './y.js';\n"),
            Err((3, "Duplicate export of 'x'".into()))
        );
        assert_eq!(
            module("export default 1;\nexport { b as default };\n").map_err(|e| e.1),
            Err("Duplicate export of 'default'".into())
        );
        assert_eq!(module("if (a) {\n  return;\n}\n"), Err((3, "Illegal return statement".into())));
        assert_eq!(module("const n = 010;\n"), Err((2, "Octal literals are not allowed in strict mode.".into())));
        assert_eq!(
            module("const n = 09;\n").map_err(|e| e.1),
            Err("Decimals with leading zeros are not allowed in strict mode.".into())
        );
        // The same outside a module: CommonJS wraps the file in a function, and sloppy code takes old octals.
        assert_eq!(verdict("if (a) {\n  return;\n}\nconst n = 010;\n"), Ok(()));
        // Unless the code says it is strict, or is in a class.
        let old_octal = Err((3, "Octal literals are not allowed in strict mode.".into()));
        assert_eq!(verdict("'use strict';\n// a comment\nconst n = 010;\n"), old_octal);
        assert_eq!(verdict("function f() {\n  \"use strict\";\n  return 07;\n}\n"), old_octal);
        assert_eq!(verdict("class A {\n  m() {\n    return 07;\n  }\n}\n"), old_octal);
        assert_eq!(verdict("f();\n'use strict';\nconst n = 010;\n"), Ok(()));
        assert_eq!(verdict("function f() {\n  return 'use strict';\n}\nconst n = 010;\n"), Ok(()));
        assert_eq!(
            module(
                "export { b };\nexport * from './c.js';\nexport * as d from './d.js';\nconst n = 0, m = 0.5, k = 0x10;\n"
            ),
            Ok(())
        );
    }

    #[test]
    fn what_v8_accepts_passes() {
        for src in [
            "const a = [1, , 3];\nf(a, b,);\nconst o = { a, b, };\n",
            "try { f(); } finally { g(); }\n",
            "const f = async () => { await g(); };\nclass A { async m() { await 1; } }\n",
            "const top = await import('x');\n",
            "class A {\n  #x = 1;\n  get #y() { return 1; }\n  set #y(v) {}\n  m(o) { return #x in o && this.#y; }\n}\n",
            "class A { #p; m() { return () => this.#p; } }\n",
            "a = b => c;\nf(x => x, (y) => y);\n",
            "(() => 1)();\n((a) => a)[0];\n",
        ] {
            assert_eq!(verdict(src), Ok(()), "{src}");
        }
    }
}
