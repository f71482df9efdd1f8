//! The syntax gate's JavaScript and TypeScript check: would V8's parser (`node --check`) accept this JavaScript, and
//! the `typescript` package's parser this TypeScript?
//!
//! The check reads tree-sitter's parse, as Java's does: a source passes when the tree holds no `ERROR` node and no
//! `MISSING` node (a token the parser had to invent, such as a `)`). A brace both compilers read as a block and the
//! grammar as an object literal (an arrow's body, a statement) is first written so that only a block can be read
//! (the `block_braces` module). Otherwise the problem is put where a compiler reading left to right stops (the
//! `viable_prefix` module: tree-sitter's recovery starts its `ERROR` node earlier, or at the end of the file for a
//! bracket left open), in that compiler's words (`missing ) after argument list`, `Unexpected end of input`,
//! `Unexpected token '}'`). What tree-sitter's grammar accepts and the compiler refuses is checked after a parse with
//! no error: for V8, names declared twice (the `redeclaration` module) and the constructs the `script_grammar` module
//! lists; for TypeScript, those the `typescript_grammar` module lists. TypeScript's source is read in the grammar's
//! words where it is newer than tree-sitter-typescript 0.23, every position kept. The agreement is measured by
//! `core/tests/gate_node.rs` (V8) and `core/tests/gate_typescript.rs` (the `typescript` package).

use super::SyntaxProblem;
use super::tree_problems::{first_problem, problem_at, problem_at_end, shorten};
use super::viable_prefix::{self, Stop, Unexpected};
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
    check_within(language, compiler, source, SIGNATURE_REREADS)
}

/// How many times a TypeScript source is read again with a `;` before a generic call signature its reading
/// stopped at ([`super::line_break_semicolons::before_signature_at`]).
const SIGNATURE_REREADS: usize = 16;

