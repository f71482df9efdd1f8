//! Applying one [`Edit`] to one file's text.
//!
//! Matching compares the `<original>` with the file line by line, each line's surrounding whitespace ignored
//! (AutoCodeRover's rule), and writes the file's own lines everywhere outside the replaced range. Where the
//! original occurs more than once the choice is stated: the occurrence nearest a known bug line when there is one,
//! otherwise a refusal that lists the candidate lines (or the first, when [`ApplyOptions::refuse_ambiguous`] is
//! turned off).
//!
//! A placeholder line in the original (see [`is_placeholder`]) stands for lines left out: the parts around it are
//! matched in order with any number of file lines between them, and each placeholder in the patched text is
//! replaced by the file lines its partner in the original skipped. Placeholders in a patched text whose original
//! has none are dropped.
//!
//! The replacement is re-indented in the two ways AutoCodeRover tries, in order, keeping the first that passes the
//! syntax [`Gate`]:
//!
//! 1. [`IndentGuess::Relative`]: the whole block moves by the difference between the original's first line as
//!    written and the file line it matched (the model got relative indentation right);
//! 2. [`IndentGuess::FirstLineOnly`]: only the first line moves; the others keep the indentation as written (the
//!    model got absolute indentation right from the second line on).
//!
//! Unlike ACR's, the shift uses the file's own indentation characters (see the `indent` module: an exact copy is
//! written exactly, tabs written into a space-indented file become its spaces), blank lines are not padded with
//! spaces, a line is never cut into its code when the model over-indents, line endings follow the file (CRLF
//! stays CRLF) and a missing final newline stays missing. When the file already fails the gate before the edit,
//! a candidate passes if it adds no new problem ([`Gate::check_edit`]).

use std::fmt;

use serde::Serialize;

use super::block::{is_placeholder, without_line_numbers};
use super::edit::Edit;
use super::indent::{Indenter, leading_ws};
use super::runs;
use crate::gate::{Gate, SyntaxProblem, TextEdit};

/// Choices that steer matching.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApplyOptions {
    /// Known bug locations in this file, as 1-based inclusive line spans (first, last): among several matches, one
    /// inside a span wins over any outside, and among those outside, the nearest.
    pub hints: Vec<(u32, u32)>,
    /// Refuse (with [`EditFailure::Ambiguous`], listing the candidate lines) when the original occurs more than once
    /// and no hint decides; `true` by default. `false` takes the first match, which lands in the wrong place about
    /// one time in three.
    pub refuse_ambiguous: bool,
}

impl Default for ApplyOptions {
    fn default() -> Self {
        ApplyOptions { hints: Vec::new(), refuse_ambiguous: true }
    }
}

/// Which indentation candidate was kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IndentGuess {
    /// The whole patched block was shifted by the first line's offset.
    Relative,
    /// Only the first line was shifted; the rest kept the indentation as written.
    FirstLineOnly,
    /// The patched text is empty: the matched lines were deleted.
    Deletion,
}

/// How the original had to be read to be found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reading {
    /// Line by line as written (AutoCodeRover finds these too).
    AsWritten,
    /// Placeholder comments in the original stood for lines left out.
    SkippedLines,
    /// Lines that are just `...` stood for lines left out.
    EllipsisAsPlaceholder,
    /// HTML entities such as `&gt;` were decoded first.
    DecodedEntities,
    /// Line-number prefixes copied from search output were removed first.
    LineNumbers,
}

/// An edit that applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Applied {
    /// How the original was read.
    pub reading: Reading,
    /// The file's full new text.
    #[serde(skip)]
    pub text: String,
    /// First matched line (1-based, in the text before the edit).
    pub start: u32,
    /// Last matched line (1-based, inclusive, in the text before the edit).
    pub end: u32,
    /// Which indentation candidate was kept.
    pub indent: IndentGuess,
    /// Start lines (1-based) of every place the original matched, the chosen one included.
    pub occurrences: Vec<u32>,
    /// Whether the new text differs from the old.
    pub changed: bool,
    /// Remarks worth showing: which occurrence was chosen and why, placeholders handled.
    pub notes: Vec<String>,
}

