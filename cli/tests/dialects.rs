//! The demo repair against every server dialect `acr serve-model` plays (OpenAI, Ollama, vLLM, LM Studio,
//! llama.cpp), streamed and not, with a reasoning model and without: the same patch in every cell, the thinking kept
//! apart wherever the server put it, and the usage estimated (and marked so) only where the server sent none.
//! Where a dialect cannot serve a run as asked (a context window too small), the run ends with the server's reason.
//! The edges of the model layer against the servers that draw them: a refusal over the window read for the prompt
//! alone, a long tools run in a small window against OpenAI's refusal of orphaned tool messages, and a streamed
//! answer with repeated lines that must not be taken for a loop.

use std::path::{Path, PathBuf};

use acr_core::llm::reasoning::separate;

mod common;
use common::{ModelServer, acr_run, events, of_kind, root};

const DIALECTS: [&str; 5] = ["openai", "ollama", "vllm", "lmstudio", "llamacpp"];

/// The reasoning model's script with every thinking block taken out: the same answers from a model that does not
/// think aloud.
fn without_thinking(dir: &Path) -> PathBuf {
    let path = root().join("tests/fixtures/scripts/demo-reasoning.json");
    let mut script: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    for answers in script["answers"].as_object_mut().unwrap().values_mut() {
        for answer in answers.as_array_mut().unwrap() {
            *answer = separate(answer.as_str().unwrap()).answer.into();
        }
    }
    let plain = dir.join("demo-plain.json");
    std::fs::write(&plain, script.to_string()).unwrap();
    plain
}

#[test]
fn the_demo_repair_succeeds_in_every_dialect_streamed_or_not_thinking_or_not() {
    let scratch = tempfile::tempdir().expect("temp dir");
    let plain = without_thinking(scratch.path());
    let reasoning = root().join("tests/fixtures/scripts/demo-reasoning.json");
    let mut cells = 0;
    for dialect in DIALECTS {
        for (thinks, script) in [(true, &reasoning), (false, &plain)] {
            for stream in [false, true] {
                let cell = format!("{dialect}, thinking {thinks}, streamed {stream}");
                let server = ModelServer::start_with(script, &["--dialect", dialect]);
                let out = tempfile::tempdir().expect("temp dir");
                let run = acr_run(&server, if stream { &["--stream"] } else { &[] }, out.path());
                let stderr = String::from_utf8_lossy(&run.stderr);
                assert!(run.status.success(), "{cell}: acr run failed:\n{stderr}");
                let diff = String::from_utf8_lossy(&run.stdout);
                assert!(diff.contains("+            total += item.price_cents * units"), "{cell}: {diff}");
                assert!(!diff.contains("+ units"), "{cell}: the drafted edit was applied: {diff}");
                let events = events(out.path());
                let models = of_kind(&events, "model");
                assert!(models.iter().all(|e| !e["answer"].as_str().unwrap().contains("think>")), "{cell}");
                let thinking_shown = models.iter().any(|e| e["reasoning"].is_string());
                assert_eq!(thinking_shown, thinks, "{cell}: thinking kept apart, wherever the server put it");
                let estimated = models.iter().filter(|e| e["usage_estimated"] == true).count();
                let server_sends_none = stream && dialect == "lmstudio";
                let expected = if server_sends_none { models.len() } else { 0 };
                assert_eq!(estimated, expected, "{cell}: estimated usage only where none came");
                cells += 1;
            }
        }
    }
    assert_eq!(cells, 20);
}

