//! The batch's files written so that a kill at any moment leaves each of them whole: lines appended whole to a file
//! opened `O_APPEND` ([`AppendFile`]), files replaced whole by a rename ([`replace`]). Both count the bytes they
//! write, so what a batch writes can be measured.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use anyhow::Context;

/// A file of lines, each written whole by one `write` on a file opened with `O_APPEND`.
pub struct AppendFile {
    path: PathBuf,
    file: Mutex<File>,
    /// Sync each line to disk before `append` returns.
    sync: bool,
    written: AtomicU64,
}

impl AppendFile {
    /// Opens (or creates) the file at `path` for appending, after cutting off a last line without its newline (a
    /// write cut short by a kill), so the next line does not run into it. Returns the file and the bytes cut off.
    pub fn open(path: &Path, sync: bool) -> anyhow::Result<(AppendFile, u64)> {
        let file = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        let cut = cut_torn_line(&file).with_context(|| format!("cannot repair {}", path.display()))?;
        let file = AppendFile { path: path.to_path_buf(), file: Mutex::new(file), sync, written: AtomicU64::new(0) };
        Ok((file, cut))
    }

    /// Appends `line` and a newline in one write (and syncs it when the file was opened so).
    pub fn append(&self, line: &str) -> anyhow::Result<()> {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        let file = self.file.lock().unwrap_or_else(PoisonError::into_inner);
        // One write call for the whole line (write_all only loops if the kernel wrote part of it).
        (&*file)
            .write_all(&bytes)
            .and_then(|()| if self.sync { file.sync_data() } else { Ok(()) })
            .with_context(|| format!("cannot append to {}", self.path.display()))?;
        self.written.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        Ok(())
    }

    /// Bytes appended since the file was opened.
    pub fn written(&self) -> u64 {
        self.written.load(Ordering::Relaxed)
    }
}

/// Cuts `file` after its last newline; returns the bytes cut.
fn cut_torn_line(file: &File) -> std::io::Result<u64> {
    use std::io::{Read, Seek, SeekFrom};
    let len = file.metadata()?.len();
    let mut at = len;
    // Read backwards in blocks until a newline (or the start) is found.
    while at > 0 {
        let start = at.saturating_sub(64 << 10);
        let mut block = vec![0; (at - start) as usize];
        let mut reader = file;
        reader.seek(SeekFrom::Start(start))?;
        reader.read_exact(&mut block)?;
        if let Some(n) = block.iter().rposition(|&b| b == b'\n') {
            let keep = start + n as u64 + 1;
            if keep < len {
                file.set_len(keep)?;
            }
            return Ok(len - keep);
        }
        at = start;
    }
    if len > 0 {
        file.set_len(0)?;
    }
    Ok(len)
}

/// Replaces the file at `path` with `bytes` so that a reader (or a kill) sees the old file or the new, never a part:
/// a temporary file beside it, synced, renamed over it, the folder synced.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_cut_short_is_cut_off_before_the_next_is_appended() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.jsonl");
        std::fs::write(&path, "one\ntwo\nthr").unwrap();
        let (file, cut) = AppendFile::open(&path, false).unwrap();
        assert_eq!(cut, 3);
        file.append("three").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "one\ntwo\nthree\n");
        assert_eq!(file.written(), 6);
        std::fs::write(&path, "no newline at all").unwrap();
        assert_eq!(AppendFile::open(&path, true).unwrap().1, 17);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "");
    }
}
