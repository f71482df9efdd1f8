//! Indexing a loaded repository's sources: from the index cache when it holds the archive, in the worker pool
//! ([`crate::index_pool`]) when the sources are large, on the page's thread ([`load::index_with_progress`])
//! otherwise.

use acr_core::index::{Index, ParsedFile};
use acr_core::repo::Repo;
use wasm_bindgen::JsValue;

use crate::index_pool::{self, Feed, PoolError};
use crate::load_state::Origin;
use crate::{index_cache, load};

/// Where an archive's index may be cached: its key, and its entry when it was read ahead (a restore).
pub struct CacheKey<'a> {
    /// The archive's hash, to look the cache up with.
    pub key: Option<&'a str>,
    /// The archive's entry, read ahead.
    pub cached: Option<JsValue>,
}

/// An index just made, where it came from, and the files the pool parsed in their binary form (for the cache).
pub struct NewIndex {
    /// The index.
    pub index: Index,
    /// Where it came from.
    pub origin: Origin,
    /// The parsed files, encoded, when the pool parsed them.
    pub encoded: Option<Vec<u8>>,
}

/// Indexes a repository: from the cache when it holds this archive, in the worker pool when it is large, on the
/// page's thread otherwise, calling `progress(workers, done, total)` as it goes (0 workers: the page's thread).
/// `Ok(None)` when cancelled.
pub async fn index_repo(
    repo: &Repo,
    cache: CacheKey<'_>,
    cancelled: &dyn Fn() -> bool,
    progress: &dyn Fn(usize, usize, usize),
) -> Result<Option<NewIndex>, PoolError> {
    let cached = match (&cache.cached, cache.key) {
        (Some(entry), _) => index_cache::index_from(entry, repo),
        (None, Some(key)) => index_cache::lookup(key, repo).await,
        (None, None) => None,
    };
    if let Some(index) = cached {
        return Ok(Some(NewIndex { index, origin: Origin::Cache, encoded: None }));
    }
    if load::source_bytes(repo) >= index_pool::MIN_POOL_BYTES {
        let workers = index_pool::worker_count();
        let feed = Feed::of(repo);
        match index_pool::parse_in_workers(&feed, workers, cancelled, &|d, t| progress(workers, d, t)).await {
            Ok(parsed) => return parsed_index(parsed, repo, workers).map(Some),
            Err(PoolError::Cancelled) => return Ok(None),
            Err(PoolError::Unavailable(why)) => {
                web_sys::console::warn_1(&format!("indexing on the page's thread: {why}").into());
            }
            Err(e @ PoolError::Failed(_)) => return Err(e),
        }
    }
    let index = load::index_with_progress(repo, cancelled, |d, t| progress(0, d, t)).await;
    Ok(index.map(|index| NewIndex { index, origin: Origin::Page, encoded: None }))
}

/// The index of files `workers` workers parsed, with their binary form for the cache; an error if they are not
/// exactly the repository's sources.
pub fn parsed_index(parsed: Vec<ParsedFile>, repo: &Repo, workers: usize) -> Result<NewIndex, PoolError> {
    if !index_cache::matches_sources(&parsed, repo) {
        return Err(PoolError::Failed("the parsed files are not the repository's sources".into()));
    }
    let encoded = Some(acr_core::index::encode_parsed(&parsed));
    Ok(NewIndex { index: Index::from_parsed(parsed), origin: Origin::Workers(workers), encoded })
}
