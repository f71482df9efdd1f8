//! A large archive chosen now: the workers of the pool each open a copy of it and read and parse their share of its
//! sources ([`index_pool::unpack_in_workers`]) while the page hashes the archive and looks it up in the index cache;
//! then the page enters what the workers read, in archive order ([`ZipUnpacker::admit_source`]), into the same
//! repository as [`ZipUnpacker::sources`] gives.
//!
//! The page used to unpack every source itself (a third of a first load of sympy, on the thread that also feeds the
//! workers and paints) and copy each text into a message for a worker. A cache hit (the same zip dropped again)
//! stops the workers; the page then unpacks the sources itself, as it does when no worker can start.

use std::pin::pin;

use acr_core::index::{Index, IndexBuilder, ParsedFile};
use acr_core::repo::{Limits, Repo, ZipUnpacker};
use futures::future::{Either, select};
use wasm_bindgen::JsValue;

use crate::browser::{now, yield_now};
use crate::index_cache;
use crate::index_pool::{self, EntryFeed, PoolError, Unpacks};

/// How long the page unpacks before letting the browser paint, in ms (when it unpacks the sources itself).
const SLICE_MS: f64 = 10.0;
/// Source entries unpacked between two looks at the clock.
const ENTRIES_PER_LOOK: usize = 4;
/// Every worker holds a copy of the archive while it reads: at most this much in all, so a very large archive is
/// read by fewer workers.
const MAX_COPIES_BYTES: usize = 1 << 30;

/// The sources of an archive, and how they were indexed.
pub struct Unpacked {
    /// The repository of its sources ([`ZipUnpacker::sources`]'s).
    pub repo: Repo,
    /// The archive's hash (the index cache's key), when the browser could compute one.
    pub key: Option<String>,
    /// When the last source was entered (the page's clock, ms).
    pub sources_at: f64,
    /// When the archive was hashed and looked up in the cache.
    pub looked_up_at: f64,
    pub indexed: Indexed,
}

/// How the sources were indexed.
pub enum Indexed {
    /// Parsed by the workers, in path order.
    Parsed(Vec<ParsedFile>),
    /// Read from the index cache.
    Cached(Index),
    /// Not indexed here (why): the caller indexes the repository.
    Unindexed(String),
}

/// Reads the archive's sources into a new repository, parsing them in `workers` workers (see the module's
/// documentation). `archive` is a copy of the archive's bytes, for the workers and the hash.
pub async fn unpack_and_parse(
    unpacker: &mut ZipUnpacker<Vec<u8>>,
    archive: js_sys::Uint8Array,
    workers: usize,
    cancelled: &dyn Fn() -> bool,
    progress: &dyn Fn(usize, usize),
) -> Result<Unpacked, PoolError> {
    let entries = EntryFeed::new(&unpacker.pending_sources(), Limits::default());
    let workers = workers.min((MAX_COPIES_BYTES / (archive.length() as usize).max(1)).max(1));
    // The futures live in this block: leaving it drops the parse, which stops its workers.
    let (key, looked_up_at, raced) = {
        let parse = pin!(index_pool::unpack_in_workers(&archive, &entries, workers, cancelled, progress));
        let look_up = pin!(hash_and_look_up(archive.clone()));
        // The parse first: polling it posts the archive to the workers, and only then does the page hash it
        // (Chromium digests on the page's thread when asked).
        match select(parse, look_up).await {
            Either::Right(((key, Some(cached)), _)) => (key, now(), Raced::Cached(cached)),
            Either::Right(((key, None), parse)) => (key, now(), Raced::Parsed(parse.await)),
            Either::Left((unpacks, look_up)) => {
                if let Err(e @ (PoolError::Failed(_) | PoolError::Cancelled)) = unpacks {
                    return Err(e);
                }
                // Parsed already: a cached index would save nothing now.
                let (key, _) = look_up.await;
                (key, now(), Raced::Parsed(unpacks))
            }
        }
    };
    let (repo, indexed) = match raced {
        Raced::Cached(cached) => {
            let repo = unpack_on_page(unpacker, cancelled).await?;
            let indexed = match index_cache::index_from(&cached, &repo) {
                Some(index) => Indexed::Cached(index),
                None => Indexed::Unindexed("the cached index is not this archive's".into()),
            };
            (repo, indexed)
        }
        Raced::Parsed(Ok(unpacks)) => {
            let (repo, parsed) = admit(unpacker, unpacks);
            (repo, Indexed::Parsed(parsed))
        }
        Raced::Parsed(Err(PoolError::Unavailable(why))) => {
            (unpack_on_page(unpacker, cancelled).await?, Indexed::Unindexed(why))
        }
        Raced::Parsed(Err(e)) => return Err(e),
    };
    Ok(Unpacked { repo, key, sources_at: now(), looked_up_at, indexed })
}

/// Which came first: a cached index (the bytes under the archive's hash), or the workers' reads.
enum Raced {
    Cached(JsValue),
    Parsed(Result<Unpacks, PoolError>),
}

