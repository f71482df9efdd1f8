//! `acr run` against real OpenAI-compatible servers that nobody in this project wrote: llama.cpp's llama-server
//! with the SmolLM2-135M model, and a LiteLLM proxy in front of it. tools/model_servers.py starts them on free
//! loopback ports; tools/setup.sh installs them (outside the checkout). Without them the tests say "skipped" and
//! pass, unless ACR_REQUIRE_REAL_SERVERS=1 (then they fail).
//!
//! The model is tiny and writes what it likes, so the tests assert only what must hold whatever it writes: the run
//! ends with an outcome (a patch status, never FAILED), the exit code says which, a server that refuses something
//! is understood at once, and the budget keeps each run short.

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use serde_json::Value;

mod common;
use common::{acr_run_demo_command, events, of_kind, root};

/// Every status outcome.json may carry: what became of the patch, whatever the model wrote.
const STATUSES: [&str; 6] = [
    "NO_PATCH",
    "RAW_PATCH_BUT_UNPARSED",
    "RAW_PATCH_BUT_UNMATCHED",
    "MATCHED_BUT_EMPTY_ORIGIN",
    "MATCHED_BUT_EMPTY_DIFF",
    "APPLICABLE_PATCH",
];
/// Why a model answer was cut short (`"cut"` of a "model" event).
const CUTS: [&str; 5] = ["cap", "time", "loop", "broken", "failed"];
/// Stops that the model server caused: the run exits with 2.
const SERVER_STOPS: [&str; 5] = ["key_refused", "model_unknown", "unreachable", "server_error", "context_too_small"];

/// A server started by tools/model_servers.py, stopped (with its process group) when dropped, even in a panic.
struct Server {
    pid: u32,
    base_url: String,
    model: String,
    log: PathBuf,
}

impl Server {
    /// `python3 tools/model_servers.py start ARGS...`, or `None` (having said "skipped") when the servers are not
    /// installed.
    fn start(args: &[&str]) -> Option<Server> {
        let script = root().join("tools/model_servers.py");
        let Ok(started) = Command::new("python3").arg(&script).arg("start").args(args).output() else {
            return skip("python3 is not installed");
        };
        let stderr = String::from_utf8_lossy(&started.stderr);
        match started.status.code() {
            Some(0) => {}
            Some(3) => return skip(stderr.trim()),
            _ => panic!("model_servers.py start {args:?} failed ({}):\n{stderr}", started.status),
        }
        let info: Value = serde_json::from_slice(&started.stdout).expect("model_servers.py prints one JSON line");
        Some(Server {
            pid: info["pid"].as_u64().expect("pid") as u32,
            base_url: info["base_url"].as_str().expect("base_url").to_string(),
            model: info["model"].as_str().expect("model").to_string(),
            log: PathBuf::from(info["log"].as_str().expect("log")),
        })
    }

    /// The server's log so far.
    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = Command::new("python3")
            .arg(root().join("tools/model_servers.py"))
            .args(["stop", &self.pid.to_string()])
            .status();
    }
}

fn skip<T>(why: &str) -> Option<T> {
    if std::env::var("ACR_REQUIRE_REAL_SERVERS").is_ok_and(|v| v == "1") {
        panic!("ACR_REQUIRE_REAL_SERVERS=1 but {why}");
    }
    eprintln!("skipped: {why} (run tools/setup.sh to install the real servers)");
    None
}

/// A finished `acr run`: its exit code, stderr, outcome.json and transcript events.
struct Run {
    code: Option<i32>,
    stderr: String,
    outcome: Value,
    events: Vec<Value>,
    seconds: f64,
}

impl Run {
    /// What a failed assertion shows: the end of stderr and outcome.json.
    fn why(&self) -> String {
        let tail: String = {
            let chars: Vec<char> = self.stderr.chars().collect();
            chars[chars.len().saturating_sub(3000)..].iter().collect()
        };
        format!("exit {:?} after {:.1} s\noutcome: {}\nstderr (end):\n{tail}", self.code, self.seconds, self.outcome)
    }

    fn stopped_kind(&self) -> Option<&str> {
        self.outcome["stopped"]["kind"].as_str()
    }