/// A line of the file, shown when the original was not found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NearLine {
    /// 1-based line number.
    pub line: u32,
    /// The line's text, trimmed.
    pub text: String,
}

/// One place an ambiguous original occurs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Candidate {
    /// First matched line (1-based).
    pub line: u32,
    /// Last matched line (1-based, inclusive).
    pub end_line: u32,
    /// The innermost class, method or function holding the place (`Class.method`), when the file's outline names
    /// one. Filled in by [`super::extract`], which knows the file; [`apply_edit`] alone leaves it empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enclosing: Option<String>,
}

impl fmt::Display for Candidate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.end_line > self.line {
            write!(f, "lines {}-{}", self.line, self.end_line)?;
        } else {
            write!(f, "line {}", self.line)?;
        }
        if let Some(e) = &self.enclosing {
            write!(f, " in `{e}`")?;
        }
        Ok(())
    }
}

/// Why an edit did not apply. Each variant carries what the model needs to fix its answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum EditFailure {
    /// The `<original>` is empty or only whitespace and placeholders.
    EmptyOriginal,
    /// The `<original>` does not occur in the file.
    NotFound {
        /// When a prefix of the original matched: how many lines did, and where.
        matched_lines: usize,
        /// The file line at which the longest partial match broke off, or the lines most like the original's
        /// first line when nothing matched.
        nearest: Vec<NearLine>,
        /// The original's line that failed to match (trimmed).
        wanted: String,
    },
    /// The `<original>` occurs more than once and nothing decides between the places.
    Ambiguous {
        /// Every place it occurs, in file order.
        candidates: Vec<Candidate>,
    },
    /// A definition shown by a name the file (or, without a path, the repository) defines more than once, and
    /// nothing decides between the places.
    AmbiguousDefinition {
        /// The name as shown.
        name: String,
        /// Every definition of that name (`enclosing` names it: `Class.method`, or the file for other files).
        candidates: Vec<Candidate>,
    },
    /// The original skips lines with placeholders, but the patched text has a different number of them.
    PlaceholderMismatch {
        /// Placeholders between code lines in the original.
        original: usize,
        /// Placeholders in the patched text.
        patched: usize,
    },
    /// A whole file that leaves code out (see [`super::formats::whole::cut_short`]).
    CutShort {
        /// What gives it away.
        reason: String,
    },
    /// Code in a fence that is neither the file's whole text nor whole definitions, or definitions that leave
    /// code out (see [`super::formats::code`]).
    NotAUnit {
        /// Why, in words for the model.
        reason: String,
    },
    /// A definition shown by name that the file does not have, with nothing shown beside it to place it by.
    NoDefinition {
        /// The name as shown (`Class.method` or `function`).
        name: String,
        /// The file's definitions with the most similar names (at most three).
        similar: Vec<String>,
    },
    /// Both indentation candidates leave the file with a syntax error.
    BreaksSyntax {
        /// 1-based start line of the matched range.
        start: u32,
        /// The first problem with the whole block re-indented.
        relative: SyntaxProblem,
        /// The first problem with only the first line re-indented (absent when both candidates are the same).
        first_line_only: Option<SyntaxProblem>,
    },
}

/// Places, as a failure lists them: `3 in `A.f`; 9 in `B.f`` (the first twenty).
fn places(candidates: &[Candidate]) -> String {
    let named = candidates.iter().any(|c| c.enclosing.is_some());
    let list: Vec<String> = candidates
        .iter()
        .take(20)
        .map(|c| match &c.enclosing {
            Some(e) => format!("{} in `{e}`", c.line),
            None => c.line.to_string(),
        })
        .collect();
    let more = if candidates.len() > 20 { format!(" and {} more", candidates.len() - 20) } else { String::new() };
    format!("{}{more}", list.join(if named { "; " } else { ", " }))
}

