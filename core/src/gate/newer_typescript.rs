//! TypeScript newer than tree-sitter-typescript 0.23's grammar, read in the grammar's words with every position kept,
//! so that the gate ([`super::script`]) neither refuses it nor puts a problem elsewhere in the wrong place.

use std::ops::Range;

/// The TypeScript source in words tree-sitter-typescript 0.23 knows, every position kept: `export type * from`
/// (TypeScript 5.0) without its `type`, `keyof readonly T[]` without `readonly`, a mapped type's key named `type`
/// renamed, `declare const;` as a declaration of one name, a property named `abstract` renamed, and each import type
/// (`import("./t.js").Name<A>`, whose type arguments the grammar does not read after the import) as a name of the
/// same length, unless a name follows its `)` with nothing between; a type parameter's modifiers (`<in K, out V>`,
/// TypeScript 4.7; `<const T>`, 5.0) as blanks, a function type's parameter named `any` renamed, and each escape in
/// a template (`\``, which the grammar does not read in a template literal type) as `__`; a tagged template's type
/// arguments (`` sql<Row>`...` ``, TypeScript 2.9) as blanks, a variable or a type member named `as` or `in` and
/// the `undefined` of `typeof undefined` renamed. `None` when there is none of these.
pub(super) fn in_older_words(source: &str) -> Option<String> {
    let mut text = source.to_string();
    let mut changed = false;
    for modifier in type_parameter_modifiers(source) {
        text.replace_range(modifier.clone(), &" ".repeat(modifier.len()));
        changed = true;
    }
    let templates = templates(source);
    for escape in templates.escapes {
        text.replace_range(escape, "__");
        changed = true;
    }
    // A tagged template's type arguments (`` sql<Row>`SELECT ...` ``, TypeScript 2.9): blanks, line breaks kept.
    for arguments in templates.opened.iter().filter_map(|&tick| tag_type_arguments(source, tick)) {
        let blank: String = source[arguments.clone()].chars().map(|c| if c == '\n' { c } else { ' ' }).collect();
        text.replace_range(arguments, &blank);
        changed = true;
    }
    for name in keyword_member_names(source) {
        text.replace_range(name, "i_");
        changed = true;
    }
    // Each rewrite keeps the length: the words the grammar lacks become blanks or names.
    let rewrites: [(&str, std::ops::Range<usize>, &str); 11] = [
        // `export type * from` (TypeScript 5.0): without its `type`.
        ("export type *", 7..11, "    "),
        // `keyof readonly T[]`: without `readonly`.
        ("keyof readonly ", 6..14, "        "),
        // A mapped type whose key is named `type`: another name.
        ("[type in ", 1..5, "____"),
        // `declare const;` (an empty list the parser leaves to the checker): a declaration of one name.
        ("declare const;", 8..14, "let _;"),
        // A property named `abstract`: another name.
        ("abstract?:", 0..1, "_"),
        ("abstract:", 0..1, "_"),
        // A function type's parameter named `any` (`(any) => void`): another name.
        ("(any) =>", 1..2, "_"),
        // `typeof undefined` (a type query the grammar does not read on `undefined`): a query on another name.
        ("typeof undefined", 7..8, "_"),
        // A variable named `as`: another name.
        ("let as ", 5..6, "_"),
        ("const as ", 7..8, "_"),
        ("var as ", 5..6, "_"),
    ];
    let bytes = source.as_bytes();
    let in_a_name = |at: usize| at > 0 && is_name_byte(bytes[at - 1]);
    for (words, range, instead) in rewrites {
        // Words that start a name only where they start one: `tablet as T` holds `let as ` and declares nothing.
        for (at, _) in source.match_indices(words).filter(|(at, _)| !in_a_name(*at)) {
            text.replace_range(at + range.start..at + range.end, instead);
            changed = true;
        }
    }
    for (at, _) in source.match_indices("import(") {
        let before = at.checked_sub(1).map(|i| bytes[i]);
        if before.is_some_and(|b| is_name_byte(b) || b == b'.') {
            continue;
        }
        let rest = &source[at + 7..];
        let Some(quote) = rest.chars().next().filter(|c| *c == '"' || *c == '\'') else { continue };
        let Some(close) = rest[1..].find([quote, '\n']) else { continue };
        if rest.as_bytes()[1 + close] != quote as u8 || rest.as_bytes().get(close + 2) != Some(&b')') {
            continue;
        }
        let end = at + 7 + close + 3;
        // `import('./t.js')Name` is broken: as one name it would read as whole.
        if source[end..].chars().next().is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        text.replace_range(at + 6..end, &"_".repeat(end - at - 6));
        changed = true;
    }
    changed.then_some(text)
}

/// How far back from a template's backquote its tag's type arguments are looked for, in bytes: without a bound, a
/// file of `a > \`t\`` lines with no `<` would be read back to its start from each template.
const TAG_REACH: usize = 4_096;

