//! Reading a repository from disk into an in-memory [`Repo`].
//!
//! The walk never follows a symbolic link and never opens anything but a regular file: links, FIFOs, sockets and
//! devices are listed as skipped, as are entries that cannot be read (permissions, a file removed mid-walk) and
//! names that cannot be repository paths (see [`acr_core::repo::check_path`]). Names are taken exactly as the file
//! system spells them, so the path shown is the path written back. Each kept file's identity (device and inode) is
//! recorded, so [`crate::write`] can refuse to write anything but the file that was read.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

use acr_core::repo::{Limits, PathProblem, Repo, SkipReason, SkippedFile};
use anyhow::Context;

/// Folders that never hold project sources.
const SKIP_DIRS: &[&str] = &[".git", ".hg", ".svn", "node_modules", "__pycache__", ".tox", ".venv", ".mypy_cache"];

/// Which file on disk a loaded path was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileIdentity {
    /// The device holding the file.
    pub dev: u64,
    /// The file's inode on that device.
    pub ino: u64,
}

impl FileIdentity {
    /// The identity in a file's metadata.
    pub fn of(meta: &std::fs::Metadata) -> FileIdentity {
        FileIdentity { dev: meta.dev(), ino: meta.ino() }
    }
}

/// A repository read from a folder.
#[derive(Debug)]
pub struct LocalRepo {
    /// The folder, canonical (symbolic links in the path the user gave are resolved once, here).
    pub root: PathBuf,
    /// The files in memory.
    pub repo: Repo,
    /// The identity of every kept file, by repository path.
    pub identities: BTreeMap<String, FileIdentity>,
}

/// Loads every file under `dir` (text files only; others are listed as skipped).
pub fn repo_from_dir(dir: &Path) -> anyhow::Result<Repo> {
    Ok(local_repo(dir)?.repo)
}

/// Loads every file under `dir` and remembers where each came from.
pub fn local_repo(dir: &Path) -> anyhow::Result<LocalRepo> {
    let root = dir.canonicalize().with_context(|| format!("cannot open {}", dir.display()))?;
    anyhow::ensure!(root.is_dir(), "{} is not a directory", dir.display());
    let limits = Limits::default();
    let mut local = LocalRepo { root: root.clone(), repo: Repo::new(), identities: BTreeMap::new() };
    let walker = walkdir::WalkDir::new(&root).sort_by_file_name().into_iter().filter_entry(|e| {
        !(e.file_type().is_dir() && e.depth() > 0 && SKIP_DIRS.contains(&e.file_name().to_string_lossy().as_ref()))
    });
    for entry in walker {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                let path = e.path().map_or_else(|| root.clone(), Path::to_path_buf);
                let message = e.io_error().map_or_else(|| e.to_string(), ToString::to_string);
                local.skip(&root, &path, SkipReason::Unreadable { message });
                continue;
            }
        };
        let kind = entry.file_type();
        if kind.is_dir() {
            continue;
        }
        let reason = if kind.is_symlink() {
            Some(SkipReason::Symlink)
        } else if !kind.is_file() {
            Some(SkipReason::SpecialFile { what: special_kind(&kind).to_string() })
        } else {
            None
        };
        if let Some(reason) = reason {
            local.skip(&root, entry.path(), reason);
            continue;
        }
        local.read_file(&root, entry.path(), &limits);
    }
    Ok(local)
}

impl LocalRepo {
    fn skip(&mut self, root: &Path, path: &Path, reason: SkipReason) {
        let path = relative_name(root, path).unwrap_or_else(|_| path.to_string_lossy().into_owned());
        self.repo.record_skip(SkippedFile { path, reason });
    }

    /// Reads one regular file: opened once, checked to still be a regular file, read up to the size cap.
    fn read_file(&mut self, root: &Path, path: &Path, limits: &Limits) {
        let rel = match relative_name(root, path) {
            Ok(rel) => rel,
            Err(problem) => {
                let shown = path.strip_prefix(root).unwrap_or(path).to_string_lossy().into_owned();
                self.repo.record_skip(SkippedFile { path: shown, reason: SkipReason::UnsafePath { problem } });
                return;
            }
        };
        let unreadable = |e: std::io::Error| SkipReason::Unreadable { message: e.to_string() };
        let opened = open_no_follow(path).and_then(|file| file.metadata().map(|meta| (file, meta)));
        let (file, meta) = match opened {
            Ok(pair) => pair,
            Err(e) => return self.repo.record_skip(SkippedFile { path: rel, reason: unreadable(e) }),
        };
        if !meta.is_file() {
            let reason = SkipReason::SpecialFile { what: special_kind(&meta.file_type()).to_string() };
            return self.repo.record_skip(SkippedFile { path: rel, reason });
        }
        let cap = limits.max_file_bytes as u64;
        if meta.len() > cap {
            let reason = SkipReason::TooLarge { bytes: meta.len(), limit: cap };
            return self.repo.record_skip(SkippedFile { path: rel, reason });
        }
        // The size can change after the check: never read more than the cap allows.
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        if let Err(e) = file.take(cap + 1).read_to_end(&mut bytes) {
            return self.repo.record_skip(SkippedFile { path: rel, reason: unreadable(e) });
        }
        if let Some(kept) = self.repo.add_owned(&rel, bytes, limits) {
            self.identities.insert(kept, FileIdentity::of(&meta));
        }
    }
}

/// Opens a file for reading without following a symbolic link in its last part.
fn open_no_follow(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags((nix::fcntl::OFlag::O_NOFOLLOW | nix::fcntl::OFlag::O_NONBLOCK).bits())
        .open(path)
}

/// The repository-relative name of a path under `root`, exactly as the file system spells it.
fn relative_name(root: &Path, path: &Path) -> Result<String, PathProblem> {
    let rel = path.strip_prefix(root).map_err(|_| PathProblem::Absolute)?;
    let text = rel.to_str().ok_or(PathProblem::NotUtf8)?;
    acr_core::repo::check_path(text)
}

fn special_kind(kind: &std::fs::FileType) -> &'static str {
    if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_block_device() || kind.is_char_device() {
        "a device"
    } else {
        "not a regular file"
    }
}
