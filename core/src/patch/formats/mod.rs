//! The edit formats models write, read into one kind of value ([`Edit`]) so that matching, indentation, the
//! syntax gate, the diff and the verdict are the same whatever the format.
//!
//! | format | what it looks like | module |
//! |---|---|---|
//! | [`EditFormat::Acr`] | `<file>`, `<original>`, `<patched>` tags | [`super::parse`] |
//! | [`EditFormat::SearchReplace`] | `<<<<<<< SEARCH` / `=======` / `>>>>>>> REPLACE` after a path | [`search_replace`] |
//! | [`EditFormat::Udiff`] | unified diff hunks, with or without `diff --git`, `a/`/`b/` or line numbers | [`udiff`] |
//! | [`EditFormat::Whole`] | a fenced file after its path (or with the path in the fence's info string) | [`whole`] |
//!
//! The format is decided by the answer itself: every reader runs, in the order of the table, and a later reader
//! ignores the text an earlier one used (a fence around ACR tags is not a whole file; a `@@` line inside a
//! SEARCH block is not a hunk). The edits of all formats are then put back in the order the answer wrote them, so
//! one answer may mix formats.

pub mod choice;
pub mod search_replace;
pub mod udiff;
pub mod whole;

use std::ops::Range;

pub use choice::EditFormatChoice;

use super::edit::{Edit, EditFormat, ParseIssue};
use super::parse::parse_tagged;

/// One sentence on how to write edits in `format`, for an answer none could be read from.
pub fn reminder(format: EditFormat) -> &'static str {
    match format {
        EditFormat::Acr => {
            "Write each edit as <file>path</file> <original>the exact lines to replace</original> <patched>the new lines</patched>."
        }
        EditFormat::SearchReplace => {
            "Write each edit as the file's path on a line of its own, then a fenced block holding `<<<<<<< SEARCH`, \
             the exact lines to replace, `=======`, the new lines and `>>>>>>> REPLACE`."
        }
        EditFormat::Udiff => {
            "Write the patch as a unified diff: `--- a/path` and `+++ b/path` lines, then `@@` hunks whose lines start \
             with a space (unchanged), `-` (removed) or `+` (added)."
        }
        EditFormat::Whole => {
            "Write each changed file whole: its path on a line of its own, then a fenced block holding every line of \
             the new file."
        }
    }
}

/// Edits in an answer, in order, in every format the answer uses . Never fails; an answer
/// with no complete edit gives an empty list.
pub fn parse_edits(answer: &str) -> Vec<Edit> {
    parse_edits_with_issues(answer).0
}

/// Like [`parse_edits`], also returning the problems met with incomplete blocks.
pub fn parse_edits_with_issues(answer: &str) -> (Vec<Edit>, Vec<ParseIssue>) {
    let read = read(answer);
    (read.edits, read.issues)
}

/// Everything read from one answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Read {
    /// The edits, in the answer's order, numbered from 1.
    pub edits: Vec<Edit>,
    /// Problems with incomplete blocks, in any format.
    pub issues: Vec<ParseIssue>,
}

impl Read {
    /// The formats the edits were written in, each once, in the order they first appear.
    pub fn formats(&self) -> Vec<EditFormat> {
        formats_of(&self.edits)
    }
}

/// The formats of `edits`, each once, in the order they first appear.
pub fn formats_of(edits: &[Edit]) -> Vec<EditFormat> {
    let mut out: Vec<EditFormat> = Vec::new();
    for e in edits {
        if !out.contains(&e.format) {
            out.push(e.format);
        }
    }
    out
}

/// Reads the edits of an answer in every format (see the module's documentation).
pub fn read(answer: &str) -> Read {
    let text = answer.replace("\r\n", "\n");
    let mut issues = Vec::new();
    let mut found = parse_tagged(&text, &mut issues);
    let mut claimed = Claimed::default();
    claimed.add(found.iter().map(|(r, _)| r.clone()));
    // A `<file>` tag holds a path, never an edit of another format: a path built to look like a diff must not
    // become one.
    let paths: Vec<Range<usize>> = file_tags(&text).filter(|r| !claimed.overlaps(r)).collect();
    claimed.add(paths);
    let lines = lines(&text);
    for reader in [search_replace::read, udiff::read, whole::read] {
        let more = reader(&text, &lines, &claimed, &mut issues);
        claimed.add(more.iter().map(|(r, _)| r.clone()));
        found.extend(more);
    }
    found.sort_by_key(|(r, e)| (r.start, e.index));
    let edits = found
        .into_iter()
        .enumerate()
        .map(|(i, (_, mut e))| {
            e.index = i + 1;
            e
        })
        .collect();
    Read { edits, issues }
}

/// A line of the answer: where it starts (a byte offset) and its text, without the newline.
pub(crate) type Line<'a> = (usize, &'a str);

/// The answer's lines with their offsets.
pub(crate) fn lines(text: &str) -> Vec<Line<'_>> {
    let mut at = 0;
    text.split('\n')
        .map(|l| {
            let line = (at, l);
            at += l.len() + 1;
            line
        })
        .collect()
}

