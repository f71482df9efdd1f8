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

pub mod patch_writer;
pub mod regression;
pub mod reproduce;
pub mod review;
pub mod search_loop;
pub mod selection;
pub mod transcript;
pub mod tree_search;
pub mod trim;
mod validation;

use std::cell::Cell;
use std::fmt;
use std::rc::Rc;

use serde::{Deserialize, Serialize};

pub use crate::language::junit;
pub use selection::{Selection, TryRecord};
pub use transcript::{Event, Phase, ReadBy, RunPurpose, ShownUnit, Transcript, TreeNode, Verdict};

use crate::index::Index;
use crate::llm::budget::Exhausted;
use crate::llm::window::{self, TooLong, Window};
use crate::llm::{ChatRequest, ChatResponse, Cut, Llm, LlmError, Message, ToolCall, estimate, schema, tools};
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

/// Who judges a patch once a reproducer shows the bug.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Judge {
    /// AutoCodeRover: the model reviews the patch and the test with the reproducer's output before and after, and
    /// its verdict decides (a test judged wrong is rewritten; a patch judged right is validated by execution).
    #[default]
    Reviewer,
    /// The reproducer alone: a patch it passes on is validated (no repository test regresses), and a patch it
    /// still fails on goes back to the patch writer with what it printed. No model call is spent on reviews, and no
    /// test is rewritten to suit a patch: for small models, whose reviews disagree with execution about half the
    /// time (see `model_defaults.tsv`).
    Execution,
}

impl Judge {
    /// Both judges.
    pub const ALL: [Judge; 2] = [Judge::Reviewer, Judge::Execution];

    /// The name used on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Judge::Reviewer => "reviewer",
            Judge::Execution => "execution",
        }
    }
}

impl std::fmt::Display for Judge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Judge {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Judge::ALL
            .into_iter()
            .find(|j| j.name() == s)
            .ok_or_else(|| format!("unknown judge `{s}` (expected reviewer or execution)"))
    }
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
    /// Review rounds in the reproduce-and-review loop, with AutoCodeRover's reviewer as the judge.
    pub review_rounds: usize,
    /// With the reproducer as the judge ([`Judge::Execution`]): patches sampled afresh in each try, each judged by
    /// running the reproducer, before the try ends. A sample costs one answer and one run, so more of them fit the
    /// budget than review rounds do: Qwen2.5-Coder-1.5B wrote the fix of QuixBugs' kheapsort in about one sample in
    /// ten and that of subsequences in one in twenty, where three tries of five samples left the fix out.
    pub execution_samples: usize,
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
    /// The edit format the patch writer asks for (every format is read whatever it asks; see
    /// [`crate::patch::formats`]).
    pub edit_format: crate::patch::EditFormatChoice,
    /// Who judges a patch once a reproducer shows the bug.
    pub judge: Judge,
}

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            mode: Mode::Acr,
            max_search_rounds: 15,
            patch_attempts: 3,
            review_rounds: 5,
            execution_samples: 12,
            reproducer_attempts: 3,
            overall_retries: 3,
            run_timeout_secs: 60,
            mcts: MctsConfig::default(),
            context_window: None,
            tools: false,
            edit_format: crate::patch::EditFormatChoice::default(),
            judge: Judge::default(),
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

/// Why a run ended before it finished. Only what no further call can fix ends a run; a failed or cut call does not
/// (the agent asks again within the budget, then moves on). Whatever ended it, the best patch so far is kept.
#[derive(Debug, Clone, PartialEq)]
pub enum Stop {
    /// A budget limit was reached.
    Budget(Exhausted),
    /// The user stopped it.
    Cancelled,
    /// The server refused the key.
    KeyRefused(String),
    /// The server does not know the model.
    ModelUnknown(String),
    /// The server could not be reached, or kept refusing for its rate limit, after the client's retries.
    Unreachable(String),
    /// The server kept failing the same way, call after call.
    ServerError(String),
    /// The requests do not fit the model's context window even with every older search result left out.
    ContextTooSmall(TooLong),
}

