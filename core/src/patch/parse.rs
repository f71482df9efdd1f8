//! Reading `<file>`, `<original>`, `<patched>` blocks out of a model's answer.
//!
//! The answer is read as a sequence of tagged blocks, in order, wherever they are (inside code fences or not, with
//! or without `# modification N` headings). A `<file>` block sets the file for the blocks after it; an
//! `<original>` followed by a `<patched>` makes one [`Edit`]. So one `<file>` may carry several
//! original/patched pairs, which AutoCodeRover's parser (a `zip` of three independent lists per fence) would
//! misalign or cut short.
//!
//! Text is cleaned as little as possible: the path is trimmed (and stripped of quotes and backticks); the code keeps
//! its indentation and loses only stray code-fence lines and the blank lines at its ends (those that the original
//! and the patched text do not both have are kept: they add or remove blank lines). Line-number
//! prefixes copied from search output (`57     def f():`) are noted ([`Edit::had_line_numbers`]) but kept: they are
//! removed only when the original is not found as written (`    301: ('moved', 'moved_permanently'),` in a dict
//! is code), see [`super::apply`]. Placeholder lines
//! (`# Rest of the code...`, `# ... existing code ...`) are kept in the text and recognised by [`is_placeholder`](super::is_placeholder);
//! applying treats them as "lines left out" (see [`super::apply`]).

use std::ops::Range;

use super::block::{is_fence, strip_line_numbers};
use super::edit::{Edit, ParseIssue, note};

/// The `<file>/<original>/<patched>` edits of an answer whose line ends are already `\n`, each with the bytes it
/// spans (from its `<original>` to its `</patched>`); indices count these edits only.
pub(crate) fn parse_tagged(text: &str, issues: &mut Vec<ParseIssue>) -> Vec<(Range<usize>, Edit)> {
    let mut edits: Vec<(Range<usize>, Edit)> = Vec::new();
    let mut file: Option<String> = None;
    let mut original: Option<(usize, String)> = None;
    let mut pos = 0usize;
    let mut tags = TagFinder::default();
    while let Some((tag, open_end)) = tags.next_open(text, pos) {
        let Some(close_at) = tags.next_close(text, tag, open_end) else {
            note(issues, ParseIssue::Unclosed { tag: tag.name().to_string() });
            pos = open_end;
            continue;
        };
        let body = text.get(open_end..close_at).unwrap_or("");
        pos = close_at + tag.name().len() + 3;
        match tag {
            Tag::File => {
                if original.take().is_some() {
                    note(issues, ParseIssue::OriginalWithoutPatched);
                }
                file = Some(clean_path(body));
            }
            Tag::Original => {
                if original.is_some() {
                    note(issues, ParseIssue::OriginalWithoutPatched);
                }
                original = Some((open_end - tag.name().len() - 2, body.to_string()));
            }
            Tag::Patched => match (original.take(), &file) {
                (Some((from, orig)), Some(path)) => {
                    let (original, n1) = clean_code(&orig);
                    let (patched, n2) = clean_code(body);
                    let (original, patched) = with_blank_line_changes(&orig, body, original, patched);
                    let mut edit = Edit::new(edits.len() + 1, path.clone(), original, patched);
                    edit.had_line_numbers = n1 || n2;
                    edits.push((from..pos, edit));
                }
                (Some(_), None) => note(issues, ParseIssue::NoFile),
                (None, _) => note(issues, ParseIssue::PatchedWithoutOriginal),
            },
        }
    }
    if original.is_some() {
        note(issues, ParseIssue::OriginalWithoutPatched);
    }
    edits
}

/// Whether an answer contains any of the edit tags at all.
pub fn mentions_edit_tags(answer: &str) -> bool {
    ["<file>", "<original>", "<patched>"].iter().any(|t| answer.contains(t))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tag {
    File,
    Original,
    Patched,
}

impl Tag {
    fn name(self) -> &'static str {
        match self {
            Tag::File => "file",
            Tag::Original => "original",
            Tag::Patched => "patched",
        }
    }
}

