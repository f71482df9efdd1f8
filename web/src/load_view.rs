//! The load card: choose or drop a `.zip`, or use the demo repository; a progress bar while it unzips and indexes;
//! then the counts, the files skipped with their reasons, and the file tree.

use std::rc::Rc;

use acr_core::index::{IndexStats, ParsedFile};
use acr_core::repo::{Repo, SkippedFile, ZipUnpacker};
use leptos::prelude::*;
use leptos::task::spawn_local;
use web_sys::HtmlInputElement;

use crate::demo::Demo;
use crate::file_tree::FileTree;
use crate::index_pool::{self, Feed, PoolError};
use crate::load::Loaded;
use crate::state::AppState;
use crate::unpack_parse::{Indexed, Unpacked, unpack_and_parse};
use crate::{browser, demo, index_cache, load};

/// Where a loaded index came from.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Origin {
    /// Parsed on the page's thread.
    Page,
    /// Parsed by this many workers.
    Workers(usize),
    /// Read from the index cache.
    Cache,
}

/// How long each step of a load took (ms), in order: shown on the status line (`data-phases`) for benchmarks.
#[derive(Clone, Debug, Default, PartialEq)]
struct Phases(Vec<(&'static str, f64)>);

impl Phases {
    /// Records that the step `name` ended now; it began where the previous one ended (or at `start`).
    fn end(&mut self, name: &'static str, start: f64) {
        self.end_at(name, start, browser::now());
    }

    /// Records that the step `name` ended at `at` (the page's clock).
    fn end_at(&mut self, name: &'static str, start: f64, at: f64) {
        let since = start + self.0.iter().map(|(_, ms)| ms).sum::<f64>();
        self.0.push((name, at - since));
    }
}

impl std::fmt::Display for Phases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, (name, ms)) in self.0.iter().enumerate() {
            write!(f, "{}{name} {ms:.0}", if i == 0 { "" } else { ", " })?;
        }
        Ok(())
    }
}

/// When a load started, when its indexing started, and its steps so far.
struct Timing {
    started: f64,
    indexing: f64,
    phases: Phases,
}

/// What the loader is doing.
#[derive(Clone, Debug, PartialEq)]
enum LoadState {
    Idle,
    Reading(String),
    Indexing {
        name: String,
        done: usize,
        total: usize,
        workers: usize,
    },
    Ready {
        name: String,
        stats: IndexStats,
        /// Files per language, as `Python 12, Java 3`.
        languages: String,
        skipped: Vec<SkippedFile>,
        broken: Vec<String>,
        ms: f64,
        index_ms: f64,
        origin: Origin,
        restored: bool,
        /// How long each step of the load took.
        phases: Phases,
        /// When the files that are not sources were unpacked too, in ms from the start (`None` while they are).
        complete_ms: Option<f64>,
    },
    Cancelled(String),
    Failed(String),
}

/// An archive to load, and how it came.
struct Archive {
    name: String,
    bytes: ArchiveBytes,
    /// When the user chose it (or the page started, for a restored one).
    started: f64,
}

