//! Writing patched files back into a repository on disk, safely.
//!
//! A repository is untrusted input: it can hold symbolic links to anywhere. The rules:
//!
//! - every folder on the way is opened relative to the previous one with `O_NOFOLLOW`, starting at the canonical
//!   root, so no symbolic link is ever followed, wherever it sits in the path;
//! - the file written is the file that was read: same device and inode as recorded at load time, and still a
//!   regular file;
//! - the new text goes to a fresh temporary file beside it (same permissions), which then replaces the old name
//!   with `renameat`: the file is never left half-written, and a hard link to the old file elsewhere keeps the old
//!   text instead of being changed behind the user's back.

use std::ffi::OsStr;
use std::fs::File;
use std::io::Write;
use std::os::fd::OwnedFd;
use std::os::unix::fs::PermissionsExt;

use nix::fcntl::{OFlag, openat, renameat};
use nix::sys::stat::Mode;
use nix::unistd::{UnlinkatFlags, unlinkat};

use crate::load::{FileIdentity, LocalRepo};

/// Why a file was not written.
#[derive(Debug)]
pub enum WriteError {
    /// The path was not loaded from this repository.
    NotLoaded(String),
    /// A part of the path is a symbolic link or not a folder (it changed since loading, or never was one).
    NotAFolder { path: String, part: String },
    /// The file on disk is not the one that was read (replaced, or a link).
    Replaced(String),
    /// The operating system refused.
    Io { path: String, message: String },
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteError::NotLoaded(p) => write!(f, "{p} was not loaded from the repository; nothing written"),
            WriteError::NotAFolder { path, part } => {
                write!(f, "{path}: `{part}` is not a folder of the repository (a symbolic link?); nothing written")
            }
            WriteError::Replaced(p) => {
                write!(f, "{p} is no longer the file that was read (replaced or turned into a link); nothing written")
            }
            WriteError::Io { path, message } => write!(f, "cannot write {path}: {message}"),
        }
    }
}

impl std::error::Error for WriteError {}

/// A file ready to be replaced: its folder, opened without following links, its name and its metadata.
struct Target<'a> {
    path: &'a str,
    dir: OwnedFd,
    name: &'a str,
    meta: std::fs::Metadata,
}

/// Opens the folder of a loaded file and checks the file is still the one that was read.
fn prepare<'a>(local: &LocalRepo, path: &'a str) -> Result<Target<'a>, WriteError> {
    let identity = local.identities.get(path).ok_or_else(|| WriteError::NotLoaded(path.to_string()))?;
    let io = |message: String| WriteError::Io { path: path.to_string(), message };
    let dir_flags = OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC | OFlag::O_RDONLY;
    let mut dir: OwnedFd = File::open(&local.root).map_err(|e| io(e.to_string()))?.into();
    let (folders, name) = match path.rsplit_once('/') {
        Some((folders, name)) => (Some(folders), name),
        None => (None, path),
    };
    for part in folders.into_iter().flat_map(|f| f.split('/')) {
        dir = openat(&dir, part, dir_flags, Mode::empty()).map_err(|e| match e {
            nix::Error::ELOOP | nix::Error::ENOTDIR => {
                WriteError::NotAFolder { path: path.to_string(), part: part.to_string() }
            }
            other => io(other.desc().to_string()),
        })?;
    }
    let file_flags = OFlag::O_RDONLY | OFlag::O_NOFOLLOW | OFlag::O_NONBLOCK | OFlag::O_CLOEXEC;
    let current = openat(&dir, name, file_flags, Mode::empty()).map_err(|e| match e {
        nix::Error::ELOOP => WriteError::Replaced(path.to_string()),
        other => io(other.desc().to_string()),
    })?;
    let meta = File::from(current).metadata().map_err(|e| io(e.to_string()))?;
    if !meta.is_file() || FileIdentity::of(&meta) != *identity {
        return Err(WriteError::Replaced(path.to_string()));
    }
    Ok(Target { path, dir, name, meta })
}