/// Finds tags in one answer in linear time: the position of each kind of tag found last is remembered, so a search
/// starts over only when the reading position has passed it (40,000 unclosed tags cost one scan, not 40,000).
#[derive(Debug, Default)]
struct TagFinder {
    /// Per tag (file, original, patched): the next opening tag at or after the position last asked, or `None`
    /// (never searched) / `Some(None)` (there is none).
    open: [Option<(usize, Option<usize>)>; 3],
    /// The same for closing tags.
    close: [Option<(usize, Option<usize>)>; 3],
}

const TAGS: [Tag; 3] = [Tag::File, Tag::Original, Tag::Patched];

impl TagFinder {
    fn find(cache: &mut Option<(usize, Option<usize>)>, text: &str, needle: &str, from: usize) -> Option<usize> {
        if let Some((_, found)) = *cache {
            match found {
                None => return None,
                Some(at) if at >= from => return Some(at),
                Some(_) => {}
            }
        }
        let found = text.get(from..).and_then(|rest| memchr::memmem::find(rest.as_bytes(), needle.as_bytes()));
        let found = found.map(|i| from + i);
        *cache = Some((from, found));
        found
    }

    /// The next opening tag at or after `from`: which one, and the byte offset just past it.
    fn next_open(&mut self, text: &str, from: usize) -> Option<(Tag, usize)> {
        let mut best: Option<(usize, Tag)> = None;
        for (i, t) in TAGS.into_iter().enumerate() {
            let at = Self::find(&mut self.open[i], text, &format!("<{}>", t.name()), from);
            if let Some(at) = at
                && best.is_none_or(|(b, _)| at < b)
            {
                best = Some((at, t));
            }
        }
        best.map(|(at, t)| (t, at + t.name().len() + 2))
    }

    /// Where the closing tag of `tag` at or after `from` starts.
    fn next_close(&mut self, text: &str, tag: Tag, from: usize) -> Option<usize> {
        let i = TAGS.iter().position(|&t| t == tag).unwrap_or(0);
        Self::find(&mut self.close[i], text, &format!("</{}>", tag.name()), from)
    }
}

/// Trims a path and removes quoting the model may have put around it.
fn clean_path(raw: &str) -> String {
    raw.trim().trim_matches(|c| matches!(c, '`' | '"' | '\'')).trim().to_string()
}

/// Strips leading and trailing newlines (never spaces), code-fence lines at either end, and consistent line-number
/// prefixes. Returns the text and whether numbers were removed.
fn clean_code(raw: &str) -> (String, bool) {
    let all: Vec<&str> = raw.trim_matches('\n').split('\n').collect();
    let mut lines = all.as_slice();
    if lines.first().is_some_and(|l| is_fence(l)) {
        lines = &lines[1..];
    }
    if lines.last().is_some_and(|l| is_fence(l)) {
        lines = &lines[..lines.len() - 1];
    }
    // Trimmed by moving the ends of a slice: removing lines one at a time from the front would move the rest each
    // time, quadratic in a block of many blank lines.
    let start = lines.iter().take_while(|l| l.is_empty()).count();
    let lines = &lines[start..];
    let end = lines.len() - lines.iter().rev().take_while(|l| l.is_empty()).count();
    let lines = &lines[..end];
    (lines.join("\n"), strip_line_numbers(lines).is_some())
}

/// Blank lines at the ends of a block, past the one newline that sets the block apart from its tags (`<original>\n`
/// and `\n</original>` are layout): `(leading, trailing)`. A block that begins or ends with a code fence has none.
fn end_blank_lines(raw: &str) -> (usize, usize) {
    let lines: Vec<&str> = raw.split('\n').collect();
    let lead = lines.iter().take_while(|l| l.is_empty()).count();
    if lead == lines.len() {
        return (0, 0);
    }
    let trail = lines.iter().rev().take_while(|l| l.is_empty()).count();
    let fenced = |l: Option<&&str>| l.is_some_and(|l| is_fence(l));
    if fenced(lines.get(lead)) || fenced(lines.get(lines.len() - 1 - trail)) {
        return (0, 0);
    }
    // `lead` empty lines before the code hold `lead - 1` line breaks of layout after the tag's own.
    (lead.saturating_sub(1), trail.saturating_sub(1))
}

