//! A repository held in memory: relative, `/`-separated paths mapped to UTF-8 text.
//!
//! Files arrive from a path map ([`Repo::from_files`]) or from a zip archive ([`Repo::from_zip`]). Nothing that
//! cannot be searched or patched safely gets in: binary files, non-UTF-8 text, files over [`Limits::max_file_bytes`],
//! symbolic links, and names that escape the root or could be misread ([`PathProblem`]: a backslash, a control
//! character, an over-long name) are left out and listed in [`Repo::skipped`] with the reason, so a user can see
//! exactly what was not loaded and why. Names are kept exactly as given (never rewritten), so two entries can never
//! collide into one path; a second entry with the same path is skipped as a [`SkipReason::Duplicate`].

use std::collections::BTreeMap;
use std::fmt;

use crate::language::Language;
use serde::{Deserialize, Serialize};

#[cfg(feature = "zip")]
mod unzip;
#[cfg(feature = "zip")]
pub use unzip::{EntryRead, ZipUnpacker};

/// Size caps applied while loading. The defaults suit a browser tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest single file kept, in bytes.
    pub max_file_bytes: usize,
    /// Largest total of uncompressed bytes read from an archive.
    pub max_total_bytes: usize,
    /// Most entries read from an archive.
    pub max_entries: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_file_bytes: 4 << 20, max_total_bytes: 1 << 30, max_entries: 200_000 }
    }
}

/// Why a file was left out of a [`Repo`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum SkipReason {
    /// The bytes contain NUL, so the file is not text.
    Binary,
    /// The bytes are not valid UTF-8.
    NotUtf8,
    /// The file is larger than the limit.
    TooLarge {
        /// The file's size in bytes.
        bytes: u64,
        /// The limit in force.
        limit: u64,
    },
    /// The path cannot be used as a repository path: see the problem.
    UnsafePath {
        /// What is wrong with it.
        problem: PathProblem,
    },
    /// Another entry already has this path; the first one was kept.
    Duplicate,
    /// The entry is a symbolic link; links are never followed.
    Symlink,
    /// The entry is not a regular file (a FIFO, a socket or a device).
    SpecialFile {
        /// What it is, in words.
        what: String,
    },
    /// The archive's total or entry budget ran out before this file.
    BudgetExhausted,
    /// The archive entry could not be read (corrupt data, unsupported compression).
    Unreadable {
        /// What the archive reader said.
        message: String,
    },
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkipReason::Binary => write!(f, "binary file"),
            SkipReason::NotUtf8 => write!(f, "not valid UTF-8 text"),
            SkipReason::TooLarge { bytes, limit } => {
                write!(f, "{bytes} bytes, over the {limit}-byte limit")
            }
            SkipReason::UnsafePath { problem } => write!(f, "unsafe path: {problem}"),
            SkipReason::Duplicate => write!(f, "another entry has the same path (the first was kept)"),
            SkipReason::Symlink => write!(f, "symbolic link (never followed)"),
            SkipReason::SpecialFile { what } => write!(f, "not a regular file ({what})"),
            SkipReason::BudgetExhausted => write!(f, "archive size budget exhausted"),
            SkipReason::Unreadable { message } => write!(f, "unreadable entry: {message}"),
        }
    }
}

/// Why a name cannot be a repository path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PathProblem {
    /// The name is empty (or only `/` and `.` parts).
    Empty,
    /// The path is absolute (`/x`, `C:x`).
    Absolute,
    /// A `..` part climbs out of the root.
    ParentDir,
    /// The name holds a backslash, which some tools read as a folder separator and others as a letter.
    Backslash,
    /// The name holds a control character (a newline, say), which could forge lines where paths are printed.
    ControlCharacter,
    /// The name is longer than [`MAX_PATH_BYTES`] or one part longer than [`MAX_NAME_BYTES`].
    TooLong,
    /// The name is not valid UTF-8.
    NotUtf8,
}

impl fmt::Display for PathProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PathProblem::Empty => "the name is empty",
            PathProblem::Absolute => "the path is absolute",
            PathProblem::ParentDir => "the path leaves the repository root with `..`",
            PathProblem::Backslash => "the name contains a backslash",
            PathProblem::ControlCharacter => "the name contains a control character",
            PathProblem::TooLong => "the name is too long",
            PathProblem::NotUtf8 => "the name is not valid UTF-8",
        })
    }
}

