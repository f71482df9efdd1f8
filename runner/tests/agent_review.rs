//! The agent's reproduce-and-review loop, once, through a real runner server on 127.0.0.1: the scripted demo
//! model repairs the demo repository and the reproducer runs as python3 in the server's sandbox.

use std::path::Path;
use std::rc::Rc;

use acr_core::agent::{Agent, AgentConfig, Event};
use acr_core::llm::scripted::{Script, ScriptedModel};
use acr_core::{Index, Repo};

mod common;

#[test]
fn review_loop_runs_through_the_server() {
    if std::process::Command::new("python3").arg("--version").output().is_err() {
        eprintln!("skipped: python3 is not installed");
        return;
    }
    let server = common::start(|_| {});
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../web/demo");
    let files = ["inventory/__init__.py", "inventory/cart.py", "inventory/models.py", "inventory/pricing.py"]
        .map(|p| (p, std::fs::read(demo.join(p)).expect("demo file")));
    let repo = Repo::from_files(files);
    let index = Index::build(&repo);
    let script = Script::from_json(&std::fs::read_to_string(demo.join("script.json")).unwrap()).unwrap();
    let issue = std::fs::read_to_string(demo.join("ISSUE.md")).unwrap();
    let runs = Rc::new(std::cell::RefCell::new(Vec::new()));
    let sink = runs.clone();
    let agent = Agent::new(
        Rc::new(repo),
        Rc::new(index),
        ScriptedModel::new(script),
        Some(server.client()),
        AgentConfig::default(),
    )
    .with_observer(Box::new(move |e| {
        if let Event::Run { purpose, outcome } = e {
            sink.borrow_mut().push((*purpose, outcome.exit_code, outcome.stderr.clone()));
        }
    }));
    let outcome = pollster::block_on(agent.run(&issue)).expect("the run completes");
    assert!(outcome.validated, "the server's run of the reproducer passed after the patch");
    let runs = runs.borrow();
    assert_eq!(runs.len(), 2);
    assert_eq!((runs[0].0.as_str(), runs[0].1), ("reproducer on original", Some(1)));
    assert!(runs[0].2.contains("AssertionError: expected 150 cents"), "{}", runs[0].2);
    assert_eq!((runs[1].0.as_str(), runs[1].1), ("reproducer on patch", Some(0)));
}