/// The bytes an archive comes with.
enum ArchiveBytes {
    /// Chosen or dropped now: the whole archive, in the module's memory and as the browser read it (for the
    /// indexing workers and the hash).
    Chosen(Vec<u8>, js_sys::Uint8Array),
    /// Loaded again from the last session: its sources as an archive of their own, its remembered hash and its
    /// cached entry, read ahead. The whole archive is read back once the sources are indexed.
    Restored { sources: Vec<u8>, key: String, cached: wasm_bindgen::JsValue },
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

/// The load card's content.
#[component]
pub fn LoadView() -> impl IntoView {
    let app = AppState::get();
    let state = RwSignal::new(LoadState::Idle);
    let dragging = RwSignal::new(false);

    // Each load takes a new generation; an older load that sees a newer one stops (Cancel starts an empty one).
    let generation = StoredValue::new(0u64);
    let next_generation = move || {
        generation.update_value(|g| *g += 1);
        generation.get_value()
    };

    // A zip's other files are still to be unpacked when it is ready; a demo repository is complete.
    let ready = move |name: String,
                      repo: Repo,
                      index: acr_core::Index,
                      timing: Timing,
                      origin,
                      restored,
                      demo: Option<&'static Demo>| {
        let Timing { started, indexing, mut phases } = timing;
        let done = browser::now();
        let (ms, index_ms) = (done - started, done - indexing);
        let broken = index.files.iter().filter(|f| f.has_error).map(|f| f.path.clone()).collect();
        let skipped = repo.skipped().to_vec();
        let stats = index.stats();
        let languages = index.languages_summary();
        phases.end("tables", started);
        let ready = LoadState::Ready {
            name: name.clone(),
            stats,
            languages,
            skipped,
            broken,
            ms,
            index_ms,
            origin,
            restored,
            phases,
            complete_ms: demo.is_some().then_some(ms),
        };
        state.set(ready);
        let complete = demo.is_some();
        app.loaded.set(Some(Loaded { name, repo: Rc::new(repo), index: Rc::new(index), demo, complete }));
        // A demo repository comes with its issue; another repository should not keep a demo's issue.
        if let Some(demo) = demo {
            app.issue.set(demo.issue.trim().to_string());
        } else if app.issue.with_untracked(|i| demo::ALL.iter().any(|d| i.trim() == d.issue.trim())) {
            app.issue.set(String::new());
        }
    };

    // The files of a ready zip that are not sources, unpacked after it: the loaded repository becomes complete.
    let complete = move |completion: Completion, started: f64| {
        let ms = browser::now() - started;
        app.loaded.update(|loaded| {
            if let Some(loaded) = loaded {
                match completion {
                    Completion::Absorb(rest) => Rc::make_mut(&mut loaded.repo).absorb(rest),
                    Completion::Replace(whole) => loaded.repo = Rc::new(whole),
                }
                loaded.complete = true;
            }
        });
        let all_skipped = app.loaded.with_untracked(|l| l.as_ref().map(|l| l.repo.skipped().to_vec()));
        state.update(|s| {
            if let LoadState::Ready { skipped, complete_ms, .. } = s {
                *skipped = all_skipped.unwrap_or_default();
                *complete_ms = Some(ms);
            }
        });
    };
    // A remembered archive that cannot complete its sources is forgotten, and the page says so; unless the load of
    // `generation_then` was superseded meanwhile (then the cache may already hold the next archive).
    let forget = move |generation_then: u64, name: &str, why: &str| {
        if generation.get_value() == generation_then {
            app.loaded.set(None);
            state.set(LoadState::Failed(format!("{name}: {why}; drop the zip again.")));
            spawn_local(index_cache::clear());
        }
    };

