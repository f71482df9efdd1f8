//! Real-model behaviour end to end, with recorded-style answers: reasoning models' thinking is never acted on, and
//! budgets stop runs within their limits while keeping the best patch so far.

use std::rc::Rc;

use acr_core::agent::{Agent, AgentConfig, Event, Mode, NoRunner, Outcome};
use acr_core::llm::budget::{Budget, Budgeted, Limit};
use acr_core::llm::scripted::{Script, ScriptedModel};
use acr_core::llm::{Llm, Stage};
use acr_core::patch::ExtractStatus;
use acr_core::{Index, Repo};

const LEDGER: &str = "\
class Ledger:
    def __init__(self):
        self.entries = []

    def record(self, amount):
        self.entries.append(amount)

    def balance(self):
        return sum(self.entries[1:])
";

const ISSUE: &str = "Ledger.balance() leaves out the first amount recorded.";

const LOCATION: &str = r#"{"API_calls": [], "bug_locations": [{"file": "books/ledger.py", "class": "Ledger", "method": "balance", "intended_behavior": "Sum every entry."}]}"#;

const FIX: &str = "<file>books/ledger.py</file>\n<original>\n        return sum(self.entries[1:])\n</original>\n<patched>\n        return sum(self.entries)\n</patched>\n";

/// A plausible but wrong edit, as a model drafts it while thinking.
const DRAFT: &str = "<file>books/ledger.py</file>\n<original>\n        return sum(self.entries[1:])\n</original>\n<patched>\n        return sum(self.entries) + 0\n</patched>\n";

fn run<L: Llm>(model: L, config: AgentConfig) -> Outcome {
    let repo = Repo::from_files([("books/__init__.py", ""), ("books/ledger.py", LEDGER)]);
    let index = Index::build(&repo);
    let agent = Agent::new(Rc::new(repo), Rc::new(index), model, None::<NoRunner>, config);
    pollster::block_on(agent.run(ISSUE)).expect("the run ends with an outcome")
}

