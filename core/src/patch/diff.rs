//! Unified diffs in `git diff` form, made with the `similar` crate.
//!
//! Each file gets `diff --git a/P b/P`, `--- a/P`, `+++ b/P` and hunks with three lines of context, so the result
//! applies with `git apply` or `patch -p1`. Unlike `git diff` there is no `index` line (no blob hashes in memory)
//! and no function name after `@@ … @@`. Unusual path names are quoted as git quotes them (see [`quote_path`]), so
//! a path can never forge a `---`, `+++` or `@@` line.

use similar::TextDiff;

/// The diff of one file, or an empty string when `old == new`.
pub fn file_diff(path: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    let (a, b) = (quote_path(&format!("a/{path}")), quote_path(&format!("b/{path}")));
    // Myers' algorithm is quadratic on two long, unrelated texts: past the deadline the rest of the difference is
    // written as plain removals and additions (still a correct diff). Natively only: wasm32 has no clock here.
    let diff = TextDiff::configure().timeout(std::time::Duration::from_millis(500)).diff_lines(old, new);
    let body = diff.unified_diff().context_radius(3).missing_newline_hint(true).header(&a, &b).to_string();
    format!("diff --git {a} {b}\n{body}")
}

/// A path as git writes it in diff headers: unchanged when it is plain, otherwise in double quotes with C-style
/// escapes (`\n`, `\t`, `\"`, `\\`...) and every other control or non-ASCII byte in octal (`\303\251`), as git does
/// with its default `core.quotePath`.
pub fn quote_path(path: &str) -> String {
    let plain = path.bytes().all(|b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\');
    if plain {
        return path.to_string();
    }
    let mut out = String::with_capacity(path.len() + 2);
    out.push('"');
    for b in path.bytes() {
        match b {
            0x07 => out.push_str("\\a"),
            0x08 => out.push_str("\\b"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            0x0b => out.push_str("\\v"),
            0x0c => out.push_str("\\f"),
            b'\r' => out.push_str("\\r"),
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x20..0x7f => out.push(b as char),
            _ => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out.push('"');
    out
}

/// The diff of several files, in the order given; unchanged files contribute nothing.
pub fn repo_diff<'a>(changes: impl IntoIterator<Item = (&'a str, &'a str, &'a str)>) -> String {
    changes.into_iter().map(|(path, old, new)| file_diff(path, old, new)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_style_headers_and_hunks() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let new = "a\nb\nc\nD\ne\nf\ng\nh\n";
        insta::assert_snapshot!(file_diff("pkg/m.py", old, new), @r"
        diff --git a/pkg/m.py b/pkg/m.py
        --- a/pkg/m.py
        +++ b/pkg/m.py
        @@ -1,7 +1,7 @@
         a
         b
         c
        -d
        +D
         e
         f
         g
        ");
    }

    #[test]
    fn unchanged_is_empty_and_missing_newline_is_marked() {
        assert_eq!(file_diff("x.py", "a\n", "a\n"), "");
        let d = file_diff("x.py", "a\nb", "a\nc");
        assert!(d.contains("\\ No newline at end of file"), "{d}");
        let both = repo_diff([("x.py", "a\n", "b\n"), ("y.py", "s\n", "s\n")]);
        assert_eq!(both.matches("diff --git").count(), 1);
    }

    #[test]
    fn unusual_paths_are_quoted_as_git_quotes_them() {
        assert_eq!(quote_path("a/pkg/m y.py"), "a/pkg/m y.py");
        assert_eq!(quote_path("a/caf\u{e9}.py"), "\"a/caf\\303\\251.py\"");
        assert_eq!(quote_path("a/x\"\\\t\u{1}.py"), "\"a/x\\\"\\\\\\t\\001.py\"");
        // A path that tries to forge the headers of another file stays on its own header lines.
        let forged = "x.py\n--- a/setup.py\n+++ b/setup.py\n@@ -1 +1 @@";
        let d = file_diff(forged, "a\n", "b\n");
        let lines: Vec<&str> = d.lines().collect();
        assert_eq!(
            lines[0],
            r#"diff --git "a/x.py\n--- a/setup.py\n+++ b/setup.py\n@@ -1 +1 @@" "b/x.py\n--- a/setup.py\n+++ b/setup.py\n@@ -1 +1 @@""#
        );
        assert!(lines[1].starts_with("--- \"a/x.py\\n"), "{d}");
        assert!(!d.lines().any(|l| l.starts_with("--- a/setup.py") || l.starts_with("+++ b/setup.py")), "{d}");
        assert_eq!(d.lines().filter(|l| l.starts_with("@@")).count(), 1, "{d}");
    }
}
