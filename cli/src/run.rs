//! `acr run`: repair a repository for an issue, natively.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use acr_core::agent::{Agent, AgentConfig, Event, Mode, Outcome, Stop, Transcript};
use acr_core::llm::budget::{Budget, Budgeted, Spent};
use acr_core::llm::openai::{Endpoint, OpenAiClient};
use acr_core::llm::price::{Price, PriceTable};
use acr_core::llm::scripted::{Script, ScriptedModel};
use acr_core::llm::stream::Partial;
use acr_core::llm::{ChatRequest, ChatResponse, Llm, LlmError};
use acr_core::runner::{RunError, RunOutcome, RunRequest, Runner};
use acr_runner::exec::{Containment, ExecLimits, Sandbox};
use acr_runner::{HttpRunner, LocalRunner};
use anyhow::Context;

use crate::http::UreqTransport;
use crate::output::out;

/// Options of `acr run`.
pub struct RunArgs {
    /// Repository root.
    pub dir: PathBuf,
    /// File holding the issue text.
    pub issue: PathBuf,
    /// Chat-completions base URL.
    pub endpoint: Option<String>,
    /// Model name.
    pub model: String,
    /// Environment variable holding the API key.
    pub api_key_env: Option<String>,
    /// A model script instead of an endpoint.
    pub script: Option<PathBuf>,
    /// Repair strategy.
    pub mode: Mode,
    /// `local`, or the URL of a reproducer runner.
    pub runner: Option<String>,
    /// Environment variable holding the runner's token.
    pub runner_token_env: String,
    /// Run local reproducers without bubblewrap (only with `--runner local`).
    pub unsafe_no_sandbox: bool,
    /// The interpreter `python3` means in local runs (default: `python3` on PATH).
    pub python: Option<String>,
    /// Folder for the transcript and artefacts.
    pub out: Option<PathBuf>,
    /// Search round limit.
    pub max_rounds: usize,
    /// Whole-workflow tries.
    pub overall_retries: usize,
    /// Seconds to wait for each model answer.
    pub timeout: u64,
    /// Ask for streamed answers and echo them on stderr.
    pub stream: bool,
    /// Limits of the run, checked before each model call.
    pub budget: Budget,
    /// Extra model prices, `MODEL=IN/OUT` dollars per million tokens.
    pub prices: Vec<String>,
    /// The model's context window in tokens, if known.
    pub context_window: Option<u64>,
    /// Offer the search APIs as tools.
    pub tools: bool,
    /// The edit format the patch prompts ask for.
    pub edit_format: acr_core::patch::EditFormatChoice,
    /// Who judges a patch once a reproducer shows the bug.
    pub judge: acr_core::agent::Judge,
}

/// The model: an endpoint or a script.
pub(crate) enum CliModel {
    Remote(OpenAiClient<UreqTransport>),
    Scripted(ScriptedModel),
}

impl Llm for CliModel {
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        match self {
            CliModel::Remote(m) => m.chat(request).await,
            CliModel::Scripted(m) => m.chat(request).await,
        }
    }
    async fn context_window(&self) -> Option<u64> {
        match self {
            CliModel::Remote(m) => m.context_window().await,
            CliModel::Scripted(m) => m.context_window().await,
        }
    }
    async fn takes_json_schema(&self) -> Option<bool> {
        match self {
            CliModel::Remote(m) => m.takes_json_schema().await,
            CliModel::Scripted(m) => m.takes_json_schema().await,
        }
    }
}

/// A model that stops answering once the user has pressed Ctrl-C: no request is sent after it, and a call cut short
/// by it (a streamed answer the transport stopped reading) is reported as [`LlmError::Cancelled`].
pub(crate) struct Stoppable<L> {
    model: L,
    stop: Arc<AtomicBool>,
}

impl<L: Llm> Llm for Stoppable<L> {
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        if self.stop.load(Ordering::SeqCst) {
            return Err(LlmError::Cancelled);
        }
        match self.model.chat(request).await {
            Err(_) if self.stop.load(Ordering::SeqCst) => Err(LlmError::Cancelled),
            answer => answer,
        }
    }
    async fn context_window(&self) -> Option<u64> {
        self.model.context_window().await
    }
    async fn takes_json_schema(&self) -> Option<bool> {
        self.model.takes_json_schema().await
    }
}

