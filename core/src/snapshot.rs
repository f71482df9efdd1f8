//! The files a run sees: a [`RunRequest`]'s snapshot with its paths checked and its patch applied, in memory.
//!
//! Every executor starts here (the runner server before writing a folder, the browser before filling Pyodide's file
//! system), so a snapshot is refused or patched the same way wherever it runs. Every path goes through
//! [`normalize_path`]: absolute paths and `..` are refused rather than silently dropped, in the snapshot and in the
//! patch.

use std::collections::BTreeMap;
use std::fmt;

use crate::patch::diff::{apply_hunks, parse_patch};
use crate::repo::normalize_path;
use crate::runner::{RunError, RunRequest};

/// Why a snapshot cannot be run.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SnapshotError {
    /// A path (in the snapshot or the patch) is absolute or climbs out of the root.
    UnsafePath(String),
    /// Two snapshot paths name the same file once normalised.
    DuplicatePath(String),
    /// The patch cannot be read, or changes something no executor supports (binary files, symlinks).
    BadPatch(String),
    /// A hunk does not match the snapshot.
    PatchDoesNotApply {
        /// The file concerned.
        path: String,
        /// What did not match.
        message: String,
    },
}

impl fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SnapshotError::UnsafePath(p) => write!(f, "unsafe path {p:?}: absolute or leaving the repository root"),
            SnapshotError::DuplicatePath(p) => write!(f, "the snapshot names {p:?} more than once"),
            SnapshotError::BadPatch(m) => write!(f, "the patch cannot be used: {m}"),
            SnapshotError::PatchDoesNotApply { path, message } => {
                write!(f, "the patch does not apply to {path}: {message}")
            }
        }
    }
}

impl std::error::Error for SnapshotError {}

impl From<SnapshotError> for RunError {
    fn from(e: SnapshotError) -> Self {
        RunError::Refused(e.to_string())
    }
}

/// The request's files with normalised paths and its patch applied.
pub fn patched_files(request: &RunRequest) -> Result<BTreeMap<String, String>, SnapshotError> {
    let mut files = checked_files(&request.files)?;
    apply_patch(&mut files, &request.patch)?;
    Ok(files)
}

/// Checks the snapshot's paths and returns them normalised; two spellings of one path are refused.
pub fn checked_files(files: &BTreeMap<String, String>) -> Result<BTreeMap<String, String>, SnapshotError> {
    let mut clean = BTreeMap::new();
    for (path, text) in files {
        let normal = normalize_path(path).ok_or_else(|| SnapshotError::UnsafePath(path.clone()))?;
        if clean.insert(normal.clone(), text.clone()).is_some() {
            return Err(SnapshotError::DuplicatePath(normal));
        }
    }
    Ok(clean)
}

/// Applies a unified diff (plain or `git diff` style, one or more files) to the files in memory, read by the core's
/// one diff parser ([`parse_patch`]) and applied hunk by hunk ([`apply_hunks`]), as the patch layer writes them.
///
/// Creations, deletions, modifications, renames and copies are supported; binary patches, symlinks and submodules
/// are refused. A hunk that does not match is a [`SnapshotError::PatchDoesNotApply`].
pub fn apply_patch(files: &mut BTreeMap<String, String>, patch: &str) -> Result<(), SnapshotError> {
    if patch.trim().is_empty() {
        return Ok(());
    }
    let parsed = parse_patch(patch).map_err(|e| SnapshotError::BadPatch(e.to_string()))?;
    for file in parsed {
        let apply = |path: &str, base: &str| {
            apply_hunks(&file.hunks, base)
                .map_err(|e| SnapshotError::PatchDoesNotApply { path: path.to_string(), message: e.to_string() })
        };
        match (&file.old_path, &file.new_path) {
            (None, None) => return Err(SnapshotError::BadPatch("a file is both created and deleted".into())),
            (None, Some(raw)) => {
                let path = resolve(raw, files)?;
                if files.contains_key(&path) {
                    return Err(does_not_apply(&path, "the patch creates a file that already exists"));
                }
                let text = apply(&path, "")?;
                files.insert(path, text);
            }
            (Some(raw), None) => {
                let path = resolve(raw, files)?;
                if files.remove(&path).is_none() {
                    return Err(does_not_apply(&path, "the patch deletes a file that is not in the snapshot"));
                }
            }
            (Some(from), Some(to)) => {
                let from = resolve(from, files)?;
                let to = resolve(to, files)?;
                let base = files.get(&from).ok_or_else(|| does_not_apply(&from, "no such file in the snapshot"))?;
                let text = apply(&from, base)?;
                if !file.copy {
                    files.remove(&from);
                }
                files.insert(to, text);
            }
        }
    }
    Ok(())
}

fn does_not_apply(path: &str, message: &str) -> SnapshotError {
    SnapshotError::PatchDoesNotApply { path: path.to_string(), message: message.to_string() }
}

