//! The regression check of validation: the repository's own tests that touch the changed files, run on the original
//! and on the patched program; a test that passed before and fails after is a regression.
//!
//! A language's row says whether it has such a check ([`crate::language::LanguageRow::regression`]), and this module
//! runs it. Which tests: test files of the row's language ([`crate::repo::is_test_file`]) that load a changed file, as
//! the row reads an import. How: a small script the row holds, which prints one `PASS`, `FAIL` or `SKIP` line per
//! test. Python's ([`RUNNER`]) needs nothing installed: it imports each test file, calls its `test*` functions that
//! take no arguments and runs its `unittest.TestCase` classes (tests that need pytest fixtures are skipped, not
//! guessed). JavaScript's is a reporter for Node's own test runner (`node --test`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::LazyLock;

use regex_lite::Regex;

use crate::language::{LanguageRow, TestRunner};
use crate::repo::{Repo, is_test_file};
use crate::runner::RunOutcome;

pub use crate::language::RUNNER;

/// Most test files run for one check.
const MAX_TEST_FILES: usize = 10;

/// The test files of `row`'s language that load one of the changed files of that language (as its test runner
/// reads an import: [`crate::language::TestRunner::touches`]), in path order (at most ten).
pub fn tests_touching<'a>(repo: &Repo, row: &LanguageRow, changed: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let Some(runner) = &row.regression else { return Vec::new() };
    let changed: Vec<&str> = changed.into_iter().filter(|p| row.owns(p)).collect();
    if changed.is_empty() {
        return Vec::new();
    }
    repo.files()
        .filter(|(p, _)| row.owns(p) && is_test_file(p))
        .filter(|(p, text)| (runner.touches)(p, text, &changed))
        .map(|(p, _)| p.to_string())
        .take(MAX_TEST_FILES)
        .collect()
}

/// The command that runs the tests with `runner`.
pub fn command(runner: &TestRunner, tests: &[String]) -> String {
    let mut c = runner.command.to_string();
    for t in tests {
        let _ = write!(c, " {t}");
    }
    c
}

/// Each test's result in a run of [`RUNNER`]: name → passed (skipped tests are left out).
pub fn results(run: &RunOutcome) -> BTreeMap<String, bool> {
    static LINE: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"(?m)^(PASS|FAIL) (\S+)").ok());
    let Some(line) = LINE.as_ref() else { return BTreeMap::new() };
    line.captures_iter(&run.stdout).map(|c| (c[2].to_string(), &c[1] == "PASS")).collect()
}

/// The tests that passed on the original program and fail (or no longer run) on the patched one.
pub fn regressions(before: &RunOutcome, after: &RunOutcome) -> Vec<String> {
    let (before, after) = (results(before), results(after));
    before.iter().filter(|(name, passed)| **passed && after.get(*name) != Some(&true)).map(|(n, _)| n.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::language::Language;

    #[test]
    fn tests_that_import_a_changed_module_are_chosen() {
        let repo = Repo::from_files([
            ("inventory/cart.py", "class Cart: pass\n"),
            ("tests/test_cart.py", "from inventory import Cart\n"),
            ("tests/test_pricing.py", "import inventory.pricing as p\n"),
            ("tests/test_other.py", "import json\n"),
            ("inventory/helpers.py", "from inventory import cart\n"),
            ("tests/test_words.py", "important = 'inventory'\nfromage = inventory_cart = 1\nimport inventorylist\n"),
            ("tests/test_nested.py", "def test_late():\n    from\tinventory.cart import Cart\n"),
        ]);
        assert_eq!(
            tests_touching(&repo, Language::Python.row(), ["inventory/cart.py"]),
            ["tests/test_cart.py", "tests/test_nested.py", "tests/test_pricing.py"]
        );
        assert!(tests_touching(&repo, Language::Python.row(), ["setup.cfg"]).is_empty());
        let runner = Language::Python.row().regression.as_ref().unwrap();
        assert_eq!(command(runner, &["a.py".into()]), "python3 acr_run_tests.py a.py");
        assert_eq!(runner.source, RUNNER);
    }

    #[test]
    fn a_test_that_passed_and_now_fails_is_a_regression() {
        let run = |out: &str| RunOutcome { stdout: out.into(), ..RunOutcome::default() };
        let before =
            run("PASS t.py::test_a\nPASS t.py::test_b\nFAIL t.py::test_c boom\nSKIP t.py::test_d (needs fixtures)\n");
        let after = run("PASS t.py::test_a\nFAIL t.py::test_b AssertionError: 1\nPASS t.py::test_c\n");
        assert_eq!(regressions(&before, &after), ["t.py::test_b"]);
        assert!(regressions(&before, &before).is_empty());
        assert_eq!(results(&before).len(), 3);
    }
}