/// The end of line `i` (its newline included), or of the text.
pub(crate) fn line_end(lines: &[Line<'_>], i: usize, text: &str) -> usize {
    lines.get(i + 1).map_or(text.len(), |l| l.0)
}

/// The spans of the `<file>...</file>` tags of `text`, tags included.
fn file_tags(text: &str) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut from = 0;
    std::iter::from_fn(move || {
        let start = from + text.get(from..)?.find("<file>")?;
        let end = start + text[start..].find("</file>")? + "</file>".len();
        from = end;
        Some(start..end)
    })
}

/// Parts of the answer an earlier reader used, as disjoint byte ranges.
#[derive(Debug, Default)]
pub(crate) struct Claimed {
    ranges: Vec<Range<usize>>,
}

impl Claimed {
    fn add(&mut self, ranges: impl IntoIterator<Item = Range<usize>>) {
        self.ranges.extend(ranges);
        self.ranges.sort_by_key(|r| r.start);
    }

    /// Whether `range` overlaps a claimed part.
    pub(crate) fn overlaps(&self, range: &Range<usize>) -> bool {
        // The claimed ranges are disjoint, so sorted by start they are sorted by end too.
        let i = self.ranges.partition_point(|c| c.end <= range.start);
        self.ranges.get(i).is_some_and(|c| c.start < range.end.max(range.start + 1))
    }
}

/// A code fence's opening line: its character, its length and its info string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fence<'a> {
    ch: char,
    len: usize,
    /// What follows the fence characters (trimmed): a language, a path, or both.
    pub(crate) info: &'a str,
}

impl<'a> Fence<'a> {
    /// The fence a line opens, if it is one (three or more backticks or tildes, after any indentation).
    pub(crate) fn open(line: &'a str) -> Option<Fence<'a>> {
        let t = line.trim_start();
        let ch = t.chars().next().filter(|c| *c == '`' || *c == '~')?;
        let len = t.len() - t.trim_start_matches(ch).len();
        let info = t[len..].trim();
        (len >= 3 && !(ch == '`' && info.contains('`'))).then_some(Fence { ch, len, info })
    }

    /// Whether `line` closes this fence.
    pub(crate) fn closes(&self, line: &str) -> bool {
        let t = line.trim();
        t.len() >= self.len && t.chars().all(|c| c == self.ch)
    }
}

/// The path a line holds when it holds nothing else: `src/app.py`, `` `src/app.py` ``, `**src/app.py**`,
/// `### src/app.py`, `File: src/app.py`, `src/app.py:`.
pub(crate) fn path_alone(line: &str) -> Option<String> {
    let mut t = line.trim().trim_start_matches('#').trim();
    for prefix in ["File:", "file:", "FILE:", "Filename:", "filename:", "Path:", "path:"] {
        if let Some(rest) = t.strip_prefix(prefix) {
            t = rest.trim();
        }
    }
    let t = t.trim_matches(|c| matches!(c, '*' | '`' | '"' | '\'')).trim_end_matches(':');
    let t = t.trim_matches(|c| matches!(c, '*' | '`' | '"' | '\''));
    looks_like_path(t).then(|| t.to_string())
}

/// The path in a fence's info string: `python src/app.py`, `src/app.py`, `python:src/app.py`,
/// `py title="src/app.py"`.
pub(crate) fn path_in_info(info: &str) -> Option<String> {
    info.split(|c: char| c.is_whitespace() || c == ':')
        .map(|w| w.trim_start_matches("title=").trim_matches(|c| matches!(c, '"' | '\'' | '`')))
        .find(|w| looks_like_path(w))
        .map(str::to_string)
}

/// A relative or absolute file path with a file name that has an extension: no spaces, no code punctuation.
fn looks_like_path(t: &str) -> bool {
    if t.is_empty() || t.len() > 300 || (t.starts_with("..") && !t.starts_with("../")) {
        return false;
    }
    if !t.chars().all(|c| c.is_alphanumeric() || "._-/\\+@~".contains(c)) {
        return false;
    }
    let name = t.rsplit(['/', '\\']).next().unwrap_or("");
    let Some((stem, ext)) = name.rsplit_once('.') else {
        return false;
    };
    !stem.is_empty() && (1..=12).contains(&ext.len()) && ext.chars().any(|c| c.is_ascii_alphabetic())
}

/// The original and patched texts from their lines, without the blank lines at their ends that both have (the
/// ones only one has add or remove blank lines, as written).
pub(crate) fn without_shared_blank_ends(original: &[&str], patched: &[&str]) -> (String, String) {
    let blank = |l: &&&str| l.trim().is_empty();
    let lead = original.iter().take_while(blank).count().min(patched.iter().take_while(blank).count());
    let (o, p) = (&original[lead..], &patched[lead..]);
    let trail = o.iter().rev().take_while(blank).count().min(p.iter().rev().take_while(blank).count());
    let (o, p) = (&o[..o.len() - trail], &p[..p.len() - trail]);
    (o.join("\n"), p.join("\n"))
}

#[cfg(test)]
mod tests;
