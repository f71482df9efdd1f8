//! `acr serve-model`: a chat-completions server that answers from a model script.
//!
//! The stage of each request is the stage of the kind of prompt it ends with, recognised from the messages
//! ([`acr_core::prompt::PromptKind::recognise`]), so the whole agent can be driven over real HTTP without a model:
//! by the end-to-end tests, and by anyone who wants to try the playground's endpoint settings against a local
//! server. Unrecognised prompts (such as a connection test) are answered with `ok`.
//!
//! It is an axum [`Router`] served by the runner's guarded accept loop ([`acr_runner::guard`]): each connection on
//! its own task, with header, body and idle timeouts and a connection cap, so one stalled client holds up no one.

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use acr_core::llm::Message;
use acr_core::llm::scripted::{Script, ScriptedModel};
use acr_core::prompt::PromptKind;
use acr_runner::guard::{self, Guard};
use anyhow::Context;
use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// Largest request body: a long prompt with a whole file in it fits many times over.
const MAX_BODY_BYTES: usize = 16 << 20;

/// Connections open at once (each may hold a body of up to [`MAX_BODY_BYTES`] in memory).
const MAX_CONNECTIONS: usize = 64;

/// The script being played, shared by every connection.
type Model = Arc<Mutex<ScriptedModel>>;

/// Serves `script` on `host:port` until killed.
pub fn run(script: &Path, host: &str, port: u16) -> anyhow::Result<std::process::ExitCode> {
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
        println!("model server: http://{addr}/v1");
        let guard = Guard { max_connections: MAX_CONNECTIONS, ..Guard::default() };
        guard::serve(listener, router(model), guard, std::future::pending()).await.context("serving")?;
        Ok(std::process::ExitCode::SUCCESS)
    })
}

/// Every route: `POST …/chat/completions` answers from the script, `OPTIONS` answers CORS preflights, the rest
/// is a 404; every answer allows any origin.
pub fn router(model: ScriptedModel) -> Router {
    Router::new().fallback(handle).with_state(Arc::new(Mutex::new(model))).layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
}

async fn handle(State(model): State<Model>, method: Method, uri: Uri, body: Result<Bytes, BytesRejection>) -> Response {
    let (status, text) = if method == Method::OPTIONS {
        (StatusCode::NO_CONTENT, String::new())
    } else if method == Method::POST && uri.path().ends_with("/chat/completions") {
        match body {
            Ok(bytes) => match std::str::from_utf8(&bytes) {
                Ok(raw) => answer(&model.lock().unwrap_or_else(PoisonError::into_inner), raw),
                Err(_) => (StatusCode::BAD_REQUEST, error_body("the body is not UTF-8")),
            },
            Err(rejection) => {
                (rejection.status(), error_body(&format!("cannot read the body: {}", rejection.body_text())))
            }
        }
    } else {
        (StatusCode::NOT_FOUND, error_body("only POST /v1/chat/completions is served here"))
    };
    let mut response = (status, text).into_response();
    let headers = response.headers_mut();
    for (name, value) in [
        (header::CONTENT_TYPE, "application/json"),
        (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
        (header::ACCESS_CONTROL_ALLOW_HEADERS, "authorization, content-type"),
        (header::ACCESS_CONTROL_ALLOW_METHODS, "POST, GET, OPTIONS"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

/// One completion: (HTTP status, JSON body).
fn answer(model: &ScriptedModel, raw: &str) -> (StatusCode, String) {
    let Ok(body) = serde_json::from_str::<Value>(raw) else {
        return (StatusCode::BAD_REQUEST, error_body("the body is not JSON"));
    };
    let messages: Vec<Message> = match serde_json::from_value(body["messages"].clone()) {
        Ok(m) => m,
        Err(e) => return (StatusCode::BAD_REQUEST, error_body(&format!("bad messages: {e}"))),
    };
    let content = match PromptKind::recognise(&messages) {
        Some(kind) => match model.next(kind.stage()) {
            Ok(text) => text,
            Err(e) => return (StatusCode::INTERNAL_SERVER_ERROR, error_body(&e.to_string())),
        },
        None => "ok".to_string(),
    };
    let prompt_chars: usize = messages.iter().map(|m| m.content.len()).sum();
    let reply = json!({
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "model": body["model"],
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt_chars / 4, "completion_tokens": content.len() / 4},
    });
    (StatusCode::OK, reply.to_string())
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
            let (status, reply) = answer(&model, &body);
            assert_eq!(status, StatusCode::OK, "{kind:?}: {reply}");
            let reply: Value = serde_json::from_str(&reply).unwrap();
            let content = reply["choices"][0]["message"]["content"].as_str().unwrap_or_default();
            assert_eq!(content, format!("answer for {}", kind.stage()), "{kind:?}");
        }
        let (_, ping) =
            answer(&model, &json!({"messages": [{"role": "user", "content": "Reply with the word: ok"}]}).to_string());
        assert!(ping.contains("\"content\":\"ok\""), "{ping}");
    }
}
