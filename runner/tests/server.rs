//! The real server on 127.0.0.1 (port 0), driven over HTTP: results, limits, isolation, tokens, CORS, unsafe
//! snapshots, concurrency. Every address used is loopback; no traffic leaves the machine.

use std::collections::BTreeMap;
use std::io::Write;
use std::net::TcpListener;
use std::path::Path;
use std::sync::OnceLock;
use std::thread;
use std::time::{Duration, Instant};

use acr_core::runner::{RunError, RunOutcome, RunRequest, Runner};
use acr_runner::HttpRunner;
use acr_runner::exec::Containment;
use acr_runner::server::random_token;
use acr_runner::wire::{Health, RunBody};
use base64::Engine;

mod common;
use common::{Started, start};

use common::ORIGIN;

/// The server most tests share (2 runs at once, 512 MiB per run).
fn shared() -> &'static Started {
    static SERVER: OnceLock<Started> = OnceLock::new();
    SERVER.get_or_init(|| {
        let started = start(|_| {});
        let health = started.client().health().expect("health");
        eprintln!("runner under test: {health:?}");
        started
    })
}

fn files(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs.iter().map(|(p, t)| (p.to_string(), t.to_string())).collect()
}

fn run(server: &Started, pairs: &[(&str, &str)], patch: &str, command: &str, timeout_secs: u32) -> RunOutcome {
    try_run(server, pairs, patch, command, timeout_secs).expect("the run is accepted")
}

fn try_run(
    server: &Started,
    pairs: &[(&str, &str)],
    patch: &str,
    command: &str,
    timeout_secs: u32,
) -> Result<RunOutcome, RunError> {
    let request = RunRequest { files: files(pairs), patch: patch.into(), command: command.into(), timeout_secs };
    pollster::block_on(server.client().run(&request))
}

/// A raw request: (status, headers, body).
fn raw(
    server: &Started,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<String>,
) -> (u16, ureq::http::HeaderMap, String) {
    let config = ureq::Agent::config_builder().http_status_as_error(false).build();
    let agent = ureq::Agent::new_with_config(config);
    let mut builder = ureq::http::Request::builder().method(method).uri(format!("{}{path}", server.url));
    for (k, v) in headers {
        builder = builder.header(*k, *v);
    }
    let mut response = match body {
        Some(b) => agent.run(builder.header("Content-Type", "application/json").body(b).expect("request")),
        None => agent.run(builder.body(()).expect("request")),
    }
    .expect("the server answers");
    let text = response.body_mut().read_to_string().unwrap_or_default();
    (response.status().as_u16(), response.headers().clone(), text)
}

fn bearer(server: &Started) -> String {
    format!("Bearer {}", server.token)
}

fn health(server: &Started) -> Health {
    server.client().health().expect("health")
}

const BUGGY: &str = "def add(a, b):\n    return a - b\n";
const REPRODUCER: &str = "from calc import add\nassert add(2, 3) == 5, f'add(2, 3) gave {add(2, 3)}'\nprint('ok')\n";
const FIX: &str = "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n\
                   -    return a - b\n+    return a + b\n";

#[test]
fn a_failing_reproducer_shows_the_bug_and_the_patch_fixes_it() {
    let server = shared();
    let repo = [("calc.py", BUGGY), ("reproducer.py", REPRODUCER)];
    let failing = run(server, &repo, "", "python3 reproducer.py", 20);
    assert!(failing.reproduces_bug(), "{failing:?}");
    assert!(failing.stderr.contains("add(2, 3) gave -1"), "{failing:?}");
    let passing = run(server, &repo, FIX, "python3 reproducer.py", 20);
    assert!(passing.passed() && !passing.reproduces_bug(), "{passing:?}");
    assert_eq!(passing.stdout, "ok\n");
    let other_error = run(server, &[("x.py", "raise ValueError('no')\n")], "", "python3 x.py", 20);
    assert!(other_error.exit_code == Some(1) && !other_error.reproduces_bug(), "{other_error:?}");
}

