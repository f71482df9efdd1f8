//! Fitting a request into the model's context window.
//!
//! Servers differ in what they do with a prompt longer than their context: most refuse it with a 400, Ollama cuts
//! its start silently and answers as if nothing happened (see `acr serve-model --dialect`). So the agent never sends
//! a request that does not fit: before every request, [`fit`] estimates its size (the one estimator,
//! [`super::estimate`], plus room for the answer) and, while it is too long, replaces the oldest search results of the
//! conversation with a short note naming the calls left out, which the model reads in their place. The system
//! prompt, the issue and the latest message are never touched. When even that is not enough, the request is not sent
//! and the run ends with [`TooLong`].

use std::fmt;

use serde::{Deserialize, Serialize};

use super::{ChatRequest, estimate};
use crate::prompt::text;

/// Tokens kept free for the answer when a request does not say how long it may be.
pub const ANSWER_RESERVE: u64 = 1_024;

/// A request that does not fit the window even with every older search result left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TooLong {
    /// Estimated tokens the request needs, its answer included.
    pub needed: u64,
    /// The context window, in tokens.
    pub window: u64,
}

impl fmt::Display for TooLong {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the request needs about {} tokens with its answer, more than the model's context window of {} even with \
             the older search results left out (give the model a larger window)",
            self.needed, self.window
        )
    }
}

/// Estimated tokens a request needs: its messages, the tools it offers, and room for its answer.
pub fn needed(request: &ChatRequest) -> u64 {
    estimate::request_tokens(request) + request.max_tokens.map_or(ANSWER_RESERVE, u64::from)
}

/// Shortens `request` to fit `window` tokens by replacing its oldest search results with notes; returns the note of
/// each message replaced (nothing when it already fits).
pub fn fit(request: &mut ChatRequest, window: u64) -> Result<Vec<String>, TooLong> {
    let mut notes = Vec::new();
    let last = request.messages.len().saturating_sub(1);
    // The system prompt and the issue come first; the message being sent is the last.
    let candidates: Vec<usize> =
        (2..last).filter(|&i| text::results_calls(&request.messages[i].content).is_some()).collect();
    let mut candidates = candidates.into_iter();
    while needed(request) > window {
        let Some(i) = candidates.next() else {
            return Err(TooLong { needed: needed(request), window });
        };
        let calls = text::results_calls(&request.messages[i].content).unwrap_or_default();
        let note = text::results_left_out(&calls);
        request.messages[i].content = note.clone();
        notes.push(note);
    }
    Ok(notes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::{Message, Stage};

    fn results(call: &str, size: usize) -> Message {
        Message::user(format!("Result of {call}:\n\n{}\n\n", "x".repeat(size)))
    }

    fn conversation() -> ChatRequest {
        ChatRequest::new(
            Stage::Decide,
            vec![
                Message::system("You fix bugs."),
                Message::user("The issue: totals are wrong."),
                Message::assistant("search_class(\"Cart\")"),
                results("search_class(\"Cart\")", 4_000),
                Message::assistant("Cart sums prices."),
                results("search_method_in_class(\"total\", \"Cart\")", 4_000),
                Message::user("Where is the bug?"),
            ],
        )
    }

    #[test]
    fn a_request_that_fits_is_left_alone() {
        let mut request = conversation();
        let before = request.clone();
        assert_eq!(fit(&mut request, 100_000), Ok(vec![]));
        assert_eq!(request, before);
    }

    #[test]
    fn the_oldest_results_go_first_and_the_rest_stays() {
        let mut request = conversation();
        let window = needed(&request) - 500;
        let notes = fit(&mut request, window).unwrap();
        assert_eq!(notes.len(), 1, "one result block was enough");
        assert!(request.messages[3].content.contains("search_class(\"Cart\")"));
        assert!(!request.messages[3].content.contains("xxx"), "the oldest results were replaced");
        assert!(request.messages[5].content.starts_with("Result of"), "the newer results stay");
        assert_eq!(request.messages[0].content, "You fix bugs.");
        assert_eq!(request.messages[1].content, "The issue: totals are wrong.");
        assert_eq!(request.messages[6].content, "Where is the bug?");
        assert!(needed(&request) <= window);
        // What the model reads: every message whole, but for the long results (their first line).
        let shown: Vec<String> = request
            .messages
            .iter()
            .map(|m| match m.content.len() > 300 {
                true => format!("{:?}: {} [...]", m.role, m.content.lines().next().unwrap_or("")),
                false => format!("{:?}: {}", m.role, m.content),
            })
            .collect();
        insta::assert_snapshot!("trimmed_conversation", shown.join("\n---\n"));
    }

    #[test]
    fn a_request_too_long_without_its_results_is_not_sent() {
        let mut request = conversation();
        let err = fit(&mut request, 200).unwrap_err();
        assert_eq!(err.window, 200);
        assert!(err.needed > 200 && err.needed < needed(&conversation()), "both result blocks were left out first");
        assert!(err.to_string().contains("context window of 200"), "{err}");
    }

    #[test]
    fn the_answer_gets_room_too() {
        let mut request = ChatRequest::new(Stage::Patch, vec![Message::user("short")]);
        assert_eq!(needed(&request), estimate::prompt_tokens(&request.messages) + ANSWER_RESERVE);
        request.max_tokens = Some(10);
        assert_eq!(needed(&request), estimate::prompt_tokens(&request.messages) + 10);
    }

    /// The search APIs offered as tools take room too: a window the conversation fits without them leaves the
    /// oldest results out once they are offered.
    #[test]
    fn offered_tools_count_against_the_window() {
        let plain = conversation();
        let mut with_tools = ChatRequest { tools: crate::llm::Tool::search_apis(), ..conversation() };
        let tools = needed(&with_tools) - needed(&plain);
        assert!(tools > 500, "the nine definitions cost {tools} tokens");
        let window = needed(&plain);
        assert!(fit(&mut plain.clone(), window).unwrap().is_empty(), "fits without tools");
        match fit(&mut with_tools, window) {
            Ok(notes) => assert!(!notes.is_empty(), "results were left out to make room for the tools"),
            Err(too_long) => assert!(too_long.needed > window),
        }
    }
}