/// Ctrl-C: the first press stops the run before its next model call (a streamed answer is cut at once) and keeps
/// what it made; a second press quits at once.
pub(crate) fn stop_on_ctrl_c() -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let installed = ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
        eprintln!(
            "\nstopping: the run ends before its next model call and keeps what it made (Ctrl-C again quits now)"
        );
    });
    if let Err(e) = installed {
        eprintln!("note: Ctrl-C will quit at once ({e})");
    }
    stop
}

/// The runner: local processes or a runner server.
pub(crate) enum CliRunner {
    Local(LocalRunner),
    Http(HttpRunner),
}

impl Runner for CliRunner {
    async fn run(&self, request: &RunRequest) -> Result<RunOutcome, RunError> {
        match self {
            CliRunner::Local(r) => r.run(request).await,
            CliRunner::Http(r) => r.run(request).await,
        }
    }
}

/// The local runner: bubblewrap, or nothing when the user says so (and then stderr says so too).
fn local_runner(unsafe_no_sandbox: bool, python: Option<&str>) -> anyhow::Result<LocalRunner> {
    if !unsafe_no_sandbox {
        return LocalRunner::detect(python).map_err(|e| anyhow::anyhow!("--runner local: {e}"));
    }
    let sandbox = Sandbox::unsafe_no_sandbox(python).map_err(|e| anyhow::anyhow!("--runner local: {e}"))?;
    eprintln!("{}", Containment::UNSAFE_WARNING);
    Ok(LocalRunner::new(sandbox, ExecLimits::default()))
}

/// The model `acr run` and `acr batch` talk to: `--script` or `--endpoint`, stopped by `stop`; with a `stream` hook,
/// answers are asked for streamed and each chunk goes to the hook as it arrives.
pub(crate) fn model_from(
    args: &RunArgs,
    stop: &Arc<AtomicBool>,
    stream: Option<impl Fn(&Partial) + 'static>,
) -> anyhow::Result<Stoppable<CliModel>> {
    let model = match (&args.script, &args.endpoint) {
        (Some(script), _) => {
            let text = std::fs::read_to_string(script).with_context(|| format!("cannot read {}", script.display()))?;
            CliModel::Scripted(ScriptedModel::new(Script::from_json(&text).map_err(anyhow::Error::msg)?))
        }
        (None, Some(url)) => {
            let api_key = match &args.api_key_env {
                Some(var) => {
                    std::env::var(var).with_context(|| format!("the environment variable {var} is not set"))?
                }
                None => String::new(),
            };
            let endpoint = Endpoint { base_url: url.clone(), model: args.model.clone(), api_key };
            let transport = UreqTransport::new(Duration::from_secs(args.timeout)).stopped_by(stop.clone());
            let client = OpenAiClient::new(endpoint, transport);
            CliModel::Remote(match stream {
                Some(hook) => client.streaming(hook),
                None => client,
            })
        }
        (None, None) => anyhow::bail!("give a model: --endpoint URL (with --model) or --script FILE"),
    };
    Ok(Stoppable { model, stop: stop.clone() })
}

/// The runner of `--runner`, if one is given.
pub(crate) fn runner_from(args: &RunArgs) -> anyhow::Result<Option<CliRunner>> {
    Ok(match args.runner.as_deref() {
        None => None,
        Some("local") => Some(CliRunner::Local(local_runner(args.unsafe_no_sandbox, args.python.as_deref())?)),
        Some(url) => {
            let token = std::env::var(&args.runner_token_env)
                .with_context(|| format!("the runner token variable {} is not set", args.runner_token_env))?;
            Some(CliRunner::Http(HttpRunner::new(url, &token)))
        }
    })
}

/// The model's price (`--price` over the built-in table), checked against the budget: a money limit needs one.
pub(crate) fn price_from(args: &RunArgs) -> anyhow::Result<Option<Price>> {
    let mut prices = PriceTable::default();
    for spec in &args.prices {
        prices.set_from(spec).map_err(anyhow::Error::msg)?;
    }
    let price = prices.lookup(&args.model);
    args.budget.check(&args.model, price).map_err(|e| anyhow::anyhow!("{e} (--price {}=IN/OUT)", args.model))?;
    Ok(price)
}

