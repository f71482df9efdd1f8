//! One repair run in the tab: builds the agent from the settings, runs it in `spawn_local`, and mirrors every event
//! into signals as it happens (the transcript, token and time counters), so the page renders the run live.
//!
//! The run can be stopped at any time: the agent checks its cancel flag before and after every model call.

use std::cell::Cell;
use std::rc::Rc;

use acr_core::agent::{Agent, AgentConfig, AgentError, Event, Mode, Outcome};
use acr_core::index::Language;
use acr_core::llm::budget::{Budget, Budgeted, Spent};
use acr_core::llm::price::PriceTable;
use acr_core::llm::stream::Partial;
use acr_core::llm::{ChatRequest, Stage, Usage, estimate};
use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::json;

use crate::load::Loaded;
use crate::model::{self, ModelChoice, PlaygroundModel};
use crate::runners::PageRunner;
use crate::{browser, demo};

/// Shortest time between two repaints of a streamed answer, in milliseconds.
const LIVE_REPAINT_MS: f64 = 100.0;

/// Where a run stands.
#[derive(Debug, Clone, PartialEq)]
pub enum RunStatus {
    /// Nothing has run yet.
    Idle,
    /// The agent is working.
    Running,
    /// The user pressed stop; waiting for the current step to end.
    Stopping,
    /// Finished with an outcome.
    Done,
    /// Stopped by the user.
    Stopped,
    /// Failed; why.
    Failed(String),
}

/// A model call in flight: what it asks and since when.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Asking {
    /// The stage asking.
    pub stage: Stage,
    /// The request's size in tokens, estimated (the server's count comes with the answer).
    pub prompt_tokens: u64,
    /// When it was sent (`performance.now()`).
    pub since: f64,
}

impl Asking {
    /// The call `request` starts now.
    pub fn of(request: &ChatRequest) -> Asking {
        Asking { stage: request.stage, prompt_tokens: estimate::request_tokens(request), since: browser::now() }
    }
}

/// The tokens of an answer so far, estimated from its text.
pub fn partial_tokens(partial: &Partial) -> u64 {
    estimate::tokens(&partial.answer) + estimate::tokens(&partial.reasoning)
}

/// What was asked, for the transcript download.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunMeta {
    /// The repository's name.
    pub repository: String,
    /// The issue text.
    pub issue: String,
    /// `acr` or `mcts`.
    pub mode: String,
    /// The model (name and server, never the key).
    pub model: String,
    /// Where executions happen (`in this tab`, `on the runner at URL`), empty when nothing is executed.
    pub runner: String,
}

/// The signals of the current run.
#[derive(Clone, Copy)]
pub struct RunState {
    /// Where the run stands.
    pub status: RwSignal<RunStatus>,
    /// Events so far.
    pub events: RwSignal<Vec<Event>>,
    /// Tokens so far.
    pub usage: RwSignal<Usage>,
    /// Model calls so far.
    pub model_calls: RwSignal<usize>,
    /// The run's limits.
    pub budget: RwSignal<Budget>,
    /// What the run has used of its budget (the meter), with the cost when the model has a price.
    pub spent: RwSignal<Spent>,
    /// Whether the model has a price (so the meter shows money).
    pub priced: RwSignal<bool>,
    /// Milliseconds since the run started.
    pub elapsed: RwSignal<f64>,
    /// The outcome, once done.
    pub outcome: RwSignal<Option<Outcome>>,
    /// Increases with every run (keys the transcript's rows).
    pub generation: RwSignal<u32>,
    /// What was asked.
    pub meta: RwSignal<RunMeta>,
    /// The answer arriving now, when the model streams (cleared when the answer is complete).
    pub live: RwSignal<Option<Partial>>,
    /// The model call in flight, if any (cleared when its answer, or its failure, is recorded).
    pub asking: RwSignal<Option<Asking>>,
    /// The answer that was arriving when the run was stopped or failed: kept in view, with why it ended.
    pub interrupted: RwSignal<Option<Partial>>,
    /// The call that was in flight when the run ended (stopped, or failed), its tokens estimated: the server was
    /// asked, so the counters keep it, though the agent never recorded its answer.
    pub abandoned: RwSignal<Option<Usage>>,
    cancel: StoredValue<Option<Rc<Cell<bool>>>, LocalStorage>,
    abandon: StoredValue<Option<Rc<Cell<bool>>>, LocalStorage>,
}

