//! The loader: takes a chosen or dropped zip, the archive remembered from the last session, or a demo repository
//! through its load (unpack the sources, index them, show them, then unpack the other files) and tells the load's
//! state machine ([`crate::load_state`]) each step. A new load supersedes the one in progress.

use std::rc::Rc;

use acr_core::index::Index;
use acr_core::repo::{Repo, ZipUnpacker};
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsValue;

use crate::demo::Demo;
use crate::index_pool::{self, PoolError};
use crate::load::Loaded;
use crate::load_index::{CacheKey, NewIndex, index_repo, parsed_index};
use crate::load_state::{LoadEvent, LoadState, Origin, Phases, Provenance, Summary, Timing};
use crate::state::AppState;
use crate::unpack_parse::{Indexed, Unpacked, unpack_and_parse};
use crate::{browser, demo, index_cache, load};

/// Loads repositories into the page, one at a time, and holds the load's state.
#[derive(Clone, Copy)]
pub struct Loader {
    app: AppState,
    state: RwSignal<LoadState>,
    /// Each load takes a new generation; an older load that sees a newer one stops (Cancel starts an empty one).
    generation: StoredValue<u64>,
}

/// The bytes an archive comes with.
enum ArchiveBytes {
    /// Chosen or dropped now: the whole archive, in the module's memory and as the browser read it (for the
    /// indexing workers and the hash).
    Chosen(Vec<u8>, js_sys::Uint8Array),
    /// Loaded again from the last session: its sources as an archive of their own, its remembered hash and its
    /// cached entry, read ahead. The whole archive is read back once the sources are indexed.
    Restored { sources: Vec<u8>, key: String, cached: JsValue },
}

/// Where the files of an archive that are not sources come from, once its sources are indexed.
enum Rest {
    /// The archive being unpacked.
    Unpack(ZipUnpacker<Vec<u8>>),
    /// The whole archive, remembered from the last session.
    Remembered,
}

/// What completes a loaded repository.
enum Completion {
    /// Its other files, to add to the sources.
    Absorb(Repo),
    /// The whole repository, in place of the sources.
    Replace(Repo),
}

/// An archive's sources, unpacked, and what is known of their index so far.
struct Sources {
    repo: Repo,
    /// Where the other files come from.
    rest: Rest,
    /// The archive's hash (the index cache's key), when the browser could compute one.
    key: Option<String>,
    /// Whether the cache is still to be looked up (the workers look it up while they unpack).
    look_up: bool,
    /// The archive's cached entry, read ahead (a restore).
    cached: Option<JsValue>,
    /// The index the workers made while they unpacked, and when they began.
    indexed: Option<(NewIndex, f64)>,
}

impl Loader {
    /// A loader with nothing loaded, for the page's repository ([`AppState::loaded`]).
    pub fn new() -> Loader {
        Loader { app: AppState::get(), state: RwSignal::new(LoadState::Idle), generation: StoredValue::new(0) }
    }

    /// What the loader is doing.
    pub fn state(self) -> ReadSignal<LoadState> {
        self.state.read_only()
    }

    /// Moves the state machine on.
    fn send(self, event: LoadEvent) {
        self.state.update(|state| *state = std::mem::take(state).next(event));
    }

    /// Starts a new load (the one in progress stops) of the archive `name`, chosen at `started`.
    fn begin(self, name: String, started: f64) -> Job {
        self.generation.update_value(|g| *g += 1);
        Job { loader: self, generation: self.generation.get_value(), name, started }
    }

    /// Stops the load in progress.
    pub fn cancel(self) {
        self.generation.update_value(|g| *g += 1);
        self.send(LoadEvent::Cancel);
    }

    /// Something that is not a file was dropped.
    pub fn nothing_dropped(self) {
        self.send(LoadEvent::Failed("Nothing was dropped: drop a .zip file of the repository.".into()));
    }

