//! One search call as a value: [`SearchCall`], from whatever a face holds to the searcher, checked once.
//!
//! Every face turns its input into a `SearchCall` here and nowhere else, and keeps the value from then on:
//!
//! | input | where it comes from | constructor |
//! |---|---|---|
//! | Python call syntax, `search_class("Foo")` | the model (through the proxy), `acr search`, the explorer's call box | [`SearchCall::parse`] |
//! | an API name and JSON arguments (object, list or one value) | `acr search --batch`, the npm package's `repo.search`, a transcript | [`SearchCall::from_json`] |
//! | an API name and texts in parameter order | the explorer's form, the component's `call` | [`SearchCall::from_texts`] |
//! | typed arguments | the npm package's and the component's per-API functions | a variant, then [`SearchCall::checked`] |
//!
//! All of them bind through one validator ([`mod@bind`]) and fail with one error type, [`CallError`], whose text is
//! what the model reads when its call is refused. A `SearchCall` displays as Python syntax (what the model wrote,
//! normalised: `search_method_in_class("write", "RST")`) and serialises as `{"api", "args", "call"}`; deserialising
//! checks it again, so a `SearchCall` value is always valid.
//!
//! [`syntax`] is the small parser for one Python call expression (literals only, nothing is evaluated).

pub mod bind;
pub mod syntax;

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

use bind::{Bound, bind, lookup, suggest};
pub use bind::{CallError, ValueProblem};
pub use syntax::{Arg, Call, SyntaxError, SyntaxErrorKind, Value, parse_call, parse_call_prefix, quote};

use crate::api::{ApiSpec, ParamKind, api};

/// A search call with its arguments checked: one variant per API of [`crate::api::APIS`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum SearchCall {
    /// `search_class(class_name)`.
    SearchClass {
        /// Class to look up.
        class_name: String,
    },
    /// `search_class_in_file(class_name, file_name)`.
    SearchClassInFile {
        /// Class to look up.
        class_name: String,
        /// The file, by path or path tail.
        file_name: String,
    },
    /// `search_method(method_name)`.
    SearchMethod {
        /// Function or method to look up.
        method_name: String,
    },
    /// `search_method_in_file(method_name, file_name)`.
    SearchMethodInFile {
        /// Function or method to look up.
        method_name: String,
        /// The file, by path or path tail.
        file_name: String,
    },
    /// `search_method_in_class(method_name, class_name)`.
    SearchMethodInClass {
        /// Method to look up.
        method_name: String,
        /// Class it belongs to.
        class_name: String,
    },
    /// `search_code(code_str)`.
    SearchCode {
        /// Literal text to find.
        code_str: String,
    },
    /// `search_code_in_file(code_str, file_name)`.
    SearchCodeInFile {
        /// Literal text to find.
        code_str: String,
        /// The file, by path or path tail.
        file_name: String,
    },
    /// `get_code_around_line(file_name, line_no, window)`.
    GetCodeAroundLine {
        /// The file, by path or path tail.
        file_name: String,
        /// Target line (1-based).
        line_no: u32,
        /// Lines shown either side ([`crate::api::DEFAULT_WINDOW`] when omitted).
        window: u32,
    },
    /// `get_class_full_snippet(class_name)`.
    GetClassFullSnippet {
        /// Class to look up.
        class_name: String,
    },
}

/// One argument of a [`SearchCall`], borrowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgValue<'a> {
    /// A text parameter's value.
    Text(&'a str),
    /// A number parameter's value.
    Number(u32),
}

impl fmt::Display for ArgValue<'_> {
    /// The value as a form field shows it: text as it is, numbers in digits.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgValue::Text(t) => f.write_str(t),
            ArgValue::Number(n) => write!(f, "{n}"),
        }
    }
}

impl SearchCall {
    /// Reads one call in Python syntax, such as `search_method_in_class("write", class_name="RST")`.
    pub fn parse(text: &str) -> Result<SearchCall, CallError> {
        let call = parse_call(text).map_err(|error| CallError::Syntax { error })?;
        SearchCall::from_call(&call)
    }

