//! From a model's answer to a patch: read its edits (`<file>/<original>/<patched>` blocks, SEARCH/REPLACE blocks,
//! unified diffs or whole files: see [`formats`]), apply each edit to the repository in memory, gate the result's
//! syntax, and diff it.
//!
//! Edits are values: every edit in the answer yields an [`EditReport`] saying where it went (file, matched lines,
//! which indentation guess) or, as an [`EditFailure`], exactly why it did not, in words that can go back to the
//! model. The answer as a whole gets an [`ExtractStatus`] and a reason text.
//!
//! | step | module |
//! |---|---|
//! | edits out of the answer, whatever their format | [`formats`], [`parse`] |
//! | one edit into one file | [`apply`] |
//! | the model's indentation into the file's | `indent` |
//! | the changed files as typed hunks ([`FileDiff`]), and their text | [`diff`] |
//! | the verdict | [`status`] |
//!
//! Files named by `<file>` are found by the one file-name policy of [`crate::paths`] (exact path, then suffix on a
//! `/` boundary, then shorter tails, then ignoring case); when several files fit, each is tried and the first whose
//! text contains the original wins, and the edit's notes name the [`Ambiguity`]. Edits to test files
//! ([`is_test_file`]) are dropped, as current AutoCodeRover does.

pub mod apply;
mod block;
pub mod change_runs;
mod code_change;
mod definition;
pub mod diff;
pub mod edit;
pub mod formats;
mod indent;
pub mod parse;
mod runs;
pub mod status;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

pub use apply::{Applied, ApplyOptions, Candidate, EditFailure, IndentGuess, NearLine, Reading, apply_edit};

pub use block::is_placeholder;
use definition::Unplaced;
pub use diff::{FileDiff, Hunk, Line, file_diff, repo_diff};
pub use edit::{Edit, EditFormat, ParseIssue};
pub use formats::{EditFormatChoice, parse_edits, parse_edits_with_issues};
pub use status::ExtractStatus;

use apply::Gating;

use crate::gate::{Gate, SyntaxCheck};
use crate::language::Language;
use crate::paths::{self, Ambiguity, PathError};
use crate::repo::{Repo, SkipReason, is_test_file, normalize_path};

/// A known bug location: a file and a 1-based line, or the span of the class or function located there. Used to
/// choose among several matches of an original: one inside a location's span wins over any outside it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BugLine {
    /// Repository-relative path.
    pub file: String,
    /// 1-based line (the first line of the located code).
    pub line: u32,
    /// Last line of the located code, when known (a lone line otherwise).
    pub end: Option<u32>,
}

/// Options for [`extract`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtractOptions {
    /// Known bug locations; among several matches of an original, the nearest one is used.
    pub bug_lines: Vec<BugLine>,
    /// Refuse ambiguous originals that no bug line decides (the default) instead of taking the first match (see
    /// [`ApplyOptions::refuse_ambiguous`]).
    pub refuse_ambiguous: bool,
    /// The format the model was asked for, if any: its reader runs first, and the others only when it finds
    /// nothing, on fenced text (see [`formats`]); an answer with no edit is told how to write this format. `None`
    /// (`acr apply`, the package, the component) reads every format as far as it is sure.
    pub asked: Option<EditFormat>,
}

impl Default for ExtractOptions {
    fn default() -> Self {
        ExtractOptions { bug_lines: Vec::new(), refuse_ambiguous: true, asked: None }
    }
}

/// What happened to one edit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "outcome")]
pub enum Outcome {
    /// The edit applied.
    Applied(Applied),
    /// The edit did not apply.
    Failed {
        /// Why.
        failure: FileOrEditFailure,
    },
    /// The edit was left out on purpose.
    Dropped {
        /// Why.
        reason: DropReason,
    },
}

/// Why an edit was left out on purpose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DropReason {
    /// It edits a test file; patches must change the program, not its tests.
    TestFile,
}