    fn notes(&self) -> Vec<&str> {
        of_kind(&self.events, "note").iter().filter_map(|e| e["text"].as_str()).collect()
    }
}

/// `acr run` on the demo repository against `server` (model `model`, key in `key` if any), with one try and few
/// search rounds, plus `extra` (the budget and the manner of asking).
fn acr_run(server: &Server, model: &str, key: Option<&str>, extra: &[&str]) -> Run {
    let out = tempfile::tempdir().expect("temp dir");
    let out_dir = out.path().to_string_lossy().into_owned();
    let mut args = vec!["--endpoint", &server.base_url, "--model", model, "--out", &out_dir, "--overall-retries", "1"];
    args.extend(["--max-rounds", "3"]);
    if key.is_some() {
        args.extend(["--api-key-env", "ACR_REAL_SERVER_KEY"]);
    }
    args.extend(extra);
    let mut command = acr_run_demo_command(&args);
    if let Some(key) = key {
        command.env("ACR_REAL_SERVER_KEY", key);
    }
    let started = Instant::now();
    let output = command.output().expect("acr run runs");
    let seconds = started.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let outcome = match std::fs::read_to_string(out.path().join("outcome.json")) {
        Ok(text) => serde_json::from_str(&text).expect("outcome.json is JSON"),
        Err(e) => panic!("no outcome.json ({e}); exit {:?}, stderr:\n{stderr}", output.status.code()),
    };
    let events = events(out.path());
    let run = Run { code: output.status.code(), stderr, outcome, events, seconds };
    assert_cuts_are_well_formed(&run);
    run
}

/// Each "model" event has no cut, or a cut of a known kind.
fn assert_cuts_are_well_formed(run: &Run) {
    for event in of_kind(&run.events, "model") {
        let cut = &event["cut"];
        let known = cut["kind"].as_str().is_some_and(|kind| CUTS.contains(&kind));
        assert!(cut.is_null() || known, "a model event's cut is {cut}\n{}", run.why());
    }
}

/// The run ended with an outcome: a patch status (never FAILED, whatever the model wrote or however long it
/// talked), stopped by nothing or by one of `stops`, and the exit code that goes with it.
fn assert_ended_with_outcome(run: &Run, stops: &[&str]) {
    let status = run.outcome["status"].as_str().unwrap_or_default();
    assert!(STATUSES.contains(&status), "status {status:?} is not a patch status\n{}", run.why());
    let stopped = &run.outcome["stopped"];
    let kind = run.stopped_kind();
    assert!(stopped.is_null() || kind.is_some_and(|k| stops.contains(&k)), "stopped: {stopped}\n{}", run.why());
    let code = match kind {
        Some(k) if SERVER_STOPS.contains(&k) => 2,
        _ if status == "APPLICABLE_PATCH" => 0,
        _ => 1,
    };
    assert_eq!(run.code, Some(code), "exit code\n{}", run.why());
}

/// The run stopped at once because the server refused the key: exit 2, `stopped.kind == "key_refused"`, stderr
/// says so, no retries.
fn assert_key_refused(run: &Run) {
    assert_eq!(run.stopped_kind(), Some("key_refused"), "{}", run.why());
    assert_eq!(run.code, Some(2), "{}", run.why());
    let stderr = run.stderr.to_lowercase();
    assert!(stderr.contains("key") && stderr.contains("refused"), "stderr says the key was refused\n{}", run.why());
    assert!(run.seconds < 15.0, "a refused key is not retried\n{}", run.why());
}

/// Seconds since the server started of each line of a llama-server log containing `needle` (its lines begin with
/// `M.SS.mmm.uuu`).
fn log_times(log: &str, needle: &str) -> Vec<f64> {
    log.lines()
        .filter(|line| line.contains(needle))
        .filter_map(|line| {
            let stamp: Vec<f64> =
                line.split_whitespace().next()?.split('.').map(|p| p.parse().ok()).collect::<Option<_>>()?;
            let [m, s, ms, us] = stamp[..] else { return None };
            Some(m * 60.0 + s + ms / 1e3 + us / 1e6)
        })
        .collect()
}

