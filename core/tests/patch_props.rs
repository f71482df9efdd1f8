//! Property tests: parsing, applying, gating and extracting never panic, whatever the input.
//!
//! Inputs mix arbitrary Unicode with the fragments that steer the code paths (tags, fences, placeholders,
//! line numbers, indentation, CRLF, brackets), so the interesting branches are reached often.

use acr_core::Repo;
use acr_core::gate::{Gate, TextEdit};
use acr_core::patch::{self, ApplyOptions, Edit, ExtractOptions};
use proptest::prelude::*;

const PIECES: &[&str] = &[
    "<file>",
    "</file>",
    "<original>",
    "</original>",
    "<patched>",
    "</patched>",
    "```",
    "```python\n",
    "\n",
    "\r\n",
    "    ",
    "\t",
    "# Rest of the code...",
    "# ... existing code ...",
    "...",
    "57     ",
    "12|",
    "def f():",
    "return 1",
    "if x:",
    "else:",
    "try:",
    "except:",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ":",
    "'''",
    "\"",
    "\\",
    "m.py",
    "pkg/m.py",
    "tests/test_m.py",
    "x = 1",
    "&gt;",
    "é",
    "🦀",
    "print x",
    "\u{0c}",
];

fn fragmenty() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            3 => prop::sample::select(PIECES).prop_map(str::to_string),
            1 => any::<String>(),
        ],
        0..40,
    )
    .prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn parse_never_panics(answer in fragmenty()) {
        let edits = patch::parse_edits(&answer);
        for (i, e) in edits.iter().enumerate() {
            prop_assert_eq!(e.index, i + 1);
            prop_assert!(!e.original.starts_with('\n') && !e.original.ends_with('\n'));
        }
    }

    #[test]
    fn apply_never_panics(text in fragmenty(), original in fragmenty(), patched in fragmenty(), hint in 0u32..50) {
        let edit = Edit { index: 1, file: "m.py".into(), original, patched, had_line_numbers: false, format: patch::EditFormat::Acr, line: None };
        let options = ApplyOptions { hints: vec![(hint, hint)], refuse_ambiguous: hint % 2 == 0 };
        let mut gate = Gate::new();
        if let Ok(applied) = patch::apply_edit(&text, &edit, &options, &mut gate) {
            prop_assert!(applied.start >= 1 && applied.start <= applied.end + 1);
            // Whatever was accepted passes the gate on its own, or the file had problems before.
            let before = gate.check(&text);
            prop_assert!(gate.check(&applied.text).is_ok() || before.is_err());
        }
    }

    #[test]
    fn gate_never_panics_and_edit_checks_agree(old in fragmenty(), cut in 0usize..200, len in 0usize..50, insert in fragmenty()) {
        let mut gate = Gate::new();
        let _ = gate.check(&old);
        let mut start = cut.min(old.len());
        while !old.is_char_boundary(start) { start -= 1; }
        let mut old_end = (start + len).min(old.len());
        while !old.is_char_boundary(old_end) { old_end -= 1; }
        let new = format!("{}{}{}", &old[..start], insert, &old[old_end..]);
        let edit = TextEdit { start, old_end, new_end: start + insert.len() };
        let incremental = gate.check_edit(&old, &new, edit);
        let full = Gate::new().check(&new);
        if Gate::new().check(&old).is_ok() {
            prop_assert_eq!(incremental, full);
        } else {
            // The problem the file already had is not the edit's: it may pass where the full check fails.
            prop_assert!(incremental.is_ok() || incremental == full);
        }
    }

    #[test]
    fn extract_never_panics(answer in fragmenty(), text in fragmenty()) {
        let repo = Repo::from_files([("pkg/m.py", text.as_bytes()), ("tests/test_m.py", b"x = 1\n".as_slice())]);
        let ex = patch::extract(&repo, &answer, &ExtractOptions::default());
        prop_assert_eq!(ex.diff.is_empty(), ex.files.is_empty());
    }
}