impl fmt::Display for EditFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EditFailure::EmptyOriginal => write!(
                f,
                "the <original> is empty; copy the exact lines to replace (at least one non-blank line) into it"
            ),
            EditFailure::NotFound { matched_lines, nearest, wanted } => {
                if *matched_lines > 0 {
                    let at = nearest.first();
                    write!(
                        f,
                        "the <original> was not found: its first {matched_lines} line(s) match, but then it has `{wanted}`"
                    )?;
                    if let Some(n) = at {
                        write!(f, " where line {} of the file is `{}`", n.line, n.text)?;
                    }
                    Ok(())
                } else {
                    write!(f, "the <original> was not found: no line of the file reads `{wanted}`")?;
                    if !nearest.is_empty() {
                        write!(f, "; the closest lines are")?;
                        for (i, n) in nearest.iter().enumerate() {
                            let sep = if i == 0 { " " } else { ", " };
                            write!(f, "{sep}line {} `{}`", n.line, n.text)?;
                        }
                    }
                    Ok(())
                }
            }
            EditFailure::Ambiguous { candidates } => write!(
                f,
                "the <original> occurs {} times (lines {}); include more surrounding lines so it occurs once",
                candidates.len(),
                places(candidates)
            ),
            EditFailure::AmbiguousDefinition { name, candidates } => write!(
                f,
                "`{name}` is defined {} times (lines {}); show the definition inside its class, or with its path and \
                 the line numbers it was shown with, so that one place fits",
                candidates.len(),
                places(candidates)
            ),
            EditFailure::PlaceholderMismatch { original, patched } => write!(
                f,
                "the <original> leaves out code with {original} placeholder line(s) but the <patched> has {patched}; \
                 keep one placeholder in <patched> for each one in <original>, or write the lines out"
            ),
            EditFailure::CutShort { reason } => {
                write!(f, "the whole file looks cut short: {reason}; write every line of the file, leaving nothing out")
            }
            EditFailure::NotAUnit { reason } => write!(
                f,
                "the code in the fence is not something that can be put in place: {reason}; show each function, \
                 method or class you change complete, from its `def` or `class` line to its last line"
            ),
            EditFailure::NoDefinition { name, similar } if similar.is_empty() => write!(
                f,
                "the file has no definition named `{name}`; show the definitions you change with the names they have"
            ),
            EditFailure::NoDefinition { name, similar } => write!(
                f,
                "the file has no definition named `{name}` (it has `{}`); show the definitions you change with the names \
                 they have",
                similar.join("`, `")
            ),
            EditFailure::BreaksSyntax { start, relative, first_line_only } => {
                write!(f, "the edit at line {start} would break the program's syntax ({relative})")?;
                if let Some(p) = first_line_only
                    && p != relative
                {
                    write!(f, "; keeping the indentation as written also fails ({p})")?;
                }
                write!(f, "; check the indentation and brackets of the <patched> code")
            }
        }
    }
}

impl std::error::Error for EditFailure {}

impl EditFailure {
    /// The snake_case name of the failure, as serialised (`not_found`, `ambiguous`...).
    pub fn kind(&self) -> &'static str {
        match self {
            EditFailure::EmptyOriginal => "empty_original",
            EditFailure::NotFound { .. } => "not_found",
            EditFailure::Ambiguous { .. } | EditFailure::AmbiguousDefinition { .. } => "ambiguous",
            EditFailure::PlaceholderMismatch { .. } => "placeholder_mismatch",
            EditFailure::CutShort { .. } => "cut_short",
            EditFailure::NotAUnit { .. } => "not_a_unit",
            EditFailure::NoDefinition { .. } => "no_definition",
            EditFailure::BreaksSyntax { .. } => "breaks_syntax",
        }
    }

    /// For [`EditFailure::Ambiguous`], the first line of every candidate.
    pub fn ambiguous_lines(&self) -> Option<Vec<u32>> {
        match self {
            EditFailure::Ambiguous { candidates } | EditFailure::AmbiguousDefinition { candidates, .. } => {
                Some(candidates.iter().map(|c| c.line).collect())
            }
            _ => None,
        }
    }
}

/// A matched place: where the original's parts start and end in the file (0-based, end exclusive).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Occurrence {
    /// `(start, end)` of each part; consecutive parts are separated by the skipped lines (the gaps).
    parts: Vec<(usize, usize)>,
}

impl Occurrence {
    fn start(&self) -> usize {
        self.parts.first().map_or(0, |p| p.0)
    }
    fn end(&self) -> usize {
        self.parts.last().map_or(0, |p| p.1)
    }
}

