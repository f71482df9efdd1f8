//! The load's state machine: what the loader is doing (nothing, reading an archive, indexing it, showing it, or
//! why it stopped), and the one place where that changes ([`LoadState::next`]). Pure: the loader
//! ([`crate::loader`]) sends it events, the load card ([`crate::load_status_view`]) shows its states.

use std::fmt;

use acr_core::index::{Index, IndexStats};
use acr_core::repo::{Repo, SkippedFile};

/// Where a loaded index came from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Origin {
    /// Parsed on the page's thread.
    Page,
    /// Parsed by this many workers.
    Workers(usize),
    /// Read from the index cache.
    Cache,
}

/// How long each step of a load took (ms), in order: shown on the status line (`data-phases`) for benchmarks.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Phases(Vec<(&'static str, f64)>);

impl Phases {
    /// Records that the step `name` ended now; it began where the previous one ended (or at `start`).
    pub fn end(&mut self, name: &'static str, start: f64) {
        self.end_at(name, start, crate::browser::now());
    }

    /// Records that the step `name` ended at `at` (the page's clock).
    pub fn end_at(&mut self, name: &'static str, start: f64, at: f64) {
        let since = start + self.0.iter().map(|(_, ms)| ms).sum::<f64>();
        self.0.push((name, at - since));
    }
}

impl fmt::Display for Phases {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (name, ms)) in self.0.iter().enumerate() {
            write!(f, "{}{name} {ms:.0}", if i == 0 { "" } else { ", " })?;
        }
        Ok(())
    }
}

/// When a load started, when its indexing started, and its steps so far (the page's clock, ms).
pub struct Timing {
    /// When the user chose the archive (or the page started, for a restored one).
    pub started: f64,
    /// When its indexing began.
    pub indexing: f64,
    /// Its steps so far.
    pub phases: Phases,
}

/// Where a loaded repository came from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Provenance {
    /// Where its index came from.
    pub origin: Origin,
    /// Whether it was loaded again from the last session.
    pub restored: bool,
    /// Whether it holds every file already (a demo repository; a zip's other files are unpacked after).
    pub complete: bool,
}

/// What the load card shows of a loaded repository.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// The archive's name.
    pub name: String,
    /// Its counts.
    pub stats: IndexStats,
    /// Files per language, as `Python 12, Java 3`.
    pub languages: String,
    /// The files left out, and why.
    pub skipped: Vec<SkippedFile>,
    /// The files with syntax errors.
    pub broken: Vec<String>,
    /// How long the load took, in ms.
    pub ms: f64,
    /// How long its indexing took, in ms.
    pub index_ms: f64,
    /// Where its index came from.
    pub origin: Origin,
    /// Whether it was loaded again from the last session.
    pub restored: bool,
    /// How long each step of the load took.
    pub phases: Phases,
    /// When the files that are not sources were unpacked too, in ms from the start (`None` while they are).
    pub complete_ms: Option<f64>,
}

impl Summary {
    /// The summary of a repository just indexed. `clock` is the page's: read once for the load's duration, and
    /// again once the counts are made (the step "tables").
    pub fn new(
        name: String,
        repo: &Repo,
        index: &Index,
        provenance: Provenance,
        timing: Timing,
        clock: &dyn Fn() -> f64,
    ) -> Summary {
        let Timing { started, indexing, mut phases } = timing;
        let done = clock();
        let (ms, index_ms) = (done - started, done - indexing);
        let broken = index.files.iter().filter(|f| f.has_error).map(|f| f.path.clone()).collect();
        let skipped = repo.skipped().to_vec();
        let stats = index.stats();
        let languages = index.languages_summary();
        phases.end_at("tables", started, clock());
        let Provenance { origin, restored, complete } = provenance;
        let complete_ms = complete.then_some(ms);
        Summary { name, stats, languages, skipped, broken, ms, index_ms, origin, restored, phases, complete_ms }
    }

