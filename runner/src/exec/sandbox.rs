//! How runs are contained, found once at startup, and the command line that gets it.
//!
//! **Bubblewrap** (`bwrap`, the sandbox Flatpak uses) is the containment: each run sees the system folders
//! read-only (`/usr` and a few files of `/etc`), the Python installation read-only, its own repository folder
//! writable and nothing else of the machine (no home directory, a private `/tmp` of bounded size, a fresh `/proc`
//! and `/dev`); it gets new user, PID, IPC, UTS, network and cgroup namespaces, no capabilities, no further user
//! namespaces, its own session (`setsid`), and it dies with the runner. The PID namespace ends every descendant
//! when the run ends, `setsid` or not.
//!
//! Inside, `prlimit` sets per-process limits (address space, CPU time, file size, open files, no core dumps); a
//! control group per run (see [`super::cgroup`]) caps the number of processes and the run's total memory where
//! the machine allows it. The workspace forbids `unsafe`, so nothing is set in a `pre_exec` hook: every step is a
//! program that `exec`s into the next.
//!
//! Without bubblewrap the runner refuses to start, unless it is told `--unsafe-no-sandbox`; then runs have the
//! weaker isolation of earlier versions (`unshare --net` where possible, `prlimit`, the process group killed at the
//! end), and every description, health answer and run result says they are not contained.

use std::ffi::OsString;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};

use super::ExecLimits;
use super::cgroup::{Cgroups, RunCgroup};
use super::folder::RunFolder;
use super::python::{Python, PythonError};

/// The user and group id a run has inside the sandbox (mapped to the runner's own outside).
const SANDBOX_ID: &str = "1000";

/// Files of `/etc` a run may need and that hold nothing about the machine's users or secrets.
const ETC_FILES: &[&str] = &[
    "/etc/alternatives",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/nsswitch.conf",
    "/etc/mime.types",
];

/// The root folders that are links into `/usr` on merged systems, or folders of their own elsewhere.
const ROOT_LINKS: &[&str] = &["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/// Size of the sandbox's `/dev/shm` (POSIX shared memory, used by `multiprocessing`).
const SHM_BYTES: u64 = 64 << 20;

/// Variables passed through from the runner's environment when runs are not sandboxed.
const UNSANDBOXED_ENV: &[&str] = &[
    "PATH",
    "HOME",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TZ",
    "PYENV_ROOT",
    "PYENV_VERSION",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "CONDA_DEFAULT_ENV",
    "CONDA_EXE",
];

/// Variables passed through into the sandbox (paths of the machine mean nothing there).
const SANDBOXED_ENV: &[&str] = &["LANG", "LC_ALL", "LC_CTYPE", "TZ"];

/// Address space a `node` process may have beyond the memory limit. V8 reserves address space it does not use:
/// about 0.7 GiB for a process and 0.9 GiB more for each thread running JavaScript (as the thread of the module
/// hooks acr's TypeScript loader registers), so a 1 GiB cap stops Node before it runs anything. The heap, which is
/// what a script fills, is capped at the memory limit instead (`--max-old-space-size`).
const V8_RESERVATION: u64 = 2 << 30;

/// Whether the command runs Node.
pub(super) fn runs_node(argv: &[String]) -> bool {
    argv.first().and_then(|p| Path::new(p).file_name()).is_some_and(|name| name == "node")
}

/// How runs are contained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Containment {
    /// Each run in its own bubblewrap sandbox.
    Bubblewrap,
    /// None: runs execute as the runner's user with its view of the file system (`--unsafe-no-sandbox`).
    None,
}

impl Containment {
    /// What running without containment means, for people (used in the banner, `/health` and the page).
    pub const UNSAFE_WARNING: &str = "UNSAFE: runs are NOT sandboxed (--unsafe-no-sandbox): commands run as this \
        user and can read, change and delete this user's files and see every process";
}

/// How the network is cut off from a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NetworkIsolation {
    /// A new user namespace and network namespace (bubblewrap, or `unshare --net --map-root-user`).
    UserAndNetworkNamespace,
    /// A new network namespace, created as root (`unshare --net`).
    NetworkNamespace,
    /// None: the command can use the machine's network.
    None,
}

