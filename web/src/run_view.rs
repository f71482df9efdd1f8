//! The run panel and the live transcript: the issue, the mode, run and stop buttons, token and time counters, and
//! one row per agent event as it happens — model calls, proxy results (as JSON), search calls with collapsible
//! outputs that open in the explorer, bug locations with their code, patch attempts with per-edit messages,
//! executions, reviews and MCTS iterations.

use acr_core::agent::{AgentConfig, Event, Mode};
use acr_core::llm::stream::Partial;
use acr_core::llm::{Cut, ToolCall, Usage};
use acr_core::locate::BugLocation;
use leptos::prelude::*;
use serde_json::json;

use crate::browser;
use crate::code_view::code_lines;
use crate::diff_view::DiffView;
use crate::model;
use crate::run::RunStatus;
use crate::run::{Asking, partial_tokens};
use crate::state::{AppState, ExploreRequest, Tab};

/// The issue box, mode switch, run/stop buttons, counters and status line.
#[component]
pub fn RunControls() -> impl IntoView {
    let app = AppState::get();
    let run = app.run;
    let mode = RwSignal::new(Mode::Acr);
    let tries = RwSignal::new(AgentConfig::default().overall_retries);
    let start = move |_| {
        let Some(loaded) = app.loaded.get_untracked() else {
            run.status.set(RunStatus::Failed("Load a repository first (a .zip, or the demo repository).".into()));
            return;
        };
        if !loaded.complete {
            run.status.set(RunStatus::Failed("The repository's other files are still being unpacked.".into()));
            return;
        }
        app.tab.set(Tab::Transcript);
        run.start(
            &loaded,
            app.issue.get_untracked(),
            mode.get_untracked(),
            tries.get_untracked(),
            app.settings.choice(),
            app.settings.runner(),
        );
    };
    let mode_button = move |m: Mode, label: &'static str, id: &'static str| {
        view! {
            <label class="radio">
                <input type="radio" name="mode" id=id prop:checked=move || mode.get() == m
                    on:change=move |_| mode.set(m) />
                " " {label}
            </label>
        }
    };
    let demo_on_other_repo = move || {
        app.settings.provider.get() == crate::settings::Provider::Demo
            && app.loaded.with(|l| l.as_ref().is_some_and(|l| l.demo.is_none()))
    };
    view! {
        <div class="field">
            <label for="issue">"Issue"</label>
            <textarea id="issue" rows="7" placeholder="Paste the issue: what happens, what you expected, a snippet that shows it."
                prop:value=move || app.issue.get()
                on:input=move |ev| app.issue.set(event_target_value(&ev))></textarea>
        </div>
        <div class="row">
            <fieldset class="modes">
                <legend class="visually-hidden">"Repair strategy"</legend>
                {mode_button(Mode::Acr, "ACR (patch, then review)", "mode-acr")}
                {mode_button(Mode::Mcts, "MCTS (tree search over patches)", "mode-mcts")}
            </fieldset>
        </div>
        <Limits tries=tries />
        <p class="muted small" hidden=move || !demo_on_other_repo()>
            "The demo model's answers were written for the demo repository; on this repository it will not find much. "
            "Choose a real model in the settings."
        </p>
        <div class="row">
            <button id="run-button" on:click=start
                disabled=move || run.busy() || app.loaded.with(|l| l.as_ref().is_some_and(|l| !l.complete))>"Run the agent"</button>
            <button id="stop-button" class="secondary" on:click=move |_| run.stop()
                disabled=move || run.status.get() != RunStatus::Running>"Stop"</button>
            <Counters />
        </div>
        <StatusLine />
    }
}

