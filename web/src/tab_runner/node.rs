//! `node SCRIPT` in the tab: JavaScript runs on the page's own engine, in a worker started for the one run
//! (`web/js/script-worker.mjs`), so nothing is downloaded. The modules the script loads are planned here
//! ([`super::module_plan`]) and sent with it; the worker answers as the Python worker does ([`Reply`]), and the page
//! enforces the time limit by terminating it.

use std::collections::BTreeMap;

use acr_core::runner::{RunError, RunOutcome};
use serde::Serialize;

use super::module_plan::{self, Module, PlanError};
use super::protocol::{FailureCause, Reply};
use super::{OUTPUT_BYTES, breakdown};
use crate::browser;
use crate::worker::{ModuleWorker, WorkerError};

/// The worker's script, next to the page.
const WORKER_URL: &str = "./script-worker.mjs";

/// From the page to the script worker.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ScriptRequest {
    /// Run the first module of `modules`.
    Run {
        /// The request's id.
        id: u64,
        /// Every module the run loads, the entry first.
        modules: Vec<Module>,
        /// The command line, split (`node`, the script, its arguments).
        argv: Vec<String>,
        /// Bytes kept per output stream.
        output_bytes: usize,
    },
}

/// How `node`'s command line reads: the script and its arguments, or why the tab does not run it.
pub fn script_of(argv: &[String]) -> Result<&str, String> {
    match argv.get(1).map(String::as_str) {
        Some(script) if !script.starts_with('-') => Ok(script),
        Some(option) => Err(format!(
            "node {option}: not available in this tab (only `node SCRIPT` runs here; the local runner or the runner \
             server runs Node itself)\n"
        )),
        None => Err("node: no script to run (the tab has no interactive Node)\n".into()),
    }
}

/// Runs `argv` (`node SCRIPT ...`) on the snapshot `files` within `timeout_ms`.
pub async fn run(files: &BTreeMap<String, String>, argv: Vec<String>, timeout_ms: f64) -> Result<RunOutcome, RunError> {
    let script = match script_of(&argv) {
        Ok(script) => script,
        Err(stderr) => return Ok(RunOutcome { exit_code: Some(9), stderr, ..RunOutcome::default() }),
    };
    let modules = match module_plan::plan(files, script) {
        Ok(plan) => plan.modules,
        Err(e) => return Ok(RunOutcome { exit_code: Some(1), stderr: refusal(&e), ..RunOutcome::default() }),
    };
    let worker: ModuleWorker<ScriptRequest, Reply> =
        ModuleWorker::start(WORKER_URL).map_err(|e| RunError::Unavailable(e.to_string()))?;
    let started = browser::now();
    let mut so_far = (String::new(), String::new(), false);
    let answer = worker
        .request(
            |id| ScriptRequest::Run { id, modules, argv, output_bytes: OUTPUT_BYTES },
            Some(timeout_ms),
            |progress| {
                if let Reply::Output { stdout, stderr, truncated, .. } = progress {
                    so_far = (stdout, stderr, truncated);
                }
            },
        )
        .await;
    worker.terminate();
    let duration_ms = (browser::now() - started).max(0.0).round() as u64;
    let killed = |(stdout, stderr, truncated): (String, String, bool), timed_out: bool| RunOutcome {
        stdout,
        stderr,
        duration_ms,
        timed_out,
        truncated,
        ..RunOutcome::default()
    };
    match answer {
        Ok(Reply::Done { exit_code, stdout, stderr, truncated, .. }) => {
            Ok(RunOutcome { exit_code, stdout, stderr, duration_ms, truncated, ..RunOutcome::default() })
        }
        Ok(Reply::Failed { message, cause, .. }) => {
            so_far.1.push_str(&stopped(cause, &message));
            Ok(killed(so_far, false))
        }
        Ok(other) => Err(RunError::Unavailable(format!("unexpected answer from the tab's JavaScript: {other:?}"))),
        Err(WorkerError::TimedOut) => Ok(killed(so_far, true)),
        Err(WorkerError::Crashed(message)) => {
            so_far.1.push_str(&stopped(FailureCause::Error, &message));
            Ok(killed(so_far, false))
        }
        Err(e) => Err(RunError::Unavailable(e.to_string())),
    }
}

/// What stderr says when the worker broke down during a run.
fn stopped(cause: FailureCause, message: &str) -> String {
    match cause {
        FailureCause::Error => format!("\n[in this tab: JavaScript stopped: {message}]\n"),
        other => breakdown(other, message),
    }
}

/// What stderr says when the run could not be planned.
pub fn refusal(error: &PlanError) -> String {
    match error {
        PlanError::NoEntry(message) => format!("{message}\n"),
        PlanError::Circle(paths) => format!(
            "[in this tab: the ES modules {} import each other in a circle, which the tab cannot load (each module \
             needs the URL of the other first); the local runner or the runner server runs them with Node]\n",
            paths.join(" -> ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(line: &str) -> Vec<String> {
        line.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn a_script_runs_and_options_say_why_not() {
        assert_eq!(script_of(&argv("node reproducer.mjs a b")), Ok("reproducer.mjs"));
        assert!(script_of(&argv("node --test")).unwrap_err().contains("only `node SCRIPT` runs here"));
        assert!(script_of(&argv("node")).is_err());
    }

    #[test]
    fn a_refusal_names_the_circle() {
        let circle = PlanError::Circle(vec!["a.mjs".into(), "b.mjs".into(), "a.mjs".into()]);
        assert!(refusal(&circle).contains("a.mjs -> b.mjs -> a.mjs import each other in a circle"));
    }
}
