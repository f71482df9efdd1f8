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
mod repair_options;
mod run;
mod search;
mod serve_model;
mod write;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

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
        /// Folder for the transcript and artefacts.
        #[arg(long)]
        out: Option<PathBuf>,
        #[command(flatten)]
        repair: repair_options::RepairOptions,
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
        /// Bill every answer as long as its cap (usage.completion_tokens = max_tokens): the worst case for budgets.
        #[arg(long)]
        answer_to_cap: bool,
        /// Refuse (HTTP 400) every request whose messages contain TEXT.
        #[arg(long, value_name = "TEXT")]
        refuse_when: Option<String>,
        /// Play a release (for OpenAI, a model) that takes no JSON schema for the answer: refused in the server's
        /// words, or, for Ollama before 0.5, ignored while /api/version says the release.
        #[arg(long)]
        no_json_schema: bool,
    },
    /// Index a repository's sources (Python, Java, JavaScript and TypeScript) and print counts.
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
    /// Turn a model's answer, in any edit format (ACR's tags, SEARCH/REPLACE blocks, a unified diff, whole
    /// definitions or whole files), into a diff (exit 0 when applicable).
    Apply {
        /// Repository root.
        dir: PathBuf,
        /// File holding the model's answer.
        answer: PathBuf,
        /// The edit format the model was asked for: its edits are read first, and the other formats only in code
        /// fences when it has none. Default: every format, each as far as it is sure.
        #[arg(long, value_enum)]
        format: Option<FormatArg>,
        /// Print JSON: status, reason, diff and one entry per edit.
        #[arg(long)]
        json: bool,
        /// Write the changed files into DIR (only when the patch is applicable).
        #[arg(long)]
        write: bool,
    },
    /// Run the syntax gate on source files (Python: CPython 3.12's verdict; Java: javac's parser's; JavaScript:
    /// V8's; TypeScript: the typescript package's parser's) and print the
    /// first problem of each; files of no known language are not checked.
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
enum FormatArg {
    /// `<file>/<original>/<patched>` blocks.
    Acr,
    /// SEARCH/REPLACE blocks.
    SearchReplace,
    /// A unified diff.
    Udiff,
    /// Whole definitions (functions, methods, classes), each replacing the one it names.
    Definition,
    /// Whole files.
    Whole,
}

impl FormatArg {
    /// The core's format.
    fn format(self) -> acr_core::patch::EditFormat {
        use acr_core::patch::EditFormat;
        match self {
            FormatArg::Acr => EditFormat::Acr,
            FormatArg::SearchReplace => EditFormat::SearchReplace,
            FormatArg::Udiff => EditFormat::Udiff,
            FormatArg::Definition => EditFormat::Definition,
            FormatArg::Whole => EditFormat::Whole,
        }
    }
}

/// The edit format a repair asks for, as the command line spells it: a format, or `auto`.
#[derive(Clone, Copy, clap::ValueEnum)]
enum EditFormatArg {
    /// `<file>/<original>/<patched>` blocks.
    Acr,
    /// SEARCH/REPLACE blocks.
    SearchReplace,
    /// A unified diff.
    Udiff,
    /// Whole definitions (functions, methods, classes).
    Definition,
    /// Whole files.
    Whole,
    /// Chosen by model name (core/src/model_defaults.tsv): SEARCH/REPLACE for large hosted models, definitions for small and
    /// local ones, AutoCodeRover's tags for models it does not know and for model scripts.
    Auto,
}

impl EditFormatArg {
    /// The choice for `model`; `scripted` when the answers come from a script (recorded in AutoCodeRover's format
    /// unless a format is named).
    fn choice(self, model: &str, scripted: bool) -> acr_core::patch::EditFormatChoice {
        use acr_core::patch::EditFormatChoice;
        let fixed = |f: FormatArg| EditFormatChoice::fixed(f.format());
        match self {
            EditFormatArg::Acr => fixed(FormatArg::Acr),
            EditFormatArg::SearchReplace => fixed(FormatArg::SearchReplace),
            EditFormatArg::Udiff => fixed(FormatArg::Udiff),
            EditFormatArg::Definition => fixed(FormatArg::Definition),
            EditFormatArg::Whole => fixed(FormatArg::Whole),
            EditFormatArg::Auto if scripted => EditFormatChoice::default(),
            EditFormatArg::Auto => acr_core::model_defaults::edit_format(model),
        }
    }
}

/// Who judges a patch, as the command line spells it.
#[derive(Clone, Copy, clap::ValueEnum)]
enum JudgeArg {
    /// The model reviews the patch and the test (AutoCodeRover).
    Reviewer,
    /// The reproducer decides.
    Execution,
    /// Chosen by model name (core/src/model_defaults.tsv): execution for small local models, the reviewer
    /// otherwise and for model scripts.
    Auto,
}

impl JudgeArg {
    /// The judge for `model`; `scripted` when the answers come from a script (recorded with the reviewer unless a
    /// judge is named).
    fn choice(self, model: &str, scripted: bool) -> acr_core::agent::Judge {
        use acr_core::agent::Judge;
        match self {
            JudgeArg::Reviewer => Judge::Reviewer,
            JudgeArg::Execution => Judge::Execution,
            JudgeArg::Auto if scripted => Judge::Reviewer,
            JudgeArg::Auto => acr_core::model_defaults::judge(model),
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
        Command::Run { dir, issue, out, repair } => run::run(repair.run_args(dir, issue, out)),
        Command::Batch(command) => batch::run(command),
        Command::ServeModel {
            script,
            port,
            host,
            event_gap_ms,
            dialect,
            context_window,
            answer_to_cap,
            refuse_when,
            no_json_schema,
        } => {
            let manner = serve_model::Manner {
                dialect,
                event_gap: Duration::from_millis(event_gap_ms),
                context_window,
                answer_to_cap,
                refuse_when,
                json_schema: !no_json_schema,
            };
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
        Command::Apply { dir, answer, format, json, write } => {
            apply::run(&dir, &answer, format.map(FormatArg::format), json, write)
        }
        Command::Check { files, json } => check::run(&files, json),
    }
}