/// Longest repository path accepted, in bytes (Linux's `PATH_MAX`).
pub const MAX_PATH_BYTES: usize = 4096;
/// Longest single path part accepted, in bytes (Linux's `NAME_MAX`).
pub const MAX_NAME_BYTES: usize = 255;

/// A file that was not loaded, with the reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkippedFile {
    /// The path as given (or as stored in the archive).
    pub path: String,
    /// Why it was left out.
    pub reason: SkipReason,
}

/// Errors that stop a whole repository from loading.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RepoError {
    /// The bytes are not a readable zip archive.
    BadArchive(String),
}

impl fmt::Display for RepoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RepoError::BadArchive(m) => write!(f, "not a readable zip archive: {m}"),
        }
    }
}

impl std::error::Error for RepoError {}

/// A repository in memory.
#[derive(Debug, Clone, Default)]
pub struct Repo {
    files: BTreeMap<String, String>,
    skipped: Vec<SkippedFile>,
}

impl Repo {
    /// An empty repository.
    pub fn new() -> Self {
        Repo::default()
    }

    /// Builds a repository from `(path, bytes)` pairs, applying the default [`Limits`].
    pub fn from_files<P: AsRef<str>, B: AsRef<[u8]>>(files: impl IntoIterator<Item = (P, B)>) -> Self {
        let mut repo = Repo::new();
        for (path, bytes) in files {
            repo.add_bytes(path.as_ref(), bytes.as_ref(), &Limits::default());
        }
        repo
    }

    /// Adds one file, or records why it was skipped. Returns the normalised path when the file was kept.
    pub fn add_bytes(&mut self, path: &str, bytes: &[u8], limits: &Limits) -> Option<String> {
        if bytes.len() > limits.max_file_bytes {
            // Checked before copying, so an oversized buffer is never duplicated.
            let reason = SkipReason::TooLarge { bytes: bytes.len() as u64, limit: limits.max_file_bytes as u64 };
            self.skipped.push(SkippedFile { path: path.to_string(), reason });
            return None;
        }
        self.add_owned(path, bytes.to_vec(), limits)
    }

    /// [`Repo::add_bytes`] taking ownership of the bytes, so the text is kept without a copy.
    pub fn add_owned(&mut self, path: &str, bytes: Vec<u8>, limits: &Limits) -> Option<String> {
        let reason = match check_path(path) {
            Err(problem) => SkipReason::UnsafePath { problem },
            Ok(clean) if self.files.contains_key(&clean) => SkipReason::Duplicate,
            Ok(clean) => match text_problem(&bytes, limits) {
                Some(reason) => reason,
                None => match String::from_utf8(bytes) {
                    Ok(text) => {
                        self.files.insert(clean.clone(), text);
                        return Some(clean);
                    }
                    Err(_) => SkipReason::NotUtf8,
                },
            },
        };
        self.skipped.push(SkippedFile { path: path.to_string(), reason });
        None
    }

    /// Records a file that the caller chose not to load (for example, too large to read).
    pub fn record_skip(&mut self, skipped: SkippedFile) {
        self.skipped.push(skipped);
    }

    /// Inserts or replaces a file's text directly (used when applying patches). A path that
    /// [`check_path`] refuses is ignored.
    pub fn set_file(&mut self, path: &str, text: String) {
        if let Ok(clean) = check_path(path) {
            self.files.insert(clean, text);
        }
    }

    /// Reads a zip archive. A common top-level folder (as in GitHub's "Download ZIP") is removed from every path.
    /// The source files are unpacked first, then the rest ([`ZipUnpacker`], which can do the two apart).
    #[cfg(feature = "zip")]
    pub fn from_zip(bytes: &[u8], limits: &Limits) -> Result<Repo, RepoError> {
        let mut unpacker = ZipUnpacker::open(bytes, limits)?;
        let mut repo = unpacker.sources();
        unpacker.rest(&mut repo, usize::MAX);
        Ok(repo)
    }