    let load_archive = move |archive: Archive| {
        let generation_now = next_generation();
        let Archive { name, bytes, started } = archive;
        state.set(LoadState::Reading(name.clone()));
        app.loaded.set(None);
        spawn_local(async move {
            // Let the "Reading" line paint before the (synchronous) unzip.
            browser::yield_now().await;
            let mut phases = Phases::default();
            phases.end("read", started);
            let restored = matches!(bytes, ArchiveBytes::Restored { .. });
            let cancelled = move || generation.get_value() != generation_now;
            // Whether the cache was looked up already (with the archive unpacked while the pool parsed).
            let mut looked_up = false;
            // When the indexing began, if the workers indexed while they unpacked.
            let mut indexed_since = None;
            // The sources only: the index needs nothing else, and the rest is unpacked once it is ready.
            let (repo, rest, key, cached, indexed) = match bytes {
                ArchiveBytes::Chosen(bytes, archive) => {
                    let mut unpacker = match load::open_zip(bytes) {
                        Ok(unpacker) => unpacker,
                        Err(e) => return state.set(LoadState::Failed(format!("{name}: {e}"))),
                    };
                    if unpacker.declared_source_bytes() >= index_pool::MIN_POOL_BYTES as u64 {
                        // Large: unpacked and parsed in the workers (crate::unpack_parse).
                        let workers = index_pool::worker_count();
                        let progress = indexing_progress(&name, workers, state);
                        indexed_since = Some(browser::now());
                        match unpack_and_parse(&mut unpacker, archive, workers, &cancelled, &progress).await {
                            Ok(Unpacked { repo, key, sources_at, looked_up_at, indexed }) => {
                                // The hash ends first: the workers unpack and parse meanwhile, and the page
                                // then enters their files ("sources").
                                phases.end_at("hash", started, looked_up_at);
                                phases.end_at("sources", started, sources_at);
                                looked_up = true;
                                let indexed = match indexed {
                                    Indexed::Parsed(parsed) => match parsed_index(parsed, &repo, workers) {
                                        Ok(indexed) => Some(indexed),
                                        Err(e) => return state.set(LoadState::Failed(format!("{name}: {e}"))),
                                    },
                                    Indexed::Cached(index) => Some((index, Origin::Cache, None)),
                                    Indexed::Unindexed(why) => {
                                        web_sys::console::warn_1(&format!("indexing the sources again: {why}").into());
                                        indexed_since = None;
                                        None
                                    }
                                };
                                (repo, Rest::Unpack(unpacker), key, None, indexed)
                            }
                            Err(PoolError::Cancelled) => return,
                            Err(e) => return state.set(LoadState::Failed(format!("{name}: {e}"))),
                        }
                    } else {
                        let repo = unpacker.sources();
                        phases.end("sources", started);
                        let key = index_cache::hash(archive).await;
                        phases.end("hash", started);
                        (repo, Rest::Unpack(unpacker), key, None, None)
                    }
                }
                ArchiveBytes::Restored { sources, key, cached } => match load::open_sources_archive(sources) {
                    Ok(repo) => {
                        phases.end("sources", started);
                        (repo, Rest::Remembered, Some(key), Some(cached), None)
                    }
                    Err(e) => {
                        return forget(
                            generation_now,
                            &name,
                            &format!("the stored copy of its sources is unreadable ({e})"),
                        );
                    }
                },
            };
            let indexing = indexed_since.unwrap_or_else(browser::now);
            let indexed = match indexed {
                Some(indexed) => Some(indexed),
                None => {
                    let key = if looked_up { None } else { key.as_deref() };
                    index_repo(&name, &repo, CacheKey { key, cached }, &cancelled, state).await
                }
            };
            let Some((index, origin, parsed)) = indexed else {
                return;
            };
            if cancelled() {
                return;
            }
            phases.end(if origin == Origin::Cache { "cache" } else { "parse" }, started);
            ready(name.clone(), repo, index, Timing { started, indexing, phases }, origin, restored, None);
            if let (Some(key), Some(parsed)) = (&key, parsed) {
                index_cache::store(key, &parsed).await;
            }
            match rest {
                Rest::Unpack(mut unpacker) => {
                    let Some(rest) = load::unpack_rest(&mut unpacker, &cancelled).await else { return };
                    if cancelled() {
                        return;
                    }
                    complete(Completion::Absorb(rest), started);
                    // Remembered only once loaded: an archive that crashes the tab is not loaded again by the next
                    // reload.
                    if let (Some(key), Ok(sources)) = (key, unpacker.sources_archive()) {
                        index_cache::remember(&name, &key, &unpacker.into_bytes(), &sources).await;
                    }
                }
                Rest::Remembered => {
                    let Some(whole) = index_cache::archive().await else {
                        return forget(generation_now, &name, "the stored copy of the archive is missing");
                    };
                    let mut unpacker = match load::open_zip(whole) {
                        Ok(unpacker) => unpacker,
                        Err(e) => {
                            return forget(
                                generation_now,
                                &name,
                                &format!("the stored copy of the archive is unreadable ({e})"),
                            );
                        }
                    };
                    let mut whole = unpacker.sources();
                    let same = app
                        .loaded
                        .with_untracked(|l| l.as_ref().is_some_and(|l| l.repo.source_files().eq(whole.source_files())));
                    if cancelled() {
                        return;
                    }
                    if !same {
                        return forget(
                            generation_now,
                            &name,
                            "the stored copies of the archive and of its sources differ",
                        );
                    }
                    let Some(rest) = load::unpack_rest(&mut unpacker, &cancelled).await else { return };
                    if cancelled() {
                        return;
                    }
                    whole.absorb(rest);
                    complete(Completion::Replace(whole), started);
                }
            }
        });
    };