/// The agent's settings from the options.
pub(crate) fn config_from(args: &RunArgs) -> AgentConfig {
    AgentConfig {
        mode: args.mode,
        max_search_rounds: args.max_rounds,
        overall_retries: args.overall_retries,
        context_window: args.context_window,
        tools: args.tools,
        edit_format: args.edit_format,
        judge: args.judge,
        ..AgentConfig::default()
    }
}

/// What one repair made: the agent's outcome (or why it failed) and what its model calls used.
pub(crate) struct Repaired {
    pub result: Result<Outcome, acr_core::agent::AgentError>,
    pub spent: Spent,
}

/// Repairs `repo` for `issue` with `model` under `budget` (each event goes to `observer` as it happens), and writes
/// the transcript and artefacts into `out`, also when the run fails midway. Shared by `acr run` and `acr batch`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn repair<L: Llm, R: Runner>(
    repo: acr_core::repo::Repo,
    issue: &str,
    model: L,
    runner: Option<R>,
    config: AgentConfig,
    (budget, price): (Budget, Option<Price>),
    out: Option<&Path>,
    mut observer: impl FnMut(&Event) + 'static,
) -> anyhow::Result<Repaired> {
    let settings = serde_json::json!({ "edit_format": config.edit_format.to_string(), "judge": config.judge });
    let index = acr_core::Index::build(&repo);
    let started = Instant::now();
    let model = Budgeted::new(model, budget, price, Box::new(move || started.elapsed().as_secs_f64() * 1000.0));
    // Every event as it happens, so a run that fails midway still leaves its transcript in `--out`.
    let seen: Rc<RefCell<Vec<Event>>> = Rc::default();
    let record = seen.clone();
    let agent = Agent::new(Rc::new(repo), Rc::new(index), &model, runner, config)
        .with_clock(Box::new(move || started.elapsed().as_secs_f64() * 1000.0))
        .with_observer(Box::new(move |e| {
            observer(e);
            record.borrow_mut().push(e.clone());
        }));
    let result = pollster::block_on(agent.run(issue));
    if let Some(out) = out {
        match &result {
            Ok(outcome) => {
                let mut summary = summary_of(outcome);
                summary["settings"] = settings;
                write_artefacts(out, &outcome.transcript, &summary, &outcome.diff)?
            }
            Err(e) => {
                let transcript = Transcript::from_events(seen.take());
                let summary = serde_json::json!({
                    "status": "FAILED",
                    "error": e.to_string(),
                    "settings": settings,
                    "model_calls": transcript.model_calls,
                    "usage": transcript.usage,
                });
                write_artefacts(out, &transcript, &summary, "")?;
            }
        }
    }
    Ok(Repaired { result, spent: model.spent() })
}

/// Runs the agent and prints the final diff; progress goes to stderr.
pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let issue =
        std::fs::read_to_string(&args.issue).with_context(|| format!("cannot read {}", args.issue.display()))?;
    let repo = crate::load::repo_from_dir(&args.dir)?;
    let echo = Echo::default();
    let stop = stop_on_ctrl_c();
    let model = model_from(&args, &stop, args.stream.then(|| echo.hook()))?;
    let runner = runner_from(&args)?;
    let price = price_from(&args)?;
    let started = Instant::now();
    let observer = move |e: &Event| {
        if matches!(e, Event::Model { .. }) {
            echo.end_answer();
        }
        eprintln!("{}", progress_line(e));
    };
    let Repaired { result, spent } =
        repair(repo, &issue, model, runner, config_from(&args), (args.budget, price), args.out.as_deref(), observer)?;
    let outcome = match result {
        Ok(outcome) => outcome,
        Err(e) => {
            if let Some(out) = &args.out {
                eprintln!("wrote the transcript so far to {}", out.display());
            }
            anyhow::bail!("the run stopped: {e}");
        }
    };
    if let Some(out) = &args.out {
        eprintln!("wrote the transcript and artefacts to {}", out.display());
    }
    match &outcome.stopped {
        Some(Stop::Cancelled) => eprintln!("stopped early by Ctrl-C"),
        Some(stop) => eprintln!("stopped early: {stop}; {}", stop_advice(stop)),
        None => {}
    }
    eprintln!(
        "status: {} ({} model calls, {} + {} tokens{}{}, {:.1} s{})",
        outcome.status.as_str(),
        outcome.transcript.model_calls,
        outcome.transcript.usage.prompt_tokens,
        outcome.transcript.usage.completion_tokens,
        if spent.estimated { " (some estimated)" } else { "" },
        price.map_or(String::new(), |_| format!(", ${:.4}", spent.cost)),
        started.elapsed().as_secs_f64(),
        if outcome.validated { ", validated by execution" } else { "" }
    );
    // 130: stopped by Ctrl-C; 2: stopped by the model server (a patch made before is still printed); 0 or 1: the
    // run ended on its own or on its budget, with or without a patch.
    let code = match &outcome.stopped {
        Some(Stop::Cancelled) => Some(130),
        Some(stop) if stop.by_server() => Some(2),
        _ => None,
    };
    if outcome.status.is_applicable() {
        out!("{}", outcome.diff);
        Ok(ExitCode::from(code.unwrap_or(0)))
    } else {
        eprintln!("no applicable patch: {}", outcome.reason);
        Ok(ExitCode::from(code.unwrap_or(1)))
    }
}

