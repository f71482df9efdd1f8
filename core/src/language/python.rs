//! The Python row ([`PYTHON_ROW`]): AutoCodeRover's conventions. Its reproducer is a standalone script asked for in
//! [`script_reproducer`]'s words, and its regression check runs the tests that touch a patch's files with
//! [`RUNNER`].

use super::row::{ClassView, DefinitionShape, Helper, LanguageRow, Reproducer, TestRunner, test_folder_and_name};
use crate::gate::SyntaxCheck;
use crate::grammar::PYTHON;

/// The Python row: AutoCodeRover's conventions.
pub static PYTHON_ROW: LanguageRow = LanguageRow {
    name: "Python",
    fence: "python",
    extensions: &["py"],
    grammar: &PYTHON,
    tree_sitter: || tree_sitter_python::LANGUAGE.into(),
    parse: crate::python::parse,
    is_test_file: python_test_file,
    syntax: SyntaxCheck::CPython312,
    class_view: ClassView::DefLines,
    reproducer: Reproducer {
        file: "reproducer.py",
        harness: &[],
        command: "python3 reproducer.py",
        request: script_reproducer,
        must: "it must exit non-zero with an AssertionError",
        helper: Some(Helper { name: "print_stacktrace", definition: PRINT_STACKTRACE }),
        project_tests: None,
    },
    regression: Some(TestRunner {
        file: "acr_run_tests.py",
        source: RUNNER,
        with: &[],
        command: "python3 acr_run_tests.py",
        touches: imports_a_changed_module,
    }),
    runs_in_tab: true,
    definition: DefinitionShape {
        starts: "its decorators and `def` or `class` line",
        example: "def name(arguments):\n    the whole body, with your change made",
        line_comment: "#",
    },
};

/// Whether a Python test file imports the module of a changed file or one of its packages (`inventory/cart.py`:
/// `inventory.cart` or `inventory`), on an `import` or `from` line at any indentation.
fn imports_a_changed_module(_path: &str, text: &str, changed: &[&str]) -> bool {
    let mut modules: Vec<String> = Vec::new();
    for path in changed {
        let Some(stem) = path.strip_suffix(".py") else { continue };
        let stem = stem.strip_suffix("/__init__").unwrap_or(stem);
        let parts: Vec<&str> = stem.split('/').filter(|p| !p.is_empty()).collect();
        for n in 1..=parts.len() {
            modules.push(parts[..n].join("."));
        }
    }
    !modules.is_empty() && text.lines().any(|line| imports_one_of(line, &modules))
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

/// AutoCodeRover's rule: a `test` or `tests` folder, `test_*` or `*_test.py`.
fn python_test_file(path: &str) -> bool {
    let (in_test_folder, name) = test_folder_and_name(path);
    in_test_folder || name.starts_with("test_") || name.ends_with("_test.py")
}

/// Asks for a standalone Python script (`reproducer.py`) that fails with an `AssertionError` while the bug is
/// present (Python's request).
pub fn script_reproducer(issue: &str, places: &str, reproducer: &Reproducer) -> String {
    format!(
        "<issue>\n{}\n</issue>\n\n{places}Write a standalone Python script `{}`, run from the repository root with `{}`, \
         that reproduces this issue. While the bug is present it must fail with an \
         `AssertionError` that explains what went wrong; once the bug is fixed it must exit with code 0. Check \
         every example of what the code should give that the issue shows, not only the one it says is wrong: a fix \
         must get them all right. Import the code the issue is about from the repository; never copy or rewrite it \
         in the script, which would then test its own copy.\n\n\
         Put this helper in the script and call it on the exception that shows the bug before raising the \
         `AssertionError`, so that the trace names the files and line numbers involved:\n```python\n{}\n```\n\n\
         Reply with the script in a single ```python code block.",
        issue.trim(),
        reproducer.file,
        reproducer.command,
        PRINT_STACKTRACE
    )
}

/// The helper the reproducer is asked to use, so that tracebacks show clear file names and line numbers.
pub const PRINT_STACKTRACE: &str = r#"def print_stacktrace(e: BaseException) -> None:
    import sys
    import traceback
    print("Traceback (most recent call last):", file=sys.stderr)
    for frame in traceback.extract_tb(e.__traceback__):
        print(f'  File "{frame.filename}", line {frame.lineno}', file=sys.stderr)
        print(f"    {(frame.line or '').strip()}", file=sys.stderr)
    print(f"{type(e).__name__}: {e}", file=sys.stderr)"#;

/// The runner script: imports each test file given on the command line and runs its tests, one line per test.
pub const RUNNER: &str = r#"import importlib.util, inspect, os, sys, unittest
sys.path.insert(0, os.getcwd())
failed = False
for n, path in enumerate(sys.argv[1:]):
    name = "acr_test_module_%d" % n
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    except BaseException as e:
        print("FAIL %s::<import> %s: %s" % (path, type(e).__name__, e))
        failed = True
        continue
    for attr, obj in sorted(vars(module).items()):
        if getattr(obj, "__module__", None) != name:
            continue
        if attr.startswith("test") and inspect.isfunction(obj):
            if inspect.signature(obj).parameters:
                print("SKIP %s::%s (needs fixtures)" % (path, attr))
                continue
            try:
                obj()
                print("PASS %s::%s" % (path, attr))
            except BaseException as e:
                print("FAIL %s::%s %s: %s" % (path, attr, type(e).__name__, e))
                failed = True
        elif inspect.isclass(obj) and issubclass(obj, unittest.TestCase):
            for case in unittest.defaultTestLoader.loadTestsFromTestCase(obj):
                result = unittest.TestResult()
                case.run(result)
                ok = result.wasSuccessful()
                print("%s %s::%s" % ("PASS" if ok else "FAIL", path, case.id().split(".", 1)[-1]))
                failed = failed or not ok
sys.exit(1 if failed else 0)
"#;
