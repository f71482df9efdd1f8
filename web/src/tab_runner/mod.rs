//! Execution in the tab: [`TabRunner`] implements the core's [`Runner`] with Python compiled to WebAssembly
//! (Pyodide) in a dedicated worker, and JavaScript on the page's own engine in a worker of its own ([`node`]), so
//! reproducers and tests run with no server, offline included.
//!
//! The worker (`web/js/python-worker.mjs`, with `python_run.py`) is started the first time a run needs it. Each run
//! sends the patched snapshot and the command; the worker answers with CPython's exit code and the output, capped
//! as the runner server caps it. The page enforces the time limit by terminating the worker; a spare started in the
//! background takes over, so the next run does not wait for Pyodide to load again. A worker whose memory grew past
//! [`RETIRE_HEAP_BYTES`] (Python's heap cannot shrink) is replaced the same way.
//!
//! | module | what |
//! |---|---|
//! | [`protocol`] | the messages between the page and the workers |
//! | [`ending`] | how a run in a worker ended, from the worker's answer |
//! | [`packages`] | requirements read from the repository or typed, and dropped wheels |
//! | [`node`] | `node SCRIPT` in a worker started for the run |
//! | [`module_plan`] | the modules a `node` run loads, resolved as Node resolves them |

pub mod ending;
pub mod module_plan;
pub mod node;
pub mod packages;
pub mod protocol;

use std::cell::RefCell;
use std::rc::Rc;

use acr_core::runner::{RunError, RunOutcome, RunRequest, Runner};
use acr_core::snapshot;
use futures::FutureExt;
use leptos::prelude::*;
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::browser;
use crate::worker::{ModuleWorker, Warm, WorkerError};
use ending::Ending;
use packages::Packages;
use protocol::{FailureCause, Installed, MissingModule, NotInstalled, Reply, Request};

/// The worker's script, next to the page.
const WORKER_URL: &str = "./python-worker.mjs";
/// Bytes kept per output stream, as the runner server keeps (`acr-runner --output-kb 64`).
pub const OUTPUT_BYTES: usize = 64 << 10;
/// Python's memory limit, as the runner server's default (`acr-runner --memory-mb 1024`).
pub const MEMORY_BYTES: u64 = 1 << 30;
/// The longest time limit a run may ask for, as the runner server's (`--max-timeout 600`).
const MAX_TIMEOUT_SECS: u32 = 600;
/// How long loading Pyodide and installing packages may take.
const SETUP_DEADLINE_MS: f64 = 300_000.0;
/// A worker whose Python heap grew past this is replaced after the run.
pub const RETIRE_HEAP_BYTES: f64 = 512.0 * 1024.0 * 1024.0;

/// What the tab's Python is doing, for the settings panel.
#[derive(Debug, Clone, PartialEq)]
pub enum PythonStatus {
    /// Not loaded yet: it loads the first time a run needs it.
    NotStarted,
    /// Loading Pyodide and installing packages.
    Starting,
    /// Ready.
    Ready(ReadyInfo),
    /// It could not start; why.
    Failed(String),
}

/// What set-up reported.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadyInfo {
    /// The Python version.
    pub python: String,
    /// The Pyodide version.
    pub pyodide: String,
    /// Milliseconds from starting the worker to ready.
    pub ms: f64,
    /// Installed packages.
    pub installed: Vec<Installed>,
    /// Requirements and wheels that were not installed, with why.
    pub failed: Vec<NotInstalled>,
}

/// A started worker and what its set-up reported.
struct Python {
    worker: ModuleWorker<Request, Reply>,
    info: ReadyInfo,
}

struct Inner {
    warm: Warm<Python>,
    packages: Rc<RefCell<Packages>>,
    status: ArcRwSignal<PythonStatus>,
    one_at_a_time: futures::lock::Mutex<()>,
}

/// The [`Runner`] that executes in this tab. Cheap to clone; every clone shares the page's one Python.
#[derive(Clone)]
pub struct TabRunner {
    inner: Rc<Inner>,
}

thread_local! {
    static SHARED: TabRunner = TabRunner::new();
}

impl TabRunner {
    fn new() -> TabRunner {
        let packages = Rc::new(RefCell::new(Packages::default()));
        let for_start = packages.clone();
        let warm = Warm::new(move || start(for_start.borrow().clone()).boxed_local());
        TabRunner {
            inner: Rc::new(Inner {
                warm,
                packages,
                status: ArcRwSignal::new(PythonStatus::NotStarted),
                one_at_a_time: futures::lock::Mutex::new(()),
            }),
        }
    }

    /// The page's runner.
    pub fn shared() -> TabRunner {
        SHARED.with(TabRunner::clone)
    }

    /// What Python is doing (a signal: views follow it).
    pub fn status(&self) -> ArcRwSignal<PythonStatus> {
        self.inner.status.clone()
    }

    /// Sets the packages to install; when they change, the workers started with the old ones are stopped and the
    /// next run starts a new one.
    pub fn set_packages(&self, packages: Packages) {
        if *self.inner.packages.borrow() == packages {
            return;
        }
        *self.inner.packages.borrow_mut() = packages;
        self.inner.warm.reset();
        self.inner.status.set(PythonStatus::NotStarted);
    }