impl NetworkIsolation {
    /// Whether runs have no network access.
    pub fn is_isolated(self) -> bool {
        self != NetworkIsolation::None
    }

    fn unshare(self) -> &'static [&'static str] {
        match self {
            NetworkIsolation::UserAndNetworkNamespace => &["unshare", "--net", "--map-root-user", "--"],
            NetworkIsolation::NetworkNamespace => &["unshare", "--net", "--"],
            NetworkIsolation::None => &[],
        }
    }
}

/// Why runs cannot be contained here.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SandboxError {
    /// `bwrap` is not installed.
    NoBubblewrap,
    /// `bwrap` is there but could not start a sandbox (no user namespaces, an old version...).
    BubblewrapFails(String),
    /// The interpreter named with `--python` cannot be used.
    Python(PythonError),
    /// The runner could not prepare the probe's folder.
    Io(String),
}

impl fmt::Display for SandboxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let unsafe_hint = "(or start with --unsafe-no-sandbox to run commands without containment)";
        match self {
            SandboxError::NoBubblewrap => write!(
                f,
                "bubblewrap (bwrap) is not installed, and runs are only executed inside it: `apt-get install \
                 bubblewrap` (tools/setup.sh does it) {unsafe_hint}"
            ),
            SandboxError::BubblewrapFails(why) => write!(
                f,
                "bubblewrap cannot start a sandbox here: {why}; user namespaces may be disabled (sysctl \
                 kernel.unprivileged_userns_clone=1 or user.max_user_namespaces) {unsafe_hint}"
            ),
            SandboxError::Python(e) => write!(f, "the Python interpreter cannot be used: {e}"),
            SandboxError::Io(m) => write!(f, "cannot prepare the sandbox probe: {m}"),
        }
    }
}

impl std::error::Error for SandboxError {}

/// The containment available for runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sandbox {
    /// Bubblewrap, or none at all.
    pub containment: Containment,
    /// How the network is cut off.
    pub network: NetworkIsolation,
    /// Whether per-process limits are applied (`prlimit` works here).
    pub resource_limits: bool,
    /// The interpreter `python3` means in a command (bound read-only into the sandbox), when one was found.
    pub python: Option<Python>,
    /// Why no interpreter was found, when none was.
    pub python_problem: Option<String>,
    cgroups: Option<Cgroups>,
    /// Whether `RLIMIT_NPROC` caps processes (only for a runner that is not root: the kernel exempts root).
    nproc_limit: bool,
    /// `bwrap`, found on the runner's `PATH` (a run's own `PATH` is the sandbox's).
    bwrap: PathBuf,
}

/// A command ready to spawn: the full command line and the environment it gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    /// Program and arguments.
    pub argv: Vec<String>,
    /// The whole environment (nothing else is inherited).
    pub env: Vec<(String, OsString)>,
}

impl Sandbox {
    /// Bubblewrap with the interpreter called `python` (default `python3` on `PATH`). An interpreter named
    /// explicitly must work; the default one may be missing (then commands that call it fail inside).
    pub fn detect(python: Option<&str>) -> Result<Sandbox, SandboxError> {
        let (python, python_problem) = find_python(python)?;
        let bwrap = on_path("bwrap").ok_or(SandboxError::NoBubblewrap)?;
        let mut sandbox = Sandbox {
            containment: Containment::Bubblewrap,
            network: NetworkIsolation::UserAndNetworkNamespace,
            resource_limits: succeeds(&["prlimit", "--as=1073741824", "--cpu=5", "--", "true"]),
            python,
            python_problem,
            cgroups: Cgroups::detect(),
            nproc_limit: false,
            bwrap,
        };
        sandbox.nproc_limit = sandbox.resource_limits && !sandbox.caps_processes_by_cgroup() && !is_root();
        sandbox.probe()?;
        Ok(sandbox)
    }

