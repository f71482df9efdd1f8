//! Where a compiler that reads left to right stops: the first token after which the source can no longer be
//! completed. V8 and TypeScript report a syntax error at that token, where tree-sitter's recovery starts its `ERROR`
//! node earlier (where the statement starts) or, for a bracket left open, only at the end of the file.
//!
//! A prefix of the source is taken as viable when tree-sitter parses it, closed by the brackets it leaves open, with
//! no problem inside the prefix itself. The first prefix that is not viable is found by halving, first over the
//! ends of lines, then over the tokens of the line found, so a search costs a few parses of the source.

use tree_sitter::{Node, Parser};

use super::block_braces;
use super::script_grammar::hole_before;
use super::tree_problems::{Step, walk};

/// The token a left-to-right parser stops at.
pub(super) struct Unexpected<'t> {
    /// The token itself (a leaf of the tree).
    pub token: Node<'t>,
    /// The token before it, if any.
    pub previous: Option<Node<'t>>,
    /// The innermost bracket left open before it, if any.
    pub open: Option<Node<'t>>,
}

/// Sources past this many bytes are not searched (each step parses the source again).
const MAX_BYTES: usize = 1 << 20;

/// Where a left-to-right parser stops.
pub(super) enum Stop<'t> {
    /// At a token.
    At(Unexpected<'t>),
    /// At the end: every prefix can be completed, so the source ends too soon, with this bracket left open, if any.
    End(Option<Node<'t>>),
}

/// The first token at or after byte `from` after which the source parsed as `root` can no longer be completed, or
/// the end (with `arrow_heads`, a prefix an arrow can complete is viable: [`ARROW`]); `Err(())` when the search does
/// not apply (a source too long, or one holding JSX, whose open elements the
/// closing brackets do not close).
pub(super) fn first_unexpected<'t>(
    parser: &mut Parser,
    root: Node<'t>,
    source: &str,
    from: usize,
    arrow_heads: bool,
) -> Result<Stop<'t>, ()> {
    if source.len() > MAX_BYTES {
        return Err(());
    }
    let tokens = tokens(root)?;
    let first = tokens.partition_point(|t| t.end_byte() <= from);
    let rest = &tokens[first..];
    let viable = |parser: &mut Parser, last: usize| viable(parser, source, &tokens[..=first + last], arrow_heads);
    // The ends of lines first: the last token of each line.
    let line_ends: Vec<usize> = (0..rest.len())
        .filter(|&i| rest.get(i + 1).is_none_or(|next| next.start_position().row > rest[i].end_position().row))
        .collect();
    let Some(line) = first_failing(line_ends.len(), |i| !viable(parser, line_ends[i])) else {
        return Ok(Stop::End(open_brackets(&tokens).ok().and_then(|open| open.last().copied())));
    };
    let line_start = if line == 0 { 0 } else { line_ends[line - 1] + 1 };
    let in_line = first_failing(line_ends[line] + 1 - line_start, |i| !viable(parser, line_start + i)).unwrap_or(0);
    let at = first + line_start + in_line;
    Ok(Stop::At(Unexpected {
        token: tokens[at],
        previous: at.checked_sub(1).map(|i| tokens[i]),
        open: open_brackets(&tokens[..at]).ok().and_then(|open| open.last().copied()),
    }))
}

/// The first of `0..n` for which `fails` holds, taking it to hold for every index after the first that does.
fn first_failing(n: usize, mut fails: impl FnMut(usize) -> bool) -> Option<usize> {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if fails(mid) { hi = mid } else { lo = mid + 1 }
    }
    (lo < n).then_some(lo)
}

