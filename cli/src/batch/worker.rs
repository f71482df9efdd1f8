//! What the workers share and what each does: take the next task, check it out, repair it as `acr run` would, and
//! record how it ended.

use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use acr_core::agent::Stop;
use acr_core::llm::price::Price;
use acr_core::llm::stream::Partial;
use anyhow::Context;

use super::envs::Envs;
use super::health::Health;
use super::journal::{Entry, Journal};
use super::predictions::{self, Prediction};
use super::progress::{self, Progress, View};
use super::record::{Record, Status};
use super::report::{self, Board, Settings, Spent, Summary};
use super::shared::{BatchBudget, Gate};
use super::tasks::Task;
use super::{BatchOptions, checkout, tasks};
use crate::run::{self, RunArgs};

/// Why no more tasks start, and the exit code it gives.
#[derive(Debug, Clone)]
pub struct Halt {
    /// In words.
    pub why: String,
    /// The exit code: 2, the server refused the key or the model (running again will not help).
    pub code: u8,
}

/// What every worker shares.
pub struct Batch<'a> {
    pub options: &'a BatchOptions,
    pub run_args: RunArgs,
    pub price: Option<Price>,
    pub repos: PathBuf,
    pub out: PathBuf,
    pub scratch: PathBuf,
    pub model_name: String,
    pub envs: Option<Envs>,
    pub predictions: predictions::Journal,
    pub journal: Arc<Journal>,
    pub budget: Arc<BatchBudget>,
    pub health: Arc<Health>,
    pub stop: Arc<AtomicBool>,
    pub halt: Mutex<Option<Halt>>,
    pub board: Mutex<Board>,
    /// The tasks this invocation selected.
    pub selected: HashSet<String>,
    pub progress: Progress,
    pub writer: report::Writer,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Batch<'_> {
    /// Why no task may start now, if one may not.
    pub fn no_start(&self) -> Option<String> {
        if self.stop.load(Ordering::SeqCst) {
            return Some("stopped by Ctrl-C before it started".into());
        }
        if let Some(halt) = lock(&self.halt).as_ref() {
            return Some(halt.why.clone());
        }
        if let Some(why) = self.health.gave_up() {
            return Some(why);
        }
        self.budget.reached().map(|spent| format!("the batch budget is spent ({spent})"))
    }

    /// One worker: takes the next task of `queue` until none is left or none may start.
    pub fn work(&self, next: &AtomicUsize, queue: &[&Task]) {
        // Each worker has its own runners, one per interpreter (the core's futures stay on their thread).
        let mut runners: HashMap<Option<String>, Option<run::CliRunner>> = HashMap::new();
        while self.no_start().is_none() {
            let Some(task) = queue.get(next.fetch_add(1, Ordering::SeqCst)) else { break };
            let python = self.envs.as_ref().and_then(|e| e.python_for(task)).map(str::to_string);
            let runner = runners.entry(python.clone()).or_insert_with(|| self.runner(python));
            self.set(Record::new(&task.instance_id, Status::Running, ""), false);
            let started = Instant::now();
            // A task that panics fails alone; the batch goes on.
            let repaired =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.repair(task, runner.as_ref())));
            let mut record = match repaired {
                Ok(Ok(record)) => record,
                Ok(Err(e)) => Record::new(&task.instance_id, Status::Failed, format!("{e:#}")),
                Err(panic) => {
                    let what = panic
                        .downcast_ref::<&str>()
                        .map(ToString::to_string)
                        .or_else(|| panic.downcast_ref::<String>().cloned())
                        .unwrap_or_default();
                    Record::new(&task.instance_id, Status::Failed, format!("the repair panicked: {what}"))
                }
            };
            record.seconds = started.elapsed().as_secs_f64();
            self.set(record, true);
        }
    }

    /// The runner of a task whose environment is `python` (`None`: the one `--python` gives).
    fn runner(&self, python: Option<String>) -> Option<run::CliRunner> {
        let mut args = self.options.run_args();
        if python.is_some() {
            args.python = python;
        }
        run::runner_from(&args).unwrap_or_else(|e| {
            self.progress.line(&format!("acr batch: {e:#}"));
            None
        })
    }

    /// Repairs one task; writes its folder, and its prediction when it is done.
    fn repair(&self, task: &Task, runner: Option<&run::CliRunner>) -> anyhow::Result<Record> {
        let started = Instant::now();
        let out = self.out.join(&task.instance_id);
        if out.exists() {
            std::fs::remove_dir_all(&out).with_context(|| format!("cannot clear {}", out.display()))?;
        }
        let source = tasks::repository(&self.repos, &task.repo)?;
        let repo = {
            // A folder of this process's own: a git left running by a killed batch may still write in the last one.
            let dir = self.scratch.join(format!("{}.{}", task.instance_id, std::process::id()));
            let checkout = checkout::checkout(&source, &task.base_commit, &dir)?;
            // The repository is read into memory (the runner is given files, not a folder): the checkout goes now.
            crate::load::repo_from_dir(&checkout.dir)?
        };
        let refused = Rc::new(Cell::new(None));
        let model = Gate {
            inner: run::model_from(&self.run_args, &self.stop, self.options.repair.stream.then_some(|_: &Partial| {}))?,
            budget: self.budget.clone(),
            health: self.health.clone(),
            refused: refused.clone(),
            client_timeout_ms: self.run_args.timeout.saturating_mul(1000),
        };
        let config = run::config_from(&self.run_args);
        let budget = (self.run_args.budget, self.price);
        let repaired = run::repair(repo, &task.problem_statement, model, runner, config, budget, Some(&out), |_| {})?;
        let mut record = Record::new(&task.instance_id, Status::Done, "");
        record.model_calls = repaired.spent.calls;
        record.usage = repaired.spent.usage;
        record.cost = self.price.map(|_| repaired.spent.cost);
        let outcome = match repaired.result {
            Ok(outcome) => outcome,
            Err(e) => {
                record.status = Status::Failed;
                record.reason = format!("the run stopped: {e}");
                return Ok(record);
            }
        };
        record.outcome = Some(outcome.status.as_str().to_string());
        record.patch = outcome.status.is_applicable();
        if !record.patch {
            record.reason.clone_from(&outcome.reason);
        }
        if let Some(stop) = &outcome.stopped {
            (record.status, record.reason) = self.judge(stop, refused.get(), record.model_calls);
        }
        record.seconds = started.elapsed().as_secs_f64();
        super::files::replace(&out.join("record.json"), serde_json::to_string_pretty(&record)?.as_bytes())?;
        if record.status == Status::Done {
            let model_patch = if record.patch { outcome.diff } else { String::new() };
            let prediction = Prediction {
                instance_id: task.instance_id.clone(),
                model_name_or_path: self.model_name.clone(),
                model_patch,
            };
            self.predictions.append(&prediction)?;
        }
        Ok(record)
    }

    /// How a run that stopped early stands: done (it ended on its own budget), stopped (from outside: it runs again),
    /// or failed (the server refused this task's requests); the model server refusing the key or the model halts
    /// the batch.
    fn judge(&self, stop: &Stop, refused: Option<acr_core::llm::budget::Exhausted>, calls: u64) -> (Status, String) {
        match (stop, refused) {
            // The task's own budget: the run ended on its own.
            (Stop::Budget(e), None) => (Status::Done, e.to_string()),
            (Stop::Budget(_), Some(spent)) => {
                let status = if calls == 0 { Status::NotRun } else { Status::Stopped };
                (status, format!("the batch budget is spent ({spent})"))
            }
            (Stop::Cancelled, _) => (Status::Stopped, "stopped by Ctrl-C".into()),
            (Stop::KeyRefused(_) | Stop::ModelUnknown(_), _) => {
                let why = format!("not started: {stop}");
                lock(&self.halt).get_or_insert(Halt { why, code: 2 });
                (Status::Stopped, format!("stopped by the model server: {stop}"))
            }
            (Stop::Unreachable(_) | Stop::ServerError(_), _) if self.health.gave_up().is_some() => {
                (Status::Stopped, format!("stopped by the model server: {stop}"))
            }
            // The server answered other calls meanwhile: these requests are this task's trouble.
            (_, _) => (Status::Failed, format!("the model server refused this task's requests: {stop}")),
        }
    }

    /// Records a task's new state (`ended`: the end of its run in this invocation): the board, the journal, a line.
    pub fn set(&self, record: Record, ended: bool) {
        self.journal.note(&Entry::Task(record.clone()));
        let mut board = lock(&self.board);
        let id = record.instance_id.clone();
        let line = if ended {
            let done = record.clone();
            board.set(record, true);
            progress::ended(&done, &self.view(&board))
        } else {
            board.set(record, false);
            progress::started(&id, board.counts().running)
        };
        let view = self.view(&board);
        drop(board);
        self.progress.line(&line);
        self.progress.show(&view);
    }

    /// Records a task's state on the board alone.
    pub fn board_set(&self, record: Record) {
        lock(&self.board).set(record, false);
    }

    /// What progress shows besides a task.
    pub fn view(&self, board: &Board) -> View {
        View {
            counts: board.counts(),
            spent: self.budget.spent(),
            limits: self.budget.limits(),
            priced: self.price.is_some(),
            elapsed: board.elapsed(),
            left: board.left(),
            waiting: self.waiting(),
        }
    }

    /// What the batch waits for, while the model server is failing.
    fn waiting(&self) -> Option<String> {
        self.health.failing_for().map(|t| format!("failing for {}", progress::duration(t.as_secs_f64())))
    }

    /// The settings batch.json names.
    fn settings(&self) -> Settings<'_> {
        Settings {
            tasks_file: self.options.tasks.as_deref(),
            repos: &self.repos,
            shard: self.options.shard.map(|s| s.to_string()),
            model: &self.run_args.model,
            model_name_or_path: &self.model_name,
            mode: self.run_args.mode,
            workers: self.options.workers,
            task_budget: self.run_args.budget,
            batch_budget: self.budget.limits(),
        }
    }

    /// Writes batch.json: the summary, or (`whole`) with every task's record.
    pub fn write_report(&self, whole: bool) -> anyhow::Result<()> {
        let board = lock(&self.board);
        let halt = lock(&self.halt).clone().map(|h| h.why).or_else(|| self.health.gave_up());
        let waiting = self.waiting();
        let settings = self.settings();
        let priced = self.price.is_some();
        let seconds = self.budget.seconds();
        let summary = Summary {
            settings: &settings,
            finished: whole,
            counts: board.counts(),
            seconds_left: board.left(),
            halted: halt.as_deref(),
            waiting: waiting.as_deref(),
            spent: Spent::of(self.budget.spent(), seconds, priced),
            spent_this_run: Spent::of(self.budget.spent_this_run(), seconds, priced),
            spent_by_tasks: report::by_tasks(board.records(), priced),
            tasks: whole.then(|| board.records()),
        };
        self.writer.write(&summary)
    }

    /// Every few seconds while the workers run: the bar's spend and time, and the summary when something changed.
    pub fn tick(&self, finished: &AtomicBool) {
        let mut calls = u64::MAX;
        while !finished.load(Ordering::SeqCst) {
            std::thread::sleep(std::time::Duration::from_millis(250));
            let changed = {
                let mut board = lock(&self.board);
                self.progress.show(&self.view(&board));
                if !self.writer.due() {
                    continue;
                }
                let spent = self.budget.spent().calls;
                board.take_dirty() | (std::mem::replace(&mut calls, spent) != spent)
            };
            if changed && let Err(e) = self.write_report(false) {
                self.progress.line(&format!("acr batch: {e:#}"));
            }
        }
    }
}
