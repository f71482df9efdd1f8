//! An edit as a value, whatever format the model wrote it in: the file, the code to find, its replacement, and what
//! the answer said of where it goes; and why a block of an answer did not become one.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A way of writing edits.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EditFormat {
    /// AutoCodeRover's `<file>/<original>/<patched>` blocks.
    #[default]
    Acr,
    /// Aider's SEARCH/REPLACE blocks.
    SearchReplace,
    /// Unified diff hunks.
    Udiff,
    /// Whole definitions (functions, methods, classes) in a fence, each replacing the one it names.
    Definition,
    /// The whole new file after its path.
    Whole,
}

impl EditFormat {
    /// Every format, in the order the readers run when none was asked for.
    pub const ALL: [EditFormat; 5] =
        [EditFormat::Acr, EditFormat::SearchReplace, EditFormat::Udiff, EditFormat::Definition, EditFormat::Whole];

    /// The name used on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            EditFormat::Acr => "acr",
            EditFormat::SearchReplace => "search-replace",
            EditFormat::Udiff => "udiff",
            EditFormat::Definition => "definition",
            EditFormat::Whole => "whole",
        }
    }
}

impl fmt::Display for EditFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for EditFormat {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        EditFormat::ALL.into_iter().find(|f| f.name() == s).ok_or_else(|| {
            let names: Vec<&str> = EditFormat::ALL.iter().map(|f| f.name()).collect();
            format!("unknown edit format `{s}` (expected one of {})", names.join(", "))
        })
    }
}

/// One requested change: replace `original` with `patched` in `file`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Edit {
    /// 1-based position of the edit in the answer.
    pub index: usize,
    /// The path as the model wrote it (trimmed).
    pub file: String,
    /// The code to find, newline-separated, without the blank lines at its ends that `patched` has too.
    pub original: String,
    /// The replacement code, newline-separated, without the blank lines at its ends that `original` has too.
    pub patched: String,
    /// Whether `original` or `patched` seems to carry line-number prefixes on every line (counting up by one);
    /// applying removes them when the original is not found as written.
    pub had_line_numbers: bool,
    /// The format the edit was written in. A code block's edit ([`EditFormat::Whole`] or
    /// [`EditFormat::Definition`], as it looked when read) has the code as `patched`, an empty `original` and
    /// perhaps an empty `file` (a definition shown without a path): what it replaces is found once the file is known
    /// (see [`super::formats::code`]).
    pub format: EditFormat,
    /// Where the answer says the original starts (1-based, in the file as the answer's earlier edits leave it):
    /// a unified diff's hunk header. Among places the original matches equally, the one that starts exactly there
    /// is taken; it does nothing more (a place elsewhere that matches is taken, a number that is off decides nothing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

impl Edit {
    /// An edit in AutoCodeRover's format, numbered `index`, with no line number.
    pub fn new(index: usize, file: impl Into<String>, original: impl Into<String>, patched: impl Into<String>) -> Edit {
        Edit {
            index,
            file: file.into(),
            original: original.into(),
            patched: patched.into(),
            had_line_numbers: false,
            format: EditFormat::Acr,
            line: None,
        }
    }
}

/// Why a tagged block did not become an edit (reported when no edit at all could be parsed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum ParseIssue {
    /// An opening tag has no closing tag.
    Unclosed {
        /// The tag name, e.g. `original`.
        tag: String,
    },
    /// A `<patched>` block came without an `<original>` before it.
    PatchedWithoutOriginal,
    /// An `<original>`/`<patched>` pair came before any `<file>` block.
    NoFile,
    /// An `<original>` block was not followed by a `<patched>` block.
    OriginalWithoutPatched,
    /// A SEARCH/REPLACE block, a diff hunk or a whole file is incomplete or names no file.
    Format {
        /// The format it was written in.
        format: EditFormat,
        /// What is wrong, in words for the model.
        problem: String,
    },
}

impl std::fmt::Display for ParseIssue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParseIssue::Unclosed { tag } => write!(f, "<{tag}> is never closed with </{tag}>"),
            ParseIssue::PatchedWithoutOriginal => {
                write!(f, "a <patched> block has no <original> block before it")
            }
            ParseIssue::NoFile => write!(f, "an edit has no <file> block before it"),
            ParseIssue::OriginalWithoutPatched => {
                write!(f, "an <original> block has no <patched> block after it")
            }
            ParseIssue::Format { format: _, problem } => f.write_str(problem),
        }
    }
}

/// At most this many parse issues are kept (they are reported to the model, and an answer of 12 MB of unclosed tags
/// would otherwise hold millions).
const MAX_ISSUES: usize = 20;

/// Keeps `issue` unless [`MAX_ISSUES`] are kept already.
pub(crate) fn note(issues: &mut Vec<ParseIssue>, issue: ParseIssue) {
    if issues.len() < MAX_ISSUES {
        issues.push(issue);
    }
}
