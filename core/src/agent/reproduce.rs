//! Reproduce first: before the search, when a runner is available, ask whether the issue has a runnable example,
//! get a standalone `reproducer.py` that fails with an `AssertionError` on the original program, and keep what it
//! printed. Its standard error (the stack trace) goes into the first search request as a clue; the script validates
//! patches later (the reviewer's runs, MCTS rewards).

use super::{Agent, AgentError, Event, Phase, RunPurpose};
use crate::answers;
use crate::llm::{Llm, Message};
use crate::prompt::Prompt;
use crate::runner::{RunOutcome, Runner};

/// The file name of the reproducer.
pub const REPRODUCER: &str = "reproducer.py";
/// The command that runs the reproducer.
pub const COMMAND: &str = "python3 reproducer.py";

/// A reproducer that shows the bug, and its run on the original program.
#[derive(Debug, Clone)]
pub struct Reproduction {
    /// The script.
    pub test: String,
    /// Its run on the original program (fails with an `AssertionError`).
    pub before: RunOutcome,
    /// The conversation that wrote it, so a reviewer's advice can continue it.
    pub conversation: Vec<Message>,
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
    if ask_first {
        let answer = agent.ask(&Prompt::Reproducible { issue }).await?;
        if answers::yes_no(&answer, "reproducible") != Some(true) {
            agent.note("the issue has no reproducible example; the patch will not be reviewed by execution");
            return Ok(None);
        }
    }
    let mut conversation = Vec::new();
    match write(agent, issue, &mut conversation, None).await? {
        Some((test, before)) => Ok(Some(Reproduction { test, before, conversation })),
        None => {
            agent.note("no reproducer showed the bug; the patch will not be validated by execution");
            Ok(None)
        }
    }
}

/// Asks for a reproducer until one fails with an `AssertionError` on the original program. The conversation starts
/// with the reproducer request, or continues with `feedback` from a reviewer.
pub(super) async fn write<L: Llm, R: Runner>(
    agent: &mut Agent<L, R>,
    issue: &str,
    messages: &mut Vec<Message>,
    feedback: Option<Prompt<'_>>,
) -> Result<Option<(String, RunOutcome)>, AgentError> {
    let mut failed: Option<RunOutcome> = None;
    let mut no_script = false;
    let mut feedback = feedback;
    for _ in 0..agent.config.reproducer_attempts.max(1) {
        let prompt = match (&failed, feedback.take()) {
            (_, Some(f)) => f,
            (Some(outcome), None) => Prompt::ReproducerFailed { outcome },
            (None, None) if no_script || !messages.is_empty() => Prompt::ReproducerNoScript,
            (None, None) => Prompt::Reproducer { issue },
        };
        let answer = agent.converse(messages, &prompt).await?;
        failed = None;
        let Some(script) = answers::code_block(&answer) else {
            no_script = true;
            continue;
        };
        no_script = false;
        let Some(outcome) =
            agent.execute(RunPurpose::ReproducerOnOriginal, "", &[(REPRODUCER, &script)], COMMAND).await?
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
