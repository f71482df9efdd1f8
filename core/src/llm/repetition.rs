//! Answers that repeat themselves: small models (and large ones at a high temperature) sometimes write one phrase
//! over and over until the token limit, `_to_json_to_json_to_json…`. A streamed answer is looked at as it grows, and
//! one whose end is the same unit many times over is stopped there, so the call ends in seconds rather than at the
//! time limit, and the repeats are left out of what the agent reads.
//!
//! The rule: the text ends with a unit of 1 to [`MAX_UNIT`] bytes repeated back to back over at least [`MIN_SPAN`]
//! bytes, at least [`MIN_REPEATS`] times (more for short units, which ordinary text repeats more often: a rule of
//! `=` signs, a row of zeros). Ordinary answers, code included, do not end that way; a row of eighty `-` is 80
//! bytes, and a block of code repeated four times with nothing changed is already a loop.

/// Longest repeating unit looked for, in bytes.
pub const MAX_UNIT: usize = 400;
/// Fewest bytes of repeats that make a loop.
pub const MIN_SPAN: usize = 600;
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
    let scan = n.min(MIN_SPAN * 4 + MAX_UNIT);
    for unit in 1..=MAX_UNIT.min(n / 2) {
        let lowest = (n - scan).max(unit);
        let matching = (lowest..n).rev().take_while(|&i| bytes[i] == bytes[i - unit]).count();
        let span = matching + unit;
        let repeats = span / unit;
        let wanted = if unit <= SHORT_UNIT { MIN_SHORT_REPEATS } else { MIN_REPEATS };
        if span >= MIN_SPAN && repeats >= wanted {
            let mut cut = n - span + 2 * unit;
            while !text.is_char_boundary(cut) {
                cut += 1;
            }
            return Some(cut);
        }
    }
    None
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
}
