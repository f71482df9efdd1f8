//! Context retrieval: the model calls search APIs until it can name bug locations that resolve to code.
//!
//! Each round: the model answers (round 1: which APIs to call; later: the "more context? bug locations?" question);
//! the answer is read into checked calls and locations, deterministically when the reading can be trusted
//! ([`crate::proxy::trust`]), otherwise by the proxy model; calls are bounded ([`mod@crate::proxy::bound`]: each
//! once, none that names nothing in the repository, at most [`crate::api::MAX_CALLS_PER_ROUND`]), run, and their
//! results shown with a note of those not run, followed by a request for analysis and the next question; locations
//! without calls are resolved through the six tiers, and the loop ends when at least one resolves (with the reproducer
//! as the judge, locations given beside calls too: `located_beside_calls`). When none of
//! the calls can run (each was run before, or names nothing) the locations the answer gives are resolved instead;
//! a reading made without the proxy model that found no location hands the answer to the proxy model first, since
//! a location written in prose beside repeated calls is one the deterministic reader does not take. After
//! [`AgentConfig::max_search_rounds`] rounds the agent carries on without locations, reusing the conversation; with
//! the reproducer as the judge (the settings for small local models) it first falls back on the code the issue
//! itself names ([`crate::issue_names::places`]).
//!
//! With [`AgentConfig::tools`] the APIs are also offered as chat-completions tools. Tool calls need no reading: each
//! is checked against the API table, bounded as above, run, and answered with a `tool` message (its result, what was
//! wrong with it, or why it was not run), and the analysis follows as in prose. An answer without tool calls (the bug
//! locations, or calls written in text) is read as above.
//!
//! [`AgentConfig::max_search_rounds`]: super::AgentConfig::max_search_rounds
//! [`AgentConfig::tools`]: super::AgentConfig::tools

use super::{Agent, AgentError, Event, Judge, Phase, ReadBy};
use crate::answers::{self, SearchAnswer, Source};
use crate::call::SearchCall;
use crate::index::DefKind;
use crate::issue_names;
use crate::llm::{Llm, Message, ToolCall, tools};
use crate::locate::{self, BugLocation, Context, Query};
use crate::prompt::{Prompt, text as prompt_text};
use crate::proxy::{self, Fate, MAX_RETRIES, NotRun, Validated};
use crate::runner::Runner;
use crate::search::Searcher;

/// What the search produced.
#[derive(Debug, Clone, Default)]
pub struct Found {
    /// Resolved bug locations (deduplicated); empty when the search gave up.
    pub locations: Vec<BugLocation>,
    /// Code that comes with the locations: the classes their methods belong to and the parents' definitions they
    /// override (deduplicated against the locations and each other).
    pub context: Vec<Context>,
    /// The whole search conversation, for a patch writer without locations.
    pub conversation: Vec<Message>,
}

/// The request that ends the next round.
enum Next {
    Decide,
    /// The answer gave nothing to act on, for this reason.
    Unusable(String),
    NotFound(Vec<String>),
}

/// Why an answer from which nothing could be read is unusable.
const NOTHING_READ: &str = "no search calls or bug locations could be read from it.";

