//! The JavaScript and TypeScript rows ([`JAVASCRIPT_ROW`], [`TYPESCRIPT_ROW`], [`TSX_ROW`]), with the `js`
//! feature. TypeScript has two rows because tree-sitter-typescript ships two grammars: `.tsx` files allow JSX,
//! which changes how `<T>x` reads, so they parse with the TSX grammar and every other TypeScript file with the
//! plain one. Test files follow the conventions of Jest, Mocha, Vitest and `node --test`; the reproducer is a
//! standalone ES module run by Node, asked for in [`node_reproducer`]'s words.

use super::module_specifiers::{folder, join, module_specifiers};
use super::row::{ClassView, DefinitionShape, LanguageRow, Reproducer, TestRunner, test_folder_and_name};
use super::strip_types::{exported_names, strip_types};
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

/// acr's TypeScript loader for Node (path, source): it finds and reads the TypeScript files of a run, which
/// [`for_node`] has replaced with their JavaScript, as TypeScript would resolve them.
pub const TYPESCRIPT_LOADER: (&str, &str) = ("acr_typescript.mjs", include_str!("acr_typescript.mjs"));

/// How a reproducer of a TypeScript repository is run: the same ES module, with acr's TypeScript loader, so that
/// Node 20 runs the repository's TypeScript with no compiler.
const TYPESCRIPT_REPRODUCER: Reproducer = Reproducer {
    harness: &[TYPESCRIPT_LOADER],
    command: "node --import ./acr_typescript.mjs reproducer.mjs",
    ..NODE_REPRODUCER
};

/// The repository's own tests, run by Node's test runner (`node --test`) with a reporter that prints one line per
/// test (`acr_test_reporter.mjs`).
const NODE_TEST_RUNNER: TestRunner = TestRunner {
    file: "acr_test_reporter.mjs",
    source: include_str!("acr_test_reporter.mjs"),
    with: &[],
    command: "node --test --test-reporter=./acr_test_reporter.mjs",
    touches: loads_a_changed_file,
};

