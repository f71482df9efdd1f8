//! `parse_edits` on arbitrary model answers.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let answer = acr_fuzz::text(data);
    let (edits, _issues) = acr_core::patch::parse_edits_with_issues(&answer);
    assert_eq!(edits, acr_core::patch::parse_edits(&answer), "the two parsers disagree");
    for edit in &edits {
        let _ = acr_core::patch::is_placeholder(&edit.original);
    }
});
