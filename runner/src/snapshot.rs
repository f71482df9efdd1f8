//! Turning a [`RunBody`] into a [`RunRequest`]: the base64 zip (if any) is read with the core's zip reader, and
//! the `files` map is laid over it.

use std::fmt;

use acr_core::repo::{Limits, Repo, SkipReason};
use acr_core::runner::RunRequest;
use base64::Engine;

use crate::wire::RunBody;

/// Why a snapshot was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SnapshotError {
    /// The `zip` field is not valid base64.
    BadBase64(String),
    /// The bytes are not a readable zip archive.
    BadZip(String),
    /// An archive entry is absolute or climbs out of the root.
    UnsafePath(String),
}

impl fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SnapshotError::BadBase64(m) => write!(f, "the zip field is not base64: {m}"),
            SnapshotError::BadZip(m) => write!(f, "the snapshot is not a readable zip archive: {m}"),
            SnapshotError::UnsafePath(p) => write!(f, "unsafe path {p:?} in the zip: absolute or leaving the root"),
        }
    }
}

impl std::error::Error for SnapshotError {}

/// The request a body describes. Binary and non-UTF-8 archive entries are not materialised (the core keeps text
/// only); an entry with an unsafe path refuses the whole request.
pub fn request_from_body(body: RunBody, limits: &Limits) -> Result<RunRequest, SnapshotError> {
    let mut files = std::collections::BTreeMap::new();
    if let Some(zip) = body.zip.as_deref().filter(|z| !z.trim().is_empty()) {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(zip.trim())
            .map_err(|e| SnapshotError::BadBase64(e.to_string()))?;
        let repo = Repo::from_zip(&bytes, limits).map_err(|e| SnapshotError::BadZip(e.to_string()))?;
        if let Some(bad) = repo.skipped().iter().find(|s| matches!(s.reason, SkipReason::UnsafePath { .. })) {
            return Err(SnapshotError::UnsafePath(bad.path.clone()));
        }
        files.extend(repo.files().map(|(p, t)| (p.to_string(), t.to_string())));
    }
    files.extend(body.files);
    Ok(RunRequest { files, patch: body.patch, command: body.command, timeout_secs: body.timeout_secs })
}
