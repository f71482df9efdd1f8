//! The agent: the loops that repair a repository, from an issue text to a patch.
//!
//! ```text
//! issue ──► clean-up ──► reproduce ──► ┌ try 1..=overall_retries (new conversation each) ──────────────────────┐ ──► select ──► diff
//!          (comments)   (runner only:  │ search loop ──► bug locations ──► patch writer ──► review | APR-MCTS  │   (validated,
//!                        trace → search)│ (APIs, proxy)   (+ class, parents)  (retries)      (validate)        │    approved, model)
//!                                      └─────────────────────────────────────────────────────────────────────┘
//! ```
//!
//! The loops reach the outside only through [`Llm`] and, optionally, [`Runner`]; they run unchanged natively and in a
//! browser tab. Every step is recorded as an [`Event`] and passed to an observer as it happens, so a UI can show the
//! run live; [`Agent::cancel`] stops a run between steps.

pub mod best_so_far;
pub mod issue;
pub mod junit;
pub mod patch_writer;
pub mod regression;
pub mod reproduce;
pub mod review;
pub mod search_loop;
pub mod selection;
pub mod transcript;
pub mod tree_search;

use std::cell::Cell;
use std::fmt;
use std::rc::Rc;

use serde::{Deserialize, Serialize};

pub use selection::{Selection, TryRecord};
pub use transcript::{Event, Phase, ReadBy, RunPurpose, ShownUnit, Transcript, TreeNode, Verdict};

use crate::index::Index;
use crate::llm::budget::Exhausted;
use crate::llm::{ChatRequest, Llm, LlmError, Message, ToolCall, tools};
use crate::locate::BugLocation;
use crate::patch::{ExtractStatus, Extraction};
use crate::prompt::Prompt;
use crate::repo::Repo;
use crate::runner::{RunError, RunOutcome, RunRequest, Runner};

/// Which repair strategy follows the search.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// AutoCodeRover: write a patch with retries, then review it by execution when a runner is available.
    #[default]
    Acr,
    /// APR-MCTS: tree search over patch candidates.
    Mcts,
}

/// Limits and parameters of a run. Defaults follow AutoCodeRover and the published APR-MCTS implementation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AgentConfig {
    /// Repair strategy.
    pub mode: Mode,
    /// Search rounds before carrying on without locations.
    pub max_search_rounds: usize,
    /// Patch attempts (the first plus retries after a failed apply).
    pub patch_attempts: usize,
    /// Review rounds in the reproduce-and-review loop.
    pub review_rounds: usize,
    /// Reproducer attempts before giving up on reviewing.
    pub reproducer_attempts: usize,
    /// Whole-workflow tries (search, patch, review or tree search) while no acceptable patch comes out.
    pub overall_retries: usize,
    /// Time limit for each execution, in seconds.
    pub run_timeout_secs: u32,
    /// MCTS settings.
    pub mcts: MctsConfig,
    /// The model's context window in tokens: older search results are left out (with a note) to keep every request
    /// inside it ([`crate::llm::window`]). `None`: requests are sent whole.
    pub context_window: Option<u64>,
    /// Offer the search APIs as chat-completions tools ([`crate::llm::tools`]) rather than asking for calls written
    /// in the answer. A server that refuses tools is asked again without them, and the run carries on in prose.
    pub tools: bool,
}

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            mode: Mode::Acr,
            max_search_rounds: 15,
            patch_attempts: 3,
            review_rounds: 5,
            reproducer_attempts: 3,
            overall_retries: 3,
            run_timeout_secs: 60,
            mcts: MctsConfig::default(),
            context_window: None,
            tools: false,
        }
    }
}

/// APR-MCTS settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MctsConfig {
    /// Iterations (selection + expansion + back-propagation).
    pub max_rounds: usize,
    /// Answers sampled per expansion.
    pub samples: usize,
    /// Distinct children kept per expansion.
    pub branch: usize,
    /// Sampling temperature for expansions.
    pub temperature: f32,
    /// Exploration constant.
    pub exploration: f64,
    /// Seed for tie-breaking.
    pub seed: u64,
}

impl Default for MctsConfig {
    fn default() -> Self {
        MctsConfig { max_rounds: 16, samples: 10, branch: 3, temperature: 0.95, exploration: 0.7, seed: 0x5eed }
    }
}

/// Why a run stopped early.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AgentError {
    /// The model could not be reached or answered badly at the transport level.
    Llm(LlmError),
    /// The user stopped the run.
    Cancelled,
}

