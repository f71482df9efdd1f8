//! The syntax gate against CPython 3.12 on the whole corpus: every file of the reference interpreter's standard
//! library and site-packages, mutants of each, and CPython's own syntax-test snippets (the test in
//! `core/tests/gate_cpython.rs` runs a slice). Prints the agreement figures, the disagreements, and the gate's speed.
//!
//! `cargo bench -p acr-core --bench gate_cpython` (skips with a message without CPython 3.12; `ACR_GATE_PYTHON`
//! names another interpreter).

use std::time::Instant;

use acr_core::gate::Gate;

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
    let Some(verdicts) = harness::verdicts(&python, &cases) else {
        println!("SKIP: the reference interpreter did not judge the corpus");
        return;
    };
    let judged = harness::judge(&cases, 1);
    println!("edit checks that differ from whole checks: {:?}", judged.incremental_differs);
    let report = harness::compare(&cases, &verdicts, judged.verdicts);
    report.print(std::env::var("ACR_GATE_EXAMPLES").ok().and_then(|n| n.parse().ok()).unwrap_or(40));
    // Speed: the gate's whole check and CPython's compile() over the same sources, best of three passes each. The
    // gate checks a large module in parts on the machine's cores; CPython compiles on one.
    let sources: Vec<&str> = cases.iter().map(|c| c.source.as_str()).collect();
    let bytes: usize = sources.iter().map(|s| s.len()).sum::<usize>();
    let mut gate = Gate::new();
    let gate_time = (0..3)
        .map(|_| {
            let t = Instant::now();
            for s in &sources {
                std::hint::black_box(gate.check(s).is_ok());
            }
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min);
    let mb = bytes as f64 / 1e6;
    print!("speed over {} sources, {mb:.1} MB: gate {gate_time:.2} s ({:.1} MB/s)", sources.len(), mb / gate_time);
    match harness::compile_seconds(&python, &sources) {
        Some(cpython) => println!(
            "; CPython's compile() {cpython:.2} s ({:.1} MB/s); gate / CPython time {:.2}",
            mb / cpython,
            gate_time / cpython
        ),
        None => println!("; CPython's compile() not timed"),
    }
}