/// A TypeScript repository's own tests (`*.test.ts`, ...), run by Node's test runner with acr's TypeScript loader,
/// which each test file's process inherits.
const NODE_TYPESCRIPT_TEST_RUNNER: TestRunner = TestRunner {
    with: &[TYPESCRIPT_LOADER],
    command: "node --import ./acr_typescript.mjs --test --test-reporter=./acr_test_reporter.mjs",
    ..NODE_TEST_RUNNER
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
    reproducer: TYPESCRIPT_REPRODUCER,
    regression: Some(NODE_TYPESCRIPT_TEST_RUNNER),
    runs_in_tab: true,
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
    reproducer: TYPESCRIPT_REPRODUCER,
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

/// Whether a JavaScript or TypeScript test file loads a changed file: one of its imports or `require`s, joined to
/// the test's folder, names it as Node (or acr's TypeScript loader) would find it (exactly, without its extension, as
/// its folder's `index.js`, or as the TypeScript file a `.js` name stands for), or names the `index` of the changed
/// file's folder, which a package's entry re-exports as Python's `__init__.py` does.
fn loads_a_changed_file(path: &str, text: &str, changed: &[&str]) -> bool {
    let entries: Vec<String> = changed
        .iter()
        .flat_map(|c| ["index.js", "index.ts"].map(|index| join(folder(c), index).unwrap_or_default()))
        .collect();
    let names = |target: String| {
        let bare = ["js", "mjs", "cjs", "jsx", "json"].map(|ext| format!("{target}.{ext}"));
        let typescript = typescript_candidates(&target);
        [target.clone(), format!("{target}/index.js")].into_iter().chain(bare).chain(typescript)
    };
    module_specifiers(text)
        .into_iter()
        .filter(|s| s.text.starts_with('.'))
        .filter_map(|s| join(folder(path), &s.text))
        .flat_map(names)
        .any(|target| changed.contains(&target.as_str()) || entries.contains(&target))
}

/// The TypeScript extensions Node can run once the types are gone, with the JavaScript extension each stands for
/// in an import (TypeScript's own rule: `./x.js` names `./x.ts` when only that exists).
const RUNNABLE_TYPESCRIPT: [(&str, &str); 3] = [(".ts", ".js"), (".mts", ".mjs"), (".cts", ".cjs")];

/// Whether Node runs `path` once its types are blanked: a `.ts`, `.mts` or `.cts` file that is not a declaration
/// file (`.d.ts`). TSX is not: its JSX needs compiling too.
pub fn runs_once_stripped(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    RUNNABLE_TYPESCRIPT.iter().any(|(ts, _)| name.ends_with(ts)) && !name.contains(".d.")
}

/// The TypeScript files a relative import of `path` (joined to its folder, not found as written) may name, in the
/// order tried: `x.js` names `x.ts`; a path with no extension names `x.ts`, then `x/index.ts`. The rule of acr's
/// TypeScript loader (`acr_typescript.mjs`), which the playground's tab follows too.
pub fn typescript_candidates(path: &str) -> Vec<String> {
    let name = path.rsplit('/').next().unwrap_or(path);
    for (ts, js) in RUNNABLE_TYPESCRIPT {
        if let Some(stem) = path.strip_suffix(js) {
            return vec![format!("{stem}{ts}")];
        }
    }
    if name.contains('.') && !name.starts_with('.') {
        return Vec::new();
    }
    vec![format!("{path}.ts"), format!("{path}/index.ts")]
}

/// What Node runs for the TypeScript file at `path`: its JavaScript, or, when its types cannot simply be removed, a
/// module that throws an error saying why, so that a run which loads it fails with the reason and one that does
/// not is unaffected. The stand-in exports the names the file exports ([`exported_names`]), so that the modules
/// importing it link and the run reaches the reason.
pub fn runnable_typescript(path: &str, source: &str) -> String {
    match strip_types(source, false) {
        Ok(javascript) => javascript,
        Err(why) => {
            let message = format!("{path} cannot run: {why}");
            let mut stand_in =
                format!("throw new SyntaxError({});\n", serde_json::to_string(&message).unwrap_or_default());
            let (names, default) = exported_names(source);
            if !names.is_empty() {
                stand_in.push_str(&format!("export let {};\n", names.join(", ")));
            }
            if default {
                stand_in.push_str("export default undefined;\n");
            }
            stand_in
        }
    }
}

/// Replaces every TypeScript file Node can run once stripped ([`runs_once_stripped`]) with its JavaScript
/// ([`runnable_typescript`]): what a run of `node` sees, with [`TYPESCRIPT_LOADER`] to find and read them.
pub fn for_node(files: &mut std::collections::BTreeMap<String, String>) {
    for (path, text) in files.iter_mut().filter(|(p, _)| runs_once_stripped(p)) {
        *text = runnable_typescript(path, text);
    }
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
        assert!(loads_a_changed_file("test/cart.test.ts", test, &["src/cart.ts"]), "./cart.js stands for cart.ts");
        assert!(loads_a_changed_file("test/a.test.ts", "import { b } from '../src/b';", &["src/b.ts"]));
        assert!(loads_a_changed_file("test/a.test.ts", "import '../src/index.js';", &["src/cart.ts"]));
    }

    #[test]
    fn a_javascript_import_names_the_typescript_file_as_typescript_resolves_it() {
        assert_eq!(typescript_candidates("src/shape.js"), ["src/shape.ts"]);
        assert_eq!(typescript_candidates("src/shape.mjs"), ["src/shape.mts"]);
        assert_eq!(typescript_candidates("src/shape"), ["src/shape.ts", "src/shape/index.ts"]);
        assert!(typescript_candidates("data.json").is_empty());
        assert!(runs_once_stripped("src/a.ts") && runs_once_stripped("b.cts"));
        assert!(!runs_once_stripped("types/a.d.ts") && !runs_once_stripped("a.tsx") && !runs_once_stripped("a.js"));
    }

    #[test]
    fn node_sees_typescript_as_javascript_or_a_module_that_says_why_not() {
        let mut files: std::collections::BTreeMap<String, String> = [
            ("src/a.ts", "export const n: number = 1;\n"),
            ("src/b.ts", "namespace N { export const x = 1; }\n"),
            ("src/c.d.ts", "export declare const c: number;\n"),
            ("src/d.js", "export const d = 1;\n"),
        ]
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .into();
        for_node(&mut files);
        assert_eq!(files["src/a.ts"], "export const n         = 1;\n");
        assert!(files["src/b.ts"].starts_with("throw new SyntaxError(\"src/b.ts cannot run: line 1: a namespace"));
        assert_eq!(files["src/c.d.ts"], "export declare const c: number;\n", "declarations are never loaded");
        assert_eq!(files["src/d.js"], "export const d = 1;\n");
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
