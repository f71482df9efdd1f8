//! The search explorer: pick one of the search APIs, fill in its arguments (or type the call), and see exactly the
//! text the model would read, with the code it found highlighted in a file view. Search calls in the transcript
//! and files in the file tree open here.

use acr_core::api::{APIS, ApiSpec, api};
use acr_core::call::SearchCall;
use acr_core::search::{SearchHit, SearchOutput, Searcher};
use leptos::html;
use leptos::prelude::*;

use crate::code_view::code_lines;
use crate::load::Loaded;
use crate::state::{AppState, ExploreRequest};

/// Files longer than this are shown around the highlighted lines only.
const MAX_SHOWN_LINES: u32 = 1500;

/// What the file view shows.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Focus {
    path: String,
    start: u32,
    end: u32,
    needle: Option<String>,
}

/// The last search made.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Answer {
    call: String,
    output: SearchOutput,
    needle: Option<String>,
}

/// Runs one call over the loaded repository, checked as the agent checks a model's call.
fn search(loaded: &Loaded, call: &SearchCall) -> Answer {
    let output = Searcher::new(&loaded.index, &loaded.repo).run(call);
    Answer { call: call.to_string(), output, needle: call.code().map(str::to_string) }
}

/// The form's fields, checked: the call, or an answer that says what is wrong with them.
fn from_form(spec: &'static ApiSpec, args: &[String]) -> Result<SearchCall, Answer> {
    SearchCall::from_texts(spec.name, args).map_err(|e| Answer {
        call: format!("{}({})", spec.name, args.join(", ")),
        output: SearchOutput::miss(e.to_string()),
        needle: None,
    })
}

/// The form's fields for a call: its API and its arguments as text.
fn form_of(call: &SearchCall) -> (&'static ApiSpec, Vec<String>) {
    (call.spec(), call.values().iter().map(ToString::to_string).collect())
}

/// The explorer panel.
#[component]
pub fn ExplorerView() -> impl IntoView {
    let app = AppState::get();
    let spec = RwSignal::new(&APIS[0]);
    let args = RwSignal::new(vec![String::new(); APIS[0].params.len()]);
    let typed = RwSignal::new(String::new());
    let problem = RwSignal::new(String::new());
    let answer = RwSignal::new(None::<Answer>);
    let focus = RwSignal::new(None::<Focus>);
    let wrapped = RwSignal::new(false);

    let run = move || {
        problem.set(String::new());
        let Some(loaded) = app.loaded.get_untracked() else {
            problem.set("Load a repository first.".into());
            return;
        };
        let a = match from_form(spec.get_untracked(), &args.get_untracked()) {
            Ok(call) => search(&loaded, &call),
            Err(a) => a,
        };
        typed.set(a.call.clone());
        focus.set(a.output.results.first().map(|h| focus_on(h, a.needle.clone())));
        answer.set(Some(a));
    };
    let choose_api = move |name: &str| {
        if let Some(s) = api(name) {
            spec.set(s);
            args.set(vec![String::new(); s.params.len()]);
        }
    };
    let run_typed = move || match SearchCall::parse(&typed.get_untracked()) {
        Ok(call) => {
            let (s, values) = form_of(&call);
            spec.set(s);
            args.set(values);
            run();
        }
        Err(e) => problem.set(format!("Could not read the call: {e}")),
    };

    // Requests from the transcript and the file tree.
    Effect::new(move |_| {
        let Some(request) = app.explore.get() else { return };
        match request {
            ExploreRequest::Call(call) => {
                let (s, values) = form_of(&call);
                spec.set(s);
                args.set(values);
                run();
            }
            ExploreRequest::File { path } => {
                focus.set(Some(Focus { path, start: 0, end: 0, needle: None }));
            }
        }
    });

    let arg_inputs = move || {
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
                            on:keydown=move |ev| if ev.key() == "Enter" { run() } />
                    </div>
                }
            })
            .collect_view()
    };

    view! {
        <div class="explorer">
            <div class="explorer-form">
                <p class="muted small">
                    "Each search API answers with the text the model reads. Try one, or open a call from the transcript."
                </p>
                <div class="field">
                    <label for="explorer-api">"API"</label>
                    <select id="explorer-api" prop:value=move || spec.get().name
                        on:change=move |ev| choose_api(&event_target_value(&ev))>
                        {APIS.iter().map(|a| view! { <option value=a.name>{a.name}</option> }).collect_view()}
                    </select>
                </div>
                <p class="muted small api-summary">{move || spec.get().summary}</p>
                {arg_inputs}
                <div class="row">
                    <button id="explorer-run" on:click=move |_| run()>"Search"</button>
                </div>
                <div class="field">
                    <label for="explorer-call">"…or type a call"</label>
                    <div class="row tight">
                        <input id="explorer-call" type="text" class="mono grow" placeholder="search_method_in_class(\"total\", \"Cart\")"
                            prop:value=move || typed.get()
                            on:input=move |ev| typed.set(event_target_value(&ev))
                            on:keydown=move |ev| if ev.key() == "Enter" { run_typed() } />
                        <button id="explorer-call-run" class="secondary" on:click=move |_| run_typed()>"Run call"</button>
                    </div>
                </div>
                <p id="explorer-problem" class="error small" role="alert" hidden=move || problem.with(String::is_empty)>
                    {move || problem.get()}
                </p>
            </div>
            <div class="explorer-out">
                {move || answer.get().map(|a| {
                    let hits = a.output.results.clone();
                    let needle = a.needle.clone();
                    let call = a.call.clone();
                    let text = a.output.text.clone();
                    view! {
                        <div class="row">
                            <code class="call">{call.clone()}</code>
                            <span class="pill" class:good=a.output.ok class:bad=!a.output.ok>
                                {if a.output.ok { "found" } else { "nothing found" }}
                            </span>
                            <span class="spacer"></span>
                            <label class="check small">
                                <input type="checkbox" bind:checked=wrapped />" as a message in the conversation"
                            </label>
                        </div>
                        <pre id="explorer-output" class="text">{move || if wrapped.get() {
                            let parsed = SearchCall::parse(&call).ok();
                            parsed.map_or_else(|| text.clone(), |c| acr_core::prompt::text::call_results(&[(c, text.clone())]))
                        } else {
                            text.clone()
                        }}</pre>
                        {(!hits.is_empty()).then(|| view! {
                            <ul class="hits" aria-label="Code found">
                                {hits.into_iter().map(|h| {
                                    let label = hit_label(&h);
                                    let f = focus_on(&h, needle.clone());
                                    let current = f.clone();
                                    view! {
                                        <li><button class="link hit-link"
                                            aria-current=move || focus.with(|x| x.as_ref() == Some(&current)).then_some("true")
                                            on:click=move |_| focus.set(Some(f.clone()))>{label}</button></li>
                                    }
                                }).collect_view()}
                            </ul>
                        })}
                    }
                })}
                <FileView focus=focus />
            </div>
        </div>
    }
}