/// An edit's failure: its file could not be used, or the edit did not apply to it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum FileOrEditFailure {
    /// No loaded file has this path or name.
    FileNotFound {
        /// Loaded paths with the most similar names (at most three).
        similar: Vec<String>,
    },
    /// The name cannot be a repository path (too long, `..` leaving the root...); it was not compared with any file.
    NotAPath {
        /// Why.
        error: PathError,
    },
    /// The file exists but was not loaded (not UTF-8, binary, too large...).
    FileNotLoaded {
        /// The stored path.
        path: String,
        /// Why it was not loaded.
        reason: SkipReason,
    },
    /// The file was found but the edit did not apply.
    Edit {
        /// The details.
        failure: EditFailure,
    },
}

impl FileOrEditFailure {
    /// The snake_case name of the failure: the file's (`file_not_found`, `not_a_path`, `file_not_loaded`) or the
    /// edit's ([`EditFailure::kind`]: `not_found`, `ambiguous`...).
    pub fn kind(&self) -> &'static str {
        match self {
            FileOrEditFailure::FileNotFound { .. } => "file_not_found",
            FileOrEditFailure::NotAPath { .. } => "not_a_path",
            FileOrEditFailure::FileNotLoaded { .. } => "file_not_loaded",
            FileOrEditFailure::Edit { failure } => failure.kind(),
        }
    }

    /// The places an ambiguous original occurs (empty for any other failure).
    pub fn candidates(&self) -> &[Candidate] {
        match self {
            FileOrEditFailure::Edit {
                failure: EditFailure::Ambiguous { candidates } | EditFailure::AmbiguousDefinition { candidates, .. },
            } => candidates,
            _ => &[],
        }
    }
}

impl std::fmt::Display for FileOrEditFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FileOrEditFailure::FileNotFound { similar } if similar.is_empty() => {
                write!(f, "no file with this path or name exists in the repository")
            }
            FileOrEditFailure::FileNotFound { similar } => write!(
                f,
                "no file with this path or name exists in the repository; did you mean {}?",
                similar.join(", ")
            ),
            FileOrEditFailure::NotAPath { error } => error.fmt(f),
            FileOrEditFailure::FileNotLoaded { path, reason } => {
                write!(f, "{path} cannot be edited: {reason}")
            }
            FileOrEditFailure::Edit { failure } => failure.fmt(f),
        }
    }
}

/// One edit of the answer and what became of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EditReport {
    /// 1-based position in the answer.
    pub index: usize,
    /// The path as the model wrote it.
    pub file: String,
    /// The repository path it was applied to (or tried last), when one was found.
    pub path: Option<String>,
    /// The format the edit was written in.
    pub format: EditFormat,
    /// What happened.
    #[serde(flatten)]
    pub outcome: Outcome,
}

impl EditReport {
    /// A one-line account for people and for the model.
    pub fn message(&self) -> String {
        let path = self.shown_path();
        match &self.outcome {
            Outcome::Applied(a) => {
                let mut m = if self.format == EditFormat::Whole {
                    let verb = if a.changed { "rewrote" } else { "rewrote, changing nothing," };
                    format!("{verb} {path} from the whole file written ({} lines before)", a.end)
                } else if a.changed {
                    format!("applied to {path} lines {}-{}", a.start, a.end)
                } else {
                    format!("matched {path} lines {}-{} but changes nothing", a.start, a.end)
                };
                if a.indent == IndentGuess::FirstLineOnly {
                    m.push_str(" (indentation kept as written after the first line)");
                }
                for n in &a.notes {
                    let _ = write!(m, "; {n}");
                }
                m
            }
            Outcome::Failed { failure } => format!("not applied to {path}: {failure}"),
            Outcome::Dropped { reason: DropReason::TestFile } => {
                format!("dropped: {path} is a test file; change the program, not its tests")
            }
        }
    }
}