/// The run's limits: whole-workflow tries and the model budget (checked before every call; empty or 0 for none).
#[component]
fn Limits(tries: RwSignal<usize>) -> impl IntoView {
    let run = AppState::get().run;
    let shown = |v: Option<String>| v.unwrap_or_default();
    let read = |ev: &leptos::ev::Event| event_target_value(ev).trim().parse::<f64>().ok().filter(|v| *v > 0.0);
    view! {
        <details class="limits" id="run-limits">
            <summary>"Limits"</summary>
            <div class="row">
                <label class="small">"Tries "
                    <input id="limit-tries" type="number" min="1" max="20" prop:value=move || tries.get().to_string()
                        on:change=move |ev| tries.set(read(&ev).map_or(1, |v| (v as usize).clamp(1, 20)))/>
                </label>
                <label class="small">"Model calls "
                    <input id="limit-calls-input" type="number" min="0"
                        prop:value=move || shown(run.budget.get().max_calls.map(|n| n.to_string()))
                        on:change=move |ev| run.budget.update(|b| b.max_calls = read(&ev).map(|v| v as u64))/>
                </label>
                <label class="small">"Tokens "
                    <input id="limit-tokens-input" type="number" min="0"
                        prop:value=move || shown(run.budget.get().max_tokens.map(|n| n.to_string()))
                        on:change=move |ev| run.budget.update(|b| b.max_tokens = read(&ev).map(|v| v as u64))/>
                </label>
                <label class="small">"Seconds "
                    <input id="limit-seconds-input" type="number" min="0"
                        prop:value=move || shown(run.budget.get().max_seconds.map(|n| n.to_string()))
                        on:change=move |ev| run.budget.update(|b| b.max_seconds = read(&ev))/>
                </label>
                <label class="small">"Dollars "
                    <input id="limit-cost-input" type="number" min="0" step="0.01"
                        prop:value=move || shown(run.budget.get().max_cost.map(|n| n.to_string()))
                        on:change=move |ev| run.budget.update(|b| b.max_cost = read(&ev))/>
                </label>
            </div>
            <p class="muted small">
                "A new conversation per try while no acceptable patch comes out; the budget is checked before every "
                "model call, so a run goes past it by one answer at most. Empty or 0: no limit. Dollars need a price "
                "for the model (common OpenAI models have one)."
            </p>
        </details>
    }
}

/// Tokens, model calls and elapsed time, with the budget's limits beside them (the meter). A call in flight counts
/// at once, with its tokens estimated (`~`) until the server's counts come with the answer: the request's size, and
/// what has arrived of a streamed answer.
#[component]
fn Counters() -> impl IntoView {
    let run = AppState::get().run;
    let limit = |l: Option<String>| l.map_or(String::new(), |l| format!(" / {l}"));
    let budget = move || run.budget.get();
    // The call in flight (its request estimated, and what has arrived of its answer), or the one abandoned when the
    // run ended: counted at once, marked `~` until (unless) the server's counts come with the answer.
    let extra = move || {
        run.asking.get().map_or_else(
            || run.abandoned.get(),
            |a| {
                let out = run.live.with(|l| l.as_ref().map_or(0, partial_tokens));
                Some(Usage { prompt_tokens: a.prompt_tokens, completion_tokens: out })
            },
        )
    };
    let about = |estimated: bool| if estimated { "~" } else { "" };
    view! {
        <div id="counters" class="counters" aria-live="off">
            <span title="model calls, a call in flight or abandoned included (used / limit)"><b id="count-calls">{move || run.model_calls.get() + usize::from(extra().is_some())}</b>
                <span id="limit-calls">{move || limit(budget().max_calls.map(|n| n.to_string()))}</span>" calls"</span>
            <span title="prompt tokens; ~ with a call in flight or abandoned (its request estimated)"><b id="count-in">{move || {
                let extra = extra();
                format!("{}{}", about(extra.is_some()), run.usage.get().prompt_tokens + extra.map_or(0, |u| u.prompt_tokens))
            }}</b>" tokens in"</span>
            <span title="completion tokens; ~ with an answer arriving or cut off (estimated from its text)"><b id="count-out">{move || {
                let extra = extra();
                format!("{}{}", about(extra.is_some()), run.usage.get().completion_tokens + extra.map_or(0, |u| u.completion_tokens))
            }}</b>" out"</span>
            <span title="tokens in and out (used / limit); ~ when the server sent no counts or a call is in flight">
                <b id="count-tokens">{move || {
                    let s = run.spent.get();
                    let extra = extra().map(|u| u.prompt_tokens + u.completion_tokens);
                    format!("{}{}", about(s.estimated || extra.is_some()), s.tokens() + extra.unwrap_or(0))
                }}</b>
                <span id="limit-tokens">{move || limit(budget().max_tokens.map(|n| n.to_string()))}</span>" tokens"</span>
            {move || run.priced.get().then(|| view! {
                <span title="cost at the model's list price (used / limit)"><b id="count-cost">{move || format!("${:.4}", run.spent.get().cost)}</b>
                    {move || limit(budget().max_cost.map(|c| format!("${c:.2}")))}</span>
            })}
            <span title="elapsed (used / limit)"><b id="count-time">{move || format!("{:.1}", run.elapsed.get() / 1000.0)}</b>
                {move || limit(budget().max_seconds.map(|s| format!("{s:.0}")))}" s"</span>
        </div>
    }
}