/// Runs the search loop. `trace` is what a reproducer printed on the original program, when one ran first.
pub async fn run<L: Llm, R: Runner>(
    agent: &mut Agent<L, R>,
    issue: &str,
    trace: Option<&str>,
) -> Result<Found, AgentError> {
    agent.emit(Event::Phase { name: Phase::Search });
    let mut conversation = Vec::new();
    // Every call run so far, so that a call asked for again is not run again.
    let mut answered: Vec<SearchCall> = Vec::new();
    let mut next = None;
    for round in 1..=agent.config.max_search_rounds {
        let prompt = match &next {
            None => Prompt::Search { issue, language: agent.repo.language(), trace },
            Some(Next::Decide) => Prompt::Decide,
            Some(Next::Unusable(problem)) => Prompt::DecideAfterUnusable { problem },
            Some(Next::NotFound(reasons)) => Prompt::DecideAfterNotFound { reasons },
        };
        let reply = agent.converse_offering(&mut conversation, &prompt, true).await?;
        if !reply.tool_calls.is_empty() {
            if answer_tool_calls(agent, round, &mut conversation, &mut answered, &reply.tool_calls) > 0 {
                let analysis = agent
                    .converse_offering(
                        &mut conversation,
                        &Prompt::Analyse { results: &[], not_run: &NotRun::default() },
                        true,
                    )
                    .await?;
                // A model may search again while analysing; those calls are answered too, before the next question.
                answer_tool_calls(agent, round, &mut conversation, &mut answered, &analysis.tool_calls);
            }
            next = Some(Next::Decide);
            continue;
        }

        let Some((validated, prose_read_directly)) = proxy_answer(agent, round, &reply.text).await? else {
            next = Some(Next::Unusable(NOTHING_READ.to_string()));
            continue;
        };

        if !validated.calls.is_empty()
            && let Some(found) = located_beside_calls(agent, round, &validated, &conversation)
        {
            return Ok(found);
        }
        let validated = if !validated.calls.is_empty() {
            let fates = proxy::bound(&validated.calls, &answered, &*agent.index.clone());
            let not_run = NotRun::of(&validated.calls, &fates);
            note_not_run(agent, &not_run);
            let calls = proxy::bound::running(&validated.calls, &fates);
            if !calls.is_empty() {
                answered.extend(calls.iter().cloned());
                let results = run_calls(agent, round, &calls);
                agent.converse(&mut conversation, &Prompt::Analyse { results: &results, not_run: &not_run }).await?;
                next = Some(Next::Decide);
                continue;
            }
            // Nothing it asked for can run: the locations it gave, if any, are looked for. When a later round's
            // prose was read without the proxy model and no location came out, the proxy model reads it for them
            // before the model hears why (Qwen2.5-Coder-1.5B asked for the same calls again while naming the bug's
            // place in prose, round after round).
            let located = if validated.locations.is_empty() && prose_read_directly && round > 1 {
                proxy_model(agent, round, &reply.text).await?.filter(|v| !v.locations.is_empty())
            } else {
                None
            };
            let validated = located.unwrap_or(validated);
            if validated.locations.is_empty() {
                let why = prompt_text::calls_not_run(&not_run).unwrap_or_default();
                next = Some(Next::Unusable(format!("none of its search calls was run. {}", why.trim())));
                continue;
            }
            validated
        } else {
            validated
        };

        let (found, context, not_found) = resolve_locations(agent, &validated);
        agent.emit(Event::Locations { round, found: found.clone(), not_found: not_found.clone() });
        if !found.is_empty() {
            return Ok(Found { locations: found, context, conversation: tools::flatten(conversation) });
        }
        next = Some(Next::NotFound(not_found));
    }
    let rounds = agent.config.max_search_rounds;
    if agent.config.judge == Judge::Execution {
        let (locations, context) = named_by_the_issue(agent, issue);
        if !locations.is_empty() {
            agent.note(format!(
                "no bug location resolved after {rounds} search rounds; the code the issue names is taken as the bug \
                 locations ({})",
                locations.iter().map(|l| format!("{}:{}-{}", l.file, l.start, l.end)).collect::<Vec<_>>().join(", ")
            ));
            agent.emit(Event::Locations { round: rounds, found: locations.clone(), not_found: Vec::new() });
            return Ok(Found { locations, context, conversation: tools::flatten(conversation) });
        }
    }
    agent.note(format!(
        "no bug location resolved after {rounds} search rounds; writing a patch from the search conversation"
    ));
    Ok(Found { locations: Vec::new(), context: Vec::new(), conversation: tools::flatten(conversation) })
}

/// With the reproducer as the judge (the settings for small local models), the locations a round names beside new
/// search calls end the search when some resolve; AutoCodeRover counts locations only in a round without calls, and
/// so does a run with the reviewer as the judge. A small model keeps asking for calls while naming the right place:
/// Qwen2.5-Coder-1.5B named QuixBugs' `find_in_sorted.py` and its function beside calls for an invented class in
/// every round, and the search ran out of time without a patch. Execution judges the patches, so a place it names that
/// is wrong costs samples, not the run.
fn located_beside_calls<L: Llm, R: Runner>(
    agent: &mut Agent<L, R>,
    round: usize,
    validated: &Validated,
    conversation: &[Message],
) -> Option<Found> {
    if agent.config.judge != Judge::Execution || validated.locations.is_empty() {
        return None;
    }
    let (found, context, not_found) = resolve_locations(agent, validated);
    if found.is_empty() {
        return None;
    }
    let calls = match validated.calls.len() {
        1 => "a search call".to_string(),
        n => format!("{n} search calls"),
    };
    agent.note(format!(
        "round {round} named bug locations beside {calls}; with the reproducer as the judge the locations that \
         resolve end the search"
    ));
    agent.emit(Event::Locations { round, found: found.clone(), not_found });
    Some(Found { locations: found, context, conversation: tools::flatten(conversation.to_vec()) })
}

