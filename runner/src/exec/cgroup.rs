//! Control groups for runs: a cap on the number of processes (the `pids` controller) and on the memory of the
//! whole run (the `memory` controller), and a list of every process the run started, to kill them all.
//!
//! Resource limits (`prlimit`) are per process: they cannot stop a fork bomb when the runner runs as root (the
//! kernel exempts root from `RLIMIT_NPROC`) or a hundred processes that each take their memory allowance. A control
//! group counts them all. The runner makes one group for itself (`acr-runner-<pid>`, next to the group it runs
//! in) and one per run below it; a run's command enters its group before anything else happens (a tiny `sh`
//! writes its own process id into `cgroup.procs`, then `exec`s the sandbox), so every descendant is counted.
//!
//! Both layouts are handled: cgroup v2 (one hierarchy at `/sys/fs/cgroup`, where the controllers must be
//! delegated to the runner's group) and v1 (one hierarchy per controller, `/sys/fs/cgroup/pids` and
//! `/sys/fs/cgroup/memory`). What could not be had is reported (see [`Cgroups::describe`]), never faked.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

/// Where control groups are mounted.
const CGROUP_ROOT: &str = "/sys/fs/cgroup";

/// Numbers the runs of this process, for their group names.
static NEXT_RUN: AtomicU64 = AtomicU64::new(1);

/// The runner's own groups, one per controller hierarchy that could be set up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cgroups {
    /// The group whose `pids.max` caps the processes of each run, if any.
    pids: Option<PathBuf>,
    /// The group whose memory limit caps each run's total memory, if any (on v2, the same folder as `pids`).
    memory: Option<PathBuf>,
    /// Whether the hierarchy is cgroup v2 (`memory.max`) rather than v1 (`memory.limit_in_bytes`).
    v2: bool,
}

impl Cgroups {
    /// Sets up the runner's groups where the machine allows it (writable cgroup file system, controllers
    /// available); `None` when neither controller can be used. Groups left by runners that have exited are
    /// removed on the way.
    pub fn detect() -> Option<Cgroups> {
        let own = fs::read_to_string("/proc/self/cgroup").ok()?;
        let name = format!("acr-runner-{}", std::process::id());
        let unified = Path::new(CGROUP_ROOT).join("cgroup.controllers");
        let found = if unified.exists() {
            let path = own.lines().find_map(|l| l.strip_prefix("0::"))?;
            let parent = Path::new(CGROUP_ROOT).join(path.trim_start_matches('/'));
            let group = make_group(&parent, &name, &["pids.max", "memory.max"])?;
            let has = |file: &str| group.join(file).exists();
            Cgroups {
                pids: has("pids.max").then(|| group.clone()),
                memory: has("memory.max").then_some(group),
                v2: true,
            }
        } else {
            let v1 = |controller: &str, probe: &str| {
                let path = own.lines().find_map(|l| {
                    let (_, rest) = l.split_once(':')?;
                    let (controllers, path) = rest.split_once(':')?;
                    controllers.split(',').any(|c| c == controller).then_some(path)
                })?;
                let parent = Path::new(CGROUP_ROOT).join(controller).join(path.trim_start_matches('/'));
                make_group(&parent, &name, &[probe])
            };
            Cgroups { pids: v1("pids", "pids.max"), memory: v1("memory", "memory.limit_in_bytes"), v2: false }
        };
        (found.pids.is_some() || found.memory.is_some()).then_some(found)
    }

    /// Whether the number of processes per run is capped.
    pub fn caps_processes(&self) -> bool {
        self.pids.is_some()
    }

    /// Whether the total memory per run is capped.
    pub fn caps_memory(&self) -> bool {
        self.memory.is_some()
    }

    /// One line for people.
    pub fn describe(&self) -> String {
        let version = if self.v2 { "cgroup v2" } else { "cgroup v1" };
        match (self.caps_processes(), self.caps_memory()) {
            (true, true) => format!("processes and total memory capped per run ({version})"),
            (true, false) => format!("processes capped per run ({version}); total memory not capped"),
            (false, _) => format!("total memory capped per run ({version}); processes NOT capped"),
        }
    }

