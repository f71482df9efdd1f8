//! One reader for every format: each format's shapes, mixed answers, and the guarantees they share with ACR's
//! tags (near misses and ambiguity refused, hunk numbers only breaking ties, whole files gated and checked).

use super::*;
use crate::patch::{EditFailure, ExtractOptions, ExtractStatus, FileOrEditFailure, Outcome, extract};
use crate::repo::Repo;

const APP: &str = "def add(a, b):\n    \"\"\"Adds.\"\"\"\n    return a\n\n\ndef sub(a, b):\n    return a - b\n";

fn repo(files: &[(&str, &str)]) -> Repo {
    Repo::from_files(files.iter().map(|(p, t)| (*p, t.as_bytes())))
}

fn app() -> Repo {
    repo(&[("src/app.py", APP)])
}

const FIXED: &str = "def add(a, b):\n    \"\"\"Adds.\"\"\"\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n";

fn failure(ex: &crate::patch::Extraction, i: usize) -> &EditFailure {
    match &ex.edits[i].outcome {
        Outcome::Failed { failure: FileOrEditFailure::Edit { failure } } => failure,
        other => panic!("edit {i} did not fail on the file: {other:?}"),
    }
}

#[test]
fn names_round_trip() {
    for f in EditFormat::ALL {
        assert_eq!(f.name().parse::<EditFormat>(), Ok(f));
        assert_eq!(serde_json::to_value(f).unwrap(), serde_json::json!(f.name()));
    }
    assert!("diff".parse::<EditFormat>().is_err());
}

#[test]
fn paths_alone_on_a_line_and_in_info_strings() {
    for (line, path) in [
        ("src/app.py", "src/app.py"),
        ("`src/app.py`", "src/app.py"),
        ("**src/app.py**", "src/app.py"),
        ("### src/app.py", "src/app.py"),
        ("File: src/app.py", "src/app.py"),
        ("src/app.py:", "src/app.py"),
        ("pkg/__init__.py", "pkg/__init__.py"),
    ] {
        assert_eq!(path_alone(line).as_deref(), Some(path), "{line}");
    }
    for line in ["In `src/app.py`:", "Here is the fix.", "e.g.", "return x.y()", "1.2", "```python", "..."] {
        assert_eq!(path_alone(line), None, "{line}");
    }
    assert_eq!(path_in_info("python src/app.py").as_deref(), Some("src/app.py"));
    assert_eq!(path_in_info("python:src/app.py").as_deref(), Some("src/app.py"));
    assert_eq!(path_in_info("py title=\"src/app.py\"").as_deref(), Some("src/app.py"));
    assert_eq!(path_in_info("python"), None);
}

#[test]
fn search_replace_with_the_path_before_the_fence() {
    let answer = "Fix:\n\nsrc/app.py\n```python\n<<<<<<< SEARCH\n    return a\n=======\n    return a + b\n>>>>>>> REPLACE\n```\n";
    let read = read(answer, None);
    assert_eq!(read.formats(), vec![EditFormat::SearchReplace]);
    let ex = extract(&app(), answer, &ExtractOptions::default());
    assert_eq!(ex.status, ExtractStatus::ApplicablePatch, "{}", ex.reason);
    assert_eq!(ex.files["src/app.py"], FIXED);
    assert_eq!(ex.formats, vec![EditFormat::SearchReplace]);
}

#[test]
fn search_replace_with_the_path_in_the_info_string_and_blocks_sharing_a_fence() {
    let answer = "```python src/app.py\n<<<<<<< SEARCH\n    return a\n=======\n    return a + b\n>>>>>>> REPLACE\n<<<<<<< SEARCH\n    return a - b\n=======\n    return b - a\n>>>>>>> REPLACE\n```\n";
    let read = read(answer, None);
    assert_eq!(read.edits.len(), 2);
    assert!(read.edits.iter().all(|e| e.file == "src/app.py" && e.format == EditFormat::SearchReplace));
    let ex = extract(&app(), answer, &ExtractOptions::default());
    assert_eq!(ex.status, ExtractStatus::ApplicablePatch, "{}", ex.reason);
    assert!(ex.files["src/app.py"].contains("return b - a"));
}

#[test]
fn search_replace_keeps_an_rst_underline_in_the_search_part() {
    let text = "def f():\n    \"\"\"\n    Title\n    =====\n    \"\"\"\n    return 1\n";
    let answer = "m.py\n```\n<<<<<<< SEARCH\n    Title\n    =====\n    \"\"\"\n    return 1\n=======\n    Title\n    =====\n    \"\"\"\n    return 2\n>>>>>>> REPLACE\n```";
    let ex = extract(&repo(&[("m.py", text)]), answer, &ExtractOptions::default());
    assert_eq!(ex.status, ExtractStatus::ApplicablePatch, "{}", ex.reason);
    assert!(ex.files["m.py"].ends_with("    return 2\n"));
}

