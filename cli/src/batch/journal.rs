//! `OUT/journal.jsonl`: everything a batch folder has seen, one line per change, only ever appended.
//!
//! Each invocation opens with a [`Entry::Run`] line (the model and the limits); then each task's state as it
//! changes ([`Entry::Task`], a [`Record`]); each model call the batch budget admits, before it is sent
//! ([`Entry::Hold`], the most it can take) and when it ends ([`Entry::Spent`], what it used); the batch budget's
//! refusal ([`Entry::Refused`]), the waits for a failing model server ([`Entry::Waited`]), and the invocation's end
//! ([`Entry::Ended`]). Reading the journal back ([`read`]) gives the folder's past: each task's last record, what
//! every invocation spent (a call held and never settled, because the batch was killed meanwhile, counts as its
//! whole hold), and the last refusal. `batch.json` is a view of it.
//!
//! Lines are written whole by one `write` each and not synced: a kill loses nothing, a crash of the machine may lose
//! the last lines (and predictions.jsonl, which is synced, stays the record of what is done). A line cut short by a
//! kill is cut off when the journal is opened again.

use std::collections::HashMap;
use std::path::Path;

use acr_core::llm::Usage;
use acr_core::llm::budget::{Budget, Exhausted};
use anyhow::Context;
use serde::{Deserialize, Serialize};

use super::files::AppendFile;
use super::record::Record;

/// One line of the journal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Entry {
    /// An invocation began.
    Run {
        /// Its number, from 1.
        run: u64,
        /// `--model`.
        model: String,
        /// `model_name_or_path` of its predictions.
        model_name_or_path: String,
        /// The batch budget it was given.
        limits: Budget,
        /// Seconds since the Unix epoch.
        at: u64,
    },
    /// A task's state changed.
    Task(Record),
    /// A model call was admitted: the most it can take, counted until its [`Entry::Spent`].
    Hold {
        /// The invocation.
        run: u64,
        /// The call's number in the invocation.
        call: u64,
        /// Its estimated prompt and its answer cap.
        most: Usage,
        /// Their dollars.
        cost: f64,
    },
    /// A held call ended.
    Spent {
        /// The invocation.
        run: u64,
        /// The call's number in the invocation.
        call: u64,
        /// 1 when the call reached the server, 0 when it did not.
        calls: u64,
        /// Tokens billed.
        usage: Usage,
        /// Their dollars.
        cost: f64,
        /// The tokens are estimated (the server sent none).
        #[serde(default)]
        estimated: bool,
    },
    /// The batch budget refused a request: no more tasks start.
    Refused {
        /// The invocation.
        run: u64,
        /// The limit and the amounts.
        exhausted: Exhausted,
    },
    /// The batch waited for a failing model server.
    Waited {
        /// The invocation.
        run: u64,
        /// How long it waited this time.
        seconds: f64,
        /// What failed.
        why: String,
    },
    /// An invocation ended.
    Ended {
        /// The invocation.
        run: u64,
        /// Its wall time.
        seconds: f64,
    },
}

/// What the batch budget counts as spent over invocations.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Spending {
    /// Model calls that reached the server (and calls held when the batch was killed).
    pub calls: u64,
    /// Tokens.
    pub usage: Usage,
    /// Dollars.
    pub cost: f64,
    /// Some token counts are estimates.
    pub estimated: bool,
}

impl Spending {
    /// Tokens in and out.
    pub fn tokens(&self) -> u64 {
        self.usage.prompt_tokens + self.usage.completion_tokens
    }

    /// Adds one call's use.
    pub fn add(&mut self, calls: u64, usage: Usage, cost: f64, estimated: bool) {
        self.calls += calls;
        self.usage += usage;
        self.cost += cost;
        self.estimated |= estimated;
    }
}

/// A batch folder's past, read from its journal.
#[derive(Debug, Default)]
pub struct Past {
    /// Invocations so far.
    pub runs: u64,
    /// The model and `model_name_or_path` of the first invocation.
    pub first_model: Option<(String, String)>,
    /// Each task's last record.
    pub records: HashMap<String, Record>,
    /// What every invocation spent.
    pub spent: Spending,
    /// Wall time of the invocations that ended (a killed one has no end line).
    pub seconds: f64,
    /// The last refusal of the batch budget.
    pub refused: Option<Exhausted>,
    /// Lines that could not be read (left out).
    pub unreadable: usize,
}

