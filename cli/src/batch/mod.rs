//! `acr batch`: repair a list of SWE-bench tasks and write SWE-bench's predictions, resumable, on one machine (with
//! worker threads) or over many (shards of the list, merged afterwards).
//!
//! Each task is checked out at its base commit in a scratch folder ([`checkout`]), repaired exactly as `acr run`
//! repairs (the same options, [`crate::run::repair`]), and its transcript and outcome written to `OUT/<instance_id>/`.
//! A task that ends on its own (with a patch or without) is done: its prediction is appended to
//! `OUT/predictions.jsonl` ([`journal`]). A task stopped from outside (the batch budget, Ctrl-C, the model server) or
//! failed is not done and runs again when the same command is given again; tasks already done are skipped.
//! Everything that happens is a line of `OUT/journal.jsonl` ([`journal`]): each task's state, each model call's
//! reservation and use against the batch budget, which is so counted over every invocation on the folder.
//! `OUT/batch.json` is a view of it ([`report`]): a summary every few seconds, every task's record at the end.
//! On a terminal a live bar shows the progress ([`progress`]). `--redo`, `--instance-ids` and `--filter` choose
//! what runs ([`select`]); `--envs` gives each repository and version its interpreter ([`envs`]); a failing model
//! server is waited out before the batch gives up on it ([`health`]).
//!
//! Exit codes: 0 every selected task is done; 1 some are not; 2 an error, or the model server refused the key or the
//! model; 3 the batch budget is spent (running again starts nothing: raise the limit to go on); 130 Ctrl-C.

mod checkout;
mod envs;
mod files;
mod health;
mod journal;
mod merge;
mod predictions;
mod progress;
mod record;
mod report;
mod select;
mod shared;
mod tasks;
mod worker;

use std::collections::{HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use acr_core::llm::budget::Budget;
use acr_core::llm::stream::Partial;
use anyhow::Context;

use crate::run::{self, RunArgs};
use journal::{Entry, Journal};
use record::{Record, Status};
use tasks::{Shard, Task};
use worker::{Batch, Halt};

/// The exit code of a batch that stopped because its budget is spent.
const BUDGET_SPENT: u8 = 3;

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
pub struct BatchOptions {
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
    /// Most model calls over the whole batch, every invocation on this folder counted (0 or none: no limit).
    #[arg(long, value_name = "N")]
    batch_max_calls: Option<u64>,
    /// Most tokens in and out over the whole batch, every invocation counted (0 or none: no limit).
    #[arg(long, value_name = "N")]
    batch_max_tokens: Option<u64>,
    /// Most seconds of wall time for this invocation of the batch (0 or none: no limit).
    #[arg(long, value_name = "S")]
    batch_max_seconds: Option<f64>,
    /// Most US dollars over the whole batch at the model's price, every invocation counted (0 or none: no limit).
    #[arg(long, value_name = "USD")]
    batch_max_cost: Option<f64>,
    /// Do again the tasks that ended this way: failed, empty (done without a patch), patch (done with one); a comma
    /// list. Their predictions are removed first. Tasks not ended (stopped, not run, killed) always run again.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "HOW,...")]
    redo: Vec<select::Redo>,
    /// Only these tasks (instance ids, a comma list; repeatable).
    #[arg(long, value_delimiter = ',', value_name = "ID,...")]
    instance_ids: Vec<String>,
    /// Only tasks whose instance id matches this regular expression (anywhere in it: anchor with ^ and $).
    #[arg(long, value_name = "REGEX")]
    filter: Option<String>,
    /// Resume a folder started with another --model (or --model-name); its predictions then mix models.
    #[arg(long)]
    allow_model_change: bool,
    /// A JSON map from "owner/name@version" (or "owner/name") to the Python each task of that repository and
    /// version runs its reproducers with (--runner local). Without it every task uses --python.
    #[arg(long, value_name = "FILE")]
    envs: Option<PathBuf>,
    /// Seconds to wait out a model server that fails every call (no connection, time-outs, 5xx) before the batch
    /// gives up on it.
    #[arg(long, value_name = "S", default_value_t = 600)]
    wait_for_server: u64,

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

    /// The batch's limits; 0 is no limit, as for each run's `--max-*`.
    fn batch_budget(&self) -> Budget {
        Budget {
            max_calls: self.batch_max_calls.filter(|&n| n > 0),
            max_tokens: self.batch_max_tokens.filter(|&n| n > 0),
            max_seconds: self.batch_max_seconds.filter(|&s| s > 0.0),
            max_cost: self.batch_max_cost.filter(|&c| c > 0.0),
        }
    }

    /// What `--instance-ids`, `--filter` and `--redo` select.
    fn selection(&self) -> anyhow::Result<select::Selection> {
        let filter = match &self.filter {
            Some(pattern) => {
                Some(regex_lite::Regex::new(pattern).with_context(|| format!("--filter {pattern:?} is not a regex"))?)
            }
            None => None,
        };
        let ids = (!self.instance_ids.is_empty()).then(|| self.instance_ids.iter().cloned().collect());
        Ok(select::Selection { ids, filter, redo: self.redo.iter().copied().collect() })
    }
}

/// Runs `acr batch` or `acr batch merge`.
pub fn run(command: BatchCommand) -> anyhow::Result<ExitCode> {
    match command.command {
        Some(BatchSubcommand::Merge { outs, into, tasks }) => merge::run(&outs, &into, tasks.as_deref()),
        None => batch(&command.options),
    }
}

/// The folder's state for this invocation: each task's record, those to run, the predictions to forget.
struct Plan<'t> {
    records: Vec<Record>,
    queue: Vec<&'t Task>,
    selected: HashSet<String>,
    forget: HashSet<&'t str>,
    /// Tasks done earlier and kept.
    done: usize,
    /// Tasks failed earlier and kept.
    failed: usize,
}