impl fmt::Display for AgentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AgentError::Llm(e) => e.fmt(f),
            AgentError::Cancelled => f.write_str("stopped by the user"),
        }
    }
}

impl std::error::Error for AgentError {}

impl From<LlmError> for AgentError {
    fn from(e: LlmError) -> Self {
        match e {
            LlmError::Cancelled => AgentError::Cancelled,
            e => AgentError::Llm(e),
        }
    }
}

/// Why a run ended before it finished.
enum Ending {
    /// A budget limit was reached.
    Budget(Exhausted),
    /// The user stopped it.
    Cancelled,
}

/// The result of a run.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    /// The final status (applicable when a patch was produced).
    pub status: ExtractStatus,
    /// The final diff (empty when none).
    pub diff: String,
    /// Why there is no applicable patch, if there is none.
    pub reason: String,
    /// The bug locations used.
    pub locations: Vec<BugLocation>,
    /// Whether execution confirmed the patch (reproducer passes after, or MCTS validation passed).
    pub validated: bool,
    /// What each whole-workflow try produced.
    pub tries: Vec<TryRecord>,
    /// Which try's patch was chosen, and why.
    pub selection: Selection,
    /// The run's budget ran out before it finished: which limit. The patch is then the best made so far.
    pub budget_exhausted: Option<Exhausted>,
    /// The user stopped the run before it finished ([`Agent::cancel`]). The patch is then the best made so far.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cancelled: bool,
    /// Everything that happened.
    pub transcript: Transcript,
}

/// A runner that is never there: the loops fall back to the syntax gate and the model's rating.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoRunner;

impl Runner for NoRunner {
    async fn run(&self, _: &RunRequest) -> Result<RunOutcome, RunError> {
        Err(RunError::Unavailable("no runner configured".into()))
    }
}

/// Callback receiving each event as it happens.
pub type Observer = Box<dyn FnMut(&Event)>;

pub use crate::llm::budget::Clock;

/// One repair run over a loaded repository.
pub struct Agent<L, R = NoRunner> {
    repo: Rc<Repo>,
    index: Rc<Index>,
    llm: L,
    runner: Option<R>,
    config: AgentConfig,
    observer: Observer,
    clock: Clock,
    cancel: Rc<Cell<bool>>,
    transcript: Transcript,
    /// Whether search requests offer tools: [`AgentConfig::tools`], until the server refuses them.
    tools: bool,
}

impl<L: Llm, R: Runner> Agent<L, R> {
    /// An agent over a repository and its index.
    pub fn new(repo: Rc<Repo>, index: Rc<Index>, llm: L, runner: Option<R>, config: AgentConfig) -> Self {
        Agent {
            repo,
            index,
            llm,
            runner,
            tools: config.tools,
            config,
            observer: Box::new(|_| {}),
            clock: Box::new(|| 0.0),
            cancel: Rc::new(Cell::new(false)),
            transcript: Transcript::default(),
        }
    }

    /// Receives every event as it happens.
    pub fn with_observer(mut self, observer: Observer) -> Self {
        self.observer = observer;
        self
    }

    /// Times model calls with the host's clock.
    pub fn with_clock(mut self, clock: Clock) -> Self {
        self.clock = clock;
        self
    }

    /// A flag that stops the run at the next step when set.
    pub fn cancel(&self) -> Rc<Cell<bool>> {
        self.cancel.clone()
    }

    /// Repairs the repository for `issue`: clean the issue, reproduce it (with a runner), then up to
    /// [`AgentConfig::overall_retries`] tries of search, locate, patch and review or tree search, and choose one patch.
    /// When the model's budget runs out ([`LlmError::BudgetExhausted`]) the run ends early with the best patch so far.
    pub async fn run(mut self, issue: &str) -> Result<Outcome, AgentError> {
        let mut tries: Vec<TryRecord> = Vec::new();
        match self.repair(issue, &mut tries).await {
            Ok(selection) => {
                let pick = selection.chosen.and_then(|n| tries.iter().find(|t| t.number == n)).or(tries.last());
                let (status, diff, reason, locations, validated) = match pick {
                    Some(t) if selection.chosen.is_some() => {
                        (t.status, t.diff.clone(), t.reason.clone(), t.locations.clone(), t.validated)
                    }
                    Some(t) => (t.status, String::new(), t.reason.clone(), t.locations.clone(), false),
                    None => (ExtractStatus::NoPatch, String::new(), "no try was made".into(), Vec::new(), false),
                };
                Ok(Outcome {
                    status,
                    diff,
                    reason,
                    locations,
                    validated,
                    tries,
                    selection,
                    budget_exhausted: None,
                    cancelled: false,
                    transcript: self.transcript,
                })
            }
            Err(AgentError::Llm(LlmError::BudgetExhausted(exhausted))) => {
                Ok(self.stop_early(Ending::Budget(exhausted), tries))
            }
            Err(AgentError::Cancelled) => Ok(self.stop_early(Ending::Cancelled, tries)),
            Err(e) => Err(e),
        }
    }

