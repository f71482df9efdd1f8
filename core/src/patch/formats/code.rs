//! Code in a fence: a whole file after its path, or whole definitions (functions, methods, classes) with or
//! without a path.
//!
//! ````text
//! src/app.py
//! ```python
//! def add(a, b):
//!     return a + b
//! ```
//! ````
//!
//! The path is on a line of its own before the fence (perhaps in backticks or bold or after `File:`) or in the
//! fence's info string (```` ```python src/app.py ````). A fence of a diff, or one holding diff hunks, SEARCH/REPLACE
//! markers or ACR tags, is not code to apply, nor is one inside text another reader used.
//!
//! Reading decides only what the code looks like ([`EditFormat::Definition`] when it opens with a definition,
//! [`EditFormat::Whole`] otherwise, which needs a path); what it replaces is decided once its file is known
//! (`concrete`): the whole file only when it is one ([`super::whole::is_whole`]); else each definition it shows
//! (`patch::definition`); else nothing, and the answer is told why.

use std::ops::Range;

use super::{Claimed, EditFormat, Line, fences, line_end, path_alone, path_before, path_in_info};
use crate::language::Language;
use crate::patch::block::{Fence, is_replace_marker, is_search_marker, strip_line_numbers};
use crate::patch::definition::{self, NotDefinitions, Outline, Placement, Shown, Unplaced};
use crate::patch::edit::{Edit, ParseIssue, note};

/// Info strings that mark a fence as a diff.
const DIFF_INFOS: [&str; 3] = ["diff", "patch", "udiff"];

/// The code blocks of the answer, each with the bytes it spans.
pub(crate) fn read(
    text: &str,
    lines: &[Line<'_>],
    claimed: &Claimed,
    issues: &mut Vec<ParseIssue>,
) -> Vec<(Range<usize>, Edit)> {
    let mut out = Vec::new();
    for (open, close, fence) in fences(lines) {
        let next = close.map_or(lines.len(), |c| c + 1);
        let body: Vec<&str> = lines[open + 1..close.unwrap_or(lines.len())].iter().map(|l| l.1).collect();
        let (path_inside, body) = path_header(body);
        let (path_above, from) = path_before(lines, open + 1);
        let span = lines[from].0..line_end(lines, next.saturating_sub(1), text);
        let other_format = DIFF_INFOS.contains(&fence.language().as_str())
            || claimed.overlaps(&span)
            || body.iter().any(|l| marks_other_format(l));
        if other_format || body.iter().all(|l| l.trim().is_empty()) {
            continue;
        }
        let path = path_in_info(fence.info).or(path_inside).or(path_above);
        let format = if definition::looks_like_definitions(&body) {
            EditFormat::Definition
        } else if path.is_some() {
            EditFormat::Whole
        } else {
            continue;
        };
        if close.is_none() {
            let what = path.map_or_else(|| "the code shown".to_string(), |p| format!("the code for {p}"));
            let problem = format!("{what} has no closing fence: the answer seems cut off before its end");
            note(issues, ParseIssue::Format { format, problem });
            continue;
        }
        let mut edit = Edit::new(out.len() + 1, path.unwrap_or_default(), String::new(), body.join("\n"));
        edit.format = format;
        edit.had_line_numbers = strip_line_numbers(&body).is_some();
        out.push((span, edit));
    }
    out
}

/// A path written as the fence's first line and followed by a second opening fence, as small models write it:
///
/// ````text
/// ```python
/// src/app.py
/// ```python
/// def add(a, b):
/// ```
/// ````
///
/// Fences do not nest, so the inner opening line sits in the outer fence's body and the outer fence's closing line
/// ends both. Only this shape is read: the path alone on the first line and an opening fence with a language or
/// nothing on the next; any other body is returned as it is.
fn path_header(body: Vec<&str>) -> (Option<String>, Vec<&str>) {
    let inner_fence = |line: &str| Fence::open(line).is_some_and(|f| !f.info.contains(char::is_whitespace));
    match body.as_slice() {
        [first, second, ..] if inner_fence(second) => match path_alone(first) {
            Some(path) => (Some(path), body[2..].to_vec()),
            None => (None, body),
        },
        _ => (None, body),
    }
}

/// Whether a fenced line belongs to another format: a hunk header, a SEARCH/REPLACE marker or an ACR tag.
fn marks_other_format(line: &str) -> bool {
    let t = line.trim();
    (line.starts_with("@@") && !line.starts_with("@@@"))
        || is_search_marker(line)
        || is_replace_marker(line)
        || ["<original>", "<patched>", "</original>", "</patched>"].iter().any(|tag| t.contains(tag))
}

/// What a code block stands for in one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Concrete {
    /// The whole file: the edit whose original is the file's text.
    Whole(Edit),
    /// Definitions: the edits that put each in place, bottom up, and notes on what of the block was not placed.
    Definitions(Vec<Placement>, Vec<String>),
}

