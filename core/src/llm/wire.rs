//! What travels over HTTP: raw answers, and how a chat-completions body or an error body is read.
//!
//! Every failure a server can answer with becomes one [`LlmError`] here, whatever server sent it, so the agent
//! decides what to do from the kind of failure and never from a server's wording:
//! - a refused key: 401/403, llama.cpp's `authentication_error`, LiteLLM's key answers (`No connected db.` for a
//!   key it cannot check, `Authentication Error` for a wrong one) → [`LlmError::Auth`];
//! - an unknown model, by the servers' own signs only: a 404 (OpenAI, Ollama, vLLM, LM Studio), OpenAI's and LM
//!   Studio's `model_not_found` code, LiteLLM's 400 "Invalid model name passed in model=" → [`LlmError::ModelUnknown`]
//!   (a 400 that merely mentions a model is one failed call, since ending the run on it would be a guess);
//! - a prompt over the context window, with the sizes the refusal names → [`LlmError::ContextOverflow`];
//! - a rate limit → [`LlmError::RateLimited`]; anything else keeps its status ([`LlmError::Http`]).

use serde_json::Value;

use super::window::Overflow;
use super::{ChatResponse, Cut, LlmError, Usage};

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

/// Interprets a server's answer: the first choice's text and the usage, or an error that says what went wrong.
pub fn parse_response(response: &HttpResponse) -> Result<ChatResponse, LlmError> {
    if !(200..300).contains(&response.status) {
        return Err(refusal(response.status, &response.body));
    }
    let v: Value = serde_json::from_str(&response.body)
        .map_err(|e| LlmError::Malformed(format!("{e} in {}", shorten(&response.body, 200))))?;
    if let Some(err) = v.get("error").filter(|e| !e.is_null()) {
        return Err(LlmError::Http { status: response.status, message: shorten(&err.to_string(), 300) });
    }
    let choices = v.get("choices").and_then(Value::as_array);
    let (choice, message) = match choices.map(Vec::as_slice) {
        Some([]) => return Err(LlmError::Malformed("the server returned no choices (`choices: []`)".into())),
        Some([first, ..]) => (Some(first), first.get("message").filter(|m| m.is_object())),
        None => (None, None),
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
    let cut = choice.and_then(|c| c.get("finish_reason")).and_then(Value::as_str).and_then(finish_cut);
    Ok(ChatResponse {
        tool_calls: super::tools::read_message(message),
        cut,
        ..ChatResponse::new(content, usage, reasoning)
    })
}

/// The cut a `finish_reason` means: `length` is the answer cap.
pub fn finish_cut(reason: &str) -> Option<Cut> {
    (reason == "length").then_some(Cut::Cap)
}

/// The error an answer with a failure status means (see the module's list).
pub fn refusal(status: u16, body: &str) -> LlmError {
    let message = error_message(body);
    let lower = format!("{} {}", message.to_ascii_lowercase(), error_kind(body));
    let about_key = ["authentication_error", "no connected db", "authentication error", "invalid api key", "api key"]
        .iter()
        .any(|k| lower.contains(k));
    if status == 401 || status == 403 || (status == 400 && about_key) {
        return LlmError::Auth(message);
    }
    if status == 429 {
        return LlmError::RateLimited(message);
    }
    if let Some(overflow) = Overflow::read(status, body, &message) {
        return LlmError::ContextOverflow(overflow);
    }
    if status == 404 || names_an_unknown_model(&lower) {
        return LlmError::ModelUnknown(message);
    }
    LlmError::Http { status, message }
}

/// Whether an error (its message, type and code, lower case) is a server's own word for a model it does not serve:
/// OpenAI's and LM Studio's `model_not_found` code, or LiteLLM's refusal of a model missing from its configuration.
fn names_an_unknown_model(lower: &str) -> bool {
    lower.contains("model_not_found") || lower.contains("invalid model name passed in model=")
}

/// The `error.type` and `error.code` of an error body, lower case, for the keywords servers put there.
fn error_kind(body: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let error = parsed.as_ref().map(|v| v.get("error").unwrap_or(v));
    let field = |k: &str| error.and_then(|e| e.get(k)).and_then(Value::as_str).unwrap_or("").to_ascii_lowercase();
    format!("{} {}", field("type"), field("code"))
}

/// The `error.message` of an error body, or the body itself, shortened.
pub fn error_message(body: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let text = parsed
        .as_ref()
        .and_then(|v| v.pointer("/error/message").or_else(|| v.get("error")).or_else(|| v.get("message")))
        .map(|m| m.as_str().map(str::to_string).unwrap_or_else(|| m.to_string()))
        .unwrap_or_else(|| body.trim().to_string());
    if text.is_empty() { "(empty body)".to_string() } else { shorten(&text, 300) }
}

/// `s` cut to `max` characters, with an ellipsis when cut.
pub fn shorten(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What each real server answered, as seen with curl (`../shared/TOOLCHAIN.md` §18) and by the tests that run
    /// them (`cli/tests/real_servers.rs`).
    #[test]
    fn each_servers_refusals_are_read_by_kind() {
        let cases: [(u16, &str, &str); 7] = [
            (401, r#"{"error":{"code":401,"message":"Invalid API Key","type":"authentication_error"}}"#, "auth"),
            (
                400,
                r#"{"error":{"message":"No connected db.","type":"no_db_connection","param":null,"code":"400"}}"#,
                "auth",
            ),
            (500, "Internal Server Error", "http"),
            (404, r#"{"error":{"message":"The model `gpt-9` does not exist","code":"model_not_found"}}"#, "model"),
            (
                400,
                r#"{"error":{"message":"Invalid model name passed in model=nope. Call `/v1/models` to view available models for your key."}}"#,
                "model",
            ),
            (
                400,
                r#"{"error":{"code":400,"type":"exceed_context_size_error","n_prompt_tokens":1100,"n_ctx":1024,"message":"request (1100 tokens) exceeds the available context size (1024 tokens), try increasing it"}}"#,
                "context",
            ),
            (
                500,
                r#"{"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}}"#,
                "http",
            ),
        ];
        for (status, body, want) in cases {
            let kind = match refusal(status, body) {
                LlmError::Auth(_) => "auth",
                LlmError::ModelUnknown(_) => "model",
                LlmError::ContextOverflow(o) => {
                    assert_eq!((o.window, o.prompt_tokens), (Some(1024), Some(1100)));
                    "context"
                }
                LlmError::Http { .. } => "http",
                other => panic!("{other:?}"),
            };
            assert_eq!(kind, want, "{status} {body}");
        }
    }

    /// An unknown model ends the run only on the servers' own signs of one: each server's real answer for a model it
    /// does not serve, and 400s that mention a model while being about something else (OpenAI's answer to a field it
    /// does not know, named `model` here) are one failed call, not the end of the run.
    #[test]
    fn an_unknown_model_is_read_from_the_servers_own_signs_only() {
        let unknown: [(u16, &str); 6] = [
            (
                404,
                r#"{"error":{"message":"The model `gpt-9` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}"#,
            ),
            (
                404,
                r#"{"error":{"message":"model 'qwen9:7b' not found","type":"not_found_error","param":null,"code":null}}"#,
            ),
            (404, r#"{"error":"model \"llama9\" not found, try pulling it first"}"#),
            (
                404,
                r#"{"object":"error","message":"The model `qwen9` does not exist.","type":"NotFoundError","param":null,"code":404}"#,
            ),
            (
                404,
                r#"{"error":{"message":"Model \"local model\" not found. Please specify a valid model.","type":"invalid_request_error","param":"model","code":"model_not_found"}}"#,
            ),
            (
                400,
                r#"{"error":{"message":"/chat/completions: Invalid model name passed in model=gpt-9. Call `/v1/models` to view available models for your key.","type":"invalid_request_error","param":"model","code":"400"}}"#,
            ),
        ];
        for (status, body) in unknown {
            assert!(matches!(refusal(status, body), LlmError::ModelUnknown(_)), "{status} {body}");
        }
        let other: [&str; 2] = [
            r#"{"error":{"message":"Unknown parameter: 'model'.","type":"invalid_request_error","param":"model","code":"unknown_parameter"}}"#,
            r#"{"error":{"message":"Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported.","type":"invalid_request_error","param":"temperature","code":"unsupported_value"}}"#,
        ];
        for body in other {
            assert!(matches!(refusal(400, body), LlmError::Http { status: 400, .. }), "{body}");
        }
    }

    #[test]
    fn an_answer_cut_at_its_cap_says_so() {
        let body = r#"{"choices":[{"message":{"content":"partial"},"finish_reason":"length"}]}"#;
        let answer = parse_response(&HttpResponse { status: 200, body: body.into(), retry_after: None }).unwrap();
        assert_eq!((answer.content.as_str(), answer.cut), ("partial", Some(Cut::Cap)));
    }
}
