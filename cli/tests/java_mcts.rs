//! APR-MCTS on Java, end to end: `acr run --mode mcts --runner local` against a scripted model on three small Java
//! projects whose JUnit tests fail because of a bug (`tests/fixtures/java-mcts`). The fix is one line, one hunk or
//! spread over one method; each script's first candidate is wrong in that way, so the tree search asks again with
//! the prompt for that kind of bug (masked lines, or the whole method) and validates the answer by compiling the
//! project and running its tests in the runner's sandbox: the failing tests must pass, the rest keep passing.

use std::path::Path;
use std::process::Command;

mod common;
use common::{ACR, ModelServer, events, of_kind, root};

/// JUnit's console launcher, where Debian's `junit5` puts it (`tools/setup.sh` installs it).
const JUNIT_JAR: &str = "/usr/share/java/junit-platform-console-standalone.jar";

/// Whether a JDK and JUnit are here to run the fixtures' tests; says so when not.
fn java_available() -> bool {
    let javac = Command::new("javac").arg("-version").output().is_ok_and(|o| o.status.success());
    let found = javac && Path::new(JUNIT_JAR).exists();
    if !found {
        eprintln!("skipped: javac or JUnit's console launcher ({JUNIT_JAR}) is not installed (tools/setup.sh)");
    }
    found
}

/// Runs the tree search on one fixture; returns its transcript's events and the final diff.
fn repair(variant: &str) -> (Vec<serde_json::Value>, String) {
    repair_in(variant, "mcts")
}

/// Runs the agent in a mode (`acr` or `mcts`) on one fixture; returns its transcript's events and the final diff.
fn repair_in(variant: &str, mode: &str) -> (Vec<serde_json::Value>, String) {
    let dir = root().join("tests/fixtures/java-mcts").join(variant);
    repair_with(&dir, &dir.join("script.json"), mode)
}

/// Runs the agent in a mode on the project in `dir`, its issue in `dir/ISSUE.md`, playing `script`.
fn repair_with(dir: &Path, script: &Path, mode: &str) -> (Vec<serde_json::Value>, String) {
    let variant = dir.display();
    let server = ModelServer::start_with(script, &[]);
    let out = tempfile::tempdir().expect("temp dir");
    let run = Command::new(ACR)
        .arg("run")
        .arg(dir)
        .arg("--issue")
        .arg(dir.join("ISSUE.md"))
        .args(["--endpoint", &server.url, "--model", "scripted", "--mode", mode, "--runner", "local"])
        .args(["--overall-retries", "1", "--out"])
        .arg(out.path())
        .output()
        .expect("acr run runs");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{variant}: acr run failed:\n{stderr}");
    assert!(stderr.contains("validated by execution"), "{variant}: {stderr}");
    (events(out.path()), String::from_utf8_lossy(&run.stdout).into_owned())
}

