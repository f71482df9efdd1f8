//! Re-checking only what an edit changed: a text that passed the gate is remembered with where its top-level
//! statements start; after an edit, the statements the change touches are tokenised, parsed and compiled on their
//! own ([`super::parts`]), and when they pass, so does the edited text. When they do not, or when the edit reaches
//! what a part cannot judge (the leading `from __future__` imports, a module-level `global`, an encoding
//! declaration, carriage returns), the caller checks the whole text, so every verdict is the whole check's.

use super::parts::{self, Passed};
use super::tokens::{End, Token, Tokens, tokenize};
use super::{SyntaxProblem, check_tokens, source};

/// A Python text that passed the gate, with what re-checking an edit of it needs.
#[derive(Debug)]
pub(super) struct Checked {
    text: String,
    /// Byte offsets where its top-level statements start ([`parts::statement_starts`]).
    starts: Vec<u32>,
    /// The first statement start after the leading `from __future__` imports (0 when there are none): a change
    /// before it is judged by a whole check.
    after_future: u32,
    /// A module-level `global` statement: every change is judged by a whole check.
    module_global: bool,
}

/// Whether byte offsets in `text` are offsets in what the tokenizer reads: no byte-order mark, no carriage return
/// (newlines are translated) and no encoding declaration (which may decode the text or refuse bytes an edit adds).
fn plain(text: &str) -> bool {
    let head: String = text.split_inclusive('\n').take(2).collect();
    !text.starts_with('\u{feff}') && !text.contains('\r') && !head.contains("coding")
}

impl Checked {
    /// Checks `text` whole, like [`super::check`]; when it passes, what is remembered of it (`None` when it is not
    /// [`plain`]).
    pub(super) fn check(text: &str) -> Result<Option<Checked>, SyntaxProblem> {
        let prepared = source::prepare(text)?;
        let tokens = tokenize(&prepared);
        let passed = check_tokens(&prepared, &tokens)?;
        Ok(plain(text).then(|| Checked::new(text.to_string(), &tokens, 0, passed)))
    }

    /// What is remembered of `text`, whose statements from byte `from` on were tokenised as `tokens` (with offsets
    /// from `from`) and passed.
    fn new(text: String, tokens: &Tokens, from: u32, passed: Passed) -> Checked {
        let first_tokens: Vec<&Token> =
            parts::statement_starts(&tokens.tokens).into_iter().map(|i| &tokens.tokens[i]).collect();
        let after_future = match passed.future_line {
            0 => 0,
            line => first_tokens.iter().find(|t| t.line > line).map_or(text.len() as u32, |t| t.start + from),
        };
        let starts = first_tokens.iter().map(|t| t.start + from).collect();
        Checked { text, starts, after_future, module_global: passed.module_global }
    }

    /// Whether this is what is remembered of `text`.
    pub(super) fn is(&self, text: &str) -> bool {
        self.text == text
    }

