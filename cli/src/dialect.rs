//! The ways chat-completions servers differ, as `acr serve-model --dialect` plays them.
//!
//! Everyone speaks "OpenAI-compatible", and everyone differs at the edges. A dialect is the set of those edges a
//! client meets in practice, so the agent can be tested against each server it will be pointed at without the
//! server or a model:
//!
//! | dialect | thinking of a reasoning model | streamed usage | `json_object` | tools | prompt over the context |
//! |---------|-------------------------------|----------------|-----------|-------|-------------------------|
//! | `openai` | `<think>` left in the text (OpenAI's own models send none) | a last chunk, when asked | yes | yes | 400 `context_length_exceeded` |
//! | `ollama` | a `reasoning` field | a last chunk, when asked | yes | yes | cut silently, logged |
//! | `vllm` | a `reasoning_content` field | a last chunk, when asked | yes | 400 (no `--enable-auto-tool-choice`) | 400 "your request has N input tokens", or "'max_tokens' … is too large" |
//! | `lmstudio` | `<think>` left in the text | none | 400 (only `json_schema`) | yes | 400 |
//! | `llamacpp` | a `reasoning_content` field | a last chunk, when asked | yes | 500 (no `--jinja`) | 400 `exceed_context_size_error` with `n_ctx`, for the prompt alone |
//!
//! A JSON schema for the answer (`response_format: json_schema`, [`Dialect::schema_refusal`]) is taken by every
//! current release; OpenAI holds it to its strict rules (every object closed, every property required, no
//! `maxLength` or `minLength`) and refuses a schema that breaks them. `--no-json-schema` plays what comes before
//! structured outputs:
//!
//! | dialect | a JSON schema, without structured outputs |
//! |---------|-------------------------------------------|
//! | `openai` | 400 "'response_format' of type 'json_schema' is not supported with this model" (gpt-3.5-turbo, gpt-4-turbo) |
//! | `ollama` | taken and ignored (before 0.5); `GET /api/version` says `0.4.7` (and `0.12.6` without the flag) |
//! | `vllm` | 400, its request validation: `response_format.type` must be `text` or `json_object` |
//! | `lmstudio` | 400, `response_format.type` must be `json_object` or `text` |
//! | `llamacpp` | 500 `response_format type must be one of "text" or "json_object", but got: json_schema` (before it read `json_schema`) |
//!
//! `openai` and `vllm` also refuse, with a 400 in their own words, a conversation whose `tool` messages do not pair
//! with the calls of the assistant turn before them (vLLM as it checks a Mistral model's conversation; the others
//! render such a conversation as it is).
//!
//! The `llamacpp` row is checked against llama.cpp's own `llama-server` (`cli/tests/real_servers.rs` sends both the
//! same requests). The refusals are those of each server's default configuration; their wording is each server's own in spirit (a
//! client must never depend on it beyond the keywords the agent looks for: `response_format`, `tools`, `context`).
//! vLLM's errors also come in its own shape (`{"object": "error", "message": …}` instead of `{"error": {…}}`).

use std::collections::BTreeSet;

use acr_core::llm::reasoning::separate;
use acr_core::llm::tools::{self, Unpaired};
use acr_core::llm::{Message, Role};
use axum::http::StatusCode;
use serde_json::{Value, json};

/// A chat-completions server's behaviour at the edges of the OpenAI format.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Dialect {
    /// OpenAI's own API: everything supported, the text passed on as the model wrote it.
    #[default]
    #[value(name = "openai")]
    OpenAi,
    /// Ollama's `/v1` compatibility layer.
    Ollama,
    /// vLLM's OpenAI server with a reasoning parser and without automatic tool choice.
    Vllm,
    /// LM Studio's local server.
    #[value(name = "lmstudio")]
    LmStudio,
    /// llama.cpp's `llama-server` without `--jinja`.
    #[value(name = "llamacpp")]
    LlamaCpp,
}

/// Where a server puts a reasoning model's thinking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Thinking {
    /// In a message field of this name, apart from the answer.
    Field(&'static str),
    /// Left in the text as the model wrote it, `<think>` tags and all.
    Inline,
}