impl EditReport {
    /// Why the edit did not apply or was dropped, as a snake_case kind (`ambiguous`, `not_found`, `test_file`...);
    /// `None` when it applied.
    pub fn failure_kind(&self) -> Option<&'static str> {
        match &self.outcome {
            Outcome::Applied(_) => None,
            Outcome::Failed { failure } => Some(failure.kind()),
            Outcome::Dropped { reason: DropReason::TestFile } => Some("test_file"),
        }
    }

    /// The places its original occurs when it was refused as ambiguous (empty otherwise).
    pub fn candidates(&self) -> &[Candidate] {
        match &self.outcome {
            Outcome::Failed { failure } => failure.candidates(),
            _ => &[],
        }
    }

    /// Whether the edit was refused because its original occurs more than once.
    pub fn is_ambiguous(&self) -> bool {
        !self.candidates().is_empty()
    }

    /// The repository path, or the name as written (its start, when long), for messages.
    fn shown_path(&self) -> String {
        self.path.clone().unwrap_or_else(|| paths::preview(&self.file))
    }
}

/// The result of extracting a patch from an answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Extraction {
    /// How far the answer got.
    pub status: ExtractStatus,
    /// What to tell the model (empty when everything applied cleanly).
    pub reason: String,
    /// The unified diff of every changed file, as text (rendered from [`Extraction::changes`]).
    pub diff: String,
    /// Every changed file's hunks, as values.
    pub changes: Vec<FileDiff>,
    /// Every parsed edit, in order.
    pub edits: Vec<EditReport>,
    /// New text of every changed file, by path.
    #[serde(skip)]
    pub files: BTreeMap<String, String>,
    /// Problems with incomplete blocks (reported when nothing parsed).
    pub parse_issues: Vec<ParseIssue>,
    /// The formats the answer's edits were written in, each once, in the order they first appear.
    pub formats: Vec<EditFormat>,
}

impl Extraction {
    /// Whether the patch changes code that runs: `false` when every file it changes is of a known language and
    /// differs from the repository's only in comments, docstrings and layout (their syntax trees are the same once
    /// comments and bare string statements are left out). A file of no language always counts as a change.
    pub fn changes_code(&self, repo: &Repo) -> bool {
        self.files.iter().any(|(path, new)| match (Language::of_path(path), repo.file(path)) {
            (Some(language), Some(old)) => !code_change::same_code(language, old, new),
            _ => true,
        })
    }

    /// The edits refused because their original occurs more than once, with the places
    /// ([`EditReport::candidates`]). An applicable patch with such an edit is only part of what the model wrote.
    pub fn ambiguous_edits(&self) -> impl Iterator<Item = &EditReport> {
        self.edits.iter().filter(|e| e.is_ambiguous())
    }

    /// Whether the patch applies but an edit of it was refused as ambiguous: a partial patch, worth asking again.
    pub fn is_partial_for_ambiguity(&self) -> bool {
        self.status.is_applicable() && self.ambiguous_edits().next().is_some()
    }

    /// The ambiguous edits, one line each: `Edit 2 (m.py): line 3 in `A.f`; lines 7-8 in `A.g``.
    pub fn ambiguity_list(&self) -> String {
        let mut s = String::new();
        for e in self.ambiguous_edits() {
            let places: Vec<String> = e.candidates().iter().take(20).map(ToString::to_string).collect();
            let more = e.candidates().len().saturating_sub(20);
            let _ = write!(s, "- edit {} ({}): {}", e.index, e.shown_path(), places.join("; "));
            if more > 0 {
                let _ = write!(s, "; and {more} more");
            }
            s.push('\n');
        }
        s
    }
}

/// Extracts a patch from `answer` against `repo`.
pub fn extract(repo: &Repo, answer: &str, options: &ExtractOptions) -> Extraction {
    extract_with_gate(repo, answer, options, &mut Gate::new())
}

/// [`extract`] with a caller's gate (reuse one across many answers).
pub fn extract_with_gate(repo: &Repo, answer: &str, options: &ExtractOptions, gate: &mut Gate) -> Extraction {
    let formats::Read { edits, issues: parse_issues } = formats::read(answer, options.asked);
    if edits.is_empty() {
        let (status, reason) = if answer.trim().is_empty() {
            (ExtractStatus::NoPatch, "The answer is empty.".to_string())
        } else {
            (ExtractStatus::RawPatchButUnparsed, unparsed_reason(&parse_issues, options.asked))
        };
        return Extraction {
            status,
            reason,
            diff: String::new(),
            changes: Vec::new(),
            edits: Vec::new(),
            files: BTreeMap::new(),
            parse_issues,
            formats: Vec::new(),
        };
    }
    let mut extraction = extract_edits(repo, &edits, options, gate);
    extraction.parse_issues = parse_issues;
    extraction
}

