//! From model text to typed values: the one place where the agent reads what a model wrote.
//!
//! Every answer the agent receives is read here, with the same tolerance: JSON may be loose or wrapped in prose
//! ([`json`]), keys are matched loosely, code may be fenced or not, and what cannot be read is `None` (or, for a
//! search answer, marked incomplete) so the caller can ask again rather than act on a guess.
//!
//! | the answer to | read by | gives |
//! |---|---|---|
//! | a search request (choose calls, decide) and the proxy model's JSON | [`search::read`] | [`SearchAnswer`]: calls as written, bug locations, where they came from, whether all was read |
//! | a patch request | [`edits`] (the patch layer's parser) | [`Edit`]s |
//! | an infill or whole-function request | [`code_block`], [`reflection`] | the code, the reasoning before it |
//! | the reviewer | [`review`] | [`ReviewVerdict`] |
//! | "is this reproducible?" | [`yes_no`] | `bool` |
//! | a rating request (MCTS) | [`rating`] | 0 to 100 |
//! | the choice among patches | [`choice`] | a 1-based candidate number |
//!
//! The answers that must be JSON have a [`Shape`]: its JSON schema, written next to the reader that reads it, is
//! sent with the request for servers that can hold the model to it ([`crate::llm::schema`]).

pub mod json;
mod location;
mod prose;
pub mod search;
mod text;
mod verdict;

pub use crate::patch::{Edit, parse_edits as edits};
pub use location::LocationSpec;
pub use search::{ProxyResult, SearchAnswer, Source};
pub use text::{choice, code_block, rating, reflection, yes_no};
pub use verdict::{ReviewVerdict, review};

use crate::llm::JsonSchema;

/// An answer that must be JSON, by what it answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    /// The proxy model's calls and bug locations, read by [`search::read`].
    Proxy,
    /// The reviewer's verdict, read by [`review`].
    Review,
    /// Whether the issue has a reproducible example, read by [`yes_no`] under `reproducible`.
    Reproducible,
    /// An MCTS rating from 0 to 100, read by [`rating`].
    Rating,
    /// The choice among patches, read by [`choice`].
    Choice,
}

/// A string of at most `chars` characters, as a schema property: the bound keeps a small model held to a schema from
/// running on inside one string until its answer is cut (Qwen2.5-Coder-1.5B did so in a "reproducible?" reason, two
/// answers of three, with no bound), and goes with the other bounds when a server refuses them.
pub(crate) fn text_schema(chars: usize) -> serde_json::Value {
    serde_json::json!({"type": "string", "maxLength": chars})
}

/// The longest reason or analysis a schema lets a model write: more than any a model needs for one of these answers.
pub(crate) const MAX_TEXT_CHARS: usize = 1000;

impl Shape {
    /// Every shape.
    pub const ALL: [Shape; 5] = [Shape::Proxy, Shape::Review, Shape::Reproducible, Shape::Rating, Shape::Choice];

    /// The shape's JSON schema, named for servers that want a name.
    pub fn schema(self) -> JsonSchema {
        let (name, schema) = match self {
            Shape::Proxy => ("search_calls_and_bug_locations", search::schema()),
            Shape::Review => ("review", verdict::schema()),
            Shape::Reproducible => ("reproducible", text::yes_no_schema("reproducible")),
            Shape::Rating => ("rating", text::rating_schema()),
            Shape::Choice => ("choice", text::choice_schema()),
        };
        JsonSchema { name: name.to_string(), schema }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    /// The smallest answer a schema allows, as a server holding the model to it could make: every property given,
    /// the first value of an enum, an array of one item (`fill` for strings, 1 for integers).
    fn instance(schema: &Value, fill: &str) -> Value {
        if let Some(first) = schema["enum"].as_array().and_then(|e| e.first()) {
            return first.clone();
        }
        match schema["type"].as_str() {
            Some("object") => {
                let properties = schema["properties"].as_object().expect("properties");
                Value::Object(properties.iter().map(|(k, v)| (k.clone(), instance(v, fill))).collect())
            }
            Some("array") => json!([instance(&schema["items"], fill)]),
            Some("string") => json!(fill),
            Some("integer") => json!(1),
            Some("boolean") => json!(true),
            other => panic!("a type the servers may not all take: {other:?}"),
        }
    }

    /// Each schema is one every server named in `llm::schema` takes in strict mode: objects closed, every property
    /// required, names of letters, digits, `_` and `-`.
    fn check_strict(schema: &Value, at: &str) {
        if schema["type"] == "object" {
            assert_eq!(schema["additionalProperties"], false, "{at}: closed");
            let mut keys: Vec<&str> =
                schema["properties"].as_object().expect("properties").keys().map(|k| k.as_str()).collect();
            let mut required: Vec<&str> =
                schema["required"].as_array().expect("required").iter().map(|k| k.as_str().unwrap()).collect();
            keys.sort_unstable();
            required.sort_unstable();
            assert_eq!(keys, required, "{at}: every property required");
            for (key, property) in schema["properties"].as_object().unwrap() {
                check_strict(property, &format!("{at}.{key}"));
            }
        }
        if schema["type"] == "array" {
            check_strict(&schema["items"], &format!("{at}[]"));
        }
        assert!(schema.get("pattern").is_none(), "{at}: no pattern (llama.cpp's parser refuses answers under one)");
    }

    #[test]
    fn every_schema_is_strict_and_what_it_allows_its_reader_reads() {
        for shape in Shape::ALL {
            let JsonSchema { name, schema } = shape.schema();
            assert!(name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'), "{name}");
            check_strict(&schema, &name);
            let answer = instance(&schema, "search_class(\"Cart\")").to_string();
            let read = match shape {
                Shape::Proxy => {
                    let read = search::read(&answer);
                    read.source == Source::Json
                        && read.result.api_calls == ["search_class(\"Cart\")"]
                        && read.result.bug_locations.len() == 1
                }
                Shape::Review => review(&answer).is_some(),
                Shape::Reproducible => yes_no(&answer, "reproducible") == Some(true),
                Shape::Rating => rating(&answer) == Some(1),
                Shape::Choice => choice(&answer, 2) == Some(1),
            };
            assert!(read, "{shape:?}: {answer}");
        }
    }

    /// The judgements are enums of the two words the reader takes, so a constrained reviewer cannot write a third.
    #[test]
    fn a_constrained_verdict_is_yes_or_no() {
        let schema = Shape::Review.schema().schema;
        for key in ["patch-correct", "test-correct"] {
            assert_eq!(schema["properties"][key]["enum"], json!(["yes", "no"]));
        }
        let no = r#"{"patch-correct": "no", "test-correct": "yes", "patch-analysis": "", "test-analysis": "", "patch-advice": "", "test-advice": ""}"#;
        let verdict = review(no).unwrap();
        assert!(!verdict.patch_correct && verdict.test_correct);
    }
}