/// The kinds of prompt the tree search sent for patches, in order.
fn patch_prompts(events: &[serde_json::Value]) -> Vec<String> {
    of_kind(events, "model")
        .iter()
        .filter(|e| e["stage"] == "patch")
        .map(|e| e["kind"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// Checks what every variant shares: the failing tests reproduced the issue first, the search started from their
/// trace, the first candidate failed the tests, and the last passed them.
fn check_common(variant: &str, events: &[serde_json::Value]) {
    let runs = of_kind(events, "run");
    let first = &runs.first().expect("a run")["outcome"];
    assert_eq!(first["exit_code"], 1, "{variant}: the tests fail on the original program");
    assert!(first["stdout"].as_str().unwrap().contains("FAIL "), "{variant}");
    let search = of_kind(events, "model").into_iter().find(|e| e["stage"] == "search").expect("a search");
    assert!(search["prompt"].as_str().unwrap().contains("AssertionFailedError"), "{variant}: the trace is the clue");
    let last = of_kind(events, "mcts").last().cloned().expect("an MCTS iteration");
    let verdicts: Vec<&str> = last["tree"].as_array().unwrap().iter().map(|n| n["verdict"].as_str().unwrap()).collect();
    assert_eq!(verdicts.first(), Some(&""), "{variant}: the root");
    assert_eq!(verdicts.last(), Some(&"pass"), "{variant}: {verdicts:?}");
    assert!(verdicts.contains(&"fail"), "{variant}: the wrong candidate failed the tests: {verdicts:?}");
    let validation = runs.last().expect("a validation run");
    assert_eq!(validation["purpose"], "validation");
    assert_eq!(validation["outcome"]["exit_code"], 0, "{variant}: every test passes on the patch");
}

#[test]
fn a_one_line_bug_is_fixed_through_the_masked_line_prompt() {
    if !java_available() {
        return;
    }
    let (events, diff) = repair("line");
    check_common("line", &events);
    assert_eq!(patch_prompts(&events).last().map(String::as_str), Some("Infill"), "{:?}", patch_prompts(&events));
    assert!(diff.contains("+            total += line.item().priceCents() * line.quantity();"), "{diff}");
}

#[test]
fn a_one_hunk_bug_is_fixed_through_the_masked_hunk_prompt() {
    if !java_available() {
        return;
    }
    let (events, diff) = repair("hunk");
    check_common("hunk", &events);
    assert_eq!(patch_prompts(&events).last().map(String::as_str), Some("Infill"));
    assert!(diff.contains("-            return high;\n+            return low;"), "{diff}");
}

#[test]
fn a_bug_across_a_method_is_fixed_through_the_whole_method_prompt() {
    if !java_available() {
        return;
    }
    let (events, diff) = repair("method");
    check_common("method", &events);
    assert_eq!(patch_prompts(&events).last().map(String::as_str), Some("RewriteFunction"));
    assert!(diff.contains("+        return (double) sum / values.length;"), "{diff}");
}

/// With no failing test in the repository, the model is asked for a JUnit test that shows the bug; it runs with the
/// repository's tests, fails on the original program, and passes on the patch the reviewer then approves.
#[test]
fn without_a_failing_test_the_model_writes_one_and_the_review_runs_it() {
    if !java_available() {
        return;
    }
    // The `line` project with its failing test taken out.
    let fixtures = root().join("tests/fixtures/java-mcts");
    let copy = tempfile::tempdir().expect("temp dir");
    copy_tree(&fixtures.join("line"), copy.path());
    let test = copy.path().join("src/test/java/shop/CartTest.java");
    let passing = "package shop;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\nimport org.junit.jupiter.api.Test;\n\nclass CartTest {\n    @Test\n    void emptyCartCostsNothing() {\n        assertEquals(0, new Cart().total());\n    }\n}\n";
    std::fs::write(&test, passing).expect("write the test");
    let (events, diff) = repair_with(copy.path(), &fixtures.join("untested.json"), "acr");
    let asked: Vec<&str> = of_kind(&events, "model").iter().filter_map(|e| e["kind"].as_str()).collect();
    assert!(asked.contains(&"Reproducer"), "{asked:?}");
    let prompt = of_kind(&events, "model").into_iter().find(|e| e["kind"] == "Reproducer").expect("asked");
    assert!(prompt["prompt"].as_str().unwrap().contains("JUnit 5 test class `AcrReproducerTest`"));
    let runs = of_kind(&events, "run");
    let purposes: Vec<&str> = runs.iter().filter_map(|r| r["purpose"].as_str()).collect();
    assert_eq!(&purposes[..3], ["reproducer on original", "reproducer on original", "reproducer on patch"]);
    assert_eq!(runs[0]["outcome"]["exit_code"], 0, "the repository's own tests pass");
    let written = &runs[1]["outcome"];
    assert_eq!(written["exit_code"], 1);
    assert!(written["stdout"].as_str().unwrap().contains("FAIL shop.AcrReproducerTest.threePensCostThreeTimesOne"));
    assert_eq!(runs[2]["outcome"]["exit_code"], 0, "the test passes on the patch");
    assert_eq!(of_kind(&events, "review").len(), 1);
    assert!(diff.contains("+            total += line.item().priceCents() * line.quantity();"), "{diff}");
}

/// The playground's Java demo (`web/demo-java`, its issue and script) repaired in both modes, validated by its
/// JUnit tests in the runner's sandbox as the page does through the runner server.
#[test]
fn the_playgrounds_java_demo_is_repaired_and_validated_in_both_modes() {
    if !java_available() {
        return;
    }
    let dir = root().join("web/demo-java");
    for mode in ["acr", "mcts"] {
        let (events, diff) = repair_with(&dir, &dir.join("script.json"), mode);
        assert!(diff.contains("+            if (loan.due().isBefore(today)) {"), "{mode}: {diff}");
        let runs = of_kind(&events, "run");
        let first = &runs.first().expect("the tests ran")["outcome"];
        assert!(first["stdout"].as_str().unwrap().contains("FAIL library.LibraryTest"), "{mode}: {first}");
    }
}

/// With a `pom.xml` and Maven installed, the harness builds and tests the project with Maven (offline, from the
/// system's Maven repository) and reads Surefire's reports: the same verdicts, and a line saying Maven ran.
#[test]
fn a_maven_project_is_built_and_tested_by_maven() {
    // What `tests/fixtures/java-maven/pom.xml` names, as Debian's packages install it.
    let needed = [
        "org/apache/maven/plugins/maven-surefire-plugin/2.22.3",
        "org/apache/maven/plugins/maven-compiler-plugin/3.10.1",
        "org/apache/maven/plugins/maven-resources-plugin/3.3.0",
        "org/junit/jupiter/junit-jupiter-engine/5.9.2",
    ];
    let repo = Path::new("/usr/share/maven-repo");
    let missing: Vec<&str> = needed.iter().copied().filter(|p| !repo.join(p).is_dir()).collect();
    let maven = Command::new("mvn").arg("-v").output().is_ok_and(|o| o.status.success());
    if !java_available() || !maven || !missing.is_empty() {
        eprintln!("skipped: Maven or the Maven artifacts the fixture's pom names are not installed: {missing:?}");
        return;
    }
    let fixtures = root().join("tests/fixtures");
    let copy = tempfile::tempdir().expect("temp dir");
    copy_tree(&fixtures.join("java-mcts/hunk"), copy.path());
    std::fs::copy(fixtures.join("java-maven/pom.xml"), copy.path().join("pom.xml")).expect("copy the pom");
    let (events, diff) = repair_with(copy.path(), &fixtures.join("java-mcts/hunk/script.json"), "mcts");
    check_common("maven", &events);
    let runs = of_kind(&events, "run");
    for run in &runs {
        let stdout = run["outcome"]["stdout"].as_str().unwrap_or_default();
        let stderr = run["outcome"]["stderr"].as_str().unwrap_or_default();
        assert!(stdout.starts_with("Maven built the project"), "every run goes through Maven: {stdout}\n{stderr}");
    }
    assert!(diff.contains("-            return high;\n+            return low;"), "{diff}");
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).expect("a fixture folder").flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            std::fs::create_dir_all(&target).expect("create a folder");
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy a file");
        }
    }
}
