//! The page: a header with the theme switch, the repository and model cards, the run controls, and the tabs for
//! the transcript, the diff, the MCTS tree and the search explorer.

use acr_core::agent::Stop;
use leptos::prelude::*;

use crate::browser;
use crate::diff_view::DiffView;
use crate::event_view::location_view;
use crate::explorer::ExplorerView;
use crate::load_view::LoadView;
use crate::mcts_view::TreeView;
use crate::run::{RunState, RunStatus};
use crate::run_view::{RunControls, TranscriptView};
use crate::settings::Settings;
use crate::settings_view::SettingsView;
use crate::state::{AppState, Tab};

const THEME_KEY: &str = "acr-wasm.theme";
const ISSUE_KEY: &str = "acr-wasm.issue";

/// The root component.
#[component]
pub fn App() -> impl IntoView {
    let app = AppState {
        loaded: RwSignal::new_local(None),
        settings: Settings::load(),
        run: RunState::new(),
        tab: RwSignal::new(Tab::Transcript),
        explore: RwSignal::new(None),
        issue: RwSignal::new(browser::load_session(ISSUE_KEY).unwrap_or_default()),
    };
    provide_context(app);
    // The issue text survives a restart of the core (see web/boot.js) and a reload of the tab.
    Effect::new(move |_| app.issue.with(|text| browser::save_session(ISSUE_KEY, text)));

    // When a run finishes, show its diff if the user is watching the transcript.
    Effect::new(move |_| {
        if app.run.status.get() == RunStatus::Done && app.tab.get_untracked() == Tab::Transcript {
            app.tab.set(Tab::Result);
        }
    });

    view! {
        <a class="skip-link" href="#main">"Skip to the playground"</a>
        <header class="top">
            <h1>"acr-wasm"</h1>
            <p class="tagline">"AutoCodeRover's repair agent, running in this tab."</p>
            <span class="spacer"></span>
            <ThemeSwitch />
        </header>
        <main id="main">
            <div class="side">
                <section class="card" aria-labelledby="load-title">
                    <h2 id="load-title">"1. Repository"</h2>
                    <LoadView />
                </section>
                <section class="card" aria-labelledby="model-title">
                    <h2 id="model-title">"2. Model"</h2>
                    <SettingsView settings=app.settings />
                </section>
            </div>
            <div class="work">
                <section class="card" aria-labelledby="run-title">
                    <h2 id="run-title">"3. Issue and run"</h2>
                    <RunControls />
                </section>
                <section class="card tabs-card">
                    <Tabs />
                    <div id="panel-transcript" role="tabpanel" aria-labelledby="tab-transcript" hidden=move || app.tab.get() != Tab::Transcript>
                        <TranscriptView />
                    </div>
                    <div id="panel-result" role="tabpanel" aria-labelledby="tab-result" hidden=move || app.tab.get() != Tab::Result>
                        <ResultView />
                    </div>
                    <div id="panel-tree" role="tabpanel" aria-labelledby="tab-tree" hidden=move || app.tab.get() != Tab::Tree>
                        <TreeView />
                    </div>
                    <div id="panel-explorer" role="tabpanel" aria-labelledby="tab-explorer" hidden=move || app.tab.get() != Tab::Explorer>
                        <ExplorerView />
                    </div>
                </section>
            </div>
        </main>
        <footer class="muted small">
            "Everything runs in this tab: the repository is unzipped and indexed here, reproducers run in Python here, "
            "and the only requests beyond this page's files are the ones you configure (the model server, packages, "
            "the optional runner server)."
        </footer>
    }
}

/// The tab bar: buttons with arrow-key navigation.
#[component]
fn Tabs() -> impl IntoView {
    let app = AppState::get();
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let current = Tab::ALL.iter().position(|t| *t == app.tab.get_untracked()).unwrap_or(0);
        let next = match ev.key().as_str() {
            "ArrowRight" => (current + 1) % Tab::ALL.len(),
            "ArrowLeft" => (current + Tab::ALL.len() - 1) % Tab::ALL.len(),
            _ => return,
        };
        ev.prevent_default();
        app.tab.set(Tab::ALL[next]);
        if let Some(el) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id(&format!("tab-{}", Tab::ALL[next].id())))
        {
            use wasm_bindgen::JsCast;
            if let Ok(el) = el.dyn_into::<web_sys::HtmlElement>() {
                let _ = el.focus();
            }
        }
    };
    view! {
        <div class="tabs" role="tablist" aria-label="Results" on:keydown=on_key>
            {Tab::ALL.map(|t| view! {
                <button role="tab" id=format!("tab-{}", t.id()) aria-controls=format!("panel-{}", t.id())
                    aria-selected=move || (app.tab.get() == t).to_string()
                    tabindex=move || if app.tab.get() == t { "0" } else { "-1" }
                    on:click=move |_| app.tab.set(t)>
                    {t.label()}
                    {(t == Tab::Tree).then(|| view! { <span class="muted small">" (MCTS)"</span> })}
                </button>
            }).to_vec()}
        </div>
    }
}