    /// The status line's first word.
    pub fn verb(&self) -> &'static str {
        if self.restored { "Restored " } else { "Loaded " }
    }

    /// How the index was made, after the load's duration.
    pub fn origin_note(&self) -> String {
        let index_ms = self.index_ms;
        match self.origin {
            Origin::Page => format!(" (indexing {index_ms:.0} ms)"),
            Origin::Workers(n) => format!(" (indexing {index_ms:.0} ms in {n} workers)"),
            Origin::Cache => " (index from the cache: nothing parsed again)".to_string(),
        }
    }

    /// Whether the files that are not sources are unpacked yet, and when they were if that was after the load.
    pub fn unpacking_note(&self) -> String {
        match self.complete_ms {
            None => "; unpacking the files that are not sources…".to_string(),
            Some(all) if all > self.ms => format!("; every file unpacked at {all:.0} ms"),
            Some(_) => String::new(),
        }
    }
}

/// What the loader is doing.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum LoadState {
    /// Nothing loaded yet.
    #[default]
    Idle,
    /// Reading and unpacking the named archive.
    Reading(String),
    /// Indexing the named archive's sources.
    Indexing {
        /// The archive's name.
        name: String,
        /// Files indexed so far.
        done: usize,
        /// Files to index.
        total: usize,
        /// Workers indexing (0: the page's thread).
        workers: usize,
    },
    /// Loaded and indexed.
    Ready(Box<Summary>),
    /// The user cancelled the named archive's load.
    Cancelled(String),
    /// The load failed: why.
    Failed(String),
}

/// What happened to the load.
#[derive(Clone, Debug, PartialEq)]
pub enum LoadEvent {
    /// A load began with the named archive.
    Started(String),
    /// Indexing went on.
    Progress {
        /// The archive's name.
        name: String,
        /// Files indexed so far.
        done: usize,
        /// Files to index.
        total: usize,
        /// Workers indexing (0: the page's thread).
        workers: usize,
    },
    /// The user cancelled.
    Cancel,
    /// The load failed: why.
    Failed(String),
    /// The sources are indexed.
    Indexed(Summary),
    /// The files that are not sources are unpacked too: the files skipped among all of them, and when (ms from
    /// the start).
    Completed {
        /// Every file skipped.
        skipped: Vec<SkippedFile>,
        /// When, in ms from the load's start.
        ms: f64,
    },
}

impl LoadEvent {
    /// The load of the archive `name` failed, because of `why`.
    pub fn failure(name: &str, why: impl fmt::Display) -> LoadEvent {
        LoadEvent::Failed(format!("{name}: {why}"))
    }
}

