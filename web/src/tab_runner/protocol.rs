//! The messages between the page and the Python worker (`web/js/python-worker.mjs`), as serde types.

use std::collections::BTreeMap;
use std::rc::Rc;

use serde::{Deserialize, Serialize, Serializer};

use crate::worker;

/// From the page to the worker.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Request {
    /// Load Pyodide, install the packages, record the state every run starts from, close the doors.
    Setup {
        /// The request's id.
        id: u64,
        /// What to install.
        packages: PackageRequest,
        /// Bytes kept per output stream.
        output_bytes: usize,
        /// Largest memory Python may use, in bytes.
        memory_bytes: u64,
    },
    /// Run a command on a snapshot.
    Run {
        /// The request's id.
        id: u64,
        /// The patched snapshot: relative path to text.
        files: BTreeMap<String, String>,
        /// The command line, split (`python3`, options, target, arguments).
        argv: Vec<String>,
    },
}

/// The packages to install at set-up.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PackageRequest {
    /// Wheels the user dropped, installed as they are.
    pub wheels: Vec<WheelFile>,
    /// Requirements for micropip (names, with versions or markers, or wheel URLs).
    pub requirements: Vec<String>,
    /// The package index to use instead of PyPI (empty: PyPI).
    pub index_url: String,
}

/// A wheel file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WheelFile {
    /// Its file name (`name-version-py3-none-any.whl`).
    pub name: String,
    /// Its bytes (sent as a `Uint8Array`).
    #[serde(serialize_with = "as_bytes")]
    pub bytes: Rc<[u8]>,
}

fn as_bytes<S: Serializer>(bytes: &Rc<[u8]>, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_bytes(bytes)
}

/// From the worker to the page.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Reply {
    /// Set-up is done.
    Ready {
        /// The request's id.
        id: u64,
        /// The Python version, e.g. `3.14.2`.
        python: String,
        /// The Pyodide version.
        pyodide: String,
        /// Every package installed, with where it came from.
        installed: Vec<Installed>,
        /// The requirements and wheels that could not be installed, with why.
        failed: Vec<NotInstalled>,
    },
    /// What a run has printed so far (kept by the page in case the run times out).
    Output {
        /// The request's id.
        id: u64,
        /// Standard output so far (capped).
        stdout: String,
        /// Standard error so far (capped).
        stderr: String,
        /// Whether either stream was cut so far.
        #[serde(default)]
        truncated: bool,
    },
    /// A run ended.
    Done {
        /// The request's id.
        id: u64,
        /// The exit code, as CPython would give it; none when CPython would end by a signal.
        exit_code: Option<i32>,
        /// Standard output (capped).
        stdout: String,
        /// Standard error (capped).
        stderr: String,
        /// Whether either stream was cut.
        truncated: bool,
        /// Modules the run could not import that are neither in the repository nor installed.
        #[serde(default)]
        missing_modules: Vec<MissingModule>,
        /// The size of Python's memory after the run, in bytes.
        #[serde(default)]
        heap_bytes: f64,
    },
    /// A request failed in the worker itself (for a run: Python itself broke down).
    Failed {
        /// The request's id.
        id: u64,
        /// What went wrong.
        message: String,
        /// What it was.
        cause: FailureCause,
    },
}

/// What made a request fail in the worker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FailureCause {
    /// The memory ran out.
    Memory,
    /// The stack overflowed (a recursion deeper than the wasm stack allows).
    Stack,
    /// Anything else.
    Error,
}

/// An installed package.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Installed {
    /// Its name.
    pub name: String,
    /// Its version.
    pub version: String,
    /// `micropip` or `dropped wheel`.
    pub source: String,
}

/// A requirement or wheel that was not installed.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct NotInstalled {
    /// The requirement or wheel file name.
    pub requirement: String,
    /// Why, in words.
    pub reason: String,
}

/// A module a run could not import.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct MissingModule {
    /// The module's dotted name.
    pub name: String,
    /// `stdlib` (left out of Python in the browser) or `package` (not installed).
    pub kind: String,
}

impl worker::Message for Reply {
    fn id(&self) -> u64 {
        match self {
            Reply::Ready { id, .. } | Reply::Output { id, .. } | Reply::Done { id, .. } | Reply::Failed { id, .. } => {
                *id
            }
        }
    }
}

impl worker::Reply for Reply {
    fn is_final(&self) -> bool {
        !matches!(self, Reply::Output { .. })
    }
}
