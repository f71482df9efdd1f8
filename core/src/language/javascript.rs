//! The JavaScript and TypeScript rows ([`JAVASCRIPT_ROW`], [`TYPESCRIPT_ROW`], [`TSX_ROW`]), with the `js`
//! feature. TypeScript has two rows because tree-sitter-typescript ships two grammars: `.tsx` files allow JSX,
//! which changes how `<T>x` reads, so they parse with the TSX grammar and every other TypeScript file with the
//! plain one. Test files follow the conventions of Jest, Mocha, Vitest and `node --test`; the reproducer is a
//! standalone ES module run by Node, asked for in [`node_reproducer`]'s words.

use super::module_specifiers::{folder, join, module_specifiers};
use super::row::{ClassView, DefinitionShape, LanguageRow, Reproducer, TestRunner, test_folder_and_name};
use crate::gate::SyntaxCheck;
use crate::grammar::{JAVASCRIPT, TYPESCRIPT};

/// How the definition-edit instructions show a JavaScript definition.
const JAVASCRIPT_DEFINITION: DefinitionShape = DefinitionShape {
    starts: "its decorators and its first line",
    example: "function name(argument) {\n  the whole body, with your change made\n}",
    line_comment: "//",
};

/// How they show a TypeScript definition.
const TYPESCRIPT_DEFINITION: DefinitionShape = DefinitionShape {
    starts: "its decorators and its first line",
    example: "function name(argument: Type): Type {\n  the whole body, with your change made\n}",
    line_comment: "//",
};

/// How a reproducer of a JavaScript or TypeScript repository is asked for and run: an ES module (which can import
/// both the repository's ES modules and its CommonJS ones) run by Node.
const NODE_REPRODUCER: Reproducer = Reproducer {
    file: "reproducer.mjs",
    harness: &[],
    command: "node reproducer.mjs",
    request: node_reproducer,
    must: "it must exit non-zero, with an uncaught error or `process.exit(1)`",
    helper: None,
    project_tests: None,
};

/// The repository's own tests, run by Node's test runner (`node --test`) with a reporter that prints one line per
/// test (`acr_test_reporter.mjs`).
const NODE_TEST_RUNNER: TestRunner = TestRunner {
    file: "acr_test_reporter.mjs",
    source: include_str!("acr_test_reporter.mjs"),
    command: "node --test --test-reporter=./acr_test_reporter.mjs",
    touches: loads_a_changed_file,
};

/// The JavaScript row: `.js`, `.mjs`, `.cjs` and `.jsx` files, judged by V8's parser.
pub static JAVASCRIPT_ROW: LanguageRow = LanguageRow {
    name: "JavaScript",
    fence: "javascript",
    extensions: &["js", "mjs", "cjs", "jsx"],
    grammar: &JAVASCRIPT,
    tree_sitter: || tree_sitter_javascript::LANGUAGE.into(),
    parse: |parser, text| parser.parse(text, None),
    is_test_file: script_test_file,
    syntax: SyntaxCheck::JavaScript,
    class_view: ClassView::MemberHeads,
    reproducer: NODE_REPRODUCER,
    regression: Some(NODE_TEST_RUNNER),
    runs_in_tab: true,
    definition: JAVASCRIPT_DEFINITION,
};

/// The TypeScript row: `.ts`, `.mts` and `.cts` files, judged by the `typescript` package's parser.
pub static TYPESCRIPT_ROW: LanguageRow = LanguageRow {
    name: "TypeScript",
    fence: "typescript",
    extensions: &["ts", "mts", "cts"],
    grammar: &TYPESCRIPT,
    tree_sitter: || tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
    parse: |parser, text| parser.parse(text, None),
    is_test_file: script_test_file,
    syntax: SyntaxCheck::TypeScript,
    class_view: ClassView::MemberHeads,
    reproducer: NODE_REPRODUCER,
    regression: None,
    runs_in_tab: false,
    definition: TYPESCRIPT_DEFINITION,
};