/// Whether an ASCII byte can be part of a name (a letter, a digit, `_` or `$`).
fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$')
}

/// The type arguments of the tag of the template opened at byte `tick` (`` sql<{ id: string }>`...` ``): from its
/// `<` to its `>`, which ends the code before the backquote and closes a `<` right after a name, brackets balanced
/// and no `;` between outside an object type, within [`TAG_REACH`] bytes of the backquote.
fn tag_type_arguments(source: &str, tick: usize) -> Option<Range<usize>> {
    let before = source[..tick].trim_end();
    if !before.ends_with('>') || before.ends_with("=>") {
        return None;
    }
    let bytes = before.as_bytes();
    let (mut depth, mut braces) = (0usize, 0usize);
    for at in (bytes.len().saturating_sub(TAG_REACH)..bytes.len()).rev() {
        match bytes[at] {
            // An object type's members may end in `;`; a `{` never closed between is a block the tag is not in.
            b'}' => braces += 1,
            b'{' if braces == 0 => return None,
            b'{' => braces -= 1,
            b';' if braces == 0 => return None,
            b'>' if at == 0 || bytes[at - 1] != b'=' => depth += 1,
            b'<' => {
                depth -= 1;
                if depth == 0 {
                    let tag = bytes[..at].last().is_some_and(|&b| is_name_byte(b));
                    return tag.then_some(at..before.len());
                }
            }
            _ => {}
        }
    }
    None
}

/// Where a type member is named `in` (`in: "query"`, `in?: string`), which the grammar does not read as a name there:
/// the byte range of each such `in`, at a line's start or after a `{`, `;` or `,`, and before a `:` or `?:`.
fn keyword_member_names(source: &str) -> Vec<Range<usize>> {
    let mut found = Vec::new();
    for (at, _) in source.match_indices("in") {
        let opens_member = source[..at].trim_end_matches([' ', '\t']);
        let opens_member = opens_member.is_empty() || opens_member.ends_with(['\n', '{', ';', ',']);
        let rest = source[at + 2..].trim_start_matches([' ', '\t']);
        if opens_member && (rest.starts_with(':') || rest.starts_with("?:")) {
            found.push(at..at + 2);
        }
    }
    found
}

/// Where a type parameter's modifiers are written (`const`, `in`, `out` before its name, after the `<` or `,` that
/// opens it, and before a `,`, `>`, `=` or `extends`; blanks and comments between): the byte ranges of the
/// modifiers.
fn type_parameter_modifiers(source: &str) -> Vec<std::ops::Range<usize>> {
    let bytes = source.as_bytes();
    let word_at = |at: usize| {
        let len = bytes[at..].iter().take_while(|&&b| is_name_byte(b)).count();
        &source[at..at + len]
    };
    // Blanks and comments (`</** why */ out T>`).
    let skip_space = |mut at: usize| loop {
        at += bytes[at..].iter().take_while(|b| b.is_ascii_whitespace()).count();
        let rest = &source[at..];
        at += if rest.starts_with("/*") {
            rest.find("*/").map_or(rest.len(), |end| end + 2)
        } else if rest.starts_with("//") {
            rest.find('\n').unwrap_or(rest.len())
        } else {
            return at;
        };
    };
    let mut found = Vec::new();
    for (opener, _) in source.match_indices(['<', ',']) {
        let mut at = skip_space(opener + 1);
        let mut modifiers = Vec::new();
        loop {
            let word = word_at(at);
            let next = skip_space(at + word.len());
            let is_modifier = matches!(word, "const" | "in" | "out") && next > at + word.len() && modifiers.len() < 3;
            let name = word_at(next);
            if !is_modifier || name.is_empty() || name == "extends" || name.starts_with(|c: char| c.is_ascii_digit()) {
                break;
            }
            modifiers.push(at..at + word.len());
            at = next;
        }
        let name = word_at(at);
        let after = skip_space(at + name.len());
        let closes = matches!(bytes.get(after), Some(b',' | b'>' | b'=')) || word_at(after) == "extends";
        if !modifiers.is_empty() && closes {
            found.extend(modifiers);
        }
    }
    found
}

/// What a reading of the templates in a source finds (strings, comments and regular expression literals passed
/// over).
#[derive(Default)]
struct Templates {
    /// In a template (`` `...${x}...` ``, in code or in a type), each escape of one ASCII character (`\``, `\n`,
    /// `\$`; not `\u`, `\x`, a digit or a line break, whose forms are longer or checked): its two bytes.
    escapes: Vec<Range<usize>>,
    /// The byte of each template's opening backquote.
    opened: Vec<usize>,
}