    /// No containment, only what the old runner had: a network namespace where `unshare` works, per-process
    /// limits where `prlimit` works, a control group where the machine allows it. For `--unsafe-no-sandbox`.
    pub fn unsafe_no_sandbox(python: Option<&str>) -> Result<Sandbox, SandboxError> {
        let (python, python_problem) = find_python(python)?;
        let network = [NetworkIsolation::UserAndNetworkNamespace, NetworkIsolation::NetworkNamespace]
            .into_iter()
            .find(|n| succeeds(&[n.unshare(), &["true"]].concat()))
            .unwrap_or(NetworkIsolation::None);
        Ok(Sandbox {
            containment: Containment::None,
            network,
            resource_limits: succeeds(&["prlimit", "--as=1073741824", "--cpu=5", "--", "true"]),
            python,
            python_problem,
            cgroups: Cgroups::detect(),
            nproc_limit: false,
            bwrap: PathBuf::from("bwrap"),
        })
    }

    /// Nothing at all: no containment, no limits, no control groups (unit tests of the execution itself).
    pub fn none() -> Sandbox {
        Sandbox {
            containment: Containment::None,
            network: NetworkIsolation::None,
            resource_limits: false,
            python: None,
            python_problem: None,
            cgroups: None,
            nproc_limit: false,
            bwrap: PathBuf::from("bwrap"),
        }
    }

    /// Whether runs are contained by bubblewrap.
    pub fn is_contained(&self) -> bool {
        self.containment == Containment::Bubblewrap
    }

    /// Whether the number of processes of a run is capped (a control group, or `RLIMIT_NPROC` when not root).
    pub fn caps_processes(&self) -> bool {
        self.caps_processes_by_cgroup() || self.nproc_limit
    }

    /// Whether a control group counts a run's processes: only then does a run that reached the cap say so in its
    /// result (`RLIMIT_NPROC` leaves no trace of having been reached).
    pub fn caps_processes_by_cgroup(&self) -> bool {
        self.cgroups.as_ref().is_some_and(Cgroups::caps_processes)
    }

    /// Whether the total memory of a run is capped (a control group).
    pub fn caps_total_memory(&self) -> bool {
        self.cgroups.as_ref().is_some_and(Cgroups::caps_memory)
    }

    /// A control group for one run, when the machine allows them.
    pub fn run_cgroup(&self, limits: &ExecLimits) -> std::io::Result<Option<RunCgroup>> {
        self.cgroups.as_ref().map(|c| c.create_run(limits.processes, limits.memory_bytes)).transpose()
    }

    /// Writes what the sandbox shows of the run's folder besides the repository: the Python launchers and
    /// `/etc/passwd` and `/etc/group` naming the sandbox's user.
    pub fn prepare(&self, folder: &RunFolder) -> std::io::Result<()> {
        use std::os::unix::fs::PermissionsExt;
        if let Some(python) = &self.python {
            for name in python.command_names() {
                let path = folder.bin.join(name);
                fs::write(&path, python.launcher())?;
                fs::set_permissions(&path, fs::Permissions::from_mode(0o555))?;
            }
        }
        let id = SANDBOX_ID;
        fs::write(
            folder.etc.join("passwd"),
            format!("root:x:0:0:root:/root:/bin/sh\nacr:x:{id}:{id}:acr runner:/tmp:/bin/sh\n"),
        )?;
        fs::write(folder.etc.join("group"), format!("root:x:0:\nacr:x:{id}:\n"))
    }