impl RunState {
    /// A state with nothing run.
    pub fn new() -> RunState {
        RunState {
            status: RwSignal::new(RunStatus::Idle),
            events: RwSignal::new(Vec::new()),
            usage: RwSignal::new(Usage::default()),
            model_calls: RwSignal::new(0),
            budget: RwSignal::new(Budget::default()),
            spent: RwSignal::new(Spent::default()),
            priced: RwSignal::new(false),
            elapsed: RwSignal::new(0.0),
            outcome: RwSignal::new(None),
            generation: RwSignal::new(0),
            meta: RwSignal::new(RunMeta::default()),
            live: RwSignal::new(None),
            asking: RwSignal::new(None),
            interrupted: RwSignal::new(None),
            abandoned: RwSignal::new(None),
            cancel: StoredValue::new_local(None),
            abandon: StoredValue::new_local(None),
        }
    }

    /// Whether a run is in progress.
    pub fn busy(&self) -> bool {
        matches!(self.status.get(), RunStatus::Running | RunStatus::Stopping)
    }

    /// Starts a run; any failure to start is shown as the run's status.
    pub fn start(
        self,
        loaded: &Loaded,
        issue: String,
        mode: Mode,
        overall_retries: usize,
        choice: ModelChoice,
        runner: Option<PageRunner>,
    ) {
        self.generation.update(|g| *g += 1);
        let (runner, tab_note) = tab_runs_the_language(runner, loaded.repo.language());
        self.events.set(tab_note.map(|text| Event::Note { text }).into_iter().collect());
        self.usage.set(Usage::default());
        self.model_calls.set(0);
        self.spent.set(Spent::default());
        self.elapsed.set(0.0);
        self.outcome.set(None);
        self.meta.set(RunMeta {
            repository: loaded.name.clone(),
            issue: issue.clone(),
            mode: if mode == Mode::Mcts { "mcts" } else { "acr" }.into(),
            model: match &choice {
                ModelChoice::Demo => "demo model (scripted)".into(),
                ModelChoice::Remote { endpoint: e, stream, .. } => {
                    format!("{} at {}{}", e.model, e.base_url, if *stream { ", streamed" } else { "" })
                }
            },
            runner: runner.as_ref().map(PageRunner::place).unwrap_or_default(),
        });
        if issue.trim().is_empty() {
            self.status
                .set(RunStatus::Failed("Describe the issue first: the agent repairs what the issue reports.".into()));
            return;
        }
        let stop = Rc::new(Cell::new(false));
        self.live.set(None);
        self.asking.set(None);
        self.interrupted.set(None);
        self.abandoned.set(None);
        let asking = self.asking;
        let show_asking = move |request: &ChatRequest| asking.set(Some(Asking::of(request)));
        let (live, last_shown) = (self.live, Cell::new(f64::NEG_INFINITY));
        let show_live = move |partial: &Partial| {
            // The first piece of each answer at once, then at most ten repaints a second however fast chunks come.
            let now = browser::now();
            if live.with_untracked(Option::is_none) || now - last_shown.get() >= LIVE_REPAINT_MS {
                last_shown.set(now);
                live.set(Some(partial.clone()));
            }
        };
        let script = loaded.demo.unwrap_or(&demo::PYTHON).script;
        let model = match PlaygroundModel::new(&choice, script, stop.clone(), show_asking, show_live) {
            Ok(m) => m,
            Err(e) => {
                self.status.set(RunStatus::Failed(e));
                return;
            }
        };
        let price = match &choice {
            ModelChoice::Demo => None,
            ModelChoice::Remote { endpoint, .. } => PriceTable::default().lookup(&endpoint.model),
        };
        let budget = self.budget.get_untracked();
        self.priced.set(price.is_some());
        let model = Budgeted::new(model, budget, price, Box::new(browser::now));
        let meter = model.meter();
        let config = AgentConfig {
            mode,
            overall_retries,
            context_window: choice.context_window(),
            tools: choice.tools(),
            edit_format: choice.edit_format(),
            judge: choice.judge(),
            ..AgentConfig::default()
        };
        let (events, usage, calls, spent, live) = (self.events, self.usage, self.model_calls, self.spent, self.live);
        let agent = Agent::new(loaded.repo.clone(), loaded.index.clone(), model, runner, config)
            .with_observer(Box::new(move |e: &Event| {
                if let Event::Model { usage: u, .. } = e {
                    live.set(None);
                    asking.set(None);
                    usage.update(|t| *t += *u);
                    calls.update(|c| *c += 1);
                    spent.set(meter.get());
                }
                events.update(|v| v.push(e.clone()));
            }))
            .with_clock(Box::new(browser::now));
        self.cancel.set_value(Some(agent.cancel()));
        self.abandon.set_value(Some(stop));
        self.status.set(RunStatus::Running);
        let started = browser::now();
        let state = self;
        spawn_local(async move {
            let result = agent.run(&issue).await;
            state.elapsed.set(browser::now() - started);
            // An answer that was still arriving stays in view, marked as cut by the end of the run.
            let partial = state.live.get_untracked();
            if let Some(asking) = state.asking.get_untracked() {
                let completion_tokens = partial.as_ref().map_or(0, partial_tokens);
                state.abandoned.set(Some(Usage { prompt_tokens: asking.prompt_tokens, completion_tokens }));
            }
            if let Some(partial) = partial.filter(|p| !p.answer.is_empty() || !p.reasoning.is_empty()) {
                state.interrupted.set(Some(partial));
            }
            match result {
                Ok(outcome) => {
                    let stopped = outcome.cancelled();
                    state.outcome.set(Some(outcome));
                    state.status.set(if stopped { RunStatus::Stopped } else { RunStatus::Done });
                }
                Err(AgentError::Cancelled) => state.status.set(RunStatus::Stopped),
                Err(AgentError::Llm(e)) => state.status.set(RunStatus::Failed(model::explain(&e))),
                Err(e) => state.status.set(RunStatus::Failed(e.to_string())),
            }
            state.live.set(None);
            state.asking.set(None);
            state.cancel.set_value(None);
            state.abandon.set_value(None);
        });
        spawn_local(async move {
            while state.busy_untracked() {
                state.elapsed.set(browser::now() - started);
                browser::sleep_ms(250).await;
            }
        });
    }