/// The archive's hash and the bytes the cache holds under it, if any.
async fn hash_and_look_up(archive: js_sys::Uint8Array) -> (Option<String>, Option<JsValue>) {
    let key = index_cache::hash(archive).await;
    let cached = match &key {
        Some(key) => index_cache::entry(key).await,
        None => None,
    };
    (key, cached)
}

/// Enters the sources the workers read into a new repository, in archive order (an entry they left is read here),
/// and pairs each file kept with its parse; a file kept without one is parsed here. The parsed files are returned
/// in path order.
fn admit(unpacker: &mut ZipUnpacker<Vec<u8>>, unpacks: Unpacks) -> (Repo, Vec<ParsedFile>) {
    let Unpacks { mut reads, parsed: mut parses } = unpacks;
    let mut repo = Repo::new();
    let mut parsed = Vec::new();
    let mut builder: Option<IndexBuilder> = None;
    while let Some(entry) = unpacker.next_source() {
        let entry = entry as u32;
        let Some(path) = unpacker.admit_source(&mut repo, reads.remove(&entry)) else { continue };
        match parses.remove(&entry) {
            Some(file) if file.entry.path == path => parsed.push(file),
            _ => {
                let text = repo.file(&path).unwrap_or_default();
                parsed.push(builder.get_or_insert_with(IndexBuilder::new).parse(&path, text));
            }
        }
    }
    parsed.sort_unstable_by(|a, b| a.entry.path.cmp(&b.entry.path));
    (repo, parsed)
}

/// Unpacks the archive's sources on the page's thread, in slices, letting the browser paint between them.
async fn unpack_on_page(unpacker: &mut ZipUnpacker<Vec<u8>>, cancelled: &dyn Fn() -> bool) -> Result<Repo, PoolError> {
    let mut repo = Repo::new();
    let mut slice_start = now();
    while unpacker.sources_step(&mut repo, ENTRIES_PER_LOOK, |_, _| {}) > 0 {
        if now() - slice_start > SLICE_MS {
            yield_now().await;
            if cancelled() {
                return Err(PoolError::Cancelled);
            }
            slice_start = now();
        }
    }
    Ok(repo)
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use acr_core::index::ParsedFile;

    use super::*;
    use crate::index_worker::UnpackedBatch;

    fn zip_of(files: &[(&str, &str)]) -> Vec<u8> {
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default();
        for (name, text) in files {
            zip.start_file(*name, options).unwrap();
            zip.write_all(text.as_bytes()).unwrap();
        }
        zip.finish().unwrap().into_inner()
    }

    /// What the pool gives: each batch read by a worker's own unpacker, the batches in reverse order.
    fn read_in_batches(bytes: &[u8], batch: usize, leave: usize) -> Unpacks {
        let mut worker = ZipUnpacker::open(bytes.to_vec(), &Limits::default()).unwrap();
        let pending = worker.pending_sources();
        let entries: Vec<u32> = pending.iter().skip(leave).map(|&(i, _)| i as u32).collect();
        let mut unpacks = Unpacks::default();
        for chunk in entries.rchunks(batch) {
            let read = UnpackedBatch::read(&mut worker, chunk, usize::MAX);
            let files = acr_core::index::decode_parsed(&read.parsed).unwrap();
            unpacks.parsed.extend(read.parsed_entries.into_iter().zip(files));
            unpacks.reads.extend(read.reads);
        }
        unpacks
    }

    #[test]
    fn sources_read_by_workers_enter_as_the_page_would_unpack_and_parse_them() {
        let bytes = zip_of(&[
            ("proj/README.md", "# readme\n"),
            ("proj/pkg/a.py", "class A:\n    def f(self):\n        pass\n"),
            ("proj/pkg/blob.py", "\0\0"),
            ("proj/pkg/latin.py", "x = 1\n"),
            ("proj/pkg/nested/d.py", "class D(A):\n    pass\n"),
            ("proj/tests/test_a.py", "def test_a():\n    pass\n"),
            ("proj/pkg/b.py", "def b(:\n"),
            ("proj/pkg/c.py", "def c():\n    return 1\n"),
        ]);
        let expected = ZipUnpacker::open(bytes.as_slice(), &Limits::default()).unwrap().sources();
        let mut builder = IndexBuilder::new();
        let expected_parsed: Vec<ParsedFile> = expected.source_files().map(|(p, t)| builder.parse(p, t)).collect();
        // Entries left to the page (the budget stopped the workers) are read and parsed there.
        for (batch, leave) in [(1, 0), (2, 0), (3, 2), (10, 6)] {
            let mut unpacker = ZipUnpacker::open(bytes.clone(), &Limits::default()).unwrap();
            let (repo, parsed) = admit(&mut unpacker, read_in_batches(&bytes, batch, leave));
            assert_eq!(repo.files().collect::<Vec<_>>(), expected.files().collect::<Vec<_>>());
            assert_eq!(repo.skipped(), expected.skipped());
            assert_eq!(parsed, expected_parsed, "batches of {batch}, {leave} left to the page");
            assert_eq!(unpacker.sources_archive().unwrap(), {
                let mut whole = ZipUnpacker::open(bytes.as_slice(), &Limits::default()).unwrap();
                whole.sources();
                whole.sources_archive().unwrap()
            });
        }
    }
}
