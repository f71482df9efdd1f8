//! The OpenAI-compatible chat-completions protocol (OpenAI, Ollama, vLLM, LM Studio), independent of transport.
//!
//! [`OpenAiClient`] builds the request body, sends it through a [`Transport`] (implemented by the CLI with a native
//! HTTP client and by the playground with fetch), retries rate limits and server errors with exponential back-off,
//! and turns every failure into an [`LlmError`] that says what went wrong. With [`OpenAiClient::streaming`] it asks
//! for a streamed answer (`stream: true`) and reads it with [`super::stream::StreamReader`] as it arrives, telling a
//! hook what has arrived so far.

use std::fmt;
use std::future::Future;
use std::rc::Rc;

use serde_json::{Value, json};

use super::stream::{Partial, StreamReader};
use super::{ChatRequest, ChatResponse, Llm, LlmError, Usage};

/// A raw HTTP answer.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpResponse {
    /// Status code.
    pub status: u16,
    /// Body text.
    pub body: String,
    /// The `Retry-After` header in seconds, when present.
    pub retry_after: Option<f64>,
}

/// Why a request did not produce an HTTP answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransportError {
    /// The time limit passed.
    Timeout,
    /// Anything else: DNS, refused connection, TLS, CORS.
    Failed(String),
}

/// Sends JSON over HTTP and sleeps between retries. The only I/O the client needs.
pub trait Transport {
    /// POSTs `body` as JSON to `url` with the given headers.
    fn post_json(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: &str,
    ) -> impl Future<Output = Result<HttpResponse, TransportError>>;
    /// Waits for `ms` milliseconds.
    fn sleep(&self, ms: u64) -> impl Future<Output = ()>;

    /// POSTs like [`Transport::post_json`] but hands a successful (2xx) body to `sink` piece by piece as it arrives,
    /// and stops reading when `sink` returns `false`; the returned body is then empty. Other statuses come back whole,
    /// as from `post_json`. The default reads the whole body first, for transports that cannot stream.
    fn post_stream(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: &str,
        sink: &mut dyn FnMut(&[u8]) -> bool,
    ) -> impl Future<Output = Result<HttpResponse, TransportError>> {
        async move {
            let mut response = self.post_json(url, headers, body).await?;
            if (200..300).contains(&response.status) {
                sink(std::mem::take(&mut response.body).as_bytes());
            }
            Ok(response)
        }
    }
}

/// Where and how to reach a model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// Base URL, e.g. `https://api.openai.com/v1` or `http://localhost:11434/v1`.
    pub base_url: String,
    /// Model name.
    pub model: String,
    /// API key; empty for servers that need none.
    pub api_key: String,
}

impl Endpoint {
    /// The chat-completions URL under the base URL.
    pub fn chat_url(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim_end_matches('/'))
    }
}

/// Retry policy for rate limits (429) and server errors (5xx).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retry {
    /// Attempts after the first.
    pub retries: u32,
    /// First back-off, doubled on each retry.
    pub base_ms: u64,
    /// Longest single wait.
    pub max_ms: u64,
}

impl Default for Retry {
    fn default() -> Self {
        Retry { retries: 4, base_ms: 1000, max_ms: 30_000 }
    }
}

/// Told what has arrived so far of a streamed answer, after each chunk that added text.
#[derive(Clone)]
pub struct PartialHook(pub Rc<dyn Fn(&Partial)>);

impl fmt::Debug for PartialHook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PartialHook")
    }
}

/// A chat-completions client over a transport.
#[derive(Debug, Clone)]
pub struct OpenAiClient<T> {
    /// The server and model.
    pub endpoint: Endpoint,
    /// Retry policy.
    pub retry: Retry,
    /// Ask for streamed answers, and who to tell as they arrive.
    stream: Option<PartialHook>,
    transport: T,
}