    fn busy_untracked(&self) -> bool {
        matches!(self.status.get_untracked(), RunStatus::Running | RunStatus::Stopping)
    }

    /// Stops the run: at its next step, or at once when it is waiting for a model server.
    pub fn stop(&self) {
        if let Some(flag) = self.cancel.get_value() {
            flag.set(true);
            self.status.set(RunStatus::Stopping);
        }
        if let Some(flag) = self.abandon.get_value() {
            flag.set(true);
        }
    }

    /// The whole run as JSON: what was asked, the outcome (when there is one) and every event.
    pub fn transcript_json(&self) -> String {
        let meta = self.meta.get_untracked();
        let outcome = self.outcome.get_untracked();
        let status = match self.status.get_untracked() {
            RunStatus::Failed(e) => format!("failed: {e}"),
            s => format!("{s:?}").to_lowercase(),
        };
        let value = json!({
            "repository": meta.repository,
            "issue": meta.issue,
            "mode": meta.mode,
            "model": meta.model,
            "runner": meta.runner,
            "run_status": status,
            "elapsed_ms": self.elapsed.get_untracked().round(),
            "outcome": outcome.as_ref().map(|o| json!({
                "status": o.status,
                "diff": o.diff,
                "reason": o.reason,
                "validated": o.validated,
                "locations": o.locations,
                "tries": o.tries,
                "selection": o.selection,
                "stopped": o.stopped,
            })),
            "budget": self.budget.get_untracked(),
            "usage": self.usage.get_untracked(),
            "model_calls": self.model_calls.get_untracked(),
            "events": self.events.with_untracked(|e| serde_json::to_value(e).unwrap_or_default()),
        });
        serde_json::to_string_pretty(&value).unwrap_or_default()
    }
}

impl Default for RunState {
    fn default() -> Self {
        RunState::new()
    }
}

/// The names of the languages this tab runs, as a sentence lists them (`Python, JavaScript and TypeScript`).
fn tab_languages() -> String {
    let names: Vec<&str> = Language::ALL.iter().filter(|l| l.row().runs_in_tab).map(|l| l.name()).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.join(""),
    }
}

/// The runner a run really uses: this tab runs only the languages whose rows say so
/// ([`acr_core::language::LanguageRow::runs_in_tab`]), so a run of another language goes without execution, with a
/// note saying so and what to choose instead.
fn tab_runs_the_language(runner: Option<PageRunner>, language: Language) -> (Option<PageRunner>, Option<String>) {
    match runner {
        Some(PageRunner::Tab(_)) if !language.row().runs_in_tab => (
            None,
            Some(format!(
                "This is a {} repository, and execution in this tab runs {} only: its patches are checked by the \
                 syntax gate alone. Choose the runner server in the settings to compile it and run its tests.",
                language.name(),
                tab_languages()
            )),
        ),
        runner => (runner, None),
    }
}