/// How a streamed answer reports its token counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamedUsage {
    /// A last chunk with `choices: []`, only when `stream_options.include_usage` asks for it.
    WhenAsked,
    /// Never: the client must estimate.
    Never,
}

/// An answer split the way a dialect sends it: the message's text and, for [`Thinking::Field`], the thinking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shaped {
    /// The message's `content`.
    pub content: String,
    /// The field name and text of the thinking, when sent apart.
    pub thinking: Option<(&'static str, String)>,
}

impl Dialect {
    /// Where this server puts thinking.
    pub fn thinking(self) -> Thinking {
        match self {
            Dialect::OpenAi | Dialect::LmStudio => Thinking::Inline,
            Dialect::Ollama => Thinking::Field("reasoning"),
            Dialect::Vllm | Dialect::LlamaCpp => Thinking::Field("reasoning_content"),
        }
    }

    /// How this server reports the usage of a streamed answer.
    pub fn streamed_usage(self) -> StreamedUsage {
        match self {
            Dialect::OpenAi | Dialect::Ollama | Dialect::Vllm | Dialect::LlamaCpp => StreamedUsage::WhenAsked,
            Dialect::LmStudio => StreamedUsage::Never,
        }
    }

    /// Whether a prompt longer than the context is cut to fit instead of refused (and the answer given anyway).
    pub fn truncates_silently(self) -> bool {
        self == Dialect::Ollama
    }

    /// A model's text (thinking in `<think>` blocks, as scripts write it) as this server would send it.
    pub fn shape(self, text: &str) -> Shaped {
        let separated = separate(text);
        match self.thinking() {
            Thinking::Field(name) if !separated.thoughts.is_empty() => {
                Shaped { content: separated.answer, thinking: Some((name, separated.thoughts.join("\n\n"))) }
            }
            _ => Shaped { content: text.to_string(), thinking: None },
        }
    }

