//! Indexing a repository in a pool of Web Workers, off the page's thread.
//!
//! Each worker ([`crate::index_worker`], started by `web/js/index-worker.mjs`) instantiates the page's own compiled
//! module (compiled once by `web/boot.js`). It either parses batches of texts ([`parse_in_workers`], a [`Feed`]
//! of a repository's sources) or opens its own copy of a zip archive and reads and parses batches of its source
//! entries ([`unpack_in_workers`], an [`EntryFeed`]): then the page neither inflates the sources nor copies their
//! texts into messages, and only enters what comes back. A free worker takes the largest items waiting, and has its
//! next batch sent before the page enters its last answer. The page enters the parsed files into the tables in path
//! order: the index is the one `Index::build` gives (the e2e suite compares them on a real tree).
//!
//! Starting a worker (its script, then instantiating the module) takes about 100 ms, so the page starts a spare pool
//! while it is idle ([`start_spare`], after the warm-up) and the next load takes it.
//!
//! Small repositories are indexed on the page's thread ([`crate::load::index_with_progress`]): starting workers
//! costs more than it saves there.

use std::cell::{Cell, RefCell};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::fmt;
use std::rc::Rc;

use futures::future::{FutureExt, LocalBoxFuture, Shared};

use acr_core::index::{ParsedFile, decode_parsed};
use acr_core::repo::{EntryRead, Limits, Repo};
use serde::{Deserialize, Serialize};
use wasm_bindgen::JsValue;

use crate::browser;
use crate::index_worker::UnpackedBatch;
use crate::worker::{Message, ModuleWorker, Reply, WorkerError};

/// The worker script, relative to the page.
const WORKER_URL: &str = "./index-worker.mjs";
/// At most this many workers, whatever the browser reports.
const MAX_WORKERS: usize = 8;
/// A batch holds at least this much text, unless less is left...
const MIN_BATCH_BYTES: usize = 64 * 1024;
/// ...at most this much...
const MAX_BATCH_BYTES: usize = 2 << 20;
/// ...and at most this many files.
const BATCH_FILES: usize = 1024;
/// Below this much Python the page indexes on its own thread.
pub const MIN_POOL_BYTES: usize = 1 << 20;
/// A batch not parsed in this time means a stuck worker (the slowest hostile file measured takes seconds).
const BATCH_DEADLINE_MS: f64 = 120_000.0;
/// How long a free worker waits for other workers' batches to come back before looking again.
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
    /// Open a copy of the archive being loaded (a `Uint8Array`).
    Open {
        id: u64,
        #[serde(with = "serde_wasm_bindgen::preserve")]
        archive: JsValue,
    },
    /// Read and parse these source entries of the open archive, stopping once more than `max_bytes` were read.
    Unpack { id: u64, entries: Vec<u32>, max_bytes: usize },
}

/// An indexing worker's answer.
#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum IndexReply {
    /// Started, or opened the archive.
    Ready {
        id: u64,
    },
    Parsed {
        id: u64,
        #[serde(with = "acr_core::byte_buf")]
        bytes: Vec<u8>,
    },
    Unpacked {
        id: u64,
        batch: UnpackedBatch,
    },
    Failed {
        id: u64,
        message: String,
    },
}

