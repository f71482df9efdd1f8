//! The best patch a run had made when it had to stop early (its budget ran out), read back from its transcript.
//!
//! Every patch the loops make is in the transcript: the patch writer's attempts as [`Event::Patch`], the tree
//! search's candidates in each [`Event::Mcts`] snapshot. The best is the tree's highest-valued candidate that did not
//! crash, else the last applicable attempt.

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
    transcript.events.iter().rev().find_map(|e| match e {
        Event::Patch { attempt, status, diff, .. } if status.is_applicable() && !diff.is_empty() => {
            Some(Kept { diff: diff.clone(), from: format!("patch attempt {attempt}") })
        }
        _ => None,
    })
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
