//! The explorer's form: the API and its arguments, or a call typed out, and what is wrong with them.

use acr_core::api::APIS;
use leptos::prelude::*;

use crate::explorer_state::Explorer;

/// The form: the API, its arguments, the typed call, and the problem line.
#[component]
pub fn ExplorerForm(explorer: Explorer) -> impl IntoView {
    let Explorer { spec, problem, .. } = explorer;
    view! {
        <div class="explorer-form">
            <p class="muted small">
                "Each search API answers with the text the model reads. Try one, or open a call from the transcript."
            </p>
            <div class="field">
                <label for="explorer-api">"API"</label>
                <select id="explorer-api" prop:value=move || spec.get().name
                    on:change=move |ev| explorer.choose_api(&event_target_value(&ev))>
                    {APIS.iter().map(|a| view! { <option value=a.name>{a.name}</option> }).collect_view()}
                </select>
            </div>
            <p class="muted small api-summary">{move || spec.get().summary}</p>
            <ArgInputs explorer=explorer />
            <div class="row">
                <button id="explorer-run" on:click=move |_| explorer.run()>"Search"</button>
            </div>
            <TypedCall explorer=explorer />
            <p id="explorer-problem" class="error small" role="alert" hidden=move || problem.with(String::is_empty)>
                {move || problem.get()}
            </p>
        </div>
    }
}

/// One input per argument of the chosen API; Enter runs the search.
#[component]
fn ArgInputs(explorer: Explorer) -> impl IntoView {
    let Explorer { spec, args, .. } = explorer;
    move || {
        let s = spec.get();
        s.params
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let p = p.name;
                let id = format!("explorer-arg-{p}");
                view! {
                    <div class="field">
                        <label for=id.clone()>{p}</label>
                        <input id=id type="text"
                            prop:value=move || args.with(|a| a.get(i).cloned().unwrap_or_default())
                            on:input=move |ev| {
                                let v = event_target_value(&ev);
                                args.update(|a| if let Some(slot) = a.get_mut(i) { *slot = v });
                            }
                            on:keydown=move |ev| if ev.key() == "Enter" { explorer.run() } />
                    </div>
                }
            })
            .collect_view()
    }
}

/// A call typed out, run with Enter or its button.
#[component]
fn TypedCall(explorer: Explorer) -> impl IntoView {
    let typed = explorer.typed;
    view! {
        <div class="field">
            <label for="explorer-call">"…or type a call"</label>
            <div class="row tight">
                <input id="explorer-call" type="text" class="mono grow" placeholder="search_method_in_class(\"total\", \"Cart\")"
                    prop:value=move || typed.get()
                    on:input=move |ev| typed.set(event_target_value(&ev))
                    on:keydown=move |ev| if ev.key() == "Enter" { explorer.run_typed() } />
                <button id="explorer-call-run" class="secondary" on:click=move |_| explorer.run_typed()>"Run call"</button>
            </div>
        </div>
    }
}
