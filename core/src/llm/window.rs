//! Fitting a request into the model's context window, and learning that window from the server.
//!
//! Servers differ in what they do with a prompt longer than their context: most refuse it with a 400, Ollama cuts
//! its start silently and answers as if nothing happened (see `acr serve-model --dialect`). So the agent keeps a
//! [`Window`]: the size the user gave, the server published (llama.cpp's `/props`), or a refusal named
//! ([`Overflow::read`], which reads the prompt's own size, never the prompt and answer together), and how many
//! tokens the server counts for each token of the one estimator ([`super::estimate`]), learned from the usage it
//! reports; until the server has counted a prompt, estimates carry a margin ([`UNCOUNTED_SCALE`]: three characters
//! a token, as code runs).
//!
//! Before every request [`fit`] estimates its size and, while the prompt leaves too little room for an answer,
//! replaces the oldest search results of the conversation with a short note naming the calls left out, which the
//! model reads in their place. When that is not enough (a small window, and a long answer the next request must
//! quote), the longest message after the system prompt loses its middle, with a note where it was, and then the
//! oldest exchanges go whole (a model's turn with the results of the tools it called), until the request fits. The
//! answer gets the room that is left, up to its stage's cap, so a request the server would accept is never refused
//! here. When even that is not enough, the request is not sent and the run ends with [`TooLong`].

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{ChatRequest, Role, estimate};
use crate::prompt::text;

/// Tokens of answer worth leaving older results out for: while a request leaves less room than this (or than its
/// stage's cap, if smaller), its oldest search results are replaced by notes.
pub const ROOMY_ANSWER: u64 = 512;
/// Fewest tokens of answer a request is sent with, once no older results are left to leave out.
pub const MIN_ANSWER: u64 = 128;

/// A request that does not fit the window even with every older search result left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TooLong {
    /// Estimated tokens the request needs, with the least room for its answer.
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

/// A prompt the server refused as longer than its context window, with what the refusal said of the sizes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Overflow {
    /// The window the server named, in tokens.
    pub window: Option<u64>,
    /// The prompt's size as the server counted it, when the refusal names it apart from the answer.
    pub prompt_tokens: Option<u64>,
    /// The prompt and the answer's cap together, when that sum is all the refusal names ("you requested N tokens").
    #[serde(default)]
    pub requested_tokens: Option<u64>,
    /// The server's message.
    pub message: String,
}

impl fmt::Display for Overflow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.window {
            Some(w) => {
                write!(f, "the prompt is longer than the model's context window of {w} tokens: {}", self.message)
            }
            None => write!(f, "the prompt is longer than the model's context window: {}", self.message),
        }
    }
}

impl Overflow {
    /// Reads a refusal for a prompt over the window, from any server: llama.cpp's `exceed_context_size_error`
    /// (`n_ctx`, `n_prompt_tokens`), OpenAI's `context_length_exceeded`, vLLM's and LiteLLM's "maximum context
    /// length is N tokens", LM Studio's "context length of N"; `None` for any other answer.
    pub fn read(status: u16, body: &str, message: &str) -> Option<Overflow> {
        if !(400..500).contains(&status) && status != 500 {
            return None;
        }
        let lower = message.to_ascii_lowercase();
        let json: Option<Value> = serde_json::from_str(body).ok();
        let error = json.as_ref().map(|v| v.get("error").unwrap_or(v));
        let field = |k: &str| error.and_then(|e| e.get(k)).and_then(Value::as_u64);
        let kind = |k: &str| error.and_then(|e| e.get(k)).and_then(Value::as_str).unwrap_or("").to_ascii_lowercase();
        let about_context = ["exceed_context_size", "context_length_exceeded", "contextwindowexceeded"]
            .iter()
            .any(|k| kind("type").contains(k) || kind("code").contains(k) || lower.contains(k))
            || ["context length", "context size", "context window", "maximum context", "n_ctx", "too many tokens"]
                .iter()
                .any(|k| lower.contains(k));
        if !about_context {
            return None;
        }
        let window = field("n_ctx").or_else(|| {
            ["maximum context length is ", "context length of ", "context size (", "context window of "]
                .iter()
                .find_map(|k| number_after(&lower, k).map(|(n, _)| n))
        });
        let (prompt, requested) = sizes(&lower);
        Some(Overflow {
            window,
            prompt_tokens: field("n_prompt_tokens").or(prompt),
            requested_tokens: requested,
            message: message.to_string(),
        })
    }

