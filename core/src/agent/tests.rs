//! The loops driven end to end by a scripted model over a small repository written for these tests.

use std::cell::RefCell;
use std::rc::Rc;

use super::*;
use crate::llm::Stage;
use crate::llm::scripted::{Script, ScriptedModel};
use crate::runner::RunOutcome;

const CART: &str = "\
class Cart:
    def __init__(self):
        self.lines = {}

    def add(self, item, units=1):
        self.lines[item] = self.lines.get(item, 0) + units

    def total(self):
        total = 0
        for item, units in self.lines.items():
            total += item.price
        return total
";

const ISSUE: &str = "Cart.total() ignores the number of units of each item.";

const GOOD_PATCH: &str = "The total forgets the units.\n\n# modification 1\n```\n<file>shop/cart.py</file>\n<original>\n            total += item.price\n</original>\n<patched>\n            total += item.price * units\n</patched>\n```\n";

const STALE_PATCH: &str = "<file>shop/cart.py</file>\n<original>\n    total += price\n</original>\n<patched>\n    total += price * units\n</patched>\n";

fn workspace() -> (Rc<Repo>, Rc<Index>) {
    let repo = Repo::from_files([("shop/__init__.py", ""), ("shop/cart.py", CART)]);
    let index = Index::build(&repo);
    (Rc::new(repo), Rc::new(index))
}

const LOCATION_JSON: &str = r#"{"API_calls": [], "bug_locations": [{"file": "shop/cart.py", "class": "Cart", "method": "total", "intended_behavior": "Multiply each price by its units."}]}"#;

fn agent<R: Runner>(
    script: Script,
    runner: Option<R>,
    config: AgentConfig,
) -> (Agent<ScriptedModel, R>, Rc<RefCell<Vec<Event>>>) {
    let (repo, index) = workspace();
    let seen = Rc::new(RefCell::new(Vec::new()));
    let sink = seen.clone();
    let agent = Agent::new(repo, index, ScriptedModel::new(script), runner, config)
        .with_observer(Box::new(move |e: &Event| sink.borrow_mut().push(e.clone())));
    (agent, seen)
}

fn search_script() -> Script {
    Script::default()
        .answer(
            Stage::Search,
            "Let me look at the cart.\nsearch_class(\"Cart\")\nsearch_method_in_class(\"total\", \"Cart\")",
        )
        .answer(Stage::Analyse, "total() adds item.price once per line and ignores units.")
        .answer(Stage::Decide, LOCATION_JSON)
}

#[test]
fn search_locates_then_patch_applies_after_a_retry() {
    let script = search_script().answer(Stage::Patch, STALE_PATCH).answer(Stage::Patch, GOOD_PATCH);
    let (agent, seen) = agent::<NoRunner>(script, None, AgentConfig::default());
    let outcome = pollster::block_on(agent.run(ISSUE)).unwrap();
    assert_eq!(outcome.status, ExtractStatus::ApplicablePatch, "{}", outcome.reason);
    assert!(outcome.diff.contains("+            total += item.price * units"), "{}", outcome.diff);
    assert_eq!(outcome.locations.len(), 1);
    assert_eq!((outcome.locations[0].start, outcome.locations[0].end), (8, 12));

    let events = seen.borrow();
    let searches: Vec<_> =
        events.iter().filter_map(|e| matches!(e, Event::Search { ok: true, .. }).then_some(())).collect();
    assert_eq!(searches.len(), 2, "both calls ran and found code");
    let patches: Vec<_> =
        events.iter().filter_map(|e| if let Event::Patch { status, .. } = e { Some(*status) } else { None }).collect();
    assert_eq!(patches, vec![ExtractStatus::RawPatchButUnmatched, ExtractStatus::ApplicablePatch]);
    // The failure reason went back to the model before the second attempt.
    let mut second_prompt = events.iter().filter_map(|e| match e {
        Event::Model { stage: Stage::Patch, prompt, .. } => Some(prompt.clone()),
        _ => None,
    });
    assert!(second_prompt.next_back().unwrap().contains("could not be applied"));
    assert_eq!(outcome.transcript.model_calls, 5);
}

