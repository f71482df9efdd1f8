//! Rules of applying edits, one test per rule.

use super::*;
use crate::gate::Gate;

fn edit(original: &str, patched: &str) -> Edit {
    Edit::new(1, "m.py", original, patched)
}

fn apply(text: &str, original: &str, patched: &str) -> Result<Applied, EditFailure> {
    apply_edit(text, &edit(original, patched), &ApplyOptions::default(), &mut Gate::new())
}

const CLASS: &str =
    "class A:\n    def f(self):\n        x = 1\n        return x\n\n    def g(self):\n        return 2\n";

#[test]
fn whitespace_around_lines_is_ignored_when_matching() {
    let a = apply(CLASS, "x = 1\n  return x", "x = 2\nreturn x").unwrap();
    assert_eq!((a.start, a.end), (3, 4));
    assert_eq!(a.indent, IndentGuess::Relative);
    assert!(a.text.contains("        x = 2\n        return x\n"), "{}", a.text);
}

#[test]
fn relative_indentation_is_kept_when_the_first_line_is_unindented() {
    let a = apply(CLASS, "def g(self):\n    return 2", "def g(self):\n    if self:\n        return 3\n    return 2")
        .unwrap();
    assert_eq!(a.indent, IndentGuess::Relative);
    assert!(
        a.text.ends_with("    def g(self):\n        if self:\n            return 3\n        return 2\n"),
        "{}",
        a.text
    );
}

#[test]
fn first_line_only_is_used_when_the_rest_is_absolute() {
    // The model wrote the first line flush left but the rest at the file's real indentation.
    // Shifting the whole block would put `def h` at a column no block uses.
    let a = apply(
        CLASS,
        "def g(self):\n        return 2",
        "def g(self):\n        return 2\n\n    def h(self):\n        return 3",
    )
    .unwrap();
    assert_eq!(a.indent, IndentGuess::FirstLineOnly);
    assert!(
        a.text.ends_with("    def g(self):\n        return 2\n\n    def h(self):\n        return 3\n"),
        "{}",
        a.text
    );
}

#[test]
fn over_indented_edits_are_moved_left_without_cutting_code() {
    let text = "def f():\n    return 1\n";
    let a = apply(text, "        def f():\n            return 1", "        def f():\n  return 2").unwrap();
    assert_eq!(a.text, "def f():\n  return 2\n");
}

#[test]
fn blank_lines_are_not_padded() {
    let a = apply(CLASS, "x = 1", "x = 1\n\ny = 2").unwrap();
    assert!(a.text.contains("        x = 1\n\n        y = 2\n"), "{:?}", a.text);
}

#[test]
fn crlf_files_stay_crlf() {
    let text = "def f():\r\n    a = 1\r\n    return a\r\n";
    let a = apply(text, "a = 1", "a = 2\nb = 3").unwrap();
    assert_eq!(a.text, "def f():\r\n    a = 2\r\n    b = 3\r\n    return a\r\n");
}

#[test]
fn tabs_stay_tabs() {
    let text = "def f():\n\tif x:\n\t\treturn 1\n\treturn 0\n";
    // The model answers with spaces.
    let a = apply(text, "    if x:\n        return 1", "    if x:\n        y = 2\n        return y").unwrap();
    assert_eq!(a.text, "def f():\n\tif x:\n\t\ty = 2\n\t\treturn y\n\treturn 0\n");
    // And with tabs, matching the file.
    let a = apply(text, "\treturn 0", "\treturn -1").unwrap();
    assert!(a.text.ends_with("\treturn -1\n"));
}

#[test]
fn trailing_whitespace_in_the_file_does_not_block_a_match() {
    let text = "def f():   \n    return 1  \n";
    let a = apply(text, "def f():\n    return 1", "def f():\n    return 2").unwrap();
    assert_eq!(a.text, "def f():\n    return 2\n");
}

#[test]
fn a_missing_final_newline_stays_missing() {
    let text = "x = 1\ny = 2";
    let a = apply(text, "y = 2", "y = 3").unwrap();
    assert_eq!(a.text, "x = 1\ny = 3");
    let a = apply(text, "x = 1", "x = 0").unwrap();
    assert_eq!(a.text, "x = 0\ny = 2");
}