    /// The release `GET /api/version` names, for the servers that publish one there (Ollama): one that holds a model
    /// to a JSON schema, or one from before that (`takes_schemas: false`).
    pub fn version(self, takes_schemas: bool) -> Option<&'static str> {
        (self == Dialect::Ollama).then_some(if takes_schemas { "0.12.6" } else { "0.4.7" })
    }

    /// The refusal this server gives a request whose answer must follow a JSON schema: with `takes_schemas`, only a
    /// schema OpenAI's strict mode refuses (by OpenAI); without, the refusal of a release or model without structured
    /// outputs, in the server's words (Ollama before 0.5 took the field and ignored it). `None` serves the request.
    pub fn schema_refusal(self, request: &Value, takes_schemas: bool) -> Option<(StatusCode, String)> {
        let format = request.get("response_format").filter(|f| f["type"] == "json_schema")?;
        if takes_schemas {
            let named = &format["json_schema"]["name"];
            let why = match named.as_str() {
                _ if self != Dialect::OpenAi => return None,
                Some(name)
                    if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || "_-".contains(c)) =>
                {
                    let schema = &format["json_schema"]["schema"];
                    if format["json_schema"]["strict"] != true {
                        return None;
                    }
                    match unpermitted(schema, "") {
                        Some((at, keyword)) => format!(
                            "Invalid schema for response_format '{name}': In context=({at}), '{keyword}' is not permitted."
                        ),
                        None => {
                            let broken = unstrict(schema, "")?;
                            format!("Invalid schema for response_format '{name}': In context=({broken}), {STRICT_RULE}")
                        }
                    }
                }
                _ => "Missing required parameter: 'response_format.json_schema.name'.".to_string(),
            };
            return Some((StatusCode::BAD_REQUEST, self.error_body(&why, "invalid_request_error")));
        }
        let why = match self {
            Dialect::OpenAi => {
                "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model."
            }
            Dialect::Ollama => return None,
            Dialect::Vllm => {
                "[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}]"
            }
            Dialect::LmStudio => "'response_format.type' must be 'json_object' or 'text'",
            Dialect::LlamaCpp => {
                let why = "response_format type must be one of \"text\" or \"json_object\", but got: json_schema";
                let body = json!({"error": {"code": 500, "message": why, "type": "server_error"}});
                return Some((StatusCode::INTERNAL_SERVER_ERROR, body.to_string()));
            }
        };
        Some((StatusCode::BAD_REQUEST, self.error_body(why, "invalid_request_error")))
    }

    /// The refusal this server gives a request it cannot serve as sent in its default configuration: tools, JSON
    /// mode, or a prompt of `prompt_tokens` (plus the answer's `max_tokens`) over a `context` window. `None` serves it.
    pub fn refusal(self, request: &Value, prompt_tokens: u64, context: Option<u64>) -> Option<(StatusCode, String)> {
        let has_tools = request.get("tools").and_then(Value::as_array).is_some_and(|t| !t.is_empty());
        if has_tools {
            match self {
                Dialect::Vllm => {
                    let why =
                        "\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set";
                    return Some((StatusCode::BAD_REQUEST, self.error_body(why, "invalid_request_error")));
                }
                Dialect::LlamaCpp => {
                    let body = json!({"error": {"code": 500, "message": "tools param requires --jinja flag", "type": "server_error"}});
                    return Some((StatusCode::INTERNAL_SERVER_ERROR, body.to_string()));
                }
                _ => {}
            }
        }
        if let Some(refusal) = self.unpaired_refusal(request) {
            return Some(refusal);
        }
        let format = request.pointer("/response_format/type").and_then(Value::as_str);
        if self == Dialect::LmStudio && format == Some("json_object") {
            let why = "'response_format.type' must be 'json_schema' or 'text'";
            return Some((StatusCode::BAD_REQUEST, self.error_body(why, "invalid_request_error")));
        }
        let context = context?;
        // llama.cpp refuses a prompt over the window, and stops an answer that would go past it.
        let answer = request.get("max_tokens").and_then(Value::as_u64).filter(|_| self != Dialect::LlamaCpp);
        let wanted = prompt_tokens + answer.unwrap_or(0);
        if wanted <= context || self.truncates_silently() {
            return None;
        }
        let why = match self {
            Dialect::OpenAi => format!(
                "This model's maximum context length is {context} tokens. However, you requested {wanted} tokens \
                 ({prompt_tokens} in the messages, {} in the completion). Please reduce the length of the messages \
                 or completion.",
                wanted - prompt_tokens
            ),
            // vLLM since 0.6: the prompt alone over the window, or the answer's cap too large for what is left.
            Dialect::Vllm if prompt_tokens > context => format!(
                "This model's maximum context length is {context} tokens. However, your request has {prompt_tokens} \
                 input tokens. Please reduce the length of the input messages."
            ),
            Dialect::Vllm => format!(
                "'max_tokens' or 'max_completion_tokens' is too large: {answer}. This model's maximum context length \
                 is {context} tokens and your request has {prompt_tokens} input tokens ({answer} > {context} - \
                 {prompt_tokens}).",
                answer = wanted - prompt_tokens
            ),
            Dialect::LmStudio => format!(
                "The model is loaded with a context length of only {context} tokens, not enough for a request of \
                 {wanted} tokens. Try loading it with a larger context length."
            ),
            Dialect::LlamaCpp => {
                let why = format!(
                    "request ({wanted} tokens) exceeds the available context size ({context} tokens), try increasing it"
                );
                let body = json!({"error": {"code": 400, "message": why, "type": "exceed_context_size_error",
                    "n_prompt_tokens": wanted, "n_ctx": context}});
                return Some((StatusCode::BAD_REQUEST, body.to_string()));
            }
            Dialect::Ollama => {
                format!("the request ({wanted} tokens) exceeds the available context size ({context} tokens)")
            }
        };
        Some((StatusCode::BAD_REQUEST, self.error_body(&why, "context_length_exceeded")))
    }

    /// The refusal of a conversation whose `tool` messages do not pair with the calls before them
    /// ([`tools::unpaired`]), in OpenAI's words or in those of the checks vLLM runs on a Mistral model's
    /// conversation; the other servers render such a conversation as it is.
    fn unpaired_refusal(self, request: &Value) -> Option<(StatusCode, String)> {
        let messages: Vec<Message> = serde_json::from_value(request.get("messages")?.clone()).ok()?;
        let unpaired = tools::unpaired(&messages)?;
        let body = match (self, unpaired) {
            (Dialect::OpenAi, Unpaired::Orphan(at)) => openai_invalid(
                "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with \
                 'tool_calls'.",
                at,
            ),
            (Dialect::OpenAi, Unpaired::Unanswered(at, ids)) => openai_invalid(
                &format!(
                    "An assistant message with 'tool_calls' must be followed by tool messages responding to each \
                     'tool_call_id'. The following tool_call_ids did not have response messages: {}",
                    ids.join(", ")
                ),
                at,
            ),
            (Dialect::Vllm, Unpaired::Orphan(at))
                if at == 0 || !matches!(messages[at - 1].role, Role::Assistant | Role::Tool) =>
            {
                let after = at.checked_sub(1).map(|i| json!(messages[i].role));
                let after = after.as_ref().and_then(Value::as_str).unwrap_or("none");
                self.error_body(&format!("Unexpected role 'tool' after role '{after}'"), "BadRequestError")
            }
            (Dialect::Vllm, _) => {
                self.error_body("Not the same number of function calls and responses", "BadRequestError")
            }
            _ => return None,
        };
        Some((StatusCode::BAD_REQUEST, body))
    }

    /// An error body in this server's shape.
    pub fn error_body(self, message: &str, kind: &str) -> String {
        match self {
            Dialect::Vllm => json!({"object": "error", "message": message, "type": "BadRequestError", "code": 400}),
            _ => json!({"error": {"message": message, "type": kind, "code": kind}}),
        }
        .to_string()
    }
}