#[test]
fn a_patch_that_does_not_apply_is_refused() {
    let stale = FIX.replace("return a - b", "return a * b");
    let result = try_run(shared(), &[("calc.py", BUGGY)], &stale, "python3 calc.py", 20);
    assert!(
        matches!(&result, Err(RunError::Refused(m)) if m.contains("does not apply") && m.contains("400")),
        "{result:?}"
    );
}

#[test]
fn a_zip_snapshot_is_read_and_files_are_laid_over_it() {
    let zip = zip_of(&[("proj/calc.py", BUGGY), ("proj/reproducer.py", "raise SystemExit(9)\n")]);
    let body = RunBody {
        files: files(&[("reproducer.py", REPRODUCER)]),
        zip: Some(base64::engine::general_purpose::STANDARD.encode(zip)),
        patch: FIX.into(),
        command: "python3 reproducer.py".into(),
        timeout_secs: 20,
    };
    let outcome = shared().client().run_body(&body).expect("accepted");
    assert!(outcome.passed(), "{outcome:?}");
}

#[test]
fn the_wall_clock_limit_kills_the_script_and_its_children() {
    let marker = format!("acr-child-{}", &random_token().expect("randomness")[..12]);
    let script = format!(
        "import subprocess, sys, time\n\
         child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)', {marker:?}])\n\
         print('child started', flush=True)\n\
         time.sleep(60)\n"
    );
    let started = Instant::now();
    let outcome = run(shared(), &[("slow.py", &script)], "", "python3 slow.py", 1);
    assert!(outcome.timed_out && outcome.exit_code.is_none() && !outcome.reproduces_bug(), "{outcome:?}");
    // The script would sleep 60 s; a generous bound keeps this about the kill, not about machine speed.
    assert!(started.elapsed() < Duration::from_secs(30), "took {:?}", started.elapsed());
    assert_eq!(outcome.stdout, "child started\n", "{outcome:?}");
    let left = common::survivors(&marker);
    assert!(left.is_empty(), "the script's child outlived the timeout: {left:?}");
}

#[test]
fn an_endless_memory_grab_is_stopped_by_the_limit() {
    let server = shared();
    if !health(server).resource_limits {
        eprintln!("SKIP memory limit: prlimit does not work on this machine");
        return;
    }
    let script = "chunks = []\nwhile True:\n    chunks.append(bytearray(32 << 20))\n";
    let outcome = run(server, &[("grab.py", script)], "", "python3 grab.py", 20);
    assert!(!outcome.timed_out && outcome.exit_code == Some(1), "{outcome:?}");
    assert!(outcome.stderr.contains("MemoryError") && !outcome.reproduces_bug(), "{outcome:?}");
    assert!(outcome.duration_ms < 10_000, "{outcome:?}");
}

#[test]
fn long_output_is_truncated_but_the_final_assertion_survives() {
    let script = "import sys\nsys.stdout.write('x' * 1_000_000)\nsys.stderr.write('noise\\n' * 50_000)\n\
                  assert False, 'the end'\n";
    let outcome = run(shared(), &[("loud.py", script)], "", "python3 loud.py", 20);
    assert!(outcome.truncated, "{}", outcome.stdout.len());
    assert!(outcome.stdout.len() < 70_000 && outcome.stderr.len() < 70_000);
    assert!(outcome.stdout.contains("bytes cut by the runner"));
    assert!(outcome.reproduces_bug() && outcome.stderr.contains("AssertionError: the end"), "{}", outcome.stderr);
}

#[test]
fn the_run_folder_is_removed_afterwards() {
    let outcome = run(shared(), &[("where.py", "import os\nprint(os.getcwd())\n")], "", "python3 where.py", 20);
    let folder = outcome.stdout.trim();
    assert!(folder.ends_with("/repo"), "{outcome:?}");
    assert!(!Path::new(folder).exists(), "{folder} is left behind");
}

