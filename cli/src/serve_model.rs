//! `acr serve-model`: a chat-completions server that answers from a model script.
//!
//! The stage of each request is the stage of the kind of prompt it ends with, recognised from the messages
//! ([`acr_core::prompt::PromptKind::recognise`]), so the whole agent can be driven over real HTTP without a model:
//! by the end-to-end tests, and by anyone who wants to try the playground's endpoint settings against a local
//! server. Unrecognised prompts (such as a connection test) are answered with `ok`. A request with `stream: true` is
//! answered with server-sent events, the answer cut into small deltas sent a few milliseconds apart, then a chunk
//! with the `finish_reason`, a usage chunk when `stream_options.include_usage` asks for one, and `data: [DONE]`. A
//! client that closes the connection mid-answer is reported on stderr (how the tests see that Stop really aborts).
//! Offered `tools`, it plays a model that uses them: the search calls its scripted answer names come back as
//! `tool_calls` too (whole, or streamed in fragments by `index`), with `finish_reason: "tool_calls"`.
//!
//! `--answer-to-cap` bills every answer as long as its cap (`usage.completion_tokens` is the request's `max_tokens`;
//! the text is still the script's), as a model that never stops early would: the worst case for a budget.
//!
//! `--refuse-when TEXT` refuses (400) every request whose messages contain TEXT: a task the server will not serve.
//!
//! A request whose answer must follow a JSON schema (`response_format: json_schema`) is served as the dialect's
//! server serves it ([`Dialect::schema_refusal`]): taken (OpenAI's strict rules checked), or, with
//! `--no-json-schema`, refused in the server's words as a release or model without structured outputs does, or,
//! for Ollama, taken and ignored while its `GET /api/version` names a release before 0.5. The answer is the
//! script's either way: the scripted model is not held to the schema.
//!
//! `--dialect` plays the edges where real servers differ (where thinking goes, streamed usage, what they refuse;
//! see [`crate::dialect`]), and `--context-window` gives the server a context limit to refuse (or, as Ollama does,
//! silently cut) prompts over.
//!
//! It is an axum [`Router`] served by the runner's guarded accept loop ([`acr_runner::guard`]): each connection on
//! its own task, with header, body and idle timeouts and a connection cap, so one stalled client holds up no one.

use std::convert::Infallible;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use acr_core::llm::reasoning::separate;
use acr_core::llm::scripted::{Script, ScriptedModel};
use acr_core::llm::{Message, ToolCall, estimate, tools};
use acr_core::prompt::PromptKind;
use acr_runner::guard::{self, Guard};
use anyhow::Context;
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use clap::ValueEnum;
use futures::StreamExt;
use serde_json::{Value, json};

use crate::dialect::{Dialect, StreamedUsage};
use crate::output::outln;

/// Largest request body: a long prompt with a whole file in it fits many times over.
const MAX_BODY_BYTES: usize = 16 << 20;

/// Connections open at once (each may hold a body of up to [`MAX_BODY_BYTES`] in memory).
const MAX_CONNECTIONS: usize = 64;

/// Characters of the answer in each streamed delta.
const DELTA_CHARS: usize = 24;

/// How the server behaves, besides its script.
#[derive(Debug, Clone)]
pub struct Manner {
    /// The server it plays.
    pub dialect: Dialect,
    /// The pause between the events of streamed answers.
    pub event_gap: Duration,
    /// The context limit in tokens (estimated as the agent estimates them), if any.
    pub context_window: Option<u64>,
    /// Bill every answer as long as the cap it was asked with (`usage.completion_tokens` is the request's
    /// `max_tokens`): a model that never stops before its cap, for testing budgets at their worst.
    pub answer_to_cap: bool,
    /// Refuse (400) every request whose messages contain this text: a task whose requests a server will not serve.
    pub refuse_when: Option<String>,
    /// Take a JSON schema for the answer, as the dialect's current release does; `false` plays a release (or, for
    /// OpenAI, a model) that takes none.
    pub json_schema: bool,
}

impl Default for Manner {
    fn default() -> Self {
        Manner {
            dialect: Dialect::default(),
            event_gap: Duration::default(),
            context_window: None,
            answer_to_cap: false,
            refuse_when: None,
            json_schema: true,
        }
    }
}

