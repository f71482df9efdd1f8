//! Answers constrained to a JSON schema: the stages whose answer must be JSON (the proxy's calls and locations, the
//! reviewer's verdict, whether an issue is reproducible, an MCTS rating, the choice among patches) send the schema of
//! that JSON with the request, and a server that can constrain its decoding to it writes nothing else.
//!
//! The schemas are written once, next to the readers that read those answers ([`crate::answers::Shape`]); here they
//! travel. Every server the agent is pointed at takes them in OpenAI's form, `response_format: {"type":
//! "json_schema", "json_schema": {"name", "schema", "strict": true}}` ([`JsonSchema::response_format`]):
//!
//! | server | takes it | how it constrains |
//! |---|---|---|
//! | OpenAI | gpt-4o (2024-08-06) and later; older models refuse it with a 400 naming `response_format` | strict structured outputs |
//! | llama.cpp `llama-server` | yes (its `/props` says the server is one) | the schema becomes a grammar; an unusable schema is a 400 |
//! | vLLM | yes | guided decoding (xgrammar, guidance) |
//! | LM Studio | yes (and only this form: `json_object` is refused) | its grammar |
//! | Ollama `/v1` | since 0.5.0 (`/api/version` says which); older releases ignore it in silence | llama.cpp's grammar, as its native `format` |
//!
//! A server that refuses a schema says so with a 400, 422 or 500 naming the response format, a schema or a grammar
//! ([`refused`]); the client does not retry such an answer, and the agent asks again at once without a schema, and
//! for the rest of the run, as it does when tools are refused. The answers are read with the same tolerance either
//! way, so a server that ignores the schema costs nothing but the constraint.
//!
//! The schemas keep to what every one of these servers takes: objects whose properties are all required and closed
//! (`additionalProperties: false`, as OpenAI's strict mode wants), strings, booleans, integers, enums of strings and
//! arrays. No `pattern`: llama.cpp's parser of constrained output refused answers under a pattern that it had let the
//! model write (a 500), where the same schema without it worked. The proxy's schema bounds its lists and texts
//! (`maxItems`, `maxLength`), which keeps a small model from listing or repeating until its answer is cut; OpenAI's
//! strict mode refuses `maxLength`, so a refused schema with bounds is asked again at once without them
//! ([`JsonSchema::unbounded`]), and only a refusal of that drops the schema.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// A JSON schema an answer must follow, with the name servers want for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonSchema {
    /// A short name of letters, digits, `_` and `-` (OpenAI requires one).
    pub name: String,
    /// The schema.
    pub schema: Value,
}

/// The keywords that bound a schema's lists and texts, which some servers refuse (OpenAI's strict mode: `maxLength`).
const BOUNDS: [&str; 4] = ["maxItems", "minItems", "maxLength", "minLength"];

impl JsonSchema {
    /// The same schema without its bounds (`maxItems`, `maxLength`, ...), for a server that refused them; `None` when
    /// it has none.
    pub fn unbounded(&self) -> Option<JsonSchema> {
        // A schema's keywords, and below them the schemas of its properties and items (whose names are not keywords).
        fn strip(schema: &mut Value) -> bool {
            let Some(map) = schema.as_object_mut() else { return false };
            let before = map.len();
            map.retain(|k, _| !BOUNDS.contains(&k.as_str()));
            let mut stripped = map.len() < before;
            if let Some(properties) = map.get_mut("properties").and_then(Value::as_object_mut) {
                stripped = properties.values_mut().fold(stripped, |s, property| strip(property) | s);
            }
            if let Some(items) = map.get_mut("items") {
                stripped |= strip(items);
            }
            stripped
        }
        let mut schema = self.schema.clone();
        strip(&mut schema).then(|| JsonSchema { name: self.name.clone(), schema })
    }

    /// The request's `response_format` that asks for an answer in this schema.
    pub fn response_format(&self) -> Value {
        json!({"type": "json_schema", "json_schema": {"name": self.name, "schema": self.schema, "strict": true}})
    }
}

