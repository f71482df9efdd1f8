//! The explorer's file view: a file of the loaded repository with the focused lines highlighted, scrolled to them;
//! a long file is shown around them only.

use leptos::html;
use leptos::prelude::*;

use crate::code_view::code_lines;
use crate::explorer_state::Focus;
use crate::state::AppState;

/// Files longer than this are shown around the highlighted lines only.
const MAX_SHOWN_LINES: u32 = 1500;
/// Lines shown before and after the highlighted ones, in a long file.
const CONTEXT_LINES: u32 = 200;

/// A file with the focused lines highlighted, scrolled to them.
#[component]
pub fn FileView(focus: RwSignal<Option<Focus>>) -> impl IntoView {
    let app = AppState::get();
    let scroller = NodeRef::<html::Div>::new();
    // Scroll the first highlighted line into view after each render.
    Effect::new(move |_| {
        focus.track();
        if let Some(el) = scroller.get() {
            leptos::task::spawn_local(scroll_to_hit(el));
        }
    });
    let body = move || {
        let Some(f) = focus.get() else {
            return view! { <p class="muted">"The code a search finds is shown here, in its file."</p> }.into_any();
        };
        let text = app.loaded.with(|l| l.as_ref().and_then(|l| l.repo.file(&f.path).map(str::to_string)));
        match text {
            Some(text) => view! { <FocusedFile focus=f text=text /> }.into_any(),
            None => view! { <p class="error">{format!("{} is not in the loaded repository.", f.path)}</p> }.into_any(),
        }
    };
    view! { <div id="explorer-file" class="file-view" node_ref=scroller tabindex="0" aria-label="File view">{body}</div> }
}

/// Scrolls the file view to its first highlighted line (to the top when none is), once it rendered.
async fn scroll_to_hit(el: web_sys::HtmlDivElement) {
    crate::browser::yield_now().await;
    if let Ok(Some(hit)) = el.query_selector(".cl.hit") {
        use wasm_bindgen::JsCast;
        if let Ok(hit) = hit.dyn_into::<web_sys::HtmlElement>() {
            el.set_scroll_top((hit.offset_top() - 48).max(0));
        }
    } else {
        el.set_scroll_top(0);
    }
}

/// A file's head (its path, the focused lines, the part shown) and its lines.
#[component]
fn FocusedFile(focus: Focus, text: String) -> impl IntoView {
    let Focus { path, start, end, needle } = focus;
    let total = text.lines().count() as u32;
    let (from, to) = shown_lines(total, start, end);
    let shown = lines_between(&text, from, to);
    let note = (from > 1 || to < total).then(|| format!("Showing lines {from}-{to} of {total}."));
    view! {
        <div class="file-head">
            <code id="explorer-file-path">{path}</code>
            {(start > 0).then(|| view! { <span class="muted small">{format!(" lines {start}-{end}")}</span> })}
            {note.map(|n| view! { <span class="muted small">" " {n}</span> })}
        </div>
        {code_lines(&shown, from, &|n| start > 0 && n >= start && n <= end, needle.as_deref())}
    }
}

/// The lines shown of a file of `total` lines focused on `start..=end` (`start` 0: no focus): all of a short file,
/// a window around the focus in a long one, the beginning of a long one without focus.
fn shown_lines(total: u32, start: u32, end: u32) -> (u32, u32) {
    if total > MAX_SHOWN_LINES && start > 0 {
        (start.saturating_sub(CONTEXT_LINES).max(1), (end + CONTEXT_LINES).min(total))
    } else {
        (1, total.min(MAX_SHOWN_LINES.max(1)))
    }
}

/// Lines `from..=to` (1-based) of a text, each ended by a newline.
fn lines_between(text: &str, from: u32, to: u32) -> String {
    text.lines()
        .skip((from - 1) as usize)
        .take((to + 1).saturating_sub(from) as usize)
        .map(|l| format!("{l}\n"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_files_are_shown_whole_and_long_ones_around_the_focus() {
        assert_eq!(shown_lines(40, 10, 12), (1, 40));
        assert_eq!(shown_lines(5000, 1000, 1010), (800, 1210));
        assert_eq!(shown_lines(5000, 100, 4990), (1, 5000));
        assert_eq!(shown_lines(5000, 0, 0), (1, MAX_SHOWN_LINES));
    }

    #[test]
    fn lines_are_cut_out_with_their_newlines() {
        assert_eq!(lines_between("a\nb\nc\nd", 2, 3), "b\nc\n");
        assert_eq!(lines_between("a\nb", 1, 2), "a\nb\n");
        assert_eq!(lines_between("", 1, 0), "");
    }
}