/// The script being played, shared by every connection, and the server's manner.
struct Served {
    model: Mutex<ScriptedModel>,
    manner: Manner,
}

/// Serves `script` on `host:port` until killed, in the given manner.
pub fn run(script: &Path, host: &str, port: u16, manner: Manner) -> anyhow::Result<std::process::ExitCode> {
    let text = std::fs::read_to_string(script).with_context(|| format!("cannot read {}", script.display()))?;
    let model = ScriptedModel::new(Script::from_json(&text).map_err(anyhow::Error::msg)?);
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    runtime.block_on(async {
        if let Err(e) = guard::raise_open_file_limit() {
            eprintln!("note: could not raise the open-file limit: {e}");
        }
        let listener = tokio::net::TcpListener::bind((host, port))
            .await
            .with_context(|| format!("cannot listen on {host}:{port}"))?;
        let addr = listener.local_addr().context("the server has no address")?;
        outln!("model server: http://{addr}/v1");
        if let Some(name) = manner.dialect.to_possible_value().filter(|_| manner.dialect != Dialect::default()) {
            eprintln!("playing the {} dialect", name.get_name());
        }
        let guard = Guard { max_connections: MAX_CONNECTIONS, ..Guard::default() };
        guard::serve(listener, router(model, manner), guard, std::future::pending()).await.context("serving")?;
        Ok(std::process::ExitCode::SUCCESS)
    })
}

/// Every route: `POST …/chat/completions` answers from the script, `OPTIONS` answers CORS preflights, Ollama's
/// `GET /api/version` says its release, the rest is a 404; every answer allows any origin.
pub fn router(model: ScriptedModel, manner: Manner) -> Router {
    let served = Arc::new(Served { model: Mutex::new(model), manner });
    Router::new().fallback(handle).with_state(served).layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
}

/// An answer: one JSON body, or server-sent events (each a `data:` payload) sent one by one.
#[derive(Debug)]
enum Reply {
    Json(StatusCode, String),
    Events(Vec<String>),
}

