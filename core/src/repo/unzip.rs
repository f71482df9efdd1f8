//! Unpacking a zip archive into a [`Repo`], the sources first.
//!
//! The index needs only the source files ([`Repo::source_files`]); an archive of a real project also holds
//! documentation, data and tests, often several times the sources' size (Django's source distribution: 5 MB of
//! sources in 57 MB). [`ZipUnpacker`] unpacks the sources in one step and everything else in another, so that a caller
//! can index (or read a cached index) while the rest waits, and then unpack the rest in slices. Both steps together
//! give the repository [`Repo::from_zip`] gives, which is defined as exactly these two steps.
//!
//! [`ZipUnpacker::sources_archive`] copies the source entries it kept, still compressed, into an archive of their own, which
//! [`ZipUnpacker::open_sources_archive`] reads back: the playground keeps one beside the whole archive, so that a
//! reload reads a few megabytes instead of the whole archive before the repository can be searched.
//!
//! The archive's budget ([`Limits::max_entries`], [`Limits::max_total_bytes`]) is spent in that order too: when an
//! archive is too large to load whole, the files the index reads are the ones kept.
//!
//! The sources can also be read elsewhere, in any order: another thread holding the same archive reads entries
//! ([`ZipUnpacker::read_entry`], an [`EntryRead`] each) and the unpacker enters them in archive order
//! ([`ZipUnpacker::admit_source`]), spending the budget as [`ZipUnpacker::sources`] would. The repository is the
//! same; only the work is spread.

use std::io::{Cursor, Read};

use serde::{Deserialize, Serialize};

#[cfg(doc)]
use super::archive_summary;
use super::{
    ArchiveSummary, Limits, Repo, RepoError, SkipReason, SkippedFile, check_path, common_root, is_source_path,
    summarize,
};

/// One archive entry as read, before the archive's budget is spent on it: what [`ZipUnpacker::read_entry`] gives
/// and [`ZipUnpacker::admit_source`] enters. Paths are relative to the repository, not yet checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum EntryRead {
    /// A folder: nothing to enter, and not counted.
    Folder,
    /// Left out whatever the budget: its header is unreadable, or it is a symbolic link.
    Refused {
        /// The entry's path.
        path: String,
        /// Why.
        reason: SkipReason,
    },
    /// Not kept: too large, unreadable data, or the budget was known to be spent. Counted against the budget's
    /// entries.
    Failed {
        /// The entry's path.
        path: String,
        /// Why.
        reason: SkipReason,
    },
    /// Read whole (at most [`Limits::max_file_bytes`]).
    Data {
        /// The entry's path.
        path: String,
        /// Its bytes.
        #[serde(with = "crate::byte_buf")]
        data: Vec<u8>,
    },
}

/// A zip archive being unpacked into a [`Repo`]: [`ZipUnpacker::sources`] first, then [`ZipUnpacker::rest`].
pub struct ZipUnpacker<B: AsRef<[u8]>> {
    archive: zip::ZipArchive<Cursor<B>>,
    limits: Limits,
    /// The folder every entry is in (removed from every path), as [`common_root`] finds it.
    prefix: String,
    /// Entries holding a source file, in archive order; the ones not unpacked yet are `sources[next_source..]`.
    sources: Vec<usize>,
    next_source: usize,
    /// The sources it kept in the repository, in archive order.
    kept_sources: Vec<usize>,
    /// Every other entry, in archive order; the ones not unpacked yet are `rest[next_rest..]`.
    rest: Vec<usize>,
    next_rest: usize,
    /// Entries counted against [`Limits::max_entries`] so far.
    entries: usize,
    /// Unpacked bytes counted against [`Limits::max_total_bytes`] so far.
    bytes: usize,
}

impl<B: AsRef<[u8]>> ZipUnpacker<B> {
    /// Reads the archive's directory and sorts its entries into sources and the rest; nothing is unpacked yet.
    pub fn open(bytes: B, limits: &Limits) -> Result<Self, RepoError> {
        Self::open_with(bytes, limits, true)
    }

    /// Opens what [`ZipUnpacker::sources_archive`] wrote: its paths are already relative to the repository, so no
    /// common folder is removed from them.
    pub fn open_sources_archive(bytes: B, limits: &Limits) -> Result<Self, RepoError> {
        Self::open_with(bytes, limits, false)
    }

