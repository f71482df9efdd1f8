//! Binding written arguments to an API's parameters: the one validator every face uses.
//!
//! A call is valid when its name is one of the [`crate::api::APIS`] (or ends with one after a dot, as in
//! `functions.search_class`), every parameter receives exactly one argument (positionally, by keyword, or through a
//! keyword alias), no argument is left over, and each value fits its parameter's [`ParamKind`]: text parameters
//! take non-blank strings (numbers are written out as text), number parameters take whole numbers or strings of
//! digits, and a number parameter with a default may be left out or given as `None`.

use std::fmt;

use serde::Serialize;

use super::SearchCall;
use super::syntax::{self, Arg, Value};
use crate::api::{APIS, ApiSpec, ParamKind, api};

/// Why a call is not a valid search call. Displays as a sentence the model (or a person) can act on.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum CallError {
    /// The text is not a call expression with literal arguments.
    Syntax {
        /// Where and why the parser stopped.
        error: syntax::SyntaxError,
    },
    /// No API has this name.
    UnknownApi {
        /// The name written.
        name: String,
        /// A close API name, if there is one.
        suggestion: Option<&'static str>,
    },
    /// More arguments than the API has parameters.
    TooMany {
        /// The API called.
        api: &'static str,
        /// How many were given.
        given: usize,
    },
    /// A keyword names no parameter of the API.
    UnknownKeyword {
        /// The API called.
        api: &'static str,
        /// The keyword written.
        keyword: String,
    },
    /// A parameter received two values (positionally and by keyword, or through an alias).
    Duplicate {
        /// The API called.
        api: &'static str,
        /// The parameter.
        param: &'static str,
    },
    /// A required parameter received no value.
    Missing {
        /// The API called.
        api: &'static str,
        /// The parameter.
        param: &'static str,
    },
    /// A value does not fit its parameter.
    BadValue {
        /// The API called.
        api: &'static str,
        /// The parameter.
        param: &'static str,
        /// What is wrong with it.
        problem: ValueProblem,
    },
}

/// What is wrong with one argument's value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ValueProblem {
    /// A text parameter received blank text.
    Empty,
    /// A text parameter received something that is not text (`None`, a boolean, a list...).
    NotText {
        /// What was given, in words (`None`, `the boolean True`, `a list`).
        found: String,
    },
    /// A number parameter received something that is not a whole number.
    NotANumber {
        /// What was given, as written.
        found: String,
    },
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let usage = |api: &str| api_usage(api);
        match self {
            CallError::Syntax { error } => write!(f, "The call cannot be read: {error}."),
            CallError::UnknownApi { name, suggestion } => {
                write!(f, "Unknown function `{name}`")?;
                if let Some(s) = suggestion {
                    write!(f, " (did you mean `{s}`?)")?;
                }
                let names: Vec<&str> = APIS.iter().map(|a| a.name).collect();
                write!(f, "; the search APIs are {}.", names.join(", "))
            }
            CallError::TooMany { api, given } => write!(f, "{api} got {given} arguments{}.", usage(api)),
            CallError::UnknownKeyword { api, keyword } => {
                write!(f, "{api} takes no argument `{keyword}`{}.", usage(api))
            }
            CallError::Duplicate { api, param } => {
                write!(f, "{api} received two values for `{param}`{}.", usage(api))
            }
            CallError::Missing { api, param } => write!(f, "{api} needs the argument `{param}`{}.", usage(api)),
            CallError::BadValue { api, param, problem } => match problem {
                ValueProblem::Empty => write!(f, "The argument `{param}` of {api} must not be empty."),
                ValueProblem::NotText { found } => {
                    write!(f, "The argument `{param}` of {api} must be a string, not {found}.")
                }
                ValueProblem::NotANumber { found } => {
                    write!(f, "The argument `{param}` of {api} must be a whole number, not `{found}`.")
                }
            },
        }
    }
}

impl std::error::Error for CallError {}

impl CallError {
    /// The parameter the error is about, when it is about one (for faces that report it separately).
    pub fn param(&self) -> Option<&str> {
        match self {
            CallError::Duplicate { param, .. }
            | CallError::Missing { param, .. }
            | CallError::BadValue { param, .. } => Some(param),
            CallError::UnknownKeyword { keyword, .. } => Some(keyword),
            CallError::Syntax { .. } | CallError::UnknownApi { .. } | CallError::TooMany { .. } => None,
        }
    }
}

fn api_usage(name: &str) -> String {
    api(name).map_or_else(String::new, |spec| format!("; it is called as {}", spec.signature()))
}

