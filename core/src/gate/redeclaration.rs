//! JavaScript's early error for a name declared twice: V8 refuses a source where a `let`, `const` or `class` names
//! what its scope already declares (`Identifier 'x' has already been declared`), which tree-sitter's grammar accepts.
//! It is the edit a model most often breaks a file with in a way the grammar cannot see: an import or a declaration
//! line written again.
//!
//! The rules followed, a subset of the language's that is exact for what it checks:
//! - a scope is the program, a block, a `switch` body, a class's static block, a `for` loop's head and a function
//!   (its parameters and the top of its body together);
//! - `let`, `const` and `class` declare in their scope; `var` declares in every scope from its own up to its function
//!   (it is hoisted); a function declaration declares like `var` at the top of a function or the program, and like
//!   `let` in a block, except that a block may declare the same function twice (sloppy mode allows it);
//! - a name declared by `let`, `const` or `class` and declared any other way in the same scope is the error, reported
//!   at the later declaration.
//!
//! Imports declare like `let` at the top of the file. The `catch` parameter and labels are left alone.
//!
//! The same scopes give a module's other early error of this kind: `export { x }` of a name the module does not
//! declare (`Export 'x' is not defined in module`), checked when the program's scope closes. (A file that is not a
//! module cannot export at all, so it is refused either way.)

use std::collections::HashMap;

use tree_sitter::Node;

use super::SyntaxProblem;
use super::tree_problems::{Step, problem_at, walk};
use crate::grammar::SCRIPT_FUNCTIONS as FUNCTIONS;

/// How a name was declared in a scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Declared {
    /// `let`, `const` or `class`.
    Lexical,
    /// `var`, a parameter, or a function declared at the top of a function or the program.
    Var,
    /// A function declared in a block.
    BlockFunction,
}

/// One scope's names.
struct Scope {
    /// The node whose end closes the scope.
    node: usize,
    /// Whether `var` stops here: a function or the program.
    function: bool,
    names: HashMap<String, Declared>,
}

/// The first name declared twice where JavaScript forbids it, as V8 reports it.
pub(super) fn check(root: Node<'_>, source: &str) -> Result<(), SyntaxProblem> {
    let src = source.as_bytes();
    let mut scopes: Vec<Scope> = Vec::new();
    // The local names `export { ... }` lists, checked against the program's scope when it closes.
    let mut exported: Vec<Node<'_>> = Vec::new();
    walk(root, |step| {
        let node = match step {
            Step::Enter(node) => node,
            Step::Leave(node) => {
                if node.kind() == "program"
                    && let Some(program) = scopes.last()
                    && let Some(name) =
                        exported.iter().find(|n| !program.names.contains_key(n.utf8_text(src).unwrap_or("")))
                {
                    let text = name.utf8_text(src).unwrap_or("");
                    return Err(problem_at(*name, source, &format!("Export '{text}' is not defined in module")));
                }
                if scopes.last().is_some_and(|s| s.node == node.id()) {
                    scopes.pop();
                }
                return Ok(());
            }
        };
        let kind = node.kind();
        let opens = match kind {
            "program" => Some(true),
            k if FUNCTIONS.contains(&k) => Some(true),
            // A function's body shares its function's scope.
            "statement_block" if node.parent().is_some_and(|p| FUNCTIONS.contains(&p.kind())) => None,
            "statement_block" | "switch_body" | "class_static_block" | "for_statement" | "for_in_statement" => {
                Some(false)
            }
            _ => None,
        };
        if let Some(function) = opens {
            scopes.push(Scope { node: node.id(), function, names: HashMap::new() });
        }
        let mut declare_at = |name: Node<'_>, how: Declared, scopes: &mut Vec<Scope>| -> Result<(), SyntaxProblem> {
            let text = name.utf8_text(src).unwrap_or("");
            declare(scopes, text, how)
                .map_err(|()| problem_at(name, source, &format!("Identifier '{text}' has already been declared")))
        };
        match kind {
            "lexical_declaration" => {
                for name in declarator_names(node) {
                    declare_at(name, Declared::Lexical, &mut scopes)?;
                }
            }
            "variable_declaration" => {
                for name in declarator_names(node) {
                    declare_at(name, Declared::Var, &mut scopes)?;
                }
            }
            "import_statement" => {
                for name in imported_names(node) {
                    declare_at(name, Declared::Lexical, &mut scopes)?;
                }
            }
            "export_statement" if node.child_by_field_name("source").is_none() => {
                exported.extend(local_exports(node));
            }
            "class_declaration" => {
                if let Some(name) = node.child_by_field_name("name") {
                    // The class's name belongs to the scope around it, not to a scope it opens.
                    declare_at(name, Declared::Lexical, &mut scopes)?;
                }
            }
            "function_declaration" | "generator_function_declaration" => {
                if let Some(name) = node.child_by_field_name("name") {
                    // Declared in the scope around the function, which the function's own scope sits on.
                    let own = scopes.pop();
                    let how =
                        if scopes.last().is_some_and(|s| s.function) { Declared::Var } else { Declared::BlockFunction };
                    let declared = declare_at(name, how, &mut scopes);
                    scopes.extend(own);
                    declared?;
                }
                parameters(node, &mut scopes, &mut declare_at)?;
            }
            k if FUNCTIONS.contains(&k) => parameters(node, &mut scopes, &mut declare_at)?,
            _ => {}
        }
        Ok(())
    })
}