/// The cleaned original and patched text with the blank lines at their ends that they do not share put back:
/// an original that starts with two blank lines and a patched text that starts with one remove a blank line, as
/// the model wrote. (AutoCodeRover trims them all, which adds or loses blank lines; when an original with its
/// blank lines is not found, applying tries it without them.)
fn with_blank_line_changes(
    raw_original: &str,
    raw_patched: &str,
    original: String,
    patched: String,
) -> (String, String) {
    if original.is_empty() {
        return (original, patched);
    }
    let (ol, ot) = end_blank_lines(raw_original);
    let pad = |text: String, lead: usize, trail: usize| {
        if lead == 0 && trail == 0 { text } else { format!("{}{text}{}", "\n".repeat(lead), "\n".repeat(trail)) }
    };
    if patched.is_empty() {
        // A patched text of blank lines only keeps that many of the original's: the rest are deleted with it.
        if !raw_patched.chars().all(|c| c == '\n') {
            return (original, patched);
        }
        let kept = raw_patched.len().saturating_sub(1);
        if kept > ol + ot {
            return (original, patched);
        }
        let lead = kept.min(ol);
        return (pad(original, ol - lead, ot - (kept - lead)), patched);
    }
    let (pl, pt) = end_blank_lines(raw_patched);
    let (lead, trail) = (ol.min(pl), ot.min(pt));
    (pad(original, ol - lead, ot - trail), pad(patched, pl - lead, pt - trail))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patch::block::without_line_numbers;
    use crate::patch::{is_placeholder, parse_edits, parse_edits_with_issues};

    /// A fenced block of tens of thousands of blank lines is trimmed in one pass over them.
    #[test]
    fn a_block_of_many_blank_lines_after_a_fence_is_trimmed() {
        let blanks = "\n".repeat(50_000);
        let answer = format!(
            "<file>a.py</file>\n<original>\n```{blanks}x = 1{blanks}```\n</original>\n<patched>\n```{blanks}x = 2{blanks}```\n</patched>"
        );
        let edits = parse_edits(&answer);
        assert_eq!(edits.len(), 1);
        assert_eq!((edits[0].original.trim(), edits[0].patched.trim()), ("x = 1", "x = 2"));
    }

    #[test]
    fn blocks_in_a_fence_with_heading() {
        let answer = "Some text.\n\n# modification 1\n```python\n<file>  a/b.py </file>\n<original>\n    def f():\n        return 1\n</original>\n<patched>\n    def f():\n        return 2\n</patched>\n```\n";
        let edits = parse_edits(answer);
        assert_eq!(edits.len(), 1);
        let e = &edits[0];
        assert_eq!(e.file, "a/b.py");
        assert_eq!(e.original, "    def f():\n        return 1");
        assert_eq!(e.patched, "    def f():\n        return 2");
        assert_eq!(e.index, 1);
    }

    #[test]
    fn blocks_without_fences_and_several_pairs_per_file() {
        let answer = "<file>x.py</file><original>a = 1</original><patched>a = 2</patched>\n<original>b = 1</original>\n<patched>b = 2</patched>\n<file>`y.py`</file>\n<original>c</original><patched>d</patched>";
        let edits = parse_edits(answer);
        let got: Vec<_> = edits.iter().map(|e| (e.file.as_str(), e.original.as_str(), e.patched.as_str())).collect();
        assert_eq!(got, vec![("x.py", "a = 1", "a = 2"), ("x.py", "b = 1", "b = 2"), ("y.py", "c", "d")]);
    }

    #[test]
    fn only_newlines_are_trimmed_not_indentation() {
        let edits = parse_edits(
            "<file>f.py</file><original>\n\n    x = 1  \n\n</original><patched>\n\n\t\ty = 2\n\n</patched>",
        );
        assert_eq!(edits[0].original, "    x = 1  ");
        assert_eq!(edits[0].patched, "\t\ty = 2");
    }

    #[test]
    fn blank_lines_the_two_blocks_do_not_share_are_kept() {
        let cases = [
            // Two blank lines before the class in the original, one in the patched text: one is removed.
            (
                "<original>\n\n\nclass A:\n</original>\n<patched>\n\nx = 1\n\n\nclass A:\n\n</patched>",
                "\nclass A:",
                "x = 1\n\n\nclass A:\n",
            ),
            // The newline after an opening tag and before a closing one is layout, written or not.
            ("<original>a = 1</original><patched>\na = 2\n</patched>", "a = 1", "a = 2"),
            // Two blank lines in place of a line between one blank line and two: one blank goes with the line.
            ("<original>\n\nX = 1\n\n\n</original><patched>\n\n\n</patched>", "X = 1\n", ""),
        ];
        for (blocks, original, patched) in cases {
            let edits = parse_edits(&format!("<file>f.py</file>\n{blocks}"));
            assert_eq!((edits[0].original.as_str(), edits[0].patched.as_str()), (original, patched), "{blocks}");
        }
    }

    #[test]
    fn crlf_answers_are_read() {
        let edits =
            parse_edits("<file>f.py</file>\r\n<original>\r\na\r\nb\r\n</original>\r\n<patched>\r\nc\r\n</patched>");
        assert_eq!(edits[0].original, "a\nb");
        assert_eq!(edits[0].patched, "c");
    }

    #[test]
    fn fences_inside_blocks_are_dropped() {
        let edits = parse_edits(
            "<file>f.py</file>\n<original>\n```python\nx = 1\n```\n</original>\n<patched>\n```\nx = 2\n```\n</patched>",
        );
        assert_eq!(edits[0].original, "x = 1");
        assert_eq!(edits[0].patched, "x = 2");
    }

    #[test]
    fn incomplete_blocks_are_reported() {
        let (edits, issues) = parse_edits_with_issues(
            "<file>t.py</file>\n<original>\ndef t():\n    pass\n</patched>\n<patched>\nx\n</patched>",
        );
        assert!(edits.is_empty());
        assert_eq!(issues, vec![ParseIssue::Unclosed { tag: "original".into() }, ParseIssue::PatchedWithoutOriginal]);
        let (_, issues) = parse_edits_with_issues("<original>a</original><patched>b</patched>");
        assert_eq!(issues, vec![ParseIssue::NoFile]);
        assert!(parse_edits("no tags here").is_empty());
    }

    #[test]
    fn line_number_prefixes_are_noted_and_kept() {
        let edits = parse_edits(
            "<file>f.py</file><original>\n57     def f():\n58         return 1\n59 \n60         # done\n</original><patched>\ndef f():\n    return 2\n</patched>",
        );
        let e = &edits[0];
        assert!(e.had_line_numbers);
        assert_eq!(e.original, "57     def f():\n58         return 1\n59 \n60         # done");
        assert_eq!(
            without_line_numbers(&e.original).as_deref(),
            Some("    def f():\n        return 1\n\n        # done")
        );
        assert_eq!(without_line_numbers("10|x = 1\n11|y = 2").as_deref(), Some("x = 1\ny = 2"));
        assert_eq!(without_line_numbers("57     x = 1").as_deref(), Some("    x = 1"));
    }

    #[test]
    fn numbers_that_are_code_are_not_line_numbers() {
        assert_eq!(without_line_numbers("1 + 2\n3 + 4"), None, "not consecutive");
        assert_eq!(without_line_numbers("1 + 2"), None, "one number and one space is code");
        assert_eq!(without_line_numbers("x = [\n    1,\n]"), None);
        assert_eq!(without_line_numbers("x = 1\n2: 3"), None, "every line must carry one");
        let edits = parse_edits("<file>f.py</file><original>1 + 2\n3 + 4</original><patched>x</patched>");
        assert!(!edits[0].had_line_numbers);
    }

    #[test]
    fn placeholders_are_recognised() {
        for p in [
            "# Rest of the code...",
            "    # ... existing code ...",
            "# ...",
            "# rest of the method unchanged",
            "# (rest of the function)",
            "// ... existing code ...",
            "# Existing code",
            "# …",
            "# ... rest of the class unchanged ...",
            "# remaining methods unchanged",
            "# [...]",
            "  /* ... existing code ... */",
            "/* rest of the class unchanged */",
            "      {/* ... */}",
        ] {
            assert!(is_placeholder(p), "{p}");
        }
        for p in [
            "# Existing logic for reporting parse errors",
            "x = 1  # rest of",
            "...",
            "# Placeholder for categorization logic",
            "# restore the state",
            "# ... Or as first hook",
            "# ... (see issue 12)",
            "# rest of the loop handles errors",
            "/* the existing cache is reused */",
            "x = 1; /* ... */",
            "/* ... */ return x;",
        ] {
            assert!(!is_placeholder(p), "{p}");
        }
    }
}
