//! `acr apply` and `acr check` end to end: output shape, exit codes, and that the repository is only written with
//! `--write`.

use std::path::PathBuf;
use std::process::Command;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("acr-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("pkg")).unwrap();
    dir
}

const SOURCE: &str = "def f(x):\n    return x + 1\n";
const ANSWER: &str = "# modification 1\n```python\n<file>pkg/m.py</file>\n<original>\nreturn x + 1\n</original>\n<patched>\nreturn x + 2\n</patched>\n```\n";

#[test]
fn apply_prints_a_diff_and_writes_only_when_asked() {
    let dir = scratch("apply");
    std::fs::write(dir.join("pkg/m.py"), SOURCE).unwrap();
    std::fs::write(dir.join("answer.txt"), ANSWER).unwrap();
    let acr = env!("CARGO_BIN_EXE_acr");

    let out = Command::new(acr).arg("apply").arg(&dir).arg(dir.join("answer.txt")).output().unwrap();
    assert!(out.status.success());
    let diff = String::from_utf8(out.stdout).unwrap();
    assert!(diff.starts_with("diff --git a/pkg/m.py b/pkg/m.py\n"), "{diff}");
    assert!(diff.contains("+    return x + 2\n"), "{diff}");
    assert_eq!(std::fs::read_to_string(dir.join("pkg/m.py")).unwrap(), SOURCE);

    let out = Command::new(acr).args(["apply", "--json"]).arg(&dir).arg(dir.join("answer.txt")).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["status"], "APPLICABLE_PATCH");
    assert_eq!(v["edits"][0]["file"], "pkg/m.py");
    assert_eq!(v["edits"][0]["matched"], true);
    assert_eq!(v["edits"][0]["start"], 2);
    assert_eq!(v["edits"][0]["end"], 2);
    assert_eq!(v["edits"][0]["format"], "acr");
    assert_eq!(v["formats"], serde_json::json!(["acr"]));

    let out = Command::new(acr).args(["apply", "--write"]).arg(&dir).arg(dir.join("answer.txt")).output().unwrap();
    assert!(out.status.success());
    assert_eq!(std::fs::read_to_string(dir.join("pkg/m.py")).unwrap(), "def f(x):\n    return x + 2\n");

    std::fs::write(dir.join("bad.txt"), "no edits here").unwrap();
    let out = Command::new(acr).arg("apply").arg(&dir).arg(dir.join("bad.txt")).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The same change written in each format the models write: every one applies, and `--json` names it.
#[test]
fn apply_reads_every_edit_format() {
    let dir = scratch("formats");
    std::fs::write(dir.join("pkg/m.py"), SOURCE).unwrap();
    let acr = env!("CARGO_BIN_EXE_acr");
    let answers = [
        ("acr", ANSWER.to_string()),
        (
            "search-replace",
            "pkg/m.py\n```python\n<<<<<<< SEARCH\n    return x + 1\n=======\n    return x + 2\n>>>>>>> REPLACE\n```\n".into(),
        ),
        (
            "udiff",
            "```diff\ndiff --git a/pkg/m.py b/pkg/m.py\n--- a/pkg/m.py\n+++ b/pkg/m.py\n@@ -1,2 +1,2 @@\n def f(x):\n-    return x + 1\n+    return x + 2\n```\n".into(),
        ),
        ("udiff", "--- pkg/m.py\n+++ pkg/m.py\n@@ ... @@\n def f(x):\n-    return x + 1\n+    return x + 2\n".into()),
        // The file is one function, so the code block is read as that definition (a whole file would change the
        // same lines): a definition replaces only what it names.
        ("definition", "pkg/m.py\n```python\ndef f(x):\n    return x + 2\n```\n".into()),
    ];
    for (i, (format, answer)) in answers.iter().enumerate() {
        let file = dir.join(format!("answer{i}.txt"));
        std::fs::write(&file, answer).unwrap();
        let out = Command::new(acr).args(["apply", "--json"]).arg(&dir).arg(&file).output().unwrap();
        assert!(out.status.success(), "{format}: {}", String::from_utf8_lossy(&out.stdout));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["formats"], serde_json::json!([format]), "{format}");
        assert_eq!(v["edits"][0]["format"], *format);
        assert!(v["diff"].as_str().unwrap().contains("+    return x + 2\n"), "{format}: {v}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn check_reports_the_first_problem() {
    let dir = scratch("check");
    std::fs::write(dir.join("ok.py"), SOURCE).unwrap();
    std::fs::write(dir.join("bad.py"), "def f(x):\n    if x\n        return 1\n").unwrap();
    let acr = env!("CARGO_BIN_EXE_acr");
    let out = Command::new(acr).arg("check").arg(dir.join("ok.py")).output().unwrap();
    assert!(out.status.success());
    let out =
        Command::new(acr).args(["check", "--json"]).arg(dir.join("ok.py")).arg(dir.join("bad.py")).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines[0]["ok"], true);
    assert_eq!(lines[1]["ok"], false);
    assert_eq!(lines[1]["line"], 2);
    let _ = std::fs::remove_dir_all(&dir);
}

