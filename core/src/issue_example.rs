//! The examples an issue states: a call of the repository's code, written as code, and the value the issue says it
//! should give (`` `lis([4, 1, 5])` returns `1`, but it should return `2` ``, `` `Square(3).area()` gives `6`
//! instead of `9` ``), and the doctest examples it quotes ([`doctests`]).
//!
//! When no reproducer the model wrote shows the bug, a script made from these examples can: it runs each call as the
//! issue writes it and checks the value the issue states ([`script`]). Qwen2.5-Coder-1.5B's three reproducers for
//! QuixBugs' lis called `lis` with an int where the issue passes a list, and the run went on with nothing to judge its
//! patches by. Beside a reproducer that does show the bug, the script is a second check every patch must pass.
//!
//! Only what is sure is read: the stated call is one backtick span that starts with a name the repository defines
//! once as a function or class, and the value is the first backtick span after it, in the same paragraph, that
//! directly follows one of [`PHRASES`]. Anything else, and there is no stated example.

use crate::index::{DefKind, Index};
use crate::issue_names::{self, Place};
use crate::language::Language;

pub mod doctests;

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

/// Every example the issue states, in order and without a call twice: the first call with the value it should give
/// ([`stated`]), then the doctest examples it quotes ([`doctests`]).
pub fn examples(issue: &str, index: &Index) -> Vec<StatedExample> {
    let mut out: Vec<StatedExample> = stated(issue, index).into_iter().collect();
    for example in doctests::read(issue, index) {
        if !out.iter().any(|e| e.call == example.call) {
            out.push(example);
        }
    }
    out
}

/// The names a script of examples binds itself; a definition of the repository called so cannot be imported by it.
const RESERVED: [&str; 6] = ["types", "failures", "check", "true", "false", "null"];

