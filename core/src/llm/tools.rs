//! Tool calling: the search APIs offered as chat-completions `tools`, and the calls a model makes with them.
//!
//! A [`Tool`] is one API of [`crate::api::APIS`] with a JSON Schema generated from its parameters, so the table stays
//! the one source of what the model may call. A [`ToolCall`] is a call the model asked for, serialised in the wire
//! form of chat completions, so the same value travels in requests (the assistant's `tool_calls`), answers,
//! transcripts and scripts. Answers carry them whole ([`read_message`]) or in pieces across streamed chunks
//! ([`Deltas`]).
//!
//! Not every server takes `tools`: vLLM without `--enable-auto-tool-choice` and llama.cpp without `--jinja` refuse
//! them with an error that names them ([`refused`]); the agent then goes on without, after turning a conversation
//! that already holds tool messages into plain ones ([`flatten`]).

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{Message, Role};
use crate::call::{ArgValue, SearchCall};
use crate::prompt::text;

/// Most tool calls read from one answer; more are dropped (a model that asks for hundreds of searches at once is
/// broken, and a streamed `index` must not size an allocation).
pub const MAX_CALLS: usize = 64;

/// A function the model may call instead of answering in text (a chat-completions tool).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    /// The function's name.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// A JSON Schema of its arguments.
    pub parameters: Value,
}

impl Tool {
    /// The search APIs as tools, from [`crate::api::APIS`].
    pub fn search_apis() -> Vec<Tool> {
        crate::api::APIS
            .iter()
            .map(|a| Tool {
                name: a.name.to_string(),
                description: a.summary.to_string(),
                parameters: a.parameters_schema(),
            })
            .collect()
    }

    /// The tool as a request's `tools` list holds it.
    pub fn to_json(&self) -> Value {
        json!({"type": "function", "function": {"name": self.name, "description": self.description, "parameters": self.parameters}})
    }
}

/// A call the model asked for: which function, with which arguments (a JSON text, as the model wrote it).
/// Serialised as chat completions carry it: `{"id", "type": "function", "function": {"name", "arguments"}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "WireCall", from = "WireCall")]
pub struct ToolCall {
    /// The server's id for the call, which the result must quote.
    pub id: String,
    /// The function called.
    pub name: String,
    /// The arguments as JSON text (not necessarily valid: models write them).
    pub arguments: String,
}

impl ToolCall {
    /// The call a search call is, as a model would make it (arguments keyed by parameter name).
    pub fn of(call: &SearchCall, id: impl Into<String>) -> ToolCall {
        let mut arguments = serde_json::Map::new();
        for (param, value) in call.spec().params.iter().zip(call.values()) {
            let value = match value {
                ArgValue::Text(t) => json!(t),
                ArgValue::Number(n) => json!(n),
            };
            arguments.insert(param.name.to_string(), value);
        }
        ToolCall { id: id.into(), name: call.name().to_string(), arguments: Value::Object(arguments).to_string() }
    }

    /// The search call this is, checked against the API table, or what is wrong with it in words.
    pub fn search_call(&self) -> Result<SearchCall, String> {
        let args: Value = if self.arguments.trim().is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&self.arguments).map_err(|e| format!("the arguments are not JSON ({e})"))?
        };
        SearchCall::from_json(&self.name, &args).and_then(SearchCall::checked).map_err(|e| e.to_string())
    }

    /// The call as a line of text (`search_class({"class_name": "Cart"})`), for a conversation without tools.
    pub fn as_text(&self) -> String {
        match self.search_call() {
            Ok(call) => call.to_string(),
            Err(_) => format!("{}({})", self.name, self.arguments),
        }
    }
}

/// [`ToolCall`] as it travels.
#[derive(Serialize, Deserialize)]
struct WireCall {
    #[serde(default)]
    id: String,
    #[serde(rename = "type", default = "function")]
    kind: String,
    function: WireFunction,
}

#[derive(Serialize, Deserialize)]
struct WireFunction {
    #[serde(default)]
    name: String,
    #[serde(default, deserialize_with = "arguments_text")]
    arguments: String,
}

fn function() -> String {
    "function".to_string()
}

/// Arguments as text whether a server sent a JSON string (OpenAI) or an object (some local servers).
fn arguments_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::String(s) => s,
        Value::Null => String::new(),
        other => other.to_string(),
    })
}

impl From<ToolCall> for WireCall {
    fn from(c: ToolCall) -> Self {
        WireCall { id: c.id, kind: function(), function: WireFunction { name: c.name, arguments: c.arguments } }
    }
}