/// [`check`], reading the source again at most `signature_rereads` times with a `;` before a generic call signature it stops
/// at.
fn check_within(
    language: tree_sitter::Language,
    compiler: Compiler,
    source: &str,
    signature_rereads: usize,
) -> Result<(), SyntaxProblem> {
    let mut parser = grammar::parser(language.clone());
    // TypeScript newer than tree-sitter-typescript 0.23's grammar is read in the grammar's words, every position kept,
    // so a problem elsewhere is still found where it is.
    let older = (compiler == Compiler::TypeScript).then(|| super::newer_typescript::in_older_words(source)).flatten();
    let source = older.as_deref().unwrap_or(source);
    let Some(tree) = parser.parse(source, None) else {
        let problem = SyntaxProblem::new(super::ProblemKind::TooComplex, "the source could not be parsed", 1, 1);
        return Err(problem);
    };
    let root = tree.root_node();
    // An arrow's body or a statement the grammar read as opening with an object literal is a block to the compilers:
    // read again so that it can only be one.
    if let Some(blocks) = super::block_braces::as_blocks(root, source) {
        return check_within(language, compiler, &blocks.text, signature_rereads);
    }
    // Read again where the grammar goes astray and the compilers do not: with the semicolons they insert where a
    // statement or a type member ends at a line break and the grammar reads on, and, in TypeScript, with a function
    // type's first parameter destructured by a simpler pattern. The reading whose first error comes last is kept (one
    // with none first): in a broken source, the rereading still finds the break, and not a misreading before it.
    let rereads = match root.has_error() {
        true => [
            super::line_break_semicolons::with_semicolons(&mut parser, root, source, compiler == Compiler::TypeScript),
            (compiler == Compiler::TypeScript).then(|| simple_first_patterns(source)).flatten(),
        ],
        false => [None, None],
    };
    let reach = |root: tree_sitter::Node<'_>| match root.has_error() {
        false => usize::MAX,
        true => first_problem(root).map_or(0, |n| n.start_byte()),
    };
    let reread = rereads
        .iter()
        .flatten()
        .filter_map(|text| parser.parse(text, None).map(|tree| (tree, text.as_str())))
        .max_by_key(|(tree, _)| reach(tree.root_node()))
        .filter(|(tree, _)| reach(tree.root_node()) > reach(root));
    let (root, source) = match &reread {
        Some((tree, text)) => (tree.root_node(), *text),
        None => (root, source),
    };
    if !root.has_error() {
        // What the grammar lets through and the compiler refuses. A name declared twice is among it for V8; TypeScript
        // reports it as a type error, after parsing.
        return match compiler {
            Compiler::V8 => beyond_the_grammar(root, source),
            Compiler::TypeScript => super::typescript_grammar::check(root, source),
        };
    }
    let Some(node) = first_problem(root) else {
        return Err(problem_at(root, source, "Invalid or unexpected token"));
    };
    // An empty element the grammar let through before where its recovery starts: the compilers stop at its comma.
    if let Some((list, comma)) = super::script_grammar::first_hole_before(root, node.start_byte()) {
        let message = match compiler {
            Compiler::V8 => "Unexpected token ','",
            Compiler::TypeScript => super::typescript_grammar::hole_message(list.kind()),
        };
        return Err(problem_at(comma, source, message));
    }
    // Where a compiler reading left to right stops, at or after where tree-sitter's recovery starts; for V8, before
    // that where the module's structure is broken (an `export` inside a block, a `return` outside a function).
    let arrow_heads = compiler == Compiler::TypeScript;
    let stop = match viable_prefix::first_unexpected(&mut parser, root, source, node.start_byte(), arrow_heads) {
        Ok(Stop::At(stop)) => {
            let sooner = (compiler == Compiler::TypeScript).then(|| {
                generic_arrow_taken_back(&mut parser, root, source, &stop).or_else(|| {
                    let before = |p: &SyntaxProblem| (p.line as usize) <= stop.token.start_position().row;
                    non_member(&mut parser, root, source, stop.open)
                        .filter(before)
                        .or_else(|| super::typescript_grammar::bare_try_before(root, source, stop.token.start_byte()))
                })
            });
            let problem = sooner.flatten().unwrap_or_else(|| stopped_at(&stop, compiler, source));
            Some((stop.token.start_byte(), problem))
        }
        Ok(Stop::End(open)) => Some((source.len(), ends_too_soon(&mut parser, root, compiler, source, open))),
        Err(()) => None,
    };
    if let Some((at, _)) = stop
        && compiler == Compiler::TypeScript
        && signature_rereads > 0
        && let Some(text) = super::line_break_semicolons::before_signature_at(source, at)
    {
        return check_within(language, compiler, &text, signature_rereads - 1);
    }
    if let Some((at, problem)) = stop {
        let structure = (compiler == Compiler::V8).then(|| super::script_grammar::structure_problem(root, source, at));
        return Err(structure.flatten().unwrap_or(problem));
    }
    let at_end = node.end_byte() >= source.trim_end().len();
    let message = match (compiler, node.is_missing()) {
        (Compiler::TypeScript, true) => format!("'{}' expected", node.kind()),
        // V8 names the token it met where the missing one should be.
        (Compiler::V8, true) if !at_end => unexpected(source.get(node.end_byte()..).unwrap_or("")),
        _ if at_end => "Unexpected end of input".to_string(),
        _ => unexpected(source.get(node.start_byte()..node.end_byte()).unwrap_or("")),
    };
    if at_end {
        return Err(problem_at_end(source, &message));
    }
    Err(problem_at(node, source, &message))
}

/// Where the `typescript` parser stops when the token a reading stopped at breaks a generic arrow function's head
/// after its parameters: it reads the arrow again as a type assertion ([`super::generic_arrows`]).
fn generic_arrow_taken_back(
    parser: &mut tree_sitter::Parser,
    root: tree_sitter::Node<'_>,
    source: &str,
    stop: &Unexpected<'_>,
) -> Option<SyntaxProblem> {
    let tokens = viable_prefix::tokens(root).ok()?;
    let at = tokens.iter().position(|t| t.start_byte() == stop.token.start_byte())?;
    super::generic_arrows::reread_as_assertion(parser, source, &tokens, at)
}

