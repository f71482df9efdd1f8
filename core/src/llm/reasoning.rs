//! Reasoning models: separating what a model thought from what it answered.
//!
//! Reasoning models (Qwen3, DeepSeek-R1 and their distillations, served by Ollama, vLLM or llama.cpp) return their
//! thinking in one of three shapes:
//!
//! | shape | example |
//! |-------|---------|
//! | a separate field | `"reasoning_content": "..."` (vLLM, DeepSeek) or `"reasoning": "..."` (Ollama, OpenRouter) |
//! | a tagged block in the content | `"<think>draft...</think>\n\nThe answer"` |
//! | a block whose opening tag was in the prompt template | `"draft...</think>\n\nThe answer"` |
//!
//! and a block cut off by `max_tokens` never closes (`"<think>draft..."`). Thinking often contains draft search calls
//! and draft edits, so it must never reach the parsers: [`ChatResponse::new`] splits every answer here, once, for
//! every model, and the parsers only ever see [`ChatResponse::content`]. The thinking is kept in
//! [`ChatResponse::reasoning`] for the transcript.

use super::{ChatResponse, Usage};

/// Tags that delimit thinking inside an answer's text.
const TAGS: [(&str, &str); 2] = [("<think>", "</think>"), ("<thinking>", "</thinking>")];

/// An answer's text split into the answer proper and the thinking found in it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Separated {
    /// The text outside every thinking block, trimmed; the text exactly as given when it has no tags.
    pub answer: String,
    /// The thinking blocks' text, in order, each trimmed (empty blocks left out).
    pub thoughts: Vec<String>,
}

/// Splits thinking blocks out of an answer's text: closed blocks anywhere, a block closed without an opening tag at
/// the start (the template opened it), and a block left open at the end (the answer was cut off).
pub fn separate(text: &str) -> Separated {
    if !TAGS.iter().any(|(open, close)| text.contains(open) || text.contains(close)) {
        return Separated { answer: text.to_string(), thoughts: Vec::new() };
    }
    let mut answer = String::new();
    let mut thoughts = Vec::new();
    let mut pos = 0;
    // A closing tag before any opening tag: everything before it is thinking opened by the prompt template.
    if let Some((close, at)) = first_unopened_close(text) {
        thoughts.push(text[..at].to_string());
        pos = at + close.len();
    }
    // Where each kind of opening tag next occurs at or after `pos`: looked for again only once passed, so text
    // with thousands of blocks of one kind is still read in one pass (not once per block for the other kind).
    let find_from = |from: usize, open: &str| text[from..].find(open).map(|at| at + from);
    let mut next_open: Vec<Option<usize>> = TAGS.iter().map(|(open, _)| find_from(pos, open)).collect();
    loop {
        for (slot, (open, _)) in next_open.iter_mut().zip(TAGS) {
            if slot.is_some_and(|at| at < pos) {
                *slot = find_from(pos, open);
            }
        }
        let next = next_open.iter().zip(TAGS).filter_map(|(at, tags)| at.map(|at| (at, tags))).min();
        let Some((at, (open, close))) = next else {
            answer.push_str(&text[pos..]);
            break;
        };
        answer.push_str(&text[pos..at]);
        let inside = at + open.len();
        match find_from(inside, close) {
            Some(end) => {
                thoughts.push(text[inside..end].to_string());
                pos = end + close.len();
            }
            None => {
                thoughts.push(text[inside..].to_string());
                break;
            }
        }
    }
    let thoughts = thoughts.iter().map(|t| t.trim()).filter(|t| !t.is_empty()).map(str::to_string).collect();
    Separated { answer: answer.trim().to_string(), thoughts }
}

/// The closing tag that comes first in `text` with no opening tag before it, and where.
fn first_unopened_close(text: &str) -> Option<(&'static str, usize)> {
    let first_open = TAGS.iter().filter_map(|(open, _)| text.find(open)).min().unwrap_or(text.len());
    TAGS.iter()
        .filter_map(|&(_, close)| text.find(close).map(|at| (close, at)))
        .filter(|&(_, at)| at < first_open)
        .min_by_key(|&(_, at)| at)
}