/// The tokens of the tree in the source's order: its leaves of nonzero width (a JSX text among them), comments left
/// out.
pub(super) fn tokens(root: Node<'_>) -> Result<Vec<Node<'_>>, ()> {
    let mut out = Vec::new();
    walk(root, |step| {
        let Step::Enter(node) = step else { return Ok(()) };
        if node.child_count() == 0 && node.end_byte() > node.start_byte() && node.kind() != "comment" {
            out.push(node);
        }
        Ok(())
    })?;
    Ok(out)
}

/// The brackets `tokens` leave open, innermost last (a template's backquote and its `${` among them); `Err` at a
/// closing bracket that does not close the innermost one.
pub(super) fn open_brackets<'t>(tokens: &[Node<'t>]) -> Result<Vec<Node<'t>>, ()> {
    open_brackets_in(tokens, false)
}

/// [`open_brackets`], with `angles` the `<` and `>` (`>>`, `>>>`) of type parameters and type arguments among them
/// (a `<` the tree reads so, one right after the name a `function`, `class`, `interface` or `type` declares, where
/// the tree's recovery may have lost the list, and any inside such a list, which holds types alone), and JSX:
/// a tag's `<` while the tag is open, then its element (as the opening tag's `>`) until its closing tag, and a
/// closing tag's `</` until its `>`.
fn open_brackets_in<'t>(tokens: &[Node<'t>], angles: bool) -> Result<Vec<Node<'t>>, ()> {
    let mut open: Vec<Node<'t>> = Vec::new();
    for (i, token) in tokens.iter().enumerate() {
        let kind = token.kind();
        if angles && let Some(tag) = jsx_tag_part(*token) {
            let top = open.last().map(|o| (o.kind(), jsx_tag_part(*o)));
            match (kind, tag) {
                ("<" | "</", _) => open.push(*token),
                (">", JsxTag::Opening) if top == Some(("<", Some(JsxTag::Opening))) => {
                    open.pop();
                    open.push(*token);
                }
                ("/>", JsxTag::SelfClosing) if top == Some(("<", Some(JsxTag::SelfClosing))) => {
                    open.pop();
                }
                (">", JsxTag::Closing) if top == Some(("</", Some(JsxTag::Closing))) => {
                    open.pop();
                    // The element the closing tag ends.
                    if open.pop_if(|o| jsx_tag_part(*o) == Some(JsxTag::Opening) && o.kind() == ">").is_none() {
                        return Err(());
                    }
                }
                (">" | "/>", _) => return Err(()),
                _ => {}
            }
            continue;
        }
        let in_angles = open.last().is_some_and(|o| o.kind() == "<");
        if angles && kind == "<" && (in_angles || is_type_angle(*token) || declaring_keyword(tokens, i).is_some()) {
            open.push(*token);
            continue;
        }
        if angles && in_angles && !kind.is_empty() && kind.chars().all(|c| c == '>') {
            for _ in 0..kind.len() {
                if open.pop_if(|o| o.kind() == "<").is_none() {
                    return Err(());
                }
            }
            continue;
        }
        let closes = match kind {
            ")" => Some("("),
            "]" => Some("["),
            "}" => open.last().map(|o| o.kind()).filter(|k| *k == "${").or(Some("{")),
            "`" if open.last().is_some_and(|o| o.kind() == "`") => Some("`"),
            _ => None,
        };
        match closes {
            Some(opener) if open.last().is_some_and(|o| o.kind() == opener) => {
                open.pop();
            }
            Some(_) => return Err(()),
            None if matches!(kind, "(" | "[" | "{" | "${" | "`") => open.push(*token),
            None => {}
        }
    }
    Ok(open)
}

/// The part of a JSX tag a token delimits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum JsxTag {
    Opening,
    SelfClosing,
    Closing,
}

/// Which JSX tag a `<`, `</`, `>` or `/>` token delimits, if any.
fn jsx_tag_part(token: Node<'_>) -> Option<JsxTag> {
    if !matches!(token.kind(), "<" | "</" | ">" | "/>") {
        return None;
    }
    match token.parent()?.kind() {
        "jsx_opening_element" => Some(JsxTag::Opening),
        "jsx_self_closing_element" => Some(JsxTag::SelfClosing),
        "jsx_closing_element" => Some(JsxTag::Closing),
        _ => None,
    }
}

