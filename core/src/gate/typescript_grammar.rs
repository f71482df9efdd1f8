//! What the `typescript` package's parser refuses that tree-sitter-typescript's grammar accepts, found in one walk of
//! a tree with no error:
//!
//! - a union or an intersection whose operand opens with its own `|` or `&` (`A | | B`, `A || B`): a leading
//!   operator is allowed only where the type starts;
//! - a reserved word read as a name in an expression (`export == x`);
//! - a numeric literal in the old octal form (`00`, `017`);
//! - a block comment never closed;
//! - a `/// <reference ... />` directive that does not read as one;
//! - an empty element in an object, a call's arguments, a parameter list or an import or export list (`f(a,, b)`);
//! - `??` where a conditional type's `?` goes (`A extends B ?? C : D`), read by the grammar as a Flow maybe type;
//! - a type parameter modifier before `extends` (`<out extends X>`), which leaves the parameter without a name;
//! - a `try` with neither `catch` nor `finally`.
//!
//! In a tree with an error, it also tells where the `typescript` parser stops when that is not where a reading left
//! to right in tree-sitter's grammar does ([`stops_elsewhere`], [`first_non_member`]).
//!
//! Each is measured against the `typescript` package by `core/tests/gate_typescript.rs` on mutants of real sources.

use tree_sitter::Node;

use super::SyntaxProblem;
use super::script_grammar::{NO_HOLES, RESERVED, empty_element, lacks_catch_and_finally};
use super::tree_problems::{Step, code_before, problem_at, problem_at_byte, problem_at_end, walk};

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
            // `A extends B ?? C : D`: the grammar reads `?C` as a Flow maybe type; the parser meets `??` where
            // the `?` goes.
            "flow_maybe_type" if source[..node.start_byte()].ends_with('?') => {
                return Err(problem_at_byte(source, node.start_byte() - 1, "'?' expected."));
            }
            "try_statement" if lacks_catch_and_finally(node) => {
                return Err(problem_at_byte(source, code_after(source, node.end_byte()), CATCH_OR_FINALLY));
            }
            // `<out extends X>`: a modifier before `extends` is one, and `extends` is no name.
            "type_parameter" => {
                let name = node.child_by_field_name("name").and_then(|n| n.utf8_text(source.as_bytes()).ok());
                if let (Some("in" | "out" | "const"), Some(constraint)) = (name, node.child_by_field_name("constraint"))
                {
                    return fail(
                        constraint,
                        "Identifier expected. 'extends' is a reserved word that cannot be used here.",
                    );
                }
            }
            _ => {}
        }
        Ok(())
    })
}

/// Where the `typescript` parser puts a name missing after a `.` that ends a line: when the next line opens with two
/// names (`internal.` and then `export const x`), it ends the member access there and says so right after the dot,
/// where tree-sitter reads the first name as the member and stops at the second. Comments between are passed over.
/// `stop` is the byte of that second name.
fn name_missing_after_dot(source: &str, stop: usize) -> Option<SyntaxProblem> {
    let is_name = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let line_start = source[..stop].rfind('\n').map_or(0, |i| i + 1);
    let first = source[line_start..stop].trim();
    let two_names = !first.is_empty()
        && first.chars().all(is_name)
        && source[stop..].starts_with(is_name)
        && source[line_start..stop].ends_with(char::is_whitespace);
    let before = code_before(source, line_start);
    let dot = two_names && before.ends_with('.') && !before.ends_with("...");
    dot.then(|| problem_at_byte(source, before.len(), "Identifier expected."))
}

/// Where the `typescript` parser stops when the token a reading stopped at (byte `stop`) is not where it does:
/// - in a block comment never closed (the last `/*` before it is not closed after it): `'*/' expected.` at the end;
/// - on a line that opens a generic call signature whose type parameters close the line (`<A, B>` with its `(`
///   lost): `'(' expected.` at the next token;
/// - a namespace's `{` lost ([`body_lost_after_namespace`]);
/// - a name missing after a `.` that ends a line ([`name_missing_after_dot`]).
pub(super) fn stops_elsewhere(source: &str, stop: usize) -> Option<SyntaxProblem> {
    let upto = (stop + 2).min(source.len());
    if let Some(open) = source.get(..upto).and_then(|s| s.rfind("/*"))
        && !source[open + 2..].contains("*/")
    {
        return Some(problem_at_end(source, "'*/' expected."));
    }
    let line_start = source[..stop].rfind('\n').map_or(0, |i| i + 1);
    let line_end = source[stop..].find('\n').map_or(source.len(), |i| stop + i);
    let line = source[line_start..line_end].trim();
    let signature = line.strip_prefix('<').is_some_and(|r| r.starts_with(|c: char| c.is_alphabetic() || c == '_'));
    if signature && type_parameters_alone(line) {
        let next = source[line_end..].len() - source[line_end..].trim_start().len();
        if line_end + next < source.len() {
            return Some(problem_at_byte(source, line_end + next, "'(' expected."));
        }
    }
    body_lost_after_namespace(source, stop).or_else(|| name_missing_after_dot(source, stop))
}

