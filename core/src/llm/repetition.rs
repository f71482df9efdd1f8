//! Answers that repeat themselves: small models (and large ones at a high temperature) sometimes write one phrase
//! over and over until the token limit, `_to_json_to_json_to_json…`. A streamed answer is looked at as it grows, and
//! one whose end is the same unit many times over is stopped there, so the call ends in seconds rather than at the
//! time limit, and the repeats are left out of what the agent reads.
//!
//! The rule: the text ends with a unit of 1 to [`MAX_UNIT`] bytes repeated back to back, at least [`MIN_REPEATS`]
//! times (more for short units, which ordinary text repeats more often), over at least
//! - [`MIN_SPAN`] bytes when the unit has words in it (two letters or more: a phrase, a line of code, a block), which
//!   ordinary answers do not repeat that far, and a block repeated four times unchanged is already a loop;
//! - [`FILLER_SPAN`] bytes when it has not (at most one letter: a row of `=`, base64 of zero bytes, a table of
//!   zeros, separator lines), because files hold such runs: they are cut only while they keep growing past what a
//!   file holds, and content that stops repeating before that is never cut.
//!
//! The rule is asked of what has arrived of a stream, and of an answer that did not end by itself (cut at its cap
//! or its time): an answer the model finished keeps what it wrote ([`trim`]).

use super::{ChatResponse, Cut};

/// Longest repeating unit looked for, in bytes.
pub const MAX_UNIT: usize = 400;
/// Fewest bytes of repeats of a unit with words in it that make a loop.
pub const MIN_SPAN: usize = 600;
/// Fewest bytes of repeats of a unit without words (filler, as data holds it) that make a loop.
pub const FILLER_SPAN: usize = 4_096;
/// Fewest repeats of a unit longer than [`SHORT_UNIT`] that make a loop.
pub const MIN_REPEATS: usize = 4;
/// Units up to this many bytes must repeat [`MIN_SHORT_REPEATS`] times.
pub const SHORT_UNIT: usize = 24;
/// Fewest repeats of a short unit that make a loop.
pub const MIN_SHORT_REPEATS: usize = 24;

/// Where to cut `text` when it ends in a loop: after the first two copies of the repeated unit, on a character
/// boundary. `None` when it does not end in a loop.
pub fn loop_cut(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let n = bytes.len();
    if n < MIN_SPAN {
        return None;
    }
    // Only the end matters: a run of repeats longer than this is a loop whatever came before it.
    let scan = n.min(FILLER_SPAN + MAX_UNIT);
    let repeating = |unit: usize, lowest: usize| (lowest..n).rev().take_while(|&i| bytes[i] == bytes[i - unit]).count();
    for unit in 1..=MAX_UNIT.min(n / 2) {
        let span = repeating(unit, (n - scan).max(unit)) + unit;
        let wanted = if unit <= SHORT_UNIT { MIN_SHORT_REPEATS } else { MIN_REPEATS };
        let least = if is_filler(&bytes[n - unit..]) { FILLER_SPAN } else { MIN_SPAN };
        if span >= least && span / unit >= wanted {
            // The whole run, which may start before the part looked at.
            let span = repeating(unit, unit) + unit;
            let mut cut = n - span + 2 * unit;
            while !text.is_char_boundary(cut) {
                cut += 1;
            }
            return Some(cut);
        }
    }
    None
}

/// Whether a repeated unit is filler rather than words: it holds at most one distinct letter (any byte of a
/// character beyond ASCII counts as one).
fn is_filler(unit: &[u8]) -> bool {
    let mut letters = unit.iter().filter(|b| b.is_ascii_alphabetic() || !b.is_ascii());
    let first = letters.next();
    letters.all(|b| Some(b) == first)
}