/// The [`Templates`] of a source.
fn templates(source: &str) -> Templates {
    #[derive(Clone, Copy, PartialEq)]
    enum Mode {
        Code,
        Quote(u8),
        Template,
        LineComment,
        BlockComment,
    }
    let bytes = source.as_bytes();
    let mut found = Templates::default();
    if !bytes.contains(&b'`') {
        return found;
    }
    // The code's brace depth, and the depth at which each open `${` closes.
    let (mut depth, mut substitutions) = (0usize, Vec::new());
    let (mut mode, mut last_code_byte, mut at) = (Mode::Code, b';', 0);
    while at < bytes.len() {
        let (byte, next) = (bytes[at], bytes.get(at + 1).copied().unwrap_or(0));
        let mut step = 1;
        match mode {
            Mode::Code => match byte {
                b'/' if next == b'/' => mode = Mode::LineComment,
                b'/' if next == b'*' => (mode, step) = (Mode::BlockComment, 2),
                b'/' if b"(,=:[!&|?{};+-*%<>~^".contains(&last_code_byte) => step = regex_length(&bytes[at..]),
                b'\'' | b'"' => mode = Mode::Quote(byte),
                b'`' => {
                    mode = Mode::Template;
                    found.opened.push(at);
                }
                b'{' => depth += 1,
                b'}' if substitutions.last() == Some(&depth) => {
                    substitutions.pop();
                    mode = Mode::Template;
                }
                b'}' => depth = depth.saturating_sub(1),
                _ => {}
            },
            Mode::Quote(_) if byte == b'\\' => step = 2,
            Mode::Quote(quote) if byte == quote || byte == b'\n' => mode = Mode::Code,
            Mode::Template if byte == b'\\' => {
                step = 2;
                if next.is_ascii() && !matches!(next, b'u' | b'x' | b'0'..=b'9' | b'\n' | b'\r') {
                    found.escapes.push(at..at + 2);
                }
            }
            Mode::Template if byte == b'`' => mode = Mode::Code,
            Mode::Template if byte == b'$' && next == b'{' => {
                substitutions.push(depth);
                (mode, step) = (Mode::Code, 2);
            }
            Mode::LineComment if byte == b'\n' => mode = Mode::Code,
            Mode::BlockComment if byte == b'*' && next == b'/' => (mode, step) = (Mode::Code, 2),
            _ => {}
        }
        if mode == Mode::Code && !byte.is_ascii_whitespace() {
            last_code_byte = byte;
        }
        at += step;
    }
    found
}

/// The length of the regular expression literal `text` opens (`/.../flags` up to its closing `/`, which a class
/// `[...]` or an escape does not close), or up to the line's end when it is not closed.
fn regex_length(text: &[u8]) -> usize {
    let mut in_class = false;
    let mut at = 1;
    while at < text.len() && text[at] != b'\n' {
        match text[at] {
            b'\\' => at += 1,
            b'[' => in_class = true,
            b']' => in_class = false,
            b'/' if !in_class => return at + 1,
            _ => {}
        }
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_escapes_are_found_in_templates_alone() {
        let source = r#"type M<U> = `a \`b\` ${U} \u0041 \n`;
const s = "\`" + '`' + /`\//.source; // `\`
const t = `x ${ { a: `\$` }.a } \\`;
"#;
        let escapes: Vec<&str> = templates(source).escapes.into_iter().map(|r| &source[r]).collect();
        assert_eq!(escapes, ["\\`", "\\`", "\\n", "\\$", "\\\\"]);
    }

    #[test]
    fn a_tags_type_arguments_and_names_the_grammar_takes_for_keywords_are_rewritten_in_place() {
        let source = "const r = sql<{ id: string; n: number }>`SELECT ${x}`\nlet as = f(a < b, c > `t`)\n\
                      interface P {\n  in: \"query\"\n  in?: string\n}\nfor (k in o) {}\n";
        let older = in_older_words(source).unwrap();
        assert_eq!(older.len(), source.len());
        assert_eq!(
            older,
            "const r = sql                           `SELECT ${x}`\nlet a_ = f(a < b, c > `t`)\n\
             interface P {\n  i_: \"query\"\n  i_?: string\n}\nfor (k in o) {}\n"
        );
    }

    #[test]
    fn a_tags_type_arguments_are_looked_for_within_reach_alone() {
        let near = format!("sql<{{ a: string{} }}>`x`", " ".repeat(100));
        assert!(tag_type_arguments(&near, near.len() - 3).is_some());
        let far = format!("sql<{{ a: string{} }}>`x`", " ".repeat(TAG_REACH));
        assert_eq!(tag_type_arguments(&far, far.len() - 3), None);
    }

    #[test]
    fn type_parameter_modifiers_are_found_before_a_name_alone() {
        let source = "interface I<in K, out V, in out W = K, const C extends K, out> {}\nf(a, in b);\nfor (k in o) {}\n\
             interface J<\n  /** why */\n  out S extends K = K, // and\n  in /* x */ T,\n> {}\n";
        let words: Vec<&str> = type_parameter_modifiers(source).into_iter().map(|r| &source[r]).collect();
        assert_eq!(words, ["in", "out", "in", "out", "const", "out", "in"]);
    }
}