/// The API a written name refers to: exact, or the last segment of a dotted name (`functions.search_class`).
pub(super) fn lookup(name: &str) -> Option<&'static ApiSpec> {
    let name = name.trim();
    api(name).or_else(|| name.rsplit('.').next().and_then(api))
}

/// The API name closest to `name` (edit distance at most a third of its length), for "did you mean".
pub(super) fn suggest(name: &str) -> Option<&'static str> {
    let last = name.rsplit('.').next().unwrap_or(name).to_ascii_lowercase();
    APIS.iter()
        .map(|a| (edit_distance(&last, a.name), a.name))
        .filter(|(d, n)| *d <= n.len() / 3)
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// A checked argument value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Bound {
    Text(String),
    Number(u32),
}

/// Words for a value that is not text, for [`ValueProblem::NotText`].
fn described(value: &Value) -> String {
    match value {
        Value::None => "None".to_string(),
        other => format!("the {} `{other}`", other.type_name()),
    }
}

fn check_value(spec: &'static ApiSpec, i: usize, value: &Value) -> Result<Bound, CallError> {
    let param = &spec.params[i];
    let bad = |problem| CallError::BadValue { api: spec.name, param: param.name, problem };
    if let ParamKind::Number { .. } = param.kind {
        let not_a_number = |found: String| bad(ValueProblem::NotANumber { found });
        return match value {
            Value::Int(n) => u32::try_from(*n).map(Bound::Number).map_err(|_| not_a_number(n.to_string())),
            Value::Str(s) => s.trim().parse::<u32>().map(Bound::Number).map_err(|_| not_a_number(s.clone())),
            Value::Float(x) if x.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(x) => {
                Ok(Bound::Number(*x as u32))
            }
            other => Err(not_a_number(other.to_string())),
        };
    }
    match value {
        Value::Str(s) if s.trim().is_empty() => Err(bad(ValueProblem::Empty)),
        Value::Str(s) => Ok(Bound::Text(s.clone())),
        Value::Int(n) => Ok(Bound::Text(n.to_string())),
        Value::Float(_) => Ok(Bound::Text(value.to_string())),
        other => Err(bad(ValueProblem::NotText { found: described(other) })),
    }
}

