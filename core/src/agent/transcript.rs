//! What happened during a run, as data: every model call, search call, proxy result, location, patch, execution,
//! review and MCTS step, in order. The playground renders it live; `acr run` writes it to a folder.

use std::fmt;

use serde::Serialize;

use crate::call::SearchCall;
use crate::llm::{Cut, Stage, ToolCall, Usage};
use crate::locate::{BugLocation, Query};
use crate::patch::ExtractStatus;
use crate::prompt::PromptKind;
use crate::runner::RunOutcome;
use crate::search::SearchHit;

/// A phase of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Context retrieval: search calls until bug locations resolve.
    Search,
    /// Writing a patch (with retries).
    Patch,
    /// Reproduce and review.
    Review,
    /// APR-MCTS tree search.
    Mcts,
    /// Writing and running a reproducer before the search.
    Reproduce,
    /// Choosing one patch among the workflow's tries.
    Select,
}

impl Phase {
    /// The heading a person reads.
    pub fn title(self) -> &'static str {
        match self {
            Phase::Search => "Searching the code",
            Phase::Patch => "Writing a patch",
            Phase::Review => "Reproducing and reviewing",
            Phase::Mcts => "Tree search over patches (MCTS)",
            Phase::Reproduce => "Reproducing the issue",
            Phase::Select => "Choosing among the tries' patches",
        }
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Phase::Search => "search",
            Phase::Patch => "patch",
            Phase::Review => "review",
            Phase::Mcts => "mcts",
            Phase::Reproduce => "reproduce",
            Phase::Select => "select",
        })
    }
}

/// Who turned a search answer into calls and locations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReadBy {
    /// The deterministic reader, trusted for this answer.
    Deterministic,
    /// The proxy model.
    Model,
    /// The model's tool calls (no reading needed).
    Tools,
}

impl fmt::Display for ReadBy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ReadBy::Deterministic => "deterministic",
            ReadBy::Model => "model",
            ReadBy::Tools => "tools",
        })
    }
}

/// Why a command was run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum RunPurpose {
    /// The reproducer on the original program (it must show the bug).
    #[serde(rename = "reproducer on original")]
    ReproducerOnOriginal,
    /// The reproducer on the patched program (for the reviewer).
    #[serde(rename = "reproducer on patch")]
    ReproducerOnPatch,
    /// The reproducer on a validated patch with some of its changes undone ([`super::trim`]).
    #[serde(rename = "reproducer on a trimmed patch")]
    ReproducerOnTrimmed,
    /// A candidate's validation.
    #[serde(rename = "validation")]
    Validation,
    /// The issue's own examples, as a script, on the original program ([`crate::issue_example`]).
    #[serde(rename = "issue example on original")]
    ExampleOnOriginal,
    /// The issue's own examples on a patch the reproducer passes on.
    #[serde(rename = "issue example on patch")]
    ExampleOnPatch,
    /// The repository's tests that touch the changed files, on the original program.
    #[serde(rename = "tests on original")]
    TestsOnOriginal,
    /// The same tests on the patched program.
    #[serde(rename = "tests on patch")]
    TestsOnPatch,
}

impl RunPurpose {
    /// The purpose in words, as the transcript writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            RunPurpose::ReproducerOnOriginal => "reproducer on original",
            RunPurpose::ReproducerOnPatch => "reproducer on patch",
            RunPurpose::ReproducerOnTrimmed => "reproducer on a trimmed patch",
            RunPurpose::Validation => "validation",
            RunPurpose::ExampleOnOriginal => "issue example on original",
            RunPurpose::ExampleOnPatch => "issue example on patch",
            RunPurpose::TestsOnOriginal => "tests on original",
            RunPurpose::TestsOnPatch => "tests on patch",
        }
    }
}

impl fmt::Display for RunPurpose {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What validation made of an MCTS candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The reproducer passed on the patched program.
    Pass,
    /// The reproducer still fails with an assertion.
    Fail,
    /// The candidate crashed, timed out or does not compile.
    Error,
    /// No execution: the model rated it.
    Rated,
}

impl Verdict {
    /// What a run of the reproducer on a candidate says: passed, failed the same assertion way, or crashed.
    pub fn of(run: &RunOutcome) -> Verdict {
        if run.passed() {
            Verdict::Pass
        } else if run.reproduces_bug() {
            Verdict::Fail
        } else {
            Verdict::Error
        }
    }

    /// The lowercase name (`pass`, `fail`, `error`, `rated`).
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "fail",
            Verdict::Error => "error",
            Verdict::Rated => "rated",
        }
    }
}