fn focus_on(hit: &SearchHit, needle: Option<String>) -> Focus {
    Focus { path: hit.file.clone(), start: hit.start, end: hit.end, needle }
}

fn hit_label(h: &SearchHit) -> String {
    let mut s = format!("{}:{}-{}", h.file, h.start, h.end);
    match (&h.class, &h.func) {
        (Some(c), Some(f)) => s.push_str(&format!(" ({c}.{f})")),
        (Some(c), None) => s.push_str(&format!(" ({c})")),
        (None, Some(f)) => s.push_str(&format!(" ({f})")),
        (None, None) => {}
    }
    s
}

/// A file with the focused lines highlighted, scrolled to them.
#[component]
fn FileView(focus: RwSignal<Option<Focus>>) -> impl IntoView {
    let app = AppState::get();
    let scroller = NodeRef::<html::Div>::new();
    // Scroll the first highlighted line into view after each render.
    Effect::new(move |_| {
        focus.track();
        let Some(el) = scroller.get() else { return };
        leptos::task::spawn_local(async move {
            crate::browser::yield_now().await;
            if let Ok(Some(hit)) = el.query_selector(".cl.hit") {
                use wasm_bindgen::JsCast;
                if let Ok(hit) = hit.dyn_into::<web_sys::HtmlElement>() {
                    el.set_scroll_top((hit.offset_top() - 48).max(0));
                }
            } else {
                el.set_scroll_top(0);
            }
        });
    });
    let body = move || {
        let Some(f) = focus.get() else {
            return view! { <p class="muted">"The code a search finds is shown here, in its file."</p> }.into_any();
        };
        let text = app.loaded.with(|l| l.as_ref().and_then(|l| l.repo.file(&f.path).map(str::to_string)));
        let Some(text) = text else {
            return view! { <p class="error">{format!("{} is not in the loaded repository.", f.path)}</p> }.into_any();
        };
        let total = text.lines().count() as u32;
        // Long files: show a window around the focus only.
        let (from, to) = if total > MAX_SHOWN_LINES && f.start > 0 {
            let from = f.start.saturating_sub(200).max(1);
            (from, (f.end + 200).min(total))
        } else {
            (1, total.min(MAX_SHOWN_LINES.max(1)))
        };
        let shown: String = text
            .lines()
            .skip((from - 1) as usize)
            .take((to + 1).saturating_sub(from) as usize)
            .map(|l| format!("{l}\n"))
            .collect();
        let (start, end, needle) = (f.start, f.end, f.needle.clone());
        let note = (from > 1 || to < total).then(|| format!("Showing lines {from}-{to} of {total}."));
        view! {
            <div class="file-head">
                <code id="explorer-file-path">{f.path.clone()}</code>
                {(start > 0).then(|| view! { <span class="muted small">{format!(" lines {start}-{end}")}</span> })}
                {note.map(|n| view! { <span class="muted small">" " {n}</span> })}
            </div>
            {code_lines(&shown, from, &|n| start > 0 && n >= start && n <= end, needle.as_deref())}
        }
        .into_any()
    };
    view! { <div id="explorer-file" class="file-view" node_ref=scroller tabindex="0" aria-label="File view">{body}</div> }
}