/// Which lines stand for code left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Placeholders {
    /// Placeholder comments only (see [`is_placeholder`]).
    Comments,
    /// Placeholder comments and lines that are just `...` (tried only when the literal text is not found, since
    /// `...` is also a valid statement).
    CommentsAndEllipsis,
}

impl Placeholders {
    fn is(self, line: &str) -> bool {
        is_placeholder(line) || (self == Placeholders::CommentsAndEllipsis && line.trim() == "...")
    }
}

/// The original split at placeholder lines: each part's lines (as written).
struct Parts<'a> {
    parts: Vec<Vec<&'a str>>,
}

impl<'a> Parts<'a> {
    fn new(original: &'a str, placeholders: Placeholders) -> Parts<'a> {
        let mut parts: Vec<Vec<&str>> = vec![Vec::new()];
        for line in original.split('\n') {
            if placeholders.is(line) {
                if parts.last().is_some_and(|p| !p.is_empty()) {
                    parts.push(Vec::new());
                }
            } else if let Some(p) = parts.last_mut() {
                p.push(line);
            }
        }
        parts.retain(|p| !p.is_empty());
        Parts { parts }
    }

    fn is_empty(&self) -> bool {
        self.parts.iter().all(|p| p.iter().all(|l| l.trim().is_empty()))
    }

    fn gaps(&self) -> usize {
        self.parts.len().saturating_sub(1)
    }
}

fn find_occurrences(keys: &[&str], parts: &Parts<'_>) -> Vec<Occurrence> {
    let trimmed: Vec<Vec<&str>> = parts.parts.iter().map(|p| p.iter().map(|l| l.trim()).collect()).collect();
    let Some(first) = trimmed.first() else {
        return Vec::new();
    };
    let later: Vec<Vec<usize>> = trimmed[1..].iter().map(|p| runs::occurrences(keys, p)).collect();
    let mut found = Vec::new();
    'starts: for start in runs::occurrences(keys, first) {
        let mut spans = vec![(start, start + first.len())];
        for (part, at) in trimmed[1..].iter().zip(&later) {
            let from = spans.last().map_or(0, |s| s.1);
            match at.get(at.partition_point(|&x| x < from)) {
                Some(&i) => spans.push((i, i + part.len())),
                None => continue 'starts,
            }
        }
        found.push(Occurrence { parts: spans });
    }
    found
}

/// Applies one edit to `text`. `gate` checks every candidate.
///
/// When the original is not found as written, three readings are tried before giving up, each noted in
/// [`Applied::notes`]: line-number prefixes removed (when every line carries one, counting up by one), lines that
/// are just `...` taken as placeholders, and HTML entities (`&gt;`, `&lt;`, `&amp;`, `&quot;`, `&#39;`) decoded in
/// both the original and the patched text.
pub fn apply_edit(text: &str, edit: &Edit, options: &ApplyOptions, gate: &mut Gate) -> Result<Applied, EditFailure> {
    apply_gated(text, edit, options, gate, Gating::EachEdit)
}

/// When the gate's verdict counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Gating {
    /// Every edit must pass on its own.
    EachEdit,
    /// An edit that breaks the syntax on its own is kept (its first candidate), for the answer's later edits to
    /// complete: the caller gates the file once after all of them.
    Deferred,
}