    /// Loads Python now (and installs the packages) instead of at the first run.
    pub async fn start_now(&self) -> Result<ReadyInfo, String> {
        self.python().await.map(|p| p.info.clone())
    }

    /// Whether a started Python and a started spare are ready.
    pub fn readiness(&self) -> (bool, bool) {
        (self.inner.warm.ready().is_some(), self.inner.warm.spare_ready())
    }

    async fn python(&self) -> Result<Rc<Python>, String> {
        if self.inner.warm.ready().is_none() {
            self.inner.status.set(PythonStatus::Starting);
        }
        match self.inner.warm.get().await {
            Ok(python) => {
                self.inner.status.set(PythonStatus::Ready(python.info.clone()));
                Ok(python)
            }
            Err(e) => {
                let message = format!("Python could not start in this tab: {e}");
                self.inner.status.set(PythonStatus::Failed(message.clone()));
                Err(message)
            }
        }
    }

    async fn execute(&self, request: &RunRequest) -> Result<RunOutcome, RunError> {
        let files = snapshot::patched_files(request)?;
        let timeout_ms = f64::from(request.timeout_secs.clamp(1, MAX_TIMEOUT_SECS)) * 1000.0;
        let argv = match command(&request.command)? {
            Command::Python(argv) => argv,
            Command::Node(argv) => {
                let _turn = self.inner.one_at_a_time.lock().await;
                return node::run(&files, argv, timeout_ms).await;
            }
            Command::NotFound(stderr) => {
                return Ok(RunOutcome { exit_code: Some(127), stderr, ..RunOutcome::default() });
            }
        };
        let _turn = self.inner.one_at_a_time.lock().await;
        let python = self.python().await.map_err(RunError::Unavailable)?;
        let run = |id| Request::Run { id, files, argv };
        match ending::run(&python.worker, run, timeout_ms, "the tab's Python", breakdown).await {
            Ok(Ending::Exited { mut outcome, missing_modules, heap_bytes }) => {
                let grown = heap_bytes > RETIRE_HEAP_BYTES;
                if grown {
                    self.inner.warm.discard(&python);
                }
                let out_of_memory = grown && outcome.stderr.contains("MemoryError");
                outcome.stderr.push_str(&notes(&missing_modules, out_of_memory));
                Ok(outcome)
            }
            // A Python that stopped in the middle of a run, or answered what it should not, is not used again.
            stopped => {
                self.inner.warm.discard(&python);
                stopped.map(Ending::into_outcome)
            }
        }
    }
}

impl Runner for TabRunner {
    async fn run(&self, request: &RunRequest) -> Result<RunOutcome, RunError> {
        self.execute(request).await
    }
}

/// Starts a worker and sets it up with `packages`.
async fn start(packages: Packages) -> Result<Rc<Python>, WorkerError> {
    let started = browser::now();
    let worker = ModuleWorker::start(WORKER_URL)?;
    let setup = |id| Request::Setup {
        id,
        packages: packages.request(),
        output_bytes: OUTPUT_BYTES,
        memory_bytes: MEMORY_BYTES,
    };
    match worker.request(setup, Some(SETUP_DEADLINE_MS), |_| {}).await? {
        Reply::Ready { python, pyodide, installed, failed, .. } => {
            let info = ReadyInfo { python, pyodide, ms: browser::now() - started, installed, failed };
            Ok(Rc::new(Python { worker, info }))
        }
        Reply::Failed { message, .. } => Err(WorkerError::Crashed(message)),
        other => Err(WorkerError::Protocol(format!("{other:?}"))),
    }
}

/// How the tab runs a command line.
#[derive(Debug, PartialEq)]
pub enum Command {
    /// With Python, these arguments.
    Python(Vec<String>),
    /// With the page's JavaScript engine, as Node: these arguments.
    Node(Vec<String>),
    /// Not at all: a program the tab does not have (the text for stderr, with exit 127 as a shell gives).
    NotFound(String),
}

/// Reads a command line: `python3 ...` runs as it is, `pytest ...` as `python3 -m pytest ...`, `node ...` with the
/// page's JavaScript, anything else is not found. A command the runner server refuses (unbalanced quotes, nothing to run) is refused the same way.
pub fn command(line: &str) -> Result<Command, RunError> {
    let words = shlex::split(line).ok_or_else(|| RunError::Refused("bad command: unbalanced quotes".into()))?;
    let Some(program) = words.first() else { return Err(RunError::Refused("bad command: empty command".into())) };
    let name = program.rsplit('/').next().unwrap_or(program);
    let is_python = name == "python"
        || name.strip_prefix("python3").is_some_and(|v| {
            v.is_empty() || v.strip_prefix('.').is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        });
    if is_python {
        return Ok(Command::Python(words));
    }
    if name == "node" || name == "nodejs" {
        return Ok(Command::Node(words));
    }
    if name == "pytest" || name == "py.test" {
        let mut argv = vec!["python3".to_string(), "-m".to_string(), "pytest".to_string()];
        argv.extend(words.into_iter().skip(1));
        return Ok(Command::Python(argv));
    }
    Ok(Command::NotFound(format!(
        "{program}: command not found (only python3, pytest and node commands run in this tab)\n"
    )))
}

