//! tools/model_servers.py, the launcher of the real model servers, against binaries that fail the way prebuilt ones
//! do on a CPU they were not built for: the proof the set-up runs refuses a llama-server that dies loading the
//! model, and a server that dies at start is reported as a crash (how it ended and its log), not as a slow start.
//! The binaries here are shell scripts standing in for llama-server; no model is loaded.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

mod common;
use common::root;

/// A cache folder with the tests' model file in place (empty: the stand-ins never read it).
fn cache() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir_all(dir.path().join("models")).unwrap();
    std::fs::write(dir.path().join("models/SmolLM2-135M-Instruct.Q4_1.gguf"), b"").unwrap();
    dir
}

/// An executable shell script at `dir/name`.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn launcher(cache: &Path, args: &[&str]) -> (Output, Duration) {
    let started = Instant::now();
    let out = Command::new("python3")
        .arg(root().join("tools/model_servers.py"))
        .args(args)
        .env("ACR_CACHE", cache)
        .output()
        .expect("python3 runs");
    (out, started.elapsed())
}

/// llama-server prints its version everywhere, then dies with SIGILL as it loads weights whose kernels use
/// instructions the CPU lacks: the proof fails at once and says so, with the log's end.
#[test]
fn the_proof_refuses_a_binary_that_dies_loading_the_model() {
    let cache = cache();
    let binary = script(
        cache.path(),
        "llama-server",
        "case \"$1\" in --version) echo 'version: 10434'; exit 0;; esac\n\
         echo 'load_tensors: loading model tensors'\necho 'llama threadpool init'\nkill -ILL $$",
    );
    let version = Command::new(&binary).arg("--version").output().unwrap();
    assert!(version.status.success(), "the stand-in prints its version like the real one");
    let (out, took) = launcher(cache.path(), &["prove", "llama", "--binary", binary.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "refused: {stderr}");
    assert!(stderr.contains("SIGILL") && stderr.contains("illegal instruction"), "{stderr}");
    assert!(stderr.contains("llama threadpool init"), "the log's end is shown: {stderr}");
    assert!(took < Duration::from_secs(20), "a crash is told at once, not after the wait ({took:?})");
}

/// A binary that answers health checks but dies on its first request is refused as well.
#[test]
fn the_proof_refuses_a_binary_that_dies_answering() {
    let cache = cache();
    // A server in Python standing in for llama-server: healthy, then killed by a segfault at the first POST.
    let server = cache.path().join("fake_server.py");
    std::fs::write(
        &server,
        "import http.server, os, signal, sys\n\
         port = int(sys.argv[sys.argv.index('--port') + 1])\n\
         class H(http.server.BaseHTTPRequestHandler):\n\
         \x20   def do_GET(self):\n\
         \x20       self.send_response(200); self.end_headers(); self.wfile.write(b'{}')\n\
         \x20   def do_POST(self):\n\
         \x20       print('launch_slot_: id 0', flush=True); os.kill(os.getpid(), signal.SIGSEGV)\n\
         \x20   def log_message(self, *a): pass\n\
         http.server.HTTPServer(('127.0.0.1', port), H).serve_forever()\n",
    )
    .unwrap();
    let binary = script(cache.path(), "llama-server", &format!("exec python3 {} \"$@\"", server.display()));
    let (out, _) = launcher(cache.path(), &["prove", "llama", "--binary", binary.to_str().unwrap(), "--wait", "20"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "refused: {stderr}");
    assert!(stderr.contains("SIGSEGV") && stderr.contains("first request"), "{stderr}");
}

/// `start` tells a server that exited from one still starting: the exit status and the log, at once.
#[test]
fn a_server_that_dies_at_start_is_reported_as_a_crash() {
    let cache = cache();
    std::fs::create_dir_all(cache.path().join("llama")).unwrap();
    script(&cache.path().join("llama"), "llama-server", "echo 'error: unknown model architecture' >&2\nexit 3");
    let (out, took) = launcher(cache.path(), &["start", "llama"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("exited with status 3"), "{stderr}");
    assert!(stderr.contains("unknown model architecture"), "{stderr}");
    assert!(!stderr.contains("did not become ready"), "{stderr}");
    assert!(took < Duration::from_secs(20), "{took:?}");
    // One that never answers is a slow start, said as such.
    script(&cache.path().join("llama"), "llama-server", "echo 'loading'\nexec sleep 30");
    let (out, _) = launcher(cache.path(), &["start", "llama", "--wait", "2"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("still starting after 2 s"), "{stderr}");
}