/// Binds written arguments to `spec`'s parameters and checks each value.
pub(super) fn bind(spec: &'static ApiSpec, args: &[Arg]) -> Result<SearchCall, CallError> {
    let n = spec.params.len();
    if args.len() > n {
        // An unknown keyword explains a wrong count better than the count does.
        if let Some(k) = args.iter().filter_map(|a| a.name.as_deref()).find(|k| spec.param_for_keyword(k).is_none()) {
            return Err(CallError::UnknownKeyword { api: spec.name, keyword: k.to_string() });
        }
        return Err(CallError::TooMany { api: spec.name, given: args.len() });
    }
    let mut slots: Vec<Option<&Value>> = vec![None; n];
    for (i, arg) in args.iter().enumerate() {
        let slot = match &arg.name {
            None => i,
            Some(k) => spec
                .param_for_keyword(k)
                .ok_or_else(|| CallError::UnknownKeyword { api: spec.name, keyword: k.clone() })?,
        };
        if slots[slot].is_some() {
            return Err(CallError::Duplicate { api: spec.name, param: spec.params[slot].name });
        }
        slots[slot] = Some(&arg.value);
    }
    let mut bound = Vec::with_capacity(n);
    for (i, (slot, param)) in slots.into_iter().zip(spec.params).enumerate() {
        let value = match (slot, param.kind) {
            (None | Some(Value::None), ParamKind::Number { default: Some(d) }) => Bound::Number(d),
            (None, _) => return Err(CallError::Missing { api: spec.name, param: param.name }),
            (Some(v), _) => check_value(spec, i, v)?,
        };
        bound.push(value);
    }
    Ok(SearchCall::from_bound(spec, bound))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn objects_lists_and_bare_values_bind() {
        let by_name =
            SearchCall::from_json("search_method_in_class", &json!({"class_name": "RST", "method_name": "write"}));
        let by_pos = SearchCall::from_json("search_method_in_class", &json!(["write", "RST"]));
        assert_eq!(by_name, by_pos);
        assert_eq!(
            by_name,
            Ok(SearchCall::SearchMethodInClass { method_name: "write".into(), class_name: "RST".into() })
        );
        assert_eq!(
            SearchCall::from_json("search_class", &json!("Foo")),
            Ok(SearchCall::SearchClass { class_name: "Foo".into() })
        );
        assert_eq!(
            SearchCall::from_json("get_code_around_line", &json!(["a.py", "12"])),
            Ok(SearchCall::GetCodeAroundLine {
                file_name: "a.py".into(),
                line_no: 12,
                window: crate::api::DEFAULT_WINDOW
            })
        );
        assert_eq!(
            SearchCall::from_json("get_code_around_line", &json!(["a.py", 12, null])),
            SearchCall::from_json("get_code_around_line", &json!(["a.py", 12]))
        );
    }

    #[test]
    fn bad_arguments_are_sentences() {
        let cases = [
            ("search_klass", json!(["A"])),
            ("search_class", json!({})),
            ("search_class", json!({"name": "A"})),
            ("search_class", json!(["A", "B"])),
            ("search_class", json!([["A"]])),
            ("search_code", json!(["  "])),
            ("get_code_around_line", json!(["a.py", "-3"])),
            ("get_code_around_line", json!(["a.py", 1.5])),
        ];
        let messages: Vec<String> =
            cases.iter().map(|(api, args)| SearchCall::from_json(api, args).unwrap_err().to_string()).collect();
        insta::assert_snapshot!(messages.join("\n"));
    }

    #[test]
    fn written_calls_normalise() {
        let c = SearchCall::parse(r#"search_method_in_class(class_name='RST', method_name="write")"#).unwrap();
        assert_eq!(c.spec().name, "search_method_in_class");
        assert_eq!(c.to_string(), r#"search_method_in_class("write", "RST")"#);

        let c = SearchCall::parse(r#"get_code_around_line("a.py", line="12", window=5)"#).unwrap();
        assert_eq!(c.to_string(), r#"get_code_around_line("a.py", 12, 5)"#);

        let c = SearchCall::parse(r#"search_code('print("x")')"#).unwrap();
        assert_eq!(c.to_string(), r#"search_code('print("x")')"#);
        assert_eq!(SearchCall::parse(&c.to_string()).unwrap(), c);

        let c = SearchCall::parse("functions.search_class('A')").unwrap();
        assert_eq!(c.spec().name, "search_class");
        let c = SearchCall::parse(r#"search_method_in_class(method_name: "collect_sql", class_name: "Executor")"#);
        assert_eq!(c.unwrap().to_string(), r#"search_method_in_class("collect_sql", "Executor")"#);
    }

    #[test]
    fn problems_are_specific() {
        let p = |t: &str| SearchCall::parse(t).unwrap_err();
        assert_eq!(
            p("search_clas('A')"),
            CallError::UnknownApi { name: "search_clas".into(), suggestion: Some("search_class") }
        );
        assert_eq!(p("find_bug('A')"), CallError::UnknownApi { name: "find_bug".into(), suggestion: None });
        assert_eq!(
            p("search_method_in_class('write')"),
            CallError::Missing { api: "search_method_in_class", param: "class_name" }
        );
        assert_eq!(
            p("search_class('A', klass='B')"),
            CallError::UnknownKeyword { api: "search_class", keyword: "klass".into() }
        );
        assert_eq!(
            p("search_method_in_file('m', method='n')"),
            CallError::Duplicate { api: "search_method_in_file", param: "method_name" }
        );
        assert!(matches!(p("get_code_around_line('a.py', 'ten', 3)"), CallError::BadValue { param: "line_no", .. }));
        assert!(matches!(p("search_class(None)"), CallError::BadValue { param: "class_name", .. }));
        assert!(matches!(p("search_class(True)"), CallError::BadValue { param: "class_name", .. }));
        assert!(matches!(p("search_class('  ')"), CallError::BadValue { problem: ValueProblem::Empty, .. }));
        assert!(matches!(p("search_class(A)"), CallError::Syntax { .. }));
        assert_eq!(p("search_class(A)").param(), None);
        assert_eq!(p("search_class('  ')").param(), Some("class_name"));
    }

    #[test]
    fn problem_messages() {
        let msgs: Vec<String> = [
            "search_clas('A')",
            "search_method_in_class('write')",
            "search_class('A', klass='B')",
            "search_method_in_file('m', method='n')",
            "get_code_around_line('a.py', 'ten', 3)",
            "search_class(A)",
            "search_class(None)",
        ]
        .iter()
        .map(|t| format!("{t}\n  -> {}", SearchCall::parse(t).unwrap_err()))
        .collect();
        insta::assert_snapshot!(msgs.join("\n"));
    }
}
