//! Applying an answer to a file: parse, match, re-indent, gate and diff. The file is stored under the path the
//! answer's first `<file>` tag names, so the edits reach it.
#![no_main]

use acr_core::Repo;
use acr_core::patch::{ExtractOptions, extract, parse_edits};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let parts = acr_fuzz::fields(data, 2);
    let (answer, file) = (&parts[0], parts.get(1).map(String::as_str).unwrap_or(""));
    let path = parse_edits(answer).first().map(|e| e.file.clone()).unwrap_or_else(|| "m.py".to_string());
    let repo = Repo::from_files([(path.as_str(), file.as_bytes())]);
    let extraction = extract(&repo, answer, &ExtractOptions::default());
    let _ = extraction.status.as_str();
});