impl Message for IndexReply {
    fn id(&self) -> u64 {
        match self {
            IndexReply::Ready { id }
            | IndexReply::Parsed { id, .. }
            | IndexReply::Unpacked { id, .. }
            | IndexReply::Failed { id, .. } => *id,
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
        _ => Err(PoolError::Failed("another answer than ready to a start".into())),
    }
}

/// How many workers to start: one per core the browser reports, capped, at least one.
pub fn worker_count() -> usize {
    let cores = web_sys::window().map_or(1.0, |w| w.navigator().hardware_concurrency());
    (cores as usize).clamp(1, MAX_WORKERS)
}

/// Source files for the pool to parse ([`parse_in_workers`]): a free worker takes the largest files waiting, up to a
/// batch, so a few large files cannot leave one worker working alone at the end.
pub struct Feed {
    waiting: RefCell<BinaryHeap<Waiting>>,
    /// Files handed in.
    fed: usize,
    /// Bytes of text waiting.
    left: Cell<usize>,
}

/// A file waiting in a [`Feed`].
struct Waiting {
    arrival: usize,
    path: String,
    text: String,
}

impl Waiting {
    /// Largest first, then first come first.
    fn key(&self) -> (usize, Reverse<usize>) {
        (self.text.len(), Reverse(self.arrival))
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

/// What a free worker gets from the work being shared out.
enum Take<B> {
    Batch(B),
    /// Nothing to hand out now, but batches still out may bring some back.
    Wait,
    /// Nothing is left to hand out.
    Done,
}

impl Feed {
    /// Every source file of a repository.
    pub fn of(repo: &Repo) -> Feed {
        let waiting: BinaryHeap<Waiting> = repo
            .source_files()
            .enumerate()
            .map(|(arrival, (path, text))| Waiting { arrival, path: path.to_string(), text: text.to_string() })
            .collect();
        let left = waiting.iter().map(|w| w.text.len()).sum();
        Feed { fed: waiting.len(), waiting: RefCell::new(waiting), left: Cell::new(left) }
    }

    /// The largest files waiting, up to a batch ([`batch_bytes`], [`BATCH_FILES`]) for one of `workers` workers.
    fn take(&self, workers: usize) -> Take<Vec<Waiting>> {
        let (batch, bytes) =
            take_largest(&mut self.waiting.borrow_mut(), batch_bytes(self.left.get(), workers), |w| w.text.len());
        self.left.set(self.left.get().saturating_sub(bytes));
        if batch.is_empty() { Take::Done } else { Take::Batch(batch) }
    }
}

/// How much text the next batch for one of `workers` workers holds when `left` bytes are waiting: a share of what is
/// left, which shrinks as it runs out (guided self-scheduling). A worker idles while its answer travels to the page
/// and its next batch back, so few large batches while much is left, and small ones at the end so that the workers
/// finish together.
fn batch_bytes(left: usize, workers: usize) -> usize {
    (left / (2 * workers.max(1))).clamp(MIN_BATCH_BYTES, MAX_BATCH_BYTES)
}

/// Pops the largest items of `heap` (by `size`) while they fit in `max_bytes` and [`BATCH_FILES`] (a first item
/// larger than that is taken alone); the items and their total size.
fn take_largest<T: Ord>(heap: &mut BinaryHeap<T>, max_bytes: usize, size: impl Fn(&T) -> usize) -> (Vec<T>, usize) {
    let mut batch = Vec::new();
    let mut bytes = 0usize;
    while let Some(next) = heap.peek() {
        if !batch.is_empty() && (bytes.saturating_add(size(next)) > max_bytes || batch.len() == BATCH_FILES) {
            break;
        }
        bytes = bytes.saturating_add(size(next));
        batch.extend(heap.pop());
    }
    (batch, bytes)
}

/// A zip archive's source entries for the pool to read and parse ([`unpack_in_workers`]), largest first by the
/// sizes the archive's directory declares, in batches as a [`Feed`]'s. Entries a worker left unread (it read more
/// than the batch's size: the archive misstated them) go back in. Once the bytes or entries read reach the archive's budget ([`Limits`]), nothing more is handed out: a
/// hostile archive costs the workers no more than it would cost the page, which reads what is left itself.
pub struct EntryFeed {
    /// (declared size, entry), capped at the largest file kept.
    waiting: RefCell<BinaryHeap<(u64, Reverse<u32>)>>,
    /// The declared sizes waiting, in all.
    left: Cell<u64>,
    total: usize,
    /// Batches handed out and not yet returned.
    out: Cell<usize>,
    read_bytes: Cell<usize>,
    read_entries: Cell<usize>,
    limits: Limits,
}

impl EntryFeed {
    /// The entries of [`ZipUnpacker::pending_sources`](acr_core::repo::ZipUnpacker::pending_sources).
    pub fn new(pending: &[(usize, u64)], limits: Limits) -> EntryFeed {
        let cap = limits.max_file_bytes as u64 + 1;
        let waiting: BinaryHeap<_> = pending.iter().map(|&(i, size)| (size.min(cap), Reverse(i as u32))).collect();
        EntryFeed {
            left: Cell::new(waiting.iter().map(|(size, _)| size).sum()),
            total: waiting.len(),
            waiting: RefCell::new(waiting),
            out: Cell::new(0),
            read_bytes: Cell::new(0),
            read_entries: Cell::new(0),
            limits,
        }
    }

    fn budget_spent(&self) -> bool {
        self.read_entries.get() >= self.limits.max_entries || self.read_bytes.get() >= self.limits.max_total_bytes
    }

    /// The largest entries waiting, up to a batch for one of `workers` workers.
    fn take(&self, workers: usize) -> Take<Vec<(u64, Reverse<u32>)>> {
        let batch = if self.budget_spent() {
            Vec::new()
        } else {
            let max_bytes = batch_bytes(self.left.get() as usize, workers);
            let (batch, bytes) = take_largest(&mut self.waiting.borrow_mut(), max_bytes, |&(size, _)| size as usize);
            self.left.set(self.left.get().saturating_sub(bytes as u64));
            batch
        };
        match (batch.is_empty(), self.out.get()) {
            (false, out) => {
                self.out.set(out + 1);
                Take::Batch(batch)
            }
            (true, 0) => Take::Done,
            (true, _) => Take::Wait,
        }
    }

    /// Takes back a batch handed out: counts what was read, and puts the entries left unread back in.
    fn returned(&self, batch: Vec<(u64, Reverse<u32>)>, read: &UnpackedBatch) {
        self.out.set(self.out.get().saturating_sub(1));
        let bytes: usize =
            read.reads.iter().map(|(_, r)| if let EntryRead::Data { data, .. } = r { data.len() } else { 0 }).sum();
        self.read_bytes.set(self.read_bytes.get().saturating_add(bytes));
        self.read_entries.set(self.read_entries.get() + read.reads.len());
        let unread = batch.into_iter().skip(read.reads.len());
        let mut waiting = self.waiting.borrow_mut();
        for (size, entry) in unread {
            self.left.set(self.left.get().saturating_add(size));
            waiting.push((size, entry));
        }
    }
}

/// What the workers read of an archive's sources ([`unpack_in_workers`]), by entry.
#[derive(Default)]
pub struct Unpacks {
    /// Each entry's read.
    pub reads: HashMap<u32, EntryRead>,
    /// The parse of each entry whose bytes a repository keeps as a source file.
    pub parsed: HashMap<u32, ParsedFile>,
}

/// Work shared out to the pool's workers: texts to parse ([`Feed`]) or an archive's sources to read and parse
/// ([`EntryFeed`]).
trait Work {
    /// One worker's share at a time.
    type Batch;
    /// The archive each worker opens first (a `Uint8Array`), if the work is an archive's.
    fn archive(&self) -> Option<&JsValue>;
    /// The next batch for one of `workers` workers.
    fn take(&self, workers: usize) -> Take<Self::Batch>;
    fn request(&self, id: u64, batch: &Self::Batch) -> IndexRequest;
    /// Enters a worker's answer to `batch`; how many more items are done.
    fn enter(&self, batch: Self::Batch, reply: IndexReply) -> Result<usize, PoolError>;
}

/// A [`Feed`] being parsed, and the files parsed so far (in the order they came back).
struct Parsing<'a> {
    feed: &'a Feed,
    parsed: RefCell<Vec<ParsedFile>>,
}

impl Work for Parsing<'_> {
    type Batch = Vec<Waiting>;

