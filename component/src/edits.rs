//! The `edits` interface: a model's answer, in any edit format, applied with the core's [`patch::extract`] (in memory; the repository
//! is not changed), and the syntax gate.

use acr_core::gate::{self, ProblemKind as CoreProblemKind, SyntaxProblem as CoreProblem};
use acr_core::patch::{
    self, DropReason, EditFailure as CoreFailure, EditFormat as CoreFormat, EditReport as CoreReport, ExtractOptions,
    ExtractStatus as CoreStatus, FileOrEditFailure, IndentGuess as CoreIndent, Outcome as CoreOutcome,
};

use crate::Component;
use crate::bindings::exports::acr::core::edits::{
    AppliedEdit, ChangedFile, EditCandidate, EditFailure, EditFormat, EditOutcome, EditReport, ExtractStatus,
    Extraction, Guest, IndentGuess, MissingDefinition, NearLine, NotFound, PlaceholderCounts, ProblemKind, RepoBorrow,
    SyntaxProblem,
};
use crate::convert::{self, u32_of};
use crate::repository::RepoResource;

fn status(s: CoreStatus) -> ExtractStatus {
    match s {
        CoreStatus::NoPatch => ExtractStatus::NoPatch,
        CoreStatus::RawPatchButUnparsed => ExtractStatus::RawPatchButUnparsed,
        CoreStatus::RawPatchButUnmatched => ExtractStatus::RawPatchButUnmatched,
        CoreStatus::MatchedButEmptyOrigin => ExtractStatus::MatchedButEmptyOrigin,
        CoreStatus::MatchedButEmptyDiff => ExtractStatus::MatchedButEmptyDiff,
        CoreStatus::ApplicablePatch => ExtractStatus::ApplicablePatch,
    }
}

fn format(f: CoreFormat) -> EditFormat {
    match f {
        CoreFormat::Acr => EditFormat::Acr,
        CoreFormat::SearchReplace => EditFormat::SearchReplace,
        CoreFormat::Udiff => EditFormat::Udiff,
        CoreFormat::Definition => EditFormat::Definition,
        CoreFormat::Whole => EditFormat::Whole,
    }
}

fn problem(p: &CoreProblem) -> SyntaxProblem {
    let kind = match p.kind {
        CoreProblemKind::Syntax => ProblemKind::Syntax,
        CoreProblemKind::Indentation => ProblemKind::Indentation,
        CoreProblemKind::Tab => ProblemKind::Tab,
        CoreProblemKind::Compile => ProblemKind::Compile,
        CoreProblemKind::Encoding => ProblemKind::Encoding,
        CoreProblemKind::TooComplex => ProblemKind::TooComplex,
    };
    SyntaxProblem { line: p.line, column: p.column, kind, message: p.to_string() }
}

fn failure(f: &FileOrEditFailure) -> EditFailure {
    match f {
        FileOrEditFailure::FileNotFound { similar } => EditFailure::FileNotFound(similar.clone()),
        FileOrEditFailure::NotAPath { error } => EditFailure::NotAPath(error.to_string()),
        FileOrEditFailure::FileNotLoaded { reason, .. } => EditFailure::FileNotLoaded(convert::skip_reason(reason)),
        FileOrEditFailure::Edit { failure } => match failure {
            CoreFailure::EmptyOriginal => EditFailure::EmptyOriginal,
            CoreFailure::NotFound { matched_lines, nearest, wanted } => EditFailure::OriginalNotFound(NotFound {
                matched_lines: u32_of(*matched_lines),
                wanted: wanted.clone(),
                nearest: nearest.iter().map(|n| NearLine { line: n.line, text: n.text.clone() }).collect(),
            }),
            CoreFailure::Ambiguous { candidates } | CoreFailure::AmbiguousDefinition { candidates, .. } => {
                EditFailure::Ambiguous(
                    candidates
                        .iter()
                        .map(|c| EditCandidate { line: c.line, end_line: c.end_line, enclosing: c.enclosing.clone() })
                        .collect(),
                )
            }
            CoreFailure::PlaceholderMismatch { original, patched } => {
                EditFailure::PlaceholderMismatch(PlaceholderCounts {
                    original: u32_of(*original),
                    patched: u32_of(*patched),
                })
            }
            CoreFailure::BreaksSyntax { relative, .. } => EditFailure::BreaksSyntax(problem(relative)),
            CoreFailure::CutShort { reason } => EditFailure::CutShort(reason.clone()),
            CoreFailure::NotAUnit { reason } => EditFailure::NotAUnit(reason.clone()),
            CoreFailure::NoDefinition { name, similar } => {
                EditFailure::NoDefinition(MissingDefinition { name: name.clone(), similar: similar.clone() })
            }
        },
    }
}

fn report(r: &CoreReport) -> EditReport {
    let outcome = match &r.outcome {
        CoreOutcome::Applied(a) => EditOutcome::Applied(AppliedEdit {
            start: a.start,
            end: a.end,
            changed: a.changed,
            indent: match a.indent {
                CoreIndent::Relative => IndentGuess::Relative,
                CoreIndent::FirstLineOnly => IndentGuess::FirstLineOnly,
                CoreIndent::Deletion => IndentGuess::Deletion,
            },
            occurrences: a.occurrences.clone(),
            notes: a.notes.clone(),
        }),
        CoreOutcome::Failed { failure: f } => EditOutcome::Failed(failure(f)),
        CoreOutcome::Dropped { reason: DropReason::TestFile } => EditOutcome::DroppedTestFile,
    };
    EditReport {
        index: u32_of(r.index),
        file: r.file.clone(),
        path: r.path.clone(),
        format: format(r.format),
        outcome,
        message: r.message(),
    }
}

impl Guest for Component {
    fn apply(repo: RepoBorrow<'_>, answer: String) -> Extraction {
        let x = patch::extract(&repo.get::<RepoResource>().repo(), &answer, &ExtractOptions::default());
        Extraction {
            status: status(x.status),
            reason: x.reason,
            diff: x.diff,
            formats: x.formats.iter().map(|&f| format(f)).collect(),
            edits: x.edits.iter().map(report).collect(),
            files: x.files.into_iter().map(|(path, text)| ChangedFile { path, text }).collect(),
        }
    }

    fn check_syntax(source: String) -> Result<(), SyntaxProblem> {
        gate::check(&source).map_err(|p| problem(&p))
    }
}
