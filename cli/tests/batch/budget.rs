//! The batch budget against a model that always answers to its cap, and across invocations on one folder.

use serde_json::Value;

use crate::common::ModelServer;
use crate::fixture::{batch_json, fixture, journal, predictions, stderr};

/// What the journal says was billed: (calls, tokens, dollars) over its `spent` lines.
fn billed(journal: &[Value]) -> (u64, u64, f64) {
    let spent = journal.iter().filter(|e| e["kind"] == "spent");
    spent.fold((0, 0, 0.0), |(calls, tokens, cost), e| {
        let usage = e["usage"]["prompt_tokens"].as_u64().unwrap() + e["usage"]["completion_tokens"].as_u64().unwrap();
        (calls + e["calls"].as_u64().unwrap(), tokens + usage, cost + e["cost"].as_f64().unwrap())
    })
}

/// Each call's hold and its use, paired by their call number.
fn holds_and_uses(journal: &[Value]) -> Vec<(&Value, &Value)> {
    let holds: Vec<&Value> = journal.iter().filter(|e| e["kind"] == "hold").collect();
    let uses = journal.iter().filter(|e| e["kind"] == "spent" && e["calls"] == 1);
    uses.map(|u| (*holds.iter().find(|h| h["call"] == u["call"]).expect("a hold for each use"), u)).collect()
}

/// The stated bound: a limit is passed by at most the prompt estimate's error. The mock counts prompts as the batch
/// estimates them, so here that error is nil and the limits must hold exactly, with four workers calling at once.
#[test]
fn four_workers_against_a_model_billing_its_whole_cap_never_pass_a_token_or_money_limit() {
    let f = fixture();
    let server = ModelServer::start_with(&f.script, &["--answer-to-cap"]);
    for (name, limit) in [("tokens", ["--batch-max-tokens", "20000"]), ("cost", ["--batch-max-cost", "0.05"])] {
        let out = f.out(name);
        let run = f.run(&server, &out, &["--workers", "4", "--price", "scripted=1/2", limit[0], limit[1]]);
        let err = stderr(&run);
        assert_eq!(run.status.code(), Some(3), "{name}: the budget is spent:\n{err}");
        let journal = journal(&out);
        let (calls, tokens, cost) = billed(&journal);
        let report = batch_json(&out);
        let reported = report["spent"]["usage"]["prompt_tokens"].as_u64().unwrap()
            + report["spent"]["usage"]["completion_tokens"].as_u64().unwrap();
        assert_eq!((report["spent"]["calls"].as_u64(), reported), (Some(calls), tokens), "{name}: {report}");
        match name {
            "tokens" => {
                assert!(tokens <= 20_000, "{tokens} tokens of 20,000");
                // Spent nearly to the end: no room was left for the least answer (128 tokens) and a prompt.
                assert!(tokens > 20_000 - 128 - 2_000, "{tokens} tokens of 20,000: stopped too early");
            }
            _ => {
                assert!(cost <= 0.05 + 1e-9, "${cost} of $0.05");
                assert!(cost > 0.05 - 0.002 - 0.000_256, "${cost} of $0.05: stopped too early");
            }
        }
        // The server billed each call the whole cap the batch reserved for it: the cap reserved is the cap sent.
        for (hold, spent) in holds_and_uses(&journal) {
            assert_eq!(hold["most"]["completion_tokens"], spent["usage"]["completion_tokens"], "{name}: {spent}");
        }
        assert!(err.contains("the batch budget is spent (budget exhausted: "), "{name}: {err}");
        assert!(err.contains("exit code 3"), "{err}");
    }
}

#[test]
fn a_spent_budget_stays_spent_on_resume_and_on_a_rerun_of_the_shard_and_a_higher_limit_goes_on_from_it() {
    let f = fixture();
    let server = ModelServer::start(&f.script);
    for (name, shard) in [("whole", None), ("shard", Some("2/2"))] {
        let out = f.out(name);
        let mut args = vec!["--batch-max-calls", "6"];
        args.extend(shard.iter().flat_map(|s| ["--shard", *s]));
        let first = f.run(&server, &out, &args);
        assert_eq!(first.status.code(), Some(3), "{name}:\n{}", stderr(&first));
        let spent = billed(&journal(&out)).0;
        assert_eq!(spent, 6, "{name}");
        let predicted = predictions(&out);

        // The same command again (a resume, a shard's job run again): nothing starts, nothing is spent.
        let again = f.run(&server, &out, &args);
        let err = stderr(&again);
        assert_eq!(again.status.code(), Some(3), "{name}: still spent:\n{err}");
        assert!(err.contains("earlier invocations on this folder spent 6 calls"), "{name}: {err}");
        assert!(!err.contains("  start "), "{name}: no task starts: {err}");
        assert!(err.contains("tasks not started: the batch budget is spent"), "{name}: {err}");
        assert_eq!(billed(&journal(&out)).0, 6, "{name}: no call made");
        assert_eq!(predictions(&out), predicted, "{name}");

        // A higher limit: the rest runs, counted on from the 6 calls already spent.
        args[1] = "100";
        let more = f.run(&server, &out, &args);
        assert_eq!(more.status.code(), Some(0), "{name}:\n{}", stderr(&more));
        let report = batch_json(&out);
        assert_eq!(report["spent"]["calls"].as_u64(), Some(billed(&journal(&out)).0), "{report}");
        assert!(report["spent"]["calls"].as_u64().unwrap() > report["spent_this_run"]["calls"].as_u64().unwrap());
    }
}

#[test]
fn a_batch_limit_of_zero_is_no_limit_as_for_each_runs_own() {
    let f = fixture();
    let server = ModelServer::start(&f.script);
    let out = f.out("out");
    let zero =
        ["--batch-max-calls", "0", "--batch-max-tokens", "0", "--batch-max-seconds", "0", "--batch-max-cost", "0"];
    let run = f.run(&server, &out, &zero);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    assert_eq!(predictions(&out).len(), 5);
    assert_eq!(batch_json(&out)["batch_budget"]["max_calls"], Value::Null);
}

/// The time limit cuts the time-out of the request in flight: a slow answer ends at the limit (kept as cut by
/// the time), instead of the limit being passed by a whole answer (here, four and a half seconds).
#[test]
fn the_time_limit_cuts_the_answer_in_flight() {
    let f = fixture();
    let server = ModelServer::start_with(&f.script, &["--event-gap-ms", "500"]);
    let out = f.out("out");
    let started = std::time::Instant::now();
    let run = f.run(&server, &out, &["--stream", "--batch-max-seconds", "1.5"]);
    let took = started.elapsed().as_secs_f64();
    assert_eq!(run.status.code(), Some(3), "{}", stderr(&run));
    assert!(took < 4.0, "ended {took:.1} s after a start with 1.5 s of budget: the slow answer was not cut");
    let outcome: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("acme__shop-1/transcript.json")).unwrap()).unwrap();
    let cut = outcome["events"].as_array().unwrap().iter().find(|e| e["event"] == "model").map(|e| e["cut"].clone());
    assert_eq!(cut.and_then(|c| c["kind"].as_str().map(String::from)).as_deref(), Some("time"), "{outcome}");
}
