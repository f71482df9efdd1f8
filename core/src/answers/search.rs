//! The answer to a search request (which APIs to call, where the bug is) read as calls and bug locations.
//!
//! [`read`] looks, in order, for:
//!
//! 1. a JSON object with an `API_calls` or `bug_locations` key (see [`super::json`] for how loosely JSON is read; key
//!    names are matched loosely too: `api_calls`, `bug locations`, `file_name`, `intended_behaviour`, ...), or, when
//!    that object is malformed, its two fields read one by one;
//! 2. calls to the [`crate::api::APIS`] written in the prose (`` `search_class("Foo")` ``);
//! 3. bug locations written in the prose under a "where are bug locations" heading, in the labelled form models use
//!    (`File: ...`, `Class: ...`, `Method: ...`, `` `m` in class `C` ``, or one sentence: "The bug is located in ...").
//!
//! Besides what it found, a [`SearchAnswer`] says whether it read *everything* that looked like a call or a
//! location ([`SearchAnswer::complete`]): a call-like mention that does not parse, an API name that does not exist
//! (`search_code_in_class(...)`) or a line of the locations section it cannot read makes it incomplete, and the agent
//! then asks the proxy model instead of trusting a partial reading. A name that only differs from an API's by
//! `function` for `method` (`search_function("f")`) is read as that API, with a note.
//!
//! The same entry point reads the proxy model's JSON-mode reply.

use std::sync::LazyLock;

use regex_lite::Regex;
use serde::Serialize;
use serde_json::{Map, Value as Json};

use super::location::LocationSpec;
use super::{json, prose};
use crate::api::{APIS, api};
use crate::call::{Arg, Call, Value, parse_call_prefix};

/// Calls (as written, not yet validated) and bug locations: the shape of the proxy's JSON.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ProxyResult {
    /// Calls as written, e.g. `search_class("Foo")`.
    pub api_calls: Vec<String>,
    /// Locations the answer names as buggy.
    pub bug_locations: Vec<LocationSpec>,
}

/// Where the result came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// A JSON object in the answer.
    Json,
    /// Call-shaped text in the prose.
    ProseCalls,
    /// Labelled bug locations in the prose.
    ProseLocations,
    /// Nothing usable was found.
    Nothing,
}

/// What [`read`] made of an answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SearchAnswer {
    /// Calls and locations found.
    pub result: ProxyResult,
    /// Where they came from.
    pub source: Source,
    /// Whether everything call-like or location-like in the answer was read, and read one way only: no call left
    /// unparsed, no place named in the locations section missing from the reading, no name that may be a dunder
    /// name without its underscores, no request for more context made in words. For [`Source::Nothing`]: whether
    /// the answer is plainly empty of both (no code names, paths or calls at all).
    pub complete: bool,
    /// For [`Source::ProseCalls`]: whether the calls are asked for (they follow a "need more context" heading, or
    /// the answer names no bug location) rather than mentioned in passing.
    pub calls_requested: bool,
    /// Things noticed on the way (skipped entries, unparsable mentions, names read as another API), for traces.
    pub notes: Vec<String>,
}

/// Longest call text read from prose or a broken list, so that long answers with many calls stay linear.
const MAX_CALL_BYTES: usize = 4 * 1024;

