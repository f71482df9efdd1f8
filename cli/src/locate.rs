//! `acr locate`: resolve a bug location (file? class? method?) to code through the six tiers, printing what each
//! tier tried and what it found.

use std::path::Path;
use std::process::ExitCode;

use acr_core::Index;
use acr_core::locate::{Query, resolve};

use crate::load;
use crate::output::{out, outln};

/// Runs `acr locate`. Exits 0 when code was found, 1 when nothing matched.
pub fn run(
    dir: &Path,
    file: Option<&str>,
    class: Option<&str>,
    method: Option<&str>,
    intended: &str,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let repo = load::repo_from_dir(dir)?;
    let index = Index::build(&repo);
    let query = Query::new(file, class, method);
    let resolution = resolve(&index, &repo, &query, intended);
    if json {
        let mut v = serde_json::to_value(&resolution)?;
        v["message"] = serde_json::json!(resolution.not_found_message());
        outln!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        out!("{}", resolution.report(true));
    }
    Ok(if resolution.found() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
