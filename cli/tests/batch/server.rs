//! A batch meets model servers that are down, or that refuse a task's requests.

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use crate::common::ModelServer;
use crate::fixture::{batch_json, fixture, journal, predictions, stderr};

/// A port nothing listens on (yet).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

#[test]
fn a_server_that_comes_up_late_is_waited_for_and_every_task_gets_its_patch() {
    let f = fixture();
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}/v1");
    let out = f.out("out");
    let mut child =
        f.command(&f.tasks, &url, &out, &["--wait-for-server", "60"]).stderr(Stdio::piped()).spawn().expect("starts");
    let mut lines = BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    while !seen.contains("waiting") {
        let mut line = String::new();
        assert!(lines.read_line(&mut line).unwrap() > 0, "the batch ended first:\n{seen}");
        seen.push_str(&line);
    }
    assert!(seen.contains("acr batch: the model server failed (could not reach the model server"), "{seen}");
    let _server = ModelServer::start_with(&f.script, &["--port", &port.to_string()]);
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut lines, &mut rest).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "{seen}{rest}");
    let predicted = predictions(&out);
    assert_eq!(predicted.len(), 5, "{seen}{rest}");
    assert!(predicted.iter().all(|p| !p["model_patch"].as_str().unwrap().is_empty()), "no task ended empty");
    assert!(journal(&out).iter().any(|e| e["kind"] == "waited"), "the wait is in the journal");
}

#[test]
fn a_server_down_longer_than_the_patience_halts_the_batch_saying_what_it_waited_for() {
    let f = fixture();
    let url = format!("http://127.0.0.1:{}/v1", free_port());
    let out = f.out("out");
    let run = f.command(&f.tasks, &url, &out, &["--wait-for-server", "5", "--workers", "2"]).output().unwrap();
    let err = stderr(&run);
    assert_eq!(run.status.code(), Some(1), "worth running again later:\n{err}");
    assert!(err.contains("waiting"), "{err}");
    assert!(err.contains("the model server failed every call for"), "{err}");
    assert!(err.contains("could not reach the model server"), "says what failed: {err}");
    let report = batch_json(&out);
    let count = |s: &str| report["tasks"].as_array().unwrap().iter().filter(|r| r["status"] == s).count();
    assert_eq!((count("stopped"), count("not_run"), count("done")), (2, 3, 0), "{report}");
    assert!(report["halted"].as_str().unwrap().contains("failed every call"), "{report}");
    assert!(predictions(&out).is_empty(), "no empty prediction made of an outage");
}

#[test]
fn a_task_whose_requests_the_server_refuses_fails_alone_and_the_batch_goes_on() {
    let f = fixture();
    let server = ModelServer::start_with(&f.script, &["--refuse-when", "REFUSE-THIS-TASK"]);
    let text = std::fs::read_to_string(&f.tasks).unwrap();
    let mut lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    lines[1]["problem_statement"] =
        format!("{}\nREFUSE-THIS-TASK", lines[1]["problem_statement"].as_str().unwrap()).into();
    let tasks = f.out("tasks-refused.jsonl");
    std::fs::write(&tasks, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let out = f.out("out");
    let run = f.command(&tasks, &server.url, &out, &["--workers", "2"]).output().unwrap();
    let err = stderr(&run);
    assert_eq!(run.status.code(), Some(1), "{err}");
    assert!(!err.contains("waiting"), "a refusal is not waited out: {err}");
    let report = batch_json(&out);
    assert_eq!((report["done"].as_u64(), report["failed"].as_u64()), (Some(4), Some(1)), "{report}");
    assert_eq!(report["halted"], serde_json::Value::Null, "{report}");
    let refused = &report["tasks"][1];
    assert_eq!(refused["instance_id"], "acme__shop-2");
    let reason = refused["reason"].as_str().unwrap();
    assert!(reason.contains("the model server refused this task's requests"), "{reason}");
    assert!(reason.contains("REFUSE-THIS-TASK"), "{reason}");
}