    /// The command line and environment for `argv` in `folder` under this sandbox, with the given limits,
    /// CPU-time budget and (optionally) control group to enter first.
    pub fn launch(
        &self,
        argv: &[String],
        limits: &ExecLimits,
        cpu_secs: u32,
        folder: &RunFolder,
        cgroup: Option<&RunCgroup>,
    ) -> Launch {
        let mut line = Vec::new();
        if let Some(cgroup) = cgroup {
            // `sh` puts itself into the run's groups, then becomes the rest of the line.
            line.extend(
                [
                    "/bin/sh",
                    "-c",
                    r#"for f do [ "$f" = -- ] && break; echo $$ > "$f" || exit 125; shift; done; shift; exec "$@""#,
                    "acr-enter",
                ]
                .map(String::from),
            );
            line.extend(cgroup.procs_files().iter().map(|p| p.to_string_lossy().into_owned()));
            line.push("--".into());
        }
        let mut env: Vec<(String, OsString)> = Vec::new();
        let repo = folder.repo.to_string_lossy().into_owned();
        match self.containment {
            Containment::Bubblewrap => {
                line.extend(self.bubblewrap_args(limits, folder));
                let mut path = vec![folder.bin.to_string_lossy().into_owned()];
                if let Some(bin) = self.python.as_ref().and_then(Python::bin_dir) {
                    path.push(bin.to_string_lossy().into_owned());
                }
                path.extend(["/usr/local/bin", "/usr/bin", "/bin"].map(String::from));
                env.push(("PATH".into(), path.join(":").into()));
                env.push(("HOME".into(), "/tmp".into()));
                env.push(("TMPDIR".into(), "/tmp".into()));
                env.push(("USER".into(), "acr".into()));
                env.extend(passed(SANDBOXED_ENV));
            }
            Containment::None => {
                line.extend(self.network.unshare().iter().map(|s| s.to_string()));
                env.extend(passed(UNSANDBOXED_ENV));
                env.push(("TMPDIR".into(), folder.tmp.clone().into()));
            }
        }
        let node = runs_node(argv);
        if node {
            // The heap is what a script fills; the address-space cap above leaves room for V8's reservations.
            env.push(("NODE_OPTIONS".into(), format!("--max-old-space-size={}", limits.memory_bytes >> 20).into()));
        }
        if self.resource_limits {
            let address_space = limits.memory_bytes + if node { V8_RESERVATION } else { 0 };
            line.extend([
                "prlimit".to_string(),
                format!("--as={address_space}"),
                format!("--cpu={cpu_secs}"),
                format!("--fsize={}", limits.file_size_bytes),
                format!("--nofile={}", limits.open_files),
                "--core=0".to_string(),
            ]);
            if self.nproc_limit && self.is_contained() {
                line.push(format!("--nproc={}", limits.processes));
            }
            line.push("--".into());
        }
        line.extend(argv.iter().cloned());
        env.push(("PYTHONPATH".into(), repo.into()));
        env.push(("PYTHONDONTWRITEBYTECODE".into(), "1".into()));
        env.push(("PYTHONUNBUFFERED".into(), "1".into()));
        Launch { argv: line, env }
    }

    /// `bwrap` and its options, up to and including the `--` before the command.
    fn bubblewrap_args(&self, limits: &ExecLimits, folder: &RunFolder) -> Vec<String> {
        let mut a: Vec<String> = vec![self.bwrap.to_string_lossy().into_owned()];
        let mut add = |items: &[&str]| a.extend(items.iter().map(|s| s.to_string()));
        add(&["--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session"]);
        add(&["--cap-drop", "ALL", "--uid", SANDBOX_ID, "--gid", SANDBOX_ID, "--hostname", "acr-sandbox"]);
        add(&["--ro-bind", "/usr", "/usr"]);
        for link in ROOT_LINKS {
            match fs::symlink_metadata(link) {
                Ok(m) if m.file_type().is_symlink() => {
                    if let Ok(target) = fs::read_link(link) {
                        add(&["--symlink", &target.to_string_lossy(), link]);
                    }
                }
                Ok(m) if m.is_dir() => add(&["--ro-bind", link, link]),
                _ => {}
            }
        }
        for file in ETC_FILES.iter().copied().chain(runtime_etc_dirs().iter().map(String::as_str)) {
            add(&["--ro-bind-try", file, file]);
        }
        let (passwd, group) = (folder.etc.join("passwd"), folder.etc.join("group"));
        add(&["--ro-bind", &passwd.to_string_lossy(), "/etc/passwd"]);
        add(&["--ro-bind", &group.to_string_lossy(), "/etc/group"]);
        add(&["--proc", "/proc", "--dev", "/dev"]);
        add(&["--size", &limits.disk_bytes.to_string(), "--tmpfs", "/tmp"]);
        add(&["--size", &SHM_BYTES.to_string(), "--tmpfs", "/dev/shm"]);
        for dir in self.python.iter().flat_map(|p| &p.dirs) {
            let dir = dir.to_string_lossy();
            add(&["--ro-bind", &dir, &dir]);
        }
        let (repo, bin) = (folder.repo.to_string_lossy(), folder.bin.to_string_lossy());
        add(&["--bind", &repo, &repo, "--ro-bind", &bin, &bin, "--chdir", &repo]);
        // The sandbox's root is a tmpfs of bwrap's making: read-only, or a run could fill memory through it.
        add(&["--remount-ro", "/", "--"]);
        a
    }

