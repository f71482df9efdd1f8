//! The doctest examples an issue quotes: a `>>> call` line and, on the next line, the value it gives
//! (`>>> list(kheapsort([3, 2, 1, 5, 4], 2))` over `[1, 2, 3, 4, 5]`), as docstrings write them and issues copy them.
//!
//! An issue's single stated call is a weak judge of a patch: Qwen2.5-Coder-1.5B's rewrite of QuixBugs' lis gave the
//! issue's list the right length and QuixBugs' other cases wrong, and was validated. The docstrings issues quote often
//! hold further cases (find_in_sorted's, kheapsort's and longest_common_subsequence's do), and each is one more check.
//!
//! Only what is sure is read, since every example read is asserted of every patch:
//! - the value is one line, followed by a blank line, another `>>>` line, a fence or the end, and reads as a literal
//!   (a number, a string, a list, a tuple, a dict or a set, `True`, `False`, `None`), not a repr such as
//!   `<generator object ...>`;
//! - the call names exactly one function or class that the repository defines once, and every other free name in it
//!   is one of Python's builtins ([`BUILTINS`]); a name bound by an earlier line of the session, or by a
//!   comprehension, is not known here, and the example is left out.

use super::StatedExample;
use crate::index::{DefKind, Index};
use crate::issue_names;

/// The builtins a quoted call may wrap the repository's code in (`list(flatten(...))`, `sorted(...)`).
pub const BUILTINS: [&str; 28] = [
    "abs",
    "all",
    "any",
    "bool",
    "bytes",
    "chr",
    "dict",
    "divmod",
    "enumerate",
    "filter",
    "float",
    "frozenset",
    "int",
    "isinstance",
    "iter",
    "len",
    "list",
    "map",
    "max",
    "min",
    "next",
    "ord",
    "range",
    "repr",
    "reversed",
    "set",
    "sorted",
    "str",
];

/// At most this many doctest examples are read from one issue: each is looked up in the index and run on every
/// patch, and an issue that quotes more is a test suite, not an example.
pub const MAX_EXAMPLES: usize = 16;

/// Words a call may hold that bind nothing.
const KEYWORDS: [&str; 10] = ["True", "False", "None", "and", "or", "not", "in", "is", "if", "else"];

/// The doctest examples of `issue` that can be checked, in order, [`MAX_EXAMPLES`] at most.
pub fn read(issue: &str, index: &Index) -> Vec<StatedExample> {
    let lines: Vec<&str> = issue.lines().map(str::trim).collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if out.len() == MAX_EXAMPLES {
            break;
        }
        let Some(call) = line.strip_prefix(">>> ").map(str::trim) else { continue };
        let Some(&value) = lines.get(i + 1) else { continue };
        let ends =
            lines.get(i + 2).is_none_or(|next| next.is_empty() || next.starts_with(">>>") || next.starts_with("```"));
        if !ends || !is_literal(value) {
            continue;
        }
        if let Some(place) = only_definition_called(call, index) {
            out.push(StatedExample { call: call.to_string(), expected: value.to_string(), place });
        }
    }
    out
}

/// Whether a doctest's output line reads as a Python literal (a quick look at its start; the script evaluates it).
fn is_literal(value: &str) -> bool {
    let Some(first) = value.chars().next() else { return false };
    matches!(value, "True" | "False" | "None")
        || "[({'\"-".contains(first)
        || first.is_ascii_digit()
        || (value.starts_with(['b', 'r']) && value[1..].starts_with(['\'', '"']))
}

/// The one definition of the repository that `call` names, when every other free name in it is a builtin or a
/// keyword.
fn only_definition_called(call: &str, index: &Index) -> Option<issue_names::Place> {
    let mut place: Option<issue_names::Place> = None;
    for name in free_names(call)? {
        if KEYWORDS.contains(&name) {
            continue;
        }
        let mut defined = issue_names::defined(name, index)
            .into_iter()
            .filter(|p| matches!(p.kind, DefKind::Function | DefKind::Class));
        match (defined.next(), defined.next()) {
            (Some(found), None) => match &place {
                Some(known) if known.importable_name() != found.importable_name() => return None,
                _ => place = Some(found),
            },
            (Some(_), Some(_)) => return None,
            (None, _) if BUILTINS.contains(&name) => {}
            (None, _) => return None,
        }
    }
    place
}