/// Each server's refusal of a prompt over its window is read for the window, and the requests go again fitted to
/// it. A window too small for this repair (300 tokens) ends the run with an outcome and its reason, never a failure.
#[test]
fn a_prompt_over_the_servers_context_teaches_the_window() {
    let reasoning = root().join("tests/fixtures/scripts/demo-reasoning.json");
    for dialect in ["openai", "vllm", "lmstudio", "llamacpp"] {
        let server = ModelServer::start_with(&reasoning, &["--dialect", dialect, "--context-window", "300"]);
        let out = tempfile::tempdir().expect("temp dir");
        let run = acr_run(&server, &[], out.path());
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(matches!(run.status.code(), Some(1 | 2)), "{dialect}: an outcome:\n{stderr}");
        assert!(stderr.contains("the window is taken as 300 tokens"), "{dialect}: {stderr}");
        assert!(stderr.contains("more than the model's context window of 300"), "{dialect}: {stderr}");
        let outcome: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.path().join("outcome.json")).unwrap()).unwrap();
        assert_eq!(outcome["status"], "NO_PATCH", "{dialect}");
        let stop = outcome["stopped"]["kind"].as_str();
        assert!(matches!(stop, None | Some("context_too_small")), "{dialect}: {stop:?}");
    }
}

/// `acr run --tools` in every dialect, streamed or not, thinking or not: where the server takes tools, the searches
/// are tool calls run without reading; where it refuses them (vLLM and llama.cpp by default), the run says so once
/// and goes on with calls in the text. The patch is the same in every cell.
#[test]
fn tools_are_used_where_the_server_takes_them_and_dropped_where_it_does_not() {
    let scratch = tempfile::tempdir().expect("temp dir");
    let plain = without_thinking(scratch.path());
    let reasoning = root().join("tests/fixtures/scripts/demo-reasoning.json");
    let mut cells = 0;
    for dialect in DIALECTS {
        let refuses = matches!(dialect, "vllm" | "llamacpp");
        for (stream, script) in [false, true].into_iter().flat_map(|s| [(s, &reasoning), (s, &plain)]) {
            let cell = format!("{dialect}, streamed {stream}, {}", script.display());
            cells += 1;
            let server = ModelServer::start_with(script, &["--dialect", dialect]);
            let out = tempfile::tempdir().expect("temp dir");
            let args: &[&str] = if stream { &["--tools", "--stream"] } else { &["--tools"] };
            let run = acr_run(&server, args, out.path());
            let stderr = String::from_utf8_lossy(&run.stderr);
            assert!(run.status.success(), "{cell}: acr run failed:\n{stderr}");
            let diff = String::from_utf8_lossy(&run.stdout);
            assert!(diff.contains("+            total += item.price_cents * units"), "{cell}: {diff}");
            let events = events(out.path());
            let by_tools = of_kind(&events, "proxy").iter().filter(|e| e["source"] == "tools").count();
            let tool_calls: usize =
                of_kind(&events, "model").iter().map(|e| e["tool_calls"].as_array().map_or(0, Vec::len)).sum();
            let refusals = of_kind(&events, "note")
                .iter()
                .filter(|e| e["text"].as_str().unwrap().contains("does not take tools"))
                .count();
            if refuses {
                assert_eq!((by_tools, tool_calls, refusals), (0, 0, 1), "{cell}: refused once, then text");
            } else {
                assert!(by_tools > 0 && tool_calls > 0, "{cell}: searched by tool calls");
                assert_eq!(refusals, 0, "{cell}");
                assert!(stderr.contains("tool call"), "{cell}: the progress shows the calls: {stderr}");
            }
        }
    }
    assert_eq!(cells, 20);
}

