//! Running one [`RunRequest`]: a fresh run folder, the snapshot written into it, the patch applied (and, for
//! `node`, the TypeScript files replaced with their JavaScript, [`acr_core::language::for_node`]), the command
//! run under the [`Sandbox`] with a wall-clock timeout and a disk budget, output captured up to a limit, every
//! process of the run killed, the folder removed.
//!
//! The command line is split like a POSIX shell would split it (`shlex`), but no shell ever runs it. The child is
//! the leader of its own process group; at the timeout and again when the command exits, that group and (where
//! the machine allows control groups) every process the run started are killed, so helpers it started, even in
//! a new session, do not outlive the run. The environment is rebuilt from a short allow-list, so tokens in the
//! runner's environment do not leak.

mod capture;
mod cgroup;
mod folder;
mod python;
mod sandbox;
mod tree;

use std::fmt;
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use acr_core::runner::{RunError, RunOutcome, RunRequest};
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use serde::{Deserialize, Serialize};

use capture::Capture;
pub use cgroup::{Cgroups, RunCgroup};
pub use folder::{RunFolder, Usage};
pub use python::{Python, PythonError};
pub use sandbox::{Containment, Launch, NetworkIsolation, Sandbox, SandboxError};
pub use tree::{apply_patch, checked_files};

/// How long output readers may run on after the run's processes were killed.
const OUTPUT_GRACE: Duration = Duration::from_secs(2);

/// How often the run's folder is measured against the disk budget.
const DISK_CHECK: Duration = Duration::from_millis(250);

/// Files and folders a run may add to its folder.
const MAX_NEW_ENTRIES: u64 = 100_000;

/// Limits applied to every run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecLimits {
    /// Address-space limit per process in bytes (Python raises `MemoryError` past it); also the cap on the whole
    /// run's memory where control groups are available.
    pub memory_bytes: u64,
    /// The longest wall-clock timeout a request may ask for; longer requests are cut to this.
    pub max_timeout_secs: u32,
    /// Bytes kept per output stream (half from the start, half from the end).
    pub output_bytes: usize,
    /// Largest file the command may write, in bytes.
    pub file_size_bytes: u64,
    /// Most open file descriptors per process.
    pub open_files: u64,
    /// Most processes (and threads) a run may have at once, where the machine can cap them.
    #[serde(default = "default_processes")]
    pub processes: u32,
    /// Bytes a run may add to its folder, and the size of its private `/tmp`.
    #[serde(default = "default_disk_bytes")]
    pub disk_bytes: u64,
}

fn default_processes() -> u32 {
    ExecLimits::default().processes
}

fn default_disk_bytes() -> u64 {
    ExecLimits::default().disk_bytes
}

impl Default for ExecLimits {
    fn default() -> Self {
        ExecLimits {
            memory_bytes: 1 << 30,
            max_timeout_secs: 600,
            output_bytes: 64 << 10,
            file_size_bytes: 256 << 20,
            open_files: 1024,
            processes: 256,
            disk_bytes: 1 << 30,
        }
    }
}

/// Why a request could not be run.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ExecError {
    /// A path (in the snapshot or the patch) is absolute or climbs out of the root.
    UnsafePath(String),
    /// Two snapshot paths name the same file once normalised.
    DuplicatePath(String),
    /// Two files cannot both exist (a file where a folder is needed).
    Conflict(String),
    /// The patch cannot be read, or changes something the runner does not support.
    BadPatch(String),
    /// A hunk does not match the snapshot.
    PatchDoesNotApply {
        /// The file concerned.
        path: String,
        /// What did not match.
        message: String,
    },
    /// The command line is empty or has unbalanced quotes.
    BadCommand(String),
    /// The runner itself failed (temporary folder, spawning, waiting).
    Io(String),
}

impl ExecError {
    /// Whether the request was at fault (as opposed to the runner).
    pub fn is_refusal(&self) -> bool {
        !matches!(self, ExecError::Io(_))
    }
}

impl fmt::Display for ExecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExecError::UnsafePath(p) => write!(f, "unsafe path {p:?}: absolute or leaving the repository root"),
            ExecError::DuplicatePath(p) => write!(f, "the snapshot names {p:?} more than once"),
            ExecError::Conflict(m) => write!(f, "the snapshot cannot be written: {m}"),
            ExecError::BadPatch(m) => write!(f, "the patch cannot be used: {m}"),
            ExecError::PatchDoesNotApply { path, message } => {
                write!(f, "the patch does not apply to {path}: {message}")
            }
            ExecError::BadCommand(m) => write!(f, "bad command: {m}"),
            ExecError::Io(m) => write!(f, "the runner failed: {m}"),
        }
    }
}

impl std::error::Error for ExecError {}