    /// Loads a zip the user chose or dropped.
    pub fn load_file(self, file: web_sys::File) {
        let name = file.name();
        self.send(LoadEvent::Started(name.clone()));
        self.app.loaded.set(None);
        let started = browser::now();
        spawn_local(async move {
            match load::read_file_js(&file).await {
                Ok(archive) => self.load_archive(name, ArchiveBytes::Chosen(archive.to_vec(), archive), started),
                Err(e) => self.send(LoadEvent::failure(&name, e)),
            }
        });
    }

    /// Loads a bundled demo repository (complete at once, with its issue).
    pub fn load_demo(self, demo: &'static Demo) {
        let job = self.begin(demo.name.into(), browser::now());
        self.app.loaded.set(None);
        spawn_local(async move {
            let repo = Repo::from_files(demo.files.iter().copied());
            if let Some(NewIndex { index, origin, .. }) = job.index(&repo, CacheKey { key: None, cached: None }).await {
                let timing = Timing { started: job.started, indexing: job.started, phases: Phases::default() };
                let provenance = Provenance { origin, restored: false, complete: true };
                job.ready(repo, index, provenance, timing, Some(demo));
            }
        });
    }

    /// Loads the archive of the last session, if nothing has been loaded meanwhile; with none, warms the code up
    /// while the user picks a file.
    pub fn restore_last(self) {
        spawn_local(async move {
            let Some(last) = index_cache::restore().await else {
                return crate::warm::warm_up(move || self.generation.get_value() != 0).await;
            };
            if self.generation.get_value() == 0 && self.app.loaded.with_untracked(Option::is_none) {
                // Timed from the navigation's start: the reload is what the user waits for.
                let bytes = ArchiveBytes::Restored { sources: last.sources, key: last.key, cached: last.index };
                self.load_archive(last.name, bytes, 0.0);
            }
        });
    }

    fn load_archive(self, name: String, bytes: ArchiveBytes, started: f64) {
        let job = self.begin(name.clone(), started);
        self.send(LoadEvent::Started(name));
        self.app.loaded.set(None);
        spawn_local(job.run(bytes));
    }
}

/// One load: its generation, its archive's name, and when it started.
struct Job {
    loader: Loader,
    generation: u64,
    name: String,
    started: f64,
}

impl Job {
    /// Whether a newer load (or Cancel) superseded this one.
    fn cancelled(&self) -> bool {
        self.loader.generation.get_value() != self.generation
    }

    /// Says that the load failed, because of `why`.
    fn fail(&self, why: impl std::fmt::Display) {
        self.loader.send(LoadEvent::failure(&self.name, why));
    }

    /// Says how far the indexing by `workers` workers (0: the page's thread) went.
    fn progress(&self, workers: usize, done: usize, total: usize) {
        self.loader.send(LoadEvent::Progress { name: self.name.clone(), done, total, workers });
    }

    /// A remembered archive that cannot complete its sources is forgotten, and the page says so; unless this load
    /// was superseded meanwhile (then the cache may already hold the next archive).
    fn forget(&self, why: &str) {
        if !self.cancelled() {
            self.loader.app.loaded.set(None);
            self.fail(format!("{why}; drop the zip again."));
            spawn_local(index_cache::clear());
        }
    }

    /// Loads an archive: its sources, their index, then its other files.
    async fn run(self, bytes: ArchiveBytes) {
        // Let the "Reading" line paint before the (synchronous) unzip.
        browser::yield_now().await;
        let mut phases = Phases::default();
        phases.end("read", self.started);
        let restored = matches!(bytes, ArchiveBytes::Restored { .. });
        // The sources only: the index needs nothing else, and the rest is unpacked once it is ready.
        let Some(Sources { repo, rest, key, look_up, cached, indexed }) = self.sources(bytes, &mut phases).await else {
            return;
        };
        let (new_index, indexing) = match indexed {
            Some(indexed) => indexed,
            None => {
                let indexing = browser::now();
                let cache = CacheKey { key: key.as_deref().filter(|_| look_up), cached };
                let Some(new_index) = self.index(&repo, cache).await else { return };
                (new_index, indexing)
            }
        };
        if self.cancelled() {
            return;
        }
        let NewIndex { index, origin, encoded } = new_index;
        phases.end(if origin == Origin::Cache { "cache" } else { "parse" }, self.started);
        let timing = Timing { started: self.started, indexing, phases };
        self.ready(repo, index, Provenance { origin, restored, complete: false }, timing, None);
        if let (Some(key), Some(encoded)) = (&key, encoded) {
            index_cache::store(key, &encoded).await;
        }
        match rest {
            Rest::Unpack(unpacker) => self.absorb_rest(unpacker, key).await,
            Rest::Remembered => self.replace_with_remembered().await,
        }
    }

