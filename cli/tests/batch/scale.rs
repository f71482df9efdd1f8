//! What a batch writes as its task list grows, and what a person watching it sees.

use std::process::{Command, Output};

use crate::common::ModelServer;
use crate::fixture::{Fixture, batch_json, fixture, predictions, stderr};

/// Bytes written to batch.json and to the journal, as the batch's closing lines count them.
fn written(err: &str) -> (u64, u64) {
    let line = err.lines().find(|l| l.starts_with("acr batch: wrote batch.json")).expect("the closing line");
    let numbers: Vec<u64> =
        line.split(|c: char| !c.is_ascii_digit()).filter(|w| !w.is_empty()).map(|w| w.parse().unwrap()).collect();
    // "wrote batch.json N times (B bytes) and J bytes of journal.jsonl"
    (numbers[1], numbers[2])
}

fn run_many(f: &Fixture, server: &ModelServer, n: usize) -> (Output, String) {
    let tasks = f.many(n, &format!("many-{n}.jsonl"));
    let out = f.out(&format!("many-{n}"));
    let run = f.command(&tasks, &server.url, &out, &["--workers", "2"]).output().unwrap();
    let err = stderr(&run);
    assert_eq!(run.status.code(), Some(0), "{err}");
    assert_eq!(predictions(&out).len(), n);
    assert_eq!(batch_json(&out)["tasks"].as_array().unwrap().len(), n);
    (run, err)
}

/// batch.json used to be rewritten whole after each task: bytes quadratic in the tasks. Now its bytes per task stay
/// flat as the list grows (three times the tasks: at most half again as many bytes per task, where rewriting it
/// for each task gives three times as many).
#[test]
fn what_a_batch_writes_grows_with_its_tasks_not_their_square() {
    let f = fixture();
    let server = ModelServer::start(&f.script);
    let (_, small) = run_many(&f, &server, 20);
    let (_, large) = run_many(&f, &server, 60);
    let (small_json, small_journal) = written(&small);
    let (large_json, large_journal) = written(&large);
    let per_task = |bytes: u64, n: u64| bytes as f64 / n as f64;
    assert!(
        per_task(large_json, 60) < 1.5 * per_task(small_json, 20),
        "batch.json: {small_json} bytes for 20 tasks, {large_json} for 60"
    );
    assert!(
        per_task(large_journal, 60) < 1.5 * per_task(small_journal, 20),
        "journal: {small_journal} bytes for 20 tasks, {large_journal} for 60"
    );
}

/// The figure for the report: `cargo test -q -p acr-cli --test batch -- --ignored --nocapture five_hundred`.
#[test]
#[ignore = "a measurement (about a minute): run it by name"]
fn five_hundred_tasks_figures() {
    let f = fixture();
    let server = ModelServer::start(&f.script);
    let started = std::time::Instant::now();
    let (_, err) = run_many(&f, &server, 500);
    let (json, journal) = written(&err);
    println!(
        "500 tasks, 2 workers, {:.1} s: batch.json {json} bytes written ({:.0} per task), journal.jsonl {journal} \
         bytes ({:.0} per task)",
        started.elapsed().as_secs_f64(),
        json as f64 / 500.0,
        journal as f64 / 500.0
    );
}

/// On a terminal (a pseudo-terminal from `script`) a live bar; through a pipe only plain lines, no escape codes.
#[test]
fn a_terminal_gets_a_live_bar_and_a_pipe_plain_lines() {
    let f = fixture();
    let server = ModelServer::start_with(&f.script, &["--event-gap-ms", "2"]);
    let piped = f.run(&server, &f.out("piped"), &["--stream"]);
    let plain = stderr(&piped);
    assert_eq!(piped.status.code(), Some(0), "{plain}");
    assert!(!plain.contains('\u{1b}') && !plain.contains('\r'), "no escape codes through a pipe:\n{plain}");
    assert_eq!(plain.matches("  start acme__").count(), 5, "a line when each task starts:\n{plain}");

    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("SKIPPED the terminal half: no `script` (util-linux)");
        return;
    }
    let out = f.out("terminal");
    let command = f.batch(&server, &out, &["--stream"]);
    let line: Vec<String> = std::iter::once(command.get_program())
        .chain(command.get_args())
        .map(|a| shell_quote(&a.to_string_lossy()))
        .collect();
    let typescript = f.out("typescript");
    let run = Command::new("script")
        .args(["-qefc", &line.join(" ")])
        .arg(&typescript)
        .env("COLUMNS", "160")
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let screen = std::fs::read_to_string(&typescript).unwrap();
    assert!(screen.contains('\u{1b}'), "the bar is drawn with escape codes:\n{screen}");
    assert!(screen.contains(" with a patch, "), "the bar's words:\n{screen}");
    assert!(screen.contains("/5 "), "done of total:\n{screen}");
    assert_eq!(predictions(&out).len(), 5);
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}