    /// The prompt's size as the server counted it: as the refusal named it, or else the sum it named less
    /// `answer_cap`, the answer's `max_tokens` the request carried.
    pub fn prompt_size(&self, answer_cap: u64) -> Option<u64> {
        self.prompt_tokens.or_else(|| self.requested_tokens?.checked_sub(answer_cap).filter(|&n| n > 0))
    }
}

/// The sizes a refusal's words (lower case) name: the prompt's alone, and the sum of prompt and answer.
///
/// The prompt alone: "your request has N input tokens" and "your prompt contains at least N input tokens" (vLLM),
/// "your messages resulted in N tokens" (OpenAI), "request (N tokens)" (llama.cpp), the first number in the brackets
/// after "you requested T tokens (N in the messages, …)" (vLLM, OpenAI; OpenRouter's "(N of text input, …)"), and
/// older vLLM's "you requested N tokens in the messages". "You requested N output tokens" is the answer's cap, and a
/// bare "you requested N tokens" the sum.
fn sizes(lower: &str) -> (Option<u64>, Option<u64>) {
    let named = ["your request has ", "prompt contains at least ", "resulted in ", "request (", "prompt has "]
        .iter()
        .find_map(|k| number_after(lower, k).map(|(n, _)| n));
    if named.is_some() {
        return (named, None);
    }
    let Some((total, rest)) = number_after(lower, "you requested ") else { return (None, None) };
    if let Some(bracket) = rest.strip_prefix(" tokens (") {
        return (number_after(bracket, "").map(|(n, _)| n), Some(total));
    }
    if rest.starts_with(" tokens in the messages") {
        return (Some(total), None);
    }
    if rest.starts_with(" tokens") { (None, Some(total)) } else { (None, None) }
}

/// The number that follows `key` in `text` within a word or two ("context length of only 4096"), digits with `,`
/// thousands separators, and the text after it.
fn number_after<'t>(text: &'t str, key: &str) -> Option<(u64, &'t str)> {
    let rest = &text[text.find(key)? + key.len()..];
    let skip = rest.find(|c: char| c.is_ascii_digit()).filter(|&at| at <= 8)?;
    let rest = &rest[skip..];
    let end = rest.find(|c: char| !c.is_ascii_digit() && c != ',').unwrap_or(rest.len());
    let digits: String = rest[..end].chars().filter(char::is_ascii_digit).collect();
    digits.parse().ok().filter(|&n| n > 0).map(|n| (n, &rest[end..]))
}

/// Server tokens per estimated token taken until the server has counted a prompt: code runs about three characters
/// a token where the estimator counts four, so a request is fitted as if it were all code. SmolLM2's tokenizer (the
/// real-server tests' model) counts 3.2 to 3.7 characters a token on this project's README, the demo repository,
/// the core's Rust sources and CPython's standard library; three characters a token covers them all, at the cost of
/// an answer a quarter shorter than it could be on the first requests.
pub const UNCOUNTED_SCALE: f64 = 4.0 / 3.0;

/// Share added to the largest ratio the server has counted, as requests are fitted: the ratio of one prompt is not
/// the next one's. Over nine SmolLM2 runs on the demo repository (window 1024, the ratio printed for every request
/// the server counted), a prompt's ratio exceeded the largest of the run's earlier prompts by up to 10.5% (a proxy
/// request, its prose and JSON, after search requests); a prompt counted 16% over its fitted size once in CI.
pub const COUNTED_MARGIN: f64 = 0.15;

