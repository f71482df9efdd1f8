//! Server-sent events: the framing of streamed chat completions, decoded from bytes as they arrive.
//!
//! A streamed answer is a sequence of events separated by blank lines; each event's `data:` lines carry one JSON
//! chunk, and OpenAI-style servers end with `data: [DONE]`. Chunks arrive at arbitrary byte boundaries (a line, a
//! UTF-8 character or a `\r\n` may be split between two reads), so [`SseDecoder`] keeps the unfinished line until its
//! end comes. It follows the parts of the WHATWG event-stream rules that chat servers use: `data` lines of one event
//! are joined with newlines, lines starting with `:` are comments (keep-alives), `event:` names the event, other
//! fields (`id`, `retry`) are ignored, and lines end with `\n`, `\r\n` or `\r`. One departure: llama.cpp's server
//! before late 2025 sent mid-stream failures as a non-standard `error:` field (ggml-org/llama.cpp#16109), which the
//! rules would drop; here such a line is data of an event named `error`, so its message reaches the user.

use std::fmt;

/// Longest line kept while waiting for its end; a longer one is an error rather than unbounded memory.
pub const MAX_LINE_BYTES: usize = 32 << 20;

/// One decoded event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field, when the server named the event (llama.cpp names its error events `error`).
    pub name: Option<String>,
    /// The `data:` lines, joined with `\n`.
    pub data: String,
}

/// A stream that cannot be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseError(pub String);

impl fmt::Display for SseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Turns bytes into events, across any chunking.
#[derive(Debug, Default)]
pub struct SseDecoder {
    /// Bytes of the line not yet ended.
    line: Vec<u8>,
    /// The last byte was a `\r`, so a `\n` first in the next chunk ends nothing.
    after_cr: bool,
    /// The event being built: its name and data lines.
    name: Option<String>,
    data: Option<String>,
}

impl SseDecoder {
    /// A decoder at the start of a stream.
    pub fn new() -> Self {
        SseDecoder::default()
    }

    /// Decodes the next bytes; returns the events they completed.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<SseEvent>, SseError> {
        let mut events = Vec::new();
        for &b in bytes {
            let after_cr = std::mem::replace(&mut self.after_cr, b == b'\r');
            match b {
                b'\n' if after_cr => {}
                b'\n' | b'\r' => {
                    let line = std::mem::take(&mut self.line);
                    events.extend(self.line_ended(&line));
                }
                _ if self.line.len() >= MAX_LINE_BYTES => {
                    return Err(SseError(format!("a line of the event stream is longer than {MAX_LINE_BYTES} bytes")));
                }
                _ => self.line.push(b),
            }
        }
        Ok(events)
    }

    /// Ends the stream: an event whose blank line never came is still delivered.
    pub fn finish(&mut self) -> Option<SseEvent> {
        let line = std::mem::take(&mut self.line);
        let last = if line.is_empty() { None } else { self.line_ended(&line) };
        last.or_else(|| self.dispatch())
    }

    fn line_ended(&mut self, line: &[u8]) -> Option<SseEvent> {
        if line.is_empty() {
            return self.dispatch();
        }
        let line = String::from_utf8_lossy(line);
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line.as_ref(), ""),
        };
        match field {
            "" => {} // a comment
            "data" => match &mut self.data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(value);
                }
                None => self.data = Some(value.to_string()),
            },
            "event" => self.name = Some(value.to_string()),
            "error" => {
                self.name = Some("error".into());
                self.data = Some(value.to_string());
            }
            _ => {}
        }
        None
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        let name = self.name.take();
        self.data.take().map(|data| SseEvent { name, data })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_in_pieces(stream: &[u8], size: usize) -> Vec<SseEvent> {
        let mut d = SseDecoder::new();
        let mut events: Vec<SseEvent> = stream.chunks(size).flat_map(|c| d.push(c).unwrap()).collect();
        events.extend(d.finish());
        events
    }

    fn data(text: &str) -> SseEvent {
        SseEvent { name: None, data: text.into() }
    }

    #[test]
    fn events_are_the_same_whatever_the_chunking() {
        let stream = "data: {\"a\":\"é\"}\n\n: keep-alive\n\ndata: one\r\ndata: two\r\n\r\nevent: error\ndata: {}\r\r\
                      error: {\"code\":400}\n\ndata: [DONE]\n\n";
        let error = |data: &str| SseEvent { name: Some("error".into()), data: data.into() };
        let want = vec![data("{\"a\":\"é\"}"), data("one\ntwo"), error("{}"), error("{\"code\":400}"), data("[DONE]")];
        for size in 1..=stream.len() {
            assert_eq!(decode_in_pieces(stream.as_bytes(), size), want, "chunks of {size} bytes");
        }
    }

    #[test]
    fn an_event_without_its_blank_line_is_delivered_at_the_end() {
        assert_eq!(decode_in_pieces(b"data: last", 3), vec![data("last")]);
        assert_eq!(decode_in_pieces(b"data:no space\n", 4), vec![data("no space")]);
        assert_eq!(decode_in_pieces(b"id: 1\nretry: 5\n\n", 4), vec![], "fields other than data send nothing");
    }

    #[test]
    fn an_endless_line_is_an_error() {
        let mut d = SseDecoder::new();
        let chunk = vec![b'x'; 1 << 20];
        let failed = (0..40).map(|_| d.push(&chunk)).find_map(Result::err);
        assert!(failed.unwrap().0.contains("longer than"));
    }
}