/// The functions, methods and classes the issue writes as code, found in the index and resolved as a model's bug
/// locations would be. With the reproducer as the judge a small model samples many patches, and a request that
/// shows the code is a few hundred tokens where one carrying the search conversation is thousands (Qwen2.5-Coder-1.5B
/// ran out of QuixBugs' kheapsort's fifteen rounds without naming the function its issue calls, then wrote 7 patches
/// in the time left, where a request with the function shown had taken 3 to 10 s each).
fn named_by_the_issue<L: Llm, R: Runner>(agent: &Agent<L, R>, issue: &str) -> (Vec<BugLocation>, Vec<Context>) {
    let resolved: Vec<_> = issue_names::places(issue, &agent.index)
        .into_iter()
        .map(|place| {
            let (class, method) = match (place.kind, place.name.split_once('.')) {
                (DefKind::Class, _) => (Some(place.name.clone()), None),
                (_, Some((class, method))) => (Some(class.to_string()), Some(method.to_string())),
                (_, None) => (None, Some(place.name.clone())),
            };
            let query = Query { file: Some(place.file), class, method, notes: Vec::new() };
            locate::resolve(&agent.index, &agent.repo, &query, "")
        })
        .filter(|r| r.not_found_message().is_none())
        .collect();
    locate::combine(resolved)
}

/// Turns an answer into checked calls and locations: deterministically when the reading is trusted, otherwise
/// through the proxy model (its answer held to the proxy's JSON schema where the server can) with up to
/// [`MAX_RETRIES`] corrections. `None` when nothing usable came out; otherwise also whether it was prose read
/// without the proxy model.
async fn proxy_answer<L: Llm, R: Runner>(
    agent: &mut Agent<L, R>,
    round: usize,
    answer: &str,
) -> Result<Option<(Validated, bool)>, AgentError> {
    let index = agent.index.clone();
    let read = answers::search::read(answer);
    let direct = proxy::validate(&read.result, Some(&*index));
    if proxy::stands(&read, round, &direct, Some(&*index)) {
        emit_proxy(agent, round, ReadBy::Deterministic, &direct, &read);
        let prose = read.source != Source::Json;
        return Ok(direct.is_valid().then_some((direct, prose)));
    }
    Ok(proxy_model(agent, round, answer).await?.map(|v| (v, false)))
}

/// The proxy model's reading of an answer (its answer held to the proxy's JSON schema where the server can), with
/// up to [`MAX_RETRIES`] corrections; `None` when nothing usable came out.
async fn proxy_model<L: Llm, R: Runner>(
    agent: &mut Agent<L, R>,
    round: usize,
    answer: &str,
) -> Result<Option<Validated>, AgentError> {
    let index = agent.index.clone();
    let mut conversation = Vec::new();
    let mut last: Option<Validated> = None;
    let mut problems: Option<Vec<crate::proxy::Problem>> = None;
    for _ in 0..MAX_RETRIES {
        let prompt = match &problems {
            None => Prompt::Proxy { answer },
            Some(problems) => Prompt::ProxyRetry { problems },
        };
        let json = agent.converse(&mut conversation, &prompt).await?;
        let reread = answers::search::read(&json);
        let validated = proxy::validate(&reread.result, Some(&*index));
        emit_proxy(agent, round, ReadBy::Model, &validated, &reread);
        if validated.is_valid() {
            return Ok(keep_to_the_notes(agent, validated, answer));
        }
        problems = Some(validated.problems.clone());
        last = Some(validated);
    }
    // Keep whatever was valid in the last attempt rather than losing it.
    Ok(last.filter(Validated::is_usable).and_then(|v| keep_to_the_notes(agent, v, answer)))
}

/// The proxy model's reading without what the notes it rewrote do not say ([`proxy::faithful`]), with a note of
/// what was left out; `None` when nothing is left.
fn keep_to_the_notes<L: Llm, R: Runner>(agent: &mut Agent<L, R>, mut v: Validated, notes: &str) -> Option<Validated> {
    let left_out = proxy::faithful::to_the_notes(&mut v, notes);
    if !left_out.is_empty() {
        agent.note(format!(
            "the proxy model wrote what the answer it rewrote does not say; left out: {}",
            left_out.join(", ")
        ));
    }
    v.is_usable().then_some(v)
}

fn emit_proxy<L: Llm, R: Runner>(
    agent: &mut Agent<L, R>,
    round: usize,
    source: ReadBy,
    v: &Validated,
    read: &SearchAnswer,
) {
    let mut notes = read.notes.clone();
    notes.extend(v.reordered.iter().cloned());
    agent.emit(Event::Proxy {
        round,
        source,
        calls: v.calls.clone(),
        locations: v.locations.iter().map(|l| l.query.clone()).collect(),
        problems: v.problems.iter().map(ToString::to_string).collect(),
        notes,
    });
}

