//! Whole files: the file's complete new text in a code fence, after its path (read by [`super::code`]).
//!
//! ````text
//! src/app.py
//! ```python
//! def add(a, b):
//!     return a + b
//! ```
//! ````
//!
//! Once the file is known, [`is_whole`] says whether the text is the whole file (its head, its tail, about as many
//! lines) and [`cut_short`] whether it leaves code out (a placeholder comment such as `# ... rest unchanged` that the
//! file does not have); then [`as_edit`] makes it an edit whose original is the file's current text, so it goes
//! through the same matching, indentation, gate and diff as any other (the diff shows what changed, not the whole
//! file).

use crate::patch::block::is_placeholder;
use crate::patch::edit::Edit;

/// How many of the file's first (last) non-blank lines are looked for near the new text's start (end).
const ENDS: usize = 3;
/// How far into the new text's start (end) they are looked for, in non-blank lines.
const REACH: usize = 6;

/// Whether `new` stands for the whole of the file whose text is `old`, or what it lacks: the file's head (one of its
/// first three non-blank lines among the new text's first six), its tail (one of its last three among the new
/// text's last six, unless the new text is at least as long: lines added at the end), and at least two thirds as many
/// non-blank lines as the file. For a source file, [`super::code`] also asks that it keep the file's lines outside
/// its definitions ([`keeps_module_lines`]).
///
/// Decided from real answers. Whole files written from real history (the `whole` variant of the history replay,
/// `core/tests/patch_history`: the latest 120 commits of six, itsdangerous, attrs and click) change their first or
/// last lines often (a copyright year, `from __future__ import annotations`, a version, a function added at the end),
/// so one of three lines at each end is enough; answers that show definitions (the partial-answer replay,
/// `core/tests/partial_answers`) lack the module's own lines (its docstring, imports and assignments), even when
/// they show the file's last definition or its only one.
pub fn is_whole(old: &str, new: &str) -> Result<(), String> {
    let (old, new) = (non_blank(old), non_blank(new));
    if old.is_empty() {
        return Ok(());
    }
    let head = old.iter().take(ENDS).any(|l| new.iter().take(REACH).any(|n| n == l));
    let tail =
        new.len() >= old.len() || old.iter().rev().take(ENDS).any(|l| new.iter().rev().take(REACH).any(|n| n == l));
    let lacks = match (head, tail) {
        (false, false) => Some("the file's first and last lines"),
        (false, true) => Some("the file's first lines"),
        (true, false) => Some("the file's last lines"),
        (true, true) => None,
    };
    if let Some(lacks) = lacks {
        return Err(format!("it lacks {lacks} (`{}`)", if head { old[old.len() - 1] } else { old[0] }));
    }
    if new.len() * 3 < old.len() * 2 {
        return Err(format!("it has {} non-blank lines where the file has {}", new.len(), old.len()));
    }
    Ok(())
}

/// Whether `new` keeps at least half of `module_lines`, the file's non-blank lines outside its definitions (its
/// docstring, imports, assignments, comments), or what it lacks.
pub fn keeps_module_lines(module_lines: &[&str], new: &str) -> Result<(), String> {
    let mut present: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for l in non_blank(new) {
        *present.entry(l).or_default() += 1;
    }
    let missing: Vec<&str> = module_lines
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .filter(|l| match present.get_mut(l) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .collect();
    let all = module_lines.iter().filter(|l| !l.trim().is_empty()).count();
    if missing.len() * 2 > all {
        return Err(format!(
            "it lacks {} of the file's {all} lines outside its definitions (`{}`)",
            missing.len(),
            missing[0]
        ));
    }
    Ok(())
}

/// The lines of `text` that are not blank, trimmed.
fn non_blank(text: &str) -> Vec<&str> {
    text.lines().map(str::trim).filter(|l| !l.is_empty()).collect()
}

/// Why a whole-file text leaves code out, if it does: a placeholder line (`# ... rest unchanged`) that the file
/// does not have.
pub fn cut_short(old: &str, new: &str) -> Option<String> {
    let old_lines: Vec<&str> = old.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    new.lines()
        .enumerate()
        .find(|(_, l)| is_placeholder(l) && !old_lines.contains(&l.trim()))
        .map(|(n, line)| format!("line {} `{}` stands for code left out", n + 1, line.trim()))
}

/// The whole-file edit made concrete against the file's current text: the original is that text.
pub fn as_edit(current: &str, edit: &Edit) -> Edit {
    let trim_end = |s: &str| s.trim_end_matches(['\n', '\r']).to_string();
    Edit { original: trim_end(current), patched: trim_end(&edit.patched), ..edit.clone() }
}