    /// A fresh group for one run, with its caps set.
    pub fn create_run(&self, max_processes: u32, memory_bytes: u64) -> io::Result<RunCgroup> {
        let name = format!("run-{}", NEXT_RUN.fetch_add(1, Ordering::Relaxed));
        let mut run = RunCgroup { dirs: Vec::new() };
        if let Some(pids) = &self.pids {
            let dir = pids.join(&name);
            fs::create_dir(&dir)?;
            run.dirs.push(dir.clone());
            fs::write(dir.join("pids.max"), max_processes.to_string())?;
        }
        if let Some(memory) = &self.memory {
            let dir = memory.join(&name);
            if !run.dirs.contains(&dir) {
                fs::create_dir(&dir)?;
                run.dirs.push(dir.clone());
            }
            if self.v2 {
                fs::write(dir.join("memory.max"), memory_bytes.to_string())?;
                // Without swap accounting a run could push its memory out to swap instead of being stopped.
                let _ = fs::write(dir.join("memory.swap.max"), "0");
            } else {
                fs::write(dir.join("memory.limit_in_bytes"), memory_bytes.to_string())?;
                let _ = fs::write(dir.join("memory.memsw.limit_in_bytes"), memory_bytes.to_string());
            }
        }
        Ok(run)
    }
}

/// Creates `parent/name` (or reuses it) and checks that the files the caller needs appeared in it. Groups named
/// `acr-runner-<pid>` whose process is gone are removed first.
fn make_group(parent: &Path, name: &str, wanted: &[&str]) -> Option<PathBuf> {
    remove_stale(parent);
    let group = parent.join(name);
    match fs::create_dir(&group) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(_) => return None,
    }
    if wanted.iter().any(|f| group.join(f).exists()) {
        return Some(group);
    }
    // cgroup v2: controllers must be enabled in the parent's subtree first (allowed only where the parent has no
    // processes of its own, so this fails in most delegated set-ups; the group is then not used).
    let enable: Vec<String> = wanted.iter().filter_map(|f| f.split('.').next()).map(|c| format!("+{c}")).collect();
    for controller in enable {
        let _ = fs::write(parent.join("cgroup.subtree_control"), controller);
    }
    if wanted.iter().any(|f| group.join(f).exists()) {
        Some(group)
    } else {
        let _ = fs::remove_dir(&group);
        None
    }
}

/// Removes the groups of runners that have exited (their runs first; empty groups only).
fn remove_stale(parent: &Path) {
    let Ok(entries) = fs::read_dir(parent) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix("acr-runner-")) else { continue };
        if Path::new("/proc").join(pid).exists() {
            continue;
        }
        if let Ok(runs) = fs::read_dir(entry.path()) {
            for run in runs.flatten() {
                if run.file_type().is_ok_and(|t| t.is_dir()) {
                    let _ = fs::remove_dir(run.path());
                }
            }
        }
        let _ = fs::remove_dir(entry.path());
    }
}

/// The groups of one run. Dropping it kills whatever is still running in them and removes them.
#[derive(Debug)]
pub struct RunCgroup {
    dirs: Vec<PathBuf>,
}

impl RunCgroup {
    /// The `cgroup.procs` files a process writes its id into to join the run's groups.
    pub fn procs_files(&self) -> Vec<PathBuf> {
        self.dirs.iter().map(|d| d.join("cgroup.procs")).collect()
    }

    /// The processes in the run's groups right now.
    pub fn members(&self) -> Vec<Pid> {
        let mut pids: Vec<Pid> = self
            .procs_files()
            .iter()
            .filter_map(|f| fs::read_to_string(f).ok())
            .flat_map(|text| text.lines().filter_map(|l| l.trim().parse::<i32>().ok()).collect::<Vec<_>>())
            .map(Pid::from_raw)
            .collect();
        pids.sort_unstable();
        pids.dedup();
        pids
    }

    /// Whether the run's process cap was reached at least once.
    pub fn hit_process_cap(&self) -> bool {
        self.dirs.iter().any(|d| {
            fs::read_to_string(d.join("pids.events"))
                .ok()
                .and_then(|t| t.lines().find_map(|l| l.strip_prefix("max ").map(|n| n.trim() != "0")))
                .unwrap_or(false)
        })
    }

    /// Kills every process in the run's groups, again and again until none is left (a process may fork while
    /// the list is read) or `patience` runs out. Returns whether the groups are empty.
    pub fn kill_all(&self, patience: Duration) -> bool {
        let deadline = Instant::now() + patience;
        loop {
            let members = self.members();
            if members.is_empty() {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            for pid in members {
                // ESRCH: gone in the meantime.
                let _ = kill(pid, Signal::SIGKILL);
            }
            thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for RunCgroup {
    fn drop(&mut self) {
        self.kill_all(Duration::from_secs(5));
        for dir in &self.dirs {
            // A group can be removed once its last process has been reaped; that may take a moment.
            for _ in 0..100 {
                if fs::remove_dir(dir).is_ok() || !dir.exists() {
                    break;
                }
                thread::sleep(Duration::from_millis(10));
            }
        }
    }
}
