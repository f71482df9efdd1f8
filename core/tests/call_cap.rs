//! The cap on a round's calls and the bound on the proxy's locations, measured on AutoCodeRover's recorded GPT-4 run
//! (`../shared/replay`) so that no recorded round is cut, and the rule that drops calls naming nothing in the
//! repository, checked against every call ACR ran that found something.
//!
//! - `proxy/acr-run-1.jsonl`: every proxy round (1,197), its tries as JSON; the try ACR acted on is read as the
//!   agent reads JSON ([`answers::search::read`]) and checked ([`proxy::validate`], which keeps each distinct call
//!   once); the largest number of calls in one round must fit [`MAX_CALLS_PER_ROUND`], and the largest number of
//!   bug locations in any try [`MAX_LOCATIONS`].
//! - `agent/acr-run-1/*.json`: every search and decide answer of the recorded conversations, read the same way (the
//!   deterministic reading of the prose): none may name more distinct calls than the cap.
//! - `search/acr-run-1/*/calls.jsonl`: each call the model asked for in the 18 tasks whose repositories are in the
//!   corpus; every one the agent's search answers with something must be run by [`proxy::bound`] (ACR's own
//!   verdict, `call_ok`, is not the measure: its index held the test files, which the agent's leaves out).
//!
//! Without the corpus the test says so and passes. `cargo test -p acr-core --test call_cap -- --nocapture` prints
//! the figures.

mod common;

use acr_core::Index;
use acr_core::answers::{self, search::MAX_LOCATIONS};
use acr_core::api::MAX_CALLS_PER_ROUND;
use acr_core::call::SearchCall;
use acr_core::proxy::{self, Fate};
use acr_core::search::Searcher;

/// The largest count of `items`, with where it was.
fn largest(items: impl Iterator<Item = (usize, String)>) -> (usize, String) {
    items.max_by_key(|(n, _)| *n).unwrap_or((0, String::new()))
}

#[test]
fn no_recorded_round_is_cut_and_no_recorded_hit_is_dropped() {
    let Some(root) = common::corpus() else { return };
    let Ok(rounds) = std::fs::read_to_string(root.join("proxy/acr-run-1.jsonl")) else {
        println!("SKIP: no proxy rounds in the replay corpus");
        return;
    };
    let rounds: Vec<serde_json::Value> = rounds.lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
    assert!(rounds.len() > 1_000, "{} rounds", rounds.len());
    let mut calls = Vec::new();
    let mut locations = Vec::new();
    for round in &rounds {
        let place = format!("{}, round {}", round["task"].as_str().unwrap_or("?"), round["round"]);
        let attempts: Vec<&str> =
            round["attempts"].as_array().into_iter().flatten().filter_map(|a| a.as_str()).collect();
        for attempt in &attempts {
            locations.push((answers::search::read(attempt).result.bug_locations.len(), place.clone()));
        }
        let Some(used) = round["used"].as_u64().and_then(|u| attempts.get(u as usize)) else { continue };
        let validated = proxy::validate(&answers::search::read(used).result, None);
        calls.push((validated.calls.len(), place));
    }
    let (most_calls, at) = largest(calls.iter().cloned());
    let over: usize = calls.iter().filter(|(n, _)| *n > 6).count();
    println!(
        "proxy rounds: {} acted on; most distinct calls in one: {most_calls} ({at}); rounds over 6: {over}",
        calls.len()
    );
    assert!(most_calls <= MAX_CALLS_PER_ROUND, "a recorded round of {most_calls} calls ({at}) would be cut");
    let (most_locations, at) = largest(locations.into_iter());
    println!("proxy tries: most bug locations in one: {most_locations} ({at})");
    assert!(most_locations <= MAX_LOCATIONS, "a recorded answer of {most_locations} locations ({at}) would be cut");

    // The conversations' own answers, read without the proxy model.
    let mut prose = Vec::new();
    for task in std::fs::read_dir(root.join("agent/acr-run-1")).into_iter().flatten().flatten() {
        let text = std::fs::read_to_string(task.path()).expect("readable");
        let task: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        for answer in task["search_answers"].as_array().into_iter().flatten() {
            if !matches!(answer["stage"].as_str(), Some("search" | "decide")) {
                continue;
            }
            let validated = proxy::validate(&answers::search::read(answer["text"].as_str().unwrap_or("")).result, None);
            let place = format!("{}, round {}", task["task"].as_str().unwrap_or("?"), answer["round"]);
            prose.push((validated.calls.len(), place));
        }
    }
    let (most_read, at) = largest(prose.iter().cloned());
    println!("search and decide answers: {}; most distinct calls read from one: {most_read} ({at})", prose.len());
    assert!(prose.len() > 500, "{} answers read", prose.len());
    assert!(most_read <= MAX_CALLS_PER_ROUND, "a recorded answer of {most_read} calls ({at}) would be cut");

    // A call the agent's search answers with something is never dropped: every call the model asked for in the
    // recorded search cases is run by the searcher, and the ones the rule drops all found nothing.
    let (mut checked, mut dropped) = (0, Vec::new());
    for case in common::search_cases(&root) {
        let repo = common::load_repo(&case);
        let index = Index::build(&repo);
        for call in common::calls(&case).into_iter().filter(|c| c["kind"] == "api_call") {
            let Ok(parsed) = SearchCall::from_json(call["api"].as_str().unwrap_or(""), &call["args"]) else { continue };
            let found = Searcher::new(&index, &repo).run(&parsed).ok;
            let fate = proxy::bound(std::slice::from_ref(&parsed), &[], &index)[0];
            assert!(fate == Fate::Run || !found, "{}: {parsed} finds something but would not run", case.display());
            checked += 1;
            if fate != Fate::Run {
                dropped.push(parsed.to_string());
            }
        }
    }
    println!(
        "calls the model asked for in the search cases: {checked}; dropped as naming nothing, all misses: {dropped:?}"
    );
    assert!(checked > 30, "{checked} calls checked");
}