#[test]
fn scripts_cannot_reach_a_listener_on_the_hosts_loopback() {
    let server = shared();
    let isolated = health(server).network_isolation.is_isolated();
    let listener = TcpListener::bind("127.0.0.1:0").expect("listener");
    listener.set_nonblocking(true).expect("nonblocking");
    let open = listener.local_addr().expect("addr").port();
    // A port that was free a moment ago: nothing listens there.
    let closed = TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("addr").port();
    let script = format!(
        "import socket\n\
         for port in ({open}, {closed}):\n\
         \x20   s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)\n\
         \x20   s.settimeout(1)\n\
         \x20   try:\n\
         \x20       s.connect(('127.0.0.1', port))\n\
         \x20       print(port, 'connected')\n\
         \x20   except OSError as e:\n\
         \x20       print(port, 'blocked', e.errno)\n\
         \x20   finally:\n\
         \x20       s.close()\n"
    );
    let outcome = run(server, &[("net.py", &script)], "", "python3 net.py", 20);
    assert!(outcome.passed(), "{outcome:?}");
    let accepted = listener.accept().is_ok();
    eprintln!("network probe (isolated = {isolated}): {}", outcome.stdout.replace('\n', "; "));
    assert!(isolated, "bubblewrap gives every run its own network namespace");
    // The sandbox has a loopback of its own with nothing listening: ECONNREFUSED, and the host's listener sees
    // nothing.
    assert_eq!(outcome.stdout, format!("{open} blocked 111\n{closed} blocked 111\n"));
    assert!(!accepted, "the host listener saw a connection");
}

#[test]
fn a_thousand_idle_connections_do_not_lock_out_the_token_holder() {
    acr_runner::guard::raise_open_file_limit().expect("the open-file limit can be read");
    let server = start(|_| {});
    let addr = server.url.trim_start_matches("http://").to_string();
    // 1,100 connections from a process without the token: most send nothing, some half a request.
    let crowd: Vec<std::net::TcpStream> = (0..1_100)
        .filter_map(|i| {
            let mut stream = std::net::TcpStream::connect(&addr).ok()?;
            if i % 4 == 0 {
                let _ = stream.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n");
            }
            Some(stream)
        })
        .collect();
    assert!(crowd.len() > 1_000, "only {} connections opened", crowd.len());
    let started = Instant::now();
    let health = server.client().health().expect("the token holder gets through");
    assert_eq!(health.status, "ok");
    let outcome = run(&server, &[("ok.py", "print('served')\n")], "", "python3 ok.py", 20);
    assert_eq!(outcome.stdout, "served\n");
    eprintln!("/health and a run with {} idle connections open: {:?}", crowd.len(), started.elapsed());
    assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
}

#[test]
fn requests_without_the_right_token_are_refused() {
    let server = shared();
    let body = serde_json::json!({"files": {}, "command": "true", "timeout_secs": 5}).to_string();
    for headers in [vec![], vec![("Authorization", "Bearer wrong-token-of-some-length")], vec![("Authorization", "")]] {
        let (status, answer, text) = raw(server, "POST", "/run", &headers, Some(body.clone()));
        assert_eq!(status, 401, "{headers:?}: {text}");
        assert_eq!(answer.get("www-authenticate").and_then(|v| v.to_str().ok()), Some("Bearer"));
        assert!(text.contains("token"), "{text}");
        assert_eq!(raw(server, "GET", "/health", &headers, None).0, 401);
    }
    let basic = format!("Basic {}", server.token);
    assert_eq!(raw(server, "GET", "/health", &[("Authorization", &basic)], None).0, 401);
    let wrong = HttpRunner::new(&server.url, "0123456789abcdef0123");
    assert!(matches!(wrong.health(), Err(RunError::Refused(m)) if m.contains("401")));
    let (status, _, text) = raw(server, "GET", "/health", &[("Authorization", &bearer(server))], None);
    assert_eq!(status, 200, "{text}");
}

