//! The patch core against real history: every one of the latest `ACR_HISTORY_COMMITS` (default 120) non-merge
//! commits of six, itsdangerous, attrs and click (see `core/tests/patch_history/harness.rs` for how answers are
//! written). `cargo bench -p acr-core --bench patch_history`; skips with a message without the mirrors.
//! `ACR_HISTORY_VERBOSE=1` prints the refusals of exact answers and the first wrong files (`ACR_HISTORY_SHOWN=N`
//! more of them, `ACR_HISTORY_ANSWERS=1` with their answers). `core/tests/patch_history.rs` runs a slice.

#[path = "../tests/patch_history/harness.rs"]
mod harness;

fn main() {
    let root = harness::mirrors();
    let commits: usize = std::env::var("ACR_HISTORY_COMMITS").ok().and_then(|n| n.parse().ok()).unwrap_or(120);
    let Some(report) = harness::run(&root, commits) else {
        println!("SKIP: no mirror found under {} (set ACR_MIRRORS)", root.display());
        return;
    };
    println!("{:<10} {:>8} {:>12} {:>9} {:>6}", "variant", "answers", "right file", "refused", "wrong");
    for v in harness::VARIANTS {
        let c = report.counts.get(v).map_or((0, 0, 0, 0), |c| (c.answers, c.right, c.refused, c.wrong));
        let pct = if c.0 == 0 { 0.0 } else { 100.0 * c.1 as f64 / c.0 as f64 };
        println!("{v:<10} {:>8} {:>6} {:>4.1}% {:>9} {:>6}", c.0, c.1, pct, c.2, c.3);
    }
    for w in report.wrong.iter().take(20) {
        println!("wrong: {w}");
    }
}