impl LoadState {
    /// The state after `event`. Only an indexing can be cancelled, and only a loaded repository completed.
    pub fn next(self, event: LoadEvent) -> LoadState {
        match (self, event) {
            (_, LoadEvent::Started(name)) => LoadState::Reading(name),
            (_, LoadEvent::Progress { name, done, total, workers }) => {
                LoadState::Indexing { name, done, total, workers }
            }
            (LoadState::Indexing { name, .. }, LoadEvent::Cancel) => LoadState::Cancelled(name),
            (_, LoadEvent::Failed(message)) => LoadState::Failed(message),
            (_, LoadEvent::Indexed(summary)) => LoadState::Ready(Box::new(summary)),
            (LoadState::Ready(mut summary), LoadEvent::Completed { skipped, ms }) => {
                summary.skipped = skipped;
                summary.complete_ms = Some(ms);
                LoadState::Ready(summary)
            }
            (state, LoadEvent::Cancel | LoadEvent::Completed { .. }) => state,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use acr_core::index::IndexBuilder;

    use super::*;

    /// A clock that reads 100, then 110.
    fn clock() -> impl Fn() -> f64 {
        let reads = Cell::new(0.0);
        move || {
            reads.set(reads.get() + 1.0);
            90.0 + 10.0 * reads.get()
        }
    }

    fn summary(complete: bool) -> Summary {
        let repo = Repo::from_files([("a.py", "class A:\n    def f(self): pass\n"), ("b.py", "def (:\n")]);
        let mut builder = IndexBuilder::new();
        for (path, text) in repo.source_files() {
            builder.add_file(path, text);
        }
        let index = builder.finish();
        let mut phases = Phases::default();
        phases.end_at("read", 20.0, 30.0);
        let timing = Timing { started: 20.0, indexing: 40.0, phases };
        let provenance = Provenance { origin: Origin::Workers(2), restored: false, complete };
        Summary::new("r.zip".into(), &repo, &index, provenance, timing, &clock())
    }

    fn indexing(name: &str) -> LoadState {
        LoadState::Idle.next(LoadEvent::Progress { name: name.into(), done: 1, total: 2, workers: 0 })
    }

    #[test]
    fn a_summary_counts_and_times_the_load() {
        let s = summary(false);
        assert_eq!((s.stats.files, s.stats.classes, s.stats.methods, s.stats.with_errors), (2, 1, 1, 1));
        assert_eq!(s.broken, ["b.py"]);
        assert_eq!((s.ms, s.index_ms, s.complete_ms), (80.0, 60.0, None));
        assert_eq!(s.phases.to_string(), "read 10, tables 80");
        assert_eq!(s.verb(), "Loaded ");
        assert_eq!(s.origin_note(), " (indexing 60 ms in 2 workers)");
        assert_eq!(s.unpacking_note(), "; unpacking the files that are not sources…");
        // A demo repository is complete when it is indexed.
        assert_eq!(summary(true).complete_ms, Some(80.0));
        assert_eq!(summary(true).unpacking_note(), "");
    }

    #[test]
    fn notes_say_where_the_index_came_from() {
        let mut s = summary(false);
        s.origin = Origin::Page;
        assert_eq!(s.origin_note(), " (indexing 60 ms)");
        s.origin = Origin::Cache;
        assert_eq!(s.origin_note(), " (index from the cache: nothing parsed again)");
        s.restored = true;
        assert_eq!(s.verb(), "Restored ");
    }

    #[test]
    fn a_load_goes_from_reading_to_indexing_to_ready_and_complete() {
        let state = LoadState::default().next(LoadEvent::Started("r.zip".into()));
        assert_eq!(state, LoadState::Reading("r.zip".into()));
        let state = state.next(LoadEvent::Progress { name: "r.zip".into(), done: 3, total: 9, workers: 2 });
        assert_eq!(state, LoadState::Indexing { name: "r.zip".into(), done: 3, total: 9, workers: 2 });
        let state = state.next(LoadEvent::Indexed(summary(false)));
        let skipped = vec![SkippedFile { path: "big.bin".into(), reason: acr_core::repo::SkipReason::Binary }];
        let LoadState::Ready(ready) = state.next(LoadEvent::Completed { skipped: skipped.clone(), ms: 95.0 }) else {
            panic!("not ready");
        };
        assert_eq!((&ready.skipped, ready.complete_ms), (&skipped, Some(95.0)));
        assert_eq!(ready.unpacking_note(), "; every file unpacked at 95 ms");
    }

    #[test]
    fn only_an_indexing_is_cancelled() {
        assert_eq!(indexing("r.zip").next(LoadEvent::Cancel), LoadState::Cancelled("r.zip".into()));
        let reading = LoadState::Reading("r.zip".into());
        assert_eq!(reading.clone().next(LoadEvent::Cancel), reading);
        assert_eq!(LoadState::Idle.next(LoadEvent::Cancel), LoadState::Idle);
    }

    #[test]
    fn only_a_loaded_repository_is_completed() {
        let completed = LoadEvent::Completed { skipped: Vec::new(), ms: 1.0 };
        assert_eq!(indexing("r.zip").next(completed.clone()), indexing("r.zip"));
        let failed = LoadState::Failed("no".into());
        assert_eq!(failed.clone().next(completed), failed);
    }

    #[test]
    fn any_load_can_fail_or_start_again() {
        let failed = indexing("r.zip").next(LoadEvent::failure("r.zip", "not a zip"));
        assert_eq!(failed, LoadState::Failed("r.zip: not a zip".into()));
        assert_eq!(failed.next(LoadEvent::Started("s.zip".into())), LoadState::Reading("s.zip".into()));
    }
}
