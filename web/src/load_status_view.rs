//! What the loader is doing, on the load card: one small component per state of the load
//! ([`crate::load_state::LoadState`]): nothing yet, reading, indexing (with Cancel), cancelled, failed, or the
//! loaded repository's counts, skipped files and files with syntax errors.

use acr_core::index::IndexStats;
use acr_core::repo::SkippedFile;
use leptos::prelude::*;

use crate::load_state::{LoadState, Summary};
use crate::loader::Loader;

/// The line (and progress bar) of the load's current state.
#[component]
pub fn LoadStatusView(loader: Loader) -> impl IntoView {
    let state = loader.state();
    move || match state.get() {
        LoadState::Idle => view! { <IdleLine /> }.into_any(),
        LoadState::Reading(name) => view! { <ReadingLine name=name /> }.into_any(),
        LoadState::Indexing { name, done, total, workers } => {
            view! { <IndexingLine loader=loader name=name done=done total=total workers=workers /> }.into_any()
        }
        LoadState::Cancelled(name) => view! { <CancelledLine name=name /> }.into_any(),
        LoadState::Failed(message) => view! { <FailedLine message=message /> }.into_any(),
        LoadState::Ready(summary) => view! { <ReadyView summary=*summary /> }.into_any(),
    }
}

/// Nothing loaded yet.
#[component]
fn IdleLine() -> impl IntoView {
    view! { <p class="muted small">"Nothing loaded yet. Everything stays in this tab: files are never uploaded."</p> }
}

/// An archive being read and unpacked.
#[component]
fn ReadingLine(name: String) -> impl IntoView {
    view! {
        <p id="status">"Reading " {name} "…"</p>
        <progress id="progress"></progress>
    }
}

/// Sources being indexed, by `workers` workers (0: the page's thread), with a Cancel button.
#[component]
fn IndexingLine(loader: Loader, name: String, done: usize, total: usize, workers: usize) -> impl IntoView {
    view! {
        <p id="status" data-workers=workers>
            "Indexing " {name} ": " {done} " / " {total} " files"
            <span class="muted small">{(workers > 0).then(|| format!(" ({workers} workers)"))}</span>
            " " <button id="cancel-load" class="secondary small" on:click=move |_| loader.cancel()>"Cancel"</button>
        </p>
        <progress id="progress" max=total value=done></progress>
    }
}

/// A load the user cancelled.
#[component]
fn CancelledLine(name: String) -> impl IntoView {
    view! { <p id="status" class="muted">"Loading " {name} " was cancelled."</p> }
}

/// A load that failed, and why.
#[component]
fn FailedLine(message: String) -> impl IntoView {
    view! { <p id="error" class="error" role="alert">{message}</p> }
}

/// A loaded repository: its status line, counts, skipped files and files with syntax errors.
#[component]
fn ReadyView(summary: Summary) -> impl IntoView {
    let line = ready_line(&summary);
    let Summary { stats, languages, skipped, broken, .. } = summary;
    view! {
        {line}
        <progress id="progress" max=stats.files value=stats.files></progress>
        <StatsList stats=stats />
        <p class="muted small">"Files by language: " <span id="stat-languages">{languages}</span></p>
        <SkippedList skipped=skipped />
        <ParseErrors broken=broken />
    }
}

/// The status line of a loaded repository, with its timings as data attributes (for tests and benchmarks).
fn ready_line(summary: &Summary) -> impl IntoView + use<> {
    let Summary { ms, index_ms, origin, restored, complete_ms, .. } = *summary;
    let (name, phases) = (summary.name.clone(), summary.phases.to_string());
    view! {
        <p id="status" data-ms=format!("{ms:.1}") data-index-ms=format!("{index_ms:.1}")
            data-origin=format!("{origin:?}") data-restored=restored.to_string() data-phases=phases.clone()
            data-complete-ms=complete_ms.map(|ms| format!("{ms:.1}"))
            title=format!("{phases} (ms)")>
            {summary.verb()} {name} " in " {format!("{ms:.0}")} " ms"
            <span class="muted small">{summary.origin_note()}</span>
            <span class="muted small" id="unpacking">{summary.unpacking_note()}</span>
        </p>
    }
}

/// The index's counts.
#[component]
fn StatsList(stats: IndexStats) -> impl IntoView {
    view! {
        <dl class="stats" id="stats">
            <dt>"files"</dt><dd id="stat-files">{stats.files}</dd>
            <dt>"classes"</dt><dd id="stat-classes">{stats.classes}</dd>
            <dt>"methods"</dt><dd id="stat-methods">{stats.methods}</dd>
            <dt>"functions"</dt><dd id="stat-functions">{stats.functions}</dd>
            <dt>"failed to parse"</dt><dd id="stat-errors">{stats.with_errors}</dd>
        </dl>
    }
}

/// The files left out of the repository, and why (nothing when none was).
#[component]
fn SkippedList(skipped: Vec<SkippedFile>) -> impl IntoView {
    let items =
        skipped.into_iter().map(|s| view! { <li><code>{visible(&s.path)}</code> ": " {s.reason.to_string()}</li> });
    file_list("skipped", " files skipped", items.map(IntoAny::into_any).collect())
}

/// The files with syntax errors (nothing when none has).
#[component]
fn ParseErrors(broken: Vec<String>) -> impl IntoView {
    let items = broken.into_iter().map(|p| view! { <li><code>{p}</code></li> });
    file_list(
        "parse-errors",
        " with syntax errors (what parsed is still indexed)",
        items.map(IntoAny::into_any).collect(),
    )
}

/// A folded list of files, with the element id `id`, saying how many there are and `what` they are (nothing when
/// there is none).
fn file_list(id: &'static str, what: &'static str, items: Vec<AnyView>) -> impl IntoView + use<> {
    (!items.is_empty()).then(|| {
        view! {
            <details class="skipped" id=id>
                <summary>{items.len()} {what}</summary>
                <ul>{items}</ul>
            </details>
        }
    })
}

/// A path as it can be shown on one line: control characters (a newline in a hostile name) written as escapes.
fn visible(path: &str) -> String {
    path.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_in_paths_are_escaped() {
        assert_eq!(visible("a\nb\tc.py"), "a\\nb\\tc.py");
        assert_eq!(visible("ok/é.py"), "ok/é.py");
    }
}