/// Reads the journal at `path` (none yet: no past).
pub fn read(path: &Path) -> anyhow::Result<Past> {
    let text = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Past::default()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let mut past = Past::default();
    let mut held: HashMap<(u64, u64), (Usage, f64)> = HashMap::new();
    // A last line without its newline was cut short: it is left out (and cut off when the journal is opened).
    let whole = text.iter().rposition(|&b| b == b'\n').map_or(0, |n| n + 1);
    for line in text[..whole].split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let Ok(entry) = serde_json::from_slice::<Entry>(line) else {
            past.unreadable += 1;
            continue;
        };
        match entry {
            Entry::Run { run, model, model_name_or_path, .. } => {
                past.runs = past.runs.max(run);
                past.first_model.get_or_insert((model, model_name_or_path));
            }
            Entry::Task(record) => {
                past.records.insert(record.instance_id.clone(), record);
            }
            Entry::Hold { run, call, most, cost } => {
                held.insert((run, call), (most, cost));
            }
            Entry::Spent { run, call, calls, usage, cost, estimated } => {
                held.remove(&(run, call));
                past.spent.add(calls, usage, cost, estimated);
            }
            Entry::Refused { exhausted, .. } => past.refused = Some(exhausted),
            Entry::Waited { .. } => {}
            Entry::Ended { seconds, .. } => past.seconds += seconds,
        }
    }
    // Calls in flight when a batch was killed: the server may have billed them whole.
    for (most, cost) in held.into_values() {
        past.spent.add(1, most, cost, true);
    }
    Ok(past)
}

/// The journal of a batch folder, open for appending.
pub struct Journal {
    file: AppendFile,
    /// This invocation's number.
    pub run: u64,
}

impl Journal {
    /// Opens (or creates) the journal at `path` for invocation `run`.
    pub fn open(path: &Path, run: u64) -> anyhow::Result<Journal> {
        let (file, _) = AppendFile::open(path, false)?;
        Ok(Journal { file, run })
    }

    /// Appends `entry`.
    pub fn write(&self, entry: &Entry) -> anyhow::Result<()> {
        self.file.append(&serde_json::to_string(entry)?)
    }

    /// Appends `entry`, saying on stderr when it cannot (the batch goes on: the predictions are the record of what
    /// is done).
    pub fn note(&self, entry: &Entry) {
        if let Err(e) = self.write(entry) {
            eprintln!("acr batch: {e:#}");
        }
    }

    /// Bytes appended by this invocation.
    pub fn written(&self) -> u64 {
        self.file.written()
    }
}

#[cfg(test)]
mod tests {
    use acr_core::llm::budget::Limit;

    use super::*;
    use crate::batch::record::Status;

    #[test]
    fn the_past_is_each_tasks_last_record_and_every_call_spent_or_held() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        let journal = Journal::open(&path, 1).unwrap();
        let usage = |p, c| Usage { prompt_tokens: p, completion_tokens: c };
        let run = Entry::Run {
            run: 1,
            model: "m".into(),
            model_name_or_path: "acr__m".into(),
            limits: Budget::unlimited(),
            at: 0,
        };
        for entry in [
            run,
            Entry::Task(Record::new("a", Status::Running, "")),
            Entry::Hold { run: 1, call: 1, most: usage(10, 100), cost: 0.5 },
            Entry::Spent { run: 1, call: 1, calls: 1, usage: usage(10, 20), cost: 0.1, estimated: false },
            Entry::Hold { run: 1, call: 2, most: usage(10, 100), cost: 0.5 },
            Entry::Task(Record::new("a", Status::Failed, "no repository")),
            Entry::Refused { run: 1, exhausted: Exhausted { what: Limit::Calls, used: 2.0, needed: 1.0, limit: 2.0 } },
        ] {
            journal.write(&entry).unwrap();
        }
        std::fs::write(&path, std::fs::read_to_string(&path).unwrap() + "{\"kind\":\"task\",\"inst").unwrap();
        let past = read(&path).unwrap();
        assert_eq!(past.runs, 1);
        assert_eq!(past.first_model, Some(("m".into(), "acr__m".into())));
        assert_eq!(past.records["a"].status, Status::Failed);
        // The first call as spent, the second (never settled) as held.
        assert_eq!((past.spent.calls, past.spent.tokens()), (2, 30 + 110));
        assert!((past.spent.cost - 0.6).abs() < 1e-9);
        assert_eq!(past.refused.map(|r| r.what), Some(Limit::Calls));
        assert_eq!(past.unreadable, 0, "the torn last line is not counted as unreadable");
        let again = Journal::open(&path, 2).unwrap();
        again.write(&Entry::Ended { run: 2, seconds: 1.5 }).unwrap();
        assert_eq!(read(&path).unwrap().seconds, 1.5, "the torn line was cut off, the next line reads");
    }
}