/// One step of a run.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// A phase began.
    Phase {
        /// Which.
        name: Phase,
    },
    /// A model call.
    Model {
        /// What was asked.
        stage: Stage,
        /// The kind of request.
        kind: PromptKind,
        /// The last message sent (the new part of the prompt).
        prompt: String,
        /// Messages in the conversation sent.
        messages: usize,
        /// The answer.
        answer: String,
        /// The model's thinking, kept apart from the answer and never parsed, if any.
        #[serde(skip_serializing_if = "Option::is_none")]
        reasoning: Option<String>,
        /// Functions the model called, when it was offered tools.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
        /// Tokens.
        usage: Usage,
        /// The server sent no token counts: `usage` is estimated.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        usage_estimated: bool,
        /// The request carried the JSON schema of its answer and the server did not refuse it: a server that holds
        /// a model to a schema (llama.cpp, vLLM, OpenAI, LM Studio, Ollama from 0.5) wrote no other answer.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        constrained: bool,
        /// Wall-clock milliseconds.
        ms: f64,
        /// The answer ended before the model finished it (what arrived is `answer`), or the call failed.
        #[serde(skip_serializing_if = "Option::is_none")]
        cut: Option<Cut>,
    },
    /// The proxy turned an answer into calls and locations.
    Proxy {
        /// Search round (1-based).
        round: usize,
        /// Who read the answer.
        source: ReadBy,
        /// The calls (written out as Python calls in the transcript).
        #[serde(serialize_with = "as_text::list")]
        calls: Vec<SearchCall>,
        /// The locations asked for.
        locations: Vec<Query>,
        /// Problems that forced a retry or made the answer unusable.
        problems: Vec<String>,
        /// What the reader noticed or put right (names read as another API, arguments put back in order).
        notes: Vec<String>,
    },
    /// A search API call and its result.
    Search {
        /// Search round (1-based).
        round: usize,
        /// The call (written out as a Python call in the transcript).
        #[serde(serialize_with = "as_text::one")]
        call: SearchCall,
        /// What the model read.
        output: String,
        /// Whether it found anything.
        ok: bool,
        /// The code units found.
        results: Vec<SearchHit>,
    },
    /// Bug locations were resolved.
    Locations {
        /// Search round (1-based).
        round: usize,
        /// Locations found (deduplicated).
        found: Vec<BugLocation>,
        /// Why the others were not found.
        not_found: Vec<String>,
    },
    /// A patch attempt.
    Patch {
        /// 1-based attempt.
        attempt: usize,
        /// Extraction status.
        status: ExtractStatus,
        /// The diff (empty when nothing applied).
        diff: String,
        /// Why it is not applicable, for the model.
        reason: String,
        /// One line per edit.
        edits: Vec<String>,
    },
    /// A command executed by the runner.
    Run {
        /// Why it was run.
        purpose: RunPurpose,
        /// The outcome.
        outcome: RunOutcome,
    },
    /// The reviewer's verdict.
    Review {
        /// 1-based review round.
        round: usize,
        /// Whether the reviewer accepts the patch.
        patch_correct: bool,
        /// Whether the reviewer accepts the test.
        test_correct: bool,
        /// The reviewer's analysis of the patch.
        patch_analysis: String,
        /// Advice for the patch writer.
        patch_advice: String,
        /// Advice for the test writer.
        test_advice: String,
    },
    /// An MCTS iteration: which node was expanded and what it produced.
    Mcts {
        /// 1-based iteration.
        iteration: usize,
        /// The node expanded.
        node: usize,
        /// Children created: (node id, reward).
        children: Vec<(usize, f64)>,
        /// The tree after back-propagation.
        tree: Vec<TreeNode>,
    },
    /// A whole-workflow try began (search, patch, review or tree search, in a new conversation).
    Try {
        /// 1-based try.
        number: usize,
        /// The most tries the run may make.
        of: usize,
    },
    /// The code shown to the patch writer: each bug location and each piece of context, and why.
    Shown {
        /// The units, locations first.
        units: Vec<ShownUnit>,
    },
    /// One patch was chosen among the tries.
    Selection {
        /// The chosen try (`None` when no try produced an applicable patch).
        chosen: Option<usize>,
        /// Why.
        reason: String,
        /// Tries made.
        tries: usize,
    },
    /// Something worth telling the user.
    Note {
        /// The text.
        text: String,
    },
}

/// A unit of code shown to the patch writer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ShownUnit {
    /// Relative path.
    pub file: String,
    /// Class, if any.
    pub class: Option<String>,
    /// Method or function, if any.
    pub method: Option<String>,
    /// First line.
    pub start: u32,
    /// Last line.
    pub end: u32,
    /// Why it is shown (`bug location #1`, `the whole class of location #1`, ...).
    pub why: String,
}

/// A node of the MCTS tree as shown to users.
#[derive(Debug, Clone, Serialize)]
pub struct TreeNode {
    /// Id (0 is the root).
    pub id: usize,
    /// Parent id.
    pub parent: Option<usize>,
    /// Visits.
    pub visits: u32,
    /// Value.
    pub value: f64,
    /// The candidate's diff.
    pub diff: String,
    /// The model's reflection.
    pub reflection: String,
    /// Validation verdict (`None` for the root, written as `""`).
    #[serde(serialize_with = "as_text::verdict")]
    pub verdict: Option<Verdict>,
}

/// Every event of a run, with totals.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Transcript {
    /// Events in order.
    pub events: Vec<Event>,
    /// Tokens over all model calls.
    pub usage: Usage,
    /// Model calls made.
    pub model_calls: usize,
}

impl Transcript {
    /// The transcript of a run that ended in an error, from the events it had emitted (its observer's copy): the
    /// totals are counted from the model calls among them.
    pub fn from_events(events: Vec<Event>) -> Transcript {
        let mut transcript = Transcript { events, ..Transcript::default() };
        for event in &transcript.events {
            if let Event::Model { usage, .. } = event {
                transcript.usage += *usage;
                transcript.model_calls += 1;
            }
        }
        transcript
    }
}

/// How values are written in the transcript's JSON: calls as the Python text the model reads, a root's missing
/// verdict as `""`, so the transcript reads the same whatever the types behind it.
mod as_text {
    use serde::Serializer;

    use super::Verdict;
    use crate::call::SearchCall;

    pub fn one<S: Serializer>(call: &SearchCall, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(call)
    }

    pub fn list<S: Serializer>(calls: &[SearchCall], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(calls.iter().map(ToString::to_string))
    }

    pub fn verdict<S: Serializer>(verdict: &Option<Verdict>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(verdict.map_or("", Verdict::as_str))
    }
}
