//! Unified diffs in `git diff` form, made with the `similar` crate.
//!
//! Each file gets `diff --git a/P b/P`, `--- a/P`, `+++ b/P` and hunks with three lines of context, so the result
//! applies with `git apply` or `patch -p1`. Unlike `git diff` there is no `index` line (no blob hashes in memory)
//! and no function name after `@@ … @@`.
//!
//! Lines end at `\n` only, as `git apply`, `patch` and the runner read them: a lone `\r` is part of its line
//! (`similar`'s own line splitting would end a line there and write a diff that applies nowhere).

use std::fmt::Write;
use std::ops::Range;

use similar::{ChangeTag, TextDiff};

/// The diff of one file, or an empty string when `old == new`.
pub fn file_diff(path: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    let diff = TextDiff::configure().diff_slices(&old_lines, &new_lines);
    let mut out = format!("diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n");
    for group in diff.grouped_ops(3) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else { continue };
        let old_range = first.old_range().start..last.old_range().end;
        let new_range = first.new_range().start..last.new_range().end;
        let _ = writeln!(out, "@@ -{} +{} @@", hunk_range(old_range), hunk_range(new_range));
        for change in group.iter().flat_map(|op| diff.iter_changes(op)) {
            out.push(match change.tag() {
                ChangeTag::Equal => ' ',
                ChangeTag::Delete => '-',
                ChangeTag::Insert => '+',
            });
            let line = change.value();
            out.push_str(line);
            if !line.ends_with('\n') {
                out.push_str("\n\\ No newline at end of file\n");
            }
        }
    }
    out
}

/// A hunk header's `start,count` (1-based; a single line is just `start`, an empty range names the line before).
fn hunk_range(range: Range<usize>) -> String {
    match range.len() {
        1 => format!("{}", range.start + 1),
        0 => format!("{},0", range.start),
        n => format!("{},{n}", range.start + 1),
    }
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
    fn a_lone_carriage_return_stays_inside_its_line() {
        let old = "a = 1\nb = 2 \r c\nd = 3\n";
        let new = "a = 2\nb = 2 \r c\nd = 3\n";
        assert_eq!(
            file_diff("m.py", old, new),
            "diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,3 @@\n-a = 1\n+a = 2\n b = 2 \r c\n d = 3\n"
        );
        let crlf = file_diff("w.py", "x\r\ny\r\n", "x\r\nz\r\n");
        assert!(crlf.ends_with("@@ -1,2 +1,2 @@\n x\r\n-y\r\n+z\r\n"), "{crlf:?}");
        let last = file_diff("e.py", "a\nb\r", "a\nc\r");
        assert!(last.ends_with("-b\r\n\\ No newline at end of file\n+c\r\n\\ No newline at end of file\n"), "{last:?}");
    }

    #[test]
    fn hunk_ranges_follow_the_unified_format() {
        assert_eq!(
            file_diff("n.py", "", "x\n"),
            "diff --git a/n.py b/n.py\n--- a/n.py\n+++ b/n.py\n@@ -0,0 +1 @@\n+x\n"
        );
        assert!(file_diff("n.py", "x\n", "").contains("@@ -1 +0,0 @@\n-x\n"));
    }

    #[test]
    fn unchanged_is_empty_and_missing_newline_is_marked() {
        assert_eq!(file_diff("x.py", "a\n", "a\n"), "");
        let d = file_diff("x.py", "a\nb", "a\nc");
        assert!(d.contains("\\ No newline at end of file"), "{d}");
        let both = repo_diff([("x.py", "a\n", "b\n"), ("y.py", "s\n", "s\n")]);
        assert_eq!(both.matches("diff --git").count(), 1);
    }
}