/// Whether an error answer to a request with a schema is the server refusing the schema, so the request can go again
/// without it: a bad request (400, 422) or a server that cannot do it (500, 501) whose message names the response
/// format, a schema, a grammar or guided decoding. A refusal for anything else that happens to say one of those words
/// costs the run its constraint, never an answer.
pub fn refused(status: u16, message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    matches!(status, 400 | 422 | 500 | 501)
        && ["format", "schema", "grammar", "guided", "structured"].iter().any(|k| m.contains(k))
}

/// Whether an Ollama release (`/api/version`'s `version`, such as `0.5.7` or `0.12.3-rc1`) constrains answers to a
/// `response_format` schema on its `/v1` endpoint: from 0.5.0 on. `None` for a version that cannot be read.
pub fn ollama_takes_schemas(version: &str) -> Option<bool> {
    let mut parts = version.trim().trim_start_matches('v').split(['.', '-', '+']);
    let major: u64 = parts.next()?.parse().ok()?;
    let minor: u64 = parts.next()?.parse().ok()?;
    Some((major, minor) >= (0, 5))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_come_off_and_nothing_else_does() {
        let bounded = JsonSchema {
            name: "calls".into(),
            schema: json!({"type": "object", "properties": {"maxItems": {"type": "array", "maxItems": 3, "items": {"type": "string", "maxLength": 9}}}}),
        };
        let unbounded = bounded.unbounded().expect("it had bounds");
        assert_eq!(unbounded.name, "calls");
        assert_eq!(
            unbounded.schema,
            json!({"type": "object", "properties": {"maxItems": {"type": "array", "items": {"type": "string"}}}}),
            "a property that happens to be called maxItems stays"
        );
        assert_eq!(unbounded.unbounded(), None);
    }

    #[test]
    fn the_response_format_is_openais_strict_json_schema() {
        let schema = JsonSchema { name: "verdict".into(), schema: json!({"type": "object"}) };
        assert_eq!(
            schema.response_format(),
            json!({"type": "json_schema", "json_schema": {"name": "verdict", "schema": {"type": "object"}, "strict": true}})
        );
    }

    /// Each server's own refusal of a schema, and refusals of other things that must not be taken for one.
    #[test]
    fn refusals_of_a_schema_are_recognised_by_status_and_words() {
        let refusals: [(u16, &str); 5] = [
            // OpenAI, a model without structured outputs.
            (400, "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model."),
            // llama.cpp before json_schema was read from response_format (an exception, so a 500).
            (500, "response_format type must be one of \"text\" or \"json_object\", but got: json_schema"),
            // llama.cpp with a schema it cannot turn into a grammar.
            (400, "JSON schema conversion failed:\nUnrecognized schema: {\"type\":\"bogus\"}"),
            // llama.cpp with --jinja and a template that brings its own grammar.
            (400, "Either \"json_schema\" or \"grammar\" can be specified, but not both"),
            // vLLM with a backend that cannot compile the schema.
            (400, "The provided JSON schema contains features not supported by xgrammar."),
        ];
        for (status, message) in refusals {
            assert!(refused(status, message), "{status} {message}");
        }
        assert!(!refused(400, "This model's maximum context length is 8192 tokens"));
        assert!(!refused(401, "Invalid response_format for this key"), "a refused key is not a refused schema");
        assert!(!refused(503, "server busy"));
    }

    #[test]
    fn ollama_takes_schemas_from_0_5_on() {
        assert_eq!(ollama_takes_schemas("0.5.0"), Some(true));
        assert_eq!(ollama_takes_schemas("0.12.3-rc1"), Some(true));
        assert_eq!(ollama_takes_schemas("1.0"), Some(true));
        assert_eq!(ollama_takes_schemas("0.4.7"), Some(false));
        assert_eq!(ollama_takes_schemas("v0.3.14"), Some(false));
        assert_eq!(ollama_takes_schemas("dev"), None);
    }
}
