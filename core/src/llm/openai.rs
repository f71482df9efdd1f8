//! The OpenAI-compatible chat-completions protocol (OpenAI, Ollama, vLLM, LM Studio), independent of transport.
//!
//! [`OpenAiClient`] builds the request body, sends it through a [`Transport`] (implemented by the CLI with a native
//! HTTP client and by the playground with fetch), retries rate limits and server errors with exponential back-off,
//! and turns every failure into an [`LlmError`] that says what went wrong. With [`OpenAiClient::streaming`] it asks
//! for a streamed answer (`stream: true`) and reads it with [`super::stream::StreamReader`] as it arrives, telling a
//! hook what has arrived so far.
//!
//! Every request carries an answer cap ([`ChatRequest::answer_cap`]) as `max_tokens`, and a request with a time
//! limit ([`ChatRequest::timeout_ms`], set by a budget to the time left) is given no more than that, its retries'
//! waits included: a retry that would wait past it is not made. A streamed answer that is still arriving when
//! the time limit passes, breaks off, or repeats itself ([`super::repetition`]) is not lost: what arrived comes back
//! marked with its [`Cut`], and the agent decides whether it can use it. A server that refuses the request for
//! offering tools, or for the JSON schema it carries ([`super::schema`]), is answered at once, without back-off, so
//! the agent can fall back to text.

use std::cell::RefCell;
use std::fmt;
use std::future::Future;
use std::rc::Rc;

use serde_json::{Value, json};

use super::stream::{Partial, StreamReader};
use super::{ChatRequest, ChatResponse, Cut, Llm, LlmError, repetition, schema, tools};

pub use super::wire::{HttpResponse, TransportError, parse_response};

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

    /// [`Transport::post_json`] given at most `within` milliseconds (`None`: the transport's own time-out), for a
    /// request whose time a budget cut ([`ChatRequest::timeout_ms`]). The default cannot cut its time-out.
    fn post_json_within(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: &str,
        within: Option<u64>,
    ) -> impl Future<Output = Result<HttpResponse, TransportError>> {
        let _ = within;
        self.post_json(url, headers, body)
    }

    /// [`Transport::post_stream`] given at most `within` milliseconds, as [`Transport::post_json_within`].
    fn post_stream_within(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: &str,
        within: Option<u64>,
        sink: &mut dyn FnMut(&[u8]) -> bool,
    ) -> impl Future<Output = Result<HttpResponse, TransportError>> {
        let _ = within;
        self.post_stream(url, headers, body, sink)
    }

    /// GETs `url`: what a server publishes about itself (llama.cpp's `/props`). The default cannot, and the client
    /// then learns the context window from the server's refusals alone.
    fn get(
        &self,
        url: &str,
        headers: &[(String, String)],
    ) -> impl Future<Output = Result<HttpResponse, TransportError>> {
        let _ = (url, headers);
        std::future::ready(Err(TransportError::Failed("this transport sends no GET requests".into())))
    }

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

    /// The server's root: the base URL without its `/v1`, where llama.cpp and Ollama publish their own endpoints.
    pub fn root_url(&self) -> String {
        let base = self.base_url.trim_end_matches('/');
        base.strip_suffix("/v1").unwrap_or(base).to_string()
    }

    /// The request headers: JSON, and the key when there is one.
    fn headers(&self) -> Vec<(String, String)> {
        let mut headers = vec![("Content-Type".to_string(), "application/json".to_string())];
        if !self.api_key.is_empty() {
            headers.push(("Authorization".to_string(), format!("Bearer {}", self.api_key)));
        }
        headers
    }
}

/// Retry policy for rate limits (429), server errors (5xx) and requests that reached no server.
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

/// The answer cap of [`OpenAiClient::ping`]: a word or two (a model that thinks first is cut short, which proves the
/// settings as well).
pub const PING_TOKENS: u32 = 16;

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
    /// What llama.cpp's `/props` said, once asked (`None` inside: not a llama.cpp server), read for the context window
    /// and for JSON schemas alike.
    props: RefCell<Option<Option<Value>>>,
}