fn model_answers(outcome: &Outcome) -> Vec<(Stage, String, Option<String>)> {
    let events = outcome.transcript.events.iter();
    events
        .filter_map(|e| match e {
            Event::Model { stage, answer, reasoning, .. } => Some((*stage, answer.clone(), reasoning.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn thinking_of_every_shape_is_kept_but_never_acted_on() {
    let script = Script::default()
        // A closed block holding a draft search call.
        .answer(
            Stage::Search,
            "<think>\nI could call search_class(\"Drafts\") first.\n</think>\n\nsearch_class(\"Ledger\")",
        )
        // The opening tag was in the chat template: only the closing one arrives.
        .answer(Stage::Analyse, "The slice skips index 0.\n</think>\n\nbalance() skips the first entry.")
        // A draft location inside the thinking.
        .answer(
            Stage::Decide,
            format!("<think>{{\"bug_locations\": [{{\"file\": \"books/other.py\"}}]}}</think>{LOCATION}"),
        )
        // A draft edit inside the thinking, the real one after it.
        .answer(Stage::Patch, format!("<think>\nFirst idea:\n{DRAFT}\nNo, simpler.\n</think>\n{FIX}"));
    let outcome = run(ScriptedModel::new(script), AgentConfig::default());
    assert_eq!(outcome.status, ExtractStatus::ApplicablePatch, "{}", outcome.reason);
    assert!(outcome.diff.contains("+        return sum(self.entries)\n"), "{}", outcome.diff);
    assert!(!outcome.diff.contains("+ 0"), "the drafted edit was applied: {}", outcome.diff);
    let searched: Vec<String> = outcome
        .transcript
        .events
        .iter()
        .filter_map(|e| if let Event::Search { call, .. } = e { Some(call.to_string()) } else { None })
        .collect();
    assert_eq!(searched, vec!["search_class(\"Ledger\")"], "the drafted search was not run");
    assert_eq!(outcome.locations.len(), 1);
    assert_eq!(outcome.locations[0].file, "books/ledger.py");
    let answers = model_answers(&outcome);
    for (stage, answer, reasoning) in &answers {
        assert!(!answer.contains("think>"), "{stage}: {answer}");
        assert!(reasoning.is_some(), "{stage}: the thinking is kept in the transcript");
    }
    assert_eq!(answers[1].2.as_deref(), Some("The slice skips index 0."));
}

#[test]
fn an_edit_written_only_while_thinking_is_not_applied() {
    let script = Script { repeat_last: true, ..Script::default() }
        .answer(Stage::Search, LOCATION)
        .answer(Stage::Patch, format!("<think>\nThe fix would be:\n{DRAFT}</think>\nI am not sure yet."))
        // Cut off by max_tokens while still thinking.
        .answer(Stage::Patch, format!("<think>\nMaybe:\n{DRAFT}"));
    let outcome = run(ScriptedModel::new(script), AgentConfig::default());
    assert!(!outcome.status.is_applicable(), "{}", outcome.diff);
    assert!(outcome.diff.is_empty());
    let patches: Vec<(String, bool)> = model_answers(&outcome)
        .into_iter()
        .filter(|(stage, ..)| *stage == Stage::Patch)
        .map(|(_, answer, reasoning)| (answer, reasoning.is_some_and(|r| r.contains("+ 0"))))
        .collect();
    assert_eq!(patches[0], ("I am not sure yet.".to_string(), true));
    assert_eq!(patches[1], (String::new(), true));
}

#[test]
fn a_model_that_always_searches_stops_at_the_call_limit() {
    let script = Script { repeat_last: true, ..Script::default() }
        .answer(Stage::Search, "search_method(\"record\")")
        .answer(Stage::Analyse, "I need to see more.")
        .answer(Stage::Decide, r#"{"API_calls": ["search_method(\"record\")"], "bug_locations": []}"#);
    let model = Budgeted::new(
        ScriptedModel::new(script),
        Budget { max_calls: Some(7), ..Budget::unlimited() },
        None,
        Box::new(|| 0.0),
    );
    let outcome = run(&model, AgentConfig::default());
    let exhausted = outcome.budget_exhausted().expect("stopped by the budget");
    assert_eq!((exhausted.what, exhausted.used, exhausted.limit), (Limit::Calls, 7.0, 7.0));
    assert_eq!(outcome.transcript.model_calls, 7);
    assert_eq!(model.spent().calls, 7);
    assert_eq!(outcome.status, ExtractStatus::NoPatch);
    assert!(outcome.reason.contains("budget exhausted: 7 calls used of 7 calls"), "{}", outcome.reason);
    let Some(Event::Note { text }) = outcome.transcript.events.last() else { panic!("a closing note") };
    assert!(text.contains("no patch was made"), "{text}");
}

fn mcts_script() -> Script {
    Script { repeat_last: true, ..Script::default() }
        .answer(Stage::Search, LOCATION)
        .answer(Stage::Patch, FIX)
        .answer(Stage::Patch, DRAFT)
        .answer(Stage::Rate, "90")
        .answer(Stage::Rate, "40")
}

fn mcts_config() -> AgentConfig {
    let mut config = AgentConfig { mode: Mode::Mcts, ..AgentConfig::default() };
    config.mcts.samples = 3;
    config
}

#[test]
fn tree_search_stops_within_a_small_token_budget_and_keeps_the_best_candidate() {
    let unlimited = Budgeted::new(ScriptedModel::new(mcts_script()), Budget::unlimited(), None, Box::new(|| 0.0));
    let full = run(&unlimited, mcts_config());
    assert!(full.budget_exhausted().is_none());
    let whole = unlimited.spent().tokens();

    let limit = whole / 2;
    let model = Budgeted::new(
        ScriptedModel::new(mcts_script()),
        Budget { max_tokens: Some(limit), ..Budget::unlimited() },
        None,
        Box::new(|| 0.0),
    );
    let outcome = run(&model, mcts_config());
    let exhausted = outcome.budget_exhausted().expect("stopped by the budget");
    assert_eq!(exhausted.what, Limit::Tokens);
    let used = model.spent().tokens();
    let usage = outcome.transcript.usage;
    assert_eq!(used, usage.prompt_tokens + usage.completion_tokens, "the transcript records what was used");
    // Requests carry no max_tokens here, so the run may pass the limit by at most one answer.
    let longest_answer = model_answers(&outcome).iter().map(|(_, a, _)| a.len() as u64 / 4 + 1).max().unwrap();
    assert!(used <= limit + longest_answer, "{used} tokens used of {limit}");
    assert!(used < whole, "the run stopped early: {used} of {whole}");
    assert_eq!(outcome.status, ExtractStatus::ApplicablePatch);
    assert!(outcome.diff.contains("+        return sum(self.entries)\n"), "the 90-rated candidate: {}", outcome.diff);
    assert!(!outcome.diff.contains("+ 0"));
    let Some(Event::Note { text }) = outcome.transcript.events.last() else { panic!("a closing note") };
    assert!(text.contains("budget exhausted") && text.contains("tree-search candidate"), "{text}");
}
