//! Replays the recorded proxy outcomes through the call parser and validator.
//!
//! The corpus holds no `agent_proxy_*.json` files (nothing in it has `API_calls` or `bug_locations` keys), so the
//! proxy's JSON outputs themselves cannot be replayed. What it does hold is every API call the model asked for
//! (`kind: api_call`): the call string the proxy produced (`invocation`) and the arguments ACR took from it
//! (`args`). Each invocation must parse, validate, give the same arguments, render back to a string that parses to
//! the same call, and be picked out of prose by the extractor.
//!
//! Run with `cargo test -p acr-core --test replay_proxy -- --nocapture` to see the figures.

mod common;

use acr_core::answers::Source;
use acr_core::answers::search::read as extract;
use acr_core::call::SearchCall;

#[test]
fn replay_recorded_invocations() {
    let Some(root) = common::corpus() else {
        return;
    };
    let mut total = 0usize;
    let mut valid = 0usize;
    let mut same_args = 0usize;
    let mut round_trip = 0usize;
    let mut from_prose = 0usize;
    let mut failures = Vec::new();
    for case in common::search_cases(&root) {
        for c in common::calls(&case) {
            let Some(invocation) = c["invocation"].as_str() else {
                continue;
            };
            total += 1;
            let call = match SearchCall::parse(invocation) {
                Ok(call) => call,
                Err(e) => {
                    failures.push(format!("{invocation}: {e}"));
                    continue;
                }
            };
            valid += 1;
            let recorded: Vec<String> =
                call.spec().param_names().map(|p| c["args"][p].as_str().unwrap_or_default().to_string()).collect();
            let args: Vec<String> = call.values().iter().map(ToString::to_string).collect();
            if call.name() == c["api"] && args == recorded {
                same_args += 1;
            } else {
                failures.push(format!("{invocation}: args {args:?} vs {recorded:?}"));
            }
            if SearchCall::parse(&call.to_string()).as_ref() == Ok(&call) {
                round_trip += 1;
            } else {
                failures.push(format!("{invocation}: rendered as {call} does not round-trip"));
            }
            let prose = format!("To see more I will call `{invocation}` next, then decide.");
            let e = extract(&prose);
            if e.source == Source::ProseCalls && e.result.api_calls == [invocation] {
                from_prose += 1;
            } else {
                failures.push(format!("{invocation}: extracted {:?}", e.result.api_calls));
            }
        }
    }
    println!(
        "recorded invocations {total}: valid {valid}, same args as ACR {same_args}, round-trip {round_trip}, \
         found in prose {from_prose}"
    );
    for f in &failures {
        println!("  {f}");
    }
    assert!(total >= 70, "expected the corpus's api calls, got {total}");
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn corpus_has_no_proxy_json() {
    let Some(root) = common::corpus() else {
        return;
    };
    // Documented in the report: if proxy outputs appear in a later corpus, this test says so and they should be
    // replayed here.
    let mut found = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                if p.file_name().is_some_and(|n| n != "repo" && n != "files") {
                    stack.push(p);
                }
            } else if p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("agent_proxy")) {
                found.push(p);
            }
        }
    }
    println!("agent_proxy files in the corpus: {}", found.len());
    assert!(found.is_empty(), "proxy outputs are now in the corpus; replay them: {found:?}");
}

#[test]
fn extractor_survives_every_recorded_patch_answer() {
    let Some(root) = common::corpus() else {
        return;
    };
    // Patch answers are long, code-heavy prose full of braces and quotes: a robustness and speed check. They are
    // not proxy inputs, so what is found is only counted.
    let started = std::time::Instant::now();
    let (mut answers, mut json, mut prose, mut bytes) = (0usize, 0usize, 0usize, 0usize);
    let mut stack = vec![root.join("patch")];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() && p.file_name().is_some_and(|n| n != "files") {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n == "response.txt") {
                let text = std::fs::read_to_string(&p).unwrap_or_default();
                bytes += text.len();
                answers += 1;
                match extract(&text).source {
                    Source::Json => json += 1,
                    Source::ProseCalls => prose += 1,
                    Source::ProseLocations | Source::Nothing => {}
                }
            }
        }
    }
    println!(
        "patch answers {answers} ({bytes} bytes) in {:.2?}: JSON proxy object in {json}, call-shaped prose in {prose}",
        started.elapsed()
    );
    assert!(answers >= 400, "expected the corpus's patch answers, got {answers}");
}
