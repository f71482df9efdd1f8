//! One row of the transcript per agent event, each event kind with its own small component: phases and tries, model
//! calls, proxy results (as JSON), search calls that open in the explorer, bug locations with their code, patch
//! attempts, executions, reviews, MCTS iterations, the code shown to the patch writer, the selection, and notes.

use acr_core::agent::{Event, Phase, ReadBy, RunPurpose, ShownUnit};
use acr_core::call::SearchCall;
use acr_core::llm::{Cut, Stage, ToolCall, Usage};
use acr_core::locate::{BugLocation, Query};
use acr_core::patch::ExtractStatus;
use acr_core::runner::RunOutcome;
use acr_core::search::SearchHit;
use leptos::prelude::*;
use serde_json::json;

use crate::code_view::code_lines;
use crate::diff_view::DiffView;
use crate::state::{AppState, ExploreRequest, Tab};

/// The transcript's row for an event.
pub fn event_view(event: Event, app: AppState) -> AnyView {
    match event {
        Event::Phase { name } => view! { <PhaseEvent name=name /> }.into_any(),
        Event::Model {
            stage,
            prompt,
            messages,
            answer,
            reasoning,
            tool_calls,
            usage,
            usage_estimated,
            constrained,
            ms,
            cut,
            ..
        } => view! {
            <ModelEvent stage=stage prompt=prompt messages=messages answer=answer reasoning=reasoning
                tool_calls=tool_calls usage=usage usage_estimated=usage_estimated constrained=constrained ms=ms
                cut=cut />
        }
        .into_any(),
        Event::Proxy { round, source, calls, locations, problems, notes } => view! {
            <ProxyEvent round=round source=source calls=calls locations=locations problems=problems notes=notes />
        }
        .into_any(),
        Event::Search { round, call, output, ok, results } => {
            view! { <SearchEvent app=app round=round call=call output=output ok=ok results=results /> }.into_any()
        }
        Event::Locations { round, found, not_found } => {
            view! { <LocationsEvent round=round found=found not_found=not_found /> }.into_any()
        }
        Event::Patch { attempt, status, diff, reason, edits } => {
            view! { <PatchEvent attempt=attempt status=status diff=diff reason=reason edits=edits /> }.into_any()
        }
        Event::Run { purpose, outcome } => view! { <RunEvent app=app purpose=purpose outcome=outcome /> }.into_any(),
        Event::Review { round, patch_correct, test_correct, patch_analysis, patch_advice, test_advice } => view! {
            <ReviewEvent round=round patch_correct=patch_correct test_correct=test_correct
                patch_analysis=patch_analysis patch_advice=patch_advice test_advice=test_advice />
        }
        .into_any(),
        Event::Mcts { iteration, node, children, .. } => {
            view! { <MctsEvent app=app iteration=iteration node=node children=children /> }.into_any()
        }
        Event::Try { number, of } => view! { <TryEvent number=number of=of /> }.into_any(),
        Event::Shown { units } => view! { <ShownEvent units=units /> }.into_any(),
        Event::Selection { chosen, reason, tries } => {
            view! { <SelectionEvent chosen=chosen reason=reason tries=tries /> }.into_any()
        }
        Event::Note { text } => view! { <NoteEvent text=text /> }.into_any(),
    }
}

/// A phase of the run began.
#[component]
fn PhaseEvent(name: Phase) -> impl IntoView {
    view! { <li class="ev phase"><h3>{name.title()}</h3></li> }
}

/// A model call: what was sent, the model's thinking, its answer and tool calls, and why it ended early if it did.
#[component]
fn ModelEvent(
    stage: Stage,
    prompt: String,
    messages: usize,
    answer: String,
    reasoning: Option<String>,
    tool_calls: Vec<ToolCall>,
    usage: Usage,
    usage_estimated: bool,
    constrained: bool,
    ms: f64,
    cut: Option<Cut>,
) -> impl IntoView {
    let calls: Vec<String> = tool_calls.iter().map(ToolCall::as_text).collect();
    let failed = matches!(cut, Some(Cut::Failed(_)));
    let first = answer_line(&answer, &calls, failed);
    let is_cut = cut.is_some();
    let cut = cut.map(|c| {
        view! { <p class="cut-why" class:error=failed>{format!("{}: {c}", if failed { "failed" } else { "cut" })}</p> }
    });
    let tool_calls = (!calls.is_empty()).then(|| view! { <ToolCalls calls=calls /> });
    view! {
        <li class="ev model" class:cut=is_cut class:failed=failed>
            <details>
                <summary>
                    <span class="badge">{stage.name()}</span>
                    " " <span class="answer-line">{first}</span>
                    <span class="meta">{model_meta(messages, usage, usage_estimated, constrained, ms)}</span>
                </summary>
                <h4>"Sent (last message)"</h4>
                <pre class="text">{prompt}</pre>
                {reasoning.map(|r| reasoning_view("Reasoning", r))}
                <h4>"Answer"</h4>
                <pre class="text">{answer}</pre>
                {tool_calls}
            </details>
            {cut}
        </li>
    }
}