#[test]
fn empty_original_is_refused() {
    assert_eq!(apply(CLASS, "  \n\t", "x = 1"), Err(EditFailure::EmptyOriginal));
    assert_eq!(apply(CLASS, "# ... existing code ...", "x = 1"), Err(EditFailure::EmptyOriginal));
}

#[test]
fn empty_patched_deletes() {
    let a = apply(CLASS, "x = 1", "").unwrap();
    assert_eq!(a.indent, IndentGuess::Deletion);
    assert!(!a.text.contains("x = 1"));
}

#[test]
fn not_found_names_the_nearest_lines() {
    let err = apply(CLASS, "def f(self):\n    x = 10", "pass").unwrap_err();
    match &err {
        EditFailure::NotFound { matched_lines, nearest, wanted } => {
            assert_eq!(*matched_lines, 1);
            assert_eq!(wanted, "x = 10");
            assert_eq!(nearest[0].line, 3);
        }
        other => panic!("{other:?}"),
    }
    insta::assert_snapshot!(err.to_string(), @"the <original> was not found: its first 1 line(s) match, but then it has `x = 10` where line 3 of the file is `x = 1`");
    let err = apply(CLASS, "def h(self):", "pass").unwrap_err();
    insta::assert_snapshot!(err.to_string(), @"the <original> was not found: no line of the file reads `def h(self):`; the closest lines are line 2 `def f(self):`, line 6 `def g(self):`");
}

#[test]
fn duplicates_are_reported_and_resolved_by_hints() {
    let text = "def a():\n    return 0\n\ndef b():\n    return 0\n";
    let err = apply(text, "return 0", "return 1").unwrap_err();
    assert_eq!(err.ambiguous_lines(), Some(vec![2, 5]));
    assert!(err.to_string().contains("occurs 2 times (lines 2, 5)"), "{err}");
    let first = ApplyOptions { hints: vec![], refuse_ambiguous: false };
    let a = apply_edit(text, &edit("return 0", "return 1"), &first, &mut Gate::new()).unwrap();
    assert_eq!(a.occurrences, vec![2, 5]);
    assert_eq!(a.start, 2);
    assert!(a.notes[0].contains("used the first"), "{:?}", a.notes);

    let hinted = ApplyOptions { hints: vec![(4, 4)], refuse_ambiguous: false };
    let a = apply_edit(text, &edit("return 0", "return 1"), &hinted, &mut Gate::new()).unwrap();
    assert_eq!(a.start, 5);
    assert!(a.notes[0].contains("nearest the bug location"), "{:?}", a.notes);

    let strict = ApplyOptions { hints: vec![], refuse_ambiguous: true };
    let err = apply_edit(text, &edit("return 0", "return 1"), &strict, &mut Gate::new()).unwrap_err();
    assert_eq!(err.ambiguous_lines(), Some(vec![2, 5]));
}

#[test]
fn placeholders_skip_lines_and_bring_them_back() {
    let text = "def f():\n    a = 1\n    b = 2\n    c = 3\n    return a\n";
    let a = apply(
        text,
        "def f():\n    # ... existing code ...\n    return a",
        "def f():\n    # ... existing code ...\n    return a + b + c",
    )
    .unwrap();
    assert_eq!(a.reading, Reading::SkippedLines);
    assert_eq!(a.text, "def f():\n    a = 1\n    b = 2\n    c = 3\n    return a + b + c\n");
    let err = apply(text, "def f():\n    # ... existing code ...\n    return a", "def f():\n    return a").unwrap_err();
    assert_eq!(err, EditFailure::PlaceholderMismatch { original: 1, patched: 0 });
}

#[test]
fn a_placeholder_only_in_patched_is_dropped() {
    let a = apply(CLASS, "x = 1", "x = 2\n# Rest of the code...").unwrap();
    assert!(a.text.contains("        x = 2\n        return x\n"), "{}", a.text);
    assert!(!a.text.contains("Rest of"));
}

