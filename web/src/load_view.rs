//! The load card: choose or drop a `.zip`, or use the demo repository; a progress bar while it unzips and indexes;
//! then the counts, the files skipped with their reasons, and the file tree.

use std::rc::Rc;

use acr_core::index::IndexStats;
use acr_core::repo::{Repo, SkippedFile};
use leptos::prelude::*;
use leptos::task::spawn_local;
use web_sys::HtmlInputElement;

use crate::file_tree::FileTree;
use crate::state::{AppState, Loaded};
use crate::{browser, demo, load};

/// What the loader is doing.
#[derive(Clone, Debug, PartialEq)]
enum LoadState {
    Idle,
    Reading(String),
    Indexing { name: String, done: usize, total: usize },
    Ready { name: String, stats: IndexStats, skipped: Vec<SkippedFile>, broken: Vec<String>, ms: f64, index_ms: f64 },
    Failed(String),
}

/// The load card's content.
#[component]
pub fn LoadView() -> impl IntoView {
    let app = AppState::get();
    let state = RwSignal::new(LoadState::Idle);
    let dragging = RwSignal::new(false);

    let index_repo = move |name: String, repo: Repo, started: f64, is_demo: bool| {
        let indexing = browser::now();
        spawn_local(async move {
            let index = load::index_with_progress(&repo, |done, total| {
                state.set(LoadState::Indexing { name: name.clone(), done, total });
            })
            .await;
            let done = browser::now();
            let (ms, index_ms) = (done - started, done - indexing);
            let broken = index.files.iter().filter(|f| f.has_error).map(|f| f.path.clone()).collect();
            let skipped = repo.skipped().to_vec();
            state.set(LoadState::Ready { name: name.clone(), stats: index.stats(), skipped, broken, ms, index_ms });
            app.loaded.set(Some(Loaded { name, repo: Rc::new(repo), index: Rc::new(index), demo: is_demo }));
            // The demo repository comes with its issue; another repository should not keep it.
            if is_demo {
                app.issue.set(demo::ISSUE.trim().to_string());
            } else if app.issue.with_untracked(|i| i.trim() == demo::ISSUE.trim()) {
                app.issue.set(String::new());
            }
        });
    };

    let load_file = move |file: web_sys::File| {
        let name = file.name();
        state.set(LoadState::Reading(name.clone()));
        app.loaded.set(None);
        let started = browser::now();
        spawn_local(async move {
            // Let the "Reading" line paint before the (synchronous) unzip.
            browser::yield_now().await;
            match load::read_file(&file).await.and_then(|bytes| load::repo_from_zip(&bytes)) {
                Ok(repo) => index_repo(name, repo, started, false),
                Err(e) => state.set(LoadState::Failed(format!("{name}: {e}"))),
            }
        });
    };

    let on_zip = move |ev: leptos::ev::Event| {
        let input: HtmlInputElement = event_target(&ev);
        if let Some(file) = input.files().and_then(|f| f.get(0)) {
            load_file(file);
        }
        // Choosing the same file again should load it again.
        input.set_value("");
    };
    let on_drop = move |ev: leptos::ev::DragEvent| {
        ev.prevent_default();
        dragging.set(false);
        match ev.data_transfer().and_then(|d| d.files()).and_then(|f| f.get(0)) {
            Some(file) => load_file(file),
            None => state.set(LoadState::Failed("Nothing was dropped: drop a .zip file of the repository.".into())),
        }
    };
    let on_demo = move |_| {
        app.loaded.set(None);
        index_repo("demo repository".into(), Repo::from_files(demo::FILES.iter().copied()), browser::now(), true);
    };

    view! {
        <div class="dropzone" class:dragging=move || dragging.get()
            on:dragover=move |ev: leptos::ev::DragEvent| { ev.prevent_default(); dragging.set(true); }
            on:dragleave=move |_| dragging.set(false)
            on:drop=on_drop>
            <p class="muted small">"Drop a repository .zip here (GitHub's “Download ZIP” works), or:"</p>
            <div class="row">
                <label class="button" for="zip-input">"Choose a .zip…"</label>
                <input id="zip-input" class="visually-hidden" type="file" accept=".zip,application/zip" on:change=on_zip />
                <button id="demo-button" class="secondary" on:click=on_demo>"Use the demo repository"</button>
            </div>
        </div>
        <StateView state=state />
        <FileTree />
    }
}

#[component]
fn StateView(state: RwSignal<LoadState>) -> impl IntoView {
    move || {
        match state.get() {
        LoadState::Idle => {
            view! { <p class="muted small">"Nothing loaded yet. Everything stays in this tab: files are never uploaded."</p> }
                .into_any()
        }
        LoadState::Reading(name) => view! {
            <p id="status">"Reading " {name} "…"</p>
            <progress id="progress"></progress>
        }
        .into_any(),
        LoadState::Indexing { name, done, total } => view! {
            <p id="status">"Indexing " {name} ": " {done} " / " {total} " files"</p>
            <progress id="progress" max=total value=done></progress>
        }
        .into_any(),
        LoadState::Failed(message) => view! { <p id="error" class="error" role="alert">{message}</p> }.into_any(),
        LoadState::Ready { name, stats, skipped, broken, ms, index_ms } => view! {
            <p id="status" data-ms=format!("{ms:.1}") data-index-ms=format!("{index_ms:.1}")>
                "Loaded " {name} " in " {format!("{ms:.0}")} " ms"
                <span class="muted small">{format!(" (indexing {index_ms:.0} ms)")}</span>
            </p>
            <progress id="progress" max=stats.files value=stats.files></progress>
            <dl class="stats" id="stats">
                <dt>"files"</dt><dd id="stat-files">{stats.files}</dd>
                <dt>"classes"</dt><dd id="stat-classes">{stats.classes}</dd>
                <dt>"methods"</dt><dd id="stat-methods">{stats.methods}</dd>
                <dt>"functions"</dt><dd id="stat-functions">{stats.functions}</dd>
                <dt>"failed to parse"</dt><dd id="stat-errors">{stats.with_errors}</dd>
            </dl>
            <SkippedList skipped=skipped />
            {(!broken.is_empty()).then(|| view! {
                <details class="skipped" id="parse-errors">
                    <summary>{broken.len()} " with syntax errors (what parsed is still indexed)"</summary>
                    <ul>{broken.into_iter().map(|p| view! { <li><code>{p}</code></li> }).collect_view()}</ul>
                </details>
            })}
        }
        .into_any(),
    }
    }
}

#[component]
fn SkippedList(skipped: Vec<SkippedFile>) -> impl IntoView {
    (!skipped.is_empty()).then(|| {
        view! {
            <details class="skipped" id="skipped">
                <summary>{skipped.len()} " files skipped"</summary>
                <ul>
                    {skipped.into_iter().map(|s| view! { <li><code>{visible(&s.path)}</code> ": " {s.reason.to_string()}</li> }).collect_view()}
                </ul>
            </details>
        }
    })
}

/// A path as it can be shown on one line: control characters (a newline in a hostile name) written as escapes.
fn visible(path: &str) -> String {
    path.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect()
}
