//! Validation of a patch by execution: the reproducer passes on it, and no test of the repository that touches the
//! changed files regresses. Review ([`super::review`]) validates each patch it accepts, and trimming
//! ([`super::trim`]) each patch with some of its changes undone.

use super::regression;
use super::reproduce::Reproduction;
use super::{Agent, AgentError, RunPurpose};
use crate::language::Language;
use crate::llm::Llm;
use crate::patch::Extraction;
use crate::runner::{RunOutcome, Runner};

/// Why validation failed, in words for the patch writer.
pub(super) enum Validation {
    Passed,
    Failed(String),
}

/// Validation of a patch: the reproducer passes on it (`after`), so do the issue's own examples when the
/// reproduction has it as a second check, and no test of the repository that touches the changed files regresses.
pub(super) async fn validate<L: Llm, R: Runner>(
    agent: &mut Agent<L, R>,
    patch: &Extraction,
    after: &RunOutcome,
    reproduction: &Reproduction,
) -> Result<Validation, AgentError> {
    if !after.passed() {
        let exit = crate::prompt::text::exit_status(after);
        return Ok(Validation::Failed(format!(
            "The reproducer still fails on the patched program ({exit}):\n{}",
            crate::prompt::text::tail(&after.stderr, 2000)
        )));
    }
    if let Some(example) = &reproduction.example {
        let files = example.file_refs();
        let Some(run) = agent.execute(RunPurpose::ExampleOnPatch, &patch.diff, &files, &example.command).await? else {
            return Ok(Validation::Passed);
        };
        if !run.passed() {
            let exit = crate::prompt::text::exit_status(&run);
            return Ok(Validation::Failed(format!(
                "The reproducer passes on the patched program, but the issue's own examples still fail on it \
                 ({exit}):\n{}",
                crate::prompt::text::tail(&run.stderr, 2000)
            )));
        }
    }
    // The repository's own tests already ran whole as the reproducer: nothing more to check.
    if !reproduction.origin.needs_regression_check() {
        return Ok(Validation::Passed);
    }
    // Each language with a regression runner checks the changed files of its own.
    for row in Language::ALL.iter().map(|l| l.row()) {
        let Some(runner) = &row.regression else { continue };
        let tests = regression::tests_touching(&agent.repo, row, patch.files.keys().map(String::as_str));
        if tests.is_empty() {
            continue;
        }
        let command = regression::command(runner, &tests);
        let files: Vec<(&str, &str)> =
            std::iter::once((runner.file, runner.source)).chain(runner.with.iter().copied()).collect();
        let Some(original) = agent.execute(RunPurpose::TestsOnOriginal, "", &files, &command).await? else {
            return Ok(Validation::Passed);
        };
        let Some(patched) = agent.execute(RunPurpose::TestsOnPatch, &patch.diff, &files, &command).await? else {
            return Ok(Validation::Passed);
        };
        let broken = regression::regressions(&original, &patched);
        if broken.is_empty() {
            continue;
        }
        let failing: Vec<&str> = patched
            .stdout
            .lines()
            .filter(|l| l.starts_with("FAIL") && broken.iter().any(|b| l.contains(b.as_str())))
            .collect();
        return Ok(Validation::Failed(format!(
            "The reproducer passes, but tests of the repository that passed before now fail:\n{}",
            failing.join("\n")
        )));
    }
    Ok(Validation::Passed)
}
