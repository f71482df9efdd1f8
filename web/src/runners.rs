//! Where a run's executions happen: in this tab (Pyodide, and JavaScript on the page's engine; the default), on the
//! runner server, or nowhere.

use acr_core::runner::{RunError, RunOutcome, RunRequest, Runner};
use serde::{Deserialize, Serialize};

use crate::runner_client::BrowserRunner;
use crate::tab_runner::TabRunner;

/// The runner setting.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunnerKind {
    /// Python in this tab (Pyodide), and JavaScript on the page's engine.
    #[default]
    Tab,
    /// The `acr-runner` server, reached with a URL and a token.
    Server,
    /// No execution: patches are checked by the syntax gate and, in MCTS, rated by the model.
    None,
}

impl RunnerKind {
    /// Every choice, in menu order.
    pub const ALL: [RunnerKind; 3] = [RunnerKind::Tab, RunnerKind::Server, RunnerKind::None];

    /// The menu label.
    pub fn label(self) -> &'static str {
        match self {
            RunnerKind::Tab => "In this tab (Pyodide; JavaScript)",
            RunnerKind::Server => "Runner server (URL + token)",
            RunnerKind::None => "None",
        }
    }

    /// A stable identifier for the `<select>`.
    pub fn id(self) -> &'static str {
        match self {
            RunnerKind::Tab => "tab",
            RunnerKind::Server => "server",
            RunnerKind::None => "none",
        }
    }

    /// The choice with an identifier (the default for an unknown one).
    pub fn from_id(id: &str) -> RunnerKind {
        RunnerKind::ALL.into_iter().find(|k| k.id() == id).unwrap_or_default()
    }
}

/// The runner a run uses.
#[derive(Clone)]
pub enum PageRunner {
    /// Python in this tab.
    Tab(TabRunner),
    /// The runner server.
    Server(BrowserRunner),
}

impl PageRunner {
    /// Where executions happen, as the transcript says it.
    pub fn place(&self) -> String {
        match self {
            PageRunner::Tab(_) => "in this tab".into(),
            PageRunner::Server(server) => format!("on the runner at {}", server.base_url()),
        }
    }
}

impl Runner for PageRunner {
    async fn run(&self, request: &RunRequest) -> Result<RunOutcome, RunError> {
        match self {
            PageRunner::Tab(tab) => tab.run(request).await,
            PageRunner::Server(server) => server.run(request).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tab_is_the_default_and_ids_round_trip() {
        assert_eq!(RunnerKind::default(), RunnerKind::Tab);
        for kind in RunnerKind::ALL {
            assert_eq!(RunnerKind::from_id(kind.id()), kind);
        }
        assert_eq!(RunnerKind::from_id("gone"), RunnerKind::Tab);
        assert_eq!(serde_json::to_string(&RunnerKind::Server).unwrap(), "\"server\"");
    }
}