    fn open_with(bytes: B, limits: &Limits, strip_root: bool) -> Result<Self, RepoError> {
        let archive = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| RepoError::BadArchive(e.to_string()))?;
        let names: Vec<Option<String>> = (0..archive.len())
            .map(|i| match archive.name_for_index(i) {
                Some(Ok(name)) if name.ends_with(['/', '\\']) => None,
                Some(Ok(name)) => Some(name.into_owned()),
                _ => Some(placeholder_name(i)),
            })
            .collect();
        let prefix = if strip_root { common_root(names.iter().flatten().map(String::as_str)) } else { String::new() };
        let (mut sources, mut rest) = (Vec::new(), Vec::new());
        for (i, name) in names.iter().enumerate() {
            let is_source = name.as_deref().is_some_and(|name| {
                let rel = name.strip_prefix(prefix.as_str()).unwrap_or(name);
                check_path(rel).is_ok_and(|clean| is_source_path(&clean))
            });
            if is_source { sources.push(i) } else { rest.push(i) }
        }
        let limits = *limits;
        Ok(ZipUnpacker {
            archive,
            limits,
            prefix,
            sources,
            next_source: 0,
            kept_sources: Vec::new(),
            rest,
            next_rest: 0,
            entries: 0,
            bytes: 0,
        })
    }

    /// Unpacks the source files into a new repository (call once: a second call unpacks nothing).
    pub fn sources(&mut self) -> Repo {
        let mut repo = Repo::new();
        self.sources_step(&mut repo, usize::MAX, |_, _| {});
        repo
    }

    /// Unpacks up to `count` more source entries into `repo`, in archive order, calling `kept(path, text)` for each
    /// file the repository keeps; returns how many source entries are left. Steps into one new repository until
    /// none is left give the repository [`ZipUnpacker::sources`] gives, so a caller can hand each file on (to a
    /// parser) while the others are still being unpacked.
    pub fn sources_step(&mut self, repo: &mut Repo, count: usize, mut kept: impl FnMut(&str, &str)) -> usize {
        let end = self.sources.len().min(self.next_source.saturating_add(count));
        while self.next_source < end {
            if let Some(path) = self.admit_source(repo, None)
                && let Some(text) = repo.file(&path)
            {
                kept(&path, text);
            }
        }
        self.sources.len() - end
    }

    /// The source entries not entered yet, in archive order, each with the size its directory record declares
    /// (which a hostile archive can misstate: for scheduling only).
    pub fn pending_sources(&self) -> Vec<(usize, u64)> {
        let size = |i: usize| self.archive.by_index_data(i).map_or(0, |e| e.size());
        self.sources[self.next_source..].iter().map(|&i| (i, size(i))).collect()
    }

    /// The next source entry [`ZipUnpacker::admit_source`] enters, if any is left.
    pub fn next_source(&self) -> Option<usize> {
        self.sources.get(self.next_source).copied()
    }

    /// Whether the archive's budget is spent: the entries still to come are left out unread.
    pub fn budget_spent(&self) -> bool {
        self.entries >= self.limits.max_entries || self.bytes >= self.limits.max_total_bytes
    }

    /// Reads entry `i` whole, as [`ZipUnpacker::sources`] would with budget to spare, without entering it anywhere:
    /// another thread opens the same archive, reads its share of [`ZipUnpacker::pending_sources`] and hands the
    /// reads back for [`ZipUnpacker::admit_source`].
    pub fn read_entry(&mut self, i: usize) -> EntryRead {
        self.read(i, true)
    }

    /// Enters the next source entry ([`ZipUnpacker::next_source`]) into `repo`, spending the budget on it;
    /// returns the path it was kept under, if it was. `read` is what [`ZipUnpacker::read_entry`] gave for that
    /// entry on the same archive; without one the entry is read here (unless the budget is spent). Entering every
    /// source this way, in order, gives the repository [`ZipUnpacker::sources`] gives.
    pub fn admit_source(&mut self, repo: &mut Repo, read: Option<EntryRead>) -> Option<String> {
        let i = self.next_source()?;
        self.next_source += 1;
        let read = read.unwrap_or_else(|| self.read(i, !self.budget_spent()));
        let path = self.admit(read, repo)?;
        self.kept_sources.push(i);
        Some(path)
    }

    /// What the archive's directory says about it ([`archive_summary`], without opening the archive again).
    pub fn summary(&self) -> ArchiveSummary {
        summarize(&self.archive)
    }

    /// The source entries' total size once unpacked, as the archive's directory declares it (a hostile archive can
    /// lie: use it for estimates only).
    pub fn declared_source_bytes(&self) -> u64 {
        let size = |i: usize| self.archive.by_index_data(i).map(|e| e.size()).ok();
        self.sources.iter().filter_map(|&i| size(i)).fold(0, u64::saturating_add)
    }

    /// The source entries [`ZipUnpacker::sources`] kept, copied as they are stored, still compressed, into a new
    /// archive under their paths in the repository: [`ZipUnpacker::open_sources_archive`] unpacks it into the same
    /// files. The entries it left out (unreadable, binary, duplicates...) are not copied, so the new archive's
    /// repository lists fewer skipped files. Empty before [`ZipUnpacker::sources`] ran.
    pub fn sources_archive(&mut self) -> Result<Vec<u8>, RepoError> {
        let bad = |e: zip::result::ZipError| RepoError::BadArchive(e.to_string());
        let mut out = zip::ZipWriter::new(Cursor::new(Vec::new()));
        for &i in &self.kept_sources {
            let entry = self.archive.by_index_raw(i).map_err(bad)?;
            let name = entry.name().map_err(bad)?;
            let rel = name.strip_prefix(self.prefix.as_str()).unwrap_or(&name).to_string();
            out.raw_copy_file_rename(entry, rel).map_err(bad)?;
        }
        Ok(out.finish().map_err(bad)?.into_inner())
    }

    /// Unpacks up to `count` more of the other entries into `repo` (the repository [`ZipUnpacker::sources`] gave);
    /// returns how many are left.
    pub fn rest(&mut self, repo: &mut Repo, count: usize) -> usize {
        let end = self.rest.len().min(self.next_rest.saturating_add(count));
        for at in self.next_rest..end {
            self.unpack(self.rest[at], repo);
        }
        self.next_rest = end;
        self.remaining()
    }

    /// Entries not unpacked yet by [`ZipUnpacker::rest`] (folders included).
    pub fn remaining(&self) -> usize {
        self.rest.len() - self.next_rest
    }

    /// The archive's bytes, given back.
    pub fn into_bytes(self) -> B {
        self.archive.into_inner().into_inner()
    }

    /// Unpacks entry `i` into `repo`, or records why it was left out (folders are passed over); the path it was kept
    /// under, if it was.
    fn unpack(&mut self, i: usize, repo: &mut Repo) -> Option<String> {
        let read = self.read(i, !self.budget_spent());
        self.admit(read, repo)
    }

    /// Reads entry `i`; its data only when `budget_left` (otherwise it is [`SkipReason::BudgetExhausted`]).
    fn read(&mut self, i: usize, budget_left: bool) -> EntryRead {
        let max = self.limits.max_file_bytes;
        let mut entry = match self.archive.by_index(i) {
            Err(e) => {
                let reason = SkipReason::Unreadable { message: e.to_string() };
                return EntryRead::Refused { path: repo_path(&self.prefix, placeholder_name(i)), reason };
            }
            Ok(entry) if entry.is_dir() => return EntryRead::Folder,
            Ok(entry) => entry,
        };
        let name = entry.name().map(|n| n.into_owned()).unwrap_or_else(|_| placeholder_name(i));
        let path = repo_path(&self.prefix, name);
        if entry.is_symlink() {
            return EntryRead::Refused { path, reason: SkipReason::Symlink };
        }
        let data = if !budget_left {
            Err(SkipReason::BudgetExhausted)
        } else if entry.size() > max as u64 {
            Err(SkipReason::TooLarge { bytes: entry.size(), limit: max as u64 })
        } else {
            let capacity = entry.size().min(max as u64) as usize;
            read_capped(&mut entry, capacity, max)
        };
        match data {
            Ok(data) => EntryRead::Data { path, data },
            Err(reason) => EntryRead::Failed { path, reason },
        }
    }

    /// Enters a read into `repo`, spending the budget (a read made with budget to spare is refused once it is
    /// spent); the path it was kept under, if it was.
    fn admit(&mut self, read: EntryRead, repo: &mut Repo) -> Option<String> {
        let spent = self.budget_spent();
        let (path, data) = match read {
            EntryRead::Folder => return None,
            EntryRead::Refused { path, reason } => (path, Err(reason)),
            EntryRead::Failed { path, .. } | EntryRead::Data { path, .. } if spent => {
                (path, Err(SkipReason::BudgetExhausted))
            }
            EntryRead::Failed { path, reason } => (path, Err(reason)),
            EntryRead::Data { path, data } => (path, Ok(data)),
        };
        self.entries += 1;
        match data {
            Ok(bytes) => {
                self.bytes = self.bytes.saturating_add(bytes.len());
                repo.add_owned(&path, bytes, &self.limits)
            }
            Err(reason) => {
                repo.skipped.push(SkippedFile { path, reason });
                None
            }
        }
    }
}

