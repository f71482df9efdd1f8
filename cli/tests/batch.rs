//! `acr batch` end to end: SWE-bench tasks on small git repositories (the demo shop, as a clone and as a bare
//! mirror), the model played by `acr serve-model`, predictions read back by the official `swebench` package.

mod common;
#[path = "batch/fixture.rs"]
mod fixture;

#[path = "batch/budget.rs"]
mod budget;
#[path = "batch/envs.rs"]
mod envs;
#[path = "batch/scale.rs"]
mod scale;
#[path = "batch/select.rs"]
mod select;
#[path = "batch/server.rs"]
mod server;

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{ACR, ModelServer};
use fixture::{batch_json, fixture, git, ids, journal, predictions, stderr};
use serde_json::{Value, json};

/// The official `swebench` package's reading of a predictions file against the task list (as its evaluation
/// harness reads them before it builds anything), or `None` when tools/setup.sh has not installed it.
fn swebench_reading(predictions: &Path, tasks: &Path, cwd: &Path) -> Option<Value> {
    let cache = std::env::var_os("ACR_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/acr-wasm"));
    let python = cache.join("swebench/bin/python3");
    if !python.exists() {
        eprintln!("SKIPPED the swebench check: no {} (tools/setup.sh installs swebench there)", python.display());
        return None;
    }
    let program = r#"
import json, sys
from swebench.harness.utils import get_predictions_from_file
from swebench.harness.run_evaluation import get_dataset_from_preds
KEY_INSTANCE_ID, KEY_MODEL, KEY_PREDICTION = "instance_id", "model_name_or_path", "model_patch"
predictions_path, tasks_path = sys.argv[1], sys.argv[2]
predictions = get_predictions_from_file(predictions_path, tasks_path, "test")
for p in predictions:
    assert set(p) == {KEY_INSTANCE_ID, KEY_MODEL, KEY_PREDICTION}, p.keys()
by_id = {p[KEY_INSTANCE_ID]: p for p in predictions}
to_evaluate = get_dataset_from_preds(tasks_path, "test", [], by_id, "acr-batch-check", False)
print(json.dumps({
    "predictions": len(predictions),
    "ids": sorted(by_id),
    "to_evaluate": sorted(d[KEY_INSTANCE_ID] for d in to_evaluate),
    "models": sorted({p[KEY_MODEL] for p in predictions}),
}))
"#;
    let out = Command::new(python)
        .args(["-c", program])
        .arg(predictions)
        .arg(tasks)
        .current_dir(cwd)
        .env("HF_HUB_OFFLINE", "1")
        .env("HF_DATASETS_OFFLINE", "1")
        .output()
        .expect("python runs");
    assert!(out.status.success(), "swebench could not read the predictions:\n{}", String::from_utf8_lossy(&out.stderr));
    Some(serde_json::from_slice(&out.stdout).expect("JSON from the check"))
}

