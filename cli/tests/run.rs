//! `acr run` end to end over real HTTP: `acr serve-model` plays a script as a chat-completions server on
//! 127.0.0.1, `acr run` talks to it with the native client, and reproducers run as real python3 processes.

use std::path::Path;
use std::process::{Command, Output};

mod common;
use common::{ACR, ModelServer, root};

fn acr_run(server: &ModelServer, extra: &[&str], out: &Path) -> Output {
    acr_run_command(server, extra, out).output().expect("acr run runs")
}

/// `acr run` on the demo repository against `server`, writing to `out`, ready to adjust and start.
fn acr_run_command(server: &ModelServer, extra: &[&str], out: &Path) -> Command {
    let demo = root().join("web/demo");
    let mut command = Command::new(ACR);
    command
        .arg("run")
        .arg(&demo)
        .arg("--issue")
        .arg(demo.join("ISSUE.md"))
        .args(["--endpoint", &server.url, "--model", "scripted"])
        .arg("--out")
        .arg(out)
        .args(extra);
    command
}

fn python3_available() -> bool {
    Command::new("python3").arg("--version").output().is_ok_and(|o| o.status.success())
}

fn events(out: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(out.join("transcript.json")).expect("transcript written");
    let v: serde_json::Value = serde_json::from_str(&text).expect("transcript is JSON");
    v["events"].as_array().expect("events").clone()
}

fn of_kind<'a>(events: &'a [serde_json::Value], kind: &str) -> Vec<&'a serde_json::Value> {
    events.iter().filter(|e| e["event"] == kind).collect()
}

#[test]
fn search_locate_patch_retry_and_review_with_python() {
    if !python3_available() {
        eprintln!("skipped: python3 is not installed");
        return;
    }
    let server = ModelServer::start("demo-retry-review.json");
    let out = tempfile::tempdir().expect("temp dir");
    let run = acr_run(&server, &["--runner", "local"], out.path());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "acr run failed:\n{stderr}");
    let diff = String::from_utf8_lossy(&run.stdout);
    assert!(diff.contains("+            total += item.price_cents * units"), "{diff}");

    let events = events(out.path());
    let calls: Vec<&str> = of_kind(&events, "search").iter().map(|e| e["call"].as_str().unwrap()).collect();
    assert_eq!(calls, ["search_class(\"Cart\")", "search_method_in_class(\"total\", \"Cart\")"]);
    let found = of_kind(&events, "locations");
    assert_eq!(found[0]["found"][0]["file"], "inventory/cart.py");
    let patches: Vec<&str> = of_kind(&events, "patch").iter().map(|e| e["status"].as_str().unwrap()).collect();
    assert_eq!(patches, ["RAW_PATCH_BUT_UNMATCHED", "APPLICABLE_PATCH"], "one retry after a failed match");
    let runs: Vec<(String, i64)> = of_kind(&events, "run")
        .iter()
        .map(|e| (e["purpose"].as_str().unwrap().to_string(), e["outcome"]["exit_code"].as_i64().unwrap_or(-1)))
        .collect();
    assert_eq!(
        runs,
        [
            ("reproducer on original".into(), 1),
            ("reproducer on patch".into(), 0),
            // Validation's regression check: the demo's own test of the cart fails before the fix, passes after.
            ("tests on original".into(), 1),
            ("tests on patch".into(), 0),
        ],
        "python3 really ran"
    );
    let trace = of_kind(&events, "run")[0]["outcome"]["stderr"].as_str().unwrap().to_string();
    assert!(trace.contains("AssertionError"), "{trace}");
    let tests_run = of_kind(&events, "run")[3]["outcome"]["stdout"].as_str().unwrap().to_string();
    assert!(tests_run.contains("PASS tests/test_cart.py::test_total_counts_units"), "{tests_run}");
    // Reproduce first: the reproducer ran before the search, and its trace is in the first search request.
    let position = |kind: &str| events.iter().position(|e| e["event"] == kind).unwrap();
    assert!(position("run") < position("search"));
    let first_search = events.iter().find(|e| e["event"] == "model" && e["stage"] == "search").expect("a search");
    let prompt = first_search["prompt"].as_str().unwrap();
    assert!(prompt.contains("AssertionError: expected 150 cents"), "{prompt}");
    assert!(stderr.contains("validated by execution"), "{stderr}");
    assert!(out.path().join("final.diff").exists());
    let outcome: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("outcome.json")).unwrap()).unwrap();
    assert_eq!(outcome["selection"]["chosen"], 1);
    assert_eq!(outcome["selection"]["reason"], "try 1 was validated by execution");
    assert_eq!(outcome["tries"].as_array().map(Vec::len), Some(1));
}