/// TypeScript with JSX: `.tsx` files, parsed with tree-sitter-typescript's TSX grammar.
pub static TSX_ROW: LanguageRow = LanguageRow {
    name: "TypeScript",
    fence: "tsx",
    extensions: &["tsx"],
    grammar: &TYPESCRIPT,
    tree_sitter: || tree_sitter_typescript::LANGUAGE_TSX.into(),
    parse: |parser, text| parser.parse(text, None),
    is_test_file: script_test_file,
    syntax: SyntaxCheck::Tsx,
    class_view: ClassView::MemberHeads,
    reproducer: NODE_REPRODUCER,
    regression: None,
    runs_in_tab: false,
    definition: TYPESCRIPT_DEFINITION,
};

/// A `test`, `tests` or `__tests__` folder, or a name the test runners pick up: `*.test.*` and `*.spec.*`.
fn script_test_file(path: &str) -> bool {
    let (in_test_folder, name) = test_folder_and_name(path);
    let in_jest_folder = path.split('/').rev().skip(1).any(|part| part == "__tests__");
    let marked = name.split('.').skip(1).any(|part| part == "test" || part == "spec");
    in_test_folder || in_jest_folder || marked
}

/// Whether a JavaScript test file loads a changed file: one of its imports or `require`s, joined to the test's
/// folder, names it as Node would find it (exactly, without its extension, or as its folder's `index.js`), or names
/// the `index.js` of the changed file's folder, which a package's entry re-exports as Python's `__init__.py` does.
fn loads_a_changed_file(path: &str, text: &str, changed: &[&str]) -> bool {
    let entries: Vec<String> = changed.iter().map(|c| join(folder(c), "index.js").unwrap_or_default()).collect();
    let names = |target: String| {
        let bare = ["js", "mjs", "cjs", "jsx", "json"].map(|ext| format!("{target}.{ext}"));
        [target.clone(), format!("{target}/index.js")].into_iter().chain(bare)
    };
    module_specifiers(text)
        .into_iter()
        .filter(|s| s.text.starts_with('.'))
        .filter_map(|s| join(folder(path), &s.text))
        .flat_map(names)
        .any(|target| changed.contains(&target.as_str()) || entries.contains(&target))
}

/// Asks for a standalone ES module (`reproducer.mjs`) run by Node that fails while the bug is present (the request
/// of JavaScript and TypeScript).
pub fn node_reproducer(issue: &str, places: &str, reproducer: &Reproducer) -> String {
    format!(
        "<issue>\n{}\n</issue>\n\n{places}Write a standalone ES module `{}`, run from the repository root with `{}`, \
         that reproduces this issue. While the bug is present it must fail: throw an `Error` whose message explains \
         what went wrong (or call `process.exit(1)` after printing it); once the bug is fixed it must exit with code \
         0. Check every example of what the code should give that the issue shows, not only the one it says is \
         wrong. Import the code the issue is about from the repository with a relative path (`import {{ f }} from \
         './src/f.js'`, or the default import of a CommonJS module); never copy or rewrite it in the script, which \
         would then test its own copy. Use Node's `assert` module (`import assert from 'node:assert'`) for the \
         checks.\n\n\
         Reply with the script in a single ```javascript code block.",
        issue.trim(),
        reproducer.file,
        reproducer.command,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_test_loads_a_changed_file_as_node_would_find_it() {
        let test =
            "import { Cart } from '../src/cart.js';\nconst util = require('../src/util');\nimport x from 'lodash';\n";
        assert!(loads_a_changed_file("test/cart.test.js", test, &["src/cart.js"]));
        assert!(loads_a_changed_file("test/cart.test.js", test, &["src/util.js"]), "require without the extension");
        assert!(loads_a_changed_file("test/a.test.js", "require('../lib')", &["lib/index.js"]));
        assert!(loads_a_changed_file("test/a.test.js", "import { Cart } from '../src/index.js';", &["src/cart.js"]));
        assert!(!loads_a_changed_file("test/cart.test.js", test, &["src/item.js", "lodash.js"]));
        assert!(!loads_a_changed_file("cart.test.js", test, &["src/cart.js"]), "../ from the root leaves it");
    }

    #[test]
    fn test_files_follow_the_test_runners() {
        for path in ["src/sum.test.js", "src/sum.spec.ts", "lib/__tests__/sum.js", "test/sum.js", "src/a.test.tsx"] {
            assert!(script_test_file(path), "{path}");
        }
        for path in ["src/sum.js", "src/test.js", "src/spec.ts", "src/testing/sum.js", "src/latest.js"] {
            assert!(!script_test_file(path), "{path}");
        }
    }
}