    /// Checks a parsed call expression against the API table.
    pub fn from_call(call: &Call) -> Result<SearchCall, CallError> {
        let spec = lookup(&call.name)
            .ok_or_else(|| CallError::UnknownApi { name: call.name.clone(), suggestion: suggest(&call.name) })?;
        bind(spec, &call.args)
    }

    /// Checks an API name and JSON arguments: an object keyed by parameter name (or alias), a list in parameter
    /// order, or one value for the first parameter.
    pub fn from_json(api_name: &str, args: &Json) -> Result<SearchCall, CallError> {
        let spec = lookup(api_name)
            .ok_or_else(|| CallError::UnknownApi { name: api_name.to_string(), suggestion: suggest(api_name) })?;
        let literal = |i: usize, v: &Json| -> Result<Value, CallError> {
            Ok(match v {
                Json::String(s) => Value::Str(s.clone()),
                Json::Bool(b) => Value::Bool(*b),
                Json::Null => Value::None,
                Json::Number(n) => match n.as_i64() {
                    Some(i) => Value::Int(i),
                    None => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
                },
                Json::Array(_) | Json::Object(_) => {
                    let Some(param) = spec.params.get(i) else {
                        return Err(CallError::TooMany { api: spec.name, given: i + 1 });
                    };
                    let found = if v.is_array() { "a list" } else { "an object" };
                    let problem = if param.kind.is_text() {
                        ValueProblem::NotText { found: found.to_string() }
                    } else {
                        ValueProblem::NotANumber { found: v.to_string() }
                    };
                    return Err(CallError::BadValue { api: spec.name, param: param.name, problem });
                }
            })
        };
        let args: Vec<Arg> = match args {
            Json::Object(map) => map
                .iter()
                .map(|(k, v)| {
                    let slot = spec
                        .param_for_keyword(k)
                        .ok_or_else(|| CallError::UnknownKeyword { api: spec.name, keyword: k.clone() })?;
                    Ok(Arg { name: Some(k.clone()), value: literal(slot, v)? })
                })
                .collect::<Result<_, CallError>>()?,
            Json::Array(list) => list
                .iter()
                .enumerate()
                .map(|(i, v)| Ok(Arg { name: None, value: literal(i, v)? }))
                .collect::<Result<_, CallError>>()?,
            Json::Null => Vec::new(),
            other => vec![Arg { name: None, value: literal(0, other)? }],
        };
        bind(spec, &args)
    }

    /// Checks an API name and argument texts in parameter order (as a form or a list of strings gives them).
    pub fn from_texts<S: AsRef<str>>(api_name: &str, args: &[S]) -> Result<SearchCall, CallError> {
        let call = Call {
            name: api_name.to_string(),
            args: args.iter().map(|a| Arg { name: None, value: Value::Str(a.as_ref().to_string()) }).collect(),
        };
        SearchCall::from_call(&call)
    }

    /// Checks a call built from typed arguments (text must not be blank); returns it unchanged when valid.
    pub fn checked(self) -> Result<SearchCall, CallError> {
        let spec = self.spec();
        for (param, value) in spec.params.iter().zip(self.values()) {
            if let ArgValue::Text(t) = value
                && t.trim().is_empty()
            {
                return Err(CallError::BadValue { api: spec.name, param: param.name, problem: ValueProblem::Empty });
            }
        }
        Ok(self)
    }