/// What the run is doing, or why it failed.
#[component]
fn StatusLine() -> impl IntoView {
    let app = AppState::get();
    let run = app.run;
    move || {
        match run.status.get() {
            RunStatus::Idle => view! { <p id="run-status" class="muted">"Ready when you are."</p> }.into_any(),
            RunStatus::Running => view! {
                <p id="run-status" aria-live="polite"><span class="spinner" aria-hidden="true"></span>
                    {move || running_text(run.asking.get(), run.live.get().as_ref(), run.elapsed.get())}</p>
            }
            .into_any(),
            RunStatus::Stopping => {
                view! { <p id="run-status" aria-live="polite">"Stopping after the current step…"</p> }.into_any()
            }
            RunStatus::Stopped => {
                let kept =
                    run.outcome.with(|o| o.as_ref().is_some_and(|o| o.status.is_applicable() && !o.diff.is_empty()));
                view! {
                <p id="run-status" aria-live="polite">
                    {if kept { "Stopped. The best patch so far is kept. " } else { "Stopped. No patch was made." }}
                    {kept.then(|| view! { <button class="link" on:click=move |_| app.tab.set(Tab::Result)>"See the diff"</button> })}
                </p>
            }
            .into_any()
            }
            RunStatus::Failed(e) => view! { <p id="run-error" class="error" role="alert">{e}</p> }.into_any(),
            RunStatus::Done => {
                // The model server ended the run: its own message, as an error.
                let by_server = run.outcome.with(|o| {
                    o.as_ref().and_then(|o| {
                        let stop = o.stopped.as_ref().filter(|s| s.by_server())?;
                        Some(model::stop_message(stop, o.status.is_applicable() && !o.diff.is_empty()))
                    })
                });
                if let Some(message) = by_server {
                    return view! {
                    <p id="run-error" class="error" role="alert">{message}" "
                        <button class="link" on:click=move |_| app.tab.set(Tab::Transcript)>"See the transcript"</button>
                    </p>
                }
                .into_any();
                }
                let summary = run.outcome.with(|o| match o {
                    Some(o) if o.budget_exhausted().is_some() => format!(
                        "Stopped early, {}. {}",
                        o.budget_exhausted().map(|e| e.to_string()).unwrap_or_default(),
                        if o.status.is_applicable() { "The best patch so far is kept." } else { "No patch was made." }
                    ),
                    Some(o) if o.status.is_applicable() => format!(
                        "Done: an applicable patch{}.",
                        if o.validated { ", validated by execution" } else { " (not validated by execution)" }
                    ),
                    Some(o) => format!("Done, but no applicable patch: {}", o.reason),
                    None => "Done.".into(),
                });
                view! {
                    <p id="run-status" class="ok" aria-live="polite">{summary}" "
                        <button class="link" on:click=move |_| app.tab.set(Tab::Result)>"See the diff"</button>
                    </p>
                }
                .into_any()
            }
        }
    }
}