/// An entry's name as a path in the repository: without the archive's common folder `prefix`.
fn repo_path(prefix: &str, name: String) -> String {
    match name.strip_prefix(prefix) {
        Some(rel) => rel.to_string(),
        None => name,
    }
}

/// Reads an entry, never more than `max` bytes plus one however large it claims to be (the declared size can lie).
fn read_capped(entry: &mut impl Read, capacity: usize, max: usize) -> Result<Vec<u8>, SkipReason> {
    let mut data = Vec::with_capacity(capacity);
    match entry.take(max as u64 + 1).read_to_end(&mut data) {
        Ok(_) if data.len() > max => Err(SkipReason::TooLarge { bytes: data.len() as u64, limit: max as u64 }),
        Ok(_) => Ok(data),
        Err(e) => Err(SkipReason::Unreadable { message: e.to_string() }),
    }
}

/// The name given to an entry whose own name cannot be read.
fn placeholder_name(i: usize) -> String {
    format!("#entry{i}")
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn zip_of(files: &[(&str, &[u8])]) -> Vec<u8> {
        let mut buf = Cursor::new(Vec::new());
        let mut zip = zip::ZipWriter::new(&mut buf);
        let options = zip::write::SimpleFileOptions::default();
        zip.add_directory("proj/", options).unwrap();
        for (name, bytes) in files {
            zip.start_file(*name, options).unwrap();
            zip.write_all(bytes).unwrap();
        }
        zip.finish().unwrap();
        buf.into_inner()
    }

    const FILES: &[(&str, &[u8])] = &[
        ("proj/README.md", b"# readme\n"),
        ("proj/pkg/a.py", b"def a():\n    pass\n"),
        ("proj/pkg/blob.py", b"\0\0"),
        ("proj/tests/test_a.py", b"def test_a():\n    pass\n"),
        ("proj/docs/conf.py", b"x = 1\n"),
        ("proj/pkg/b.py", b"class B:\n    pass\n"),
        ("proj/data.bin", b"\x01\x02\0"),
    ];

    #[test]
    fn the_sources_come_first_and_the_rest_completes_the_repository() {
        let bytes = zip_of(FILES);
        let mut unpacker = ZipUnpacker::open(bytes.as_slice(), &Limits::default()).unwrap();
        let mut repo = unpacker.sources();
        let paths: Vec<&str> = repo.files().map(|(p, _)| p).collect();
        assert_eq!(paths, ["docs/conf.py", "pkg/a.py", "pkg/b.py"]);
        assert_eq!(repo.skipped().len(), 1, "the binary .py file is skipped with the sources");
        // The folder entry and the three other files.
        assert_eq!(unpacker.remaining(), 4);
        assert_eq!(unpacker.rest(&mut repo, 2), 2);
        // The rest can also be unpacked apart and absorbed.
        let mut rest = Repo::new();
        assert_eq!(unpacker.rest(&mut rest, usize::MAX), 0);
        repo.absorb(rest);
        let whole = Repo::from_zip(&bytes, &Limits::default()).unwrap();
        assert_eq!(repo.files().collect::<Vec<_>>(), whole.files().collect::<Vec<_>>());
        assert_eq!(repo.skipped(), whole.skipped());
        assert_eq!(repo.len(), 5);
        let sources_only = unpacker.sources_archive().unwrap();
        assert!(sources_only.len() < bytes.len());
        assert_eq!(unpacker.into_bytes(), bytes.as_slice());
        let mut reread = ZipUnpacker::open_sources_archive(sources_only.as_slice(), &Limits::default()).unwrap();
        let sources = reread.sources();
        assert_eq!(sources.files().collect::<Vec<_>>(), repo.source_files().collect::<Vec<_>>());
        assert_eq!(sources.skipped(), &[], "the binary source is not copied");
        assert_eq!(reread.remaining(), 0);
    }

    #[test]
    fn sources_unpacked_in_steps_are_the_sources_and_each_kept_file_is_handed_on() {
        let bytes = zip_of(FILES);
        let mut whole = ZipUnpacker::open(bytes.as_slice(), &Limits::default()).unwrap();
        let expected = whole.sources();
        let mut stepped = ZipUnpacker::open(bytes.as_slice(), &Limits::default()).unwrap();
        assert_eq!(stepped.summary(), crate::repo::archive_summary(&bytes).unwrap());
        // Four source entries: a.py, blob.py (binary), conf.py, b.py.
        assert_eq!(stepped.declared_source_bytes(), [18, 2, 6, 18].iter().sum::<u64>());
        let mut repo = Repo::new();
        let mut handed = Vec::new();
        let mut left = Vec::new();
        loop {
            let remaining =
                stepped.sources_step(&mut repo, 1, |path, text| handed.push((path.to_string(), text.len())));
            left.push(remaining);
            if remaining == 0 {
                break;
            }
        }
        assert_eq!(left, [3, 2, 1, 0]);
        assert_eq!(
            handed,
            [("pkg/a.py".to_string(), 18), ("docs/conf.py".to_string(), 6), ("pkg/b.py".to_string(), 18)]
        );
        assert_eq!(repo.files().collect::<Vec<_>>(), expected.files().collect::<Vec<_>>());
        assert_eq!(repo.skipped(), expected.skipped());
        assert_eq!(stepped.sources().len(), 0, "nothing is unpacked twice");
        assert_eq!(stepped.sources_archive().unwrap(), whole.sources_archive().unwrap());
    }

    /// Reads every pending source on a second unpacker of the same archive, last first (as another thread might),
    /// leaves out the entries `unread` picks, and enters them all in order.
    fn admitted_elsewhere(bytes: &[u8], limits: &Limits, unread: impl Fn(usize) -> bool) -> Repo {
        let mut reader = ZipUnpacker::open(bytes, limits).unwrap();
        let mut unpacker = ZipUnpacker::open(bytes, limits).unwrap();
        let pending = unpacker.pending_sources();
        let mut reads: std::collections::HashMap<usize, EntryRead> =
            pending.iter().rev().filter(|(i, _)| !unread(*i)).map(|&(i, _)| (i, reader.read_entry(i))).collect();
        let mut repo = Repo::new();
        while let Some(i) = unpacker.next_source() {
            unpacker.admit_source(&mut repo, reads.remove(&i));
        }
        assert!(reads.is_empty(), "every read was entered");
        assert_eq!(unpacker.pending_sources(), []);
        repo
    }

    #[test]
    fn sources_read_elsewhere_in_any_order_and_entered_in_order_are_the_sources() {
        let mut bytes = zip_of(FILES);
        mark_encrypted(&mut bytes, "proj/docs/conf.py");
        for limits in [
            Limits::default(),
            Limits { max_entries: 2, ..Limits::default() },
            Limits { max_total_bytes: 19, ..Limits::default() },
        ] {
            let expected = ZipUnpacker::open(bytes.as_slice(), &limits).unwrap().sources();
            for unread in [|_| false, |i| i % 2 == 0, |_| true] as [fn(usize) -> bool; 3] {
                let repo = admitted_elsewhere(&bytes, &limits, unread);
                assert_eq!(repo.files().collect::<Vec<_>>(), expected.files().collect::<Vec<_>>(), "{limits:?}");
                assert_eq!(repo.skipped(), expected.skipped(), "{limits:?}");
            }
        }
        // The reads cross a thread as serde data and come back the same.
        let mut unpacker = ZipUnpacker::open(bytes.as_slice(), &Limits::default()).unwrap();
        let reads: Vec<EntryRead> = (0..FILES.len() + 1).map(|i| unpacker.read_entry(i)).collect();
        assert!(reads.iter().any(|r| matches!(r, EntryRead::Refused { .. })), "the encrypted entry");
        assert!(reads.iter().any(|r| matches!(r, EntryRead::Folder)));
        let json = serde_json::to_string(&reads).unwrap();
        assert_eq!(serde_json::from_str::<Vec<EntryRead>>(&json).unwrap(), reads);
    }

    /// Sets the uncompressed size every header of entry `name` declares.
    fn declare_size(zip: &mut [u8], name: &str, size: u32) {
        for (signature, size_at, name_at) in [(b"PK\x03\x04", 22, 30), (b"PK\x01\x02", 24, 46)] {
            for at in 0..zip.len().saturating_sub(name_at + name.len()) {
                if &zip[at..at + 4] == signature && zip[at + name_at..].starts_with(name.as_bytes()) {
                    zip[at + size_at..at + size_at + 4].copy_from_slice(&size.to_le_bytes());
                }
            }
        }
    }

    #[test]
    fn an_entry_larger_than_it_declares_is_refused_at_its_declared_size() {
        // So the sizes an archive's directory declares bound the work of unpacking it: the playground refuses an
        // archive that declares more than its budget, and its workers read entries by their declared sizes.
        let big = "x = 1\n".repeat(20);
        let mut bytes = zip_of(&[("proj/a.py", big.as_bytes()), ("proj/b.py", b"b = 2\n")]);
        declare_size(&mut bytes, "proj/a.py", 5);
        let mut unpacker = ZipUnpacker::open(bytes.as_slice(), &Limits::default()).unwrap();
        let Some(&(entry, 5)) = unpacker.pending_sources().first() else { panic!("a.py declares 5 bytes") };
        let read = unpacker.read_entry(entry);
        assert!(matches!(read, EntryRead::Failed { reason: SkipReason::Unreadable { .. }, .. }), "{read:?}");
        let repo = ZipUnpacker::open(bytes.as_slice(), &Limits::default()).unwrap().sources();
        assert_eq!(repo.files().map(|(p, _)| p).collect::<Vec<_>>(), ["b.py"]);
    }

    #[test]
    fn a_sources_archive_keeps_paths_that_share_a_folder() {
        // Every source is under `proj/pkg/`, but only `proj/` is the archive's common folder.
        let bytes = zip_of(&[("proj/README.md", b"x\n"), ("proj/pkg/a.py", b"a = 1\n"), ("proj/pkg/b.py", b"b = 2\n")]);
        let mut unpacker = ZipUnpacker::open(bytes.as_slice(), &Limits::default()).unwrap();
        assert!(unpacker.sources_archive().unwrap().len() < 100, "nothing kept yet, nothing copied");
        unpacker.sources();
        let sources_only = unpacker.sources_archive().unwrap();
        let repo = ZipUnpacker::open_sources_archive(sources_only, &Limits::default()).unwrap().sources();
        assert_eq!(repo.files().map(|(p, _)| p).collect::<Vec<_>>(), ["pkg/a.py", "pkg/b.py"]);
    }

    /// Sets the "encrypted" flag of every entry named `name`, in its local header and in the directory.
    fn mark_encrypted(zip: &mut [u8], name: &str) {
        for (signature, flags_at, name_at) in [(b"PK\x03\x04", 6, 30), (b"PK\x01\x02", 8, 46)] {
            for at in 0..zip.len().saturating_sub(name_at + name.len()) {
                if &zip[at..at + 4] == signature && zip[at + name_at..].starts_with(name.as_bytes()) {
                    zip[at + flags_at] |= 1;
                }
            }
        }
    }

    #[test]
    fn a_sources_archive_holds_only_the_sources_that_were_kept() {
        // Found by fuzzing: a copied entry lost its encryption flag, so the copy read a file the archive could not.
        let mut bytes = zip_of(FILES);
        mark_encrypted(&mut bytes, "proj/pkg/b.py");
        let mut unpacker = ZipUnpacker::open(bytes.as_slice(), &Limits::default()).unwrap();
        let repo = unpacker.sources();
        assert_eq!(repo.files().map(|(p, _)| p).collect::<Vec<_>>(), ["docs/conf.py", "pkg/a.py"]);
        assert!(matches!(repo.skipped().last().map(|s| &s.reason), Some(SkipReason::Unreadable { .. })));
        let archive = unpacker.sources_archive().unwrap();
        let reread = ZipUnpacker::open_sources_archive(archive.as_slice(), &Limits::default()).unwrap().sources();
        assert_eq!(reread.files().collect::<Vec<_>>(), repo.files().collect::<Vec<_>>());
    }

    #[test]
    fn a_budget_too_small_for_the_archive_is_spent_on_the_sources() {
        let bytes = zip_of(FILES);
        let limits = Limits { max_entries: 3, ..Limits::default() };
        let repo = Repo::from_zip(&bytes, &limits).unwrap();
        let kept: Vec<&str> = repo.files().map(|(p, _)| p).collect();
        assert_eq!(kept, ["docs/conf.py", "pkg/a.py"]);
        let exhausted = repo.skipped().iter().filter(|s| s.reason == SkipReason::BudgetExhausted).count();
        assert_eq!(exhausted, 4);
    }
}