/// At most [`MAX_CALL_BYTES`] of `text`, cut on a character boundary.
fn head(text: &str) -> &str {
    let mut end = text.len().min(MAX_CALL_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Reads calls and locations from an answer to a search request (or from the proxy model's JSON).
pub fn read(answer: &str) -> SearchAnswer {
    let mut notes = Vec::new();
    let found = |result, source, notes| SearchAnswer { result, source, complete: true, calls_requested: true, notes };
    for candidate in json::candidates(answer) {
        let Some(value) = json::parse_loose(candidate) else {
            continue;
        };
        if let Some(obj) = find_proxy_object(&value) {
            let result = from_object(obj, &mut notes);
            return found(result, Source::Json, notes);
        }
    }
    // Invalid JSON (typically call strings with unescaped inner quotes): recover the two fields one by one.
    for candidate in json::candidates(answer) {
        if let Some(result) = recover_fields(candidate, &mut notes) {
            notes.push("the JSON object was malformed; its fields were read one by one".to_string());
            return found(result, Source::Json, notes);
        }
    }
    let (api_calls, first_call, unread) = calls_in_prose(answer, &mut notes);
    if !api_calls.is_empty() || !unread.is_empty() {
        let calls_requested = first_call.is_some_and(|at| prose::calls_are_requested(answer, at));
        let source = if api_calls.is_empty() { Source::Nothing } else { Source::ProseCalls };
        let doubts = dunder_doubts(answer, &api_calls);
        notes.extend(doubts.iter().map(|(short, dunder)| format!("`{short}` may stand for `{dunder}`")));
        let complete = unread.is_empty() && doubts.is_empty();
        let result = ProxyResult { api_calls, bug_locations: Vec::new() };
        return SearchAnswer { result, source, complete, calls_requested, notes };
    }
    match prose::locations(answer) {
        Some(Ok(bug_locations)) if !bug_locations.is_empty() => {
            // Complete only when every place the section names is in the reading, and nothing else is asked for.
            let missing = prose::unnamed(answer, &bug_locations);
            if !missing.is_empty() {
                notes.push(format!("the locations name {} and the reading does not have it", missing.join(", ")));
            }
            let asks = prose::asks_for_more(answer);
            if asks {
                notes.push("the answer asks for more context in words".to_string());
            }
            let complete = missing.is_empty() && !asks;
            let result = ProxyResult { api_calls: Vec::new(), bug_locations };
            SearchAnswer { result, source: Source::ProseLocations, complete, calls_requested: true, notes }
        }
        Some(Err(line)) => {
            notes.push(format!("could not read the bug-location line `{}`", line.trim()));
            let result = ProxyResult::default();
            SearchAnswer { result, source: Source::Nothing, complete: false, calls_requested: false, notes }
        }
        _ => {
            let complete = prose::is_plain(answer);
            SearchAnswer {
                result: ProxyResult::default(),
                source: Source::Nothing,
                complete,
                calls_requested: false,
                notes,
            }
        }
    }
}

/// Most bug locations the proxy model's answer may list when it is held to [`schema`]: AutoCodeRover's recorded
/// GPT-4 run (`../shared/replay/proxy/acr-run-1.jsonl`, every try of its 1,197 proxy rounds) names at most 10 in one
/// answer (django-11910, round 2; then 9 and 8, once each). A small model held to the schema without a bound goes
/// on listing made-up places until its answer is cut (SmolLM2 did, unfinished JSON at the cap).
pub const MAX_LOCATIONS: usize = 10;

/// Longest call, file, class or method name in the proxy's JSON when it is held to [`schema`], in characters: twice
/// the longest of the recorded run (a call of 138 characters, a name of 132). The intended behaviour, "a sentence
/// or two", may be twice as long. Without these bounds SmolLM2 held to the schema at temperature 0 wrote one name
/// over and over until its answer was cut, in one of five answers; with them, none of the five.
pub const MAX_NAME_CHARS: usize = 300;

/// The JSON schema of the proxy model's answer, the object [`read`] reads first: `API_calls`, each a call written as
/// a string, at most [`crate::api::MAX_CALLS_PER_ROUND`] of them (a round runs no more), and `bug_locations`, each
/// with the four fields [`LocationSpec`] is read from (an empty string for a field the notes do not give), at most
/// [`MAX_LOCATIONS`]; each text at most [`MAX_NAME_CHARS`] long (the intended behaviour twice that). The bounds go
/// when a server refuses them ([`crate::llm::JsonSchema::unbounded`]).
pub fn schema() -> Json {
    let text = super::text_schema;
    let name = || text(MAX_NAME_CHARS);
    serde_json::json!({
        "type": "object",
        "properties": {
            "API_calls": {"type": "array", "items": name(), "maxItems": crate::api::MAX_CALLS_PER_ROUND},
            "bug_locations": {"type": "array", "maxItems": MAX_LOCATIONS, "items": {
                "type": "object",
                "properties": {
                    "file": name(),
                    "class": name(),
                    "method": name(),
                    "intended_behavior": text(2 * MAX_NAME_CHARS),
                },
                "required": ["file", "class", "method", "intended_behavior"],
                "additionalProperties": false,
            }},
        },
        "required": ["API_calls", "bug_locations"],
        "additionalProperties": false,
    })
}

const CALL_KEYS: &[&str] = &["apicalls", "apicall", "calls"];
const LOCATION_KEYS: &[&str] = &["buglocations", "buglocation", "locations"];

/// The object carrying the proxy keys: the value itself or an object nested one level inside it.
fn find_proxy_object(v: &Json) -> Option<&Map<String, Json>> {
    let has_keys = |o: &Map<String, Json>| {
        json::get(o, &["apicalls", "apicall"]).is_some() || json::get(o, &["buglocations", "buglocation"]).is_some()
    };
    let obj = v.as_object()?;
    if has_keys(obj) {
        return Some(obj);
    }
    obj.values().filter_map(Json::as_object).find(|o| has_keys(o))
}

fn from_object(obj: &Map<String, Json>, notes: &mut Vec<String>) -> ProxyResult {
    let mut result = ProxyResult::default();
    match json::get(obj, CALL_KEYS) {
        None | Some(Json::Null) => {}
        Some(Json::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                match call_from_json(item) {
                    Some(text) => result.api_calls.push(text),
                    None => notes.push(format!("API call {} is not a call: {item}", i + 1)),
                }
            }
        }
        Some(other) => match call_from_json(other) {
            Some(text) => result.api_calls.push(text),
            None => notes.push(format!("API_calls is not a list: {other}")),
        },
    }
    match json::get(obj, LOCATION_KEYS) {
        None | Some(Json::Null) => {}
        Some(Json::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                match item.as_object() {
                    Some(o) => result.bug_locations.push(location_from_json(o)),
                    None => notes.push(format!("bug location {} is not an object: {item}", i + 1)),
                }
            }
        }
        Some(Json::Object(o)) => result.bug_locations.push(location_from_json(o)),
        Some(other) => notes.push(format!("bug_locations is not a list: {other}")),
    }
    result
}

/// A call given as a string, or as an object `{"name": ..., "args": [...] | {...}}`, as call text.
fn call_from_json(item: &Json) -> Option<String> {
    match item {
        Json::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Json::Object(o) => {
            let name = json::get(o, &["name", "api", "function", "tool", "method"])?.as_str()?;
            let args = match json::get(o, &["args", "arguments", "params", "parameters"]) {
                None | Some(Json::Null) => Vec::new(),
                Some(Json::Array(a)) => {
                    a.iter().map(|v| Some(Arg { name: None, value: literal(v)? })).collect::<Option<Vec<_>>>()?
                }
                Some(Json::Object(kw)) => kw
                    .iter()
                    .map(|(k, v)| Some(Arg { name: Some(k.clone()), value: literal(v)? }))
                    .collect::<Option<Vec<_>>>()?,
                Some(_) => return None,
            };
            Some(Call { name: name.to_string(), args }.to_string())
        }
        _ => None,
    }
}

fn literal(v: &Json) -> Option<Value> {
    Some(match v {
        Json::String(s) => Value::Str(s.clone()),
        Json::Bool(b) => Value::Bool(*b),
        Json::Null => Value::None,
        Json::Number(n) => match n.as_i64() {
            Some(i) => Value::Int(i),
            None => Value::Float(n.as_f64()?),
        },
        _ => return None,
    })
}

fn text_field(o: &Map<String, Json>, names: &[&str]) -> Option<String> {
    let s = match json::get(o, names)? {
        Json::String(s) => s.trim().to_string(),
        Json::Null => return None,
        Json::Number(n) => n.to_string(),
        Json::Bool(_) | Json::Array(_) | Json::Object(_) => return None,
    };
    (!s.is_empty()).then_some(s)
}

fn location_from_json(o: &Map<String, Json>) -> LocationSpec {
    LocationSpec {
        file: text_field(o, &["file", "filename", "filepath", "path"]),
        class: text_field(o, &["class", "classname"]),
        method: text_field(o, &["method", "methodname", "function", "functionname", "func"]),
        intended_behavior: text_field(
            o,
            &["intendedbehavior", "intendedbehaviour", "behavior", "behaviour", "description"],
        )
        .unwrap_or_default(),
    }
}

/// Reads `API_calls` and `bug_locations` from an object that is not valid even as loose JSON. Call strings are
/// read with the call parser, so quotes inside them need no escaping; the locations list is parsed on its own.
fn recover_fields(text: &str, notes: &mut Vec<String>) -> Option<ProxyResult> {
    static KEYS: LazyLock<Option<(Regex, Regex)>> = LazyLock::new(|| {
        let key = |name: &str| Regex::new(&format!(r#"(?i)["']?\s*{name}\s*["']?\s*:\s*"#)).ok();
        Some((key(r"api[_ ]?calls?")?, key(r"bug[_ ]?locations?")?))
    });
    let (calls_key, locations_key) = KEYS.as_ref()?;
    let calls_at = calls_key.find(text).map(|m| m.end());
    let locations_at = locations_key.find(text).map(|m| m.end());
    if calls_at.is_none() && locations_at.is_none() {
        return None;
    }
    let mut result = ProxyResult::default();
    if let Some(at) = calls_at {
        result.api_calls = recover_calls(&text[at..]);
    }
    if let Some(at) = locations_at {
        let rest = &text[at..];
        if rest.starts_with('[') {
            let list = json::balanced_end(rest).map(|len| &rest[..len]).and_then(json::parse_loose);
            match list {
                Some(Json::Array(items)) => {
                    for item in &items {
                        if let Some(o) = item.as_object() {
                            result.bug_locations.push(location_from_json(o));
                        }
                    }
                }
                _ => notes.push("bug_locations could not be read".to_string()),
            }
        }
    }
    Some(result)
}

/// Call strings from a `[...]` list whose items may hold unescaped quotes.
fn recover_calls(text: &str) -> Vec<String> {
    let mut calls = Vec::new();
    let Some(mut rest) = text.strip_prefix('[') else {
        return calls;
    };
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == ',');
        let Some(q) = rest.chars().next().filter(|c| matches!(c, '"' | '\'')) else {
            return calls;
        };
        let body = &rest[1..];
        // The call parser reads through the call's own quotes; the list item's closing quote follows the call.
        if let Ok((_, len)) = parse_call_prefix(head(body)) {
            let after = body[len..].trim_start();
            if let Some(next) = after.strip_prefix(q) {
                calls.push(body[..len].trim().to_string());
                rest = next;
                continue;
            }
        }
        // Not a call: take the item up to its closing quote so validation can say what is wrong with it.
        let close = body
            .char_indices()
            .find(|&(i, c)| c == q && body[i + 1..].trim_start().starts_with([',', ']']))
            .map(|(i, _)| i);
        match close {
            Some(i) => {
                calls.push(body[..i].trim().to_string());
                rest = &body[i + 1..];
            }
            None => return calls,
        }
    }
}

/// Call arguments that may be a dunder name with its underscores lost: `search_method_in_class("init", "C")` in an
/// answer that also writes `__init__`. Which one the model meant is not clear, so the reading is not complete.
fn dunder_doubts(answer: &str, calls: &[String]) -> Vec<(String, String)> {
    let mut doubts = Vec::new();
    for text in calls {
        let Ok(call) = crate::call::parse_call(text) else { continue };
        for arg in &call.args {
            let Value::Str(name) = &arg.value else { continue };
            let name = name.trim();
            let plain = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            let dunder = format!("__{name}__");
            if plain && answer.contains(&dunder) && !doubts.iter().any(|(n, _)| n == name) {
                doubts.push((name.to_string(), dunder));
            }
        }
    }
    doubts
}

/// An API a misnamed call stands for: the name with `function` (or `func`) read as `method`.
fn mapped_name(name: &str) -> Option<&'static str> {
    let last = name.rsplit('.').next().unwrap_or(name);
    let renamed = last.replace("function", "method").replace("func_", "method_");
    api(&renamed).map(|a| a.name).filter(|n| *n != last)
}

