//! A slice of the history replay (`patch_history/harness.rs`): the latest 12 non-merge commits of each mirrored
//! repository, every variant. Not one file may come out wrong (a refusal is acceptable). Skips with a message when
//! the mirrors are absent (a clean clone); the whole replay is `cargo bench -p acr-core --bench patch_history`.

#[path = "patch_history/harness.rs"]
mod harness;

#[test]
fn no_answer_written_from_real_history_applies_wrong() {
    let root = harness::mirrors();
    let Some(report) = harness::run(&root, 12) else {
        eprintln!("SKIP: no history mirror under {} (set ACR_MIRRORS)", root.display());
        return;
    };
    let answers: usize = report.counts.values().map(|c| c.answers).sum();
    let right: usize = report.counts.values().map(|c| c.right).sum();
    assert!(answers > 0, "the mirrors gave no answer to replay");
    assert!(report.wrong.is_empty(), "wrong applications: {:#?}", report.wrong);
    eprintln!("history slice: {answers} answers, {right} right, none wrong");
}
