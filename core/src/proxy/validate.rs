//! Deciding whether a [`ProxyResult`] is usable, and what is wrong with it when it is not.
//!
//! An answer is usable when it holds at least one call or location, every call binds to an API (see
//! [`crate::call`]) and every location names a file, a class or a method. Otherwise [`Validated::problems`] says,
//! item by item, what was wrong; [`crate::prompt::Prompt::ProxyRetry`] words them for the proxy model.

use std::fmt;

use serde::Serialize;

use super::order::{Names, reorder, retarget};
use crate::answers::ProxyResult;
use crate::api::ParamKind;
use crate::call::{CallError, SearchCall};
use crate::locate::Query;

/// How many times the agent asks the proxy model again after an unusable answer.
pub const MAX_RETRIES: usize = 5;

/// A location ready for [`crate::locate::resolve`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LocationRequest {
    /// The cleaned query.
    pub query: Query,
    /// What the code should do instead.
    pub intended_behavior: String,
}

/// One thing wrong with an answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Problem {
    /// Neither a call nor a location was given.
    Empty,
    /// A call is not valid.
    Call {
        /// 1-based position in `API_calls`.
        index: usize,
        /// The call as written.
        text: String,
        /// What is wrong.
        error: CallError,
    },
    /// A location names no file, class or method.
    VagueLocation {
        /// 1-based position in `bug_locations`.
        index: usize,
    },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Empty => {
                f.write_str("the answer has no API calls and no bug locations; give at least one of them")
            }
            Problem::Call { index, text, error } => write!(f, "API call {index} `{text}`: {error}"),
            Problem::VagueLocation { index } => {
                write!(f, "bug location {index} names no file, class or method; give at least one")
            }
        }
    }
}

/// The usable part of an answer and everything wrong with it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Validated {
    /// Valid calls, duplicates removed, in order.
    pub calls: Vec<SearchCall>,
    /// Locations that name something.
    pub locations: Vec<LocationRequest>,
    /// What is wrong; empty when the answer is usable.
    pub problems: Vec<Problem>,
    /// Calls whose arguments were put back in order, in words.
    pub reordered: Vec<String>,
}

impl Validated {
    /// Whether the answer can be used as it is.
    pub fn is_valid(&self) -> bool {
        self.problems.is_empty()
    }

    /// Whether anything at all can be used (some calls or locations, even with problems elsewhere).
    pub fn is_usable(&self) -> bool {
        !self.calls.is_empty() || !self.locations.is_empty()
    }
}

/// The call with quotes or backticks taken off its names and paths (`search_class("'Foo'")`,
/// ``search_method("`run`")``): a name never holds them, so they are the model's quoting, written twice. Code
/// arguments are left as written. `None` when nothing was quoted.
fn unquoted(call: &SearchCall) -> Option<SearchCall> {
    let spec = call.spec();
    let mut changed = false;
    let texts: Vec<String> = call
        .values()
        .iter()
        .zip(spec.params)
        .map(|(value, param)| {
            let text = value.to_string();
            if !matches!(param.kind, ParamKind::Name | ParamKind::Path) {
                return text;
            }
            let t = text.trim();
            let inner = ['\'', '"', '`']
                .iter()
                .find_map(|&q| t.strip_prefix(q).and_then(|r| r.strip_suffix(q)))
                .map(str::trim)
                .filter(|inner| !inner.is_empty() && !inner.contains(['\'', '"', '`']));
            match inner {
                Some(inner) => {
                    changed = true;
                    inner.to_string()
                }
                None => text,
            }
        })
        .collect();
    if !changed {
        return None;
    }
    SearchCall::from_texts(call.name(), &texts).ok()
}

