//! The example an issue states: a call of the repository's code, written as code, and the value the issue says it
//! should give (`` `lis([4, 1, 5])` returns `1`, but it should return `2` ``, `` `Square(3).area()` gives `6`
//! instead of `9` ``).
//!
//! When no reproducer the model wrote shows the bug, a script made from this example can: it runs the call as the
//! issue writes it and asserts the value the issue states ([`StatedExample::script`]). Qwen2.5-Coder-1.5B's three
//! reproducers for QuixBugs' lis called `lis` with an int where the issue passes a list, and the run went on with
//! nothing to judge its patches by.
//!
//! Only what is sure is read: the call is one backtick span that starts with a name the repository defines once as
//! a function or class, and the value is the first backtick span after it, in the same paragraph, that directly
//! follows one of [`PHRASES`]. Anything else, and there is no stated example.

use crate::index::{DefKind, Index};
use crate::issue_names::{self, Place};
use crate::language::Language;

/// The words that introduce the value a call should give, as an issue writes them (lowercase).
pub const PHRASES: [&str; 8] = [
    "should return",
    "should be",
    "should give",
    "should equal",
    "should produce",
    "expected",
    "instead of",
    "must return",
];

/// A call the issue shows, with the value it says the call should give.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatedExample {
    /// The call as the issue writes it (`lis([4, 1, 5])`).
    pub call: String,
    /// The value it should give, as the issue writes it (`2`).
    pub expected: String,
    /// Where the name the call starts with is defined.
    pub place: Place,
}

/// The first call the issue shows with a value it should give, when the call's leading name is a function or class
/// the index defines exactly once.
pub fn stated(issue: &str, index: &Index) -> Option<StatedExample> {
    let spans = code_spans(issue);
    // Where each blank line starts, so that whether one stands between two places is a search, not a scan: an issue
    // of many spans in one paragraph costs no more than its length.
    let breaks: Vec<usize> =
        issue.as_bytes().windows(2).enumerate().filter(|(_, w)| w == b"\n\n").map(|(at, _)| at).collect();
    let broken =
        |from: usize, to: usize| breaks.get(breaks.partition_point(|&at| at < from)).is_some_and(|&at| at + 2 <= to);
    spans.iter().enumerate().find_map(|(i, call)| {
        let name = leading_call_name(call.text)?;
        // The value is looked for up to the paragraph's end or the next call, whose value it would be.
        let expected = spans[i + 1..]
            .iter()
            .enumerate()
            .take_while(|(_, value)| !broken(call.end, value.start) && leading_call_name(value.text).is_none())
            .find_map(|(k, value)| introduces_a_value(&issue[spans[i + k].end..value.start]).then_some(value.text))?;
        let mut defined = issue_names::defined(name, index)
            .into_iter()
            .filter(|p| matches!(p.kind, DefKind::Function | DefKind::Class));
        let place = defined.next()?;
        if defined.next().is_some() || expected.trim().is_empty() {
            return None;
        }
        Some(StatedExample { call: call.text.trim().to_string(), expected: expected.trim().to_string(), place })
    })
}

impl StatedExample {
    /// A reproducer in `language` that runs the call and asserts the stated value; `None` for a language it is not
    /// written for (Python alone so far), a place that cannot be imported, or text that cannot stand in a script.
    ///
    /// A generator's values are compared as a list, and JSON's `true`, `false` and `null` stand for Python's, as
    /// issues often write values as JSON.
    pub fn script(&self, language: Language) -> Option<String> {
        if language != Language::Python {
            return None;
        }
        let module = self.place.python_module()?;
        let name = self.place.importable_name();
        let reserved = ["types", "result", "expected", "true", "false", "null"];
        let one_line = |s: &str| !s.chars().any(char::is_control);
        if reserved.contains(&name) || !one_line(&self.call) || !one_line(&self.expected) {
            return None;
        }
        let message =
            python_string(&format!("{} returned %r; the issue says it should give %r", self.call.replace('%', "%%")));
        Some(format!(
            "# Written from the issue's own example: the call as the issue shows it, and the value it should give.\n\
             import types\n\
             \n\
             from {module} import {name}\n\
             \n\
             # Values written as JSON read as Python's.\n\
             true, false, null = True, False, None\n\
             \n\
             expected = {expected}\n\
             result = {call}\n\
             if isinstance(result, types.GeneratorType):\n    result = list(result)\n\
             assert result == expected, {message} % (result, expected)\n",
            expected = self.expected,
            call = self.call,
        ))
    }
}

/// A backtick span: its text and where it stands in the issue (`start` at its opening tick, `end` after its closing
/// one).
struct CodeSpan<'t> {
    text: &'t str,
    start: usize,
    end: usize,
}

/// The single-backtick spans of `issue`, in order; fenced blocks (three ticks or more) are skipped whole.
fn code_spans(issue: &str) -> Vec<CodeSpan<'_>> {
    let bytes = issue.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let ticks = bytes[i..].iter().take_while(|&&b| b == b'`').count();
        let fence = &issue[i..i + ticks];
        let open = i + ticks;
        let Some(close) = issue[open..].find(fence).map(|at| open + at) else { break };
        if ticks == 1 {
            out.push(CodeSpan { text: &issue[open..close], start: i, end: close + 1 });
        }
        i = close + ticks;
    }
    out
}