/// A window the demo's prompts fit, but not with the first request's whole answer cap: the server refuses it, naming
/// the window and the prompt (OpenAI's "you requested T tokens (P in the messages, C in the completion)", vLLM's
/// "your request has P input tokens"). Read for P, not T, the refusal teaches the window and the server's count, and
/// the request goes again whole with its answer capped at the room left; read for T, the issue itself lost its middle.
#[test]
fn a_refusal_is_read_for_the_prompt_alone() {
    let reasoning = root().join("tests/fixtures/scripts/demo-reasoning.json");
    for dialect in ["openai", "vllm"] {
        // The demo's prompts take 451 to 943 tokens; the first request's answer cap is 1,536.
        let server = ModelServer::start_with(&reasoning, &["--dialect", dialect, "--context-window", "1200"]);
        let out = tempfile::tempdir().expect("temp dir");
        let run = acr_run(&server, &[], out.path());
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(run.status.success(), "{dialect}: acr run failed:\n{stderr}");
        assert!(String::from_utf8_lossy(&run.stdout).contains("+            total += item.price_cents * units"));
        let events = events(out.path());
        let notes: Vec<&str> = of_kind(&events, "note").iter().map(|e| e["text"].as_str().unwrap()).collect();
        let first = &of_kind(&events, "model")[0]["usage"]["prompt_tokens"];
        let read = format!("refused a prompt of about {first} tokens as over its context window");
        assert!(notes.iter().any(|n| n.contains(&read)), "{dialect}: {read:?} in {notes:#?}");
        assert!(!notes.iter().any(|n| n.contains("from its middle")), "{dialect}: {notes:#?}");
    }
}

/// A long search by tool calls (ten calls over nine rounds) in a window that holds a few rounds at a time, against
/// OpenAI's dialect, which refuses a `tool` message whose call is not in the conversation before it. The oldest
/// exchanges are left out whole, each turn with all of its results: no request is refused, the model searches by tool
/// calls to the end (tools are never taken as refused), and the patch comes out.
#[test]
fn a_long_tools_run_in_a_small_window_leaves_out_whole_exchanges() {
    for (window, stream) in [("2000", false), ("1600", false), ("1600", true)] {
        let cell = format!("window {window}, streamed {stream}");
        let server = ModelServer::start_with("demo-tools-long.json", &["--dialect", "openai"]);
        let out = tempfile::tempdir().expect("temp dir");
        let mut args = vec!["--tools", "--context-window", window];
        if stream {
            args.push("--stream");
        }
        let run = acr_run(&server, &args, out.path());
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(run.status.success(), "{cell}: acr run failed:\n{stderr}");
        assert!(String::from_utf8_lossy(&run.stdout).contains("+            total += item.price_cents * units"));
        let events = events(out.path());
        let notes: Vec<&str> = of_kind(&events, "note").iter().map(|e| e["text"].as_str().unwrap()).collect();
        assert!(notes.iter().any(|n| n.contains("oldest exchange")), "{cell}: exchanges were left out: {notes:#?}");
        assert!(!notes.iter().any(|n| n.contains("does not take tools")), "{cell}: {notes:#?}");
        let models = of_kind(&events, "model");
        assert!(models.iter().all(|e| e["cut"]["kind"] != "failed"), "{cell}: a request was refused");
        let tool_calls: usize = models.iter().map(|e| e["tool_calls"].as_array().map_or(0, Vec::len)).sum();
        assert_eq!(tool_calls, 10, "{cell}: every search was a tool call");
    }
}

/// A patch that writes a block of separator lines (2.4 KB of one line repeated), streamed to `acr run --stream` in
/// small deltas: the repeats end where the patch goes on, so the answer is never taken for a loop while it arrives,
/// and the whole block reaches the diff.
#[test]
fn a_streamed_patch_with_repeated_lines_arrives_whole() {
    let scratch = tempfile::tempdir().expect("temp dir");
    let path = root().join("tests/fixtures/scripts/demo-reasoning.json");
    let mut script: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let rule = format!("        # {}\n", "-".repeat(70));
    script["answers"]["patch"] = serde_json::json!([format!(
        "# modification 1\n```\n<file>inventory/cart.py</file>\n<original>\n        for item, units in self.lines.items():\n            \
         total += item.price_cents\n</original>\n<patched>\n{}        for item, units in self.lines.items():\n            \
         total += item.price_cents * units\n</patched>\n```\n",
        rule.repeat(30)
    )]);
    let banner = scratch.path().join("demo-banner.json");
    std::fs::write(&banner, script.to_string()).unwrap();
    let server = ModelServer::start_with(&banner, &["--dialect", "openai"]);
    let out = tempfile::tempdir().expect("temp dir");
    let run = acr_run(&server, &["--stream"], out.path());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "acr run failed:\n{stderr}");
    let diff = String::from_utf8_lossy(&run.stdout);
    assert_eq!(diff.matches(&format!("+{rule}")).count(), 30, "{diff}");
    let loops = of_kind(&events(out.path()), "model").iter().filter(|e| e["cut"]["kind"] == "loop").count();
    assert_eq!(loops, 0);
}

