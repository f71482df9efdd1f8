//! The acr-wasm playground: AutoCodeRover's pipeline running in the browser tab.
//!
//! | module | what |
//! |---|---|
//! | [`app`] | the page layout, tabs, result view, theme |
//! | [`state`] | shared state: loaded repository, tabs, explorer requests |
//! | [`load`], [`load_index`], [`file_tree`] | reading a zip, indexing with progress, the file tree |
//! | [`load_state`], [`loader`] | the load's states and their changes; the loader that goes through them |
//! | [`load_view`], [`load_status_view`], [`index_cache_view`] | the load card: drop zone, the load's state, the index cache |
//! | [`index_pool`], [`index_worker`], [`index_cache`] | indexing in a pool of Web Workers; the index kept across reloads |
//! | [`warm`] | unzipping and parsing a sample while idle, so that the first load runs optimised code |
//! | [`settings`], [`model`], [`transport`] | model settings, the demo model, chat completions over fetch |
//! | [`runners`], [`tab_runner`], [`python_view`] | where executions happen: Python in this tab (Pyodide, in a worker), or the runner server ([`runner_client`]) |
//! | [`worker`] | module Web Workers with typed messages, deadlines and a warm spare |
//! | [`run`], [`run_view`], [`event_view`] | running the agent, its live transcript, one row per event |
//! | [`diff_view`], [`highlight`], [`code_view`] | diffs and code, numbered and coloured |
//! | [`mcts_view`] | the MCTS tree |
//! | [`explorer`], [`explorer_state`], [`explorer_form`], [`explorer_answer`], [`file_view`] | the search explorer: its shared state and actions, its form, its answer, the file it shows |
//! | [`browser`] | clock, timers, downloads, clipboard, storage |

mod app;
mod browser;
mod code_view;
mod demo;
mod diff_view;
mod event_view;
mod explorer;
mod explorer_answer;
mod explorer_form;
mod explorer_state;
mod file_tree;
mod file_view;
mod highlight;
mod index_cache;
mod index_cache_view;
mod index_pool;
mod index_worker;
mod load;
mod load_index;
mod load_state;
mod load_status_view;
mod load_view;
mod loader;
mod mcts_view;
mod model;
mod python_view;
mod run;
mod run_view;
mod runner_client;
mod runners;
mod settings;
mod settings_view;
mod state;
mod tab_runner;
mod transport;
mod unpack_parse;
mod warm;
mod worker;

fn main() {
    // The same module runs in the indexing workers (web/js/index-worker.mjs), which have no page to mount on.
    if web_sys::window().is_none() {
        std::panic::set_hook(Box::new(console_error_panic_hook::hook));
        return;
    }
    // A panic ends in a trap; the bootstrap (web/boot.js) then restarts the core and shows this message.
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        browser::record_panic(&format!("internal error: {info}"));
    }));
    leptos::mount::mount_to_body(app::App);
}