    /// Unpacks the archive's sources.
    async fn sources(&self, bytes: ArchiveBytes, phases: &mut Phases) -> Option<Sources> {
        match bytes {
            ArchiveBytes::Chosen(bytes, archive) => {
                let unpacker = load::open_zip(bytes).map_err(|e| self.fail(e)).ok()?;
                if unpacker.declared_source_bytes() >= index_pool::MIN_POOL_BYTES as u64 {
                    self.unpack_in_workers(unpacker, archive, phases).await
                } else {
                    self.unpack_here(unpacker, archive, phases).await
                }
            }
            ArchiveBytes::Restored { sources, key, cached } => match load::open_sources_archive(sources) {
                Ok(repo) => {
                    phases.end("sources", self.started);
                    let (key, cached) = (Some(key), Some(cached));
                    Some(Sources { repo, rest: Rest::Remembered, key, look_up: true, cached, indexed: None })
                }
                Err(e) => {
                    self.forget(&format!("the stored copy of its sources is unreadable ({e})"));
                    None
                }
            },
        }
    }

    /// Unpacks the sources of a small archive on the page's thread, then hashes it.
    async fn unpack_here(
        &self,
        mut unpacker: ZipUnpacker<Vec<u8>>,
        archive: js_sys::Uint8Array,
        phases: &mut Phases,
    ) -> Option<Sources> {
        let repo = unpacker.sources();
        phases.end("sources", self.started);
        let key = index_cache::hash(archive).await;
        phases.end("hash", self.started);
        Some(Sources { repo, rest: Rest::Unpack(unpacker), key, look_up: true, cached: None, indexed: None })
    }

    /// Unpacks and parses the sources of a large archive in the workers ([`crate::unpack_parse`]).
    async fn unpack_in_workers(
        &self,
        mut unpacker: ZipUnpacker<Vec<u8>>,
        archive: js_sys::Uint8Array,
        phases: &mut Phases,
    ) -> Option<Sources> {
        let workers = index_pool::worker_count();
        let progress = |done, total| self.progress(workers, done, total);
        let since = browser::now();
        let unpacked = unpack_and_parse(&mut unpacker, archive, workers, &|| self.cancelled(), &progress).await;
        let Unpacked { repo, key, sources_at, looked_up_at, indexed } = match unpacked {
            Ok(unpacked) => unpacked,
            Err(PoolError::Cancelled) => return None,
            Err(e) => {
                self.fail(e);
                return None;
            }
        };
        // The hash ends first: the workers unpack and parse meanwhile, and the page then enters their files
        // ("sources").
        phases.end_at("hash", self.started, looked_up_at);
        phases.end_at("sources", self.started, sources_at);
        let indexed = match indexed {
            Indexed::Parsed(parsed) => {
                Some((parsed_index(parsed, &repo, workers).map_err(|e| self.fail(e)).ok()?, since))
            }
            Indexed::Cached(index) => Some((NewIndex { index, origin: Origin::Cache, encoded: None }, since)),
            Indexed::Unindexed(why) => {
                web_sys::console::warn_1(&format!("indexing the sources again: {why}").into());
                None
            }
        };
        Some(Sources { repo, rest: Rest::Unpack(unpacker), key, look_up: false, cached: None, indexed })
    }