/// A patch path as a snapshot path: normalised, with git's `a/` or `b/` prefix removed unless the prefixed path is
/// itself a file of the snapshot.
fn resolve(raw: &str, files: &BTreeMap<String, String>) -> Result<String, SnapshotError> {
    let normal = normalize_path(raw).ok_or_else(|| SnapshotError::UnsafePath(raw.to_string()))?;
    let stripped = normal.strip_prefix("a/").or_else(|| normal.strip_prefix("b/"));
    match stripped {
        Some(s) if files.contains_key(s) || !files.contains_key(&normal) => Ok(s.to_string()),
        _ => Ok(normal),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(p, t)| (p.to_string(), t.to_string())).collect()
    }

    #[test]
    fn unsafe_and_duplicate_snapshot_paths_are_refused() {
        assert!(matches!(checked_files(&files(&[("../x.py", "")])), Err(SnapshotError::UnsafePath(_))));
        assert!(matches!(checked_files(&files(&[("/etc/passwd", "")])), Err(SnapshotError::UnsafePath(_))));
        assert!(matches!(checked_files(&files(&[("a/../../x", "")])), Err(SnapshotError::UnsafePath(_))));
        assert!(matches!(
            checked_files(&files(&[("./a.py", "1"), ("a.py", "2")])),
            Err(SnapshotError::DuplicatePath(_))
        ));
        let ok = checked_files(&files(&[("./pkg//m.py", "x")])).expect("safe path");
        assert_eq!(ok.keys().collect::<Vec<_>>(), ["pkg/m.py"]);
    }

    #[test]
    fn git_diff_with_modify_create_and_delete_applies() {
        let mut tree = files(&[("calc.py", "def add(a, b):\n    return a - b\n"), ("old.py", "x = 1\n")]);
        let patch = "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n\
                     -    return a - b\n+    return a + b\n\
                     diff --git a/new.py b/new.py\nnew file mode 100644\n--- /dev/null\n+++ b/new.py\n@@ -0,0 +1 @@\n+y = 2\n\
                     diff --git a/old.py b/old.py\ndeleted file mode 100644\n--- a/old.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x = 1\n";
        apply_patch(&mut tree, patch).expect("applies");
        assert_eq!(tree.get("calc.py").map(String::as_str), Some("def add(a, b):\n    return a + b\n"));
        assert_eq!(tree.get("new.py").map(String::as_str), Some("y = 2\n"));
        assert!(!tree.contains_key("old.py"));
    }

    #[test]
    fn plain_unified_diff_without_prefixes_applies() {
        let mut tree = files(&[("m.py", "a\nb\n")]);
        apply_patch(&mut tree, "--- m.py\n+++ m.py\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n").expect("applies");
        assert_eq!(tree.get("m.py").map(String::as_str), Some("a\nc\n"));
    }

    #[test]
    fn mismatched_missing_and_escaping_patches_are_refused() {
        let mut tree = files(&[("m.py", "a\nb\n")]);
        let wrong = "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n a\n-zzz\n+c\n";
        assert!(matches!(apply_patch(&mut tree, wrong), Err(SnapshotError::PatchDoesNotApply { .. })));
        let missing = "--- a/nope.py\n+++ b/nope.py\n@@ -1 +1 @@\n-a\n+b\n";
        assert!(matches!(apply_patch(&mut tree, missing), Err(SnapshotError::PatchDoesNotApply { .. })));
        let escape = "--- /dev/null\n+++ b/../../evil.py\n@@ -0,0 +1 @@\n+boom\n";
        assert!(matches!(apply_patch(&mut tree, escape), Err(SnapshotError::UnsafePath(_))));
        assert!(matches!(apply_patch(&mut tree, "just some words\n"), Err(SnapshotError::BadPatch(_))));
        assert_eq!(tree.get("m.py").map(String::as_str), Some("a\nb\n"));
        assert!(apply_patch(&mut tree, "  \n").is_ok());
        let link = "diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+/etc/passwd\n";
        assert!(matches!(apply_patch(&mut tree, link), Err(SnapshotError::BadPatch(_))));
        assert!(!tree.contains_key("l"));
    }

    #[test]
    fn renames_copies_and_header_like_hunk_lines_apply() {
        let mut tree = files(&[("x.py", "a\n-- b\nc\n"), ("k.py", "k\n")]);
        let patch = "diff --git a/x.py b/y.py\nrename from x.py\nrename to y.py\n--- a/x.py\n+++ b/y.py\n\
                     @@ -1,3 +1,3 @@\n a\n--- b\n+++ b\n c\n\
                     diff --git a/k.py b/k2.py\ncopy from k.py\ncopy to k2.py\n";
        apply_patch(&mut tree, patch).expect("applies");
        assert_eq!(tree, files(&[("y.py", "a\n++ b\nc\n"), ("k.py", "k\n"), ("k2.py", "k\n")]));
    }

    #[test]
    fn a_request_is_checked_then_patched() {
        let request = RunRequest {
            files: files(&[("./m.py", "a\nb\n")]),
            patch: "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n".into(),
            command: "python3 m.py".into(),
            timeout_secs: 5,
        };
        assert_eq!(patched_files(&request).expect("applies"), files(&[("m.py", "a\nc\n")]));
        let refused = RunRequest { patch: "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n".into(), ..request };
        assert!(matches!(RunError::from(patched_files(&refused).unwrap_err()), RunError::Refused(_)));
    }
}
