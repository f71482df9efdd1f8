//! Fixture tests of every API, with snapshots of the model-facing text.

use serde_json::{Value, json};

use super::*;

const RST: &str = r#""""Writer for reStructuredText simple tables."""
from .core import FixedWidth, DefaultSplitter


class SimpleRSTHeader(FixedWidth):
    position_line = 0
    start_line = 1

    def get_fixedwidth_params(self, line):
        vals, starts, ends = super().get_fixedwidth_params(line)
        return vals, starts, ends


class RST(FixedWidth):
    """reStructuredText simple format table."""

    _format_name = "rst"
    _description = "reStructuredText simple table"
    __doc__ = _description
    header_class: type = SimpleRSTHeader

    def __init__(self):
        super().__init__(delimiter_pad=None, bookend=False)

    # Writing adds the border lines.
    @staticmethod
    def write(
        lines,
    ):
        lines = super().write(lines)
        lines = [lines[1]] + lines + [lines[1]]
        return lines

    async def fetch(self):
        return await self.source()
"#;

const CORE: &str = r#"import re


def write(table, out):
    """Write a table."""
    for line in table:
        out.write(line)


class FixedWidth:
    def __init__(self, delimiter_pad=" ", bookend=True):
        self.delimiter_pad = delimiter_pad
        self.bookend = bookend

    def write(self, lines):
        def pad(s):
            return self.delimiter_pad + s
        return [pad(x) for x in lines]


class DefaultSplitter:
    delimiter = " "
"#;

fn handler_module(n: usize) -> String {
    format!(
        "class Meta:\n    ordering = ['id']\n\n\nclass Handler:\n    def handle(self, event):\n        return {n}\n"
    )
}

fn fixture() -> Repo {
    let mut files: Vec<(String, String)> = vec![
        ("astropy/io/ascii/rst.py".into(), RST.into()),
        ("astropy/io/ascii/core.py".into(), CORE.into()),
        (
            "astropy/io/ascii/tests/test_rst.py".into(),
            "from astropy.io.ascii.rst import RST\n\ndef test_write():\n    RST().write([])\n".into(),
        ),
    ];
    for n in 1..=4 {
        files.push((format!("handlers/h{n}.py"), handler_module(n)));
    }
    Repo::from_files(files)
}

fn transcript(calls: &[(&str, Value)]) -> String {
    let repo = fixture();
    let index = Index::build(&repo);
    let searcher = Searcher::new(&index, &repo);
    let mut out = String::new();
    for (api, args) in calls {
        let res = searcher.call(api, args);
        out.push_str(&format!("### {api} {args}\nok: {}\n", res.ok));
        for h in &res.results {
            out.push_str(&format!(
                "unit: {} {}-{} class={} func={}\n",
                h.file,
                h.start,
                h.end,
                h.class.as_deref().unwrap_or("-"),
                h.func.as_deref().unwrap_or("-")
            ));
        }
        out.push_str("---\n");
        out.push_str(&res.text);
        out.push_str("\n\n");
    }
    out
}

#[test]
fn search_class_shows_signatures_and_collapses() {
    insta::assert_snapshot!(transcript(&[
        ("search_class", json!(["RST"])),
        ("search_class", json!({"class_name": "DefaultSplitter"})),
        ("search_class", json!(["Meta"])),
        ("search_class", json!(["Missing"])),
    ]));
}

#[test]
fn search_class_in_file_shows_whole_classes() {
    insta::assert_snapshot!(transcript(&[
        ("search_class_in_file", json!(["SimpleRSTHeader", "ascii/RST.py"])),
        ("search_class_in_file", json!(["RST", "core.py"])),
        ("search_class_in_file", json!(["RST", "nowhere.py"])),
        ("search_class_in_file", json!(["Nope", "rst.py"])),
    ]));
}

#[test]
fn search_method_lists_functions_then_methods() {
    insta::assert_snapshot!(transcript(&[
        ("search_method", json!(["write"])),
        ("search_method", json!(["handle"])),
        ("search_method", json!(["fetch"])),
        ("search_method", json!(["RST.write"])),
    ]));
}