#[test]
fn a_batch_writes_one_prediction_per_task_that_swebench_reads_and_a_rerun_skips_them() {
    let f = fixture();
    let server = ModelServer::start(&f.script);
    let out = f.out("out");
    let run = f.run(&server, &out, &["--workers", "2"]);
    let err = stderr(&run);
    assert_eq!(run.status.code(), Some(0), "{err}");
    assert!(err.contains("acr batch: 5 tasks, 0 done earlier, 5 to run with 2 workers"), "{err}");
    assert!(err.contains("[5/5] ") && err.contains("5 of 5 done"), "a progress line per task:\n{err}");

    let predictions = predictions(&out);
    let mut got = ids(&predictions);
    got.sort();
    assert_eq!(got, f.ids, "one prediction per task");
    for p in &predictions {
        assert_eq!(p["model_name_or_path"], "acr-wasm__scripted");
        let patch = p["model_patch"].as_str().unwrap();
        assert!(patch.contains("+            total += item.price_cents * units"), "{patch}");
        // The patch applies to the task's own commit.
        let id = p["instance_id"].as_str().unwrap();
        let task = std::fs::read_to_string(&f.tasks).unwrap();
        let task: Value =
            task.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()).find(|t| t["instance_id"] == id).unwrap();
        let check = f.dir.path().join(format!("check-{id}"));
        git(
            f.dir.path(),
            &["clone", "-q", "--shared", f.repos.join("acme/shop").to_str().unwrap(), check.to_str().unwrap()],
        );
        git(&check, &["checkout", "-q", "--detach", task["base_commit"].as_str().unwrap()]);
        std::fs::write(check.join("model.patch"), patch).unwrap();
        git(&check, &["apply", "--check", "model.patch"]);
        // What `acr run --out` writes.
        for file in ["transcript.json", "outcome.json", "final.diff", "record.json"] {
            assert!(out.join(id).join(file).is_file(), "{id}/{file}");
        }
    }
    let report = batch_json(&out);
    assert_eq!(
        (report["total"].as_u64(), report["done"].as_u64(), report["patches"].as_u64()),
        (Some(5), Some(5), Some(5))
    );
    for record in report["tasks"].as_array().unwrap() {
        assert_eq!(record["status"], "done", "{record}");
        assert!(record["model_calls"].as_u64().unwrap() > 0 && record["seconds"].as_f64().unwrap() > 0.0, "{record}");
        assert!(record["usage"]["prompt_tokens"].as_u64().unwrap() > 0, "{record}");
    }
    assert!(report["spent"]["calls"].as_u64().unwrap() >= 5);
    f.assert_repos_unchanged();
    assert!(!out.join(".scratch").exists(), "the checkouts are removed");

    if let Some(reading) = swebench_reading(&out.join("predictions.jsonl"), &f.tasks, f.dir.path()) {
        assert_eq!(reading["predictions"], 5, "{reading}");
        assert_eq!(reading["ids"], json!(f.ids), "{reading}");
        assert_eq!(reading["to_evaluate"], json!(f.ids), "every prediction is in the task list and has a patch");
        assert_eq!(reading["models"], json!(["acr-wasm__scripted"]));
    }

    // The same command again: nothing to do, nothing written twice.
    let before = std::fs::read(out.join("predictions.jsonl")).unwrap();
    let again = f.run(&server, &out, &["--workers", "2"]);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert!(stderr(&again).contains("5 tasks, 5 done earlier, 0 to run"), "{}", stderr(&again));
    assert_eq!(std::fs::read(out.join("predictions.jsonl")).unwrap(), before);
    let report = batch_json(&out);
    assert!(
        report["tasks"].as_array().unwrap().iter().all(|r| r["earlier"] == true && r["model_calls"].as_u64() > Some(0))
    );
}

#[test]
fn a_batch_killed_midway_resumes_with_exactly_one_prediction_per_task() {
    let f = fixture();
    // Streamed answers a few milliseconds per chunk: a task takes a fraction of a second.
    let server = ModelServer::start_with(&f.script, &["--event-gap-ms", "4"]);
    let out = f.out("out");
    let mut child = f.batch(&server, &out, &["--stream"]).stderr(Stdio::piped()).spawn().expect("acr batch starts");
    let mut lines = BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    // The first task ended and the second started.
    while !(seen.contains("[1/5] ") && seen.matches("  start ").count() == 2) {
        let mut line = String::new();
        assert!(lines.read_line(&mut line).unwrap() > 0, "the batch ended first:\n{seen}");
        seen.push_str(&line);
    }
    child.kill().expect("SIGKILL");
    child.wait().unwrap();
    let kept = predictions(&out);
    assert!(!kept.is_empty() && kept.len() < 5, "killed midway: {} predictions", kept.len());
    let journal = journal(&out);
    let last = |id: &str| journal.iter().rev().find(|e| e["kind"] == "task" && e["instance_id"] == id).cloned();
    assert!(f.ids.iter().any(|id| last(id).is_some_and(|r| r["status"] == "running")), "one was running: {journal:?}");

    // What a kill in the middle of a write, or a second writer, could leave: a repeated line, a line cut short.
    let mut file = std::fs::OpenOptions::new().append(true).open(out.join("predictions.jsonl")).unwrap();
    writeln!(file, "{}", kept[0]).unwrap();
    let next = serde_json::to_string(&json!({"instance_id": "acme__tools-2", "model_name_or_path": "acr-wasm__scripted", "model_patch": "diff --git a/x b/x"})).unwrap();
    file.write_all(&next.as_bytes()[..40]).unwrap();
    drop(file);

    let rerun = f.run(&server, &out, &[]);
    let err = stderr(&rerun);
    assert_eq!(rerun.status.code(), Some(0), "{err}");
    assert!(err.contains("repaired predictions.jsonl: dropped 40 bytes of a line cut short, 1 repeated"), "{err}");
    assert!(err.contains(&format!("{} done earlier, {} to run", kept.len(), 5 - kept.len())), "{err}");
    let all = predictions(&out);
    let mut got = ids(&all);
    assert_eq!(got.len(), 5, "{got:?}");
    got.sort();
    assert_eq!(got, f.ids, "exactly one prediction per task");
    assert_eq!(&all[..kept.len()], &kept[..], "the predictions made before the kill are kept as they were");
    let report = batch_json(&out);
    assert_eq!(report["done"], 5);
    f.assert_repos_unchanged();
}