#[test]
fn prose_answers_go_through_the_proxy_model_with_retries() {
    let script = Script::default()
        .answer(Stage::Search, "I would start by looking at how the cart computes its total.")
        .answer(Stage::Proxy, "{\"API_calls\": [\"search_clas(\\\"Cart\\\")\"], \"bug_locations\": []}")
        .answer(Stage::Proxy, "{\"API_calls\": [\"search_class(\\\"Cart\\\")\"], \"bug_locations\": []}")
        .answer(Stage::Analyse, "The total ignores units.")
        .answer(Stage::Decide, LOCATION_JSON)
        .answer(Stage::Patch, GOOD_PATCH);
    let (agent, seen) = agent::<NoRunner>(script, None, AgentConfig::default());
    let outcome = pollster::block_on(agent.run(ISSUE)).unwrap();
    assert!(outcome.status.is_applicable());
    let proxies: Vec<(ReadBy, usize)> = seen
        .borrow()
        .iter()
        .filter_map(|e| match e {
            Event::Proxy { source, problems, .. } => Some((*source, problems.len())),
            _ => None,
        })
        .collect();
    assert_eq!(proxies[0], (ReadBy::Model, 1), "the misspelt API was refused");
    assert_eq!(proxies[1], (ReadBy::Model, 0));
}

#[test]
fn unresolvable_locations_are_reported_and_search_continues() {
    let wrong =
        r#"{"API_calls": [], "bug_locations": [{"file": "shop/basket.py", "class": "Basket", "method": "sum"}]}"#;
    let script = Script::default()
        .answer(Stage::Search, wrong)
        .answer(Stage::Decide, LOCATION_JSON)
        .answer(Stage::Patch, GOOD_PATCH);
    let (agent, seen) = agent::<NoRunner>(script, None, AgentConfig::default());
    let outcome = pollster::block_on(agent.run(ISSUE)).unwrap();
    assert!(outcome.status.is_applicable());
    let told = seen
        .borrow()
        .iter()
        .any(|e| matches!(e, Event::Model { stage: Stage::Decide, prompt, .. } if prompt.contains("could be found")));
    assert!(told, "the model heard that its locations do not exist");
}

