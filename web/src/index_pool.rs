//! Indexing a repository in a pool of Web Workers, off the page's thread.
//!
//! Each worker ([`crate::index_worker`], started by `web/js/index-worker.mjs`) instantiates the page's own compiled
//! module (compiled once by `web/boot.js`) and parses the batches of files it is given. Batches are cut from the
//! files largest first and handed to whichever worker is free, so a few large files cannot leave one worker working
//! alone at the end. The page enters the parsed files into the tables in path order: the index is the one
//! `Index::build` gives (the e2e suite compares them on a real tree).
//!
//! Starting a worker (its script, then instantiating the module) takes about 100 ms, so the page starts a spare pool
//! while it is idle ([`start_spare`], after the warm-up) and the next load takes it ([`parse_in_workers`]).
//!
//! Small repositories are indexed on the page's thread ([`crate::load::index_with_progress`]): starting workers
//! costs more than it saves there.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::fmt;
use std::rc::Rc;

use futures::future::{FutureExt, LocalBoxFuture, Shared};

use acr_core::index::{ParsedFile, decode_parsed};
use acr_core::repo::Repo;
use serde::{Deserialize, Serialize};
use wasm_bindgen::JsValue;

use crate::browser;
use crate::worker::{Message, ModuleWorker, Reply, WorkerError};

/// The worker script, relative to the page.
const WORKER_URL: &str = "./index-worker.mjs";
/// At most this many workers, whatever the browser reports.
const MAX_WORKERS: usize = 8;
/// A batch holds at most this much text...
const BATCH_BYTES: usize = 256 * 1024;
/// ...and at most this many files.
const BATCH_FILES: usize = 128;
/// Below this much Python the page indexes on its own thread.
pub const MIN_POOL_BYTES: usize = 1 << 20;
/// A batch not parsed in this time means a stuck worker (the slowest hostile file measured takes seconds).
const BATCH_DEADLINE_MS: f64 = 120_000.0;

/// A request to an indexing worker.
#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum IndexRequest {
    /// Instantiate the page's compiled module.
    Start {
        id: u64,
        #[serde(with = "serde_wasm_bindgen::preserve")]
        module: JsValue,
    },
    /// Parse these files.
    Parse { id: u64, paths: Vec<String>, texts: Vec<String> },
}

/// An indexing worker's answer.
#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum IndexReply {
    Ready { id: u64 },
    Parsed { id: u64, bytes: Bytes },
    Failed { id: u64, message: String },
}

/// A worker's `Uint8Array`, read as bytes (a plain `Vec<u8>` would expect an array of numbers).
struct Bytes(Vec<u8>);

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Bytes;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E>(self, v: &[u8]) -> Result<Bytes, E> {
                Ok(Bytes(v.to_vec()))
            }
            fn visit_byte_buf<E>(self, v: Vec<u8>) -> Result<Bytes, E> {
                Ok(Bytes(v))
            }
        }
        d.deserialize_bytes(Visitor)
    }
}

impl Message for IndexReply {
    fn id(&self) -> u64 {
        match self {
            IndexReply::Ready { id } | IndexReply::Parsed { id, .. } | IndexReply::Failed { id, .. } => *id,
        }
    }
}

impl Reply for IndexReply {
    fn is_final(&self) -> bool {
        true
    }
}

/// Why the pool did not produce an index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PoolError {
    /// Workers could not be started here (the caller indexes on the page's thread instead).
    Unavailable(String),
    /// A worker failed while parsing.
    Failed(String),
    /// The load was cancelled.
    Cancelled,
}

impl fmt::Display for PoolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PoolError::Unavailable(m) => write!(f, "indexing workers are unavailable: {m}"),
            PoolError::Failed(m) => write!(f, "an indexing worker failed: {m}"),
            PoolError::Cancelled => f.write_str("cancelled"),
        }
    }
}

impl From<WorkerError> for PoolError {
    fn from(e: WorkerError) -> Self {
        PoolError::Failed(e.to_string())
    }
}