impl<T: Transport> OpenAiClient<T> {
    /// A client with the default retry policy.
    pub fn new(endpoint: Endpoint, transport: T) -> Self {
        OpenAiClient { endpoint, retry: Retry::default(), stream: None, transport, props: RefCell::default() }
    }

    /// The same client asking for streamed answers (`stream: true` with `stream_options.include_usage`), telling
    /// `hook` what has arrived after each chunk that added text. The answers returned are the same as unstreamed.
    pub fn streaming(mut self, hook: impl Fn(&Partial) + 'static) -> Self {
        self.stream = Some(PartialHook(Rc::new(hook)));
        self
    }

    /// Lists nothing and sends one tiny request, its answer capped at [`PING_TOKENS`]: a connection test for the
    /// settings panel.
    pub async fn ping(&self) -> Result<ChatResponse, LlmError> {
        let mut req = ChatRequest::new(super::Stage::Decide, vec![super::Message::user("Reply with the word: ok")]);
        // A few words are enough to prove the settings; a small model may otherwise ramble to the stage's cap,
        // which on a busy machine outlasts the test's time-out.
        req.max_tokens = Some(PING_TOKENS);
        self.chat_once(&req).await
    }

    async fn chat_once(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let streamed = self.stream.is_some();
        let mut options = Options { stream: streamed, usage_chunk: streamed, cap_field: "max_tokens" };
        loop {
            let refused = match self.post(request, options).await {
                Err(LlmError::Http { status: 400, message }) => (message.to_ascii_lowercase(), message),
                answer => return answer,
            };
            match refused {
                // A refusal of the JSON schema goes back to the agent, which asks again without one for the rest of
                // the run.
                // Servers that do not know `stream_options` may refuse it; the usage is estimated instead.
                (lower, _) if options.usage_chunk && lower.contains("stream_options") => options.usage_chunk = false,
                // OpenAI's reasoning models take the cap as `max_completion_tokens` only.
                (lower, _) if options.cap_field == "max_tokens" && lower.contains("max_completion_tokens") => {
                    options.cap_field = "max_completion_tokens";
                }
                (_, message) => return Err(LlmError::Http { status: 400, message }),
            }
        }
    }

    /// Sends a request, retrying rate limits, server errors and requests that reached no server, with back-off.
    /// A refusal of the tools offered or of the schema asked for is not retried: the agent falls back to text at once.
    async fn post(&self, request: &ChatRequest, options: Options) -> Result<ChatResponse, LlmError> {
        let mut body = request_body(&self.endpoint.model, request);
        if let Some(cap) = body.as_object_mut().and_then(|b| b.remove("max_tokens")) {
            body[options.cap_field] = cap;
        }
        if options.stream {
            body["stream"] = json!(true);
            if options.usage_chunk {
                body["stream_options"] = json!({ "include_usage": true });
            }
        }
        let body = body.to_string();
        let headers = self.endpoint.headers();
        let mut attempt = 0;
        // The time left to the request, less the waits before its retries (none: the transport's own time-out).
        let mut left = request.timeout_ms;
        loop {
            let backoff = self.retry.base_ms.saturating_mul(1 << attempt.min(16)).min(self.retry.max_ms);
            let (outcome, reader) = self.send(&headers, &body, left).await;
            let response = match outcome {
                Ok(r) => r,
                // What arrived of a streamed answer before the time ran out or the connection broke is kept.
                Err(TransportError::Timeout) if reader.as_ref().is_some_and(|r| r.received() > 0) => {
                    return self.finish(reader, Some(Cut::Time), request);
                }
                Err(TransportError::Failed(m)) if reader.as_ref().is_some_and(|r| r.received() > 0) => {
                    return self.finish(reader, Some(Cut::Broken(m)), request);
                }
                Err(TransportError::Timeout) => return Err(LlmError::Timeout),
                Err(TransportError::Failed(_))
                    if attempt < self.retry.retries.min(2) && waits_within(left, backoff) =>
                {
                    self.transport.sleep(backoff).await;
                    left = left.map(|l| l - backoff);
                    attempt += 1;
                    continue;
                }
                Err(TransportError::Failed(m)) => return Err(LlmError::Transport(m)),
            };
            let refused = !(200..300).contains(&response.status) && {
                let message = super::wire::error_message(&response.body);
                (!request.tools.is_empty() && tools::refused(response.status, &message))
                    || (request.schema.is_some() && schema::refused(response.status, &message))
            };
            let retryable = (response.status == 429 || response.status >= 500) && !refused;
            let wait = response.retry_after.map(|s| (s * 1000.0) as u64).unwrap_or(backoff).min(self.retry.max_ms);
            if retryable && attempt < self.retry.retries && waits_within(left, wait) {
                self.transport.sleep(wait).await;
                left = left.map(|l| l - wait);
                attempt += 1;
                continue;
            }
            if !(200..300).contains(&response.status) || reader.is_none() {
                let mut answer = parse_response(&response).map_err(|e| self.explain(e, &response))?;
                repetition::trim(&mut answer);
                super::estimate::fill_missing_usage(&mut answer, request);
                return Ok(answer);
            }
            return self.finish(reader, None, request);
        }
    }

