//! The options of one repair, shared by `acr run` (the run) and `acr batch` (each task): the model, where
//! reproducers run, the search and patch limits, the budget and the manner of asking.

use std::path::PathBuf;

use acr_core::llm::budget::Budget;

use crate::run::RunArgs;
use crate::{EditFormatArg, JudgeArg, ModeArg};

/// See the module's summary; `acr batch` adds a budget for the whole batch on top of these.
#[derive(clap::Args)]
pub struct RepairOptions {
    /// OpenAI-compatible base URL, e.g. https://api.openai.com/v1 or http://localhost:11434/v1.
    #[arg(long)]
    pub endpoint: Option<String>,
    /// Model name.
    #[arg(long, default_value = "gpt-4o")]
    pub model: String,
    /// Environment variable holding the API key.
    #[arg(long, value_name = "VAR")]
    pub api_key_env: Option<String>,
    /// Answer from a model script instead of an endpoint (see `acr serve-model`).
    #[arg(long, value_name = "FILE.json")]
    pub script: Option<PathBuf>,
    /// Repair strategy.
    #[arg(long, value_enum, default_value = "acr")]
    pub mode: ModeArg,
    /// Execute reproducers: `local` (sandboxed processes) or a runner server's URL.
    #[arg(long)]
    pub runner: Option<String>,
    /// Environment variable holding the runner server's token.
    #[arg(long, value_name = "VAR", default_value = "ACR_RUNNER_TOKEN")]
    pub runner_token_env: String,
    /// With `--runner local`: run reproducers WITHOUT the bubblewrap sandbox (they can read and change your
    /// files). Only for machines where bubblewrap cannot run.
    #[arg(long)]
    pub unsafe_no_sandbox: bool,
    /// With `--runner local`: the Python interpreter `python3` means in reproducers (default: python3 on PATH).
    #[arg(long, value_name = "PYTHON")]
    pub python: Option<String>,
    /// Search rounds before patching without locations.
    #[arg(long, default_value_t = 15)]
    pub max_rounds: usize,
    /// Whole-workflow tries (a new conversation each) while no acceptable patch comes out.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u16).range(1..=20))]
    pub overall_retries: u16,
    /// Seconds to wait for each model answer.
    #[arg(long, default_value_t = 300)]
    pub timeout: u64,
    /// Ask for streamed answers (server-sent events); `acr run` shows them on stderr as they arrive.
    #[arg(long)]
    pub stream: bool,
    /// Most model calls in the run (0: no limit).
    #[arg(long, value_name = "N", default_value_t = Budget::default().max_calls.unwrap_or(0))]
    pub max_calls: u64,
    /// Most tokens in and out over the run, checked before each call (0: no limit).
    #[arg(long, value_name = "N", default_value_t = Budget::default().max_tokens.unwrap_or(0))]
    pub max_tokens: u64,
    /// Most seconds of wall time for the run's model calls (0: no limit).
    #[arg(long, value_name = "S", default_value_t = Budget::default().max_seconds.unwrap_or(0.0))]
    pub max_seconds: f64,
    /// Most US dollars spent, at the model's price (needs a price for the model; default: no limit).
    #[arg(long, value_name = "USD")]
    pub max_cost: Option<f64>,
    /// A model's price, dollars per million tokens in and out, e.g. `--price gpt-4o=2.5/10` (repeatable; common
    /// OpenAI models are priced already).
    #[arg(long, value_name = "MODEL=IN/OUT")]
    pub price: Vec<String>,
    /// The model's context window in tokens: older search results are left out (with a note the model reads)
    /// so that no request is longer. Default: none (requests are sent whole). Set it for local servers: Ollama
    /// cuts an over-long prompt silently.
    #[arg(long, value_name = "TOKENS")]
    pub context_window: Option<u64>,
    /// Offer the search APIs to the model as tools (function calling) instead of asking for calls in the text.
    /// A server that refuses tools is asked again without them, and the run goes on in text.
    #[arg(long)]
    pub tools: bool,
    /// The edit format the patch prompts ask for: AutoCodeRover's tags, SEARCH/REPLACE blocks, a unified diff,
    /// whole definitions, whole files, or `auto` (by model name, from a table: SEARCH/REPLACE for large hosted
    /// models, definitions for small local ones, AutoCodeRover's tags otherwise and for a --script). An answer is
    /// read in the format asked first; other formats count only in code fences, when it holds none.
    #[arg(long, value_enum, default_value = "auto")]
    pub edit_format: EditFormatArg,
    /// Who judges a patch once a reproducer shows the bug: `reviewer` (the model reviews the patch and the test, as
    /// AutoCodeRover does), `execution` (the reproducer decides, and no test is rewritten), or `auto` (by model name,
    /// from the same table: execution for small local models, whose reviews disagree with execution about half the
    /// time; the reviewer otherwise and for a --script).
    #[arg(long, value_enum, default_value = "auto")]
    pub judge: JudgeArg,
}

impl RepairOptions {
    /// What `acr run` needs for a repair of `dir` for the issue in `issue`, with artefacts in `out`.
    pub fn run_args(&self, dir: PathBuf, issue: PathBuf, out: Option<PathBuf>) -> RunArgs {
        RunArgs {
            dir,
            issue,
            endpoint: self.endpoint.clone(),
            model: self.model.clone(),
            api_key_env: self.api_key_env.clone(),
            script: self.script.clone(),
            mode: match self.mode {
                ModeArg::Acr => acr_core::agent::Mode::Acr,
                ModeArg::Mcts => acr_core::agent::Mode::Mcts,
            },
            runner: self.runner.clone(),
            runner_token_env: self.runner_token_env.clone(),
            unsafe_no_sandbox: self.unsafe_no_sandbox,
            python: self.python.clone(),
            out,
            max_rounds: self.max_rounds,
            overall_retries: usize::from(self.overall_retries),
            timeout: self.timeout,
            stream: self.stream,
            budget: Budget {
                max_calls: Some(self.max_calls).filter(|&n| n > 0),
                max_tokens: Some(self.max_tokens).filter(|&n| n > 0),
                max_seconds: Some(self.max_seconds).filter(|&s| s > 0.0),
                max_cost: self.max_cost,
            },
            prices: self.price.clone(),
            context_window: self.context_window,
            tools: self.tools,
            edit_format: self.edit_format.choice(&self.model, self.script.is_some()),
            judge: self.judge.choice(&self.model, self.script.is_some()),
        }
    }
}