/// The functions a model called.
#[component]
fn ToolCalls(calls: Vec<String>) -> impl IntoView {
    view! {
        <h4>{format!("Tool calls ({})", calls.len())}</h4>
        <ul class="tool-calls">{calls.into_iter().map(|c| view! { <li><code class="call">{c}</code></li> }).collect_view()}</ul>
    }
}

/// A model's thinking, collapsed: `label` says whose (`Reasoning`, `Reasoning so far`).
pub fn reasoning_view(label: &str, reasoning: String) -> impl IntoView + use<> {
    view! {
        <details class="reasoning">
            <summary>{format!("{label} ({} characters, not acted on)", reasoning.chars().count())}</summary>
            <pre class="text">{reasoning}</pre>
        </details>
    }
}

/// What the proxy read in an answer, as JSON.
#[component]
fn ProxyEvent(
    round: usize,
    source: ReadBy,
    calls: Vec<SearchCall>,
    locations: Vec<Query>,
    problems: Vec<String>,
    notes: Vec<String>,
) -> impl IntoView {
    let calls: Vec<String> = calls.iter().map(ToString::to_string).collect();
    let locations: Vec<String> = locations.iter().map(ToString::to_string).collect();
    let line = proxy_line(round, source, calls.len(), locations.len(), problems.len());
    let value = json!({ "API_calls": calls, "bug_locations": locations, "problems": problems, "notes": notes });
    let text = serde_json::to_string_pretty(&value).unwrap_or_default();
    view! { <FoldedRow kind="proxy" line=line><pre class="json">{text}</pre></FoldedRow> }
}

/// A search call, what the model read, and a link that opens it in the explorer.
#[component]
fn SearchEvent(
    app: AppState,
    round: usize,
    call: SearchCall,
    output: String,
    ok: bool,
    results: Vec<SearchHit>,
) -> impl IntoView {
    let shown = call.to_string();
    let request = ExploreRequest::Call(call);
    view! {
        <li class="ev search" class:miss=!ok>
            <details>
                <summary>
                    <span class="badge">{format!("round {round}")}</span>
                    " " <code class="call">{shown}</code>
                    <span class="meta">{if ok { format!("{} found", results.len()) } else { "nothing found".into() }}</span>
                </summary>
                <pre class="text">{output}</pre>
            </details>
            <button class="link small explore-link" on:click=move |_| app.explore(request.clone())>
                "open in explorer"
            </button>
        </li>
    }
}

/// The bug locations a round found, with their code, and why the others were not found.
#[component]
fn LocationsEvent(round: usize, found: Vec<BugLocation>, not_found: Vec<String>) -> impl IntoView {
    view! {
        <li class="ev locations">
            <h4>{format!("Bug locations (round {round})")}</h4>
            {found.into_iter().map(location_view).collect_view()}
            {(!not_found.is_empty()).then(|| view! {
                <ul class="not-found">{not_found.into_iter().map(|m| view! { <li>{m}</li> }).collect_view()}</ul>
            })}
        </li>
    }
}

/// A patch attempt: its status, one line per edit, why it is not applicable, and its diff.
#[component]
fn PatchEvent(
    attempt: usize,
    status: ExtractStatus,
    diff: String,
    reason: String,
    edits: Vec<String>,
) -> impl IntoView {
    let ok = status.is_applicable();
    view! {
        <li class="ev patch">
            <h4>
                {format!("Patch attempt {attempt} ")}
                <span class="status" class:good=ok class:bad=!ok>{status.as_str()}</span>
            </h4>
            <ul class="edits">{edits.into_iter().map(|m| view! { <li>{m}</li> }).collect_view()}</ul>
            {(!reason.is_empty()).then(|| view! { <p class="reason">{reason}</p> })}
            {(!diff.is_empty()).then(|| view! { <DiffView diff=diff toolbar=false /> })}
        </li>
    }
}

/// A command the runner executed: why, how it ended, where it ran, and its output.
#[component]
fn RunEvent(app: AppState, purpose: RunPurpose, outcome: RunOutcome) -> impl IntoView {
    let place = app.run.meta.with_untracked(|m| m.runner.clone());
    let line = run_line(purpose, &outcome);
    view! {
        <FoldedRow kind="run" line=line place=place>
            <h4>"stdout"</h4><pre class="text">{outcome.stdout}</pre>
            <h4>"stderr"</h4><pre class="text">{outcome.stderr}</pre>
        </FoldedRow>
    }
}