/// Streamed answers on stderr as they arrive: the answer's new text after each chunk (thinking is left out: it can
/// be long, and the transcript keeps it).
#[derive(Clone, Default)]
struct Echo {
    /// The current answer as printed so far.
    printed: Rc<RefCell<String>>,
}

impl Echo {
    /// The client's hook: prints what is new since the last chunk. When the answer so far turns out to have been
    /// thinking (a `</think>` arrives with no opening tag), the answer is printed again from its new start.
    fn hook(&self) -> impl Fn(&Partial) + 'static {
        let printed = self.printed.clone();
        move |partial| {
            let mut printed = printed.borrow_mut();
            let new = match partial.answer.strip_prefix(printed.as_str()) {
                Some(new) => new,
                None => {
                    eprint!("\n  (the text above was thinking)\n");
                    printed.clear();
                    &partial.answer
                }
            };
            if new.is_empty() {
                return;
            }
            if printed.is_empty() {
                eprint!("  > ");
            }
            eprint!("{}", new.replace('\n', "\n    "));
            printed.push_str(new);
        }
    }

    /// Ends the echo of one answer with a newline, if anything was echoed.
    fn end_answer(&self) {
        if !std::mem::take(&mut *self.printed.borrow_mut()).is_empty() {
            eprintln!();
        }
    }
}

/// One line per event for the terminal.
fn progress_line(event: &Event) -> String {
    match event {
        Event::Phase { name } => format!("== {name}"),
        Event::Model { stage, usage, usage_estimated, ms, tool_calls, cut, .. } => {
            let about = if *usage_estimated { "~" } else { "" };
            let calls = match tool_calls.len() {
                0 => String::new(),
                1 => ", 1 tool call".to_string(),
                n => format!(", {n} tool calls"),
            };
            let cut = cut.as_ref().map_or(String::new(), |c| format!(", {c}"));
            format!(
                "  model [{stage}] {about}{} + {about}{} tokens, {ms:.0} ms{calls}{cut}",
                usage.prompt_tokens, usage.completion_tokens
            )
        }
        Event::Proxy { round, source, calls, locations, problems, .. } => format!(
            "  round {round}: proxy ({source}) {} calls, {} locations{}",
            calls.len(),
            locations.len(),
            if problems.is_empty() { String::new() } else { format!(", problems: {}", problems.join("; ")) }
        ),
        Event::Search { call, ok, .. } => format!("  {call} -> {}", if *ok { "found" } else { "nothing" }),
        Event::Locations { found, not_found, .. } => {
            let names: Vec<String> = found.iter().map(|l| format!("{}:{}-{}", l.file, l.start, l.end)).collect();
            format!("  locations: [{}], {} not found", names.join(", "), not_found.len())
        }
        Event::Patch { attempt, status, reason, .. } => {
            format!(
                "  patch attempt {attempt}: {}{}",
                status.as_str(),
                if reason.is_empty() { String::new() } else { format!(" ({reason})") }
            )
        }
        Event::Run { purpose, outcome } => format!(
            "  run ({purpose}): exit {:?}{} in {} ms",
            outcome.exit_code,
            if outcome.timed_out { ", timed out" } else { "" },
            outcome.duration_ms
        ),
        Event::Review { round, patch_correct, test_correct, .. } => {
            format!("  review {round}: patch {}, test {}", verdict(*patch_correct), verdict(*test_correct))
        }
        Event::Mcts { iteration, node, children, .. } => {
            let c: Vec<String> = children.iter().map(|(id, r)| format!("#{id}={r:.2}")).collect();
            format!("  mcts {iteration}: expanded #{node} -> [{}]", c.join(", "))
        }
        Event::Try { number, of } => format!("== try {number} of at most {of}"),
        Event::Shown { units } => {
            let names: Vec<String> =
                units.iter().map(|u| format!("{}:{}-{} ({})", u.file, u.start, u.end, u.why)).collect();
            format!("  shown to the patch writer: {}", names.join("; "))
        }
        Event::Selection { chosen, reason, .. } => match chosen {
            Some(n) => format!("== chose try {n}: {reason}"),
            None => format!("== no patch chosen: {reason}"),
        },
        Event::Note { text } => format!("  note: {text}"),
    }
}