pub(super) fn apply_gated(
    text: &str,
    edit: &Edit,
    options: &ApplyOptions,
    gate: &mut Gate,
    gating: Gating,
) -> Result<Applied, EditFailure> {
    let literal = apply_with(text, edit, options, gate, Placeholders::Comments, gating);
    if !matches!(literal, Err(EditFailure::NotFound { .. })) {
        return literal;
    }
    if let Some(trimmed) = without_end_blank_lines(edit) {
        let mut result = apply_gated(text, &trimmed, options, gate, gating);
        if let Ok(applied) = &mut result {
            applied.notes.push("matched without the blank lines at the ends of the <original>".into());
        }
        return result;
    }
    let mut fallback_failure = None;
    if let Some(original) = without_line_numbers(&edit.original) {
        let patched = without_line_numbers(&edit.patched).unwrap_or_else(|| edit.patched.clone());
        let unnumbered = Edit { original, patched, ..edit.clone() };
        match apply_gated(text, &unnumbered, options, gate, gating) {
            Ok(mut applied) => {
                applied.reading = Reading::LineNumbers;
                applied.notes.push("removed the line numbers copied from search output".into());
                return Ok(applied);
            }
            Err(EditFailure::NotFound { .. }) => {}
            Err(other) => fallback_failure = Some(other),
        }
    }
    if edit.original.split('\n').any(|l| l.trim() == "...") {
        match apply_with(text, edit, options, gate, Placeholders::CommentsAndEllipsis, gating) {
            Ok(mut applied) => {
                applied.reading = Reading::EllipsisAsPlaceholder;
                applied.notes.push("read the `...` lines as placeholders for code left out".into());
                return Ok(applied);
            }
            Err(EditFailure::NotFound { .. }) => {}
            Err(other) => fallback_failure = fallback_failure.or(Some(other)),
        }
    }
    if let Some(decoded) = decode_entities(edit) {
        match apply_gated(text, &decoded, options, gate, gating) {
            Ok(mut applied) => {
                applied.reading = Reading::DecodedEntities;
                applied.notes.push("decoded HTML entities such as `&gt;` in the edit".into());
                return Ok(applied);
            }
            Err(EditFailure::NotFound { .. }) => {}
            Err(other) => fallback_failure = fallback_failure.or(Some(other)),
        }
    }
    match fallback_failure {
        Some(f) => Err(f),
        None => literal,
    }
}

/// The edit without blank lines at the ends of its original and patched text, when its original has some (the
/// parser keeps the blank lines the two do not share: see [`super::parse`]).
fn without_end_blank_lines(edit: &Edit) -> Option<Edit> {
    let padded = |s: &str| s.starts_with('\n') || s.ends_with('\n');
    (padded(&edit.original) && !edit.original.trim().is_empty()).then(|| Edit {
        original: edit.original.trim_matches('\n').to_string(),
        patched: edit.patched.trim_matches('\n').to_string(),
        ..edit.clone()
    })
}

/// The edit with HTML entities decoded, when it has any.
fn decode_entities(edit: &Edit) -> Option<Edit> {
    const ENTITIES: [(&str, &str); 5] =
        [("&gt;", ">"), ("&lt;", "<"), ("&quot;", "\""), ("&#39;", "'"), ("&amp;", "&")];
    let decode = |s: &str| ENTITIES.iter().fold(s.to_string(), |acc, (from, to)| acc.replace(from, to));
    ENTITIES.iter().any(|(e, _)| edit.original.contains(e)).then(|| Edit {
        original: decode(&edit.original),
        patched: decode(&edit.patched),
        ..edit.clone()
    })
}

