//! The syntax gate (tree-sitter plus CPython's indentation rules) on arbitrary source.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let source = acr_fuzz::text(data);
    let mut gate = acr_core::gate::Gate::new();
    let verdict = gate.check(&source);
    let problems = gate.problems(&source, 3);
    assert_eq!(verdict.is_ok(), problems.is_empty(), "check and problems disagree");
});
