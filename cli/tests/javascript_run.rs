//! `acr run` on a JavaScript repository end to end: the demo `web/demo-js` (an ES module cart whose total ignores
//! quantities) with its model script, the reproducer written as an ES module and run by a real `node` in the local
//! runner's sandbox, a wrong patch judged and refused, and the fix, written as the method alone, put in place by
//! name and validated by execution.

use std::path::Path;
use std::process::Command;

mod common;
use common::{ACR, events, of_kind, root, runs};

/// Whether `node` is here to run the reproducers (the tests say they were skipped when not).
fn has_node() -> bool {
    let here = Command::new("node").arg("--version").output().is_ok();
    if !here {
        eprintln!("skipped: node is not installed");
    }
    here
}

/// Runs `acr run` on `repo` with the demo's issue and the model `script` in the local runner, writing events to `out`;
/// asserts the patch was validated by execution and returns the diff.
fn validated_run(repo: &Path, script: &Path, out: &Path) -> String {
    validated_run_of(repo, &root().join("web/demo-js/ISSUE.md"), script, out)
}

/// [`validated_run`] with the issue at `issue`.
fn validated_run_of(repo: &Path, issue: &Path, script: &Path, out: &Path) -> String {
    let run = Command::new(ACR)
        .arg("run")
        .arg(repo)
        .arg("--issue")
        .arg(issue)
        .arg("--script")
        .arg(script)
        .args(["--runner", "local", "--out"])
        .arg(out)
        .output()
        .expect("acr run runs");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "acr run failed:\n{stderr}");
    assert!(stderr.contains("validated by execution"), "{stderr}");
    String::from_utf8_lossy(&run.stdout).into_owned()
}