    /// Adds what the client knows to a server error: a proxy such as LiteLLM answers a request with no key with a
    /// bare 500, so when none was sent, the message says that a key may be what is missing.
    fn explain(&self, error: LlmError, response: &HttpResponse) -> LlmError {
        let plain = serde_json::from_str::<Value>(&response.body).is_err();
        match error {
            LlmError::Http { status: 500, message } if self.endpoint.api_key.is_empty() && plain => LlmError::Http {
                status: 500,
                message: format!(
                    "{message} (no API key was sent: some servers, LiteLLM's proxy among them, answer a missing key this way)"
                ),
            },
            e => e,
        }
    }

    /// Posts once: the whole answer, or a streamed one read as it arrives (the reader then holds it).
    async fn send(
        &self,
        headers: &[(String, String)],
        body: &str,
        within: Option<u64>,
    ) -> (Result<HttpResponse, TransportError>, Option<StreamReader>) {
        let url = self.endpoint.chat_url();
        let Some(hook) = &self.stream else {
            return (self.transport.post_json_within(&url, headers, body, within).await, None);
        };
        let mut reader = StreamReader::new();
        let mut shown: Option<usize> = None;
        let mut sink = |bytes: &[u8]| match reader.push(bytes) {
            Ok(changed) => {
                // Each look at the answer so far costs its length: after the first, it is taken once the text has
                // grown by an eighth (at least 64 bytes), so a stream in one-byte chunks costs a few passes over
                // the answer, not one per chunk. The same look checks whether the answer is repeating itself.
                let received = reader.received();
                if changed && shown.is_none_or(|s| received >= s + (s / 8).max(64)) {
                    shown = Some(received);
                    (hook.0)(&reader.partial());
                    return !reader.looping();
                }
                true
            }
            Err(_) => false,
        };
        let outcome = self.transport.post_stream_within(&url, headers, body, within, &mut sink).await;
        (outcome, Some(reader))
    }

    /// The answer a stream gave: whole, or what arrived with why it ended early.
    fn finish(
        &self,
        reader: Option<StreamReader>,
        cut: Option<Cut>,
        request: &ChatRequest,
    ) -> Result<ChatResponse, LlmError> {
        let reader = reader.unwrap_or_default();
        let mut answer = reader.finish_or_cut(cut)?;
        repetition::trim(&mut answer);
        super::estimate::fill_missing_usage(&mut answer, request);
        Ok(answer)
    }

