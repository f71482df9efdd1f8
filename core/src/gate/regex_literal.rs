//! What V8 refuses in a regular expression literal that tree-sitter-javascript's grammar takes as written: its early
//! errors for a pattern without the `u` or `v` flag (Annex B's lenient grammar, where a lone `]` or `{` is a
//! character), as far as they can be told without doubt:
//!
//! - a group left open (`Unterminated group`) or a `)` that closes none (`Unmatched ')'`);
//! - a quantifier with nothing before it (the start, `(`, `|`, `^`, `$`), or after another one other than the single
//!   `?` that makes it lazy (`Nothing to repeat`);
//! - a range in a character class whose ends, both plain characters, are out of order
//!   (`Range out of order in character class`);
//! - a flag V8 does not know, or one given twice (`Invalid regular expression flags`).
//!
//! Patterns with the `u` or `v` flag follow a stricter grammar; only their balance of groups is checked, which the
//! two grammars share.

/// What V8 says of a literal `/pattern/flags`, if it refuses it: the whole message.
pub(super) fn problem(pattern: &str, flags: &str) -> Option<String> {
    let mut seen = String::new();
    for flag in flags.chars() {
        if !"dgimsuvy".contains(flag) || seen.contains(flag) {
            return Some("Invalid regular expression flags".to_string());
        }
        seen.push(flag);
    }
    let unicode = seen.contains('u') || seen.contains('v');
    pattern_problem(pattern, unicode).map(|why| format!("Invalid regular expression: /{pattern}/{flags}: {why}"))
}

/// What can stand before a quantifier.
#[derive(Clone, Copy, PartialEq)]
enum Before {
    /// Nothing (the start, `(`, `|`): a quantifier has nothing to repeat.
    Nothing,
    /// An atom: a quantifier may follow.
    Atom,
    /// A quantifier: only the `?` that makes it lazy may follow.
    Quantifier,
    /// A lazy quantifier: nothing may follow.
    Lazy,
}

fn pattern_problem(pattern: &str, unicode: bool) -> Option<&'static str> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut depth = 0usize;
    let mut before = Before::Nothing;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                i += 1; // the escaped character is an atom, whatever it is
                before = Before::Atom;
            }
            '[' => {
                let (end, problem) = class(&chars, i + 1);
                if problem.is_some() && !unicode {
                    return problem;
                }
                i = end;
                before = Before::Atom;
            }
            '(' => {
                depth += 1;
                // A group's prefix (`?:`, `?=`, `?!`, `?<=`, `?<!`, `?<name>`) is not a quantifier.
                if chars.get(i + 1) == Some(&'?') {
                    i += 1;
                    match chars.get(i + 1) {
                        Some(':' | '=' | '!') => i += 1,
                        Some('<') if matches!(chars.get(i + 2), Some('=' | '!')) => i += 2,
                        Some('<') => {
                            while i < chars.len() && chars[i] != '>' {
                                i += 1;
                            }
                        }
                        _ => {}
                    }
                }
                before = Before::Nothing;
            }
            ')' => {
                if depth == 0 {
                    return Some("Unmatched ')'");
                }
                depth -= 1;
                before = Before::Atom;
            }
            '|' => before = Before::Nothing,
            '*' | '+' | '?' => {
                before = match (before, c) {
                    (Before::Atom, _) => Before::Quantifier,
                    (Before::Quantifier, '?') => Before::Lazy,
                    _ if unicode => before,
                    _ => return Some("Nothing to repeat"),
                }
            }
            '{' if before != Before::Nothing && braced_quantifier(&chars, i).is_some() => {
                i = braced_quantifier(&chars, i).unwrap_or(i);
                before = match before {
                    Before::Atom => Before::Quantifier,
                    _ if unicode => before,
                    _ => return Some("Nothing to repeat"),
                };
            }
            // Assertions repeat nothing.
            '^' | '$' => before = Before::Nothing,
            _ => before = Before::Atom,
        }
        i += 1;
    }
    (depth > 0).then_some("Unterminated group")
}

/// The index of the `}` that closes a quantifier `{n}`, `{n,}` or `{n,m}` opening at `at` (otherwise, in Annex B,
/// the `{` is a character).
fn braced_quantifier(chars: &[char], at: usize) -> Option<usize> {
    let mut i = at + 1;
    let digits = |i: &mut usize| {
        let start = *i;
        while chars.get(*i).is_some_and(char::is_ascii_digit) {
            *i += 1;
        }
        *i > start
    };
    if !digits(&mut i) {
        return None;
    }
    if chars.get(i) == Some(&',') {
        i += 1;
        digits(&mut i);
    }
    (chars.get(i) == Some(&'}')).then_some(i)
}

/// Reads a character class from just after its `[` to its `]`: the index of the `]`, and a range out of order.
fn class(chars: &[char], start: usize) -> (usize, Option<&'static str>) {
    let mut i = start;
    if chars.get(i) == Some(&'^') {
        i += 1;
    }
    // The class's members as plain characters, `None` for an escape (a class escape such as `\d` makes a range
    // Annex B reads literally; the others are left unchecked).
    let mut members: Vec<Option<char>> = Vec::new();
    let mut problem = None;
    while i < chars.len() && chars[i] != ']' {
        let member = if chars[i] == '\\' {
            i += 1;
            None
        } else {
            Some(chars[i])
        };
        members.push(member);
        i += 1;
        // A range: a member, `-`, a member.
        let n = members.len();
        if n >= 3 && members[n - 2] == Some('-') && problem.is_none() {
            if let (Some(low), Some(high)) = (members[n - 3], members[n - 1])
                && low > high
            {
                problem = Some("Range out of order in character class");
            }
            // The three members are one range: none of them starts the next.
            members.clear();
        }
    }
    (i, problem)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_v8_refuses_is_refused_with_its_words() {
        let refused = [
            (r"(^|\\+?(\\[A-F0-9]{1,6})\x20", "g", "Unterminated group"),
            (r"\b[A-Za-z0-9-_]{10,}?!\.\d+\.)\.", "gi", "Unmatched ')'"),
            (r"[A-Za--9-_]", "gi", "Range out of order in character class"),
            ("a**", "", "Nothing to repeat"),
            ("(+a)", "", "Nothing to repeat"),
            ("a|?", "", "Nothing to repeat"),
            ("a{2}*", "", "Nothing to repeat"),
            ("^*", "", "Nothing to repeat"),
            ("a{1}??", "", "Nothing to repeat"),
            ("a", "gg", "Invalid regular expression flags"),
            ("a", "x", "Invalid regular expression flags"),
        ];
        for (pattern, flags, why) in refused {
            let message = problem(pattern, flags).unwrap_or_default();
            assert!(message.ends_with(why), "/{pattern}/{flags}: {message}");
        }
        assert_eq!(problem("(a", "").as_deref(), Some("Invalid regular expression: /(a/: Unterminated group"));
    }

    #[test]
    fn what_annex_b_allows_passes() {
        for (pattern, flags) in [
            ("a]b{c}", ""),
            ("a{,5}", ""),
            ("x{2,3}?y*?z+?", "g"),
            (r"[\d-a]", ""),
            (r"[a-z-]", ""),
            (r"[-a]", ""),
            ("[]]", ""),
            ("[^]", ""),
            (r"(?:a)(?=b)(?!c)(?<=d)(?<!e)(?<name>f)\k<name>", "dgimsy"),
            (r"\(\)\*", ""),
            ("[(]", ""),
            ("(?=a)*", ""),
            ("a{1}?", ""),
        ] {
            assert_eq!(problem(pattern, flags), None, "/{pattern}/{flags}");
        }
    }
}