/// The final diff, with status, per-edit messages and bug locations.
#[component]
fn ResultView() -> impl IntoView {
    let run = AppState::get().run;
    move || {
        let Some(outcome) = run.outcome.get() else {
            let text = match run.status.get() {
                RunStatus::Running | RunStatus::Stopping => "The diff appears here when the run ends.",
                RunStatus::Failed(_) => "The run failed before producing a patch; its transcript shows how far it got.",
                _ => "Run the agent to get a patch.",
            };
            return view! { <p class="muted">{text}</p> }.into_any();
        };
        let ok = outcome.status.is_applicable();
        // The per-edit messages of the patch that was kept.
        let edits = outcome
            .transcript
            .events
            .iter()
            .rev()
            .find_map(|e| match e {
                acr_core::agent::Event::Patch { diff, edits, .. } if *diff == outcome.diff => Some(edits.clone()),
                _ => None,
            })
            .unwrap_or_default();
        view! {
            <div class="row">
                <span class="status" class:good=ok class:bad=!ok id="result-status">{outcome.status.as_str()}</span>
                {outcome.validated.then(|| view! { <span class="pill good">"validated by execution"</span> })}
                {outcome.stopped.as_ref().map(|stop| {
                    // One state: why the run stopped, and whether what the status badge shows is a patch kept.
                    let kept = if ok && !outcome.diff.is_empty() { "best patch so far kept" } else { "no patch made" };
                    let id = if matches!(stop, Stop::Budget(_)) { "result-budget" } else { "result-stopped" };
                    view! {
                        <span class="pill bad" id=id data-stop=stop.kind() title=stop.to_string()>
                            {format!("{}: {kept}", crate::model::stop_label(stop))}
                        </span>
                    }
                })}
                <span class="muted small">{format!("{} model calls, {} + {} tokens",
                    outcome.transcript.model_calls, outcome.transcript.usage.prompt_tokens, outcome.transcript.usage.completion_tokens)}</span>
            </div>
            {(!outcome.reason.is_empty()).then(|| view! { <p class="reason">{outcome.reason.clone()}</p> })}
            {(!edits.is_empty()).then(|| view! {
                <ul class="edits" id="edit-messages">{edits.into_iter().map(|m| view! { <li>{m}</li> }).collect_view()}</ul>
            })}
            <DiffView diff=outcome.diff.clone() id="diff" />
            {(!outcome.locations.is_empty()).then(|| view! {
                <details class="locations-final">
                    <summary>{format!("Bug locations used ({})", outcome.locations.len())}</summary>
                    {outcome.locations.clone().into_iter().map(location_view).collect_view()}
                </details>
            })}
        }
        .into_any()
    }
}

/// Light, dark, or the system's choice.
#[component]
fn ThemeSwitch() -> impl IntoView {
    let saved = browser::load(THEME_KEY).unwrap_or_else(|| "auto".into());
    let theme = RwSignal::new(saved);
    Effect::new(move |_| {
        let t = theme.get();
        let applied = match t.as_str() {
            "light" | "dark" => t.clone(),
            _ => {
                if browser::prefers_dark() {
                    "dark".into()
                } else {
                    "light".into()
                }
            }
        };
        browser::set_root_attribute("data-theme", &applied);
        if t == "auto" {
            browser::forget(THEME_KEY);
        } else {
            browser::save(THEME_KEY, &t);
        }
    });
    view! {
        <label class="theme small" for="theme">"Theme "</label>
        <select id="theme" prop:value=move || theme.get() on:change=move |ev| theme.set(event_target_value(&ev))>
            <option value="auto">"System"</option>
            <option value="light">"Light"</option>
            <option value="dark">"Dark"</option>
        </select>
    }
}
