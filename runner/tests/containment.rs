//! The containment suite: hostile scripts sent to a real runner server (bubblewrap), each test asserting what
//! the host sees afterwards, and that the server stays healthy. Every address used is loopback or unroutable from
//! inside the sandbox; no traffic leaves the machine.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::thread;
use std::time::{Duration, Instant};

use acr_core::runner::{RunError, RunOutcome, RunRequest, Runner};
use acr_runner::LocalRunner;
use acr_runner::exec::{Containment, ExecLimits, Sandbox};
use acr_runner::server::random_token;
use acr_runner::wire::RunBody;
use base64::Engine;

mod common;
use common::{Started, processes_with, start, survivors};

/// The server most tests share: 2 runs at once, a long queue (the suite sends many slow runs).
fn shared() -> &'static Started {
    static SERVER: OnceLock<Started> = OnceLock::new();
    SERVER.get_or_init(|| start(|c| c.queue_wait = Duration::from_secs(300)))
}

fn run_on(server: &Started, files: &[(&str, &str)], command: &str, timeout_secs: u32) -> RunOutcome {
    let request = RunRequest {
        files: files.iter().map(|(p, t)| (p.to_string(), t.to_string())).collect(),
        command: command.into(),
        timeout_secs,
        ..RunRequest::default()
    };
    pollster::block_on(server.client().run(&request)).unwrap_or_else(|e| panic!("the run is accepted: {e}"))
}

fn python(server: &Started, script: &str, timeout_secs: u32) -> RunOutcome {
    run_on(server, &[("hostile.py", script)], "python3 hostile.py", timeout_secs)
}

fn assert_healthy(server: &Started) {
    let health = server.client().health().expect("the server answers /health");
    assert_eq!(health.status, "ok");
    let after = python(server, "print('still works')\n", 20);
    assert_eq!((after.exit_code, after.stdout.as_str()), (Some(0), "still works\n"), "{after:?}");
}

/// A file on the host with secret content, removed on drop.
struct Canary {
    path: PathBuf,
    secret: String,
}

impl Canary {
    /// `None` when `dir` cannot be written (say, `/etc` for a user that is not root).
    fn plant(dir: &Path) -> Option<Canary> {
        let token = random_token().expect("randomness");
        let path = dir.join(format!("acr-canary-{}", &token[..12]));
        let secret = format!("SECRET-{token}");
        std::fs::write(&path, &secret).ok()?;
        Some(Canary { path, secret })
    }

    fn intact(&self) -> bool {
        std::fs::read_to_string(&self.path).is_ok_and(|t| t == self.secret)
    }
}

