//! The syntax gate against CPython 3.12 on the whole corpus: every file of the reference interpreter's standard
//! library and site-packages, mutants of each, and CPython's own syntax-test snippets (the test in
//! `core/tests/gate_cpython.rs` runs a slice). Prints the agreement figures, the disagreements, and the gate's speed.
//!
//! `cargo bench -p acr-core --bench gate_cpython` (skips with a message without CPython 3.12; `ACR_GATE_PYTHON`
//! names another interpreter).

use std::time::Instant;

#[path = "../tests/gate_cpython/harness.rs"]
mod harness;

fn main() {
    let Some(python) = harness::interpreter() else {
        return;
    };
    let cases = harness::corpus(&python, 1, usize::MAX, 2_000_000);
    if cases.is_empty() {
        return;
    }
    let t = Instant::now();
    let Some(verdicts) = harness::verdicts(&python, &cases) else {
        println!("SKIP: the reference interpreter did not judge the corpus");
        return;
    };
    let python_time = t.elapsed();
    let t = Instant::now();
    // One thread, so that the gate's speed compares with CPython's single process.
    let judged = harness::judge(&cases, 1);
    let gate_time = t.elapsed();
    println!("edit checks that differ from whole checks: {:?}", judged.incremental_differs);
    let report = harness::compare(&cases, &verdicts, judged.verdicts);
    let bytes: usize = cases.iter().map(|c| c.source.len()).sum();
    report.print(std::env::var("ACR_GATE_EXAMPLES").ok().and_then(|n| n.parse().ok()).unwrap_or(40));
    println!(
        "gate: {} sources, {:.1} MB in {:.2} s ({:.1} MB/s); CPython's ast.parse + compile(): {:.2} s",
        cases.len(),
        bytes as f64 / 1e6,
        gate_time.as_secs_f64(),
        bytes as f64 / 1e6 / gate_time.as_secs_f64(),
        python_time.as_secs_f64()
    );
}
