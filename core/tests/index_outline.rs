//! The index reads valid Python sources from the syntax gate's parse (its outline) instead of tree-sitter's. This
//! checks that both readings give the same parsed file, definitions, lines and bases, for every Python file of the
//! replay trees (tests included) and of any tree named in `ACR_OUTLINE_TREES` (`:`-separated folders). Skips (with a
//! message) when the corpus is absent.

mod common;

use std::path::PathBuf;

use acr_core::index::IndexBuilder;

#[test]
fn the_outline_and_tree_sitter_index_every_replay_file_alike() {
    let mut roots: Vec<PathBuf> = Vec::new();
    if let Some(corpus) = common::corpus() {
        roots.extend(common::search_cases(&corpus).into_iter().map(|case| case.join("repo")));
    }
    if let Ok(extra) = std::env::var("ACR_OUTLINE_TREES") {
        roots.extend(extra.split(':').filter(|s| !s.is_empty()).map(PathBuf::from));
    }
    if roots.is_empty() {
        return;
    }
    // The trees are shared out among the cores (every other tree to each), each with its own builder.
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let shares: Vec<(usize, usize, Vec<String>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|first| {
                let roots = &roots;
                scope.spawn(move || compare_trees(roots.iter().skip(first).step_by(threads)))
            })
            .collect();
        workers.into_iter().map(|w| w.join().expect("a comparison thread")).collect()
    });
    let files: usize = shares.iter().map(|s| s.0).sum();
    let tree_errors: usize = shares.iter().map(|s| s.1).sum();
    let differing: Vec<String> = shares.into_iter().flat_map(|s| s.2).collect();
    println!(
        "{files} Python files in {} trees; tree-sitter finds errors in {tree_errors}; readings differ on {}",
        roots.len(),
        differing.len()
    );
    assert!(differing.is_empty(), "the outline differs from tree-sitter on:\n{}", differing.join("\n"));
}

/// Parses every Python file of `roots` both ways: the files read, those where tree-sitter finds an error, and those
/// whose readings differ.
fn compare_trees<'a>(roots: impl Iterator<Item = &'a PathBuf>) -> (usize, usize, Vec<String>) {
    let mut builder = IndexBuilder::new();
    let (mut files, mut tree_errors, mut differing) = (0, 0, Vec::new());
    for root in roots {
        let repo = common::load_tree(root);
        for (path, text) in repo.files().filter(|(p, _)| p.ends_with(".py")) {
            files += 1;
            let reference = builder.parse_tree(path, text);
            tree_errors += usize::from(reference.entry.has_error);
            if builder.parse(path, text) != reference {
                differing.push(format!("{}: {path}", root.display()));
            }
        }
    }
    (files, tree_errors, differing)
}