    /// Builds the variant from values bound to `spec`'s parameters, in order.
    fn from_bound(spec: &'static ApiSpec, values: Vec<Bound>) -> SearchCall {
        let mut v = values.into_iter();
        let v = &mut v;
        let text = |v: &mut std::vec::IntoIter<Bound>| match v.next() {
            Some(Bound::Text(t)) => t,
            Some(Bound::Number(n)) => n.to_string(),
            None => String::new(),
        };
        let number = |v: &mut std::vec::IntoIter<Bound>| match v.next() {
            Some(Bound::Number(n)) => n,
            Some(Bound::Text(t)) => t.parse().unwrap_or(0),
            None => 0,
        };
        match spec.name {
            "search_class" => SearchCall::SearchClass { class_name: text(v) },
            "search_class_in_file" => SearchCall::SearchClassInFile { class_name: text(v), file_name: text(v) },
            "search_method" => SearchCall::SearchMethod { method_name: text(v) },
            "search_method_in_file" => SearchCall::SearchMethodInFile { method_name: text(v), file_name: text(v) },
            "search_method_in_class" => SearchCall::SearchMethodInClass { method_name: text(v), class_name: text(v) },
            "search_code" => SearchCall::SearchCode { code_str: text(v) },
            "search_code_in_file" => SearchCall::SearchCodeInFile { code_str: text(v), file_name: text(v) },
            "get_code_around_line" => {
                SearchCall::GetCodeAroundLine { file_name: text(v), line_no: number(v), window: number(v) }
            }
            _ => SearchCall::GetClassFullSnippet { class_name: text(v) },
        }
    }

    /// The API called.
    pub fn spec(&self) -> &'static ApiSpec {
        let name = match self {
            SearchCall::SearchClass { .. } => "search_class",
            SearchCall::SearchClassInFile { .. } => "search_class_in_file",
            SearchCall::SearchMethod { .. } => "search_method",
            SearchCall::SearchMethodInFile { .. } => "search_method_in_file",
            SearchCall::SearchMethodInClass { .. } => "search_method_in_class",
            SearchCall::SearchCode { .. } => "search_code",
            SearchCall::SearchCodeInFile { .. } => "search_code_in_file",
            SearchCall::GetCodeAroundLine { .. } => "get_code_around_line",
            SearchCall::GetClassFullSnippet { .. } => "get_class_full_snippet",
        };
        api(name).expect("every variant is in the API table")
    }

    /// The API's name.
    pub fn name(&self) -> &'static str {
        self.spec().name
    }

    /// The arguments, in parameter order.
    pub fn values(&self) -> Vec<ArgValue<'_>> {
        use ArgValue::{Number, Text};
        match self {
            SearchCall::SearchClass { class_name } | SearchCall::GetClassFullSnippet { class_name } => {
                vec![Text(class_name)]
            }
            SearchCall::SearchClassInFile { class_name, file_name } => vec![Text(class_name), Text(file_name)],
            SearchCall::SearchMethod { method_name } => vec![Text(method_name)],
            SearchCall::SearchMethodInFile { method_name, file_name } => vec![Text(method_name), Text(file_name)],
            SearchCall::SearchMethodInClass { method_name, class_name } => vec![Text(method_name), Text(class_name)],
            SearchCall::SearchCode { code_str } => vec![Text(code_str)],
            SearchCall::SearchCodeInFile { code_str, file_name } => vec![Text(code_str), Text(file_name)],
            SearchCall::GetCodeAroundLine { file_name, line_no, window } => {
                vec![Text(file_name), Number(*line_no), Number(*window)]
            }
        }
    }

    /// The value given for a parameter, by name.
    pub fn value(&self, param: &str) -> Option<ArgValue<'_>> {
        let i = self.spec().param_names().position(|p| p == param)?;
        self.values().get(i).copied()
    }

    /// The literal text searched for, for `search_code` and `search_code_in_file` (a view highlights it).
    pub fn code(&self) -> Option<&str> {
        match self {
            SearchCall::SearchCode { code_str } | SearchCall::SearchCodeInFile { code_str, .. } => Some(code_str),
            _ => None,
        }
    }

    /// The same call with its first two text arguments exchanged (used when they were written in the wrong order).
    pub fn swapped(&self) -> Option<SearchCall> {
        let values = self.values();
        let (ArgValue::Text(a), ArgValue::Text(b)) = (*values.first()?, *values.get(1)?) else { return None };
        let mut texts: Vec<String> = values.iter().map(ToString::to_string).collect();
        texts[0] = b.to_string();
        texts[1] = a.to_string();
        SearchCall::from_texts(self.name(), &texts).ok()
    }
}