impl Drop for Canary {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

fn home() -> PathBuf {
    PathBuf::from(std::env::var_os("HOME").expect("HOME is set"))
}

#[test]
fn canaries_in_the_home_directory_and_etc_cannot_be_read() {
    let server = shared();
    let in_home = Canary::plant(&home()).expect("the home directory is writable");
    let in_etc = Canary::plant(Path::new("/etc"));
    if in_etc.is_none() {
        eprintln!("NOTE: /etc is not writable here; only the home directory canary is tried");
    }
    let mut paths = vec![in_home.path.clone(), home().join(".ssh/id_rsa"), home().join(".bash_history")];
    paths.extend(in_etc.iter().map(|c| c.path.clone()));
    let script = format!(
        "import os\n\
         for p in {paths:?}:\n\
         \x20   try:\n\
         \x20       print(p, 'READ', open(p).read())\n\
         \x20   except OSError as e:\n\
         \x20       print(p, 'refused', type(e).__name__)\n\
         try:\n\
         \x20   print('home listing', os.listdir({home:?}))\n\
         except OSError as e:\n\
         \x20   print('home listing refused', type(e).__name__)\n\
         print('etc', sorted(os.listdir('/etc')))\n",
        paths = paths.iter().map(|p| p.to_string_lossy().into_owned()).collect::<Vec<_>>(),
        home = home().to_string_lossy(),
    );
    let outcome = python(server, &script, 20);
    assert_eq!(outcome.exit_code, Some(0), "{outcome:?}");
    let seen = format!("{}{}", outcome.stdout, outcome.stderr);
    for canary in [Some(&in_home), in_etc.as_ref()].into_iter().flatten() {
        assert!(!seen.contains(&canary.secret), "the script read {}: {seen}", canary.path.display());
        assert!(seen.contains(&format!("{} refused FileNotFoundError", canary.path.display())), "{seen}");
    }
    assert!(!seen.contains("READ"), "{seen}");
    let etc_line = seen.lines().find(|l| l.starts_with("etc ")).expect("the /etc listing");
    assert!(!etc_line.contains("acr-canary") && !etc_line.contains("shadow"), "{etc_line}");
    eprintln!("what the sandbox sees of /etc: {etc_line}");
    assert_healthy(server);
}

#[test]
fn writes_and_deletes_outside_the_run_folder_do_not_reach_the_host() {
    let server = shared();
    let in_tmp = Canary::plant(&std::env::temp_dir()).expect("the temporary directory is writable");
    let in_home = Canary::plant(&home()).expect("the home directory is writable");
    let token = random_token().expect("randomness");
    let created: Vec<PathBuf> = [std::env::temp_dir(), home(), PathBuf::from("/usr"), PathBuf::from("/etc")]
        .iter()
        .map(|d| d.join(format!("acr-created-{}", &token[..12])))
        .collect();
    let script = format!(
        "import os, shutil\n\
         for p in {victims:?}:\n\
         \x20   try:\n\
         \x20       os.remove(p); print('removed', p)\n\
         \x20   except OSError as e:\n\
         \x20       print('remove', p, type(e).__name__)\n\
         for p in {created:?}:\n\
         \x20   try:\n\
         \x20       open(p, 'w').write('planted'); print('created', p)\n\
         \x20   except OSError as e:\n\
         \x20       print('create', p, type(e).__name__)\n\
         for d in ('/usr/lib', '/usr/bin'):\n\
         \x20   try:\n\
         \x20       shutil.rmtree(d); print('rmtree', d)\n\
         \x20   except OSError as e:\n\
         \x20       print('rmtree', d, type(e).__name__)\n",
        victims = [&in_tmp.path, &in_home.path].map(|p| p.to_string_lossy().into_owned()),
        created = created.iter().map(|p| p.to_string_lossy().into_owned()).collect::<Vec<_>>(),
    );
    let outcome = python(server, &script, 30);
    eprintln!("{}", outcome.stdout);
    assert!(in_tmp.intact() && in_home.intact(), "a canary was changed: {outcome:?}");
    for path in &created {
        assert!(!path.exists(), "{} was created on the host: {outcome:?}", path.display());
    }
    // Inside, only the run's folder, /tmp and /dev/shm can be written: the rest is read-only.
    let tmp_created = created[0].to_string_lossy();
    assert!(outcome.stdout.contains(&format!("created {tmp_created}")), "the private /tmp is writable: {outcome:?}");
    for path in &created[1..] {
        assert!(outcome.stdout.contains(&format!("create {} OSError", path.display())), "{outcome:?}");
    }
    assert!(Path::new("/usr/bin/python3").exists() || Path::new("/usr/bin/sh").exists());
    assert!(outcome.stdout.contains("rmtree /usr/lib"), "{outcome:?}");
    assert_healthy(server);
}

#[test]
fn other_processes_are_invisible() {
    let server = shared();
    let marker = format!("acr-visible-{}", &random_token().expect("randomness")[..12]);
    let mut host = Command::new("sh")
        .args(["-c", "sleep 60", &marker])
        .stdin(Stdio::null())
        .spawn()
        .expect("a host process to look for");
    let script = "import os, subprocess\n\
                  print(subprocess.run(['ps', '-eo', 'pid,user,args'], capture_output=True, text=True).stdout)\n\
                  print('proc', sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))\n";
    let outcome = python(server, script, 20);
    let _ = host.kill();
    let _ = host.wait();
    assert_eq!(outcome.exit_code, Some(0), "{outcome:?}");
    assert!(!outcome.stdout.contains(&marker), "the sandbox saw a host process: {}", outcome.stdout);
    let listed = outcome.stdout.lines().skip(1).take_while(|l| !l.trim().is_empty()).count();
    assert!(listed <= 6, "only the run's own processes are visible: {}", outcome.stdout);
    let pids = outcome.stdout.lines().find(|l| l.starts_with("proc ")).expect("the /proc listing");
    assert!(pids.starts_with("proc [1, 2"), "a fresh PID namespace: {pids}");
    eprintln!("ps inside the sandbox:\n{}", outcome.stdout);
}

#[test]
fn a_process_in_a_new_session_does_not_survive_the_run() {
    let server = shared();
    let marker = format!("acr-survivor-{}", &random_token().expect("randomness")[..12]);
    // One helper left behind by a script that ends normally, one by a script killed at the timeout.
    for (ending, timeout, tail) in [("normal end", 20, ""), ("timeout", 2, "time.sleep(60)\n")] {
        let script = format!(
            "import os, subprocess, sys, time\n\
             child = subprocess.Popen([sys.executable, '-c', 'import os, time; os.setsid(); time.sleep(120)', \
             {marker:?}], start_new_session=True)\n\
             time.sleep(0.5)\n\
             print('helper started', child.pid, flush=True)\n\
             {tail}"
        );
        let outcome = python(server, &script, timeout);
        assert!(outcome.stdout.contains("helper started"), "{ending}: {outcome:?}");
        assert_eq!(outcome.timed_out, ending == "timeout", "{ending}: {outcome:?}");
        let left = survivors(&marker);
        assert!(left.is_empty(), "{ending}: a helper in a new session outlived the run: {left:?}");
    }
    assert_healthy(server);
}

#[test]
fn a_fork_bomb_stops_at_the_process_cap() {
    let sandbox = common::sandbox();
    let counted_by_cgroup = sandbox.caps_processes_by_cgroup();
    let server = common::start_with(sandbox, |c| c.limits.processes = 64);
    let health = server.client().health().expect("health");
    if !health.process_cap {
        eprintln!("SKIP fork bomb: no process cap on this machine (no writable control group, runner is root)");
        return;
    }
    let marker = format!("acr-forkbomb-{}", &random_token().expect("randomness")[..12]);
    let before = processes_with("").len();
    let script = "import os, sys, time\n\
                  forks = failures = 0\n\
                  start = time.time()\n\
                  while time.time() - start < 30:\n\
                  \x20   try:\n\
                  \x20       if os.fork() == 0:\n\
                  \x20           forks = failures = 0\n\
                  \x20           continue\n\
                  \x20       forks += 1\n\
                  \x20   except OSError:\n\
                  \x20       failures += 1\n\
                  \x20       time.sleep(0.01)\n";
    let started = Instant::now();
    let outcome = run_on(&server, &[("bomb.py", script)], &format!("python3 bomb.py {marker}"), 3);
    eprintln!("fork bomb: {:?} in {:?}", outcome.stderr.lines().last(), started.elapsed());
    assert!(outcome.timed_out, "{outcome:?}");
    if counted_by_cgroup {
        // A control group counts the processes (rather than RLIMIT_NPROC), so the run also says it reached the cap.
        assert!(outcome.stderr.contains("cap of 64 processes"), "{}", outcome.stderr);
    }
    let left = survivors(&marker);
    assert!(left.is_empty(), "{} fork-bomb processes survived", left.len());
    let after = processes_with("").len();
    assert!(after < before + 20, "host processes: {before} before, {after} after");
    assert_healthy(&server);
}

#[test]
fn a_memory_bomb_in_many_processes_is_stopped() {
    let server = start(|c| c.limits.memory_bytes = 512 << 20);
    let health = server.client().health().expect("health");
    if !health.memory_cap {
        eprintln!("SKIP multi-process memory bomb: no memory control group on this machine");
        return;
    }
    // Each child takes 300 MiB (under its own 512 MiB address-space limit); six of them need 1.8 GiB, past the
    // run's 512 MiB total. The children volunteer as the out-of-memory killer's first victims.
    let script = "import os, time\n\
                  kids = []\n\
                  for i in range(6):\n\
                  \x20   pid = os.fork()\n\
                  \x20   if pid == 0:\n\
                  \x20       open('/proc/self/oom_score_adj', 'w').write('1000')\n\
                  \x20       block = bytearray(300 << 20)\n\
                  \x20       time.sleep(5)\n\
                  \x20       os._exit(0)\n\
                  \x20   kids.append(pid)\n\
                  killed = 0\n\
                  for pid in kids:\n\
                  \x20   _, status = os.waitpid(pid, 0)\n\
                  \x20   killed += os.WIFSIGNALED(status)\n\
                  print('killed', killed, 'of', len(kids))\n";
    let outcome = python(&server, script, 30);
    eprintln!("memory bomb: {outcome:?}");
    let killed: usize = outcome
        .stdout
        .strip_prefix("killed ")
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("the parent survives to count");
    assert!(killed >= 3, "at most the cap's worth of children may live: {outcome:?}");
    assert_healthy(&server);
}

#[test]
fn filling_the_disk_stops_at_the_file_size_limit_and_the_disk_budget() {
    let server = start(|c| {
        c.limits.file_size_bytes = 8 << 20;
        c.limits.disk_bytes = 32 << 20;
    });
    let script = "import os\n\
                  def fill(path, size):\n\
                  \x20   try:\n\
                  \x20       with open(path, 'wb') as f:\n\
                  \x20           for _ in range(size >> 20):\n\
                  \x20               f.write(b'x' * (1 << 20))\n\
                  \x20       return 'ok'\n\
                  \x20   except OSError as e:\n\
                  \x20       return os.strerror(e.errno)\n\
                  print('one big file:', fill('big.bin', 16 << 20), flush=True)\n\
                  print('tmp:', [fill(f'/tmp/t{i}', 6 << 20) for i in range(8)], flush=True)\n\
                  i = 0\n\
                  while True:\n\
                  \x20   fill(f'chunk{i}', 6 << 20)\n\
                  \x20   i += 1\n";
    let outcome = python(&server, script, 60);
    eprintln!("disk fill: {outcome:?}");
    assert!(outcome.stdout.contains("one big file: File too large"), "{outcome:?}");
    assert!(outcome.stdout.contains("No space left on device"), "the private /tmp is bounded: {outcome:?}");
    assert!(!outcome.timed_out && outcome.exit_code.is_none(), "{outcome:?}");
    assert!(outcome.stderr.contains("disk budget"), "{}", outcome.stderr);
    assert!(outcome.duration_ms < 30_000, "{outcome:?}");
    assert_healthy(&server);
}

#[test]
fn sockets_reach_neither_the_runner_nor_the_outside() {
    let server = shared();
    let port: u16 = server.url.rsplit(':').next().and_then(|p| p.parse().ok()).expect("the server's port");
    let script = format!(
        "import socket\n\
         for host, port in (('127.0.0.1', {port}), ('localhost', {port}), ('10.0.0.1', 80), ('1.1.1.1', 443)):\n\
         \x20   s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)\n\
         \x20   s.settimeout(2)\n\
         \x20   try:\n\
         \x20       s.connect((host, port)); print(host, port, 'CONNECTED')\n\
         \x20   except OSError as e:\n\
         \x20       print(host, port, 'blocked', e.errno)\n\
         \x20   finally:\n\
         \x20       s.close()\n\
         try:\n\
         \x20   socket.getaddrinfo('example.com', 80); print('dns CONNECTED')\n\
         except OSError as e:\n\
         \x20   print('dns blocked')\n\
         u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n\
         try:\n\
         \x20   u.sendto(b'x', ('1.1.1.1', 53)); print('udp SENT')\n\
         except OSError as e:\n\
         \x20   print('udp blocked', e.errno)\n"
    );
    let outcome = python(server, &script, 30);
    eprintln!("{}", outcome.stdout);
    assert_eq!(outcome.exit_code, Some(0), "{outcome:?}");
    assert!(!outcome.stdout.contains("CONNECTED") && !outcome.stdout.contains("SENT"), "{}", outcome.stdout);
    assert_eq!(outcome.stdout.matches("blocked").count(), 6, "{}", outcome.stdout);
}

fn zip_with_links(files: &[(&str, &str)], links: &[(&str, &str)]) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default();
    for (name, text) in files {
        writer.start_file(*name, options).expect("entry");
        writer.write_all(text.as_bytes()).expect("write");
    }
    for (name, target) in links {
        writer.add_symlink(*name, *target, options).expect("link");
    }
    writer.finish().expect("zip").into_inner()
}

