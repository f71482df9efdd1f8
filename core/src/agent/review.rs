//! Review and validate: judge a patch by execution, with the reproducer written before the search and a reviewer.
//!
//! For at most [`AgentConfig::review_rounds`] rounds (with the reproducer as the judge,
//! [`AgentConfig::execution_samples`]): run the reproducer on the patched program and ask the reviewer
//! (JSON) whether the patch and the test are right. An answer that cannot be read is asked again, up to
//! [`REVIEW_RETRIES`] times, then the review is given up (nothing is rewritten on a parsing accident). Then, as
//! AutoCodeRover does:
//!
//! - test judged wrong → the test writer rewrites the reproducer with the reviewer's advice;
//! - patch and test judged right → validation: the reproducer must pass on the patched program, and the
//!   repository's own tests that touch the changed files must not regress ([`super::regression`]); a failed
//!   validation goes back to the patch writer as feedback;
//! - patch judged wrong → the patch writer rewrites it with the reviewer's advice.
//!
//! With [`Judge::Execution`] no reviewer is asked: each patch goes straight to validation, and a failed validation
//! asks the patch writer for a new sample (the opening request again, in a new conversation) rather than a revision
//! ([`PatchWriter::sample_again`]); the reproducer is never rewritten to suit a patch. A patch that passes is then
//! trimmed to the changes the reproducer and the tests need ([`super::trim`]). When no sample of a try passes the
//! model's reproducer and some passed the issue's own examples, the examples judge the last of those
//! (`judged_by_the_examples`).
//!
//! [`AgentConfig::review_rounds`]: super::AgentConfig::review_rounds
//! [`AgentConfig::execution_samples`]: super::AgentConfig::execution_samples

use super::patch_writer::PatchWriter;
use super::reproduce::{self, Check, Origin, Reproduction};
use super::search_loop::Found;
use super::validation::{Validation, validate};
use super::{Agent, AgentError, Event, Judge, Phase, RunPurpose};
use crate::answers::{self, ReviewVerdict};
use crate::llm::Llm;
use crate::patch::Extraction;
use crate::prompt::Prompt;
use crate::runner::{RunOutcome, Runner};

/// How many times an unreadable review is asked again before the review is given up.
pub const REVIEW_RETRIES: usize = 5;

/// What the review made of the patch.
#[derive(Debug, Clone)]
pub struct Reviewed {
    /// The final patch.
    pub extraction: Extraction,
    /// Whether validation by execution passed.
    pub validated: bool,
    /// Whether the reviewer judged this patch (and the test) right.
    pub approved: bool,
}

/// Runs the review rounds on an applicable patch.
pub async fn run<L: Llm, R: Runner>(
    agent: &mut Agent<L, R>,
    issue: &str,
    found: &Found,
    writer: &mut PatchWriter,
    mut patch: Extraction,
    reproduction: &Reproduction,
) -> Result<Reviewed, AgentError> {
    agent.emit(Event::Phase { name: Phase::Review });
    if agent.config.judge == Judge::Execution {
        agent.note(
            "the reproducer judges each patch (judge: execution): a patch it passes on is validated, and one it still \
             fails on is followed by a new patch asked for afresh; the model is not asked to review",
        );
    }
    let mut test = reproduction.test.clone();
    let mut check = reproduction.check.clone();
    let mut before = reproduction.before.clone();
    let mut test_conversation = reproduction.conversation.clone();
    let mut approved = false;
    // With the reproducer as the judge: the last patch it failed on that passed the issue's own examples.
    let mut vouched: Option<(Extraction, RunOutcome)> = None;
    let rounds = match agent.config.judge {
        Judge::Reviewer => agent.config.review_rounds,
        Judge::Execution => agent.config.execution_samples,
    }
    .max(1);
    for round in 1..=rounds {
        let Some(after) =
            agent.execute(RunPurpose::ReproducerOnPatch, &patch.diff, &check.file_refs(), &check.command).await?
        else {
            return Ok(Reviewed { extraction: patch, validated: false, approved });
        };
        writer.ran(&patch.diff, &after);
        let last = round == rounds;
        // The reviewer's verdict; with the reproducer as the judge there is none, and validation alone decides.
        let verdict = match agent.config.judge {
            Judge::Execution => None,
            Judge::Reviewer => {
                let prompt = Prompt::Review {
                    issue,
                    test: &test,
                    language: reproduction.language,
                    before: &before,
                    patch: &patch.diff,
                    after: &after,
                };
                let Some(verdict) = ask_reviewer(agent, &prompt).await? else {
                    agent.note(format!(
                        "the reviewer's answer could not be read after {} tries; the review is given up and the patch \
                         kept",
                        REVIEW_RETRIES + 1
                    ));
                    return Ok(Reviewed { extraction: patch, validated: false, approved });
                };
                emit_review(agent, round, &verdict);
                Some(verdict)
            }
        };
        if let Some(verdict) = &verdict {
            // The repository's own tests and the issue's example are not rewritten: a reviewer who doubts them is
            // noted, and the patch judged.
            let test_correct = verdict.test_correct || !reproduction.origin.rewritable();
            if !verdict.test_correct && !reproduction.origin.rewritable() {
                agent.note(match reproduction.origin {
                    Origin::IssueExample => {
                        "the reviewer judged the reproducer wrong; it asserts the issue's own example, and is kept"
                    }
                    _ => "the reviewer judged the repository's own tests wrong; they are kept as they are",
                });
            }
            approved = verdict.patch_correct && test_correct;
            if !test_correct {
                if last {
                    break;
                }
                let feedback = Prompt::ReproducerFeedback {
                    analysis: &verdict.test_analysis,
                    advice: &verdict.test_advice,
                    language: reproduction.language,
                };
                match reproduce::write(agent, issue, &mut test_conversation, Some(feedback)).await? {
                    Some((t, b)) => {
                        check = Check::written(reproduction.language, &t);
                        (test, before) = (t, b);
                    }
                    None => {
                        agent.note("no rewritten reproducer showed the bug; the patch is kept without validation");
                        return Ok(Reviewed { extraction: patch, validated: false, approved: false });
                    }
                }
                if verdict.patch_correct {
                    // The patch was judged right by a wrong test: judge it again with the new one.
                    continue;
                }
            }
        }
        let reviewed = verdict.is_some();
        if approved || !reviewed {
            match validate(agent, &patch, &after, reproduction).await? {
                Validation::Passed if agent.config.judge == Judge::Execution => {
                    let trimmed = super::trim::trim(agent, patch, &after, &check, reproduction).await?;
                    return Ok(Reviewed { extraction: trimmed, validated: true, approved });
                }
                Validation::Passed => return Ok(Reviewed { extraction: patch, validated: true, approved }),
                Validation::Failed(message) if !last && reviewed => writer.validation_feedback(&message),
                Validation::Failed(_) => {
                    if !after.passed()
                        && let Some(run) = examples_pass(agent, &patch, reproduction).await?
                    {
                        vouched = Some((patch.clone(), run));
                    }
                    if last {
                        break;
                    }
                    agent.note(
                        "the reproducer still fails on the patch; the opening request is asked again, in a new \
                         conversation, for a new fix",
                    );
                    writer.sample_again();
                }
            }
        } else if let Some(verdict) = verdict.filter(|v| !v.patch_correct) {
            if last {
                break;
            }
            writer.review_feedback(&verdict.patch_analysis, &verdict.patch_advice);
        }
        let revised = writer.write(agent, issue, found).await?;
        if revised.status.is_applicable() {
            patch = revised;
            approved = false;
        }
    }
    if let Some((vouched, run)) = vouched
        && let Some(reviewed) = judged_by_the_examples(agent, vouched, &run, reproduction).await?
    {
        return Ok(reviewed);
    }
    agent.note(match agent.config.judge {
        Judge::Reviewer => "the review rounds ran out; keeping the last applicable patch",
        Judge::Execution => "the samples of this try ran out; keeping the last applicable patch",
    });
    Ok(Reviewed { extraction: patch, validated: false, approved })
}