#[test]
fn a_tiny_batch_budget_leaves_tasks_not_run_and_says_why() {
    let f = fixture();
    let server = ModelServer::start(&f.script);
    let out = f.out("out");
    // A task takes four calls: the first is done, the second is stopped at its third call, the rest never start.
    let run = f.run(&server, &out, &["--batch-max-calls", "6"]);
    let err = stderr(&run);
    assert_eq!(run.status.code(), Some(3), "the batch budget is spent:\n{err}");
    assert_eq!(ids(&predictions(&out)), ["acme__shop-1"]);
    let report = batch_json(&out);
    let status: Vec<&str> = report["tasks"].as_array().unwrap().iter().map(|r| r["status"].as_str().unwrap()).collect();
    assert_eq!(status, ["done", "stopped", "not_run", "not_run", "not_run"], "{report}");
    for record in &report["tasks"].as_array().unwrap()[1..] {
        assert_eq!(
            record["reason"], "the batch budget is spent (budget exhausted: 6 calls used of 6 calls)",
            "{record}"
        );
    }
    assert_eq!(report["tasks"][1]["model_calls"], 2);
    assert_eq!(report["spent"]["calls"], 6, "never over the batch's budget");
    assert_eq!((report["not_run"].as_u64(), report["stopped"].as_u64()), (Some(3), Some(1)));
    assert!(err.contains("3 tasks not started: the batch budget is spent"), "{err}");

    // Without the limit the same command finishes the rest.
    let rerun = f.run(&server, &out, &[]);
    assert_eq!(rerun.status.code(), Some(0), "{}", stderr(&rerun));
    assert!(stderr(&rerun).contains("1 done earlier, 4 to run"), "{}", stderr(&rerun));
    assert_eq!(predictions(&out).len(), 5);
}

#[test]
fn shards_cover_each_task_exactly_once_and_merge_gives_the_full_set() {
    let f = fixture();
    let server = ModelServer::start(&f.script);
    let mut seen: Vec<String> = Vec::new();
    let mut outs = Vec::new();
    for i in 1..=3 {
        let out = f.out(&format!("shard-{i}"));
        let run = f.run(&server, &out, &["--shard", &format!("{i}/3")]);
        assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
        assert!(stderr(&run).contains(&format!("(shard {i}/3 of 5)")), "{}", stderr(&run));
        seen.extend(ids(&predictions(&out)));
        outs.push(out);
    }
    let unique: BTreeSet<&String> = seen.iter().collect();
    assert_eq!(seen.len(), 5, "no task in two shards: {seen:?}");
    assert_eq!(unique.into_iter().cloned().collect::<Vec<_>>(), f.ids, "every task in a shard");

    let merged = f.out("merged");
    let merge = Command::new(ACR)
        .args(["batch", "merge"])
        .args(&outs)
        .arg("--into")
        .arg(&merged)
        .arg("--tasks")
        .arg(&f.tasks)
        .output()
        .unwrap();
    assert_eq!(merge.status.code(), Some(0), "{}", stderr(&merge));
    assert!(stderr(&merge).contains("5 predictions (5 with a patch) from 3 folders"), "{}", stderr(&merge));
    let mut all = ids(&predictions(&merged));
    all.sort();
    assert_eq!(all, f.ids);
    let report = batch_json(&merged);
    assert_eq!(report["tasks"].as_array().unwrap().len(), 5);
    assert!(report["tasks"][0]["folder"].as_str().unwrap().contains("shard-"), "{report}");

    // A shard left out: its tasks are named, and the exit code says so.
    let partial = Command::new(ACR)
        .args(["batch", "merge"])
        .args(&outs[..2])
        .arg("--into")
        .arg(f.out("partial"))
        .arg("--tasks")
        .arg(&f.tasks)
        .output()
        .unwrap();
    let missing = 5 - predictions(&outs[0]).len() - predictions(&outs[1]).len();
    assert_eq!(partial.status.code(), Some(if missing == 0 { 0 } else { 1 }), "{}", stderr(&partial));
    assert!(stderr(&partial).contains(&format!("{missing} tasks have none")), "{}", stderr(&partial));
}

