//! The explorer's answer: the call, whether it found anything, the text the model reads (alone, or as the message
//! of the conversation it comes in), and a link per piece of code found that shows it in the file view.

use acr_core::call::SearchCall;
use acr_core::search::SearchHit;
use leptos::prelude::*;

use crate::explorer_state::{Answer, Explorer, Focus, focus_on};

/// The last search's answer (nothing before the first).
#[component]
pub fn AnswerView(explorer: Explorer) -> impl IntoView {
    let wrapped = RwSignal::new(false);
    let (answer, focus) = (explorer.answer, explorer.focus);
    move || answer.get().map(|answer| view! { <SearchAnswer answer=answer wrapped=wrapped focus=focus /> })
}

/// A search's answer: its call and verdict, its text, and its hits.
#[component]
fn SearchAnswer(answer: Answer, wrapped: RwSignal<bool>, focus: RwSignal<Option<Focus>>) -> impl IntoView {
    let Answer { call, output, needle } = answer;
    let ok = output.ok;
    let (shown_call, text) = (call.clone(), output.text);
    view! {
        <div class="row">
            <code class="call">{shown_call}</code>
            <span class="pill" class:good=ok class:bad=!ok>
                {if ok { "found" } else { "nothing found" }}
            </span>
            <span class="spacer"></span>
            <label class="check small">
                <input type="checkbox" bind:checked=wrapped />" as a message in the conversation"
            </label>
        </div>
        <pre id="explorer-output" class="text">{move || as_read(&call, &text, wrapped.get())}</pre>
        <HitList hits=output.results needle=needle focus=focus />
    }
}

/// The links to the code found (nothing when none was).
#[component]
fn HitList(hits: Vec<SearchHit>, needle: Option<String>, focus: RwSignal<Option<Focus>>) -> impl IntoView {
    (!hits.is_empty()).then(|| {
        view! {
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
        }
    })
}

/// The text of a call's answer as the model reads it: alone, or `wrapped` in the message it comes in.
fn as_read(call: &str, text: &str, wrapped: bool) -> String {
    let call = if wrapped { SearchCall::parse(call).ok() } else { None };
    match call {
        Some(c) => acr_core::prompt::text::call_results(&[(c, text.to_string())]),
        None => text.to_string(),
    }
}

/// A hit's link: where it is, and in which class or function.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hits_are_labelled_with_their_class_and_function() {
        let hit = |class: Option<&str>, func: Option<&str>| SearchHit {
            file: "a.py".into(),
            start: 1,
            end: 4,
            class: class.map(str::to_string),
            func: func.map(str::to_string),
        };
        assert_eq!(hit_label(&hit(Some("A"), Some("f"))), "a.py:1-4 (A.f)");
        assert_eq!(hit_label(&hit(Some("A"), None)), "a.py:1-4 (A)");
        assert_eq!(hit_label(&hit(None, Some("f"))), "a.py:1-4 (f)");
        assert_eq!(hit_label(&hit(None, None)), "a.py:1-4");
    }

    #[test]
    fn an_answer_reads_alone_or_in_its_message() {
        let call = "search_class(\"Cart\")";
        assert_eq!(as_read(call, "found it", false), "found it");
        assert!(as_read(call, "found it", true).contains("found it"));
        assert_ne!(as_read(call, "found it", true), "found it");
        // A call that cannot be read again is shown alone.
        assert_eq!(as_read("not a call", "found it", true), "found it");
    }
}