/// The reviewer's verdict on the patch and the test, with its analysis and advice.
#[component]
fn ReviewEvent(
    round: usize,
    patch_correct: bool,
    test_correct: bool,
    patch_analysis: String,
    patch_advice: String,
    test_advice: String,
) -> impl IntoView {
    view! {
        <li class="ev review">
            <h4>{format!("Review {round}: patch {}, test {}", verdict(patch_correct), verdict(test_correct))}</h4>
            <p>{patch_analysis}</p>
            {(!patch_advice.is_empty()).then(|| view! { <p class="muted">"Patch advice: " {patch_advice}</p> })}
            {(!test_advice.is_empty()).then(|| view! { <p class="muted">"Test advice: " {test_advice}</p> })}
        </li>
    }
}

/// An MCTS iteration: the node expanded and its new children, with a link to the tree.
#[component]
fn MctsEvent(app: AppState, iteration: usize, node: usize, children: Vec<(usize, f64)>) -> impl IntoView {
    let kids = children_text(&children);
    view! {
        <li class="ev mcts">
            <span class="badge">"mcts"</span>
            {format!(" iteration {iteration}: expanded #{node} → {kids} ")}
            <button class="link small" on:click=move |_| app.tab.set(Tab::Tree)>"see the tree"</button>
        </li>
    }
}

/// A whole-workflow try began.
#[component]
fn TryEvent(number: usize, of: usize) -> impl IntoView {
    view! { <li class="ev try"><h3>{format!("Try {number} of at most {of}")}</h3></li> }
}

