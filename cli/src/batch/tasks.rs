//! Task lists (SWE-bench instances) and shards of them.

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use anyhow::Context;
use serde::Deserialize;

/// One task: a SWE-bench instance (other fields of the line are ignored).
#[derive(Debug, Clone, Deserialize)]
pub struct Task {
    /// Unique name, also the name of the task's output folder.
    pub instance_id: String,
    /// `owner/name`: the repository under `--repos`.
    pub repo: String,
    /// The commit the repair starts from.
    pub base_commit: String,
    /// The issue text.
    pub problem_statement: String,
    /// The repository's version (SWE-bench's `version`, e.g. `"3.0"`), which picks its environment (`--envs`).
    #[serde(default, deserialize_with = "text_or_number")]
    pub version: Option<String>,
}

/// A version as SWE-bench writes it (a string) or as some exports do (a number).
fn text_or_number<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    Ok(match Option::<serde_json::Value>::deserialize(deserializer)? {
        Some(serde_json::Value::String(s)) => Some(s),
        Some(serde_json::Value::Number(n)) => Some(n.to_string()),
        _ => None,
    })
}

/// Reads a task list: JSON lines (blank lines allowed) or one JSON array, as SWE-bench's datasets are exported.
/// Instance ids must be unique and usable as folder names.
pub fn load(path: &Path) -> anyhow::Result<Vec<Task>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let tasks: Vec<Task> = if text.trim_start().starts_with('[') {
        serde_json::from_str(&text).with_context(|| format!("{} is not a JSON array of tasks", path.display()))?
    } else {
        let mut tasks = Vec::new();
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let task = serde_json::from_str(line).with_context(|| {
                format!(
                    "{} line {}: not a task (instance_id, repo, base_commit, problem_statement)",
                    path.display(),
                    n + 1
                )
            })?;
            tasks.push(task);
        }
        tasks
    };
    let mut seen = HashSet::new();
    for task in &tasks {
        check_id(&task.instance_id)?;
        anyhow::ensure!(seen.insert(task.instance_id.as_str()), "task {} is listed twice", task.instance_id);
        anyhow::ensure!(
            !task.base_commit.is_empty() && !task.base_commit.starts_with('-'),
            "task {}: base_commit {:?} is not a commit",
            task.instance_id,
            task.base_commit
        );
    }
    Ok(tasks)
}

/// An instance id names a folder: letters, digits and `._-+@` only, not `.` or `..`.
fn check_id(id: &str) -> anyhow::Result<()> {
    let fine = |c: char| c.is_ascii_alphanumeric() || "._-+@".contains(c);
    anyhow::ensure!(
        !id.is_empty() && id != "." && id != ".." && id.chars().all(fine),
        "instance_id {id:?} cannot name a folder (letters, digits and ._-+@ only)"
    );
    Ok(())
}

/// The repository of `repo` (`owner/name`) under `repos`: `repos/owner/name`, or the bare mirror
/// `repos/owner/name.git`.
pub fn repository(repos: &Path, repo: &str) -> anyhow::Result<PathBuf> {
    let parts: Vec<&str> = repo.split('/').collect();
    let fine = |p: &&str| !p.is_empty() && *p != "." && *p != ".." && !p.starts_with('-');
    anyhow::ensure!(parts.len() == 2 && parts.iter().all(fine), "repo {repo:?} is not owner/name");
    let dir = repos.join(parts[0]).join(parts[1]);
    if dir.is_dir() {
        return Ok(dir);
    }
    let bare = repos.join(parts[0]).join(format!("{}.git", parts[1]));
    anyhow::ensure!(bare.is_dir(), "no repository {} (nor {})", dir.display(), bare.display());
    Ok(bare)
}

/// Shard `index` of `count` (1-based): the tasks whose instance id hashes to it, so the split does not depend on the
/// order or the filtering of the list. The hash is FNV-1a (64 bits) of the id's UTF-8 bytes, modulo `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

impl Shard {
    /// Whether the task named `id` belongs to this shard.
    pub fn holds(&self, id: &str) -> bool {
        fnv1a(id.as_bytes()) % self.count == self.index - 1
    }
}

impl FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("{s:?} is not a shard I/N with 1 <= I <= N");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count) = (i.trim().parse::<u64>().map_err(|_| bad())?, n.trim().parse::<u64>().map_err(|_| bad())?);
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// FNV-1a, 64 bits.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_split_every_task_exactly_once() {
        let ids: Vec<String> = (0..1000).map(|n| format!("owner__repo-{n}")).collect();
        let shards: Vec<Shard> = (1..=7).map(|i| format!("{i}/7").parse().unwrap()).collect();
        let mut sizes = vec![0; 7];
        for id in &ids {
            let holders: Vec<usize> = (0..7).filter(|&s| shards[s].holds(id)).collect();
            assert_eq!(holders.len(), 1, "{id}");
            sizes[holders[0]] += 1;
        }
        assert!(sizes.iter().all(|&n| (100..190).contains(&n)), "{sizes:?}");
        // Stable: FNV-1a's published test vectors (docs/batch.md gives the same hash in Python).
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn shard_syntax() {
        assert_eq!("2/3".parse::<Shard>(), Ok(Shard { index: 2, count: 3 }));
        for bad in ["0/3", "4/3", "3", "a/b", "1/0"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    #[test]
    fn ids_must_name_folders() {
        assert!(check_id("django__django-11099").is_ok());
        for bad in ["", ".", "..", "a/b", "a b", "x\n"] {
            assert!(check_id(bad).is_err(), "{bad:?}");
        }
    }
}