/// Writes the new text to a temporary file beside the target, then renames it over the target.
fn replace(target: &Target<'_>, text: &str) -> Result<(), WriteError> {
    let io = |message: String| WriteError::Io { path: target.path.to_string(), message };
    let temp_name = format!(".{}.acr-{}.tmp", target.name, std::process::id());
    let flags = OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_EXCL | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
    let temp = openat(&target.dir, temp_name.as_str(), flags, Mode::from_bits_truncate(0o600))
        .map_err(|e| io(e.desc().to_string()))?;
    let mut temp = File::from(temp);
    let mode = target.meta.permissions().mode() & 0o7777;
    let written = temp
        .write_all(text.as_bytes())
        .and_then(|()| temp.set_permissions(std::fs::Permissions::from_mode(mode)))
        .and_then(|()| temp.sync_all())
        .map_err(|e| e.to_string())
        .and_then(|()| {
            renameat(&target.dir, OsStr::new(&temp_name), &target.dir, OsStr::new(target.name))
                .map_err(|e| e.desc().to_string())
        });
    if let Err(message) = written {
        let _ = unlinkat(&target.dir, temp_name.as_str(), UnlinkatFlags::NoRemoveDir);
        return Err(io(message));
    }
    Ok(())
}

/// Writes every changed file. Every target is checked first, so a refusal leaves the repository untouched.
/// Returns how many files were written.
pub fn write_all<'a>(
    local: &LocalRepo,
    files: impl IntoIterator<Item = (&'a String, &'a String)>,
) -> Result<usize, WriteError> {
    let files: Vec<(&String, &String)> = files.into_iter().collect();
    let targets = files.iter().map(|(path, _)| prepare(local, path)).collect::<Result<Vec<_>, _>>()?;
    for (target, (_, text)) in targets.iter().zip(&files) {
        replace(target, text)?;
    }
    Ok(files.len())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::os::unix::fs::symlink;

    use super::*;
    use crate::load::local_repo;

    fn setup() -> (tempfile::TempDir, LocalRepo) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("repo/pkg")).unwrap();
        std::fs::create_dir_all(dir.path().join("outside/pkg")).unwrap();
        std::fs::write(dir.path().join("repo/pkg/m.py"), "x = 1\n").unwrap();
        std::fs::write(dir.path().join("repo/top.py"), "y = 1\n").unwrap();
        let local = local_repo(&dir.path().join("repo")).unwrap();
        (dir, local)
    }

    fn change(path: &str) -> BTreeMap<String, String> {
        [(path.to_string(), "changed = True\n".to_string())].into()
    }

    /// A folder swapped for a link after loading: the write is refused and nothing outside changes.
    #[test]
    fn a_folder_turned_into_a_link_after_loading_is_refused() {
        let (dir, local) = setup();
        std::fs::rename(dir.path().join("repo/pkg"), dir.path().join("moved")).unwrap();
        std::fs::write(dir.path().join("outside/pkg/m.py"), "x = 1\n").unwrap();
        symlink(dir.path().join("outside/pkg"), dir.path().join("repo/pkg")).unwrap();
        let err = write_all(&local, &change("pkg/m.py")).unwrap_err();
        assert!(matches!(err, WriteError::NotAFolder { .. }), "{err}");
        assert_eq!(std::fs::read_to_string(dir.path().join("outside/pkg/m.py")).unwrap(), "x = 1\n");
    }

    /// A file replaced (new inode) or turned into a link after loading is refused.
    #[test]
    fn a_file_replaced_after_loading_is_refused() {
        let (dir, local) = setup();
        // Written beside it first, so the new file cannot reuse the old inode number.
        std::fs::write(dir.path().join("repo/pkg/new.py"), "x = 1\n").unwrap();
        std::fs::rename(dir.path().join("repo/pkg/new.py"), dir.path().join("repo/pkg/m.py")).unwrap();
        assert!(matches!(write_all(&local, &change("pkg/m.py")), Err(WriteError::Replaced(_))));
        std::fs::remove_file(dir.path().join("repo/top.py")).unwrap();
        symlink(dir.path().join("outside/pkg/m.py"), dir.path().join("repo/top.py")).unwrap();
        assert!(matches!(write_all(&local, &change("top.py")), Err(WriteError::Replaced(_))));
        assert!(!dir.path().join("outside/pkg/m.py").exists());
    }

    /// Every target is checked before the first write: one refusal leaves every file as it was.
    #[test]
    fn a_refusal_writes_nothing() {
        let (dir, local) = setup();
        let mut files = change("top.py");
        files.insert("never/loaded.py".into(), "z\n".into());
        assert!(matches!(write_all(&local, &files), Err(WriteError::NotLoaded(_))));
        assert_eq!(std::fs::read_to_string(dir.path().join("repo/top.py")).unwrap(), "y = 1\n");
        assert_eq!(write_all(&local, &change("top.py")).unwrap(), 1);
        assert_eq!(std::fs::read_to_string(dir.path().join("repo/top.py")).unwrap(), "changed = True\n");
    }
}