impl From<WireCall> for ToolCall {
    fn from(w: WireCall) -> Self {
        ToolCall { id: w.id, name: w.function.name, arguments: w.function.arguments }
    }
}

/// The tool calls of an answer's `message` (at most [`MAX_CALLS`]); calls without an id get one (`call_1`, ...), as
/// some servers send none and the results must name them.
pub fn read_message(message: &Value) -> Vec<ToolCall> {
    let Some(list) = message.get("tool_calls").and_then(Value::as_array) else { return Vec::new() };
    let calls = list.iter().take(MAX_CALLS).filter_map(|c| ToolCall::deserialize(c).ok());
    with_ids(calls.filter(|c| !c.name.is_empty()).collect())
}

fn with_ids(mut calls: Vec<ToolCall>) -> Vec<ToolCall> {
    for (i, call) in calls.iter_mut().enumerate() {
        if call.id.is_empty() {
            call.id = format!("call_{}", i + 1);
        }
    }
    calls
}

/// Tool calls arriving in pieces over a streamed answer: each chunk's `delta.tool_calls` entries carry an `index`,
/// the id and name once, and the arguments in fragments to be joined.
#[derive(Debug, Clone, Default)]
pub struct Deltas {
    calls: Vec<ToolCall>,
}

impl Deltas {
    /// Adds a chunk's `delta` (or whole `message`).
    pub fn push(&mut self, delta: &Value) {
        let Some(list) = delta.get("tool_calls").and_then(Value::as_array) else { return };
        for (position, piece) in list.iter().enumerate() {
            let index = piece.get("index").and_then(Value::as_u64).map_or(position, |i| i as usize);
            if index >= MAX_CALLS {
                continue;
            }
            while self.calls.len() <= index {
                self.calls.push(ToolCall { id: String::new(), name: String::new(), arguments: String::new() });
            }
            let call = &mut self.calls[index];
            if let Some(id) = piece.get("id").and_then(Value::as_str) {
                call.id = id.to_string();
            }
            let function = piece.get("function");
            if let Some(name) = function.and_then(|f| f.get("name")).and_then(Value::as_str) {
                call.name.push_str(name);
            }
            match function.and_then(|f| f.get("arguments")) {
                Some(Value::String(s)) => call.arguments.push_str(s),
                Some(Value::Null) | None => {}
                Some(other) => call.arguments.push_str(&other.to_string()),
            }
        }
    }

    /// Bytes received so far.
    pub fn received(&self) -> usize {
        self.calls.iter().map(|c| c.name.len() + c.arguments.len()).sum()
    }

    /// The calls, once the stream has ended.
    pub fn finish(self) -> Vec<ToolCall> {
        with_ids(self.calls.into_iter().filter(|c| !c.name.is_empty()).collect())
    }
}

/// Whether an error answer to a request with `tools` is the server refusing tools, so the request can go again
/// without them. The statuses are those of a bad request (400, 422) or a server that cannot do it (500, 501); the
/// message must name tools, functions or the chat template that would render them (llama.cpp without `--jinja`), so
/// other bad requests are not mistaken for it.
pub fn refused(status: u16, message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    matches!(status, 400 | 422 | 500 | 501) && ["tool", "function", "template", "jinja"].iter().any(|k| m.contains(k))
}

/// Where a conversation breaks the rule chat-completions servers hold tool messages to: each `tool` message answers a
/// call of the assistant turn just before it (other results of that turn between them), and every call of a turn is
/// answered before a message of another role. OpenAI refuses a conversation that breaks it with a 400, and so does
/// vLLM serving a Mistral model; the agent never sends one ([`super::window::fit`] leaves out whole exchanges).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unpaired {
    /// The `tool` message at this index answers no call of the turn before it.
    Orphan(usize),
    /// The assistant turn at this index made calls that no `tool` message answers (their ids).
    Unanswered(usize, Vec<String>),
}

/// The first place where `messages` break the rule of [`Unpaired`]; `None` for a conversation a server takes.
pub fn unpaired(messages: &[Message]) -> Option<Unpaired> {
    // The turn whose calls are being answered, with the ids not answered yet.
    let mut open: Option<(usize, Vec<&str>)> = None;
    for (i, message) in messages.iter().enumerate() {
        if message.role == Role::Tool {
            let answered = open.as_mut().zip(message.tool_call_id.as_deref()).and_then(|((_, ids), id)| {
                let at = ids.iter().position(|x| *x == id)?;
                Some(ids.remove(at))
            });
            if answered.is_none() {
                return Some(Unpaired::Orphan(i));
            }
            continue;
        }
        if let Some(unanswered) = open.take().and_then(unanswered) {
            return Some(unanswered);
        }
        if message.role == Role::Assistant && !message.tool_calls.is_empty() {
            open = Some((i, message.tool_calls.iter().map(|c| c.id.as_str()).collect()));
        }
    }
    open.and_then(unanswered)
}

