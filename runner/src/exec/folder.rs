//! The folder of one run: a fresh temporary directory holding the repository (the only place a contained run can
//! write), the sandbox's `/tmp` when there is no sandbox, the `python3` launchers and the small `/etc` files the
//! sandbox shows. It is measured while the run goes on (the disk budget) and removed afterwards.

use std::fs;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use tempfile::TempDir;

/// The parts of a run's folder.
#[derive(Debug)]
pub struct RunFolder {
    dir: TempDir,
    /// The repository snapshot, the command's working directory.
    pub repo: PathBuf,
    /// Temporary files when the command is not sandboxed (a sandbox has its own `/tmp`).
    pub tmp: PathBuf,
    /// Launchers for the Python interpreter, first on the sandbox's `PATH`.
    pub bin: PathBuf,
    /// `passwd` and `group` for the sandbox's `/etc`.
    pub etc: PathBuf,
}

/// Disk use of a folder tree.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Bytes allocated on disk (sparse files count what they really use).
    pub bytes: u64,
    /// Files, folders and links.
    pub entries: u64,
}

impl RunFolder {
    /// Creates the folder and its parts under the system's temporary directory.
    pub fn create() -> io::Result<RunFolder> {
        let dir = tempfile::Builder::new().prefix("acr-run-").tempdir()?;
        let root = dir.path().canonicalize()?;
        let folder = RunFolder {
            repo: root.join("repo"),
            tmp: root.join("tmp"),
            bin: root.join("bin"),
            etc: root.join("etc"),
            dir,
        };
        for part in [&folder.repo, &folder.tmp, &folder.bin, &folder.etc] {
            fs::create_dir(part)?;
        }
        Ok(folder)
    }

    /// The folder itself.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// What the repository and temporary folders use now, counting at most `max_entries` entries (a run that
    /// made more is over budget anyway, and counting them all would take long).
    pub fn usage(&self, max_entries: u64) -> Usage {
        let mut usage = Usage::default();
        for part in [&self.repo, &self.tmp] {
            measure(part, &mut usage, max_entries);
        }
        usage
    }

    /// Removes the folder, even when the command left read-only folders behind.
    pub fn remove(self) {
        let root = self.dir.path().to_path_buf();
        if fs::remove_dir_all(&root).is_err() {
            make_writable(&root);
            let _ = fs::remove_dir_all(&root);
        }
        drop(self.dir);
    }
}

fn measure(dir: &Path, usage: &mut Usage, max_entries: u64) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        if usage.entries >= max_entries {
            return;
        }
        usage.entries += 1;
        // Never follows links: a link to a large file elsewhere costs nothing here.
        let Ok(meta) = fs::symlink_metadata(entry.path()) else { continue };
        usage.bytes = usage.bytes.saturating_add(meta.blocks().saturating_mul(512));
        if meta.is_dir() {
            measure(&entry.path(), usage, max_entries);
        }
    }
}

fn make_writable(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let _ = fs::set_permissions(dir, fs::Permissions::from_mode(0o700));
    if let Ok(entries) = fs::read_dir(dir) {
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                make_writable(&entry.path());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_counts_files_and_folders_and_stops_at_the_cap() {
        let folder = RunFolder::create().expect("folder");
        fs::create_dir(folder.repo.join("pkg")).expect("pkg");
        fs::write(folder.repo.join("pkg/a.py"), vec![b'x'; 100_000]).expect("write");
        fs::write(folder.tmp.join("b"), b"y").expect("write");
        let usage = folder.usage(1_000);
        assert_eq!(usage.entries, 3);
        assert!(usage.bytes >= 100_000, "{usage:?}");
        assert_eq!(folder.usage(2).entries, 2);
        let root = folder.root().to_path_buf();
        folder.remove();
        assert!(!root.exists());
    }

    #[test]
    fn read_only_leftovers_are_removed() {
        use std::os::unix::fs::PermissionsExt;
        let folder = RunFolder::create().expect("folder");
        let locked = folder.repo.join("locked");
        fs::create_dir(&locked).expect("dir");
        fs::write(locked.join("f"), b"x").expect("write");
        fs::set_permissions(&locked, fs::Permissions::from_mode(0o500)).expect("chmod");
        let root = folder.root().to_path_buf();
        folder.remove();
        assert!(!root.exists());
    }
}
