//! `predictions.jsonl`: SWE-bench's predictions, one line per finished task, safe against a kill at any moment.
//!
//! Each line is written whole by one `write` on a file opened with `O_APPEND`, then synced to disk before the task
//! counts as done. A kill mid-write can only leave a torn last line without its newline: [`Journal::open`] cuts it
//! off (that task runs again) and keeps the first line of each instance id, rewriting the file (a new file synced and
//! renamed over the old one) only when it had something to drop.

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::Context;
use serde::{Deserialize, Serialize};

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
}

impl Read {
    fn clean(&self) -> bool {
        self.torn == 0 && self.unreadable == 0 && self.duplicates == 0
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

/// Writes `predictions` to `path` whole: a temporary file beside it, synced, renamed over it, the folder synced.
pub fn write_all(path: &Path, predictions: &[Prediction]) -> anyhow::Result<()> {
    let mut text = String::new();
    for p in predictions {
        text.push_str(&serde_json::to_string(p)?);
        text.push('\n');
    }
    replace(path, text.as_bytes())
}

/// Replaces the file at `path` with `bytes` so that a reader (or a kill) sees the old file or the new, never a part.
pub fn replace(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let temp = dir.join(format!(".{name}.{}-{}.tmp", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed)));
    let mut file = File::create(&temp).with_context(|| format!("cannot write {}", temp.display()))?;
    file.write_all(bytes).and_then(|()| file.sync_all()).with_context(|| format!("cannot write {}", temp.display()))?;
    std::fs::rename(&temp, path).with_context(|| format!("cannot replace {}", path.display()))?;
    File::open(dir).and_then(|d| d.sync_all()).ok();
    Ok(())
}

/// The predictions file of a batch, open for appending.
pub struct Journal {
    path: PathBuf,
    file: Mutex<File>,
}

impl Journal {
    /// Opens (or creates) the predictions file at `path`, repairing what a kill left; returns the predictions it
    /// holds and what was dropped.
    pub fn open(path: &Path) -> anyhow::Result<(Journal, Read)> {
        let read = read(path)?;
        if !read.clean() {
            write_all(path, &read.predictions)?;
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        Ok((Journal { path: path.to_path_buf(), file: Mutex::new(file) }, read))
    }

    /// Appends one prediction as one whole line and syncs it to disk.
    pub fn append(&self, prediction: &Prediction) -> anyhow::Result<()> {
        let mut line = serde_json::to_string(prediction)?;
        line.push('\n');
        let file = self.file.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        // One write call for the whole line (write_all only loops if the kernel wrote part of it).
        (&*file)
            .write_all(line.as_bytes())
            .and_then(|()| file.sync_data())
            .with_context(|| format!("cannot append to {}", self.path.display()))
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
        let (journal, read) = Journal::open(&path).unwrap();
        assert_eq!(read.predictions, vec![p("a", "diff a"), p("b", "")]);
        assert_eq!((read.torn, read.duplicates, read.unreadable), (30, 1, 0));
        journal.append(&p("c", "diff c\n")).unwrap();
        let again = super::read(&path).unwrap();
        assert!(again.clean());
        assert_eq!(again.predictions, vec![p("a", "diff a"), p("b", ""), p("c", "diff c\n")]);
    }

    #[test]
    fn a_missing_file_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        let (_, read) = Journal::open(&dir.path().join("predictions.jsonl")).unwrap();
        assert!(read.predictions.is_empty() && read.clean());
    }
}