impl From<ExecError> for RunError {
    fn from(e: ExecError) -> Self {
        if e.is_refusal() { RunError::Refused(e.to_string()) } else { RunError::Unavailable(e.to_string()) }
    }
}

/// Runs a request to completion (blocking) and removes its folder.
pub fn execute(request: &RunRequest, limits: &ExecLimits, sandbox: &Sandbox) -> Result<RunOutcome, ExecError> {
    let argv = shlex::split(&request.command).ok_or_else(|| ExecError::BadCommand("unbalanced quotes".into()))?;
    if argv.is_empty() {
        return Err(ExecError::BadCommand("empty command".into()));
    }
    let mut files = checked_files(&request.files)?;
    apply_patch(&mut files, &request.patch)?;
    if sandbox::runs_node(&argv) {
        acr_core::language::for_node(&mut files);
    }

    let folder = RunFolder::create().map_err(|e| ExecError::Io(format!("run folder: {e}")))?;
    let result = tree::write_tree(&folder.repo, &files)
        .and_then(|()| sandbox.prepare(&folder).map_err(|e| ExecError::Io(format!("run folder: {e}"))))
        .and_then(|()| run_in(&folder, &argv, request, limits, sandbox));
    folder.remove();
    result.map(|outcome| RunOutcome { unsandboxed: !sandbox.is_contained(), ..outcome })
}

/// Why the runner stopped a run before its command ended.
enum Stop {
    Timeout,
    Disk(String),
}

/// Spawns the sandboxed command in the folder's repository and waits for it within the timeout and disk budget.
fn run_in(
    folder: &RunFolder,
    argv: &[String],
    request: &RunRequest,
    limits: &ExecLimits,
    sandbox: &Sandbox,
) -> Result<RunOutcome, ExecError> {
    let timeout_secs = request.timeout_secs.clamp(1, limits.max_timeout_secs.max(1));
    let cgroup = sandbox.run_cgroup(limits).map_err(|e| ExecError::Io(format!("control group: {e}")))?;
    let launch = sandbox.launch(argv, limits, timeout_secs.saturating_add(1), folder, cgroup.as_ref());
    let Some((program, args)) = launch.argv.split_first() else {
        return Err(ExecError::BadCommand("empty command".into()));
    };
    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(&folder.repo)
        .env_clear()
        .envs(launch.env)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);

    let baseline = folder.usage(u64::MAX);
    let start = Instant::now();
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(RunOutcome {
                exit_code: Some(127),
                stderr: format!("{program}: command not found"),
                duration_ms: elapsed_ms(start),
                ..RunOutcome::default()
            });
        }
        Err(e) => return Err(ExecError::Io(format!("cannot start {program}: {e}"))),
    };
    let group = i32::try_from(child.id()).map(Pid::from_raw).ok();
    let stdout = Capture::start(child.stdout.take(), limits.output_bytes);
    let stderr = Capture::start(child.stderr.take(), limits.output_bytes);

    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    let deadline = start + Duration::from_secs(u64::from(timeout_secs));
    let max_entries = baseline.entries.saturating_add(MAX_NEW_ENTRIES);
    let (status, stop) = loop {
        let now = Instant::now();
        if now >= deadline {
            break (None, Some(Stop::Timeout));
        }
        match rx.recv_timeout(DISK_CHECK.min(deadline - now)) {
            Ok(status) => break (Some(status), None),
            Err(mpsc::RecvTimeoutError::Disconnected) => break (None, None),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        let usage = folder.usage(max_entries.saturating_add(1));
        let added = usage.bytes.saturating_sub(baseline.bytes);
        if added > limits.disk_bytes {
            break (None, Some(Stop::Disk(format!("wrote more than {} MiB", limits.disk_bytes >> 20))));
        }
        if usage.entries > max_entries {
            break (None, Some(Stop::Disk(format!("created more than {MAX_NEW_ENTRIES} files"))));
        }
    };
    let status = match status {
        Some(status) => status,
        None => {
            kill_group(group);
            if let Some(cgroup) = &cgroup {
                cgroup.kill_all(Duration::from_secs(2));
            }
            rx.recv().unwrap_or_else(|_| Err(std::io::Error::other("the waiting thread stopped")))
        }
    };
    let duration_ms = elapsed_ms(start);
    // Helpers the command left behind go too, so they cannot hold the output pipes open.
    kill_group(group);
    let mut notes = Vec::new();
    if let Some(cgroup) = cgroup {
        cgroup.kill_all(Duration::from_secs(2));
        if cgroup.hit_process_cap() {
            notes.push(format!("the run reached its cap of {} processes; further forks failed", limits.processes));
        }
    }
    let status: ExitStatus = status.map_err(|e| ExecError::Io(format!("waiting for the command: {e}")))?;
    let (stdout, out_cut) = stdout.finish(OUTPUT_GRACE);
    let (mut stderr, err_cut) = stderr.finish(OUTPUT_GRACE);
    let timed_out = matches!(stop, Some(Stop::Timeout));
    if let Some(Stop::Disk(what)) = &stop {
        notes.push(format!("stopped by the runner: the run {what} (its disk budget)"));
    }
    for note in notes {
        if !stderr.is_empty() && !stderr.ends_with('\n') {
            stderr.push('\n');
        }
        stderr.push_str(&format!("[acr-runner: {note}]\n"));
    }
    Ok(RunOutcome {
        exit_code: if stop.is_some() { None } else { status.code() },
        stdout,
        stderr,
        duration_ms,
        timed_out,
        truncated: out_cut || err_cut,
        unsandboxed: !sandbox.is_contained(),
    })
}