#[test]
fn search_method_in_file_filters_by_path_suffix() {
    insta::assert_snapshot!(transcript(&[
        ("search_method_in_file", json!(["write", "io/ascii/core.py"])),
        ("search_method_in_file", json!(["__init__", "RST.PY"])),
        ("search_method_in_file", json!(["write", "missing.py"])),
        ("search_method_in_file", json!(["nothing", "core.py"])),
        ("search_method_in_file", json!(["handle", "core.py"])),
    ]));
}

#[test]
fn search_method_in_class_limits_full_results() {
    insta::assert_snapshot!(transcript(&[
        ("search_method_in_class", json!(["write", "RST"])),
        ("search_method_in_class", json!(["pad", "FixedWidth"])),
        ("search_method_in_class", json!(["handle", "Handler"])),
        ("search_method_in_class", json!(["write", "Nope"])),
        ("search_method_in_class", json!(["read", "RST"])),
    ]));
}

#[test]
fn search_code_reports_context_and_enclosing_definitions() {
    insta::assert_snapshot!(transcript(&[
        ("search_code", json!(["delimiter_pad + s"])),
        ("search_code", json!(["super()"])),
        ("search_code", json!(["return"])),
        ("search_code", json!(["lines + [lines[1]]\n        return lines"])),
        ("search_code", json!(["no such text"])),
    ]));
}

#[test]
fn search_code_in_file_collapses_by_method() {
    insta::assert_snapshot!(transcript(&[
        ("search_code_in_file", json!(["lines", "rst.py"])),
        ("search_code_in_file", json!(["FixedWidth", "rst.py"])),
        ("search_code_in_file", json!(["self.source()", "rst.py"])),
        ("search_code_in_file", json!(["lines", "nope.py"])),
        ("search_code_in_file", json!(["zebra", "rst.py"])),
    ]));
}

#[test]
fn get_code_around_line_clamps_the_window() {
    insta::assert_snapshot!(transcript(&[
        ("get_code_around_line", json!(["ascii/core.py", 16, 2])),
        ("get_code_around_line", json!({"file_name": "core.py", "line_no": "2", "window": 5})),
        ("get_code_around_line", json!(["core.py", 99, 2])),
        ("get_code_around_line", json!(["nope.py", 1, 2])),
    ]));
}

#[test]
fn get_class_full_snippet_shows_two() {
    insta::assert_snapshot!(transcript(&[
        ("get_class_full_snippet", json!(["FixedWidth"])),
        ("get_class_full_snippet", json!(["Handler"])),
        ("get_class_full_snippet", json!(["Nope"])),
    ]));
}

