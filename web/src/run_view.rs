//! The run panel and the live transcript: the issue, the mode, run and stop buttons, token and time counters, and
//! one row per agent event as it happens ([`crate::event_view`]), with the answer arriving now.

use acr_core::agent::{AgentConfig, Event, Mode};
use acr_core::llm::Usage;
use acr_core::llm::stream::Partial;
use leptos::prelude::*;

use crate::browser;
use crate::event_view::{event_view, reasoning_view};
use crate::model;
use crate::run::RunStatus;
use crate::run::{Asking, partial_tokens};
use crate::state::{AppState, Tab};

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
    let reasoning = (!partial.reasoning.is_empty()).then(|| reasoning_view("Reasoning so far", partial.reasoning));
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
