//! The semicolons the compilers insert at a line break where tree-sitter's grammar reads on: the gate
//! ([`super::script`]) reads a source again with them, so that a valid source is not refused and a broken one is
//! told where it breaks.

use super::tree_problems::{Step, code_before, walk};

/// How many times the semicolons are looked for again in the source read with those found so far: tree-sitter's
/// recovery from the first misreading can hide the next place.
const SEMICOLON_ROUNDS: usize = 8;

/// The source with the semicolons of [`semicolons_at_line_breaks`], looked for again in each reading that still has
/// an error, until one has none or no more are found; `typescript` for TypeScript's places as well. `None` when
/// there is none.
pub(super) fn with_semicolons(
    parser: &mut tree_sitter::Parser,
    root: tree_sitter::Node<'_>,
    source: &str,
    typescript: bool,
) -> Option<String> {
    let mut text = semicolons_at_line_breaks(root, source, typescript)?;
    for _ in 0..SEMICOLON_ROUNDS {
        let Some(tree) = parser.parse(&text, None).filter(|t| t.root_node().has_error()) else { break };
        let Some(more) = semicolons_at_line_breaks(tree.root_node(), &text, typescript) else { break };
        text = more;
    }
    Some(text)
}

/// In TypeScript, the source with a `;` before the line on which a parser reading left to right stopped, when that
/// line opens a generic call signature (`<` and a name) after code that ends as a type can: the compilers end the type
/// member there, and the grammar read on. `stop` is the byte of the token it stopped at.
pub(super) fn before_signature_at(source: &str, stop: usize) -> Option<String> {
    let line = source[..stop].rfind('\n').map_or(0, |i| i + 1);
    let opened = &source[line..];
    let indent = opened.len() - opened.trim_start_matches([' ', '\t']).len();
    let opens_signature =
        opened[indent..].strip_prefix('<').is_some_and(|r| r.starts_with(|c: char| c.is_alphabetic() || c == '_'));
    let end = opens_signature.then(|| code_end_before(source, line)).flatten()?;
    let mut with = source.to_string();
    with.insert(end, ';');
    Some(with)
}

/// Where the code before byte `at` ends, comments and blank lines passed over, when it ends as a type can (a name,
/// a closing bracket, a quote; not `=>`, an operator or an opening bracket).
fn code_end_before(source: &str, at: usize) -> Option<usize> {
    let before = code_before(source, at);
    let last = before.chars().next_back()?;
    let ends_type = last.is_alphanumeric()
        || matches!(last, '_' | '$' | ')' | ']' | '}' | '\'' | '"' | '`')
        || (last == '>' && !before.ends_with("=>"));
    ends_type.then_some(before.len())
}

/// The source with a `;` at each line break where the compilers end a statement or a type member and tree-sitter's
/// grammar reads on: after an arrow function's block body followed by a line that opens with `[` or `(` (an arrow
/// function is never a callee or an object without parentheses), and in TypeScript before a line that opens with
/// `<` after a type (a generic call signature: no type goes on with `<`). `None` when there is no such place.
fn semicolons_at_line_breaks(root: tree_sitter::Node<'_>, source: &str, typescript: bool) -> Option<String> {
    let mut ends = Vec::new();
    let mut previous: Option<tree_sitter::Node<'_>> = None;
    let _: Result<(), ()> = walk(root, |step| {
        let Step::Enter(node) = step else { return Ok(()) };
        if node.kind() == "arrow_function"
            && node.child_by_field_name("body").is_some_and(|b| b.kind() == "statement_block")
        {
            let after = source.get(node.end_byte()..).unwrap_or("");
            let gap = after.len() - after.trim_start().len();
            if after[..gap].contains('\n') && after[gap..].starts_with(['[', '(']) {
                ends.push(node.end_byte());
            }
        }
        // A token the parser invented (a missing name after `=>`) is not in the source.
        if node.child_count() == 0 && node.kind() != "comment" && !node.is_missing() {
            if typescript
                && node.kind() == "<"
                && let Some(before) = previous
                && before.end_position().row < node.start_position().row
                && ends_type(before, source)
            {
                ends.push(before.end_byte());
            }
            previous = Some(node);
        }
        Ok(())
    });
    if ends.is_empty() {
        return None;
    }
    ends.sort_unstable();
    ends.dedup();
    let mut text = source.to_string();
    for end in ends.into_iter().rev() {
        text.insert(end, ';');
    }
    Some(text)
}

/// Whether a type can end with this token: a closing bracket (not the `>` of an `=>` the parser split, as it can in
/// a tree with errors), a name, `this`, a built-in type (`boolean`, `void`) or a literal type's last token.
fn ends_type(token: tree_sitter::Node<'_>, source: &str) -> bool {
    let parent = token.parent().map_or("", |p| p.kind());
    match token.kind() {
        ">" => token.start_byte().checked_sub(1).is_none_or(|before| source.as_bytes()[before] != b'='),
        ")" | "]" | "}" | "\"" | "'" | "number" | "true" | "false" | "null" | "undefined" | "this" | "this_type" => {
            true
        }
        kind => kind.ends_with("identifier") || parent == "predefined_type",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_semicolon_goes_before_the_signature_a_reading_stopped_on() {
        let source = "type F = {\n  (n: number): void\n  /** the second */\n  // and a note\n\n  <A>(a: A): A\n}\n";
        let stop = source.find("<A>").unwrap() + 3;
        let with = before_signature_at(source, stop).expect("a signature after a type");
        assert_eq!(with, source.replacen("void\n", "void;\n", 1));
        // Not after what cannot end a type, nor on a line that opens otherwise.
        let after_arrow = "const f = (a: A) =>\n  <B>(b: B) => b;\n";
        assert_eq!(before_signature_at(after_arrow, after_arrow.find("<B>").unwrap()), None);
        let after_comma = "f(a,\n  <T>(b));\n";
        assert_eq!(before_signature_at(after_comma, after_comma.find("<T>").unwrap()), None);
        let not_a_signature = "type A = B\n  | C;\n";
        assert_eq!(before_signature_at(not_a_signature, not_a_signature.find('|').unwrap()), None);
    }
}
