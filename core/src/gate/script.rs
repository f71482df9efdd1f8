//! The syntax gate's JavaScript and TypeScript check: would V8's parser (`node --check`) accept this JavaScript, and
//! the `typescript` package's parser this TypeScript?
//!
//! The check reads tree-sitter's parse, as Java's does: a source passes when the tree holds no `ERROR` node and no
//! `MISSING` node (a token the parser had to invent, such as a `)`), and otherwise the first such node in the source
//! is the problem, in the words of the compiler it stands for where they correspond (`')' expected`, `Unexpected
//! end of input`, `Unexpected token '}'`). For JavaScript, what tree-sitter's grammar accepts and V8 refuses is
//! checked after a parse with no error: names declared twice (the `redeclaration` module) and the constructs the
//! `script_grammar` module lists. TypeScript's source is read again in the grammar's words where it is newer than
//! tree-sitter-typescript 0.23. The agreement is measured by `core/tests/gate_node.rs` (V8) and
//! `core/tests/gate_typescript.rs` (the `typescript` package).

use super::SyntaxProblem;
use super::tree_problems::{Step, first_problem, problem_at, shorten, walk};
use crate::grammar;

/// Whose words a problem is told in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compiler {
    /// V8's, as `node --check` prints them (`Unexpected token ')'`, `Unexpected end of input`).
    V8,
    /// The `typescript` package's (`')' expected`, `Unexpected token`).
    TypeScript,
}

/// `Ok` when the source parses in `language` (one of the JavaScript and TypeScript grammars) without an error or
/// an invented token, otherwise the first problem, in `compiler`'s words.
pub fn check(language: tree_sitter::Language, compiler: Compiler, source: &str) -> Result<(), SyntaxProblem> {
    let mut parser = grammar::parser(language);
    let Some(tree) = parser.parse(source, None) else {
        let problem = SyntaxProblem::new(super::ProblemKind::TooComplex, "the source could not be parsed", 1, 1);
        return Err(problem);
    };
    let root = tree.root_node();
    // TypeScript newer than tree-sitter-typescript 0.23's grammar, read again in the grammar's words.
    if root.has_error()
        && compiler == Compiler::TypeScript
        && let Some(text) = older_typescript(source)
        && let Some(tree) = parser.parse(&text, None)
        && !tree.root_node().has_error()
    {
        return Ok(());
    }
    // The grammar reads an arrow function's block body followed by a line that opens with `[` or `(` as indexed or
    // called, where the compilers end the statement (an arrow function is never a callee or an object without
    // parentheses): read again with the semicolon they insert.
    let asi = root.has_error().then(|| semicolons_after_arrows(root, source)).flatten();
    let reread = asi.as_ref().and_then(|text| Some((parser.parse(text, None)?, text.as_str())));
    let (root, source) = match &reread {
        Some((tree, text)) if !tree.root_node().has_error() => (tree.root_node(), *text),
        _ => (root, source),
    };
    if !root.has_error() {
        // TypeScript reports a name declared twice as a type error, after parsing; V8 refuses the source.
        return match compiler {
            Compiler::V8 => beyond_the_grammar(root, source),
            Compiler::TypeScript => Ok(()),
        };
    }
    let Some(node) = first_problem(root) else {
        return Err(problem_at(root, source, "Invalid or unexpected token"));
    };
    let at_end = node.end_byte() >= source.trim_end().len();
    let message = match (compiler, node.is_missing()) {
        (Compiler::TypeScript, true) => format!("'{}' expected", node.kind()),
        // V8 names the token it met where the missing one should be.
        (Compiler::V8, true) if !at_end => unexpected(source.get(node.end_byte()..).unwrap_or("")),
        _ if at_end => "Unexpected end of input".to_string(),
        _ => unexpected(source.get(node.start_byte()..node.end_byte()).unwrap_or("")),
    };
    if at_end {
        // Both compilers put a source that ends too soon at its end, after its last line break.
        let line = source.matches('\n').count() as u32 + 1;
        let column = source.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u32 + 1;
        return Err(SyntaxProblem::new(super::ProblemKind::Syntax, &message, line, column));
    }
    Err(problem_at(node, source, &message))
}

/// The TypeScript source in words tree-sitter-typescript 0.23 knows, every position kept: `export type * from`
/// (TypeScript 5.0) without its `type`, and each import type (`import("./t.js").Name<A>`, whose type arguments the
/// grammar does not read after the import) as a name of the same length. `None` when there is neither.
fn older_typescript(source: &str) -> Option<String> {
    let mut text = source.to_string();
    let mut changed = false;
    for (at, _) in source.match_indices("export type *") {
        text.replace_range(at + 7..at + 11, "    ");
        changed = true;
    }
    let bytes = source.as_bytes();
    for (at, _) in source.match_indices("import(") {
        let before = at.checked_sub(1).map(|i| bytes[i]);
        if before.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b == b'.') {
            continue;
        }
        let rest = &source[at + 7..];
        let Some(quote) = rest.chars().next().filter(|c| *c == '"' || *c == '\'') else { continue };
        let Some(close) = rest[1..].find([quote, '\n']) else { continue };
        if rest.as_bytes()[1 + close] != quote as u8 || rest.as_bytes().get(close + 2) != Some(&b')') {
            continue;
        }
        let end = at + 7 + close + 3;
        text.replace_range(at + 6..end, &"_".repeat(end - at - 6));
        changed = true;
    }
    changed.then_some(text)
}

