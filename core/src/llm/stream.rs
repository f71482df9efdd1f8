//! Streamed chat completions (`stream: true`): chunks in, the answer so far out, the whole answer at the end.
//!
//! [`StreamReader`] takes the body's bytes as the transport reads them (through [`super::sse::SseDecoder`]), adds
//! each chunk's `delta` to the text and the thinking received so far, and at the end builds the same
//! [`ChatResponse`] a non-streamed answer gives, through [`ChatResponse::new`], so the thinking is split off by the one
//! reasoning split whether it came as `reasoning_content` / `reasoning` deltas or as a `<think>` block whose tags
//! were cut across chunks. Meanwhile [`StreamReader::partial`] shows what has arrived, split the same way, for a
//! transcript that fills in as the model writes.
//!
//! What servers differ in, and how each is read:
//! - usage: a last chunk with `choices: []` and `usage` (OpenAI, vLLM, Ollama and LM Studio with
//!   `stream_options.include_usage`), `usage` on the chunk with the `finish_reason` (llama.cpp), or none (the caller
//!   estimates it and marks it);
//! - the end: `data: [DONE]` (all of them) or a `finish_reason`; a stream that stops with neither was cut off;
//! - errors after the 200 status: `data: {"error": ...}` or llama.cpp's older `error:` line;
//! - a server that ignores `stream: true` and sends one JSON completion is read as such.

use serde_json::Value;

use super::reasoning::separate;
use super::sse::{SseDecoder, SseEvent};
use super::tools::Deltas;
use super::wire::{HttpResponse, finish_cut, parse_response};
use super::{ChatResponse, Cut, LlmError, Usage, repetition};

/// Longest body kept while no event has been seen (a server that ignored `stream: true`).
const MAX_PLAIN_BODY: usize = 32 << 20;

/// The answer received so far, with thinking already split off: what a transcript shows while the model writes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Partial {
    /// The answer text so far (trailing text that may be the start of a `<think>` tag is held back).
    pub answer: String,
    /// The thinking so far: the reasoning deltas, then any `<think>` blocks of the text.
    pub reasoning: String,
    /// Chunks received.
    pub chunks: usize,
}

/// Reads one streamed answer.
#[derive(Debug, Default)]
pub struct StreamReader {
    decoder: SseDecoder,
    content: String,
    reasoning: String,
    tool_calls: Deltas,
    usage: Option<Usage>,
    chunks: usize,
    any_choice: bool,
    finished: bool,
    cut: Option<Cut>,
    done: bool,
    events: usize,
    plain: Vec<u8>,
    error: Option<LlmError>,
}

impl StreamReader {
    /// A reader at the start of a body.
    pub fn new() -> Self {
        StreamReader::default()
    }