/// Applies already-parsed edits, in order, to `repo` (in memory) and gives the verdict. `edits` must not be
/// empty for a meaningful status (an empty list reads as "every edit failed").
///
/// Each edit is gated on its own first. When one breaks the syntax on its own, its file is tried once more with
/// every edit of the answer that touches it and gated once at the end (an edit that opens a `try` and a later one
/// that adds its `except`); when the combined file fails too, the per-edit results stand.
pub fn extract_edits(repo: &Repo, edits: &[Edit], options: &ExtractOptions, gate: &mut Gate) -> Extraction {
    let (mut reports, mut working) = apply_all(repo, edits, options, gate, Gating::EachEdit);
    let broken: std::collections::BTreeSet<String> = reports
        .iter()
        .filter(|r| {
            matches!(
                &r.outcome,
                Outcome::Failed { failure: FileOrEditFailure::Edit { failure: EditFailure::BreaksSyntax { .. } } }
            )
        })
        .filter_map(|r| r.path.clone())
        .collect();
    if !broken.is_empty() {
        let (together, combined) = apply_all(repo, edits, options, gate, Gating::Deferred);
        for path in broken {
            let (Some(new), Some(old)) = (combined.get(&path), repo.file(&path)) else {
                continue;
            };
            gate.set_syntax(syntax_of(&path));
            let passes = match gate.check(new) {
                Ok(()) => true,
                Err(p) => gate.check(old).err() == Some(p),
            };
            if !passes {
                continue;
            }
            for (mine, theirs) in reports.iter_mut().zip(&together) {
                if theirs.path.as_deref() == Some(path.as_str()) || mine.path.as_deref() == Some(path.as_str()) {
                    *mine = theirs.clone();
                }
            }
            working.insert(path, new.clone());
        }
    }
    let mut files = BTreeMap::new();
    let mut changes = Vec::new();
    for (path, text) in working {
        if let Some(change) = FileDiff::between(&path, repo.file(&path).unwrap_or(""), &text) {
            changes.push(change);
            files.insert(path, text);
        }
    }
    let diff = diff::render(&changes);
    let (status, reason) = verdict(&reports, changes.is_empty());
    let formats = formats::formats_of(edits);
    Extraction { status, reason, diff, changes, edits: reports, files, parse_issues: Vec::new(), formats }
}

fn unparsed_reason(issues: &[ParseIssue], asked: Option<EditFormat>) -> String {
    let mut r = String::from("No edit could be read from the answer");
    if issues.is_empty() {
        r.push_str(match asked {
            Some(EditFormat::Acr) => ": it has no <file>, <original> and <patched> blocks",
            Some(EditFormat::SearchReplace) => ": it has no SEARCH/REPLACE blocks after a file path",
            Some(EditFormat::Udiff) => ": it has no diff hunks in a fence or after `---`/`+++` file lines",
            Some(EditFormat::Definition) => ": it has no function, method or class in a fence",
            Some(EditFormat::Whole) => ": it has no fenced file after its path",
            None => {
                ": it has no edit in any format (tags, SEARCH/REPLACE blocks, a diff, definitions or a file in a fence)"
            }
        });
    } else {
        let list: Vec<String> = issues.iter().map(ToString::to_string).collect();
        let _ = write!(r, ": {}", list.join("; "));
    }
    r.push_str(". ");
    r.push_str(formats::reminder(asked.unwrap_or_default()));
    r
}

/// The syntax check for a file: its language's, or none for a file of no language (a configuration, a requirements
/// list, documentation), which is applied unchecked as AutoCodeRover does.
fn syntax_of(path: &str) -> SyntaxCheck {
    Language::of_path(path).map_or(SyntaxCheck::Unchecked, |l| l.row().syntax)
}