/// What OpenAI's strict mode asks of every object of a schema.
const STRICT_RULE: &str =
    "'additionalProperties' is required to be supplied and to be false, and 'required' must list every property.";

/// The first keyword of a schema that OpenAI's strict mode does not permit (`maxLength`, `minLength`), with where.
fn unpermitted(schema: &Value, at: &str) -> Option<(String, &'static str)> {
    let inside = |part: &str| if at.is_empty() { part.to_string() } else { format!("{at}, {part}") };
    if let Some(keyword) = ["maxLength", "minLength"].into_iter().find(|k| schema.get(*k).is_some()) {
        return Some((at.to_string(), keyword));
    }
    let properties = schema["properties"].as_object().into_iter().flatten();
    let mut below = properties.map(|(k, v)| (inside(&format!("'{k}'")), v));
    let items = schema.get("items").map(|i| (inside("'items'"), i));
    below.find_map(|(at, inner)| unpermitted(inner, &at)).or_else(|| items.and_then(|(at, i)| unpermitted(i, &at)))
}

/// Where a schema breaks OpenAI's strict rules (the path of the first object that is not closed or does not require
/// every property, empty for the root), or `None` when it keeps them.
fn unstrict(schema: &Value, at: &str) -> Option<String> {
    let inside = |part: &str| if at.is_empty() { part.to_string() } else { format!("{at}, {part}") };
    if schema["type"] == "object" {
        let properties = schema["properties"].as_object();
        let keys: BTreeSet<&str> = properties.into_iter().flatten().map(|(k, _)| k.as_str()).collect();
        let required: BTreeSet<&str> =
            schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        if schema["additionalProperties"] != false || keys != required {
            return Some(at.to_string());
        }
        for (key, property) in properties.into_iter().flatten() {
            if let Some(broken) = unstrict(property, &inside(&format!("'{key}'"))) {
                return Some(broken);
            }
        }
    }
    match schema.get("items") {
        Some(items) if schema["type"] == "array" => unstrict(items, &inside("'items'")),
        _ => None,
    }
}