#[test]
fn llama_server_answers_end_with_an_outcome() {
    let Some(llama) = Server::start(&["llama"]) else { return };
    let run = acr_run(&llama, &llama.model, None, &["--max-calls", "8", "--max-seconds", "25", "--timeout", "120"]);
    assert_ended_with_outcome(&run, &["budget"]);
    assert!(!of_kind(&run.events, "model").is_empty(), "the model was asked\n{}", run.why());
    let notes = run.notes();
    assert!(
        notes.iter().any(|n| n.contains("holds the model to a JSON schema")),
        "llama-server is known by its /props to take JSON schemas: {notes:?}\n{}",
        run.why()
    );
}

/// The proxy's request as the agent sends it (its JSON schema in `response_format`), to llama-server with the tiny
/// SmolLM2: held to the schema, the answer is JSON of the proxy's shape every time, read as JSON (not as prose) by
/// the proxy's reader, whatever nonsense its strings hold; an answer that loops inside a string until its cap is JSON
/// cut short, never anything else. (Unconstrained, the same model wrote none of twelve such
/// answers as the proxy's JSON; constrained, at the server's own temperature, nine of twelve before the schema
/// bounded its lists and texts, the other three repeating one string to the answer's cap.)
#[test]
fn a_constrained_proxy_answer_from_llama_server_parses() {
    use acr_core::answers::{Source, search};
    use acr_core::llm::openai::{HttpResponse, parse_response, request_body};
    use acr_core::prompt::Prompt;

    let Some(llama) = Server::start(&["llama"]) else { return };
    let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    let notes = [
        "I would look at the cart first: search_class(\"Cart\") and then search_method_in_class(\"total\", \"Cart\").",
        "Let me check search_code_in_file(\"116\", \"Square.py\"), search_code_in_file(\"117\", \"Square.py\") and more.",
    ];
    for (i, answer) in notes.iter().enumerate() {
        // At temperature 0 the tiny model says the same every time, so the test does too.
        let request = Prompt::Proxy { answer }.request(&[]).with_temperature(0.0);
        assert!(request.schema.is_some(), "the proxy's request carries its schema");
        let url = format!("{}/chat/completions", llama.base_url);
        let body = request_body(&llama.model, &request).to_string();
        let mut response = agent.post(&url).header("Content-Type", "application/json").send(body).unwrap();
        let status = response.status().as_u16();
        let body = response.body_mut().read_to_string().unwrap();
        let answer = parse_response(&HttpResponse { status, body: body.clone(), retry_after: None })
            .unwrap_or_else(|e| panic!("note {i}: {e}\n{body}"));
        if answer.cut.is_some() {
            // The bounds allow more than the proxy's answer cap, and greedy decoding can loop inside a string until
            // it (llama.cpp built from source for this CPU did on note 0): still held to the schema, the text cut
            // there is JSON that ends early, never anything else.
            let cut = serde_json::from_str::<Value>(answer.content.trim()).expect_err("a cut answer is not whole");
            assert!(cut.is_eof(), "note {i}: cut, and not JSON that ends early ({cut}): {}", answer.content);
            let start: String = answer.content.chars().filter(|c| !c.is_whitespace()).take(13).collect();
            assert_eq!(start, "{\"API_calls\":", "note {i}: {}", answer.content);
            eprintln!("note {i}: the answer ran to its cap inside the schema; its text so far is JSON cut short");
            continue;
        }
        let json: Value = serde_json::from_str(answer.content.trim())
            .unwrap_or_else(|e| panic!("note {i}: not JSON ({e}): {}", answer.content));
        let calls = json["API_calls"].as_array().unwrap_or_else(|| panic!("note {i}: {json}"));
        assert!(calls.iter().all(Value::is_string), "note {i}: {json}");
        assert!(calls.len() <= acr_core::api::MAX_CALLS_PER_ROUND, "note {i}: {json}");
        let locations = json["bug_locations"].as_array().unwrap_or_else(|| panic!("note {i}: {json}"));
        for location in locations {
            for key in ["file", "class", "method", "intended_behavior"] {
                assert!(location[key].is_string(), "note {i}: {key} in {json}");
            }
        }
        assert_eq!(search::read(&answer.content).source, Source::Json, "note {i}: {}", answer.content);
    }
}

