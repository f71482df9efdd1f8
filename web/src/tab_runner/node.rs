//! `node SCRIPT` and `node --test FILES` in the tab: JavaScript runs on the page's own engine, in a worker started
//! for the one script or test file (`web/js/script-worker.mjs`), so nothing is downloaded. The modules a worker
//! loads are planned here ([`super::module_plan`]) and sent with it; the worker answers as the Python worker does
//! ([`Reply`]), and the page enforces the time limit by terminating it. As Node runs each test file in a process of
//! its own, each gets a worker of its own; their outputs are joined, and the exit code is 1 when any failed.

use std::collections::BTreeMap;

use acr_core::language::TYPESCRIPT_LOADER;
use acr_core::runner::{RunError, RunOutcome};
use serde::Serialize;

use super::ending::{self, Ending};
use super::module_plan::{self, Module, PlanError};
use super::protocol::{FailureCause, Reply};
use super::{OUTPUT_BYTES, breakdown};
use crate::browser;
use crate::worker::ModuleWorker;

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
        /// Whether the entry is a test file run as `node --test` runs one.
        test: bool,
        /// The module of the plan that reads the test events, if one was named (`--test-reporter`).
        reporter: Option<usize>,
    },
}

/// What a `node` command line asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum Invocation<'a> {
    /// `node SCRIPT ARGS...`.
    Script(&'a str),
    /// `node --test [--test-reporter=FILE] FILES...`.
    Tests {
        /// The test files.
        files: Vec<&'a str>,
        /// The reporter module, if one was named.
        reporter: Option<&'a str>,
    },
}

/// How `node`'s command line reads, or why the tab does not run it.
pub fn invocation(argv: &[String]) -> Result<Invocation<'_>, String> {
    let not_here = |what: &str| {
        format!(
            "node {what}: not available in this tab (`node SCRIPT` and `node --test FILES` run here; the local \
             runner or the runner server runs Node itself)\n"
        )
    };
    // acr's TypeScript loader: the tab finds and reads TypeScript itself (see `module_plan`).
    let loader = ["--import".to_string(), format!("./{}", TYPESCRIPT_LOADER.0)];
    // What follows `node` (and the loader).
    let words = if argv.get(1..3) == Some(&loader[..]) { &argv[3..] } else { argv.get(1..).unwrap_or_default() };
    match words.first().map(String::as_str) {
        Some("--test") => {
            let mut files = Vec::new();
            let mut reporter = None;
            let mut words = words[1..].iter().map(String::as_str);
            while let Some(word) = words.next() {
                match word {
                    "--test-reporter" => reporter = words.next(),
                    w if w.starts_with("--test-reporter=") => reporter = w.split_once('=').map(|(_, r)| r),
                    w if w.starts_with('-') => return Err(not_here(&format!("--test {w}"))),
                    file => files.push(file),
                }
            }
            // Node's own reporters (spec, tap, dot) are names, not files: the tab prints one line per test for them.
            let reporter = reporter.filter(|r| r.contains('/') || r.contains('.'));
            if files.is_empty() {
                return Err("node --test: name the test files (the tab does not look for them)\n".into());
            }
            Ok(Invocation::Tests { files, reporter })
        }
        Some(script) if !script.starts_with('-') => Ok(Invocation::Script(script)),
        Some(option) => Err(not_here(option)),
        None => Err("node: no script to run (the tab has no interactive Node)\n".into()),
    }
}

/// Runs `argv` (`node SCRIPT ...` or `node --test FILES`) on the snapshot `files` within `timeout_ms`.
pub async fn run(files: &BTreeMap<String, String>, argv: Vec<String>, timeout_ms: f64) -> Result<RunOutcome, RunError> {
    let started = browser::now();
    match invocation(&argv) {
        Err(stderr) => Ok(RunOutcome { exit_code: Some(9), stderr, ..RunOutcome::default() }),
        Ok(Invocation::Script(script)) => run_one(files, &[script], &argv, false, timeout_ms).await,
        Ok(Invocation::Tests { files: tests, reporter }) => {
            let mut all = RunOutcome { exit_code: Some(0), ..RunOutcome::default() };
            for test in tests {
                let left = timeout_ms - (browser::now() - started);
                let entries: Vec<&str> = std::iter::once(test).chain(reporter).collect();
                let one = run_one(files, &entries, &argv, true, left.max(1.0)).await?;
                all.stdout.push_str(&one.stdout);
                all.stderr.push_str(&one.stderr);
                all.truncated |= one.truncated;
                all.duration_ms = (browser::now() - started).max(0.0).round() as u64;
                if one.timed_out || one.exit_code.is_none() {
                    return Ok(RunOutcome { exit_code: None, timed_out: one.timed_out, ..all });
                }
                if one.exit_code != Some(0) {
                    all.exit_code = Some(1);
                }
            }
            Ok(all)
        }
    }
}

/// Runs the first of `entries` in a worker of its own (a test file when `test`, its reporter the second entry).
async fn run_one(
    files: &BTreeMap<String, String>,
    entries: &[&str],
    argv: &[String],
    test: bool,
    timeout_ms: f64,
) -> Result<RunOutcome, RunError> {
    let modules = match module_plan::plan(files, entries) {
        Ok(plan) => plan.modules,
        Err(e) => return Ok(RunOutcome { exit_code: Some(1), stderr: refusal(&e), ..RunOutcome::default() }),
    };
    let reporter = (test && entries.len() > 1).then_some(1);
    let argv = argv.to_vec();
    let worker: ModuleWorker<ScriptRequest, Reply> =
        ModuleWorker::start(WORKER_URL).map_err(|e| RunError::Unavailable(e.to_string()))?;
    let run = |id| ScriptRequest::Run { id, modules, argv, output_bytes: OUTPUT_BYTES, test, reporter };
    let ending = ending::run(&worker, run, timeout_ms, "the tab's JavaScript", stopped).await;
    worker.terminate();
    ending.map(Ending::into_outcome)
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
    fn scripts_and_test_files_run_and_other_options_say_why_not() {
        assert_eq!(invocation(&argv("node reproducer.mjs a b")), Ok(Invocation::Script("reproducer.mjs")));
        assert_eq!(
            invocation(&argv("node --import ./acr_typescript.mjs reproducer.mjs")),
            Ok(Invocation::Script("reproducer.mjs")),
            "acr's TypeScript loader: the tab loads TypeScript itself"
        );
        assert_eq!(
            invocation(&argv("node --test --test-reporter=./acr_test_reporter.mjs test/a.test.js test/b.test.js")),
            Ok(Invocation::Tests {
                files: vec!["test/a.test.js", "test/b.test.js"],
                reporter: Some("./acr_test_reporter.mjs")
            })
        );
        assert_eq!(
            invocation(&argv("node --test --test-reporter spec t.js")),
            Ok(Invocation::Tests { files: vec!["t.js"], reporter: None }),
            "a reporter of Node's own, by name"
        );
        assert!(invocation(&argv("node --test")).unwrap_err().contains("name the test files"));
        assert!(invocation(&argv("node --inspect r.js")).unwrap_err().contains("not available in this tab"));
        assert!(invocation(&argv("node --test --watch t.js")).unwrap_err().contains("--test --watch"));
        assert!(invocation(&argv("node")).is_err());
    }

    #[test]
    fn a_refusal_names_the_circle() {
        let circle = PlanError::Circle(vec!["a.mjs".into(), "b.mjs".into(), "a.mjs".into()]);
        assert!(refusal(&circle).contains("a.mjs -> b.mjs -> a.mjs import each other in a circle"));
    }
}