    /// Re-checks `new`, an edit of the remembered text: what is remembered of `new` when the statements the edit
    /// touched pass on their own (then `new` passes); `None` when only a whole check of `new` can tell.
    pub(super) fn recheck(&self, new: &str) -> Option<Checked> {
        let old = self.text.as_str();
        if self.module_global || !plain(new) {
            return None;
        }
        let prefix = old.bytes().zip(new.bytes()).take_while(|(a, b)| a == b).count();
        let room = old.len().min(new.len()) - prefix;
        let suffix = old.bytes().rev().zip(new.bytes().rev()).take(room).take_while(|(a, b)| a == b).count();
        let (old_end, delta) = (old.len() - suffix, new.len() as i64 - old.len() as i64);
        // The statements the change touches: from the last one starting at or before it to the first one starting
        // at or after its end (or the end of the text).
        let first = self.starts.partition_point(|&s| s as usize <= prefix);
        let from = if first == 0 { 0 } else { self.starts[first - 1] as usize };
        let to_old = self.starts[first..].iter().map(|&s| s as usize).find(|&s| s >= old_end).unwrap_or(old.len());
        let to = (to_old as i64 + delta) as usize;
        if from < self.after_future as usize {
            return None;
        }
        let part = new.get(from..to)?;
        // The part must end a line, or the statement after it would continue its last line.
        if (to < new.len() && !part.ends_with('\n')) || part.contains('\0') {
            return None;
        }
        let part_text = if part.ends_with('\n') { part.to_string() } else { format!("{part}\n") };
        let tokens = tokenize(&part_text);
        if tokens.end != End::Marker {
            return None;
        }
        let passed = parts::check(&part_text, &tokens, from == 0).ok().filter(|p| !p.module_global)?;
        let mut checked = Checked::new(new.to_string(), &tokens, from as u32, passed);
        let before = self.starts.iter().copied().take_while(|&s| (s as usize) < from);
        let after = self.starts.iter().filter(|&&s| s as usize >= to_old && to_old < old.len());
        let mut starts: Vec<u32> = before.collect();
        starts.extend(checked.starts.iter().copied().filter(|&s| (s as usize) < to));
        starts.extend(after.map(|&s| (s as i64 + delta) as u32));
        checked.starts = starts;
        if from > 0 {
            checked.after_future = self.after_future;
        }
        Some(checked)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(old: &str, from: &str, to: &str) -> Option<Result<(), SyntaxProblem>> {
        let checked = Checked::check(old).expect("the old text passes").expect("plain");
        let new = old.replacen(from, to, 1);
        let whole = super::super::check(&new);
        match checked.recheck(&new) {
            Some(next) => {
                assert_eq!(whole, Ok(()), "a part passed but the whole fails:\n{new}");
                let again = Checked::check(&new).expect("passes").expect("plain");
                assert_eq!(next.starts, again.starts, "statement starts after the edit:\n{new}");
                assert_eq!(next.after_future, again.after_future);
                Some(Ok(()))
            }
            None => None,
        }
    }

    const MODULE: &str = "\"\"\"Doc.\"\"\"\nfrom __future__ import annotations\nimport os\n\n\n@dec\ndef f(a):\n    return a\n\n\nclass K:\n    def m(self):\n        if self:\n            pass\n        else:\n            pass\n\n\nx = f(1)\n";

    #[test]
    fn edits_inside_statements_are_checked_alone() {
        assert_eq!(edit(MODULE, "return a", "return a + 1"), Some(Ok(())));
        assert_eq!(edit(MODULE, "            pass\n        else", "            x = 2\n        else"), Some(Ok(())));
        assert_eq!(edit(MODULE, "x = f(1)\n", "x = f(1)\ny = 2\n"), Some(Ok(())));
        assert_eq!(edit(MODULE, "\n\nclass K", "\n\nz = 3\n\n\nclass K"), Some(Ok(())));
    }

    #[test]
    fn what_a_part_cannot_judge_goes_to_a_whole_check() {
        assert_eq!(edit(MODULE, "return a", "return a +"), None, "a broken part");
        assert_eq!(edit(MODULE, "import os", "import os\nfrom __future__ import division"), None);
        assert_eq!(edit(MODULE, "x = f(1)", "global x\nx = f(1)"), None, "a module-level global");
        assert_eq!(edit(MODULE, "x = f(1)\n", "x = f(1)"), Some(Ok(())), "the end of the text needs no newline");
        assert_eq!(edit(MODULE, "return a\n\n\n", "return a "), None, "the next statement would continue its line");
        assert_eq!(edit(MODULE, "\n\n\nclass K", "\n\n\n    y = 1\nclass K"), None, "an indented line starts it");
        assert_eq!(edit(MODULE, "\n\nclass K", "\n    y = 1\nclass K"), Some(Ok(())), "it joins the function");
        assert_eq!(edit(MODULE, "\"\"\"Doc.\"\"\"", "\"\"\"Doc!\"\"\""), None, "before the future imports");
        assert_eq!(edit(MODULE, "x = f(1)", "x = f(1\n"), None, "a bracket left open");
        assert_eq!(edit(MODULE, "x = f(1)", "x = '''"), None, "a string left open");
    }

    #[test]
    fn texts_with_encoding_declarations_or_carriage_returns_are_not_remembered() {
        assert!(Checked::check("# -*- coding: latin-1 -*-\nx = 1\n").expect("passes").is_none());
        assert!(Checked::check("x = 1\r\ny = 2\r\n").expect("passes").is_none());
        assert!(Checked::check("\u{feff}x = 1\n").expect("passes").is_none());
    }
}
