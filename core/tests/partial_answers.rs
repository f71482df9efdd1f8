//! A slice of the partial-answer replay (`partial_answers/harness.rs`): every sixteenth definition of requests and
//! flask as the replay corpus has them, shown fixed in every way models write one definition, read with no format asked and with each
//! format asked. Not one answer may change a line it does not show changing, and every answer whose place is
//! unambiguous must apply. Skips with a message without the corpus (`../shared/replay`); the whole replay is
//! `cargo bench -p acr-core --bench partial_answers`.

mod common;
#[path = "partial_answers/harness.rs"]
mod harness;

#[test]
fn no_answer_showing_one_definition_changes_what_it_does_not_show() {
    let Some(corpus) = common::corpus() else { return };
    let mut report = harness::Report::default();
    for (project, repo) in harness::projects(&corpus) {
        if ["psf__requests", "pallets__flask"].contains(&project.as_str()) {
            harness::run(&project, &repo, 16, &mut report);
        }
    }
    let answers: usize = report.counts.values().map(|c| c.answers).sum();
    let wrong: usize = report.counts.values().map(|c| c.wrong).sum();
    assert!(answers > 2000, "the corpus gave {answers} answers");
    assert_eq!(wrong, 0, "wrong applications:\n{}", report.problems.join("\n"));
    assert!(report.problems.is_empty(), "unambiguous answers refused:\n{}", report.problems.join("\n"));
    eprintln!("partial answers: {answers} answers, none wrong, none unambiguous refused");
}
