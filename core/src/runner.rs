//! Execution, as a trait: run a command against a patched copy of the repository.
//!
//! The core never executes anything. The reproduce-and-review loop and MCTS validation ask a [`Runner`], which the
//! CLI implements with local processes and both the CLI and the playground implement over HTTP with the optional
//! reproducer runner (`runner/`). Without a runner those loops fall back to the syntax gate and the model's rating.

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;

use serde::{Deserialize, Serialize};

/// What to run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunRequest {
    /// The repository snapshot: relative path to text (the files the command needs; usually the whole repo).
    pub files: BTreeMap<String, String>,
    /// A unified diff to apply to the snapshot before running (empty for none).
    #[serde(default)]
    pub patch: String,
    /// The command line, e.g. `python3 reproducer.py`; split on whitespace, never given to a shell.
    pub command: String,
    /// Wall-clock limit in seconds.
    pub timeout_secs: u32,
}

/// How a run ended.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunOutcome {
    /// Exit code; `None` when the process was killed (timeout, memory limit, signal).
    pub exit_code: Option<i32>,
    /// Standard output, possibly truncated.
    pub stdout: String,
    /// Standard error, possibly truncated.
    pub stderr: String,
    /// Wall-clock duration in milliseconds.
    pub duration_ms: u64,
    /// Whether the time limit killed it.
    pub timed_out: bool,
    /// Whether stdout or stderr was cut to the size limit.
    #[serde(default)]
    pub truncated: bool,
    /// Whether the command ran without containment (a runner started with `--unsafe-no-sandbox`): it could
    /// read and change the files of the user running the runner. Written only when true (transcripts of contained
    /// runs stay as they were); runners that do not say are taken as contained.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unsandboxed: bool,
}

impl RunOutcome {
    /// Whether the run shows the bug, as AutoCodeRover decides it: a non-zero exit with `AssertionError` in stderr;
    /// or, for a test harness (Java's, [`crate::agent::junit`]), exit status 1 after a summary that counts failed
    /// tests (`3 passed, 1 failed`), so failing tests are the bug and code that does not compile is not.
    pub fn reproduces_bug(&self) -> bool {
        let tests_failed = || {
            let last = self.stdout.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("");
            let counts = last.split_once(" passed, ").and_then(|(p, f)| Some((p, f.strip_suffix(" failed")?)));
            counts.is_some_and(|(p, f)| p.parse::<u32>().is_ok() && f.parse::<u32>().is_ok_and(|f| f > 0))
        };
        self.exit_code != Some(0)
            && !self.timed_out
            && (self.stderr.contains("AssertionError") || (self.exit_code == Some(1) && tests_failed()))
    }

    /// Whether the run passed (exit 0).
    pub fn passed(&self) -> bool {
        self.exit_code == Some(0)
    }

    /// The last non-empty line of the error output (of the standard output when stderr is empty): for a Python
    /// failure, the exception and its message.
    pub fn error_line(&self) -> &str {
        fn last(s: &str) -> &str {
            s.lines().rev().map(str::trim).find(|l| !l.is_empty()).unwrap_or("")
        }
        match last(&self.stderr) {
            "" => last(&self.stdout),
            line => line,
        }
    }

    /// Whether two runs failed the same way: neither passed, and they share exit code, time-out and final error line.
    pub fn same_failure(&self, other: &RunOutcome) -> bool {
        !self.passed()
            && !other.passed()
            && (self.exit_code, self.timed_out) == (other.exit_code, other.timed_out)
            && self.error_line() == other.error_line()
    }
}

/// Why a run could not happen (as opposed to a run that failed).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RunError {
    /// The runner is not reachable.
    Unavailable(String),
    /// The runner refused the request (bad token, bad snapshot, patch does not apply, too busy).
    Refused(String),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Unavailable(m) => write!(f, "the runner is not reachable: {m}"),
            RunError::Refused(m) => write!(f, "the runner refused the request: {m}"),
        }
    }
}

impl std::error::Error for RunError {}

/// Something that executes commands against a repository snapshot.
pub trait Runner {
    /// Runs one request.
    fn run(&self, request: &RunRequest) -> impl Future<Output = Result<RunOutcome, RunError>>;
}

impl<R: Runner + ?Sized> Runner for &R {
    fn run(&self, request: &RunRequest) -> impl Future<Output = Result<RunOutcome, RunError>> {
        (**self).run(request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reproduction_needs_a_failing_exit_and_an_assertion_error() {
        let run = |code, stderr: &str| RunOutcome { exit_code: code, stderr: stderr.into(), ..RunOutcome::default() };
        assert!(run(Some(1), "Traceback...\nAssertionError: 50 != 150").reproduces_bug());
        assert!(!run(Some(1), "NameError: x").reproduces_bug());
        assert!(!run(Some(0), "AssertionError printed but exit 0").reproduces_bug());
        assert!(run(Some(0), "").passed());
    }

    #[test]
    fn failures_compare_by_exit_code_and_final_error_line() {
        let run = |code, stderr: &str| RunOutcome { exit_code: code, stderr: stderr.into(), ..RunOutcome::default() };
        let a = run(Some(1), "Traceback...\n  File \"r.py\", line 3\nAssertionError: 50 != 150\n\n");
        assert_eq!(a.error_line(), "AssertionError: 50 != 150");
        assert!(a.same_failure(&run(Some(1), "Traceback (other frames)\nAssertionError: 50 != 150")));
        assert!(!a.same_failure(&run(Some(1), "AssertionError: 100 != 150")));
        assert!(!a.same_failure(&run(Some(2), "AssertionError: 50 != 150")));
        assert!(!run(Some(0), "").same_failure(&run(Some(0), "")), "passing runs are not failures");
    }
}
