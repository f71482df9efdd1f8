//! Trimming a validated patch to the changes its check needs. A small model's fix often comes with changes nobody
//! asked for: a line moved, a bound "tidied", a blank line dropped; the reproducer, which checks the example,
//! passes with them, and they can break what it does not check. With the reproducer as the judge
//! ([`super::Judge::Execution`]) each run of changed lines ([`crate::patch::change_runs`]) is undone in turn, then
//! each two neighbouring runs still kept (a moved line), and the undoing is kept when the patch still passes the
//! syntax gate, the reproducer and the repository's own tests that validated it: what is left is what the check
//! needs. A run of a trimmed patch may take [`SLOWER`] times the validated patch's (at least [`MIN_SECS`]): a change
//! that ended a runaway recursion, undone, would otherwise run to the full time limit. A patch of more than
//! [`MAX_RUNS`] runs is kept as it is.

use super::reproduce::{Check, Reproduction};
use super::validation::{Validation, validate};
use super::{Agent, AgentError, RunPurpose};
use crate::language::Language;
use crate::llm::Llm;
use crate::patch::Extraction;
use crate::patch::change_runs::{ChangeRun, change_runs, undo};
use crate::patch::diff::{FileDiff, render};
use crate::runner::{RunOutcome, Runner};

/// The most runs of changed lines a patch may have to be trimmed (each costs up to two runs of the reproducer).
pub const MAX_RUNS: usize = 12;

/// The time a trimmed patch's run may take, as a multiple of the validated patch's: undoing a change that stopped a
/// runaway recursion brings the recursion back, which would otherwise run to the full time limit.
pub const SLOWER: u64 = 10;

/// The least time limit of a trimmed patch's run, in seconds.
pub const MIN_SECS: u64 = 10;

/// The validated `patch` with every run of changed lines the check does not need undone; `validated` is the
/// reproducer's run on it.
pub async fn trim<L: Llm, R: Runner>(
    agent: &mut Agent<L, R>,
    patch: Extraction,
    validated: &RunOutcome,
    check: &Check,
    reproduction: &Reproduction,
) -> Result<Extraction, AgentError> {
    let runs = change_runs(&patch.changes);
    if runs.len() < 2 || runs.len() > MAX_RUNS {
        return Ok(patch);
    }
    let timeout = u32::try_from((validated.duration_ms * SLOWER).div_ceil(1000).max(MIN_SECS)).unwrap_or(u32::MAX);
    let mut undone: Vec<ChangeRun> = Vec::new();
    let mut best = patch.clone();
    // Each run alone, then each two neighbouring runs of a file that are still kept: a line moved is a removal and
    // an addition, and undoing either alone leaves the line twice or not at all.
    let singles = runs.iter().map(|r| vec![*r]);
    let pairs = runs.windows(2).filter(|w| w[0].file == w[1].file).map(|w| w.to_vec());
    for group in singles.chain(pairs).collect::<Vec<_>>() {
        if group.iter().any(|r| undone.contains(r)) {
            continue;
        }
        let mut trying = undone.clone();
        trying.extend(&group);
        let Some(candidate) = without(agent, &patch, &trying) else { continue };
        let purpose = RunPurpose::ReproducerOnTrimmed;
        let Some(after) =
            agent.execute_within(purpose, &candidate.diff, &check.file_refs(), &check.command, timeout).await?
        else {
            return Ok(best);
        };
        if matches!(validate(agent, &candidate, &after, reproduction).await?, Validation::Passed) {
            undone = trying;
            best = candidate;
        }
    }
    if !undone.is_empty() {
        agent.note(format!(
            "the validated patch was trimmed: {} of its {} runs of changed lines were not needed by the reproducer and \
             the repository's tests, and are undone",
            undone.len(),
            runs.len()
        ));
    }
    Ok(best)
}

/// The patch with the runs `undone`, when it still changes something and every file it changes still passes the
/// syntax gate (or fails it as the original does).
fn without<L: Llm, R: Runner>(agent: &Agent<L, R>, patch: &Extraction, undone: &[ChangeRun]) -> Option<Extraction> {
    let original = |path: &str| agent.repo.file(path).map(str::to_string);
    let texts = undo(&patch.changes, original, undone).ok()?;
    let mut changes = Vec::new();
    let mut files = std::collections::BTreeMap::new();
    for (path, text) in texts {
        let old = agent.repo.file(&path).unwrap_or_default();
        let Some(change) = FileDiff::between(&path, old, &text) else { continue };
        let syntax = Language::of_path(&path).map(|l| l.row().syntax);
        if let Some(syntax) = syntax
            && let Err(problem) = syntax.check(&text)
            && syntax.check(old).err() != Some(problem)
        {
            return None;
        }
        changes.push(change);
        files.insert(path, text);
    }
    if changes.is_empty() {
        return None;
    }
    Some(Extraction { diff: render(&changes), changes, files, ..patch.clone() })
}