#[test]
fn symlinks_in_the_uploaded_files_do_not_lead_out_of_the_run_folder() {
    let server = shared();
    let canary = Canary::plant(&home()).expect("the home directory is writable");
    let outside = Canary::plant(&std::env::temp_dir()).expect("the temporary directory is writable");
    let target = canary.path.to_string_lossy().into_owned();
    let script = format!(
        "import os\n\
         for name in ('to_canary', 'up/evil.txt'):\n\
         \x20   try:\n\
         \x20       print(name, 'holds', repr(open(name).read()))\n\
         \x20   except OSError as e:\n\
         \x20       print(name, type(e).__name__)\n\
         try:\n\
         \x20   open('up/evil.txt', 'w').write('escaped'); print('wrote through up')\n\
         except OSError as e:\n\
         \x20   print('write through up', type(e).__name__)\n\
         os.symlink({target:?}, 'mine')\n\
         try:\n\
         \x20   print('mine holds', open('mine').read())\n\
         except OSError as e:\n\
         \x20   print('mine', type(e).__name__)\n\
         try:\n\
         \x20   open(os.path.join('up2', {outside_name:?}), 'w').write('changed')\n\
         except OSError as e:\n\
         \x20   print('up2', type(e).__name__)\n",
        outside_name = outside.path.file_name().expect("name").to_string_lossy(),
    );
    let zip = zip_with_links(&[("run.py", &script)], &[("to_canary", &target), ("up", "../../.."), ("up2", "/tmp")]);
    let body = RunBody {
        zip: Some(base64::engine::general_purpose::STANDARD.encode(zip)),
        command: "python3 run.py".into(),
        timeout_secs: 20,
        ..RunBody::default()
    };
    match server.client().run_body(&body) {
        Ok(outcome) => {
            eprintln!("links in the zip: {}", outcome.stdout);
            assert!(!outcome.stdout.contains(&canary.secret) && !outcome.stderr.contains(&canary.secret));
            assert!(outcome.stdout.contains("mine FileNotFoundError"), "{outcome:?}");
        }
        Err(RunError::Refused(message)) => eprintln!("links in the zip refused: {message}"),
        Err(e) => panic!("{e}"),
    }
    assert!(canary.intact() && outside.intact());
    assert!(!std::env::temp_dir().join("evil.txt").exists() && !Path::new("/evil.txt").exists());
    assert_healthy(server);
}