impl ChatResponse {
    /// An answer as a server sent it: the text, the usage, and a separate reasoning field if there was one. Thinking
    /// blocks in the text move to [`ChatResponse::reasoning`] after the field's text, so nothing downstream parses
    /// them.
    pub fn new(text: &str, usage: Usage, reasoning_field: Option<String>) -> ChatResponse {
        let Separated { answer, thoughts } = separate(text);
        let parts: Vec<String> = reasoning_field
            .into_iter()
            .map(|r| r.trim().to_string())
            .filter(|r| !r.is_empty())
            .chain(thoughts)
            .collect();
        let reasoning = if parts.is_empty() { None } else { Some(parts.join("\n\n")) };
        ChatResponse { content: answer, usage, reasoning, usage_estimated: false, tool_calls: Vec::new(), cut: None }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by fuzzing (`chat_response`): each block looked for every kind of opening tag from where it stood,
    /// so text with many blocks of one kind was read once per block. It is now read once.
    #[test]
    fn thousands_of_blocks_of_one_kind_are_split() {
        let text = "<thinking>t</thinking>a".repeat(20_000);
        let split = separate(&text);
        assert_eq!(split.answer, "a".repeat(20_000));
        assert_eq!(split.thoughts.len(), 20_000);
        let mixed = separate("<think>1</think>x<thinking>2</thinking>y<think>3");
        assert_eq!((mixed.answer.as_str(), mixed.thoughts), ("xy", vec!["1".into(), "2".into(), "3".into()]));
    }

    #[test]
    fn text_without_thinking_is_untouched() {
        let s = separate("search_class(\"Cart\")");
        assert_eq!(s, Separated { answer: "search_class(\"Cart\")".into(), thoughts: vec![] });
        let r = ChatResponse::new("  keep  my spacing\n", Usage::default(), None);
        assert_eq!(r.content, "  keep  my spacing\n");
        assert_eq!(r.reasoning, None);
    }

    #[test]
    fn closed_block_is_moved_out() {
        let s = separate("<think>\nMaybe search_class(\"Draft\")?\n</think>\n\nsearch_class(\"Cart\")");
        assert_eq!(s.answer, "search_class(\"Cart\")");
        assert_eq!(s.thoughts, vec!["Maybe search_class(\"Draft\")?"]);
    }

    #[test]
    fn block_opened_by_the_template_is_moved_out() {
        // DeepSeek-R1's chat template ends the prompt with `<think>\n`, so vLLM returns only the closing tag.
        let s = separate("Let me think about units.\n</think>\n\nThe bug is in total().");
        assert_eq!(s.answer, "The bug is in total().");
        assert_eq!(s.thoughts, vec!["Let me think about units."]);
    }

    #[test]
    fn block_cut_off_at_the_end_is_all_thinking() {
        let s = separate("<think>I would write <file>a.py</file><original>x</original><patched>y</patched> but");
        assert_eq!(s.answer, "");
        assert_eq!(s.thoughts.len(), 1);
        assert!(s.thoughts[0].starts_with("I would write <file>"));
    }

    #[test]
    fn several_blocks_and_both_tag_names() {
        let s = separate("<thinking>one</thinking>A <think></think>B<think>two</think> C");
        assert_eq!(s.answer, "A B C");
        assert_eq!(s.thoughts, vec!["one", "two"]);
    }

    #[test]
    fn field_and_blocks_are_both_kept() {
        let r = ChatResponse::new("<think>inline</think>answer", Usage::default(), Some("field".into()));
        assert_eq!(r.content, "answer");
        assert_eq!(r.reasoning.as_deref(), Some("field\n\ninline"));
        let empty_field = ChatResponse::new("answer", Usage::default(), Some("  ".into()));
        assert_eq!(empty_field.reasoning, None);
    }
}