fn apply_with(
    text: &str,
    edit: &Edit,
    options: &ApplyOptions,
    gate: &mut Gate,
    placeholders: Placeholders,
    gating: Gating,
) -> Result<Applied, EditFailure> {
    let parts = Parts::new(&edit.original, placeholders);
    if parts.is_empty() {
        return Err(EditFailure::EmptyOriginal);
    }
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let keys: Vec<&str> = lines.iter().map(|l| l.trim()).collect();
    let occurrences = find_occurrences(&keys, &parts);
    if occurrences.is_empty() {
        return Err(not_found(&keys, &parts));
    }
    let mut notes = Vec::new();
    let starts: Vec<u32> = occurrences.iter().map(|o| o.start() as u32 + 1).collect();
    let chosen = if occurrences.len() == 1 {
        &occurrences[0]
    } else if let Some((best, line)) = edit.line.and_then(|l| nearest_to_line(&occurrences, l).map(|o| (o, l))) {
        notes.push(format!(
            "the original occurs {} times (lines {}); used line {}, the one the hunk header's line {line} points at",
            occurrences.len(),
            join_lines(&starts),
            best.start() + 1
        ));
        best
    } else if let Some(best) = nearest_to_hints(&occurrences, &options.hints, options.refuse_ambiguous) {
        notes.push(format!(
            "the original occurs {} times (lines {}); used line {}, nearest the bug location",
            occurrences.len(),
            join_lines(&starts),
            best.start() + 1
        ));
        best
    } else if options.refuse_ambiguous {
        let candidates = occurrences
            .iter()
            .map(|o| Candidate {
                line: o.start() as u32 + 1,
                end_line: o.end().max(o.start() + 1) as u32,
                enclosing: None,
            })
            .collect();
        return Err(EditFailure::Ambiguous { candidates });
    } else {
        notes.push(format!(
            "the original occurs {} times (lines {}); used the first",
            occurrences.len(),
            join_lines(&starts)
        ));
        &occurrences[0]
    };

    let replacement = patched_lines(edit, &parts, chosen, &lines, placeholders, &mut notes)?;
    let reading = if parts.gaps() > 0 { Reading::SkippedLines } else { Reading::AsWritten };
    let (start, end) = (chosen.start(), chosen.end());
    let pairs = indent_pairs(&parts, chosen, &lines);
    let model = edit.original.split('\n').chain(edit.patched.split('\n'));
    let indenter = Indenter::new(&pairs, model, &lines, (chosen.start(), chosen.end()));
    let eol = line_ending(&lines, start);
    let keeps_final_eol = lines.get(end.saturating_sub(1)).is_none_or(|l| l.ends_with('\n'));
    let prefix_len: usize = lines[..start].iter().map(|l| l.len()).sum();
    let suffix_start: usize = prefix_len + lines[start..end].iter().map(|l| l.len()).sum::<usize>();
    let prefix = text.get(..prefix_len).unwrap_or("");
    let suffix = text.get(suffix_start..).unwrap_or("");

    let mut failures: Vec<SyntaxProblem> = Vec::new();
    let candidates: &[IndentGuess] = if replacement.is_empty() {
        &[IndentGuess::Deletion]
    } else {
        &[IndentGuess::Relative, IndentGuess::FirstLineOnly]
    };
    let applied = |new_text: String, indent: IndentGuess, notes: Vec<String>| Applied {
        reading,
        changed: new_text != text,
        text: new_text,
        start: start as u32 + 1,
        end: end as u32,
        indent,
        occurrences: starts.clone(),
        notes,
    };
    // Candidates already judged, by a hash of their text: a rendering can be as large as the answer, and only one
    // is kept alive at a time (the file the gate reads).
    let mut tried: Vec<(u64, usize)> = Vec::new();
    let mut first_candidate: Option<(String, IndentGuess)> = None;
    for &guess in candidates {
        let body = render(&replacement, guess, &indenter, eol, keeps_final_eol);
        let key = {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            body.hash(&mut h);
            (h.finish(), body.len())
        };
        if tried.contains(&key) {
            continue;
        }
        tried.push(key);
        let mut new_text = String::with_capacity(prefix.len() + body.len() + suffix.len());
        new_text.push_str(prefix);
        new_text.push_str(&body);
        new_text.push_str(suffix);
        let span = TextEdit {
            start: prefix.len(),
            old_end: prefix.len() + (text.len() - prefix.len() - suffix.len()),
            new_end: prefix.len() + body.len(),
        };
        drop(body);
        match gate.check_edit(text, &new_text, span) {
            Ok(()) => return Ok(applied(new_text, guess, notes)),
            Err(problem) => {
                failures.push(problem);
                if first_candidate.is_none() {
                    first_candidate = Some((new_text, guess));
                }
            }
        }
    }
    if gating == Gating::Deferred
        && let (Some((new_text, guess)), Some(problem)) = (first_candidate, failures.first())
    {
        notes.push(format!(
            "breaks the syntax on its own ({problem}); the answer's other edits to the file complete it"
        ));
        return Ok(applied(new_text, guess, notes));
    }
    let mut failures = failures.into_iter();
    match failures.next() {
        Some(relative) => {
            Err(EditFailure::BreaksSyntax { start: start as u32 + 1, relative, first_line_only: failures.next() })
        }
        // Unreachable in practice (at least one candidate is always tried); report it as a syntax failure anyway.
        None => Err(EditFailure::EmptyOriginal),
    }
}

fn join_lines(lines: &[u32]) -> String {
    let list: Vec<String> = lines.iter().map(u32::to_string).collect();
    list.join(", ")
}

