//! The syntax gate (a port of CPython 3.12's tokenizer, parser and compiler checks) on arbitrary source: it never
//! panics, it gives the same verdict twice, and a problem it reports lies within the source. Then the index: where
//! tree-sitter finds no syntax error, reading the definitions from the gate's parse (its outline) gives the same
//! parsed file as reading them from tree-sitter's tree.
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
    let mut builder = acr_core::index::IndexBuilder::new();
    let reference = builder.parse_tree("fuzz.py", &source);
    if !reference.entry.has_error {
        assert_eq!(builder.parse("fuzz.py", &source), reference, "the outline and tree-sitter disagree");
    }
});