impl<T: Transport> OpenAiClient<T> {
    /// A client with the default retry policy.
    pub fn new(endpoint: Endpoint, transport: T) -> Self {
        OpenAiClient { endpoint, retry: Retry::default(), stream: None, transport }
    }

    /// The same client asking for streamed answers (`stream: true` with `stream_options.include_usage`), telling
    /// `hook` what has arrived after each chunk that added text. The answers returned are the same as unstreamed.
    pub fn streaming(mut self, hook: impl Fn(&Partial) + 'static) -> Self {
        self.stream = Some(PartialHook(Rc::new(hook)));
        self
    }

    /// Lists nothing and sends one tiny request: a connection test for the settings panel.
    pub async fn ping(&self) -> Result<ChatResponse, LlmError> {
        let req = ChatRequest::new(super::Stage::Decide, vec![super::Message::user("Reply with the word: ok")]);
        self.chat_once(&req).await
    }

    async fn chat_once(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let mut options = Options { stream: self.stream.is_some(), usage_chunk: self.stream.is_some() };
        loop {
            match self.post(request, options).await {
                // Servers without JSON mode refuse `response_format` with a 400; the agent reads prose answers too
                // (the proxy's tolerant extraction), so the request is sent once more without it.
                Err(LlmError::Http { status: 400, message }) if request.json_mode && mentions_json_mode(&message) => {
                    return self.post(&ChatRequest { json_mode: false, ..request.clone() }, options).await;
                }
                // Servers that do not know `stream_options` may refuse it; the usage is estimated instead.
                Err(LlmError::Http { status: 400, message })
                    if options.usage_chunk && message.to_ascii_lowercase().contains("stream_options") =>
                {
                    options.usage_chunk = false;
                }
                answer => return answer,
            }
        }
    }

    /// Sends a request, retrying rate limits and server errors.
    async fn post(&self, request: &ChatRequest, options: Options) -> Result<ChatResponse, LlmError> {
        let mut body = request_body(&self.endpoint.model, request);
        if options.stream {
            body["stream"] = json!(true);
            if options.usage_chunk {
                body["stream_options"] = json!({ "include_usage": true });
            }
        }
        let body = body.to_string();
        let mut headers = vec![("Content-Type".to_string(), "application/json".to_string())];
        if !self.endpoint.api_key.is_empty() {
            headers.push(("Authorization".to_string(), format!("Bearer {}", self.endpoint.api_key)));
        }
        let mut attempt = 0;
        loop {
            let mut reader = StreamReader::new();
            let outcome = match &self.stream {
                None => self.transport.post_json(&self.endpoint.chat_url(), &headers, &body).await,
                Some(hook) => {
                    let mut shown: Option<usize> = None;
                    let mut sink = |bytes: &[u8]| match reader.push(bytes) {
                        Ok(changed) => {
                            // Each look at the answer so far costs its length: after the first, it is taken once
                            // the text has grown by an eighth (at least 64 bytes), so a stream in one-byte chunks
                            // costs a few passes over the answer, not one per chunk.
                            let received = reader.received();
                            if changed && shown.is_none_or(|s| received >= s + (s / 8).max(64)) {
                                shown = Some(received);
                                (hook.0)(&reader.partial());
                            }
                            true
                        }
                        Err(_) => false,
                    };
                    self.transport.post_stream(&self.endpoint.chat_url(), &headers, &body, &mut sink).await
                }
            };
            let response = match outcome {
                Ok(r) => r,
                Err(TransportError::Timeout) => return Err(LlmError::Timeout),
                Err(TransportError::Failed(m)) => return Err(LlmError::Transport(m)),
            };
            let retryable = response.status == 429 || response.status >= 500;
            if retryable && attempt < self.retry.retries {
                let backoff = self.retry.base_ms.saturating_mul(1 << attempt.min(16)).min(self.retry.max_ms);
                let wait = response.retry_after.map(|s| (s * 1000.0) as u64).unwrap_or(backoff).min(self.retry.max_ms);
                self.transport.sleep(wait).await;
                attempt += 1;
                continue;
            }
            let mut answer = match &self.stream {
                Some(_) if (200..300).contains(&response.status) => reader.finish()?,
                _ => parse_response(&response)?,
            };
            super::estimate::fill_missing_usage(&mut answer, request);
            return Ok(answer);
        }
    }
}

