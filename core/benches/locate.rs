//! Timing of bug-location resolution and answer extraction.
//!
//! `cargo bench -p acr-core --bench locate` (uses the replay corpus at `../shared/replay` when present, otherwise
//! a generated repository).

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

use acr_core::answers::search::read as extract;
use acr_core::locate::{Query, resolve};
use acr_core::proxy::validate;
use acr_core::{Index, Repo};

#[path = "../tests/common/mod.rs"]
mod common;

fn generated() -> Repo {
    let mut files = Vec::new();
    for f in 0..300 {
        let mut text = String::new();
        for c in 0..10 {
            let base = if c == 0 { "object".to_string() } else { format!("C{f}_{}", c - 1) };
            text.push_str(&format!("class C{f}_{c}({base}):\n"));
            for m in 0..15 {
                text.push_str(&format!("    def m{m}(self, x):\n        return x + {m}\n\n"));
            }
        }
        files.push((format!("pkg/mod{f}.py"), text.into_bytes()));
    }
    Repo::from_files(files)
}

fn time<T>(label: &str, iters: u32, mut f: impl FnMut() -> T) {
    let started = Instant::now();
    for _ in 0..iters {
        black_box(f());
    }
    let per = started.elapsed() / iters;
    println!("{label:<58} {per:>12.2?} per run ({iters} runs)");
}

fn main() {
    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/replay"));
    let case = root.join("search/acr-run-1/pydata__xarray-4493/repo");
    let (repo, queries): (Repo, Vec<Query>) = if case.is_dir() {
        println!("repository: {}", case.display());
        (
            common::load_tree(&case),
            vec![
                Query::new(Some("xarray/core/dataset.py"), None, Some("Dataset.update")),
                Query::new(Some("xarray/core/merge.py"), None, Some("dataset_update_method")),
                Query::new(None, Some("DataArray"), None),
                Query::new(None, None, Some("__init__")),
                Query::new(Some("nowhere.py"), Some("Ghost"), Some("haunt")),
            ],
        )
    } else {
        println!("repository: generated (replay corpus absent)");
        (
            generated(),
            vec![
                Query::new(Some("mod7.py"), None, Some("C7_9.m3")),
                Query::new(None, Some("C1_5"), None),
                Query::new(None, None, Some("m4")),
                Query::new(Some("nowhere.py"), Some("Ghost"), Some("haunt")),
            ],
        )
    };
    let index = Index::build(&repo);
    println!("index: {:?}", index.stats());
    for q in &queries {
        let r = resolve(&index, &repo, q, "");
        time(&format!("resolve {q} -> {} locs", r.locations.len()), 200, || resolve(&index, &repo, q, ""));
    }
    let answer = "Let me look further.\n```json\n{'API_calls': ['search_method_in_class(\"update\", \"Dataset\")', \
                  \"search_code('merge')\",], 'bug_locations': [{'file': 'xarray/core/dataset.py', 'class': '', \
                  'method': 'Dataset.update', 'intended_behavior': 'keep chunks'}]}\n```\nDone.";
    time("extract + validate (messy fenced answer)", 20_000, || validate(&extract(answer).result, None));
    let patch = root.join("patch/acr-run-1");
    let mut answers = Vec::new();
    if let Ok(tasks) = std::fs::read_dir(&patch) {
        for t in tasks.flatten() {
            if let Ok(ans) = std::fs::read_dir(t.path()) {
                for a in ans.flatten() {
                    if let Ok(text) = std::fs::read_to_string(a.path().join("response.txt")) {
                        answers.push(text);
                    }
                }
            }
        }
    }
    if !answers.is_empty() {
        let bytes: usize = answers.iter().map(String::len).sum();
        time(&format!("extract over {} patch answers ({bytes} bytes)", answers.len()), 10, || {
            answers.iter().map(|a| extract(a).result.api_calls.len()).sum::<usize>()
        });
    }
}
