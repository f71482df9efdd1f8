//! Choosing what a batch runs: `--redo`, `--instance-ids`, `--filter`, and the model a folder was started with.

use std::collections::BTreeSet;

use crate::common::ModelServer;
use crate::fixture::{batch_json, fixture, ids, journal, predictions, stderr};

/// The tasks the last invocation started, from the journal (after its last `run` line).
fn started_last(out: &std::path::Path) -> BTreeSet<String> {
    let journal = journal(out);
    let last_run = journal.iter().rposition(|e| e["kind"] == "run").unwrap();
    journal[last_run..]
        .iter()
        .filter(|e| e["kind"] == "task" && e["status"] == "running")
        .map(|e| e["instance_id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn failed_tasks_are_kept_until_redo_failed_runs_exactly_them_again() {
    let f = fixture();
    let server = ModelServer::start(&f.script);
    // acme/tools is missing: its two tasks fail.
    let tools = f.repos.join("acme/tools.git");
    let away = f.out("tools.git");
    std::fs::rename(&tools, &away).unwrap();
    let out = f.out("out");
    let first = f.run(&server, &out, &["--workers", "2"]);
    assert_eq!(first.status.code(), Some(1), "{}", stderr(&first));
    let failed: BTreeSet<String> = ["acme__tools-1", "acme__tools-2"].map(String::from).into();
    let report = batch_json(&out);
    let status = |id: &str| {
        report["tasks"].as_array().unwrap().iter().find(|r| r["instance_id"] == id).unwrap()["status"].clone()
    };
    assert!(failed.iter().all(|id| status(id) == "failed"), "{report}");

    // The repository is back; a plain resume keeps the failures (they failed for reasons of their own).
    std::fs::rename(&away, &tools).unwrap();
    let resumed = f.run(&server, &out, &[]);
    assert_eq!(resumed.status.code(), Some(1), "{}", stderr(&resumed));
    let err = stderr(&resumed);
    assert!(err.contains("3 done earlier, 2 failed earlier (kept: --redo failed runs them again), 0 to run"), "{err}");
    assert!(started_last(&out).is_empty());

    let redo = f.run(&server, &out, &["--redo", "failed"]);
    let err = stderr(&redo);
    assert_eq!(redo.status.code(), Some(0), "{err}");
    assert!(err.contains("3 done earlier, 2 to run"), "{err}");
    assert_eq!(started_last(&out), failed, "exactly the failed tasks ran again");
    let mut all = ids(&predictions(&out));
    all.sort();
    assert_eq!(all, f.ids, "one prediction per task");
}

#[test]
fn redo_empty_and_patch_replace_the_prediction_of_a_done_task() {
    let f = fixture();
    let server = ModelServer::start(&f.script);
    let out = f.out("out");
    assert_eq!(f.run(&server, &out, &["--instance-ids", "acme__shop-1"]).status.code(), Some(0));
    let before = predictions(&out);
    let redo = f.run(&server, &out, &["--instance-ids", "acme__shop-1", "--redo", "patch,empty"]);
    let err = stderr(&redo);
    assert_eq!(redo.status.code(), Some(0), "{err}");
    assert!(err.contains("--redo: 1 predictions removed, their tasks run again"), "{err}");
    assert_eq!(started_last(&out), BTreeSet::from(["acme__shop-1".to_string()]));
    assert_eq!(predictions(&out), before, "one line for the task, made again (the scripted model repeats itself)");
}

#[test]
fn instance_ids_and_filter_choose_the_tasks_that_run() {
    let f = fixture();
    let server = ModelServer::start(&f.script);
    let out = f.out("out");
    let tools = f.run(&server, &out, &["--filter", "^acme__tools-"]);
    assert_eq!(tools.status.code(), Some(0), "{}", stderr(&tools));
    assert!(stderr(&tools).contains("2 tasks selected by --instance-ids/--filter"), "{}", stderr(&tools));
    assert_eq!(started_last(&out), BTreeSet::from(["acme__tools-1".into(), "acme__tools-2".into()]));
    let two = f.run(&server, &out, &["--instance-ids", "acme__shop-1,acme__shop-3", "--instance-ids", "acme__tools-1"]);
    assert_eq!(two.status.code(), Some(0), "{}", stderr(&two));
    assert_eq!(started_last(&out), BTreeSet::from(["acme__shop-1".into(), "acme__shop-3".into()]), "tools-1 is done");
    assert_eq!(predictions(&out).len(), 4);
    let bad = f.run(&server, &out, &["--filter", "(unclosed"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("--filter \"(unclosed\" is not a regex"), "{}", stderr(&bad));
}

#[test]
fn a_folder_started_with_one_model_is_not_resumed_with_another_unless_asked() {
    let f = fixture();
    let server = ModelServer::start(&f.script);
    let out = f.out("out");
    assert_eq!(f.run(&server, &out, &["--instance-ids", "acme__shop-1"]).status.code(), Some(0));
    let other = f.command_for("another", &f.tasks, &server.url, &out, &[]).output().unwrap();
    let err = stderr(&other);
    assert_eq!(other.status.code(), Some(2), "{err}");
    assert!(err.contains("this folder was started with --model scripted (predictions as acr-wasm__scripted)"), "{err}");
    assert!(err.contains("--allow-model-change"), "{err}");
    assert_eq!(predictions(&out).len(), 1, "nothing written");
    // The same model under another name in the predictions is another model too.
    let renamed = f.run(&server, &out, &["--model-name", "mine"]);
    assert_eq!(renamed.status.code(), Some(2), "{}", stderr(&renamed));
    let allowed = f.run(&server, &out, &["--model-name", "mine", "--allow-model-change"]);
    assert_eq!(allowed.status.code(), Some(0), "{}", stderr(&allowed));
    let names: BTreeSet<String> =
        predictions(&out).iter().map(|p| p["model_name_or_path"].as_str().unwrap().to_string()).collect();
    assert_eq!(names, BTreeSet::from(["acr-wasm__scripted".into(), "mine".into()]), "mixed, as asked");
}
