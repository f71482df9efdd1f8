//! The load card: choose or drop a `.zip`, or use a demo repository; then what the loader is doing
//! ([`crate::load_status_view`]), the file tree and the index cache's line.

use leptos::prelude::*;
use web_sys::HtmlInputElement;

use crate::demo;
use crate::file_tree::FileTree;
use crate::index_cache_view::IndexCacheView;
use crate::load_status_view::LoadStatusView;
use crate::loader::Loader;

/// The load card's content.
#[component]
pub fn LoadView() -> impl IntoView {
    let loader = Loader::new();
    loader.restore_last();
    view! {
        <DropZone loader=loader />
        <LoadStatusView loader=loader />
        <FileTree />
        <IndexCacheView />
    }
}

/// Where a zip is dropped or chosen, with the demo buttons.
#[component]
fn DropZone(loader: Loader) -> impl IntoView {
    let dragging = RwSignal::new(false);
    let on_zip = move |ev: leptos::ev::Event| {
        let input: HtmlInputElement = event_target(&ev);
        if let Some(file) = input.files().and_then(|f| f.get(0)) {
            loader.load_file(file);
        }
        // Choosing the same file again should load it again.
        input.set_value("");
    };
    let on_drop = move |ev: leptos::ev::DragEvent| {
        ev.prevent_default();
        dragging.set(false);
        match ev.data_transfer().and_then(|d| d.files()).and_then(|f| f.get(0)) {
            Some(file) => loader.load_file(file),
            None => loader.nothing_dropped(),
        }
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
                <button id="demo-button" class="secondary" on:click=move |_| loader.load_demo(&demo::PYTHON)>
                    "Use the demo repository"
                </button>
                <button id="demo-java-button" class="secondary" on:click=move |_| loader.load_demo(&demo::JAVA)>
                    "Java demo"
                </button>
                <button id="demo-js-button" class="secondary" on:click=move |_| loader.load_demo(&demo::JAVASCRIPT)>
                    "JavaScript demo"
                </button>
            </div>
        </div>
    }
}