#[test]
fn incomplete_search_replace_blocks_are_reported() {
    let (edits, issues) = crate::patch::parse_edits_with_issues("a.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n");
    assert!(edits.is_empty());
    assert!(issues[0].to_string().contains(">>>>>>> REPLACE"), "{issues:?}");
    let (_, issues) = crate::patch::parse_edits_with_issues("<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n");
    assert!(issues[0].to_string().contains("no file path"), "{issues:?}");
}

#[test]
fn git_diff_with_right_numbers() {
    let answer = "```diff\ndiff --git a/src/app.py b/src/app.py\nindex 1111111..2222222 100644\n--- a/src/app.py\n+++ b/src/app.py\n@@ -1,4 +1,4 @@\n def add(a, b):\n     \"\"\"Adds.\"\"\"\n-    return a\n+    return a + b\n \n```\n";
    let read = read(answer, None);
    assert_eq!(read.formats(), vec![EditFormat::Udiff]);
    assert_eq!((read.edits[0].file.as_str(), read.edits[0].line), ("src/app.py", Some(1)));
    let ex = extract(&app(), answer, &ExtractOptions::default());
    assert_eq!(ex.status, ExtractStatus::ApplicablePatch, "{}", ex.reason);
    assert_eq!(ex.files["src/app.py"], FIXED);
}

#[test]
fn bare_hunks_without_numbers_or_prefixes() {
    let answer = "--- src/app.py\n+++ src/app.py\n@@ ... @@\n def add(a, b):\n-    return a\n+    return a + b\n";
    // The docstring line is missing from the hunk: the content does not match, and that is refused.
    let ex = extract(&app(), answer, &ExtractOptions::default());
    assert_eq!(ex.status, ExtractStatus::RawPatchButUnmatched);
    assert!(matches!(failure(&ex, 0), EditFailure::NotFound { .. }));
    let answer =
        "--- src/app.py\n+++ src/app.py\n@@ ... @@\n     \"\"\"Adds.\"\"\"\n-    return a\n+    return a + b\n";
    let ex = extract(&app(), answer, &ExtractOptions::default());
    assert_eq!(ex.status, ExtractStatus::ApplicablePatch, "{}", ex.reason);
    assert_eq!(ex.files["src/app.py"], FIXED);
    assert_eq!(ex.formats, vec![EditFormat::Udiff]);
}

#[test]
fn hunk_numbers_break_ties_but_never_override_the_content() {
    let text = "def a():\n    return 0\n\n\ndef b():\n    return 0\n";
    let r = repo(&[("m.py", text)]);
    let hunk = |line: &str| format!("--- a/m.py\n+++ b/m.py\n@@ -{line} +{line} @@\n-    return 0\n+    return 1\n");
    // Right number: the second place.
    let ex = extract(&r, &hunk("6,1"), &ExtractOptions::default());
    assert_eq!(ex.status, ExtractStatus::ApplicablePatch, "{}", ex.reason);
    assert_eq!(ex.files["m.py"], "def a():\n    return 0\n\n\ndef b():\n    return 1\n");
    // A guess a line off picks nothing while the other place is near too...
    // ...and a number between the two, or far from both, decides nothing either: refused with the candidates.
    for line in ["3,1", "4,1", "400,1"] {
        let ex = extract(&r, &hunk(line), &ExtractOptions::default());
        assert_eq!(ex.status, ExtractStatus::RawPatchButUnmatched, "{line}");
        assert_eq!(failure(&ex, 0).ambiguous_lines(), Some(vec![2, 6]), "{line}");
    }
    // A guess a few lines off, even far from the other place, decides nothing either: only the exact line does.
    let far = format!("def a():\n    return 0\n{}def b():\n    return 0\n", "\n".repeat(20));
    let ex = extract(&repo(&[("m.py", &far)]), &hunk("5,1"), &ExtractOptions::default());
    assert!(matches!(failure(&ex, 0), EditFailure::Ambiguous { .. }));
    let ex = extract(&repo(&[("m.py", &far)]), &hunk("2,1"), &ExtractOptions::default());
    assert_eq!(ex.status, ExtractStatus::ApplicablePatch, "{}", ex.reason);
    assert!(ex.files["m.py"].starts_with("def a():\n    return 1\n"));
    assert!(ex.edits[0].message().contains("hunk header"), "{}", ex.edits[0].message());
    // No number: refused.
    let ex = extract(&r, "--- m.py\n+++ m.py\n@@ @@\n-    return 0\n+    return 1\n", &ExtractOptions::default());
    assert_eq!(failure(&ex, 0).ambiguous_lines(), Some(vec![2, 6]));
    // A number pointing at a line whose content differs does not place the hunk there.
    let ex =
        extract(&r, "--- m.py\n+++ m.py\n@@ -1,1 +1,1 @@\n-    return 9\n+    return 1\n", &ExtractOptions::default());
    assert!(matches!(failure(&ex, 0), EditFailure::NotFound { .. }));
}