#[test]
fn path_traversal_names_in_the_uploaded_files_are_refused() {
    let server = shared();
    let name = format!("acr-traversal-{}.py", &random_token().expect("randomness")[..12]);
    let names =
        [format!("../../{name}"), format!("..\\..\\{name}"), format!("pkg/../../../{name}"), format!("/tmp/{name}")];
    for path in &names {
        let request = RunRequest {
            files: BTreeMap::from([(path.clone(), "print('escaped')\n".to_string())]),
            command: "true".into(),
            timeout_secs: 5,
            ..RunRequest::default()
        };
        let result = pollster::block_on(server.client().run(&request));
        assert!(matches!(&result, Err(RunError::Refused(m)) if m.contains("unsafe path")), "{path}: {result:?}");
        let zip = zip_with_links(&[("ok.py", ""), (path.as_str(), "print('escaped')\n")], &[]);
        let body = RunBody {
            zip: Some(base64::engine::general_purpose::STANDARD.encode(zip)),
            command: "true".into(),
            timeout_secs: 5,
            ..RunBody::default()
        };
        let result = server.client().run_body(&body);
        assert!(matches!(&result, Err(RunError::Refused(m)) if m.contains("unsafe path")), "zip {path}: {result:?}");
    }
    for dir in [std::env::temp_dir(), std::env::temp_dir().join(".."), home()] {
        assert!(!dir.join(&name).exists(), "{} was written", dir.join(&name).display());
    }
}