/// What the `typescript` parser says of a `try` with neither `catch` nor `finally`, at the token after its block.
const CATCH_OR_FINALLY: &str = "'catch' or 'finally' expected.";

/// In a tree with an error, a `try` before byte `stop` with neither `catch` nor `finally`: the `typescript` parser
/// stops at the token after its block, where tree-sitter's grammar, which lets both go, reads on.
pub(super) fn bare_try_before(root: Node<'_>, source: &str, stop: usize) -> Option<SyntaxProblem> {
    let mut found = None;
    let _ = walk(root, |step| {
        let Step::Enter(node) = step else { return Ok(()) };
        if node.start_byte() >= stop {
            return Err(());
        }
        if lacks_catch_and_finally(node) {
            let next = code_after(source, node.end_byte());
            if next < stop {
                found = Some(problem_at_byte(source, next, CATCH_OR_FINALLY));
                return Err(());
            }
        }
        Ok(())
    });
    found
}

/// A namespace or a module declared on a line of its own with its `{` lost before the stop (`export declare
/// namespace X` and then a member on the next line): the `typescript` parser expects the `{` at the next token,
/// where tree-sitter reads on.
fn body_lost_after_namespace(source: &str, stop: usize) -> Option<SyntaxProblem> {
    let is_part = |part: &str| {
        part.starts_with(|c: char| c.is_alphabetic() || c == '_' || c == '$')
            && part.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$')
    };
    let is_name = |w: &str| w.split('.').all(is_part);
    let mut line_start = 0;
    for line in source[..stop].split_inclusive('\n') {
        let words: Vec<&str> = line.split_whitespace().collect();
        let modifiers = words.iter().take_while(|w| matches!(**w, "export" | "declare")).count();
        let declares = words.len() == modifiers + 2
            && matches!(words[modifiers], "namespace" | "module")
            && is_name(words[modifiers + 1]);
        line_start += line.len();
        if declares && line.ends_with('\n') {
            let next = code_after(source, line_start);
            if next < stop && !source[next..].starts_with('{') {
                return Some(problem_at_byte(source, next, "'{' expected."));
            }
        }
    }
    None
}

/// The byte of the first code at or after `at`: white space and comments passed over.
fn code_after(source: &str, mut at: usize) -> usize {
    loop {
        let rest = &source[at..];
        let trimmed = rest.trim_start();
        at += rest.len() - trimmed.len();
        if trimmed.starts_with("//") {
            at += trimmed.find('\n').unwrap_or(trimmed.len());
        } else if trimmed.starts_with("/*") {
            at += trimmed.find("*/").map_or(trimmed.len(), |i| i + 2);
        } else {
            return at;
        }
    }
}

/// Whether a line opening with `<` is its type parameter list and nothing more: the `<` is closed by the line's last
/// character (an `=>` is not a closing `>`).
fn type_parameters_alone(line: &str) -> bool {
    let mut depth = 0usize;
    let bytes = line.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'<' => depth += 1,
            b'>' if i > 0 && bytes[i - 1] == b'=' => {}
            b'>' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i == bytes.len() - 1;
                }
            }
            _ => {}
        }
    }
    false
}

/// Words that open a declaration and never a type member's continuation: a line of members that opens with one of
/// them and a name, and goes on as no member does, is where the `typescript` parser stops.
const DECLARATION_WORDS: [&str; 14] = [
    "export",
    "import",
    "const",
    "let",
    "var",
    "function",
    "class",
    "interface",
    "type",
    "enum",
    "namespace",
    "declare",
    "module",
    "abstract",
];