/// How a request is sent.
#[derive(Debug, Clone, Copy)]
struct Options {
    /// `stream: true`.
    stream: bool,
    /// `stream_options: {include_usage: true}`.
    usage_chunk: bool,
}

/// Whether a 400's message is about JSON mode (`response_format`), or says nothing more specific.
fn mentions_json_mode(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    m.contains("response_format") || m.contains("json") || m == "(empty body)"
}

impl<T: Transport> Llm for OpenAiClient<T> {
    fn chat(&self, request: &ChatRequest) -> impl Future<Output = Result<ChatResponse, LlmError>> {
        self.chat_once(request)
    }
}

/// The JSON body of a chat-completions request.
pub fn request_body(model: &str, request: &ChatRequest) -> Value {
    let mut body = json!({ "model": model, "messages": request.messages, "stream": false });
    if let Some(t) = request.temperature {
        body["temperature"] = json!(t);
    }
    if let Some(m) = request.max_tokens {
        body["max_tokens"] = json!(m);
    }
    if request.json_mode {
        body["response_format"] = json!({ "type": "json_object" });
    }
    if !request.tools.is_empty() {
        body["tools"] = request.tools.iter().map(super::Tool::to_json).collect();
    }
    body
}

/// Interprets a server's answer: the first choice's text and the usage, or an error that says what went wrong.
pub fn parse_response(response: &HttpResponse) -> Result<ChatResponse, LlmError> {
    let message = || error_message(&response.body);
    match response.status {
        200..=299 => {}
        401 | 403 => return Err(LlmError::Auth(message())),
        429 => return Err(LlmError::RateLimited(message())),
        status => return Err(LlmError::Http { status, message: message() }),
    }
    let v: Value = serde_json::from_str(&response.body)
        .map_err(|e| LlmError::Malformed(format!("{e} in {}", shorten(&response.body, 200))))?;
    if let Some(err) = v.get("error").filter(|e| !e.is_null()) {
        return Err(LlmError::Http { status: response.status, message: shorten(&err.to_string(), 300) });
    }
    let choices = v.get("choices").and_then(Value::as_array);
    let message = match choices.map(Vec::as_slice) {
        Some([]) => return Err(LlmError::Malformed("the server returned no choices (`choices: []`)".into())),
        Some([first, ..]) => first.get("message").filter(|m| m.is_object()),
        None => None,
    };
    let message = message
        .ok_or_else(|| LlmError::Malformed(format!("no choices[0].message in {}", shorten(&response.body, 200))))?;
    // `content: null` (or absent) is an empty answer, as servers send when the model only thought or was cut off.
    let content = message.get("content").and_then(Value::as_str).unwrap_or("");
    let count = |k: &str| v.pointer(&format!("/usage/{k}")).and_then(Value::as_u64).unwrap_or(0);
    let reasoning = ["reasoning_content", "reasoning"]
        .iter()
        .find_map(|k| message.get(*k).and_then(Value::as_str))
        .map(str::to_string);
    let usage = Usage { prompt_tokens: count("prompt_tokens"), completion_tokens: count("completion_tokens") };
    Ok(ChatResponse { tool_calls: super::tools::read_message(message), ..ChatResponse::new(content, usage, reasoning) })
}

/// The `error.message` of an error body, or the body itself, shortened.
fn error_message(body: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let text = parsed
        .as_ref()
        .and_then(|v| v.pointer("/error/message").or_else(|| v.get("error")).or_else(|| v.get("message")))
        .map(|m| m.as_str().map(str::to_string).unwrap_or_else(|| m.to_string()))
        .unwrap_or_else(|| body.trim().to_string());
    if text.is_empty() { "(empty body)".to_string() } else { shorten(&text, 300) }
}