/// A source every prefix of which could still be completed: it ends too soon, leaving the bracket `open` open.
/// In TypeScript, when the bracket left open is a body of type members, the `typescript` parser stops sooner
/// ([`non_member`]).
fn ends_too_soon(
    parser: &mut tree_sitter::Parser,
    root: tree_sitter::Node<'_>,
    compiler: Compiler,
    source: &str,
    open: Option<tree_sitter::Node<'_>>,
) -> SyntaxProblem {
    if compiler == Compiler::TypeScript
        && let Some(problem) = non_member(parser, root, source, open)
    {
        return problem;
    }
    let closer = open.map_or("}", viable_prefix::closer);
    match compiler {
        Compiler::V8 => problem_at_end(source, "Unexpected end of input"),
        Compiler::TypeScript => problem_at_end(source, &format!("'{closer}' expected")),
    }
}

/// When the bracket `open` (left open where a reading stops) is a body of type members, the first line in it no
/// member can open, where the `typescript` parser stops ([`super::typescript_grammar::first_non_member`]). Whether
/// it is one is read from the tree, or where the tree's recovery left it in an `ERROR`, from the prefix up to it
/// read alone.
fn non_member(
    parser: &mut tree_sitter::Parser,
    root: tree_sitter::Node<'_>,
    source: &str,
    open: Option<tree_sitter::Node<'_>>,
) -> Option<SyntaxProblem> {
    let holds_members = |kind: &str| matches!(kind, "interface_body" | "object_type");
    let body = open.filter(|o| match o.parent() {
        Some(p) if p.is_error() => {
            viable_prefix::read_alone(parser, root, source, *o).is_some_and(|k| holds_members(&k))
        }
        Some(p) => holds_members(p.kind()),
        None => false,
    })?;
    super::typescript_grammar::first_non_member(source, body.end_byte())
}

/// The problem at the token a compiler reading left to right stops at, in its words and where it puts it: V8 names
/// an identifier, a string, a number or a template as such, and an argument list left open at the argument before.
fn stopped_at(stop: &Unexpected<'_>, compiler: Compiler, source: &str) -> SyntaxProblem {
    let token = stop.token;
    let text = source.get(token.start_byte()..token.end_byte()).unwrap_or("");
    if compiler == Compiler::TypeScript {
        let elsewhere = super::typescript_grammar::stops_elsewhere(source, token.start_byte());
        return elsewhere.unwrap_or_else(|| problem_at(token, source, &unexpected(text)));
    }
    // Right after an argument, where the list could have ended.
    if let (Some(open), Some(previous)) = (stop.open, stop.previous)
        && open.kind() == "("
        && ends_expression(previous.kind())
        && opens_arguments(open, source)
    {
        return problem_at(previous, source, "missing ) after argument list");
    }
    let message = match token.kind() {
        _ if super::script_grammar::RESERVED.contains(&text) => unexpected(text),
        "identifier" | "property_identifier" | "shorthand_property_identifier" | "private_property_identifier" => {
            format!("Unexpected identifier '{}'", shorten(text))
        }
        "number" => "Unexpected number".to_string(),
        "\"" | "'" => "Unexpected string".to_string(),
        "`" => "Unexpected template string".to_string(),
        _ => unexpected(text),
    };
    problem_at(token, source, &message)
}

/// Whether a token of this kind can end an expression (a name, a literal, a closing bracket).
fn ends_expression(kind: &str) -> bool {
    matches!(
        kind,
        "identifier"
            | "property_identifier"
            | "private_property_identifier"
            | "shorthand_property_identifier"
            | "number"
            | "\""
            | "'"
            | "`"
            | ")"
            | "]"
            | "}"
            | "this"
            | "super"
            | "true"
            | "false"
            | "null"
            | "undefined"
            | "regex_flags"
            | "++"
            | "--"
    )
}