    let load_file = move |file: web_sys::File| {
        let name = file.name();
        state.set(LoadState::Reading(name.clone()));
        app.loaded.set(None);
        let started = browser::now();
        spawn_local(async move {
            match load::read_file_js(&file).await {
                Ok(archive) => {
                    let bytes = ArchiveBytes::Chosen(archive.to_vec(), archive);
                    load_archive(Archive { name, bytes, started })
                }
                Err(e) => state.set(LoadState::Failed(format!("{name}: {e}"))),
            }
        });
    };

    // The archive of the last session, if nothing has been loaded meanwhile.
    spawn_local(async move {
        let Some(last) = index_cache::restore().await else {
            // Nothing to restore: warm the code up while the user picks a file.
            return crate::warm::warm_up(move || generation.get_value() != 0).await;
        };
        if generation.get_value() == 0 && app.loaded.with_untracked(Option::is_none) {
            // Timed from the navigation's start: the reload is what the user waits for.
            let bytes = ArchiveBytes::Restored { sources: last.sources, key: last.key, cached: last.index };
            load_archive(Archive { name: last.name, bytes, started: 0.0 });
        }
    });

    let on_zip = move |ev: leptos::ev::Event| {
        let input: HtmlInputElement = event_target(&ev);
        if let Some(file) = input.files().and_then(|f| f.get(0)) {
            load_file(file);
        }
        // Choosing the same file again should load it again.
        input.set_value("");
    };
    let on_drop = move |ev: leptos::ev::DragEvent| {
        ev.prevent_default();
        dragging.set(false);
        match ev.data_transfer().and_then(|d| d.files()).and_then(|f| f.get(0)) {
            Some(file) => load_file(file),
            None => state.set(LoadState::Failed("Nothing was dropped: drop a .zip file of the repository.".into())),
        }
    };
    let on_demo = move |demo: &'static Demo| {
        let generation_now = next_generation();
        app.loaded.set(None);
        let started = browser::now();
        spawn_local(async move {
            let repo = Repo::from_files(demo.files.iter().copied());
            let cancelled = move || generation.get_value() != generation_now;
            let cache = CacheKey { key: None, cached: None };
            if let Some((index, origin, _)) = index_repo(demo.name, &repo, cache, &cancelled, state).await {
                let timing = Timing { started, indexing: started, phases: Phases::default() };
                ready(demo.name.into(), repo, index, timing, origin, false, Some(demo));
            }
        });
    };

    view! {
        <div class="dropzone" class:dragging=move || dragging.get()
            on:dragover=move |ev: leptos::ev::DragEvent| { ev.prevent_default(); dragging.set(true); }
            on:dragleave=move |_| dragging.set(false)
            on:drop=on_drop>
            <p class="muted small">"Drop a repository .zip here (GitHub's “Download ZIP” works), or:"</p>
            <div class="row">
                <label class="button" for="zip-input">"Choose a .zip…"</label>
                <input id="zip-input" class="visually-hidden" type="file" accept=".zip,application/zip" on:change=on_zip />
                <button id="demo-button" class="secondary" on:click=move |_| on_demo(&demo::PYTHON)>
                    "Use the demo repository"
                </button>
                <button id="demo-java-button" class="secondary" on:click=move |_| on_demo(&demo::JAVA)>
                    "Java demo"
                </button>
            </div>
        </div>
        <StateView state=state generation=generation />
        <FileTree />
        <CacheSettings />
    }
}

