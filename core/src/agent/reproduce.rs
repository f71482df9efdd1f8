//! Reproduce first: before the search, when a runner is available, ask whether the issue has a runnable example,
//! get a standalone `reproducer.py` that fails with an `AssertionError` on the original program, and keep what it
//! printed. Its standard error (the stack trace) goes into the first search request as a clue; the script validates
//! patches later (the reviewer's runs, MCTS rewards).
//!
//! What the reproducer is, how it is asked for and how it runs is the repository's language's row
//! ([`crate::language::Reproducer`]). A language whose row runs the repository's own tests first (Java, by
//! [`crate::language::junit`]) is reproduced by them: the tests that fail on the original program are the bug, as in APR-MCTS,
//! and no test is written. When they all pass, the model is asked for a test (Java: a JUnit class,
//! `AcrReproducerTest.java`) that fails, run with them by the same harness.

use super::{Agent, AgentError, Event, Phase, RunPurpose};
use crate::answers;
use crate::language::{Language, ProjectTests};
use crate::llm::{Llm, Message};
use crate::prompt::Prompt;
use crate::runner::{RunOutcome, Runner};

/// How a reproducer runs: the files it adds to the repository and the command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// Files written into the run's folder beside the repository's (path, text).
    pub files: Vec<(String, String)>,
    /// The command line.
    pub command: String,
}

impl Check {
    /// The language's harness alone: the repository's own tests, as its row runs them.
    pub fn project_tests(language: Language) -> Check {
        let reproducer = &language.row().reproducer;
        let files = reproducer.harness.iter().map(|(p, t)| (p.to_string(), t.to_string())).collect();
        Check { files, command: reproducer.command.to_string() }
    }

    /// A reproducer the model wrote, in the repository's language: saved as its row says (`reproducer.py`, or a
    /// JUnit test class run with the repository's tests by the Java harness) beside the row's harness.
    pub fn written(language: Language, test: &str) -> Check {
        let mut check = Check::project_tests(language);
        check.files.push((language.row().reproducer.file.to_string(), test.to_string()));
        check
    }

    /// The files as the runner takes them.
    pub fn file_refs(&self) -> Vec<(&str, &str)> {
        self.files.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect()
    }
}

/// A reproducer that shows the bug, and its run on the original program.
#[derive(Debug, Clone)]
pub struct Reproduction {
    /// The script, or the source of the repository's failing tests: what a reviewer reads.
    pub test: String,
    /// The language `test` is written in.
    pub language: Language,
    /// Its run on the original program (fails with an `AssertionError`, or with failing tests).
    pub before: RunOutcome,
    /// The conversation that wrote it, so a reviewer's advice can continue it (empty for the repository's tests).
    pub conversation: Vec<Message>,
    /// How it runs.
    pub check: Check,
    /// Whether the model wrote it (and may rewrite it on a reviewer's advice) rather than it being the repository's
    /// own tests.
    pub written: bool,
}

impl Reproduction {
    /// What the reproducer printed to standard error on the original program: the clue for the search.
    pub fn trace(&self) -> &str {
        &self.before.stderr
    }
}

/// Writes and runs a reproducer, when a runner is configured. With `ask_first`, the model is first asked whether the
/// issue has a reproducible example at all. `None` when there is no runner, no example, or no script showed the bug.
pub async fn run<L: Llm, R: Runner>(
    agent: &mut Agent<L, R>,
    issue: &str,
    ask_first: bool,
) -> Result<Option<Reproduction>, AgentError> {
    if agent.runner.is_none() {
        return Ok(None);
    }
    agent.emit(Event::Phase { name: Phase::Reproduce });
    let language = agent.repo.language();
    if let Some(tests) = &language.row().reproducer.project_tests {
        match project_tests(agent, language, tests).await? {
            Tests::Fail(reproduction) => return Ok(Some(*reproduction)),
            Tests::Broken => return Ok(None),
            Tests::Pass => {}
        }
    }
    if ask_first {
        let answer = agent.ask(&Prompt::Reproducible { issue }).await?;
        if answers::yes_no(&answer, "reproducible") != Some(true) {
            agent.note("the issue has no reproducible example; the patch will not be reviewed by execution");
            return Ok(None);
        }
    }
    let mut conversation = Vec::new();
    match write(agent, issue, &mut conversation, None).await? {
        Some((test, before)) => Ok(Some(Reproduction {
            check: Check::written(language, &test),
            test,
            language,
            before,
            conversation,
            written: true,
        })),
        None => {
            agent.note("no reproducer showed the bug; the patch will not be validated by execution");
            Ok(None)
        }
    }
}