    /// Adds another repository's files and skipped files to this one (a second stage of the same load, as
    /// [`ZipUnpacker::rest`] gives). A path both hold keeps this repository's file; the other's is recorded as a
    /// [`SkipReason::Duplicate`].
    pub fn absorb(&mut self, other: Repo) {
        for (path, text) in other.files {
            match self.files.entry(path) {
                std::collections::btree_map::Entry::Vacant(slot) => {
                    slot.insert(text);
                }
                std::collections::btree_map::Entry::Occupied(slot) => {
                    self.skipped.push(SkippedFile { path: slot.key().clone(), reason: SkipReason::Duplicate })
                }
            }
        }
        self.skipped.extend(other.skipped);
    }

    /// The text of a file, by exact relative path.
    pub fn file(&self, path: &str) -> Option<&str> {
        self.files.get(path).map(String::as_str)
    }

    /// Every kept file, in path order.
    pub fn files(&self) -> impl Iterator<Item = (&str, &str)> {
        self.files.iter().map(|(p, t)| (p.as_str(), t.as_str()))
    }

    /// The repository's language: the one most of its source files are in (Python when none, or on a tie).
    pub fn language(&self) -> Language {
        let mut counts = [0usize; Language::ALL.len()];
        for (path, _) in self.source_files() {
            if let Some(i) = Language::of_path(path).and_then(|l| Language::ALL.iter().position(|&k| k == l)) {
                counts[i] += 1;
            }
        }
        let best = counts.iter().enumerate().max_by_key(|&(i, &n)| (n, std::cmp::Reverse(i))).map_or(0, |(i, _)| i);
        Language::ALL[best]
    }

    /// Kept files in a language the index reads ([`Language::of_path`]: `.py`, and `.java` with the `java`
    /// feature) that are not test files (see [`is_test_file`]), in path order.
    pub fn source_files(&self) -> impl Iterator<Item = (&str, &str)> {
        self.files().filter(|(p, _)| is_source_path(p))
    }

    /// Number of kept files.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether no file was kept.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Files that were left out, with reasons.
    pub fn skipped(&self) -> &[SkippedFile] {
        &self.skipped
    }
}

/// What an archive's directory says about it, read without unpacking anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ArchiveSummary {
    /// Entries that are files (folders not counted).
    pub files: usize,
    /// Their total size once unpacked, as the directory declares it (a hostile archive can lie; loading still
    /// counts the bytes it actually gets).
    pub declared_bytes: u64,
}

/// Reads a zip archive's directory: how many files it holds and how large they say they are unpacked. Use it to
/// refuse an archive that cannot fit before spending time unpacking it.
#[cfg(feature = "zip")]
pub fn archive_summary(bytes: &[u8]) -> Result<ArchiveSummary, RepoError> {
    let archive =
        zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(|e| RepoError::BadArchive(e.to_string()))?;
    Ok(summarize(&archive))
}

/// [`archive_summary`] of an opened archive: its directory only (no entry's own header is read).
#[cfg(feature = "zip")]
fn summarize<R: std::io::Read + std::io::Seek>(archive: &zip::ZipArchive<R>) -> ArchiveSummary {
    let mut summary = ArchiveSummary { files: 0, declared_bytes: 0 };
    for i in 0..archive.len() {
        if let Ok(entry) = archive.by_index_data(i)
            && !entry.is_dir()
        {
            summary.files += 1;
            summary.declared_bytes = summary.declared_bytes.saturating_add(entry.size());
        }
    }
    summary
}

/// Whether a path names a test file: by its language's rule ([`Language::is_test_file`]), and for files in no
/// language the index reads, by AutoCodeRover's (a component equal to `test` or `tests`, or a file name that starts
/// with `test_` or ends with `_test.py`).
pub fn is_test_file(path: &str) -> bool {
    Language::for_path(path).is_test_file(path)
}

/// Whether a clean repository path is one [`Repo::source_files`] lists: a language the index reads, not a test.
pub fn is_source_path(path: &str) -> bool {
    Language::of_path(path).is_some_and(|l| !l.is_test_file(path))
}

/// What [`Repo::add_owned`] would keep for `path` and `bytes`, without a repository: the clean path and the text, or
/// why the file would be left out. A duplicate path is the one reason not checked, since it depends on what the
/// repository holds already.
pub fn file_text<'a>(path: &str, bytes: &'a [u8], limits: &Limits) -> Result<(String, &'a str), SkipReason> {
    let clean = check_path(path).map_err(|problem| SkipReason::UnsafePath { problem })?;
    if let Some(reason) = text_problem(bytes, limits) {
        return Err(reason);
    }
    let text = std::str::from_utf8(bytes).map_err(|_| SkipReason::NotUtf8)?;
    Ok((clean, text))
}