#[test]
fn twenty_concurrent_hostile_runs_leave_the_server_healthy() {
    let server = shared();
    let marker = format!("acr-crowd-{}", &random_token().expect("randomness")[..12]);
    let canary = Canary::plant(&home()).expect("the home directory is writable");
    // Each script fails when it is contained (an exception, the memory limit, the disk budget or the timeout).
    let scripts = [
        format!(
            "import subprocess, sys, time\nsubprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)', \
             {marker:?}], start_new_session=True)\ntime.sleep(60)\n"
        ),
        format!("import os\nos.remove({:?})\n", canary.path.to_string_lossy()),
        "chunks = []\nwhile True:\n    chunks.append(bytearray(64 << 20))\n".to_string(),
        "import os\nwhile True:\n    open(f'f{os.getpid()}', 'ab').write(b'x' * (1 << 20))\n".to_string(),
        "while True:\n    pass\n".to_string(),
    ];
    let started = Instant::now();
    let handles: Vec<_> = (0..20)
        .map(|i| {
            let script = scripts[i % scripts.len()].clone();
            thread::spawn(move || (i, python(shared(), &script, 2)))
        })
        .collect();
    for handle in handles {
        let (i, outcome) = handle.join().expect("client thread");
        assert!(!outcome.passed(), "hostile run {i} passed: {outcome:?}");
    }
    eprintln!("20 hostile runs answered in {:?}", started.elapsed());
    let left = survivors(&marker);
    assert!(left.is_empty(), "helpers survived: {left:?}");
    assert!(canary.intact());
    assert_healthy(server);
}