/// What a running run is doing: waiting for a model answer, reading one as it streams, or working between calls.
fn running_text(asking: Option<Asking>, live: Option<&Partial>, _tick: f64) -> String {
    let Some(asking) = asking else { return "Running…".into() };
    let stage = asking.stage.name();
    let seconds = ((browser::now() - asking.since) / 1000.0).max(0.0);
    match live {
        Some(p) => format!(
            "Running… the model is answering ({stage}): {} characters in {} chunks, {seconds:.0} s",
            p.answer.chars().count() + p.reasoning.chars().count(),
            p.chunks
        ),
        None => format!("Running… waiting for the model ({stage}, {seconds:.0} s)"),
    }
}

/// The transcript of the current run, growing as events arrive.
#[component]
pub fn TranscriptView() -> impl IntoView {
    let app = AppState::get();
    let run = app.run;
    let download = move |_| {
        let _ = browser::download("acr-transcript.json", "application/json", &run.transcript_json());
    };
    // Which workflow try each event belongs to; the tabs show one try at a time (0: all of them).
    let try_of = Memo::new(move |_| run.events.with(|v| tries_of(v)));
    let tries = move || try_of.with(|t| t.iter().flatten().copied().max().unwrap_or(0));
    let shown_try = RwSignal::new(0usize);
    Effect::new(move |_| {
        run.generation.track();
        shown_try.set(0);
    });
    let tab = move |n: usize, label: String| {
        view! {
            <button role="tab" class="try-tab" id=format!("try-tab-{n}")
                aria-selected=move || (shown_try.get() == n).to_string()
                on:click=move |_| shown_try.set(n)>{label}</button>
        }
    };
    view! {
        <div class="row">
            <span class="muted small">{move || format!("{} events", run.events.with(Vec::len))}</span>
            <span class="spacer"></span>
            <button id="download-transcript" class="secondary small" on:click=download
                disabled=move || run.events.with(Vec::is_empty)>"Download transcript (.json)"</button>
        </div>
        <div id="try-tabs" class="tabs try-tabs" role="tablist" hidden=move || tries() < 2>
            {tab(0, "All tries".into())}
            <For each=move || 1..=tries() key=|n| *n children=move |n| tab(n, format!("Try {n}")) />
        </div>
        <p class="muted" hidden=move || !run.events.with(Vec::is_empty)>"Run the agent to see its transcript here."</p>
        <ol id="transcript" class="transcript">
            <For
                each=move || {
                    let g = run.generation.get();
                    (0..run.events.with(Vec::len)).map(move |i| (g, i))
                }
                key=|k| *k
                children=move |(_, i)| {
                    let event = run.events.with_untracked(|v| v.get(i).cloned());
                    move || {
                        let only = shown_try.get();
                        let visible =
                            only == 0 || try_of.with(|t| t.get(i).copied().flatten().is_none_or(|n| n == only));
                        if visible { event.clone().map(|e| event_view(e, app)) } else { None }
                    }
                }
            />
            {move || run.live.get().map(live_view)}
            {move || run.interrupted.get().map(interrupted_view)}
        </ol>
    }
}

/// The answer a streaming model is writing now: its text so far, and its thinking so far, collapsed.
fn live_view(partial: Partial) -> impl IntoView {
    let reasoning = (!partial.reasoning.is_empty()).then(|| {
        view! {
            <details class="reasoning">
                <summary>{format!("Reasoning so far ({} characters, not acted on)", partial.reasoning.chars().count())}</summary>
                <pre class="text">{partial.reasoning}</pre>
            </details>
        }
    });
    view! {
        <li id="live-answer" class="ev model live" aria-live="polite">
            <span class="badge">"answering"</span>
            <span class="meta">{format!("{} chunks", partial.chunks)}</span>
            {reasoning}
            <pre class="text">{partial.answer}</pre>
        </li>
    }
}

/// The answer that was arriving when the run ended (stopped, or failed): what arrived, and why it ends there.
fn interrupted_view(partial: Partial) -> impl IntoView {
    view! {
        <li id="interrupted-answer" class="ev model cut">
            <span class="badge">"cut"</span>
            <span class="cut-why">{format!(" cut: the run ended while this answer was arriving ({} chunks)", partial.chunks)}</span>
            <pre class="text">{partial.answer}</pre>
        </li>
    }
}