#[test]
fn mcts_finds_the_passing_patch_among_failing_ones() {
    if !python3_available() {
        eprintln!("skipped: python3 is not installed");
        return;
    }
    let server = ModelServer::start("demo-mcts.json");
    let out = tempfile::tempdir().expect("temp dir");
    let run = acr_run(&server, &["--runner", "local", "--mode", "mcts"], out.path());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "acr run failed:\n{stderr}");
    assert!(String::from_utf8_lossy(&run.stdout).contains("item.price_cents * units"));
    let events = events(out.path());
    let last = of_kind(&events, "mcts").last().cloned().expect("an MCTS iteration");
    let verdicts: Vec<&str> = last["tree"].as_array().unwrap().iter().map(|n| n["verdict"].as_str().unwrap()).collect();
    assert_eq!(verdicts, ["", "fail", "fail", "pass"], "two failing candidates, then the passing one");
    assert!(stderr.contains("validated by execution"), "{stderr}");
}

#[test]
fn a_dead_endpoint_is_a_clear_error() {
    let demo = root().join("web/demo");
    let run = Command::new(ACR)
        .arg("run")
        .arg(&demo)
        .arg("--issue")
        .arg(demo.join("ISSUE.md"))
        .args(["--endpoint", "http://127.0.0.1:9/v1", "--timeout", "5"])
        .output()
        .expect("acr run runs");
    assert_eq!(run.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("could not reach the model server"), "{stderr}");
}

#[test]
fn local_runs_refuse_to_start_without_bubblewrap_unless_told() {
    let Ok(found) = Command::new("python3").args(["-c", "import sys; print(sys.executable)"]).output() else {
        eprintln!("skipped: python3 is not installed");
        return;
    };
    // A PATH with python3 and nothing else: no bwrap.
    let bin = tempfile::tempdir().expect("temp dir");
    let real = String::from_utf8_lossy(&found.stdout).trim().to_string();
    std::os::unix::fs::symlink(&real, bin.path().join("python3")).expect("link");
    let server = ModelServer::start("demo-retry-review.json");
    let out = tempfile::tempdir().expect("temp dir");
    let path = bin.path().to_string_lossy().into_owned();
    let with_path = |extra: &[&str]| {
        let args = [&["--runner", "local"], extra].concat();
        acr_run_command(&server, &args, out.path()).env("PATH", &path).output().expect("acr run runs")
    };
    let refused = with_path(&[]);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("bubblewrap (bwrap) is not installed") && stderr.contains("--unsafe-no-sandbox"),
        "{stderr}"
    );

    let unsafe_run = with_path(&["--unsafe-no-sandbox"]);
    let stderr = String::from_utf8_lossy(&unsafe_run.stderr);
    assert!(unsafe_run.status.success(), "{stderr}");
    assert!(stderr.starts_with("UNSAFE: runs are NOT sandboxed"), "{stderr}");
    let runs =
        of_kind(&events(out.path()), "run").iter().map(|e| e["outcome"]["unsandboxed"].clone()).collect::<Vec<_>>();
    // Reproducer before and after, then validation's regression check before and after.
    assert_eq!(runs, vec![serde_json::Value::Bool(true); 4], "every run result says so");
}