    /// The workflow tries and the choice among them; finished tries are pushed to `tries` as they end, so a run
    /// stopped midway keeps them.
    async fn repair(&mut self, issue: &str, tries: &mut Vec<TryRecord>) -> Result<Selection, AgentError> {
        let issue = issue::clean(issue);
        let issue = issue.as_str();
        let ask_first = self.config.mode == Mode::Acr;
        let reproduction = reproduce::run(self, issue, ask_first).await?;
        let total = self.config.overall_retries.max(1);
        for number in 1..=total {
            self.emit(Event::Try { number, of: total });
            let record = self.workflow(issue, number, reproduction.as_ref()).await?;
            let done = record.acceptable(reproduction.is_some());
            tries.push(record);
            if done {
                break;
            }
            if number < total {
                self.note(format!("try {number} produced no acceptable patch; the workflow starts again"));
            }
        }
        let selection = selection::select(self, issue, tries).await?;
        self.emit(Event::Selection { chosen: selection.chosen, reason: selection.reason.clone(), tries: tries.len() });
        Ok(selection)
    }

    /// The outcome of a run whose budget ran out: the best patch so far, and why the run stopped.
    fn stop_early(mut self, ending: Ending, tries: Vec<TryRecord>) -> Outcome {
        let why = match &ending {
            Ending::Budget(exhausted) => exhausted.to_string(),
            Ending::Cancelled => "stopped by the user".to_string(),
        };
        let kept = best_so_far::patch(&self.transcript);
        let (status, diff, reason) = match &kept {
            Some(k) => (ExtractStatus::ApplicablePatch, k.diff.clone(), String::new()),
            None => (ExtractStatus::NoPatch, String::new(), format!("{why} before any patch applied")),
        };
        let kept_note =
            kept.map_or("no patch was made".to_string(), |k| format!("keeping the best patch so far ({})", k.from));
        self.note(format!("{why}; the run stops here, {kept_note}"));
        Outcome {
            status,
            diff,
            reason,
            locations: best_so_far::locations(&self.transcript),
            validated: false,
            tries,
            selection: Selection::default(),
            cancelled: matches!(ending, Ending::Cancelled),
            budget_exhausted: match ending {
                Ending::Budget(exhausted) => Some(exhausted),
                Ending::Cancelled => None,
            },
            transcript: self.transcript,
        }
    }

    /// One whole-workflow try: search, then patch and review, or tree search.
    async fn workflow(
        &mut self,
        issue: &str,
        number: usize,
        reproduction: Option<&reproduce::Reproduction>,
    ) -> Result<TryRecord, AgentError> {
        let found = search_loop::run(self, issue, reproduction.map(reproduce::Reproduction::trace)).await?;
        let (extraction, validated, approved) = match self.config.mode {
            Mode::Acr => {
                let mut writer = patch_writer::PatchWriter::new(&found);
                let extraction = writer.write(self, issue, &found).await?;
                match reproduction {
                    Some(r) if extraction.status.is_applicable() => {
                        let reviewed = review::run(self, issue, &found, &mut writer, extraction, r).await?;
                        (reviewed.extraction, reviewed.validated, reviewed.approved)
                    }
                    _ => (extraction, false, false),
                }
            }
            Mode::Mcts => {
                let (extraction, validated) = tree_search::run(self, issue, &found, reproduction).await?;
                (extraction, validated, false)
            }
        };
        Ok(TryRecord {
            number,
            status: extraction.status,
            diff: extraction.diff,
            reason: extraction.reason,
            validated,
            approved,
            locations: found.locations,
        })
    }

    /// Records an event and tells the observer.
    fn emit(&mut self, event: Event) {
        (self.observer)(&event);
        self.transcript.events.push(event);
    }

    fn note(&mut self, text: impl Into<String>) {
        self.emit(Event::Note { text: text.into() });
    }

    fn check_cancel(&self) -> Result<(), AgentError> {
        if self.cancel.get() { Err(AgentError::Cancelled) } else { Ok(()) }
    }

