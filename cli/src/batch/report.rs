//! The tasks' board (each task's record and the counts) and `OUT/batch.json`, its view on disk.
//!
//! batch.json is not rewritten for every change: while the batch runs it is a short summary (the settings, the
//! counts, the spend, the progress; no task list) written at most every [`EVERY`], and when the batch ends it is
//! written once more whole, with every task's record. A task's every change is a line of the journal instead
//! (`journal.jsonl`), so what a batch writes grows with the number of tasks, not with its square.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use acr_core::agent::Mode;
use acr_core::llm::Usage;
use acr_core::llm::budget::Budget;
use serde::Serialize;

use super::files;
use super::journal::Spending;
use super::record::{Record, Status};

/// The shortest time between two writes of the summary while the batch runs.
pub const EVERY: Duration = Duration::from_secs(2);

/// How many tasks stand where.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Tasks of the list (of the shard).
    pub total: usize,
    /// Tasks this invocation runs.
    pub to_run: usize,
    /// Of those, ended.
    pub ended: usize,
    /// Done (with or without a patch).
    pub done: usize,
    /// Done with a patch.
    pub patches: usize,
    /// Failed.
    pub failed: usize,
    /// Stopped.
    pub stopped: usize,
    /// Not run.
    pub not_run: usize,
    /// Running now.
    pub running: usize,
    /// Not started yet.
    pub pending: usize,
}

/// Every task's record, and what this invocation has run of them.
pub struct Board {
    records: Vec<Record>,
    position: HashMap<String, usize>,
    to_run: usize,
    ended: usize,
    started: Instant,
    /// Changed since the summary was last written.
    dirty: bool,
}

impl Board {
    /// A board of `records` (one per task, in list order) of which `to_run` run now.
    pub fn new(records: Vec<Record>, to_run: usize) -> Board {
        let position = records.iter().enumerate().map(|(n, r)| (r.instance_id.clone(), n)).collect();
        Board { records, position, to_run, ended: 0, started: Instant::now(), dirty: true }
    }

    /// Records a task's new state; `ended` when it is the end of its run in this invocation.
    pub fn set(&mut self, record: Record, ended: bool) {
        let Some(&n) = self.position.get(&record.instance_id) else { return };
        self.ended += usize::from(ended);
        self.records[n] = record;
        self.dirty = true;
    }

    /// The records, in list order.
    pub fn records(&self) -> &[Record] {
        &self.records
    }

    /// The counts.
    pub fn counts(&self) -> Counts {
        let mut c = Counts { total: self.records.len(), to_run: self.to_run, ended: self.ended, ..Counts::default() };
        for r in &self.records {
            match r.status {
                Status::Done => {
                    c.done += 1;
                    c.patches += usize::from(r.patch);
                }
                Status::Failed => c.failed += 1,
                Status::Stopped => c.stopped += 1,
                Status::NotRun => c.not_run += 1,
                Status::Running => c.running += 1,
                Status::Pending => c.pending += 1,
            }
        }
        c
    }

    /// Seconds since this invocation started.
    pub fn elapsed(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    /// Seconds left, at the pace of the tasks ended so far.
    pub fn left(&self) -> Option<f64> {
        let left = self.to_run - self.ended;
        (self.ended > 0 && left > 0).then(|| self.elapsed() / self.ended as f64 * left as f64)
    }

    /// Whether something changed since the last call, and clears it.
    pub fn take_dirty(&mut self) -> bool {
        std::mem::take(&mut self.dirty)
    }
}

/// The settings batch.json names.
#[derive(Serialize)]
pub struct Settings<'a> {
    /// `--tasks`.
    pub tasks_file: Option<&'a Path>,
    /// `--repos`.
    pub repos: &'a Path,
    /// `--shard`.
    pub shard: Option<String>,
    /// `--model`.
    pub model: &'a str,
    /// In the predictions.
    pub model_name_or_path: &'a str,
    /// `--mode`.
    pub mode: Mode,
    /// `--workers`.
    pub workers: u16,
    /// Each task's own budget.
    pub task_budget: Budget,
    /// The batch's.
    pub batch_budget: Budget,
}

/// What the batch spent, as batch.json shows it.
#[derive(Serialize)]
pub struct Spent {
    /// Model calls.
    pub calls: u64,
    /// Tokens.
    pub usage: Usage,
    /// Dollars, when the model has a price.
    pub cost: Option<f64>,
    /// Seconds.
    pub seconds: f64,
}

impl Spent {
    /// `spending` over `seconds`, its dollars shown when `priced`.
    pub fn of(spending: Spending, seconds: f64, priced: bool) -> Spent {
        Spent { calls: spending.calls, usage: spending.usage, cost: priced.then_some(spending.cost), seconds }
    }
}

/// batch.json, its fields in this order.
#[derive(Serialize)]
pub struct Summary<'a> {
    /// The settings.
    #[serde(flatten)]
    pub settings: &'a Settings<'a>,
    /// Whether this invocation has ended (when it has, `tasks` lists every task).
    pub finished: bool,
    /// The counts.
    #[serde(flatten)]
    pub counts: Counts,
    /// Seconds left, at the pace so far.
    pub seconds_left: Option<f64>,
    /// Why tasks stopped being started (the model server refused the key or the model, or failed too long).
    pub halted: Option<&'a str>,
    /// What the batch is waiting for, while it waits for the model server.
    pub waiting: Option<&'a str>,
    /// What the batch budget counts: calls, tokens and dollars over every invocation on this folder; the seconds
    /// of this invocation (the time limit is each invocation's own).
    pub spent: Spent,
    /// What this invocation used.
    pub spent_this_run: Spent,
    /// What the tasks listed used, earlier invocations included.
    pub spent_by_tasks: Spent,
    /// Every task's record, once the invocation has ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tasks: Option<&'a [Record]>,
}

/// What the tasks' records add up to.
pub fn by_tasks(records: &[Record], priced: bool) -> Spent {
    let mut spent = Spent { calls: 0, usage: Usage::default(), cost: priced.then_some(0.0), seconds: 0.0 };
    for r in records {
        spent.calls += r.model_calls;
        spent.usage += r.usage;
        spent.cost = spent.cost.map(|c| c + r.cost.unwrap_or(0.0));
        spent.seconds += r.seconds;
    }
    spent
}

/// Writes batch.json and counts what it wrote.
pub struct Writer {
    path: PathBuf,
    last: Mutex<Option<Instant>>,
    bytes: AtomicU64,
    writes: AtomicU64,
}

impl Writer {
    /// A writer of `path`.
    pub fn new(path: PathBuf) -> Writer {
        Writer { path, last: Mutex::new(None), bytes: AtomicU64::new(0), writes: AtomicU64::new(0) }
    }

    /// Whether a summary is due: none was written in the last [`EVERY`].
    pub fn due(&self) -> bool {
        self.last.lock().unwrap_or_else(std::sync::PoisonError::into_inner).is_none_or(|t| t.elapsed() >= EVERY)
    }

    /// Writes `summary` whole.
    pub fn write(&self, summary: &Summary) -> anyhow::Result<()> {
        let json = serde_json::to_string_pretty(summary)?;
        files::replace(&self.path, json.as_bytes())?;
        *self.last.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Instant::now());
        self.bytes.fetch_add(json.len() as u64, Ordering::Relaxed);
        self.writes.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Writes so far, and their bytes.
    pub fn written(&self) -> (u64, u64) {
        (self.writes.load(Ordering::Relaxed), self.bytes.load(Ordering::Relaxed))
    }
}