/// What the agent knows of the model's context window.
///
/// The rule for sizes: until the server has reported how many tokens a prompt took, a request's estimate is
/// taken with the margin [`UNCOUNTED_SCALE`]; once it has, the largest ratio of the server's count to the estimate
/// so far, with [`COUNTED_MARGIN`], replaces it ([`Window::learn_scale`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Window {
    /// The window, in tokens as the server counts them; `u64::MAX` while only the server's count is known.
    pub tokens: u64,
    /// Server tokens per estimated token: the largest ratio of the prompts the server counted; `None` until then.
    pub scale: Option<f64>,
}

impl Window {
    /// A window of `tokens`, with no count of the server's learned yet.
    pub fn new(tokens: u64) -> Window {
        Window { tokens, scale: None }
    }

    /// A window whose size is not known yet, holding what is learned of the server's count meanwhile.
    pub fn unknown() -> Window {
        Window::new(u64::MAX)
    }

    /// A request's prompt in the server's tokens as a request is fitted: the estimate at the learned scale, or with
    /// the margin while the server has counted nothing.
    pub fn prompt_tokens(&self, request: &ChatRequest) -> u64 {
        scaled(estimate::request_tokens(request), self.fitting_scale())
    }

    /// A request's prompt in the server's tokens as best known, without the margin: what the notes name and what a
    /// server's count is compared with.
    pub fn likely_tokens(&self, request: &ChatRequest) -> u64 {
        scaled(estimate::request_tokens(request), self.scale.unwrap_or(1.0))
    }

    /// Learns how the server counts from a prompt it measured (`reported` tokens for a request estimated at
    /// `estimated`): the scale is the largest ratio seen, so a denser prompt is never fitted by a sparser one's
    /// count. Ratios far from one are taken only within reason: a tokenizer counts code and prose within about a
    /// factor of two of four characters a token.
    pub fn learn_scale(&mut self, estimated: u64, reported: u64) {
        if estimated >= 32 && reported > 0 {
            let ratio = (reported as f64 / estimated as f64).clamp(0.5, 2.5);
            self.scale = Some(self.scale.map_or(ratio, |seen| seen.max(ratio)));
        }
    }

    /// Server tokens per estimated token, as requests are fitted: the margin until the server has counted, then
    /// its largest ratio with [`COUNTED_MARGIN`].
    fn fitting_scale(&self) -> f64 {
        self.scale.map_or(UNCOUNTED_SCALE, |s| s * (1.0 + COUNTED_MARGIN))
    }
}

/// `tokens` times `scale`, rounded up.
fn scaled(tokens: u64, scale: f64) -> u64 {
    (tokens as f64 * scale).ceil() as u64
}

/// Estimated tokens a request needs at least: its messages, the tools it offers, and [`MIN_ANSWER`].
pub fn needed(request: &ChatRequest, window: &Window) -> u64 {
    with_answer(request, window, MIN_ANSWER)
}

/// Estimated tokens of a request's prompt and an answer of up to `answer` tokens (or its cap, if smaller).
fn with_answer(request: &ChatRequest, window: &Window, answer: u64) -> u64 {
    window.prompt_tokens(request) + answer.min(u64::from(request.answer_cap()))
}

