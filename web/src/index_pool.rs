//! Indexing a repository in a pool of Web Workers, off the page's thread.
//!
//! Each worker ([`crate::index_worker`], started by `web/js/index-worker.mjs`) instantiates the page's own compiled
//! module (compiled once by `web/boot.js`) and parses the batches of files it is given. Files come through a
//! [`Feed`], which can be filled while an archive is still being unpacked, so the workers start on the first files
//! while the page unpacks the others; a free worker takes the largest files waiting. Each worker has its next batch
//! sent before the page decodes its last answer. The page enters the parsed files into the tables in path order: the
//! index is the one `Index::build` gives (the e2e suite compares them on a real tree).
//!
//! Starting a worker (its script, then instantiating the module) takes about 100 ms, so the page starts a spare pool
//! while it is idle ([`start_spare`], after the warm-up) and the next load takes it ([`parse_in_workers`]).
//!
//! Small repositories are indexed on the page's thread ([`crate::load::index_with_progress`]): starting workers
//! costs more than it saves there.

use std::cell::{Cell, RefCell};
use std::collections::BinaryHeap;
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
/// How long a free worker waits before looking at an open [`Feed`] again.
const WAIT_MS: u32 = 2;

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
    /// Parse these files (`texts`: an array of strings, one per path).
    Parse {
        id: u64,
        paths: Vec<String>,
        #[serde(with = "serde_wasm_bindgen::preserve")]
        texts: JsValue,
    },
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

/// Source files for the pool to parse, handed in while an archive is still being unpacked ([`Feed::push`]) or all
/// at once ([`Feed::of`]). A free worker takes the largest files waiting, up to a batch: while files still arrive a
/// batch is whatever has arrived, and once they all have, the rest goes largest first, so a few large files cannot
/// leave one worker working alone at the end.
#[derive(Default)]
pub struct Feed {
    waiting: RefCell<BinaryHeap<Waiting>>,
    /// Files pushed so far.
    fed: Cell<usize>,
    /// Files still expected after those (an estimate, for progress).
    expected: Cell<usize>,
    /// Set once every file has been pushed.
    closed: Cell<bool>,
}

/// A file waiting in a [`Feed`].
struct Waiting {
    arrival: usize,
    path: String,
    text: String,
}

impl Waiting {
    /// Largest first, then first come first.
    fn key(&self) -> (usize, std::cmp::Reverse<usize>) {
        (self.text.len(), std::cmp::Reverse(self.arrival))
    }
}

impl PartialEq for Waiting {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}
impl Eq for Waiting {}
impl PartialOrd for Waiting {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Waiting {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key().cmp(&other.key())
    }
}

/// What a free worker gets from a [`Feed`].
enum Take {
    Batch(Vec<Waiting>),
    /// Nothing waiting yet, but more files will come.
    Wait,
    /// Every file has been handed out.
    Done,
}

impl Feed {
    /// A closed feed of every source file of a repository.
    pub fn of(repo: &Repo) -> Feed {
        let feed = Feed::default();
        for (path, text) in repo.source_files() {
            feed.push(path, text);
        }
        feed.close();
        feed
    }

    /// Hands in one more file.
    pub fn push(&self, path: &str, text: &str) {
        let arrival = self.fed.get();
        self.fed.set(arrival + 1);
        self.waiting.borrow_mut().push(Waiting { arrival, path: path.to_string(), text: text.to_string() });
    }

    /// Says how many more files are likely to come (for progress).
    pub fn expect(&self, more: usize) {
        self.expected.set(more);
    }

    /// Says that every file has been handed in.
    pub fn close(&self) {
        self.closed.set(true);
    }

    /// Files handed in, plus those expected while the feed is open.
    fn total(&self) -> usize {
        self.fed.get() + if self.closed.get() { 0 } else { self.expected.get() }
    }

    /// The largest files waiting, under [`BATCH_BYTES`] and [`BATCH_FILES`] (a file larger than a batch is a batch
    /// of its own).
    fn take(&self) -> Take {
        let mut waiting = self.waiting.borrow_mut();
        let mut batch: Vec<Waiting> = Vec::new();
        let mut bytes = 0;
        while let Some(next) = waiting.peek() {
            if !batch.is_empty() && (bytes + next.text.len() > BATCH_BYTES || batch.len() == BATCH_FILES) {
                break;
            }
            bytes += next.text.len();
            batch.extend(waiting.pop());
        }
        match (batch.is_empty(), self.closed.get()) {
            (false, _) => Take::Batch(batch),
            (true, false) => Take::Wait,
            (true, true) => Take::Done,
        }
    }
}

/// Parses the files of `feed` in `workers` Web Workers until it is closed and empty, calling `progress(done, total)`
/// as batches come back, and returns them in path order (for `Index::from_parsed` and the cache). `cancelled` is
/// read between batches; when it turns true the workers are stopped. Dropping the future stops them too.
pub async fn parse_in_workers(
    feed: &Feed,
    workers: usize,
    cancelled: &dyn Fn() -> bool,
    progress: &dyn Fn(usize, usize),
) -> Result<Vec<ParsedFile>, PoolError> {
    progress(0, feed.total());
    let spare = SPARE.with_borrow_mut(Option::take).filter(|pool| pool.len() == workers.max(1));
    let pool = spare.unwrap_or_else(|| start_pool(workers));
    let parsed = RefCell::new(Vec::with_capacity(feed.total()));
    let stop = Cell::new(false);

    let shared = Load { feed, parsed: &parsed, stop: &stop };
    let advance = |n| progress(n, feed.total());
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
    let mut parsed = parsed.into_inner();
    if parsed.len() != feed.fed.get() {
        return Err(PoolError::Failed("some files were never parsed".into()));
    }
    parsed.sort_unstable_by(|a, b| a.entry.path.cmp(&b.entry.path));
    progress(parsed.len(), parsed.len());
    browser::yield_now().await;
    Ok(parsed)
}

