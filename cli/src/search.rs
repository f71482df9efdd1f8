//! `acr search`: run one search call (or a JSON-lines batch of them) against a local repository.

use std::io::{BufRead, Write};
use std::path::Path;
use std::process::ExitCode;

use acr_core::call::SearchCall;
use acr_core::index::{Index, IndexBuilder, Language};
use acr_core::search::{SearchOutput, Searcher};
use anyhow::Context;
use serde_json::{Value, json};

use crate::load;
use crate::output::outln;

/// Options of `acr search`.
pub struct SearchArgs<'a> {
    /// Repository root.
    pub dir: &'a Path,
    /// A call such as `search_method_in_class("write", "RST")`.
    pub call: Option<&'a str>,
    /// Print JSON instead of the model-facing text.
    pub json: bool,
    /// A JSON-lines file of calls.
    pub batch: Option<&'a Path>,
    /// Index test files too (as ACR's 2024 runs did).
    pub include_tests: bool,
}

/// Runs `acr search`. Exit 0 when the call found something (or the batch was processed), 1 when it did not.
pub fn run(args: &SearchArgs<'_>) -> anyhow::Result<ExitCode> {
    let repo = load::repo_from_dir(args.dir)?;
    let index = if args.include_tests {
        let mut b = IndexBuilder::new();
        for (path, text) in repo.files().filter(|(p, _)| Language::of_path(p).is_some()) {
            b.add_file(path, text);
        }
        b.finish()
    } else {
        Index::build(&repo)
    };
    let searcher = Searcher::new(&index, &repo);
    if let Some(batch) = args.batch {
        anyhow::ensure!(args.call.is_none(), "give either a call or --batch, not both");
        return run_batch(&searcher, batch);
    }
    let call = args.call.context("give a call such as 'search_class(\"Foo\")', or --batch FILE.jsonl")?;
    let out = match SearchCall::parse(call) {
        Ok(call) => searcher.run(&call),
        Err(e) => SearchOutput::miss(format!("Could not read the call `{call}`: {e}")),
    };
    let printed = if args.json { to_json(&out).to_string() } else { out.text.trim_end().to_string() };
    outln!("{printed}");
    Ok(if out.ok { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn to_json(out: &SearchOutput) -> Value {
    json!({"ok": out.ok, "output": out.text, "results": out.results})
}

/// One output line per input line: `{"api": ..., "args": {...} | [...]}` in, `{"ok", "output", "results"}` out.
fn run_batch(searcher: &Searcher<'_>, path: &Path) -> anyhow::Result<ExitCode> {
    let file = std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.with_context(|| format!("cannot read {}", path.display()))?;
        if line.trim().is_empty() {
            continue;
        }
        let result = match serde_json::from_str::<Value>(&line) {
            Ok(v) => match v.get("api").and_then(Value::as_str) {
                Some(api) => searcher.call(api, v.get("args").unwrap_or(&Value::Null)),
                None => SearchOutput::miss(format!("Line {} has no \"api\" field.", n + 1)),
            },
            Err(e) => SearchOutput::miss(format!("Line {} is not JSON: {e}.", n + 1)),
        };
        if let Err(e) = writeln!(out, "{}", to_json(&result)) {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                return Ok(ExitCode::SUCCESS);
            }
            return Err(e.into());
        }
    }
    let _ = out.flush();
    Ok(ExitCode::SUCCESS)
}
