//! A slice of the history replay (`patch_history/harness.rs`): the latest 12 non-merge commits of each mirrored
//! repository, every variant (every edit format included). Not one file may come out wrong, and every answer whose originals each occur once in
//! the file must come out right (only ambiguous ones may be refused). Skips with a message when
//! the mirrors are absent (a clean clone); the whole replay is `cargo bench -p acr-core --bench patch_history`.

#[path = "patch_history/harness.rs"]
mod harness;

#[test]
fn no_answer_written_from_real_history_applies_wrong() {
    let Some(report) = harness::mirrors().and_then(|root| harness::run(&root, 12)) else {
        eprintln!("SKIP: no history mirror (set ACR_MIRRORS to a folder of them; see patch_history/harness.rs)");
        return;
    };
    let answers: usize = report.counts.values().map(|c| c.answers).sum();
    let right: usize = report.counts.values().map(|c| c.right).sum();
    assert!(answers > 0, "the mirrors gave no answer to replay");
    assert!(report.wrong.is_empty(), "wrong applications: {:#?}", report.wrong);
    // A whole file may be refused when it is right: a commit that deletes the file's last third looks cut short,
    // and is refused by design (never applied wrong).
    for (variant, c) in report.counts.iter().filter(|(v, _)| !harness::never_applies(v) && **v != "whole") {
        assert_eq!(
            c.right_unique,
            c.answers - c.ambiguous,
            "{variant}: an answer whose originals are unique was not applied right (ACR_HISTORY_VERBOSE=1 shows it)"
        );
    }
    eprintln!("history slice: {answers} answers, {right} right, none wrong");
}
