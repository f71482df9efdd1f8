//! The issue text as the model reads it: HTML comments (`<!-- ... -->`, left by GitHub's issue templates) removed,
//! as AutoCodeRover does, since they are instructions to the reporter, not part of the report.

/// The issue without HTML comments (an unclosed comment runs to the end) and without the blank lines they leave.
pub fn clean(issue: &str) -> String {
    let mut out = String::with_capacity(issue.len());
    let mut rest = issue;
    while let Some(start) = rest.find("<!--") {
        out.push_str(&rest[..start]);
        rest = match rest[start + 4..].find("-->") {
            Some(end) => &rest[start + 4 + end + 3..],
            None => "",
        };
    }
    out.push_str(rest);
    // Collapse the runs of blank lines a removed block leaves behind.
    let mut text = String::with_capacity(out.len());
    let mut blank = 0;
    for line in out.lines() {
        if line.trim().is_empty() {
            blank += 1;
            if blank > 1 {
                continue;
            }
        } else {
            blank = 0;
        }
        text.push_str(line.trim_end());
        text.push('\n');
    }
    text.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_are_removed_and_text_kept() {
        let issue = "<!-- Thanks for reporting! Please fill in: -->\n### Bug\n\n<!-- What happened? -->\n\nThe total \
                     ignores units.\n<!-- multi\nline\ncomment -->\n```python\ncart.total()  # 50, not 150\n```\n<!-- never closed";
        assert_eq!(clean(issue), "### Bug\n\nThe total ignores units.\n\n```python\ncart.total()  # 50, not 150\n```");
        assert_eq!(clean("no comments at all"), "no comments at all");
        assert_eq!(clean("a <!-- x --> b"), "a  b");
    }
}
