//! # acr-core
//!
//! AutoCodeRover's program-repair pipeline as a pure library. It performs no I/O: repositories come in as
//! bytes or text, and the LLM and the test runner are traits implemented at the edges (CLI, browser).
//!
//! The modules follow the pipeline:
//!
//! | stage | module | what it does |
//! |---|---|---|
//! | load | [`repo`] | files in memory, from a map or a zip (whose sources other threads can read), with skipped files and reasons |
//! | parse | [`python`] | tree-sitter-python behind one guard (comment runs blanked: the scanner is quadratic on them) |
//! | index | [`index`] | tables of classes, methods, functions and base classes: valid Python read from the syntax gate's parse, the rest by tree-sitter |
//! | search | [`api`], [`call`], [`search`] | the table of the nine search APIs, one checked [`call::SearchCall`] value, and the answers with ACR's model-facing text |
//! | protocol | [`prompt`], [`answers`], [`proxy`] | every request as a [`prompt::Prompt`]; every answer read into typed values; whether a search answer's deterministic reading stands or the proxy model rewrites it |
//! | file names | [`paths`] | one policy for which file a name from the model means (exact, `/`-boundary suffix, tails, case), with one ambiguity value |
//! | locate | [`locate`] | six-tier resolution of a bug location to code, with class and ancestor context |
//! | patch | [`patch`] | `<file>/<original>/<patched>` answers parsed, matched, re-indented, gated and diffed, with a status |
//! | gate | [`gate`] | the syntax gate: CPython 3.12's tokenizer, PEG grammar, symbol table and compiler checks, ported |
//! | agent | [`agent`] | the loops: search, patch with retries, reproduce and review, APR-MCTS; prompts; transcript |
//! | search tree | [`mcts`] | APR-MCTS: UCB selection, back-propagation, bug-type classification |
//! | model | [`llm`] | the LLM trait, the chat-completions protocol, a scripted model |
//! | execution | [`runner`], [`snapshot`] | the runner trait: run a command on a patched snapshot; the snapshot's checks and patch |
#![deny(missing_docs)]

pub mod agent;
pub mod answers;
pub mod api;
pub mod byte_buf;
pub mod call;
pub mod gate;
pub mod grammar;
pub mod index;
pub mod issue_example;
pub mod issue_names;
pub mod language;
pub mod llm;
pub mod locate;
pub mod mcts;
pub mod model_defaults;
pub mod patch;
pub mod paths;
pub mod prompt;
pub mod proxy;
pub mod python;
pub mod repo;
pub mod runner;
pub mod script_check;
pub mod search;
pub mod snapshot;

pub use index::{Index, IndexStats};
pub use repo::{Repo, RepoError, SkipReason, SkippedFile};
pub use search::{SearchHit, SearchOutput, Searcher};