/// Why a code block does not fit a file, in words for the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Misfit {
    /// A whole file that leaves code out.
    CutShort(String),
    /// Neither the whole file nor whole definitions.
    NotAUnit(String),
    /// Definitions, one of which leaves part of its body out.
    LeavesOut(String),
    /// Definitions that cannot be placed.
    Unplaced(Unplaced),
}

/// What the code block `edit` stands for in the file `path` whose text is `current`. `hints` are the bug
/// locations' line spans in this file; `asked` is the format the prompt asked for.
///
/// Code with a path is the whole file when it is one ([`super::whole::is_whole`]: the file's first and last lines
/// and about as many lines), and whole definitions otherwise; when definitions were asked for, it is read as
/// definitions first, and as the whole file only when it holds more than definitions. Code without a path can
/// only be definitions.
pub(crate) fn concrete(
    path: &str,
    current: &str,
    edit: &Edit,
    hints: &[(u32, u32)],
    asked: Option<EditFormat>,
) -> Result<Concrete, Misfit> {
    let language = Language::of_path(path);
    let as_definitions = || definitions(language, current, edit, hints);
    let as_whole = || -> Result<Concrete, Misfit> {
        super::whole::is_whole(current, &edit.patched).map_err(Misfit::NotAUnit)?;
        if let Some(language) = language {
            let lines = definition::module_lines(language, current);
            super::whole::keeps_module_lines(&lines, &edit.patched).map_err(Misfit::NotAUnit)?;
        }
        if let Some(reason) = super::whole::cut_short(current, &edit.patched) {
            return Err(Misfit::CutShort(reason));
        }
        Ok(Concrete::Whole(super::whole::as_edit(current, edit)))
    };
    // Neither reading fits: a placeholder that stands for code left out says most; else both reasons.
    let neither = |why: String, not: String| match super::whole::cut_short(current, &edit.patched) {
        Some(placeholder) if has_path(edit) => Misfit::CutShort(placeholder),
        _ => Misfit::NotAUnit(format!("it is not the whole file ({why}), nor whole definitions ({not})")),
    };
    let definitions_first =
        !has_path(edit) || (edit.format == EditFormat::Definition && asked == Some(EditFormat::Definition));
    let (first, second): (Reading<'_>, Reading<'_>) =
        if definitions_first { (&as_definitions, &as_whole) } else { (&as_whole, &as_definitions) };
    match first() {
        Err(Misfit::NotAUnit(one)) if has_path(edit) => second().map_err(|m| match m {
            Misfit::NotAUnit(other) if definitions_first => neither(other, one),
            Misfit::NotAUnit(other) => neither(one, other),
            m => m,
        }),
        result => result,
    }
}

/// One way of reading a code block against its file.
type Reading<'a> = &'a dyn Fn() -> Result<Concrete, Misfit>;

/// Whether a code block came with a path.
fn has_path(edit: &Edit) -> bool {
    !edit.file.is_empty()
}

/// The code block `edit` read as whole definitions only, whatever else it could pass for: the reading a block
/// falls back to when the gate refuses it as the whole file.
pub(crate) fn as_definitions(path: &str, current: &str, edit: &Edit, hints: &[(u32, u32)]) -> Result<Concrete, Misfit> {
    definitions(Language::of_path(path), current, edit, hints)
}

fn definitions(
    language: Option<Language>,
    current: &str,
    edit: &Edit,
    hints: &[(u32, u32)],
) -> Result<Concrete, Misfit> {
    let Some(language) = language else {
        return Err(Misfit::NotAUnit("definitions can be placed only in source files of a known language".into()));
    };
    let file: Outline = definition::outline(language, current);
    let misfit = |not| match not {
        NotDefinitions::Not(why) => Misfit::NotAUnit(why),
        NotDefinitions::LeavesOut(why) => Misfit::LeavesOut(why),
    };
    let mut notes = Vec::new();
    let shown = match Shown::read(&edit.patched, language, Some(&file)) {
        Err(NotDefinitions::Not(why)) => {
            let Some((head, left)) = definition::without_cut_tail(language, &edit.patched, current) else {
                return Err(Misfit::NotAUnit(why));
            };
            notes.push(format!(
                "left out the last {left} lines of the code shown (with them, {why}): text after the definitions, \
                 cut short, not code"
            ));
            Shown::read(&head, language, Some(&file)).map_err(misfit)?
        }
        read => read.map_err(misfit)?,
    };
    let placements = definition::plan(&shown, current, &file, edit, hints).map_err(Misfit::Unplaced)?;
    notes.extend(
        shown.skipped.iter().map(|s| format!("left `{s}` as it is (shown with `...` or a placeholder for a body)")),
    );
    Ok(Concrete::Definitions(placements, notes))
}