#[test]
fn an_unreachable_server_is_unavailable_not_refused() {
    // Port 1 on loopback: nothing listens there, the connection is refused at once.
    let nowhere = HttpRunner::new("http://127.0.0.1:1", "0123456789abcdef0123");
    let request = RunRequest { command: "true".into(), timeout_secs: 1, ..RunRequest::default() };
    assert!(matches!(pollster::block_on(nowhere.run(&request)), Err(RunError::Unavailable(_))));
}

#[test]
fn cors_allows_only_the_playground_origin() {
    let server = shared();
    let preflight = |origin: &str| {
        let headers = [
            ("Origin", origin),
            ("Access-Control-Request-Method", "POST"),
            ("Access-Control-Request-Headers", "authorization,content-type"),
        ];
        let (_, answer, _) = raw(server, "OPTIONS", "/run", &headers, None);
        answer.get("access-control-allow-origin").and_then(|v| v.to_str().ok()).map(str::to_string)
    };
    assert_eq!(preflight(ORIGIN).as_deref(), Some(ORIGIN));
    assert_eq!(preflight("http://evil.example"), None);
    let auth = bearer(server);
    let (status, answer, _) = raw(server, "GET", "/health", &[("Origin", ORIGIN), ("Authorization", &auth)], None);
    assert_eq!(status, 200);
    assert_eq!(answer.get("access-control-allow-origin").and_then(|v| v.to_str().ok()), Some(ORIGIN));
}

#[test]
fn path_traversal_in_the_snapshot_or_the_patch_is_refused() {
    let server = shared();
    let name = format!("acr-escape-{}.py", random_token().expect("randomness"));
    let escape = format!("../../{name}");
    // The run folder is <tmp>/acr-run-*/repo, so ../../ would land in <tmp> itself.
    let target = std::env::temp_dir().join(&name);

    for path in [escape.as_str(), "/tmp/acr-absolute.py", "pkg/../../x.py"] {
        let result = try_run(server, &[(path, "print('escaped')\n")], "", "true", 5);
        assert!(matches!(&result, Err(RunError::Refused(m)) if m.contains("unsafe path")), "{path}: {result:?}");
    }
    let patch = format!("--- /dev/null\n+++ b/{escape}\n@@ -0,0 +1 @@\n+print('escaped')\n");
    let result = try_run(server, &[("ok.py", "")], &patch, "true", 5);
    assert!(matches!(&result, Err(RunError::Refused(m)) if m.contains("unsafe path")), "{result:?}");

    let zip = zip_of(&[("ok.py", "print('fine')\n"), (escape.as_str(), "print('escaped')\n")]);
    let body = serde_json::json!({
        "zip": base64::engine::general_purpose::STANDARD.encode(zip),
        "command": "python3 ok.py",
        "timeout_secs": 5,
    });
    let auth = bearer(server);
    let (status, _, text) = raw(server, "POST", "/run", &[("Authorization", &auth)], Some(body.to_string()));
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("unsafe path"), "{text}");
    assert!(!target.exists(), "{} was written", target.display());
    assert!(!Path::new("/tmp/acr-absolute.py").exists());
}

#[test]
fn malformed_bodies_get_clear_errors() {
    let server = shared();
    let auth = bearer(server);
    let (status, _, text) = raw(server, "POST", "/run", &[("Authorization", &auth)], Some("{\"files\": {".into()));
    assert_eq!(status, 400, "{text}");
    assert!(text.starts_with("{\"error\""), "{text}");
    let (status, _, text) = raw(server, "POST", "/run", &[("Authorization", &auth)], Some("{\"files\": 3}".into()));
    assert_eq!(status, 422, "{text}");
    assert!(text.contains("files"), "{text}");
    let bad_zip = serde_json::json!({"zip": "bm90IGEgemlw", "command": "true", "timeout_secs": 5}).to_string();
    let (status, _, text) = raw(server, "POST", "/run", &[("Authorization", &auth)], Some(bad_zip));
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("zip"), "{text}");
    let quotes = try_run(server, &[], "", "python3 -c 'unclosed", 5);
    assert!(matches!(&quotes, Err(RunError::Refused(m)) if m.contains("bad command")), "{quotes:?}");
}