fn verdict(reports: &[EditReport], diff_empty: bool) -> (ExtractStatus, String) {
    let considered: Vec<&EditReport> =
        reports.iter().filter(|r| !matches!(r.outcome, Outcome::Dropped { .. })).collect();
    let failed_lines = |only_failed: bool| -> String {
        let mut s = String::new();
        for r in reports {
            if only_failed && matches!(r.outcome, Outcome::Applied(_)) {
                continue;
            }
            let path = r.shown_path();
            let text = match &r.outcome {
                Outcome::Failed { failure } => failure.to_string(),
                _ => r.message(),
            };
            let _ = write!(s, "\nEdit {} ({path}): {text}.", r.index);
        }
        s
    };
    if considered.is_empty() {
        return (
            ExtractStatus::RawPatchButUnmatched,
            format!("Every edit targets a test file; edit the program instead.{}", failed_lines(true)),
        );
    }
    let empty_origin: Vec<String> = considered
        .iter()
        .filter(|r| {
            matches!(
                &r.outcome,
                Outcome::Failed { failure: FileOrEditFailure::Edit { failure: EditFailure::EmptyOriginal } }
            )
        })
        .map(|r| r.index.to_string())
        .collect();
    let applied = considered.iter().filter(|r| matches!(r.outcome, Outcome::Applied(_))).count();
    if applied == 0 && empty_origin.is_empty() {
        return (
            ExtractStatus::RawPatchButUnmatched,
            format!("None of the edits could be applied.{}", failed_lines(true)),
        );
    }
    if !empty_origin.is_empty() {
        return (
            ExtractStatus::MatchedButEmptyOrigin,
            format!(
                "Edit(s) {} have an empty <original>: copy the exact, non-blank lines to replace into it.{}",
                empty_origin.join(", "),
                failed_lines(true)
            ),
        );
    }
    if diff_empty {
        return (
            ExtractStatus::MatchedButEmptyDiff,
            format!("The edits do not change the program.{}", failed_lines(false)),
        );
    }
    let skipped = considered.len() - applied;
    let reason = if skipped == 0 {
        String::new()
    } else {
        format!("{skipped} of the edits could not be applied.{}", failed_lines(true))
    };
    (ExtractStatus::ApplicablePatch, reason)
}

/// Every edit in order against the working copies of the files: the reports and the new texts.
fn apply_all(
    repo: &Repo,
    edits: &[Edit],
    options: &ExtractOptions,
    gate: &mut Gate,
    gating: Gating,
) -> (Vec<EditReport>, BTreeMap<String, String>) {
    let mut working: BTreeMap<String, String> = BTreeMap::new();
    let reports = edits.iter().map(|edit| apply_one(repo, edit, options, gate, gating, &mut working)).collect();
    (reports, working)
}

