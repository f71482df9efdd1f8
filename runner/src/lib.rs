//! # acr-runner
//!
//! The optional reproducer runner: the one part of acr-wasm that executes code. It runs a command (a reproducer
//! script, a test command) against a patched copy of a repository snapshot, in a fresh folder, inside a
//! bubblewrap sandbox (no home, no network, only the run's folder writable, its own PID namespace), with a
//! wall-clock timeout, resource limits and a disk budget. The agent's review loop and MCTS validation reach it
//! through [`acr_core::runner::Runner`].
//!
//! | module | what it does |
//! |---|---|
//! | [`exec`] | materialise a snapshot, apply the patch, run the command sandboxed, capture output, clean up |
//! | [`local`] | [`LocalRunner`]: the `Runner` trait with local processes (CLI) |
//! | [`wire`] | the JSON bodies of `POST /run` and `GET /health` |
//! | [`snapshot`] | a `POST /run` body to a request: the base64 zip read, the files laid over it |
//! | `guard` | the guarded accept loop (connection cap, header/body/idle timeouts) behind both HTTP servers (feature `guard`) |
//! | `server` | the token-guarded axum server behind the `acr-runner` binary (feature `server`) |
//! | `client` | `HttpRunner`: the `Runner` trait over HTTP with `ureq` (feature `client`) |
#![deny(missing_docs)]

#[cfg(feature = "client")]
pub mod client;
pub mod exec;
#[cfg(feature = "guard")]
pub mod guard;
pub mod local;
#[cfg(feature = "server")]
pub mod server;
pub mod snapshot;
pub mod wire;

#[cfg(feature = "client")]
pub use client::HttpRunner;
pub use exec::{Containment, ExecError, ExecLimits, NetworkIsolation, Sandbox, SandboxError};
pub use local::LocalRunner;
#[cfg(feature = "server")]
pub use server::{RunnerServer, ServerConfig, ServerError};