#[test]
fn llama_server_streamed_answers_go_on_after_a_cut() {
    let Some(llama) = Server::start(&["llama"]) else { return };
    let run = acr_run(
        &llama,
        &llama.model,
        None,
        &["--stream", "--timeout", "20", "--max-calls", "6", "--max-seconds", "25"],
    );
    assert_ended_with_outcome(&run, &["budget"]);
    let models = of_kind(&run.events, "model");
    assert!(!models.is_empty(), "the model was asked\n{}", run.why());
    // An answer cut short (cap, time, loop) is still an answer: unless the budget ended the run, the run asked
    // again after it.
    let cut = models.iter().position(|e| !e["cut"].is_null());
    if let Some(cut) = cut.filter(|_| run.stopped_kind().is_none()) {
        let later = run.events.iter().skip_while(|e| *e != models[cut]).skip(1);
        assert!(later.count() > 0, "the run went on after the cut answer\n{}", run.why());
    }
}

#[test]
fn a_server_that_refuses_tools_is_asked_in_text_at_once() {
    let Some(llama) = Server::start(&["llama", "--no-jinja"]) else { return };
    let run = acr_run(
        &llama,
        &llama.model,
        None,
        &["--tools", "--max-calls", "4", "--max-seconds", "20", "--timeout", "120"],
    );
    assert_ended_with_outcome(&run, &["budget"]);
    let log = llama.log();
    // llama-server --no-jinja answers 500 "tools param requires --jinja flag": the client must not back off and
    // retry (it is no passing trouble), and the run must not offer tools again.
    let refusals = log_times(&log, "tools param requires --jinja flag");
    let answered = log_times(&log, "launch_slot_");
    assert_eq!(refusals.len(), 1, "one refusal, then text only\n{}\nserver log:\n{log}", run.why());
    let next = answered.iter().find(|&&t| t > refusals[0]).copied().expect("a request answered after the refusal");
    assert!(
        next - refusals[0] < 0.9,
        "asked again in text {:.2} s after the refusal: no back-off\n{log}",
        next - refusals[0]
    );
    let notes = run.notes();
    assert!(
        notes.iter().any(|n| n.to_lowercase().contains("tool")),
        "a note says the server does not take tools: {notes:?}\n{}",
        run.why()
    );
}

#[test]
fn the_context_window_is_learned_from_the_server() {
    let Some(llama) = Server::start(&["llama", "--ctx", "1024"]) else { return };
    // No --context-window: the first request is too long for 1024 tokens, and llama-server says so (400
    // exceed_context_size_error with n_ctx).
    let run = acr_run(&llama, &llama.model, None, &["--max-calls", "5", "--max-seconds", "20", "--timeout", "120"]);
    assert_ended_with_outcome(&run, &["budget", "context_too_small"]);
    let notes = run.notes();
    assert!(
        notes.iter().any(|n| n.contains("1024")),
        "a note says the context window (1024) was learned: {notes:?}\n{}",
        run.why()
    );
    // The window given up front: no request goes over it, so the server refuses none.
    let given = acr_run(
        &llama,
        &llama.model,
        None,
        &["--context-window", "1024", "--max-calls", "4", "--max-seconds", "15", "--timeout", "120"],
    );
    assert_ended_with_outcome(&given, &["budget", "context_too_small"]);
    let log = llama.log();
    assert!(!log.contains("exceeds the available context size"), "a request went over the window:\n{log}");
}

#[test]
fn a_wrong_key_stops_the_run_at_once() {
    let Some(llama) = Server::start(&["llama", "--api-key", "secret"]) else { return };
    let run = acr_run(&llama, &llama.model, Some("not-the-key"), &["--max-calls", "4", "--timeout", "30"]);
    assert_key_refused(&run);
}

