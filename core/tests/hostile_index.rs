//! Hostile sources against the index: memory must grow with the file, not with methods times name length.
//!
//! Regression: the enclosing class's name was copied into every method's definition, so a 100,000-character class
//! name with 30,000 one-line methods (a 3 MB file) took `acr index` to about 3 GB, and a 7 KB zip of it trapped the
//! playground's wasm. The Rust heap is measured with a counting allocator (tree-sitter's own C allocations are not
//! counted: they last one file and are bounded by the parser).

use acr_core::{Index, Repo};
use peak_alloc::PeakAlloc;

#[global_allocator]
static HEAP: PeakAlloc = PeakAlloc;

/// The heap is the process's: tests that measure it take turns.
static MEASURING: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn hostile_class(name_len: usize, methods: usize) -> String {
    let name = "C".repeat(name_len);
    let mut src = format!("class {name}({name}, {name}):\n");
    for i in 0..methods {
        src.push_str(&format!("    def m{i}(self): pass\n"));
    }
    src
}

/// Indexes one hostile class with `methods` one-line methods; returns the file's size and the index's peak heap.
fn index_hostile_class(methods: usize) -> (usize, usize) {
    let src = hostile_class(100_000, methods);
    let repo = Repo::from_files([("big.py", src.as_bytes())]);
    let _turn = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let before = HEAP.current_usage();
    HEAP.reset_peak_usage();
    let index = Index::build(&repo);
    let peak = HEAP.peak_usage().saturating_sub(before);
    assert_eq!((index.stats().classes, index.stats().methods), (1, methods));
    (src.len(), peak)
}

/// A file over [`acr_core::index::OUTLINE_MAX_BYTES`]: tree-sitter reads it.
#[test]
fn a_long_class_name_with_many_methods_costs_a_multiple_of_the_file() {
    let (bytes, peak) = index_hostile_class(30_000);
    assert!(bytes > acr_core::index::OUTLINE_MAX_BYTES);
    assert!(
        peak < 20 * bytes,
        "indexing a {bytes} byte file used {peak} bytes of heap at its peak (over 20x the file)"
    );
}

/// The same kind of file just under the size the index reads from the syntax gate's parse instead of tree-sitter's
/// (the gate's tokens and tree are Rust heap, so all of its memory is counted here).
#[test]
fn a_hostile_file_read_from_the_gate_costs_a_bounded_multiple_of_the_file() {
    let (bytes, peak) = index_hostile_class(27_000);
    assert!(bytes <= acr_core::index::OUTLINE_MAX_BYTES);
    assert!(
        peak < 40 * bytes,
        "indexing a {bytes} byte file used {peak} bytes of heap at its peak (over 40x the file)"
    );
    println!("{bytes} bytes: peak heap {peak} bytes ({:.1}x)", peak as f64 / bytes as f64);
}

#[test]
fn many_bases_and_trailing_comments_stay_linear() {
    // 50,000 distinct bases on one class, and a class body ending in 50,000 comments.
    let bases: Vec<String> = (0..50_000).map(|i| format!("B{i}")).collect();
    let mut src = format!("class A({}):\n    def f(self):\n        pass\n", bases.join(", "));
    src.push_str(&"    # note\n".repeat(50_000));
    let repo = Repo::from_files([("bases.py", src.as_bytes())]);
    let _turn = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let index = Index::build(&repo);
    assert_eq!(index.class_bases["A"].len(), 50_000);
    assert_eq!(index.classes["A"][0].end, 3, "trailing comments are not part of the class");
}