/// The index cache's line: what it holds, its limit, and a button that empties it.
#[component]
fn CacheSettings() -> impl IntoView {
    let usage = RwSignal::new(None::<(u32, f64, f64)>);
    let refresh = move || spawn_local(async move { usage.set(index_cache::usage().await) });
    let on_clear = move |_| {
        spawn_local(async move {
            index_cache::clear().await;
            usage.set(index_cache::usage().await);
        })
    };
    view! {
        <details class="skipped" id="index-cache" on:toggle=move |_| refresh()>
            <summary>"Index cache"</summary>
            <p class="muted small">
                "Indexes of large repositories are kept in this browser (IndexedDB), under a hash of the zip, with the "
                "last zip loaded: loading the same zip again, or reloading the page, skips the parse. The oldest "
                "entries are dropped beyond the limit; nothing stored is trusted without checking it against the zip."
            </p>
            <p class="small" id="index-cache-usage">{move || match usage.get() {
                Some((entries, bytes, limit)) => format!(
                    "{entries} indexes, {:.1} MiB stored (limit {:.0} MiB).",
                    bytes / f64::from(1 << 20),
                    limit / f64::from(1 << 20)
                ),
                None => "No cache in this browser.".to_string(),
            }}</p>
            <button id="clear-index-cache" class="secondary small" on:click=on_clear>"Clear the cache"</button>
        </details>
    }
}

/// Where an archive's index may be cached: its key, and its entry when it was read ahead (a restore).
struct CacheKey<'a> {
    key: Option<&'a str>,
    cached: Option<wasm_bindgen::JsValue>,
}

/// Indexes a repository: from the cache when it holds this archive, in the worker pool when it is large, on the
/// page's thread otherwise. `None` when cancelled or failed (then the state says why). Files parsed in the pool
/// come back too, for the cache.
async fn index_repo(
    name: &str,
    repo: &Repo,
    cache: CacheKey<'_>,
    cancelled: &dyn Fn() -> bool,
    state: RwSignal<LoadState>,
) -> Option<(acr_core::Index, Origin, Option<Vec<u8>>)> {
    let cached = match (&cache.cached, cache.key) {
        (Some(entry), _) => index_cache::index_from(entry, repo),
        (None, Some(key)) => index_cache::lookup(key, repo).await,
        (None, None) => None,
    };
    if let Some(index) = cached {
        return Some((index, Origin::Cache, None));
    }
    if load::source_bytes(repo) >= index_pool::MIN_POOL_BYTES {
        let workers = index_pool::worker_count();
        let feed = Feed::of(repo);
        match index_pool::parse_in_workers(&feed, workers, cancelled, &indexing_progress(name, workers, state)).await {
            Ok(parsed) => match parsed_index(parsed, repo, workers) {
                Ok(indexed) => return Some(indexed),
                Err(e) => {
                    state.set(LoadState::Failed(format!("{name}: {e}")));
                    return None;
                }
            },
            Err(PoolError::Cancelled) => return None,
            Err(PoolError::Unavailable(why)) => {
                web_sys::console::warn_1(&format!("indexing on the page's thread: {why}").into());
            }
            Err(e @ PoolError::Failed(_)) => {
                state.set(LoadState::Failed(format!("{name}: {e}")));
                return None;
            }
        }
    }
    let index = load::index_with_progress(repo, cancelled, indexing_progress(name, 0, state)).await?;
    Some((index, Origin::Page, None))
}

/// The progress of an indexing by `workers` workers (0: the page's thread), shown as the load's state.
fn indexing_progress(name: &str, workers: usize, state: RwSignal<LoadState>) -> impl Fn(usize, usize) + use<> {
    let name = name.to_string();
    move |done, total| state.set(LoadState::Indexing { name: name.clone(), done, total, workers })
}

/// The index of files the pool parsed, with their binary form for the cache; an error if they are not exactly the
/// repository's sources.
fn parsed_index(
    parsed: Vec<ParsedFile>,
    repo: &Repo,
    workers: usize,
) -> Result<(acr_core::Index, Origin, Option<Vec<u8>>), PoolError> {
    if !index_cache::matches_sources(&parsed, repo) {
        return Err(PoolError::Failed("the parsed files are not the repository's sources".into()));
    }
    let bytes = acr_core::index::encode_parsed(&parsed);
    Ok((acr_core::Index::from_parsed(parsed), Origin::Workers(workers), Some(bytes)))
}

