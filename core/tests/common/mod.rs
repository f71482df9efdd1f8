//! Shared helpers for the replay tests and the benchmarks: finding the corpus and loading trees.
// Each test and bench target uses a different part of this module.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use acr_core::Repo;
use acr_core::index::{Index, IndexBuilder};

/// The replay corpus, or `None` (with a printed notice) when it is not there.
pub fn corpus() -> Option<PathBuf> {
    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/replay"));
    if root.join("search").is_dir() {
        Some(root)
    } else {
        println!("SKIP: replay corpus not found at {}", root.display());
        None
    }
}

/// Search-case folders (`search/<run>/<instance>`), sorted.
pub fn search_cases(root: &Path) -> Vec<PathBuf> {
    let mut cases = Vec::new();
    let Ok(runs) = std::fs::read_dir(root.join("search")) else {
        return cases;
    };
    for run in runs.flatten() {
        if let Ok(tasks) = std::fs::read_dir(run.path()) {
            cases.extend(tasks.flatten().map(|t| t.path()).filter(|p| p.join("calls.jsonl").is_file()));
        }
    }
    cases.sort();
    cases
}

/// One line of `calls.jsonl`.
pub fn calls(case: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(case.join("calls.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Every file under `case/repo`, as a [`Repo`].
pub fn load_repo(case: &Path) -> Repo {
    load_tree(&case.join("repo"))
}

/// Every file under `root` (hidden folders skipped), as a [`Repo`]. Also used by the benchmarks.
pub fn load_tree(root: &Path) -> Repo {
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                if !entry.file_name().to_string_lossy().starts_with('.') {
                    stack.push(path);
                }
            } else if let (Ok(rel), Ok(bytes)) = (path.strip_prefix(root), std::fs::read(&path)) {
                files.push((rel.to_string_lossy().replace('\\', "/"), bytes));
            }
        }
    }
    Repo::from_files(files)
}

/// A fixture project of `tests/fixtures` (`javarepo`, `jsrepo`), as a [`Repo`].
pub fn fixture(name: &str) -> Repo {
    load_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures").join(name))
}

/// Every definition the index holds for a file, as `kind class::name start-end`.
pub fn definitions(index: &Index, path: &str) -> Vec<String> {
    use acr_core::index::DefKind;
    let file = &index.files[index.file_id(path).expect("indexed") as usize];
    file.defs
        .iter()
        .map(|d| {
            let kind = match d.kind {
                DefKind::Class => "class",
                DefKind::Method => "method",
                DefKind::Function => "function",
            };
            let owner = d.class.as_deref().map_or(String::new(), |c| format!("{c}::"));
            format!("{kind} {owner}{} {}-{}", d.name, d.start, d.end)
        })
        .collect()
}

/// An index over every `.py` file, test files included, as the recorded ACR version built it.
pub fn index_all_py(repo: &Repo) -> Index {
    let mut b = IndexBuilder::new();
    for (path, text) in repo.files().filter(|(p, _)| p.ends_with(".py")) {
        b.add_file(path, text);
    }
    b.finish()
}
