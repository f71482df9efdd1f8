//! Starting a real runner server for tests.
// Each test binary uses a different part of these helpers.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::thread;
use std::time::{Duration, Instant};

use acr_runner::HttpRunner;
use acr_runner::exec::{ExecLimits, Sandbox};
use acr_runner::server::{RunnerServer, ServerConfig, random_token};

/// The playground origin the test servers allow.
pub const ORIGIN: &str = "http://127.0.0.1:8765";

/// A server running on its own thread and runtime for the rest of the test process.
pub struct Started {
    pub url: String,
    pub token: String,
}

impl Started {
    pub fn client(&self) -> HttpRunner {
        HttpRunner::new(&self.url, &self.token)
    }
}

/// The sandbox every test server uses: bubblewrap, which `tools/setup.sh` installs; a machine where it cannot run
/// fails here with the reason rather than testing something weaker.
pub fn sandbox() -> Sandbox {
    Sandbox::detect(None).unwrap_or_else(|e| panic!("{e}"))
}

pub fn start(adjust: impl FnOnce(&mut ServerConfig)) -> Started {
    start_with(sandbox(), adjust)
}

pub fn start_with(sandbox: Sandbox, adjust: impl FnOnce(&mut ServerConfig)) -> Started {
    let token = random_token().expect("randomness");
    let mut config = ServerConfig::new(token.clone());
    config.addr = SocketAddr::from(([127, 0, 0, 1], 0));
    config.origin = ORIGIN.into();
    config.limits = ExecLimits { memory_bytes: 512 << 20, max_timeout_secs: 30, ..ExecLimits::default() };
    adjust(&mut config);
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let server = runtime.block_on(RunnerServer::bind(config, sandbox)).expect("server binds");
    let url = server.url();
    thread::spawn(move || runtime.block_on(server.serve(std::future::pending())));
    Started { url, token }
}

/// Host processes whose command line contains `marker` (zombies excluded).
pub fn processes_with(marker: &str) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .flatten()
        .filter(|e| e.file_name().to_str().is_some_and(|n| n.chars().all(|c| c.is_ascii_digit())))
        .filter_map(|e| {
            let cmdline = std::fs::read(e.path().join("cmdline")).ok()?;
            let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
            let state = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().next())?.to_string();
            let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            (text.contains(marker) && state != "Z").then(|| format!("{} {text}", e.file_name().to_string_lossy()))
        })
        .collect()
}

/// Waits up to five seconds for every process with `marker` to be gone; returns the survivors.
pub fn survivors(marker: &str) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let alive = processes_with(marker);
        if alive.is_empty() || Instant::now() >= deadline {
            return alive;
        }
        thread::sleep(Duration::from_millis(50));
    }
}