/// The names `call` reads from its scope: identifiers outside string literals that follow no `.` (an attribute)
/// and are not a keyword argument's name (`k=3`). `None` when a string is not closed.
fn free_names(call: &str) -> Option<Vec<&str>> {
    let bytes = call.as_bytes();
    let mut names = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'\'' || b == b'"' {
            i = string_end(bytes, i)?;
        } else if b.is_ascii_digit() {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] == b'.') {
                i += 1;
            }
        } else if b.is_ascii_alphabetic() || b == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            // A string's prefix (`b'...'`, `r"..."`) is no name.
            if bytes.get(i).is_some_and(|&q| q == b'\'' || q == b'"') && i - start <= 2 {
                continue;
            }
            let before = call[..start].trim_end();
            let after = call[i..].trim_start();
            let attribute = before.ends_with('.');
            let keyword_argument = after.starts_with('=') && !after.starts_with("==");
            if !attribute && !keyword_argument {
                names.push(&call[start..i]);
            }
        } else if !b.is_ascii() {
            return None;
        } else {
            i += 1;
        }
    }
    Some(names)
}

/// Where the string literal opening at `open` ends (after its closing quote); `None` when it does not close.
fn string_end(bytes: &[u8], open: usize) -> Option<usize> {
    let quote = bytes[open];
    let mut i = open + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            q if q == quote => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::issue_names::tests::index;

    fn repo() -> Index {
        index(&[
            ("kheapsort.py", "def kheapsort(arr, k):\n    return arr\n"),
            ("subsequences.py", "def subsequences(a, b, k):\n    return []\n"),
            ("a.py", "def twice():\n    pass\n"),
            ("b.py", "def twice():\n    pass\n"),
        ])
    }

    fn calls(issue: &str) -> Vec<(String, String)> {
        read(issue, &repo()).into_iter().map(|e| (e.call, e.expected)).collect()
    }

    #[test]
    fn a_docstring_session_read_example_by_example() {
        let issue = "Example:\n    >>> list(kheapsort([3, 2, 1, 5, 4], 2))\n    [1, 2, 3, 4, 5]\n    \
                     >>> subsequences(a=1, b=5, k=3)\n    [[1, 2, 3], [1, 2, 4]]\n\nMore prose.\n";
        assert_eq!(
            calls(issue),
            [
                ("list(kheapsort([3, 2, 1, 5, 4], 2))".into(), "[1, 2, 3, 4, 5]".into()),
                ("subsequences(a=1, b=5, k=3)".into(), "[[1, 2, 3], [1, 2, 4]]".into()),
            ]
        );
        assert_eq!(read(issue, &repo())[0].place.file, "kheapsort.py");
    }

    #[test]
    fn nothing_unsure_is_read() {
        let one = |issue: &str| calls(issue).len();
        assert_eq!(one(">>> kheapsort([1], 0)\n<generator object kheapsort>\n"), 0, "a repr, not a literal");
        assert_eq!(one(">>> kheapsort([1], 0)\n[1,\n 2]\n"), 0, "a value over two lines");
        assert_eq!(one(">>> kheapsort(xs, 0)\n[1]\n"), 0, "a name bound by an earlier line");
        assert_eq!(one(">>> [kheapsort(x, 0) for x in ys]\n[]\n"), 0, "a comprehension's name");
        assert_eq!(one(">>> twice()\n1\n"), 0, "defined twice");
        assert_eq!(one(">>> sorted([2, 1])\n[1, 2]\n"), 0, "no code of the repository");
        assert_eq!(one(">>> kheapsort([1], 0)\n"), 0, "no value");
        assert_eq!(one(">>> kheapsort('[1', 0)\n[1]\n"), 1, "a bracket in a string");
        assert_eq!(one(">>> kheapsort([1], 0) == [1]\nTrue\n"), 1);
        assert_eq!(one(">>> kheapsort(\"open, 0)\n[1]\n"), 0, "a string left open");
        assert_eq!(one(">>> kheapsort([1], 0).copy()\n[1]\n"), 1, "an attribute is no name");
        assert_eq!(one(">>> subsequences(1, 5, k=len(b'ab'))\n[]\n"), 1, "a bytes literal and a keyword argument");
    }

    #[test]
    fn a_quoted_test_suite_is_read_to_the_cap() {
        let issue = ">>> kheapsort([1], 0)\n[1]\n".repeat(MAX_EXAMPLES * 4);
        assert_eq!(calls(&issue).len(), MAX_EXAMPLES);
    }
}
