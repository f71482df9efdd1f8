//! `acr`: AutoCodeRover's pipeline on a local repository.

mod apply;
mod batch;
mod check;
mod dialect;
mod http;
mod index;
mod load;
mod locate;
mod output;
mod run;
mod search;
mod serve_model;
mod write;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use acr_core::llm::budget::Budget;
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "acr", version, about = "AutoCodeRover's repair pipeline, natively")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
// Parsed once per process: the size of the `run` variant costs nothing.
#[allow(clippy::large_enum_variant)]
enum Command {
    /// Repair a repository for an issue: search, locate, patch (and review or tree search).
    Run {
        /// Repository root.
        dir: PathBuf,
        /// File holding the issue text.
        #[arg(long)]
        issue: PathBuf,
        /// OpenAI-compatible base URL, e.g. https://api.openai.com/v1 or http://localhost:11434/v1.
        #[arg(long)]
        endpoint: Option<String>,
        /// Model name.
        #[arg(long, default_value = "gpt-4o")]
        model: String,
        /// Environment variable holding the API key.
        #[arg(long, value_name = "VAR")]
        api_key_env: Option<String>,
        /// Answer from a model script instead of an endpoint (see `acr serve-model`).
        #[arg(long, value_name = "FILE.json")]
        script: Option<PathBuf>,
        /// Repair strategy.
        #[arg(long, value_enum, default_value = "acr")]
        mode: ModeArg,
        /// Execute reproducers: `local` (sandboxed processes) or a runner server's URL.
        #[arg(long)]
        runner: Option<String>,
        /// Environment variable holding the runner server's token.
        #[arg(long, value_name = "VAR", default_value = "ACR_RUNNER_TOKEN")]
        runner_token_env: String,
        /// With `--runner local`: run reproducers WITHOUT the bubblewrap sandbox (they can read and change your
        /// files). Only for machines where bubblewrap cannot run.
        #[arg(long)]
        unsafe_no_sandbox: bool,
        /// With `--runner local`: the Python interpreter `python3` means in reproducers (default: python3 on PATH).
        #[arg(long, value_name = "PYTHON")]
        python: Option<String>,
        /// Folder for the transcript and artefacts.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Search rounds before patching without locations.
        #[arg(long, default_value_t = 15)]
        max_rounds: usize,
        /// Whole-workflow tries (a new conversation each) while no acceptable patch comes out.
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u16).range(1..=20))]
        overall_retries: u16,
        /// Seconds to wait for each model answer.
        #[arg(long, default_value_t = 300)]
        timeout: u64,
        /// Ask for streamed answers (server-sent events) and show them on stderr as they arrive.
        #[arg(long)]
        stream: bool,
        /// Most model calls in the run (0: no limit).
        #[arg(long, value_name = "N", default_value_t = Budget::default().max_calls.unwrap_or(0))]
        max_calls: u64,
        /// Most tokens in and out over the run, checked before each call (0: no limit).
        #[arg(long, value_name = "N", default_value_t = Budget::default().max_tokens.unwrap_or(0))]
        max_tokens: u64,
        /// Most seconds of wall time for the run's model calls (0: no limit).
        #[arg(long, value_name = "S", default_value_t = Budget::default().max_seconds.unwrap_or(0.0))]
        max_seconds: f64,
        /// Most US dollars spent, at the model's price (needs a price for the model; default: no limit).
        #[arg(long, value_name = "USD")]
        max_cost: Option<f64>,
        /// A model's price, dollars per million tokens in and out, e.g. `--price gpt-4o=2.5/10` (repeatable; common
        /// OpenAI models are priced already).
        #[arg(long, value_name = "MODEL=IN/OUT")]
        price: Vec<String>,
        /// The model's context window in tokens: older search results are left out (with a note the model reads)
        /// so that no request is longer. Default: none (requests are sent whole). Set it for local servers: Ollama
        /// cuts an over-long prompt silently.
        #[arg(long, value_name = "TOKENS")]
        context_window: Option<u64>,
        /// Offer the search APIs to the model as tools (function calling) instead of asking for calls in the text.
        /// A server that refuses tools is asked again without them, and the run goes on in text.
        #[arg(long)]
        tools: bool,
        /// The edit format the patch prompts ask for: AutoCodeRover's tags, SEARCH/REPLACE blocks, a unified diff,
        /// whole files, or `auto` (by model name, from a table; small local models get whole files for short
        /// files). Answers are read in every format whatever this says.
        #[arg(long, value_enum, default_value = "acr")]
        edit_format: EditFormatArg,
    },
    /// Repair a list of SWE-bench tasks into SWE-bench predictions: workers, a shared budget, resume, shards (and
    /// `acr batch merge` to join the shards' predictions).
    Batch(batch::BatchCommand),
    /// Serve a model script as an OpenAI-compatible chat-completions endpoint (for tests and demos).
    ServeModel {
        /// The script: {"answers": {"search": [...], "patch": [...], ...}, "repeat_last": false}.
        #[arg(long)]
        script: PathBuf,
        /// Port (0 picks a free one).
        #[arg(long, default_value_t = 0)]
        port: u16,
        /// Address to bind.
        #[arg(long, default_value = "127.0.0.1")]
        host: String,
        /// Milliseconds between the events of a streamed answer (a slow model, to watch or stop mid-answer).
        #[arg(long, value_name = "MS", default_value_t = 2)]
        event_gap_ms: u64,
        /// The server to behave like where servers differ: where thinking goes, streamed usage, what is refused.
        #[arg(long, value_enum, default_value = "openai")]
        dialect: dialect::Dialect,
        /// A context limit in (estimated) tokens: longer prompts are refused, or cut silently as Ollama does.
        #[arg(long, value_name = "TOKENS")]
        context_window: Option<u64>,
    },
    /// Index a repository's Python sources and print counts.
    Index {
        /// Repository root.
        dir: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Resolve a bug location to code through the six tiers and show what each tier tried.
    Locate {
        /// Repository root.
        dir: PathBuf,
        /// File path or name (matched case-insensitively by path suffix).
        #[arg(long)]
        file: Option<String>,
        /// Class name.
        #[arg(long)]
        class: Option<String>,
        /// Method or function name (`Class.method` is split).
        #[arg(long)]
        method: Option<String>,
        /// Intended behaviour text to attach to the locations.
        #[arg(long, default_value = "")]
        intended: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Run a search API call, e.g. `acr search DIR 'search_method_in_class("write", "RST")'`.
    Search {
        /// Repository root.
        dir: PathBuf,
        /// The call, in Python syntax.
        call: Option<String>,
        /// Print {"ok", "output", "results"} as JSON.
        #[arg(long)]
        json: bool,
        /// Run every call of a JSON-lines file ({"api": ..., "args": {...} or [...]}), one JSON result per line.
        #[arg(long, value_name = "FILE.jsonl")]
        batch: Option<PathBuf>,
        /// Index test files too (ACR's 2024 runs did).
        #[arg(long)]
        include_tests: bool,
    },
    /// Turn a model's `<file>/<original>/<patched>` answer into a diff (exit 0 when applicable).
    Apply {
        /// Repository root.
        dir: PathBuf,
        /// File holding the model's answer.
        answer: PathBuf,
        /// Print JSON: status, reason, diff and one entry per edit.
        #[arg(long)]
        json: bool,
        /// Write the changed files into DIR (only when the patch is applicable).
        #[arg(long)]
        write: bool,
    },
    /// Run the syntax gate on Python files and print the first problem of each.
    Check {
        /// Files to check.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Print one JSON object per file.
        #[arg(long)]
        json: bool,
    },
}

/// Edit formats, as the command line spells them.
#[derive(Clone, Copy, clap::ValueEnum)]
enum EditFormatArg {
    /// `<file>/<original>/<patched>` blocks.
    Acr,
    /// SEARCH/REPLACE blocks.
    SearchReplace,
    /// A unified diff.
    Udiff,
    /// Whole files.
    Whole,
    /// Chosen by model name.
    Auto,
}

impl EditFormatArg {
    /// The choice for `model`.
    fn choice(self, model: &str) -> acr_core::patch::EditFormatChoice {
        use acr_core::patch::{EditFormat, EditFormatChoice};
        match self {
            EditFormatArg::Acr => EditFormatChoice::fixed(EditFormat::Acr),
            EditFormatArg::SearchReplace => EditFormatChoice::fixed(EditFormat::SearchReplace),
            EditFormatArg::Udiff => EditFormatChoice::fixed(EditFormat::Udiff),
            EditFormatArg::Whole => EditFormatChoice::fixed(EditFormat::Whole),
            EditFormatArg::Auto => EditFormatChoice::auto(model),
        }
    }
}

/// Repair strategies, as the command line spells them.
#[derive(Clone, Copy, clap::ValueEnum)]
enum ModeArg {
    /// AutoCodeRover: patch with retries, then review by execution when a runner is given.
    Acr,
    /// APR-MCTS: tree search over patch candidates.
    Mcts,
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("acr: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Run {
            dir,
            issue,
            endpoint,
            model,
            api_key_env,
            script,
            mode,
            runner,
            runner_token_env,
            unsafe_no_sandbox,
            python,
            out,
            max_rounds,
            overall_retries,
            timeout,
            stream,
            max_calls,
            max_tokens,
            max_seconds,
            max_cost,
            price,
            context_window,
            tools,
            edit_format,
        } => run::run(run::RunArgs {
            edit_format: edit_format.choice(&model),
            dir,
            issue,
            endpoint,
            model,
            api_key_env,
            script,
            mode: match mode {
                ModeArg::Acr => acr_core::agent::Mode::Acr,
                ModeArg::Mcts => acr_core::agent::Mode::Mcts,
            },
            runner,
            runner_token_env,
            unsafe_no_sandbox,
            python,
            out,
            max_rounds,
            overall_retries: usize::from(overall_retries),
            timeout,
            stream,
            budget: Budget {
                max_calls: Some(max_calls).filter(|&n| n > 0),
                max_tokens: Some(max_tokens).filter(|&n| n > 0),
                max_seconds: Some(max_seconds).filter(|&s| s > 0.0),
                max_cost,
            },
            prices: price,
            context_window,
            tools,
        }),
        Command::Batch(command) => batch::run(command),
        Command::ServeModel { script, port, host, event_gap_ms, dialect, context_window } => {
            let manner =
                serve_model::Manner { dialect, event_gap: Duration::from_millis(event_gap_ms), context_window };
            serve_model::run(&script, &host, port, manner)
        }
        Command::Index { dir, json } => index::run(&dir, json),
        Command::Locate { dir, file, class, method, intended, json } => {
            locate::run(&dir, file.as_deref(), class.as_deref(), method.as_deref(), &intended, json)
        }
        Command::Search { dir, call, json, batch, include_tests } => search::run(&search::SearchArgs {
            dir: &dir,
            call: call.as_deref(),
            json,
            batch: batch.as_deref(),
            include_tests,
        }),
        Command::Apply { dir, answer, json, write } => apply::run(&dir, &answer, json, write),
        Command::Check { files, json } => check::run(&files, json),
    }
}