#[test]
fn a_javascript_bug_is_reproduced_with_node_and_the_fix_validated() {
    if !has_node() {
        return;
    }
    let demo = root().join("web/demo-js");
    let out = tempfile::tempdir().expect("temp dir");
    let diff = validated_run(&demo, &demo.join("script.json"), out.path());
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

/// The same cart in TypeScript (`tests/fixtures/typescript-cart`: an enum, parameter properties, an interface, a
/// type-only re-export), run by Node 20 with no compiler: every TypeScript file of the run is replaced with its
/// JavaScript, and acr's loader lets the reproducer's `./src/index.js` find `index.ts`.
#[test]
fn a_typescript_bug_is_reproduced_with_node_and_the_fix_validated() {
    if !has_node() {
        return;
    }
    let repo = root().join("tests/fixtures/typescript-cart");
    let out = tempfile::tempdir().expect("temp dir");
    let diff = validated_run_of(&repo, &repo.join("ISSUE.md"), &repo.join("script.json"), out.path());
    assert!(diff.contains("+++ b/src/cart.ts"), "{diff}");
    assert!(diff.contains("-      total += item.priceCents;\n+      total += item.priceCents * units;"), "{diff}");

    let events = events(out.path());
    assert_eq!(
        runs(&events),
        [("reproducer on original".into(), 1), ("reproducer on patch".into(), 1), ("reproducer on patch".into(), 0)],
        "node ran the reproducer on the TypeScript"
    );
    let first = of_kind(&events, "run")[0]["outcome"]["stderr"].as_str().unwrap().to_string();
    assert!(first.contains("ERR_ASSERTION") && first.contains("actual: 50"), "{first}");
    let reproducer = events.iter().find(|e| e["event"] == "model" && e["stage"] == "reproducer").expect("asked");
    let asked = reproducer["prompt"].as_str().unwrap();
    assert!(asked.contains("node --import ./acr_typescript.mjs reproducer.mjs"), "{asked}");
}

/// The test of one apple, in the repository's own tests, and the reproducer of three passed by a wrong patch.
const ONE_APPLE_TEST: &str = "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\n\
     import { Cart, Item } from '../src/index.js';\n\n\
     test('one apple costs its price', () => {\n  const cart = new Cart();\n  \
     cart.add(new Item('A1', 'apple', 50), 1);\n  assert.equal(cart.total(), 50);\n});\n\n\
     test('an empty cart costs nothing', () => {\n  assert.equal(new Cart().total(), 0);\n});\n";

/// The repository's own tests check a patch the reproducer passes: a fix that charges three units for every line
/// passes the reproducer (three apples) but breaks the repository's test of one apple, which Node's test runner
/// reports through the reporter acr writes into the run's folder; the model hears which test broke and writes the fix.
#[test]
fn the_repositorys_own_tests_run_by_node_catch_a_patch_the_reproducer_passes() {
    let demo = root().join("web/demo-js");
    let files = ["package.json", "src/cart.js", "src/index.js", "src/item.js", "script.json"];
    own_tests_catch_a_patch_the_reproducer_passes(&demo, &files, "test/cart.test.js", &demo.join("ISSUE.md"));
}

/// The same in TypeScript: the test file is `cart.test.ts`, run by Node's test runner with acr's TypeScript loader,
/// and found as one that loads `src/cart.ts` through its import of `../src/index.js`.
#[test]
fn the_repositorys_own_typescript_tests_catch_a_patch_the_reproducer_passes() {
    let demo = root().join("tests/fixtures/typescript-cart");
    let files = ["package.json", "src/cart.ts", "src/index.ts", "src/item.ts", "src/money.ts", "script.json"];
    own_tests_catch_a_patch_the_reproducer_passes(&demo, &files, "test/cart.test.ts", &demo.join("ISSUE.md"));
}

/// Copies `files` of `demo` into a new repository with [`ONE_APPLE_TEST`] at `test`, gives the model script a wrong
/// patch first, and checks that the repository's tests caught it and the fix was validated.
fn own_tests_catch_a_patch_the_reproducer_passes(demo: &Path, files: &[&str], test: &str, issue: &Path) {
    if !has_node() {
        return;
    }
    let repo = tempfile::tempdir().expect("temp dir");
    for file in files {
        let to = repo.path().join(file);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(demo.join(file), to).unwrap();
    }
    std::fs::create_dir_all(repo.path().join("test")).unwrap();
    std::fs::write(repo.path().join(test), ONE_APPLE_TEST).unwrap();
    let script_file = repo.path().join("script.json");
    let mut script: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&script_file).unwrap()).unwrap();
    let fix = script["answers"]["patch"][1].as_str().unwrap().to_string();
    let three = fix.replace("item.priceCents * units", "item.priceCents * 3");
    script["answers"]["patch"] = serde_json::json!([three, fix]);
    let yes = r#"{"patch-correct": "yes", "test-correct": "yes", "patch-analysis": "", "test-analysis": "", "patch-advice": "", "test-advice": ""}"#;
    script["answers"]["review"] = serde_json::json!([yes, yes]);
    std::fs::write(&script_file, script.to_string()).unwrap();

    let out = tempfile::tempdir().expect("temp dir");
    let diff = validated_run_of(repo.path(), issue, &script_file, out.path());
    assert!(diff.contains("+      total += item.priceCents * units;"), "{diff}");

    let events = events(out.path());
    let purposes: Vec<(String, i64)> = runs(&events);
    assert_eq!(
        purposes,
        [
            ("reproducer on original".into(), 1),
            ("reproducer on patch".into(), 0),
            ("tests on original".into(), 0),
            ("tests on patch".into(), 1),
            ("reproducer on patch".into(), 0),
            ("tests on original".into(), 0),
            ("tests on patch".into(), 0),
        ],
        "node --test ran the repository's test on the original and on each patch"
    );
    let tests = of_kind(&events, "run");
    let broken = tests[3]["outcome"]["stdout"].as_str().unwrap();
    assert!(broken.contains(&format!("FAIL {test}::one_apple_costs_its_price")), "{broken}");
    assert!(broken.contains(&format!("PASS {test}::an_empty_cart_costs_nothing")), "{broken}");
    let asked = events.iter().filter(|e| e["event"] == "model" && e["stage"] == "patch").nth(1).expect("asked again");
    let told = asked["prompt"].as_str().unwrap();
    assert!(told.contains("tests of the repository that passed before now fail"), "{told}");
    assert!(told.contains("one_apple_costs_its_price"), "{told}");
}