type Worker = ModuleWorker<IndexRequest, IndexReply>;

/// A worker being started: its script loaded and the page's module instantiated in it.
type Starting = Shared<LocalBoxFuture<'static, Result<Rc<Worker>, PoolError>>>;

thread_local! {
    /// The pool started while the page was idle, for the next load.
    static SPARE: RefCell<Option<Vec<Starting>>> = const { RefCell::new(None) };
}

/// Starts a pool of [`worker_count`] workers for the next load to take, unless one is waiting already.
pub fn start_spare() {
    SPARE.with_borrow_mut(|spare| {
        if spare.is_none() {
            let pool = start_pool(worker_count());
            // Driven in the background: the workers start while nobody waits for them.
            for starting in &pool {
                let driven = starting.clone();
                leptos::task::spawn_local(async move {
                    let _ = driven.await;
                });
            }
            *spare = Some(pool);
        }
    });
}

/// Starts `workers` workers (at least one).
fn start_pool(workers: usize) -> Vec<Starting> {
    (0..workers.max(1)).map(|_| start_worker().boxed_local().shared()).collect()
}

/// Starts one worker: loads its script and has it instantiate the page's compiled module.
async fn start_worker() -> Result<Rc<Worker>, PoolError> {
    let module = compiled_module()?;
    let worker = Rc::new(Worker::start(WORKER_URL).map_err(|e| PoolError::Unavailable(e.to_string()))?);
    match worker.request(|id| IndexRequest::Start { id, module }, None, |_| {}).await? {
        IndexReply::Ready { .. } => Ok(worker),
        IndexReply::Failed { message, .. } => Err(PoolError::Unavailable(message)),
        IndexReply::Parsed { .. } => Err(PoolError::Failed("a parse answer to a start".into())),
    }
}

/// How many workers to start: one per core the browser reports, capped, at least one.
pub fn worker_count() -> usize {
    let cores = web_sys::window().map_or(1.0, |w| w.navigator().hardware_concurrency());
    (cores as usize).clamp(1, MAX_WORKERS)
}

/// Parses the repository's sources in `workers` Web Workers, calling `progress(done, total)` as batches come back,
/// and returns them in path order (for `Index::from_parsed` and the cache). `cancelled` is read between batches;
/// when it turns true the workers are stopped.
pub async fn parse_in_workers(
    repo: &Repo,
    workers: usize,
    cancelled: &dyn Fn() -> bool,
    progress: &dyn Fn(usize, usize),
) -> Result<Vec<ParsedFile>, PoolError> {
    let sources: Vec<(&str, &str)> = repo.source_files().collect();
    let total = sources.len();
    progress(0, total);
    let spare = SPARE.with_borrow_mut(Option::take).filter(|pool| pool.len() == workers.max(1));
    let pool = spare.unwrap_or_else(|| start_pool(workers));
    let queue = RefCell::new(batches(&sources));
    let parsed: RefCell<Vec<Option<ParsedFile>>> = RefCell::new((0..total).map(|_| None).collect());
    let done = Cell::new(0usize);
    let stop = Cell::new(false);

    let shared = Load { sources: &sources, queue: &queue, parsed: &parsed, done: &done, stop: &stop };
    let advance = |n| progress(n, total);
    let results = futures::future::join_all(pool.iter().map(|w| work(w, &shared, cancelled, &advance))).await;
    for starting in &pool {
        if let Some(Ok(worker)) = starting.peek() {
            worker.terminate();
        }
    }
    // A cancellation is reported as such even when another worker failed because of it.
    if cancelled() {
        return Err(PoolError::Cancelled);
    }
    // The first real failure, not the stops it caused in the other workers.
    let mut errors: Vec<PoolError> = results.into_iter().filter_map(Result::err).collect();
    errors.sort_by_key(|e| *e == PoolError::Cancelled);
    if let Some(e) = errors.into_iter().next() {
        return Err(e);
    }
    let parsed = parsed.into_inner();
    if parsed.iter().any(Option::is_none) {
        return Err(PoolError::Failed("some files were never parsed".into()));
    }
    progress(total, total);
    browser::yield_now().await;
    Ok(parsed.into_iter().flatten().collect())
}

