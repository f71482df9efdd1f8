//! The Python interpreter that runs reproducers inside the sandbox: found once at startup by asking it where it
//! lives, so that its installation (standard library and site-packages) can be bound read-only, and so that
//! `python3` and `python` in a command mean this interpreter even when it lives under the home directory, which
//! the sandbox hides (pyenv, a virtual environment).

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};

/// What the interpreter prints about itself (run in isolated mode, so the user's own site-packages stay out).
const SELF_REPORT: &str = "import json, site, sys\n\
    print(json.dumps({'executable': sys.executable, 'version': sys.version.split()[0],\n\
    'dirs': [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix] + site.getsitepackages()}))";

/// Folders every sandbox binds anyway: an interpreter under them needs nothing more.
const SYSTEM_DIRS: &[&str] = &["/usr"];

/// An interpreter, as it described itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Python {
    /// The name it was found by (`python3`, or a path).
    pub name: String,
    /// The interpreter's own path (`sys.executable`, symlinks kept so that a virtual environment stays one).
    pub executable: PathBuf,
    /// Its version, e.g. `3.11.7`.
    pub version: String,
    /// The folders to bind read-only: prefixes and site-packages outside the system folders, none inside another.
    pub dirs: Vec<PathBuf>,
}

/// Why an interpreter could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PythonError(String);

impl fmt::Display for PythonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PythonError {}

#[derive(Deserialize)]
struct Report {
    executable: PathBuf,
    version: String,
    dirs: Vec<PathBuf>,
}

impl Python {
    /// Asks the interpreter called `name` (looked up on `PATH` like a shell would) where it lives.
    pub fn find(name: &str) -> Result<Python, PythonError> {
        let output = Command::new(name)
            .args(["-I", "-c", SELF_REPORT])
            .stdin(Stdio::null())
            .output()
            .map_err(|e| PythonError(format!("cannot run {name}: {e}")))?;
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            return Err(PythonError(format!("{name} failed ({}): {}", output.status, stderr.trim())));
        }
        let report: Report = serde_json::from_slice(&output.stdout)
            .map_err(|e| PythonError(format!("{name} did not describe itself: {e}")))?;
        if !report.executable.is_absolute() {
            return Err(PythonError(format!("{name} does not know its own path ({:?})", report.executable)));
        }
        let mut dirs: Vec<PathBuf> = report.dirs;
        if let Some(bin) = report.executable.parent() {
            dirs.push(bin.to_path_buf());
        }
        Ok(Python {
            name: name.to_string(),
            executable: report.executable,
            version: report.version,
            dirs: outermost(dirs),
        })
    }

    /// The folder holding the interpreter, which goes early on the sandbox's `PATH`.
    pub fn bin_dir(&self) -> Option<&Path> {
        self.executable.parent()
    }

    /// A small `sh` script that runs this interpreter with the script's arguments.
    pub fn launcher(&self) -> String {
        let path = self.executable.to_string_lossy().replace('\'', r"'\''");
        format!("#!/bin/sh\nexec '{path}' \"$@\"\n")
    }

    /// The names a command may call it by: `python3`, `python`, and the name it was found by when that is a bare
    /// name such as `python3.12`.
    pub fn command_names(&self) -> Vec<String> {
        let mut names = vec!["python3".to_string(), "python".to_string()];
        let bare = !self.name.contains('/') && !self.name.is_empty();
        if bare && !names.contains(&self.name) {
            names.push(self.name.clone());
        }
        names
    }
}

/// The existing absolute folders outside the system folders, without any that another one contains.
fn outermost(dirs: Vec<PathBuf>) -> Vec<PathBuf> {
    let kept: BTreeSet<PathBuf> = dirs
        .into_iter()
        .filter(|d| d.is_absolute() && d.is_dir())
        .filter(|d| !SYSTEM_DIRS.iter().any(|s| d.starts_with(s)))
        .collect();
    let all: Vec<PathBuf> = kept.iter().cloned().collect();
    kept.into_iter().filter(|d| !all.iter().any(|o| o != d && d.starts_with(o))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_and_system_folders_are_dropped() {
        let tmp = std::env::temp_dir();
        let inner = tmp.join("acr-python-test-inner");
        std::fs::create_dir_all(&inner).expect("folder");
        let kept = outermost(vec![inner.clone(), tmp.clone(), PathBuf::from("/usr/lib"), PathBuf::from("relative")]);
        assert_eq!(kept, vec![tmp]);
        let _ = std::fs::remove_dir(inner);
    }

    #[test]
    fn the_launcher_quotes_the_path() {
        let python = Python {
            name: "python3.12".into(),
            executable: PathBuf::from("/opt/it's/bin/python3"),
            version: "3.12.1".into(),
            dirs: vec![],
        };
        assert_eq!(python.launcher(), "#!/bin/sh\nexec '/opt/it'\\''s/bin/python3' \"$@\"\n");
        assert_eq!(python.command_names(), ["python3", "python", "python3.12"]);
    }

    #[test]
    fn a_missing_interpreter_is_a_clear_error() {
        let err = Python::find("acr-no-such-python").expect_err("not installed");
        assert!(err.to_string().contains("cannot run acr-no-such-python"), "{err}");
    }

    #[test]
    fn the_interpreter_on_path_describes_itself() {
        let Ok(python) = Python::find("python3") else {
            eprintln!("skipped: no python3 on PATH");
            return;
        };
        assert!(python.executable.is_absolute(), "{python:?}");
        assert!(python.version.starts_with('3'), "{python:?}");
    }
}
