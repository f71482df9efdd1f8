//! `--envs FILE`: an interpreter for each repository and version, so that each task's reproducers and tests run in
//! an environment made for its repository at its version (as SWE-bench's harness builds one per `repo@version`,
//! from the `swebench` package's `MAP_REPO_VERSION_TO_SPECS`).
//!
//! The file is a JSON object from `owner/name@version` (SWE-bench's `repo` and `version` fields) or `owner/name`
//! (any version) to an interpreter: a path, or a name on `PATH`. A task takes the interpreter of its `repo@version`,
//! else of its `repo`, else the one `--python` gives (default: `python3` on `PATH`). `docs/batch/envs.py` writes such
//! a file, with the commands that make the environments, from the `swebench` package's specs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context;

use super::tasks::Task;

/// Interpreters by `repo@version` or `repo`.
#[derive(Debug, Default)]
pub struct Envs {
    map: BTreeMap<String, String>,
    /// Where the map was read from.
    pub source: PathBuf,
}

impl Envs {
    /// Reads the map at `path`, checking that each interpreter given as a path is a file.
    pub fn load(path: &Path) -> anyhow::Result<Envs> {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        let map: BTreeMap<String, String> = serde_json::from_str(&text).with_context(|| {
            format!("{} is not a JSON object from \"owner/name@version\" to an interpreter", path.display())
        })?;
        let missing: Vec<String> = map
            .iter()
            .filter(|(_, python)| python.contains('/') && !Path::new(python.as_str()).is_file())
            .map(|(key, python)| format!("{key}: {python}"))
            .collect();
        anyhow::ensure!(missing.is_empty(), "{}: no such interpreter for {}", path.display(), missing.join(", "));
        Ok(Envs { map, source: path.to_path_buf() })
    }

    /// The interpreter for `task`, if the map has one for its repository (at its version).
    pub fn python_for(&self, task: &Task) -> Option<&str> {
        let versioned = task.version.as_ref().and_then(|v| self.map.get(&format!("{}@{v}", task.repo)));
        versioned.or_else(|| self.map.get(&task.repo)).map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(repo: &str, version: Option<&str>) -> Task {
        Task {
            instance_id: "x".into(),
            repo: repo.into(),
            base_commit: "abc".into(),
            problem_statement: String::new(),
            version: version.map(Into::into),
        }
    }

    #[test]
    fn a_task_takes_its_versions_interpreter_then_its_repositorys() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("envs.json");
        std::fs::write(
            &path,
            r#"{"django/django@3.0": "python3.6", "django/django": "python3", "a/b@1": "python3.9"}"#,
        )
        .unwrap();
        let envs = Envs::load(&path).unwrap();
        assert_eq!(envs.python_for(&task("django/django", Some("3.0"))), Some("python3.6"));
        assert_eq!(envs.python_for(&task("django/django", Some("4.0"))), Some("python3"));
        assert_eq!(envs.python_for(&task("a/b", None)), None, "no version, no repository entry");
        assert_eq!(envs.python_for(&task("sympy/sympy", Some("1.1"))), None);
        std::fs::write(&path, r#"{"a/b": "/no/such/python"}"#).unwrap();
        assert!(Envs::load(&path).unwrap_err().to_string().contains("no such interpreter for a/b: /no/such/python"));
    }
}
