//! `acr batch`: repair a list of SWE-bench tasks and write SWE-bench's predictions, resumable, on one machine (with
//! worker threads) or over many (shards of the list, merged afterwards).
//!
//! Each task is checked out at its base commit in a scratch folder ([`checkout`]), repaired exactly as `acr run`
//! repairs (the same options, [`crate::run::repair`]), and its transcript and outcome written to `OUT/<instance_id>/`.
//! A task that ends on its own (with a patch or without) is done: its prediction is appended to
//! `OUT/predictions.jsonl` ([`journal`]). A task stopped from outside (the batch budget, Ctrl-C, the model server) or
//! failed is not done and runs again when the same command is given again; tasks already done are skipped.
//! `OUT/batch.json` lists every task's status, usage, cost and time, rewritten whole after each task.

mod checkout;
mod journal;
mod merge;
mod shared;
mod tasks;

use std::cell::Cell;
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use acr_core::agent::Stop;
use acr_core::llm::Usage;
use acr_core::llm::budget::Budget;
use acr_core::llm::price::Price;
use acr_core::llm::stream::Partial;
use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::run::{self, RunArgs};
use journal::{Journal, Prediction};
use shared::{BatchBudget, Gate, Totals};
use tasks::{Shard, Task};

/// `acr batch ...` or `acr batch merge ...`.
#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct BatchCommand {
    #[command(subcommand)]
    command: Option<BatchSubcommand>,
    #[command(flatten)]
    options: BatchOptions,
}

#[derive(clap::Subcommand)]
enum BatchSubcommand {
    /// Join the predictions of batch folders (the shards of one task list) into one folder.
    Merge {
        /// The batch folders (each with its predictions.jsonl and batch.json).
        #[arg(required = true, value_name = "OUT")]
        outs: Vec<PathBuf>,
        /// The folder to write predictions.jsonl and batch.json into.
        #[arg(long, value_name = "DIR")]
        into: PathBuf,
        /// The whole task list: tasks without a prediction are named (and the exit code is 1).
        #[arg(long, value_name = "FILE")]
        tasks: Option<PathBuf>,
    },
}

/// The options of a batch: the task list, where things are, the workers and shard, the batch's budget, and the
/// options of `acr run` for each task.
#[derive(clap::Args)]
struct BatchOptions {
    /// The tasks: SWE-bench instances as JSON lines (or a JSON array), each with instance_id, repo (owner/name),
    /// base_commit and problem_statement.
    #[arg(long, required = true, value_name = "FILE")]
    tasks: Option<PathBuf>,
    /// The repositories: DIR/owner/name (or DIR/owner/name.git) is a git clone or bare mirror of each task's repo.
    /// It is only read.
    #[arg(long, required = true, value_name = "DIR")]
    repos: Option<PathBuf>,
    /// The output folder: predictions.jsonl, batch.json and a folder per task. Give the same folder again to
    /// resume.
    #[arg(long, required = true, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Tasks repaired at once (threads, each with its own model connection).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    workers: u16,
    /// Run only shard I of N (1-based): the tasks whose instance_id hashes to it (FNV-1a 64 mod N). For array jobs
    /// (SLURM, Kubernetes): one output folder per shard, then `acr batch merge`.
    #[arg(long, value_name = "I/N")]
    shard: Option<Shard>,
    /// `model_name_or_path` in the predictions (default: acr-wasm__MODEL).
    #[arg(long, value_name = "NAME")]
    model_name: Option<String>,
    /// Where tasks are checked out (default: OUT/.scratch); each checkout is removed once read.
    #[arg(long, value_name = "DIR")]
    scratch: Option<PathBuf>,
    /// Most model calls over the whole batch (default: no limit).
    #[arg(long, value_name = "N")]
    batch_max_calls: Option<u64>,
    /// Most tokens in and out over the whole batch (default: no limit).
    #[arg(long, value_name = "N")]
    batch_max_tokens: Option<u64>,
    /// Most seconds of wall time for the whole batch (default: no limit).
    #[arg(long, value_name = "S")]
    batch_max_seconds: Option<f64>,
    /// Most US dollars over the whole batch, at the model's price (default: no limit).
    #[arg(long, value_name = "USD")]
    batch_max_cost: Option<f64>,

    /// The options of `acr run`, for each task (its budget is each task's own).
    #[command(flatten)]
    repair: crate::repair_options::RepairOptions,
}

impl BatchOptions {
    /// `acr run`'s options for each task (the repository, issue and output folder are the task's).
    fn run_args(&self) -> RunArgs {
        // Each task's answers are not shown: the transport streams, the echo is left out.
        RunArgs { stream: false, ..self.repair.run_args(PathBuf::new(), PathBuf::new(), None) }
    }