#[test]
fn bare_ellipsis_is_a_placeholder_only_when_needed() {
    let text = "def f(x):\n    \"\"\"Doc.\"\"\"\n    y = x\n    return y\n";
    let a = apply(text, "def f(x):\n    ...\n    return y", "def f(x):\n    ...\n    return -y").unwrap();
    assert_eq!(a.reading, Reading::EllipsisAsPlaceholder);
    assert_eq!(a.text, "def f(x):\n    \"\"\"Doc.\"\"\"\n    y = x\n    return -y\n");
    // Every `...` in the patched text must pair with one in the original, or the edit is refused.
    let err = apply(text, "def f(x):\n    ...", "def f(x):\n    ...\n    z = 1\n    ...").unwrap_err();
    assert!(matches!(err, EditFailure::PlaceholderMismatch { .. }), "{err:?}");
    // A real `...` statement is matched literally.
    let stub = "class P:\n    def f(self):\n        ...\n";
    let a = apply(stub, "def f(self):\n    ...", "def f(self):\n    return 1").unwrap();
    assert_eq!(a.reading, Reading::AsWritten);
    assert_eq!(a.text, "class P:\n    def f(self):\n        return 1\n");
}

#[test]
fn html_entities_are_decoded_when_needed() {
    let text = "if a >= b and c < d:\n    pass\n";
    let a = apply(text, "if a &gt;= b and c &lt; d:", "if a &gt; b:").unwrap();
    assert_eq!(a.reading, Reading::DecodedEntities);
    assert_eq!(a.text, "if a > b:\n    pass\n");
}

#[test]
fn edits_that_break_syntax_fail_with_the_position() {
    let err = apply(CLASS, "x = 1", "x = (1").unwrap_err();
    match &err {
        EditFailure::BreaksSyntax { start, relative, .. } => {
            assert_eq!(*start, 3);
            assert!(relative.line >= 3, "{relative}");
        }
        other => panic!("{other:?}"),
    }
    assert!(err.to_string().contains("would break the program's syntax"));
}

#[test]
fn a_file_broken_before_the_edit_does_not_block_it() {
    let text = "def f(:\n    pass\n\nx = 1\n";
    let a = apply(text, "x = 1", "x = 2").unwrap();
    assert!(a.text.ends_with("x = 2\n"));
    // CPython reports the first problem only: a new one before the old one is the edit's.
    let text = "x = 1\n\ndef f(:\n    pass\n";
    assert!(apply(text, "x = 1", "x = 2").is_ok());
    assert!(apply(text, "x = 1", "x = 2 +").is_err());
}

fn repo(files: &[(&str, &[u8])]) -> Repo {
    Repo::from_files(files.iter().map(|(p, b)| (*p, *b)))
}

