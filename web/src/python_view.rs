//! The settings of Python in this tab: the packages to install (read from the loaded repository, or typed), the
//! package index, dropped wheels for offline use, a button that starts Python now, and what set-up reported:
//! the versions, the installed packages and those that could not be installed, with why.

use leptos::prelude::*;
use leptos::task::spawn_local;
use web_sys::HtmlInputElement;

use crate::load;
use crate::settings::Settings;
use crate::state::AppState;
use crate::tab_runner::packages::{self, from_repo};
use crate::tab_runner::{PythonStatus, TabRunner};

/// The "In this tab (Pyodide)" part of the runner settings.
#[component]
pub fn PythonSettings(settings: Settings) -> impl IntoView {
    let app = AppState::get();
    let status = TabRunner::shared().status();
    let wheel_error = RwSignal::new(String::new());

    // Each loaded repository brings its own requirements.
    Effect::new(move |_| {
        let declared = app.loaded.with(|l| l.as_ref().map(|l| from_repo(&l.repo)));
        if let Some((requirements, sources)) = declared {
            settings.requirements.set(requirements.join("\n"));
            settings.requirements_source.set(sources.join(", "));
        }
    });

    let add_wheels = move |ev: leptos::ev::Event| {
        let input: HtmlInputElement = event_target(&ev);
        let Some(list) = input.files() else { return };
        let files: Vec<web_sys::File> = (0..list.length()).filter_map(|i| list.get(i)).collect();
        input.set_value("");
        spawn_local(async move {
            let mut problems = Vec::new();
            let mut added = Vec::new();
            for file in files {
                match load::read_file(&file).await.and_then(|bytes| packages::wheel(&file.name(), bytes)) {
                    Ok(wheel) => added.push(wheel),
                    Err(e) => problems.push(e),
                }
            }
            wheel_error.set(problems.join(" "));
            if !added.is_empty() {
                settings.wheels.update(|w| {
                    w.retain(|have| !added.iter().any(|new| new.name == have.name));
                    w.extend(added);
                });
            }
        });
    };
    let start = move |_| {
        spawn_local(async move {
            let _ = TabRunner::shared().start_now().await;
        });
    };
    let starting = {
        let status = status.clone();
        move || status.get() == PythonStatus::Starting
    };

    view! {
        <p class="muted small">
            "Reproducers and tests run here, in a worker with Python 3.14 compiled to WebAssembly (Pyodide): no "
            "server, no network for the code it runs, offline included. It loads the first time a run needs it "
            "(about 12 MB, kept by the browser's cache)."
        </p>
        <div class="field">
            <label for="requirements">"Packages (one requirement per line)"</label>
            <textarea id="requirements" rows="3" placeholder="none: the standard library only"
                prop:value=move || settings.requirements.get()
                on:input=move |ev| {
                    settings.requirements.set(event_target_value(&ev));
                    settings.requirements_source.set(String::new());
                }></textarea>
            <p id="requirements-source" class="muted small" hidden=move || settings.requirements_source.with(String::is_empty)>
                {move || format!("Read from {}.", settings.requirements_source.get())}
            </p>
        </div>
        <div class="field">
            <label for="package-index">"Package index"</label>
            <input id="package-index" type="url" placeholder="PyPI (online)" bind:value=settings.package_index />
        </div>
        <div class="field">
            <label for="wheels">"Wheels for offline use (.whl)"</label>
            <input id="wheels" type="file" multiple accept=".whl" on:change=add_wheels />
            <p class="error small" role="alert" hidden=move || wheel_error.with(String::is_empty)>{move || wheel_error.get()}</p>
            <ul id="wheel-list" class="small">
                {move || settings.wheels.get().into_iter().map(|w| {
                    let name = w.name.clone();
                    let remove = move |_| settings.wheels.update(|list| list.retain(|x| x.name != name));
                    view! {
                        <li>{format!("{} ({} KB) ", w.name, w.bytes.len().div_ceil(1024))}
                            <button class="link small" on:click=remove>"remove"</button></li>
                    }
                }).collect_view()}
            </ul>
        </div>
        <button id="start-python" class="secondary" on:click=start disabled=starting>"Start Python now"</button>
        <StatusView status=status />
    }
}

/// What set-up reported, or what Python is doing.
#[component]
fn StatusView(status: ArcRwSignal<PythonStatus>) -> impl IntoView {
    move || match status.get() {
        PythonStatus::NotStarted => {
            view! { <p id="python-status" class="muted small" aria-live="polite">"Loads at the first run."</p> }
                .into_any()
        }
        PythonStatus::Starting => view! {
            <p id="python-status" class="muted small" aria-live="polite">
                <span class="spinner" aria-hidden="true"></span>"Loading Python and installing packages…"
            </p>
        }
        .into_any(),
        PythonStatus::Failed(e) => view! { <p id="python-status" class="error small" role="alert">{e}</p> }.into_any(),
        PythonStatus::Ready(info) => {
            let installed = info.installed.iter().map(|p| format!("{} {}", p.name, p.version)).collect::<Vec<_>>();
            view! {
                <div id="python-status" class="small" aria-live="polite">
                    <p class="ok">{format!("Python {} (Pyodide {}) ready in {:.1} s.", info.python, info.pyodide, info.ms / 1000.0)}</p>
                    {(!installed.is_empty()).then(|| view! {
                        <p id="python-installed">"Installed: " {installed.join(", ")}</p>
                    })}
                    {(!info.failed.is_empty()).then(|| view! {
                        <div id="python-not-installed" class="error" role="alert">
                            <p>"Could not install:"</p>
                            <ul>{info.failed.iter().map(|f| view! {
                                <li><code>{f.requirement.clone()}</code>": " {f.reason.clone()}</li>
                            }).collect_view()}</ul>
                        </div>
                    })}
                </div>
            }
            .into_any()
        }
    }
}
