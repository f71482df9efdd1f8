//! `acr serve-model`: a chat-completions server that answers from a model script.
//!
//! The stage of each request is the stage of the kind of prompt it ends with, recognised from the messages
//! ([`acr_core::prompt::PromptKind::recognise`]), so the whole agent can be driven over real HTTP without a model:
//! by the end-to-end tests, and by anyone who wants to try the playground's endpoint settings against a local
//! server. Unrecognised prompts (such as a connection test) are answered with `ok`.

use std::path::Path;

use acr_core::llm::Message;
use acr_core::llm::scripted::{Script, ScriptedModel};
use acr_core::prompt::PromptKind;
use anyhow::Context;
use serde_json::{Value, json};
use tiny_http::{Header, Method, Response, Server};

/// Serves `script` on `host:port` until killed.
pub fn run(script: &Path, host: &str, port: u16) -> anyhow::Result<std::process::ExitCode> {
    let text = std::fs::read_to_string(script).with_context(|| format!("cannot read {}", script.display()))?;
    let model = ScriptedModel::new(Script::from_json(&text).map_err(anyhow::Error::msg)?);
    let server = Server::http((host, port)).map_err(|e| anyhow::anyhow!("cannot listen on {host}:{port}: {e}"))?;
    let addr = server.server_addr().to_ip().context("the server has no IP address")?;
    println!("model server: http://{addr}/v1");
    for mut request in server.incoming_requests() {
        let cors = [
            header("Access-Control-Allow-Origin", "*"),
            header("Access-Control-Allow-Headers", "authorization, content-type"),
            header("Access-Control-Allow-Methods", "POST, GET, OPTIONS"),
        ];
        let (status, body) = if *request.method() == Method::Options {
            (204, String::new())
        } else if *request.method() == Method::Post && request.url().ends_with("/chat/completions") {
            let mut raw = String::new();
            match request.as_reader().read_to_string(&mut raw) {
                Ok(_) => answer(&model, &raw),
                Err(e) => (400, error_body(&format!("cannot read the body: {e}"))),
            }
        } else {
            (404, error_body("only POST /v1/chat/completions is served here"))
        };
        let mut response = Response::from_string(body).with_status_code(status);
        response.add_header(header("Content-Type", "application/json"));
        for h in cors {
            response.add_header(h);
        }
        let _ = request.respond(response);
    }
    Ok(std::process::ExitCode::SUCCESS)
}

/// One completion: (HTTP status, JSON body).
fn answer(model: &ScriptedModel, raw: &str) -> (u16, String) {
    let Ok(body) = serde_json::from_str::<Value>(raw) else { return (400, error_body("the body is not JSON")) };
    let messages: Vec<Message> = match serde_json::from_value(body["messages"].clone()) {
        Ok(m) => m,
        Err(e) => return (400, error_body(&format!("bad messages: {e}"))),
    };
    let content = match PromptKind::recognise(&messages) {
        Some(kind) => match model.next(kind.stage()) {
            Ok(text) => text,
            Err(e) => return (500, error_body(&e.to_string())),
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
    (200, reply.to_string())
}

fn error_body(message: &str) -> String {
    json!({"error": {"message": message}}).to_string()
}

fn header(name: &str, value: &str) -> Header {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("static header names and values are valid")
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
            assert_eq!(status, 200, "{kind:?}: {reply}");
            let reply: Value = serde_json::from_str(&reply).unwrap();
            let content = reply["choices"][0]["message"]["content"].as_str().unwrap_or_default();
            assert_eq!(content, format!("answer for {}", kind.stage()), "{kind:?}");
        }
        let (_, ping) =
            answer(&model, &json!({"messages": [{"role": "user", "content": "Reply with the word: ok"}]}).to_string());
        assert!(ping.contains("\"content\":\"ok\""), "{ping}");
    }
}