    fn batch_budget(&self) -> Budget {
        Budget {
            max_calls: self.batch_max_calls,
            max_tokens: self.batch_max_tokens,
            max_seconds: self.batch_max_seconds,
            max_cost: self.batch_max_cost,
        }
    }
}

/// Runs `acr batch` or `acr batch merge`.
pub fn run(command: BatchCommand) -> anyhow::Result<ExitCode> {
    match command.command {
        Some(BatchSubcommand::Merge { outs, into, tasks }) => merge::run(&outs, &into, tasks.as_deref()),
        None => batch(&command.options),
    }
}

/// Where a task stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Not started yet.
    Pending,
    /// Being repaired (a batch killed now runs it again when resumed).
    Running,
    /// Ended on its own, with or without a patch: its prediction is written.
    Done,
    /// Stopped from outside (the batch budget, Ctrl-C, the model server) after it had started: runs again.
    Stopped,
    /// Could not be repaired (no repository, a bad commit, an error): runs again.
    Failed,
    /// Never started (the batch budget was spent, Ctrl-C, the model server refused): runs again.
    NotRun,
}

/// One task's line in batch.json (also kept as OUT/<instance_id>/record.json).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Record {
    pub instance_id: String,
    pub status: Status,
    /// The run's final status (`APPLICABLE_PATCH`, `NO_PATCH`...), once it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
    /// Whether the prediction holds a patch.
    #[serde(default)]
    pub patch: bool,
    /// Why it is not done, or why the run ended without a patch.
    #[serde(default)]
    pub reason: String,
    #[serde(default)]
    pub model_calls: u64,
    #[serde(default)]
    pub usage: Usage,
    /// Dollars, when the model has a price.
    #[serde(default)]
    pub cost: Option<f64>,
    /// Wall time of the task: checkout, index and repair.
    #[serde(default)]
    pub seconds: f64,
    /// Done by an earlier invocation.
    #[serde(default)]
    pub earlier: bool,
}

impl Record {
    fn new(instance_id: &str, status: Status, reason: impl Into<String>) -> Record {
        Record {
            instance_id: instance_id.to_string(),
            status,
            outcome: None,
            patch: false,
            reason: reason.into(),
            model_calls: 0,
            usage: Usage::default(),
            cost: None,
            seconds: 0.0,
            earlier: false,
        }
    }
}

/// What every worker shares.
struct Batch<'a> {
    options: &'a BatchOptions,
    run_args: RunArgs,
    price: Option<Price>,
    repos: PathBuf,
    out: PathBuf,
    scratch: PathBuf,
    model_name: String,
    journal: Journal,
    budget: Arc<BatchBudget>,
    stop: Arc<AtomicBool>,
    /// Why no more tasks start (the model server refused the key or the model), once that happened.
    halt: Mutex<Option<String>>,
    report: Mutex<Report>,
}