    /// Sends a request to the model and records it. The request is first fitted to the context window, if the run
    /// has one (older search results replaced by a note, which the transcript shows too). A request with tools that
    /// the server refuses for them goes again without, and the run stops offering them.
    async fn send(&mut self, request: &mut ChatRequest, kind: crate::prompt::PromptKind) -> Result<Reply, AgentError> {
        self.check_cancel()?;
        if let Some(window) = self.config.context_window {
            let notes = crate::llm::window::fit(request, window).map_err(LlmError::ContextWindow)?;
            for note in notes {
                self.note(note);
            }
        }
        let started = (self.clock)();
        let response = match self.llm.chat(request).await {
            Err(LlmError::Http { status, message })
                if !request.tools.is_empty() && tools::refused(status, &message) =>
            {
                self.tools = false;
                self.note(format!(
                    "the model server does not take tools (HTTP {status}: {message}); the run goes on without them, \
                     with search calls written in the answers"
                ));
                request.tools.clear();
                request.messages = tools::flatten(std::mem::take(&mut request.messages));
                self.check_cancel()?;
                self.llm.chat(request).await?
            }
            answer => answer?,
        };
        self.check_cancel()?;
        let ms = (self.clock)() - started;
        self.transcript.usage += response.usage;
        self.transcript.model_calls += 1;
        let prompt = request.messages.last().map(|m| m.content.clone()).unwrap_or_default();
        self.emit(Event::Model {
            stage: request.stage,
            kind,
            prompt,
            messages: request.messages.len(),
            answer: response.content.clone(),
            reasoning: response.reasoning,
            tool_calls: response.tool_calls.clone(),
            usage: response.usage,
            usage_estimated: response.usage_estimated,
            ms,
        });
        Ok(Reply { text: response.content, tool_calls: response.tool_calls })
    }

    /// Sends a prompt that needs no earlier conversation.
    async fn ask(&mut self, prompt: &Prompt<'_>) -> Result<String, AgentError> {
        Ok(self.send(&mut prompt.request(&[]), prompt.kind()).await?.text)
    }

    /// Sends a prompt at the end of a conversation, and adds the prompt and the answer to it.
    async fn converse(&mut self, conversation: &mut Vec<Message>, prompt: &Prompt<'_>) -> Result<String, AgentError> {
        Ok(self.converse_offering(conversation, prompt, false).await?.text)
    }

    /// [`Agent::converse`], offering the search APIs as tools when `tools` is set and the run still uses them. The
    /// answer's tool calls are kept in the conversation, and must be answered before the next prompt.
    async fn converse_offering(
        &mut self,
        conversation: &mut Vec<Message>,
        prompt: &Prompt<'_>,
        tools: bool,
    ) -> Result<Reply, AgentError> {
        let mut request = prompt.request(conversation);
        if tools && self.tools {
            request.tools = crate::llm::Tool::search_apis();
        }
        let reply = self.send(&mut request, prompt.kind()).await?;
        *conversation = request.messages;
        conversation.push(Message { tool_calls: reply.tool_calls.clone(), ..Message::assistant(reply.text.clone()) });
        Ok(reply)
    }

    /// Runs a command on the repository with a patch and extra files, when a runner is configured.
    async fn execute(
        &mut self,
        purpose: RunPurpose,
        patch: &str,
        extra: &[(&str, &str)],
        command: &str,
    ) -> Result<Option<RunOutcome>, AgentError> {
        self.check_cancel()?;
        let Some(runner) = &self.runner else { return Ok(None) };
        let mut files: std::collections::BTreeMap<String, String> =
            self.repo.files().map(|(p, t)| (p.to_string(), t.to_string())).collect();
        for (p, t) in extra {
            files.insert(p.to_string(), t.to_string());
        }
        let request = RunRequest {
            files,
            patch: patch.to_string(),
            command: command.into(),
            timeout_secs: self.config.run_timeout_secs,
        };
        match runner.run(&request).await {
            Ok(outcome) => {
                self.emit(Event::Run { purpose, outcome: outcome.clone() });
                Ok(Some(outcome))
            }
            Err(e) => {
                self.note(format!("could not run `{command}` ({purpose}): {e}"));
                Ok(None)
            }
        }
    }
}

/// What the model answered: its text (thinking left out) and the functions it called.
struct Reply {
    text: String,
    tool_calls: Vec<ToolCall>,
}

/// Reads an [`Extraction`]'s outcome for feedback.
fn describe(extraction: &Extraction) -> String {
    if extraction.status.is_applicable() { "the patch applies cleanly".to_string() } else { extraction.reason.clone() }
}

#[cfg(test)]
mod tests;
