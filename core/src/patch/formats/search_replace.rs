//! Aider's SEARCH/REPLACE blocks:
//!
//! ````text
//! src/app.py
//! ```python
//! <<<<<<< SEARCH
//!     return a
//! =======
//!     return a + b
//! >>>>>>> REPLACE
//! ```
//! ````
//!
//! The path is the line before the fence (or before the `<<<<<<< SEARCH` line), the path in the fence's info
//! string, or else the path of the block before: several blocks in one fence edit the same file. The SEARCH part
//! becomes the edit's original and the REPLACE part its patched text. Markers of five to nine characters are
//! accepted (the one marker rule of `patch::block`); when the SEARCH part itself holds a line of `=` (a reStructuredText underline), the divider is the
//! line of exactly seven.

use std::ops::Range;

use super::{Claimed, EditFormat, Line, line_end, path_before, without_shared_blank_ends};
use crate::patch::block::{
    is_divider, is_replace_marker as is_replace, is_search_marker as is_search, without_line_numbers,
};
use crate::patch::edit::{Edit, ParseIssue, note};

/// The SEARCH/REPLACE edits of the answer, each with the bytes it spans.
pub(crate) fn read(
    text: &str,
    lines: &[Line<'_>],
    claimed: &Claimed,
    issues: &mut Vec<ParseIssue>,
) -> Vec<(Range<usize>, Edit)> {
    let problem = |problem: String| ParseIssue::Format { format: EditFormat::SearchReplace, problem };
    let mut out = Vec::new();
    let mut last_file: Option<String> = None;
    let mut i = 0;
    while i < lines.len() {
        let (at, line) = lines[i];
        if !is_search(line) || claimed.overlaps(&(at..at + line.len())) {
            i += 1;
            continue;
        }
        let mut dividers = Vec::new();
        let mut end = None;
        let mut j = i + 1;
        while j < lines.len() {
            let l = lines[j].1;
            if is_replace(l) {
                end = Some(j);
                break;
            }
            if is_search(l) {
                break;
            }
            if is_divider(l) {
                dividers.push(j);
            }
            j += 1;
        }
        let divider = match dividers.as_slice() {
            [one] => Some(*one),
            many => many.iter().copied().find(|&d| lines[d].1.trim().len() == 7).or(many.first().copied()),
        };
        let (Some(end), Some(divider)) = (end, divider) else {
            let missing = if divider.is_none() { "=======" } else { ">>>>>>> REPLACE" };
            note(issues, problem(format!("a <<<<<<< SEARCH block has no `{missing}` line after it")));
            i = j.max(i + 1);
            continue;
        };
        let (path, from) = path_before(lines, i);
        let Some(file) = path.or_else(|| last_file.clone()) else {
            note(issues, problem("a <<<<<<< SEARCH block has no file path on the line before it".into()));
            i = end + 1;
            continue;
        };
        let search: Vec<&str> = lines[i + 1..divider].iter().map(|l| l.1).collect();
        let replace: Vec<&str> = lines[divider + 1..end].iter().map(|l| l.1).collect();
        let (original, patched) = without_shared_blank_ends(&search, &replace);
        let mut edit = Edit::new(out.len() + 1, file.clone(), original, patched);
        edit.format = EditFormat::SearchReplace;
        edit.had_line_numbers = !edit.original.is_empty() && without_line_numbers(&edit.original).is_some();
        out.push((lines[from].0..line_end(lines, end, text), edit));
        last_file = Some(file);
        i = end + 1;
    }
    out
}
