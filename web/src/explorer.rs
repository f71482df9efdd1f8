//! The search explorer: pick one of the search APIs, fill in its arguments (or type the call), and see exactly the
//! text the model would read, with the code it found highlighted in a file view. Search calls in the transcript
//! and files in the file tree open here. The form ([`crate::explorer_form`]), the answer
//! ([`crate::explorer_answer`]) and the file view ([`crate::file_view`]) share the explorer's state
//! ([`crate::explorer_state::Explorer`]); this module only puts them together.

use leptos::prelude::*;

use crate::explorer_answer::AnswerView;
use crate::explorer_form::ExplorerForm;
use crate::explorer_state::Explorer;
use crate::file_view::FileView;
use crate::state::AppState;

/// The explorer panel.
#[component]
pub fn ExplorerView() -> impl IntoView {
    let app = AppState::get();
    let explorer = Explorer::new(app);
    // Requests from the transcript and the file tree.
    Effect::new(move |_| {
        if let Some(request) = app.explore.get() {
            explorer.follow(request);
        }
    });
    view! {
        <div class="explorer">
            <ExplorerForm explorer=explorer />
            <div class="explorer-out">
                <AnswerView explorer=explorer />
                <FileView focus=explorer.focus />
            </div>
        </div>
    }
}