fn apply_one(
    repo: &Repo,
    edit: &Edit,
    options: &ExtractOptions,
    gate: &mut Gate,
    gating: Gating,
    working: &mut BTreeMap<String, String>,
) -> EditReport {
    let report = |path: Option<String>, outcome| EditReport {
        index: edit.index,
        file: edit.file.clone(),
        path,
        format: edit.format,
        outcome,
    };
    let dropped = Outcome::Dropped { reason: DropReason::TestFile };
    let tag = normalize_path(edit.file.trim_start_matches('/')).unwrap_or_default();
    if !tag.is_empty() && is_test_file(&tag) {
        return report(None, dropped);
    }
    let code_block = matches!(edit.format, EditFormat::Whole | EditFormat::Definition);
    // Set when a code block's path names no file and its definitions' names placed it instead.
    let mut placed_by_name = None;
    let candidates = if code_block && edit.file.trim().is_empty() {
        match definition_files(repo, edit, options, working) {
            Ok(files) => files,
            Err(failure) => return report(None, Outcome::Failed { failure: FileOrEditFailure::Edit { failure } }),
        }
    } else {
        match resolve(repo, &edit.file) {
            Resolved::Files(c) => c,
            Resolved::NotLoaded(path, reason) => {
                return report(
                    Some(path.clone()),
                    Outcome::Failed { failure: FileOrEditFailure::FileNotLoaded { path, reason } },
                );
            }
            Resolved::Refused(error) => {
                return report(None, Outcome::Failed { failure: FileOrEditFailure::NotAPath { error } });
            }
            // A code block under a path that names no file (small models copy the prompt's `path/to/file.py`) is
            // placed as one shown without a path: by the bug locations, else by a name only one file defines.
            // When the code itself cannot be placed (it does not parse: Qwen2.5-Coder-1.5B wrote an `elif` with no
            // `if` under `path/to/file.py`, three times over, told only that no such file exists), that is said.
            Resolved::Missing(similar) => match code_block.then(|| definition_files(repo, edit, options, working)) {
                Some(Ok(files)) => {
                    placed_by_name =
                        Some(format!("no file is named `{}`; placed by the names it defines", edit.file.trim()));
                    files
                }
                Some(Err(failure @ EditFailure::NotAUnit { .. })) => {
                    return report(None, Outcome::Failed { failure: FileOrEditFailure::Edit { failure } });
                }
                _ => return report(None, Outcome::Failed { failure: FileOrEditFailure::FileNotFound { similar } }),
            },
        }
    };
    let (sources, tests): (Vec<String>, Vec<String>) = candidates.into_iter().partition(|p| !is_test_file(p));
    if sources.is_empty() {
        return report(tests.into_iter().next(), dropped);
    }
    let mut first_failure: Option<(String, EditFailure)> = None;
    for path in &sources {
        let text = working.get(path).map(String::as_str).or_else(|| repo.file(path)).unwrap_or("");
        let apply_options = ApplyOptions {
            hints: options
                .bug_lines
                .iter()
                .filter(|b| &b.file == path)
                .map(|b| (b.line, b.end.unwrap_or(b.line)))
                .collect(),
            refuse_ambiguous: options.refuse_ambiguous,
        };
        gate.set_syntax(syntax_of(path));
        let result = if code_block {
            apply_code(path, text, edit, &apply_options, options.asked, gate, gating)
        } else {
            apply::apply_gated(text, edit, &apply_options, gate, gating)
        };
        match result {
            Ok(mut applied) => {
                applied.notes.extend(placed_by_name.clone());
                if sources.len() > 1 && !(code_block && (edit.file.trim().is_empty() || placed_by_name.is_some())) {
                    let ambiguity = Ambiguity { name: edit.file.trim().to_string(), candidates: sources.clone() };
                    applied.notes.push(format!("{ambiguity}; used {path}, the first that contains the original"));
                }
                if syntax_of(path) == SyntaxCheck::Unchecked && applied.changed {
                    applied.notes.push("not checked for syntax: the file is of no language the gate knows".into());
                }
                let text = std::mem::take(&mut applied.text);
                working.insert(path.clone(), text);
                return report(Some(path.clone()), Outcome::Applied(applied));
            }
            Err(failure) => {
                let replace = match &first_failure {
                    None => true,
                    Some((_, EditFailure::NotFound { .. } | EditFailure::NoDefinition { .. })) => {
                        !matches!(failure, EditFailure::NotFound { .. } | EditFailure::NoDefinition { .. })
                    }
                    Some(_) => false,
                };
                if replace {
                    first_failure = Some((path.clone(), failure));
                }
            }
        }
    }
    match first_failure {
        Some((path, mut failure)) => {
            if let EditFailure::Ambiguous { candidates } = &mut failure {
                let text = working.get(&path).map(String::as_str).or_else(|| repo.file(&path)).unwrap_or("");
                name_enclosing(&path, text, candidates);
            }
            report(Some(path), Outcome::Failed { failure: FileOrEditFailure::Edit { failure } })
        }
        None => report(None, Outcome::Failed { failure: FileOrEditFailure::FileNotFound { similar: Vec::new() } }),
    }
}