#[test]
fn bad_calls_are_answered_not_raised() {
    let out = transcript(&[
        ("search_klass", json!(["RST"])),
        ("search_method_in_class", json!(["write"])),
        ("search_code", json!([""])),
        ("search_method_in_file", json!(["write", ""])),
        ("get_code_around_line", json!(["core.py", "ten"])),
    ]);
    assert!(!out.contains("ok: true"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn test_files_are_not_indexed_by_default() {
    let repo = fixture();
    let index = Index::build(&repo);
    let res = search(&index, &repo, "search_code", &json!(["RST().write"]));
    assert!(!res.ok, "{}", res.text);
    assert!(Searcher::new(&index, &repo).files_matching("test_rst.py").is_empty());
}

#[test]
fn enclosing_prefers_methods_over_functions() {
    let src = "def top():\n    class L:\n        def m(self):\n            x = 1\n    y = 2\n";
    let repo = Repo::from_files([("a.py", src)]);
    let index = Index::build(&repo);
    let s = Searcher::new(&index, &repo);
    assert_eq!(s.enclosing(0, 4), (Some("L"), Some("m")));
    assert_eq!(s.enclosing(0, 5), (None, Some("top")));
    assert_eq!(s.enclosing(0, 9), (None, None));
    assert_eq!(s.enclosing(7, 1), (None, None));
}

#[test]
fn methods_of_nested_classes_count_for_the_outer_class() {
    let src =
        "class Outer:\n    class Meta:\n        def save(self):\n            pass\n    def save(self):\n        pass\n";
    let repo = Repo::from_files([("n.py", src)]);
    let index = Index::build(&repo);
    let s = Searcher::new(&index, &repo);
    let outer = s.search_method_in_class("save", "Outer");
    let spans: Vec<(u32, u32, Option<&str>)> =
        outer.results.iter().map(|h| (h.start, h.end, h.class.as_deref())).collect();
    assert_eq!(spans, [(3, 4, Some("Outer")), (5, 6, Some("Outer"))]);
    let meta = s.search_method_in_class("save", "Meta");
    assert_eq!(meta.results.len(), 1);
    // Each definition is listed once by search_method, under its own class.
    let all = s.search_method("save");
    let classes: Vec<Option<&str>> = all.results.iter().map(|h| h.class.as_deref()).collect();
    assert_eq!(classes, [Some("Meta"), Some("Outer")]);
    assert_eq!(s.enclosing(0, 4), (Some("Outer"), Some("save")));
}

#[test]
fn many_hits_are_counted_but_results_are_capped() {
    let body = "self.x = self.y\n".repeat(5_000);
    let repo = Repo::from_files([("big.py", body.as_str()), ("other.py", "self\n")]);
    let index = Index::build(&repo);
    let res = search(&index, &repo, "search_code", &json!(["self"]));
    assert!(res.ok);
    assert_eq!(res.results.len(), RESULT_CAP);
    assert!(res.text.starts_with("Found 10001 snippets containing `self`"), "{}", res.text);
    assert!(res.text.contains("<file>big.py</file> (10000 matches)"));
    assert!(res.text.contains("<file>other.py</file> (1 matches)"));
}

#[test]
fn multibyte_text_never_splits_characters() {
    let src = "s = 'é→ü'\n# ∑ über\ndef f():\n    return 'ü'\n";
    let repo = Repo::from_files([("u.py", src)]);
    let index = Index::build(&repo);
    let s = Searcher::new(&index, &repo);
    for needle in ["ü", "→", "é→", "über", "'\n"] {
        let res = s.search_code(needle);
        assert!(res.ok, "{needle}: {}", res.text);
    }
    let res = s.search_code_in_file("ü", "u.py");
    assert_eq!(res.results[2].func.as_deref(), Some("f"));
}

#[test]
fn file_names_follow_the_path_policy() {
    let repo = Repo::from_files([
        ("pkg/a/util.py", "def f():\n    return 1\n"),
        ("pkg/b/util.py", "def f():\n    return 2\n"),
        ("cart.py", "def f():\n    return 3\n"),
        ("t.py", "def g():\n    return 4\n"),
    ]);
    let index = Index::build(&repo);
    let searcher = Searcher::new(&index, &repo);
    // A suffix counts on a folder boundary: `t.py` is not `cart.py` (ACR's raw suffix said it was too).
    let out = searcher.search_method_in_file("f", "t.py");
    assert_eq!((out.ok, out.text.as_str()), (false, "There is no method with name `f` in file t.py."));
    // Part of a name is the last resort, and the answer says so.
    let out = searcher.search_method_in_file("f", "art.py");
    assert!(
        out.ok && out.text.ends_with("\n\nNote: no file is called `art.py`; 1 path only ends with it (cart.py); the results above cover all of them."),
        "{}",
        out.text
    );
    // A name that fits several files answers from all of them and says so, in the policy's words.
    let out = searcher.search_method_in_file("f", "util.py");
    assert_eq!(out.results.len(), 2, "{}", out.text);
    assert!(
        out.text.ends_with(
            "\n\nNote: `util.py` names 2 files (pkg/a/util.py, pkg/b/util.py); the results above cover all of them."
        ),
        "{}",
        out.text
    );
    assert!(!searcher.search_method_in_file("f", "a/util.py").text.contains("Note:"));
    // A name that cannot be a path is refused with the reason, quoting only its start.
    let huge = "x".repeat(200_000);
    let out = searcher.search_code_in_file("return", &huge);
    assert!(!out.ok && out.text.len() < 300, "{}", out.text);
    assert!(out.text.contains("is not a file path: it is 200000 bytes long"), "{}", out.text);
}
