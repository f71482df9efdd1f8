//! Every wrong application found by the review of issue 43, as a test: an answer does what its writer meant, or is
//! refused with a reason; it never removes or changes a line outside what it shows changing. Each test failed
//! before the readers were made to read each format only as far as they are sure.

use acr_core::Repo;
use acr_core::patch::{self, EditFormat, ExtractOptions, ExtractStatus, Extraction, Outcome};

fn extract(files: &[(&str, &str)], answer: &str) -> Extraction {
    let repo = Repo::from_files(files.iter().map(|(p, t)| (*p, t.as_bytes())));
    patch::extract(&repo, answer, &ExtractOptions::default())
}

/// A module of 40 small functions and a last one, 245 lines or so.
fn module() -> String {
    let mut s = String::from("\"\"\"Forty functions.\"\"\"\n\nimport math\n\n");
    for i in 0..40 {
        s.push_str(&format!("\ndef f{i}(x):\n    \"\"\"Adds {i}.\"\"\"\n    y = x\n    return y + {i}\n\n"));
    }
    s.push_str("\ndef last(x):\n    return x - 1\n");
    s
}

/// The lines of `before` that are not in `after` (as a multiset, in order of `before`).
fn lost_lines(before: &str, after: &str) -> Vec<String> {
    let mut left: Vec<&str> = after.lines().collect();
    let mut lost = Vec::new();
    for line in before.lines() {
        match left.iter().position(|l| *l == line) {
            Some(i) => {
                left.remove(i);
            }
            None => lost.push(line.to_string()),
        }
    }
    lost
}

/// The issue's answer: a path, then a function elided with `...` and the file's last function. Read as a whole file
/// it deleted 238 lines; it holds nothing to change.
#[test]
fn a_path_and_the_files_last_function_do_not_stand_for_the_whole_file() {
    let text = module();
    let answer = "The bug is in f39: it should add 40.\n\npkg/mod.py\n```python\ndef f39(x):\n    ...\ndef last(x):\n    return x - 1\n```\n";
    let ex = extract(&[("pkg/mod.py", &text)], answer);
    let after = ex.files.get("pkg/mod.py").map_or(text.as_str(), String::as_str);
    assert_eq!(lost_lines(&text, after), Vec::<String>::new(), "{}", ex.diff);
    assert_ne!(ex.status, ExtractStatus::ApplicablePatch, "{}", ex.reason);
}

/// The same shape with a real fix in the last function: exactly that function changes.
#[test]
fn the_files_last_function_shown_with_a_fix_changes_only_that_function() {
    let text = module();
    let answer = "pkg/mod.py\n```python\ndef last(x):\n    return x - 2\n```\n";
    let ex = extract(&[("pkg/mod.py", &text)], answer);
    assert_eq!(ex.status, ExtractStatus::ApplicablePatch, "{}", ex.reason);
    assert_eq!(ex.files["pkg/mod.py"], text.replace("return x - 1\n", "return x - 2\n"));
}

/// A file of no language is not gated as Python: `requests` -> `requests==2.*` in requirements.txt applies, with a
/// note that it was not checked.
#[test]
fn a_file_of_no_language_is_applied_unchecked() {
    let answer = "<file>requirements.txt</file>\n<original>requests</original>\n<patched>requests==2.*</patched>";
    let ex = extract(&[("requirements.txt", "requests\nflask\n")], answer);
    assert_eq!(ex.status, ExtractStatus::ApplicablePatch, "{}", ex.reason);
    assert_eq!(ex.files["requirements.txt"], "requests==2.*\nflask\n");
    let Outcome::Applied(applied) = &ex.edits[0].outcome else { panic!("{:?}", ex.edits) };
    assert!(applied.notes.iter().any(|n| n.contains("not checked")), "{:?}", applied.notes);
}

