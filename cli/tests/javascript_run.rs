//! `acr run` on a JavaScript repository end to end: the demo `web/demo-js` (an ES module cart whose total ignores
//! quantities) with its model script, the reproducer written as an ES module and run by a real `node` in the local
//! runner's sandbox, a wrong patch judged and refused, and the fix, written as the method alone, put in place by
//! name and validated by execution.

use std::process::Command;

mod common;
use common::{ACR, events, of_kind, root, runs};

#[test]
fn a_javascript_bug_is_reproduced_with_node_and_the_fix_validated() {
    if Command::new("node").arg("--version").output().is_err() {
        eprintln!("skipped: node is not installed");
        return;
    }
    let demo = root().join("web/demo-js");
    let out = tempfile::tempdir().expect("temp dir");
    let run = Command::new(ACR)
        .arg("run")
        .arg(&demo)
        .arg("--issue")
        .arg(demo.join("ISSUE.md"))
        .arg("--script")
        .arg(demo.join("script.json"))
        .args(["--runner", "local", "--out"])
        .arg(out.path())
        .output()
        .expect("acr run runs");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "acr run failed:\n{stderr}");
    assert!(stderr.contains("validated by execution"), "{stderr}");
    let diff = String::from_utf8_lossy(&run.stdout);
    assert!(diff.contains("-      total += item.priceCents;\n+      total += item.priceCents * units;"), "{diff}");

    let events = events(out.path());
    assert_eq!(
        runs(&events),
        [("reproducer on original".into(), 1), ("reproducer on patch".into(), 1), ("reproducer on patch".into(), 0),],
        "node really ran the reproducer"
    );
    let first = of_kind(&events, "run")[0]["outcome"]["stderr"].as_str().unwrap().to_string();
    assert!(first.contains("ERR_ASSERTION") && first.contains("actual: 50"), "{first}");
    let wrong = of_kind(&events, "run")[1]["outcome"]["stderr"].as_str().unwrap().to_string();
    assert!(wrong.contains("actual: 53"), "the wrong patch ran: {wrong}");
    let reproducer = events.iter().find(|e| e["event"] == "model" && e["stage"] == "reproducer").expect("asked");
    assert!(reproducer["prompt"].as_str().unwrap().contains("node reproducer.mjs"), "{reproducer}");
    let search = events.iter().find(|e| e["event"] == "model" && e["stage"] == "search").expect("a search");
    assert!(search["prompt"].as_str().unwrap().contains("ERR_ASSERTION"), "the trace is the search's first clue");
    let found = of_kind(&events, "locations");
    assert_eq!(found[0]["found"][0]["file"], "src/cart.js");
}