/// The run of the issue's own examples on a patch the model's reproducer failed on, when the reproduction has them
/// as a second check and they pass.
async fn examples_pass<L: Llm, R: Runner>(
    agent: &mut Agent<L, R>,
    patch: &Extraction,
    reproduction: &Reproduction,
) -> Result<Option<RunOutcome>, AgentError> {
    let Some(examples) = reproduction.example.as_ref().filter(|_| agent.config.judge == Judge::Execution) else {
        return Ok(None);
    };
    let run = agent.execute(RunPurpose::ExampleOnPatch, &patch.diff, &examples.file_refs(), &examples.command).await?;
    Ok(run.filter(RunOutcome::passed).inspect(|_| {
        agent.note(
            "the model's reproducer fails on this patch, and the issue's own examples pass on it; if no patch of this \
             try passes the reproducer, the examples judge",
        );
    }))
}

/// A try whose samples all failed the model's reproducer, and of which some passed the issue's own examples: the
/// reproducer's assertions are in doubt, and the issue's examples judge the last such patch (validated when no test
/// of the repository regresses, then trimmed to what the examples need). AutoCodeRover has no such rule: its reviewer
/// may judge a test wrong and have it rewritten, which a small model's reviews cannot be trusted to do (see
/// [`Judge::Execution`]). Qwen2.5-Coder-1.5B's reproducer for QuixBugs' sieve asserted `sieve(6) == [2, 3, 5, 7]`,
/// and every right fix it wrote was refused.
async fn judged_by_the_examples<L: Llm, R: Runner>(
    agent: &mut Agent<L, R>,
    patch: Extraction,
    run: &RunOutcome,
    reproduction: &Reproduction,
) -> Result<Option<Reviewed>, AgentError> {
    let Some(examples) = reproduction.example.clone() else { return Ok(None) };
    let by_the_examples = Reproduction {
        test: String::new(),
        check: examples.clone(),
        // The model's reproducer's run on the original program: the examples' own is not kept, and validation and
        // trimming read the runs on the patch alone.
        before: reproduction.before.clone(),
        conversation: Vec::new(),
        origin: Origin::IssueExample,
        example: None,
        language: reproduction.language,
    };
    match validate(agent, &patch, run, &by_the_examples).await? {
        Validation::Passed => {
            agent.note(
                "no patch of this try passed the model's reproducer; the last that passed the issue's own examples is \
                 validated by them, the reproducer's assertions being in doubt",
            );
            let trimmed = super::trim::trim(agent, patch, run, &examples, &by_the_examples).await?;
            Ok(Some(Reviewed { extraction: trimmed, validated: true, approved: false }))
        }
        Validation::Failed(_) => Ok(None),
    }
}

/// Asks the reviewer, and again (in the same conversation) while its answer cannot be read.
async fn ask_reviewer<L: Llm, R: Runner>(
    agent: &mut Agent<L, R>,
    prompt: &Prompt<'_>,
) -> Result<Option<ReviewVerdict>, AgentError> {
    let mut conversation = Vec::new();
    let answer = agent.converse(&mut conversation, prompt).await?;
    if let Some(verdict) = answers::review(&answer) {
        return Ok(Some(verdict));
    }
    for _ in 0..REVIEW_RETRIES {
        let answer = agent.converse(&mut conversation, &Prompt::ReviewRetry).await?;
        if let Some(verdict) = answers::review(&answer) {
            return Ok(Some(verdict));
        }
    }
    Ok(None)
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