/// An edit refused as ambiguous says so as data: its `kind` and every place its original matches, with the
/// definition around it; the edits that applied carry no kind.
#[test]
fn apply_json_gives_each_failed_edit_its_kind_and_candidates() {
    let dir = scratch("ambiguous");
    let source = "class A:\n    def f(self):\n        return 0\n\n    def g(self):\n        return 0\n\n\ndef h():\n    return 9\n";
    std::fs::write(dir.join("pkg/m.py"), source).unwrap();
    let answer = "<file>pkg/m.py</file><original>return 9</original><patched>return 10</patched>\n\
                  <file>pkg/m.py</file><original>return 0</original><patched>return 1</patched>\n\
                  <file>pkg/m.py</file><original>return 42</original><patched>return 1</patched>\n";
    std::fs::write(dir.join("answer.txt"), answer).unwrap();
    let acr = env!("CARGO_BIN_EXE_acr");
    let out = Command::new(acr).args(["apply", "--json"]).arg(&dir).arg(dir.join("answer.txt")).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["status"], "APPLICABLE_PATCH", "{v}");
    let edits = v["edits"].as_array().unwrap();
    assert_eq!(edits[0]["kind"], serde_json::Value::Null);
    assert_eq!(edits[0]["candidates"], serde_json::json!([]));
    assert_eq!(edits[1]["kind"], "ambiguous");
    assert_eq!(
        edits[1]["candidates"],
        serde_json::json!([
            {"line": 3, "end_line": 3, "enclosing": "A.f"},
            {"line": 6, "end_line": 6, "enclosing": "A.g"},
        ])
    );
    assert_eq!(edits[2]["kind"], "not_found");
    let _ = std::fs::remove_dir_all(&dir);
}

/// JavaScript and TypeScript through the CLI: `acr index` counts them, `acr check` gives V8's verdict on a `.js`
/// file and the `typescript` package's on a `.ts` one, and `acr apply` gates an edit of each by its own grammar (the
/// `return a - b;` edit that used to be applied unchecked).
#[test]
fn scripts_are_indexed_checked_and_gated() {
    let dir = scratch("scripts");
    std::fs::write(dir.join("pkg/sum.js"), "export function sum(a, b) {\n  return a - b;\n}\n").unwrap();
    std::fs::write(dir.join("pkg/area.ts"), "export const area = (side: number): number => side * 2;\n").unwrap();
    std::fs::write(dir.join("pkg/sum.test.js"), "import { sum } from './sum.js';\n").unwrap();
    let acr = env!("CARGO_BIN_EXE_acr");

    let out = Command::new(acr).arg("index").arg(&dir).output().unwrap();
    let printed = String::from_utf8(out.stdout).unwrap();
    assert!(printed.contains("languages:   JavaScript 1, TypeScript 1"), "the test file is left out: {printed}");

    std::fs::write(dir.join("pkg/broken.js"), "const total = (1;\n").unwrap();
    let out =
        Command::new(acr).arg("check").arg(dir.join("pkg/sum.js")).arg(dir.join("pkg/broken.js")).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let printed = String::from_utf8(out.stdout).unwrap();
    assert!(printed.contains("sum.js: ok"), "{printed}");
    assert!(printed.contains("broken.js:1:17: SyntaxError: Unexpected token ';'"), "{printed}");
    std::fs::remove_file(dir.join("pkg/broken.js")).unwrap();

    let edit = |file: &str, original: &str, patched: &str| {
        format!("<file>{file}</file>\n<original>\n{original}\n</original>\n<patched>\n{patched}\n</patched>\n")
    };
    let cases = [
        ("pkg/sum.js", "  return a - b;", "  return a + b;", true),
        ("pkg/sum.js", "  return a - b;", "  return (a + b;", false),
        (
            "pkg/area.ts",
            "export const area = (side: number): number => side * 2;",
            "export const area = (side: number): number => side ** 2;",
            true,
        ),
        (
            "pkg/area.ts",
            "export const area = (side: number): number => side * 2;",
            "export const area = (side: number): number => side *;",
            false,
        ),
    ];
    for (file, original, patched, applies) in cases {
        std::fs::write(dir.join("answer.txt"), edit(file, original, patched)).unwrap();
        let out = Command::new(acr).arg("apply").arg(&dir).arg(dir.join("answer.txt")).output().unwrap();
        assert_eq!(out.status.success(), applies, "{patched}: {}", String::from_utf8_lossy(&out.stderr));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
