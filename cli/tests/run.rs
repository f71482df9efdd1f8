//! `acr run` end to end over real HTTP: `acr serve-model` plays a script as a chat-completions server on
//! 127.0.0.1, `acr run` talks to it with the native client, and reproducers run as real python3 processes.

use std::process::Command;

mod common;
use common::{ModelServer, acr_run, acr_run_command, acr_run_demo, events, of_kind, python3_available, runs};

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
    assert_eq!(
        runs(&events),
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
    let run = acr_run_demo(["--endpoint", "http://127.0.0.1:9/v1", "--timeout", "5"]);
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

#[test]
fn a_reasoning_models_drafts_are_kept_but_not_applied() {
    let server = ModelServer::start("demo-reasoning.json");
    let out = tempfile::tempdir().expect("temp dir");
    let run = acr_run(&server, &[], out.path());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "acr run failed:\n{stderr}");
    let diff = String::from_utf8_lossy(&run.stdout);
    assert!(diff.contains("+            total += item.price_cents * units"), "{diff}");
    assert!(!diff.contains("+ units"), "the drafted edit was applied: {diff}");
    let events = events(out.path());
    let calls: Vec<&str> = of_kind(&events, "search").iter().map(|e| e["call"].as_str().unwrap()).collect();
    assert!(!calls.iter().any(|c| c.contains("receipt")), "a search drafted while thinking ran: {calls:?}");
    let models = of_kind(&events, "model");
    assert!(models.iter().all(|e| e["reasoning"].is_string() && !e["answer"].as_str().unwrap().contains("think>")));
    let patch_call = std::fs::read_to_string(out.path().join("model_004_patch.md")).expect("patch call written");
    assert!(patch_call.contains("## reasoning\n\nA first draft:"), "{patch_call}");
}

#[test]
fn streamed_answers_give_the_same_repair_and_show_as_they_arrive() {
    let server = ModelServer::start("demo-reasoning.json");
    let out = tempfile::tempdir().expect("temp dir");
    let run = acr_run(&server, &["--stream"], out.path());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "acr run --stream failed:\n{stderr}");
    let diff = String::from_utf8_lossy(&run.stdout);
    assert!(diff.contains("+            total += item.price_cents * units"), "{diff}");
    assert!(!diff.contains("+ units"), "the drafted edit was applied: {diff}");
    let echoed =
        "  > The issue is about `Cart.total()`. I will read the class and the method first.\n    \n    search_class";
    assert!(stderr.contains(echoed), "the answers are echoed as they arrive:\n{stderr}");
    assert!(stderr.contains("(the text above was thinking)\n  > `Cart` keeps"), "{stderr}");
    let models = of_kind(&events(out.path()), "model").into_iter().cloned().collect::<Vec<_>>();
    assert!(models.iter().all(|e| e["usage_estimated"].is_null()), "usage came from the final chunk: {models:?}");
    assert!(models.iter().all(|e| !e["answer"].as_str().unwrap().contains("think>")));
    assert!(models.iter().any(|e| e["reasoning"].is_string()), "thinking kept apart");
}

#[test]
fn a_call_budget_stops_the_run_and_keeps_the_best_patch() {
    let server = ModelServer::start("demo-mcts.json");
    let out = tempfile::tempdir().expect("temp dir");
    let run = acr_run(&server, &["--mode", "mcts", "--max-calls", "8"], out.path());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("stopped early: budget exhausted: 8 calls used of 8 calls"), "{stderr}");
    assert!(stderr.contains("; raise the limit it names (--max-calls"), "what to do: {stderr}");
    assert!(run.status.success(), "a patch was kept:\n{stderr}");
    assert!(String::from_utf8_lossy(&run.stdout).contains("+++ b/inventory/cart.py"));
    let outcome: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("outcome.json")).unwrap()).unwrap();
    assert_eq!(outcome["model_calls"], 8);
    assert_eq!(outcome["stopped"]["kind"], "budget");
    assert_eq!(outcome["stopped"]["limit"]["what"], "calls");
    assert_eq!(outcome["status"], "APPLICABLE_PATCH");
}