/// What the workers of one load share.
struct Load<'a> {
    sources: &'a [(&'a str, &'a str)],
    /// Batches not yet handed out.
    queue: &'a RefCell<VecDeque<Vec<usize>>>,
    /// Parsed files by source position.
    parsed: &'a RefCell<Vec<Option<ParsedFile>>>,
    /// Files parsed so far.
    done: &'a Cell<usize>,
    /// Set when one worker fails or the load is cancelled: the others stop after their batch.
    stop: &'a Cell<bool>,
}

/// One worker's part: wait for it to start, then take batches until none is left.
async fn work(
    worker: &Starting,
    shared: &Load<'_>,
    cancelled: &dyn Fn() -> bool,
    progress: &dyn Fn(usize),
) -> Result<(), PoolError> {
    let result = work_until_done(worker, shared, cancelled, progress).await;
    if result.is_err() {
        shared.stop.set(true);
    }
    result
}

async fn work_until_done(
    worker: &Starting,
    shared: &Load<'_>,
    cancelled: &dyn Fn() -> bool,
    progress: &dyn Fn(usize),
) -> Result<(), PoolError> {
    let worker = worker.clone().await?;
    loop {
        if shared.stop.get() || cancelled() {
            return Err(PoolError::Cancelled);
        }
        let Some(batch) = shared.queue.borrow_mut().pop_front() else { return Ok(()) };
        let paths = batch.iter().map(|&i| shared.sources[i].0.to_string()).collect();
        let texts = batch.iter().map(|&i| shared.sources[i].1.to_string()).collect();
        let reply =
            worker.request(|id| IndexRequest::Parse { id, paths, texts }, Some(BATCH_DEADLINE_MS), |_| {}).await?;
        let bytes = match reply {
            IndexReply::Parsed { bytes, .. } => bytes.0,
            IndexReply::Failed { message, .. } => return Err(PoolError::Failed(message)),
            IndexReply::Ready { .. } => return Err(PoolError::Failed("a start answer to a parse".into())),
        };
        let files = decode_parsed(&bytes).map_err(|e| PoolError::Failed(format!("a worker's answer: {e}")))?;
        if files.len() != batch.len() {
            return Err(PoolError::Failed("a batch came back with a different number of files".into()));
        }
        shared.done.set(shared.done.get() + batch.len());
        let mut slots = shared.parsed.borrow_mut();
        for (i, file) in batch.into_iter().zip(files) {
            slots[i] = Some(file);
        }
        drop(slots);
        progress(shared.done.get());
    }
}

/// The module `web/boot.js` compiled, which every worker instantiates.
fn compiled_module() -> Result<JsValue, PoolError> {
    let window = web_sys::window().ok_or_else(|| PoolError::Unavailable("no page".into()))?;
    let module = js_sys::Reflect::get(&window, &"__acrWasmModule".into()).unwrap_or(JsValue::UNDEFINED);
    if module.is_undefined() {
        return Err(PoolError::Unavailable("the page did not keep its compiled module".into()));
    }
    Ok(module)
}

/// Cuts the sources into batches, largest files first, each under [`BATCH_BYTES`] and [`BATCH_FILES`] (a file
/// larger than a batch is a batch of its own).
fn batches(sources: &[(&str, &str)]) -> VecDeque<Vec<usize>> {
    let mut order: Vec<usize> = (0..sources.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(sources[i].1.len()));
    let mut out = VecDeque::new();
    let (mut batch, mut bytes) = (Vec::new(), 0);
    for i in order {
        let len = sources[i].1.len();
        if !batch.is_empty() && (bytes + len > BATCH_BYTES || batch.len() == BATCH_FILES) {
            out.push_back(std::mem::take(&mut batch));
            bytes = 0;
        }
        batch.push(i);
        bytes += len;
    }
    if !batch.is_empty() {
        out.push_back(batch);
    }
    out
}
