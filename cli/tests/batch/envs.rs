//! `--envs`: each repository and version runs its reproducers with its own interpreter.

use std::os::unix::fs::PermissionsExt;

use crate::common::{ModelServer, python3_available};
use crate::fixture::{fixture, predictions, stderr};

#[test]
fn a_task_runs_with_the_interpreter_of_its_repo_at_its_version_and_others_with_python() {
    let f = fixture();
    if !python3_available() {
        eprintln!("SKIPPED: no python3");
        return;
    }
    // An interpreter that notes each start in a log, then is python3.
    let log = f.out("shop-python.log");
    let python = f.out("shop-python");
    std::fs::write(&python, format!("#!/bin/sh\necho started >> '{}'\nexec python3 \"$@\"\n", log.display())).unwrap();
    std::fs::set_permissions(&python, std::fs::Permissions::from_mode(0o755)).unwrap();
    let envs = f.out("envs.json");
    std::fs::write(&envs, serde_json::json!({ "acme/shop@1.0": python }).to_string()).unwrap();
    let server = ModelServer::start(&f.script);
    let out = f.out("out");
    let only =
        |id: &str| ["--instance-ids", id, "--runner", "local", "--envs", envs.to_str().unwrap()].map(String::from);
    let tools = f.run(&server, &out, &only("acme__tools-1").each_ref().map(String::as_str));
    let err = stderr(&tools);
    if err.contains("--runner local:") {
        eprintln!("SKIPPED: no local sandbox here:\n{err}");
        return;
    }
    assert_eq!(tools.status.code(), Some(0), "{err}");
    assert!(err.contains("reproducers run in the interpreters of"), "{err}");
    assert!(!log.exists(), "acme/tools has no entry: it runs with python3");
    let shop = f.run(&server, &out, &only("acme__shop-1").each_ref().map(String::as_str));
    assert_eq!(shop.status.code(), Some(0), "{}", stderr(&shop));
    assert!(std::fs::read_to_string(&log).is_ok_and(|l| l.contains("started")), "acme/shop@1.0 ran with its own");
    assert_eq!(predictions(&out).len(), 2);

    let missing = f.out("missing.json");
    std::fs::write(&missing, r#"{"acme/shop": "/no/such/python"}"#).unwrap();
    let refused = f.run(&server, &f.out("out2"), &["--envs", missing.to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(stderr(&refused).contains("no such interpreter for acme/shop: /no/such/python"), "{}", stderr(&refused));
}
