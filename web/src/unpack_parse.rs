//! A large archive chosen now: its sources are parsed in the worker pool while the page is still unpacking them, and
//! the archive is hashed and looked up in the index cache while the workers parse.
//!
//! Done one after another, unpacking the sources (about 100 ms for Django's, 150 ms for sympy's), hashing the zip
//! (Chromium digests on the page's thread: 30-50 ms for 14 MiB) and the cache lookup all came before the workers'
//! first batch. Here each source file goes to the pool ([`Feed`]) as soon as it is unpacked, and a cache hit (the
//! same zip dropped again) stops the workers and gives the cached index instead.

use std::pin::pin;

use acr_core::index::{Index, ParsedFile};
use acr_core::repo::{Repo, ZipUnpacker};
use futures::future::{Either, select};

use crate::browser::{now, yield_now};
use crate::index_cache;
use crate::index_pool::{self, Feed, PoolError};

/// How long the page unpacks before letting the workers' futures take the files (and the browser paint), in ms.
const SLICE_MS: f64 = 10.0;
/// Source entries unpacked between two looks at the clock.
const ENTRIES_PER_LOOK: usize = 4;

/// The sources of an archive, and how they were indexed.
pub struct Unpacked {
    /// The repository of its sources ([`ZipUnpacker::sources`]'s).
    pub repo: Repo,
    /// The archive's hash (the index cache's key), when the browser could compute one.
    pub key: Option<String>,
    /// When the last source was unpacked (the page's clock, ms).
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
    /// No worker could be started: the caller indexes on the page's thread.
    Unavailable(String),
}

/// Unpacks the archive's sources into a new repository, parsing them in `workers` workers meanwhile (see the
/// module's documentation). `archive` is a copy of the archive's bytes, hashed once the sources are unpacked.
pub async fn unpack_and_parse(
    unpacker: &mut ZipUnpacker<Vec<u8>>,
    archive: js_sys::Uint8Array,
    workers: usize,
    cancelled: &dyn Fn() -> bool,
    progress: &dyn Fn(usize, usize),
) -> Result<Unpacked, PoolError> {
    let feed = Feed::default();
    let parse = pin!(index_pool::parse_in_workers(&feed, workers, cancelled, progress));
    let front = pin!(unpack_then_look_up(unpacker, archive, &feed, cancelled));
    let (front, parsed) = match select(front, parse).await {
        Either::Left((front, parse)) => {
            let mut front = front?;
            if let Some(index) = front.cached.take() {
                // Dropping the parse stops its workers.
                return Ok(front.into_unpacked(Indexed::Cached(index)));
            }
            (front, parse.await)
        }
        Either::Right((parsed, front)) => {
            if let Err(e @ (PoolError::Failed(_) | PoolError::Cancelled)) = parsed {
                return Err(e);
            }
            (front.await?, parsed)
        }
    };
    let indexed = match parsed {
        Ok(parsed) => Indexed::Parsed(parsed),
        Err(PoolError::Unavailable(why)) => Indexed::Unavailable(why),
        Err(e) => return Err(e),
    };
    Ok(front.into_unpacked(indexed))
}

/// What the page's side produced: the sources, the archive's hash, and the cache's index if it had one.
struct Front {
    repo: Repo,
    key: Option<String>,
    sources_at: f64,
    looked_up_at: f64,
    cached: Option<Index>,
}

impl Front {
    fn into_unpacked(self, indexed: Indexed) -> Unpacked {
        let Front { repo, key, sources_at, looked_up_at, .. } = self;
        Unpacked { repo, key, sources_at, looked_up_at, indexed }
    }
}

/// Unpacks the sources in slices, handing each kept file to `feed`, then hashes the archive and looks it up.
async fn unpack_then_look_up(
    unpacker: &mut ZipUnpacker<Vec<u8>>,
    archive: js_sys::Uint8Array,
    feed: &Feed,
    cancelled: &dyn Fn() -> bool,
) -> Result<Front, PoolError> {
    let mut repo = Repo::new();
    let mut slice_start = now();
    let mut first = true;
    loop {
        let left = unpacker.sources_step(&mut repo, ENTRIES_PER_LOOK, |path, text| feed.push(path, text));
        feed.expect(left);
        if left == 0 {
            break;
        }
        // The first files go out at once: the workers are idle until then.
        if std::mem::take(&mut first) || now() - slice_start > SLICE_MS {
            yield_now().await;
            if cancelled() {
                return Err(PoolError::Cancelled);
            }
            slice_start = now();
        }
    }
    feed.close();
    let sources_at = now();
    let key = index_cache::hash(archive).await;
    let cached = match &key {
        Some(key) => index_cache::lookup(key, &repo).await,
        None => None,
    };
    Ok(Front { repo, key, sources_at, looked_up_at: now(), cached })
}
