//! The loops driven end to end by a scripted model over a small repository written for these tests.

use std::cell::RefCell;
use std::rc::Rc;

use super::*;
use crate::language::Language;
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
    agent_over(repo, index, script, runner, config)
}

fn agent_over<R: Runner>(
    repo: Rc<Repo>,
    index: Rc<Index>,
    script: Script,
    runner: Option<R>,
    config: AgentConfig,
) -> (Agent<ScriptedModel, R>, Rc<RefCell<Vec<Event>>>) {
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

/// An answer that asks only for calls already run while naming the bug's place in prose (as Qwen2.5-Coder-1.5B
/// did on QuixBugs' subsequences, fourteen rounds running) is read by the proxy model for its locations, and the
/// search ends on them.
#[test]
fn repeated_calls_beside_a_location_in_prose_end_the_search_on_the_location() {
    let repeated = "1. Yes, I need more context. I will make the following search API calls:\n   - search_class(\"Cart\")\n\n2. The bug is in the code where `total` adds the price once per line, which ignores the units.";
    let script = Script::default()
        .answer(Stage::Search, "search_class(\"Cart\")")
        .answer(Stage::Analyse, "total() adds item.price once per line and ignores units.")
        .answer(Stage::Decide, repeated)
        .answer(Stage::Proxy, r#"{"API_calls": ["search_class(\"Cart\")"], "bug_locations": [{"file": "shop/cart.py", "class": "Cart", "method": "total", "intended_behavior": "multiply by units"}]}"#)
        .answer(Stage::Patch, GOOD_PATCH);
    let (agent, _) = agent::<NoRunner>(script, None, AgentConfig::default());
    let outcome = pollster::block_on(agent.run(ISSUE)).unwrap();
    assert_eq!(outcome.status, ExtractStatus::ApplicablePatch, "{}", outcome.reason);
    assert_eq!(outcome.locations.len(), 1, "{:?}", outcome.locations);
    assert_eq!(outcome.locations[0].method.as_deref(), Some("total"));
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

/// A search answer in words that goes to the proxy model, whose first JSON names a misspelt API and whose second is
/// right; then the locations, and the patch.
fn proxy_script() -> Script {
    Script::default()
        .answer(Stage::Search, "I would start by looking at how the cart computes its total.")
        .answer(Stage::Proxy, "{\"API_calls\": [\"search_clas(\\\"Cart\\\")\"], \"bug_locations\": []}")
        .answer(Stage::Proxy, "{\"API_calls\": [\"search_class(\\\"Cart\\\")\"], \"bug_locations\": []}")
        .answer(Stage::Analyse, "The total ignores units.")
        .answer(Stage::Decide, LOCATION_JSON)
        .answer(Stage::Patch, GOOD_PATCH)
}

#[test]
fn prose_answers_go_through_the_proxy_model_with_retries() {
    let (agent, seen) = agent::<NoRunner>(proxy_script(), None, AgentConfig::default());
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

/// A model that asks again for a call an earlier round ran, beside its bug locations (Qwen2.5-Coder-1.5B on
/// QuixBugs): the call is not run again, the model is told why, and the locations end the search.
#[test]
fn calls_an_earlier_round_ran_are_not_run_again_and_the_locations_end_the_search() {
    let again = r#"{"API_calls": ["search_class(\"Cart\")"], "bug_locations": [{"file": "shop/cart.py", "class": "Cart", "method": "total"}]}"#;
    let script = Script::default()
        .answer(Stage::Search, "search_class(\"Cart\")")
        .answer(Stage::Analyse, "total() ignores units.")
        .answer(
            Stage::Decide,
            r#"{"API_calls": ["search_class(\"Cart\")", "search_method(\"total\")"], "bug_locations": []}"#,
        )
        .answer(Stage::Analyse, "Still total().")
        .answer(Stage::Decide, again)
        .answer(Stage::Patch, GOOD_PATCH);
    let (agent, seen) = agent::<NoRunner>(script, None, AgentConfig::default());
    let outcome = pollster::block_on(agent.run(ISSUE)).unwrap();
    assert!(outcome.status.is_applicable(), "{}", outcome.reason);
    assert_eq!(outcome.locations.len(), 1);
    let events = seen.borrow();
    let searched: Vec<String> = events
        .iter()
        .filter_map(|e| if let Event::Search { call, .. } = e { Some(call.to_string()) } else { None })
        .collect();
    assert_eq!(searched, ["search_class(\"Cart\")", "search_method(\"total\")"], "each call ran once");
    let noted = events.iter().any(|e| matches!(e, Event::Note { text } if text.contains("an earlier round ran them")));
    assert!(noted, "the transcript says search_class(\"Cart\") was not run again");
}

/// Asked for definitions, a model that shows the method unchanged but for a docstring is told its patch changes no
/// code and asked again; the fix it then writes is the patch.
#[test]
fn a_definition_patch_that_changes_no_code_is_sent_back() {
    let unchanged = "shop/cart.py\n```python\n    def total(self):\n        \"\"\"The cart's total.\"\"\"\n        total = 0\n        for item, units in self.lines.items():\n            total += item.price  # each item\n        return total\n```\n";
    let fixed = unchanged.replace("item.price  # each item", "item.price * units");
    let script = search_script().answer(Stage::Patch, unchanged).answer(Stage::Patch, fixed);
    let config = AgentConfig {
        edit_format: crate::patch::EditFormatChoice::fixed(crate::patch::EditFormat::Definition),
        ..AgentConfig::default()
    };
    let (agent, seen) = agent::<NoRunner>(script, None, config);
    let outcome = pollster::block_on(agent.run(ISSUE)).unwrap();
    assert!(outcome.diff.contains("+            total += item.price * units"), "{}", outcome.diff);
    let events = seen.borrow();
    let retry = model_prompts(&events, Stage::Patch).pop().unwrap_or_default();
    assert!(retry.contains(crate::prompt::text::NO_CODE_CHANGED), "{retry}");
}

/// The same comments-only answer written again after it was sent back starts a new conversation: the opening
/// request alone, not a third hearing of the same reason.
#[test]
fn a_comments_only_patch_written_again_starts_a_new_conversation() {
    let unchanged = "shop/cart.py\n```python\n    def total(self):\n        \"\"\"The cart's total.\"\"\"\n        total = 0\n        for item, units in self.lines.items():\n            total += item.price  # each item\n        return total\n```\n";
    let fixed = unchanged.replace("item.price  # each item", "item.price * units");
    answered_twice_then_fixed(
        unchanged,
        &fixed,
        crate::prompt::text::NO_CODE_CHANGED,
        "a new conversation asks for the fix",
    );
}

/// The code given back unchanged is told so once; given back unchanged again, a new conversation opens with the
/// opening request alone, whose answer is the patch.
#[test]
fn code_given_back_unchanged_twice_starts_a_new_conversation() {
    let unchanged = "shop/cart.py\n```python\n    def total(self):\n        total = 0\n        for item, units in self.lines.items():\n            total += item.price\n        return total\n```\n";
    let fixed = unchanged.replace("item.price\n", "item.price * units\n");
    answered_twice_then_fixed(unchanged, &fixed, "do not change the program", "given back unchanged again");
}

/// Runs a definition-edit patch writer on `answer`, `answer` again and `fixed`: the second request says `told`, the
/// third is the opening request alone in a new conversation, a note says `noted`, and the fix is the patch.
fn answered_twice_then_fixed(answer: &str, fixed: &str, told: &str, noted: &str) {
    let script = search_script().answer(Stage::Patch, answer).answer(Stage::Patch, answer).answer(Stage::Patch, fixed);
    let config = AgentConfig {
        edit_format: crate::patch::EditFormatChoice::fixed(crate::patch::EditFormat::Definition),
        ..AgentConfig::default()
    };
    let (outcome, requests) = Recorder::run_with(script, None::<NoRunner>, config);
    assert!(outcome.diff.contains("+            total += item.price * units"), "{}", outcome.diff);
    let patches: Vec<&ChatRequest> = requests.iter().filter(|r| r.stage == Stage::Patch).collect();
    assert_eq!(patches.len(), 3);
    assert!(patches[1].messages.iter().any(|m| m.content.contains(told)), "{:#?}", patches[1].messages);
    let afresh = &patches[2].messages;
    assert_eq!(afresh.len(), 2, "a new conversation: the system message and the opening request: {afresh:#?}");
    assert_eq!(afresh[1].content, patches[0].messages.last().unwrap().content, "the opening request again");
    assert!(notes_of(&outcome).iter().any(|n| n.contains(noted)), "{:?}", notes_of(&outcome));
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

/// With the reproducer as the judge, a search that resolves nothing falls back on the code the issue names, so the
/// patch request shows it rather than the whole search conversation.
#[test]
fn with_execution_as_the_judge_a_fruitless_search_falls_back_on_the_code_the_issue_names() {
    let script = Script { repeat_last: true, ..Script::default() }
        .answer(Stage::Search, "search_method(\"nothing_like_this\")")
        .answer(Stage::Analyse, "Nothing found.")
        .answer(Stage::Decide, r#"{"API_calls": ["search_method(\"nothing_like_this\")"], "bug_locations": []}"#)
        .answer(Stage::Patch, GOOD_PATCH);
    let config = AgentConfig { max_search_rounds: 3, judge: Judge::Execution, ..AgentConfig::default() };
    let (agent, seen) = agent::<NoRunner>(script, None, config);
    let outcome = pollster::block_on(agent.run(ISSUE)).unwrap();
    let named: Vec<(&str, Option<&str>)> =
        outcome.locations.iter().map(|l| (l.file.as_str(), l.method.as_deref())).collect();
    assert_eq!(named, [("shop/cart.py", Some("total"))], "the issue calls Cart.total()");
    assert!(outcome.status.is_applicable(), "{}", outcome.reason);
    let events = seen.borrow();
    let patch = model_prompts(&events, Stage::Patch);
    assert!(patch[0].contains("def total(self)"), "the request shows the code: {}", patch[0]);
    assert!(notes_of(&outcome).iter().any(|n| n.contains("the code the issue names is taken as the bug locations")));
}

/// With the reproducer as the judge, a round that names a location that resolves beside new calls ends the search
/// on it; with the reviewer as the judge (AutoCodeRover's rule) the calls run and the search goes on.
#[test]
fn with_execution_as_the_judge_locations_beside_calls_end_the_search() {
    let both = r#"{"API_calls": ["search_method_in_class(\"total\", \"Cart\")"], "bug_locations": [{"file": "shop/cart.py", "class": "Cart", "method": "total", "intended_behavior": "Multiply each price by its units."}]}"#;
    let script = || {
        Script::default()
            .answer(Stage::Search, "search_class(\"Cart\")")
            .answer(Stage::Analyse, "total() ignores units.")
            .answer(Stage::Decide, both)
            .answer(Stage::Analyse, "total() adds prices.")
            .answer(Stage::Decide, LOCATION_JSON)
            .answer(Stage::Patch, GOOD_PATCH)
    };
    let decides = |events: &[Event]| model_prompts(events, Stage::Decide).len();
    let config = AgentConfig { judge: Judge::Execution, ..AgentConfig::default() };
    let (run, seen) = agent::<NoRunner>(script(), None, config);
    let outcome = pollster::block_on(run.run(ISSUE)).unwrap();
    assert_eq!(outcome.locations.iter().map(|l| l.method.as_deref()).collect::<Vec<_>>(), [Some("total")]);
    assert_eq!(decides(&seen.borrow()), 1, "the search ended in its second round");
    assert!(notes_of(&outcome).iter().any(|n| n.contains("named bug locations beside a search call;")));

    let (run, seen) = agent::<NoRunner>(script(), None, AgentConfig::default());
    let outcome = pollster::block_on(run.run(ISSUE)).unwrap();
    assert_eq!(outcome.locations.iter().map(|l| l.method.as_deref()).collect::<Vec<_>>(), [Some("total")]);
    assert_eq!(decides(&seen.borrow()), 2, "the reviewer's run asked once more");
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
    let outcome = pollster::block_on(agent.run(ISSUE)).expect("a stopped run still has an outcome");
    assert!(outcome.cancelled() && outcome.budget_exhausted().is_none());
    assert_eq!(outcome.status, ExtractStatus::NoPatch);
    assert_eq!(outcome.reason, "stopped by the user before any patch applied");
    assert!(
        matches!(outcome.transcript.events.last(), Some(Event::Note { text }) if text.contains("stopped by the user"))
    );
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
        .answer(Stage::Patch, WRONG_PATCH.replace("item.price + units", "(item.price"))
        .answer(Stage::Patch, "Try again.\n```python\n            total += item.price * units\n```")
        .answer(Stage::Rate, "40");
    let mut config = AgentConfig { mode: Mode::Mcts, ..AgentConfig::default() };
    config.mcts.samples = 3;
    let (agent, seen) = agent(script, Some(JudgeByPatch), config);
    pollster::block_on(agent.run(ISSUE)).unwrap();
    let events = seen.borrow();
    // The final tree, one line per node (the broken sample is a leaf with reward -1 and verdict error).
    let tree =
        events.iter().rev().find_map(|e| if let Event::Mcts { tree, .. } = e { Some(tree.clone()) } else { None });
    let mut text = render(&events);
    text.push_str("=== final tree\n");
    for n in tree.unwrap_or_default() {
        let verdict = n.verdict.map_or("-", Verdict::as_str);
        let first = n.diff.lines().find(|l| l.starts_with('+') && !l.starts_with("+++")).unwrap_or("");
        text.push_str(&format!(
            "#{} parent {:?} visits {} value {:+.3} {verdict} {first}\n",
            n.id, n.parent, n.visits, n.value
        ));
    }
    insta::assert_snapshot!(text);
}

/// The fixture `tests/fixtures/override`: `Cart.total` overrides `Basket.total`; a test of the repository imports the
/// package; the issue keeps a GitHub template's HTML comments.
macro_rules! override_file {
    ($path:literal) => {
        ($path, include_str!(concat!("../../../tests/fixtures/override/", $path)))
    };
}

fn override_workspace() -> (Rc<Repo>, Rc<Index>) {
    let repo = Repo::from_files([
        override_file!("shop/__init__.py"),
        override_file!("shop/basket.py"),
        override_file!("shop/cart.py"),
        override_file!("tests/test_cart.py"),
    ]);
    let index = Index::build(&repo);
    (Rc::new(repo), Rc::new(index))
}

const OVERRIDE_ISSUE: &str = include_str!("../../../tests/fixtures/override/ISSUE.md");

const OVERRIDE_LOCATION: &str = r#"{"API_calls": [], "bug_locations": [{"file": "shop/cart.py", "class": "Cart", "method": "total", "intended_behavior": "Charge each item's price times its units."}]}"#;

fn override_patch(expression: &str) -> String {
    format!(
        "Count the units.\n\n<file>shop/cart.py</file>\n<original>\n        return super().total()\n</original>\n<patched>\n        return {expression}\n</patched>\n"
    )
}

const COUNTING: &str = "sum(item.price * self.units[item] for item in set(self.items))";

/// Runs as the override fixture's program would: the reproducer passes when the patch counts units; the
/// repository's test fails when the patch adds one to every total.
struct OverrideRunner;

impl Runner for OverrideRunner {
    async fn run(&self, request: &crate::runner::RunRequest) -> Result<RunOutcome, crate::runner::RunError> {
        let patch = &request.patch;
        if request.command.contains(Language::Python.row().regression.as_ref().unwrap().file) {
            let ok = !patch.contains("+ 1");
            let line = if ok { "PASS" } else { "FAIL" };
            return Ok(RunOutcome {
                exit_code: Some(if ok { 0 } else { 1 }),
                stdout: format!("{line} tests/test_cart.py::test_one_unit_costs_its_price\n"),
                ..RunOutcome::default()
            });
        }
        let fixed = patch.contains("* self.units[item]");
        Ok(RunOutcome {
            exit_code: Some(if fixed { 0 } else { 1 }),
            stderr: if fixed {
                String::new()
            } else {
                "Traceback (most recent call last):\n  File \"reproducer.py\", line 9\n    assert total == 15\nAssertionError: 5 != 15".into()
            },
            ..RunOutcome::default()
        })
    }
}

/// Why each run of a recorded run was made, in order.
fn run_purposes(events: &[Event]) -> Vec<RunPurpose> {
    events.iter().filter_map(|e| if let Event::Run { purpose, .. } = e { Some(*purpose) } else { None }).collect()
}

fn model_prompts(events: &[Event], stage: Stage) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Model { stage: s, prompt, .. } if *s == stage => Some(prompt.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn the_class_and_the_overridden_parent_reach_the_patch_writer() {
    let script =
        Script::default().answer(Stage::Search, OVERRIDE_LOCATION).answer(Stage::Patch, override_patch(COUNTING));
    let (repo, index) = override_workspace();
    let (agent, seen) = agent_over::<NoRunner>(repo, index, script, None, AgentConfig::default());
    let outcome = pollster::block_on(agent.run(OVERRIDE_ISSUE)).unwrap();
    assert!(outcome.status.is_applicable(), "{}", outcome.reason);
    let events = seen.borrow();
    let patch_prompt = &model_prompts(&events, Stage::Patch)[0];
    assert!(patch_prompt.contains("This is the whole class `Cart`"), "{patch_prompt}");
    assert!(patch_prompt.contains("class Cart(Basket):"), "the class's code is shown");
    assert!(patch_prompt.contains("`Basket.total`, the definition that `Cart.total` in location #1 overrides"));
    assert!(patch_prompt.contains("return sum(item.price for item in self.items)"), "the parent's code is shown");
    let shown = events
        .iter()
        .find_map(|e| if let Event::Shown { units } = e { Some(units.clone()) } else { None })
        .expect("what the patch writer saw is recorded");
    let summary: Vec<(&str, Option<&str>, Option<&str>, &str)> =
        shown.iter().map(|u| (u.file.as_str(), u.class.as_deref(), u.method.as_deref(), u.why.as_str())).collect();
    assert_eq!(
        summary,
        [
            ("shop/cart.py", Some("Cart"), Some("total"), "bug location #1"),
            ("shop/cart.py", Some("Cart"), None, "the whole class of location #1"),
            (
                "shop/basket.py",
                Some("Basket"),
                Some("total"),
                "the definition in ancestor `Basket` (depth 1) that location #1 overrides"
            ),
        ]
    );
}

#[test]
fn context_equal_to_a_location_is_not_shown_twice() {
    // The model names both the class and its method: the class is a location, so it is not repeated as context.
    let both = r#"{"API_calls": [], "bug_locations": [{"file": "shop/cart.py", "class": "Cart", "method": "total"}, {"file": "shop/cart.py", "class": "Cart"}]}"#;
    let script = Script::default().answer(Stage::Search, both).answer(Stage::Patch, override_patch(COUNTING));
    let (repo, index) = override_workspace();
    let (agent, seen) = agent_over::<NoRunner>(repo, index, script, None, AgentConfig::default());
    pollster::block_on(agent.run(OVERRIDE_ISSUE)).unwrap();
    let events = seen.borrow();
    let shown = events.iter().find_map(|e| if let Event::Shown { units } = e { Some(units.clone()) } else { None });
    let why: Vec<String> = shown.unwrap().into_iter().map(|u| u.why).collect();
    assert_eq!(why.iter().filter(|w| w.starts_with("bug location")).count(), 2);
    assert!(!why.iter().any(|w| w.starts_with("the whole class")), "{why:?}");
    assert_eq!(why.iter().filter(|w| w.contains("ancestor `Basket`")).count(), 1, "{why:?}");
}

#[test]
fn html_comments_of_the_issue_never_reach_the_model() {
    let script =
        Script::default().answer(Stage::Search, OVERRIDE_LOCATION).answer(Stage::Patch, override_patch(COUNTING));
    let (repo, index) = override_workspace();
    let (agent, seen) = agent_over::<NoRunner>(repo, index, script, None, AgentConfig::default());
    pollster::block_on(agent.run(OVERRIDE_ISSUE)).unwrap();
    let events = seen.borrow();
    let prompts: Vec<String> = [Stage::Search, Stage::Patch].iter().flat_map(|s| model_prompts(&events, *s)).collect();
    assert_eq!(prompts.len(), 2);
    for p in &prompts {
        assert!(!p.contains("<!--") && !p.contains("Please fill in"), "{p}");
        assert!(p.contains("charges one unit of each item"), "the report itself stays: {p}");
    }
}

/// Runs the agent over the override fixture with its runner and the default configuration: the outcome and the
/// events it recorded.
fn run_override(script: Script) -> (Outcome, Vec<Event>) {
    let (repo, index) = override_workspace();
    let (agent, seen) = agent_over(repo, index, script, Some(OverrideRunner), AgentConfig::default());
    let outcome = pollster::block_on(agent.run(OVERRIDE_ISSUE)).unwrap();
    let events = seen.borrow().clone();
    (outcome, events)
}

/// The override fixture's run with a reproducer that shows the bug and an approved fix, after `reproducible`, the
/// answer to whether the issue has an example.
fn reproduced_override(reproducible: &str) -> Script {
    Script::default()
        .answer(Stage::Reproducible, reproducible)
        .answer(Stage::Reproducer, "```python\nfrom shop import Cart\nassert False\n```")
        .answer(Stage::Search, OVERRIDE_LOCATION)
        .answer(Stage::Patch, override_patch(COUNTING))
        .answer(Stage::Review, r#"{"patch-correct": "yes", "test-correct": "yes"}"#)
}

#[test]
fn the_reproducer_runs_before_the_search_and_its_trace_is_a_clue() {
    let (outcome, events) = run_override(reproduced_override("{\"reproducible\": true}"));
    assert!(outcome.validated, "{}", outcome.reason);
    let first_run = events.iter().position(|e| matches!(e, Event::Run { .. })).unwrap();
    let first_search = events.iter().position(|e| matches!(e, Event::Model { stage: Stage::Search, .. })).unwrap();
    assert!(first_run < first_search, "the reproducer ran before the search");
    let search = &model_prompts(&events, Stage::Search)[0];
    assert!(search.contains("AssertionError: 5 != 15") && search.contains("assert total == 15"), "{search}");
}

/// A model that answers "not reproducible" to an issue whose example calls the repository's code is overruled: the
/// issue shows how to run it, and the reproducer is asked for all the same. Without such a call, the answer stands.
#[test]
fn an_issue_that_shows_a_call_is_reproduced_whatever_the_model_answers() {
    let no = r#"{"reason": "No example is given.", "reproducible": false}"#;
    let (outcome, events) = run_override(reproduced_override(no));
    assert!(outcome.validated, "{}", outcome.reason);
    assert_eq!(model_prompts(&events, Stage::Reproducer).len(), 1);
    let notes = notes_of(&outcome);
    assert!(
        notes.iter().any(|n| n.contains("the issue shows a call of `Cart` (shop/cart.py:")),
        "a note says why the answer was overruled: {notes:#?}"
    );

    let script = search_script().answer(Stage::Patch, GOOD_PATCH).answer(Stage::Reproducible, no);
    let (agent, seen) = agent(script, Some(JudgeByPatch), AgentConfig::default());
    let outcome = pollster::block_on(agent.run(ISSUE)).unwrap();
    assert!(outcome.status.is_applicable() && !outcome.validated, "{}", outcome.reason);
    assert!(model_prompts(&seen.borrow(), Stage::Reproducer).is_empty(), "no call in code: the answer stands");
}

/// A reproducer that defines the class the issue is about instead of importing it fails on its own copy: it does
/// not count, and the next attempt hears why; the one that imports it is kept.
#[test]
fn a_reproducer_that_copies_the_code_does_not_count() {
    let script = Script::default()
        .answer(Stage::Reproducible, "{\"reproducible\": true}")
        .answer(Stage::Reproducer, "```python\nclass Cart:\n    pass\nassert False\n```")
        .answer(Stage::Reproducer, "```python\nfrom shop.cart import Cart\nassert False\n```")
        .answer(Stage::Search, OVERRIDE_LOCATION)
        .answer(Stage::Patch, override_patch(COUNTING))
        .answer(Stage::Review, r#"{"patch-correct": "yes", "test-correct": "yes"}"#);
    let (outcome, events) = run_override(script);
    assert!(outcome.validated, "{}", outcome.reason);
    let asked = model_prompts(&events, Stage::Reproducer);
    assert_eq!(asked.len(), 2, "{asked:#?}");
    assert!(asked[1].contains("Your script defines `Cart` itself"), "{}", asked[1]);
    assert!(asked[0].contains("import it with `from shop.cart import Cart`"), "{}", asked[0]);
}

#[test]
fn an_unreadable_review_is_asked_again_and_nothing_is_rewritten() {
    let script = search_script()
        .answer(Stage::Patch, GOOD_PATCH)
        .answer(Stage::Reproducible, "{\"reproducible\": true}")
        .answer(Stage::Reproducer, "```python\nfrom shop.cart import Cart\nassert False\n```")
        .answer(Stage::Review, "The patch looks right to me, and so does the test.")
        .answer(Stage::Review, r#"{"patch-correct": "yes", "test-correct": "yes"}"#);
    let (agent, seen) = agent(script, Some(JudgeByPatch), AgentConfig::default());
    let outcome = pollster::block_on(agent.run(ISSUE)).unwrap();
    assert!(outcome.validated, "{}", outcome.reason);
    let events = seen.borrow();
    let reviews = model_prompts(&events, Stage::Review);
    assert_eq!(reviews.len(), 2);
    assert!(reviews[1].contains("Your review could not be read"), "{}", reviews[1]);
    assert_eq!(model_prompts(&events, Stage::Patch).len(), 1, "the patch was not rewritten");
    assert_eq!(model_prompts(&events, Stage::Reproducer).len(), 1, "the test was not rewritten");
    let verdicts = events.iter().filter(|e| matches!(e, Event::Review { .. })).count();
    assert_eq!(verdicts, 1, "one readable verdict");
}

#[test]
fn a_review_that_stays_unreadable_is_given_up_keeping_the_patch() {
    let script = Script { repeat_last: true, ..search_script() }
        .answer(Stage::Patch, GOOD_PATCH)
        .answer(Stage::Reproducible, "{\"reproducible\": true}")
        .answer(Stage::Reproducer, "```python\nassert False\n```")
        .answer(Stage::Review, "Hard to say.");
    let config = AgentConfig { overall_retries: 1, ..AgentConfig::default() };
    let (agent, seen) = agent(script, Some(JudgeByPatch), config);
    let outcome = pollster::block_on(agent.run(ISSUE)).unwrap();
    assert!(outcome.status.is_applicable() && !outcome.validated);
    let events = seen.borrow();
    assert_eq!(model_prompts(&events, Stage::Review).len(), 1 + review::REVIEW_RETRIES);
    assert_eq!(model_prompts(&events, Stage::Patch).len(), 1);
}

#[test]
fn an_approved_patch_that_breaks_a_repository_test_goes_back_to_the_writer() {
    let script = Script::default()
        .answer(Stage::Reproducible, "{\"reproducible\": true}")
        .answer(Stage::Reproducer, "```python\nfrom shop import Cart\nassert False\n```")
        .answer(Stage::Search, OVERRIDE_LOCATION)
        .answer(Stage::Patch, override_patch(&format!("{COUNTING} + 1")))
        .answer(Stage::Patch, override_patch(COUNTING))
        .answer(Stage::Review, r#"{"patch-correct": "yes", "test-correct": "yes"}"#)
        .answer(Stage::Review, r#"{"patch-correct": "yes", "test-correct": "yes"}"#);
    let (repo, index) = override_workspace();
    let (agent, seen) = agent_over(repo, index, script, Some(OverrideRunner), AgentConfig::default());
    let outcome = pollster::block_on(agent.run(OVERRIDE_ISSUE)).unwrap();
    assert!(outcome.validated, "{}", outcome.reason);
    assert!(!outcome.diff.contains("+ 1"), "{}", outcome.diff);
    let events = seen.borrow();
    let feedback = &model_prompts(&events, Stage::Patch)[1];
    assert!(feedback.contains("validating it by execution failed"), "{feedback}");
    assert!(feedback.contains("FAIL tests/test_cart.py::test_one_unit_costs_its_price"), "{feedback}");
    let purposes = run_purposes(&events);
    use RunPurpose::*;
    assert_eq!(
        purposes,
        [
            ReproducerOnOriginal,
            ReproducerOnPatch,
            TestsOnOriginal,
            TestsOnPatch,
            ReproducerOnPatch,
            TestsOnOriginal,
            TestsOnPatch
        ]
    );
}

#[test]
fn a_try_without_an_applicable_patch_starts_the_workflow_again() {
    let script = Script::default()
        .answer(Stage::Search, LOCATION_JSON)
        .answer(Stage::Search, LOCATION_JSON)
        .answer(Stage::Patch, STALE_PATCH)
        .answer(Stage::Patch, STALE_PATCH)
        .answer(Stage::Patch, STALE_PATCH)
        .answer(Stage::Patch, GOOD_PATCH);
    let (agent, seen) = agent::<NoRunner>(script, None, AgentConfig::default());
    let outcome = pollster::block_on(agent.run(ISSUE)).unwrap();
    assert!(outcome.status.is_applicable(), "{}", outcome.reason);
    assert_eq!(outcome.tries.len(), 2);
    assert!(!outcome.tries[0].status.is_applicable() && outcome.tries[1].status.is_applicable());
    assert_eq!(outcome.selection.chosen, Some(2));
    assert_eq!(outcome.selection.reason, "try 2 produced the only applicable patch");
    let events = seen.borrow();
    let tries: Vec<usize> =
        events.iter().filter_map(|e| if let Event::Try { number, .. } = e { Some(*number) } else { None }).collect();
    assert_eq!(tries, [1, 2]);
    // Each try starts a new conversation: the second search request is the opening one again.
    let searches: Vec<usize> = events
        .iter()
        .filter_map(|e| match e {
            Event::Model { stage: Stage::Search, messages, .. } => Some(*messages),
            _ => None,
        })
        .collect();
    assert_eq!(searches, [2, 2]);
    let json = serde_json::to_value(&outcome.tries).unwrap();
    assert_eq!(json[1]["number"], 2);
}

#[test]
fn without_any_applicable_patch_the_tries_run_out_and_nothing_is_chosen() {
    let script = Script { repeat_last: true, ..Script::default() }
        .answer(Stage::Search, LOCATION_JSON)
        .answer(Stage::Patch, STALE_PATCH);
    let config = AgentConfig { overall_retries: 2, ..AgentConfig::default() };
    let (agent, _) = agent::<NoRunner>(script, None, config);
    let outcome = pollster::block_on(agent.run(ISSUE)).unwrap();
    assert_eq!(outcome.tries.len(), 2);
    assert_eq!(outcome.selection.chosen, None);
    assert!(!outcome.status.is_applicable() && outcome.diff.is_empty());
}

#[test]
fn the_model_chooses_among_unconfirmed_patches_of_several_tries() {
    // The reviewer never approves and the rounds run out, so no try is acceptable; both patches are applicable.
    let other = GOOD_PATCH.replace("item.price * units", "units * item.price");
    let script = Script { repeat_last: true, ..Script::default() }
        .answer(Stage::Search, LOCATION_JSON)
        .answer(Stage::Patch, WRONG_PATCH)
        .answer(Stage::Patch, other)
        .answer(Stage::Reproducible, "{\"reproducible\": true}")
        .answer(Stage::Reproducer, "```python\nassert False\n```")
        .answer(Stage::Review, r#"{"patch-correct": "no", "test-correct": "yes", "patch-advice": "multiply"}"#)
        .answer(Stage::Select, r#"{"choice": 2, "reason": "it multiplies"}"#);
    let config = AgentConfig { overall_retries: 2, review_rounds: 1, ..AgentConfig::default() };
    let (agent, seen) = agent(script, Some(JudgeByPatch), config);
    let outcome = pollster::block_on(agent.run(ISSUE)).unwrap();
    assert_eq!(outcome.tries.len(), 2);
    assert_eq!(outcome.selection.chosen, Some(2), "{}", outcome.selection.reason);
    assert!(outcome.selection.reason.starts_with("the model chose try 2 among 2 applicable patches"));
    assert_eq!(model_prompts(&seen.borrow(), Stage::Select).len(), 1);
}

#[test]
fn a_broken_candidate_is_an_error_child_and_its_parent_loses_the_next_selection() {
    let broken = "Close the bracket later.\n```python\n            total += (item.price\n```";
    let fixed = "```python\n            total += item.price * units\n```";
    let other = GOOD_PATCH.replace("item.price * units", "item.price * 1");
    let script = Script { repeat_last: true, ..Script::default() }
        .answer(Stage::Search, LOCATION_JSON)
        .answer(Stage::Patch, WRONG_PATCH)
        .answer(Stage::Patch, other)
        .answer(Stage::Patch, broken)
        .answer(Stage::Patch, fixed)
        .answer(Stage::Rate, "60")
        .answer(Stage::Rate, "50")
        .answer(Stage::Rate, "100");
    let mut config = AgentConfig { mode: Mode::Mcts, overall_retries: 1, ..AgentConfig::default() };
    config.mcts.samples = 2;
    config.mcts.branch = 2;
    config.mcts.max_rounds = 3;
    let (agent, seen) = agent::<NoRunner>(script, None, config);
    pollster::block_on(agent.run(ISSUE)).unwrap();
    let events = seen.borrow();
    let expansions: Vec<(usize, Vec<(usize, f64)>)> = events
        .iter()
        .filter_map(|e| if let Event::Mcts { node, children, .. } = e { Some((*node, children.clone())) } else { None })
        .collect();
    assert_eq!(expansions[0], (0, vec![(1, 0.6), (2, 0.5)]));
    assert_eq!(expansions[1], (1, vec![(3, -1.0), (4, 1.0)]), "the broken sample is a child with reward -1");
    assert_eq!(expansions[2].0, 2, "node 1 fell below its sibling, which is expanded next");
    let tree =
        events.iter().rev().find_map(|e| if let Event::Mcts { tree, .. } = e { Some(tree.clone()) } else { None });
    let broken_node = &tree.unwrap()[3];
    assert_eq!(broken_node.verdict, Some(Verdict::Error));
    assert!(broken_node.diff.is_empty());
}

/// With tools, the calls come back as tool calls: run without reading them, answered in `tool` messages that quote
/// their ids, then the same analysis and decision as in prose, and the same patch.
#[test]
fn tool_calls_are_run_and_answered_in_tool_messages() {
    let script = search_script().answer(Stage::Patch, GOOD_PATCH);
    let config = AgentConfig { tools: true, overall_retries: 1, ..AgentConfig::default() };
    let (agent, seen) = agent::<NoRunner>(script, None, config);
    let outcome = pollster::block_on(agent.run(ISSUE)).unwrap();
    assert_eq!(outcome.status, ExtractStatus::ApplicablePatch, "{}", outcome.reason);
    let events = seen.borrow();
    let read: Vec<(ReadBy, usize)> = events
        .iter()
        .filter_map(|e| match e {
            Event::Proxy { source, calls, .. } => Some((*source, calls.len())),
            _ => None,
        })
        .collect();
    assert_eq!(read, [(ReadBy::Tools, 2), (ReadBy::Deterministic, 0)], "calls by tools, locations from the text");
    let asked: Vec<Stage> =
        events.iter().filter_map(|e| if let Event::Model { stage, .. } = e { Some(*stage) } else { None }).collect();
    assert_eq!(asked, [Stage::Search, Stage::Analyse, Stage::Decide, Stage::Patch], "no proxy model needed");
    let Some(Event::Model { tool_calls, .. }) = events.iter().find(|e| matches!(e, Event::Model { .. })) else {
        panic!("a model event")
    };
    assert_eq!(
        tool_calls.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
        ["search_class", "search_method_in_class"]
    );
    // The analysis request carried the results as tool messages answering those ids, and nothing else new.
    let analyse = events.iter().find_map(|e| match e {
        Event::Model { stage: Stage::Analyse, prompt, messages, .. } => Some((prompt.clone(), *messages)),
        _ => None,
    });
    assert_eq!(analyse, Some((crate::prompt::text::ANALYSE.to_string(), 6)), "system, issue, calls, 2 results, ask");
}

/// A tool call that does not fit the API table is answered with what is wrong, and the valid ones still run.
#[test]
fn a_bad_tool_call_is_answered_with_the_problem() {
    let script = Script::default()
        .answer(Stage::Search, "search_klass(\"Cart\")\nsearch_class(\"Cart\")")
        .answer(Stage::Analyse, "Seen.")
        .answer(Stage::Decide, LOCATION_JSON)
        .answer(Stage::Patch, GOOD_PATCH);
    let config = AgentConfig { tools: true, overall_retries: 1, ..AgentConfig::default() };
    let (agent, seen) = agent::<NoRunner>(script, None, config);
    let outcome = pollster::block_on(agent.run(ISSUE)).unwrap();
    assert_eq!(outcome.status, ExtractStatus::ApplicablePatch, "{}", outcome.reason);
    let events = seen.borrow();
    let searches = events.iter().filter(|e| matches!(e, Event::Search { .. })).count();
    assert_eq!(searches, 1, "only the valid call ran");
}

/// A model answering prose to a request with tools (calls written in the text) is read as without tools.
#[test]
fn prose_answers_still_work_when_tools_are_offered() {
    struct Prose(ScriptedModel);
    impl Llm for Prose {
        async fn chat(&self, request: &ChatRequest) -> Result<crate::llm::ChatResponse, LlmError> {
            let answer = self.0.chat(request).await?;
            Ok(crate::llm::ChatResponse { tool_calls: Vec::new(), ..answer })
        }
    }
    let (repo, index) = workspace();
    let script = search_script().answer(Stage::Patch, GOOD_PATCH);
    let config = AgentConfig { tools: true, overall_retries: 1, ..AgentConfig::default() };
    let agent = Agent::<_, NoRunner>::new(repo, index, Prose(ScriptedModel::new(script)), None, config);
    let outcome = pollster::block_on(agent.run(ISSUE)).unwrap();
    assert_eq!(outcome.status, ExtractStatus::ApplicablePatch, "{}", outcome.reason);
    let searched = outcome.transcript.events.iter().filter(|e| matches!(e, Event::Search { ok: true, .. })).count();
    assert_eq!(searched, 2);
}

/// A server that refuses tools (HTTP 400 naming them) is asked again without, once; the run says so and goes on in
/// prose, with the same patch.
#[test]
fn a_server_refusing_tools_is_asked_again_without_them() {
    struct NoTools {
        model: ScriptedModel,
        offered: RefCell<usize>,
    }
    impl Llm for NoTools {
        async fn chat(&self, request: &ChatRequest) -> Result<crate::llm::ChatResponse, LlmError> {
            if !request.tools.is_empty() {
                *self.offered.borrow_mut() += 1;
                return Err(LlmError::Http { status: 400, message: "tools param requires --jinja flag".into() });
            }
            assert!(request.messages.iter().all(|m| m.role != crate::llm::Role::Tool), "no tool messages sent");
            self.model.chat(request).await
        }
    }
    let (repo, index) = workspace();
    let model =
        NoTools { model: ScriptedModel::new(search_script().answer(Stage::Patch, GOOD_PATCH)), offered: 0.into() };
    let config = AgentConfig { tools: true, overall_retries: 1, ..AgentConfig::default() };
    let agent = Agent::<_, NoRunner>::new(repo, index, &model, None, config);
    let outcome = pollster::block_on(agent.run(ISSUE)).unwrap();
    assert_eq!(outcome.status, ExtractStatus::ApplicablePatch, "{}", outcome.reason);
    assert_eq!(*model.offered.borrow(), 1, "tools offered once, then never again");
    let notes: Vec<&str> = outcome
        .transcript
        .events
        .iter()
        .filter_map(|e| if let Event::Note { text } = e { Some(text.as_str()) } else { None })
        .collect();
    assert!(notes.iter().any(|n| n.contains("does not take tools") && n.contains("--jinja")), "{notes:?}");
}

/// What a server does with a JSON schema.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Takes {
    /// Any schema.
    All,
    /// Schemas without bounds on lengths (OpenAI's strict mode refuses `maxLength`).
    Unbounded,
    /// None (a model without structured outputs).
    Nothing,
}

/// A server in front of a scripted model that holds it to a JSON schema or not, says so or not, or refuses schemas
/// (as OpenAI does for a model without structured outputs); it records, per request, the stage and whether a schema
/// came with it.
struct Schemas {
    model: ScriptedModel,
    says: Option<bool>,
    takes: Takes,
    asked: RefCell<Vec<(Stage, bool)>>,
}

impl Schemas {
    fn new(says: Option<bool>, takes: Takes) -> Schemas {
        let script = proxy_script();
        Schemas { model: ScriptedModel::new(script), says, takes, asked: RefCell::default() }
    }

    fn run(&self) -> Outcome {
        let (repo, index) = workspace();
        let agent = Agent::<_, NoRunner>::new(repo, index, self, None, AgentConfig::default());
        let outcome = pollster::block_on(agent.run(ISSUE)).unwrap();
        assert!(outcome.status.is_applicable(), "{}", outcome.reason);
        outcome
    }
}

impl Llm for Schemas {
    async fn chat(&self, request: &ChatRequest) -> Result<crate::llm::ChatResponse, LlmError> {
        self.asked.borrow_mut().push((request.stage, request.schema.is_some()));
        let bounded = request.schema.as_ref().is_some_and(|s| s.unbounded().is_some());
        let message = match self.takes {
            Takes::Nothing if request.schema.is_some() => {
                "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model."
            }
            Takes::Unbounded if bounded => "Invalid schema for response_format 'x': 'maxLength' is not permitted.",
            _ => return self.model.chat(request).await,
        };
        Err(LlmError::Http { status: 400, message: message.into() })
    }
    async fn takes_json_schema(&self) -> Option<bool> {
        self.says
    }
}

/// Which model calls of a run were constrained, by stage.
fn constrained(outcome: &Outcome) -> Vec<(Stage, bool)> {
    let calls = outcome.transcript.events.iter();
    calls
        .filter_map(
            |e| if let Event::Model { stage, constrained, .. } = e { Some((*stage, *constrained)) } else { None },
        )
        .collect()
}

/// The proxy's requests carry the schema of its JSON, and no request answered in words does; the transcript says
/// which answers were constrained. A server that says it holds models to schemas is named so in a note.
#[test]
fn answers_read_as_json_are_asked_for_with_their_schema() {
    for says in [None, Some(true)] {
        let server = Schemas::new(says, Takes::All);
        let outcome = server.run();
        let expected = [
            (Stage::Search, false),
            (Stage::Proxy, true),
            (Stage::Proxy, true),
            (Stage::Analyse, false),
            (Stage::Decide, false),
            (Stage::Patch, false),
        ];
        assert_eq!(*server.asked.borrow(), expected, "{says:?}");
        assert_eq!(constrained(&outcome), expected, "{says:?}: the transcript says which were constrained");
        let named = notes_of(&outcome).iter().any(|n| n.contains("holds the model to a JSON schema"));
        assert_eq!(named, says == Some(true), "{says:?}");
    }
}

/// A server that refuses the proxy's schema is asked again at once without its bounds, then, refusing that too,
/// without a schema, and never sent one again; the run says so and reads the JSON written in words. A server that
/// refuses only the bounds keeps constraining the answers, to the schema without them. One that says it cannot hold
/// a model to a schema is never sent one.
#[test]
fn a_server_refusing_schemas_is_asked_for_json_in_words_from_then_on() {
    let server = Schemas::new(None, Takes::Nothing);
    let outcome = server.run();
    let asked = server.asked.borrow();
    assert_eq!(asked.iter().filter(|(_, schema)| *schema).count(), 2, "refused twice, never sent again: {asked:?}");
    assert_eq!(asked[1..4], [(Stage::Proxy, true), (Stage::Proxy, true), (Stage::Proxy, false)], "at once");
    assert!(constrained(&outcome).iter().all(|(_, c)| !c));
    let notes = notes_of(&outcome);
    let refusals: Vec<&String> = notes.iter().filter(|n| n.contains("refused a JSON schema")).collect();
    let dropped: Vec<&String> = notes.iter().filter(|n| n.contains("does not take a JSON schema")).collect();
    assert_eq!((refusals.len(), dropped.len()), (1, 1), "{refusals:?} {dropped:?}");
    assert!(dropped[0].contains("HTTP 400"), "{dropped:?}");
    assert_eq!(outcome.transcript.model_calls, 6, "the refusals are not calls of the run");

    let server = Schemas::new(None, Takes::Unbounded);
    let outcome = server.run();
    let proxies: Vec<(Stage, bool)> = constrained(&outcome).into_iter().filter(|(s, _)| *s == Stage::Proxy).collect();
    assert_eq!(proxies, [(Stage::Proxy, true), (Stage::Proxy, true)], "constrained without the bounds");
    assert!(notes_of(&outcome).iter().all(|n| !n.contains("does not take a JSON schema")));

    let server = Schemas::new(Some(false), Takes::All);
    let outcome = server.run();
    assert!(server.asked.borrow().iter().all(|(_, schema)| !schema));
    assert!(notes_of(&outcome).iter().all(|n| !n.contains("JSON schema")));
}

/// A scripted model that keeps every request it is sent.
struct Recorder {
    model: ScriptedModel,
    requests: RefCell<Vec<ChatRequest>>,
}

impl Llm for Recorder {
    async fn chat(&self, request: &ChatRequest) -> Result<crate::llm::ChatResponse, LlmError> {
        self.requests.borrow_mut().push(request.clone());
        self.model.chat(request).await
    }
}

impl Recorder {
    fn run(script: Script, config: AgentConfig) -> (Outcome, Vec<ChatRequest>) {
        Recorder::run_with::<NoRunner>(script, None, config)
    }

    fn run_with<R: Runner>(script: Script, runner: Option<R>, config: AgentConfig) -> (Outcome, Vec<ChatRequest>) {
        Recorder::run_on(ISSUE, script, runner, config)
    }

    fn run_on<R: Runner>(
        issue: &str,
        script: Script,
        runner: Option<R>,
        config: AgentConfig,
    ) -> (Outcome, Vec<ChatRequest>) {
        let (repo, index) = workspace();
        let model = Recorder { model: ScriptedModel::new(script), requests: RefCell::default() };
        let outcome = pollster::block_on(Agent::new(repo, index, &model, runner, config).run(issue));
        (outcome.unwrap(), model.requests.into_inner())
    }
}

/// The calls a run searched with, in order.
fn searched(outcome: &Outcome) -> Vec<String> {
    let events = outcome.transcript.events.iter();
    events.filter_map(|e| if let Event::Search { call, .. } = e { Some(call.to_string()) } else { None }).collect()
}

/// A model that lists 126 calls at once, as Qwen2.5-Coder-1.5B did (`search_code_in_file("116", "Square.py")`,
/// `("117", ...)`, ...), with a call on a file the repository does not have and a repeat: each distinct call that
/// names something runs once, ten at most, in the order given, and the model reads which were not run and why.
#[test]
fn a_round_of_126_calls_runs_ten_and_says_which_were_not_run() {
    let mut calls =
        vec![r#"search_class(\"Cart\")"#.to_string(), r#"search_code_in_file(\"116\", \"Square.py\")"#.into()];
    calls.extend((117..241).map(|n| format!(r#"search_code_in_file(\"{n}\", \"cart.py\")"#)));
    calls.push(calls[0].clone());
    let list = calls.iter().map(|c| format!("\"{c}\"")).collect::<Vec<_>>().join(", ");
    let script = Script::default()
        .answer(Stage::Search, format!(r#"{{"API_calls": [{list}], "bug_locations": []}}"#))
        .answer(Stage::Analyse, "Nothing but the class.")
        .answer(Stage::Decide, LOCATION_JSON)
        .answer(Stage::Patch, GOOD_PATCH);
    let (outcome, requests) = Recorder::run(script, AgentConfig::default());
    assert!(outcome.status.is_applicable(), "{}", outcome.reason);
    let searched = searched(&outcome);
    assert_eq!(searched.len(), crate::api::MAX_CALLS_PER_ROUND, "{searched:?}");
    assert_eq!(searched[..2], ["search_class(\"Cart\")", "search_code_in_file(\"117\", \"cart.py\")"]);
    let analyse = requests.iter().find(|r| r.stage == Stage::Analyse).expect("an analysis");
    let results = &analyse.messages[analyse.messages.len() - 2].content;
    assert_eq!(results.matches("Result of ").count(), crate::api::MAX_CALLS_PER_ROUND, "{results}");
    assert!(results.contains("- `search_code_in_file(\"116\", \"Square.py\")`: no file, class or method"), "{results}");
    assert!(results.contains("`search_code_in_file(\"126\", \"cart.py\")`"), "the first over the cap: {results}");
    assert!(results.contains("and 110 more: at most 10 calls are run in a round"), "{results}");
    assert!(!results.contains("more than once"), "the reading already ran a repeated call once: {results}");
    let notes = notes_of(&outcome);
    assert!(
        notes.iter().any(|n| n.contains("1 name nothing") && n.contains("115 are over the round's cap")),
        "{notes:?}"
    );
}

/// An answer whose every call names nothing in the repository runs none, and the model hears why; its next answer
/// is read as usual.
#[test]
fn calls_that_name_nothing_are_not_run_and_the_model_hears_why() {
    let script = Script::default()
        .answer(Stage::Search, "search_code_in_file(\"116\", \"Square.py\")\nsearch_class(\"Circle\")")
        .answer(Stage::Decide, LOCATION_JSON)
        .answer(Stage::Patch, GOOD_PATCH);
    let (outcome, requests) = Recorder::run(script, AgentConfig::default());
    assert!(outcome.status.is_applicable(), "{}", outcome.reason);
    assert!(searched(&outcome).is_empty(), "nothing ran: {:?}", searched(&outcome));
    let decide = requests.iter().find(|r| r.stage == Stage::Decide).expect("asked again");
    let told = &decide.messages.last().unwrap().content;
    assert!(told.starts_with("Your answer could not be used: none of its search calls was run."), "{told}");
    assert!(told.contains("`search_class(\"Circle\")`"), "{told}");
}

/// Offered as tools, the calls are bounded the same way, and every call is still answered by a `tool` message: a
/// repeat is pointed to the first, a call that names nothing is told why.
#[test]
fn tool_calls_are_bounded_and_each_is_answered() {
    let script = search_script().answer(Stage::Patch, GOOD_PATCH);
    let mut script = script;
    script.answers.insert(
        Stage::Search,
        vec!["search_class(\"Cart\")\nsearch_class(\"Circle\")\nsearch_class(\"Cart\")".to_string()],
    );
    let config = AgentConfig { tools: true, overall_retries: 1, ..AgentConfig::default() };
    let (outcome, requests) = Recorder::run(script, config);
    assert!(outcome.status.is_applicable(), "{}", outcome.reason);
    assert_eq!(searched(&outcome), ["search_class(\"Cart\")"]);
    let analyse = requests.iter().find(|r| r.stage == Stage::Analyse).expect("an analysis");
    let answers: Vec<&str> =
        analyse.messages.iter().filter(|m| m.role == crate::llm::Role::Tool).map(|m| m.content.as_str()).collect();
    assert_eq!(answers.len(), 3, "every call answered: {answers:?}");
    assert!(answers[0].starts_with("Result of search_class(\"Cart\")"), "{answers:?}");
    assert!(answers[1].starts_with("Not run: no file, class or method"), "{answers:?}");
    assert!(answers[2].starts_with("The same call was made earlier"), "{answers:?}");
}

/// A runner on which a reproducer that asserts reproduces the bug (until the patch multiplies by the units), and one
/// that does not assert runs to the end: it exits 0 and prints its last line.
struct Asserting;

impl Runner for Asserting {
    async fn run(&self, request: &crate::runner::RunRequest) -> Result<RunOutcome, crate::runner::RunError> {
        let script = request.files.get("reproducer.py").map(String::as_str).unwrap_or_default();
        let fixed = request.patch.contains("* units");
        Ok(if !script.contains("assert") {
            RunOutcome {
                exit_code: Some(0),
                stdout: format!("printed {}\n", script.lines().last().unwrap_or("")),
                ..RunOutcome::default()
            }
        } else if fixed {
            RunOutcome { exit_code: Some(0), ..RunOutcome::default() }
        } else {
            RunOutcome { exit_code: Some(1), stderr: "AssertionError: 50 != 150".into(), ..RunOutcome::default() }
        })
    }
}

const PRINTS: &str = "```python\nfrom shop.cart import Cart\nprint(Cart().total())\n```";
const PRINTS_AGAIN: &str = "```python\nfrom shop.cart import Cart\nprint('the total is', Cart().total())\n```";
const ASSERTS: &str = "```python\nfrom shop.cart import Cart\nassert Cart().total() == 150\n```";

/// A reproducer that uses a name it never binds hears which, with its run; one that calls the helper the request
/// showed without pasting it, and uses `sys` without importing it (as Qwen2.5-Coder-1.5B's did), gets both added,
/// and counts.
#[test]
fn a_reproducer_hears_the_names_it_never_binds_and_gets_the_helper_and_imports_it_left_out() {
    let unbound = "```python\nfrom shop.cart import Cart\nprint(report(Cart().total()))\n```";
    let handler = "except AssertionError as e:\n    print_stacktrace(e)\n    sys.exit(1)\n";
    let helped = format!("```python\nfrom shop.cart import Cart\ntry:\n    assert Cart().total() == 150\n{handler}```");
    let script = reproduced_then_approved(&[unbound, &helped]);
    let (outcome, requests) = Recorder::run_with(script, Some(Asserting), AgentConfig::default());
    assert!(outcome.validated, "{}", outcome.reason);
    let asked = reproducer_requests(&requests);
    assert_eq!(asked.len(), 2);
    assert!(asked[1][2].contains("uses `report` but never defines or imports it"), "{}", asked[1][2]);
    let review = requests.iter().find(|r| r.stage == Stage::Review).expect("a review");
    let shown = review.messages.iter().map(|m| m.content.as_str()).collect::<String>();
    assert!(shown.contains("import sys\n"), "the kept test imports sys: {shown}");
    assert!(shown.contains("def print_stacktrace(e: BaseException) -> None:"), "and has the helper: {shown}");
}

/// With the reproducer as the judge no review is asked for: a patch it still fails on is followed by the opening
/// request asked again in a new conversation (a new sample, not a revision of the failed fix), and the next patch,
/// which it passes on, is validated (the repository's tests included).
#[test]
fn with_execution_as_the_judge_the_reproducer_decides_and_no_review_is_asked() {
    let script = Script::default()
        .answer(Stage::Reproducible, "{\"reproducible\": true}")
        .answer(Stage::Reproducer, "```python\nfrom shop import Cart\nassert False\n```")
        .answer(Stage::Search, OVERRIDE_LOCATION)
        .answer(Stage::Patch, override_patch("len(self.items)"))
        .answer(Stage::Patch, override_patch(COUNTING));
    let (repo, index) = override_workspace();
    let config = AgentConfig { judge: Judge::Execution, ..AgentConfig::default() };
    let (agent, seen) = agent_over(repo, index, script, Some(OverrideRunner), config);
    let outcome = pollster::block_on(agent.run(OVERRIDE_ISSUE)).unwrap();
    assert!(outcome.validated, "{}", outcome.reason);
    assert!(outcome.diff.contains("self.units[item]"), "{}", outcome.diff);
    let events = seen.borrow();
    assert!(model_prompts(&events, Stage::Review).is_empty(), "no review was asked for");
    let asked = model_prompts(&events, Stage::Patch);
    assert_eq!(asked.len(), 2);
    assert_eq!(asked[1], asked[0], "the opening request again, not feedback on the failed fix");
    let sizes: Vec<usize> = events
        .iter()
        .filter_map(|e| match e {
            Event::Model { stage: Stage::Patch, messages, .. } => Some(*messages),
            _ => None,
        })
        .collect();
    assert_eq!(sizes, [2, 2], "each patch request opens a conversation of its own");
    assert!(
        events.iter().any(|e| matches!(e, Event::Note { text } if text.contains("a new conversation, for a new fix")))
    );
    let purposes = run_purposes(&events);
    use RunPurpose::*;
    assert_eq!(purposes, [ReproducerOnOriginal, ReproducerOnPatch, ReproducerOnPatch, TestsOnOriginal, TestsOnPatch]);
    assert!(events.iter().any(|e| matches!(e, Event::Note { text } if text.contains("judge: execution"))));
}

/// With the reproducer as the judge, a validated patch is trimmed to the changes the reproducer needs: the fix stays,
/// a change that came with it (another default for `add`) is undone, judged by a run.
#[test]
fn with_execution_as_the_judge_a_validated_patch_is_trimmed_to_what_the_reproducer_needs() {
    let extra = "\n# modification 2\n```\n<file>shop/cart.py</file>\n<original>\n    def add(self, item, units=1):\n</original>\n<patched>\n    def add(self, item, units=2):\n</patched>\n```\n";
    let script = search_script()
        .answer(Stage::Reproducible, "{\"reproducible\": true}")
        .answer(Stage::Reproducer, ASSERTS)
        .answer(Stage::Patch, format!("{GOOD_PATCH}{extra}"));
    let config = AgentConfig { judge: Judge::Execution, ..AgentConfig::default() };
    let (agent, seen) = agent(script, Some(JudgeByPatch), config);
    let outcome = pollster::block_on(agent.run(ISSUE)).unwrap();
    assert!(outcome.validated, "{}", outcome.reason);
    let fix_alone = CART.replace("item.price\n", "item.price * units\n");
    assert_eq!(outcome.diff, crate::patch::diff::file_diff("shop/cart.py", CART, &fix_alone), "the fix alone");
    let events = seen.borrow();
    let trimmed = run_purposes(&events).into_iter().filter(|p| *p == RunPurpose::ReproducerOnTrimmed).count();
    assert_eq!(trimmed, 1, "a run for the extra change; undoing the fix too would leave nothing, and is not run");
    let noted =
        events.iter().any(|e| matches!(e, Event::Note { text } if text.contains("1 of its 2 runs of changed lines")));
    assert!(noted, "the transcript says what was undone");
}

/// With the reproducer as the judge, a try samples as many patches as `execution_samples` says, however few review
/// rounds the reviewer would get.
#[test]
fn with_execution_as_the_judge_a_try_takes_its_samples_not_its_review_rounds() {
    let script = Script::default()
        .answer(Stage::Reproducible, "{\"reproducible\": true}")
        .answer(Stage::Reproducer, "```python\nfrom shop import Cart\nassert False\n```")
        .answer(Stage::Search, OVERRIDE_LOCATION)
        .answer(Stage::Patch, override_patch("len(self.items)"))
        .answer(Stage::Patch, override_patch("0"))
        .answer(Stage::Patch, override_patch("2 * len(self.items)"))
        .answer(Stage::Patch, override_patch(COUNTING));
    let (repo, index) = override_workspace();
    let config = AgentConfig {
        judge: Judge::Execution,
        review_rounds: 1,
        execution_samples: 4,
        overall_retries: 1,
        ..AgentConfig::default()
    };
    let (agent, seen) = agent_over(repo, index, script, Some(OverrideRunner), config);
    let outcome = pollster::block_on(agent.run(OVERRIDE_ISSUE)).unwrap();
    assert!(outcome.validated, "the fourth sample is the fix: {}", outcome.reason);
    let events = seen.borrow();
    assert_eq!(model_prompts(&events, Stage::Patch).len(), 4);
    let on_patch = run_purposes(&events).into_iter().filter(|p| *p == RunPurpose::ReproducerOnPatch).count();
    assert_eq!(on_patch, 4, "each sample is judged by the reproducer");
}

/// A patch the model writes again word for word after the reviewer judged it wrong is not run or judged again: a new
/// conversation asks for another, showing the fix tried and what the reproducer printed on it.
#[test]
fn a_patch_written_again_after_it_was_judged_is_refused_for_a_different_one() {
    let wrong = GOOD_PATCH.replace("item.price * units", "item.price + units");
    let script = search_script()
        .answer(Stage::Reproducible, "{\"reproducible\": true}")
        .answer(Stage::Reproducer, ASSERTS)
        .answer(Stage::Patch, wrong.clone())
        .answer(Stage::Review, r#"{"patch-correct": "no", "test-correct": "yes", "patch-advice": "multiply"}"#)
        .answer(Stage::Patch, wrong)
        .answer(Stage::Patch, GOOD_PATCH)
        .answer(Stage::Review, r#"{"patch-correct": "yes", "test-correct": "yes"}"#);
    let (outcome, requests) = Recorder::run_with(script, Some(Asserting), AgentConfig::default());
    assert!(outcome.validated, "{}", outcome.reason);
    assert!(outcome.diff.contains("item.price * units"), "{}", outcome.diff);
    let patches: Vec<&ChatRequest> = requests.iter().filter(|r| r.stage == Stage::Patch).collect();
    assert_eq!(patches.len(), 3);
    let afresh = &patches[2].messages;
    assert_eq!(afresh.len(), 2, "a new conversation: the system message and the request: {afresh:#?}");
    let told = &afresh[1].content;
    assert!(told.contains(crate::prompt::text::TRIED_BEFORE), "{told}");
    assert!(told.contains("+") && told.contains("item.price + units"), "the fix tried: {told}");
    assert!(told.contains("The reproducer on it (exit code 1)"), "{told}");
    assert!(told.contains("AssertionError"), "what it printed: {told}");
    assert_eq!(requests.iter().filter(|r| r.stage == Stage::Review).count(), 2, "the repeat was not judged");
    let notes = notes_of(&outcome);
    assert!(notes.iter().any(|n| n.contains("a new conversation asks for a different fix")), "{notes:?}");
}

/// A runner on which the original program raises a `ZeroDivisionError` in `shop/cart.py` and the good patch passes.
struct Raising;

impl Runner for Raising {
    async fn run(&self, request: &crate::runner::RunRequest) -> Result<RunOutcome, crate::runner::RunError> {
        Ok(if request.patch.contains("* units") {
            RunOutcome { exit_code: Some(0), ..RunOutcome::default() }
        } else {
            let trace = "Traceback (most recent call last):\n  File \"/run/repo/reproducer.py\", line 2, in <module>\n    \
                         Cart().total()\n  File \"/run/repo/shop/cart.py\", line 13, in total\n    total += \
                         item.price / units\nZeroDivisionError: division by zero\n";
            RunOutcome { exit_code: Some(1), stderr: trace.into(), ..RunOutcome::default() }
        })
    }
}

/// A reproducer that ends with the error the issue names, raised in the repository's code, shows the bug though it
/// holds no `AssertionError`: it is kept at once, and validates the patch. The same script for an issue that names
/// no error is asked for again.
#[test]
fn a_reproducer_that_raises_the_error_the_issue_names_shows_the_bug() {
    let issue = "`Cart().total()` raises `ZeroDivisionError` for an empty cart; it should return 0.";
    let (outcome, requests) =
        Recorder::run_on(issue, reproduced_then_approved(&[PRINTS]), Some(Raising), AgentConfig::default());
    assert!(outcome.validated, "{}", outcome.reason);
    assert_eq!(reproducer_requests(&requests).len(), 1, "the first script was kept");
    let notes = notes_of(&outcome);
    assert!(notes.iter().any(|n| n.contains("ends with the `ZeroDivisionError` the issue names")), "{notes:?}");
    let (outcome, requests) = Recorder::run_on(
        "`Cart().total()` is wrong for an empty cart.",
        reproduced_then_approved(&[PRINTS, PRINTS, PRINTS]),
        Some(Raising),
        AgentConfig::default(),
    );
    assert_eq!(reproducer_requests(&requests).len(), 3, "no script showed the bug the issue tells");
    assert!(!outcome.validated);
}

/// When none of the model's reproducers shows the bug, a script of the issue's own examples (the call it shows and
/// the value it says the call should give) does: it validates the patch, and is what the reviewer reads.
#[test]
fn the_issues_own_example_reproduces_when_no_script_of_the_models_does() {
    let issue = "`Cart().total()` returns `50`, but it should return `150`.";
    let script = reproduced_then_approved(&[PRINTS, PRINTS_AGAIN, PRINTS]);
    let (outcome, requests) = Recorder::run_on(issue, script, Some(Asserting), AgentConfig::default());
    assert!(outcome.validated, "{}", outcome.reason);
    assert_eq!(reproducer_requests(&requests).len(), 3, "the model's three attempts came first");
    let notes = notes_of(&outcome);
    let kept = "a script of the issue's own examples (`Cart().total()` should give `150`) does";
    assert!(notes.iter().any(|n| n.contains(kept)), "{notes:?}");
    let review = requests.iter().find(|r| r.stage == Stage::Review).expect("a review");
    let shown: String = review.messages.iter().map(|m| m.content.as_str()).collect();
    assert!(
        shown.contains("from shop.cart import Cart\n") && shown.contains("check(\"Cart().total()\", \"150\")"),
        "{shown}"
    );
}

/// A runner on which the issue's own example (its script) passes only on the patch that multiplies by the units,
/// and the model's reproducer on the patches `model_passes` accepts.
struct ExampleAndReproducer {
    model_passes: fn(&str) -> bool,
}

/// The model's reproducer passes on any patch that brings in the units.
const LAX_REPRODUCER: ExampleAndReproducer = ExampleAndReproducer { model_passes: |patch| patch.contains("units") };

/// The model's reproducer fails on every program: its assertion is wrong.
const WRONG_REPRODUCER: ExampleAndReproducer = ExampleAndReproducer { model_passes: |_| false };

impl Runner for ExampleAndReproducer {
    async fn run(&self, request: &crate::runner::RunRequest) -> Result<RunOutcome, crate::runner::RunError> {
        let script = request.files.get("reproducer.py").map(String::as_str).unwrap_or_default();
        let passes = if script.contains("the issue's own example") {
            request.patch.contains("* units")
        } else {
            (self.model_passes)(&request.patch)
        };
        Ok(if passes {
            RunOutcome { exit_code: Some(0), ..RunOutcome::default() }
        } else {
            RunOutcome { exit_code: Some(1), stderr: "AssertionError: 50 != 150".into(), ..RunOutcome::default() }
        })
    }
}

/// Where the issue states its own example, a patch the model's reproducer passes on must pass the example too: one
/// that does not is sent back with what the example printed, and the fix that passes both is validated.
#[test]
fn a_patch_must_also_pass_the_issues_own_example() {
    let issue = "`Cart().total()` returns `50`, but it should return `150`.";
    let wrong = GOOD_PATCH.replace("item.price * units", "item.price + units");
    let script = search_script()
        .answer(Stage::Reproducible, "{\"reproducible\": true}")
        .answer(Stage::Reproducer, ASSERTS)
        .answer(Stage::Patch, wrong)
        .answer(Stage::Review, r#"{"patch-correct": "yes", "test-correct": "yes"}"#)
        .answer(Stage::Patch, GOOD_PATCH)
        .answer(Stage::Review, r#"{"patch-correct": "yes", "test-correct": "yes"}"#);
    let (outcome, requests) = Recorder::run_on(issue, script, Some(LAX_REPRODUCER), AgentConfig::default());
    assert!(outcome.validated, "{}", outcome.reason);
    assert!(outcome.diff.contains("item.price * units"), "{}", outcome.diff);
    let notes = notes_of(&outcome);
    assert!(notes.iter().any(|n| n.contains("show the bug too: a patch must also pass them")), "{notes:?}");
    let patches: Vec<&ChatRequest> = requests.iter().filter(|r| r.stage == Stage::Patch).collect();
    let told: String = patches[1].messages.iter().map(|m| m.content.as_str()).collect();
    assert!(told.contains("but the issue's own examples still fail on it"), "{told}");
}

/// With the reproducer as the judge, a try none of whose samples passes the model's reproducer ends on the last that
/// passed the issue's own examples, validated by them; a sample that passed neither is not kept.
#[test]
fn a_reproducer_no_sample_passes_gives_way_to_the_issues_own_examples() {
    let issue = "`Cart().total()` returns `50`, but it should return `150`.";
    let wrong = GOOD_PATCH.replace("item.price * units", "item.price + units");
    let script = search_script()
        .answer(Stage::Reproducible, "{\"reproducible\": true}")
        .answer(Stage::Reproducer, ASSERTS)
        .answer(Stage::Patch, GOOD_PATCH)
        .answer(Stage::Patch, wrong);
    let config =
        AgentConfig { judge: Judge::Execution, execution_samples: 2, overall_retries: 1, ..AgentConfig::default() };
    let (outcome, _) = Recorder::run_on(issue, script, Some(WRONG_REPRODUCER), config);
    assert!(outcome.validated, "{}", outcome.reason);
    assert!(outcome.diff.contains("item.price * units"), "{}", outcome.diff);
    let notes = notes_of(&outcome);
    assert!(
        notes.iter().any(|n| n.contains("the last that passed the issue's own examples is validated")),
        "{notes:?}"
    );
}

/// A run that finds the bug, writes the good patch, says the issue is reproducible and answers the reproducer
/// requests with `reproducers` in turn, and whose reviewer approves.
fn reproduced_then_approved(reproducers: &[&str]) -> Script {
    let script =
        search_script().answer(Stage::Patch, GOOD_PATCH).answer(Stage::Reproducible, "{\"reproducible\": true}");
    let script = reproducers.iter().fold(script, |s, r| s.answer(Stage::Reproducer, *r));
    script.answer(Stage::Review, r#"{"patch-correct": "yes", "test-correct": "yes"}"#)
}

/// The reproducer requests of a run: each request's messages, as text.
fn reproducer_requests(requests: &[ChatRequest]) -> Vec<Vec<String>> {
    let reproducer = requests.iter().filter(|r| r.stage == Stage::Reproducer);
    reproducer.map(|r| r.messages.iter().map(|m| m.content.clone()).collect()).collect()
}

/// As AutoCodeRover does: a reproducer that exits 0 on the buggy program did not reproduce the issue; the model is
/// told so with what it printed and asked again, each time in a conversation that holds the request and the last
/// attempt only; the one that fails with an AssertionError is kept, its trace goes to the search, and the patch is
/// reviewed by running it.
#[test]
fn a_reproducer_that_does_not_reproduce_is_asked_again_with_what_it_printed() {
    let script = reproduced_then_approved(&[PRINTS, PRINTS_AGAIN, ASSERTS]);
    let (outcome, requests) = Recorder::run_with(script, Some(Asserting), AgentConfig::default());
    assert!(outcome.validated, "{}", outcome.reason);
    let asked = reproducer_requests(&requests);
    assert_eq!(asked.len(), 3);
    assert_eq!(asked[1].len(), 3, "the request, the attempt and what it printed: {:#?}", asked[1]);
    assert!(asked[1][1].contains("print(Cart().total())"));
    let told = &asked[1][2];
    assert!(told.contains("did not reproduce the issue") && told.contains("Exit code: 0."), "{told}");
    assert!(told.contains("printed print(Cart().total())"), "what it printed: {told}");
    assert_eq!(asked[2].len(), 3, "the first attempt is left out: {:#?}", asked[2]);
    assert!(asked[2][1].contains("the total is") && asked[2][2].contains("printed print('the total is'"));
    assert_eq!(asked[2][0], asked[0][0], "the request itself stays");
    let search = requests.iter().find(|r| r.stage == Stage::Search).expect("a search");
    assert!(search.messages.iter().any(|m| m.content.contains("AssertionError: 50 != 150")), "the trace is a clue");
}

/// When every attempt exits 0, the run goes on without a reproducer, as AutoCodeRover's does: no trace for the
/// search, no review, and a note that says so.
#[test]
fn a_reproducer_that_never_reproduces_leaves_the_patch_unreviewed() {
    let script = Script { repeat_last: true, ..search_script() }
        .answer(Stage::Patch, GOOD_PATCH)
        .answer(Stage::Reproducible, "{\"reproducible\": true}")
        .answer(Stage::Reproducer, PRINTS);
    let config = AgentConfig { overall_retries: 1, ..AgentConfig::default() };
    let (outcome, requests) = Recorder::run_with(script, Some(Asserting), config);
    assert!(outcome.status.is_applicable() && !outcome.validated, "{}", outcome.reason);
    assert_eq!(reproducer_requests(&requests).len(), AgentConfig::default().reproducer_attempts);
    assert!(requests.iter().all(|r| r.stage != Stage::Review), "nothing to review with");
    let notes = notes_of(&outcome);
    assert!(notes.iter().any(|n| n.contains("no reproducer showed the bug")), "{notes:?}");
    let search = requests.iter().find(|r| r.stage == Stage::Search).expect("a search");
    assert!(search.messages.iter().all(|m| !m.content.contains("printed")), "no trace for the search");
}

/// "Is there a reproducible example?" is asked again while the answer cannot be read, three times in all, as
/// AutoCodeRover asks; an answer never read counts as no example.
#[test]
fn an_unreadable_reproducible_answer_is_asked_again_three_times_in_all() {
    let script = search_script()
        .answer(Stage::Patch, GOOD_PATCH)
        .answer(Stage::Reproducible, "Probably, the issue shows a call.")
        .answer(Stage::Reproducible, "{\"reproducible\": \"perhaps\"}")
        .answer(Stage::Reproducible, "{\"reproducible\": true}")
        .answer(Stage::Reproducer, ASSERTS)
        .answer(Stage::Review, r#"{"patch-correct": "yes", "test-correct": "yes"}"#);
    let (outcome, requests) = Recorder::run_with(script, Some(Asserting), AgentConfig::default());
    assert!(outcome.validated, "{}", outcome.reason);
    assert_eq!(requests.iter().filter(|r| r.stage == Stage::Reproducible).count(), reproduce::REPRODUCIBLE_TRIES);

    let script = Script { repeat_last: true, ..search_script() }
        .answer(Stage::Patch, GOOD_PATCH)
        .answer(Stage::Reproducible, "Hard to say.");
    let config = AgentConfig { overall_retries: 1, ..AgentConfig::default() };
    let (outcome, requests) = Recorder::run_with(script, Some(Asserting), config);
    assert!(!outcome.validated);
    assert_eq!(requests.iter().filter(|r| r.stage == Stage::Reproducible).count(), reproduce::REPRODUCIBLE_TRIES);
    assert!(requests.iter().all(|r| r.stage != Stage::Reproducer));
    assert!(notes_of(&outcome).iter().any(|n| n.contains("could not be read from 3 answers")));
}

/// A rewrite the reviewer asked for that does not reproduce is asked for again the same way, from the test the
/// reviewer judged and its advice (the failed rewrite is not shown), as AutoCodeRover does.
#[test]
fn a_rewrite_that_does_not_reproduce_is_asked_for_again_from_the_judged_test() {
    let script = search_script()
        .answer(Stage::Patch, GOOD_PATCH)
        .answer(Stage::Reproducible, "{\"reproducible\": true}")
        .answer(Stage::Reproducer, ASSERTS)
        .answer(Stage::Reproducer, PRINTS)
        .answer(Stage::Reproducer, ASSERTS.replace("150", "150, 'three apples'"))
        .answer(
            Stage::Review,
            r#"{"patch-correct": "yes", "test-correct": "no", "test-analysis": "", "test-advice": "name the apples"}"#,
        )
        .answer(Stage::Review, r#"{"patch-correct": "yes", "test-correct": "yes"}"#);
    let (outcome, requests) = Recorder::run_with(script, Some(Asserting), AgentConfig::default());
    assert!(outcome.validated, "{}", outcome.reason);
    let asked = reproducer_requests(&requests);
    assert_eq!(asked.len(), 3, "{asked:#?}");
    assert_eq!(asked[1], asked[2], "the same request again, without the failed rewrite");
    assert!(asked[1][2].contains("name the apples") && asked[1][1].contains("== 150"), "{:#?}", asked[1]);
}

/// A server in front of a scripted model that misbehaves on chosen calls, as real servers with small models do: a
/// time-out, an answer cut at its cap or looping, a prompt refused as over a small window, a refused key.
struct Unruly {
    model: ScriptedModel,
    /// What call number `n` (from 1) does instead of answering; calls not listed are answered by the script.
    faults: Vec<(usize, Fault)>,
    /// The context window the server enforces, in estimated tokens, and its size in `/props`.
    window: Option<u64>,
    published: Option<u64>,
    calls: RefCell<usize>,
    sizes: RefCell<Vec<u64>>,
}

#[derive(Clone)]
enum Fault {
    Timeout,
    Loop,
    Http(u16),
    Auth,
}

impl Unruly {
    fn new(script: Script, faults: Vec<(usize, Fault)>) -> Self {
        let model = ScriptedModel::new(script);
        Unruly { model, faults, window: None, published: None, calls: 0.into(), sizes: RefCell::default() }
    }
}

impl Llm for Unruly {
    async fn chat(&self, request: &ChatRequest) -> Result<crate::llm::ChatResponse, LlmError> {
        let n = {
            let mut calls = self.calls.borrow_mut();
            *calls += 1;
            *calls
        };
        let size = crate::llm::estimate::request_tokens(request);
        self.sizes.borrow_mut().push(size);
        if let Some(window) = self.window.filter(|&w| size > w) {
            let overflow = crate::llm::window::Overflow {
                window: Some(window),
                prompt_tokens: Some(size),
                requested_tokens: None,
                message: format!("request ({size} tokens) exceeds the available context size ({window} tokens)"),
            };
            return Err(LlmError::ContextOverflow(overflow));
        }
        match self.faults.iter().find(|(at, _)| *at == n).map(|(_, f)| f.clone()) {
            Some(Fault::Timeout) => Err(LlmError::Timeout),
            Some(Fault::Http(status)) => Err(LlmError::Http { status, message: "slot unavailable".into() }),
            Some(Fault::Auth) => Err(LlmError::Auth("Invalid API Key".into())),
            Some(Fault::Loop) => {
                let answer = crate::llm::ChatResponse::new(&"_to_json".repeat(3), Default::default(), None);
                Ok(crate::llm::ChatResponse { cut: Some(crate::llm::Cut::Loop), ..answer })
            }
            None => self.model.chat(request).await,
        }
    }
    async fn context_window(&self) -> Option<u64> {
        self.published
    }
}

fn run_unruly(model: &Unruly, config: AgentConfig) -> Outcome {
    let (repo, index) = workspace();
    run_unruly_over(repo, index, model, config)
}

fn run_unruly_over(repo: Rc<Repo>, index: Rc<Index>, model: &Unruly, config: AgentConfig) -> Outcome {
    let agent = Agent::<_, NoRunner>::new(repo, index, model, None, config);
    pollster::block_on(agent.run(ISSUE)).expect("the run ends with an outcome")
}

fn notes_of(outcome: &Outcome) -> Vec<String> {
    let events = outcome.transcript.events.iter();
    events.filter_map(|e| if let Event::Note { text } = e { Some(text.clone()) } else { None }).collect()
}

fn cuts_of(outcome: &Outcome) -> Vec<Option<crate::llm::Cut>> {
    let events = outcome.transcript.events.iter();
    events.filter_map(|e| if let Event::Model { cut, .. } = e { Some(cut.clone()) } else { None }).collect()
}

/// A time-out is asked again; an answer that loops is kept, cut, and handled like any unusable answer: the agent
/// asks again and the run still ends with the fix.
#[test]
fn timeouts_and_looping_answers_do_not_end_the_run() {
    let script = search_script().answer(Stage::Patch, GOOD_PATCH);
    // Calls: search (times out), search again, analyse, decide, patch (loops), patch again.
    let model = Unruly::new(script, vec![(1, Fault::Timeout), (5, Fault::Loop)]);
    let outcome = run_unruly(&model, AgentConfig { overall_retries: 1, ..AgentConfig::default() });
    assert_eq!(outcome.status, ExtractStatus::ApplicablePatch, "{}", outcome.reason);
    assert!(outcome.stopped.is_none());
    let cuts = cuts_of(&outcome);
    assert!(matches!(&cuts[0], Some(crate::llm::Cut::Failed(why)) if why.contains("did not answer in time")));
    assert_eq!(cuts[4], Some(crate::llm::Cut::Loop));
    assert!(notes_of(&outcome).iter().any(|n| n.contains("asking once more")));
    assert_eq!(outcome.transcript.model_calls as usize, *model.calls.borrow(), "failed calls are recorded too");
}

/// A server that answers the same error call after call ends the run with its own status, not a failure; a refused
/// key ends it at once. Both keep what the run made.
#[test]
fn only_what_no_call_can_fix_ends_the_run() {
    let failing = Unruly::new(search_script(), (1..=10).map(|n| (n, Fault::Http(500))).collect());
    let outcome = run_unruly(&failing, AgentConfig::default());
    assert_eq!(outcome.stopped.as_ref().map(Stop::kind), Some("server_error"));
    assert_eq!(*failing.calls.borrow(), Stop::FAILED_CALLS);
    let refused = Unruly::new(search_script(), vec![(1, Fault::Auth)]);
    let outcome = run_unruly(&refused, AgentConfig::default());
    let stop = outcome.stopped.expect("stopped");
    assert_eq!((stop.kind(), stop.by_server()), ("key_refused", true));
    assert!(stop.to_string().contains("refused the API key: Invalid API Key"));
    assert_eq!(*refused.calls.borrow(), 1, "no retry");
    let json = serde_json::to_value(&stop).unwrap();
    assert_eq!(json["kind"], "key_refused");
}

/// The window is learned from the server: from what it publishes before the first call, or from its refusal of a
/// prompt over it, after which the request goes again, shortened, and the run goes on.
#[test]
fn the_context_window_is_learned_from_the_server() {
    // Many calls: their results take a good part of the decide request, and can be left out of it.
    let calls = [
        "search_class(\"Cart\")",
        "search_method_in_class(\"total\", \"Cart\")",
        "search_method_in_class(\"add\", \"Cart\")",
        "search_method_in_class(\"__init__\", \"Cart\")",
        "search_code(\"units\")",
        "search_code(\"item.price\")",
        "search_method(\"total\")",
    ];
    let script = || {
        Script::default()
            .answer(Stage::Search, format!("Let me look.\n{}", calls.join("\n")))
            .answer(Stage::Analyse, "total() adds item.price once per line and ignores units.")
            .answer(Stage::Decide, LOCATION_JSON)
            .answer(Stage::Patch, GOOD_PATCH)
    };
    let (repo, index) = workspace();
    let sizes = Unruly::new(script(), vec![]);
    run_unruly_over(repo.clone(), index.clone(), &sizes, AgentConfig { overall_retries: 1, ..AgentConfig::default() });
    let sizes = sizes.sizes.borrow().clone();
    // The decide request (the third) is refused; it fits once its results are left out.
    let window = sizes[2] - 1;
    let mut model = Unruly::new(script(), vec![]);
    model.window = Some(window);
    let config = AgentConfig { overall_retries: 1, ..AgentConfig::default() };
    let outcome = run_unruly_over(repo.clone(), index.clone(), &model, config.clone());
    assert_eq!(outcome.status, ExtractStatus::ApplicablePatch, "{}", outcome.reason);
    let notes = notes_of(&outcome);
    assert!(notes.iter().any(|n| n.contains(&format!("the window is taken as {window} tokens"))), "{notes:?}");
    assert!(notes.iter().any(|n| n.contains("left out")), "{notes:?}");
    let mut published = Unruly::new(script(), vec![]);
    published.window = Some(window);
    published.published = Some(window);
    let outcome = run_unruly_over(repo, index, &published, config);
    assert_eq!(outcome.status, ExtractStatus::ApplicablePatch, "{}", outcome.reason);
    assert!(notes_of(&outcome).iter().any(|n| n.contains(&format!("reports a context window of {window} tokens"))));
    assert!(published.sizes.borrow().iter().all(|&s| s <= window), "nothing over the window was sent");
}

/// A server whose tokenizer counts more tokens than the estimator (as it may on code), that reports
/// what it counted in each answer's usage, and refuses a prompt and answer cap over its window naming the window
/// alone (LiteLLM's shortened wording).
struct Counting {
    model: ScriptedModel,
    /// Server tokens per estimated token.
    ratio: f64,
    window: u64,
    refused: RefCell<usize>,
}

impl Counting {
    fn counted(&self, request: &ChatRequest) -> u64 {
        (estimate::request_tokens(request) as f64 * self.ratio).ceil() as u64
    }
}

impl Llm for Counting {
    async fn chat(&self, request: &ChatRequest) -> Result<crate::llm::ChatResponse, LlmError> {
        let counted = self.counted(request);
        if counted + u64::from(request.answer_cap()) > self.window {
            *self.refused.borrow_mut() += 1;
            let message = format!("This model's maximum context length is {} tokens.", self.window);
            return Err(LlmError::ContextOverflow(window::Overflow::read(400, &message, &message).unwrap()));
        }
        let answer = self.model.chat(request).await?;
        let usage = crate::llm::Usage { prompt_tokens: counted, completion_tokens: 10 };
        Ok(crate::llm::ChatResponse { usage, usage_estimated: false, ..answer })
    }
}

/// What the server counted of the first prompts is kept before any window is known, so a refusal that names only
/// the window is enough: the request goes again fitted by the server's own count, and nothing else is refused.
/// (Fitted by the estimate, even with its margin, the request is refused again, and the run ends on the window.)
#[test]
fn the_servers_count_learned_before_the_window_fits_the_first_refused_request() {
    let search = crate::prompt::Prompt::Search { issue: ISSUE, language: Language::Python, trace: None };
    let first = (estimate::request_tokens(&search.request(&[])) as f64 * 1.5).ceil() as u64;
    let model = Counting {
        model: ScriptedModel::new(search_script().answer(Stage::Patch, GOOD_PATCH)),
        ratio: 1.5,
        window: first + u64::from(Stage::Search.answer_cap()),
        refused: 0.into(),
    };
    let (repo, index) = workspace();
    let agent = Agent::<_, NoRunner>::new(repo, index, &model, None, AgentConfig::default());
    let outcome = pollster::block_on(agent.run(ISSUE)).expect("an outcome");
    assert_eq!(outcome.stopped, None, "{:?}", notes_of(&outcome));
    assert_eq!(outcome.status, ExtractStatus::ApplicablePatch, "{}", outcome.reason);
    assert_eq!(*model.refused.borrow(), 1, "{:?}", notes_of(&outcome));
}

/// A server that counts three times the estimate and keeps refusing the first request, naming its window alone:
/// the run ends on the window, and says how large the request is as far as the agent can tell.
#[test]
fn a_request_refused_again_and_again_ends_the_run_with_its_size() {
    let search = crate::prompt::Prompt::Search { issue: ISSUE, language: Language::Python, trace: None };
    let estimated = estimate::request_tokens(&search.request(&[]));
    let model =
        Counting { model: ScriptedModel::new(search_script()), ratio: 3.0, window: estimated * 2, refused: 0.into() };
    let (repo, index) = workspace();
    let agent = Agent::<_, NoRunner>::new(repo, index, &model, None, AgentConfig::default());
    let outcome = pollster::block_on(agent.run(ISSUE)).expect("an outcome");
    let Some(Stop::ContextTooSmall(too_long)) = outcome.stopped else { panic!("{:?}", outcome.stopped) };
    assert!(too_long.needed > estimated && too_long.window == model.window, "{too_long:?}, estimated {estimated}");
}

/// The user stops the run while an answer arrives: what arrived stays in the transcript, marked as stopped by the
/// user, and the run ends as stopped.
#[test]
fn an_answer_arriving_when_the_user_stops_stays_in_the_transcript() {
    struct Stopping(RefCell<Option<Rc<std::cell::Cell<bool>>>>);
    impl Llm for Stopping {
        async fn chat(&self, _: &ChatRequest) -> Result<crate::llm::ChatResponse, LlmError> {
            if let Some(flag) = self.0.borrow().as_ref() {
                flag.set(true);
            }
            let partial = crate::llm::ChatResponse::new("search_class(\"Ca", Default::default(), None);
            Ok(crate::llm::ChatResponse { cut: Some(crate::llm::Cut::Broken("closed".into())), ..partial })
        }
    }
    let (repo, index) = workspace();
    let model = Stopping(RefCell::new(None));
    let agent = Agent::<_, NoRunner>::new(repo, index, &model, None, AgentConfig::default());
    *model.0.borrow_mut() = Some(agent.cancel());
    let outcome = pollster::block_on(agent.run(ISSUE)).unwrap();
    assert!(outcome.cancelled());
    let answers: Vec<(String, Option<crate::llm::Cut>)> = outcome
        .transcript
        .events
        .iter()
        .filter_map(
            |e| if let Event::Model { answer, cut, .. } = e { Some((answer.clone(), cut.clone())) } else { None },
        )
        .collect();
    assert_eq!(answers, [("search_class(\"Ca".to_string(), Some(crate::llm::Cut::Cancelled))]);
}

/// The cart with the units ignored in two places of `total`, so that `total += item.price` matches twice inside
/// the one located method and no location can say which was meant.
const TWICE: &str = "\
class Cart:
    def __init__(self):
        self.lines = {}
        self.extras = {}

    def total(self):
        total = 0
        for item, units in self.lines.items():
            total += item.price
        for item, units in self.extras.items():
            total += item.price
        return total
";

fn twice_workspace() -> (Rc<Repo>, Rc<Index>) {
    let repo = Repo::from_files([("shop/__init__.py", ""), ("shop/cart.py", TWICE)]);
    let index = Index::build(&repo);
    (Rc::new(repo), Rc::new(index))
}

/// One edit that applies (a no-op in spirit) and one whose original occurs twice in `total`.
const PARTIAL_PATCH: &str = "# modification 1\n```\n<file>shop/cart.py</file>\n<original>\n        total = 0\n</original>\n<patched>\n        total = 0.0\n</patched>\n```\n\n# modification 2\n```\n<file>shop/cart.py</file>\n<original>\n            total += item.price\n</original>\n<patched>\n            total += item.price * units\n</patched>\n```\n";

/// Both edits, the second made unique by the loop line above it.
const WHOLE_PATCH: &str = "# modification 1\n```\n<file>shop/cart.py</file>\n<original>\n        total = 0\n</original>\n<patched>\n        total = 0.0\n</patched>\n```\n\n# modification 2\n```\n<file>shop/cart.py</file>\n<original>\n        for item, units in self.lines.items():\n            total += item.price\n</original>\n<patched>\n        for item, units in self.lines.items():\n            total += item.price * units\n</patched>\n```\n";

fn run_twice(script: Script) -> (Outcome, Vec<Event>) {
    let (repo, index) = twice_workspace();
    let (agent, seen) = agent_over::<NoRunner>(repo, index, script, None, AgentConfig::default());
    let outcome = pollster::block_on(agent.run(ISSUE)).unwrap();
    let events = seen.borrow().clone();
    (outcome, events)
}

#[test]
fn an_edit_refused_as_ambiguous_is_asked_again_with_its_places() {
    let script = search_script().answer(Stage::Patch, PARTIAL_PATCH).answer(Stage::Patch, WHOLE_PATCH);
    let (outcome, events) = run_twice(script);
    assert_eq!(outcome.status, ExtractStatus::ApplicablePatch, "{}", outcome.reason);
    assert!(outcome.diff.contains("+            total += item.price * units"), "{}", outcome.diff);
    assert!(outcome.diff.contains("+        total = 0.0"), "{}", outcome.diff);
    let prompts = model_prompts(&events, Stage::Patch);
    assert_eq!(prompts.len(), 2, "the partial patch was not accepted");
    let retry = &prompts[1];
    assert!(retry.contains("Only part of your patch could be applied."), "{retry}");
    assert!(retry.contains("- edit 2 (shop/cart.py): line 9 in `Cart.total`; line 11 in `Cart.total`"), "{retry}");
    assert!(notes_of(&outcome).iter().all(|n| !n.contains("partial patch")), "{:?}", notes_of(&outcome));
}

#[test]
fn when_the_attempts_run_out_the_partial_patch_is_kept_with_a_note() {
    let script = search_script().answer(Stage::Patch, PARTIAL_PATCH).answer(Stage::Patch, PARTIAL_PATCH);
    let (repo, index) = twice_workspace();
    let config = AgentConfig { patch_attempts: 2, ..AgentConfig::default() };
    let (agent, seen) = agent_over::<NoRunner>(repo, index, script, None, config);
    let outcome = pollster::block_on(agent.run(ISSUE)).unwrap();
    assert_eq!(outcome.status, ExtractStatus::ApplicablePatch, "{}", outcome.reason);
    assert!(outcome.diff.contains("+        total = 0.0"), "{}", outcome.diff);
    assert!(!outcome.diff.contains("* units"), "{}", outcome.diff);
    assert_eq!(model_prompts(&seen.borrow(), Stage::Patch).len(), 2);
    let notes = notes_of(&outcome);
    assert!(
        notes.iter().any(|n| n.contains("keeping the partial patch of attempt 2, without its edit(s) 2")),
        "{notes:?}"
    );
}
