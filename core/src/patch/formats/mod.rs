//! The edit formats models write, read into one kind of value ([`Edit`]) so that matching, indentation, the
//! syntax gate, the diff and the verdict are the same whatever the format.
//!
//! | format | what it looks like | module |
//! |---|---|---|
//! | [`EditFormat::Acr`] | `<file>`, `<original>`, `<patched>` tags | [`super::parse`] |
//! | [`EditFormat::SearchReplace`] | `<<<<<<< SEARCH` / `=======` / `>>>>>>> REPLACE` after a path | [`search_replace`] |
//! | [`EditFormat::Udiff`] | unified diff hunks after their `---`/`+++` header, or in a fence | [`udiff`] |
//! | [`EditFormat::Definition`] | whole functions, methods or classes in a fence, with or without a path | [`code`] |
//! | [`EditFormat::Whole`] | a file's complete text in a fence after its path | [`code`], [`whole`] |
//!
//! Each format is read only as far as it is sure. Tags, SEARCH/REPLACE markers and diff headers say what they are;
//! a diff hunk is read only in a fence or under its file's header, and ends at the first line of prose. Code in a
//! fence is a whole file only when it has the file's head, its tail and about as many lines ([`whole::is_whole`]);
//! whole definitions when it parses as nothing but definitions; and otherwise nothing.
//!
//! Which readers run: when the prompt asked for a format, its reader first, and the others only when it finds
//! nothing, and then only on text inside code fences. When no format was asked for (`acr apply`, the package, the
//! component), the readers of tags, SEARCH/REPLACE blocks and diffs all run, in the order of the table (an answer may
//! mix them), and code blocks are read only when they find nothing. A later reader ignores the text an earlier one
//! used (a fence around ACR tags is not a whole file; a `@@` line inside a SEARCH block is not a hunk). The edits
//! are put back in the order the answer wrote them.

pub mod choice;
pub mod code;
pub mod search_replace;
pub mod udiff;
pub mod whole;

use std::ops::Range;

pub use choice::EditFormatChoice;

use super::block::Fence;
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
            "Write the patch as a unified diff in a fenced block: `--- a/path` and `+++ b/path` lines, then `@@` hunks \
             whose lines start with a space (unchanged), `-` (removed) or `+` (added)."
        }
        EditFormat::Definition => {
            "Write each function, method or class you change whole, as it should be: the file's path on a line of \
             its own, then a fenced block holding the complete definition."
        }
        EditFormat::Whole => {
            "Write each changed file whole: its path on a line of its own, then a fenced block holding every line of \
             the new file."
        }
    }
}

/// Edits in an answer, in order, read as when no format was asked for (see the module's documentation). Never
/// fails; an answer with no complete edit gives an empty list.
pub fn parse_edits(answer: &str) -> Vec<Edit> {
    parse_edits_with_issues(answer).0
}

/// Like [`parse_edits`], also returning the problems met with incomplete blocks.
pub fn parse_edits_with_issues(answer: &str) -> (Vec<Edit>, Vec<ParseIssue>) {
    let read = read(answer, None);
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

/// A reader of one kind of text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reader {
    Tags,
    SearchReplace,
    Udiff,
    /// Code in fences: whole files and definitions.
    Code,
}

impl Reader {
    /// The readers of text that says what it is, in the order they run.
    const MARKED: [Reader; 3] = [Reader::Tags, Reader::SearchReplace, Reader::Udiff];

    /// The reader of a format.
    fn of(format: EditFormat) -> Reader {
        match format {
            EditFormat::Acr => Reader::Tags,
            EditFormat::SearchReplace => Reader::SearchReplace,
            EditFormat::Udiff => Reader::Udiff,
            EditFormat::Definition | EditFormat::Whole => Reader::Code,
        }
    }