#[test]
fn litellm_mock_and_routed_models_and_a_wrong_key() {
    // A window smaller than the first request (558 of SmolLM2's tokens through LiteLLM): LiteLLM passes llama-server's refusal on
    // without `n_ctx`, and the agent learns the window from its words.
    let Some(llama) = Server::start(&["llama", "--ctx", "512"]) else { return };
    let llama_url = llama.base_url.clone();
    let Some(proxy) = Server::start(&["litellm", "--llama-url", &llama_url, "--master-key", "sk-acr-real"]) else {
        return;
    };
    // mock-model answers the same text every time: the run goes through every stage and ends with no patch.
    let mock = acr_run(&proxy, "mock-model", Some("sk-acr-real"), &["--max-calls", "12", "--timeout", "30"]);
    assert_ended_with_outcome(&mock, &["budget"]);
    assert!(!of_kind(&mock.events, "model").is_empty(), "{}", mock.why());

    // smollm2: LiteLLM passes the request on to llama-server, streamed.
    let routed = acr_run(
        &proxy,
        "smollm2",
        Some("sk-acr-real"),
        &["--stream", "--timeout", "20", "--max-calls", "4", "--max-seconds", "20"],
    );
    assert_ended_with_outcome(&routed, &["budget", "context_too_small"]);
    let notes = routed.notes();
    assert!(
        notes.iter().any(|n| n.contains("refused a prompt") && n.contains("taken as 512 tokens")),
        "the window was learned from the refusal LiteLLM passed on: {notes:?}\n{}",
        routed.why()
    );

    // A wrong key: LiteLLM (without a database) answers 400 "No connected db.".
    let refused = acr_run(&proxy, "mock-model", Some("sk-wrong"), &["--max-calls", "4", "--timeout", "30"]);
    assert_key_refused(&refused);
}

/// The mock's llama.cpp dialect (`acr serve-model --dialect llamacpp`) against llama.cpp's own server, started the
/// same way (no `--jinja`, a 512-token window), on the same raw requests: the same status and error type for tools
/// and for a prompt over the window (with the window named), and streamed usage only when asked, in a chunk of its
/// own with `choices: []`. What the mock plays is what the real server does.
#[test]
fn the_mocks_llamacpp_dialect_does_what_llama_server_does() {
    let Some(real) = Server::start(&["llama", "--no-jinja", "--ctx", "512"]) else { return };
    let script = root().join("tests/fixtures/scripts/demo-reasoning.json");
    let mock = common::ModelServer::start_with(&script, &["--dialect", "llamacpp", "--context-window", "512"]);
    let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    let post = |base: &str, body: Value| -> (u16, String) {
        let url = format!("{}/chat/completions", base.trim_end_matches('/'));
        let mut response = agent.post(&url).header("Content-Type", "application/json").send(body.to_string()).unwrap();
        (response.status().as_u16(), response.body_mut().read_to_string().unwrap())
    };
    let hello = || serde_json::json!([{"role": "user", "content": "Say hello."}]);
    let requests = [
        (
            "tools",
            serde_json::json!({"messages": hello(), "max_tokens": 8, "tools": [{"type": "function", "function": {"name": "search_class", "parameters": {"type": "object", "properties": {}}}}]}),
        ),
        (
            "over the window",
            serde_json::json!({"messages": [{"role": "user", "content": "apple banana cherry ".repeat(400)}], "max_tokens": 8}),
        ),
    ];
    for (what, body) in requests {
        let (real_status, real_body) = post(&real.base_url, body.clone());
        let (mock_status, mock_body) = post(&mock.url, body);
        let (real_error, mock_error): (Value, Value) =
            (serde_json::from_str(&real_body).unwrap(), serde_json::from_str(&mock_body).unwrap());
        assert_eq!(mock_status, real_status, "{what}: real {real_body}, mock {mock_body}");
        assert_eq!(
            mock_error["error"]["type"], real_error["error"]["type"],
            "{what}: real {real_body}, mock {mock_body}"
        );
        assert_eq!(mock_error["error"]["n_ctx"], real_error["error"]["n_ctx"], "{what}");
    }
    for asked in [false, true] {
        let mut body = serde_json::json!({"messages": hello(), "max_tokens": 8, "stream": true});
        if asked {
            body["stream_options"] = serde_json::json!({"include_usage": true});
        }
        let usage_chunks = |sse: &str| -> Vec<Value> {
            sse.lines()
                .filter_map(|l| l.strip_prefix("data: "))
                .filter_map(|d| serde_json::from_str::<Value>(d).ok())
                .filter(|c| c["usage"].is_object())
                .collect()
        };
        let real_usage = usage_chunks(&post(&real.base_url, body.clone()).1);
        let mock_usage = usage_chunks(&post(&mock.url, body).1);
        assert_eq!(real_usage.len(), usize::from(asked), "real, asked {asked}: {real_usage:?}");
        assert_eq!(mock_usage.len(), real_usage.len(), "mock, asked {asked}: {mock_usage:?}");
        for chunk in real_usage.iter().chain(&mock_usage) {
            assert_eq!(chunk["choices"], serde_json::json!([]), "a chunk of its own: {chunk}");
        }
    }
}

