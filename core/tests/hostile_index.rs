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

fn hostile_class(name_len: usize, methods: usize) -> String {
    let name = "C".repeat(name_len);
    let mut src = format!("class {name}({name}, {name}):\n");
    for i in 0..methods {
        src.push_str(&format!("    def m{i}(self): pass\n"));
    }
    src
}

#[test]
fn a_long_class_name_with_many_methods_costs_a_multiple_of_the_file() {
    let src = hostile_class(100_000, 30_000);
    let repo = Repo::from_files([("big.py", src.as_bytes())]);
    let before = HEAP.current_usage();
    HEAP.reset_peak_usage();
    let index = Index::build(&repo);
    let peak = HEAP.peak_usage().saturating_sub(before);
    let stats = index.stats();
    assert_eq!((stats.classes, stats.methods), (1, 30_000));
    assert!(
        peak < 20 * src.len(),
        "indexing a {} byte file used {peak} bytes of heap at its peak (over 20x the file)",
        src.len()
    );
}

#[test]
fn many_bases_and_trailing_comments_stay_linear() {
    // 50,000 distinct bases on one class, and a class body ending in 50,000 comments.
    let bases: Vec<String> = (0..50_000).map(|i| format!("B{i}")).collect();
    let mut src = format!("class A({}):\n    def f(self):\n        pass\n", bases.join(", "));
    src.push_str(&"    # note\n".repeat(50_000));
    let repo = Repo::from_files([("bases.py", src.as_bytes())]);
    let index = Index::build(&repo);
    assert_eq!(index.class_bases["A"].len(), 50_000);
    assert_eq!(index.classes["A"][0].end, 3, "trailing comments are not part of the class");
}