#[component]
fn StateView(state: RwSignal<LoadState>, generation: StoredValue<u64>) -> impl IntoView {
    // Cancel starts an empty generation: the load in progress sees it and stops.
    let on_cancel = move |_| {
        generation.update_value(|g| *g += 1);
        if let LoadState::Indexing { name, .. } = state.get_untracked() {
            state.set(LoadState::Cancelled(name));
        }
    };
    move || {
        match state.get() {
        LoadState::Idle => {
            view! { <p class="muted small">"Nothing loaded yet. Everything stays in this tab: files are never uploaded."</p> }
                .into_any()
        }
        LoadState::Reading(name) => view! {
            <p id="status">"Reading " {name} "…"</p>
            <progress id="progress"></progress>
        }
        .into_any(),
        LoadState::Indexing { name, done, total, workers } => view! {
            <p id="status" data-workers=workers>
                "Indexing " {name} ": " {done} " / " {total} " files"
                <span class="muted small">{(workers > 0).then(|| format!(" ({workers} workers)"))}</span>
                " " <button id="cancel-load" class="secondary small" on:click=on_cancel>"Cancel"</button>
            </p>
            <progress id="progress" max=total value=done></progress>
        }
        .into_any(),
        LoadState::Cancelled(name) => view! { <p id="status" class="muted">"Loading " {name} " was cancelled."</p> }.into_any(),
        LoadState::Failed(message) => view! { <p id="error" class="error" role="alert">{message}</p> }.into_any(),
        LoadState::Ready {
            name, stats, languages, skipped, broken, ms, index_ms, origin, restored, phases, complete_ms
        } => view! {
            <p id="status" data-ms=format!("{ms:.1}") data-index-ms=format!("{index_ms:.1}")
                data-origin=format!("{origin:?}") data-restored=restored.to_string() data-phases=phases.to_string()
                data-complete-ms=complete_ms.map(|ms| format!("{ms:.1}"))
                title=format!("{phases} (ms)")>
                {if restored { "Restored " } else { "Loaded " }} {name} " in " {format!("{ms:.0}")} " ms"
                <span class="muted small">{match origin {
                    Origin::Page => format!(" (indexing {index_ms:.0} ms)"),
                    Origin::Workers(n) => format!(" (indexing {index_ms:.0} ms in {n} workers)"),
                    Origin::Cache => " (index from the cache: nothing parsed again)".to_string(),
                }}</span>
                <span class="muted small" id="unpacking">{match complete_ms {
                    None => "; unpacking the files that are not sources…".to_string(),
                    Some(all) if all > ms => format!("; every file unpacked at {all:.0} ms"),
                    Some(_) => String::new(),
                }}</span>
            </p>
            <progress id="progress" max=stats.files value=stats.files></progress>
            <dl class="stats" id="stats">
                <dt>"files"</dt><dd id="stat-files">{stats.files}</dd>
                <dt>"classes"</dt><dd id="stat-classes">{stats.classes}</dd>
                <dt>"methods"</dt><dd id="stat-methods">{stats.methods}</dd>
                <dt>"functions"</dt><dd id="stat-functions">{stats.functions}</dd>
                <dt>"failed to parse"</dt><dd id="stat-errors">{stats.with_errors}</dd>
            </dl>
            <p class="muted small">"Files by language: " <span id="stat-languages">{languages}</span></p>
            <SkippedList skipped=skipped />
            {(!broken.is_empty()).then(|| view! {
                <details class="skipped" id="parse-errors">
                    <summary>{broken.len()} " with syntax errors (what parsed is still indexed)"</summary>
                    <ul>{broken.into_iter().map(|p| view! { <li><code>{p}</code></li> }).collect_view()}</ul>
                </details>
            })}
        }
        .into_any(),
    }
    }
}

#[component]
fn SkippedList(skipped: Vec<SkippedFile>) -> impl IntoView {
    (!skipped.is_empty()).then(|| {
        view! {
            <details class="skipped" id="skipped">
                <summary>{skipped.len()} " files skipped"</summary>
                <ul>
                    {skipped.into_iter().map(|s| view! { <li><code>{visible(&s.path)}</code> ": " {s.reason.to_string()}</li> }).collect_view()}
                </ul>
            </details>
        }
    })
}

/// A path as it can be shown on one line: control characters (a newline in a hostile name) written as escapes.
fn visible(path: &str) -> String {
    path.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect()
}