async fn handle(
    State(served): State<Arc<Served>>,
    method: Method,
    uri: Uri,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let reply = if method == Method::OPTIONS {
        Reply::Json(StatusCode::NO_CONTENT, String::new())
    } else if method == Method::POST && uri.path().ends_with("/chat/completions") {
        match body {
            Ok(bytes) => match std::str::from_utf8(&bytes) {
                Ok(raw) => answer(&served.model.lock().unwrap_or_else(PoisonError::into_inner), &served.manner, raw),
                Err(_) => Reply::Json(StatusCode::BAD_REQUEST, error_body("the body is not UTF-8")),
            },
            Err(rejection) => {
                Reply::Json(rejection.status(), error_body(&format!("cannot read the body: {}", rejection.body_text())))
            }
        }
    } else if let Some(version) = served
        .manner
        .dialect
        .version(served.manner.json_schema)
        .filter(|_| method == Method::GET && uri.path() == "/api/version")
    {
        Reply::Json(StatusCode::OK, json!({ "version": version }).to_string())
    } else {
        Reply::Json(StatusCode::NOT_FOUND, error_body("only POST /v1/chat/completions is served here"))
    };
    let (mut response, content_type) = match reply {
        Reply::Json(status, text) => ((status, text).into_response(), "application/json"),
        Reply::Events(events) => {
            let (gap, sent) = (served.manner.event_gap, Sent { count: 0, of: events.len() });
            let paced = futures::stream::iter(events).scan(sent, move |sent, data| {
                sent.count += 1;
                async move {
                    tokio::time::sleep(gap).await;
                    Some(Ok::<_, Infallible>(format!("data: {data}\n\n")))
                }
            });
            (Body::from_stream(paced).into_response(), "text/event-stream")
        }
    };
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    for (name, value) in [
        (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
        (header::ACCESS_CONTROL_ALLOW_HEADERS, "authorization, content-type"),
        (header::ACCESS_CONTROL_ALLOW_METHODS, "POST, GET, OPTIONS"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

/// Events of a streamed answer handed to the connection so far; reported when the client leaves before the end.
struct Sent {
    count: usize,
    of: usize,
}

impl Drop for Sent {
    fn drop(&mut self) {
        if self.count < self.of {
            eprintln!("a client closed a streamed answer after {} of {} events", self.count, self.of);
        }
    }
}

/// One completion.
fn answer(model: &ScriptedModel, manner: &Manner, raw: &str) -> Reply {
    let Ok(body) = serde_json::from_str::<Value>(raw) else {
        return Reply::Json(StatusCode::BAD_REQUEST, error_body("the body is not JSON"));
    };
    let mut messages: Vec<Message> = match serde_json::from_value(body["messages"].clone()) {
        Ok(m) => m,
        Err(e) => return Reply::Json(StatusCode::BAD_REQUEST, error_body(&format!("bad messages: {e}"))),
    };
    if let Some(text) = &manner.refuse_when
        && messages.iter().any(|m| m.content.contains(text.as_str()))
    {
        let why = format!("this request is refused: it contains {text:?}");
        return Reply::Json(StatusCode::BAD_REQUEST, manner.dialect.error_body(&why, "invalid_request_error"));
    }
    let dialect = manner.dialect;
    if let Some((status, refusal)) = dialect.schema_refusal(&body, manner.json_schema) {
        return Reply::Json(status, refusal);
    }
    // As the agent estimates its requests: the conversation and the definitions of the tools offered.
    let tools = body
        .get("tools")
        .and_then(Value::as_array)
        .map_or(0, |t| t.iter().map(|d| estimate::tokens(&d.to_string())).sum());
    let prompt_tokens = estimate::prompt_tokens(&messages) + tools;
    if let Some((status, refusal)) = dialect.refusal(&body, prompt_tokens, manner.context_window) {
        return Reply::Json(status, refusal);
    }
    if let Some(window) = manner.context_window.filter(|&w| prompt_tokens > w) {
        // Ollama keeps the end of an over-long prompt and answers from what is left, saying so only in its log.
        eprintln!("truncating input prompt: {prompt_tokens} tokens to a context window of {window}");
        messages = keep_the_end(messages, window);
    }
    let content = match PromptKind::recognise(&messages) {
        Some(kind) => match model.next(kind.stage()) {
            Ok(text) => text,
            Err(e) => return Reply::Json(StatusCode::INTERNAL_SERVER_ERROR, error_body(&e.to_string())),
        },
        None => "ok".to_string(),
    };
    let cap = body.get("max_tokens").or_else(|| body.get("max_completion_tokens")).and_then(Value::as_u64);
    let completion_tokens = match cap {
        Some(cap) if manner.answer_to_cap => cap,
        _ => estimate::tokens(&content),
    };
    let usage = json!({"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens});
    let offered = body.get("tools").and_then(Value::as_array).is_some_and(|t| !t.is_empty());
    // Calls only from the answer: what a model thought about calling is not a call.
    let tool_calls = if offered { tools::calls_in(&separate(&content).answer) } else { Vec::new() };
    let finish = if tool_calls.is_empty() { "stop" } else { "tool_calls" };
    if body["stream"] == true {
        let asked = body.pointer("/stream_options/include_usage") == Some(&Value::Bool(true));
        let usage = match dialect.streamed_usage() {
            StreamedUsage::WhenAsked if asked => Usage::LastChunk(usage),
            _ => Usage::None,
        };
        return Reply::Events(stream_events(dialect, &body["model"], &content, &tool_calls, usage));
    }
    let shaped = dialect.shape(&content);
    let mut message = json!({"role": "assistant", "content": shaped.content});
    if let Some((field, thinking)) = shaped.thinking {
        message[field] = json!(thinking);
    }
    if !tool_calls.is_empty() {
        message["tool_calls"] = json!(tool_calls);
    }
    let reply = json!({
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "model": body["model"],
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": usage,
    });
    Reply::Json(StatusCode::OK, reply.to_string())
}

/// The messages that fit a context window of `window` tokens, keeping the last (Ollama cuts the start of a prompt).
fn keep_the_end(messages: Vec<Message>, window: u64) -> Vec<Message> {
    let mut kept = Vec::new();
    let mut total = 0;
    for message in messages.into_iter().rev() {
        total += estimate::prompt_tokens(std::slice::from_ref(&message));
        if total > window && !kept.is_empty() {
            break;
        }
        kept.push(message);
    }
    kept.reverse();
    kept
}

/// Where a streamed answer's usage goes.
enum Usage {
    /// A last chunk of its own, with `choices: []`.
    LastChunk(Value),
    /// Not sent.
    None,
}

/// A streamed completion's `data:` payloads: the role, the thinking (for servers that send it apart) and the answer
/// in deltas, each tool call (its id and name, then its arguments in pieces), the finish, the usage where the dialect
/// puts it, `[DONE]`.
fn stream_events(dialect: Dialect, model: &Value, content: &str, tool_calls: &[ToolCall], usage: Usage) -> Vec<String> {
    let chunk = |delta: Value, finish: Value| {
        json!({
            "id": "chatcmpl-scripted",
            "object": "chat.completion.chunk",
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        })
    };
    let deltas = |field: &str, text: &str| -> Vec<Value> {
        let chars: Vec<char> = text.chars().collect();
        chars
            .chunks(DELTA_CHARS)
            .map(|piece| chunk(json!({field: piece.iter().collect::<String>()}), Value::Null))
            .collect()
    };
    let shaped = dialect.shape(content);
    let mut events = vec![chunk(json!({"role": "assistant", "content": ""}), Value::Null)];
    if let Some((field, thinking)) = &shaped.thinking {
        events.extend(deltas(field, thinking));
    }
    events.extend(deltas("content", &shaped.content));
    for (index, call) in tool_calls.iter().enumerate() {
        let start = json!({"index": index, "id": call.id, "type": "function", "function": {"name": call.name, "arguments": ""}});
        events.push(chunk(json!({"tool_calls": [start]}), Value::Null));
        let chars: Vec<char> = call.arguments.chars().collect();
        for piece in chars.chunks(DELTA_CHARS) {
            let piece: String = piece.iter().collect();
            let more = json!({"index": index, "function": {"arguments": piece}});
            events.push(chunk(json!({"tool_calls": [more]}), Value::Null));
        }
    }
    let finish_reason = if tool_calls.is_empty() { "stop" } else { "tool_calls" };
    let finish = chunk(json!({}), json!(finish_reason));
    match usage {
        Usage::LastChunk(usage) => {
            events.push(finish);
            events.push(
                json!({"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "choices": [], "usage": usage}),
            );
        }
        Usage::None => events.push(finish),
    }
    let mut events: Vec<String> = events.iter().map(Value::to_string).collect();
    events.push("[DONE]".into());
    events
}

fn error_body(message: &str) -> String {
    json!({"error": {"message": message}}).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use acr_core::llm::scripted::Script;

    /// Every kind of prompt the agent sends is answered from the script's list for its stage.
    #[test]
    fn every_prompt_kind_is_answered_by_its_stage() {
        let mut script = Script::default();
        for stage in acr_core::llm::Stage::ALL {
            script = script.answer(stage, format!("answer for {stage}"));
        }
        let model = ScriptedModel::new(Script { repeat_last: true, ..script });
        for (kind, messages) in acr_core::prompt::samples() {
            let body = json!({"model": "m", "messages": messages}).to_string();
            let Reply::Json(status, reply) = answer(&model, &Manner::default(), &body) else { panic!("a JSON answer") };
            assert_eq!(status, StatusCode::OK, "{kind:?}: {reply}");
            let reply: Value = serde_json::from_str(&reply).unwrap();
            let content = reply["choices"][0]["message"]["content"].as_str().unwrap_or_default();
            assert_eq!(content, format!("answer for {}", kind.stage()), "{kind:?}");
        }
        let ping = answer(
            &model,
            &Manner::default(),
            &json!({"messages": [{"role": "user", "content": "Reply with the word: ok"}]}).to_string(),
        );
        assert!(matches!(&ping, Reply::Json(_, p) if p.contains("\"content\":\"ok\"")), "{ping:?}");
    }

    /// A streamed answer reads back, through the client's stream reader, as the whole answer, with its thinking and
    /// usage wherever each dialect puts them.
    #[test]
    fn streamed_answers_read_back_whole_in_every_dialect() {
        let content = "é".repeat(30) + "<think>x</think>done";
        for &dialect in Dialect::value_variants() {
            for asked in [false, true] {
                let counts = json!({"prompt_tokens": 7, "completion_tokens": 3});
                let usage = match dialect.streamed_usage() {
                    StreamedUsage::WhenAsked if asked => Usage::LastChunk(counts),
                    _ => Usage::None,
                };
                let sends_usage = !matches!(usage, Usage::None);
                let events = stream_events(dialect, &json!("m"), &content, &[], usage);
                let mut reader = acr_core::llm::stream::StreamReader::new();
                for data in &events {
                    reader.push(format!("data: {data}\n\n").as_bytes()).unwrap();
                }
                let answer = reader.finish().unwrap();
                assert_eq!(answer.content, "é".repeat(30) + "done", "{dialect:?}");
                assert_eq!(
                    answer.reasoning.as_deref(),
                    Some("x"),
                    "{dialect:?}: thinking kept apart, wherever it came"
                );
                assert_eq!(answer.usage.prompt_tokens, if sends_usage { 7 } else { 0 }, "{dialect:?}");
            }
        }
    }

    /// A non-streamed answer carries the dialect's shape; refusals and the context window are honoured.
    #[test]
    fn plain_answers_refusals_and_context_in_every_dialect() {
        let script = Script::default().answer(acr_core::llm::Stage::Decide, "<think>hm</think>the answer");
        let messages = json!([{"role": "user", "content": "Reply with the word: ok"}]);
        for &dialect in Dialect::value_variants() {
            let model = ScriptedModel::new(Script { repeat_last: true, ..script.clone() });
            let manner = Manner { dialect, context_window: Some(50), ..Manner::default() };
            let short = json!({"messages": messages}).to_string();
            let Reply::Json(status, _) = answer(&model, &manner, &short) else { panic!("a JSON answer") };
            assert_eq!(status, StatusCode::OK, "{dialect:?}");
            let long = json!({"messages": [{"role": "user", "content": "x".repeat(400)}]}).to_string();
            let Reply::Json(status, body) = answer(&model, &manner, &long) else { panic!("a JSON answer") };
            let expected = if dialect.truncates_silently() { StatusCode::OK } else { StatusCode::BAD_REQUEST };
            assert_eq!(status, expected, "{dialect:?}: {body}");
        }
    }

    /// Offered tools, the server answers with the scripted answer's calls as tool calls, whole or streamed, and
    /// the client reads the same calls back either way; calls only thought about are not made.
    #[test]
    fn offered_tools_the_scripted_calls_come_back_as_tool_calls() {
        let text = "<think>search_class(\"Draft\")</think>Looking.\nsearch_class(\"Cart\")\nsearch_method(\"total\")";
        let script = Script::default().answer(acr_core::llm::Stage::Search, text);
        let (_, messages) =
            acr_core::prompt::samples().into_iter().find(|(kind, _)| *kind == PromptKind::Search).expect("a sample");
        let tools: Vec<Value> = acr_core::llm::Tool::search_apis().iter().map(acr_core::llm::Tool::to_json).collect();
        for stream in [false, true] {
            let model = ScriptedModel::new(Script { repeat_last: true, ..script.clone() });
            let body = json!({"model": "m", "messages": messages, "tools": tools, "stream": stream}).to_string();
            let answer = match answer(&model, &Manner::default(), &body) {
                Reply::Json(status, body) => {
                    assert_eq!(status, StatusCode::OK, "{body}");
                    let response = acr_core::llm::openai::HttpResponse { status: 200, body, retry_after: None };
                    acr_core::llm::openai::parse_response(&response).unwrap()
                }
                Reply::Events(events) => {
                    let mut reader = acr_core::llm::stream::StreamReader::new();
                    for data in &events {
                        reader.push(format!("data: {data}\n\n").as_bytes()).unwrap();
                    }
                    reader.finish().unwrap()
                }
            };
            let calls: Vec<String> = answer.tool_calls.iter().map(|c| c.search_call().unwrap().to_string()).collect();
            assert_eq!(calls, ["search_class(\"Cart\")", "search_method(\"total\")"], "stream: {stream}");
        }
    }
}
