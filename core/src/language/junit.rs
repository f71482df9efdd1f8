//! Execution for Java: the repository's own JUnit tests stand in for the reproducer.
//!
//! A Java repository's tests are run by a small harness ([`HARNESS`], `harness/AcrJavaTests.java`) written into the
//! run's folder and started in the JDK's source-file mode with JUnit's console launcher jar on the class path (as
//! Debian's `junit5` package installs it; `tools/setup.sh` does). It compiles every `.java` file of the repository,
//! sources and tests, runs the JUnit tests it finds, and reports like the Python test runner of the regression check:
//! one `PASS` or `FAIL` line per test on standard output, each failure's exception with the repository's frames of
//! its stack trace on standard error (the clue the search starts from), exit status 0 (all passed), 1 (a test
//! failed) or 2 (the code does not compile). A project with a `pom.xml` is built and tested by Maven instead when `mvn`
//! is installed (offline, from the system's Maven repository), with the same report read from Surefire's XML; when
//! Maven cannot build offline the harness says why and compiles as above. As in APR-MCTS, the failing tests are the validation signal: a patch
//! that makes them pass scores 1, one that does not compile -1, one that fails the same way 0.
//!
//! The JVM is sized to run inside the runner's per-process address-space limit (1 GiB by default): a small heap,
//! code cache and class space, one processor's worth of threads.

use crate::runner::RunOutcome;

/// Where the harness is written in the run's folder (a folder the harness leaves out of what it compiles).
pub const HARNESS_FILE: &str = ".acr/AcrJavaTests.java";

/// The harness's source.
pub const HARNESS: &str = include_str!("harness/AcrJavaTests.java");

/// JUnit's console launcher, which bundles the JUnit Platform, Jupiter and Vintage engines (Debian's path).
pub const JUNIT_JAR: &str = "/usr/share/java/junit-platform-console-standalone.jar";

/// The command that compiles and tests the repository.
pub const COMMAND: &str = "java -Xmx192m -Xss1m -XX:ReservedCodeCacheSize=48m -XX:CompressedClassSpaceSize=48m \
-XX:MaxMetaspaceSize=160m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:ActiveProcessorCount=1 \
-cp /usr/share/java/junit-platform-console-standalone.jar .acr/AcrJavaTests.java";

/// The tests a harness run reports as failed: `class.method` and why, in the order reported.
pub fn failures(run: &RunOutcome) -> Vec<&str> {
    run.stdout.lines().filter_map(|l| l.strip_prefix("FAIL ")).collect()
}

/// The source of each failing test's class, for a reviewer to read: the file whose path ends with the class's
/// package path, found among the repository's files (path, text), under a heading that names the failing tests.
pub fn failing_tests_source(files: &[(&str, &str)], run: &RunOutcome) -> String {
    let mut shown: Vec<&str> = Vec::new();
    let mut text = String::new();
    for failure in failures(run) {
        let name = failure.split_once(' ').map_or(failure, |(n, _)| n);
        let class = name.rsplit_once('.').map_or(name, |(c, _)| c);
        let class = class.split_once('$').map_or(class, |(outer, _)| outer);
        let suffix = format!("{}.java", class.replace('.', "/"));
        let Some(&(path, source)) = files.iter().find(|(p, _)| p.ends_with(&suffix)) else { continue };
        if shown.contains(&path) {
            continue;
        }
        shown.push(path);
        text.push_str(&format!("// {path} (failing: {name})\n{}\n", source.trim_end()));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_runs_the_harness_where_it_is_written() {
        assert!(COMMAND.ends_with(HARNESS_FILE) && COMMAND.contains(JUNIT_JAR));
        assert!(HARNESS.contains("public class AcrJavaTests"), "the class source-file mode runs");
    }

    #[test]
    fn failing_tests_are_found_with_their_sources() {
        let files = [
            ("src/test/java/shop/CartTest.java", "package shop;\nclass CartTest {}\n"),
            ("src/main/java/shop/Cart.java", "package shop;\nclass Cart {}\n"),
        ];
        let run = RunOutcome {
            exit_code: Some(1),
            stdout: "PASS shop.CartTest.empty\nFAIL shop.CartTest.total AssertionFailedError: expected: <450> but was: <150>\nFAIL shop.CartTest.units X\n0 passed, 2 failed\n".into(),
            ..RunOutcome::default()
        };
        assert_eq!(failures(&run).len(), 2);
        let source = failing_tests_source(&files, &run);
        assert!(source.starts_with("// src/test/java/shop/CartTest.java (failing: shop.CartTest.total)\n"), "{source}");
        assert_eq!(source.matches("class CartTest").count(), 1, "each class once");
    }
}