/// The workflow try of each event (`None` before the first try and from the selection on: shown with every try).
fn tries_of(events: &[Event]) -> Vec<Option<usize>> {
    let mut current = None;
    events
        .iter()
        .map(|e| {
            match e {
                Event::Try { number, .. } => current = Some(*number),
                Event::Selection { .. } => current = None,
                _ => {}
            }
            current
        })
        .collect()
}

fn event_view(event: Event, app: AppState) -> impl IntoView {
    match event {
        Event::Phase { name } => view! { <li class="ev phase"><h3>{name.title()}</h3></li> }.into_any(),
        Event::Model { stage, prompt, messages, answer, reasoning, tool_calls, usage, usage_estimated, ms, cut, .. } => {
            let calls: Vec<String> = tool_calls.iter().map(ToolCall::as_text).collect();
            let failed = matches!(cut, Some(Cut::Failed(_)));
            let first = if answer.trim().is_empty() && !calls.is_empty() {
                one_line(&calls.join(", "), 140)
            } else if answer.trim().is_empty() && failed {
                "(no answer)".to_string()
            } else {
                one_line(&answer, 140)
            };
            let is_cut = cut.is_some();
            let cut = cut.map(|c| {
                view! { <p class="cut-why" class:error=failed>{format!("{}: {c}", if failed { "failed" } else { "cut" })}</p> }
            });
            let tool_calls = (!calls.is_empty()).then(|| {
                view! {
                    <h4>{format!("Tool calls ({})", calls.len())}</h4>
                    <ul class="tool-calls">{calls.into_iter().map(|c| view! { <li><code class="call">{c}</code></li> }).collect_view()}</ul>
                }
            });
            let about = if usage_estimated { "~" } else { "" };
            let reasoning = reasoning.map(|r| {
                view! {
                    <details class="reasoning">
                        <summary>{format!("Reasoning ({} characters, not acted on)", r.chars().count())}</summary>
                        <pre class="text">{r}</pre>
                    </details>
                }
            });
            view! {
                <li class="ev model" class:cut=is_cut class:failed=failed>
                    <details>
                        <summary>
                            <span class="badge">{stage.name()}</span>
                            " " <span class="answer-line">{first}</span>
                            <span class="meta">{format!("{messages} msgs · {about}{}+{about}{} tokens · {ms:.0} ms", usage.prompt_tokens, usage.completion_tokens)}</span>
                        </summary>
                        <h4>"Sent (last message)"</h4>
                        <pre class="text">{prompt}</pre>
                        {reasoning}
                        <h4>"Answer"</h4>
                        <pre class="text">{answer}</pre>
                        {tool_calls}
                    </details>
                    {cut}
                </li>
            }
            .into_any()
        }
        Event::Proxy { round, source, calls, locations, problems, notes } => {
            let calls: Vec<String> = calls.iter().map(ToString::to_string).collect();
            let locations: Vec<String> = locations.iter().map(ToString::to_string).collect();
            let value = json!({ "API_calls": calls, "bug_locations": locations, "problems": problems, "notes": notes });
            let text = serde_json::to_string_pretty(&value).unwrap_or_default();
            view! {
                <li class="ev proxy">
                    <details>
                        <summary>
                            <span class="badge">"proxy"</span>
                            {format!(" round {round}, {source}: {} calls, {} locations{}", calls.len(), locations.len(),
                                if problems.is_empty() { String::new() } else { format!(", {} problems", problems.len()) })}
                        </summary>
                        <pre class="json">{text}</pre>
                    </details>
                </li>
            }
            .into_any()
        }
        Event::Search { round, call, output, ok, results } => {
            let shown = call.to_string();
            let request = ExploreRequest::Call(call);
            let open = view! {
                <button class="link small explore-link" on:click=move |_| app.explore(request.clone())>
                    "open in explorer"
                </button>
            };
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
                    {open}
                </li>
            }
            .into_any()
        }
        Event::Locations { round, found, not_found } => view! {
            <li class="ev locations">
                <h4>{format!("Bug locations (round {round})")}</h4>
                {found.into_iter().map(location_view).collect_view()}
                {(!not_found.is_empty()).then(|| view! {
                    <ul class="not-found">{not_found.into_iter().map(|m| view! { <li>{m}</li> }).collect_view()}</ul>
                })}
            </li>
        }
        .into_any(),
        Event::Patch { attempt, status, diff, reason, edits } => {
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
            .into_any()
        }
        Event::Run { purpose, outcome } => {
            let exit = outcome.exit_code.map_or_else(|| "killed".to_string(), |c| format!("exit {c}"));
            let place = app.run.meta.with_untracked(|m| m.runner.clone());
            view! {
                <li class="ev run">
                    <details>
                        <summary>
                            <span class="badge">"run"</span>
                            {format!(" {purpose}: {exit}{} in {} ms", if outcome.timed_out { " (timed out)" } else { "" }, outcome.duration_ms)}
                            <span class="meta place">{place}</span>
                        </summary>
                        <h4>"stdout"</h4><pre class="text">{outcome.stdout}</pre>
                        <h4>"stderr"</h4><pre class="text">{outcome.stderr}</pre>
                    </details>
                </li>
            }
            .into_any()
        }
        Event::Review { round, patch_correct, test_correct, patch_analysis, patch_advice, test_advice } => view! {
            <li class="ev review">
                <h4>{format!("Review {round}: patch {}, test {}", yes_no(patch_correct), yes_no(test_correct))}</h4>
                <p>{patch_analysis}</p>
                {(!patch_advice.is_empty()).then(|| view! { <p class="muted">"Patch advice: " {patch_advice}</p> })}
                {(!test_advice.is_empty()).then(|| view! { <p class="muted">"Test advice: " {test_advice}</p> })}
            </li>
        }
        .into_any(),
        Event::Mcts { iteration, node, children, .. } => {
            let kids = if children.is_empty() {
                "no new candidates".to_string()
            } else {
                children.iter().map(|(id, r)| format!("#{id} ({r:+.2})")).collect::<Vec<_>>().join(", ")
            };
            view! {
                <li class="ev mcts">
                    <span class="badge">"mcts"</span>
                    {format!(" iteration {iteration}: expanded #{node} → {kids} ")}
                    <button class="link small" on:click=move |_| app.tab.set(Tab::Tree)>"see the tree"</button>
                </li>
            }
            .into_any()
        }
        Event::Try { number, of } => {
            view! { <li class="ev try"><h3>{format!("Try {number} of at most {of}")}</h3></li> }.into_any()
        }
        Event::Shown { units } => view! {
            <li class="ev shown">
                <details>
                    <summary>
                        <span class="badge">"shown"</span>
                        {format!(" the patch writer saw {} code units", units.len())}
                    </summary>
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
                </details>
            </li>
        }
        .into_any(),
        Event::Selection { chosen, reason, tries } => view! {
            <li class="ev selection">
                <h4>{match chosen {
                    Some(n) => format!("Chosen: try {n} of {tries}"),
                    None => format!("No patch chosen ({tries} tries)"),
                }}</h4>
                <p>{reason}</p>
            </li>
        }
        .into_any(),
        Event::Note { text } => view! { <li class="ev note">{text}</li> }.into_any(),
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

fn yes_no(b: bool) -> &'static str {
    if b { "accepted" } else { "rejected" }
}

/// A bug location: where, what it should do, and its code.
pub fn location_view(l: BugLocation) -> impl IntoView {
    let mut title = l.file.clone();
    if let Some(c) = &l.class {
        title.push_str(&format!(" · {c}"));
    }
    if let Some(m) = &l.method {
        title.push_str(&format!(" · {m}"));
    }
    title.push_str(&format!(" · lines {}-{}", l.start, l.end));
    view! {
        <div class="location">
            <div class="loc-title"><code>{title}</code></div>
            {(!l.intended_behavior.is_empty()).then(|| view! { <p class="intended">"Intended: " {l.intended_behavior.clone()}</p> })}
            {code_lines(&l.code, l.start, &|_| false, None)}
        </div>
    }
}
