//! Worst cases of hostile sources for the index (time and peak heap), natively.
//!
//! `cargo bench -p acr-core --bench hostile` prints, for each shape: the source size, the time to index it and
//! the peak Rust heap while indexing (a counting allocator; tree-sitter's own C allocations are not counted). The
//! shapes are the ones that once blew up: a class name of 100,000 characters with 30,000 methods (3 GB before names
//! were stored once), the 4 MiB variant of it, and long runs of comment lines (quadratic in tree-sitter-python's
//! scanner before comment lines were blanked for parsing).

use std::time::Instant;

use acr_core::{Index, Repo};
use peak_alloc::PeakAlloc;

#[global_allocator]
static HEAP: PeakAlloc = PeakAlloc;

fn class_with_methods(name_len: usize, methods: usize) -> String {
    format!("class {}:\n{}", "C".repeat(name_len), "    def m(self): pass\n".repeat(methods))
}

fn measure(label: &str, source: &str) {
    let repo = Repo::from_files([("hostile.py", source.as_bytes())]);
    let before = HEAP.current_usage();
    HEAP.reset_peak_usage();
    let started = Instant::now();
    let index = Index::build(&repo);
    let elapsed = started.elapsed();
    let peak = HEAP.peak_usage().saturating_sub(before);
    let s = index.stats();
    println!(
        "{label:<48} {:>9.2} MB  {:>9.1} ms  peak heap {:>8.1} MB ({:.1}x the source)  {} classes, {} methods",
        source.len() as f64 / 1e6,
        elapsed.as_secs_f64() * 1e3,
        peak as f64 / 1e6,
        peak as f64 / source.len() as f64,
        s.classes,
        s.methods,
    );
}

fn main() {
    measure("class name 100,000 chars, 30,000 methods", &class_with_methods(100_000, 30_000));
    let methods = ((4 << 20) - 100_100) / 22;
    measure("the same, grown to the 4 MiB file cap", &class_with_methods(100_000, methods));
    measure("100,000 comment lines after a class", &format!("class A:\n    x = 1\n{}", "    # note\n".repeat(100_000)));
    measure("4 MiB of comment lines", &"# a comment line that says nothing at all\n".repeat((4 << 20) / 42));
}
