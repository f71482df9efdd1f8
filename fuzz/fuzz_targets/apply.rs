//! Applying an answer to a file: parse, match, re-indent, gate and diff. The file is stored under the path the
//! answer's first `<file>` tag names, so the edits reach it. When the answer applies, the diff it produces must
//! give the same files when the runner applies it (as it does for every reproduction), for ordinary paths (unusual
//! names are the diff writer's quoting rules, tested on their own).
#![no_main]

use std::collections::BTreeMap;

use acr_core::Repo;
use acr_core::patch::{ExtractOptions, ExtractStatus, extract, parse_edits};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let parts = acr_fuzz::fields(data, 2);
    let (answer, file) = (&parts[0], parts.get(1).map(String::as_str).unwrap_or(""));
    let path = parse_edits(answer).first().map(|e| e.file.clone()).unwrap_or_else(|| "m.py".to_string());
    let repo = Repo::from_files([(path.as_str(), file.as_bytes())]);
    let extraction = extract(&repo, answer, &ExtractOptions::default());
    if extraction.status != ExtractStatus::ApplicablePatch {
        return;
    }
    assert!(!extraction.diff.is_empty() && !extraction.files.is_empty(), "an applicable patch changes nothing");
    let ordinary = |p: &str| p.bytes().all(|b| b.is_ascii_alphanumeric() || b"/._-".contains(&b));
    if !extraction.files.keys().all(|p| ordinary(p)) {
        return;
    }
    let mut files: BTreeMap<String, String> = repo.files().map(|(p, t)| (p.to_string(), t.to_string())).collect();
    acr_runner::exec::apply_patch(&mut files, &extraction.diff)
        .unwrap_or_else(|e| panic!("the runner cannot apply the diff: {e}\n{}", extraction.diff));
    for (path, text) in &extraction.files {
        assert_eq!(files.get(path), Some(text), "the runner's result differs for {path}\n{}", extraction.diff);
    }
});