fn shorten(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::collections::VecDeque;
    use std::rc::Rc;

    use super::*;
    use crate::llm::{Message, Stage};

    /// A request as the transport saw it: URL, headers, body.
    type Seen = (String, Vec<(String, String)>, String);

    struct Canned {
        answers: RefCell<VecDeque<Result<HttpResponse, TransportError>>>,
        slept: RefCell<Vec<u64>>,
        seen: RefCell<Vec<Seen>>,
    }

    impl Canned {
        fn new(answers: Vec<Result<HttpResponse, TransportError>>) -> Self {
            Canned { answers: RefCell::new(answers.into()), slept: RefCell::default(), seen: RefCell::default() }
        }
    }

    impl Transport for &Canned {
        async fn post_json(
            &self,
            url: &str,
            headers: &[(String, String)],
            body: &str,
        ) -> Result<HttpResponse, TransportError> {
            self.seen.borrow_mut().push((url.into(), headers.to_vec(), body.into()));
            self.answers.borrow_mut().pop_front().expect("a canned answer")
        }
        async fn sleep(&self, ms: u64) {
            self.slept.borrow_mut().push(ms);
        }
    }

    fn ok(body: &str) -> Result<HttpResponse, TransportError> {
        Ok(HttpResponse { status: 200, body: body.into(), retry_after: None })
    }
    fn status(status: u16, body: &str) -> Result<HttpResponse, TransportError> {
        Ok(HttpResponse { status, body: body.into(), retry_after: None })
    }
    fn endpoint() -> Endpoint {
        Endpoint { base_url: "http://127.0.0.1:9/v1/".into(), model: "m".into(), api_key: "k".into() }
    }
    fn request() -> ChatRequest {
        ChatRequest::new(Stage::Patch, vec![Message::user("hi")]).json().with_temperature(0.5)
    }
    fn block_on<F: Future>(f: F) -> F::Output {
        pollster::block_on(f)
    }

    const GOOD: &str = r#"{"choices":[{"message":{"role":"assistant","content":"hello"}}],"usage":{"prompt_tokens":3,"completion_tokens":1}}"#;

    #[test]
    fn request_body_carries_json_mode_and_temperature() {
        let canned = Canned::new(vec![ok(GOOD)]);
        let client = OpenAiClient::new(endpoint(), &canned);
        let answer = block_on(client.chat(&request())).unwrap();
        assert_eq!(answer.content, "hello");
        assert_eq!(answer.usage, Usage { prompt_tokens: 3, completion_tokens: 1 });
        let (url, headers, body) = canned.seen.borrow()[0].clone();
        assert_eq!(url, "http://127.0.0.1:9/v1/chat/completions");
        assert!(headers.contains(&("Authorization".into(), "Bearer k".into())));
        let body: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(body["response_format"]["type"], "json_object");
        assert_eq!(body["temperature"], 0.5);
        assert_eq!(body["messages"][0]["role"], "user");
        assert!(body.get("tools").is_none(), "no tools unless asked");
    }

    #[test]
    fn tool_calls_are_read_from_the_answer() {
        let body = r#"{"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"search_class","arguments":"{\"class_name\":\"Cart\"}"}}]},"finish_reason":"tool_calls"}]}"#;
        let answer = parse_response(&HttpResponse { status: 200, body: body.into(), retry_after: None }).unwrap();
        assert_eq!(answer.content, "");
        assert_eq!(answer.tool_calls.len(), 1);
        assert_eq!(answer.tool_calls[0].search_call().unwrap().to_string(), "search_class(\"Cart\")");
        // The assistant message that made the call, and the result, go back to the server in its own form.
        let call = answer.tool_calls[0].clone();
        let messages = vec![
            Message { tool_calls: vec![call], ..Message::assistant("") },
            Message::tool("call_1", "Result of search_class(\"Cart\"): ..."),
        ];
        let body = request_body("m", &ChatRequest::new(Stage::Analyse, messages));
        assert_eq!(body["messages"][0]["tool_calls"][0]["function"]["name"], "search_class");
        assert_eq!(body["messages"][0]["tool_calls"][0]["type"], "function");
        assert_eq!(body["messages"][1]["role"], "tool");
        assert_eq!(body["messages"][1]["tool_call_id"], "call_1");
        assert!(body["messages"][1].get("tool_calls").is_none(), "empty lists are left out");
    }

    #[test]
    fn tools_are_sent_and_reasoning_is_kept() {
        let body = request_body("m", &ChatRequest { tools: crate::llm::Tool::search_apis(), ..request() });
        assert_eq!(body["tools"][0]["function"]["name"], "search_class");
        assert_eq!(body["tools"][7]["function"]["parameters"]["properties"]["line_no"]["type"], "integer");
        let with_reasoning = r#"{"choices":[{"message":{"content":"ok","reasoning_content":"because"}}]}"#;
        let parsed = parse_response(&HttpResponse { status: 200, body: with_reasoning.into(), retry_after: None });
        assert_eq!(parsed.unwrap().reasoning.as_deref(), Some("because"));
    }

    #[test]
    fn reasoning_of_each_server_shape_is_kept_apart_from_the_answer() {
        let shapes = [
            // vLLM / DeepSeek: a separate field.
            r#"{"choices":[{"message":{"content":"search_class(\"A\")","reasoning_content":"try A"}}]}"#,
            // Ollama / OpenRouter: `reasoning`.
            r#"{"choices":[{"message":{"content":"search_class(\"A\")","reasoning":"try A"}}]}"#,
            // llama.cpp without a reasoning parser: tags in the content.
            r#"{"choices":[{"message":{"content":"<think>\ntry A\n</think>\n\nsearch_class(\"A\")"}}]}"#,
            // The template opened the block.
            r#"{"choices":[{"message":{"content":"try A\n</think>\nsearch_class(\"A\")","reasoning_content":null}}]}"#,
        ];
        for body in shapes {
            let answer = parse_response(&HttpResponse { status: 200, body: body.into(), retry_after: None }).unwrap();
            assert_eq!(answer.content, "search_class(\"A\")", "{body}");
            assert_eq!(answer.reasoning.as_deref(), Some("try A"), "{body}");
        }
    }

    #[test]
    fn streamed_answers_are_read_as_they_arrive_and_estimated_without_a_usage_chunk() {
        let sse = "data: {\"choices\":[{\"delta\":{\"reasoning\":\"hm\"}}]}\n\n\
                   data: {\"choices\":[{\"delta\":{\"content\":\"hel\"}}]}\n\n\
                   data: {\"choices\":[{\"delta\":{\"content\":\"lo\"},\"finish_reason\":\"stop\"}]}\n\n\
                   data: [DONE]\n\n";
        let canned = Canned::new(vec![ok(sse)]);
        let seen = Rc::new(RefCell::new(Vec::new()));
        let hook = seen.clone();
        let client = OpenAiClient::new(endpoint(), &canned).streaming(move |p| hook.borrow_mut().push(p.clone()));
        let answer = block_on(client.chat(&request())).unwrap();
        assert_eq!((answer.content.as_str(), answer.reasoning.as_deref()), ("hello", Some("hm")));
        assert!(answer.usage_estimated, "no usage chunk came");
        assert_eq!(seen.borrow().len(), 1, "the canned transport hands over the body in one piece");
        assert_eq!(seen.borrow()[0].answer, "hello");
        let body: Value = serde_json::from_str(&canned.seen.borrow()[0].2).unwrap();
        assert_eq!(body["stream"], true);
        assert_eq!(body["stream_options"]["include_usage"], true);
    }

    /// Hands a body over one byte at a time, as a server that flushes every byte would.
    struct Trickle(String);

    impl Transport for Trickle {
        async fn post_json(&self, _: &str, _: &[(String, String)], _: &str) -> Result<HttpResponse, TransportError> {
            unreachable!("only streamed requests are sent")
        }
        async fn post_stream(
            &self,
            _: &str,
            _: &[(String, String)],
            _: &str,
            sink: &mut dyn FnMut(&[u8]) -> bool,
        ) -> Result<HttpResponse, TransportError> {
            for byte in self.0.as_bytes().chunks(1) {
                if !sink(byte) {
                    break;
                }
            }
            ok("")
        }
        async fn sleep(&self, _: u64) {}
    }

    /// Found by fuzzing (`chat_response`): the answer so far was split again after every chunk, so a stream in
    /// one-byte chunks took time quadratic in its length. It is now looked at each time it grows by an eighth.
    #[test]
    fn a_stream_in_one_byte_chunks_is_looked_at_a_few_dozen_times() {
        let piece = "word ".repeat(8);
        let mut sse: String = (0..2_000)
            .map(|_| format!("data: {{\"choices\":[{{\"delta\":{{\"content\":\"{piece}\"}}}}]}}\n\n"))
            .collect();
        sse.push_str("data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n");
        let looks = Rc::new(RefCell::new(Vec::new()));
        let hook = looks.clone();
        let client =
            OpenAiClient::new(endpoint(), Trickle(sse)).streaming(move |p| hook.borrow_mut().push(p.answer.len()));
        let answer = block_on(client.chat(&request())).unwrap();
        assert_eq!(answer.content.len(), 80_000);
        let looks = looks.borrow();
        assert!(looks.len() < 80, "{} looks at an 80 KB answer", looks.len());
        assert!(looks.windows(2).all(|w| w[0] < w[1]), "each look shows more");
        assert!(*looks.last().unwrap() >= 80_000 * 8 / 9, "the last look is close to the whole answer");
    }

    #[test]
    fn stream_options_refused_with_400_is_retried_without_it() {
        let refusal = r#"{"error":{"message":"Unrecognized request argument supplied: stream_options"}}"#;
        let done = "data: {\"choices\":[{\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\n";
        let canned = Canned::new(vec![status(400, refusal), ok(done)]);
        let client = OpenAiClient::new(endpoint(), &canned).streaming(|_| {});
        let plain = ChatRequest::new(Stage::Patch, vec![Message::user("hi")]);
        assert_eq!(block_on(client.chat(&plain)).unwrap().content, "ok");
        let second: Value = serde_json::from_str(&canned.seen.borrow()[1].2).unwrap();
        assert_eq!(second["stream"], true);
        assert!(second.get("stream_options").is_none());
    }

    #[test]
    fn json_mode_refused_with_400_is_retried_once_without_it() {
        let refusal = r#"{"error":{"message":"response_format json_object is not supported by this model"}}"#;
        let canned = Canned::new(vec![status(400, refusal), ok(GOOD)]);
        let client = OpenAiClient::new(endpoint(), &canned);
        assert_eq!(block_on(client.chat(&request())).unwrap().content, "hello");
        let bodies: Vec<Value> =
            canned.seen.borrow().iter().map(|(_, _, b)| serde_json::from_str(b).unwrap()).collect();
        assert_eq!(bodies[0]["response_format"]["type"], "json_object");
        assert!(bodies[1].get("response_format").is_none());
        // Another 400 (a bad model name) is not retried; neither is a refusal when JSON mode was not asked.
        let canned = Canned::new(vec![status(400, r#"{"error":{"message":"unknown model m"}}"#)]);
        let err = block_on(OpenAiClient::new(endpoint(), &canned).chat(&request())).unwrap_err();
        assert_eq!(err, LlmError::Http { status: 400, message: "unknown model m".into() });
        let canned = Canned::new(vec![status(400, refusal)]);
        let plain = ChatRequest::new(Stage::Patch, vec![Message::user("hi")]);
        assert!(block_on(OpenAiClient::new(endpoint(), &canned).chat(&plain)).is_err());
    }

    #[test]
    fn empty_and_null_content_are_empty_answers() {
        for body in [
            r#"{"choices":[{"message":{"content":""}}]}"#,
            r#"{"choices":[{"message":{"content":null,"reasoning_content":"cut off while thinking"}}]}"#,
        ] {
            let answer = parse_response(&HttpResponse { status: 200, body: body.into(), retry_after: None }).unwrap();
            assert_eq!(answer.content, "", "{body}");
        }
    }

    #[test]
    fn retry_after_is_obeyed_within_the_longest_wait() {
        let wait = |s: f64| Ok(HttpResponse { status: 429, body: "{}".into(), retry_after: Some(s) });
        let canned = Canned::new(vec![wait(3.0), wait(120.0), status(502, ""), ok(GOOD)]);
        let client = OpenAiClient::new(endpoint(), &canned);
        assert_eq!(block_on(client.chat(&request())).unwrap().content, "hello");
        assert_eq!(*canned.slept.borrow(), vec![3000, 30_000, 4000]);
    }

    #[test]
    fn missing_usage_is_estimated_and_marked() {
        let canned = Canned::new(vec![ok(r#"{"choices":[{"message":{"content":"hello"}}]}"#), ok(GOOD)]);
        let client = OpenAiClient::new(endpoint(), &canned);
        let estimated = block_on(client.chat(&request())).unwrap();
        assert!(estimated.usage_estimated);
        assert_eq!(estimated.usage, Usage { prompt_tokens: 5, completion_tokens: 2 });
        let reported = block_on(client.chat(&request())).unwrap();
        assert!(!reported.usage_estimated);
    }

    #[test]
    fn rate_limits_are_retried_with_backoff() {
        let canned = Canned::new(vec![status(429, "{}"), status(503, "busy"), ok(GOOD)]);
        let client = OpenAiClient::new(endpoint(), &canned);
        assert_eq!(block_on(client.chat(&request())).unwrap().content, "hello");
        assert_eq!(*canned.slept.borrow(), vec![1000, 2000]);
    }

    #[test]
    fn persistent_rate_limit_is_reported() {
        let canned = Canned::new((0..5).map(|_| status(429, r#"{"error":{"message":"slow down"}}"#)).collect());
        let client = OpenAiClient::new(endpoint(), &canned);
        let err = block_on(client.chat(&request())).unwrap_err();
        assert_eq!(err, LlmError::RateLimited("slow down".into()));
    }

    #[test]
    fn failures_say_what_went_wrong() {
        let cases = vec![
            (status(401, r#"{"error":{"message":"bad key"}}"#), "the API key was refused: bad key"),
            (status(404, "no such model"), "the model server answered HTTP 404: no such model"),
            (ok("<html>"), "the model server's answer is not a chat completion"),
            (ok(r#"{"choices":[]}"#), "the server returned no choices (`choices: []`)"),
            (ok(r#"{"choices":[{"text":"completions API"}]}"#), "no choices[0].message in"),
            (ok(r#"{"object":"list"}"#), "no choices[0].message in"),
            (Err(TransportError::Timeout), "did not answer in time"),
            (Err(TransportError::Failed("connection refused".into())), "could not reach the model server"),
        ];
        for (answer, want) in cases {
            let canned = Canned::new(vec![answer]);
            let err = block_on(OpenAiClient::new(endpoint(), &canned).chat(&request())).unwrap_err().to_string();
            assert!(err.contains(want), "{err:?} should contain {want:?}");
        }
    }
}