/// The local names an `export { a, b as c }` without `from` lists (`a`, `b`).
fn local_exports(export: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = export.walk();
    let clauses: Vec<Node<'_>> = export.named_children(&mut cursor).filter(|c| c.kind() == "export_clause").collect();
    let mut names = Vec::new();
    for clause in clauses {
        let mut cursor = clause.walk();
        for specifier in clause.named_children(&mut cursor).filter(|s| s.kind() == "export_specifier") {
            names.extend(specifier.child_by_field_name("name").filter(|n| n.kind() == "identifier"));
        }
    }
    names
}

/// Declares a function's parameters in its scope (the last one).
fn parameters<'t>(
    function: Node<'t>,
    scopes: &mut Vec<Scope>,
    declare: &mut impl FnMut(Node<'t>, Declared, &mut Vec<Scope>) -> Result<(), SyntaxProblem>,
) -> Result<(), SyntaxProblem> {
    let Some(params) = function.child_by_field_name("parameters").or_else(|| function.child_by_field_name("parameter"))
    else {
        return Ok(());
    };
    for name in bound_names(params) {
        declare(name, Declared::Var, scopes)?;
    }
    Ok(())
}

/// Records `name` in the scopes it belongs to; `Err` when that conflicts with what a scope already declares.
fn declare(scopes: &mut [Scope], name: &str, how: Declared) -> Result<(), ()> {
    let reach = match how {
        // `var` is hoisted through blocks to its function.
        Declared::Var => scopes.iter().rposition(|s| s.function).unwrap_or(0),
        _ => scopes.len().saturating_sub(1),
    };
    let Some(scopes) = scopes.get_mut(reach..) else { return Ok(()) };
    for scope in scopes.iter_mut() {
        let clash = match (scope.names.get(name), how) {
            (None, _) => false,
            (Some(Declared::Lexical), _) | (Some(_), Declared::Lexical) => true,
            (Some(Declared::Var), Declared::BlockFunction) | (Some(Declared::BlockFunction), Declared::Var) => true,
            _ => false,
        };
        if clash {
            return Err(());
        }
        let entry = scope.names.entry(name.to_string()).or_insert(how);
        if how == Declared::Lexical {
            *entry = how;
        }
    }
    Ok(())
}

/// The names an `import` binds: its default, its namespace and each named import (by its local name).
fn imported_names(import: Node<'_>) -> Vec<Node<'_>> {
    let mut names = Vec::new();
    let mut pending = vec![import];
    while let Some(node) = pending.pop() {
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            match child.kind() {
                "import_clause" | "named_imports" | "namespace_import" => pending.push(child),
                "identifier" if node.kind() != "import_statement" => names.push(child),
                "import_specifier" => {
                    names.extend(child.child_by_field_name("alias").or_else(|| child.child_by_field_name("name")))
                }
                _ => {}
            }
        }
    }
    names.sort_by_key(|n| n.start_byte());
    names
}