/// Why bytes cannot be a file's text before their encoding is looked at: too large, or binary (they hold a NUL).
fn text_problem(bytes: &[u8], limits: &Limits) -> Option<SkipReason> {
    if bytes.len() > limits.max_file_bytes {
        Some(SkipReason::TooLarge { bytes: bytes.len() as u64, limit: limits.max_file_bytes as u64 })
    } else if memchr::memchr(0, bytes).is_some() {
        Some(SkipReason::Binary)
    } else {
        None
    }
}

/// Checks a relative, `/`-separated path and returns it without `.` parts or repeated `/`; the [`PathProblem`]
/// when it is absolute, climbs out with `..`, or holds a backslash, a control character or an over-long part.
/// Names are never rewritten beyond that, so a name read from disk or an archive is the name written back.
pub fn check_path(path: &str) -> Result<String, PathProblem> {
    if path.len() > MAX_PATH_BYTES {
        return Err(PathProblem::TooLong);
    }
    if path.chars().any(char::is_control) {
        return Err(PathProblem::ControlCharacter);
    }
    if path.contains('\\') {
        return Err(PathProblem::Backslash);
    }
    if path.starts_with('/') || path.as_bytes().get(1) == Some(&b':') {
        return Err(PathProblem::Absolute);
    }
    let mut parts = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err(PathProblem::ParentDir),
            p if p.len() > MAX_NAME_BYTES => return Err(PathProblem::TooLong),
            p => parts.push(p),
        }
    }
    if parts.is_empty() {
        return Err(PathProblem::Empty);
    }
    Ok(parts.join("/"))
}

/// [`check_path`] as an `Option`: the normalised path, or `None` when it cannot be a repository path.
pub fn normalize_path(path: &str) -> Option<String> {
    check_path(path).ok()
}