#[test]
fn extraction_applies_edits_in_order_and_diffs() {
    let repo = repo(&[("pkg/m.py", CLASS.as_bytes())]);
    let answer = "# modification 1\n```python\n<file>pkg/m.py</file>\n<original>x = 1</original>\n<patched>x = 2</patched>\n```\n# modification 2\n```python\n<file>m.py</file>\n<original>x = 2\nreturn x</original>\n<patched>x = 2\nreturn x + 1</patched>\n```\n";
    let ex = extract(&repo, answer, &ExtractOptions::default());
    assert_eq!(ex.status, ExtractStatus::ApplicablePatch);
    assert_eq!(ex.reason, "");
    assert_eq!(ex.edits.len(), 2);
    assert_eq!(ex.edits[1].path.as_deref(), Some("pkg/m.py"));
    insta::assert_snapshot!(ex.diff, @r"
    diff --git a/pkg/m.py b/pkg/m.py
    --- a/pkg/m.py
    +++ b/pkg/m.py
    @@ -1,7 +1,7 @@
     class A:
         def f(self):
    -        x = 1
    -        return x
    +        x = 2
    +        return x + 1
     
         def g(self):
             return 2
    ");
}

#[test]
fn statuses_follow_the_worst_to_best_ladder() {
    let r = repo(&[("m.py", CLASS.as_bytes())]);
    let opts = ExtractOptions::default();
    let status = |answer: &str| extract(&r, answer, &opts).status;
    assert_eq!(status("  \n"), ExtractStatus::NoPatch);
    assert_eq!(status("I would change f."), ExtractStatus::RawPatchButUnparsed);
    assert_eq!(
        status("<file>m.py</file><original>nope</original><patched>x</patched>"),
        ExtractStatus::RawPatchButUnmatched
    );
    assert_eq!(
        status("<file>m.py</file><original>\n</original><patched>x = 0</patched>"),
        ExtractStatus::MatchedButEmptyOrigin
    );
    assert_eq!(
        status("<file>m.py</file><original>x = 1</original><patched>x = 1</patched>"),
        ExtractStatus::MatchedButEmptyDiff
    );
    assert_eq!(
        status("<file>m.py</file><original>x = 1</original><patched>x = 3</patched>"),
        ExtractStatus::ApplicablePatch
    );
}

#[test]
fn partial_success_names_the_failed_edits() {
    let r = repo(&[("m.py", CLASS.as_bytes())]);
    let ex = extract(
        &r,
        "<file>m.py</file><original>x = 1</original><patched>x = 3</patched><original>zzz</original><patched>y</patched>",
        &ExtractOptions::default(),
    );
    assert_eq!(ex.status, ExtractStatus::ApplicablePatch);
    insta::assert_snapshot!(ex.reason, @"
    1 of the edits could not be applied.
    Edit 2 (m.py): the <original> was not found: no line of the file reads `zzz`.
    ");
}

#[test]
fn test_files_are_dropped() {
    let r = repo(&[("m.py", CLASS.as_bytes()), ("tests/test_m.py", b"x = 1\n")]);
    let ex = extract(
        &r,
        "<file>tests/test_m.py</file><original>x = 1</original><patched>x = 2</patched>",
        &ExtractOptions::default(),
    );
    assert_eq!(ex.status, ExtractStatus::RawPatchButUnmatched);
    assert!(matches!(ex.edits[0].outcome, Outcome::Dropped { reason: DropReason::TestFile }));
    assert!(ex.reason.contains("test file"), "{}", ex.reason);
}

#[test]
fn missing_and_unloadable_files_are_explained() {
    let r = repo(&[("pkg/models.py", b"x = 1\n"), ("pkg/latin.py", b"caf\xe9 = 1\n")]);
    let ex = extract(
        &r,
        "<file>pkg/model.py</file><original>x = 1</original><patched>x = 2</patched>\n<file>pkg/latin.py</file><original>x</original><patched>y</patched>",
        &ExtractOptions::default(),
    );
    assert_eq!(ex.status, ExtractStatus::RawPatchButUnmatched);
    let messages: Vec<String> = ex.edits.iter().map(EditReport::message).collect();
    insta::assert_snapshot!(messages.join("\n"), @r"
    not applied to pkg/model.py: no file with this path or name exists in the repository; did you mean pkg/models.py?
    not applied to pkg/latin.py: pkg/latin.py cannot be edited: not valid UTF-8 text
    ");
}

#[test]
fn a_file_name_is_tried_in_every_file_that_has_it() {
    let r = repo(&[("a/util.py", b"x = 1\n"), ("b/util.py", b"y = 1\n")]);
    let ex = extract(
        &r,
        "<file>util.py</file><original>y = 1</original><patched>y = 2</patched>",
        &ExtractOptions::default(),
    );
    assert_eq!(ex.status, ExtractStatus::ApplicablePatch);
    assert_eq!(ex.edits[0].path.as_deref(), Some("b/util.py"));
    assert!(ex.files.contains_key("b/util.py"));
}

#[test]
fn line_numbered_originals_apply() {
    let r = repo(&[("m.py", CLASS.as_bytes())]);
    let ex = extract(
        &r,
        "<file>m.py</file>\n<original>\n6     def g(self):\n7         return 2\n</original>\n<patched>\n    def g(self):\n        return 3\n</patched>",
        &ExtractOptions::default(),
    );
    assert_eq!(ex.status, ExtractStatus::ApplicablePatch, "{}", ex.reason);
    assert!(ex.files["m.py"].ends_with("    def g(self):\n        return 3\n"));
}

#[test]
fn bug_lines_pick_among_duplicates() {
    let text = "def a():\n    return 0\n\ndef b():\n    return 0\n";
    let r = repo(&[("m.py", text.as_bytes())]);
    let options = ExtractOptions {
        bug_lines: vec![BugLine { file: "m.py".into(), line: 5, end: None }],
        refuse_ambiguous: false,
        ..Default::default()
    };
    let ex = extract(&r, "<file>m.py</file><original>return 0</original><patched>return 1</patched>", &options);
    assert_eq!(ex.files["m.py"], "def a():\n    return 0\n\ndef b():\n    return 1\n");
}

#[test]
fn tabs_written_at_column_zero_become_the_files_spaces() {
    let a = apply("def f():\n    return 1\n", "def f():\n\treturn 1", "def f():\n\treturn 2").unwrap();
    assert_eq!(a.text, "def f():\n    return 2\n");
    let a = apply("def f():\n    if x:\n        return 1\n", "def f():\n\tif x:", "def f():\n\tif x and y:").unwrap();
    assert_eq!(a.text, "def f():\n    if x and y:\n        return 1\n");
}

#[test]
fn an_exact_copy_is_replaced_exactly() {
    // A tab-indented block in a space-indented file, with spaces inside a docstring and a tab inside a string.
    let text = "class A:\n    pass\n\ndef f():\n\t\"\"\"Doc.\n\n      indented\tdoc.\n\t\"\"\"\n\treturn '\\t'\n";
    let original = "def f():\n\t\"\"\"Doc.\n\n      indented\tdoc.\n\t\"\"\"\n\treturn '\\t'";
    let patched = "def f():\n\t\"\"\"Doc.\n\n      indented\tdoc.\n\t\"\"\"\n\treturn '\\t' * 2";
    let a = apply(text, original, patched).unwrap();
    assert_eq!(a.text, text.replace("return '\\t'\n", "return '\\t' * 2\n"));
}

#[test]
fn a_comment_with_real_content_is_code() {
    let text = "hooks = []\nhooks.append(a)\n";
    let a = apply(text, "hooks.append(a)", "hooks.append(a)\n# ... Or as first hook\nhooks.insert(0, b)").unwrap();
    assert_eq!(a.text, "hooks = []\nhooks.append(a)\n# ... Or as first hook\nhooks.insert(0, b)\n");
    assert!(a.notes.is_empty(), "{:?}", a.notes);
}

#[test]
fn code_that_looks_numbered_is_matched_as_written() {
    let text = "codes = {\n    300: ('multiple_choices',),\n    301: ('moved_permanently', 'moved'),\n    302: ('found',),\n}\n";
    let a = apply(text, "    301: ('moved_permanently', 'moved'),", "    301: ('moved_permanently', 'moved', 'gone'),")
        .unwrap();
    assert_eq!(a.reading, Reading::AsWritten);
    assert!(a.text.contains("    301: ('moved_permanently', 'moved', 'gone'),\n"), "{}", a.text);
    let both = "    301: ('moved_permanently', 'moved'),\n    302: ('found',),";
    let a = apply(text, both, "    301: ('moved',),\n    302: ('found',),").unwrap();
    assert_eq!(a.reading, Reading::AsWritten);
    assert!(a.text.contains("    301: ('moved',),\n    302: ('found',),\n"), "{}", a.text);
    // Numbers copied from search output are removed when the text is not found with them.
    let a = apply(CLASS, "7         return 2", "7         return 3").unwrap();
    assert_eq!(a.reading, Reading::LineNumbers);
    assert!(a.text.ends_with("        return 3\n"), "{}", a.text);
}

#[test]
fn ambiguous_originals_are_refused_in_extraction_unless_a_bug_line_decides() {
    let text = "class A:\n    def ok(self):\n        \"\"\"Doc.\"\"\"\n        return 1\n\n    def __bool__(self):\n        \"\"\"Doc.\"\"\"\n        return 2\n";
    let r = repo(&[("m.py", text.as_bytes())]);
    let answer = "<file>m.py</file><original>\"\"\"Doc.\"\"\"</original><patched>\"\"\"Better.\"\"\"</patched>\n<file>m.py</file><original>return 2</original><patched>return 3</patched>";
    let ex = extract(&r, answer, &ExtractOptions::default());
    insta::assert_snapshot!(ex.edits[0].message(), @"not applied to m.py: the <original> occurs 2 times (lines 3 in `A.ok`; 7 in `A.__bool__`); include more surrounding lines so it occurs once");
    // The refused edit changes nothing, so the next one still applies where it should: a partial patch, whose
    // refused edit says where its original occurs, as data and as one line for the model.
    assert_eq!(ex.files["m.py"], text.replace("return 2", "return 3"));
    assert_eq!(ex.status, ExtractStatus::ApplicablePatch);
    assert!(ex.is_partial_for_ambiguity());
    assert_eq!(ex.edits[0].failure_kind(), Some("ambiguous"));
    assert_eq!(ex.edits[1].failure_kind(), None);
    let place = |line, name: &str| Candidate { line, end_line: line, enclosing: Some(name.into()) };
    assert_eq!(ex.edits[0].candidates(), [place(3, "A.ok"), place(7, "A.__bool__")]);
    insta::assert_snapshot!(ex.ambiguity_list(), @"- edit 1 (m.py): line 3 in `A.ok`; line 7 in `A.__bool__`");
    let json = serde_json::to_value(&ex.edits[0]).unwrap();
    assert_eq!(
        json["failure"]["failure"]["candidates"][1],
        serde_json::json!({"line": 7, "end_line": 7, "enclosing": "A.__bool__"})
    );
    let options =
        ExtractOptions { bug_lines: vec![BugLine { file: "m.py".into(), line: 3, end: None }], ..Default::default() };
    let ex = extract(&r, answer, &options);
    assert!(
        ex.files["m.py"].starts_with("class A:\n    def ok(self):\n        \"\"\"Better.\"\"\""),
        "{}",
        ex.files["m.py"]
    );
}

#[test]
fn a_file_is_gated_once_after_all_the_edits_that_touch_it() {
    let text = "def f():\n    x = load()\n    return x\n";
    let r = repo(&[("m.py", text.as_bytes())]);
    // The first edit alone leaves a `try` without `except`; the second adds it.
    let answer = "<file>m.py</file><original>    x = load()</original><patched>    try:\n        x = load()</patched>\n<file>m.py</file><original>    return x</original><patched>    except OSError:\n        x = None\n    return x</patched>";
    let ex = extract(&r, answer, &ExtractOptions::default());
    assert_eq!(ex.status, ExtractStatus::ApplicablePatch, "{}", ex.reason);
    assert_eq!(
        ex.files["m.py"],
        "def f():\n    try:\n        x = load()\n    except OSError:\n        x = None\n    return x\n"
    );
    assert!(
        ex.edits[0].message().contains("the answer's other edits to the file complete it"),
        "{}",
        ex.edits[0].message()
    );
    // When the combined file is broken too, each edit keeps its own verdict and message.
    let answer = "<file>m.py</file><original>    x = load()</original><patched>    try:\n        x = load()</patched>\n<file>m.py</file><original>    return x</original><patched>    return x + 1</patched>";
    let ex = extract(&r, answer, &ExtractOptions::default());
    assert!(ex.edits[0].message().contains("would break the program's syntax"), "{}", ex.edits[0].message());
    assert_eq!(ex.files["m.py"], "def f():\n    x = load()\n    return x + 1\n");
}

#[test]
fn tabs_written_after_an_unindented_original_become_the_files_spaces() {
    // six's setup.py: the original holds no indented line, so its lines agree with the file as written, but the
    // patched lines indent with tabs that the space-indented file never uses.
    let text = "from setuptools import setup\n\nimport six\n\nsetup(\n    name=\"six\",\n)\n";
    let a = apply(
        text,
        "from setuptools import setup",
        "try:\n\tfrom setuptools import setup\nexcept ImportError:\n\tfrom distutils.core import setup",
    )
    .unwrap();
    assert!(
        a.text.starts_with(
            "try:\n    from setuptools import setup\nexcept ImportError:\n    from distutils.core import setup\n\n"
        ),
        "{}",
        a.text
    );
    // itsdangerous' __init__.py has no indented line at all: it is taken as indented with 4 spaces (PEP 8).
    let a = apply("import six\n", "import six", "if six:\n\tpass").unwrap();
    assert_eq!(a.text, "if six:\n    pass\n");
}

#[test]
fn blank_lines_removed_or_added_at_the_ends_of_an_edit_are_kept() {
    // itsdangerous' serializer.py: the original starts with the two blank lines before a class, the patched text
    // with one before new code; trimming both lost the change and left three blank lines.
    let text = "import typing as t\n\n\nclass P:\n    pass\n";
    let answer =
        "<file>m.py</file>\n<original>\n\n\nclass P:\n</original>\n<patched>\n\nX = 1\n\n\nclass P:\n</patched>\n";
    let edits = parse_edits(answer);
    let a = apply_edit(text, &edits[0], &ApplyOptions::default(), &mut Gate::new()).unwrap();
    assert_eq!(a.text, "import typing as t\n\nX = 1\n\n\nclass P:\n    pass\n");
    // Blank lines the file does not have are matched as AutoCodeRover matches them: without them.
    let answer = "<file>m.py</file>\n<original>\n\nimport typing as t\n</original>\n<patched>\nimport os\n</patched>\n";
    let a = apply_edit(text, &parse_edits(answer)[0], &ApplyOptions::default(), &mut Gate::new()).unwrap();
    assert!(a.text.starts_with("import os\n\n\nclass P:"), "{}", a.text);
}

#[test]
fn a_patched_text_of_blank_lines_keeps_that_many() {
    // attrs' exceptions.py: an import between one blank line and two is replaced by two blank lines.
    let text = "from __future__ import annotations\n\nfrom typing import ClassVar\n\n\nclass FrozenError(AttributeError):\n    pass\n";
    let answer =
        "<file>m.py</file>\n<original>\n\nfrom typing import ClassVar\n\n\n</original>\n<patched>\n\n\n</patched>\n";
    let a = apply_edit(text, &parse_edits(answer)[0], &ApplyOptions::default(), &mut Gate::new()).unwrap();
    assert_eq!(a.text, "from __future__ import annotations\n\n\nclass FrozenError(AttributeError):\n    pass\n");
}

#[test]
fn a_located_span_wins_over_a_nearer_match_outside_it() {
    // The located class begins two lines after the previous class's `__init__` and its own `__init__` is further
    // down: by distance to the class's first line alone the wrong `__init__` is nearer.
    let text = "class A:\n    def __init__(self):\n        pass\n\nclass B:\n    \"\"\"Doc.\n\n    More.\n    \"\"\"\n\n    def __init__(self):\n        pass\n";
    let r = repo(&[("m.py", text.as_bytes())]);
    let answer = "<file>m.py</file><original>\n    def __init__(self):\n</original><patched>\n    x: int\n\n    def __init__(self):\n</patched>";
    let located =
        |end| ExtractOptions { bug_lines: vec![BugLine { file: "m.py".into(), line: 5, end }], ..Default::default() };
    let ex = extract(&r, answer, &located(Some(12)));
    assert_eq!(ex.files["m.py"], text.replace("    \"\"\"\n\n    def", "    \"\"\"\n\n    x: int\n\n    def"));
    // With the first line only, the nearest occurrence is taken (the one before it).
    let ex = extract(&r, answer, &located(None));
    assert!(ex.files["m.py"].starts_with("class A:\n    x: int\n"), "{}", ex.files["m.py"]);
}

/// Every failure's kind is the snake_case name it is serialised under.
#[test]
fn failure_kinds_are_their_serialised_names() {
    let near = NearLine { line: 1, text: "x".into() };
    let problem = crate::gate::check("def f(:\n").unwrap_err();
    let failures = [
        EditFailure::EmptyOriginal,
        EditFailure::NotFound { matched_lines: 0, nearest: vec![near], wanted: "y".into() },
        EditFailure::Ambiguous { candidates: vec![Candidate { line: 1, end_line: 2, enclosing: None }] },
        EditFailure::PlaceholderMismatch { original: 1, patched: 0 },
        EditFailure::CutShort { reason: "r".into() },
        EditFailure::BreaksSyntax { start: 1, relative: problem, first_line_only: None },
    ];
    for f in failures {
        assert_eq!(serde_json::to_value(&f).unwrap()["kind"], f.kind());
        let wrapped = FileOrEditFailure::Edit { failure: f.clone() };
        assert_eq!(wrapped.kind(), f.kind());
    }
    let missing = FileOrEditFailure::FileNotFound { similar: vec![] };
    assert_eq!(serde_json::to_value(&missing).unwrap()["kind"], missing.kind());
}

/// Candidates spanning several lines, outside any definition, say so and name nothing.
#[test]
fn candidates_of_a_block_at_module_level_have_spans_and_no_name() {
    let text = "x = 1\ny = 2\n\nx = 1\ny = 2\n";
    let r = repo(&[("m.py", text.as_bytes())]);
    let ex = extract(
        &r,
        "<file>m.py</file><original>x = 1\ny = 2</original><patched>x = 3</patched>",
        &ExtractOptions::default(),
    );
    assert_eq!(ex.status, ExtractStatus::RawPatchButUnmatched);
    assert!(!ex.is_partial_for_ambiguity(), "nothing applied: an ordinary retry");
    let spans: Vec<(u32, u32, Option<String>)> =
        ex.edits[0].candidates().iter().map(|c| (c.line, c.end_line, c.enclosing.clone())).collect();
    assert_eq!(spans, vec![(1, 2, None), (4, 5, None)]);
    assert_eq!(ex.edits[0].candidates()[0].to_string(), "lines 1-2");
}