/// What the workers of one load share.
struct Load<'a> {
    feed: &'a Feed,
    /// Files parsed so far, in the order they came back.
    parsed: &'a RefCell<Vec<ParsedFile>>,
    /// Set when one worker fails or the load is cancelled: the others stop after their batch.
    stop: &'a Cell<bool>,
}

impl Load<'_> {
    /// Enters a worker's answer for the files `paths`.
    fn enter(&self, paths: &[String], bytes: &[u8], progress: &dyn Fn(usize)) -> Result<(), PoolError> {
        let files = decode_parsed(bytes).map_err(|e| PoolError::Failed(format!("a worker's answer: {e}")))?;
        if files.len() != paths.len() || files.iter().zip(paths).any(|(f, p)| f.entry.path != *p) {
            return Err(PoolError::Failed("a batch came back with other files than it was sent".into()));
        }
        let mut parsed = self.parsed.borrow_mut();
        parsed.extend(files);
        let done = parsed.len();
        drop(parsed);
        progress(done);
        Ok(())
    }
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
    // The previous batch's answer, entered once the next batch is on its way.
    let mut answered: Option<(Vec<String>, Vec<u8>)> = None;
    let enter = |answer: Option<(Vec<String>, Vec<u8>)>| match answer {
        Some((paths, bytes)) => shared.enter(&paths, &bytes, progress),
        None => Ok(()),
    };
    loop {
        if shared.stop.get() || cancelled() {
            return Err(PoolError::Cancelled);
        }
        let batch = match shared.feed.take() {
            Take::Batch(batch) => batch,
            Take::Done => return enter(answered.take()),
            Take::Wait if answered.is_some() => {
                enter(answered.take())?;
                continue;
            }
            Take::Wait => {
                browser::sleep_ms(WAIT_MS).await;
                continue;
            }
        };
        let paths: Vec<String> = batch.iter().map(|w| w.path.clone()).collect();
        let texts: js_sys::Array = batch.iter().map(|w| JsValue::from_str(&w.text)).collect();
        let request = worker.request(
            |id| IndexRequest::Parse { id, paths: paths.clone(), texts: texts.into() },
            Some(BATCH_DEADLINE_MS),
            |_| {},
        );
        // A request is sent when it is first polled: `join` polls it before entering the previous answer, so the
        // worker parses while the page decodes.
        let previous = answered.take();
        let (reply, entered) = futures::join!(request, async { enter(previous) });
        entered?;
        answered = Some(match reply? {
            IndexReply::Parsed { bytes, .. } => (paths, bytes.0),
            IndexReply::Failed { message, .. } => return Err(PoolError::Failed(message)),
            IndexReply::Ready { .. } => return Err(PoolError::Failed("a start answer to a parse".into())),
        });
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

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(take: Take) -> Vec<String> {
        match take {
            Take::Batch(batch) => batch.into_iter().map(|w| w.path).collect(),
            Take::Wait => vec!["(wait)".into()],
            Take::Done => vec!["(done)".into()],
        }
    }

    #[test]
    fn a_free_worker_takes_the_largest_files_waiting_and_waits_while_more_may_come() {
        let feed = Feed::default();
        assert_eq!(paths(feed.take()), ["(wait)"]);
        feed.push("small.py", "x = 1\n");
        feed.push("large.py", &"y = 2\n".repeat(100));
        feed.push("also_small.py", "z = 3\n");
        feed.expect(5);
        assert_eq!(feed.total(), 8);
        // Equal sizes go in the order they came.
        assert_eq!(paths(feed.take()), ["large.py", "small.py", "also_small.py"]);
        assert_eq!(paths(feed.take()), ["(wait)"]);
        feed.close();
        assert_eq!(feed.total(), 3);
        assert_eq!(paths(feed.take()), ["(done)"]);
    }

    #[test]
    fn a_batch_stays_under_its_limits_and_a_file_larger_than_a_batch_goes_alone() {
        let feed = Feed::default();
        let huge = "h".repeat(BATCH_BYTES + 1);
        let half = "a".repeat(BATCH_BYTES / 2);
        feed.push("huge.py", &huge);
        for i in 0..3 {
            feed.push(&format!("half{i}.py"), &half);
        }
        for i in 0..BATCH_FILES + 1 {
            feed.push(&format!("tiny{i:03}.py"), "t");
        }
        feed.close();
        assert_eq!(paths(feed.take()), ["huge.py"]);
        assert_eq!(paths(feed.take()), ["half0.py", "half1.py"]);
        assert_eq!(paths(feed.take()).len(), 1 + BATCH_FILES - 1, "half2.py and tiny files up to the file limit");
        assert_eq!(paths(feed.take()), ["tiny127.py", "tiny128.py"]);
        assert_eq!(paths(feed.take()), ["(done)"]);
    }

    #[test]
    fn a_feed_of_a_repository_holds_its_sources() {
        let repo = Repo::from_files([("a.py", "a = 1\n"), ("README.md", "# r\n"), ("pkg/b.py", "b = 2\n")]);
        let feed = Feed::of(&repo);
        let mut taken = paths(feed.take());
        taken.sort();
        assert_eq!(taken, ["a.py", "pkg/b.py"]);
        assert_eq!(paths(feed.take()), ["(done)"]);
    }
}