/// What stderr says when Python broke down during a run.
pub fn breakdown(cause: FailureCause, message: &str) -> String {
    match cause {
        FailureCause::Memory => format!("\nMemoryError: Python ran out of memory in this tab ({message})\n"),
        FailureCause::Stack => {
            format!("\n[in this tab: the stack overflowed ({message}); a recursion this deep crashes CPython too]\n")
        }
        FailureCause::Error => format!("\n[in this tab: Python stopped: {message}]\n"),
    }
}

/// Lines added to stderr to say what the tab lacks (never `AssertionError`, so the verdict is unchanged).
pub fn notes(missing: &[MissingModule], out_of_memory: bool) -> String {
    let mut text = String::new();
    for m in missing {
        let top = m.name.split('.').next().unwrap_or(&m.name);
        if m.kind == "stdlib" {
            text.push_str(&format!(
                "\n[in this tab: `{top}` is part of CPython's standard library but not of Python in the browser]\n"
            ));
        } else {
            text.push_str(&format!(
                "\n[in this tab: the package that provides `{top}` is not installed; list it under Packages \
                 (installed with micropip when online) or drop its wheel]\n"
            ));
        }
    }
    if out_of_memory {
        text.push_str(&format!(
            "\n[in this tab: Python used its {} MiB of memory; the next run gets a fresh Python]\n",
            MEMORY_BYTES >> 20
        ));
    }
    text
}

/// Runs a request in the tab's Python, as the agent would (for tests and benchmarks). Takes and returns the JSON
/// shapes of `RunRequest` and `RunOutcome`; a refused request is thrown as a string.
#[wasm_bindgen(js_name = runInTab)]
pub async fn run_in_tab(request: JsValue) -> Result<JsValue, JsValue> {
    let request: RunRequest = serde_wasm_bindgen::from_value(request).map_err(|e| JsValue::from_str(&e.to_string()))?;
    let outcome = TabRunner::shared().run(&request).await.map_err(|e| JsValue::from_str(&e.to_string()))?;
    outcome.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).map_err(|e| JsValue::from_str(&e.to_string()))
}

/// Whether the tab's Python and its spare are started: `[ready, spare ready]` (for tests and benchmarks).
#[wasm_bindgen(js_name = tabPythonReadiness)]
pub fn tab_python_readiness() -> js_sys::Array {
    let (ready, spare) = TabRunner::shared().readiness();
    js_sys::Array::of2(&JsValue::from_bool(ready), &JsValue::from_bool(spare))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(line: &str) -> Vec<String> {
        match command(line) {
            Ok(Command::Python(argv)) => argv,
            other => panic!("{line}: {other:?}"),
        }
    }

    fn not_found(line: &str) -> String {
        match command(line) {
            Ok(Command::NotFound(stderr)) => stderr,
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn python_commands_run_and_others_are_not_found() {
        assert_eq!(argv("python3 reproducer.py"), ["python3", "reproducer.py"]);
        assert_eq!(argv("/usr/bin/python3.14 -m pytest"), ["/usr/bin/python3.14", "-m", "pytest"]);
        assert_eq!(argv("python -c 'print(1)'"), ["python", "-c", "print(1)"]);
        assert_eq!(argv("pytest -q tests"), ["python3", "-m", "pytest", "-q", "tests"]);
        assert!(not_found("python3.x r.py").starts_with("python3.x: command not found"));
        assert!(not_found("ls -la").starts_with("ls: command not found"));
        assert!(matches!(command("node reproducer.mjs"), Ok(Command::Node(a)) if a == ["node", "reproducer.mjs"]));
    }

    #[test]
    fn commands_the_runner_server_refuses_are_refused() {
        for line in ["", "   ", "python3 'r.py"] {
            assert!(matches!(command(line), Err(RunError::Refused(_))), "{line:?}");
        }
    }

    #[test]
    fn a_breakdown_says_what_broke() {
        assert!(breakdown(FailureCause::Memory, "OOM").contains("MemoryError"));
        assert!(breakdown(FailureCause::Stack, "Maximum call stack size exceeded").contains("stack overflowed"));
        assert!(!breakdown(FailureCause::Error, "x").contains("AssertionError"));
    }

    #[test]
    fn notes_name_what_is_missing_and_never_say_assertion_error() {
        let missing = [
            MissingModule { name: "requests.adapters".into(), kind: "package".into() },
            MissingModule { name: "_tkinter".into(), kind: "stdlib".into() },
        ];
        let text = notes(&missing, true);
        assert!(text.contains("`requests` is not installed"), "{text}");
        assert!(text.contains("`_tkinter` is part of CPython's standard library"), "{text}");
        assert!(text.contains("1024 MiB"), "{text}");
        assert!(!text.contains("AssertionError"));
        assert_eq!(notes(&[], false), "");
    }
}