#[test]
fn the_local_runner_has_the_same_sandbox() {
    let runner = LocalRunner::detect(None).expect("bubblewrap runs here");
    assert_eq!(runner.sandbox().containment, Containment::Bubblewrap);
    let canary = Canary::plant(&home()).expect("the home directory is writable");
    let request = RunRequest {
        files: [("r.py".to_string(), format!("print(open({:?}).read())\n", canary.path.to_string_lossy()))].into(),
        command: "python3 r.py".into(),
        timeout_secs: 20,
        ..RunRequest::default()
    };
    let outcome = pollster::block_on(runner.run(&request)).expect("runs");
    assert!(outcome.stderr.contains("FileNotFoundError") && !outcome.stdout.contains(&canary.secret), "{outcome:?}");
    assert!(!outcome.unsandboxed);
}

#[test]
fn without_the_sandbox_every_answer_says_so() {
    let sandbox = Sandbox::unsafe_no_sandbox(None).expect("no interpreter was named");
    let server = common::start_with(sandbox, |_| {});
    let health = server.client().health().expect("health");
    assert_eq!(health.containment, Containment::None);
    assert!(health.warning.as_deref().is_some_and(|w| w.contains("NOT sandboxed")), "{health:?}");
    let outcome = python(&server, "print('hello')\n", 20);
    assert!(outcome.unsandboxed && outcome.passed(), "{outcome:?}");
    let contained = python(shared(), "print('hello')\n", 20);
    assert!(!contained.unsandboxed, "{contained:?}");
}