/// OpenAI's refusal of an invalid message, naming the message.
fn openai_invalid(message: &str, at: usize) -> String {
    let param = format!("messages.[{at}].role");
    json!({"error": {"message": message, "type": "invalid_request_error", "param": param, "code": null}}).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    const THOUGHTFUL: &str = "<think>\nmaybe search_class(\"B\")\n</think>\n\nsearch_class(\"A\")";

    #[test]
    fn thinking_goes_where_each_server_puts_it() {
        assert_eq!(Dialect::OpenAi.shape(THOUGHTFUL), Shaped { content: THOUGHTFUL.into(), thinking: None });
        let ollama = Dialect::Ollama.shape(THOUGHTFUL);
        assert_eq!(ollama.thinking, Some(("reasoning", "maybe search_class(\"B\")".into())));
        assert_eq!(Dialect::Vllm.shape(THOUGHTFUL).thinking.map(|t| t.0), Some("reasoning_content"));
        assert_eq!(Dialect::LmStudio.shape(THOUGHTFUL).content, THOUGHTFUL);
        let plain = "search_class(\"A\")";
        assert!(
            Dialect::value_variants()
                .iter()
                .all(|d| d.shape(plain) == Shaped { content: plain.into(), thinking: None })
        );
    }

    #[test]
    fn refusals_follow_each_servers_defaults() {
        let tools = json!({"tools": [{"type": "function"}]});
        let refused: Vec<Dialect> =
            Dialect::value_variants().iter().copied().filter(|d| d.refusal(&tools, 10, None).is_some()).collect();
        assert_eq!(refused, [Dialect::Vllm, Dialect::LlamaCpp]);
        let json_mode = json!({"response_format": {"type": "json_object"}});
        let refused: Vec<Dialect> =
            Dialect::value_variants().iter().copied().filter(|d| d.refusal(&json_mode, 10, None).is_some()).collect();
        assert_eq!(refused, [Dialect::LmStudio]);
        let (status, body) = Dialect::LmStudio.refusal(&json_mode, 10, None).unwrap();
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert!(body.contains("response_format"), "{body}");
    }

    /// Every current release takes the agent's schemas (OpenAI's strict rules hold for each), except that OpenAI
    /// refuses bounds on lengths (the proxy's lists, every bounded text) and takes each schema without them; it refuses a schema that breaks its
    /// rules. Without structured outputs each server refuses a schema in words the agent reads as a refusal of the
    /// schema, except Ollama before 0.5, which takes it, ignores it, and names its release.
    #[test]
    fn json_schemas_are_taken_or_refused_as_each_server_does() {
        let ask = |schema: &acr_core::llm::JsonSchema| json!({"response_format": schema.response_format()});
        for &dialect in Dialect::value_variants() {
            for shape in acr_core::answers::Shape::ALL {
                let schema = shape.schema();
                let refused = dialect.schema_refusal(&ask(&schema), true);
                if dialect == Dialect::OpenAi && schema.unbounded().is_some() {
                    let (status, body) = refused.expect("maxLength refused");
                    let message = acr_core::llm::wire::error_message(&body);
                    assert!(message.contains("'maxLength' is not permitted"), "{message}");
                    assert!(acr_core::llm::schema::refused(status.as_u16(), &message), "{message}");
                    let unbounded = schema.unbounded().expect("bounds");
                    assert_eq!(dialect.schema_refusal(&ask(&unbounded), true), None, "{shape:?} unbounded");
                    continue;
                }
                assert_eq!(refused, None, "{dialect:?} {shape:?}");
            }
        }
        let open = acr_core::llm::JsonSchema {
            name: "loose".into(),
            schema: json!({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "object", "properties": {"b": {"type": "string"}}, "required": ["b"]}}}, "required": ["a"], "additionalProperties": false}),
        };
        let (status, body) = Dialect::OpenAi.schema_refusal(&ask(&open), true).expect("refused");
        let message = acr_core::llm::wire::error_message(&body);
        assert!(message.contains("In context=('a', 'items')"), "{message}");
        assert!(acr_core::llm::schema::refused(status.as_u16(), &message), "{message}");
        assert_eq!(Dialect::LlamaCpp.schema_refusal(&ask(&open), true), None, "llama.cpp makes a grammar of it");
        let unnamed = json!({"response_format": {"type": "json_schema", "json_schema": {"schema": {}}}});
        assert!(Dialect::OpenAi.schema_refusal(&unnamed, true).is_some());

        let request = ask(&acr_core::answers::Shape::Review.schema());
        for &dialect in Dialect::value_variants() {
            match dialect.schema_refusal(&request, false) {
                None => assert_eq!(dialect, Dialect::Ollama, "only Ollama ignores it"),
                Some((status, body)) => {
                    let message = acr_core::llm::wire::error_message(&body);
                    assert!(acr_core::llm::schema::refused(status.as_u16(), &message), "{dialect:?}: {message}");
                }
            }
        }
        assert_eq!(Dialect::Ollama.version(true), Some("0.12.6"));
        assert_eq!(acr_core::llm::schema::ollama_takes_schemas(Dialect::Ollama.version(false).unwrap()), Some(false));
        assert_eq!(Dialect::Vllm.version(true), None);
        assert_eq!(Dialect::OpenAi.schema_refusal(&json!({"response_format": {"type": "text"}}), false), None);
    }

    /// A `tool` message whose call was left out, or a call left without its result: OpenAI and vLLM refuse the
    /// conversation in their words and the others
    /// take it.
    #[test]
    fn tool_messages_that_do_not_pair_are_refused_by_openai_and_vllm() {
        let call =
            json!([{"id": "call_1", "type": "function", "function": {"name": "search_class", "arguments": "{}"}}]);
        let orphan = json!({"messages": [
            {"role": "user", "content": "issue"},
            {"role": "tool", "tool_call_id": "call_2", "content": "result"},
            {"role": "user", "content": "analyse"}]});
        let unanswered = json!({"messages": [
            {"role": "user", "content": "issue"},
            {"role": "assistant", "content": "", "tool_calls": call},
            {"role": "user", "content": "analyse"}]});
        let cases = [
            (Dialect::OpenAi, &orphan, "messages with role 'tool' must be a response to a preceeding message"),
            (Dialect::OpenAi, &unanswered, "did not have response messages: call_1"),
            (Dialect::Vllm, &orphan, "Unexpected role 'tool' after role 'user'"),
            (Dialect::Vllm, &unanswered, "Not the same number of function calls and responses"),
        ];
        for (dialect, request, words) in cases {
            let (status, body) = dialect.refusal(request, 10, None).expect("refused");
            assert_eq!(status, StatusCode::BAD_REQUEST);
            assert!(acr_core::llm::wire::error_message(&body).contains(words), "{dialect:?}: {body}");
        }
        for dialect in [Dialect::Ollama, Dialect::LmStudio, Dialect::LlamaCpp] {
            assert_eq!(dialect.refusal(&orphan, 10, None), None, "{dialect:?}");
        }
        let paired = json!({"messages": [
            {"role": "user", "content": "issue"},
            {"role": "assistant", "content": "", "tool_calls": call},
            {"role": "tool", "tool_call_id": "call_1", "content": "result"},
            {"role": "user", "content": "analyse"}]});
        assert_eq!(Dialect::OpenAi.refusal(&paired, 10, None), None);
    }

    #[test]
    fn a_prompt_over_the_context_is_refused_except_by_ollama() {
        let request = json!({"max_tokens": 100});
        for &dialect in Dialect::value_variants() {
            assert_eq!(dialect.refusal(&request, 900, Some(1000)), None, "{dialect:?}: it fits");
            // llama.cpp counts the prompt alone.
            let over = dialect.refusal(&request, if dialect == Dialect::LlamaCpp { 1001 } else { 901 }, Some(1000));
            assert_eq!(over.is_none(), dialect.truncates_silently(), "{dialect:?}");
            if let Some((_, body)) = over {
                assert!(body.contains("context"), "{dialect:?}: {body}");
            }
        }
        let vllm: Value = serde_json::from_str(&Dialect::Vllm.refusal(&request, 2000, Some(1000)).unwrap().1).unwrap();
        assert_eq!(vllm["object"], "error", "vLLM's own error shape");
        assert!(vllm["message"].as_str().unwrap().contains("maximum context length is 1000 tokens"));
        // Each refusal is read for the prompt alone, as the agent reads it, whether the answer's cap or the prompt
        // itself went over.
        for dialect in [Dialect::OpenAi, Dialect::Vllm, Dialect::LlamaCpp] {
            for prompt in [950, 2000] {
                let Some((_, body)) = dialect.refusal(&request, prompt, Some(1000)) else {
                    assert_eq!(dialect, Dialect::LlamaCpp, "llama.cpp alone counts the prompt without the answer");
                    continue;
                };
                let message = acr_core::llm::wire::error_message(&body);
                let overflow = acr_core::llm::window::Overflow::read(400, &body, &message).expect("an overflow");
                assert_eq!(overflow.window, Some(1000), "{dialect:?}: {message}");
                assert_eq!(overflow.prompt_size(100), Some(prompt), "{dialect:?}: {message}");
            }
        }
    }
}