/// What the repository's own tests say on the original program.
enum Tests {
    /// Some fail: they reproduce the issue.
    Fail(Box<Reproduction>),
    /// All pass (or there are none): a test of the model's is needed.
    Pass,
    /// They could not be run (the code does not compile, no runner): nothing will be validated by execution.
    Broken,
}

/// Runs the repository's own tests on the original program, as the language's row does: a reproduction when some
/// fail, else a note saying why not.
async fn project_tests<L: Llm, R: Runner>(
    agent: &mut Agent<L, R>,
    language: Language,
    tests: &ProjectTests,
) -> Result<Tests, AgentError> {
    let check = Check::project_tests(language);
    let Some(before) =
        agent.execute(super::RunPurpose::ReproducerOnOriginal, "", &check.file_refs(), &check.command).await?
    else {
        return Ok(Tests::Broken);
    };
    if before.reproduces_bug() {
        let files: Vec<(&str, &str)> = agent.repo.files().collect();
        let test = (tests.failing_source)(&files, &before);
        let failing = (tests.failures)(&before).len();
        agent.note(format!(
            "{failing} of the repository's tests fail on the original program: they reproduce the issue and validate \
             patches"
        ));
        return Ok(Tests::Fail(Box::new(Reproduction {
            test,
            language,
            before,
            conversation: Vec::new(),
            check,
            written: false,
        })));
    }
    if before.passed() {
        agent.note(
            "every test of the repository passes on the original program; a test that shows the bug is asked for",
        );
        return Ok(Tests::Pass);
    }
    let why = match before.exit_code {
        Some(2) => format!(
            "the repository does not compile with its tests:\n{}",
            crate::prompt::text::tail(&before.stderr, 1500)
        ),
        _ => format!("the repository's tests could not be run: {}", before.error_line()),
    };
    agent.note(format!("{why}; patches will not be validated by execution"));
    Ok(Tests::Broken)
}

/// Asks for a reproducer until one fails with an `AssertionError` on the original program. The conversation starts
/// with the reproducer request, or continues with `feedback` from a reviewer.
pub(super) async fn write<L: Llm, R: Runner>(
    agent: &mut Agent<L, R>,
    issue: &str,
    messages: &mut Vec<Message>,
    feedback: Option<Prompt<'_>>,
) -> Result<Option<(String, RunOutcome)>, AgentError> {
    let language = agent.repo.language();
    let mut failed: Option<RunOutcome> = None;
    let mut no_script = false;
    let mut feedback = feedback;
    for _ in 0..agent.config.reproducer_attempts.max(1) {
        let prompt = match (&failed, feedback.take()) {
            (_, Some(f)) => f,
            (Some(outcome), None) => Prompt::ReproducerFailed { outcome, language },
            (None, None) if no_script || !messages.is_empty() => Prompt::ReproducerNoScript { language },
            (None, None) => Prompt::Reproducer { issue, language },
        };
        let answer = agent.converse(messages, &prompt).await?;
        failed = None;
        let Some(script) = answers::code_block(&answer, language) else {
            no_script = true;
            continue;
        };
        no_script = false;
        let check = Check::written(language, &script);
        let Some(outcome) =
            agent.execute(RunPurpose::ReproducerOnOriginal, "", &check.file_refs(), &check.command).await?
        else {
            return Ok(None);
        };
        if outcome.reproduces_bug() {
            return Ok(Some((script, outcome)));
        }
        failed = Some(outcome);
    }
    Ok(None)
}
