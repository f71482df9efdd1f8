//! Core values as WIT values where several interfaces need them, and WIT's `u32`/`u64` from the core's sizes.

use acr_core::repo::{PathProblem, SkipReason, SkippedFile};

use crate::bindings::exports::acr::core::types;

/// A count or line as WIT's `u32`, saturating (sizes past 4 billion do not occur in a repository held in memory).
pub fn u32_of(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A skip reason as the WIT variant.
pub fn skip_reason(r: &SkipReason) -> types::SkipReason {
    match r {
        SkipReason::Binary => types::SkipReason::Binary,
        SkipReason::NotUtf8 => types::SkipReason::NotUtf8,
        SkipReason::TooLarge { bytes, limit } => {
            types::SkipReason::TooLarge(types::SizeLimit { bytes: *bytes, limit: *limit })
        }
        SkipReason::UnsafePath { problem } => types::SkipReason::UnsafePath(path_problem(*problem)),
        SkipReason::Duplicate => types::SkipReason::Duplicate,
        SkipReason::Symlink => types::SkipReason::Symlink,
        SkipReason::SpecialFile { what } => types::SkipReason::SpecialFile(what.clone()),
        SkipReason::BudgetExhausted => types::SkipReason::BudgetExhausted,
        SkipReason::Unreadable { message } => types::SkipReason::Unreadable(message.clone()),
    }
}

/// A path problem as the WIT enum.
fn path_problem(p: PathProblem) -> types::PathProblem {
    match p {
        PathProblem::Empty => types::PathProblem::Empty,
        PathProblem::Absolute => types::PathProblem::Absolute,
        PathProblem::ParentDir => types::PathProblem::ParentDir,
        PathProblem::Backslash => types::PathProblem::Backslash,
        PathProblem::ControlCharacter => types::PathProblem::ControlCharacter,
        PathProblem::TooLong => types::PathProblem::TooLong,
        PathProblem::NotUtf8 => types::PathProblem::NotUtf8,
    }
}

/// A skipped file as the WIT record, with the reason in words.
pub fn skipped_file(s: &SkippedFile) -> types::SkippedFile {
    types::SkippedFile { path: s.path.clone(), reason: skip_reason(&s.reason), message: s.reason.to_string() }
}
