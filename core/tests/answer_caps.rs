//! Every request carries its stage's answer cap (`Stage::answer_cap`): a model that never stops is stopped by the
//! server. The caps must leave room for what a capable model writes: every answer of AutoCodeRover's recorded GPT-4
//! run (`../shared/replay/agent`, each labelled by the stage it answered) fits its stage's cap, measured with the one
//! token estimator, with room to spare.

use std::collections::BTreeMap;

use acr_core::llm::{Stage, estimate};

mod common;

#[test]
fn recorded_answers_fit_their_stages_caps() {
    let Some(root) = common::corpus() else { return };
    let Ok(runs) = std::fs::read_dir(root.join("agent")) else {
        println!("SKIP: no agent conversations in the replay corpus");
        return;
    };
    let mut longest: BTreeMap<Stage, (u64, String)> = BTreeMap::new();
    let mut answers = 0;
    for task in runs.flatten().flat_map(|run| std::fs::read_dir(run.path()).into_iter().flatten().flatten()) {
        let text = std::fs::read_to_string(task.path()).expect("readable");
        let task: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        let search = task["search_answers"].as_array().into_iter().flatten().map(|a| (a["stage"].as_str(), a));
        let patch = task["patch_answers"].as_array().into_iter().flatten().map(|a| (Some("patch"), a));
        for (stage, answer) in search.chain(patch) {
            let stage = match stage {
                Some("search") => Stage::Search,
                Some("analyse") => Stage::Analyse,
                Some("decide") => Stage::Decide,
                Some("patch") => Stage::Patch,
                other => panic!("an answer labelled {other:?}"),
            };
            let tokens = estimate::tokens(answer["text"].as_str().unwrap_or(""));
            answers += 1;
            let entry = longest.entry(stage).or_insert((0, String::new()));
            if tokens > entry.0 {
                *entry = (tokens, task["task"].as_str().unwrap_or("?").to_string());
            }
        }
    }
    assert!(answers > 1_000, "{answers} answers read");
    for (stage, (tokens, task)) in &longest {
        let cap = u64::from(stage.answer_cap());
        println!("{stage}: longest recorded answer {tokens} tokens ({task}), cap {cap}");
        assert!(
            tokens * 3 / 2 <= cap,
            "{stage}: the cap {cap} leaves less than half again the longest answer ({tokens})"
        );
    }
}
