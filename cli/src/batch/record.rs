//! Where each task stands: its [`Status`] and its [`Record`], the line batch.json and the journal keep of it.

use acr_core::llm::Usage;
use serde::{Deserialize, Serialize};

/// Where a task stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Not started yet.
    Pending,
    /// Being repaired (a batch killed now runs it again when resumed).
    Running,
    /// Ended on its own, with or without a patch: its prediction is written. Kept on resume (`--redo empty` or
    /// `--redo patch` does it again).
    Done,
    /// Stopped from outside after it had started (the batch budget, Ctrl-C, the model server): runs again.
    Stopped,
    /// Could not be repaired for reasons of its own (no repository, a bad commit, an error, requests the server
    /// refuses): kept on resume (`--redo failed` runs it again).
    Failed,
    /// Never started (the batch budget was spent, Ctrl-C, the model server refused or failed): runs again.
    NotRun,
}

impl Status {
    /// The word progress lines and batch.json use.
    pub fn name(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Running => "running",
            Status::Done => "done",
            Status::Stopped => "stopped",
            Status::Failed => "failed",
            Status::NotRun => "not_run",
        }
    }
}

/// One task's line in batch.json and in the journal (also kept as OUT/<instance_id>/record.json).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The task.
    pub instance_id: String,
    /// Where it stands.
    pub status: Status,
    /// The run's final status (`APPLICABLE_PATCH`, `NO_PATCH`...), once it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
    /// Whether the prediction holds a patch.
    #[serde(default)]
    pub patch: bool,
    /// Why it is not done, or why the run ended without a patch.
    #[serde(default)]
    pub reason: String,
    /// Model calls of its run.
    #[serde(default)]
    pub model_calls: u64,
    /// Tokens of its run.
    #[serde(default)]
    pub usage: Usage,
    /// Dollars, when the model has a price.
    #[serde(default)]
    pub cost: Option<f64>,
    /// Wall time of the task: checkout, index and repair.
    #[serde(default)]
    pub seconds: f64,
    /// Done by an earlier invocation.
    #[serde(default)]
    pub earlier: bool,
}

impl Record {
    /// A record of `status` with nothing spent.
    pub fn new(instance_id: &str, status: Status, reason: impl Into<String>) -> Record {
        Record {
            instance_id: instance_id.to_string(),
            status,
            outcome: None,
            patch: false,
            reason: reason.into(),
            model_calls: 0,
            usage: Usage::default(),
            cost: None,
            seconds: 0.0,
            earlier: false,
        }
    }
}
