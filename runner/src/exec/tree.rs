//! The working tree of one run, written to disk: the snapshot's files, checked and patched in memory by
//! [`acr_core::snapshot`], then written under the run's folder.
//!
//! The tree is written only with files this module creates itself (never links), and each written file's folder is
//! checked to resolve inside the root.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::Path;

use acr_core::snapshot::{self, SnapshotError};

use super::ExecError;

impl From<SnapshotError> for ExecError {
    fn from(e: SnapshotError) -> Self {
        match e {
            SnapshotError::UnsafePath(p) => ExecError::UnsafePath(p),
            SnapshotError::DuplicatePath(p) => ExecError::DuplicatePath(p),
            SnapshotError::PatchDoesNotApply { path, message } => ExecError::PatchDoesNotApply { path, message },
            SnapshotError::BadPatch(m) => ExecError::BadPatch(m),
            other => ExecError::BadPatch(other.to_string()),
        }
    }
}

/// Checks the snapshot's paths and returns them normalised (see [`snapshot::checked_files`]).
pub fn checked_files(files: &BTreeMap<String, String>) -> Result<BTreeMap<String, String>, ExecError> {
    Ok(snapshot::checked_files(files)?)
}

/// Applies a unified diff to the files in memory (see [`snapshot::apply_patch`]).
pub fn apply_patch(files: &mut BTreeMap<String, String>, patch: &str) -> Result<(), ExecError> {
    Ok(snapshot::apply_patch(files, patch)?)
}

/// Writes the files under `root`, which must be an empty folder this process created.
pub fn write_tree(root: &Path, files: &BTreeMap<String, String>) -> Result<(), ExecError> {
    let root = root.canonicalize().map_err(|e| ExecError::Io(format!("temporary folder: {e}")))?;
    for (path, text) in files {
        let target = root.join(path);
        let parent = target.parent().unwrap_or(&root);
        fs::create_dir_all(parent).map_err(|e| ExecError::Conflict(format!("{path}: {e}")))?;
        let real_parent = parent.canonicalize().map_err(|e| ExecError::Io(format!("{path}: {e}")))?;
        if !real_parent.starts_with(&root) {
            return Err(ExecError::UnsafePath(path.clone()));
        }
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&target)
            .map_err(|e| ExecError::Conflict(format!("{path}: {e}")))?;
        file.write_all(text.as_bytes()).map_err(|e| ExecError::Io(format!("{path}: {e}")))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(p, t)| (p.to_string(), t.to_string())).collect()
    }

    #[test]
    fn snapshot_errors_keep_their_kind() {
        assert!(matches!(checked_files(&files(&[("../x.py", "")])), Err(ExecError::UnsafePath(_))));
        let mut tree = files(&[("m.py", "a\nb\n")]);
        let wrong = "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n a\n-zzz\n+c\n";
        assert!(matches!(apply_patch(&mut tree, wrong), Err(ExecError::PatchDoesNotApply { .. })));
        assert!(matches!(apply_patch(&mut tree, "just some words\n"), Err(ExecError::BadPatch(_))));
    }

    #[test]
    fn writing_creates_folders_and_refuses_a_file_in_the_way_of_a_folder() {
        let dir = tempfile::tempdir().expect("tempdir");
        write_tree(dir.path(), &files(&[("pkg/sub/m.py", "x = 1\n"), ("top.py", "")])).expect("writes");
        assert_eq!(fs::read_to_string(dir.path().join("pkg/sub/m.py")).ok().as_deref(), Some("x = 1\n"));
        let other = tempfile::tempdir().expect("tempdir");
        let clash = write_tree(other.path(), &files(&[("a", "file"), ("a/b.py", "")]));
        assert!(matches!(clash, Err(ExecError::Conflict(_))));
    }
}
