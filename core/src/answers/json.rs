//! Loose JSON, as models write it: the object inside an answer, read leniently.
//!
//! An answer may wrap its JSON in ```` ``` ```` fences or prose, and the JSON itself may be a little off: single-quoted
//! strings, trailing commas, `True`/`False`/`None`, raw newlines inside strings and `//` comments are tolerated.
//! Objects are looked for in fenced blocks first, then at every balanced `{...}` of the text. Keys are compared in
//! a loose form ([`key_form`]: case, `_`, `-` and spaces ignored), so `patch-correct`, `patch_correct` and
//! `Patch Correct` are one key.

use serde_json::{Map, Value as Json};

/// Most `{` positions examined when looking for an object, so that brace-heavy text stays cheap.
const MAX_CANDIDATES: usize = 64;

/// Texts that may hold an object: fenced blocks first, then every balanced `{...}` in the answer.
pub fn candidates(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("```") {
        let after = &rest[open + 3..];
        // Skip the info string (`json`, `python`, ...) up to the end of the line.
        let body_start = after.find('\n').map_or(after.len(), |i| i + 1);
        let body = &after[body_start..];
        let Some(close) = body.find("```") else {
            out.push(body);
            break;
        };
        out.push(&body[..close]);
        rest = &body[close + 3..];
    }
    let mut from = 0;
    let mut examined = 0;
    while let Some(i) = text[from..].find('{') {
        let start = from + i;
        examined += 1;
        if examined > MAX_CANDIDATES {
            break;
        }
        match balanced_end(&text[start..]) {
            Some(len) => {
                out.push(&text[start..start + len]);
                from = start + len;
            }
            None => from = start + 1,
        }
    }
    out
}

/// Length in bytes of the balanced `{...}` or `[...]` at the start of `text`, skipping brackets inside quoted
/// strings.
pub fn balanced_end(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '{' | '[' => depth += 1,
            '}' | ']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// Parses JSON, first strictly, then after rewriting the usual looseness into strict JSON.
pub fn parse_loose(text: &str) -> Option<Json> {
    let trimmed = text.trim();
    if let Ok(v) = serde_json::from_str(trimmed) {
        return Some(v);
    }
    serde_json::from_str(&relax(trimmed)).ok()
}

/// Rewrites loose JSON into strict JSON: single-quoted strings, trailing commas, Python constants, raw control
/// characters in strings and `//` comments.
fn relax(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 16);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '"' | '\'' => {
                i = copy_string(&chars, i, &mut out);
                continue;
            }
            ',' => {
                let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
                if !matches!(next, Some('}' | ']')) {
                    out.push(',');
                }
            }
            '/' if chars.get(i + 1) == Some(&'/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                continue;
            }
            c if c.is_alphabetic() => {
                let start = i;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                out.push_str(match word.as_str() {
                    "True" => "true",
                    "False" => "false",
                    "None" => "null",
                    w => w,
                });
                continue;
            }
            c => out.push(c),
        }
        i += 1;
    }
    out
}

/// Copies the string literal starting at `chars[start]` as a double-quoted JSON string; returns the index after it.
fn copy_string(chars: &[char], start: usize, out: &mut String) -> usize {
    let q = chars[start];
    out.push('"');
    let mut i = start + 1;
    while i < chars.len() {
        let c = chars[i];
        if c == q {
            out.push('"');
            return i + 1;
        }
        match c {
            '\\' => {
                let Some(&e) = chars.get(i + 1) else {
                    break;
                };
                match e {
                    '\'' => out.push('\''),
                    '"' | '\\' | '/' | 'b' | 'f' | 'n' | 'r' | 't' | 'u' => {
                        out.push('\\');
                        out.push(e);
                    }
                    // An escape JSON does not know keeps its backslash as text.
                    other => {
                        out.push_str("\\\\");
                        out.push(other);
                    }
                }
                i += 2;
                continue;
            }
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
        i += 1;
    }
    out.push('"');
    i
}

/// The JSON objects of an answer, in the order [`candidates`] finds them.
pub fn objects(text: &str) -> impl Iterator<Item = Map<String, Json>> + '_ {
    candidates(text).into_iter().filter_map(parse_loose).filter_map(|v| match v {
        Json::Object(map) => Some(map),
        _ => None,
    })
}

/// The first JSON object of an answer that has one of `keys` (in [`key_form`]), or any object when `keys` is empty.
pub fn object_with(text: &str, keys: &[&str]) -> Option<Map<String, Json>> {
    objects(text).find(|o| keys.is_empty() || get(o, keys).is_some())
}

/// Lower-cased key with `_`, `-` and spaces removed.
pub fn key_form(k: &str) -> String {
    k.chars().filter(|c| !matches!(c, '_' | '-' | ' ')).flat_map(char::to_lowercase).collect()
}

/// The value of the first key of `obj` whose [`key_form`] is one of `names`.
pub fn get<'a>(obj: &'a Map<String, Json>, names: &[&str]) -> Option<&'a Json> {
    obj.iter().find(|(k, _)| names.contains(&key_form(k).as_str())).map(|(_, v)| v)
}