/// Shortens `request` to fit `window` by replacing its oldest search results with notes, and caps its answer at the
/// room left (at most the stage's cap); returns the note of each message replaced (nothing when it already fits).
pub fn fit(request: &mut ChatRequest, window: &Window) -> Result<Vec<String>, TooLong> {
    let mut notes = Vec::new();
    let last = request.messages.len().saturating_sub(1);
    // The system prompt and the issue come first; the message being sent is the last.
    let candidates: Vec<usize> =
        (2..last).filter(|&i| text::results_calls(&request.messages[i].content).is_some()).collect();
    let mut candidates = candidates.into_iter();
    while with_answer(request, window, ROOMY_ANSWER) > window.tokens {
        let Some(i) = candidates.next() else { break };
        let calls = text::results_calls(&request.messages[i].content).unwrap_or_default();
        let note = text::results_left_out(&calls);
        request.messages[i].content = note.clone();
        notes.push(note);
    }
    while needed(request, window) > window.tokens {
        let Some(note) = shorten_longest(request, window).or_else(|| drop_oldest_exchange(request)) else {
            return Err(TooLong { needed: needed(request, window), window: window.tokens });
        };
        notes.push(note);
    }
    let room = window.tokens - window.prompt_tokens(request);
    if room < u64::from(request.answer_cap()) {
        request.max_tokens = Some(room as u32);
    }
    Ok(notes)
}

/// Messages shorter than this are never shortened: what is left of them would say nothing.
const SHORTEST_SHORTENED: usize = 400;

/// Takes the middle out of the longest message after the system prompt, as much as the request is over the window
/// (and a little more), keeping the message's start and end; returns the transcript's note, or `None` when no
/// message is long enough to shorten.
fn shorten_longest(request: &mut ChatRequest, window: &Window) -> Option<String> {
    let over = needed(request, window).saturating_sub(window.tokens) + 16;
    let chars_over = (over as f64 / window.fitting_scale() * estimate::CHARS_PER_TOKEN as f64).ceil() as usize;
    let (i, message) = request.messages.iter_mut().enumerate().skip(1).max_by_key(|(_, m)| m.content.len())?;
    let length = message.content.chars().count();
    if length < SHORTEST_SHORTENED {
        return None;
    }
    let mut cut = (chars_over + text::middle_left_out(chars_over).len()).min(length - SHORTEST_SHORTENED / 2);
    if cut == 0 {
        return None;
    }
    let keep = length - cut;
    let head: String = message.content.chars().take(keep / 2).collect();
    let tail: String = message.content.chars().skip(keep / 2 + cut).collect();
    cut = length - head.chars().count() - tail.chars().count();
    message.content = format!("{head}{}{tail}", text::middle_left_out(cut));
    Some(format!("message {} of the request lost {cut} characters from its middle to fit the context window", i + 1))
}

