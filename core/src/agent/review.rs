//! Reproduce and review: judge a patch by execution, with a reproducer test and a reviewer.
//!
//! 1. Ask whether the issue has a reproducible example; if not, keep the patch as it is.
//! 2. Get a standalone `reproducer.py` that fails with an `AssertionError` on the original program (checked by
//!    running it; retried with the output as feedback).
//! 3. For at most [`AgentConfig::review_rounds`] rounds: run the reproducer on the patched program, ask the reviewer
//!    (JSON) whether the patch and the test are right, and send its analysis and advice to the patch writer or the
//!    test writer.
//!
//! [`AgentConfig::review_rounds`]: super::AgentConfig::review_rounds

use super::patch_writer::PatchWriter;
use super::search_loop::Found;
use super::{Agent, AgentError, Event, Phase, RunPurpose};
use crate::answers::{self, ReviewVerdict};
use crate::llm::{Llm, Message};
use crate::patch::Extraction;
use crate::prompt::Prompt;
use crate::runner::{RunOutcome, Runner};

/// The file name and command of the reproducer.
pub const REPRODUCER: &str = "reproducer.py";
/// The command that runs the reproducer.
pub const COMMAND: &str = "python3 reproducer.py";

/// Runs the loop; returns the final extraction and whether execution confirmed it.
pub async fn run<L: Llm, R: Runner>(
    agent: &mut Agent<L, R>,
    issue: &str,
    found: &Found,
    writer: &mut PatchWriter,
    mut patch: Extraction,
) -> Result<(Extraction, bool), AgentError> {
    agent.emit(Event::Phase { name: Phase::Review });
    let answer = agent.ask(&Prompt::Reproducible { issue }).await?;
    if answers::yes_no(&answer, "reproducible") != Some(true) {
        agent.note("the issue has no reproducible example; the patch is kept without execution review");
        return Ok((patch, false));
    }

    let mut test_messages = Vec::new();
    let Some((mut test, mut before)) = write_reproducer(agent, issue, &mut test_messages, None).await? else {
        agent.note("no reproducer showed the bug; the patch is kept without execution review");
        return Ok((patch, false));
    };

    for round in 1..=agent.config.review_rounds {
        let Some(after) =
            agent.execute(RunPurpose::ReproducerOnPatch, &patch.diff, &[(REPRODUCER, &test)], COMMAND).await?
        else {
            return Ok((patch, false));
        };
        let prompt = Prompt::Review { issue, test: &test, before: &before, patch: &patch.diff, after: &after };
        let answer = agent.ask(&prompt).await?;
        let verdict = answers::review(&answer).unwrap_or_default();
        emit_review(agent, round, &verdict);
        if verdict.patch_correct && verdict.test_correct {
            return Ok((patch, after.passed()));
        }
        if round == agent.config.review_rounds {
            break;
        }
        if !verdict.test_correct {
            let feedback =
                Prompt::ReproducerFeedback { analysis: &verdict.test_analysis, advice: &verdict.test_advice };
            match write_reproducer(agent, issue, &mut test_messages, Some(feedback)).await? {
                Some((t, b)) => (test, before) = (t, b),
                None => return Ok((patch, false)),
            }
        }
        if !verdict.patch_correct {
            writer.review_feedback(&verdict.patch_analysis, &verdict.patch_advice);
            let revised = writer.write(agent, issue, found).await?;
            if revised.status.is_applicable() {
                patch = revised;
            }
        }
    }
    agent.note("the review rounds ran out; keeping the last applicable patch");
    Ok((patch, false))
}

fn emit_review<L: Llm, R: Runner>(agent: &mut Agent<L, R>, round: usize, verdict: &ReviewVerdict) {
    agent.emit(Event::Review {
        round,
        patch_correct: verdict.patch_correct,
        test_correct: verdict.test_correct,
        patch_analysis: verdict.patch_analysis.clone(),
        patch_advice: verdict.patch_advice.clone(),
        test_advice: verdict.test_advice.clone(),
    });
}

/// Asks for a reproducer until one fails with an `AssertionError` on the original program. The conversation starts
/// with the reproducer request, or continues with `feedback` from a reviewer.
pub(super) async fn write_reproducer<L: Llm, R: Runner>(
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
            (None, None) if no_script => Prompt::ReproducerNoScript,
            (None, None) if messages.is_empty() => Prompt::Reproducer { issue },
            (None, None) => Prompt::ReproducerNoScript,
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
