//! Code blocks as models write them: fences, line-number prefixes copied from search output, and placeholder
//! comments for code left out. Every format's reader and the matcher read blocks through these.

/// A block without the line-number prefixes copied from search output (`57     def f():`), when every line carries
/// one and they count up by one.
pub(crate) fn without_line_numbers(block: &str) -> Option<String> {
    let lines: Vec<&str> = block.split('\n').collect();
    strip_line_numbers(&lines).map(|v| v.join("\n"))
}

/// A code fence's opening line: its character, its length and its info string. The one fence rule every reader
/// uses: three or more backticks or tildes after any indentation, then an info string (a language, a path, or both)
/// that holds no backtick when the fence is of backticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fence<'a> {
    ch: char,
    len: usize,
    /// What follows the fence characters (trimmed): a language, a path, or both.
    pub(crate) info: &'a str,
}

impl<'a> Fence<'a> {
    /// The fence a line opens, if it is one.
    pub(crate) fn open(line: &'a str) -> Option<Fence<'a>> {
        let t = line.trim_start();
        let ch = t.chars().next().filter(|c| *c == '`' || *c == '~')?;
        let len = t.len() - t.trim_start_matches(ch).len();
        let info = t[len..].trim();
        (len >= 3 && !(ch == '`' && info.contains('`'))).then_some(Fence { ch, len, info })
    }

    /// Whether `line` closes this fence: the same character, at least as many, nothing else.
    pub(crate) fn closes(&self, line: &str) -> bool {
        let t = line.trim();
        t.len() >= self.len && t.chars().all(|c| c == self.ch)
    }

    /// The info string's first word (the language), lowercased.
    pub(crate) fn language(&self) -> String {
        self.info.split(|c: char| c.is_whitespace() || c == ':').next().unwrap_or("").to_ascii_lowercase()
    }
}

/// Whether a line opens or closes a code fence.
pub(crate) fn is_fence(line: &str) -> bool {
    Fence::open(line).is_some()
}

/// A SEARCH/REPLACE marker line, by the one rule every reader uses: a run of five to nine `ch` and then `word` (case
/// ignored), as Aider reads them.
fn marker(line: &str, ch: char, word: &str) -> bool {
    let t = line.trim();
    let run = t.len() - t.trim_start_matches(ch).len();
    (5..=9).contains(&run) && t[run..].trim().eq_ignore_ascii_case(word)
}

/// `<<<<<<< SEARCH`.
pub(crate) fn is_search_marker(line: &str) -> bool {
    marker(line, '<', "SEARCH")
}

/// `>>>>>>> REPLACE`.
pub(crate) fn is_replace_marker(line: &str) -> bool {
    marker(line, '>', "REPLACE")
}

/// `=======`, the divider between the two parts of a SEARCH/REPLACE block (five to nine `=`).
pub(crate) fn is_divider(line: &str) -> bool {
    let t = line.trim();
    (5..=9).contains(&t.len()) && t.chars().all(|c| c == '=')
}

/// Removes line-number prefixes when every non-empty line has one and the numbers count up by one (blank lines
/// may lack a number). The separator after the number (`|`, `:`, one tab or one space) is removed too; the rest of
/// the whitespace is kept, so relative indentation survives.
pub(super) fn strip_line_numbers(lines: &[&str]) -> Option<Vec<String>> {
    let mut out = Vec::with_capacity(lines.len());
    let mut expected: Option<u64> = None;
    let mut numbered = 0usize;
    let mut single_space = false;
    for line in lines {
        let lead = line.len() - line.trim_start_matches(' ').len();
        let after_lead = &line[lead..];
        let digits = after_lead.len() - after_lead.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits == 0 || digits > 7 {
            if line.trim().is_empty() {
                out.push(String::new());
                if let Some(e) = expected.as_mut() {
                    *e += 1;
                }
                continue;
            }
            return None;
        }
        let number: u64 = after_lead[..digits].parse().ok()?;
        if expected.is_some_and(|e| e != number) {
            return None;
        }
        expected = Some(number + 1);
        let rest = &after_lead[digits..];
        let rest = if let Some(r) = rest.strip_prefix('|').or_else(|| rest.strip_prefix(':')) {
            r.strip_prefix(' ').unwrap_or(r)
        } else if let Some(r) = rest.strip_prefix('\t') {
            r
        } else if let Some(r) = rest.strip_prefix(' ') {
            single_space |= !r.starts_with(' ');
            r
        } else if rest.is_empty() {
            rest
        } else {
            return None;
        };
        numbered += 1;
        out.push(rest.to_string());
    }
    // `1 + 2` is code, not line 1: a lone number followed by one space is not enough evidence.
    let enough = numbered >= 2 || (numbered == 1 && !single_space);
    enough.then_some(out)
}

/// The text of a `/* ... */` comment that is the whole of `t`.
fn block_comment(t: &str) -> Option<&str> {
    t.strip_prefix("/*")?.strip_suffix("*/")
}

/// Whether a line is a placeholder for code the model left out, such as `# Rest of the code...`,
/// `# ... existing code ...`, `# ...` or `# rest of the method unchanged` (also as a `//` comment, or a `/* */`
/// comment alone on its line, in braces in JSX).
///
/// A placeholder is a comment made of nothing but an ellipsis and words that say "code left out" ("rest of the
/// code", "existing code", "unchanged", "remaining methods"...); it must hold an ellipsis or start with one of those
/// phrases. A comment with anything else in it is code: `# Existing logic for X` and `# ... Or as first hook` stay.
pub fn is_placeholder(line: &str) -> bool {
    const PHRASES: [&str; 7] =
        ["rest of", "remaining", "remainder of", "existing", "unchanged", "other code", "previous code"];
    const WORDS: [&str; 40] = [
        "rest",
        "of",
        "the",
        "code",
        "existing",
        "unchanged",
        "remaining",
        "remainder",
        "method",
        "methods",
        "function",
        "functions",
        "class",
        "classes",
        "file",
        "module",
        "body",
        "implementation",
        "logic",
        "other",
        "same",
        "as",
        "before",
        "above",
        "here",
        "previous",
        "keep",
        "kept",
        "omitted",
        "lines",
        "is",
        "remains",
        "stays",
        "goes",
        "for",
        "brevity",
        "and",
        "definitions",
        "original",
        "etc",
    ];
    let t = line.trim();
    // A line comment, or a block comment alone on its line (JSX writes one in braces).
    let Some(comment) = t
        .strip_prefix('#')
        .or_else(|| t.strip_prefix("//"))
        .or_else(|| block_comment(t))
        .or_else(|| block_comment(t.strip_prefix('{')?.strip_suffix('}')?.trim()))
    else {
        return false;
    };
    let c = comment.trim().to_ascii_lowercase();
    let ellipsis = c.contains("...") || c.contains('\u{2026}');
    let words: Vec<&str> = c.split(|ch: char| !ch.is_ascii_alphabetic()).filter(|w| !w.is_empty()).collect();
    if !words.iter().all(|w| WORDS.contains(w)) {
        return false;
    }
    let prose = c.trim_start_matches(|ch: char| !ch.is_ascii_alphabetic());
    let only_words = c.chars().all(|ch| ch.is_ascii_alphabetic() || " .()[]-:,\u{2026}".contains(ch));
    only_words && (ellipsis || PHRASES.iter().any(|p| prose.starts_with(p)))
}
