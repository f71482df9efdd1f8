//! `predictions.jsonl`: SWE-bench's predictions, one line per finished task, safe against a kill at any moment.
//!
//! Each line is written whole by one `write` on a file opened with `O_APPEND`, then synced to disk before the task
//! counts as done. A kill mid-write can only leave a torn last line without its newline: [`Journal::open`] cuts it
//! off (that task runs again) and keeps the first line of each instance id, rewriting the file (a new file synced and
//! renamed over the old one) only when it had something to drop.

use std::collections::HashSet;
use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use super::files::{self, AppendFile};

/// One line of SWE-bench's predictions file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    pub instance_id: String,
    pub model_name_or_path: String,
    /// The diff, empty when the run made no applicable patch.
    pub model_patch: String,
}

/// What reading a predictions file found.
#[derive(Debug, Default)]
pub struct Read {
    /// The first prediction of each instance id, in file order.
    pub predictions: Vec<Prediction>,
    /// Bytes of a last line without its newline (a write cut short).
    pub torn: usize,
    /// Lines that are not predictions.
    pub unreadable: usize,
    /// Later lines for an instance id already seen.
    pub duplicates: usize,
    /// Predictions left out to be made again.
    pub forgotten: usize,
}

impl Read {
    fn clean(&self) -> bool {
        self.torn == 0 && self.unreadable == 0 && self.duplicates == 0 && self.forgotten == 0
    }
}

/// Reads predictions from `bytes`, leaving out a torn last line, unreadable lines and repeated ids.
pub fn parse(bytes: &[u8]) -> Read {
    let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |n| n + 1);
    let mut read = Read { torn: bytes.len() - whole, ..Read::default() };
    let mut seen = HashSet::new();
    for line in bytes[..whole].split(|&b| b == b'\n') {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Prediction>(line) {
            Ok(p) if seen.contains(&p.instance_id) => read.duplicates += 1,
            Ok(p) => {
                seen.insert(p.instance_id.clone());
                read.predictions.push(p);
            }
            Err(_) => read.unreadable += 1,
        }
    }
    read
}

/// Reads the predictions file at `path` (none yet: no predictions).
pub fn read(path: &Path) -> anyhow::Result<Read> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(parse(&bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Read::default()),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// Writes `predictions` to `path` whole ([`files::replace`]).
pub fn write_all(path: &Path, predictions: &[Prediction]) -> anyhow::Result<()> {
    let mut text = String::new();
    for p in predictions {
        text.push_str(&serde_json::to_string(p)?);
        text.push('\n');
    }
    files::replace(path, text.as_bytes())
}

/// The predictions file of a batch, open for appending.
pub struct Journal {
    file: AppendFile,
}

impl Journal {
    /// Opens (or creates) the predictions file at `path`, repairing what a kill left and leaving out the
    /// predictions of `forget` (tasks to be done again); returns the predictions it holds and what was dropped.
    pub fn open(path: &Path, forget: &HashSet<&str>) -> anyhow::Result<(Journal, Read)> {
        let mut read = read(path)?;
        let before = read.predictions.len();
        read.predictions.retain(|p| !forget.contains(p.instance_id.as_str()));
        read.forgotten = before - read.predictions.len();
        if !read.clean() {
            write_all(path, &read.predictions)?;
        }
        // Opened after any rewrite: a handle on the file replaced would append to the old one.
        let (file, _) = AppendFile::open(path, true)?;
        Ok((Journal { file }, read))
    }

    /// Appends one prediction as one whole line and syncs it to disk.
    pub fn append(&self, prediction: &Prediction) -> anyhow::Result<()> {
        self.file.append(&serde_json::to_string(prediction)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(id: &str, patch: &str) -> Prediction {
        Prediction { instance_id: id.into(), model_name_or_path: "m".into(), model_patch: patch.into() }
    }

    #[test]
    fn a_torn_last_line_and_duplicates_are_dropped_on_open() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("predictions.jsonl");
        let mut text = String::new();
        for q in [p("a", "diff a"), p("b", ""), p("a", "diff a again")] {
            text.push_str(&serde_json::to_string(&q).unwrap());
            text.push('\n');
        }
        text.push_str("{\"instance_id\": \"c\", \"model_na");
        std::fs::write(&path, &text).unwrap();
        let (journal, read) = Journal::open(&path, &HashSet::from(["b"])).unwrap();
        assert_eq!(read.predictions, vec![p("a", "diff a")], "b is to be done again");
        assert_eq!((read.torn, read.duplicates, read.unreadable, read.forgotten), (30, 1, 0, 1));
        journal.append(&p("c", "diff c\n")).unwrap();
        let again = super::read(&path).unwrap();
        assert!(again.clean());
        assert_eq!(again.predictions, vec![p("a", "diff a"), p("c", "diff c\n")]);
    }

    #[test]
    fn a_missing_file_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        let (_, read) = Journal::open(&dir.path().join("predictions.jsonl"), &HashSet::new()).unwrap();
        assert!(read.predictions.is_empty() && read.clean());
    }
}
