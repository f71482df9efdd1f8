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
//! are in). A hunk ends at the next hunk or file header, at a fence, or at a line that is none of ` `, `-`, `+`,
//! `\` or empty (an empty line is read as a blank context line; empty lines at the hunk's end are dropped).

use std::ops::Range;

use super::{Claimed, EditFormat, Line, line_end};
use crate::patch::edit::{Edit, ParseIssue, note};

/// A hunk header's numbers: the old start and the new start, when written.
fn hunk_header(line: &str) -> Option<Option<(u32, u32)>> {
    let rest = line.strip_prefix("@@")?;
    if rest.starts_with('@') {
        return None;
    }
    let mut words = rest.split_whitespace();
    let number =
        |w: Option<&str>, sign: char| -> Option<u32> { w?.strip_prefix(sign)?.split(',').next()?.parse().ok() };
    let old = number(words.next(), '-');
    let new = number(words.next(), '+');
    Some(old.zip(new))
}

/// Whether lines `i` and `i + 1` are a `---`/`+++` file header.
fn file_header(lines: &[Line<'_>], i: usize) -> bool {
    lines[i].1.starts_with("--- ") && lines.get(i + 1).is_some_and(|l| l.1.starts_with("+++ "))
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

/// The hunks of the answer, each with the bytes it spans.
pub(crate) fn read(
    text: &str,
    lines: &[Line<'_>],
    claimed: &Claimed,
    issues: &mut Vec<ParseIssue>,
) -> Vec<(Range<usize>, Edit)> {
    let mut out = Vec::new();
    let mut file: Option<String> = None;
    let mut i = 0;
    while i < lines.len() {
        let (at, line) = lines[i];
        if claimed.overlaps(&(at..at + line.len())) {
            i += 1;
            continue;
        }
        if let Some(rest) = line.strip_prefix("diff --git ") {
            file = rest.rsplit_once(" b/").map(|(_, p)| p.trim().to_string()).or(file);
            i += 1;
            continue;
        }
        if file_header(lines, i) {
            file = Some(file_of(&line[4..], &lines[i + 1].1[4..]));
            i += 2;
            continue;
        }
        let Some(numbers) = hunk_header(line) else {
            i += 1;
            continue;
        };
        let mut j = i + 1;
        while j < lines.len() && in_hunk(lines, j) {
            j += 1;
        }
        let mut end = j;
        while end > i + 1 && lines[end - 1].1.is_empty() {
            end -= 1;
        }
        let body = &lines[i + 1..end];
        let Some(path) = &file else {
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
        edit.line = numbers.map(|(old, new)| if new > 0 { new } else { old.max(1) });
        out.push((at..line_end(lines, end.saturating_sub(1).max(i), text), edit));
        i = j;
    }
    out
}

/// Whether line `j` continues the hunk above it.
fn in_hunk(lines: &[Line<'_>], j: usize) -> bool {
    let l = lines[j].1;
    if hunk_header(l).is_some() || l.starts_with("diff --git ") || file_header(lines, j) || l.starts_with("```") {
        return false;
    }
    l.is_empty() || l.starts_with([' ', '-', '+', '\\'])
}
