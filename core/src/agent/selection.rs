//! Whole-workflow tries and the choice of one patch among them.
//!
//! As AutoCodeRover does, the workflow (search, patch, review or tree search) runs again, in a new conversation, while
//! no acceptable patch came out, up to [`AgentConfig::overall_retries`] tries. Acceptable: validated by execution, or,
//! when nothing can validate (no runner, no reproducer), applicable. Then one patch is chosen from all tries:
//! validated first, then approved by the reviewer, then the only applicable one, then the model's choice among the
//! applicable ones ([`crate::prompt::Prompt::Select`]). The reason is recorded in the transcript and the outcome.
//!
//! [`AgentConfig::overall_retries`]: super::AgentConfig::overall_retries

use serde::Serialize;

use super::{Agent, AgentError, Event, Phase};
use crate::answers;
use crate::llm::Llm;
use crate::locate::BugLocation;
use crate::patch::ExtractStatus;
use crate::prompt::Prompt;
use crate::runner::Runner;

/// What one workflow try produced.
#[derive(Debug, Clone, Serialize)]
pub struct TryRecord {
    /// 1-based try.
    pub number: usize,
    /// The patch's status.
    pub status: ExtractStatus,
    /// The diff (empty when nothing applied).
    pub diff: String,
    /// Why there is no applicable patch, if there is none.
    pub reason: String,
    /// Whether execution validated it.
    pub validated: bool,
    /// Whether the reviewer approved it.
    pub approved: bool,
    /// The bug locations the try found.
    pub locations: Vec<BugLocation>,
}

impl TryRecord {
    /// Whether the try can end the workflow: validated, or applicable when nothing could validate it.
    pub fn acceptable(&self, can_validate: bool) -> bool {
        self.validated || (!can_validate && self.status.is_applicable())
    }
}

/// The patch chosen among the tries, and why.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Selection {
    /// The chosen try's number, `None` when no try produced an applicable patch.
    pub chosen: Option<usize>,
    /// Why, in words.
    pub reason: String,
}

/// Chooses one patch among the tries (asking the model only when several unconfirmed patches compete).
pub async fn select<L: Llm, R: Runner>(
    agent: &mut Agent<L, R>,
    issue: &str,
    tries: &[TryRecord],
) -> Result<Selection, AgentError> {
    let chosen = |t: &TryRecord, why: String| Selection { chosen: Some(t.number), reason: why };
    if let Some(t) = tries.iter().find(|t| t.validated) {
        return Ok(chosen(t, format!("try {} was validated by execution", t.number)));
    }
    if let Some(t) = tries.iter().find(|t| t.approved && t.status.is_applicable()) {
        return Ok(chosen(t, format!("try {} was approved by the reviewer (not confirmed by execution)", t.number)));
    }
    let mut applicable: Vec<&TryRecord> = Vec::new();
    for t in tries.iter().filter(|t| t.status.is_applicable()) {
        if !applicable.iter().any(|a| a.diff == t.diff) {
            applicable.push(t);
        }
    }
    match applicable.as_slice() {
        [] => Ok(Selection { chosen: None, reason: "no try produced an applicable patch".into() }),
        [only] if tries.len() == 1 => Ok(chosen(only, "the only try produced an applicable patch".into())),
        [only] => Ok(chosen(only, format!("try {} produced the only applicable patch", only.number))),
        several => {
            agent.emit(Event::Phase { name: Phase::Select });
            let diffs: Vec<&str> = several.iter().map(|t| t.diff.as_str()).collect();
            let answer = agent.ask(&Prompt::Select { issue, candidates: &diffs }).await?;
            Ok(match answers::choice(&answer, several.len()) {
                Some(n) => {
                    let t = several[n - 1];
                    let why = answers::json::object_with(&answer, &["reason"])
                        .and_then(|o| answers::json::get(&o, &["reason"]).and_then(|r| r.as_str().map(str::to_string)))
                        .unwrap_or_default();
                    let reason = format!(
                        "the model chose try {} among {} applicable patches{}",
                        t.number,
                        several.len(),
                        if why.trim().is_empty() { String::new() } else { format!(": {}", why.trim()) }
                    );
                    chosen(t, reason)
                }
                None => chosen(
                    several[0],
                    format!(
                        "the model's choice could not be read; try {} is the first applicable patch",
                        several[0].number
                    ),
                ),
            })
        }
    }
}