impl Stop {
    /// Calls in a row that fail with an HTTP error (or requests in a row too long for the context window) before the
    /// run ends with [`Stop::ServerError`] (or [`Stop::ContextTooSmall`]).
    pub const FAILED_CALLS: usize = 3;

    /// The kind's snake_case name, as `outcome.json` and the page show it.
    pub fn kind(&self) -> &'static str {
        match self {
            Stop::Budget(_) => "budget",
            Stop::Cancelled => "cancelled",
            Stop::KeyRefused(_) => "key_refused",
            Stop::ModelUnknown(_) => "model_unknown",
            Stop::Unreachable(_) => "unreachable",
            Stop::ServerError(_) => "server_error",
            Stop::ContextTooSmall(_) => "context_too_small",
        }
    }

    /// Whether the model server ended the run (rather than the budget or the user).
    pub fn by_server(&self) -> bool {
        !matches!(self, Stop::Budget(_) | Stop::Cancelled)
    }

    /// The stop a model error means, if it ends a run.
    fn of(error: &LlmError) -> Option<Stop> {
        Some(match error {
            LlmError::BudgetExhausted(e) => Stop::Budget(*e),
            LlmError::Cancelled => Stop::Cancelled,
            LlmError::Auth(m) => Stop::KeyRefused(m.clone()),
            LlmError::ModelUnknown(m) => Stop::ModelUnknown(m.clone()),
            LlmError::Transport(_) | LlmError::RateLimited(_) => Stop::Unreachable(error.to_string()),
            LlmError::ContextWindow(too_long) => Stop::ContextTooSmall(*too_long),
            LlmError::Http { .. } | LlmError::Timeout | LlmError::Malformed(_) | LlmError::ContextOverflow(_) => {
                Stop::ServerError(error.to_string())
            }
            _ => return None,
        })
    }
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stop::Budget(e) => e.fmt(f),
            Stop::Cancelled => f.write_str("stopped by the user"),
            Stop::KeyRefused(m) => write!(f, "the model server refused the API key: {m}"),
            Stop::ModelUnknown(m) => write!(f, "the model server does not know this model: {m}"),
            Stop::Unreachable(m) => write!(f, "{m}"),
            Stop::ServerError(m) => write!(f, "the model server failed {} calls in a row: {m}", Stop::FAILED_CALLS),
            Stop::ContextTooSmall(e) => write!(f, "{} requests in a row did not fit: {e}", Stop::FAILED_CALLS),
        }
    }
}

/// `{"kind": …, "message": …}`, and the limit reached for a budget.
impl Serialize for Stop {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut out = s.serialize_struct("Stop", 3)?;
        out.serialize_field("kind", self.kind())?;
        out.serialize_field("message", &self.to_string())?;
        match self {
            Stop::Budget(e) => out.serialize_field("limit", e)?,
            _ => out.skip_field("limit")?,
        }
        out.end()
    }
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
    /// Why the run ended before it finished, if it did: the budget, the user ([`Agent::cancel`]), or the model
    /// server. The patch is then the best made so far.
    pub stopped: Option<Stop>,
    /// Everything that happened.
    pub transcript: Transcript,
}

impl Outcome {
    /// The budget limit that ended the run, if one did.
    pub fn budget_exhausted(&self) -> Option<Exhausted> {
        match &self.stopped {
            Some(Stop::Budget(e)) => Some(*e),
            _ => None,
        }
    }

    /// Whether the user stopped the run.
    pub fn cancelled(&self) -> bool {
        matches!(self.stopped, Some(Stop::Cancelled))
    }
}

/// A runner that is never there: the loops fall back to the syntax gate and the model's rating.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoRunner;

impl Runner for NoRunner {
    async fn run(&self, _: &RunRequest) -> Result<RunOutcome, RunError> {
        Err(RunError::Unavailable("no runner configured".into()))
    }
}