/// The code units shown to the patch writer, and why each was.
#[component]
fn ShownEvent(units: Vec<ShownUnit>) -> impl IntoView {
    let line = format!(" the patch writer saw {} code units", units.len());
    view! {
        <FoldedRow kind="shown" line=line>
            <table class="shown-units">
                <thead><tr><th>"file"</th><th>"class"</th><th>"method"</th><th>"lines"</th><th>"why"</th></tr></thead>
                <tbody>
                    {units.into_iter().map(|u| view! {
                        <tr>
                            <td><code>{u.file}</code></td>
                            <td>{u.class.unwrap_or_default()}</td>
                            <td>{u.method.unwrap_or_default()}</td>
                            <td>{format!("{}-{}", u.start, u.end)}</td>
                            <td>{u.why}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
        </FoldedRow>
    }
}

/// A row that folds: its kind (its class `ev <kind>` and its badge), its line, where it ran if it ran, and what it
/// unfolds to.
#[component]
fn FoldedRow(
    kind: &'static str,
    line: String,
    #[prop(optional)] place: Option<String>,
    children: Children,
) -> impl IntoView {
    view! {
        <li class=format!("ev {kind}")>
            <details>
                <summary>
                    <span class="badge">{kind}</span>
                    {line}
                    {place.map(|place| view! { <span class="meta place">{place}</span> })}
                </summary>
                {children()}
            </details>
        </li>
    }
}

/// The try chosen among the tries, and why.
#[component]
fn SelectionEvent(chosen: Option<usize>, reason: String, tries: usize) -> impl IntoView {
    view! {
        <li class="ev selection">
            <h4>{match chosen {
                Some(n) => format!("Chosen: try {n} of {tries}"),
                None => format!("No patch chosen ({tries} tries)"),
            }}</h4>
            <p>{reason}</p>
        </li>
    }
}

/// Something worth telling the user.
#[component]
fn NoteEvent(text: String) -> impl IntoView {
    view! { <li class="ev note">{text}</li> }
}

/// A bug location: where, what it should do, and its code.
pub fn location_view(l: BugLocation) -> impl IntoView {
    view! {
        <div class="location">
            <div class="loc-title"><code>{location_title(&l)}</code></div>
            {(!l.intended_behavior.is_empty()).then(|| view! { <p class="intended">"Intended: " {l.intended_behavior.clone()}</p> })}
            {code_lines(&l.code, l.start, &|_| false, None)}
        </div>
    }
}

/// Where a bug location is: its file, class, method and lines.
fn location_title(l: &BugLocation) -> String {
    let mut title = l.file.clone();
    for part in [&l.class, &l.method].into_iter().flatten() {
        title.push_str(&format!(" · {part}"));
    }
    title.push_str(&format!(" · lines {}-{}", l.start, l.end));
    title
}

/// A model call's line when collapsed: the answer's first line, else its tool calls, else "(no answer)" when the
/// call failed.
fn answer_line(answer: &str, calls: &[String], failed: bool) -> String {
    if answer.trim().is_empty() && !calls.is_empty() {
        one_line(&calls.join(", "), 140)
    } else if answer.trim().is_empty() && failed {
        "(no answer)".to_string()
    } else {
        one_line(answer, 140)
    }
}

/// A model call's size and duration (`~` marks estimated token counts).
fn model_meta(messages: usize, usage: Usage, estimated: bool, constrained: bool, ms: f64) -> String {
    let about = if estimated { "~" } else { "" };
    let schema = if constrained { " · JSON schema" } else { "" };
    format!(
        "{messages} msgs · {about}{}+{about}{} tokens{schema} · {ms:.0} ms",
        usage.prompt_tokens, usage.completion_tokens
    )
}

/// What the proxy read, counted.
fn proxy_line(round: usize, source: ReadBy, calls: usize, locations: usize, problems: usize) -> String {
    let problems = if problems == 0 { String::new() } else { format!(", {problems} problems") };
    format!(" round {round}, {source}: {calls} calls, {locations} locations{problems}")
}

/// Why a command ran and how it ended.
fn run_line(purpose: RunPurpose, outcome: &RunOutcome) -> String {
    let exit = outcome.exit_code.map_or_else(|| "killed".to_string(), |c| format!("exit {c}"));
    let timed_out = if outcome.timed_out { " (timed out)" } else { "" };
    format!(" {purpose}: {exit}{timed_out} in {} ms", outcome.duration_ms)
}

/// An MCTS node's new children with their rewards.
fn children_text(children: &[(usize, f64)]) -> String {
    if children.is_empty() {
        "no new candidates".to_string()
    } else {
        children.iter().map(|(id, r)| format!("#{id} ({r:+.2})")).collect::<Vec<_>>().join(", ")
    }
}

/// The first non-empty line of a text, cut to `max` characters.
fn one_line(text: &str, max: usize) -> String {
    let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
    match line.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_string(),
    }
}

/// A reviewer's verdict, in words.
fn verdict(accepted: bool) -> &'static str {
    if accepted { "accepted" } else { "rejected" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_call_is_summed_up_by_its_first_line() {
        assert_eq!(answer_line("\n  first line  \nsecond", &[], false), "first line");
        assert_eq!(answer_line(" ", &["f()".into(), "g()".into()], false), "f(), g()");
        assert_eq!(answer_line("", &[], true), "(no answer)");
        assert_eq!(answer_line("", &[], false), "");
        assert_eq!(one_line(&"x".repeat(150), 140), format!("{}…", "x".repeat(140)));
        assert_eq!(one_line("éé", 2), "éé");
    }

    #[test]
    fn model_calls_mark_estimated_tokens() {
        let usage = Usage { prompt_tokens: 10, completion_tokens: 3 };
        assert_eq!(model_meta(4, usage, false, false, 12.4), "4 msgs · 10+3 tokens · 12 ms");
        assert_eq!(model_meta(4, usage, true, false, 12.6), "4 msgs · ~10+~3 tokens · 13 ms");
        assert_eq!(model_meta(2, usage, false, true, 9.0), "2 msgs · 10+3 tokens · JSON schema · 9 ms");
    }

    #[test]
    fn runs_say_how_they_ended() {
        let outcome = RunOutcome { exit_code: Some(1), duration_ms: 42, ..RunOutcome::default() };
        assert_eq!(run_line(RunPurpose::Validation, &outcome), format!(" {}: exit 1 in 42 ms", RunPurpose::Validation));
        let killed = RunOutcome { exit_code: None, timed_out: true, duration_ms: 5, ..RunOutcome::default() };
        assert!(run_line(RunPurpose::Validation, &killed).ends_with(": killed (timed out) in 5 ms"));
    }

    #[test]
    fn mcts_children_are_listed_with_their_rewards() {
        assert_eq!(children_text(&[]), "no new candidates");
        assert_eq!(children_text(&[(3, 0.5), (4, -1.0)]), "#3 (+0.50), #4 (-1.00)");
    }

    #[test]
    fn reviews_and_locations_read_as_words() {
        assert_eq!((verdict(true), verdict(false)), ("accepted", "rejected"));
        let l = BugLocation {
            file: "a.py".into(),
            class: Some("A".into()),
            method: None,
            start: 3,
            end: 9,
            code: String::new(),
            intended_behavior: String::new(),
        };
        assert_eq!(location_title(&l), "a.py · A · lines 3-9");
    }
}