impl fmt::Display for SearchCall {
    /// Renders the call in Python syntax, e.g. `search_method_in_class("write", "RST")`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.name())?;
        for (i, value) in self.values().into_iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            match value {
                ArgValue::Text(t) => f.write_str(&quote(t))?,
                ArgValue::Number(n) => write!(f, "{n}")?,
            }
        }
        f.write_str(")")
    }
}

impl FromStr for SearchCall {
    type Err = CallError;

    fn from_str(text: &str) -> Result<SearchCall, CallError> {
        SearchCall::parse(text)
    }
}

impl Serialize for SearchCall {
    /// `{"api": "search_method_in_class", "args": {"method_name": "write", "class_name": "RST"}, "call": "..."}`.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let spec = self.spec();
        let mut args = serde_json::Map::new();
        for (param, value) in spec.params.iter().zip(self.values()) {
            let v = match (value, param.kind) {
                (ArgValue::Number(n), ParamKind::Number { .. }) => Json::from(n),
                (v, _) => Json::String(v.to_string()),
            };
            args.insert(param.name.to_string(), v);
        }
        let mut st = s.serialize_struct("SearchCall", 3)?;
        st.serialize_field("api", spec.name)?;
        st.serialize_field("args", &args)?;
        st.serialize_field("call", &self.to_string())?;
        st.end()
    }
}

impl<'de> Deserialize<'de> for SearchCall {
    /// Reads `{"api", "args"}` (args as an object, a list or one value) or a call string, and checks it.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<SearchCall, D::Error> {
        let value = Json::deserialize(d)?;
        let checked = match &value {
            Json::String(text) => SearchCall::parse(text),
            Json::Object(o) => match o.get("api").and_then(Json::as_str) {
                Some(name) => SearchCall::from_json(name, o.get("args").unwrap_or(&Json::Null)),
                None => return Err(serde::de::Error::custom("a search call needs an \"api\" field")),
            },
            _ => return Err(serde::de::Error::custom("a search call is an object or a call string")),
        };
        checked.map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn display_parse_and_serde_round_trip() {
        let calls = [
            SearchCall::SearchMethodInClass { method_name: "write".into(), class_name: "RST".into() },
            SearchCall::GetCodeAroundLine { file_name: "a.py".into(), line_no: 12, window: 3 },
            SearchCall::SearchCode { code_str: "print(\"x\")\n".into() },
        ];
        for call in calls {
            assert_eq!(SearchCall::parse(&call.to_string()).unwrap(), call);
            let json = serde_json::to_value(&call).unwrap();
            assert_eq!(serde_json::from_value::<SearchCall>(json.clone()).unwrap(), call, "{json}");
        }
        let v = serde_json::to_value(SearchCall::GetCodeAroundLine { file_name: "a.py".into(), line_no: 7, window: 2 });
        assert_eq!(
            v.unwrap(),
            json!({"api": "get_code_around_line", "args": {"file_name": "a.py", "line_no": 7, "window": 2},
                   "call": "get_code_around_line(\"a.py\", 7, 2)"})
        );
        let bad = serde_json::from_value::<SearchCall>(json!({"api": "search_class", "args": [""]}));
        assert!(bad.unwrap_err().to_string().contains("must not be empty"));
        assert_eq!(
            serde_json::from_value::<SearchCall>(json!("search_class('A')")).unwrap(),
            SearchCall::SearchClass { class_name: "A".into() }
        );
    }

    #[test]
    fn typed_calls_are_checked_and_can_be_swapped() {
        let empty = SearchCall::SearchClassInFile { class_name: " ".into(), file_name: "a.py".into() };
        assert_eq!(empty.checked().unwrap_err().param(), Some("class_name"));
        let call = SearchCall::SearchMethodInClass { method_name: "Plot".into(), class_name: "_plot".into() };
        assert_eq!(call.swapped().unwrap().to_string(), "search_method_in_class(\"_plot\", \"Plot\")");
        assert_eq!(SearchCall::SearchCode { code_str: "x".into() }.swapped(), None);
        assert_eq!(call.value("class_name"), Some(ArgValue::Text("_plot")));
        assert_eq!(SearchCall::from_texts("search_code", &["x"]).unwrap().code(), Some("x"));
    }
}