/// Whether a `<` token delimits type parameters or type arguments in the tree.
fn is_type_angle(token: Node<'_>) -> bool {
    token.parent().is_some_and(|p| matches!(p.kind(), "type_parameters" | "type_arguments"))
}

/// The keyword (`function`, `class`, `interface` or `type`) that declares the name right before the token at `at`.
fn declaring_keyword<'t>(tokens: &[Node<'t>], at: usize) -> Option<&'t str> {
    let kind = |back: usize| at.checked_sub(back).map_or("", |i| tokens[i].kind());
    let keyword = kind(2);
    (matches!(kind(1), "identifier" | "type_identifier")
        && matches!(keyword, "function" | "class" | "interface" | "type"))
    .then_some(keyword)
}

/// The token that closes an open bracket: `)`, `]`, a backquote, or `}` (for `{` and a template's `${`).
pub(super) fn closer(open: Node<'_>) -> &'static str {
    match open.kind() {
        "(" => ")",
        "[" => "]",
        "`" => "`",
        _ => "}",
    }
}

/// What may follow a prefix before the brackets it leaves open are closed: nothing, a body (after a function's or a
/// class's head, an `if`'s condition, an arrow), an expression (after an operator), or the rest of a conditional
/// (after its condition, its `?` or its first branch: a conditional type's `extends` clause among them).
const COMPLETIONS: [&str; 6] = ["", "{}", "_", ": _", "_ : _", "? _ : _"];

/// What may also follow a prefix in an import or an export: its source, or the names and the source.
const MODULE_COMPLETIONS: [&str; 3] = ["from \"\"", "\"\"", "{} from \"\""];

/// Whether `tokens` may end in an import or an export: going back from the last over whole bracketed groups, an
/// `import` or `export` comes within eight steps, before any `;`.
fn in_an_import_or_export(source: &str, tokens: &[Node<'_>]) -> bool {
    let mut at = tokens.len();
    for _ in 0..8 {
        let Some(last) = at.checked_sub(1) else { return false };
        at = match tokens[last].kind() {
            ")" | "]" | "}" => opened_at(tokens, last).unwrap_or(last),
            _ => last,
        };
        match tokens[at].utf8_text(source.as_bytes()).unwrap_or("") {
            "import" | "export" => return true,
            ";" => return false,
            _ => {}
        }
    }
    false
}

/// An arrow and its body, which may follow a parameter list. A TypeScript prefix is also tried followed by it, with
/// the parameter list it leaves open closed first or not: the `typescript` parser reads `(a: T` and `<T>(a: T` in an
/// expression as an arrow function's head, and so stops only after its `)`, where the `=>` is missing.
const ARROW: &str = "=> _";

/// Whether the source up to the end of the last of `tokens` (all the tokens from the first) can still be completed:
/// followed by one of the [`COMPLETIONS`] (or, with `arrow_heads`, by an [`ARROW`]) and closed by the brackets it
/// leaves open, it parses with no problem inside it.
fn viable(parser: &mut Parser, source: &str, tokens: &[Node<'_>], arrow_heads: bool) -> bool {
    let Some(last) = tokens.last() else { return true };
    // Type parameters left open too: a line that ends inside them (`export type Store<` and a parameter a line)
    // is completed through them.
    let Ok(open) = open_brackets_in(tokens, true) else { return false };
    let end = last.end_byte();
    let prefix = &source[..end];
    // What closes each bracket left open, innermost first; a class whose head holds some of them
    // (`class A extends f()("a", {`) takes its body once they are closed.
    let mut closings: Vec<String> = open.iter().rev().map(|bracket| closing(source, tokens, *bracket)).collect();
    if let Some(outside) = open_class_head(tokens, &open) {
        closings[open.len() - outside - 1].push_str(" {}");
    }
    let closers = closings.concat();
    let mut texts: Vec<String> =
        COMPLETIONS.iter().map(|completion| format!("{prefix}\n{completion}{closers}")).collect();
    if in_an_import_or_export(source, tokens) {
        texts.extend(MODULE_COMPLETIONS.iter().map(|completion| format!("{prefix}\n{completion}{closers}")));
    }
    // A function's type parameters, closed: its parameters and body must follow, and nothing else may.
    if last.kind() == ">"
        && opened_at(tokens, tokens.len() - 1).is_some_and(|angle| declaring_keyword(tokens, angle) == Some("function"))
    {
        texts.push(format!("{prefix}() {{}}{closers}"));
    }
    if arrow_heads {
        let text = |token: &Node<'_>| token.utf8_text(source.as_bytes()).unwrap_or("");
        if text(last) == ")"
            && opened_at(tokens, tokens.len() - 1).is_some_and(|paren| may_open_arrow(source, tokens, paren))
        {
            texts.push(format!("{prefix}\n{ARROW}{closers}"));
        }
        // The innermost parameter list left open, closed and followed by the arrow.
        if let Some(inner) = open.iter().rposition(|bracket| bracket.kind() == "(")
            && may_open_arrow(source, tokens, tokens.partition_point(|t| t.start_byte() < open[inner].start_byte()))
        {
            let (within, without) = closings.split_at(open.len() - inner);
            let (within, without) = (within.concat(), without.concat());
            texts.extend(COMPLETIONS.iter().map(|c| format!("{prefix}\n{c}{within}{ARROW}{without}")));
        }
    }
    // The texts share the prefix: each after the first is parsed as an edit of the one before, which reuses the
    // prefix's parse.
    let at = end_point(prefix);
    let mut previous: Option<(tree_sitter::Tree, &str)> = None;
    for text in &texts {
        let old = previous.take().map(|(mut tree, before)| {
            tree.edit(&tree_sitter::InputEdit {
                start_byte: end,
                old_end_byte: before.len(),
                new_end_byte: text.len(),
                start_position: at,
                old_end_position: end_point(before),
                new_end_position: end_point(text),
            });
            tree
        });
        let Some(tree) = parser.parse(text, old.as_ref()) else { continue };
        if clean_before(tree.root_node(), end) && clean_as_blocks(parser, tree.root_node(), text, end) {
            return true;
        }
        previous = Some((tree, text));
    }
    false
}

/// When the last `class` among `tokens` has its head still open around some of the brackets `open` (its heritage
/// calls a function, `class A extends Base()("a", {`), how many of those brackets it is inside of; `None` when its
/// body has opened, when no bracket opened after it is still open, or when there is no class.
fn open_class_head(tokens: &[Node<'_>], open: &[Node<'_>]) -> Option<usize> {
    let class = tokens.iter().rposition(|t| t.kind() == "class")?;
    let at = tokens[class].start_byte();
    let outside = open.iter().filter(|b| b.start_byte() < at).count();
    if outside == open.len() {
        return None;
    }
    // A `{` right inside the class's level is its body; one inside type arguments (`extends A<{ a: B }>`) or other
    // brackets is not.
    let mut depth = 0usize;
    for token in &tokens[class + 1..] {
        match token.kind() {
            "{" if depth == 0 => return None,
            "(" | "[" | "{" | "${" => depth += 1,
            "<" if is_type_angle(*token) => depth += 1,
            ")" | "]" | "}" => depth = depth.checked_sub(1)?,
            ">" if is_type_angle(*token) => depth = depth.checked_sub(1)?,
            _ => {}
        }
    }
    Some(outside)
}

/// The row and column (in bytes) where a text ends.
fn end_point(text: &str) -> tree_sitter::Point {
    match text.rfind('\n') {
        Some(newline) => tree_sitter::Point::new(text.matches('\n').count(), text.len() - newline - 1),
        None => tree_sitter::Point::new(0, text.len()),
    }
}

/// What closes a bracket left open: its closer, and after a block that is not complete alone, what completes it
/// (`import {` and `export {` take ` from ""`, `try {` takes ` finally {}`, `do {` takes ` while (_)`), so a prefix
/// inside one is still viable; type parameters and arguments are closed by [`angle_closing`].
fn closing(source: &str, tokens: &[Node<'_>], bracket: Node<'_>) -> String {
    let at = tokens.partition_point(|t| t.start_byte() < bracket.start_byte());
    let word = |back: usize| at.checked_sub(back).and_then(|i| tokens[i].utf8_text(source.as_bytes()).ok());
    match (bracket.kind(), jsx_tag_part(bracket)) {
        // A tag still open closes itself; an element takes its closing tag.
        ("<", Some(_)) => return "/>".to_string(),
        ("</", _) => return ">".to_string(),
        (">", Some(JsxTag::Opening)) => {
            let name = bracket.parent().and_then(|tag| tag.child_by_field_name("name"));
            let name = name.and_then(|n| n.utf8_text(source.as_bytes()).ok()).unwrap_or("");
            return format!("</{name}>");
        }
        ("<", None) => return angle_closing(tokens, at, bracket).to_string(),
        _ => {}
    }
    let rest = match (bracket.kind(), word(1), word(2)) {
        ("{", Some("import" | "export"), _) | ("{", Some("type"), Some("import" | "export")) => " from \"\"",
        ("{", Some("try"), _) => " finally {}",
        ("{", Some("do"), _) => " while (_)",
        _ => "",
    };
    format!("{}{rest}", closer(bracket))
}

/// What closes every bracket `tokens` (all the tokens from the first) leave open, innermost first, each by its
/// [`closing`]; `None` at a closing bracket that closes none of them.
pub(super) fn closing_all(source: &str, tokens: &[Node<'_>]) -> Option<String> {
    let open = open_brackets(tokens).ok()?;
    Some(open.iter().rev().map(|bracket| closing(source, tokens, *bracket)).collect())
}

/// What closes type parameters or type arguments left open (the `<` at `tokens[at]`), by what they belong to: the
/// `>`, and what must follow it there (a type alias's `= _`, a function's or a method's parameters, a class's or an
/// interface's body, a call's arguments).
fn angle_closing(tokens: &[Node<'_>], at: usize, angle: Node<'_>) -> &'static str {
    let owner = match declaring_keyword(tokens, at) {
        Some("type") => "type_alias_declaration",
        Some("function") => "function_declaration",
        Some(_) => "class",
        None => angle.parent().and_then(|list| list.parent()).map_or("", |n| n.kind()),
    };
    match owner {
        "type_alias_declaration" => "> = _",
        "class_declaration" | "abstract_class_declaration" | "interface_declaration" | "class" => "> {}",
        "arrow_function" => ">() => _",
        "function_declaration"
        | "generator_function_declaration"
        | "function_expression"
        | "generator_function"
        | "function_signature"
        | "method_definition"
        | "method_signature"
        | "abstract_method_signature"
        | "call_expression"
        | "new_expression" => ">()",
        _ => ">",
    }
}

/// The kind of the node a bracket opens (its parent) when the source up to the bracket is read alone, closed: the
/// grammar's reading of the bracket before what follows it led the tree's recovery elsewhere.
pub(super) fn read_alone(parser: &mut Parser, root: Node<'_>, source: &str, bracket: Node<'_>) -> Option<String> {
    let tokens = tokens(root).ok()?;
    let upto = tokens.partition_point(|t| t.start_byte() <= bracket.start_byte());
    let closers = closing_all(source, &tokens[..upto])?;
    let tree = parser.parse(format!("{}{closers}", &source[..bracket.end_byte()]), None)?;
    let node = tree.root_node().descendant_for_byte_range(bracket.start_byte(), bracket.end_byte())?;
    Some(node.parent()?.kind().to_string())
}

/// The index of the bracket the closing bracket at `tokens[close]` closes (a `)`, `]`, `}` or `>`), counting the
/// brackets of its kind between.
fn opened_at(tokens: &[Node<'_>], close: usize) -> Option<usize> {
    let closer = tokens[close].kind();
    let opener = match closer {
        ")" => "(",
        "]" => "[",
        "}" => "{",
        ">" => "<",
        _ => return None,
    };
    let mut depth = 0usize;
    for i in (0..=close).rev() {
        match tokens[i].kind() {
            kind if kind == closer => depth += 1,
            kind if kind == opener => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether the `(` at `tokens[paren]` may open an arrow function's parameters: it, or the `<` of type parameters
/// right before it, starts the source or follows a token after which an expression may start
/// ([`starts_an_expression_after`]), and not an operand (`a > (b: T`), where a parenthesized expression is read.
fn may_open_arrow(source: &str, tokens: &[Node<'_>], paren: usize) -> bool {
    let mut first = paren;
    if first > 0 && tokens[first - 1].kind() == ">" {
        match opened_at(tokens, first - 1) {
            Some(angle) => first = angle,
            None => return false,
        }
    }
    first == 0 || starts_an_expression_after(tokens[first - 1].utf8_text(source.as_bytes()).unwrap_or(""))
}

/// Whether an expression (an arrow function among them) may start right after this token: an assignment, an
/// opening bracket, a separator, an arrow, a `?` or `:`, the end of a statement, or a keyword that takes an
/// expression.
pub(super) fn starts_an_expression_after(previous: &str) -> bool {
    matches!(
        previous,
        "=" | "(" | "," | "=>" | "?" | ":" | "[" | "{" | "}" | ";" | "return" | "||" | "&&" | "??" | "yield" | "async"
    )
}

/// Whether `text` (read as `root`) still has no problem before byte `end` read with the braces the compilers read
/// as blocks so read ([`block_braces::as_blocks`]): the grammar's reading of one as an object hides what they stop at.
fn clean_as_blocks(parser: &mut Parser, root: Node<'_>, text: &str, end: usize) -> bool {
    match block_braces::as_blocks(root, text) {
        None => true,
        Some(blocks) => {
            parser.parse(&blocks.text, None).is_some_and(|t| clean_before(t.root_node(), blocks.moved(end)))
        }
    }
}

/// Whether no `ERROR` or `MISSING` node under `root` starts before byte `end`, and no empty element either (`{ a, ,
/// b }`: the grammar lets one through in an object, an argument or parameter list and an import or export list,
/// where the compilers stop at its comma).
pub(super) fn clean_before(root: Node<'_>, end: usize) -> bool {
    walk(root, |step| match step {
        Step::Enter(node) if node.start_byte() < end && (node.is_error() || node.is_missing()) => Err(()),
        Step::Enter(node) if hole_before(node, end).is_some() => Err(()),
        _ => Ok(()),
    })
    .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(src: &str) -> (Parser, tree_sitter::Tree) {
        let mut parser = crate::grammar::parser(tree_sitter_javascript::LANGUAGE.into());
        let tree = parser.parse(src, None).unwrap();
        (parser, tree)
    }

    fn kinds(nodes: &[Node<'_>]) -> Vec<String> {
        nodes.iter().map(|n| n.kind().to_string()).collect()
    }

    #[test]
    fn halving_finds_the_first_index_that_fails() {
        assert_eq!(first_failing(10, |i| i >= 7), Some(7));
        assert_eq!(first_failing(10, |_| true), Some(0));
        assert_eq!(first_failing(10, |_| false), None);
        assert_eq!(first_failing(0, |_| true), None);
    }

    #[test]
    fn open_brackets_are_counted_through_templates_and_a_wrong_closer_is_refused() {
        let (_, tree) = parse("f(a, [b, `x ${ {c: 1} } y`], {d: (e)})\n");
        let all = tokens(tree.root_node()).unwrap();
        assert_eq!(open_brackets(&all).map(|o| kinds(&o)), Ok(Vec::new()));
        let upto = all.iter().position(|t| t.kind() == "{").unwrap();
        assert_eq!(kinds(&open_brackets(&all[..=upto]).unwrap()), ["(", "[", "`", "${", "{"]);
        let (_, tree) = parse("f(a]\n");
        assert!(open_brackets(&tokens(tree.root_node()).unwrap()).is_err());
    }

    #[test]
    fn the_stop_is_the_first_token_no_completion_can_follow() {
        let src = "function f(a) {\n  if (a) {\n    g(a,\n      b\n  return 1\n}\n";
        let (mut parser, tree) = parse(src);
        let Ok(Stop::At(stop)) = first_unexpected(&mut parser, tree.root_node(), src, 0, false) else {
            panic!("no stop")
        };
        // Inside tree-sitter's ERROR node the keyword is read as a name: the text says what it is.
        assert_eq!((stop.token.utf8_text(src.as_bytes()).unwrap(), stop.token.start_position().row), ("return", 4));
        assert_eq!(stop.previous.map(|p| p.kind()), Some("identifier"));
        assert_eq!(stop.open.map(|o| o.kind()), Some("("));
        let short = "function f(a) {\n  return [a,\n";
        let (mut parser, tree) = parse(short);
        let Ok(Stop::End(open)) = first_unexpected(&mut parser, tree.root_node(), short, 0, false) else {
            panic!("a stop")
        };
        assert_eq!(open.map(|o| o.kind()), Some("["));
    }

    #[test]
    fn a_typescript_parameter_list_can_be_completed_by_an_arrow() {
        let src = "const f = (a: number, b: string\nconst g = 1\n";
        let mut parser = crate::grammar::parser(tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into());
        let tree = parser.parse(src, None).unwrap();
        let stop_at = |parser: &mut Parser, arrow_heads: bool| match first_unexpected(
            parser,
            tree.root_node(),
            src,
            0,
            arrow_heads,
        ) {
            Ok(Stop::At(stop)) => stop.token.utf8_text(src.as_bytes()).unwrap().to_string(),
            _ => panic!("no stop"),
        };
        // Without an arrow to follow, the list cannot be completed within it; as an arrow's head it ends at `const`.
        assert_ne!(stop_at(&mut parser, false), "const");
        assert_eq!(stop_at(&mut parser, true), "const");
    }

    #[test]
    fn jsx_elements_are_closed_by_their_closing_tags() {
        let src = "const e = (\n  <A.B x=\"1\" y={f(2)}>\n    hi <b/> {c}<>t</>\n  </A.B>\n);\n";
        let mut parser = crate::grammar::parser(tree_sitter_typescript::LANGUAGE_TSX.into());
        let tree = parser.parse(src, None).unwrap();
        let all = tokens(tree.root_node()).unwrap();
        let upto = all.iter().position(|t| t.kind() == "jsx_text" && t.utf8_text(src.as_bytes()) == Ok("t")).unwrap();
        let open = open_brackets_in(&all[..=upto], true).unwrap();
        let closers: Vec<String> = open.iter().map(|o| closing(src, &all, *o)).collect();
        assert_eq!(closers, [")", "</A.B>", "</>"]);
        // Inside an element, a prefix is completed by its closing tag: the stop is the name after the element.
        let src = "const e = (\n  <A>\n    <b/> {c}\n  </A>\n  x\n);\n";
        let tree = parser.parse(src, None).unwrap();
        let Ok(Stop::At(stop)) = first_unexpected(&mut parser, tree.root_node(), src, 0, false) else { panic!() };
        assert_eq!((stop.token.utf8_text(src.as_bytes()), stop.token.start_position().row), (Ok("x"), 4));
    }
}