/// A code block (a whole file or definitions) applied to the file `path` whose text is `text`: each definition
/// placed by [`formats::code::concrete`] goes through the matcher and the gate like any edit, bottom up; the block
/// applies whole or not at all.
fn apply_code(
    path: &str,
    text: &str,
    edit: &Edit,
    options: &ApplyOptions,
    asked: Option<EditFormat>,
    gate: &mut Gate,
    gating: Gating,
) -> Result<Applied, EditFailure> {
    use formats::code::{Concrete, Misfit};
    let (placements, left_alone) = match formats::code::concrete(path, text, edit, &options.hints, asked) {
        Ok(Concrete::Whole(whole)) => {
            let refused = match apply::apply_gated(text, &whole, options, gate, gating) {
                Ok(applied) => return Ok(applied),
                Err(refused) => refused,
            };
            // Passing for the whole file is a guess from its ends and length: a block of definitions followed by the
            // file's own text cut short passes too, and only the gate tells. Read as definitions, it may apply.
            let Ok(Concrete::Definitions(placements, mut left_alone)) =
                formats::code::as_definitions(path, text, edit, &options.hints)
            else {
                return Err(refused);
            };
            left_alone
                .insert(0, format!("read as whole definitions: as the whole file, the gate refused it ({refused})"));
            return place_definitions(text, edit, placements, left_alone, options, gate, gating).map_err(|_| refused);
        }
        Ok(Concrete::Definitions(placements, left_alone)) => (placements, left_alone),
        Err(Misfit::CutShort(reason)) => return Err(EditFailure::CutShort { reason }),
        Err(Misfit::NotAUnit(reason) | Misfit::LeavesOut(reason)) => return Err(EditFailure::NotAUnit { reason }),
        Err(Misfit::Unplaced(Unplaced::Ambiguous(name, places))) => {
            let candidates = places
                .into_iter()
                .map(|p| Candidate { line: p.start, end_line: p.end, enclosing: Some(p.name) })
                .collect();
            return Err(EditFailure::AmbiguousDefinition { name, candidates });
        }
        Err(Misfit::Unplaced(Unplaced::Missing { name, similar })) => {
            return Err(EditFailure::NoDefinition { name, similar });
        }
        Err(Misfit::Unplaced(Unplaced::Outside(reason))) => return Err(EditFailure::NotAUnit { reason }),
        Err(Misfit::Unplaced(Unplaced::NothingToChange(skipped))) => {
            let reason = format!(
                "every definition shown (`{}`) has only `...` or a placeholder comment for a body, so nothing changes",
                skipped.join("`, `")
            );
            return Err(EditFailure::NotAUnit { reason });
        }
    };
    place_definitions(text, edit, placements, left_alone, options, gate, gating)
}

/// Puts each placed definition of a code block in place, bottom up, through the matcher and the gate; the block
/// applies whole or not at all. `left_alone` are notes on what the block shows and leaves as it is.
fn place_definitions(
    text: &str,
    edit: &Edit,
    placements: Vec<definition::Placement>,
    left_alone: Vec<String>,
    options: &ApplyOptions,
    gate: &mut Gate,
    gating: Gating,
) -> Result<Applied, EditFailure> {
    let mut current = text.to_string();
    let mut notes = Vec::new();
    let (mut start, mut end) = (u32::MAX, 0);
    for placement in placements {
        let applied = apply::apply_gated(&current, &placement.edit, options, gate, gating)?;
        (start, end) = (start.min(applied.start), end.max(applied.end));
        notes.push(placement.note);
        notes.extend(applied.notes);
        current = applied.text;
    }
    notes.extend(left_alone);
    Ok(Applied {
        reading: if edit.had_line_numbers { Reading::LineNumbers } else { Reading::AsWritten },
        changed: current != text,
        text: current,
        start,
        end,
        indent: IndentGuess::Relative,
        occurrences: vec![start],
        notes,
    })
}