/// An unfenced diff followed by a list of changes: the list's `- ` lines are prose, not removed lines.
#[test]
fn a_list_after_an_unfenced_diff_is_not_part_of_its_hunk() {
    let text = "def f(x):\n    return x\n- Fixed X\n";
    let answer = "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n def f(x):\n-    return x\n+    return x + 1\n\nChanges:\n- Fixed X\n";
    let ex = extract(&[("m.py", text)], answer);
    assert_eq!(ex.status, ExtractStatus::ApplicablePatch, "{}", ex.reason);
    assert_eq!(ex.files["m.py"], "def f(x):\n    return x + 1\n- Fixed X\n");
    // Without line counts the empty line ends the hunk as well.
    let bare = "--- m.py\n+++ m.py\n@@ ... @@\n def f(x):\n-    return x\n+    return x + 1\n\n- Fixed X\n";
    let ex = extract(&[("m.py", text)], bare);
    assert_eq!(ex.status, ExtractStatus::ApplicablePatch, "{}", ex.reason);
    assert_eq!(ex.files["m.py"], "def f(x):\n    return x + 1\n- Fixed X\n");
}

/// A hunk after prose that follows a diff belongs to no file: it is not applied to the file of the diff above.
#[test]
fn a_hunk_after_prose_does_not_inherit_the_file_of_an_earlier_diff() {
    let text = "A = 1\nB = 2\n";
    let answer = "--- a/m.py\n+++ b/m.py\n@@ -1 +1 @@\n-A = 1\n+A = 10\n\nAnd in the other module, something like:\n\n@@ -2 +2 @@\n-B = 2\n+B = 20\n";
    let ex = extract(&[("m.py", text)], answer);
    assert_eq!(ex.files["m.py"], "A = 10\nB = 2\n", "{:?}", ex.edits);
}

/// An incomplete SEARCH/REPLACE block with short markers is not a whole file: it is reported, and nothing applies.
#[test]
fn an_incomplete_search_replace_block_with_short_markers_is_not_a_whole_file() {
    let text = "def f():\n    return 1\n\n\ndef g():\n    return 2\n";
    let answer = "m.py\n```python\n<<<<< SEARCH\ndef f():\n    return 1\n=====\ndef f():\n    return 3\n```\n";
    let ex = extract(&[("m.py", text)], answer);
    assert!(ex.files.is_empty(), "{}", ex.diff);
    assert_eq!(ex.status, ExtractStatus::RawPatchButUnparsed, "{}", ex.reason);
}

/// A fenced snippet after a path that is neither the whole file nor whole definitions is refused, saying why.
#[test]
fn a_path_and_a_fragment_are_refused_not_taken_for_the_file() {
    let text = module();
    let answer = "pkg/mod.py\n```python\n    y = x\n    return y + 40\n```\n";
    let ex = extract(&[("pkg/mod.py", &text)], answer);
    assert!(ex.files.is_empty(), "{}", ex.diff);
    assert!(ex.reason.contains("not the whole file"), "{}", ex.reason);
}

/// What the prompt asked for is read first: with SEARCH/REPLACE asked, a code block that also sits in the answer
/// (the model showing the result) is not applied on top of the blocks.
#[test]
fn the_asked_format_is_read_first_and_alone_when_it_finds_edits() {
    let text = "def f(x):\n    return x\n";
    let answer = "m.py\n```python\n<<<<<<< SEARCH\n    return x\n=======\n    return x + 1\n>>>>>>> REPLACE\n```\n\nThe function is now:\n\n```python\ndef f(x):\n    return x + 2\n```\n";
    let repo = Repo::from_files([("m.py", text.as_bytes())]);
    let options = ExtractOptions { asked: Some(EditFormat::SearchReplace), ..ExtractOptions::default() };
    let ex = patch::extract(&repo, answer, &options);
    assert_eq!(ex.status, ExtractStatus::ApplicablePatch, "{}", ex.reason);
    assert_eq!(ex.files["m.py"], "def f(x):\n    return x + 1\n");
    assert_eq!(ex.formats, vec![EditFormat::SearchReplace]);
}