    /// The model's context window as the server publishes it: llama.cpp's `/props` (`n_ctx`) or its model list
    /// (`meta.n_ctx`), Ollama's `num_ctx` parameter of the model. `None` when the server says nothing of it.
    pub async fn discover_window(&self) -> Option<u64> {
        let headers = self.endpoint.headers();
        let root = self.endpoint.root_url();
        if let Some(props) = self.props().await {
            let n_ctx = props.get("n_ctx").or_else(|| props.pointer("/default_generation_settings/n_ctx"));
            if let Some(n) = n_ctx.and_then(Value::as_u64).filter(|&n| n > 0) {
                return Some(n);
            }
        }
        let models = format!("{}/models", self.endpoint.base_url.trim_end_matches('/'));
        if let Some(list) = read_json(self.transport.get(&models, &headers).await) {
            let entries = list.get("data").and_then(Value::as_array).cloned().unwrap_or_default();
            let ours = entries.iter().find(|m| m.get("id").and_then(Value::as_str) == Some(&self.endpoint.model));
            if let Some(n) = ours.and_then(|m| m.pointer("/meta/n_ctx")).and_then(Value::as_u64).filter(|&n| n > 0) {
                return Some(n);
            }
        }
        let show = json!({ "model": self.endpoint.model }).to_string();
        let shown = read_json(self.transport.post_json(&format!("{root}/api/show"), &headers, &show).await)?;
        let parameters = shown.get("parameters").and_then(Value::as_str)?;
        parameters.lines().find_map(|l| l.trim().strip_prefix("num_ctx")?.trim().parse().ok())
    }

    /// Whether the server constrains answers to a JSON schema, as far as it says: a llama.cpp server (its `/props`
    /// has `default_generation_settings`) does; an Ollama server does from release 0.5.0 on (`/api/version`), and
    /// an older one ignores the schema in silence. `None` for any other server: the schema is sent and a refusal
    /// learned from.
    pub async fn discover_json_schema(&self) -> Option<bool> {
        if self.props().await.is_some_and(|p| p.get("default_generation_settings").is_some()) {
            return Some(true);
        }
        let url = format!("{}/api/version", self.endpoint.root_url());
        let version = read_json(self.transport.get(&url, &self.endpoint.headers()).await)?;
        schema::ollama_takes_schemas(version.get("version").and_then(Value::as_str)?)
    }

    /// llama.cpp's `/props`, asked once.
    async fn props(&self) -> Option<Value> {
        if let Some(props) = self.props.borrow().as_ref() {
            return props.clone();
        }
        let url = format!("{}/props", self.endpoint.root_url());
        let props = read_json(self.transport.get(&url, &self.endpoint.headers()).await).filter(Value::is_object);
        *self.props.borrow_mut() = Some(props.clone());
        props
    }
}

/// The JSON body of a 200 answer.
fn read_json(response: Result<HttpResponse, TransportError>) -> Option<Value> {
    response.ok().filter(|r| r.status == 200).and_then(|r| serde_json::from_str::<Value>(&r.body).ok())
}

/// Whether a wait of `ms` before a retry leaves time for the retry, for a request with `left` ms to go.
fn waits_within(left: Option<u64>, ms: u64) -> bool {
    left.is_none_or(|left| ms < left)
}

/// How a request is sent.
#[derive(Debug, Clone, Copy)]
struct Options {
    /// `stream: true`.
    stream: bool,
    /// `stream_options: {include_usage: true}`.
    usage_chunk: bool,
    /// The field that carries the answer cap: `max_tokens`, or `max_completion_tokens` for servers that want it.
    cap_field: &'static str,
}

impl<T: Transport> Llm for OpenAiClient<T> {
    fn chat(&self, request: &ChatRequest) -> impl Future<Output = Result<ChatResponse, LlmError>> {
        self.chat_once(request)
    }
    fn context_window(&self) -> impl Future<Output = Option<u64>> {
        self.discover_window()
    }
    fn takes_json_schema(&self) -> impl Future<Output = Option<bool>> {
        self.discover_json_schema()
    }
}

