//! [`LocalRunner`]: the [`Runner`] trait with local processes, for the CLI.

use acr_core::runner::{RunError, RunOutcome, RunRequest, Runner};

use crate::exec::{ExecLimits, Sandbox, SandboxError, execute};

/// Runs requests on this machine, in the calling thread, under the same sandbox as the server's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalRunner {
    sandbox: Sandbox,
    limits: ExecLimits,
}

impl LocalRunner {
    /// A runner with the given isolation and limits.
    pub fn new(sandbox: Sandbox, limits: ExecLimits) -> Self {
        LocalRunner { sandbox, limits }
    }

    /// A runner that contains every run in bubblewrap (see [`Sandbox::detect`]), with the interpreter called
    /// `python` (default `python3`) and the default limits; an error when bubblewrap cannot run here.
    pub fn detect(python: Option<&str>) -> Result<Self, SandboxError> {
        Ok(LocalRunner::new(Sandbox::detect(python)?, ExecLimits::default()))
    }

    /// The isolation in use.
    pub fn sandbox(&self) -> &Sandbox {
        &self.sandbox
    }

    /// The limits in use.
    pub fn limits(&self) -> &ExecLimits {
        &self.limits
    }
}

impl Runner for LocalRunner {
    /// Blocks the polling thread for the whole run (the future is ready on its first poll).
    async fn run(&self, request: &RunRequest) -> Result<RunOutcome, RunError> {
        execute(request, &self.limits, &self.sandbox).map_err(RunError::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_local_runner_applies_acrs_reproduction_rule() {
        let runner = LocalRunner::detect(None).expect("bubblewrap runs here (tools/setup.sh installs it)");
        let request = RunRequest {
            files: [("r.py".to_string(), "assert 2 + 2 == 5, 'arithmetic'\n".to_string())].into(),
            command: "python3 r.py".into(),
            timeout_secs: 20,
            ..RunRequest::default()
        };
        let outcome = pollster::block_on(runner.run(&request)).expect("runs");
        assert!(outcome.reproduces_bug() && !outcome.unsandboxed, "{outcome:?}");
        let refused = RunRequest { command: String::new(), ..request };
        assert!(matches!(pollster::block_on(runner.run(&refused)), Err(RunError::Refused(_))));
    }
}
