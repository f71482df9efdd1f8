//! The index cache's line on the load card: what it holds, its limit, and a button that empties it.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::index_cache;

/// The index cache's line: what it holds, its limit, and a button that empties it.
#[component]
pub fn IndexCacheView() -> impl IntoView {
    let usage = RwSignal::new(None::<(u32, f64, f64)>);
    let refresh = move || spawn_local(async move { usage.set(index_cache::usage().await) });
    let on_clear = move |_| {
        spawn_local(async move {
            index_cache::clear().await;
            usage.set(index_cache::usage().await);
        })
    };
    view! {
        <details class="skipped" id="index-cache" on:toggle=move |_| refresh()>
            <summary>"Index cache"</summary>
            <p class="muted small">
                "Indexes of large repositories are kept in this browser (IndexedDB), under a hash of the zip, with the "
                "last zip loaded: loading the same zip again, or reloading the page, skips the parse. The oldest "
                "entries are dropped beyond the limit; nothing stored is trusted without checking it against the zip."
            </p>
            <p class="small" id="index-cache-usage">{move || match usage.get() {
                Some((entries, bytes, limit)) => format!(
                    "{entries} indexes, {:.1} MiB stored (limit {:.0} MiB).",
                    bytes / f64::from(1 << 20),
                    limit / f64::from(1 << 20)
                ),
                None => "No cache in this browser.".to_string(),
            }}</p>
            <button id="clear-index-cache" class="secondary small" on:click=on_clear>"Clear the cache"</button>
        </details>
    }
}
