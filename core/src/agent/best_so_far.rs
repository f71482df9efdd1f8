//! The best patch a run had made when it had to stop early (its budget ran out), read back from its transcript.
//!
//! Every patch the loops make is in the transcript: the patch writer's attempts as [`Event::Patch`], the tree
//! search's candidates in each [`Event::Mcts`] snapshot. The best is the tree's highest-valued candidate that did not
//! crash, else the last applicable attempt that passed the issue's own examples (their run follows its
//! [`Event::Patch`]), else the last applicable attempt.

use super::RunPurpose;
use super::transcript::{Event, Transcript, Verdict};
use crate::locate::BugLocation;

/// A patch kept from an unfinished run.
#[derive(Debug, Clone, PartialEq)]
pub struct Kept {
    /// The diff.
    pub diff: String,
    /// Where it came from, in words.
    pub from: String,
}

/// The best patch in a transcript, if any.
pub fn patch(transcript: &Transcript) -> Option<Kept> {
    let tree = transcript.events.iter().rev().find_map(|e| match e {
        Event::Mcts { tree, .. } => Some(tree),
        _ => None,
    });
    let candidate = tree
        .into_iter()
        .flatten()
        .filter(|n| !n.diff.is_empty() && n.verdict != Some(Verdict::Error))
        .max_by(|a, b| a.value.total_cmp(&b.value).then(b.id.cmp(&a.id)));
    if let Some(node) = candidate {
        return Some(Kept {
            diff: node.diff.clone(),
            from: format!("tree-search candidate {} (value {:.2})", node.id, node.value),
        });
    }
    // The last applicable attempt; the one the runs that follow were made on (none after an attempt that did not
    // apply); the last of those the issue's examples passed on.
    let (mut applicable, mut current, mut vouched) = (None, None, None);
    for event in &transcript.events {
        match event {
            Event::Patch { attempt, status, diff, .. } if status.is_applicable() && !diff.is_empty() => {
                applicable = Some((*attempt, diff));
                current = applicable;
            }
            Event::Patch { .. } => current = None,
            Event::Run { purpose: RunPurpose::ExampleOnPatch, outcome } if outcome.passed() => vouched = current,
            _ => {}
        }
    }
    if let Some((attempt, diff)) = vouched {
        return Some(Kept {
            diff: diff.clone(),
            from: format!("patch attempt {attempt}, which passed the issue's own examples"),
        });
    }
    applicable.map(|(attempt, diff)| Kept { diff: diff.clone(), from: format!("patch attempt {attempt}") })
}

/// The bug locations resolved last, if any were.
pub fn locations(transcript: &Transcript) -> Vec<BugLocation> {
    transcript
        .events
        .iter()
        .rev()
        .find_map(|e| match e {
            Event::Locations { found, .. } if !found.is_empty() => Some(found.clone()),
            _ => None,
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patch::ExtractStatus;
    use crate::runner::RunOutcome;

    fn attempt(attempt: usize, diff: &str) -> Event {
        let status = ExtractStatus::ApplicablePatch;
        Event::Patch { attempt, status, diff: diff.into(), reason: String::new(), edits: Vec::new() }
    }

    fn examples(exit_code: i32) -> Event {
        let outcome = RunOutcome { exit_code: Some(exit_code), ..RunOutcome::default() };
        Event::Run { purpose: RunPurpose::ExampleOnPatch, outcome }
    }

    #[test]
    fn the_last_attempt_the_issues_examples_passed_before_the_last_attempt() {
        let transcript = |events: Vec<Event>| Transcript { events, ..Transcript::default() };
        let kept =
            patch(&transcript(vec![attempt(1, "a"), examples(0), attempt(2, "b"), examples(1), attempt(3, "c")]));
        assert_eq!(
            kept.map(|k| (k.diff, k.from)),
            Some(("a".into(), "patch attempt 1, which passed the issue's own examples".into()))
        );
        let kept = patch(&transcript(vec![attempt(1, "a"), examples(1), attempt(2, "b")]));
        assert_eq!(kept.map(|k| k.diff), Some("b".into()), "no attempt passed them");
    }
}