/// The name a span's call starts with (`lis` in `lis([1])`, `Square` in `Square(3).area()`), when the span is a
/// call: a name, a `(` right after it, and a `)` at its end.
fn leading_call_name(span: &str) -> Option<&str> {
    let span = span.trim();
    let end = span.find(|c: char| !(c.is_alphanumeric() || c == '_'))?;
    let name = &span[..end];
    let starts_well = name.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_');
    (starts_well && span[end..].starts_with('(') && span.ends_with(')')).then_some(name)
}

/// Whether the text before a span ends with one of [`PHRASES`] (and a colon or spaces at most).
fn introduces_a_value(before: &str) -> bool {
    let lower = before.to_lowercase();
    let trimmed = lower.trim_end().trim_end_matches(':').trim_end();
    PHRASES.iter().any(|p| {
        trimmed.strip_suffix(p).is_some_and(|rest| rest.chars().next_back().is_none_or(|c| !c.is_alphanumeric()))
    })
}

/// `text` as a double-quoted Python string literal.
fn python_string(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::issue_names::tests::index;

    fn repo() -> Index {
        index(&[
            ("lis.py", "def lis(arr):\n    return 0\n"),
            ("shapes/square.py", "class Square:\n    def area(self):\n        return 1\n"),
            ("a.py", "def twice():\n    pass\n"),
            ("b.py", "def twice():\n    pass\n"),
        ])
    }

    #[test]
    fn a_call_and_the_value_it_should_return() {
        let issue = "`lis` gives a wrong result\n\n`lis([4, 1, 5, 3])` returns `1`, but it should return `2`.\n";
        let example = stated(issue, &repo()).unwrap();
        assert_eq!((example.call.as_str(), example.expected.as_str()), ("lis([4, 1, 5, 3])", "2"));
        assert_eq!(example.place.file, "lis.py");
    }

    #[test]
    fn other_ways_of_stating_the_value() {
        let idx = repo();
        let read = |issue: &str| stated(issue, &idx).map(|e| (e.call, e.expected));
        let area = Some(("Square(3).area()".to_string(), "9".to_string()));
        assert_eq!(read("`Square(3).area()` gives `6` instead of `9`"), area);
        assert_eq!(read("Calling `Square(3).area()` I expected: `9`"), area);
        assert_eq!(read("`Square(3).area()` should be `9`, not `6`"), area);
    }

    #[test]
    fn nothing_unsure_is_read() {
        let idx = repo();
        assert_eq!(stated("`lis([1])` returns `0`.", &idx), None, "no value stated");
        assert_eq!(stated("`lis([1])` returns `0`.\n\nIt should return `1`.", &idx), None, "another paragraph");
        assert_eq!(stated("`twice()` should return `2`", &idx), None, "defined twice");
        assert_eq!(stated("`missing(1)` should return `2`", &idx), None, "not in the repository");
        assert_eq!(stated("`lis` should return `1`", &idx), None, "not a call");
        assert_eq!(stated("`lis([1])` unexpected `1`", &idx), None, "a phrase inside a word");
        assert_eq!(stated("```\nlis([1])\n```\nshould return `1`", &idx), None, "a fenced block is no span");
        let two = stated("`lis([1])` returns `0`; `Square(2).area()` should be `4`.", &idx).unwrap();
        assert_eq!((two.call.as_str(), two.expected.as_str()), ("Square(2).area()", "4"), "the value of the next call");
    }

    /// A call followed by tens of thousands of spans in one paragraph is read in time proportional to the issue.
    #[test]
    fn many_spans_in_one_paragraph_are_read_once() {
        let issue = format!("`lis([1])` {}should return `1`", "then `x` and ".repeat(40_000));
        let example = stated(&issue, &repo()).unwrap();
        assert_eq!(example.expected, "1");
        let parted = format!("`lis([1])` {}\n\nshould return `1`", "then `x` and ".repeat(40_000));
        assert_eq!(stated(&parted, &repo()), None, "the value is in another paragraph");
    }

    #[test]
    fn the_script_runs_the_call_and_asserts_the_value() {
        let issue = "`lis([4, 1, 5, 3])` returns `1`, but it should return `2`.";
        let script = stated(issue, &repo()).unwrap().script(Language::Python).unwrap();
        insta::assert_snapshot!(script);
        #[cfg(feature = "java")]
        assert_eq!(stated(issue, &repo()).unwrap().script(Language::Java), None);
    }

    #[test]
    fn quotes_and_percent_signs_stay_in_the_message() {
        let idx = index(&[("fmt.py", "def fmt(s):\n    return s\n")]);
        let script = stated(r#"`fmt("50% \"off\"")` should return `"50%"`"#, &idx).unwrap().script(Language::Python);
        let script = script.unwrap();
        assert!(
            script.contains(r#""fmt(\"50%% \\\"off\\\"\") returned %r; the issue says it should give %r""#),
            "{script}"
        );
    }
}