/// Decides what runs: a selected task runs unless it has ended (done, failed) and `--redo` does not name how.
fn plan<'t>(
    tasks: &'t [Task],
    selection: &select::Selection,
    past: &journal::Past,
    predictions: &HashMap<&str, bool>,
    out: &Path,
) -> Plan<'t> {
    let mut plan = Plan {
        records: Vec::new(),
        queue: Vec::new(),
        selected: HashSet::new(),
        forget: HashSet::new(),
        done: 0,
        failed: 0,
    };
    for task in tasks {
        let id = task.instance_id.as_str();
        let last = match predictions.get(id) {
            Some(&patch) => earlier_record(out, past.records.get(id), id, patch),
            // A task without a prediction is done no longer (its prediction was removed to do it again).
            None => match past.records.get(id) {
                Some(r) if r.status != Status::Done => Record { earlier: true, ..r.clone() },
                _ => Record::new(id, Status::Pending, ""),
            },
        };
        let picked = selection.picks(id);
        if picked {
            plan.selected.insert(id.to_string());
        }
        if picked && selection.runs(&last) {
            if predictions.contains_key(id) {
                plan.forget.insert(id);
            }
            plan.records.push(Record::new(id, Status::Pending, ""));
            plan.queue.push(task);
        } else {
            plan.done += usize::from(last.status == Status::Done);
            plan.failed += usize::from(last.status == Status::Failed);
            plan.records.push(last);
        }
    }
    plan
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
    let selection = options.selection()?;
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
    let envs = options.envs.as_deref().map(envs::Envs::load).transpose()?;
    if options.scratch.is_none() {
        // Checkouts a killed batch left behind (the folder is this batch's alone while it holds the lock).
        let _ = std::fs::remove_dir_all(out.join(".scratch"));
    }
    let model_name = options.model_name.clone().unwrap_or_else(|| format!("acr-wasm__{}", run_args.model));

    let journal_path = out.join("journal.jsonl");
    let past = journal::read(&journal_path)?;
    let predictions_path = out.join("predictions.jsonl");
    let earlier = predictions::read(&predictions_path)?;
    check_model(&past, &earlier.predictions, &run_args.model, &model_name, options.allow_model_change)?;
    let with_patch: HashMap<&str, bool> =
        earlier.predictions.iter().map(|p| (p.instance_id.as_str(), !p.model_patch.is_empty())).collect();
    let plan = plan(&tasks, &selection, &past, &with_patch, out);
    let (predictions, read) = predictions::Journal::open(&predictions_path, &plan.forget)?;
    if read.torn > 0 || read.duplicates > 0 || read.unreadable > 0 {
        eprintln!(
            "acr batch: repaired predictions.jsonl: dropped {} bytes of a line cut short, {} repeated and {} unreadable \
             lines",
            read.torn, read.duplicates, read.unreadable
        );
    }
    if past.unreadable > 0 {
        eprintln!("acr batch: left out {} unreadable lines of {}", past.unreadable, journal_path.display());
    }
    let journal = Arc::new(Journal::open(&journal_path, past.runs + 1)?);
    journal.write(&Entry::Run {
        run: journal.run,
        model: run_args.model.clone(),
        model_name_or_path: model_name.clone(),
        limits,
        at: std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs()),
    })?;
    let budget = shared::BatchBudget::new(limits, price, past.spent, past.refused, journal.clone());
    say_what_runs(options, &tasks, listed, &plan, &selection, &past, envs.as_ref());

    let stop = stop_on_ctrl_c(stop);
    let progress = progress::Progress::new(plan.queue.len());
    let health = {
        let journal = journal.clone();
        let say = move |w: &health::Waiting| {
            let line = format!(
                "acr batch: the model server failed ({}); waiting {} before asking again (failing for {} of at most {})",
                w.why,
                progress::duration(w.wait.as_secs_f64()),
                progress::duration(w.failing_for.as_secs_f64()),
                progress::duration(w.patience.as_secs_f64()),
            );
            eprintln!("{line}");
            journal.note(&Entry::Waited { run: journal.run, seconds: w.wait.as_secs_f64(), why: w.why.to_string() });
        };
        health::Health::new(Duration::from_secs(options.wait_for_server), stop.clone(), Box::new(say))
    };
    let to_run = plan.queue.len();
    let batch = Batch {
        options,
        price,
        repos: repos.clone(),
        out: out.clone(),
        scratch: options.scratch.clone().unwrap_or_else(|| out.join(".scratch")),
        model_name,
        envs,
        predictions,
        journal,
        budget,
        health,
        stop,
        halt: Mutex::new(None),
        board: Mutex::new(report::Board::new(plan.records, to_run)),
        selected: plan.selected,
        progress,
        writer: report::Writer::new(out.join("batch.json")),
        run_args,
    };
    batch.write_report(false)?;
    let next = AtomicUsize::new(0);
    let workers = usize::from(options.workers).min(to_run);
    let finished = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let (batch, next, queue, finished) = (&batch, &next, &plan.queue, &finished);
        scope.spawn(move || batch.tick(finished));
        let running: Vec<_> = (0..workers).map(|_| scope.spawn(move || batch.work(next, queue))).collect();
        for worker in running {
            let _ = worker.join();
        }
        finished.store(true, Ordering::SeqCst);
    });
    // The tasks no worker took: why they did not start.
    let untaken = &plan.queue[next.load(Ordering::SeqCst).min(to_run)..];
    if !untaken.is_empty() {
        let why = batch.no_start().unwrap_or_else(|| "not started".into());
        for task in untaken {
            batch.journal.note(&Entry::Task(Record::new(&task.instance_id, Status::NotRun, why.clone())));
            batch.board_set(Record::new(&task.instance_id, Status::NotRun, why.clone()));
        }
        batch.progress.line(&format!("acr batch: {} tasks not started: {why}", untaken.len()));
    }
    batch.progress.finish();
    if options.scratch.is_none() {
        let _ = std::fs::remove_dir(&batch.scratch);
    }
    batch.journal.note(&Entry::Ended { run: batch.journal.run, seconds: batch.budget.seconds() });
    batch.write_report(true)?;
    finish(&batch)
}