/// batch.json as it stands, and the progress counters.
struct Report {
    records: Vec<Record>,
    position: HashMap<String, usize>,
    /// Tasks this invocation has to run, and how many of them have ended.
    to_run: usize,
    ended: usize,
    started: Instant,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn batch(options: &BatchOptions) -> anyhow::Result<ExitCode> {
    let (Some(tasks_file), Some(repos), Some(out)) = (&options.tasks, &options.repos, &options.out) else {
        anyhow::bail!("give --tasks FILE, --repos DIR and --out DIR");
    };
    let mut tasks = tasks::load(tasks_file)?;
    let listed = tasks.len();
    if let Some(shard) = options.shard {
        tasks.retain(|t| shard.holds(&t.instance_id));
    }
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let _lock = lock_folder(out)?;
    let run_args = options.run_args();
    let price = run::price_from(&run_args)?;
    let limits = options.batch_budget();
    limits.check(&run_args.model, price).map_err(|e| anyhow::anyhow!("--batch-max-cost: {e}"))?;
    let stop = Arc::new(AtomicBool::new(false));
    // The model and the runner are made once here so that a missing key or script fails before any task starts.
    drop(run::model_from(&run_args, &stop, None::<fn(&Partial)>)?);
    drop(run::runner_from(&run_args)?);

    let (journal, read) = Journal::open(&out.join("predictions.jsonl"))?;
    if read.torn > 0 || read.duplicates > 0 || read.unreadable > 0 {
        eprintln!(
            "acr batch: repaired predictions.jsonl: dropped {} bytes of a line cut short, {} repeated and {} unreadable \
             lines",
            read.torn, read.duplicates, read.unreadable
        );
    }
    let done: HashMap<&str, &Prediction> = read.predictions.iter().map(|p| (p.instance_id.as_str(), p)).collect();
    let mut records = Vec::with_capacity(tasks.len());
    let mut pending = Vec::new();
    for task in &tasks {
        match done.get(task.instance_id.as_str()) {
            Some(p) => records.push(earlier_record(out, &task.instance_id, !p.model_patch.is_empty())),
            None => {
                records.push(Record::new(&task.instance_id, Status::Pending, ""));
                pending.push(task);
            }
        }
    }
    let position = tasks.iter().enumerate().map(|(n, t)| (t.instance_id.clone(), n)).collect();
    eprintln!(
        "acr batch: {} tasks{}, {} done earlier, {} to run with {} worker{}",
        tasks.len(),
        options.shard.map_or(String::new(), |s| format!(" (shard {s} of {listed})")),
        tasks.len() - pending.len(),
        pending.len(),
        options.workers,
        if options.workers == 1 { "" } else { "s" }
    );

    let stop = stop_on_ctrl_c(stop);
    let model_name = options.model_name.clone().unwrap_or_else(|| format!("acr-wasm__{}", run_args.model));
    let batch = Batch {
        options,
        price,
        repos: repos.clone(),
        out: out.clone(),
        scratch: options.scratch.clone().unwrap_or_else(|| out.join(".scratch")),
        model_name,
        journal,
        budget: BatchBudget::new(limits, price),
        stop,
        halt: Mutex::new(None),
        report: Mutex::new(Report { records, position, to_run: pending.len(), ended: 0, started: Instant::now() }),
        run_args,
    };
    batch.write_report()?;
    let next = AtomicUsize::new(0);
    let workers = usize::from(options.workers).min(pending.len());
    std::thread::scope(|scope| {
        for worker in 0..workers {
            let (batch, next, pending) = (&batch, &next, &pending);
            scope.spawn(move || batch.work(worker, next, pending));
        }
    });
    if options.scratch.is_none() {
        let _ = std::fs::remove_dir(&batch.scratch);
    }
    batch.write_report()?;
    batch.finish()
}

/// Takes `OUT/.lock` for as long as the batch runs: two batches never write the same folder.
fn lock_folder(out: &Path) -> anyhow::Result<nix::fcntl::Flock<File>> {
    let path = out.join(".lock");
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    nix::fcntl::Flock::lock(file, nix::fcntl::FlockArg::LockExclusiveNonblock)
        .map_err(|(_, e)| anyhow::anyhow!("another acr batch is writing to {} ({e})", out.display()))
}

/// The record of a task done by an earlier invocation: its record.json, or what the prediction says.
fn earlier_record(out: &Path, id: &str, patch: bool) -> Record {
    let kept = std::fs::read_to_string(out.join(id).join("record.json"))
        .ok()
        .and_then(|text| serde_json::from_str::<Record>(&text).ok())
        .filter(|r| r.status == Status::Done && r.instance_id == id);
    let mut record = kept.unwrap_or_else(|| Record { patch, ..Record::new(id, Status::Done, "") });
    record.earlier = true;
    record
}

/// Ctrl-C: the first press stops running tasks at their next model call and starts no more; a second quits at once.
fn stop_on_ctrl_c(stop: Arc<AtomicBool>) -> Arc<AtomicBool> {
    let flag = stop.clone();
    let installed = ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
        eprintln!("\nstopping: running tasks end before their next model call, no more start (Ctrl-C again quits now)");
    });
    if let Err(e) = installed {
        eprintln!("note: Ctrl-C will quit at once ({e})");
    }
    stop
}

