//! A patch as runs of changed lines: each stretch of removed and added lines of a hunk with no unchanged line
//! between them ([`change_runs`]), and the patch with some runs undone ([`undo`]): their removed lines kept, their
//! added lines left out. What trims a validated patch to the changes its check needs
//! ([`crate::agent::trim`]) is built on these two.

use std::collections::BTreeMap;

use super::diff::{FileDiff, HunkMismatch, Line, apply_hunks};

/// One run of changed lines: in `changes[file].hunks[hunk]`, the lines `start..end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct ChangeRun {
    /// The file's place among the patch's files.
    pub file: usize,
    /// The hunk's place in the file.
    pub hunk: usize,
    /// The run's first line in the hunk.
    pub start: usize,
    /// One past its last line.
    pub end: usize,
}

impl ChangeRun {
    fn holds(&self, file: usize, hunk: usize, line: usize) -> bool {
        self.file == file && self.hunk == hunk && (self.start..self.end).contains(&line)
    }
}

/// Every run of changed lines of the patch, in order.
pub fn change_runs(changes: &[FileDiff]) -> Vec<ChangeRun> {
    let mut runs = Vec::new();
    for (file, diff) in changes.iter().enumerate() {
        for (hunk, h) in diff.hunks.iter().enumerate() {
            let mut start = None;
            for (i, line) in h.lines.iter().chain(std::iter::once(&Line::Context(String::new()))).enumerate() {
                match (line, start) {
                    (Line::Context(_), Some(s)) => {
                        runs.push(ChangeRun { file, hunk, start: s, end: i });
                        start = None;
                    }
                    (Line::Removed(_) | Line::Added(_), None) => start = Some(i),
                    _ => {}
                }
            }
        }
    }
    runs
}

/// The new text of each of the patch's files (by path) with the runs `undone` left out of the patch, from the
/// files' original texts (`original` of a path; `None` for a file the patch creates). A file whose every run is
/// undone comes back as its original text.
pub fn undo(
    changes: &[FileDiff],
    original: impl Fn(&str) -> Option<String>,
    undone: &[ChangeRun],
) -> Result<BTreeMap<String, String>, HunkMismatch> {
    let mut files = BTreeMap::new();
    for (file, diff) in changes.iter().enumerate() {
        let mut hunks = diff.hunks.clone();
        for (hunk, h) in hunks.iter_mut().enumerate() {
            let undone_here = |i: usize| undone.iter().any(|r| r.holds(file, hunk, i));
            let lines = std::mem::take(&mut h.lines);
            h.lines = lines
                .into_iter()
                .enumerate()
                .filter_map(|(i, line)| match line {
                    Line::Removed(text) if undone_here(i) => Some(Line::Context(text)),
                    Line::Added(_) if undone_here(i) => None,
                    other => Some(other),
                })
                .collect();
            h.new_len = h.lines.iter().filter(|l| !matches!(l, Line::Removed(_))).count() as u32;
        }
        let old = original(&diff.path).unwrap_or_default();
        files.insert(diff.path.clone(), apply_hunks(&hunks, &old)?);
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    const OLD: &str = "def lcs(a, b):\n    if not a or not b:\n        return ''\n\n    elif a[0] == b[0]:\n        \
                       return a[0] + lcs(a[1:], b)\n\n    else:\n        return max(\n            lcs(a, b[1:]),\n            \
                       lcs(a[1:], b),\n            key=len\n        )\n";

    fn new_text() -> String {
        OLD.replace("\n\n    elif", "\n    elif")
            .replace("lcs(a[1:], b)\n\n", "lcs(a[1:], b[1:])\n")
            .replace("lcs(a, b[1:]),\n            lcs(a[1:], b),", "lcs(a[1:], b),\n            lcs(a, b[1:]),")
    }

    #[test]
    fn each_stretch_of_changed_lines_is_a_run_and_undoing_runs_restores_them() {
        let new = new_text();
        let diff = FileDiff::between("lcs.py", OLD, &new).expect("a change");
        let changes = [diff];
        let runs = change_runs(&changes);
        assert_eq!(runs.len(), 4, "the blank line, the fix, and the two halves of the swap: {runs:?}");
        let original = |_: &str| Some(OLD.to_string());
        assert_eq!(undo(&changes, original, &[]).unwrap()["lcs.py"], new, "nothing undone");
        assert_eq!(undo(&changes, original, &runs).unwrap()["lcs.py"], OLD, "everything undone");
        let fix_only: Vec<ChangeRun> = runs.iter().copied().filter(|r| *r != runs[1]).collect();
        assert_eq!(
            undo(&changes, original, &fix_only).unwrap()["lcs.py"],
            OLD.replace("lcs(a[1:], b)\n\n    else", "lcs(a[1:], b[1:])\n    else"),
            "the fix alone (with the blank line it took along in its run)"
        );
    }

    #[test]
    fn a_created_file_undone_is_empty() {
        let diff = FileDiff::between("new.py", "", "x = 1\n").expect("a change");
        let changes = [diff];
        let runs = change_runs(&changes);
        assert_eq!(undo(&changes, |_| None, &runs).unwrap()["new.py"], "");
    }
}