fn kill_group(group: Option<Pid>) {
    if let Some(group) = group {
        // ESRCH (already gone) is the normal case after a clean exit.
        let _ = killpg(group, Signal::SIGKILL);
    }
}

fn elapsed_ms(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(files: &[(&str, &str)], command: &str, timeout_secs: u32) -> RunRequest {
        RunRequest {
            files: files.iter().map(|(p, t)| (p.to_string(), t.to_string())).collect(),
            patch: String::new(),
            command: command.into(),
            timeout_secs,
        }
    }

    #[test]
    fn a_command_runs_in_the_snapshot_and_its_folder_is_removed() {
        let req = request(&[("data/x.txt", "hello")], "sh -c 'cat data/x.txt; pwd; echo oops >&2; exit 3'", 10);
        let out = execute(&req, &ExecLimits::default(), &Sandbox::none()).expect("runs");
        assert_eq!(out.exit_code, Some(3));
        assert!(out.stdout.starts_with("hello"), "{out:?}");
        assert_eq!(out.stderr, "oops\n");
        let cwd = out.stdout.lines().next().and_then(|l| l.strip_prefix("hello")).unwrap_or_default();
        assert!(cwd.ends_with("/repo"), "{cwd}");
        assert!(!std::path::Path::new(cwd).exists(), "the run folder {cwd} is left behind");
        assert!(out.unsandboxed, "{out:?}");
    }

    #[test]
    fn the_environment_is_cleared_except_the_allow_list() {
        let out = execute(&request(&[], "env", 10), &ExecLimits::default(), &Sandbox::none()).expect("runs");
        let names: Vec<&str> = out.stdout.lines().filter_map(|l| l.split_once('=').map(|(k, _)| k)).collect();
        assert!(names.contains(&"PYTHONPATH") && names.contains(&"TMPDIR"), "{names:?}");
        let allowed = ["PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "VIRTUAL_ENV"];
        let ok = |n: &&str| {
            allowed.contains(n) || n.starts_with("PYTHON") || n.starts_with("PYENV_") || n.starts_with("CONDA_")
        };
        assert!(names.iter().all(ok), "{names:?}");
    }

    #[test]
    fn bad_commands_and_missing_programs_are_told_apart() {
        let limits = ExecLimits::default();
        assert!(matches!(execute(&request(&[], "  ", 5), &limits, &Sandbox::none()), Err(ExecError::BadCommand(_))));
        assert!(matches!(
            execute(&request(&[], "echo 'x", 5), &limits, &Sandbox::none()),
            Err(ExecError::BadCommand(_))
        ));
        let missing = execute(&request(&[], "no-such-program-acr", 5), &limits, &Sandbox::none()).expect("runs");
        assert_eq!(missing.exit_code, Some(127));
    }

    #[test]
    fn the_command_is_not_given_to_a_shell() {
        let out = execute(&request(&[], "echo $HOME; touch x", 5), &ExecLimits::default(), &Sandbox::none());
        assert_eq!(out.expect("runs").stdout, "$HOME; touch x\n");
    }

    /// Whether a process is still running (a zombie waiting for its reaper counts as gone).
    fn alive(pid: &str) -> bool {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().next());
        state.is_some_and(|s| s != "Z" && s != "X")
    }

    #[test]
    fn a_timeout_kills_the_whole_group() {
        let req = request(&[], "sh -c 'sleep 30 & echo $!; wait'", 1);
        let out = execute(&req, &ExecLimits::default(), &Sandbox::none()).expect("runs");
        assert!(out.timed_out && out.exit_code.is_none(), "{out:?}");
        assert!(out.duration_ms < 5_000, "{out:?}");
        let helper = out.stdout.trim();
        assert!(!helper.is_empty() && helper.chars().all(|c| c.is_ascii_digit()), "{out:?}");
        let gone = (0..50).any(|_| {
            thread::sleep(Duration::from_millis(20));
            !alive(helper)
        });
        assert!(gone, "the background helper {helper} outlived the run");
    }
}
