//! The settings panel: the model (provider presets, base URL, key, context window, streaming, tools), where
//! executions happen, and a connection test for each. The settings themselves, their presets and what is saved live
//! in [`crate::settings`].

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::browser;
use crate::model;
use crate::python_view::PythonSettings;
use crate::runners::RunnerKind;
use crate::settings::{Check, Provider, Settings, base_url_hint, context_hint};

/// The settings panel.
#[component]
pub fn SettingsView(settings: Settings) -> impl IntoView {
    let is_demo = move || settings.provider.get() == Provider::Demo;
    let test = move |_| {
        let choice = settings.choice();
        settings.connection.set(Check::Checking);
        spawn_local(async move {
            let result = model::test_connection(&choice).await;
            settings.connection.set(match result {
                Ok(m) => Check::Ok(m),
                Err(e) => Check::Failed(e),
            });
        });
    };
    let test_runner = move |_| {
        let Some(runner) = settings.server() else {
            settings.runner_check.set(Check::Failed("Enter the runner's URL first (acr-runner prints it).".into()));
            return;
        };
        settings.runner_check.set(Check::Checking);
        spawn_local(async move {
            let result = runner.health().await;
            settings.runner_check.set(match result {
                Ok((summary, None)) => Check::Ok(summary),
                Ok((summary, Some(warning))) => Check::Warning(format!("{warning}. ({summary})")),
                Err(e) => Check::Failed(format!("{e}.")),
            });
        });
    };
    view! {
        <div class="field">
            <label for="provider">"Model"</label>
            <select
                id="provider"
                prop:value=move || settings.provider.get().id()
                on:change=move |ev| settings.choose(Provider::from_id(&event_target_value(&ev)))
            >
                {Provider::ALL.map(|p| view! { <option value=p.id()>{p.label()}</option> }).to_vec()}
            </select>
        </div>
        <p class="muted small" hidden=move || !is_demo()>
            "The demo model answers from a script written for the demo repository: the whole loop runs with no key and no network."
        </p>
        <div class="endpoint" hidden=is_demo>
            <div class="field">
                <label for="base-url">"Base URL"</label>
                <input id="base-url" type="url" placeholder="http://localhost:11434/v1" bind:value=settings.base_url />
            </div>
            {move || base_url_hint(&settings.base_url.get(), &browser::origin())
                .map(|hint| view! { <p id="base-url-hint" class="error warning small" role="alert">{hint}</p> })}
            <div class="field">
                <label for="model-name">"Model name"</label>
                <input id="model-name" type="text" placeholder="gpt-4o-mini" bind:value=settings.model />
            </div>
            <div class="field">
                <label for="api-key">"API key"</label>
                <input id="api-key" type="password" autocomplete="off" placeholder="not needed for local servers" bind:value=settings.api_key />
            </div>
            <label class="check"><input id="stream" type="checkbox" bind:checked=settings.stream />
                " Stream answers (show them in the transcript as they arrive)"</label>
            <div class="field">
                <label for="context-window">"Context window (tokens)"</label>
                <input id="context-window" type="text" inputmode="numeric" placeholder="unknown: requests are sent whole"
                    bind:value=settings.context_window />
            </div>
            <label>"Edit format "
                <select id="edit-format" prop:value=move || settings.edit_format.get()
                    on:change=move |ev| settings.edit_format.set(event_target_value(&ev))>
                    <option value="acr">"AutoCodeRover's <file>/<original>/<patched>"</option>
                    <option value="search-replace">"SEARCH/REPLACE blocks"</option>
                    <option value="udiff">"unified diff"</option>
                    <option value="definition">"whole definitions (the functions and methods changed)"</option>
                    <option value="whole">"whole files"</option>
                    <option value="auto">"auto (by model name: definitions for small local models)"</option>
                </select></label>
            <label class="check"><input id="tools" type="checkbox" bind:checked=settings.tools />
                " Offer the search APIs as tools (function calling; a server that refuses them gets calls in text)"</label>
            <p id="context-hint" class="muted small">{move || context_hint(settings.provider.get(), &settings.context_window.get())}</p>
        </div>
        <div class="row">
            <label class="check"><input id="remember" type="checkbox" bind:checked=settings.remember />
                " Remember on this device (saves the key in localStorage)"</label>
        </div>
        <div class="row">
            <button id="test-connection" class="secondary" on:click=test
                disabled=move || settings.connection.get() == Check::Checking>"Test connection"</button>
        </div>
        <CheckView id="conn-status" check=settings.connection />
        <details class="runner">
            <summary>"Execution: " {move || settings.runner_kind.get().label()}</summary>
            <div class="field">
                <label for="runner-kind">"Run reproducers and tests"</label>
                <select
                    id="runner-kind"
                    prop:value=move || settings.runner_kind.get().id()
                    on:change=move |ev| settings.runner_kind.set(RunnerKind::from_id(&event_target_value(&ev)))
                >
                    {RunnerKind::ALL.map(|k| view! { <option value=k.id()>{k.label()}</option> }).to_vec()}
                </select>
            </div>
            <div hidden=move || settings.runner_kind.get() != RunnerKind::Tab>
                <PythonSettings settings=settings />
            </div>
            <p class="muted small" hidden=move || settings.runner_kind.get() != RunnerKind::None>
                "Nothing is executed: patches are checked by the syntax gate and, in MCTS, rated by the model."
            </p>
            <div class="server" hidden=move || settings.runner_kind.get() != RunnerKind::Server>
                <p class="muted small">
                    "Start " <code>"acr-runner"</code> " on this machine to run reproducers and tests with your own Python "
                    "and packages."
                </p>
                <div class="field">
                    <label for="runner-url">"Runner URL"</label>
                    <input id="runner-url" type="url" placeholder="http://127.0.0.1:8787" bind:value=settings.runner_url />
                </div>
                <div class="field">
                    <label for="runner-token">"Access token"</label>
                    <input id="runner-token" type="password" autocomplete="off" bind:value=settings.runner_token />
                </div>
                <button id="test-runner" class="secondary" on:click=test_runner>"Check runner"</button>
                <CheckView id="runner-status" check=settings.runner_check />
            </div>
        </details>
    }
}

/// The result line of a check.
#[component]
pub fn CheckView(id: &'static str, check: RwSignal<Check>) -> impl IntoView {
    move || match check.get() {
        Check::Idle => view! { <p id=id class="muted small" aria-live="polite"></p> }.into_any(),
        Check::Checking => view! { <p id=id class="muted small" aria-live="polite">"Checking…"</p> }.into_any(),
        Check::Ok(m) => view! { <p id=id class="ok small" aria-live="polite">{m}</p> }.into_any(),
        Check::Failed(m) => view! { <p id=id class="error small" role="alert">{m}</p> }.into_any(),
        Check::Warning(m) => view! { <p id=id class="error warning small" role="alert">{m}</p> }.into_any(),
    }
}