/// Leaves out the oldest exchange after the issue, whole: a model's turn, the results of the tools it called, and
/// the messages that followed until its next turn. Roles still alternate, and no `tool` message is left without the
/// call it answers (servers refuse such a conversation: [`super::tools::unpaired`]). Says so at the end of the
/// issue's message; `None` when only the issue and the last exchange are left.
fn drop_oldest_exchange(request: &mut ChatRequest) -> Option<String> {
    let first = 2;
    let next = (first + 1..request.messages.len()).find(|&i| request.messages[i].role == Role::Assistant)?;
    if next + 1 >= request.messages.len() {
        return None;
    }
    request.messages.drain(first..next);
    let note = text::exchanges_left_out();
    let issue = &mut request.messages[first - 1].content;
    if !issue.ends_with(&note) {
        issue.push_str(&note);
    }
    Some("the oldest exchange of the conversation was left out to fit the context window".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::{Message, Stage, ToolCall, tools};

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

    /// A window whose server counts as the estimator does (the margin of an uncounted window has its own test).
    fn plain(tokens: u64) -> Window {
        Window { tokens, scale: Some(1.0) }
    }

    #[test]
    fn a_request_that_fits_is_left_alone() {
        let mut request = conversation();
        let before = request.clone();
        assert_eq!(fit(&mut request, &plain(100_000)), Ok(vec![]));
        assert_eq!(request, before);
    }

    #[test]
    fn the_oldest_results_go_first_and_the_rest_stays() {
        let mut request = conversation();
        let window = with_answer(&request, &plain(0), ROOMY_ANSWER) - 500;
        let notes = fit(&mut request, &plain(window)).unwrap();
        assert_eq!(notes.len(), 1, "one result block was enough");
        assert!(request.messages[3].content.contains("search_class(\"Cart\")"));
        assert!(!request.messages[3].content.contains("xxx"), "the oldest results were replaced");
        assert!(request.messages[5].content.starts_with("Result of"), "the newer results stay");
        assert_eq!(request.messages[0].content, "You fix bugs.");
        assert_eq!(request.messages[1].content, "The issue: totals are wrong.");
        assert_eq!(request.messages[6].content, "Where is the bug?");
        assert!(with_answer(&request, &plain(0), ROOMY_ANSWER) <= window);
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
        let err = fit(&mut request, &plain(200)).unwrap_err();
        assert_eq!(err.window, 200);
        assert!(
            err.needed > 200 && err.needed < needed(&conversation(), &plain(0)),
            "both result blocks were left out first"
        );
        assert!(err.to_string().contains("context window of 200"), "{err}");
    }

    /// The page refused a request that llama-server ran with a window of 1,024: it counted a whole answer reserve
    /// of 1,024 tokens on top of the prompt. The answer now gets the room that is left.
    #[test]
    fn the_answer_gets_the_room_that_is_left() {
        let mut request = ChatRequest::new(Stage::Patch, vec![Message::user("x".repeat(800))]);
        let prompt = plain(1_024).prompt_tokens(&request);
        assert_eq!(fit(&mut request, &plain(1_024)), Ok(vec![]));
        assert_eq!(request.max_tokens, Some((1_024 - prompt) as u32), "the answer is capped at the room left");
        let mut roomy = ChatRequest::new(Stage::Patch, vec![Message::user("short")]);
        fit(&mut roomy, &plain(100_000)).unwrap();
        assert_eq!(roomy.max_tokens, None, "the stage's own cap applies");
        let mut tiny = ChatRequest::new(Stage::Patch, vec![Message::user("x".repeat(4_000))]);
        assert!(fit(&mut tiny, &plain(100)).is_err(), "not even the shortened message and {MIN_ANSWER} tokens fit");
        let mut snug = ChatRequest::new(Stage::Patch, vec![Message::user("x".repeat(2_900))]);
        fit(&mut snug, &plain(1_024)).unwrap();
        assert!(snug.max_tokens.is_some_and(|m| u64::from(m) >= MIN_ANSWER && u64::from(m) < ROOMY_ANSWER));
    }

    /// A small window and a long answer the next request quotes (the proxy reading a rambling answer): the longest
    /// message loses its middle, keeping its start and end, rather than the run ending.
    #[test]
    fn a_long_message_loses_its_middle_when_nothing_else_is_left_out() {
        let long = format!("START {} END", "word ".repeat(1_000));
        let mut request = ChatRequest::new(
            Stage::Proxy,
            vec![Message::system("Turn the text into JSON."), Message::user(long.clone())],
        );
        let notes = fit(&mut request, &plain(1_024)).unwrap();
        assert_eq!(notes.len(), 1, "{notes:?}");
        let shortened = &request.messages[1].content;
        assert!(shortened.starts_with("START word") && shortened.ends_with("word  END"), "{shortened}");
        assert!(shortened.contains("characters of this message were left out"), "{shortened}");
        assert!(needed(&request, &plain(0)) <= 1_024);
        assert_eq!(request.messages[0].content, "Turn the text into JSON.");
    }

    /// A long conversation of short messages (search rounds that found nothing) loses its oldest exchanges, two
    /// messages at a time so that roles still alternate; the issue says that some were left out.
    #[test]
    fn the_oldest_exchanges_go_when_every_message_is_short() {
        let mut messages = vec![Message::system("You fix bugs."), Message::user("The issue: totals are wrong.")];
        for round in 0..40 {
            messages.push(Message::assistant(format!("I will look at round {round} of the cart code.")));
            messages.push(Message::user(format!("Round {round}: nothing found. Which API calls next?")));
        }
        let mut request = ChatRequest::new(Stage::Decide, messages);
        let notes = fit(&mut request, &plain(400)).unwrap();
        assert!(!notes.is_empty());
        let roles: Vec<_> = request.messages.iter().map(|m| m.role).collect();
        assert!(roles.windows(2).skip(1).all(|w| w[0] != w[1]), "roles alternate: {roles:?}");
        assert!(request.messages[1].content.contains("left out"), "{}", request.messages[1].content);
        assert!(request.messages.last().unwrap().content.starts_with("Round 39"), "the latest message stays");
        assert!(needed(&request, &plain(0)) <= 400);
    }

    /// A search conversation in tools mode: each round a model's turn with two tool calls, their two results, the
    /// request to analyse, the analysis, the next question.
    fn tools_conversation(rounds: usize) -> ChatRequest {
        let mut messages = vec![Message::system("You fix bugs."), Message::user("The issue: totals are wrong.")];
        for round in 0..rounds {
            let calls: Vec<ToolCall> = ["Cart", "Item"]
                .iter()
                .map(|class| ToolCall {
                    id: format!("call_{round}_{class}"),
                    name: "search_class".into(),
                    arguments: format!(r#"{{"class_name": "{class}"}}"#),
                })
                .collect();
            let results: Vec<Message> = calls
                .iter()
                .map(|c| Message::tool(c.id.clone(), format!("Result of {}:\n\n{}\n\n", c.as_text(), "x".repeat(300))))
                .collect();
            messages.push(Message { tool_calls: calls, ..Message::assistant("") });
            messages.extend(results);
            messages.push(Message::user("Analyse the results."));
            messages.push(Message::assistant(format!("Round {round}: the classes hold prices.")));
            messages.push(Message::user(format!("Round {round}: more context, or bug locations?")));
        }
        ChatRequest { tools: crate::llm::Tool::search_apis(), ..ChatRequest::new(Stage::Decide, messages) }
    }

    /// Leaving out the oldest exchange of a tools conversation takes the model's turn and all of its results: at
    /// every window from roomy to the smallest that still fits, no `tool` message is left without its call, no
    /// call without its result, and the roles of the other messages alternate.
    #[test]
    fn a_tools_conversation_loses_whole_exchanges() {
        let whole = tools_conversation(12);
        let full = needed(&whole, &plain(0));
        let mut dropped = 0;
        for window in (600..=full).rev().step_by(97) {
            let mut request = whole.clone();
            let Ok(notes) = fit(&mut request, &plain(window)) else { continue };
            dropped += notes.iter().filter(|n| n.contains("oldest exchange")).count();
            assert_eq!(tools::unpaired(&request.messages), None, "window {window}, {} notes", notes.len());
            let turns: Vec<Role> = request.messages.iter().map(|m| m.role).filter(|r| *r != Role::Tool).collect();
            assert!(turns.windows(2).skip(1).all(|w| w[0] != w[1]), "window {window}: {turns:?}");
            assert_eq!(request.messages.last(), whole.messages.last(), "the question asked stays");
        }
        assert!(dropped > 0, "some windows left exchanges out");
    }

    /// What the model reads of a tools conversation fitted to a small window: the issue says that earlier messages
    /// were left out, the oldest results kept are notes, and each turn that called tools is followed by its results.
    #[test]
    fn a_trimmed_tools_conversation_as_the_model_reads_it() {
        let mut request = tools_conversation(6);
        fit(&mut request, &plain(1_610)).unwrap();
        let shown: Vec<String> = request
            .messages
            .iter()
            .map(|m| {
                let calls: Vec<&str> = m.tool_calls.iter().map(|c| c.id.as_str()).collect();
                let id = m.tool_call_id.as_deref().map_or(String::new(), |id| format!(" ({id})"));
                let text = match m.content.len() > 300 {
                    true => format!("{} [...]", m.content.lines().next().unwrap_or("")),
                    false => m.content.split('\n').filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" / "),
                };
                match calls.is_empty() {
                    true => format!("{:?}{id}: {text}", m.role),
                    false => format!("{:?} calls {}", m.role, calls.join(", ")),
                }
            })
            .collect();
        insta::assert_snapshot!("trimmed_tools_conversation", shown.join("\n"));
    }

    /// What the model reads where a message lost its middle, and after the issue when exchanges were left out.
    #[test]
    fn notes_the_model_reads() {
        insta::assert_snapshot!(
            "left_out_notes",
            format!("{}---{}", text::middle_left_out(1234), text::exchanges_left_out())
        );
    }

    /// Code runs about three characters a token where the estimator counts four: until the server has counted a
    /// prompt, a request is fitted as a tokenizer that counts three characters a token would count it, so the first
    /// request does not overflow (Ollama would cut it silently); once the server has counted, its count with the
    /// smaller [`COUNTED_MARGIN`] replaces the margin and the answer gets the room the margin held back.
    #[test]
    fn until_the_server_counts_requests_are_fitted_with_a_margin() {
        let code = "        total += item.price_cents * units\n".repeat(80);
        let request = ChatRequest::new(Stage::Patch, vec![Message::system("Fix the bug."), Message::user(code)]);
        let as_code = |r: &ChatRequest| -> u64 {
            r.messages
                .iter()
                .map(|m| (m.content.chars().count() as u64).div_ceil(3) + estimate::TOKENS_PER_MESSAGE)
                .sum()
        };
        let window = Window::new(as_code(&request) + ROOMY_ANSWER);
        let mut first = request.clone();
        assert_eq!(fit(&mut first, &window), Ok(vec![]), "nothing is left out: the prompt fits");
        assert!(as_code(&first) + u64::from(first.answer_cap()) <= window.tokens, "the answer cap leaves room for it");
        let mut counted = window;
        counted.learn_scale(estimate::request_tokens(&request), estimate::request_tokens(&request));
        let mut later = request.clone();
        fit(&mut later, &counted).unwrap();
        let as_counted = (estimate::request_tokens(&request) as f64 * (1.0 + COUNTED_MARGIN)).ceil() as u64;
        assert_eq!(
            u64::from(later.answer_cap()),
            counted.tokens - as_counted,
            "counted as the estimate, the prompt with its margin leaves the rest to the answer"
        );
        assert!(later.answer_cap() > first.answer_cap(), "the answer gets more room once the server has counted");
    }

    #[test]
    fn the_scale_learned_from_the_server_counts() {
        let request = ChatRequest::new(Stage::Patch, vec![Message::user("x".repeat(4_000))]);
        let mut window = plain(2_000);
        assert!(fit(&mut request.clone(), &window).is_ok());
        window.learn_scale(estimate::request_tokens(&request), estimate::request_tokens(&request) * 2);
        assert_eq!(window.scale, Some(2.0));
        assert!(fit(&mut request.clone(), &window).is_err(), "the server counts twice as many tokens");
        window.learn_scale(estimate::request_tokens(&request), estimate::request_tokens(&request));
        assert_eq!(window.scale, Some(2.0), "a sparser prompt does not lower the largest ratio seen");
        let mut fresh = Window::new(2_000);
        fresh.learn_scale(100, 1);
        assert_eq!(fresh.scale, Some(0.5), "kept within reason");
    }

    #[test]
    fn refusals_of_every_server_name_the_window() {
        let llama = r#"{"error":{"code":400,"type":"exceed_context_size_error","n_prompt_tokens":10031,"n_ctx":8192,"message":"request (10031 tokens) exceeds the available context size (8192 tokens), try increasing it"}}"#;
        let openai = r#"{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9,001 tokens. Please reduce the length of the messages.","type":"invalid_request_error","code":"context_length_exceeded"}}"#;
        let vllm = r#"{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","code":400}"#;
        let litellm = r#"{"error":{"message":"litellm.ContextWindowExceededError: litellm.BadRequestError: ContextWindowExceededError: OpenAIException - This model's maximum context length is 2048 tokens.","type":null,"param":null,"code":"400"}}"#;
        let lmstudio = r#"{"error":"Trying to keep the first 5000 tokens when context the overflows. However, the model is loaded with context length of 4096 tokens, which is not enough."}"#;
        let cases =
            [(llama, Some(8192), Some(10031)), (openai, Some(8192), Some(9001)), (vllm, Some(4096), Some(4000))];
        for (body, window, prompt) in cases {
            let message = crate::llm::wire::error_message(body);
            let overflow = Overflow::read(400, body, &message).unwrap_or_else(|| panic!("{body}"));
            assert_eq!((overflow.window, overflow.prompt_size(1_000)), (window, prompt), "{body}");
        }
        for (body, window) in [(litellm, 2048), (lmstudio, 4096)] {
            let message = crate::llm::wire::error_message(body);
            assert_eq!(Overflow::read(400, body, &message).unwrap().window, Some(window), "{body}");
        }
        let other = r#"{"error":{"message":"unknown model m"}}"#;
        assert_eq!(Overflow::read(400, other, "unknown model m"), None);
    }

    /// vLLM's refusals over the years, each read for the prompt alone: the messages' part when the refusal gives it,
    /// the input tokens when it names them, never the total of prompt and answer that "you requested N tokens"
    /// names.
    #[test]
    fn vllms_refusals_are_read_for_the_prompt_alone() {
        let cases = [
            "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens (8000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
            "This model's maximum context length is 8192 tokens. However, you requested 8000 tokens in the messages, Please reduce the length of the messages.",
            "This model's maximum context length is 8192 tokens. However, your request has 8000 input tokens. Please reduce the length of the input messages.",
            "'max_tokens' or 'max_completion_tokens' is too large: 1000. This model's maximum context length is 8192 tokens and your request has 8000 input tokens (1000 > 8192 - 8000).",
            "This model's maximum context length is 8192 tokens. However, you requested 1000 output tokens and your prompt contains at least 8000 input tokens. Please reduce the length of the input prompt.",
        ];
        // Where the refusal names only the sum, the request's own cap is taken off it.
        let sum = "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens. Please reduce the length of the messages or completion.";
        for message in cases.into_iter().chain([sum]) {
            let body =
                serde_json::json!({"object": "error", "message": message, "type": "BadRequestError", "code": 400});
            let overflow = Overflow::read(400, &body.to_string(), message).unwrap_or_else(|| panic!("{message}"));
            assert_eq!((overflow.window, overflow.prompt_size(1_000)), (Some(8192), Some(8000)), "{message}");
        }
        let overflow = Overflow::read(400, sum, sum).unwrap();
        assert_eq!((overflow.prompt_tokens, overflow.prompt_size(9_000)), (None, None), "no size is better than 0");
    }

    /// The search APIs offered as tools take room too: a window the conversation fits without them leaves the
    /// oldest results out once they are offered.
    #[test]
    fn offered_tools_count_against_the_window() {
        let bare = conversation();
        let mut with_tools = ChatRequest { tools: crate::llm::Tool::search_apis(), ..conversation() };
        let tools = needed(&with_tools, &plain(0)) - needed(&bare, &plain(0));
        assert!(tools > 500, "the nine definitions cost {tools} tokens");
        let window = with_answer(&bare, &plain(0), ROOMY_ANSWER);
        assert!(fit(&mut bare.clone(), &plain(window)).unwrap().is_empty(), "fits without tools");
        match fit(&mut with_tools, &plain(window)) {
            Ok(notes) => assert!(!notes.is_empty(), "results were left out to make room for the tools"),
            Err(too_long) => assert!(too_long.needed > window),
        }
    }
}
