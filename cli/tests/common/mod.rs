//! Shared by the CLI's end-to-end tests: the `acr` binary and `acr serve-model` on a free port.
// Each test binary uses a different part of these helpers.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

pub const ACR: &str = env!("CARGO_BIN_EXE_acr");

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace root").to_path_buf()
}

/// `acr serve-model` on a free port, killed on drop.
pub struct ModelServer {
    child: Child,
    pub url: String,
}

impl ModelServer {
    /// Plays `script` (a name under tests/fixtures/scripts, or a path).
    pub fn start(script: impl AsRef<Path>) -> ModelServer {
        ModelServer::start_with(script, &[])
    }

    /// Plays `script` with more `acr serve-model` arguments (`--dialect`, `--context-window`...).
    pub fn start_with(script: impl AsRef<Path>, args: &[&str]) -> ModelServer {
        let mut child = Command::new(ACR)
            .args(["serve-model", "--script"])
            .arg(root().join("tests/fixtures/scripts").join(script))
            .args(args)
            .stdout(Stdio::piped())
            .spawn()
            .expect("acr serve-model starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut line).expect("banner");
        let url = line.trim().strip_prefix("model server: ").expect("banner names the URL").to_string();
        ModelServer { child, url }
    }
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `acr run` on the demo repository and its issue, with more arguments, ready to adjust and start.
pub fn acr_run_demo_command<S: AsRef<std::ffi::OsStr>>(args: impl IntoIterator<Item = S>) -> Command {
    let demo = root().join("web/demo");
    let mut command = Command::new(ACR);
    command.arg("run").arg(&demo).arg("--issue").arg(demo.join("ISSUE.md")).args(args);
    command
}

/// `acr run` on the demo repository and its issue, with more arguments.
pub fn acr_run_demo<S: AsRef<std::ffi::OsStr>>(args: impl IntoIterator<Item = S>) -> Output {
    acr_run_demo_command(args).output().expect("acr run runs")
}

/// `acr run` on the demo repository against `server`, writing to `out`, ready to adjust and start.
pub fn acr_run_command(server: &ModelServer, extra: &[&str], out: &Path) -> Command {
    let mut args: Vec<std::ffi::OsString> =
        ["--endpoint", &server.url, "--model", "scripted", "--out"].map(Into::into).to_vec();
    args.push(out.into());
    args.extend(extra.iter().map(Into::into));
    acr_run_demo_command(args)
}

pub fn acr_run(server: &ModelServer, extra: &[&str], out: &Path) -> Output {
    acr_run_command(server, extra, out).output().expect("acr run runs")
}

pub fn python3_available() -> bool {
    Command::new("python3").arg("--version").output().is_ok_and(|o| o.status.success())
}

pub fn events(out: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(out.join("transcript.json")).expect("transcript written");
    let v: serde_json::Value = serde_json::from_str(&text).expect("transcript is JSON");
    v["events"].as_array().expect("events").clone()
}

pub fn of_kind<'a>(events: &'a [serde_json::Value], kind: &str) -> Vec<&'a serde_json::Value> {
    events.iter().filter(|e| e["event"] == kind).collect()
}

/// What each execution of a run was for, with its exit code (-1 when it had none), in order.
pub fn runs(events: &[serde_json::Value]) -> Vec<(String, i64)> {
    of_kind(events, "run")
        .iter()
        .map(|e| (e["purpose"].as_str().unwrap().to_string(), e["outcome"]["exit_code"].as_i64().unwrap_or(-1)))
        .collect()
}