    fn archive(&self) -> Option<&JsValue> {
        None
    }

    fn take(&self, workers: usize) -> Take<Vec<Waiting>> {
        self.feed.take(workers)
    }

    fn request(&self, id: u64, batch: &Vec<Waiting>) -> IndexRequest {
        let paths = batch.iter().map(|w| w.path.clone()).collect();
        let texts: js_sys::Array = batch.iter().map(|w| JsValue::from_str(&w.text)).collect();
        IndexRequest::Parse { id, paths, texts: texts.into() }
    }

    fn enter(&self, batch: Vec<Waiting>, reply: IndexReply) -> Result<usize, PoolError> {
        let IndexReply::Parsed { bytes, .. } = reply else {
            return Err(PoolError::Failed("another answer than parsed files to a parse".into()));
        };
        let files = decode_parsed(&bytes).map_err(|e| PoolError::Failed(format!("a worker's answer: {e}")))?;
        if files.len() != batch.len() || files.iter().zip(&batch).any(|(f, w)| f.entry.path != w.path) {
            return Err(PoolError::Failed("a batch came back with other files than it was sent".into()));
        }
        self.parsed.borrow_mut().extend(files);
        Ok(batch.len())
    }
}

/// An [`EntryFeed`] being read, with the archive the workers open and what they read so far.
struct Unpacking<'a> {
    entries: &'a EntryFeed,
    archive: JsValue,
    unpacks: RefCell<Unpacks>,
}

