//! `acr check FILE...`: the syntax gate's verdict for each file, by its language (Python: CPython 3.12's
//! `compile()` verdict; Java: javac's parser's; JavaScript: V8's; TypeScript: the `typescript` package's parser's). A file of no known language is not checked, and says so.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::output::outln;
use acr_core::gate::Gate;
use acr_core::language::Language;
use anyhow::Context;

/// Prints `FILE: ok` or `FILE:LINE:COLUMN: problem` per file; exits 1 when any file fails.
pub fn run(files: &[PathBuf], json: bool) -> anyhow::Result<ExitCode> {
    let mut gate = Gate::new();
    let mut failed = false;
    for file in files {
        let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
        let text = String::from_utf8(bytes).map_err(|_| anyhow::anyhow!("{} is not valid UTF-8", file.display()))?;
        let Some(language) = Language::of_path(&file.to_string_lossy()) else {
            match json {
                true => outln!("{}", serde_json::json!({"file": file, "ok": null, "checked": false})),
                false => outln!("{}: not checked (no syntax gate for this kind of file)", file.display()),
            }
            continue;
        };
        gate.set_syntax(language.row().syntax);
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