/// Starts the `acr-runner` binary with `args` and `PATH`; returns its exit status and output, or its banner
/// (first lines) after killing it once it is listening.
fn runner_binary(args: &[&str], path: &str) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_acr-runner"))
        .args(["--port", "0"])
        .args(args)
        .env("PATH", path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("acr-runner starts");
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            let output = child.wait_with_output().expect("output");
            let text =
                format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
            return (status.code(), text);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let output = child.wait_with_output().expect("output");
            return (None, String::from_utf8_lossy(&output.stdout).into_owned());
        }
        thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn the_server_refuses_to_start_without_bubblewrap_unless_told() {
    let empty = tempfile::tempdir().expect("an empty folder for PATH");
    let path = empty.path().to_string_lossy().into_owned();
    let (code, text) = runner_binary(&[], &path);
    assert_ne!(code, Some(0), "{text}");
    assert!(code.is_some(), "it exits rather than serving: {text}");
    assert!(text.contains("bubblewrap (bwrap) is not installed") && text.contains("--unsafe-no-sandbox"), "{text}");
    let (code, text) = runner_binary(&["--unsafe-no-sandbox"], &path);
    assert_eq!(code, None, "it serves: {text}");
    assert!(text.starts_with("*** UNSAFE: runs are NOT sandboxed"), "{text}");
    assert!(text.contains("listening on http://127.0.0.1:"), "{text}");
    let (code, text) = runner_binary(&["--python", "acr-no-such-python"], &std::env::var("PATH").unwrap_or_default());
    assert!(code.is_some_and(|c| c != 0) && text.contains("cannot run acr-no-such-python"), "{text}");
}

#[test]
fn limits_reported_by_health_match_the_configuration() {
    let server = start(|c| {
        c.limits = ExecLimits { processes: 77, disk_bytes: 5 << 20, ..c.limits };
    });
    let health = server.client().health().expect("health");
    assert_eq!((health.limits.processes, health.limits.disk_bytes), (77, 5 << 20));
    assert!(health.python.as_deref().is_some_and(|p| p.starts_with("python3 3.")), "{health:?}");
}

#[test]
fn the_interpreter_named_with_python_is_what_python3_means() {
    let Ok(root) = Command::new("pyenv").arg("root").output() else {
        eprintln!("SKIP: no pyenv here to pick a second interpreter from");
        return;
    };
    let versions = PathBuf::from(String::from_utf8_lossy(&root.stdout).trim()).join("versions");
    let mut found: Vec<PathBuf> = std::fs::read_dir(&versions)
        .map(|d| d.flatten().map(|e| e.path().join("bin/python3")).filter(|p| p.exists()).collect())
        .unwrap_or_default();
    found.sort();
    let Some(chosen) = found.first() else {
        eprintln!("SKIP: no interpreter under {}", versions.display());
        return;
    };
    let chosen = chosen.to_string_lossy().into_owned();
    let sandbox = Sandbox::detect(Some(&chosen)).expect("the named interpreter works");
    let python = sandbox.python.clone().expect("found");
    let runner = LocalRunner::new(sandbox, ExecLimits::default());
    let request = RunRequest {
        files: [("v.py".to_string(), "import sys\nprint(sys.executable, sys.version.split()[0])\n".to_string())].into(),
        command: "python3 v.py".into(),
        timeout_secs: 20,
        ..RunRequest::default()
    };
    let outcome = pollster::block_on(runner.run(&request)).expect("runs");
    assert_eq!(outcome.stdout, format!("{chosen} {}\n", python.version), "{outcome:?}");
    eprintln!("python3 in the sandbox: {}", outcome.stdout.trim());
}