impl Batch<'_> {
    /// One worker: takes the next pending task until none is left.
    fn work(&self, worker: usize, next: &AtomicUsize, pending: &[&Task]) {
        // Each worker has its own runner (the core's futures stay on their thread).
        let runner = match run::runner_from(&self.run_args) {
            Ok(runner) => runner,
            Err(e) => {
                eprintln!("acr batch: worker {worker}: {e:#}");
                None
            }
        };
        loop {
            let n = next.fetch_add(1, Ordering::SeqCst);
            let Some(task) = pending.get(n) else { break };
            let record = if self.stop.load(Ordering::SeqCst) {
                Record::new(&task.instance_id, Status::NotRun, "stopped by Ctrl-C before it started")
            } else if let Some(why) = lock(&self.halt).clone() {
                Record::new(&task.instance_id, Status::NotRun, why)
            } else if let Some(spent) = self.budget.reached() {
                Record::new(&task.instance_id, Status::NotRun, format!("the batch budget is spent ({spent})"))
            } else {
                self.update(Record::new(&task.instance_id, Status::Running, ""), false);
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
                record
            };
            self.update(record, true);
        }
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
            let checkout = checkout::checkout(&source, &task.base_commit, &self.scratch.join(&task.instance_id))?;
            // The repository is read into memory (the runner is given files, not a folder): the checkout goes now.
            crate::load::repo_from_dir(&checkout.dir)?
        };
        let refused = Rc::new(Cell::new(None));
        let model = Gate {
            inner: run::model_from(&self.run_args, &self.stop, self.options.repair.stream.then_some(|_: &Partial| {}))?,
            budget: self.budget.clone(),
            refused: refused.clone(),
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
        match (&outcome.stopped, refused.get()) {
            // Ended on its own, or on the task's own budget.
            (None, _) | (Some(Stop::Budget(_)), None) => {}
            (Some(Stop::Budget(_)), Some(spent)) => {
                record.status = if record.model_calls == 0 { Status::NotRun } else { Status::Stopped };
                record.reason = format!("the batch budget is spent ({spent})");
            }
            (Some(Stop::Cancelled), _) => {
                record.status = Status::Stopped;
                record.reason = "stopped by Ctrl-C".into();
            }
            (Some(stop), _) => {
                record.status = Status::Stopped;
                record.reason = format!("stopped by the model server: {stop}");
                if matches!(stop, Stop::KeyRefused(_) | Stop::ModelUnknown(_)) {
                    lock(&self.halt).get_or_insert_with(|| format!("not started: {stop}"));
                }
            }
        }
        record.seconds = started.elapsed().as_secs_f64();
        journal::replace(&out.join("record.json"), serde_json::to_string_pretty(&record)?.as_bytes())?;
        if record.status == Status::Done {
            let model_patch = if record.patch { outcome.diff } else { String::new() };
            let prediction = Prediction {
                instance_id: task.instance_id.clone(),
                model_name_or_path: self.model_name.clone(),
                model_patch,
            };
            self.journal.append(&prediction)?;
        }
        Ok(record)
    }

    /// Records a task's new state, rewrites batch.json and, when the task has ended, prints the progress line.
    fn update(&self, record: Record, ended: bool) {
        let mut report = lock(&self.report);
        let Some(&n) = report.position.get(&record.instance_id) else { return };
        if ended {
            report.ended += 1;
            eprintln!("{}", self.progress(&report, &record));
        }
        report.records[n] = record;
        drop(report);
        if let Err(e) = self.write_report() {
            eprintln!("acr batch: {e:#}");
        }
    }

    /// `[3/20] id: patch (5 calls, 12.1 s) | 7 of 20 done, 1 failed | 40 calls, 52k tokens, $0.31 | 1m 10s, ~2m left`
    fn progress(&self, report: &Report, record: &Record) -> String {
        let what = match record.status {
            Status::Done if record.patch => "patch".to_string(),
            Status::Done => "no patch".to_string(),
            Status::Stopped => format!("stopped: {}", record.reason),
            Status::Failed => format!("failed: {}", record.reason),
            Status::NotRun => format!("not run: {}", record.reason),
            Status::Pending | Status::Running => String::new(),
        };
        let count =
            |s: Status| report.records.iter().filter(|r| r.status == s).count() + usize::from(record.status == s);
        let totals = self.budget.totals();
        let elapsed = report.started.elapsed().as_secs_f64();
        let left = report.to_run - report.ended;
        let eta = if left > 0 {
            format!(", ~{} left", duration(elapsed / report.ended as f64 * left as f64))
        } else {
            String::new()
        };
        format!(
            "[{}/{}] {}: {what} ({} calls, {:.1} s) | {} of {} done, {} failed, {} stopped, {} not run | {} calls, {} \
             tokens{} | {} elapsed{eta}",
            report.ended,
            report.to_run,
            record.instance_id,
            record.model_calls,
            record.seconds,
            count(Status::Done),
            report.records.len(),
            count(Status::Failed),
            count(Status::Stopped),
            count(Status::NotRun),
            totals.calls,
            tokens(totals.tokens()),
            self.price.map_or(String::new(), |_| format!(", ${:.4}", totals.cost)),
            duration(elapsed),
        )
    }

    /// Rewrites batch.json whole (one writer at a time: the report stays locked while it is written).
    fn write_report(&self) -> anyhow::Result<()> {
        let report = lock(&self.report);
        let halt = lock(&self.halt).clone();
        let json =
            serde_json::to_string_pretty(&summary(self, &report.records, self.budget.totals(), halt.as_deref()))?;
        journal::replace(&self.out.join("batch.json"), json.as_bytes())
    }

    /// The closing summary on stderr, and the exit code: 0 when every task is done, 1 when some are not, 2 when the
    /// model server refused the key or the model, 130 after Ctrl-C.
    fn finish(&self) -> anyhow::Result<ExitCode> {
        let report = lock(&self.report);
        let count = |s: Status| report.records.iter().filter(|r| r.status == s).count();
        let patches = report.records.iter().filter(|r| r.status == Status::Done && r.patch).count();
        let totals = self.budget.totals();
        eprintln!(
            "acr batch: {} of {} tasks done ({} with a patch), {} failed, {} stopped, {} not run; {} calls, {} tokens{}, \
             {}; predictions in {}",
            count(Status::Done),
            report.records.len(),
            patches,
            count(Status::Failed),
            count(Status::Stopped),
            count(Status::NotRun),
            totals.calls,
            tokens(totals.tokens()),
            self.price.map_or(String::new(), |_| format!(", ${:.4}", totals.cost)),
            duration(totals.seconds),
            self.out.join("predictions.jsonl").display()
        );
        Ok(if self.stop.load(Ordering::SeqCst) {
            ExitCode::from(130)
        } else if lock(&self.halt).is_some() {
            ExitCode::from(2)
        } else if count(Status::Done) == report.records.len() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        })
    }
}