fn verdict(ok: bool) -> &'static str {
    if ok { "correct" } else { "wrong" }
}

/// outcome.json of a finished (or stopped) run.
pub(crate) fn summary_of(outcome: &Outcome) -> serde_json::Value {
    serde_json::json!({
        "status": outcome.status.as_str(),
        "validated": outcome.validated,
        "reason": outcome.reason,
        "stopped": outcome.stopped,
        "locations": outcome.locations,
        "tries": outcome.tries,
        "selection": outcome.selection,
        "model_calls": outcome.transcript.model_calls,
        "usage": outcome.transcript.usage,
    })
}

/// Writes outcome.json (`summary`), transcript.json, final.diff and one file per model call, as AutoCodeRover's
/// output folders do.
fn write_artefacts(out: &Path, transcript: &Transcript, summary: &serde_json::Value, diff: &str) -> anyhow::Result<()> {
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let write = |name: &str, text: &str| {
        std::fs::write(out.join(name), text).with_context(|| format!("cannot write {}", out.join(name).display()))
    };
    write("transcript.json", &serde_json::to_string_pretty(transcript)?)?;
    write("outcome.json", &serde_json::to_string_pretty(summary)?)?;
    write("final.diff", diff)?;
    let mut n = 0;
    for event in &transcript.events {
        if let Event::Model { stage, prompt, answer, reasoning, tool_calls, cut, .. } = event {
            n += 1;
            let thinking = reasoning.as_deref().map_or(String::new(), |r| format!("## reasoning\n\n{r}\n\n"));
            let answer = match cut {
                Some(cut) => format!("{answer}\n\n(the answer {cut})"),
                None => answer.clone(),
            };
            let calls: String = tool_calls.iter().map(|c| format!("- `{}` ({})\n", c.as_text(), c.id)).collect();
            let calls = if calls.is_empty() { calls } else { format!("\n## tool calls\n\n{calls}") };
            write(
                &format!("model_{n:03}_{stage}.md"),
                &format!("## prompt\n\n{prompt}\n\n{thinking}## answer\n\n{answer}\n{calls}"),
            )?;
        }
    }
    Ok(())
}

/// What to do about a run stopped early, in the terms of `acr run`'s options.
fn stop_advice(stop: &Stop) -> &'static str {
    match stop {
        Stop::Budget(_) => {
            "raise the limit it names (--max-calls, --max-tokens, --max-seconds, --max-cost; 0 for none)"
        }
        Stop::Cancelled => "the same command runs it again",
        Stop::KeyRefused(_) => "check the key in the variable --api-key-env names",
        Stop::ModelUnknown(_) => {
            "check --model against the server's list of models (GET /v1/models), and that --endpoint is the server's \
             OpenAI-compatible base (it usually ends in /v1)"
        }
        Stop::Unreachable(_) => "check --endpoint and that the server is running; a rate limit passes with time",
        Stop::ServerError(_) => "each failed call and what the server said are in the transcript (--out DIR)",
        Stop::ContextTooSmall(_) => {
            "start the server with a larger context window (llama-server -c N, OLLAMA_CONTEXT_LENGTH=N for Ollama) and \
             pass the same --context-window N"
        }
    }
}
