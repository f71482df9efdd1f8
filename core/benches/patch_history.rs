//! The patch core against real history: every one of the latest `ACR_HISTORY_COMMITS` (default 120) non-merge
//! commits of six, itsdangerous, attrs and click (see `core/tests/patch_history/harness.rs` for how answers are
//! written). `cargo bench -p acr-core --bench patch_history`; skips with a message without the mirrors.
//! An answer is ambiguous when one of its originals occurs more than once in the file (the bench's own count): the
//! core must refuse it unless a bug location decides (the `located` variant), so right files are also given among
//! the answers that are not. `ACR_HISTORY_VERBOSE=1` prints the refusals of answers that are not ambiguous and the first wrong files (`ACR_HISTORY_SHOWN=N`
//! more of them, `ACR_HISTORY_ANSWERS=1` with their answers). `core/tests/patch_history.rs` runs a slice.

#[path = "../tests/patch_history/harness.rs"]
mod harness;

fn main() {
    let commits: usize = std::env::var("ACR_HISTORY_COMMITS").ok().and_then(|n| n.parse().ok()).unwrap_or(120);
    let Some(report) = harness::mirrors().and_then(|root| harness::run(&root, commits)) else {
        println!(
            "SKIP: no history mirror (set ACR_MIRRORS to a folder of them; see core/tests/patch_history/harness.rs)"
        );
        return;
    };
    println!(
        "{:<16} {:>8} {:>12} {:>8} {:>6} {:>10} {:>17} {:>18}",
        "variant", "answers", "right file", "refused", "wrong", "ambiguous", "ambiguous refused", "right of unique"
    );
    let pct = |a: usize, b: usize| if b == 0 { 0.0 } else { 100.0 * a as f64 / b as f64 };
    for v in harness::VARIANTS {
        let Some(c) = report.counts.get(v) else { continue };
        if harness::never_applies(v) {
            println!("{v:<16} {:>8} (never to apply) {:>8} {:>6}", c.answers, c.refused, c.wrong);
            continue;
        }
        let unique = c.answers - c.ambiguous;
        println!(
            "{v:<16} {:>8} {:>6} {:>4.1}% {:>8} {:>6} {:>10} {:>17} {:>9} {:>6.1}%",
            c.answers,
            c.right,
            pct(c.right, c.answers),
            c.refused,
            c.wrong,
            c.ambiguous,
            c.ambiguous_refused,
            format!("{}/{unique}", c.right_unique),
            pct(c.right_unique, unique)
        );
    }
    for w in report.wrong.iter().take(20) {
        println!("wrong: {w}");
    }
}