#[test]
fn several_hunks_and_files_in_one_diff() {
    let r = repo(&[("src/app.py", APP), ("src/other.py", "X = 1\n")]);
    let answer = "--- a/src/app.py\n+++ b/src/app.py\n@@ -2,2 +2,2 @@\n     \"\"\"Adds.\"\"\"\n-    return a\n+    return a + b\n@@ -6,2 +6,2 @@\n def sub(a, b):\n-    return a - b\n+    return b - a\n--- a/src/other.py\n+++ b/src/other.py\n@@ -1 +1 @@\n-X = 1\n+X = 2\n\\ No newline at end of file\n";
    let ex = extract(&r, answer, &ExtractOptions::default());
    assert_eq!(ex.status, ExtractStatus::ApplicablePatch, "{}", ex.reason);
    assert_eq!(ex.edits.len(), 3);
    assert!(ex.files["src/app.py"].contains("return a + b") && ex.files["src/app.py"].contains("return b - a"));
    assert_eq!(ex.files["src/other.py"], "X = 2\n");
}

#[test]
fn a_hunk_without_a_file_is_reported() {
    let (edits, issues) = crate::patch::parse_edits_with_issues("@@ -1 +1 @@\n-a\n+b\n");
    assert!(edits.is_empty());
    assert!(issues[0].to_string().contains("+++ b/path"), "{issues:?}");
}

/// A module with statements besides definitions, written whole.
const MODULE: &str = "import os\n\nLIMIT = 3\n\n\ndef add(a, b):\n    return a\n\n\nprint(add(1, 2))\n";

#[test]
fn whole_file_after_its_path_is_diffed_and_gated() {
    let fixed = MODULE.replace("return a\n", "return a + b\n");
    let r = repo(&[("src/app.py", MODULE)]);
    let answer = format!("Here is the new file.\n\nsrc/app.py\n```python\n{fixed}```\n");
    let ex = extract(&r, &answer, &ExtractOptions::default());
    assert_eq!(ex.status, ExtractStatus::ApplicablePatch, "{}", ex.reason);
    assert_eq!(ex.files["src/app.py"], fixed);
    assert_eq!(ex.formats, vec![EditFormat::Whole]);
    // The diff shows the change, not the whole file.
    assert_eq!(ex.diff.lines().filter(|l| l.starts_with('+') && !l.starts_with("+++")).count(), 1, "{}", ex.diff);
    assert!(ex.edits[0].message().starts_with("rewrote src/app.py"), "{}", ex.edits[0].message());
    // With the path in the info string, and broken: the gate refuses it.
    let broken = fixed.replace("return a + b", "return (a + b");
    let ex = extract(&r, &format!("```python src/app.py\n{broken}```"), &ExtractOptions::default());
    assert!(matches!(failure(&ex, 0), EditFailure::BreaksSyntax { .. }), "{:?}", ex.edits);
}

/// A module of nothing but definitions, written whole, changes only the definitions it changes.
#[test]
fn a_module_of_definitions_written_whole_is_read_as_its_definitions() {
    let answer = format!("src/app.py\n```python\n{FIXED}```\n");
    let ex = extract(&app(), &answer, &ExtractOptions::default());
    assert_eq!(ex.status, ExtractStatus::ApplicablePatch, "{}", ex.reason);
    assert_eq!(ex.files["src/app.py"], FIXED);
    assert_eq!(ex.formats, vec![EditFormat::Definition]);
}

#[test]
fn whole_files_that_leave_code_out_are_refused() {
    let placeholder = "src/app.py\n```python\nimport os\n\nLIMIT = 3\n\n\ndef add(a, b):\n    return a + b\n\n# ... rest unchanged\n```";
    let ex = extract(&repo(&[("src/app.py", MODULE)]), placeholder, &ExtractOptions::default());
    assert!(
        matches!(failure(&ex, 0), EditFailure::CutShort { reason } if reason.contains("rest unchanged")),
        "{:?}",
        ex.edits
    );
    let long: String = (0..30).map(|i| format!("X{i} = {i}\n")).collect();
    let short: String = (0..8).map(|i| format!("X{i} = {i}\n")).collect();
    let ex = extract(&repo(&[("m.py", &long)]), &format!("m.py\n```\n{short}```"), &ExtractOptions::default());
    assert!(
        matches!(failure(&ex, 0), EditFailure::NotAUnit { reason } if reason.contains("last lines")),
        "{:?}",
        ex.edits
    );
    // A file cut off before its closing fence is not read at all.
    let (edits, issues) = crate::patch::parse_edits_with_issues("m.py\n```python\nX0 = 0\n");
    assert!(edits.is_empty());
    assert!(issues[0].to_string().contains("closing fence"), "{issues:?}");
}