impl Work for Unpacking<'_> {
    type Batch = Vec<(u64, Reverse<u32>)>;

    fn archive(&self) -> Option<&JsValue> {
        Some(&self.archive)
    }

    fn take(&self, workers: usize) -> Take<Self::Batch> {
        self.entries.take(workers)
    }

    fn request(&self, id: u64, batch: &Self::Batch) -> IndexRequest {
        let entries = batch.iter().map(|&(_, Reverse(i))| i).collect();
        let declared = batch.iter().map(|&(size, _)| size as usize).fold(0, usize::saturating_add);
        IndexRequest::Unpack { id, entries, max_bytes: declared.max(MIN_BATCH_BYTES) }
    }

    fn enter(&self, batch: Self::Batch, reply: IndexReply) -> Result<usize, PoolError> {
        let IndexReply::Unpacked { batch: read, .. } = reply else {
            return Err(PoolError::Failed("another answer than entries read to an unpack".into()));
        };
        let asked = batch.iter().map(|&(_, Reverse(i))| i);
        if read.reads.len() > batch.len() || !read.reads.iter().map(|(i, _)| *i).eq(asked.take(read.reads.len())) {
            return Err(PoolError::Failed("a batch came back with other entries than it was sent".into()));
        }
        let files = decode_parsed(&read.parsed).map_err(|e| PoolError::Failed(format!("a worker's answer: {e}")))?;
        if files.len() != read.parsed_entries.len() {
            return Err(PoolError::Failed("a batch came back with parses for other entries".into()));
        }
        let done = read.reads.len();
        self.entries.returned(batch, &read);
        let mut unpacks = self.unpacks.borrow_mut();
        unpacks.parsed.extend(read.parsed_entries.into_iter().zip(files));
        unpacks.reads.extend(read.reads);
        Ok(done)
    }
}

/// Parses the files of `feed` in `workers` Web Workers, calling `progress(done, total)` as batches come back, and
/// returns them in path order (for `Index::from_parsed` and the cache). `cancelled` is read between batches; when
/// it turns true the workers are stopped. Dropping the future stops them too.
pub async fn parse_in_workers(
    feed: &Feed,
    workers: usize,
    cancelled: &dyn Fn() -> bool,
    progress: &dyn Fn(usize, usize),
) -> Result<Vec<ParsedFile>, PoolError> {
    let parsing = Parsing { feed, parsed: RefCell::new(Vec::with_capacity(feed.fed)) };
    run(&parsing, feed.fed, workers, cancelled, progress).await?;
    let mut parsed = parsing.parsed.into_inner();
    if parsed.len() != feed.fed {
        return Err(PoolError::Failed("some files were never parsed".into()));
    }
    parsed.sort_unstable_by(|a, b| a.entry.path.cmp(&b.entry.path));
    Ok(parsed)
}

/// Has `workers` Web Workers each open a copy of `archive` (a `Uint8Array` of the zip) and read and parse the
/// entries of `entries`, calling `progress(done, total)` in entries as batches come back. What they read is entered
/// by the caller ([`acr_core::repo::ZipUnpacker::admit_source`]); entries the budget kept from the workers are not
/// in it. Cancelling and dropping work as for [`parse_in_workers`].
pub async fn unpack_in_workers(
    archive: &js_sys::Uint8Array,
    entries: &EntryFeed,
    workers: usize,
    cancelled: &dyn Fn() -> bool,
    progress: &dyn Fn(usize, usize),
) -> Result<Unpacks, PoolError> {
    let unpacking = Unpacking { entries, archive: archive.into(), unpacks: RefCell::default() };
    run(&unpacking, entries.total, workers, cancelled, progress).await?;
    Ok(unpacking.unpacks.into_inner())
}

/// Shares `work` (`total` items) out to `workers` workers, the spare pool if it has that many, until none is left.
async fn run<W: Work>(
    work: &W,
    total: usize,
    workers: usize,
    cancelled: &dyn Fn() -> bool,
    progress: &dyn Fn(usize, usize),
) -> Result<(), PoolError> {
    progress(0, total);
    let spare = SPARE.with_borrow_mut(Option::take).filter(|pool| pool.len() == workers.max(1));
    let pool = spare.unwrap_or_else(|| start_pool(workers));
    let stop = Cell::new(false);
    let done = Cell::new(0);
    let advance = |n: usize| {
        done.set(done.get() + n);
        progress(done.get(), total);
    };
    let workers = pool.len();
    let shares = pool.iter().map(|w| share(w, work, workers, &stop, cancelled, &advance));
    let results = futures::future::join_all(shares).await;
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
    browser::yield_now().await;
    Ok(())
}

