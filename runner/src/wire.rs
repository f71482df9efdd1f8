//! The JSON exchanged with the server, shared by the server and the clients.
//!
//! `POST /run` takes a [`RunBody`]: the fields of [`RunRequest`] plus an optional `zip` (a base64 zip snapshot,
//! read with [`acr_core::Repo::from_zip`]; `files` entries are laid over it). It answers with a
//! [`acr_core::runner::RunOutcome`], or an [`ErrorBody`] with status 400 (refused), 401 (token), 413 (too large),
//! 429 (busy) or 500. `GET /health` answers with a [`Health`].

use std::collections::BTreeMap;

use acr_core::runner::RunRequest;
use serde::{Deserialize, Serialize};

use crate::exec::{Containment, ExecLimits, NetworkIsolation};

/// The body of `POST /run`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunBody {
    /// Relative path to text; laid over the zip snapshot when both are given.
    #[serde(default)]
    pub files: BTreeMap<String, String>,
    /// A zip archive of the repository, base64-encoded (standard alphabet, padded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zip: Option<String>,
    /// A unified diff to apply before running (empty for none).
    #[serde(default)]
    pub patch: String,
    /// The command line, split like a shell would but never given to one.
    pub command: String,
    /// Wall-clock limit in seconds (cut to the server's maximum).
    pub timeout_secs: u32,
}

impl From<&RunRequest> for RunBody {
    fn from(r: &RunRequest) -> Self {
        RunBody {
            files: r.files.clone(),
            zip: None,
            patch: r.patch.clone(),
            command: r.command.clone(),
            timeout_secs: r.timeout_secs,
        }
    }
}

/// The answer of `GET /health`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Health {
    /// Always `"ok"` when the server answers.
    pub status: String,
    /// The runner's version.
    pub version: String,
    /// How runs are contained: `bubblewrap`, or `none` for a server started with `--unsafe-no-sandbox`.
    pub containment: Containment,
    /// What running without containment means, present only then (the playground shows it in red).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    /// How runs are cut off from the network on this machine.
    pub network_isolation: NetworkIsolation,
    /// Whether per-process memory, CPU and file limits are enforced.
    pub resource_limits: bool,
    /// Whether the number of processes per run is capped (fork bombs stop there).
    pub process_cap: bool,
    /// Whether the total memory per run is capped (a control group).
    pub memory_cap: bool,
    /// The interpreter `python3` means in runs, e.g. `python3 3.11.7 (/usr/bin/python3)`, when one was found.
    #[serde(default)]
    pub python: Option<String>,
    /// The limits in force.
    pub limits: ExecLimits,
    /// Runs allowed at once.
    pub concurrency: usize,
    /// Free run slots right now.
    pub available: usize,
}

/// The body of every error answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    /// What went wrong, for people.
    pub error: String,
}