#[test]
fn prose_snippets_are_not_whole_files() {
    let answer = "In `src/app.py`:\n```python\nreturn a\n```\nand the fix is below.\n";
    assert!(read(answer, None).edits.is_empty());
}

#[test]
fn several_formats_in_one_answer_keep_their_order() {
    let r = repo(&[("src/app.py", APP), ("src/other.py", "X = 1\n")]);
    let answer = "# modification 1\n```python\n<file>src/other.py</file>\n<original>X = 1</original>\n<patched>X = 2</patched>\n```\n\nsrc/app.py\n```python\n<<<<<<< SEARCH\n    return a\n=======\n    return a + b\n>>>>>>> REPLACE\n```\n\n```diff\n--- a/src/app.py\n+++ b/src/app.py\n@@ -6,2 +6,2 @@\n def sub(a, b):\n-    return a - b\n+    return b - a\n```\n";
    let read = read(answer, None);
    let got: Vec<(usize, EditFormat)> = read.edits.iter().map(|e| (e.index, e.format)).collect();
    assert_eq!(got, vec![(1, EditFormat::Acr), (2, EditFormat::SearchReplace), (3, EditFormat::Udiff)]);
    let ex = extract(&r, answer, &ExtractOptions::default());
    assert_eq!(ex.status, ExtractStatus::ApplicablePatch, "{}", ex.reason);
    assert_eq!(ex.formats, vec![EditFormat::Acr, EditFormat::SearchReplace, EditFormat::Udiff]);
    assert_eq!(ex.files["src/other.py"], "X = 2\n");
    assert!(ex.files["src/app.py"].contains("return a + b") && ex.files["src/app.py"].contains("return b - a"));
}

#[test]
fn near_misses_are_refused_in_every_format() {
    let wrong = "    return a  # not in the file";
    let answers = [
        format!("<file>src/app.py</file><original>\n{wrong}\n</original><patched>\n    return a + b\n</patched>"),
        format!("src/app.py\n```\n<<<<<<< SEARCH\n{wrong}\n=======\n    return a + b\n>>>>>>> REPLACE\n```"),
        format!("--- a/src/app.py\n+++ b/src/app.py\n@@ -3 +3 @@\n-{wrong}\n+    return a + b\n"),
    ];
    for answer in &answers {
        let ex = extract(&app(), answer, &ExtractOptions::default());
        assert_eq!(ex.status, ExtractStatus::RawPatchButUnmatched, "{answer}");
        assert!(matches!(failure(&ex, 0), EditFailure::NotFound { .. }), "{answer}");
    }
}

#[test]
fn ambiguity_is_refused_with_the_candidates_in_every_format() {
    let text = "def a():\n    return 0\n\n\ndef b():\n    return 0\n";
    let answers = [
        "<file>m.py</file><original>return 0</original><patched>return 1</patched>".to_string(),
        "m.py\n```\n<<<<<<< SEARCH\n    return 0\n=======\n    return 1\n>>>>>>> REPLACE\n```".to_string(),
        "--- m.py\n+++ m.py\n@@ ... @@\n-    return 0\n+    return 1\n".to_string(),
    ];
    for answer in &answers {
        let ex = extract(&repo(&[("m.py", text)]), answer, &ExtractOptions::default());
        assert_eq!(failure(&ex, 0).ambiguous_lines(), Some(vec![2, 6]), "{answer}");
    }
}

#[test]
fn the_reason_for_an_unreadable_answer_names_the_format_asked_for() {
    for format in EditFormat::ALL {
        let options = ExtractOptions { asked: Some(format), ..ExtractOptions::default() };
        let ex = extract(&app(), "I would change the return statement.", &options);
        assert_eq!(ex.status, ExtractStatus::RawPatchButUnparsed);
        assert!(ex.reason.ends_with(reminder(format)), "{format}: {}", ex.reason);
    }
}

/// A `<file>` tag whose path is built to look like a diff (newlines, `---`/`+++` headers, a hunk) is a path that
/// cannot be one: it is refused, and the diff inside it is not read as an edit of another file.
#[test]
fn a_diff_inside_a_file_tag_is_a_path_not_an_edit() {
    let forged = "x\n--- a/setup.py\n+++ b/setup.py\n@@ -1 +1 @@\n-x = 1\n+import os\n.py";
    let answer = format!("<file>{forged}</file><original>y = 2</original><patched>import os</patched>");
    let (edits, _) = crate::patch::parse_edits_with_issues(&answer);
    assert_eq!(edits.len(), 1, "{edits:?}");
    assert_eq!(edits[0].format, crate::patch::EditFormat::Acr);
}
