//! `acr check FILE...`: the syntax gate's verdict for each file (CPython 3.12's `compile()` verdict).

use std::path::PathBuf;
use std::process::ExitCode;

use crate::output::outln;
use acr_core::gate::Gate;
use anyhow::Context;

/// Prints `FILE: ok` or `FILE:LINE:COLUMN: problem` per file; exits 1 when any file fails.
pub fn run(files: &[PathBuf], json: bool) -> anyhow::Result<ExitCode> {
    let mut gate = Gate::new();
    let mut failed = false;
    for file in files {
        let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
        let text = String::from_utf8(bytes).map_err(|_| anyhow::anyhow!("{} is not valid UTF-8", file.display()))?;
        let verdict = gate.check(&text);
        failed |= verdict.is_err();
        match (json, verdict) {
            (true, Ok(())) => outln!("{}", serde_json::json!({"file": file, "ok": true})),
            (true, Err(p)) => outln!(
                "{}",
                serde_json::json!({"file": file, "ok": false, "line": p.line, "column": p.column,
                    "kind": p.kind, "error": p.kind.to_string(), "message": p.message})
            ),
            (false, Ok(())) => outln!("{}: ok", file.display()),
            (false, Err(p)) => outln!("{}:{}:{}: {}: {}", file.display(), p.line, p.column, p.kind, p.message),
        }
    }
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
