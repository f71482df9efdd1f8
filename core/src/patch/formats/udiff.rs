//! Unified diffs, as `git diff` writes them or as models do:
//!
//! ```text
//! --- a/src/app.py
//! +++ b/src/app.py
//! @@ -10,3 +10,3 @@ def add(a, b):
//!      """Adds."""
//! -    return a
//! +    return a + b
//! ```
//!
//! with or without the `diff --git` line, the `a/`/`b/` prefixes, or the hunk's numbers (Aider's `@@ ... @@`). Each
//! hunk becomes one edit: its ` ` and `-` lines are the original, its ` ` and `+` lines the patched text. A hunk is
//! placed by its content like every edit; its numbers only become [`Edit::line`], which picks among equal places
//! the one starting exactly where the header says (the `+` number: where the hunk is once the diff's earlier hunks
//! are in).
//!
//! A diff is read only as far as it is sure to be one. A hunk belongs to the file of the `---`/`+++` header (or
//! `diff --git` line) above it in the same diff: prose between them ends the diff, and a hunk with no header of its
//! own diff is reported, not applied to an earlier file. A hunk ends at the next hunk or file header, at the end of
//! its fence, or at a line that is none of ` `, `-`, `+`, `\` or empty. An empty line is a blank context line inside
//! a fence, and outside one only while the header's line counts say lines are still to come: past them, or with no
//! counts, it ends the hunk, so the list of changes a model writes after an unfenced diff (`- Fixed X`) is never
//! read as removed lines. Empty lines at a hunk's end are dropped.

use std::ops::Range;

use super::{Claimed, EditFormat, Line, line_end, path_in_info};
use crate::patch::block::Fence;
use crate::patch::edit::{Edit, ParseIssue, note};

/// A hunk header: the old and new start lines and line counts, when written (`@@ -10,3 +10,4 @@`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Header {
    starts: Option<(u32, u32)>,
    counts: Option<(u32, u32)>,
}

fn hunk_header(line: &str) -> Option<Header> {
    let rest = line.strip_prefix("@@")?;
    if rest.starts_with('@') {
        return None;
    }
    let mut words = rest.split_whitespace();
    let range = |w: Option<&str>, sign: char| -> Option<(u32, u32)> {
        let mut parts = w?.strip_prefix(sign)?.splitn(2, ',');
        let start = parts.next()?.parse().ok()?;
        let count = match parts.next() {
            Some(c) => c.parse().ok()?,
            None => 1,
        };
        Some((start, count))
    };
    let (old, new) = (range(words.next(), '-'), range(words.next(), '+'));
    Some(Header { starts: old.zip(new).map(|(o, n)| (o.0, n.0)), counts: old.zip(new).map(|(o, n)| (o.1, n.1)) })
}