    /// Indexes the repository's sources, showing the progress; `None` when cancelled or failed (then the state
    /// says why).
    async fn index(&self, repo: &Repo, cache: CacheKey<'_>) -> Option<NewIndex> {
        let progress = |workers, done, total| self.progress(workers, done, total);
        index_repo(repo, cache, &|| self.cancelled(), &progress).await.map_err(|e| self.fail(e)).ok()?
    }

    /// Shows the indexed repository and makes it the page's. A zip's other files are still to be unpacked; a demo
    /// repository is complete.
    fn ready(&self, repo: Repo, index: Index, provenance: Provenance, timing: Timing, demo: Option<&'static Demo>) {
        let app = self.loader.app;
        let summary = Summary::new(self.name.clone(), &repo, &index, provenance, timing, &browser::now);
        self.loader.send(LoadEvent::Indexed(summary));
        let (repo, index, complete) = (Rc::new(repo), Rc::new(index), provenance.complete);
        app.loaded.set(Some(Loaded { name: self.name.clone(), repo, index, demo, complete }));
        // A demo repository comes with its issue; another repository should not keep a demo's issue.
        if let Some(demo) = demo {
            app.issue.set(demo.issue.trim().to_string());
        } else if app.issue.with_untracked(|i| demo::ALL.iter().any(|d| i.trim() == d.issue.trim())) {
            app.issue.set(String::new());
        }
    }

    /// Unpacks the files of a ready zip that are not sources and adds them; then remembers the archive for the next
    /// session.
    async fn absorb_rest(&self, mut unpacker: ZipUnpacker<Vec<u8>>, key: Option<String>) {
        let Some(rest) = self.unpack_rest(&mut unpacker).await else { return };
        self.complete(Completion::Absorb(rest));
        // Remembered only once loaded: an archive that crashes the tab is not loaded again by the next reload.
        if let (Some(key), Ok(sources)) = (key, unpacker.sources_archive()) {
            index_cache::remember(&self.name, &key, &unpacker.into_bytes(), &sources).await;
        }
    }

    /// Reads the whole archive remembered from the last session back, checks that its sources are the ones
    /// loaded, and puts it in place of them.
    async fn replace_with_remembered(&self) {
        let Some(whole) = index_cache::archive().await else {
            return self.forget("the stored copy of the archive is missing");
        };
        let mut unpacker = match load::open_zip(whole) {
            Ok(unpacker) => unpacker,
            Err(e) => return self.forget(&format!("the stored copy of the archive is unreadable ({e})")),
        };
        let mut whole = unpacker.sources();
        let same = self
            .loader
            .app
            .loaded
            .with_untracked(|l| l.as_ref().is_some_and(|l| l.repo.source_files().eq(whole.source_files())));
        if self.cancelled() {
            return;
        }
        if !same {
            return self.forget("the stored copies of the archive and of its sources differ");
        }
        let Some(rest) = self.unpack_rest(&mut unpacker).await else { return };
        whole.absorb(rest);
        self.complete(Completion::Replace(whole));
    }

    /// Unpacks the archive's files that are not sources; `None` when the load was cancelled meanwhile.
    async fn unpack_rest(&self, unpacker: &mut ZipUnpacker<Vec<u8>>) -> Option<Repo> {
        let rest = load::unpack_rest(unpacker, &|| self.cancelled()).await?;
        (!self.cancelled()).then_some(rest)
    }

    /// The loaded repository becomes complete.
    fn complete(&self, completion: Completion) {
        let app = self.loader.app;
        let ms = browser::now() - self.started;
        app.loaded.update(|loaded| {
            if let Some(loaded) = loaded {
                match completion {
                    Completion::Absorb(rest) => Rc::make_mut(&mut loaded.repo).absorb(rest),
                    Completion::Replace(whole) => loaded.repo = Rc::new(whole),
                }
                loaded.complete = true;
            }
        });
        let skipped = app.loaded.with_untracked(|l| l.as_ref().map(|l| l.repo.skipped().to_vec()));
        self.loader.send(LoadEvent::Completed { skipped: skipped.unwrap_or_default(), ms });
    }
}