#[test]
fn twenty_concurrent_requests_are_all_answered_correctly() {
    let server = shared();
    let started = Instant::now();
    let handles: Vec<_> = (0..20u32)
        .map(|i| {
            let script = format!("import sys\nprint('run', {i})\nassert {i} % 3 != 0, 'multiple of three'\n");
            thread::spawn(move || (i, try_run(shared(), &[("job.py", &script)], "", "python3 job.py", 20)))
        })
        .collect();
    for handle in handles {
        let (i, result) = handle.join().expect("client thread");
        let outcome = result.unwrap_or_else(|e| panic!("request {i}: {e}"));
        assert_eq!(outcome.stdout, format!("run {i}\n"), "request {i}");
        assert_eq!(outcome.reproduces_bug(), i % 3 == 0, "request {i}: {outcome:?}");
        assert_eq!(outcome.passed(), i % 3 != 0, "request {i}: {outcome:?}");
    }
    eprintln!("20 concurrent requests answered in {:?}", started.elapsed());
    let after = health(server);
    assert_eq!(after.status, "ok");
    let again = run(server, &[("again.py", "print('still here')\n")], "", "python3 again.py", 20);
    assert_eq!(again.stdout, "still here\n");
}

#[test]
fn a_full_server_answers_429_after_the_queue_wait() {
    let server = start(|c| {
        c.concurrency = 1;
        c.queue_wait = Duration::from_millis(200);
    });
    let holder = {
        let (url, token) = (server.url.clone(), server.token.clone());
        thread::spawn(move || {
            let request = RunRequest {
                files: files(&[("hold.py", "import time\ntime.sleep(2)\n")]),
                command: "python3 hold.py".into(),
                timeout_secs: 20,
                ..RunRequest::default()
            };
            pollster::block_on(HttpRunner::new(&url, &token).run(&request))
        })
    };
    let deadline = Instant::now() + Duration::from_secs(5);
    while health(&server).available > 0 && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(20));
    }
    let busy = try_run(&server, &[], "", "true", 5);
    assert!(matches!(&busy, Err(RunError::Refused(m)) if m.contains("429")), "{busy:?}");
    let held = holder.join().expect("holder thread").expect("the first run finishes");
    assert!(held.passed(), "{held:?}");
    assert_eq!(health(&server).available, 1);
}

#[test]
fn bodies_over_the_limit_get_413() {
    let server = start(|c| c.max_body_bytes = 64 << 10);
    let big = "#".repeat(100 << 10);
    let result = try_run(&server, &[("big.py", &big)], "", "true", 5);
    assert!(matches!(&result, Err(RunError::Refused(m)) if m.contains("413")), "{result:?}");
}

#[test]
fn health_reports_the_isolation_and_limits() {
    let h = health(shared());
    assert_eq!((h.status.as_str(), h.concurrency), ("ok", 2));
    assert_eq!(h.limits.memory_bytes, 512 << 20);
    let detected = common::sandbox();
    assert_eq!((h.network_isolation, h.resource_limits), (detected.network, detected.resource_limits));
    assert_eq!((h.containment, h.warning.as_deref()), (Containment::Bubblewrap, None));
    assert_eq!((h.process_cap, h.memory_cap), (detected.caps_processes(), detected.caps_total_memory()));
    eprintln!("isolation here: {h:?}");
}

fn zip_of(entries: &[(&str, &str)]) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, text) in entries {
        writer.start_file(*name, zip::write::SimpleFileOptions::default()).expect("entry");
        writer.write_all(text.as_bytes()).expect("write");
    }
    writer.finish().expect("zip").into_inner()
}