/// A reproducer in `language` that runs each example's call and checks the value it states, then fails with an
/// `AssertionError` that lists each call that gave something else or raised. `None` for a language it is not written
/// for (Python alone so far), or when no example can stand in a script (a place that cannot be imported, text over
/// more than one line).
///
/// A generator's values are compared as a list, and JSON's `true`, `false` and `null` stand for Python's, as issues
/// often write values as JSON. Each call and value is evaluated from a string, so that an example that cannot be
/// read as Python is left out when the script runs (it says so) rather than breaking the script.
pub fn script(examples: &[StatedExample], language: Language) -> Option<String> {
    if language != Language::Python {
        return None;
    }
    let one_line = |s: &str| !s.chars().any(char::is_control);
    let mut imports: Vec<String> = Vec::new();
    let mut checks = String::new();
    for example in examples {
        let Some(module) = example.place.python_module() else { continue };
        let name = example.place.importable_name();
        if RESERVED.contains(&name) || !one_line(&example.call) || !one_line(&example.expected) {
            continue;
        }
        let import = format!("from {module} import {name}\n");
        if !imports.contains(&import) {
            imports.push(import);
        }
        checks.push_str(&format!("check({}, {})\n", python_string(&example.call), python_string(&example.expected)));
    }
    if checks.is_empty() {
        return None;
    }
    Some(format!(
        "# Written from the issue's own examples: each call as the issue shows it, and the value it should give.\n\
         import types\n\
         \n\
         {imports}\
         \n\
         # Values written as JSON read as Python's.\n\
         true, false, null = True, False, None\n\
         \n\
         failures = []\n\
         \n\
         \n\
         def check(call, value):\n    \
             \"\"\"Runs one example's call and notes in `failures` when it gives something other than the value.\"\"\"\n    \
             try:\n        code = compile(call, \"<the issue>\", \"eval\")\n        \
                 expected = eval(value, globals())\n    \
             except Exception as error:\n        \
                 print(\"left out: %s should give %s, which cannot be read (%r)\" % (call, value, error))\n        \
                 return\n    \
             try:\n        result = eval(code, globals())\n        \
                 if isinstance(result, types.GeneratorType):\n            result = list(result)\n    \
             except Exception as error:\n        \
                 failures.append(\"%s raised %s: %s; the issue says it should give %r\" % (call, type(error).__name__, error, expected))\n        \
                 return\n    \
             if result != expected:\n        \
                 failures.append(\"%s returned %r; the issue says it should give %r\" % (call, result, expected))\n\
         \n\
         \n\
         {checks}\
         assert not failures, \"\\n\".join(failures)\n",
        imports = imports.concat(),
    ))
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
        let script = script(&examples(issue, &repo()), Language::Python).unwrap();
        insta::assert_snapshot!(script);
        #[cfg(feature = "java")]
        assert_eq!(super::script(&examples(issue, &repo()), Language::Java), None);
    }

    #[test]
    fn the_stated_call_then_the_quoted_doctests_each_once() {
        let issue = "`lis([4, 1, 5, 3])` returns `1`, but it should return `2`.\n\nExample:\n    >>> lis([4, 1, 5, 3])\n    \
                     2\n    >>> lis([3, 1])\n    1\n";
        let read: Vec<_> = examples(issue, &repo()).into_iter().map(|e| (e.call, e.expected)).collect();
        assert_eq!(read, [("lis([4, 1, 5, 3])".into(), "2".into()), ("lis([3, 1])".into(), "1".into())]);
    }

    #[test]
    fn quotes_and_percent_signs_stay_in_the_message() {
        let idx = index(&[("fmt.py", "def fmt(s):\n    return s\n")]);
        let script = script(&examples(r#"`fmt("50% \"off\"")` should return `"50%"`"#, &idx), Language::Python);
        let script = script.unwrap();
        assert!(script.contains(r#"check("fmt(\"50% \\\"off\\\"\")", "\"50%\"")"#), "{script}");
    }

    /// The script run by CPython, in a folder holding the program: it fails with every wrong example listed, and
    /// passes once the program is right.
    #[test]
    fn cpython_runs_the_script() {
        let python = std::process::Command::new("python3").arg("--version").output();
        if !python.is_ok_and(|o| o.status.success()) {
            eprintln!("skipped: no python3");
            return;
        }
        let buggy =
            "def lis(arr):\n    if len(arr) > 3:\n        raise RecursionError('deep')\n    return (x for x in [0])\n";
        let idx = index(&[("lis.py", buggy)]);
        let issue =
            "`lis([4, 1, 5, 3])` should return `2`.\n\n>>> lis([3, 1])\n[1]\n>>> lis([2])\n[0]\n>>> lis([1])\n(1, 2\n";
        let examples = examples(issue, &idx);
        assert_eq!(examples.len(), 4);
        let script = script(&examples, Language::Python).unwrap();
        let run = |program: &str| {
            let dir = std::env::temp_dir().join(format!("acr-issue-examples-{}-{}", std::process::id(), program.len()));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("lis.py"), program).unwrap();
            std::fs::write(dir.join("reproducer.py"), &script).unwrap();
            let out = std::process::Command::new("python3").arg("reproducer.py").current_dir(&dir).output().unwrap();
            std::fs::remove_dir_all(&dir).unwrap();
            let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
            (out.status.code(), text(&out.stdout), text(&out.stderr))
        };
        let (code, stdout, stderr) = run(buggy);
        assert_ne!(code, Some(0));
        assert!(
            stderr.contains(
                "AssertionError: lis([4, 1, 5, 3]) raised RecursionError: deep; the issue says it should give 2"
            ),
            "{stderr}"
        );
        assert!(stderr.contains("lis([3, 1]) returned [0]; the issue says it should give [1]"), "{stderr}");
        assert!(!stderr.contains("lis([2])"), "a generator's values are compared as a list: {stderr}");
        assert!(stdout.contains("left out: lis([1]) should give (1, 2, which cannot be read"), "{stdout}");
        let right = "def lis(arr):\n    return 2 if len(arr) == 4 else [1] if len(arr) == 2 else (x for x in [0])\n";
        let (code, _, stderr) = run(right);
        assert_eq!(code, Some(0), "{stderr}");
    }
}