    /// Reads the next bytes of the body. Returns whether the answer so far changed; `Err` once the stream is known
    /// to be bad (the transport may stop reading then).
    pub fn push(&mut self, bytes: &[u8]) -> Result<bool, LlmError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if self.events == 0 && self.plain.len() < MAX_PLAIN_BODY {
            self.plain.extend_from_slice(bytes);
        }
        let before = self.received();
        match self.decoder.push(bytes) {
            Ok(events) => events.into_iter().try_for_each(|e| self.event(e))?,
            Err(e) => return Err(self.fail(LlmError::Malformed(e.to_string()))),
        }
        Ok(before != self.received())
    }

    /// Bytes of answer, thinking and tool calls received so far.
    pub fn received(&self) -> usize {
        self.content.len() + self.reasoning.len() + self.tool_calls.received()
    }

    /// What has arrived so far, split like a finished answer.
    pub fn partial(&self) -> Partial {
        let held = self.content.len() - unfinished_tag_len(&self.content);
        let split = separate(&self.content[..held]);
        let reasoning: Vec<&str> = std::iter::once(self.reasoning.trim())
            .chain(split.thoughts.iter().map(String::as_str))
            .filter(|t| !t.is_empty())
            .collect();
        Partial { answer: split.answer, reasoning: reasoning.join("\n\n"), chunks: self.chunks }
    }

    /// Whether the answer or the thinking so far ends in a loop still growing ([`repetition`]).
    pub fn looping(&self) -> bool {
        repetition::loop_cut(&self.content).is_some() || repetition::loop_cut(&self.reasoning).is_some()
    }

    /// The answer once the body has ended, or was ended early for `cut`: then what arrived, marked with the cut (a
    /// loop is cut after its first repeats). A stream left unread while it was looping is cut as a loop; one that
    /// reached its end is the model's whole answer, repeats and all. A stream that stopped with no end is kept the
    /// same way, as broken off.
    pub fn finish_or_cut(mut self, cut: Option<Cut>) -> Result<ChatResponse, LlmError> {
        let ended = self.done || self.finished;
        let cut = match cut {
            Some(cut) => cut,
            None if !ended && self.looping() => Cut::Loop,
            None => return self.finish(),
        };
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if let Some(at) = repetition::loop_cut(&self.reasoning) {
            self.reasoning.truncate(at);
        }
        if let Some(at) = repetition::loop_cut(&self.content) {
            self.content.truncate(at);
        }
        let reasoning = Some(std::mem::take(&mut self.reasoning)).filter(|r| !r.trim().is_empty());
        let answer = ChatResponse::new(&self.content, self.usage.unwrap_or_default(), reasoning);
        Ok(ChatResponse { tool_calls: self.tool_calls.finish(), cut: Some(cut), ..answer })
    }

    /// The whole answer, once the body has ended; usage is zero when the server sent none.
    pub fn finish(mut self) -> Result<ChatResponse, LlmError> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if let Some(last) = self.decoder.finish() {
            self.event(last)?;
        }
        if self.events == 0 {
            let body = String::from_utf8_lossy(&self.plain).into_owned();
            if body.trim().is_empty() {
                return Err(LlmError::Malformed("the stream ended before any answer arrived (empty body)".into()));
            }
            return parse_response(&HttpResponse { status: 200, body, retry_after: None });
        }
        if !self.any_choice && !self.done {
            return Err(LlmError::Malformed("the stream ended without a single choice".into()));
        }
        if !self.done && !self.finished {
            let why =
                format!("the stream stopped mid-answer (no finish_reason and no [DONE] after {} chunks)", self.chunks);
            if self.received() == 0 {
                return Err(LlmError::Malformed(why));
            }
            return self.finish_or_cut(Some(Cut::Broken(why)));
        }
        let reasoning = Some(self.reasoning).filter(|r| !r.trim().is_empty());
        let answer = ChatResponse::new(&self.content, self.usage.unwrap_or_default(), reasoning);
        Ok(ChatResponse { tool_calls: self.tool_calls.finish(), cut: self.cut, ..answer })
    }

    fn fail(&mut self, e: LlmError) -> LlmError {
        self.error = Some(e.clone());
        e
    }

    fn event(&mut self, event: SseEvent) -> Result<(), LlmError> {
        self.events += 1;
        self.plain = Vec::new();
        let data = event.data.trim();
        if data == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        if self.done || data.is_empty() {
            return Ok(());
        }
        let chunk: Value = match serde_json::from_str(data) {
            Ok(v) => v,
            Err(e) if event.name.as_deref() == Some("error") => {
                return Err(self.fail(LlmError::Http { status: 200, message: format!("{data} ({e})") }));
            }
            Err(e) => return Err(self.fail(LlmError::Malformed(format!("a chunk is not JSON ({e}): {data}")))),
        };
        if let Some(e) = stream_error(&chunk, event.name.as_deref()) {
            return Err(self.fail(e));
        }
        self.chunks += 1;
        if let Some(u) = chunk.get("usage").filter(|u| u.is_object()) {
            let count = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
            self.usage =
                Some(Usage { prompt_tokens: count("prompt_tokens"), completion_tokens: count("completion_tokens") });
        }
        let Some(choice) = chunk.get("choices").and_then(Value::as_array).and_then(|c| c.first()) else {
            return Ok(());
        };
        self.any_choice = true;
        if let Some(reason) = choice.get("finish_reason").filter(|f| !f.is_null()) {
            self.finished = true;
            self.cut = reason.as_str().and_then(finish_cut);
        }
        // A delta, or a whole message (some servers put the last chunk's text in `message`).
        let delta = choice.get("delta").or_else(|| choice.get("message"));
        if let Some(delta) = delta {
            if let Some(text) = delta.get("content").and_then(Value::as_str) {
                self.content.push_str(text);
            }
            if let Some(text) = ["reasoning_content", "reasoning"].iter().find_map(|k| delta.get(*k)?.as_str()) {
                self.reasoning.push_str(text);
            }
            self.tool_calls.push(delta);
        }
        Ok(())
    }
}