    /// Runs `true` in a sandbox exactly as runs get it; the error says what went wrong.
    fn probe(&self) -> Result<(), SandboxError> {
        let folder = RunFolder::create().map_err(|e| SandboxError::Io(e.to_string()))?;
        let result = self.prepare(&folder).map_err(|e| SandboxError::Io(e.to_string())).and_then(|()| {
            let launch = self.launch(&["true".into()], &ExecLimits::default(), 5, &folder, None);
            let (program, args) = launch.argv.split_first().expect("the line starts with bwrap");
            let output =
                Command::new(program).args(args).env_clear().envs(launch.env).stdin(Stdio::null()).output().map_err(
                    |e| match e.kind() {
                        std::io::ErrorKind::NotFound => SandboxError::NoBubblewrap,
                        _ => SandboxError::BubblewrapFails(e.to_string()),
                    },
                )?;
            if output.status.success() {
                Ok(())
            } else {
                let stderr = String::from_utf8_lossy(&output.stderr);
                Err(SandboxError::BubblewrapFails(format!("{} ({})", stderr.trim(), output.status)))
            }
        });
        folder.remove();
        result
    }

    /// One paragraph for people: what a run is protected by here.
    pub fn describe(&self, limits: &ExecLimits) -> String {
        let mut lines = Vec::new();
        match self.containment {
            Containment::Bubblewrap => lines.push(
                "sandbox: bubblewrap (system folders and Python read-only; only the run's folder writable; no home \
                 directory; private /tmp; new user, PID, IPC, UTS, network and cgroup namespaces; no capabilities)"
                    .to_string(),
            ),
            Containment::None => lines.push(Containment::UNSAFE_WARNING.to_string()),
        }
        lines.push(match self.network {
            NetworkIsolation::UserAndNetworkNamespace => "network: none (a new user and network namespace)".into(),
            NetworkIsolation::NetworkNamespace => "network: none (a new network namespace, as root)".into(),
            NetworkIsolation::None => "network: NOT isolated (unshare failed here: runs can reach the network)".into(),
        });
        lines.push(if self.resource_limits {
            format!(
                "limits: {} MiB address space per process ({} MiB more for node, whose heap is capped at the \
                 first figure), CPU time = timeout + 1 s, files up to {} MiB, {} open files, no core dumps (prlimit); \
                 {} MiB of new files per run",
                limits.memory_bytes >> 20,
                V8_RESERVATION >> 20,
                limits.file_size_bytes >> 20,
                limits.open_files,
                limits.disk_bytes >> 20
            )
        } else {
            "limits: NONE (prlimit failed here: memory and CPU are not limited)".to_string()
        });
        lines.push(match (&self.cgroups, self.nproc_limit) {
            (Some(c), _) if c.caps_processes() => format!("{}; at most {} processes", c.describe(), limits.processes),
            (_, true) => format!("processes: at most {} per run (RLIMIT_NPROC)", limits.processes),
            (Some(c), false) => c.describe(),
            (None, false) => "processes: NOT capped (no writable control group, and the runner is root)".into(),
        });
        lines.push(match (&self.python, &self.python_problem) {
            (Some(p), _) => format!("python: {} {} ({})", p.name, p.version, p.executable.display()),
            (None, Some(problem)) => format!("python: none ({problem})"),
            (None, None) => "python: as found on PATH".to_string(),
        });
        lines.push(format!(
            "wall clock: every process of the run is killed at the timeout (at most {} s)\noutput: {} KiB per \
             stream (head and tail kept)",
            limits.max_timeout_secs,
            limits.output_bytes >> 10
        ));
        lines.join("\n")
    }
}

/// The interpreter and, when the default one is missing, why.
fn find_python(name: Option<&str>) -> Result<(Option<Python>, Option<String>), SandboxError> {
    match name {
        Some(name) => Python::find(name).map(|p| (Some(p), None)).map_err(SandboxError::Python),
        None => match Python::find("python3") {
            Ok(p) => Ok((Some(p), None)),
            Err(e) => Ok((None, Some(e.to_string()))),
        },
    }
}