#[test]
fn search_gives_up_after_the_round_limit_and_patches_from_the_conversation() {
    let script = Script { repeat_last: true, ..Script::default() }
        .answer(Stage::Search, "search_method(\"nothing_like_this\")")
        .answer(Stage::Analyse, "Nothing found.")
        .answer(Stage::Decide, r#"{"API_calls": ["search_method(\"nothing_like_this\")"], "bug_locations": []}"#)
        .answer(Stage::Patch, GOOD_PATCH);
    let config = AgentConfig { max_search_rounds: 3, ..AgentConfig::default() };
    let (agent, _) = agent::<NoRunner>(script, None, config);
    let outcome = pollster::block_on(agent.run(ISSUE)).unwrap();
    assert!(outcome.locations.is_empty());
    assert!(outcome.status.is_applicable(), "the patch writer still ran: {}", outcome.reason);
}

#[test]
fn later_prose_answers_go_to_the_proxy_model_even_when_they_mention_calls() {
    let script = Script::default()
        .answer(Stage::Search, "search_class(\"Cart\")")
        .answer(Stage::Analyse, "total() ignores units.")
        .answer(Stage::Decide, "search_class(\"Cart\") showed enough. The bug is in Cart.total in shop/cart.py.")
        .answer(Stage::Proxy, LOCATION_JSON)
        .answer(Stage::Patch, GOOD_PATCH);
    let (agent, seen) = agent::<NoRunner>(script, None, AgentConfig::default());
    let outcome = pollster::block_on(agent.run(ISSUE)).unwrap();
    assert!(outcome.status.is_applicable());
    let sources: Vec<ReadBy> = seen
        .borrow()
        .iter()
        .filter_map(|e| if let Event::Proxy { source, .. } = e { Some(*source) } else { None })
        .collect();
    assert_eq!(
        sources,
        [ReadBy::Deterministic, ReadBy::Model],
        "round 1 trusted its listed calls; round 2 went to the proxy model"
    );
}

#[test]
fn cancellation_stops_the_run() {
    let (agent, _) = agent::<NoRunner>(search_script(), None, AgentConfig::default());
    agent.cancel().set(true);
    assert_eq!(pollster::block_on(agent.run(ISSUE)).unwrap_err(), AgentError::Cancelled);
}

#[test]
fn a_model_failure_is_an_error_not_a_panic() {
    let (agent, _) = agent::<NoRunner>(Script::default(), None, AgentConfig::default());
    let err = pollster::block_on(agent.run(ISSUE)).unwrap_err();
    assert!(err.to_string().contains("no answer left for stage `search`"), "{err}");
}

/// Answers runs as the fixture's program would: the reproducer passes only when the patch multiplies by units.
struct JudgeByPatch;

impl Runner for JudgeByPatch {
    async fn run(&self, request: &crate::runner::RunRequest) -> Result<RunOutcome, crate::runner::RunError> {
        let fixed = request.patch.contains("* units");
        Ok(RunOutcome {
            exit_code: Some(if fixed { 0 } else { 1 }),
            stderr: if fixed { String::new() } else { "AssertionError: 50 != 150".into() },
            ..RunOutcome::default()
        })
    }
}

const WRONG_PATCH: &str = "<file>shop/cart.py</file>\n<original>\n            total += item.price\n</original>\n<patched>\n            total += item.price + units\n</patched>\n";

#[test]
fn mcts_finds_the_passing_candidate_among_failing_ones() {
    let script = Script { repeat_last: true, ..Script::default() }
        .answer(Stage::Search, LOCATION_JSON)
        .answer(Stage::Reproducer, "```python\nassert False\n```")
        .answer(Stage::Patch, WRONG_PATCH)
        .answer(Stage::Patch, WRONG_PATCH)
        .answer(Stage::Patch, "Try again.\n```python\n            total += item.price * units\n```")
        .answer(Stage::Rate, "40");
    let mut config = AgentConfig { mode: Mode::Mcts, ..AgentConfig::default() };
    config.mcts.samples = 3;
    let (agent, seen) = agent(script, Some(JudgeByPatch), config);
    let outcome = pollster::block_on(agent.run(ISSUE)).unwrap();
    assert!(outcome.validated, "{}", outcome.reason);
    assert!(outcome.diff.contains("* units"));
    let iterations = seen.borrow().iter().filter(|e| matches!(e, Event::Mcts { .. })).count();
    assert_eq!(iterations, 2, "the root gave one failing child; refining it found the fix");
}

#[test]
fn mcts_without_runner_keeps_the_best_rated_candidate_and_survives_empty_expansions() {
    let script = Script { repeat_last: true, ..Script::default() }
        .answer(Stage::Search, LOCATION_JSON)
        .answer(Stage::Patch, WRONG_PATCH)
        .answer(Stage::Patch, GOOD_PATCH)
        .answer(Stage::Patch, "no code at all")
        .answer(Stage::Rate, "30")
        .answer(Stage::Rate, "90")
        .answer(Stage::Rate, "10");
    let mut config = AgentConfig { mode: Mode::Mcts, ..AgentConfig::default() };
    config.mcts.samples = 3;
    config.mcts.max_rounds = 4;
    let (agent, seen) = agent::<NoRunner>(script, None, config);
    let outcome = pollster::block_on(agent.run(ISSUE)).unwrap();
    assert!(!outcome.validated);
    assert!(outcome.diff.contains("* units"), "the 90-rated candidate wins: {}", outcome.diff);
    let mcts = seen.borrow().iter().filter(|e| matches!(e, Event::Mcts { .. })).count();
    assert!(mcts >= 2, "later expansions that yield nothing do not stop the search early");
}

#[test]
fn review_loop_sends_advice_back_to_the_patch_writer() {
    let script = search_script()
        .answer(Stage::Patch, WRONG_PATCH)
        .answer(Stage::Patch, GOOD_PATCH)
        .answer(Stage::Reproducible, "{\"reproducible\": true}")
        .answer(Stage::Reproducer, "```python\nfrom shop.cart import Cart\nassert False\n```")
        .answer(
            Stage::Review,
            r#"{"patch-correct": "no", "test-correct": "yes", "patch-analysis": "adds units instead of multiplying", "patch-advice": "multiply", "test-analysis": "", "test-advice": ""}"#,
        )
        .answer(Stage::Review, r#"{"patch-correct": "yes", "test-correct": "yes"}"#);
    let (agent, seen) = agent(script, Some(JudgeByPatch), AgentConfig::default());
    let outcome = pollster::block_on(agent.run(ISSUE)).unwrap();
    assert!(outcome.validated);
    assert!(outcome.diff.contains("* units"));
    let reviews = seen.borrow().iter().filter(|e| matches!(e, Event::Review { .. })).count();
    assert_eq!(reviews, 2);
}

/// The whole run as text: every request's new message and the answer, and every other step, in order.
fn render(events: &[Event]) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    for e in events {
        match e {
            Event::Model { stage, kind, prompt, messages, answer, .. } => {
                let _ =
                    write!(s, "=== model: {kind:?} ({stage}, {messages} messages)\n{prompt}\n--- answer\n{answer}\n\n");
            }
            Event::Phase { name } => {
                let _ = writeln!(s, "=== phase: {name}\n");
            }
            other => {
                let mut v = serde_json::to_value(other).unwrap_or_default();
                if let Some(o) = v.as_object_mut() {
                    o.remove("tree");
                    if let Some(out) = o.get_mut("outcome").and_then(|x| x.as_object_mut()) {
                        out.remove("duration_ms");
                    }
                }
                let _ = writeln!(s, "=== {}\n", serde_json::to_string_pretty(&v).unwrap_or_default());
            }
        }
    }
    s
}

#[test]
fn transcript_snapshot_acr() {
    let script = search_script().answer(Stage::Patch, STALE_PATCH).answer(Stage::Patch, GOOD_PATCH);
    let (agent, seen) = agent::<NoRunner>(script, None, AgentConfig::default());
    pollster::block_on(agent.run(ISSUE)).unwrap();
    insta::assert_snapshot!(render(&seen.borrow()));
}

#[test]
fn transcript_snapshot_acr_with_review() {
    let script = search_script()
        .answer(Stage::Patch, WRONG_PATCH)
        .answer(Stage::Patch, GOOD_PATCH)
        .answer(Stage::Reproducible, "{\"reproducible\": true}")
        .answer(Stage::Reproducer, "```python\nfrom shop.cart import Cart\nassert False\n```")
        .answer(
            Stage::Review,
            r#"{"patch-correct": "no", "test-correct": "yes", "patch-analysis": "adds units instead of multiplying", "patch-advice": "multiply", "test-analysis": "", "test-advice": ""}"#,
        )
        .answer(Stage::Review, r#"{"patch-correct": "yes", "test-correct": "yes"}"#);
    let (agent, seen) = agent(script, Some(JudgeByPatch), AgentConfig::default());
    pollster::block_on(agent.run(ISSUE)).unwrap();
    insta::assert_snapshot!(render(&seen.borrow()));
}

#[test]
fn transcript_snapshot_mcts() {
    let script = Script { repeat_last: true, ..Script::default() }
        .answer(Stage::Search, LOCATION_JSON)
        .answer(Stage::Reproducer, "```python\nassert False\n```")
        .answer(Stage::Patch, WRONG_PATCH)
        .answer(Stage::Patch, WRONG_PATCH)
        .answer(Stage::Patch, "Try again.\n```python\n            total += item.price * units\n```")
        .answer(Stage::Rate, "40");
    let mut config = AgentConfig { mode: Mode::Mcts, ..AgentConfig::default() };
    config.mcts.samples = 3;
    let (agent, seen) = agent(script, Some(JudgeByPatch), config);
    pollster::block_on(agent.run(ISSUE)).unwrap();
    insta::assert_snapshot!(render(&seen.borrow()));
}