/// Calls written in the prose, in order of appearance, with the byte offset of the first, and what looked like a
/// call to an API but could not be read (it does not parse, or the name is no API).
fn calls_in_prose(text: &str, notes: &mut Vec<String>) -> (Vec<String>, Option<usize>, Vec<String>) {
    // Known API names, and anything named like one (`search_…`, `get_code_…`, `get_class_…`).
    static CALL_START: LazyLock<Option<Regex>> = LazyLock::new(|| {
        let mut names: Vec<&str> = APIS.iter().map(|a| a.name).collect();
        names.sort_by_key(|n| std::cmp::Reverse(n.len()));
        Regex::new(&format!(r"\b(?:[A-Za-z_]\w*\.)*(?:{}|search_\w+|get_code_\w+|get_class_\w+)\s*\(", names.join("|")))
            .ok()
    });
    let Some(re) = CALL_START.as_ref() else {
        return (Vec::new(), None, Vec::new());
    };
    let mut calls = Vec::new();
    let mut first = None;
    let mut unread = Vec::new();
    let mut from = 0;
    while let Some(m) = re.find_at(text, from) {
        let start = m.start();
        let shown = || text[start..].chars().take(60).collect::<String>().trim_end().to_string();
        match parse_call_prefix(head(&text[start..])) {
            Ok((call, len)) => {
                from = start + len;
                let last = call.name.rsplit('.').next().unwrap_or(&call.name);
                if api(last).is_some() {
                    calls.push(text[start..start + len].to_string());
                } else if let Some(name) = mapped_name(&call.name) {
                    notes.push(format!("read `{}` as `{name}`", call.name));
                    calls.push(Call { name: name.to_string(), args: call.args }.to_string());
                } else {
                    notes.push(format!("`{}` is not a search API", call.name));
                    unread.push(text[start..start + len].to_string());
                    continue;
                }
                first.get_or_insert(start);
            }
            Err(e) => {
                notes.push(format!("skipped `{}`: {e}", shown()));
                unread.push(shown());
                from = m.end();
            }
        }
    }
    (calls, first, unread)
}

#[cfg(test)]
#[path = "search_tests.rs"]
mod tests;