/// One worker's share: wait for it to start, then take batches until none is left. A failure stops the others
/// after their batch.
async fn share<W: Work>(
    worker: &Starting,
    work: &W,
    workers: usize,
    stop: &Cell<bool>,
    cancelled: &dyn Fn() -> bool,
    progress: &dyn Fn(usize),
) -> Result<(), PoolError> {
    let result = share_until_done(worker, work, workers, stop, cancelled, progress).await;
    if result.is_err() {
        stop.set(true);
    }
    result
}

async fn share_until_done<W: Work>(
    worker: &Starting,
    work: &W,
    workers: usize,
    stop: &Cell<bool>,
    cancelled: &dyn Fn() -> bool,
    progress: &dyn Fn(usize),
) -> Result<(), PoolError> {
    let worker = worker.clone().await?;
    if let Some(archive) = work.archive() {
        let open = |id| IndexRequest::Open { id, archive: archive.clone() };
        match worker.request(open, Some(BATCH_DEADLINE_MS), |_| {}).await? {
            IndexReply::Ready { .. } => {}
            IndexReply::Failed { message, .. } => return Err(PoolError::Failed(message)),
            _ => return Err(PoolError::Failed("another answer than ready to opening the archive".into())),
        }
    }
    // The previous batch's answer, entered once the next batch is on its way.
    let mut answered: Option<(W::Batch, IndexReply)> = None;
    let enter = |answer: Option<(W::Batch, IndexReply)>| match answer {
        Some((batch, reply)) => work.enter(batch, reply).map(progress),
        None => Ok(()),
    };
    loop {
        if stop.get() || cancelled() {
            return Err(PoolError::Cancelled);
        }
        let batch = match work.take(workers) {
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
        let request = worker.request(|id| work.request(id, &batch), Some(BATCH_DEADLINE_MS), |_| {});
        // A request is sent when it is first polled: `join` polls it before entering the previous answer, so the
        // worker works while the page enters.
        let previous = answered.take();
        let (reply, entered) = futures::join!(request, async { enter(previous) });
        entered?;
        match reply? {
            IndexReply::Failed { message, .. } => return Err(PoolError::Failed(message)),
            reply => answered = Some((batch, reply)),
        }
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

    fn paths(take: Take<Vec<Waiting>>) -> Vec<String> {
        match take {
            Take::Batch(batch) => batch.into_iter().map(|w| w.path).collect(),
            Take::Wait => vec!["(wait)".into()],
            Take::Done => vec!["(done)".into()],
        }
    }

    fn entries(take: Take<Vec<(u64, Reverse<u32>)>>) -> Vec<u32> {
        match take {
            Take::Batch(batch) => batch.into_iter().map(|(_, Reverse(i))| i).collect(),
            Take::Wait => vec![u32::MAX],
            Take::Done => vec![],
        }
    }

    fn feed_of(files: &[(String, String)]) -> Feed {
        Feed::of(&Repo::from_files(files.iter().map(|(p, t)| (p.as_str(), t.as_str()))))
    }

    #[test]
    fn a_free_worker_takes_the_largest_files_waiting() {
        let feed = feed_of(&[
            ("a_small.py".into(), "x = 1\n".into()),
            ("large.py".into(), "y = 2\n".repeat(100)),
            ("b_small.py".into(), "z = 3\n".into()),
            ("README.md".into(), "# r\n".into()),
        ]);
        assert_eq!(feed.fed, 3, "the sources only");
        // Equal sizes go in path order (the order they came in).
        assert_eq!(paths(feed.take(2)), ["large.py", "a_small.py", "b_small.py"]);
        assert_eq!(paths(feed.take(2)), ["(done)"]);
    }

    #[test]
    fn batches_shrink_as_the_files_run_out_and_a_file_larger_than_a_batch_goes_alone() {
        assert_eq!(batch_bytes(100 << 20, 2), MAX_BATCH_BYTES);
        assert_eq!(batch_bytes(4 << 20, 2), 1 << 20, "a quarter of what is left for two workers");
        assert_eq!(batch_bytes(1000, 2), MIN_BATCH_BYTES);
        let mut files = vec![("huge.py".to_string(), "h".repeat(MIN_BATCH_BYTES + 1))];
        files.extend((0..3).map(|i| (format!("half{i}.py"), "a".repeat(MIN_BATCH_BYTES / 2))));
        files.extend((0..BATCH_FILES + 1).map(|i| (format!("tiny{i:04}.py"), "t".to_string())));
        let feed = feed_of(&files);
        // With eight workers each batch is the smallest.
        assert_eq!(paths(feed.take(8)), ["huge.py"]);
        assert_eq!(paths(feed.take(8)), ["half0.py", "half1.py"]);
        assert_eq!(paths(feed.take(8)).len(), BATCH_FILES, "half2.py and tiny files up to the file limit");
        assert_eq!(paths(feed.take(8)), ["tiny1023.py", "tiny1024.py"]);
        assert_eq!(paths(feed.take(8)), ["(done)"]);
        assert_eq!(feed.left.get(), 0);
        // With one worker the first batch is half of everything.
        let files: Vec<_> = (0..8).map(|i| (format!("f{i}.py"), "f".repeat(MIN_BATCH_BYTES))).collect();
        let feed = feed_of(&files);
        assert_eq!(paths(feed.take(1)), ["f0.py", "f1.py", "f2.py", "f3.py"]);
    }

    fn read_back(entries: &[u32], sizes: &[usize]) -> UnpackedBatch {
        let reads = entries
            .iter()
            .zip(sizes)
            .map(|(&i, &n)| (i, EntryRead::Data { path: format!("e{i}.py"), data: vec![b'x'; n] }))
            .collect();
        UnpackedBatch { reads, parsed_entries: Vec::new(), parsed: Vec::new() }
    }

    #[test]
    fn archive_entries_go_out_largest_first_and_unread_ones_come_back() {
        let feed = EntryFeed::new(&[(1, 10), (2, 200_000), (3, 100_000), (4, 30)], Limits::default());
        let Take::Batch(batch) = feed.take(2) else { panic!("a batch") };
        assert_eq!(batch.iter().map(|&(_, Reverse(i))| i).collect::<Vec<_>>(), [2]);
        // Then the largest left, alone (it is larger than a batch now), and the rest; the first batches are still
        // out, so a free worker then waits.
        assert_eq!(entries(feed.take(2)), [3]);
        assert_eq!(entries(feed.take(2)), [4, 1]);
        assert_eq!(entries(feed.take(2)), [u32::MAX]);
        // The worker read entry 2: nothing comes back.
        feed.returned(batch, &read_back(&[2], &[200_000]));
        assert_eq!(entries(feed.take(2)), [u32::MAX], "the second batch is still out");
        let lying = EntryFeed::new(&[(5, 1), (6, 1), (7, 1)], Limits::default());
        let Take::Batch(batch) = lying.take(2) else { panic!("a batch") };
        // The entries declared one byte each; the first read gave far more, so the worker stopped there.
        lying.returned(batch, &read_back(&[5], &[MIN_BATCH_BYTES + 1]));
        assert_eq!(lying.left.get(), 2);
        assert_eq!(entries(lying.take(2)), [6, 7], "the unread entries are handed out again");
    }

    #[test]
    fn no_entry_goes_out_once_the_archive_budget_is_read() {
        let limits = Limits { max_total_bytes: 1000, ..Limits::default() };
        let feed = EntryFeed::new(&[(1, 600), (2, 600), (3, 600)], limits);
        let Take::Batch(batch) = feed.take(2) else { panic!("a batch") };
        assert_eq!(batch.len(), 3);
        // A worker read two entries of the three, 1200 bytes: over the budget.
        feed.returned(batch, &read_back(&[1, 2], &[600, 600]));
        assert_eq!(entries(feed.take(2)), Vec::<u32>::new(), "done: the page reads what it still needs");
        let limits = Limits { max_entries: 2, ..Limits::default() };
        let feed = EntryFeed::new(&[(1, 6), (2, 6), (3, 6)], limits);
        let Take::Batch(batch) = feed.take(2) else { panic!("a batch") };
        feed.returned(batch, &read_back(&[1, 2], &[6, 6]));
        assert_eq!(entries(feed.take(2)), Vec::<u32>::new());
    }
}