#[test]
fn bad_task_lists_and_missing_repositories_are_reported() {
    let f = fixture();
    let server = ModelServer::start(&f.script);
    // A task whose repository is not there fails alone; the others are done.
    let tasks = std::fs::read_to_string(&f.tasks).unwrap().replace("\"acme/tools\"", "\"acme/missing\"");
    let list = f.out("missing.jsonl");
    std::fs::write(&list, tasks).unwrap();
    let out = f.out("out");
    let run = Command::new(ACR)
        .arg("batch")
        .arg("--tasks")
        .arg(&list)
        .arg("--repos")
        .arg(&f.repos)
        .arg("--out")
        .arg(&out)
        .args(["--endpoint", &server.url, "--model", "scripted"])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1), "{}", stderr(&run));
    let report = batch_json(&out);
    assert_eq!((report["done"].as_u64(), report["failed"].as_u64()), (Some(3), Some(2)), "{report}");
    let failed = report["tasks"].as_array().unwrap().iter().find(|r| r["status"] == "failed").unwrap();
    assert!(failed["reason"].as_str().unwrap().contains("no repository"), "{failed}");

    // A list with an id twice is refused before anything runs.
    let twice = std::fs::read_to_string(&f.tasks).unwrap().lines().next().unwrap().to_string();
    std::fs::write(&list, format!("{twice}\n{twice}\n")).unwrap();
    let run = Command::new(ACR)
        .arg("batch")
        .arg("--tasks")
        .arg(&list)
        .arg("--repos")
        .arg(&f.repos)
        .arg("--out")
        .arg(f.out("out2"))
        .args(["--script"])
        .arg(&f.script)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(stderr(&run).contains("task acme__shop-1 is listed twice"), "{}", stderr(&run));
}

#[test]
fn ctrl_c_stops_the_running_tasks_starts_no_more_and_the_rest_runs_on_resume() {
    let f = fixture();
    let server = ModelServer::start_with(&f.script, &["--event-gap-ms", "20"]);
    let out = f.out("out");
    let mut child =
        f.batch(&server, &out, &["--stream", "--workers", "2"]).stderr(Stdio::piped()).spawn().expect("starts");
    let mut lines = BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    while !seen.contains("[1/5] ") {
        let mut line = String::new();
        assert!(lines.read_line(&mut line).unwrap() > 0, "the batch ended first:\n{seen}");
        seen.push_str(&line);
    }
    let interrupted = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(interrupted.success());
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut lines, &mut rest).unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(130), "{seen}{rest}");
    assert!(rest.contains("stopping: running tasks end before their next model call"), "{rest}");
    let report = batch_json(&out);
    let count = |s: &str| report["tasks"].as_array().unwrap().iter().filter(|r| r["status"] == s).count();
    assert!(count("done") >= 1 && count("done") < 5, "{report}");
    assert_eq!(count("done") + count("stopped") + count("not_run"), 5, "{report}");
    assert!(count("not_run") >= 1, "no task starts after Ctrl-C: {report}");
    assert_eq!(predictions(&out).len(), count("done"));

    let rerun = f.run(&server, &out, &["--workers", "2"]);
    assert_eq!(rerun.status.code(), Some(0), "{}", stderr(&rerun));
    assert_eq!(predictions(&out).len(), 5);
}