/// The `acr run` line of each local-model block of the README, between `<!-- local-models:start -->` and its end,
/// with its line continuations joined.
fn readme_local_model_commands() -> Vec<String> {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let start = readme.find("<!-- local-models:start -->").expect("the README marks its local-model blocks");
    let end = readme[start..].find("<!-- local-models:end -->").expect("and their end") + start;
    readme[start..end]
        .replace("\\\n", " ")
        .lines()
        .filter(|l| l.trim_start().starts_with("acr run "))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

/// The README's blocks for a repository and a model on the user's machine (llama.cpp, Ollama, LM Studio, vLLM) run
/// as written against the real llama-server, with only what stands for the user's own put in: the server's URL for
/// the block's, the demo repository and its issue for `~/src/myproject` and `issue.md`, an output folder, and a
/// small budget added. Each run ends with an outcome.
#[test]
fn the_readmes_local_model_blocks_run_against_llama_server() {
    let commands = readme_local_model_commands();
    assert_eq!(commands.len(), 4, "one block per server: {commands:#?}");
    let Some(llama) = Server::start(&["llama", "--ctx", "16384"]) else { return };
    let demo = root().join("web/demo");
    for command in &commands {
        let out = tempfile::tempdir().expect("temp dir");
        let words: Vec<&str> = command.split_whitespace().collect();
        assert_eq!(&words[..2], ["acr", "run"], "{command}");
        let mut args: Vec<String> = Vec::new();
        let mut i = 2;
        while i < words.len() {
            let (word, next) = (words[i], words.get(i + 1).copied());
            match (word, next) {
                ("~/src/myproject", _) => args.push(demo.display().to_string()),
                ("--issue", Some("issue.md")) => {
                    args.extend(["--issue".into(), demo.join("ISSUE.md").display().to_string()]);
                    i += 1;
                }
                ("--endpoint", Some(url)) => {
                    assert!(url.starts_with("http://localhost:") && url.ends_with("/v1"), "{command}");
                    args.extend(["--endpoint".into(), llama.base_url.clone()]);
                    i += 1;
                }
                ("--out", Some(_)) => {
                    args.extend(["--out".into(), out.path().display().to_string()]);
                    i += 1;
                }
                (w, _) => args.push(w.to_string()),
            }
            i += 1;
        }
        for needed in ["--runner", "--context-window", "--model", "--out"] {
            assert!(args.iter().any(|a| a == needed), "the block gives {needed}: {command}");
        }
        args.extend(["--max-calls", "2", "--max-seconds", "15", "--overall-retries", "1"].map(String::from));
        let output = Command::new(common::ACR).arg("run").args(&args).output().expect("acr run runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        let outcome: Value = serde_json::from_str(
            &std::fs::read_to_string(out.path().join("outcome.json"))
                .unwrap_or_else(|e| panic!("no outcome.json ({e}) for `{command}`:\n{stderr}")),
        )
        .expect("outcome.json is JSON");
        let status = outcome["status"].as_str().unwrap_or_default();
        assert!(STATUSES.contains(&status), "`{command}` ended with {outcome}\n{stderr}");
        let stopped = outcome["stopped"]["kind"].as_str();
        assert!(stopped.is_none_or(|k| k == "budget"), "`{command}` stopped: {outcome}\n{stderr}");
        assert!(out.path().join("final.diff").exists(), "`{command}` wrote final.diff");
    }
}
