//! Bug types from a candidate's changes (the typed [`FileDiff`]s of the patch layer, never re-read text), as
//! APR-MCTS uses them to pick a prompt mode.
//!
//! - **SL**, single line: one hunk that removes at most one line and adds at most one.
//! - **SH**, single hunk: one hunk in one file.
//! - **SF**, single function: every changed line of the original lies inside one function.
//! - **OT**, other.
//!
//! SL and SH are repaired with a masked prompt (`>>> [ INFILL ] <<<` in place of the buggy lines); SF with the
//! whole function; OT with the plain patch prompt.

use serde::Serialize;

use crate::patch::diff::{FileDiff, Hunk};

/// A bug's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum BugType {
    /// Single line.
    SL,
    /// Single hunk.
    SH,
    /// Single function.
    SF,
    /// Other.
    OT,
}

/// Classifies a candidate's changes. `function_at(file, line)` gives the `(start, end)` of the innermost function
/// containing a line of the original file, if any (the index answers it).
pub fn classify(diffs: &[FileDiff], function_at: impl Fn(&str, u32) -> Option<(u32, u32)>) -> BugType {
    let hunks: Vec<(&str, &Hunk)> = diffs.iter().flat_map(|d| d.hunks.iter().map(|h| (d.path.as_str(), h))).collect();
    match hunks.as_slice() {
        [] => BugType::OT,
        [(_, h)] if h.removed_lines().len() <= 1 && h.added() <= 1 => BugType::SL,
        [_] => BugType::SH,
        _ => {
            let mut lines = hunks.iter().flat_map(|(file, h)| {
                let removed = h.removed_lines();
                let touched: Vec<u32> = if removed.is_empty() { vec![h.anchor()] } else { removed };
                touched.into_iter().map(move |l| (*file, l))
            });
            let Some((file, first)) = lines.next() else { return BugType::OT };
            let Some(func) = function_at(file, first) else { return BugType::OT };
            let same = lines.all(|(f, l)| f == file && function_at(f, l) == Some(func));
            if same { BugType::SF } else { BugType::OT }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patch::diff::parse_patch;

    const ONE_LINE: &str = "\
diff --git a/m.py b/m.py
--- a/m.py
+++ b/m.py
@@ -3,3 +3,3 @@ def f():
     a = 1
-    b = 2
+    b = 3
     return a + b
";

    const TWO_HUNKS: &str = "\
--- a/m.py
+++ b/m.py
@@ -2,2 +2,2 @@
 def f():
-    a = 1
+    a = 0
@@ -9,2 +9,3 @@
     x = 1
+    y = 2
     return x
";

    fn funcs(_: &str, line: u32) -> Option<(u32, u32)> {
        [(2, 12), (20, 30)].into_iter().find(|&(s, e)| (s..=e).contains(&line))
    }

    /// The patch text read by the one parser, as typed diffs.
    fn typed(text: &str) -> Vec<FileDiff> {
        parse_patch(text)
            .expect("a patch")
            .into_iter()
            .map(|f| FileDiff { path: f.new_path.unwrap_or_default().trim_start_matches("b/").into(), hunks: f.hunks })
            .collect()
    }

    #[test]
    fn hunks_record_removed_lines_and_anchors() {
        let d = typed(TWO_HUNKS);
        let h = &d[0].hunks;
        assert_eq!(h.len(), 2);
        assert_eq!((h[0].removed_lines(), h[0].added(), d[0].path.as_str()), (vec![3], 1, "m.py"));
        assert_eq!((h[1].removed_lines().len(), h[1].added(), h[1].anchor()), (0, 1, 10));
    }

    #[test]
    fn shapes_are_classified() {
        assert_eq!(classify(&typed(ONE_LINE), funcs), BugType::SL);
        let mut big = typed(ONE_LINE);
        big[0].hunks[0].lines.push(crate::patch::diff::Line::Added("    c = 4\n".into()));
        assert_eq!(classify(&big, funcs), BugType::SH);
        assert_eq!(classify(&typed(TWO_HUNKS), funcs), BugType::SF);
        let mut apart = typed(TWO_HUNKS);
        apart[0].hunks[1].old_start = 24;
        assert_eq!(classify(&apart, funcs), BugType::OT, "two functions");
        let mut two_files = typed(TWO_HUNKS);
        let second = FileDiff { path: "other.py".into(), hunks: vec![two_files[0].hunks.pop().expect("two")] };
        two_files.push(second);
        assert_eq!(classify(&two_files, funcs), BugType::OT, "two files");
        assert_eq!(classify(&[], funcs), BugType::OT);
    }

    /// Regression: a removed line that starts with `-- ` is written `--- …` in the hunk. The old text reader took
    /// it for a file header and lost the removed line, so a one-line fix read as a pure addition and was refined
    /// instead of masked.
    #[test]
    fn a_removed_line_that_looks_like_a_file_header_stays_in_its_hunk() {
        let old = "def f():\n    a = 1\n-- a SQL comment\n++ b\n    return a\n";
        let new = "def f():\n    a = 1\n-- another comment\n++ b\n    return a\n";
        let diff = FileDiff::between("q.py", old, new).expect("a change");
        assert!(diff.to_string().contains("\n--- a SQL comment\n"), "{diff}");
        assert_eq!(classify(std::slice::from_ref(&diff), funcs), BugType::SL);
        let old2 = "x\n-- a\n++ b\ny\n";
        let new2 = "x\n+++ c\ny\n";
        let two_lines = FileDiff::between("q.py", old2, new2).expect("a change");
        assert!(two_lines.to_string().contains("\n--- a\n-++ b\n++++ c\n"), "{two_lines}");
        for d in [diff, two_lines] {
            let read = typed(&d.to_string());
            assert_eq!(read, vec![d.clone()], "the text reads back as the same hunks");
            assert_eq!(classify(&read, funcs), classify(std::slice::from_ref(&d), funcs));
        }
    }
}
