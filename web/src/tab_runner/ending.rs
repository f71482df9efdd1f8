//! How a run in a worker ends: the one reading of a worker's answer that the tab's Python and JavaScript share.
//! The run's progress replies keep what it printed so far, so a run that ends without an exit code (its time ran out,
//! or the worker broke down) keeps its output until then, as the runner server does.

use acr_core::runner::{RunError, RunOutcome};
use serde::Serialize;

use super::protocol::{FailureCause, MissingModule, Reply};
use crate::browser;
use crate::worker::{ModuleWorker, WorkerError};

/// How a run in a worker ended.
#[derive(Debug)]
pub enum Ending {
    /// The program ran to its end, with its exit code.
    Exited {
        /// What it printed and how it exited.
        outcome: RunOutcome,
        /// Modules it could not import (Python's worker reports them).
        missing_modules: Vec<MissingModule>,
        /// The size of the worker's heap after the run, in bytes (Python's worker reports it).
        heap_bytes: f64,
    },
    /// It stopped without an exit code: timed out, or the worker broke down (said at the end of stderr).
    Stopped(RunOutcome),
}

impl Ending {
    /// The run's outcome, however it ended.
    pub fn into_outcome(self) -> RunOutcome {
        match self {
            Ending::Exited { outcome, .. } | Ending::Stopped(outcome) => outcome,
        }
    }
}

/// Sends the run `make(id)` to `worker` and waits for its end, at most `timeout_ms`. `engine` names the worker in
/// errors ("the tab's Python"); `stopped` says what stderr gains when the worker broke down.
pub async fn run<Q: Serialize>(
    worker: &ModuleWorker<Q, Reply>,
    make: impl FnOnce(u64) -> Q,
    timeout_ms: f64,
    engine: &str,
    stopped: impl Fn(FailureCause, &str) -> String,
) -> Result<Ending, RunError> {
    let started = browser::now();
    let mut printed = RunOutcome::default();
    let answer = worker
        .request(make, Some(timeout_ms), |progress| {
            if let Reply::Output { stdout, stderr, truncated, .. } = progress {
                printed = RunOutcome { stdout, stderr, truncated, ..RunOutcome::default() };
            }
        })
        .await;
    printed.duration_ms = (browser::now() - started).max(0.0).round() as u64;
    let duration_ms = printed.duration_ms;
    match answer {
        Ok(Reply::Done { exit_code, stdout, stderr, truncated, missing_modules, heap_bytes, .. }) => {
            let outcome = RunOutcome { exit_code, stdout, stderr, duration_ms, truncated, ..RunOutcome::default() };
            Ok(Ending::Exited { outcome, missing_modules, heap_bytes })
        }
        Ok(Reply::Failed { message, cause, .. }) => {
            printed.stderr.push_str(&stopped(cause, &message));
            Ok(Ending::Stopped(printed))
        }
        Ok(other) => Err(RunError::Unavailable(format!("unexpected answer from {engine}: {other:?}"))),
        Err(WorkerError::TimedOut) => Ok(Ending::Stopped(RunOutcome { timed_out: true, ..printed })),
        Err(WorkerError::Crashed(message)) => {
            printed.stderr.push_str(&stopped(FailureCause::Error, &message));
            Ok(Ending::Stopped(printed))
        }
        Err(e) => Err(RunError::Unavailable(e.to_string())),
    }
}
