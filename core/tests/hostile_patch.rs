//! Hostile answers for the patch core: the shapes that once took minutes (issue 21, item 5), sized to finish at
//! once now; a regression makes them hang rather than fail (their time and memory are printed by
//! `cargo bench -p acr-core --bench hostile_patch`).

use acr_core::Repo;
use acr_core::patch::{self, EditFailure, ExtractOptions, ExtractStatus, FileOrEditFailure, Outcome, ParseIssue};

fn extract(files: &[(&str, &str)], answer: &str) -> patch::Extraction {
    let repo = Repo::from_files(files.iter().map(|(p, t)| (*p, t.as_bytes())));
    patch::extract(&repo, answer, &ExtractOptions::default())
}

fn failure(ex: &patch::Extraction) -> &FileOrEditFailure {
    match &ex.edits[0].outcome {
        Outcome::Failed { failure } => failure,
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_unmatched_long_line_against_a_long_file_is_refused_with_near_lines() {
    let file: String = (0..20_000).map(|i| format!("value_{i} = compute({i})\n")).collect();
    let long = format!("value_7 = compute({})", "7".repeat(2_000));
    let ex = extract(&[("m.py", &file)], &format!("<file>m.py</file><original>{long}</original><patched>x</patched>"));
    assert!(matches!(failure(&ex), FileOrEditFailure::Edit { failure: EditFailure::NotFound { .. } }));
    let near = "value_7 = compute(7))";
    let ex = extract(&[("m.py", &file)], &format!("<file>m.py</file><original>{near}</original><patched>x</patched>"));
    let FileOrEditFailure::Edit { failure: EditFailure::NotFound { nearest, .. } } = failure(&ex) else {
        panic!("{:?}", ex.edits);
    };
    assert_eq!(nearest[0].line, 8, "{nearest:?}");
}

#[test]
fn a_huge_file_name_is_refused_with_a_clear_message() {
    let name = "n".repeat(200_000);
    let ex = extract(
        &[("a.py", "x = 1\n"), ("b.py", "y = 1\n"), ("c.py", "z = 1\n")],
        &format!("<file>{name}</file><original>x = 1</original><patched>x = 2</patched>"),
    );
    let FileOrEditFailure::NotAPath { error } = failure(&ex) else { panic!("{:?}", ex.edits) };
    assert!(error.to_string().contains("is not a file path: it is 200000 bytes long"), "{error}");
    assert!(ex.reason.len() < 400, "the reason quotes only the start of the name: {}", ex.reason);
}

#[test]
fn unclosed_tags_are_read_in_linear_time_and_reported_briefly() {
    let (edits, issues) = patch::parse_edits_with_issues(&"<file>".repeat(40_000));
    assert!(edits.is_empty());
    assert_eq!(issues.len(), 20);
    assert_eq!(issues[0], ParseIssue::Unclosed { tag: "file".into() });
    let (edits, _) = patch::parse_edits_with_issues(&"<file><original><patched>".repeat(100_000));
    assert!(edits.is_empty());
}

#[test]
fn a_long_patched_block_and_a_long_unrelated_replacement_apply() {
    let patched: String = (0..50_000).map(|i| format!("    x{i} = {i}\n")).collect();
    let ex = extract(
        &[("m.py", "def f():\n    return 1\n")],
        &format!(
            "<file>m.py</file><original>def f():\n    return 1</original><patched>def f():\n{patched}    return 1</patched>"
        ),
    );
    assert_eq!(ex.status, ExtractStatus::ApplicablePatch, "{}", ex.reason);
    assert_eq!(ex.diff.lines().filter(|l| l.starts_with('+') && !l.starts_with("+++")).count(), 50_000);
    let old: String = (0..3_000).map(|i| format!("a{i} = {i}\n")).collect();
    let new: String = (0..3_000).map(|i| format!("b{i} = f({i})\n")).collect();
    let ex =
        extract(&[("m.py", &old)], &format!("<file>m.py</file><original>{old}</original><patched>{new}</patched>"));
    assert_eq!(ex.files["m.py"], new);
}

#[test]
fn repeated_lines_are_matched_in_linear_time() {
    let file = "x = 0\n".repeat(50_000);
    let original = format!("{}y = 1", "x = 0\n".repeat(20_000));
    let ex =
        extract(&[("m.py", &file)], &format!("<file>m.py</file><original>{original}</original><patched>y</patched>"));
    let FileOrEditFailure::Edit { failure: EditFailure::NotFound { matched_lines, .. } } = failure(&ex) else {
        panic!("{:?}", ex.edits);
    };
    assert_eq!(*matched_lines, 20_000);
    let ex = extract(&[("m.py", &file)], "<file>m.py</file><original>x = 0</original><patched>x = 1</patched>");
    let message = ex.edits[0].message();
    assert!(message.contains("occurs 50000 times (lines 1, 2, 3,") && message.contains("and 49980 more"), "{message}");
}
