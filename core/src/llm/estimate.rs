//! The one token estimator: about four characters a token.
//!
//! Used wherever a size must be known before the server says it: budget checks before each request
//! ([`super::budget`]), answers from servers that send no `usage`, and the scripted model's counts. Four characters a
//! token is close for English prose and code with GPT-style tokenizers (code with much indentation comes out
//! higher, other scripts lower); every message also costs a few tokens of framing. Estimates are rounded up, so a
//! budget check errs on the side of stopping early. Fitting a request to a context window asks for more care,
//! since a prompt over it is refused or, by Ollama, cut silently: until the server has counted a prompt, the window
//! takes code's three characters a token ([`super::window::UNCOUNTED_SCALE`]), then the server's own ratio.

use super::{ChatRequest, ChatResponse, Message, Usage};

/// Characters counted as one token.
pub const CHARS_PER_TOKEN: u64 = 4;

/// Tokens of framing added for each message (role, separators).
pub const TOKENS_PER_MESSAGE: u64 = 4;

/// Estimated tokens of a text.
pub fn tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(CHARS_PER_TOKEN)
}

/// Estimated tokens of a conversation as sent: each message's text and the tool calls it carries.
pub fn prompt_tokens(messages: &[Message]) -> u64 {
    messages
        .iter()
        .map(|m| {
            let calls: u64 = m.tool_calls.iter().map(|c| tokens(&c.name) + tokens(&c.arguments)).sum();
            tokens(&m.content) + calls + TOKENS_PER_MESSAGE
        })
        .sum()
}

/// Estimated tokens of a request's prompt: its conversation and the definitions of the tools it offers (the nine
/// search APIs cost about 770 tokens, which a small context window must make room for).
pub fn request_tokens(request: &ChatRequest) -> u64 {
    let tools: u64 = request.tools.iter().map(|t| tokens(&t.to_json().to_string())).sum();
    prompt_tokens(&request.messages) + tools
}

/// Estimated usage of one exchange: the request's prompt in, the answer (its thinking and tool calls) out.
pub fn usage(request: &ChatRequest, answer: &ChatResponse) -> Usage {
    let thinking = answer.reasoning.as_deref().map_or(0, tokens);
    let calls: u64 = answer.tool_calls.iter().map(|c| tokens(&c.name) + tokens(&c.arguments)).sum();
    Usage { prompt_tokens: request_tokens(request), completion_tokens: tokens(&answer.content) + thinking + calls }
}

/// Puts an estimate in place of the usage when the server sent none, and marks it as estimated.
pub fn fill_missing_usage(answer: &mut ChatResponse, request: &ChatRequest) {
    if answer.usage == Usage::default() {
        answer.usage = usage(request, answer);
        answer.usage_estimated = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::Stage;

    #[test]
    fn four_characters_a_token_rounded_up() {
        assert_eq!(tokens(""), 0);
        assert_eq!(tokens("abcd"), 1);
        assert_eq!(tokens("abcde"), 2);
        assert_eq!(tokens("éééé"), 1, "characters, not bytes");
        assert_eq!(prompt_tokens(&[Message::system("abcd"), Message::user("")]), 1 + 2 * TOKENS_PER_MESSAGE);
    }

    #[test]
    fn missing_usage_is_estimated_and_marked() {
        let request = ChatRequest::new(Stage::Search, vec![Message::user("x".repeat(40))]);
        let mut answer = ChatResponse::new("y".repeat(8).as_str(), Usage::default(), None);
        fill_missing_usage(&mut answer, &request);
        assert_eq!(answer.usage, Usage { prompt_tokens: 10 + TOKENS_PER_MESSAGE, completion_tokens: 2 });
        assert!(answer.usage_estimated);
        let mut reported = ChatResponse::new("y", Usage { prompt_tokens: 7, completion_tokens: 1 }, None);
        fill_missing_usage(&mut reported, &request);
        assert_eq!(reported.usage.prompt_tokens, 7);
        assert!(!reported.usage_estimated);
    }
}