/// Fewest prompt tokens a server must report before a count far below what was sent is read as the server cutting
/// the prompt to its window.
const MIN_REPORTED_WINDOW: u64 = 256;

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
    /// How answers that must be JSON are asked for ([`crate::llm::schema`]): with their whole schema, until the
    /// server refuses it; then without its bounds; then, after a second refusal (or when the server said it cannot
    /// hold a model to a schema), in words.
    schemas: Schemas,
    /// The model's context window: [`AgentConfig::context_window`], what the server publishes, or what its refusals
    /// said, with how the server counts tokens; `None` until either is known ([`Window::unknown`] holds the count
    /// alone).
    window: Option<Window>,
    /// Whether the server was asked what it publishes (its window, whether it takes JSON schemas), once, before the
    /// first call.
    server_asked: bool,
    /// Calls in a row that failed with an HTTP error.
    failed_calls: usize,
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
            schemas: Schemas::Whole,
            window: config.context_window.map(Window::new),
            server_asked: false,
            failed_calls: 0,
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
                    stopped: None,
                    transcript: self.transcript,
                })
            }
            Err(AgentError::Cancelled) => Ok(self.stop_early(Stop::Cancelled, tries)),
            Err(AgentError::Llm(e)) => match Stop::of(&e) {
                Some(stop) => Ok(self.stop_early(stop, tries)),
                None => Err(AgentError::Llm(e)),
            },
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

    /// The outcome of a run that ended early: the best patch so far, and why the run stopped.
    fn stop_early(mut self, stop: Stop, tries: Vec<TryRecord>) -> Outcome {
        let why = stop.to_string();
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
            stopped: Some(stop),
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

    /// Sends a request to the model and records it, and deals with what a call can go through short of ending the
    /// run:
    /// - the request is first fitted to the context window, once one is known (older search results replaced by a
    ///   note, which the transcript shows too; the answer capped at the room left); the window is asked of the
    ///   server before the first call, learned from a refusal for a prompt over it (then the request goes again),
    ///   and how the server counts tokens is learned from the usage it reports;
    /// - a request with tools that the server refuses for them goes again without, and the run stops offering them;
    ///   a request whose JSON schema the server refuses goes again at once without it, and the run asks for JSON in
    ///   words only from then on (also from the start, when the server said it cannot hold a model to a schema);
    /// - a time-out is asked again once; a call that still fails is recorded with why and answers nothing, which the
    ///   callers treat as any unusable answer (they ask again within their tries, then move on);
    /// - an answer cut short (its cap, the time limit, a loop) is recorded with why, and what arrived is the answer.
    ///
    /// Only what no call can fix goes back as an error and ends the run ([`Stop`]).
    async fn send(&mut self, request: &mut ChatRequest, kind: crate::prompt::PromptKind) -> Result<Reply, AgentError> {
        self.check_cancel()?;
        self.ask_server().await;
        let mut overflows = 0;
        let mut timeouts = 0;
        loop {
            match self.schemas {
                Schemas::Whole => {}
                Schemas::Unbounded => request.schema = request.schema.take().map(|s| s.unbounded().unwrap_or(s)),
                Schemas::Off => request.schema = None,
            }
            if let Some(window) = self.window {
                match window::fit(request, &window) {
                    Ok(notes) => {
                        // Whole exchanges are left out, so what is sent and saved back pairs every result with its call.
                        debug_assert_eq!(tools::unpaired(&request.messages), None, "{notes:?}");
                        notes.into_iter().for_each(|note| self.note(note));
                    }
                    // A request that cannot fit is not sent, and the agent moves on as after a failed call. A
                    // conversation that grew too long starts afresh at the agent's next step; a request that is too
                    // long with no answer of the model in it will be again, so three of those in a row end the run.
                    Err(too_long) => {
                        let fresh = request.messages.iter().all(|m| m.role != crate::llm::Role::Assistant);
                        self.failed_calls += usize::from(fresh);
                        if self.failed_calls >= Stop::FAILED_CALLS {
                            return Err(LlmError::ContextWindow(too_long).into());
                        }
                        self.note(format!(
                            "{too_long}; this {} request is not sent and the run goes on",
                            request.stage
                        ));
                        return Ok(Reply { text: String::new(), tool_calls: Vec::new() });
                    }
                }
            }
            let started = (self.clock)();
            let answer = self.llm.chat(request).await;
            let ms = (self.clock)() - started;
            if self.cancel.get() {
                // What arrived before the user stopped the run stays in the transcript.
                if let Ok(response) = answer
                    && (!response.content.is_empty() || response.reasoning.is_some())
                {
                    self.record(request, kind, ChatResponse { cut: Some(Cut::Cancelled), ..response }, ms);
                }
                return Err(AgentError::Cancelled);
            }
            let error = match answer {
                Ok(response) => {
                    self.failed_calls = 0;
                    self.learn_from_usage(request, &response);
                    return Ok(self.record(request, kind, response, ms));
                }
                Err(e) => e,
            };
            match error {
                LlmError::Http { status, message } if !request.tools.is_empty() && tools::refused(status, &message) => {
                    self.tools = false;
                    self.note(format!(
                        "the model server does not take tools (HTTP {status}: {message}); the run goes on without \
                         them, with search calls written in the answers"
                    ));
                    request.tools.clear();
                    request.messages = tools::flatten(std::mem::take(&mut request.messages));
                }
                LlmError::Http { status, message } if request.schema.is_some() && schema::refused(status, &message) => {
                    let bounded = request.schema.as_ref().and_then(|s| s.unbounded()).is_some();
                    if self.schemas == Schemas::Whole && bounded {
                        self.schemas = Schemas::Unbounded;
                        self.note(format!(
                            "the model server refused a JSON schema for the answer (HTTP {status}: {message}); asking \
                             again with the schema's bounds on lengths left out"
                        ));
                    } else {
                        self.schemas = Schemas::Off;
                        self.note(format!(
                            "the model server does not take a JSON schema for the answer (HTTP {status}: {message}); \
                             the run goes on asking for JSON in words, and reads it as leniently"
                        ));
                    }
                }
                LlmError::ContextOverflow(overflow) if overflows < 3 => {
                    overflows += 1;
                    self.learn_from_overflow(request, &overflow);
                }
                LlmError::Timeout if timeouts < 1 => {
                    timeouts += 1;
                    self.record_failure(request, kind, &LlmError::Timeout, ms);
                    self.note("the model did not answer in time; asking once more");
                }
                LlmError::ContextOverflow(overflow) => {
                    // The size as the server counted it, or as the agent estimates it when the refusal says none.
                    let learned = self.window.unwrap_or_else(Window::unknown);
                    let cap = u64::from(request.answer_cap());
                    let prompt = overflow.prompt_size(cap).unwrap_or_else(|| learned.likely_tokens(request));
                    let needed = prompt + window::MIN_ANSWER.min(cap);
                    let window = overflow.window.unwrap_or(learned.tokens);
                    return Err(LlmError::ContextWindow(TooLong { needed, window }).into());
                }
                e @ (LlmError::Http { .. } | LlmError::Timeout | LlmError::Malformed(_)) => {
                    self.record_failure(request, kind, &e, ms);
                    if matches!(e, LlmError::Http { .. }) {
                        self.failed_calls += 1;
                        if self.failed_calls >= Stop::FAILED_CALLS {
                            return Err(e.into());
                        }
                    }
                    return Ok(Reply { text: String::new(), tool_calls: Vec::new() });
                }
                e => return Err(e.into()),
            }
            self.check_cancel()?;
        }
    }

    /// Asks the server, once, for the model's context window (when the run was given none) and whether it holds a
    /// model to a JSON schema.
    async fn ask_server(&mut self) {
        if std::mem::replace(&mut self.server_asked, true) {
            return;
        }
        if self.config.context_window.is_none()
            && let Some(tokens) = self.llm.context_window().await
        {
            self.window = Some(Window { tokens, scale: self.window.and_then(|w| w.scale) });
            self.note(format!(
                "the model server reports a context window of {tokens} tokens; requests are fitted to it"
            ));
        }
        match self.llm.takes_json_schema().await {
            Some(true) => self.note(
                "the model server holds the model to a JSON schema: the answers that must be JSON (search calls and \
                 bug locations, reviews, ratings, choices) are asked for with theirs",
            ),
            Some(false) => self.schemas = Schemas::Off,
            None => {}
        }
    }

    /// Learns the window from a refusal for a prompt over it, and how the server counts from the size it named.
    fn learn_from_overflow(&mut self, request: &ChatRequest, overflow: &window::Overflow) {
        let estimated = estimate::request_tokens(request);
        let mut learned = self.window.unwrap_or_else(Window::unknown);
        if let Some(counted) = overflow.prompt_size(u64::from(request.answer_cap())) {
            learned.learn_scale(estimated, counted);
        }
        let sent = learned.likely_tokens(request);
        // Without a size in the refusal, the window is taken as three quarters of what was sent.
        learned.tokens = overflow.window.unwrap_or(sent * 3 / 4).min(learned.tokens.saturating_sub(1).max(1));
        self.window = Some(learned);
        self.note(format!(
            "the model server refused a prompt of about {sent} tokens as over its context window; the window is \
             taken as {} tokens and the request is sent again, fitted to it",
            learned.tokens
        ));
    }

    /// Learns how the server counts tokens from the prompt size it reported, and notices a server that cut the
    /// prompt silently (Ollama does, past its window): it counted far fewer tokens than were sent.
    fn learn_from_usage(&mut self, request: &ChatRequest, response: &ChatResponse) {
        let reported = response.usage.prompt_tokens;
        if response.usage_estimated || reported == 0 {
            return;
        }
        let estimated = estimate::request_tokens(request);
        let expected = self.window.map_or(estimated, |w| w.likely_tokens(request));
        // A real window holds hundreds of tokens at least: a server reporting a handful (LiteLLM's mock answers
        // always say 10) is not read as a cut.
        if estimated >= 1_000 && reported >= MIN_REPORTED_WINDOW && reported * 2 < expected {
            let tokens = reported + response.usage.completion_tokens;
            let previous = self.window.map_or(u64::MAX, |w| w.tokens);
            self.window = Some(Window { tokens: tokens.min(previous), scale: self.window.and_then(|w| w.scale) });
            self.note(format!(
                "the model server counted {reported} prompt tokens of about {expected} sent: it seems to have cut the \
                 prompt to fit its context window, which is now taken as {tokens} tokens, and later requests leave \
                 older results out instead; to keep them, start the server with a larger window (Ollama: \
                 OLLAMA_CONTEXT_LENGTH) and give the run the same size"
            ));
            return;
        }
        // Learned even before the window is known, so a window learned later starts from the server's count.
        self.window.get_or_insert_with(Window::unknown).learn_scale(estimated, reported);
    }

    /// Records an answer and turns it into what the callers read.
    fn record(
        &mut self,
        request: &ChatRequest,
        kind: crate::prompt::PromptKind,
        response: ChatResponse,
        ms: f64,
    ) -> Reply {
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
            constrained: request.schema.is_some(),
            ms,
            cut: response.cut,
        });
        Reply { text: response.content, tool_calls: response.tool_calls }
    }

    /// Records a call that failed, with why; nothing came back to read.
    fn record_failure(&mut self, request: &ChatRequest, kind: crate::prompt::PromptKind, error: &LlmError, ms: f64) {
        let mut answer = ChatResponse { cut: Some(Cut::Failed(error.to_string())), ..ChatResponse::default() };
        estimate::fill_missing_usage(&mut answer, request);
        self.record(request, kind, answer, ms);
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
        let timeout = self.config.run_timeout_secs;
        self.execute_within(purpose, patch, extra, command, timeout).await
    }

    /// [`Agent::execute`] with a time limit of its own (at most the configured one).
    async fn execute_within(
        &mut self,
        purpose: RunPurpose,
        patch: &str,
        extra: &[(&str, &str)],
        command: &str,
        timeout_secs: u32,
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
            timeout_secs: timeout_secs.min(self.config.run_timeout_secs),
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

/// How the answers that must be JSON are asked for, as the server has shown it takes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Schemas {
    /// With the whole JSON schema, bounds included.
    Whole,
    /// With the schema less its bounds, which the server refused.
    Unbounded,
    /// In words only: the server refused schemas, or said it cannot hold a model to one.
    Off,
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