/// The names a `let`, `const` or `var` declaration binds, through destructuring patterns.
fn declarator_names(declaration: Node<'_>) -> Vec<Node<'_>> {
    let mut names = Vec::new();
    let mut cursor = declaration.walk();
    for declarator in declaration.named_children(&mut cursor) {
        if let Some(target) = declarator.child_by_field_name("name") {
            names.extend(bound_names(target));
        }
    }
    names
}

/// The identifiers a binding target binds: a name, or the names inside an object or array pattern (never a
/// property key or a default value).
fn bound_names(target: Node<'_>) -> Vec<Node<'_>> {
    let mut names = Vec::new();
    let mut pending = vec![target];
    while let Some(node) = pending.pop() {
        match node.kind() {
            "identifier" | "shorthand_property_identifier_pattern" => names.push(node),
            "pair_pattern" => pending.extend(node.child_by_field_name("value")),
            "assignment_pattern" | "object_assignment_pattern" => pending.extend(node.child_by_field_name("left")),
            "object_pattern" | "array_pattern" | "rest_pattern" | "formal_parameters" => {
                let mut cursor = node.walk();
                pending.extend(node.named_children(&mut cursor));
            }
            _ => {}
        }
    }
    names.sort_by_key(|n| n.start_byte());
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(src: &str) -> Result<(), (u32, String)> {
        let mut parser = crate::grammar::parser(tree_sitter_javascript::LANGUAGE.into());
        let tree = parser.parse(src, None).unwrap();
        check(tree.root_node(), src).map_err(|p| (p.line, p.message))
    }

    #[test]
    fn names_declared_twice_where_javascript_forbids_it_are_refused() {
        let twice = |name: &str, line| Err((line, format!("Identifier '{name}' has already been declared")));
        assert_eq!(verdict("const fs = require('fs');\nconst fs = require('fs');\n"), twice("fs", 2));
        assert_eq!(verdict("let a = 1;\nvar a = 2;\n"), twice("a", 2));
        assert_eq!(verdict("var a = 1;\nlet a = 2;\n"), twice("a", 2));
        assert_eq!(verdict("function f() {}\nclass f {}\n"), twice("f", 2));
        assert_eq!(verdict("function f(x) {\n  let x = 1;\n}\n"), twice("x", 2));
        assert_eq!(verdict("{\n  { var v; }\n  let v;\n}\n"), twice("v", 3));
        assert_eq!(verdict("const { a, b: [c] } = o;\nlet c;\n"), twice("c", 2));
        assert_eq!(verdict("import { a } from 'x';\nimport { a } from 'x';\n"), twice("a", 2));
        assert_eq!(verdict("import * as b from 'x';\nconst b = 1;\n"), twice("b", 2));
        assert_eq!(verdict("switch (k) {\n  case 1: let y = 1; break;\n  case 2: let y = 2;\n}\n"), twice("y", 3));
    }

    #[test]
    fn a_module_exports_only_what_it_declares() {
        let missing = |name: &str, line| Err((line, format!("Export '{name}' is not defined in module")));
        assert_eq!(verdict("const a = 1;\nexport { a, b };\n"), missing("b", 2));
        assert_eq!(verdict("function f() { var inner; }\nexport { inner as x };\n"), missing("inner", 2));
        for src in [
            "export { a, f as g, C, i, v };\nconst a = 1;\nfunction f() {}\nclass C {}\nimport i from 'x';\n{ var v; }\n",
            "export { a } from './a.js';\nexport * from './b.js';\nexport const c = 1;\nexport default function () {}\n",
        ] {
            assert_eq!(verdict(src), Ok(()), "{src}");
        }
    }

    #[test]
    fn names_javascript_lets_be_declared_again_pass() {
        for src in [
            "var a = 1;\nvar a = 2;\n",
            "function f() {}\nfunction f() {}\nvar f;\n",
            "for (let i = 0; i < 2; i++) {}\nfor (let i = 0; i < 2; i++) {}\n",
            "let x = 1;\n{ let x = 2; }\nfunction g() { let x = 3; }\n",
            "const f = (x) => { const y = x; return y; };\nconst g = (x) => x;\n",
            "class A { m(a) { let b; } n(a) { let b; } static { let b; } }\n",
            "const { a: b } = o;\nlet a;\n",
            "function h(x = 1, { y }) { var x; }\n",
            "{ function k() {} function k() {} }\n",
            "import d, { a as b, c } from 'x';\nimport { a } from 'y';\n",
        ] {
            assert_eq!(verdict(src), Ok(()), "{src}");
        }
    }
}
