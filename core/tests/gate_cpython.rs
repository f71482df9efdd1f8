//! The syntax gate against CPython 3.12's `compile()`: a slice of the standard library and site-packages, mutants
//! of those files, and the code snippets of CPython's own syntax tests (see `gate_cpython/harness.rs`). The whole
//! corpus runs in `make bench` (`cargo bench -p acr-core --bench gate_cpython`).
//!
//! Targets: no valid file refused; at most 0.5% of the mutants CPython refuses accepted; at most 2% of the snippets
//! CPython refuses accepted; the error line equal to CPython's for at least 95% of the mutants both refuse.

#[path = "gate_cpython/harness.rs"]
mod harness;

#[test]
fn gate_agrees_with_cpython() {
    let Some(python) = harness::interpreter() else {
        return;
    };
    let cases = harness::corpus(&python, 6, 200, 150_000);
    if cases.is_empty() {
        return;
    }
    // CPython judges in its own process while the gate judges on every core.
    let (verdicts, judged) = std::thread::scope(|scope| {
        let cpython = scope.spawn(|| harness::verdicts(&python, &cases));
        let judged = harness::judge(&cases, std::thread::available_parallelism().map_or(1, usize::from));
        (cpython.join().expect("the thread waiting for CPython"), judged)
    });
    let Some(verdicts) = verdicts else {
        println!("SKIP: the reference interpreter did not judge the corpus");
        return;
    };
    assert!(
        judged.incremental_differs.is_empty(),
        "edit checks differ from whole checks: {:?}",
        judged.incremental_differs
    );
    let report = harness::compare(&cases, &verdicts, judged.verdicts);
    report.print(std::env::var("ACR_GATE_EXAMPLES").ok().and_then(|n| n.parse().ok()).unwrap_or(30));
    let r = &report;
    assert!(r.file_false_rejects.is_empty(), "valid files refused");
    assert!(r.mutant_false_rejects.is_empty(), "valid mutants refused");
    assert!(
        harness::pct(r.mutants_accepted_by_gate.len(), r.mutants_rejected) <= 0.5,
        "too many broken mutants accepted"
    );
    assert!(
        harness::pct(r.snippets_accepted_by_gate.len(), r.snippets_rejected) <= 2.0,
        "too many bad snippets accepted"
    );
    assert!(harness::pct(r.mutants_same_line, r.mutants_both_reject) >= 95.0, "error lines differ from CPython's");
}
