//! The syntax gate (a port of CPython 3.12's tokenizer, parser and compiler checks) on arbitrary source: it never
//! panics, it gives the same verdict twice, and a problem it reports lies within the source.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let source = acr_fuzz::text(data);
    let mut gate = acr_core::gate::Gate::new();
    let verdict = gate.check(&source);
    assert_eq!(verdict, acr_core::gate::check(&source), "the gate and its free function disagree");
    if let Err(problem) = verdict {
        // Lines as CPython counts them: `\r\n`, `\r` and `\n` each end one.
        let lines = source.replace("\r\n", "\n").split(['\n', '\r']).count().max(1);
        assert!((problem.line as usize) <= lines + 1, "problem line {} past the end ({lines} lines)", problem.line);
    }
});