/// A turn's calls left without results, if any are.
fn unanswered((at, ids): (usize, Vec<&str>)) -> Option<Unpaired> {
    (!ids.is_empty()).then(|| Unpaired::Unanswered(at, ids.into_iter().map(str::to_string).collect()))
}

/// A conversation with tool calls and results turned into one without: each assistant message that called tools
/// says the calls in text, and the results become one user message of results, as the agent writes them without
/// tools. For a server that refused tools midway, and for stages that send the conversation with no tools.
pub fn flatten(messages: Vec<Message>) -> Vec<Message> {
    let mut out: Vec<Message> = Vec::with_capacity(messages.len());
    for m in messages {
        match m.role {
            Role::Assistant if !m.tool_calls.is_empty() => {
                let calls: Vec<String> = m.tool_calls.iter().map(ToolCall::as_text).collect();
                let content = [m.content.trim(), &calls.join("\n")].join("\n").trim().to_string();
                out.push(Message::assistant(content));
            }
            Role::Tool => match out.last_mut() {
                Some(last) if last.role == Role::User && text::results_calls(&last.content).is_some() => {
                    last.content.push_str(&m.content);
                }
                _ => out.push(Message::user(m.content)),
            },
            _ => out.push(m),
        }
    }
    out
}

/// The search calls a text names, as tool calls (`call_1`, ...): how a scripted model answers when offered tools.
pub fn calls_in(answer: &str) -> Vec<ToolCall> {
    let read = crate::answers::search::read(answer);
    let calls = read.result.api_calls.iter().filter_map(|c| SearchCall::parse(c).ok());
    calls.take(MAX_CALLS).enumerate().map(|(i, c)| ToolCall::of(&c, format!("call_{}", i + 1))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_travels_in_the_wire_form_and_back() {
        let call = ToolCall::of(&SearchCall::parse("get_code_around_line(\"a.py\", 12)").unwrap(), "c1");
        let wire = serde_json::to_value(&call).unwrap();
        assert_eq!(wire["type"], "function");
        assert_eq!(wire["function"]["name"], "get_code_around_line");
        let args: Value = serde_json::from_str(wire["function"]["arguments"].as_str().unwrap()).unwrap();
        assert_eq!(args, json!({"file_name": "a.py", "line_no": 12, "window": 10}));
        assert_eq!(serde_json::from_value::<ToolCall>(wire).unwrap(), call);
        assert_eq!(call.search_call().unwrap().to_string(), "get_code_around_line(\"a.py\", 12, 10)");
    }

    #[test]
    fn bad_calls_say_what_is_wrong() {
        let call =
            |name: &str, arguments: &str| ToolCall { id: "x".into(), name: name.into(), arguments: arguments.into() };
        assert!(call("search_class", "{\"class_name\": ").search_call().unwrap_err().contains("not JSON"));
        assert!(call("search_klass", "{}").search_call().unwrap_err().contains("search_class"), "a suggestion");
        assert!(call("search_class", "{\"class_name\": \"\"}").search_call().is_err(), "blank text");
        assert!(call("search_class", "{\"class_name\": [1]}").search_call().is_err());
        // Some servers send the arguments as an object rather than a string of JSON.
        let object = json!({"id": "a", "function": {"name": "search_class", "arguments": {"class_name": "Cart"}}});
        let read: ToolCall = serde_json::from_value(object).unwrap();
        assert_eq!(read.search_call().unwrap().to_string(), "search_class(\"Cart\")");
    }

    #[test]
    fn calls_are_read_from_a_message_with_ids_made_up_when_missing() {
        let message = json!({"content": null, "tool_calls": [
            {"id": "call_a", "type": "function", "function": {"name": "search_class", "arguments": "{\"class_name\":\"A\"}"}},
            {"type": "function", "function": {"name": "search_method", "arguments": "{\"method_name\":\"f\"}"}},
            {"type": "function", "function": {"arguments": "{}"}},
            "nonsense"
        ]});
        let calls = read_message(&message);
        assert_eq!(calls.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(), ["call_a", "call_2"]);
        assert!(read_message(&json!({"content": "x"})).is_empty());
    }

    #[test]
    fn streamed_pieces_join_up_by_index() {
        let mut deltas = Deltas::default();
        for piece in [
            json!({"tool_calls": [{"index": 0, "id": "c0", "function": {"name": "search_class", "arguments": ""}}]}),
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"class_"}}]}),
            json!({"tool_calls": [{"index": 1, "id": "c1", "function": {"name": "search_method", "arguments": "{\"method_name\": \"f\"}"}}]}),
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "name\": \"A\"}"}}]}),
            json!({"tool_calls": [{"index": 1_000_000_000u64, "function": {"name": "search_class"}}]}),
            json!({"content": "no calls here"}),
        ] {
            deltas.push(&piece);
        }
        let calls = deltas.finish();
        assert_eq!(calls.len(), 2, "an absurd index is dropped, not allocated for");
        assert_eq!(calls[0].search_call().unwrap().to_string(), "search_class(\"A\")");
        assert_eq!(calls[1].id, "c1");
    }

    #[test]
    fn refusals_are_recognised_by_status_and_words() {
        assert!(refused(400, "tools param requires --jinja flag"));
        assert!(refused(400, "\"auto\" tool choice requires --enable-auto-tool-choice"));
        assert!(refused(400, "registry.ollama.ai/library/gemma:2b does not support tools"));
        assert!(!refused(400, "This model's maximum context length is 8192 tokens"));
        assert!(!refused(401, "tools are not for you"));
    }

    #[test]
    fn tool_messages_pair_with_the_calls_of_the_turn_before() {
        let call = |id: &str| ToolCall { id: id.into(), name: "search_class".into(), arguments: "{}".into() };
        let turn =
            |ids: &[&str]| Message { tool_calls: ids.iter().map(|id| call(id)).collect(), ..Message::assistant("") };
        let paired = vec![
            Message::user("issue"),
            turn(&["a", "b"]),
            Message::tool("b", "result b"),
            Message::tool("a", "result a"),
            Message::user("analyse"),
            Message::assistant("no calls"),
        ];
        assert_eq!(unpaired(&paired), None);
        // The oldest turn left out with its first result only: the second result answers nothing.
        let orphan = [&paired[..1], &paired[3..]].concat();
        assert_eq!(unpaired(&orphan), Some(Unpaired::Orphan(1)));
        let unknown_id = vec![turn(&["a"]), Message::tool("z", "result")];
        assert_eq!(unpaired(&unknown_id), Some(Unpaired::Orphan(1)));
        let twice = vec![turn(&["a"]), Message::tool("a", "result"), Message::tool("a", "again")];
        assert_eq!(unpaired(&twice), Some(Unpaired::Orphan(2)));
        // A turn whose results were left out: its calls are unanswered when the next message comes.
        let unanswered = [&paired[..3], &paired[4..]].concat();
        assert_eq!(unpaired(&unanswered), Some(Unpaired::Unanswered(1, vec!["a".into()])));
        assert_eq!(unpaired(&paired[..2]), Some(Unpaired::Unanswered(1, vec!["a".into(), "b".into()])));
    }

    #[test]
    fn a_conversation_with_tools_flattens_to_text() {
        let call = ToolCall::of(&SearchCall::parse("search_class(\"A\")").unwrap(), "c1");
        let results = text::call_results(&[(call.search_call().unwrap(), "class A: ...".into())]);
        let messages = vec![
            Message::user("issue"),
            Message { tool_calls: vec![call.clone(), call.clone()], ..Message::assistant("Looking.") },
            Message::tool("c1", results.clone()),
            Message::tool("c1", results.clone()),
            Message::user("Analyse."),
        ];
        let flat = flatten(messages);
        assert_eq!(flat.len(), 4);
        assert_eq!(flat[1].content, "Looking.\nsearch_class(\"A\")\nsearch_class(\"A\")");
        assert_eq!(flat[2].role, Role::User);
        assert_eq!(flat[2].content, results.repeat(2));
        assert!(flat.iter().all(|m| m.tool_calls.is_empty() && m.tool_call_id.is_none()));
    }

    #[test]
    fn a_scripted_answer_becomes_tool_calls() {
        let calls = calls_in("I will look.\nsearch_class(\"Cart\")\nsearch_method_in_class(\"total\", \"Cart\")");
        assert_eq!(calls.len(), 2);
        let args: Value = serde_json::from_str(&calls[1].arguments).unwrap();
        assert_eq!(args, json!({"method_name": "total", "class_name": "Cart"}));
        assert!(calls_in("The bug is in Cart.total.").is_empty());
    }
}