/// Whether the `(` opens a call's arguments: tree-sitter says so, or, inside an `ERROR` node, the token before it
/// ends an expression (a name, a closing bracket, a template).
fn opens_arguments(open: tree_sitter::Node<'_>, source: &str) -> bool {
    match open.parent().map(|p| p.kind()) {
        Some("arguments") => true,
        Some("ERROR") => {
            let before = source[..open.start_byte()].trim_end();
            let word = before.rsplit(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$')).next().unwrap_or("");
            before.ends_with([')', ']', '`'])
                || (!word.is_empty()
                    && !matches!(word, "if" | "while" | "for" | "switch" | "catch" | "function" | "return" | "with"))
        }
        _ => false,
    }
}

/// The source with each object pattern that opens a parameter list and has a type (`({ a: { b } }: T) =>`, which
/// tree-sitter-typescript 0.23 reads as a parenthesized object type) emptied to `{ _ }`, line breaks and length
/// kept; `None` when there is none.
fn simple_first_patterns(source: &str) -> Option<String> {
    let bytes = source.as_bytes();
    let mut text = source.as_bytes().to_vec();
    let mut changed = false;
    for (at, _) in source.match_indices("({") {
        let mut depth = 0usize;
        let Some(close) = bytes[at + 1..].iter().position(|&b| {
            depth = match b {
                b'{' => depth + 1,
                b'}' => depth - 1,
                _ => depth,
            };
            depth == 0
        }) else {
            continue;
        };
        let close = at + 1 + close;
        let after = source[close + 1..].trim_start();
        if !(after.starts_with(':') || after.starts_with("?:")) || close - at < 4 {
            continue;
        }
        text[at + 2] = b' ';
        text[at + 3] = b'_';
        for b in &mut text[at + 4..close] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
        changed = true;
    }
    // Every byte between the braces was written over with ASCII, so no character is cut.
    if changed { String::from_utf8(text).ok() } else { None }
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
    fn a_broken_module_structure_is_told_where_v8_meets_it() {
        // A closing brace lost: the export is inside the function (V8 stops there, not at the end).
        let lost_brace = "import a from './a.js';\nfunction f() {\n  g();\nexport const x = 1;\n";
        assert_eq!(js(lost_brace), Err((4, "Unexpected token 'export'".into())));
        // An opening line lost: the return is at the module's top level, before the stray brace.
        let lost_opening = "import a from './a.js';\nconst b = 1;\n  return 1;\n}\n";
        assert_eq!(js(lost_opening), Err((3, "Illegal return statement".into())));
    }

    #[test]
    fn typescript_members_left_open_are_read_whatever_the_recovery_made_of_them() {
        // A comment never closed where it should be swallows the object type's `}`: the tree's recovery leaves the
        // `{` in an ERROR, and the `typescript` parser reads the next declaration as a member named `const`.
        let source = "export const or: {\n  /**\n   * a note\n  (self: boolean): boolean\n} = dual(2, f)\n\n\
                      /**\n * b\n */\nexport const nor: {\n  (self: boolean): boolean\n} = dual(2, g)\n";
        assert_eq!(ts(source), Err((10, "';' expected.".into())));
        // A `try` with neither `catch` nor `finally` before the break.
        let bare = "function f() {\n  try {\n    a()\n  }\n  b()\n} finally {\n  c()\n}\n";
        assert_eq!(ts(bare), Err((5, "'catch' or 'finally' expected.".into())));
        // Imports and tries left open are completed as such: the stop is where the source breaks, not at the opening.
        assert_eq!(ts("import {\n  a,\n  b\n} fromfrom \"./x\"\n"), Err((4, "Unexpected token 'fromfrom'".into())));
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
        // More the grammar lacks: `keyof readonly`, a mapped type's key named `type`, a property named `abstract`,
        // an empty `declare const;`, and a generic call signature opening a line after a type member.
        let newer = "type K = { [k in keyof readonly any[]]?: boolean };\n\
                     type V = { [type in keyof A]?: (n: A[type]) => void };\n\
                     interface C {\n  abstract?: boolean;\n  abstract: number;\n}\n\
                     export declare const;\n\
                     interface E {\n  <T = {}>(): Set<T>\n  /** the second */\n  <T, U>(a: T): Map<T, U>\n}\n\
                     export const has: {\n  <K>(key: K): <V>(self: T<K, V>) => boolean\n  <K, V>(self: T<K, V>): void\n\
                     \x20 <K>(key: K): 'a'\n  <K>(key: K): 1\n  <K>(key: K): null\n  <K>(key: K): K\n  m(): this\n  <K>(key: K): K\n\
                     } = RBT.has;\nconst c = (a: number) =>\n  <A extends B>(self: S<A>): S<A> =>\n    self;\n";
        assert_eq!(ts(newer), Ok(()));
        // A function type whose first parameter is destructured with a renaming, which the grammar misreads.
        let destructured = "export declare const w: ({ val: { address } }: {\n    val: { address: any };\n}) => any;\n";
        assert_eq!(ts(destructured), Ok(()));
        assert!(ts("export declare const w: ({ val: { address } }: ) => any;\n").is_err());
        assert!(ts("export type * as from './types.js';\n").is_err());
        assert!(ts("type T = import('./t.js').R<;\n").is_err());
        assert!(ts("type T = import('./t.js')Name;\n").is_err(), "a name right after the import is not one with it");
        // Variance and `const` on type parameters (TypeScript 4.7, 5.0), after a generic call signature, and `any`
        // as a name.
        let variance = "export interface Cache<in Key, out Value, in out E = never> extends Base<Key> {\n\
                        \x20 (n: number): <A>(a: A) => Set<A>\n  <A>(a: A, n: number): Set<A>\n\
                        \x20 <const P extends ReadonlyArray<A>, I>(p: P): I\n}\n\
                        type Channel<\n  out Elem,\n  in out,\n> = (any) => void;\n";
        assert_eq!(ts(variance), Ok(()));
        // A modifier before `extends` is one, and leaves the parameter without a name.
        assert_eq!(ts("type Channel<\n  out Elem,\n  in out extends string,\n> = 1;\n").map_err(|e| e.0), Err(3));
        assert_eq!(ts("interface I<in out K out> {}\n").map_err(|e| e.0), Err(1));
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

    /// The problem is where a compiler reading left to right stops, not where tree-sitter's recovery starts.
    #[test]
    fn problems_are_put_at_the_token_the_compilers_stop_at() {
        // An argument list left open: V8 points at the argument before the token that cannot follow it.
        let open_call = "function f(a) {\n  const x = g(a.b,\n    a.c\n\n  return x\n}\n";
        assert_eq!(js(open_call), Err((3, "missing ) after argument list".into())));
        // ... and at the token itself when no argument came before it.
        assert_eq!(js("class D {\n  url () {\n    return g(\n  }\n}\n"), Err((4, "Unexpected token '}'".into())));
        // A method's head without its body: the next line's first token.
        let headless = "class E {\n  #exit (code)\n    const n = Number(code)\n  }\n}\n";
        assert_eq!(js(headless), Err((3, "Unexpected token 'const'".into())));
        // An arrow with no body before a statement: the statement's keyword, not the arrow's line.
        let arrow = "function g(xs) {\n  return xs.some(x =>\n    if (x) {\n      return 1\n    }\n  })\n}\n";
        assert_eq!(js(arrow), Err((3, "Unexpected token 'if'".into())));
        // A brace missing after `else`'s `}`: the `else`, one line after where tree-sitter puts its missing `}`.
        assert_eq!(js("if (a) {\n  f(a)\n else {\n  g()\n}\n").map_err(|e| e.0), Err(3));
        assert_eq!(js("let s = `a ${b\n`\n").map_err(|e| e.1), Err("Unexpected end of input".into()));
        // TypeScript stops at the token too: a missing `)` in a parameter list, past an import type it reads.
        let params = "export declare const r: (ip: string => Promise<string[]>;\n\
                      export declare const t: import(\"./t.js\").T;\n";
        assert_eq!(ts(params).map_err(|e| e.0), Err(1));
        let unclosed = "interface A {\n  a: string;\ninterface B {\n  b: string;\n}\n";
        assert_eq!(ts(unclosed).map_err(|e| e.0), Err(3));
        // A function's parameters lost after its type parameters: the next line, where the `(` should be.
        let no_params = "export function f<T, U extends T>\n  a: T,\n): U {\n  return a\n}\n";
        assert_eq!(ts(no_params).map_err(|e| e.0), Err(2));
        // An empty element in an object in a file broken further on: its comma.
        let hole = "f({\n  ...a,\n  ,\n})\n\nfunction g( {\n";
        assert_eq!(ts(hole).map_err(|e| e.0), Err(3));
        assert_eq!(js(hole).map_err(|e| e.0), Err(3));
        // A class whose heritage calls a function, its `}) {}` lost: the class takes its body after the brackets
        // close, so the object is read on to the next declaration.
        let heritage = "export class E extends Schema.TaggedError<E>()(\"E\", {\n  message: Schema.String\n\n\
                        export const x = 1\n";
        assert_eq!(ts(heritage).map_err(|e| e.0), Err(4));
        // A generic arrow's parameter that cannot open one: the parser gives the arrow up and reads an assertion.
        let nameless = "const request = <A, E>(\n  method: string,\n  : Identity[\"Service\"],\n  e: E\n) => e\n";
        assert_eq!(ts(nameless), Err((1, "'>' expected.".into())));
    }

    #[test]
    fn typescript_the_grammar_is_older_than_passes() {
        let tagged = "const rows = yield* sql<{ id: string; at: Date }>`SELECT id, at FROM ${table}`.pipe(f)\n";
        assert_eq!(ts(tagged), Ok(()));
        assert_eq!(ts("let as = xs.length === 0 ? [] : xs\nreturn as\n"), Ok(()));
        // ... and a name that only ends in `let` or `var` is left as it is.
        assert_eq!(ts("const v = tablet as Tablet\nconst w = myvar as any\n"), Ok(()));
        assert_eq!(ts("function f(...names: (typeof undefined | string)[]): void {}\n"), Ok(()));
        assert_eq!(ts("export interface Parameter {\n  name: string\n  in: \"query\" | \"header\"\n}\n"), Ok(()));
    }

    #[test]
    fn a_brace_the_compilers_read_as_a_block_is_read_as_one() {
        // An arrow's body and a statement open a block, not an object literal: both compilers refuse these, where
        // tree-sitter's grammar reads an object and accepts them.
        assert_eq!(ts("const f = () => { a: 1, b: 2 }\n").map_err(|e| e.0), Err(1));
        assert_eq!(js("const f = () => { a: 1, b: 2 }\n").map_err(|e| e.0), Err(1));
        assert_eq!(ts("{\n  reducer: { [a.b]: a.c }\n}\n").map_err(|e| e.0), Err(2));
        // A call's `({` lost: the stop is inside the body read as a block, not where the file's brackets give out.
        let lost = "test('x', () => {\n  reducer: { [a.b]: a.c },\n})\n\nfunction g() {\n  return 1\n}\n";
        assert_eq!(ts(lost).map_err(|e| e.0), Err(2));
        // What the compilers do read so passes.
        let read_so = "const f = () => ({ a: 1 });\nconst g = () => { a: 1 };\n({ a } = b);\n{ c: 2 }\n";
        assert_eq!(ts(read_so), Ok(()));
        assert_eq!(js(read_so), Ok(()));
    }
}