/// The error a chunk carries, if it is one: `{"error": ...}`, vLLM's `{"object": "error", "message": ...}`, or any
/// payload of an event named `error`.
fn stream_error(chunk: &Value, name: Option<&str>) -> Option<LlmError> {
    let error = chunk.get("error").filter(|e| !e.is_null());
    let vllm = chunk.get("object").and_then(Value::as_str) == Some("error");
    if error.is_none() && !vllm && name != Some("error") {
        return None;
    }
    let inner = error.unwrap_or(chunk);
    let message = inner
        .get("message")
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| inner.as_str().map(str::to_string))
        .unwrap_or_else(|| inner.to_string());
    let status = inner.get("code").and_then(Value::as_u64).and_then(|c| u16::try_from(c).ok()).unwrap_or(200);
    Some(match status {
        401 | 403 => LlmError::Auth(message),
        429 => LlmError::RateLimited(message),
        status => LlmError::Http { status, message },
    })
}

/// Bytes at the end of `text` that may be the start of a thinking tag still arriving.
fn unfinished_tag_len(text: &str) -> usize {
    let Some(lt) = text.rfind('<') else { return 0 };
    let tail = &text[lt..];
    let tags = ["<think>", "</think>", "<thinking>", "</thinking>"];
    if tags.iter().any(|t| t.len() > tail.len() && t.starts_with(tail)) { tail.len() } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An SSE body of `data:` lines.
    fn sse(chunks: &[&str]) -> String {
        chunks.iter().map(|c| format!("data: {c}\n\n")).collect()
    }

    fn delta(field: &str, text: &str) -> String {
        serde_json::json!({"choices": [{"index": 0, "delta": {field: text}, "finish_reason": null}]}).to_string()
    }

    const STOP: &str = r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#;
    const USAGE: &str = r#"{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":5}}"#;

    fn read_in_pieces(body: &str, size: usize) -> (Vec<Partial>, Result<ChatResponse, LlmError>) {
        let mut reader = StreamReader::new();
        let mut seen = Vec::new();
        for piece in body.as_bytes().chunks(size) {
            match reader.push(piece) {
                Ok(true) => seen.push(reader.partial()),
                Ok(false) => {}
                Err(e) => return (seen, Err(e)),
            }
        }
        (seen, reader.finish())
    }

    #[test]
    fn deltas_add_up_to_the_answer_with_the_final_usage_chunk() {
        let parts = [delta("content", "search_"), delta("content", "class(\"Cart\")")];
        let body = sse(&[&parts[0], &parts[1], STOP, USAGE, "[DONE]"]);
        for size in [1, 7, body.len()] {
            let (seen, answer) = read_in_pieces(&body, size);
            let answer = answer.unwrap();
            assert_eq!(answer.content, "search_class(\"Cart\")");
            assert_eq!(answer.usage, Usage { prompt_tokens: 12, completion_tokens: 5 });
            assert_eq!(seen.last().unwrap().answer, "search_class(\"Cart\")");
            if size == 1 {
                assert_eq!(seen.len(), 2, "one update per delta");
                assert_eq!(seen[0].answer, "search_");
            }
        }
    }

    /// OpenAI sends a call's id and name once, then its arguments in fragments; two calls interleave by `index`.
    #[test]
    fn streamed_tool_calls_are_joined_by_index() {
        let call = |v: &str| format!(r#"{{"choices":[{{"index":0,"delta":{{"tool_calls":[{v}]}}}}]}}"#);
        let pieces = [
            call(r#"{"index":0,"id":"call_a","type":"function","function":{"name":"search_class","arguments":""}}"#),
            call(
                r#"{"index":1,"id":"call_b","type":"function","function":{"name":"search_method","arguments":"{\"method_"}}"#,
            ),
            call(r#"{"index":0,"function":{"arguments":"{\"class_name\": \"Cart\"}"}}"#),
            call(r#"{"index":1,"function":{"arguments":"name\": \"total\"}"}}"#),
        ];
        let finish = r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#;
        let mut all: Vec<&str> = pieces.iter().map(String::as_str).collect();
        all.extend([finish, "[DONE]"]);
        for size in [1, 13, 4096] {
            let answer = read_in_pieces(&sse(&all), size).1.unwrap();
            let calls: Vec<String> = answer.tool_calls.iter().map(|c| c.search_call().unwrap().to_string()).collect();
            assert_eq!(calls, ["search_class(\"Cart\")", "search_method(\"total\")"]);
            assert_eq!((answer.tool_calls[0].id.as_str(), answer.content.as_str()), ("call_a", ""));
        }
    }

    #[test]
    fn reasoning_deltas_and_split_think_tags_stay_out_of_the_answer() {
        // vLLM and llama.cpp: `reasoning_content`; Ollama: `reasoning`.
        for field in ["reasoning_content", "reasoning"] {
            let body =
                sse(&[&delta(field, "maybe search_class(\"Draft\")"), &delta("content", "search_class(\"A\")"), STOP]);
            let answer = read_in_pieces(&body, 5).1.unwrap();
            assert_eq!(answer.content, "search_class(\"A\")");
            assert_eq!(answer.reasoning.as_deref(), Some("maybe search_class(\"Draft\")"));
        }
        // Tags in the content, cut across chunks.
        let pieces = ["<thi", "nk>draft <file>x</", "file></th", "ink>\n\nthe answer"];
        let chunks: Vec<String> = pieces.iter().map(|p| delta("content", p)).collect();
        let mut all: Vec<&str> = chunks.iter().map(String::as_str).collect();
        all.extend([STOP, "[DONE]"]);
        let (seen, answer) = read_in_pieces(&sse(&all), 1);
        let answer = answer.unwrap();
        assert_eq!(answer.content, "the answer");
        assert_eq!(answer.reasoning.as_deref(), Some("draft <file>x</file>"));
        for partial in &seen {
            assert!(!partial.answer.contains("<file>") && !partial.answer.contains("<th"), "{partial:?}");
        }
        assert_eq!(seen[1].reasoning, "draft <file>x", "an open block shows as thinking while it arrives");
    }

    #[test]
    fn usage_on_the_last_choice_chunk_and_no_usage_at_all() {
        let llama = r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2},"timings":{}}"#;
        let answer = read_in_pieces(&sse(&[&delta("content", "ok"), llama, "[DONE]"]), 9).1.unwrap();
        assert_eq!(answer.usage, Usage { prompt_tokens: 3, completion_tokens: 2 });
        let answer = read_in_pieces(&sse(&[&delta("content", "ok"), STOP]), 9).1.unwrap();
        assert_eq!(answer.usage, Usage::default(), "left for the caller to estimate");
    }

    /// A stream that stops with no end keeps what arrived, marked as broken off; so does one that ends repeating
    /// itself, cut after its first repeats; one that ends at its cap says so.
    #[test]
    fn cut_streams_keep_what_arrived_and_say_why() {
        let broken = read_in_pieces(&sse(&[&delta("content", "half an ans")]), 3).1.unwrap();
        assert_eq!(broken.content, "half an ans");
        assert!(
            matches!(&broken.cut, Some(Cut::Broken(why)) if why.contains("no finish_reason and no [DONE] after 1"))
        );
        let looping: Vec<String> = (0..150).map(|_| delta("content", "_to_json")).collect();
        let mut all = vec![delta("content", "call")];
        all.extend(looping);
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        let mut reader = StreamReader::new();
        reader.push(sse(&all).as_bytes()).unwrap();
        assert!(reader.looping());
        let answer = reader.finish_or_cut(None).unwrap();
        assert_eq!((answer.content.as_str(), answer.cut), ("call_to_json_to_json", Some(Cut::Loop)));
        let length = r#"{"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}"#;
        let capped = read_in_pieces(&sse(&[&delta("content", "long"), length, "[DONE]"]), 7).1.unwrap();
        assert_eq!((capped.content.as_str(), capped.cut), ("long", Some(Cut::Cap)));
    }

    /// Streams `text` as content deltas of `size` characters, then the end, and feeds the body to a reader seven bytes
    /// at a time, asking whether the answer is looping each time 64 bytes more of it have arrived (the client asks
    /// less often: each time an eighth more has arrived). Returns the bytes of answer received when the reader first
    /// said so, if it did, and the reader.
    fn stream_watching_for_a_loop(text: &str, size: usize, finish: &str) -> (Option<usize>, StreamReader) {
        let chars: Vec<char> = text.chars().collect();
        let deltas: Vec<String> = chars.chunks(size).map(|c| delta("content", &c.iter().collect::<String>())).collect();
        let mut events: Vec<&str> = deltas.iter().map(String::as_str).collect();
        let end = format!(r#"{{"choices":[{{"index":0,"delta":{{}},"finish_reason":"{finish}"}}]}}"#);
        events.extend([end.as_str(), "[DONE]"]);
        let mut reader = StreamReader::new();
        let mut asked = 0;
        for piece in sse(&events).as_bytes().chunks(7) {
            reader.push(piece).unwrap();
            if reader.received() >= asked + 64 {
                asked = reader.received();
                if reader.looping() {
                    return (Some(asked), reader);
                }
            }
        }
        (None, reader)
    }

    /// Repeated content that ends is what files hold, not a model looping: a long base64 string (a kilobyte of zero
    /// bytes), a table of zeros, a file of separator lines, a row of `=`, each in a patch and streamed chunk by chunk,
    /// is never taken for a loop while it arrives, and the answer is read whole.
    #[test]
    fn repeated_content_that_ends_is_not_cut() {
        let patch = |content: String| {
            format!(
                "# modification 1\n```\n<file>data.py</file>\n<original>\n</original>\n<patched>\n{content}</patched>\n```\n"
            )
        };
        let base64 = format!("BLANK = \"{}==\"\n", "A".repeat(1_364));
        let zeros = format!("EXPECTED = [\n{}]\n", "    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],\n".repeat(60));
        let separators = format!("{}def main():\n    pass\n", format!("{}\n", "#".repeat(79)).repeat(40));
        let rule = format!("Title\n{}\n\nText.\n", "=".repeat(720));
        let mut cut = Vec::new();
        for (name, content) in [("base64", base64), ("zeros", zeros), ("separators", separators), ("rule", rule)] {
            let answer = patch(content);
            let (looped, reader) = stream_watching_for_a_loop(&answer, 24, "stop");
            if let Some(at) = looped {
                cut.push(format!("{name} at {at}"));
                continue;
            }
            let read = reader.finish_or_cut(None).unwrap();
            assert_eq!((read.content.as_str(), read.cut), (answer.as_str(), None), "{name}");
        }
        assert!(cut.is_empty(), "taken for loops: {cut:?}");
    }

    /// A phrase repeated until the answer's cap is cut within its first kilobyte of repeats; filler repeated until
    /// the cap (zeros, the model no longer writing words) once it has grown past the larger span data can take.
    #[test]
    fn a_loop_still_growing_is_cut() {
        let lead = "The bug is in `Cart.total`. The fix calls";
        let (looped, reader) = stream_watching_for_a_loop(&format!("{lead}{}", "_to_json".repeat(1_000)), 6, "length");
        let at = looped.expect("a loop");
        assert!(at < lead.len() + 1_024, "cut after {at} bytes");
        let read = reader.finish_or_cut(None).unwrap();
        assert_eq!((read.content.as_str(), read.cut), (format!("{lead}_to_json_to_json").as_str(), Some(Cut::Loop)));
        let (looped, _) = stream_watching_for_a_loop(&format!("{lead} {}", "0, ".repeat(3_000)), 6, "length");
        let at = looped.expect("a loop");
        assert!(at > repetition::FILLER_SPAN && at < lead.len() + repetition::FILLER_SPAN + 1_024, "cut after {at}");
    }

    #[test]
    fn a_plain_completion_is_read_when_the_server_ignores_stream() {
        let body = r#"{"choices":[{"message":{"content":"<think>hm</think>hello"}}],"usage":{"prompt_tokens":1,"completion_tokens":1}}"#;
        let answer = read_in_pieces(body, 4).1.unwrap();
        assert_eq!(answer.content, "hello");
        assert_eq!(answer.reasoning.as_deref(), Some("hm"));
    }

    #[test]
    fn broken_streams_say_what_went_wrong() {
        let error_chunk = r#"{"error":{"message":"the request exceeds the available context size","code":400}}"#;
        let old_llama = "data: {\"choices\":[]}\n\nerror: {\"code\":500,\"message\":\"slot unavailable\"}\n\n";
        let cases: Vec<(String, &str)> = vec![
            (sse(&[&delta("content", "a"), error_chunk]), "HTTP 400: the request exceeds the available context size"),
            (old_llama.into(), "HTTP 500: slot unavailable"),
            (sse(&[r#"{"object":"error","message":"bad","code":401}"#]), "the API key was refused: bad"),
            (sse(&["{not json"]), "a chunk is not JSON"),
            (sse(&[r#"{"choices":[]}"#]), "without a single choice"),
            (String::new(), "empty body"),
            ("<html>".into(), "not a chat completion"),
        ];
        for (body, want) in cases {
            let err = read_in_pieces(&body, 3).1.unwrap_err().to_string();
            assert!(err.contains(want), "{body:?}: {err:?} should contain {want:?}");
        }
    }
}