/// batch.json, its fields in this order.
#[derive(Serialize)]
struct Summary<'a> {
    tasks_file: Option<&'a Path>,
    repos: &'a Path,
    shard: Option<String>,
    model: &'a str,
    model_name_or_path: &'a str,
    mode: acr_core::agent::Mode,
    workers: u16,
    task_budget: Budget,
    batch_budget: Budget,
    total: usize,
    done: usize,
    patches: usize,
    failed: usize,
    stopped: usize,
    not_run: usize,
    running: usize,
    pending: usize,
    /// Why tasks stopped being started (the model server refused the key or the model).
    halted: Option<&'a str>,
    /// What this invocation used (the batch budget's count).
    spent: Spent,
    /// What the tasks listed used, earlier invocations included.
    spent_by_tasks: Spent,
    tasks: &'a [Record],
}

#[derive(Serialize)]
struct Spent {
    calls: u64,
    usage: Usage,
    cost: Option<f64>,
    seconds: f64,
}

fn summary<'a>(batch: &'a Batch<'_>, records: &'a [Record], totals: Totals, halt: Option<&'a str>) -> Summary<'a> {
    let count = |s: Status| records.iter().filter(|r| r.status == s).count();
    let mut by_tasks = Spent { calls: 0, usage: Usage::default(), cost: batch.price.map(|_| 0.0), seconds: 0.0 };
    for r in records {
        by_tasks.calls += r.model_calls;
        by_tasks.usage += r.usage;
        by_tasks.cost = by_tasks.cost.map(|c| c + r.cost.unwrap_or(0.0));
        by_tasks.seconds += r.seconds;
    }
    let options = batch.options;
    Summary {
        tasks_file: options.tasks.as_deref(),
        repos: &batch.repos,
        shard: options.shard.map(|s| s.to_string()),
        model: &batch.run_args.model,
        model_name_or_path: &batch.model_name,
        mode: batch.run_args.mode,
        workers: options.workers,
        task_budget: batch.run_args.budget,
        batch_budget: batch.budget.limits(),
        total: records.len(),
        done: count(Status::Done),
        patches: records.iter().filter(|r| r.status == Status::Done && r.patch).count(),
        failed: count(Status::Failed),
        stopped: count(Status::Stopped),
        not_run: count(Status::NotRun),
        running: count(Status::Running),
        pending: count(Status::Pending),
        halted: halt,
        spent: Spent {
            calls: totals.calls,
            usage: totals.usage,
            cost: batch.price.map(|_| totals.cost),
            seconds: totals.seconds,
        },
        spent_by_tasks: by_tasks,
        tasks: records,
    }
}

/// `12.3k`, `1.2M`.
fn tokens(n: u64) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..1_000_000 => format!("{:.1}k", n as f64 / 1e3),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
}

/// `45s`, `3m 05s`, `2h 10m`.
fn duration(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m {:02}s", s / 60, s % 60),
        _ => format!("{}h {:02}m", s / 3600, s % 3600 / 60),
    }
}