/// Records the calls of a round that were not run, and why.
fn note_not_run<L: Llm, R: Runner>(agent: &mut Agent<L, R>, not_run: &NotRun) {
    if !not_run.answered.is_empty() {
        agent.note(format!(
            "{} search calls asked for again were not run: an earlier round ran them (the first: `{}`)",
            not_run.answered.len(),
            not_run.answered[0]
        ));
    }
    let (nothing, over) = (not_run.names_nothing.len(), not_run.over_cap.len());
    if nothing + over == 0 {
        return;
    }
    let first =
        |calls: &[crate::call::SearchCall]| calls.first().map(|c| format!(" (the first: `{c}`)")).unwrap_or_default();
    agent.note(format!(
        "of the search calls asked for, {nothing} name nothing in the repository{} and {over} are over the round's cap \
         of {}{}; they were not run",
        first(&not_run.names_nothing),
        crate::api::MAX_CALLS_PER_ROUND,
        first(&not_run.over_cap)
    ));
}

/// Runs every call, recording each; returns (call, output) pairs for the model.
fn run_calls<L: Llm, R: Runner>(
    agent: &mut Agent<L, R>,
    round: usize,
    calls: &[SearchCall],
) -> Vec<(SearchCall, String)> {
    calls.iter().map(|call| (call.clone(), run_call(agent, round, call))).collect()
}

/// Runs one call and records it; returns what the model is shown.
fn run_call<L: Llm, R: Runner>(agent: &mut Agent<L, R>, round: usize, call: &SearchCall) -> String {
    let out = Searcher::new(&agent.index, &agent.repo).run(call);
    agent.emit(Event::Search { round, call: call.clone(), output: out.text.clone(), ok: out.ok, results: out.results });
    out.text
}

/// Answers each tool call with a `tool` message: the call's result, what is wrong with it, or why it was not run
/// ([`proxy::bound()`]). Returns how many calls were run.
fn answer_tool_calls<L: Llm, R: Runner>(
    agent: &mut Agent<L, R>,
    round: usize,
    conversation: &mut Vec<Message>,
    answered: &mut Vec<SearchCall>,
    tool_calls: &[ToolCall],
) -> usize {
    if tool_calls.is_empty() {
        return 0;
    }
    let checked: Vec<Result<SearchCall, String>> = tool_calls.iter().map(ToolCall::search_call).collect();
    let calls: Vec<SearchCall> = checked.iter().filter_map(|c| c.as_ref().ok().cloned()).collect();
    let fates = proxy::bound(&calls, answered, &*agent.index.clone());
    note_not_run(agent, &NotRun::of(&calls, &fates));
    let mut fates = fates.into_iter();
    let problems = tool_calls
        .iter()
        .zip(&checked)
        .filter_map(|(t, c)| c.as_ref().err().map(|problem| format!("tool call `{}`: {problem}", t.as_text())))
        .collect();
    agent.emit(Event::Proxy {
        round,
        source: ReadBy::Tools,
        calls: calls.clone(),
        locations: Vec::new(),
        problems,
        notes: Vec::new(),
    });
    let mut ran = 0;
    for (tool_call, checked) in tool_calls.iter().zip(checked) {
        let content = match checked {
            Ok(call) => match prompt_text::tool_call_not_run(fates.next().unwrap_or(Fate::Run)) {
                Some(why) => why,
                None => {
                    ran += 1;
                    let output = run_call(agent, round, &call);
                    answered.push(call.clone());
                    prompt_text::call_results(&[(call, output)])
                }
            },
            Err(problem) => prompt_text::tool_call_failed(&tool_call.name, &problem),
        };
        conversation.push(Message::tool(tool_call.id.clone(), content));
    }
    ran
}

/// Resolves every requested location; returns the code found, the context that comes with it, and, for the rest,
/// why not.
fn resolve_locations<L: Llm, R: Runner>(
    agent: &Agent<L, R>,
    v: &Validated,
) -> (Vec<BugLocation>, Vec<Context>, Vec<String>) {
    let mut found = Vec::new();
    let mut not_found = Vec::new();
    for request in &v.locations {
        let resolution = locate::resolve(&agent.index, &agent.repo, &request.query, &request.intended_behavior);
        match resolution.not_found_message() {
            None => found.push(resolution),
            Some(message) => not_found.push(message),
        }
    }
    let (locations, context) = locate::combine(found);
    (locations, context, not_found)
}