#[test]
fn a_money_budget_needs_a_price() {
    let run = acr_run_demo(["--endpoint", "http://127.0.0.1:9/v1", "--model", "qwen3:8b", "--max-cost", "1"]);
    assert_eq!(run.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("a money budget needs a price for `qwen3:8b`") && stderr.contains("--price"), "{stderr}");
}

#[test]
fn ctrl_c_stops_the_run_cuts_the_answer_and_keeps_the_transcript() {
    use std::io::{BufRead, BufReader};
    let server = ModelServer::start_with("demo-reasoning.json", &["--event-gap-ms", "200"]);
    let out = tempfile::tempdir().expect("temp dir");
    let mut child = acr_run_command(&server, &["--stream"], out.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("acr run starts");
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
    let mut seen = String::new();
    // Wait for the first answer to start arriving, then press Ctrl-C.
    while !seen.contains("  > ") {
        let mut line = String::new();
        assert!(stderr.read_line(&mut line).expect("stderr readable") > 0, "the run ended first:\n{seen}");
        seen.push_str(&line);
    }
    let interrupted = Command::new("kill").args(["-INT", &child.id().to_string()]).status().expect("kill runs");
    assert!(interrupted.success());
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).expect("stderr readable");
    let status = child.wait().expect("acr run ends");
    assert_eq!(status.code(), Some(130), "{seen}{rest}");
    assert!(rest.contains("stopping: the run ends before its next model call"), "{rest}");
    assert!(rest.contains("stopped by the user; the run stops here, no patch was made"), "{rest}");
    let outcome: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("outcome.json")).unwrap()).unwrap();
    assert_eq!(outcome["stopped"]["kind"], "cancelled");
    assert_eq!(outcome["status"], "NO_PATCH");
    assert!(!events(out.path()).is_empty(), "the transcript so far is kept");
}

/// A model that fails midway in a way no retry can fix (here a script that runs out of answers) ends the run as
/// failed, and the transcript so far is kept in `--out`.
#[test]
fn a_run_that_fails_midway_keeps_its_transcript() {
    let scratch = tempfile::tempdir().expect("temp dir");
    let script = scratch.path().join("short.json");
    std::fs::write(&script, r#"{"answers": {"search": ["search_class(\"Cart\")"]}}"#).unwrap();
    let out = scratch.path().join("out");
    let run = acr_run_demo(["--script", script.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(!run.status.success());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("wrote the transcript so far to"), "{stderr}");
    let outcome: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("outcome.json")).unwrap()).unwrap();
    assert_eq!(outcome["status"], "FAILED");
    assert!(outcome["error"].as_str().unwrap().contains("no answer left"), "{outcome}");
    assert!(!of_kind(&events(&out), "model").is_empty(), "the calls before the failure are kept");
}

#[test]
fn a_context_window_leaves_old_results_out_instead_of_overflowing() {
    // The server refuses a prompt and its answer cap over 900 tokens; the decide request of the demo is about 940.
    // With a window of 1,900, the oldest results are left out to leave room for the answer, and the run completes.
    let server = ModelServer::start_with("demo-reasoning.json", &["--dialect", "vllm", "--context-window", "900"]);
    let out = tempfile::tempdir().expect("temp dir");
    let run = acr_run(&server, &["--context-window", "1900"], out.path());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "acr run failed:\n{stderr}");
    assert!(String::from_utf8_lossy(&run.stdout).contains("+            total += item.price_cents * units"));
    let events = events(out.path());
    let notes: Vec<&str> = of_kind(&events, "note").iter().filter_map(|e| e["text"].as_str()).collect();
    assert!(
        notes.iter().any(|n| n.contains("left out to fit the context window") && n.contains("search_class(\"Cart\")")),
        "{notes:?}"
    );
    let too_small = acr_run(&server, &["--context-window", "600"], tempfile::tempdir().unwrap().path());
    let stderr = String::from_utf8_lossy(&too_small.stderr);
    assert!(!too_small.status.success());
    assert!(stderr.contains("more than the model's context window of 600"), "{stderr}");
    assert!(!stderr.contains("HTTP 400"), "nothing over the window was sent:\n{stderr}");
}