/// The JSON body of a chat-completions request.
pub fn request_body(model: &str, request: &ChatRequest) -> Value {
    let mut body = json!({ "model": model, "messages": request.messages, "stream": false });
    if let Some(t) = request.temperature {
        body["temperature"] = json!(t);
    }
    body["max_tokens"] = json!(request.answer_cap());
    if let Some(schema) = &request.schema {
        body["response_format"] = schema.response_format();
    }
    if !request.tools.is_empty() {
        body["tools"] = request.tools.iter().map(super::Tool::to_json).collect();
    }
    body
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::collections::VecDeque;
    use std::rc::Rc;

    use super::*;
    use crate::llm::{Message, Stage, Usage};

    /// A request as the transport saw it: URL, headers, body.
    type Seen = (String, Vec<(String, String)>, String);

    struct Canned {
        answers: RefCell<VecDeque<Result<HttpResponse, TransportError>>>,
        slept: RefCell<Vec<u64>>,
        seen: RefCell<Vec<Seen>>,
        /// The time each request was given.
        within: RefCell<Vec<Option<u64>>>,
    }

    impl Canned {
        fn new(answers: Vec<Result<HttpResponse, TransportError>>) -> Self {
            Canned {
                answers: RefCell::new(answers.into()),
                slept: RefCell::default(),
                seen: RefCell::default(),
                within: RefCell::default(),
            }
        }
    }

    impl Transport for &Canned {
        async fn post_json_within(
            &self,
            url: &str,
            headers: &[(String, String)],
            body: &str,
            within: Option<u64>,
        ) -> Result<HttpResponse, TransportError> {
            self.within.borrow_mut().push(within);
            self.post_json(url, headers, body).await
        }
        async fn post_json(
            &self,
            url: &str,
            headers: &[(String, String)],
            body: &str,
        ) -> Result<HttpResponse, TransportError> {
            self.seen.borrow_mut().push((url.into(), headers.to_vec(), body.into()));
            // The last answer is given again to every further request (a server that keeps failing).
            let mut answers = self.answers.borrow_mut();
            if answers.len() > 1 { answers.pop_front() } else { answers.front().cloned() }.expect("a canned answer")
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
        ChatRequest::new(Stage::Patch, vec![Message::user("hi")]).constrained(verdict()).with_temperature(0.5)
    }
    fn verdict() -> crate::llm::JsonSchema {
        crate::llm::JsonSchema { name: "verdict".into(), schema: json!({"type": "object"}) }
    }
    fn block_on<F: Future>(f: F) -> F::Output {
        pollster::block_on(f)
    }

    const GOOD: &str = r#"{"choices":[{"message":{"role":"assistant","content":"hello"}}],"usage":{"prompt_tokens":3,"completion_tokens":1}}"#;

    #[test]
    fn request_body_carries_the_schema_and_temperature() {
        let canned = Canned::new(vec![ok(GOOD)]);
        let client = OpenAiClient::new(endpoint(), &canned);
        let answer = block_on(client.chat(&request())).unwrap();
        assert_eq!(answer.content, "hello");
        assert_eq!(answer.usage, Usage { prompt_tokens: 3, completion_tokens: 1 });
        let (url, headers, body) = canned.seen.borrow()[0].clone();
        assert_eq!(url, "http://127.0.0.1:9/v1/chat/completions");
        assert!(headers.contains(&("Authorization".into(), "Bearer k".into())));
        let body: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(body["response_format"], verdict().response_format());
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
        // Forty bytes a chunk, no two alike (a stream that repeats itself would be cut as a loop).
        let mut sse: String = (0..2_000)
            .map(|i| {
                format!("data: {{\"choices\":[{{\"delta\":{{\"content\":\"{:<40}\"}}}}]}}\n\n", format!("word {i}"))
            })
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

    /// A refusal of the schema comes back at once, with no back-off and no second request: the agent asks again
    /// without it and remembers. A 500 naming the schema is such a refusal too (llama.cpp before it read
    /// `json_schema`), and is not waited out as a server error.
    #[test]
    fn a_refusal_of_the_schema_is_not_retried() {
        for (code, message) in [
            (400, "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model."),
            (500, r#"response_format type must be one of \"text\" or \"json_object\", but got: json_schema"#),
        ] {
            let canned = Canned::new(vec![status(code, &format!(r#"{{"error":{{"message":"{message}"}}}}"#))]);
            let err = block_on(OpenAiClient::new(endpoint(), &canned).chat(&request())).unwrap_err();
            assert!(matches!(&err, LlmError::Http { status, .. } if *status == code), "{err:?}");
            assert!(canned.slept.borrow().is_empty(), "{code}: no back-off");
            assert_eq!(canned.seen.borrow().len(), 1, "{code}: one request");
        }
        // The same 500 for a request without a schema is a server error, retried.
        let canned = Canned::new(vec![status(500, "response_format: no"), ok(GOOD)]);
        let plain = ChatRequest::new(Stage::Patch, vec![Message::user("hi")]);
        assert_eq!(block_on(OpenAiClient::new(endpoint(), &canned).chat(&plain)).unwrap().content, "hello");
        assert_eq!(*canned.slept.borrow(), [1000]);
        // Another 400 (a bad model name) is what it is.
        let unknown = "Invalid model name passed in model=m. Call `/v1/models` to view available models for your key.";
        let canned = Canned::new(vec![status(400, &format!(r#"{{"error":{{"message":"{unknown}"}}}}"#))]);
        let err = block_on(OpenAiClient::new(endpoint(), &canned).chat(&request())).unwrap_err();
        assert_eq!(err, LlmError::ModelUnknown(unknown.into()));
    }

    /// What a server says of JSON schemas before the first call: llama.cpp by its `/props` (asked once, and read
    /// for the window as well), Ollama by its version, anything else nothing.
    #[test]
    fn servers_say_whether_they_take_json_schemas() {
        struct Gets(Vec<(&'static str, u16, &'static str)>, RefCell<Vec<String>>);
        impl Transport for &Gets {
            async fn post_json(
                &self,
                url: &str,
                _: &[(String, String)],
                _: &str,
            ) -> Result<HttpResponse, TransportError> {
                self.get(url, &[]).await
            }
            async fn get(&self, url: &str, _: &[(String, String)]) -> Result<HttpResponse, TransportError> {
                self.1.borrow_mut().push(url.to_string());
                let (_, status, body) =
                    self.0.iter().find(|(u, _, _)| url.ends_with(u)).copied().unwrap_or(("", 404, ""));
                Ok(HttpResponse { status, body: body.into(), retry_after: None })
            }
            async fn sleep(&self, _: u64) {}
        }
        let llama =
            Gets(vec![("/props", 200, r#"{"default_generation_settings":{"n_ctx":8192}}"#)], RefCell::default());
        let client = OpenAiClient::new(endpoint(), &llama);
        assert_eq!(block_on(client.takes_json_schema()), Some(true));
        assert_eq!(block_on(client.context_window()), Some(8192));
        assert_eq!(llama.1.borrow().iter().filter(|u| u.ends_with("/props")).count(), 1, "asked once");
        for (version, takes) in [("0.5.1", Some(true)), ("0.4.7", Some(false)), ("dev", None)] {
            let body = format!(r#"{{"version":"{version}"}}"#).leak();
            let ollama = Gets(vec![("/api/version", 200, body)], RefCell::default());
            assert_eq!(block_on(OpenAiClient::new(endpoint(), &ollama).takes_json_schema()), takes, "{version}");
        }
        let other = Gets(Vec::new(), RefCell::default());
        assert_eq!(block_on(OpenAiClient::new(endpoint(), &other).takes_json_schema()), None);
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

    /// llama-server without `--jinja` refuses tools with a 500: the refusal comes back at once, with no back-off,
    /// so the agent can fall back to text (it waited 15 s over five refused requests before).
    #[test]
    fn a_refusal_of_tools_is_not_retried() {
        let refusal = r#"{"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}}"#;
        let canned = Canned::new(vec![status(500, refusal)]);
        let client = OpenAiClient::new(endpoint(), &canned);
        let with_tools = ChatRequest { tools: crate::llm::Tool::search_apis(), ..request() };
        let err = block_on(client.chat(&with_tools)).unwrap_err();
        assert!(matches!(err, LlmError::Http { status: 500, .. }), "{err:?}");
        assert!(canned.slept.borrow().is_empty(), "no back-off");
        assert_eq!(canned.seen.borrow().len(), 1);
    }

    /// Every request carries its stage's answer cap, or the one it asks for; a server that wants the cap under
    /// OpenAI's newer name gets it there.
    #[test]
    fn every_request_carries_an_answer_cap() {
        let canned = Canned::new(vec![ok(GOOD), ok(GOOD)]);
        let client = OpenAiClient::new(endpoint(), &canned);
        block_on(client.chat(&ChatRequest::new(Stage::Search, vec![Message::user("hi")]))).unwrap();
        block_on(client.chat(&ChatRequest { max_tokens: Some(77), ..request() })).unwrap();
        let bodies: Vec<Value> =
            canned.seen.borrow().iter().map(|(_, _, b)| serde_json::from_str(b).unwrap()).collect();
        assert_eq!(bodies[0]["max_tokens"], Stage::Search.answer_cap());
        assert_eq!(bodies[1]["max_tokens"], 77);
        // The connection test asks for a word, so a rambling model cannot outlast its time-out.
        let canned = Canned::new(vec![ok(GOOD)]);
        block_on(OpenAiClient::new(endpoint(), &canned).ping()).unwrap();
        let ping: Value = serde_json::from_str(&canned.seen.borrow()[0].2).unwrap();
        assert_eq!(ping["max_tokens"], PING_TOKENS);
        let refusal = r#"{"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."}}"#;
        let canned = Canned::new(vec![status(400, refusal), ok(GOOD)]);
        block_on(OpenAiClient::new(endpoint(), &canned).chat(&request())).unwrap();
        let second: Value = serde_json::from_str(&canned.seen.borrow()[1].2).unwrap();
        assert_eq!(
            (second.get("max_tokens"), &second["max_completion_tokens"]),
            (None, &json!(Stage::Patch.answer_cap()))
        );
    }

    /// A streamed answer still arriving when the time runs out is kept, marked as cut by the time.
    #[test]
    fn a_stream_past_its_time_keeps_what_arrived() {
        struct Slow;
        impl Transport for Slow {
            async fn post_json(
                &self,
                _: &str,
                _: &[(String, String)],
                _: &str,
            ) -> Result<HttpResponse, TransportError> {
                unreachable!()
            }
            async fn post_stream(
                &self,
                _: &str,
                _: &[(String, String)],
                _: &str,
                sink: &mut dyn FnMut(&[u8]) -> bool,
            ) -> Result<HttpResponse, TransportError> {
                sink(b"data: {\"choices\":[{\"delta\":{\"content\":\"search_class(\\\"Cart\\\")\"}}]}\n\n");
                Err(TransportError::Timeout)
            }
            async fn sleep(&self, _: u64) {}
        }
        let client = OpenAiClient::new(endpoint(), Slow).streaming(|_| {});
        let answer = block_on(client.chat(&request())).unwrap();
        assert_eq!((answer.content.as_str(), answer.cut), ("search_class(\"Cart\")", Some(Cut::Time)));
        assert!(answer.usage_estimated);
    }

    #[test]
    fn rate_limits_are_retried_with_backoff() {
        let canned = Canned::new(vec![status(429, "{}"), status(503, "busy"), ok(GOOD)]);
        let client = OpenAiClient::new(endpoint(), &canned);
        assert_eq!(block_on(client.chat(&request())).unwrap().content, "hello");
        assert_eq!(*canned.slept.borrow(), vec![1000, 2000]);
    }

    #[test]
    fn a_request_with_a_time_limit_is_given_the_time_left_and_no_retry_past_it() {
        let canned = Canned::new(vec![status(503, "busy"), status(503, "busy"), ok(GOOD)]);
        let client = OpenAiClient::new(endpoint(), &canned);
        let err = block_on(client.chat(&ChatRequest { timeout_ms: Some(2_500), ..request() })).unwrap_err();
        assert_eq!(err, LlmError::Http { status: 503, message: "busy".into() }, "a wait of 2 s would leave no time");
        assert_eq!(*canned.slept.borrow(), [1_000], "one wait of 1 s fitted in 2.5 s");
        assert_eq!(*canned.within.borrow(), [Some(2_500), Some(1_500)], "each attempt is given the time left");
        let canned = Canned::new(vec![status(503, "busy"), ok(GOOD)]);
        block_on(OpenAiClient::new(endpoint(), &canned).chat(&request())).unwrap();
        assert_eq!(*canned.within.borrow(), [None, None], "without a limit, the transport's own time-out");
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
            (status(404, "no such model"), "the model server does not know this model: no such model"),
            (status(418, "teapot"), "the model server answered HTTP 418: teapot"),
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