/// Says what this invocation runs, and what the folder had already.
fn say_what_runs(
    options: &BatchOptions,
    tasks: &[Task],
    listed: usize,
    plan: &Plan,
    selection: &select::Selection,
    past: &journal::Past,
    envs: Option<&envs::Envs>,
) {
    let workers = usize::from(options.workers).min(plan.queue.len()).max(1);
    eprintln!(
        "acr batch: {} tasks{}, {} done earlier, {}{} to run with {} worker{}",
        tasks.len(),
        options.shard.map_or(String::new(), |s| format!(" (shard {s} of {listed})")),
        plan.done,
        if plan.failed > 0 {
            format!("{} failed earlier (kept: --redo failed runs them again), ", plan.failed)
        } else {
            String::new()
        },
        plan.queue.len(),
        workers,
        if workers == 1 { "" } else { "s" }
    );
    if selection.ids.is_some() || selection.filter.is_some() {
        eprintln!("acr batch: {} tasks selected by --instance-ids/--filter", plan.selected.len());
    }
    if !plan.forget.is_empty() {
        eprintln!("acr batch: --redo: {} predictions removed, their tasks run again", plan.forget.len());
    }
    if past.spent.calls > 0 {
        eprintln!(
            "acr batch: earlier invocations on this folder spent {} calls, {} tokens{} (counted against the batch budget)",
            past.spent.calls,
            progress::tokens(past.spent.tokens()),
            if options.batch_max_cost.is_some() { format!(", ${:.4}", past.spent.cost) } else { String::new() }
        );
    }
    if options.repair.runner.as_deref() == Some("local") {
        let python = options.repair.python.as_deref().unwrap_or("python3");
        match envs {
            Some(envs) => {
                let without = tasks.iter().filter(|t| envs.python_for(t).is_none()).count();
                eprintln!(
                    "acr batch: reproducers run in the interpreters of {}; {without} tasks have none there and use {python}",
                    envs.source.display()
                );
            }
            None => eprintln!(
                "acr batch: every task's reproducers run in {python} (give --envs FILE for one environment per \
                 repository and version)"
            ),
        }
    }
}