/// The occurrence a stated start line (a hunk header's) singles out: the only one that starts exactly there.
/// `None` otherwise: a number never overrides the content, and a number that is off by some lines says nothing
/// about which of two equal places was meant (on real history, guesses off by tens of lines land near the wrong one).
fn nearest_to_line(occurrences: &[Occurrence], line: u32) -> Option<&Occurrence> {
    let mut at = occurrences.iter().filter(|o| o.start() + 1 == line as usize);
    let first = at.next()?;
    at.next().is_none().then_some(first)
}

/// The occurrence the bug locations single out: the one nearest them (inside a located span counts as 0). `None`
/// when there are no locations, or when several are equally near and `refuse_ambiguous` holds (two occurrences
/// inside located code: the locations do not decide).
fn nearest_to_hints<'o>(
    occurrences: &'o [Occurrence],
    hints: &[(u32, u32)],
    refuse_ambiguous: bool,
) -> Option<&'o Occurrence> {
    let distances: Vec<usize> = occurrences.iter().map(|o| distance_to_hints(o, hints)).collect();
    let best = *distances.iter().min().filter(|_| !hints.is_empty())?;
    let mut tied = occurrences.iter().zip(&distances).filter(|(_, d)| **d == best).map(|(o, _)| o);
    let first = tied.next()?;
    (tied.next().is_none() || !refuse_ambiguous).then_some(first)
}

/// How far an occurrence is from the nearest bug location: 0 when it overlaps one (a located class or function
/// holds it), otherwise the lines between them.
fn distance_to_hints(o: &Occurrence, hints: &[(u32, u32)]) -> usize {
    let (s, e) = (o.start() + 1, o.end().max(o.start() + 1));
    hints
        .iter()
        .map(|&(first, last)| {
            let (first, last) = (first as usize, (last as usize).max(first as usize));
            if e < first { first - e } else { s.saturating_sub(last) }
        })
        .min()
        .unwrap_or(usize::MAX)
}

/// A line of the replacement: written by the model (to be re-indented) or copied from the file (a placeholder's
/// skipped lines, already final).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Piece<'a> {
    Model(&'a str),
    File(&'a str),
}

fn patched_lines<'a>(
    edit: &'a Edit,
    parts: &Parts<'_>,
    chosen: &Occurrence,
    lines: &[&'a str],
    placeholders: Placeholders,
    notes: &mut Vec<String>,
) -> Result<Vec<Piece<'a>>, EditFailure> {
    if edit.patched.trim().is_empty() {
        return Ok(Vec::new());
    }
    let raw: Vec<&str> = edit.patched.split('\n').collect();
    let count = raw.iter().filter(|l| placeholders.is(l)).count();
    let gaps = parts.gaps();
    // Placeholder comments without a partner are dropped, as ACR drops `# Rest of the code...`; a bare `...` is
    // read as a placeholder only when every one of them pairs up, or code could land in the wrong place.
    let strict = placeholders == Placeholders::CommentsAndEllipsis;
    if (gaps > 0 || strict) && count != gaps {
        return Err(EditFailure::PlaceholderMismatch { original: gaps, patched: count });
    }
    if gaps == 0 && count > 0 {
        notes.push(format!("dropped {count} placeholder line(s) from the patched code"));
    }
    let mut out = Vec::with_capacity(raw.len());
    let mut gap = 0usize;
    for line in raw {
        if !placeholders.is(line) {
            out.push(Piece::Model(line));
        } else if gaps > 0 {
            let (from, to) = (chosen.parts[gap].1, chosen.parts[gap + 1].0);
            out.extend(lines[from..to].iter().map(|l| Piece::File(l)));
            gap += 1;
        }
    }
    if gaps > 0 {
        notes.push(format!("kept the {gaps} stretch(es) of code the placeholders stand for"));
    }
    Ok(out)
}

/// The indentation of each non-blank line of the original as written, with the file line it matched.
fn indent_pairs<'a>(parts: &Parts<'a>, chosen: &Occurrence, lines: &[&'a str]) -> Vec<(&'a str, &'a str)> {
    let mut pairs = Vec::new();
    for (part, &(start, _)) in parts.parts.iter().zip(&chosen.parts) {
        for (offset, line) in part.iter().enumerate() {
            if !line.trim().is_empty() {
                let file_line = lines.get(start + offset).copied().unwrap_or("");
                pairs.push((leading_ws(line), leading_ws(file_line)));
            }
        }
    }
    pairs
}