/// In a body of type members never closed (an interface's or an object type's `{` left open to the end), the first
/// line the `typescript` parser cannot read as a member, which it refuses at once ("Property or signature
/// expected.") where tree-sitter reads on to the end: at the body's own level, a declaration word and a name followed
/// by what follows no member's name (`export interface Right {`, `const f = ...`). `body` is the byte after the
/// `{`. Block comments are passed over; brackets are counted to know the level.
pub(super) fn first_non_member(source: &str, body: usize) -> Option<SyntaxProblem> {
    let mut depth = 0i32;
    let mut in_comment = false;
    let mut line_start = source[..body].rfind('\n').map_or(0, |i| i + 1);
    let mut from = body - line_start;
    for (row, line) in source[line_start..].split('\n').enumerate() {
        let text = line.get(from..).unwrap_or("");
        from = 0;
        let opened = text.trim_start();
        let at_level = depth == 0 && !in_comment && row > 0;
        if at_level && let Some((offset, message)) = member_reading(opened) {
            let at = line_start + line.len() - opened.len() + offset;
            return Some(problem_at_byte(source, at, message));
        }
        let mut chars = text.char_indices();
        while let Some((i, c)) = chars.next() {
            let next = text[i + c.len_utf8()..].chars().next();
            match (in_comment, c, next) {
                (true, '*', Some('/')) => {
                    in_comment = false;
                    chars.next();
                }
                (true, ..) => {}
                (false, '/', Some('*')) => {
                    in_comment = true;
                    chars.next();
                }
                (false, '/', Some('/')) => break,
                (false, '=', Some('>')) => {
                    chars.next();
                }
                (false, '(' | '[' | '{' | '<', _) => depth += 1,
                (false, ')' | ']' | '}' | '>', _) => depth -= 1,
                _ => {}
            }
        }
        if depth < 0 {
            return None;
        }
        line_start += line.len() + 1;
    }
    None
}

/// Words the `typescript` parser may take as modifiers of a member.
const MODIFIERS: [&str; 15] = [
    "export",
    "declare",
    "const",
    "public",
    "private",
    "protected",
    "static",
    "readonly",
    "abstract",
    "async",
    "override",
    "accessor",
    "default",
    "in",
    "out",
];

/// Where the `typescript` parser stops in a line among type members that opens with a declaration word, as the byte
/// offset in the line and its message; `None` when it reads a member there. It first asks whether a member can open
/// there (the modifiers passed over, a name followed by what follows a member's name: `(`, `<`, `?`, `:`, `,`, `;`,
/// `}` or the line's end): when none can (`export interface Right {`, `const f = 1`, `let x: T`), it stops at once,
/// "Property or signature expected.". When one can, it reads the modifiers again, keeping only those a name follows
/// (`const` only before `enum`, `export default` only before a declaration): `export const x: T` is the member
/// `const` modified by `export`, and the `x` after it is where a `;` was expected.
fn member_reading(line: &str) -> Option<(usize, &'static str)> {
    let is_name = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    // The line's first tokens: names, and single characters otherwise, with their offsets.
    let mut tokens: Vec<(usize, &str)> = Vec::new();
    let mut rest = line;
    while tokens.len() < 8 {
        let trimmed = rest.trim_start();
        let Some(first) = trimmed.chars().next() else { break };
        let at = line.len() - trimmed.len();
        let length = match first {
            _ if is_name(first) => trimmed.len() - trimmed.trim_start_matches(is_name).len(),
            _ => first.len_utf8(),
        };
        tokens.push((at, &trimmed[..length]));
        rest = &trimmed[length..];
    }
    let word = |i: usize| tokens.get(i).map_or("", |t| t.1);
    let named = |i: usize| word(i).starts_with(is_name);
    let follows_a_name = |i: usize| matches!(word(i), "" | "(" | "<" | "?" | ":" | "," | ";" | "}");
    if !DECLARATION_WORDS.contains(&word(0)) {
        return None;
    }
    let mut at = 0;
    while MODIFIERS.contains(&word(at)) {
        at += 1;
    }
    let opens = match word(at) {
        "[" => true,
        _ if named(at) => follows_a_name(at + 1),
        _ => at > 0 && follows_a_name(at),
    };
    if !opens {
        return Some((0, "Property or signature expected."));
    }
    let mut name = 0;
    let modifies = |i: usize| match (word(i), word(i + 1)) {
        ("const", next) => next == "enum",
        ("export", "default") => matches!(word(i + 2), "class" | "function" | "interface" | "abstract" | "async"),
        (modifier, _) => MODIFIERS.contains(&modifier) && named(i + 1),
    };
    while modifies(name) {
        name += 1;
    }
    (!follows_a_name(name + 1) && named(name)).then(|| (tokens[name + 1].0, "';' expected."))
}