/// A search answer in words goes to the proxy model, whose JSON has a schema: in every dialect the proxy's request
/// carries it and the transcript marks the answer constrained (OpenAI's after refusing the schema's bounds on
/// lengths, which the request then goes without). Against a release or model without structured outputs
/// (`--no-json-schema`) the server's refusals are read as such (a 400, or llama.cpp's 500, never waited out), the
/// request goes again at once without the bounds, then without the schema, and the run says so; Ollama before 0.5,
/// which ignores a schema in silence, is known by its version and never sent one. The patch is the same in every
/// cell.
#[test]
fn json_answers_are_constrained_where_the_server_takes_a_schema() {
    let scratch = tempfile::tempdir().expect("temp dir");
    let plain = without_thinking(scratch.path());
    let mut script: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&plain).unwrap()).unwrap();
    script["answers"]["search"] = serde_json::json!(["I would start with how the cart adds up its lines."]);
    script["answers"]["proxy"] =
        serde_json::json!([r#"{"API_calls": ["search_class(\"Cart\")"], "bug_locations": []}"#]);
    let prose = scratch.path().join("demo-proxy.json");
    std::fs::write(&prose, script.to_string()).unwrap();
    for dialect in DIALECTS {
        for takes in [true, false] {
            let cell = format!("{dialect}, takes schemas {takes}");
            let args: &[&str] =
                if takes { &["--dialect", dialect] } else { &["--dialect", dialect, "--no-json-schema"] };
            let server = ModelServer::start_with(&prose, args);
            let out = tempfile::tempdir().expect("temp dir");
            let started = std::time::Instant::now();
            let run = acr_run(&server, &[], out.path());
            let stderr = String::from_utf8_lossy(&run.stderr);
            assert!(run.status.success(), "{cell}: acr run failed:\n{stderr}");
            assert!(started.elapsed().as_secs() < 20, "{cell}: a refusal was waited out: {:?}", started.elapsed());
            let diff = String::from_utf8_lossy(&run.stdout);
            assert!(diff.contains("+            total += item.price_cents * units"), "{cell}: {diff}");
            let events = events(out.path());
            let models = of_kind(&events, "model");
            let constrained: Vec<&str> =
                models.iter().filter(|e| e["constrained"] == true).map(|e| e["stage"].as_str().unwrap()).collect();
            assert_eq!(constrained, if takes { vec!["proxy"] } else { vec![] }, "{cell}");
            assert!(models.iter().all(|e| e["cut"]["kind"] != "failed"), "{cell}: a refusal counted as a failed call");
            let notes: Vec<&str> = of_kind(&events, "note").iter().map(|e| e["text"].as_str().unwrap()).collect();
            let bounds_refused = notes.iter().filter(|n| n.contains("refused a JSON schema")).count();
            let dropped: Vec<&&str> = notes.iter().filter(|n| n.contains("does not take a JSON schema")).collect();
            let refuses = !takes && dialect != "ollama";
            // OpenAI refuses the proxy's bounds on lengths (`maxLength`) and takes its schema without them.
            let expected = (usize::from(refuses || dialect == "openai"), usize::from(refuses));
            assert_eq!((bounds_refused, dropped.len()), expected, "{cell}: {notes:#?}");
            if dialect == "llamacpp" && refuses {
                assert!(dropped[0].contains("HTTP 500"), "{cell}: {dropped:?}");
            }
            let said = of_kind(&events, "note").iter().any(|e| e["text"].as_str().unwrap().contains("holds the model"));
            assert_eq!(said, takes && dialect == "ollama", "{cell}: only Ollama's version says so");
        }
    }
}