/// The source with a `;` after each arrow function whose block body ends a line followed by one that opens with `[`
/// or `(`; `None` when there is no such arrow function.
fn semicolons_after_arrows(root: tree_sitter::Node<'_>, source: &str) -> Option<String> {
    let mut ends = Vec::new();
    let _: Result<(), ()> = walk(root, |step| {
        if let Step::Enter(node) = step
            && node.kind() == "arrow_function"
            && node.child_by_field_name("body").is_some_and(|b| b.kind() == "statement_block")
        {
            let after = source.get(node.end_byte()..).unwrap_or("");
            let gap = after.len() - after.trim_start().len();
            if after[..gap].contains('\n') && after[gap..].starts_with(['[', '(']) {
                ends.push(node.end_byte());
            }
        }
        Ok(())
    });
    if ends.is_empty() {
        return None;
    }
    let mut text = source.to_string();
    for end in ends.into_iter().rev() {
        text.insert(end, ';');
    }
    Some(text)
}

/// What V8 refuses in a tree with no error: the first, in the source's order, of the constructs the grammar lets
/// through and of the names declared twice.
fn beyond_the_grammar(root: tree_sitter::Node<'_>, source: &str) -> Result<(), SyntaxProblem> {
    let problems = [super::script_grammar::check(root, source), super::redeclaration::check(root, source)];
    match problems.into_iter().filter_map(Result::err).min_by_key(|p| (p.line, p.column)) {
        Some(first) => Err(first),
        None => Ok(()),
    }
}

/// "Unexpected token" and the first token of `text`.
fn unexpected(text: &str) -> String {
    match text.split_whitespace().next() {
        Some(token) => format!("Unexpected token '{}'", shorten(token)),
        None => "Invalid or unexpected token".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn js(src: &str) -> Result<(), (u32, String)> {
        check(tree_sitter_javascript::LANGUAGE.into(), Compiler::V8, src).map_err(|p| (p.line, p.message))
    }

    fn ts(src: &str) -> Result<(), (u32, String)> {
        check(tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(), Compiler::TypeScript, src)
            .map_err(|p| (p.line, p.message))
    }

    #[test]
    fn valid_scripts_pass() {
        assert_eq!(
            js("#!/usr/bin/env node\nconst f = (a, b) => a + b;\nclass A { #x = 1; get x() { return this.#x; } }\n"),
            Ok(())
        );
        assert_eq!(js("import fs from 'node:fs';\nexport default async function* g() { yield await 1; }\n"), Ok(()));
        assert_eq!(
            ts("export abstract class C<T> implements I { private x: number = 1; abstract m(): void; }\n"),
            Ok(())
        );
        assert_eq!(ts("function over(a: string): void;\nfunction over(a: any) {}\nenum E { A, B }\n"), Ok(()));
        // A statement after an arrow function's block body, opening with `[`: npm's own base-cmd.js.
        let asi = "const f = (a) => {\n  return a\n}\n\n[...xs, ...(c ? ys : [])].forEach((x) => f(x))\n";
        assert_eq!(js(asi), Ok(()));
        assert_eq!(ts(asi), Ok(()));
        // TypeScript newer than the grammar: TypeScript 5.0's `export type *`, and type arguments after an import type.
        assert_eq!(ts("export type * as types from './types.js';\nexport type * from './more.js';\n"), Ok(()));
        let import_types = "export declare const f: () => import(\"hono\").Handler<Env, string, {}>;\n\
                            type T = import('./t.js').H | import('./t.js').R<import('./t.js').H>;\n";
        assert_eq!(ts(import_types), Ok(()));
        assert!(ts("export type * as from './types.js';\n").is_err());
        assert!(ts("type T = import('./t.js').R<;\n").is_err());
    }

    #[test]
    fn problems_are_reported_where_they_are() {
        assert_eq!(js("function f() {\n  return g(1;\n}\n").map_err(|e| e.0), Err(2));
        assert_eq!(js("function f() {\n  return 1;\n").map_err(|e| e.1), Err("Unexpected end of input".into()));
        assert!(js("const = 1;\n").is_err());
        assert!(js("function f() {\n  return 1;\n}\n}\n").is_err(), "a stray closing brace");
        assert!(ts("let x: = 1;\n").is_err());
        assert_eq!(ts("function f() {\n  return 1;\n").map_err(|e| e.1), Err("'}' expected".into()));
        assert!(js("let x: number = 1;\n").is_err(), "a type annotation is not JavaScript");
        assert!(js("f((a) => {\n  return a\n}\n[0])\n").is_err(), "no statement ends inside parentheses");
    }
}