/// The longest leading folder (ending in `/`) shared by every entry, when there is more than one path segment.
#[cfg(feature = "zip")]
fn common_root<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let mut root: Option<&str> = None;
    for name in names {
        let Some((first, _)) = name.split_once('/') else {
            return String::new();
        };
        match root {
            None => root = Some(first),
            Some(r) if r == first => {}
            Some(_) => return String::new(),
        }
    }
    root.map(|r| format!("{r}/")).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_files_follow_acr_rules() {
        assert!(is_test_file("tests/test_x.py"));
        assert!(is_test_file("pkg/test/helpers.py"));
        assert!(is_test_file("pkg/test_models.py"));
        assert!(is_test_file("pkg/models_test.py"));
        assert!(!is_test_file("pkg/testing.py"));
        assert!(!is_test_file("pkg/contest/a.py"));
        assert!(!is_test_file("pkg/latest_test_utils.py"));
    }

    #[test]
    fn unsafe_paths_are_refused() {
        assert_eq!(normalize_path("a/./b//c.py").as_deref(), Some("a/b/c.py"));
        assert_eq!(check_path("../etc/passwd"), Err(PathProblem::ParentDir));
        assert_eq!(check_path("a/../../b"), Err(PathProblem::ParentDir));
        assert_eq!(check_path("/abs.py"), Err(PathProblem::Absolute));
        assert_eq!(check_path("C:/x.py"), Err(PathProblem::Absolute));
        assert_eq!(check_path(""), Err(PathProblem::Empty));
        assert_eq!(check_path("./."), Err(PathProblem::Empty));
    }

    /// Regression (hostile repositories): `sub\evil.py` was rewritten to `sub/evil.py`, which a symlink `sub` could
    /// send outside the repository when written back; a newline in a name could forge diff headers.
    #[test]
    fn names_that_could_be_misread_are_refused_not_rewritten() {
        assert_eq!(check_path("sub\\evil.py"), Err(PathProblem::Backslash));
        assert_eq!(check_path("a\n--- a/setup.py\n+++ b/setup.py"), Err(PathProblem::ControlCharacter));
        assert_eq!(check_path("tab\there.py"), Err(PathProblem::ControlCharacter));
        assert_eq!(check_path("del\u{7f}.py"), Err(PathProblem::ControlCharacter));
        assert_eq!(check_path("c1\u{85}.py"), Err(PathProblem::ControlCharacter));
        assert_eq!(check_path(&"a".repeat(256)), Err(PathProblem::TooLong));
        assert_eq!(check_path(&"a/".repeat(2100)), Err(PathProblem::TooLong));
        assert_eq!(check_path("spaces and ünïcode/ok.py").as_deref(), Ok("spaces and ünïcode/ok.py"));
        let repo = Repo::from_files([("a.py", "x = 1\n"), ("./a.py", "x = 2\n"), ("b\\c.py", "")]);
        assert_eq!(repo.file("a.py"), Some("x = 1\n"), "the first of two entries with one path is kept");
        let reasons: Vec<&SkipReason> = repo.skipped().iter().map(|s| &s.reason).collect();
        assert_eq!(reasons, [&SkipReason::Duplicate, &SkipReason::UnsafePath { problem: PathProblem::Backslash }]);
    }

    #[test]
    fn skipped_files_carry_reasons() {
        let repo = Repo::from_files([
            ("ok.py", b"x = 1\n".as_slice()),
            ("bin.py", b"\x00\x01".as_slice()),
            ("latin.py", b"caf\xe9".as_slice()),
            ("../evil.py", b"x".as_slice()),
        ]);
        assert_eq!(repo.len(), 1);
        let reasons: Vec<_> = repo.skipped().iter().map(|s| (s.path.as_str(), &s.reason)).collect();
        assert_eq!(
            reasons,
            vec![
                ("bin.py", &SkipReason::Binary),
                ("latin.py", &SkipReason::NotUtf8),
                ("../evil.py", &SkipReason::UnsafePath { problem: PathProblem::ParentDir })
            ]
        );
    }

    #[test]
    fn an_absorbed_repository_adds_its_files_and_keeps_the_first_of_a_path() {
        let mut repo = Repo::from_files([("a.py", "a = 1\n"), ("b.py", "b = 1\n")]);
        let other = Repo::from_files([("b.py", "b = 2\n"), ("c.txt", "c\n"), ("d.bin", "\0")]);
        repo.absorb(other);
        assert_eq!(repo.files().collect::<Vec<_>>(), [("a.py", "a = 1\n"), ("b.py", "b = 1\n"), ("c.txt", "c\n")]);
        let reasons: Vec<_> = repo.skipped().iter().map(|s| (s.path.as_str(), &s.reason)).collect();
        assert_eq!(reasons, [("b.py", &SkipReason::Duplicate), ("d.bin", &SkipReason::Binary)]);
    }

    #[cfg(feature = "zip")]
    #[test]
    fn common_root_is_stripped_only_when_shared() {
        assert_eq!(common_root(["r/a.py", "r/b/c.py"].into_iter()), "r/");
        assert_eq!(common_root(["r/a.py", "s/b.py"].into_iter()), "");
        assert_eq!(common_root(["a.py", "r/b.py"].into_iter()), "");
    }

    #[cfg(feature = "zip")]
    #[test]
    fn the_archive_summary_reads_declared_sizes_without_unpacking() {
        use std::io::Write;
        let mut buf = std::io::Cursor::new(Vec::new());
        let mut zip = zip::ZipWriter::new(&mut buf);
        let options = zip::write::SimpleFileOptions::default();
        zip.add_directory("r/", options).unwrap();
        for name in ["r/a.py", "r/b.py"] {
            zip.start_file(name, options).unwrap();
            zip.write_all(&[b'x'; 1000]).unwrap();
        }
        zip.finish().unwrap();
        let summary = archive_summary(buf.get_ref()).unwrap();
        assert_eq!(summary, ArchiveSummary { files: 2, declared_bytes: 2000 });
        assert!(archive_summary(b"not a zip").is_err());
    }

    #[cfg(feature = "zip")]
    #[test]
    fn corrupt_zip_is_an_error() {
        let err = Repo::from_zip(b"PK\x03\x04 definitely not a zip", &Limits::default()).unwrap_err();
        assert!(err.to_string().starts_with("not a readable zip archive"), "{err}");
    }
}
