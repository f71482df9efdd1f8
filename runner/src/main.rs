//! `acr-runner`: starts the reproducer runner server and prints its URL and access token.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use acr_runner::exec::{ExecLimits, Sandbox};
use acr_runner::guard::{Guard, raise_open_file_limit};
use acr_runner::server::{MIN_TOKEN_LEN, RunnerServer, ServerConfig, random_token};
use anyhow::{Context, Result, bail};
use clap::Parser;

/// Runs reproducer scripts and tests on patched repository snapshots for the acr playground and CLI.
#[derive(Debug, Parser)]
#[command(version)]
struct Args {
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 8787)]
    port: u16,
    /// Address to listen on. Anything but loopback exposes command execution to the network.
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    bind: IpAddr,
    /// The playground's origin, the only one CORS allows.
    #[arg(long, default_value = "http://127.0.0.1:8765")]
    origin: String,
    /// Runs allowed at once.
    #[arg(long, default_value_t = 2)]
    concurrency: usize,
    /// Seconds a request waits for a free slot before it gets 429.
    #[arg(long, default_value_t = 30)]
    queue_wait: u64,
    /// Largest request body in MiB.
    #[arg(long, default_value_t = 64)]
    max_body_mb: usize,
    /// Memory (address space) per run in MiB.
    #[arg(long, default_value_t = 1024)]
    memory_mb: u64,
    /// Longest timeout a request may ask for, in seconds.
    #[arg(long, default_value_t = 600)]
    max_timeout: u32,
    /// Output kept per stream, in KiB.
    #[arg(long, default_value_t = 64)]
    output_kb: usize,
    /// Processes (and threads) a run may have at once, where the machine can cap them.
    #[arg(long, default_value_t = 256)]
    max_processes: u32,
    /// MiB a run may add to its folder (and the size of its private /tmp).
    #[arg(long, default_value_t = 1024)]
    disk_mb: u64,
    /// The Python interpreter `python3` means in runs; its installation is bound read-only into the sandbox
    /// (default: python3 on PATH).
    #[arg(long, value_name = "PYTHON")]
    python: Option<String>,
    /// Run commands WITHOUT the bubblewrap sandbox: they can read, change and delete this user's files. Only for
    /// machines where bubblewrap cannot run; every answer then says so.
    #[arg(long)]
    unsafe_no_sandbox: bool,
    /// Most connections open at once.
    #[arg(long, default_value_t = 256)]
    max_connections: usize,
}

#[tokio::main]
async fn main() -> Result<()> {
    let args = Args::parse();
    let token = match std::env::var("ACR_RUNNER_TOKEN") {
        Ok(t) if t.len() >= MIN_TOKEN_LEN => t,
        Ok(_) => bail!("ACR_RUNNER_TOKEN is set but shorter than {MIN_TOKEN_LEN} characters"),
        Err(_) => random_token().context("no randomness for the token")?,
    };
    let limits = ExecLimits {
        memory_bytes: args.memory_mb << 20,
        max_timeout_secs: args.max_timeout,
        output_bytes: args.output_kb << 10,
        processes: args.max_processes,
        disk_bytes: args.disk_mb << 20,
        ..ExecLimits::default()
    };
    if let Err(e) = raise_open_file_limit() {
        eprintln!("note: could not raise the open-file limit: {e}");
    }
    let config = ServerConfig {
        addr: SocketAddr::new(args.bind, args.port),
        origin: args.origin,
        concurrency: args.concurrency,
        queue_wait: Duration::from_secs(args.queue_wait),
        max_body_bytes: args.max_body_mb << 20,
        limits,
        guard: Guard { max_connections: args.max_connections, ..Guard::default() },
        ..ServerConfig::new(token)
    };
    let (python, unsafe_no_sandbox) = (args.python.clone(), args.unsafe_no_sandbox);
    let sandbox = tokio::task::spawn_blocking(move || {
        if unsafe_no_sandbox {
            Sandbox::unsafe_no_sandbox(python.as_deref())
        } else {
            Sandbox::detect(python.as_deref())
        }
    })
    .await
    .context("probing the sandbox")??;
    let server = RunnerServer::bind(config, sandbox).await?;
    println!("{}", server.banner());
    println!("(Ctrl-C stops it)");
    server
        .serve(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
        .context("serving")
}