/// The files a code block shown without a path may be for: the bug locations' files first, then every other
/// source file that defines a name it shows. Several files that define it, and no bug location among them, make it
/// ambiguous.
fn definition_files(
    repo: &Repo,
    edit: &Edit,
    options: &ExtractOptions,
    working: &BTreeMap<String, String>,
) -> Result<Vec<String>, EditFailure> {
    let unplaceable = |why: &str| EditFailure::NotAUnit {
        reason: format!(
            "code shown without a file of the repository must be whole functions, methods or classes, to be placed \
             by their names, and {why}"
        ),
    };
    let names = definition::shown_names(&edit.patched).map_err(|why| unplaceable(&why))?;
    let Some(first) = names.first() else { return Err(unplaceable("it holds no definition")) };
    let text_of = |p: &str| working.get(p).map(String::as_str).or_else(|| repo.file(p)).unwrap_or("");
    // A look at the text first (cheap for every file of a large repository), the parse only where it may.
    let places = |p: &str| {
        let Some(language) = Language::of_path(p) else { return Vec::new() };
        let text = text_of(p);
        if !definition::may_define(language, text, first) {
            return Vec::new();
        }
        definition::places_of(language, text, first)
    };
    let mut located: Vec<String> = Vec::new();
    for b in &options.bug_lines {
        if !located.contains(&b.file) && repo.file(&b.file).is_some() && !places(&b.file).is_empty() {
            located.push(b.file.clone());
        }
    }
    if !located.is_empty() {
        return Ok(located);
    }
    let defining: Vec<(String, Vec<definition::Place>)> = repo
        .files()
        .map(|(p, _)| p)
        .filter(|p| !is_test_file(p))
        .map(|p| (p.to_string(), places(p)))
        .filter(|(_, places)| !places.is_empty())
        .collect();
    match defining.len() {
        0 => Err(EditFailure::NoDefinition { name: first.clone(), similar: Vec::new() }),
        1 => Ok(defining.into_iter().map(|(p, _)| p).collect()),
        _ => Err(EditFailure::AmbiguousDefinition {
            name: first.clone(),
            candidates: defining
                .iter()
                .flat_map(|(p, places)| {
                    places.iter().map(move |place| Candidate {
                        line: place.start,
                        end_line: place.end,
                        enclosing: Some(format!("{}, {p}", place.name)),
                    })
                })
                .collect(),
        }),
    }
}

/// Names the innermost definition around each candidate not named yet (`Class.method`, `function`, `Class`) from
/// one parse of the file (only files with an ambiguous edit are parsed, so this stays cheap).
fn name_enclosing(path: &str, text: &str, candidates: &mut [Candidate]) {
    if candidates.iter().all(|c| c.enclosing.is_some()) {
        return;
    }
    let parsed = crate::index::IndexBuilder::new().parse(path, text);
    for c in candidates.iter_mut().filter(|c| c.enclosing.is_none()) {
        c.enclosing = parsed
            .entry
            .defs
            .iter()
            .filter(|d| d.start <= c.line && c.line <= d.end)
            .min_by_key(|d| d.end - d.start)
            .map(|d| match &d.class {
                Some(class) if d.kind != crate::index::DefKind::Class || class != &d.name => {
                    format!("{class}.{}", d.name)
                }
                _ => d.name.to_string(),
            });
    }
}

/// Where a `<file>` path leads.
enum Resolved {
    /// Loaded files that fit, in repository order.
    Files(Vec<String>),
    /// The file exists but was skipped at load time.
    NotLoaded(String, SkipReason),
    /// The name cannot be a path.
    Refused(PathError),
    /// Nothing fits; the most similar loaded paths.
    Missing(Vec<String>),
}

/// The files `raw` names by the [`crate::paths`] policy: loaded files first, then files skipped at load time.
fn resolve(repo: &Repo, raw: &str) -> Resolved {
    let loaded: Vec<&str> = repo.files().map(|(p, _)| p).collect();
    match paths::find(&loaded, raw) {
        Ok(m) => return Resolved::Files(m.positions.iter().map(|&i| loaded[i].to_string()).collect()),
        Err(e @ PathError::NotAPath { .. }) => return Resolved::Refused(e),
        Err(PathError::NoMatch { .. }) => {}
    }
    let skipped: Vec<&str> = repo.skipped().iter().map(|s| s.path.as_str()).collect();
    if let Some(s) = paths::find(&skipped, raw).ok().and_then(|m| repo.skipped().get(m.positions[0])) {
        return Resolved::NotLoaded(s.path.clone(), s.reason.clone());
    }
    Resolved::Missing(paths::similar_paths(&loaded, raw))
}
