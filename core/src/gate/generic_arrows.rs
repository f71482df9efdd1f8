//! Where the `typescript` parser stops in a generic arrow function whose head breaks.
//!
//! In a `.ts` file, `<T>(x: T): R => ...` in an expression is only tried as an arrow function: when its head does not
//! end in `=>` (the `(` lost, the parameter list ended before its `)`, the return type broken, the `=>` lost), the
//! parser takes it back and reads the `<` as a type assertion, `<T>(expression)`. Its first error is then inside the
//! type parameters or at the first parameter, before where a reading left to right in tree-sitter's grammar stops:
//!
//! - `<A, B>(` and `<A = X>(`: `'>' expected.` at the `,` or the `=`;
//! - `<A extends X>(`: a conditional type left without its `?`, `'?' expected.` after `X`;
//! - `<A>(name: T`: a parenthesized expression, `')' expected.` at the `:`; `<A>()`: `Expression expected.`.

use tree_sitter::{Node, Parser};

use super::SyntaxProblem;
use super::tree_problems::problem_at;
use super::viable_prefix::{clean_before, closing_all, starts_an_expression_after};

/// How far back from the stop a generic arrow's `<` is looked for, in tokens.
const REACH: usize = 2_000;

/// The problem the `typescript` parser reports first when the token a reading stopped at (index `stop` of `tokens`,
/// the tree's leaves in order) breaks the head of a generic arrow function, as it reads that arrow again as a type
/// assertion. `None` when no generic arrow's head holds the stop, or the assertion's error is
/// not one of those the module lists.
pub(super) fn reread_as_assertion(
    parser: &mut Parser,
    source: &str,
    tokens: &[Node<'_>],
    stop: usize,
) -> Option<SyntaxProblem> {
    let text = |i: usize| tokens.get(i).and_then(|t| t.utf8_text(source.as_bytes()).ok()).unwrap_or("");
    let first = stop.saturating_sub(REACH);
    let opening =
        (first..stop).rev().filter(|&i| text(i) == "<" && (i == 0 || starts_an_expression_after(text(i - 1))));
    let (lt, gt) = opening.filter_map(|lt| broken_head(source, tokens, lt, stop).map(|gt| (lt, gt))).next()?;
    is_arrow_function(parser, source, tokens, lt, gt).then(|| assertion_problem(source, tokens, lt, gt)).flatten()
}

/// The index of the `>` that closes a generic arrow's type parameters opened at `lt`, when its head (type
/// parameters, parameters, return type, up to the `=>`) breaks at the token at `stop`: after the `>` where the `(`
/// should be, among the parameters at a token that ends their list ([`ends_the_parameters`]), or after the `)`
/// where the return type ends without the `=>`.
fn broken_head(source: &str, tokens: &[Node<'_>], lt: usize, stop: usize) -> Option<usize> {
    let text = |i: usize| tokens[i].utf8_text(source.as_bytes()).unwrap_or("");
    let gt = closed_at(source, tokens, lt, stop)?;
    let open = gt + 1;
    if open > stop {
        return None;
    }
    if text(open) != "(" {
        // The parameters' `(` lost: the arrow is given up right there.
        return Some(gt);
    }
    let Some(close) = closed_at(source, tokens, open, stop) else {
        // The stop is among the parameters.
        let mut depth = Vec::new();
        let nested = (open..stop).all(|i| nest(text(i), &mut depth));
        let at_top = depth.len() == 1;
        let ends = nested && ends_the_parameters(text(stop), text(stop - 1), depth.last() == Some(&'<'), at_top);
        return ends.then_some(gt);
    };
    match tokens.get(close + 1).map(|_| text(close + 1)) {
        Some(":") => {
            // The return type runs to the first `=>` outside its brackets; the stop must come before it, where the
            // type ends: outside its brackets, at a closing bracket that closes none of them, or at a word that
            // opens a declaration. Inside them the parser reads on past other errors (`A<B, , C>`) to the `=>`.
            let mut depth = Vec::new();
            for i in close + 2..stop {
                if depth.is_empty() && text(i) == "=>" {
                    return None;
                }
                if !nest(text(i), &mut depth) {
                    return None;
                }
            }
            let ends = depth.is_empty() || matches!(text(stop), ")" | "]" | "}") || opens_a_declaration(text(stop));
            ends.then_some(gt)
        }
        _ => (close + 1 == stop).then_some(gt),
    }
}

/// Whether a stop among a generic arrow's parameters, at the token `stop` after `previous`, leaves the parser without
/// the `)` that ends them: a `}`, an `=>` or a `>` that closes nothing open there, a word that opens a declaration, or
/// a name right after a type in type arguments (`<E R>`), which end the argument list there and leave the rest
/// unread; or, `at_top` of the list (in no bracket but its own), a token no parameter can open where one must
/// (`(a: A, : B)`: not a name, a pattern's bracket, `...`, a decorator or the list's `)`), which makes the parser
/// give the arrow up. At other errors (`f: a: T`, an object type's `}` lost before the `)`) it reads on to the `)`
/// and keeps the arrow.
fn ends_the_parameters(stop: &str, previous: &str, in_type_arguments: bool, at_top: bool) -> bool {
    let is_name = |s: &str| s.starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '$' || c == '#');
    let after_a_type = is_name(previous) || matches!(previous, ">" | "]" | ")");
    let opens_no_parameter =
        at_top && matches!(previous, "," | "(") && !is_name(stop) && !matches!(stop, "[" | "{" | "..." | "@" | ")");
    matches!(stop, "}" | "=>")
        || (stop == ">" && !in_type_arguments)
        || opens_a_declaration(stop)
        || (in_type_arguments && is_name(stop) && after_a_type)
        || opens_no_parameter
}

/// Whether a word opens a declaration, which no type or parameter holds.
fn opens_a_declaration(word: &str) -> bool {
    matches!(word, "export" | "import" | "const" | "let" | "function" | "class" | "interface")
}

/// The index of the bracket that closes the one at `from` (`<`, `(`, `[` or `{`), found before `stop`.
fn closed_at(source: &str, tokens: &[Node<'_>], from: usize, stop: usize) -> Option<usize> {
    let mut depth = Vec::new();
    for (i, token) in tokens.iter().enumerate().take(stop).skip(from) {
        if !nest(token.utf8_text(source.as_bytes()).unwrap_or(""), &mut depth) {
            return None;
        }
        if depth.is_empty() {
            return Some(i);
        }
    }
    None
}

/// Counts a token into the brackets open (`<` among them, a `>`, `>>` or `>>>` closing as many); `false` at a
/// closing bracket that does not close the innermost one.
fn nest(token: &str, depth: &mut Vec<char>) -> bool {
    match token {
        "<" | "(" | "[" | "{" => depth.push(token.chars().next().unwrap_or('(')),
        ")" | "]" | "}" => {
            let opener = match token {
                ")" => '(',
                "]" => '[',
                _ => '{',
            };
            return depth.pop() == Some(opener);
        }
        _ if !token.is_empty() && token.chars().all(|c| c == '>') => {
            return (0..token.len()).all(|_| depth.pop() == Some('<'));
        }
        _ => {}
    }
    true
}

/// Whether the `<` at `lt` opens an arrow function's type parameters (and not a function type's): the source up to
/// the `>` at `gt`, followed by `() => 0` and closed, parses clean with it under an `arrow_function`.
fn is_arrow_function(parser: &mut Parser, source: &str, tokens: &[Node<'_>], lt: usize, gt: usize) -> bool {
    let Some(closers) = closing_all(source, &tokens[..=gt]) else { return false };
    let end = tokens[gt].end_byte();
    let text = format!("{}() => 0{closers}\n", &source[..end]);
    let Some(tree) = parser.parse(&text, None) else { return false };
    let at = tokens[lt].start_byte();
    let Some(angle) = tree.root_node().descendant_for_byte_range(at, at + 1) else { return false };
    let parameters = angle.parent().filter(|p| p.kind() == "type_parameters");
    let arrow = parameters.and_then(|p| p.parent()).is_some_and(|f| f.kind() == "arrow_function");
    arrow && clean_before(tree.root_node(), end)
}

/// The first error of `<...>(...)` read as a type assertion: the type parameters (from `lt` to `gt`) as a type,
/// then the parameters as a parenthesized expression.
fn assertion_problem(source: &str, tokens: &[Node<'_>], lt: usize, gt: usize) -> Option<SyntaxProblem> {
    let text = |i: usize| tokens.get(i).and_then(|t| t.utf8_text(source.as_bytes()).ok()).unwrap_or("");
    let is_name = |s: &str| s.starts_with(|c: char| c.is_alphabetic() || c == '_' || c == '$');
    if !is_name(text(lt + 1)) || text(lt + 1) == "const" {
        return None;
    }
    let at = |i: usize, message: &str| Some(problem_at(tokens[i], source, message));
    match text(lt + 2) {
        "," | "=" => at(lt + 2, "'>' expected."),
        "extends" => {
            let mut depth = Vec::new();
            for i in lt + 3..=gt {
                if depth.is_empty() && (matches!(text(i), "," | "=") || i == gt) {
                    return at(i, "'?' expected.");
                }
                if !nest(text(i), &mut depth) {
                    return None;
                }
            }
            None
        }
        ">" if lt + 2 == gt && text(gt + 1) == "(" => match (text(gt + 2), text(gt + 3)) {
            (")", _) => at(gt + 2, "Expression expected."),
            (name, ":") if is_name(name) => at(gt + 3, "')' expected."),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::gate::SyntaxProblem;

    fn problem(source: &str) -> SyntaxProblem {
        crate::gate::script::check(
            tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            crate::gate::script::Compiler::TypeScript,
            source,
        )
        .expect_err("a broken source")
    }

    #[test]
    fn a_broken_return_type_rereads_the_type_parameters_as_a_type() {
        let p = problem("export const f = <A, B>(\n  a: A,\n  b: B\n): Pair<A, B> = make(a, b)\n");
        assert_eq!((p.line, p.column, p.message.as_str()), (1, 20, "'>' expected."));
        let p = problem("export const f = <A extends Key>(a: A)::  Box<A> => box(a)\n");
        assert_eq!((p.line, p.column, p.message.as_str()), (1, 32, "'?' expected."));
    }

    #[test]
    fn one_type_parameter_leaves_a_parenthesized_expression() {
        let p = problem("export const f = <A>(\n  description: string\n)::  Box<A> => box(description)\n");
        assert_eq!((p.line, p.column, p.message.as_str()), (2, 14, "')' expected."));
    }

    #[test]
    fn a_lost_paren_or_a_list_ended_among_the_parameters_rereads_the_arrow() {
        // Each told as `tsc` tells it: the `(` lost; a name after a type in type arguments, which ends them; a `}`
        // that closes nothing; the `)` lost before the `=>`.
        let cases = [
            ("export const f = <Key, Value>\n  map: Map<Key, Value>\n) => map.size\n", (1, 22, "'>' expected.")),
            ("export const f = <A, B>(\n  pair: Pair<A B>\n) => pair\n", (1, 20, "'>' expected.")),
            ("export const f = <A, B>(\n  options: { readonly a: A }\n  }\n) => options\n", (1, 20, "'>' expected.")),
            ("export const f = <A>(\n  a: A,\n  b: number\n  => a\n", (2, 4, "')' expected.")),
        ];
        for (source, told) in cases {
            let p = problem(source);
            assert_eq!((p.line, p.column, p.message.as_str()), told, "{source}");
        }
    }

    #[test]
    fn a_return_type_read_on_past_its_error_is_not_reread() {
        // The parser reads on past the empty type argument to the `=>` and keeps the arrow: the problem is told in
        // the return type, not in the type parameters.
        let p = problem("export const f = <A, B>(a: A, b: B): Pair<A, , B> => make(a, b)\n");
        assert!(p.column > 36, "{p:?}");
    }

    #[test]
    fn a_function_type_is_not_reread() {
        // In a type annotation `<A, B>(...)` is a function type: nothing is tried and taken back.
        let p = problem("export const f: <A, B>(a: A, b: B): Pair<A, B> = make\n");
        assert_eq!(p.line, 1);
        assert_ne!(p.message, "'>' expected.");
    }
}