/// Refuses to resume a folder started with another model, unless asked to.
fn check_model(
    past: &journal::Past,
    predictions: &[predictions::Prediction],
    model: &str,
    model_name: &str,
    allowed: bool,
) -> anyhow::Result<()> {
    let other = match &past.first_model {
        Some((m, name)) if m != model || name != model_name => Some(format!("--model {m} (predictions as {name})")),
        _ => predictions
            .iter()
            .find(|p| p.model_name_or_path != model_name)
            .map(|p| format!("predictions as {}", p.model_name_or_path)),
    };
    match other {
        Some(other) if allowed => {
            eprintln!("acr batch: this folder was started with {other}; going on with {model} as asked");
            Ok(())
        }
        Some(other) => anyhow::bail!(
            "this folder was started with {other}, and this command asks for --model {model} (predictions as \
             {model_name}): give another --out, or --allow-model-change to mix them in one predictions file"
        ),
        None => Ok(()),
    }
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

/// The record of a task done by an earlier invocation: its last record in the journal (or, for folders from before
/// the journal, its record.json), or what the prediction says.
fn earlier_record(out: &Path, journaled: Option<&Record>, id: &str, patch: bool) -> Record {
    let kept = journaled.cloned().or_else(|| {
        std::fs::read_to_string(out.join(id).join("record.json"))
            .ok()
            .and_then(|text| serde_json::from_str::<Record>(&text).ok())
    });
    let kept = kept.filter(|r| r.status == Status::Done && r.instance_id == id);
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

/// The closing summary on stderr, and the exit code: 0 every selected task is done, 1 some are not, 2 the model
/// server refused the key or the model, 3 the batch budget is spent, 130 Ctrl-C.
fn finish(batch: &Batch) -> anyhow::Result<ExitCode> {
    let board = batch.board.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let c = board.counts();
    let done = board.records().iter().filter(|r| r.status == Status::Done && batch.selected.contains(&r.instance_id));
    let all_done = done.count() == batch.selected.len();
    let spent = batch.budget.spent();
    let (writes, bytes) = batch.writer.written();
    eprintln!(
        "acr batch: {}; {} calls, {} tokens{} over every invocation; {} this time; predictions in {}",
        progress::counts(&c),
        spent.calls,
        progress::tokens(spent.tokens()),
        batch.price.map_or(String::new(), |_| format!(", ${:.4}", spent.cost)),
        progress::duration(batch.budget.seconds()),
        batch.out.join("predictions.jsonl").display()
    );
    eprintln!(
        "acr batch: wrote batch.json {writes} times ({bytes} bytes) and {} bytes of journal.jsonl",
        batch.journal.written()
    );
    let halt = batch.halt.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
    let spent_out = batch.budget.reached().filter(|_| !all_done);
    if let Some(e) = spent_out.filter(|_| !batch.stop.load(Ordering::SeqCst)) {
        eprintln!("acr batch: the batch budget is spent ({e}): exit code {BUDGET_SPENT}; raise the limit to go on");
    }
    Ok(if batch.stop.load(Ordering::SeqCst) {
        ExitCode::from(130)
    } else if let Some(Halt { code, .. }) = halt {
        ExitCode::from(code)
    } else if spent_out.is_some() {
        ExitCode::from(BUDGET_SPENT)
    } else if all_done {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
