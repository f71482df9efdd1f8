//! `acr index`: index a repository's sources (Python, Java, JavaScript and TypeScript) and print what was found, with the time the index took and,
//! apart, the time reading the folder took.

use crate::output::outln;
use std::process::ExitCode;
use std::time::Instant;

/// Runs `acr index`: counts, timing and skipped files.
pub fn run(dir: &std::path::Path, json: bool) -> anyhow::Result<ExitCode> {
    let loading = Instant::now();
    let repo = crate::load::repo_from_dir(dir)?;
    let load_ms = loading.elapsed().as_secs_f64() * 1000.0;
    let started = Instant::now();
    let index = acr_core::Index::build(&repo);
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    let s = index.stats();
    let languages = index.files_per_language_name();
    if json {
        let mut v = serde_json::to_value(s)?;
        v["milliseconds"] = serde_json::json!((ms * 10.0).round() / 10.0);
        v["languages"] = languages.iter().map(|(name, n)| (name.to_string(), serde_json::json!(n))).collect();
        v["load_milliseconds"] = serde_json::json!((load_ms * 10.0).round() / 10.0);
        v["skipped"] = serde_json::to_value(repo.skipped())?;
        outln!("{v}");
    } else {
        outln!("files:       {}", s.files);
        outln!("languages:   {}", index.languages_summary());
        outln!("parsed:      {}", s.parsed);
        outln!("with errors: {}", s.with_errors);
        outln!("classes:     {}", s.classes);
        outln!("methods:     {}", s.methods);
        outln!("functions:   {}", s.functions);
        outln!("bytes:       {}", s.bytes);
        outln!("time:        {ms:.1} ms");
        outln!("load time:   {load_ms:.1} ms (reading every file of the folder)");
        for skipped in repo.skipped() {
            eprintln!("skipped {}: {}", skipped.path, skipped.reason);
        }
    }
    Ok(ExitCode::SUCCESS)
}
