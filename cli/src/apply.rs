//! `acr apply DIR ANSWER_FILE [--format F] [--json] [--write]`: turn a model's answer into a patch for a local
//! repository.
//!
//! The answer may be written in any edit format (ACR's tags, SEARCH/REPLACE blocks, a unified diff, whole
//! definitions, whole files, or a mix of the first three), each read only as far as it is sure; `--format` names
//! the one the model was asked for, read first. `--json` says which were found, overall (`formats`) and per edit
//! (`format`). Each edit that did not apply
//! says why as data too: its `kind` (`not_found`, `ambiguous`, `breaks_syntax`, `file_not_found`, `test_file`...) and,
//! for an ambiguous original, the `candidates` it matches (`line`, `end_line`, `enclosing` definition).

use std::path::Path;
use std::process::ExitCode;

use acr_core::patch::{self, EditFormat, ExtractOptions, Outcome};
use anyhow::Context;

use crate::load;
use crate::output::{out, outln};

/// Runs the command: prints the diff (or JSON) and exits 0 when the patch is applicable, 1 otherwise.
pub fn run(
    dir: &Path,
    answer_file: &Path,
    asked: Option<EditFormat>,
    json: bool,
    write: bool,
) -> anyhow::Result<ExitCode> {
    let local = load::local_repo(dir)?;
    let repo = &local.repo;
    let answer =
        std::fs::read_to_string(answer_file).with_context(|| format!("cannot read {}", answer_file.display()))?;
    let extraction = patch::extract(repo, &answer, &ExtractOptions { asked, ..ExtractOptions::default() });
    if json {
        let edits: Vec<serde_json::Value> = extraction
            .edits
            .iter()
            .map(|e| {
                let (matched, start, end) = match &e.outcome {
                    Outcome::Applied(a) => (true, Some(a.start), Some(a.end)),
                    _ => (false, None, None),
                };
                serde_json::json!({
                    "file": e.path.as_deref().unwrap_or(&e.file),
                    "format": e.format,
                    "matched": matched,
                    "start": start,
                    "end": end,
                    "kind": e.failure_kind(),
                    "candidates": e.candidates(),
                    "message": e.message(),
                })
            })
            .collect();
        let out = serde_json::json!({
            "status": extraction.status,
            "reason": extraction.reason,
            "diff": extraction.diff,
            "formats": extraction.formats,
            "edits": edits,
        });
        outln!("{out}");
    } else {
        out!("{}", extraction.diff);
        eprintln!("status: {}", extraction.status);
        if !extraction.formats.is_empty() {
            let names: Vec<&str> = extraction.formats.iter().map(|f| f.name()).collect();
            eprintln!("format: {}", names.join(", "));
        }
        for e in &extraction.edits {
            eprintln!("edit {}: {}", e.index, e.message());
        }
        if extraction.edits.is_empty() {
            eprintln!("{}", extraction.reason);
        }
    }
    if write && extraction.status.is_applicable() {
        let written = crate::write::write_all(&local, &extraction.files)?;
        eprintln!("wrote {written} file(s)");
    }
    Ok(if extraction.status.is_applicable() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
