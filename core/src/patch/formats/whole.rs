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

/// How far into the new text's start (end) the file's first (last) non-blank line is looked for, in non-blank lines.
const REACH: usize = 6;

/// Whether `new` stands for the whole of the file whose text is `old`, or what it lacks: the file's head (its first
/// non-blank line among the new text's first six), its tail (its last non-blank line among the new text's last
/// six), and at least two thirds as many non-blank lines as the file.
///
/// Decided from real answers. Whole files written from real history (the `whole` variant of the history replay,
/// `core/tests/patch_history`, tuned on six and itsdangerous, measured on attrs and click) keep their first and last
/// lines within those reaches unless the commit changed them; answers that show definitions (the partial-answer
/// replay, `core/tests/partial_answers`) lack the file's first line, even the file's last definition shown alone,
/// and a single function shown without the module's docstring above it. A whole file that fails the rule is read as
/// its definitions when it is nothing else, and refused when it is more.
pub fn is_whole(old: &str, new: &str) -> Result<(), String> {
    let (old, new) = (non_blank(old), non_blank(new));
    if old.is_empty() {
        return Ok(());
    }
    let head = new.iter().take(REACH).any(|n| *n == old[0]);
    let tail = new.iter().rev().take(REACH).any(|n| *n == old[old.len() - 1]);
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