    fn run(
        self,
        text: &str,
        lines: &[Line<'_>],
        claimed: &Claimed,
        issues: &mut Vec<ParseIssue>,
    ) -> Vec<(Range<usize>, Edit)> {
        match self {
            Reader::Tags => parse_tagged(text, issues),
            Reader::SearchReplace => search_replace::read(text, lines, claimed, issues),
            Reader::Udiff => udiff::read(text, lines, claimed, issues),
            Reader::Code => code::read(text, lines, claimed, issues),
        }
    }
}

/// Reads the edits of an answer; `asked` is the format the prompt asked for, if any (see the module's
/// documentation for which readers run).
pub fn read(answer: &str, asked: Option<EditFormat>) -> Read {
    let text = answer.replace("\r\n", "\n");
    let lines = lines(&text);
    let mut issues = Vec::new();
    let mut claimed = Claimed::default();
    // A `<file>` tag holds a path, never an edit of another format: a path built to look like a diff must not
    // become one.
    claimed.add(file_tags(&text));
    let mut found: Vec<(Range<usize>, Edit)> = Vec::new();
    let mut run = |reader: Reader, only_fenced: Option<&[Range<usize>]>, claimed: &mut Claimed, found: &mut Vec<_>| {
        let mut more = reader.run(&text, &lines, claimed, &mut issues);
        if let Some(fenced) = only_fenced {
            more.retain(|(r, _)| fenced.iter().any(|f| in_fence(&text, r, f)));
        }
        claimed.add(more.iter().map(|(r, _)| r.clone()));
        found.extend(more);
    };
    match asked {
        Some(format) => {
            let first = Reader::of(format);
            run(first, None, &mut claimed, &mut found);
            if found.is_empty() {
                let fenced = fenced_spans(&text, &lines);
                for reader in Reader::MARKED.into_iter().chain([Reader::Code]).filter(|r| *r != first) {
                    run(reader, Some(&fenced), &mut claimed, &mut found);
                }
            }
        }
        None => {
            for reader in Reader::MARKED {
                run(reader, None, &mut claimed, &mut found);
            }
            if found.is_empty() {
                run(Reader::Code, None, &mut claimed, &mut found);
            }
        }
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

/// The spans of the answer's code fences, fence lines included (an unclosed fence runs to the end).
fn fenced_spans(text: &str, lines: &[Line<'_>]) -> Vec<Range<usize>> {
    fences(lines)
        .map(|(open, close, _)| lines[open].0..line_end(lines, close.unwrap_or(lines.len() - 1), text))
        .collect()
}

/// Whether the text an edit was read from, `span`, is the fence `fence`'s: it ends inside the fence and starts
/// inside it or on the few lines just before it (the block's path).
fn in_fence(text: &str, span: &Range<usize>, fence: &Range<usize>) -> bool {
    let before = text.get(span.start..fence.start).unwrap_or("");
    span.end <= fence.end
        && span.end > fence.start
        && (span.start >= fence.start || before.lines().count() <= PATH_LOOKBACK)
}

/// The answer's code fences, in order: the opening line, the closing line (`None` when the fence runs to the end
/// of the answer) and the fence. Fences do not nest: a line inside one opens nothing.
pub(crate) fn fences<'a>(lines: &'a [Line<'a>]) -> impl Iterator<Item = (usize, Option<usize>, Fence<'a>)> + 'a {
    let mut i = 0;
    std::iter::from_fn(move || {
        let (open, fence) = (i..lines.len()).find_map(|k| Fence::open(lines[k].1).map(|f| (k, f)))?;
        let close = (open + 1..lines.len()).find(|&j| fence.closes(lines[j].1));
        i = close.map_or(lines.len(), |c| c + 1);
        Some((open, close, fence))
    })
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

/// How far back from a block its path is looked for: blank lines and the block's opening fence may sit between.
const PATH_LOOKBACK: usize = 4;

/// The path written for a block whose first line inside its fence (or its first line, unfenced) is line `i`: on a
/// line of its own just before (past blank lines and one opening fence), else in that fence's info string; and the
/// first line of the block with it (the path's line, or the fence's). The one look-back every reader uses.
pub(crate) fn path_before(lines: &[Line<'_>], i: usize) -> (Option<String>, usize) {
    let mut info_path = None;
    let mut fences = 0;
    let mut k = i;
    while k > 0 && i - k < PATH_LOOKBACK {
        let l = lines[k - 1].1;
        if l.trim().is_empty() {
            k -= 1;
            continue;
        }
        if let Some(fence) = Fence::open(l).filter(|_| fences == 0) {
            fences += 1;
            info_path = path_in_info(fence.info);
            k -= 1;
            continue;
        }
        if let Some(p) = path_alone(l) {
            return (Some(p), k - 1);
        }
        break;
    }
    let first = (k..i).find(|&j| !lines[j].1.trim().is_empty()).unwrap_or(i);
    (info_path, first)
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
