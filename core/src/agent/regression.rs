//! The regression check of validation: the repository's own tests that touch the changed files, run on the original
//! and on the patched program; a test that passed before and fails after is a regression.
//!
//! A language's row says whether it has such a check ([`crate::language::LanguageRow::regression`]); Python's has,
//! and this module runs it. Which tests: test files of the row's language ([`crate::repo::is_test_file`]) that import a changed
//! module or one of its packages. How: a small runner script (Python's, [`RUNNER`], which the row holds) that needs nothing installed: it imports each test file, calls its `test*`
//! functions that take no arguments and runs its `unittest.TestCase` classes, and prints one `PASS`, `FAIL` or `SKIP`
//! line per test (tests that need pytest fixtures are skipped, not guessed).

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

/// The test files of `row`'s language that import a changed file's module or one of its packages, in path order (at
/// most ten).
pub fn tests_touching<'a>(repo: &Repo, row: &LanguageRow, changed: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut modules: Vec<String> = Vec::new();
    for path in changed {
        let Some(stem) = row.stem(path) else { continue };
        let stem = stem.strip_suffix("/__init__").unwrap_or(stem);
        let parts: Vec<&str> = stem.split('/').filter(|p| !p.is_empty()).collect();
        for n in 1..=parts.len() {
            modules.push(parts[..n].join("."));
        }
    }
    modules.sort();
    modules.dedup();
    if modules.is_empty() {
        return Vec::new();
    }
    repo.files()
        .filter(|(p, _)| row.owns(p) && is_test_file(p))
        .filter(|(_, text)| text.lines().any(|line| imports_one_of(line, &modules)))
        .map(|(p, _)| p.to_string())
        .take(MAX_TEST_FILES)
        .collect()
}

/// Whether a line is an `import` or `from` statement naming one of `modules` (as a whole dotted name, or the start
/// of a longer one at a `.`), at any indentation.
fn imports_one_of(line: &str, modules: &[String]) -> bool {
    let line = line.trim_start();
    let Some(rest) = line.strip_prefix("from").or_else(|| line.strip_prefix("import")) else { return false };
    let named = rest.trim_start();
    if named.len() == rest.len() {
        return false; // `important = 1`, `fromage()`
    }
    let word = |c: char| c.is_alphanumeric() || c == '_';
    modules.iter().any(|m| named.strip_prefix(m.as_str()).is_some_and(|after| !after.starts_with(word)))
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