/// The file's line ending at `at` (or its first line's, or `\n`).
fn line_ending(lines: &[&str], at: usize) -> &'static str {
    let probe = lines.get(at).filter(|l| l.ends_with('\n')).or_else(|| lines.iter().find(|l| l.ends_with('\n')));
    match probe {
        Some(l) if l.ends_with("\r\n") => "\r\n",
        _ => "\n",
    }
}

fn render(pieces: &[Piece<'_>], guess: IndentGuess, indenter: &Indenter, eol: &str, keeps_final_eol: bool) -> String {
    let mut out = String::new();
    let mut first_model = true;
    for (i, piece) in pieces.iter().enumerate() {
        let last = i + 1 == pieces.len();
        match piece {
            Piece::File(l) => {
                out.push_str(l);
                if last && !keeps_final_eol {
                    while out.ends_with('\n') || out.ends_with('\r') {
                        out.pop();
                    }
                }
                continue;
            }
            Piece::Model(l) => {
                let shift = guess != IndentGuess::FirstLineOnly || first_model;
                first_model = false;
                out.push_str(&indenter.line(l, shift));
            }
        }
        if !last || keeps_final_eol {
            out.push_str(eol);
        }
    }
    out
}

/// How many characters of a line the near-miss search compares, and how many file lines it compares in full.
const NEAR_MISS_CHARS: usize = 400;
const NEAR_MISS_CANDIDATES: usize = 50;

fn not_found(keys: &[&str], parts: &Parts<'_>) -> EditFailure {
    let wanted_lines: Vec<&str> = parts.parts.iter().flatten().map(|l| l.trim()).collect();
    // The longest prefix of the original that matches somewhere (it must hold a non-blank line).
    let blank_lead = wanted_lines.iter().take_while(|w| w.is_empty()).count();
    let (n, start) = runs::longest_prefix(keys, &wanted_lines);
    if n > blank_lead {
        let wanted = wanted_lines.get(n).copied().unwrap_or("").to_string();
        let nearest = keys
            .get(start + n)
            .map(|k| NearLine { line: (start + n + 1) as u32, text: (*k).to_string() })
            .into_iter()
            .collect();
        return EditFailure::NotFound { matched_lines: n, nearest, wanted };
    }
    let wanted = wanted_lines.iter().find(|l| !l.is_empty()).copied().unwrap_or("");
    EditFailure::NotFound { matched_lines: 0, nearest: nearest_lines(keys, wanted), wanted: wanted.to_string() }
}

/// The (at most three) file lines most like `wanted`, with a similarity of at least 0.6. A character-count bound
/// (which is never below the real similarity) picks the few lines worth a full comparison, so a long line against
/// a long file stays linear.
fn nearest_lines(keys: &[&str], wanted: &str) -> Vec<NearLine> {
    let cut = |s: &str| -> String { s.chars().take(NEAR_MISS_CHARS).collect() };
    let wanted = cut(wanted);
    let histogram = |s: &str| {
        let mut h = [0u32; 128];
        for c in s.chars() {
            h[(c as usize).min(127)] += 1;
        }
        h
    };
    let (wh, wlen) = (histogram(&wanted), wanted.chars().count());
    let mut bounded: Vec<(f32, usize)> = keys
        .iter()
        .enumerate()
        .filter(|(_, k)| !k.is_empty() && k.len() <= NEAR_MISS_CHARS)
        .map(|(i, k)| {
            let (kh, klen) = (histogram(k), k.chars().count());
            let common: u32 = wh.iter().zip(&kh).map(|(a, b)| a.min(b)).sum();
            (2.0 * common as f32 / (wlen + klen).max(1) as f32, i)
        })
        .filter(|(bound, _)| *bound >= 0.6)
        .collect();
    bounded.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut scored: Vec<(f32, usize)> = bounded
        .into_iter()
        .take(NEAR_MISS_CANDIDATES)
        .map(|(_, i)| (similar::TextDiff::from_chars(wanted.as_str(), keys[i]).ratio(), i))
        .filter(|(r, _)| *r >= 0.6)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().take(3).map(|(_, i)| NearLine { line: i as u32 + 1, text: keys[i].to_string() }).collect()
}