/// Cuts an answer that did not end by itself (its [`ChatResponse::cut`] says why) and ends in a loop after the first
/// repeats, and marks it as a loop; an answer the model finished is left as it wrote it.
pub fn trim(answer: &mut ChatResponse) {
    if answer.cut.is_none() {
        return;
    }
    if let Some(cut) = loop_cut(&answer.content) {
        answer.content.truncate(cut);
        answer.cut = Some(Cut::Loop);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phrase_repeated_until_the_limit_is_a_loop_cut_after_two_copies() {
        let text = format!("The bug is in `Cart.total`. The fix calls{}", "_to_json".repeat(200));
        let cut = loop_cut(&text).expect("a loop");
        assert_eq!(&text[..cut], "The bug is in `Cart.total`. The fix calls_to_json_to_json");
    }

    #[test]
    fn a_long_block_repeated_is_a_loop() {
        let block = "search_method_in_class(\"total\", \"Cart\")\nsearch_class(\"Cart\")\n";
        let text = format!("I will search.\n{}", block.repeat(12));
        let cut = loop_cut(&text).expect("a loop");
        // The repeated unit may start a character early (the block's last newline also ends the line before it).
        assert_eq!(text[..cut].trim_end(), format!("I will search.\n{}", block.repeat(2)).trim_end());
    }

    #[test]
    fn ordinary_answers_are_not_loops() {
        let code = (0..60).map(|i| format!("    total += item_{i}.price * units\n")).collect::<String>();
        let divider = format!("{}\n{}\n", "-".repeat(79), "=".repeat(79));
        let table = "| a | b |\n|---|---|\n| 1 | 2 |\n".repeat(3);
        for text in [code, divider.repeat(3), table, "x = 0\n".repeat(20), "ok".into()] {
            assert_eq!(loop_cut(&text), None, "{text}");
        }
        // Repeats that stopped before the end are not the end of the answer looping.
        let stopped = format!("{} and then the fix.", "_to_json".repeat(200));
        assert_eq!(loop_cut(&stopped), None);
    }

    #[test]
    fn the_cut_is_on_a_character_boundary() {
        let text = "é…".repeat(400);
        let cut = loop_cut(&text).expect("a loop");
        assert!(text.is_char_boundary(cut));
        assert!(cut < 30);
    }

    /// Filler repeats as data does and is cut only past [`FILLER_SPAN`]; a unit with two letters is words.
    #[test]
    fn filler_takes_a_longer_run_than_words() {
        for unit in ["=", "0, ", "A", "#####\n", "| 0 | 0 |\n", "    \n"] {
            assert!(is_filler(unit.as_bytes()), "{unit:?}");
            let short = unit.repeat((FILLER_SPAN - 1) / unit.len());
            assert_eq!(loop_cut(&short), None, "{unit:?}");
            assert!(loop_cut(&unit.repeat(FILLER_SPAN / unit.len() + 1)).is_some(), "{unit:?}");
        }
        for unit in ["_to_json", "ab", "é", "search_class(\"Cart\")\n"] {
            assert!(!is_filler(unit.as_bytes()), "{unit:?}");
        }
    }

    /// A loop longer than the part of the text looked at is still cut after its first two copies.
    #[test]
    fn a_long_loop_is_cut_after_its_first_copies() {
        let text = format!("Start.{}", "_to_json".repeat(2_000));
        assert_eq!(&text[..loop_cut(&text).unwrap()], "Start._to_json_to_json");
    }

    /// What the model finished is kept; what its cap or the time cut is trimmed and said to be a loop.
    #[test]
    fn only_answers_that_did_not_end_by_themselves_are_trimmed() {
        let text = format!("calls{}", "_to_json".repeat(200));
        let mut finished = ChatResponse::new(&text, Default::default(), None);
        trim(&mut finished);
        assert_eq!((finished.content.len(), finished.cut), (text.len(), None));
        let mut capped = ChatResponse { cut: Some(Cut::Cap), ..finished };
        trim(&mut capped);
        assert_eq!((capped.content.as_str(), capped.cut), ("calls_to_json_to_json", Some(Cut::Loop)));
    }
}