/// The language runtimes' configuration that Debian keeps under `/etc` rather than `/usr`: Python's in
/// `/etc/python3*` (`sitecustomize.py`), the JDK's in `/etc/java-*` (`security/java.security`, without which the
/// JVM cannot start the compiler), Maven's in `/etc/maven` (`m2.conf`, which its launcher reads, and the system-wide
/// `settings.xml`), read-only.
fn runtime_etc_dirs() -> Vec<String> {
    let Ok(entries) = fs::read_dir("/etc") else { return Vec::new() };
    let mut dirs: Vec<String> = entries
        .flatten()
        .filter(|e| {
            e.file_name().to_str().is_some_and(|n| n.starts_with("python") || n.starts_with("java") || n == "maven")
        })
        .map(|e| e.path().to_string_lossy().into_owned())
        .collect();
    dirs.sort();
    dirs
}

/// The first executable file called `name` in the runner's own `PATH`.
fn on_path(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0))
}

fn passed(names: &[&str]) -> Vec<(String, OsString)> {
    names.iter().filter_map(|k| std::env::var_os(k).map(|v| (k.to_string(), v))).collect()
}

fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

fn succeeds(argv: &[&str]) -> bool {
    let Some((program, args)) = argv.split_first() else {
        return false;
    };
    Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn without_a_sandbox_the_line_is_namespace_then_limits_then_the_command() {
        let sandbox =
            Sandbox { network: NetworkIsolation::UserAndNetworkNamespace, resource_limits: true, ..Sandbox::none() };
        let folder = RunFolder::create().expect("folder");
        let limits = ExecLimits { memory_bytes: 256 << 20, ..ExecLimits::default() };
        let line = sandbox.launch(&argv(&["python3", "-c", "pass"]), &limits, 7, &folder, None).argv;
        assert_eq!(&line[..4], ["unshare", "--net", "--map-root-user", "--"]);
        assert_eq!(line[4], "prlimit");
        assert!(line.contains(&"--as=268435456".to_string()));
        assert!(line.contains(&"--cpu=7".to_string()));
        assert!(!line.iter().any(|a| a.starts_with("--nproc")));
        assert_eq!(&line[line.len() - 3..], ["python3", "-c", "pass"]);
        assert_eq!(Sandbox::none().launch(&argv(&["true"]), &limits, 1, &folder, None).argv, ["true"]);
        folder.remove();
    }

    #[test]
    fn the_bubblewrap_line_binds_only_what_it_must() {
        let sandbox = Sandbox { containment: Containment::Bubblewrap, resource_limits: true, ..Sandbox::none() };
        let folder = RunFolder::create().expect("folder");
        let launch = sandbox.launch(&argv(&["python3", "r.py"]), &ExecLimits::default(), 3, &folder, None);
        let line = launch.argv.join(" ");
        for wanted in ["--unshare-all", "--die-with-parent", "--new-session", "--cap-drop ALL", "--ro-bind /usr /usr"] {
            assert!(line.contains(wanted), "{wanted} missing from {line}");
        }
        let repo = folder.repo.to_string_lossy();
        assert!(line.contains(&format!("--bind {repo} {repo} ")), "{line}");
        assert!(!line.contains("/root") && !line.contains("/home"), "{line}");
        let writable: Vec<&[String]> = launch.argv.windows(3).filter(|w| w[0] == "--bind").collect();
        assert_eq!(writable.len(), 1, "only the repository is writable: {line}");
        assert!(
            line.ends_with(
                "-- prlimit --as=1073741824 --cpu=3 --fsize=268435456 --nofile=1024 --core=0 -- python3 r.py"
            )
        );
        let env: Vec<&str> = launch.env.iter().map(|(k, _)| k.as_str()).collect();
        assert!(env.contains(&"PATH") && env.contains(&"PYTHONPATH") && !env.contains(&"PYENV_ROOT"), "{env:?}");
        assert!(launch.env.contains(&("HOME".to_string(), "/tmp".into())));
        folder.remove();
    }

    #[test]
    fn descriptions_say_plainly_when_nothing_is_isolated() {
        let text = Sandbox::none().describe(&ExecLimits::default());
        assert!(text.contains("NOT sandboxed") && text.contains("NOT isolated") && text.contains("limits: NONE"));
        assert!(text.contains("processes: NOT capped"), "{text}");
    }
}
