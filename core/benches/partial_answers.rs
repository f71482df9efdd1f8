//! Answers showing one fixed definition of a real module, in every way models write them (see
//! `core/tests/partial_answers/harness.rs`), read with no format asked and with each format asked: how many come
//! out right, refused and wrong (wipes among them), per variant and per format asked.
//! `cargo bench -p acr-core --bench partial_answers`; `ACR_PARTIAL_EVERY=N` replays every N-th definition (1, all,
//! by default); skips without the replay corpus.

#[path = "../tests/common/mod.rs"]
mod common;
#[path = "../tests/partial_answers/harness.rs"]
mod harness;

fn main() {
    let Some(corpus) = common::corpus() else { return };
    let every: usize = std::env::var("ACR_PARTIAL_EVERY").ok().and_then(|n| n.parse().ok()).unwrap_or(1);
    let mut report = harness::Report::default();
    let started = std::time::Instant::now();
    for (project, repo) in harness::projects(&corpus) {
        harness::run(&project, &repo, every, &mut report);
    }
    let header = |what: &str| {
        println!(
            "{what:<18} {:>8} {:>8} {:>8} {:>6} {:>6} {:>12} {:>19} {:>10}",
            "answers", "right", "refused", "wrong", "wipes", "unambiguous", "unambiguous refused", "file's last"
        )
    };
    let row = |name: &str, c: &harness::Count| {
        println!(
            "{name:<18} {:>8} {:>8} {:>8} {:>6} {:>6} {:>12} {:>19} {:>10}",
            c.answers, c.right, c.refused, c.wrong, c.wipes, c.unambiguous, c.unambiguous_refused, c.last
        )
    };
    header("variant");
    for v in harness::VARIANTS {
        if let Some(c) = report.counts.get(v) {
            row(v, c);
        }
    }
    println!();
    header("format asked");
    for (asked, c) in &report.by_asked {
        row(asked, c);
    }
    println!("\n{} problems in {:.1} s", report.problems.len(), started.elapsed().as_secs_f64());
    for p in report.problems.iter().take(40) {
        println!("  {p}");
    }
}
