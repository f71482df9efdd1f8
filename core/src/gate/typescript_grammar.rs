//! What the `typescript` package's parser refuses that tree-sitter-typescript's grammar accepts, found in one walk of
//! a tree with no error:
//!
//! - a union or an intersection whose operand opens with its own `|` or `&` (`A | | B`, `A || B`): a leading
//!   operator is allowed only where the type starts;
//! - a reserved word read as a name in an expression (`export == x`);
//! - a numeric literal in the old octal form (`00`, `017`);
//! - a block comment never closed;
//! - a `/// <reference ... />` directive that does not read as one;
//! - an empty element in an object, a call's arguments, a parameter list or an import or export list (`f(a,, b)`).
//!
//! Each is measured against the `typescript` package by `core/tests/gate_typescript.rs` on mutants of real sources.

use tree_sitter::Node;

use super::SyntaxProblem;
use super::script_grammar::{NO_HOLES, RESERVED, empty_element};
use super::tree_problems::{Step, problem_at, problem_at_end, walk};

/// The first construct the `typescript` package's parser refuses that the grammar accepted, in its words.
pub(super) fn check(root: Node<'_>, source: &str) -> Result<(), SyntaxProblem> {
    let fail = |node: Node<'_>, message: &str| Err(problem_at(node, source, message));
    walk(root, |step| {
        let Step::Enter(node) = step else { return Ok(()) };
        let text = source.get(node.start_byte()..node.end_byte()).unwrap_or("");
        match node.kind() {
            kind if NO_HOLES.contains(&kind) => {
                if let Some(comma) = empty_element(node) {
                    return fail(comma, hole_message(kind));
                }
            }
            "union_type" | "intersection_type" if opens_with_its_operator(node) => {
                return fail(node, "Type expected.");
            }
            "identifier" if RESERVED.contains(&text) && in_an_expression(node) => {
                return fail(node, "Declaration or statement expected.");
            }
            "number" if is_old_octal(text) => {
                return fail(node, "Octal literals are not allowed.");
            }
            "comment" if text.starts_with("/*") && (text.len() < 4 || !text.ends_with("*/")) => {
                return Err(problem_at_end(source, "'*/' expected."));
            }
            "comment" if text.starts_with("///") && !is_reference_directive(text) => {
                return fail(node, "Invalid 'reference' directive syntax.");
            }
            _ => {}
        }
        Ok(())
    })
}

/// What the `typescript` package says of an empty element in a list of this kind.
fn hole_message(list: &str) -> &'static str {
    match list {
        "arguments" => "Argument expression expected.",
        "formal_parameters" => "Parameter declaration expected.",
        "named_imports" | "export_clause" => "Identifier expected.",
        _ => "Property assignment expected.",
    }
}

/// Whether a union (or intersection) that is another's right operand opens with its own operator: the grammar
/// reads `A | | B` as `A | (| B)`.
fn opens_with_its_operator(node: Node<'_>) -> bool {
    let Some(parent) = node.parent().filter(|p| p.kind() == node.kind()) else { return false };
    let leading = node.child(0).is_some_and(|first| !first.is_named());
    leading && node.start_byte() > parent.start_byte()
}

/// Whether a name stands in an expression (where a reserved word cannot), not in an import or export list
/// (`export { default } from`).
fn in_an_expression(name: Node<'_>) -> bool {
    name.parent().is_some_and(|p| p.kind() == "expression_statement" || p.kind().ends_with("_expression"))
}

/// Whether a numeric literal is in the old octal form: a `0` followed by digits only (`00`, `017`).
fn is_old_octal(text: &str) -> bool {
    text.len() > 1 && text.starts_with('0') && text.bytes().all(|b| b.is_ascii_digit())
}

/// Whether a `///` comment is not a `<reference>` directive, or reads as one: `/// <reference NAME="VALUE" ... />`.
fn is_reference_directive(comment: &str) -> bool {
    let rest = comment[3..].trim_start();
    let Some(rest) = rest.strip_prefix("<reference") else { return true };
    if !rest.starts_with(char::is_whitespace) {
        return true;
    }
    let mut rest = rest.trim_start();
    let mut attributes = 0;
    while !rest.starts_with("/>") {
        let name_end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '-')).unwrap_or(rest.len());
        let after = rest[name_end..].trim_start();
        let Some(value) = after.strip_prefix('=').map(str::trim_start) else { return false };
        let Some(quote) = value.chars().next().filter(|q| *q == '"' || *q == '\'') else { return false };
        let Some(close) = value[1..].find(quote) else { return false };
        if name_end == 0 {
            return false;
        }
        attributes += 1;
        rest = value[close + 2..].trim_start();
    }
    attributes > 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(src: &str) -> Result<(), (u32, String)> {
        let mut parser = crate::grammar::parser(tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into());
        let tree = parser.parse(src, None).unwrap();
        assert!(!tree.root_node().has_error(), "{src}");
        check(tree.root_node(), src).map_err(|p| (p.line, p.message))
    }

    #[test]
    fn what_the_typescript_parser_accepts_passes() {
        let valid = "/// <reference types=\"node\" />\n/// <reference lib='es2020' />\n/// a note\n\
                     type A = | 'a' | 'b';\ntype B = & { a: 1 } & { b: 2 };\ntype C = string | (| null);\n\
                     const n = 0, o = 0o17, x = 0.5, big = 10n;\n/** done */\nexport = n;\n\
                     export { default } from './d.js';\nimport { default as d } from './d.js';\n\
                     const r = f(a, b,);\nconst l = [a, , b];\n";
        assert_eq!(verdict(valid), Ok(()));
    }

    #[test]
    fn what_the_grammar_lets_through_is_refused_in_typescripts_words() {
        assert_eq!(verdict("type A = string |  | null;\n"), Err((1, "Type expected.".into())));
        assert_eq!(verdict("type A =\n  string ||\n  undefined;\n").map_err(|e| e.0), Err(2));
        assert_eq!(verdict("type A = B &&  { c: 1 };\n").map_err(|e| e.1), Err("Type expected.".into()));
        assert_eq!(verdict("declare const R: number;\nexport ==  R;\n").map_err(|e| e.0), Err(2));
        assert_eq!(verdict("export declare const K = 00 ;\n").map_err(|e| e.0), Err(1));
        assert_eq!(verdict("/// <reference lib\"es2025\" />\nexport {};\n").map_err(|e| e.0), Err(1));
        assert_eq!(verdict("/// <reference />\n").map_err(|e| e.0), Err(1));
        assert_eq!(verdict("const r = f(a,\n  , b);\n"), Err((2, "Argument expression expected.".into())));
        assert_eq!(verdict("const o = { a,, b };\n").map_err(|e| e.1), Err("Property assignment expected.".into()));
    }
}
