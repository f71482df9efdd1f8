//! Whole files: the file's complete new text in a code fence, after its path.
//!
//! ````text
//! src/app.py
//! ```python
//! def add(a, b):
//!     return a + b
//! ```
//! ````
//!
//! The path is on the line before the fence (alone, perhaps in backticks or bold or after `File:`) or in the
//! fence's info string (```` ```python src/app.py ````). A fence holding diff hunks, SEARCH/REPLACE markers or ACR
//! tags is not a whole file, nor is one inside text another format used.
//!
//! Reading makes an [`Edit`] of [`EditFormat::Whole`] whose `patched` is the new text and whose `original` is
//! empty; once the file is known, [`as_edit`] fills the original with the file's current text, so the edit goes
//! through the same matching, indentation, gate and diff as any other (the diff shows what changed, not the whole
//! file). Before that, [`cut_short`] refuses a text that leaves code out: a placeholder comment such as
//! `# ... rest unchanged` that the file does not have, or a text far shorter than the file that lacks its end.

use std::ops::Range;

use super::{Claimed, EditFormat, Fence, Line, line_end, path_alone, path_in_info};
use crate::patch::block::is_placeholder;
use crate::patch::edit::{Edit, ParseIssue, note};

/// Info strings that mark a fence as a diff.
const DIFF_INFOS: [&str; 3] = ["diff", "patch", "udiff"];

/// The whole files of the answer, each with the bytes it spans.
pub(crate) fn read(
    text: &str,
    lines: &[Line<'_>],
    claimed: &Claimed,
    issues: &mut Vec<ParseIssue>,
) -> Vec<(Range<usize>, Edit)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(fence) = Fence::open(lines[i].1) else {
            i += 1;
            continue;
        };
        let close = (i + 1..lines.len()).find(|&j| fence.closes(lines[j].1));
        let next = close.map_or(lines.len(), |c| c + 1);
        let body = &lines[i + 1..close.unwrap_or(lines.len())];
        let span = lines[i].0..line_end(lines, next.saturating_sub(1), text);
        let language = fence.info.split(|c: char| c.is_whitespace() || c == ':').next().unwrap_or("");
        let other_format = DIFF_INFOS.contains(&language.to_ascii_lowercase().as_str())
            || claimed.overlaps(&span)
            || body.iter().any(|(_, l)| marks_other_format(l));
        let path = path_in_info(fence.info).or_else(|| path_above(lines, i));
        match path {
            Some(path) if !other_format => {
                if close.is_none() {
                    let problem = format!(
                        "the whole file for {path} has no closing fence: the answer seems cut off before its end"
                    );
                    note(issues, ParseIssue::Format { format: EditFormat::Whole, problem });
                } else {
                    let new: Vec<&str> = body.iter().map(|l| l.1).collect();
                    let mut edit = Edit::new(out.len() + 1, path, String::new(), new.join("\n"));
                    edit.format = EditFormat::Whole;
                    out.push((span, edit));
                }
            }
            _ => {}
        }
        i = next;
    }
    out
}

/// The path on the line before the fence at line `i` (one blank line between allowed).
fn path_above(lines: &[Line<'_>], i: usize) -> Option<String> {
    let mut k = i.checked_sub(1)?;
    if lines[k].1.trim().is_empty() {
        k = k.checked_sub(1)?;
    }
    path_alone(lines[k].1)
}

/// Whether a fenced line belongs to another format: a hunk header, a SEARCH/REPLACE marker or an ACR tag.
fn marks_other_format(line: &str) -> bool {
    let t = line.trim();
    (line.starts_with("@@") && !line.starts_with("@@@"))
        || t.starts_with("<<<<<<<")
        || t.starts_with(">>>>>>>")
        || ["<original>", "<patched>", "</original>", "</patched>"].iter().any(|tag| t.contains(tag))
}

/// Why a whole-file text looks cut short against the file's current text, if it does: a placeholder line the file
/// does not have, or under two thirds of the file's non-blank lines without the file's last three.
pub fn cut_short(old: &str, new: &str) -> Option<String> {
    let old_lines: Vec<&str> = old.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let new_lines: Vec<&str> = new.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    for (n, line) in new.lines().enumerate() {
        if is_placeholder(line) && !old_lines.contains(&line.trim()) {
            return Some(format!("line {} `{}` stands for code left out", n + 1, line.trim()));
        }
    }
    let tail = &old_lines[old_lines.len().saturating_sub(3)..];
    let has_tail = tail.is_empty() || new_lines.windows(tail.len()).any(|w| w == tail);
    if new_lines.len() * 3 < old_lines.len() * 2 && !has_tail {
        return Some(format!(
            "it has {} non-blank lines where the file has {}, and it lacks the file's last lines (`{}`)",
            new_lines.len(),
            old_lines.len(),
            tail.last().copied().unwrap_or("")
        ));
    }
    None
}

/// The whole-file edit made concrete against the file's current text: the original is that text.
pub fn as_edit(current: &str, edit: &Edit) -> Edit {
    let trim_end = |s: &str| s.trim_end_matches(['\n', '\r']).to_string();
    Edit { original: trim_end(current), patched: trim_end(&edit.patched), ..edit.clone() }
}