/// Checks every call and location of an answer; with `names` (the index), calls whose arguments are in the wrong
/// order are put right, and a call that names nothing as written is read as the call meant ([`retarget`]).
pub fn validate(result: &ProxyResult, names: Option<&dyn Names>) -> Validated {
    let mut calls: Vec<SearchCall> = Vec::new();
    let mut problems = Vec::new();
    let mut reordered = Vec::new();
    for (i, text) in result.api_calls.iter().enumerate() {
        match SearchCall::parse(text) {
            Ok(call) => {
                let call = match unquoted(&call) {
                    Some(fixed) => {
                        reordered.push(format!("read `{call}` as `{fixed}`"));
                        fixed
                    }
                    None => call,
                };
                let call = match reorder(&call, names).or_else(|| retarget(&call, names)) {
                    Some(fixed) => {
                        reordered.push(format!("read `{call}` as `{fixed}`"));
                        fixed
                    }
                    None => call,
                };
                if !calls.contains(&call) {
                    calls.push(call);
                }
            }
            Err(error) => problems.push(Problem::Call { index: i + 1, text: text.clone(), error }),
        }
    }
    let mut locations = Vec::new();
    for (i, spec) in result.bug_locations.iter().enumerate() {
        let query = spec.query();
        if query.is_empty() {
            // A placeholder with nothing at all in it is ignored; one that explains a fix needs a place.
            if !spec.intended_behavior.trim().is_empty() {
                problems.push(Problem::VagueLocation { index: i + 1 });
            }
            continue;
        }
        locations.push(LocationRequest { query, intended_behavior: spec.intended_behavior.clone() });
    }
    if calls.is_empty() && locations.is_empty() && problems.is_empty() {
        problems.push(Problem::Empty);
    }
    Validated { calls, locations, problems, reordered }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answers::LocationSpec;

    fn result(calls: &[&str], locs: Vec<LocationSpec>) -> ProxyResult {
        ProxyResult { api_calls: calls.iter().map(|s| s.to_string()).collect(), bug_locations: locs }
    }

    #[test]
    fn valid_answer_has_no_problems() {
        let v = validate(
            &result(
                &["search_class('Foo')", "search_class(\"Foo\")", "search_method('bar')"],
                vec![LocationSpec { method: Some("Foo.bar".into()), ..LocationSpec::default() }],
            ),
            None,
        );
        assert!(v.is_valid());
        assert_eq!(v.calls.len(), 2, "duplicate calls collapse");
        assert_eq!(v.locations[0].query.class.as_deref(), Some("Foo"));
    }

    #[test]
    fn placeholders_are_ignored_but_an_empty_answer_is_not() {
        let v = validate(&result(&[], vec![LocationSpec::default()]), None);
        assert_eq!(v.problems, vec![Problem::Empty]);
    }

    #[test]
    fn every_problem_is_listed() {
        let v = validate(
            &result(
                &["search_class(Foo)", "search_method_in_class('write')", "search_code('x')", "look_for('y')"],
                vec![LocationSpec {
                    file: Some("None".into()),
                    intended_behavior: "should not crash".into(),
                    ..LocationSpec::default()
                }],
            ),
            None,
        );
        assert_eq!(v.calls.len(), 1);
        assert_eq!(v.problems.len(), 4);
    }

    #[test]
    fn names_quoted_twice_are_unquoted_and_code_is_left_as_written() {
        let v = validate(
            &result(
                &[
                    "search_class(\"'Foo'\")",
                    "search_method_in_file('`run`', '\"app.py\"')",
                    "search_code(\"x = 'a'\")",
                ],
                vec![],
            ),
            None,
        );
        let calls: Vec<String> = v.calls.iter().map(ToString::to_string).collect();
        assert_eq!(
            calls,
            ["search_class(\"Foo\")", "search_method_in_file(\"run\", \"app.py\")", "search_code(\"x = 'a'\")"]
        );
        assert_eq!(v.reordered.len(), 2);
    }

    #[test]
    fn paths_given_for_names_are_put_back_in_order() {
        let v = validate(&result(&["search_method_in_file(\"text.py\", \"UserWarning\")"], vec![]), None);
        assert_eq!(v.calls[0].to_string(), "search_method_in_file(\"UserWarning\", \"text.py\")");
        assert_eq!(v.reordered.len(), 1);
    }
}