/// What the `typescript` package says of an empty element in a list of this kind.
pub(super) fn hole_message(list: &str) -> &'static str {
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
                     const r = f(a, b,);\nconst l = [a, , b];\nlet m: ?string = null;\n";
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
        assert_eq!(verdict("type A<T> = T extends object\n  ?? X<T>\n  : Y\n"), Err((2, "'?' expected.".into())));
        let reserved = "Identifier expected. 'extends' is a reserved word that cannot be used here.";
        assert_eq!(verdict("type F<out extends X> = 1\n"), Err((1, reserved.into())));
        assert_eq!(verdict("try {\n  a()\n}\nb()\n"), Err((4, CATCH_OR_FINALLY.into())));
    }

    #[test]
    fn a_members_body_left_open_stops_where_no_member_can_open() {
        let source = "export interface Left {\n  readonly _tag: \"Left\"\n  /** a note\n   export const x = 1 */\n\n\
                      export interface Right {\n  readonly a: A\n}\n";
        let problem = first_non_member(source, source.find('{').unwrap() + 1).expect("a declaration among members");
        assert_eq!((problem.line, problem.column, problem.message.as_str()), (6, 1, "Property or signature expected."));
        let members = "interface A {\n  get x(): number\n  readonly y?: string\n  type: string\n  new (a: A): B\n\
                       \x20 m<T>(a: T): T\n  a: {\n    export const: 1\n  }\n  b: X extends Y ? Z : W\n  declare\n";
        assert!(first_non_member(members, members.find('{').unwrap() + 1).is_none());
    }

    #[test]
    fn a_line_among_members_is_read_as_the_typescript_parser_reads_it() {
        // Each checked against the `typescript` package: no member opens; a member named by a declaration word.
        assert_eq!(member_reading("export interface Right {"), Some((0, "Property or signature expected.")));
        assert_eq!(member_reading("const f = 1"), Some((0, "Property or signature expected.")));
        assert_eq!(member_reading("let x: T"), Some((0, "Property or signature expected.")));
        assert_eq!(member_reading("export const nor: {"), Some((13, "';' expected.")));
        assert_eq!(member_reading("export declare const x: number"), Some((21, "';' expected.")));
        assert_eq!(member_reading("export default X"), Some((7, "';' expected.")));
        for member in ["type: string", "declare", "readonly a: A", "const?: number"] {
            assert_eq!(member_reading(member), None, "{member}");
        }
    }

    #[test]
    fn a_namespace_without_its_brace_is_told_at_the_next_token() {
        let source = "export declare namespace Outer.Inner\n  /** a note */\n  export interface A {}\n}\n";
        let problem = body_lost_after_namespace(source, source.rfind('}').unwrap()).expect("a lost brace");
        assert_eq!((problem.line, problem.column, problem.message.as_str()), (3, 3, "'{' expected."));
        let kept = "declare namespace N{\n  export type A = 1\n}\n = N\n";
        assert!(body_lost_after_namespace(kept, kept.find(" =").unwrap()).is_none());
    }

    #[test]
    fn a_name_missing_after_a_dot_is_told_after_the_dot() {
        let source = "export const a = internal.\n/** the next */\nexport const b = 1;\n";
        let problem = name_missing_after_dot(source, source.rfind("const").unwrap()).expect("two names after a dot");
        assert_eq!((problem.line, problem.column, problem.message.as_str()), (1, 27, "Identifier expected."));
        let one_name = "const a = o.\n  b + c;\n";
        assert!(name_missing_after_dot(one_name, one_name.find('+').unwrap()).is_none());
        let spread = "f(...\n  a b);\n";
        assert!(name_missing_after_dot(spread, spread.find(" b").unwrap() + 1).is_none());
    }

    #[test]
    fn where_the_typescript_parser_stops_instead() {
        let open_comment = "const a = 1;\n/** never closed\n * more\n";
        let stop = open_comment.find("more").unwrap();
        let problem = stops_elsewhere(open_comment, stop).expect("a comment left open");
        assert_eq!((problem.line, problem.message.as_str()), (4, "'*/' expected."));
        let lost_paren = "type F = {\n  (a: A): B\n  <X, E>\n    self: X,\n  ): E\n}\n";
        let problem = stops_elsewhere(lost_paren, lost_paren.find("<X").unwrap()).expect("a signature's ( lost");
        assert_eq!((problem.line, problem.column, problem.message.as_str()), (4, 5, "'(' expected."));
        let whole = "type F = {\n  <A, E>(effect: E<A>: (self: D<A>) => E<boolean>\n}\n";
        assert!(stops_elsewhere(whole, whole.find("<A").unwrap()).is_none(), "a signature with more than its types");
        let closed = "/** closed */\nconst a = b c;\n";
        assert!(stops_elsewhere(closed, closed.find(" c").unwrap() + 1).is_none());
    }
}