/// Whether lines `i` and `i + 1` are a `---`/`+++` file header.
fn file_header(lines: &[Line<'_>], i: usize) -> bool {
    lines[i].1.starts_with("--- ") && lines.get(i + 1).is_some_and(|l| l.1.starts_with("+++ "))
}

/// Lines git writes between `diff --git` and the `---` line.
fn git_metadata(line: &str) -> bool {
    [
        "index ",
        "new file mode",
        "deleted file mode",
        "old mode",
        "new mode",
        "similarity index",
        "rename from",
        "rename to",
        "dissimilarity index",
        "copy from",
        "copy to",
    ]
    .iter()
    .any(|p| line.starts_with(p))
}

/// A header path without its timestamp and quotes.
fn header_path(raw: &str) -> &str {
    raw.split('\t').next().unwrap_or("").trim().trim_matches('"')
}

/// The file a `---`/`+++` pair names: the new path (the old one for a deleted file), without `a/`/`b/` when the
/// header has git's prefixes.
fn file_of(old: &str, new: &str) -> String {
    let (old, new) = (header_path(old), header_path(new));
    let null = |p: &str| p == "/dev/null";
    let git = (old.starts_with("a/") || null(old)) && (new.starts_with("b/") || null(new)) && !(null(old) && null(new));
    let (old, new) =
        if git { (old.strip_prefix("a/").unwrap_or(old), new.strip_prefix("b/").unwrap_or(new)) } else { (old, new) };
    if null(new) { old.to_string() } else { new.to_string() }
}

/// For each line, the line of the fence it is inside (fence lines themselves are outside), if any.
fn fences(lines: &[Line<'_>]) -> Vec<Option<usize>> {
    let mut out = vec![None; lines.len()];
    for (open, close, _) in super::fences(lines) {
        for slot in &mut out[open + 1..close.unwrap_or(lines.len())] {
            *slot = Some(open);
        }
    }
    out
}

/// The hunks of the answer, each with the bytes it spans.
pub(crate) fn read(
    text: &str,
    lines: &[Line<'_>],
    claimed: &Claimed,
    issues: &mut Vec<ParseIssue>,
) -> Vec<(Range<usize>, Edit)> {
    let inside = fences(lines);
    let mut out = Vec::new();
    // The file of the diff being read, and the fence it is in.
    let mut file: Option<(String, Option<usize>)> = None;
    let mut i = 0;
    while i < lines.len() {
        let (at, line) = lines[i];
        let fence = inside[i];
        if file.as_ref().is_some_and(|(_, f)| *f != fence) {
            file = None;
        }
        if claimed.overlaps(&(at..at + line.len())) {
            file = None;
            i += 1;
            continue;
        }
        if let Some(opened) = Fence::open(line).filter(|_| fence.is_none()) {
            // A fence's info string may name the file: ```diff src/app.py
            file = path_in_info(opened.info).map(|p| (p, Some(i)));
            i += 1;
            continue;
        }
        if let Some(rest) = line.strip_prefix("diff --git ") {
            let named = rest.rsplit_once(" b/").map(|(_, p)| p.trim().to_string());
            file = named.or(file.map(|f| f.0)).map(|p| (p, fence));
            i += 1;
            continue;
        }
        if file_header(lines, i) {
            file = Some((file_of(&line[4..], &lines[i + 1].1[4..]), fence));
            i += 2;
            continue;
        }
        if git_metadata(line) && file.is_some() {
            i += 1;
            continue;
        }
        let Some(header) = hunk_header(line) else {
            // Prose ends an unfenced diff.
            if fence.is_none() && !line.trim().is_empty() {
                file = None;
            }
            i += 1;
            continue;
        };
        let j = hunk_end(lines, &inside, i, header.counts);
        let mut end = j;
        while end > i + 1 && lines[end - 1].1.is_empty() {
            end -= 1;
        }
        let body = &lines[i + 1..end];
        let Some((path, _)) = &file else {
            let problem = "a diff hunk has no `--- a/path` and `+++ b/path` lines before it".to_string();
            note(issues, ParseIssue::Format { format: EditFormat::Udiff, problem });
            i = j;
            continue;
        };
        let mut original = Vec::new();
        let mut patched = Vec::new();
        for (_, l) in body {
            match l.chars().next() {
                None => {
                    original.push("");
                    patched.push("");
                }
                Some(' ') => {
                    original.push(&l[1..]);
                    patched.push(&l[1..]);
                }
                Some('-') => original.push(&l[1..]),
                Some('+') => patched.push(&l[1..]),
                _ => {}
            }
        }
        let mut edit = Edit::new(out.len() + 1, path.clone(), original.join("\n"), patched.join("\n"));
        edit.format = EditFormat::Udiff;
        edit.line = header.starts.map(|(old, new)| if new > 0 { new } else { old.max(1) });
        out.push((at..line_end(lines, end.saturating_sub(1).max(i), text), edit));
        i = j;
    }
    out
}

/// Where the hunk whose header is line `i` ends (the first line after it). `counts` are the header's old and new
/// line counts, when written.
fn hunk_end(lines: &[Line<'_>], inside: &[Option<usize>], i: usize, counts: Option<(u32, u32)>) -> usize {
    let fenced = inside[i].is_some();
    let (mut old_left, mut new_left) = counts.unwrap_or((0, 0));
    let mut j = i + 1;
    while j < lines.len() {
        let l = lines[j].1;
        if inside[j] != inside[i]
            || hunk_header(l).is_some()
            || l.starts_with("diff --git ")
            || file_header(lines, j)
            || Fence::open(l).is_some()
        {
            break;
        }
        match l.chars().next() {
            None if fenced => {}
            None if old_left > 0 && new_left > 0 => {
                old_left -= 1;
                new_left -= 1;
            }
            None => break,
            Some(' ') => {
                old_left = old_left.saturating_sub(1);
                new_left = new_left.saturating_sub(1);
            }
            Some('-') => old_left = old_left.saturating_sub(1),
            Some('+') => new_left = new_left.saturating_sub(1),
            Some('\\') => {}
            Some(_) => break,
        }
        j += 1;
    }
    j
}
