//! The modules a `node` run in the tab loads, worked out before it starts: the tab's worker cannot read files, so
//! each module reachable from the entry script is sent with the place of every module it names and what that name
//! resolves to, as Node would resolve it (`web/js/script-worker.mjs` then loads each from a URL of its own).
//!
//! Node's rules kept: an ES module names files exactly (`./src/cart.js`, extension included); `require` also tries
//! `.js`, `.json` and a folder's `index.js`; a `.js` file is an ES module when the nearest `package.json` says
//! `"type": "module"`, `.mjs` always, `.cjs` never; `node:` names and the names of Node's built-in modules are
//! built-ins. TypeScript runs as acr's loader runs it under Node (`acr_typescript.mjs`): an import of `./x.js` or `./x`
//! finds `x.ts`, which is sent as its JavaScript (`.ts` and `.mts` as ES modules, `.cts` as CommonJS). What the tab
//! cannot load is planned as a module that fails when loaded, with Node's words and a line saying why: a missing
//! file, a package (nothing is installed in the tab), a TSX file. ES modules that import
//! each other in a circle cannot each have a URL before the other, so such a plan is refused as a whole.

use std::collections::BTreeMap;

use acr_core::language::module_specifiers::{SpecifierKind, folder, join, module_specifiers};
use acr_core::language::{runnable_typescript, runs_once_stripped, typescript_candidates};
use serde::Serialize;

/// How Node reads a module.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// An ES module.
    Module,
    /// A CommonJS module.
    CommonJs,
    /// JSON, read as data.
    Json,
}

/// What a name in a module resolves to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    /// A module of the plan, by its place in [`Plan::modules`].
    Module(usize),
    /// One of Node's built-in modules, by its name without `node:` (`assert`, `assert/strict`).
    Builtin(String),
    /// Nothing the tab can load: the error Node would throw (or the tab's reason), in words.
    Missing(String),
}

/// How a module names another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ImportKind {
    /// `import ... from` or `export ... from`: loaded before the module runs.
    Static,
    /// `import(...)`: loaded when the call runs.
    Dynamic,
    /// `require(...)`: loaded when the call runs.
    Require,
}

impl From<SpecifierKind> for ImportKind {
    fn from(kind: SpecifierKind) -> Self {
        match kind {
            SpecifierKind::Static => ImportKind::Static,
            SpecifierKind::Dynamic => ImportKind::Dynamic,
            SpecifierKind::Require => ImportKind::Require,
        }
    }
}

/// One module named by a module of the plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Import {
    /// The name as written.
    pub text: String,
    /// Where the name stands between its quotes, in UTF-16 code units (JavaScript's string offsets).
    pub start: usize,
    /// Where it ends.
    pub end: usize,
    /// How it is named.
    pub kind: ImportKind,
    /// What it resolves to.
    pub target: Target,
}

/// A module to load.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Module {
    /// Its path in the snapshot.
    pub path: String,
    /// How Node reads it.
    pub format: Format,
    /// Its source.
    pub code: String,
    /// The modules it names.
    pub imports: Vec<Import>,
}

/// Every module a run loads; the entries come first, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Plan {
    /// The modules, the entries first.
    pub modules: Vec<Module>,
}

/// Why a run cannot be planned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanError {
    /// The script to run is not in the snapshot: Node's words.
    NoEntry(String),
    /// ES modules import each other in a circle: their paths, the first again at the end.
    Circle(Vec<String>),
}

/// Where the repository stands for the script, as the worker tells it (`process.cwd()`, `__filename`).
pub const ROOT: &str = "/repo";

/// Node's built-in modules (`node -p "require('module').builtinModules"`, Node 22), without `node:`.
const BUILTINS: &[&str] = &[
    "assert",
    "assert/strict",
    "async_hooks",
    "buffer",
    "child_process",
    "cluster",
    "console",
    "constants",
    "crypto",
    "dgram",
    "diagnostics_channel",
    "dns",
    "dns/promises",
    "domain",
    "events",
    "fs",
    "fs/promises",
    "http",
    "http2",
    "https",
    "inspector",
    "module",
    "net",
    "os",
    "path",
    "path/posix",
    "path/win32",
    "perf_hooks",
    "process",
    "punycode",
    "querystring",
    "readline",
    "readline/promises",
    "repl",
    "stream",
    "stream/promises",
    "string_decoder",
    "sys",
    "timers",
    "timers/promises",
    "tls",
    "trace_events",
    "tty",
    "url",
    "util",
    "util/types",
    "v8",
    "vm",
    "wasi",
    "worker_threads",
    "zlib",
];

/// Plans a run that loads `entries` (paths relative to the snapshot's root, as `node entry` names them; a test file
/// and the reporter that reads its events) over `files`.
pub fn plan(files: &BTreeMap<String, String>, entries: &[&str]) -> Result<Plan, PlanError> {
    let mut planner = Planner { files, modules: Vec::new(), places: BTreeMap::new() };
    for entry in entries {
        let path = join("", entry).filter(|p| files.contains_key(p)).ok_or_else(|| {
            PlanError::NoEntry(format!("Error: Cannot find module '{entry}' (no such file in the repository)"))
        })?;
        planner.add(&path);
    }
    let mut next = 0;
    while next < planner.modules.len() {
        let module = &planner.modules[next];
        let (path, format, code) = (module.path.clone(), module.format, module.code.clone());
        let imports = match format {
            Format::Json => Vec::new(),
            Format::Module | Format::CommonJs => module_specifiers(&code)
                .into_iter()
                .filter(|s| format == Format::Module || s.kind == SpecifierKind::Require)
                .map(|s| Import {
                    start: utf16_len(&code[..s.range.start]),
                    end: utf16_len(&code[..s.range.end]),
                    kind: s.kind.into(),
                    target: planner.resolve(&path, &s.text, s.kind == SpecifierKind::Require),
                    text: s.text,
                })
                .collect(),
        };
        planner.modules[next].imports = imports;
        next += 1;
    }
    let plan = Plan { modules: planner.modules };
    match circle(&plan) {
        Some(paths) => Err(PlanError::Circle(paths)),
        None => Ok(plan),
    }
}

struct Planner<'a> {
    files: &'a BTreeMap<String, String>,
    modules: Vec<Module>,
    places: BTreeMap<String, usize>,
}

impl Planner<'_> {
    /// The place of the module at `path` (a file of the snapshot), added when new.
    fn add(&mut self, path: &str) -> usize {
        if let Some(&at) = self.places.get(path) {
            return at;
        }
        let at = self.modules.len();
        let format = format_of(self.files, path);
        let text = &self.files[path];
        let code = if runs_once_stripped(path) { runnable_typescript(path, text) } else { text.clone() };
        self.modules.push(Module { path: path.into(), format, code, imports: Vec::new() });
        self.places.insert(path.into(), at);
        at
    }

    /// What `specifier`, named by the module at `from`, resolves to.
    fn resolve(&mut self, from: &str, specifier: &str, required: bool) -> Target {
        let builtin = specifier.strip_prefix("node:").unwrap_or(specifier);
        if specifier.starts_with("node:") || BUILTINS.contains(&builtin) {
            return Target::Builtin(builtin.to_string());
        }
        let relative =
            specifier.starts_with("./") || specifier.starts_with("../") || specifier == "." || specifier == "..";
        if !relative {
            let package = if specifier.starts_with('/') { specifier } else { package_name(specifier) };
            return Target::Missing(format!(
                "Cannot find package '{package}' imported from {ROOT}/{from}\n[in this tab: only the repository's \
                 own files load, and no package is installed; the local runner or the runner server runs with them]"
            ));
        }
        let Some(path) = join(folder(from), specifier) else {
            return Target::Missing(format!("Cannot find module '{specifier}' imported from {ROOT}/{from}"));
        };
        let found = if required {
            self.require_candidates(&path)
        } else {
            std::iter::once(path.clone()).chain(typescript_candidates(&path)).collect()
        };
        match found.into_iter().find(|p| self.files.contains_key(p)) {
            Some(p) if is_typescript(&p) && !runs_once_stripped(&p) => Target::Missing(format!(
                "Unknown file extension \".{}\" for {ROOT}/{p}\n[in this tab: TSX and declaration files do not run; \
                 JSX needs compiling]",
                p.rsplit('.').next().unwrap_or_default()
            )),
            Some(p) => Target::Module(self.add(&p)),
            None if required => {
                Target::Missing(format!("Cannot find module '{specifier}'\nRequire stack:\n- {ROOT}/{from}"))
            }
            None => {
                let hint = [".js", ".mjs", ".cjs", "/index.js"]
                    .iter()
                    .find(|ext| self.files.contains_key(&format!("{path}{ext}")))
                    .map(|ext| format!("\nDid you mean to import \"{specifier}{ext}\"?"))
                    .unwrap_or_default();
                Target::Missing(format!("Cannot find module '{ROOT}/{path}' imported from {ROOT}/{from}{hint}"))
            }
        }
    }

    /// The files `require` tries for `path`, in Node's order (a folder's `package.json` `main` before its index).
    fn require_candidates(&self, path: &str) -> Vec<String> {
        let mut candidates = vec![path.to_string(), format!("{path}.js"), format!("{path}.json")];
        let manifest = self.files.get(&format!("{path}/package.json"));
        if let Some(main) = manifest.and_then(|p| string_field(p, "main")).and_then(|main| join(path, &main)) {
            candidates.extend([main.clone(), format!("{main}.js"), format!("{main}/index.js")]);
        }
        candidates.extend([format!("{path}/index.js"), format!("{path}/index.json")]);
        candidates
    }
}

/// How Node reads the file at `path`.
fn format_of(files: &BTreeMap<String, String>, path: &str) -> Format {
    if path.ends_with(".json") {
        Format::Json
    } else if path.ends_with(".mjs") || path.ends_with(".ts") || path.ends_with(".mts") {
        Format::Module
    } else if path.ends_with(".cjs") || path.ends_with(".cts") {
        Format::CommonJs
    } else if package_type(files, path).as_deref() == Some("module") {
        Format::Module
    } else {
        Format::CommonJs
    }
}

/// The `type` of the `package.json` nearest to `path`, as Node finds it (the first folder up that has one).
fn package_type(files: &BTreeMap<String, String>, path: &str) -> Option<String> {
    let mut dir = folder(path);
    loop {
        let manifest = if dir.is_empty() { "package.json".to_string() } else { format!("{dir}/package.json") };
        if let Some(text) = files.get(&manifest) {
            return string_field(text, "type");
        }
        if dir.is_empty() {
            return None;
        }
        dir = folder(dir);
    }
}

/// A top-level string field of a JSON object.
fn string_field(json: &str, field: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(json).ok()?;
    value.get(field)?.as_str().map(str::to_string)
}

fn is_typescript(path: &str) -> bool {
    [".ts", ".mts", ".cts", ".tsx"].iter().any(|ext| path.ends_with(ext))
}

/// A package's name in a bare specifier: `lodash` of `lodash/fp`, `@scope/name` of `@scope/name/deep`.
fn package_name(specifier: &str) -> &str {
    let parts = if specifier.starts_with('@') { 2 } else { 1 };
    match specifier.match_indices('/').nth(parts - 1) {
        Some((at, _)) => &specifier[..at],
        None => specifier,
    }
}

fn utf16_len(text: &str) -> usize {
    text.encode_utf16().count()
}

/// A circle of ES modules importing each other, if the plan has one.
fn circle(plan: &Plan) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    let edges = |at: usize| -> Vec<usize> {
        plan.modules[at]
            .imports
            .iter()
            .filter_map(|i| match i.target {
                Target::Module(to) if i.kind != ImportKind::Require && plan.modules[to].format == Format::Module => {
                    Some(to)
                }
                _ => None,
            })
            .collect()
    };
    let mut marks = vec![Mark::New; plan.modules.len()];
    for start in 0..plan.modules.len() {
        if marks[start] != Mark::New || plan.modules[start].format != Format::Module {
            continue;
        }
        // Depth first, with the path so far: a module met again while open closes a circle.
        let mut path = vec![(start, edges(start), 0)];
        marks[start] = Mark::Open;
        while let Some((at, next, i)) = path.last_mut() {
            if let Some(&to) = next.get(*i) {
                *i += 1;
                match marks[to] {
                    Mark::Open => {
                        let from = path.iter().position(|(m, _, _)| *m == to).unwrap_or(0);
                        let mut names: Vec<String> =
                            path[from..].iter().map(|(m, _, _)| plan.modules[*m].path.clone()).collect();
                        names.push(plan.modules[to].path.clone());
                        return Some(names);
                    }
                    Mark::New => {
                        marks[to] = Mark::Open;
                        path.push((to, edges(to), 0));
                    }
                    Mark::Done => {}
                }
            } else {
                marks[*at] = Mark::Done;
                path.pop();
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(list: &[(&str, &str)]) -> BTreeMap<String, String> {
        list.iter().map(|(p, t)| (p.to_string(), t.to_string())).collect()
    }

    fn targets(plan: &Plan, path: &str) -> Vec<(String, Target)> {
        let module = plan.modules.iter().find(|m| m.path == path).expect(path);
        module.imports.iter().map(|i| (i.text.clone(), i.target.clone())).collect()
    }

    fn path_of(plan: &Plan, target: &Target) -> String {
        match target {
            Target::Module(at) => plan.modules[*at].path.clone(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_demo_plans_as_node_loads_it() {
        let demo = files(&[
            ("package.json", "{\"type\": \"module\"}"),
            ("reproducer.mjs", "import assert from 'node:assert';\nimport { Cart } from './src/index.js';\n"),
            ("src/index.js", "export { Cart } from './cart.js';\nexport { Item } from './item.js';\n"),
            ("src/cart.js", "import { Item } from './item.js';\nexport class Cart {}\n"),
            ("src/item.js", "export class Item {}\n"),
        ]);
        let plan = plan(&demo, &["./reproducer.mjs"]).unwrap();
        assert_eq!(plan.modules[0].path, "reproducer.mjs");
        assert!(plan.modules.iter().all(|m| m.format == Format::Module));
        let entry = targets(&plan, "reproducer.mjs");
        assert_eq!(entry[0].1, Target::Builtin("assert".into()));
        assert_eq!(path_of(&plan, &entry[1].1), "src/index.js");
        let index = targets(&plan, "src/index.js");
        assert_eq!([path_of(&plan, &index[0].1), path_of(&plan, &index[1].1)], ["src/cart.js", "src/item.js"]);
        assert_eq!(plan.modules.len(), 4, "item.js is planned once though named twice");
    }

    #[test]
    fn places_are_utf16_offsets_of_the_name() {
        let code = "// 😀 é\nimport x from './x.mjs';\n";
        let plan = plan(&files(&[("a.mjs", code), ("x.mjs", "")]), &["a.mjs"]).unwrap();
        let import = &plan.modules[0].imports[0];
        let units: Vec<u16> = code.encode_utf16().collect();
        assert_eq!(String::from_utf16(&units[import.start..import.end]).unwrap(), "./x.mjs");
    }

    #[test]
    fn commonjs_is_read_by_the_nearest_package_and_require_tries_what_node_tries() {
        let repo = files(&[
            ("package.json", "{\"name\": \"shop\"}"),
            ("lib/package.json", "{\"type\": \"module\"}"),
            ("main.js", "const a = require('./util');\nconst b = require('./data');\nconst c = require('./pkg');\n"),
            ("util.js", "module.exports = 1;\n"),
            ("data.json", "{\"n\": 1}"),
            ("pkg/package.json", "{\"main\": \"lib/start\"}"),
            ("pkg/lib/start.js", "module.exports = {};\n"),
            ("lib/m.js", "export const m = 1;\n"),
            ("r.mjs", "import m from './main.js';\nimport { m as n } from './lib/m.js';\n"),
        ]);
        let plan = plan(&repo, &["r.mjs"]).unwrap();
        let formats: BTreeMap<&str, Format> = plan.modules.iter().map(|m| (m.path.as_str(), m.format)).collect();
        assert_eq!(formats["main.js"], Format::CommonJs);
        assert_eq!(formats["lib/m.js"], Format::Module, "lib/package.json is nearer than the root's");
        assert_eq!(formats["data.json"], Format::Json);
        let required: Vec<String> = targets(&plan, "main.js").iter().map(|(_, t)| path_of(&plan, t)).collect();
        assert_eq!(required, ["util.js", "data.json", "pkg/lib/start.js"]);
    }

    #[test]
    fn what_the_tab_cannot_load_fails_with_nodes_words_and_the_reason() {
        let repo = files(&[
            (
                "r.mjs",
                "import a from './src/a';\nimport _ from 'lodash/fp';\nimport t from './t.tsx';\nimport '../up.js';\n",
            ),
            ("src/a.js", ""),
            ("t.tsx", "export default <b>1</b>;\n"),
        ]);
        let plan = plan(&repo, &["r.mjs"]).unwrap();
        let missing: Vec<String> = targets(&plan, "r.mjs")
            .into_iter()
            .map(|(_, t)| match t {
                Target::Missing(m) => m,
                other => panic!("{other:?}"),
            })
            .collect();
        assert!(missing[0].starts_with("Cannot find module '/repo/src/a' imported from /repo/r.mjs"), "{}", missing[0]);
        assert!(missing[0].ends_with("Did you mean to import \"./src/a.js\"?"), "{}", missing[0]);
        assert!(missing[1].starts_with("Cannot find package 'lodash' imported from /repo/r.mjs"), "{}", missing[1]);
        assert!(missing[1].contains("no package is installed"), "{}", missing[1]);
        assert!(missing[2].contains("JSX needs compiling"), "{}", missing[2]);
        assert!(missing[3].starts_with("Cannot find module '../up.js'"), "{}", missing[3]);
        assert_eq!(package_name("@scope/name/deep"), "@scope/name");
    }

    #[test]
    fn typescript_is_found_as_acrs_loader_finds_it_and_sent_as_javascript() {
        let repo = files(&[
            ("r.mjs", "import { a } from './src/a.js';\nimport { b } from './src/b';\nimport c from './src/c.ts';\n"),
            ("src/a.ts", "export const a: number = 1;\n"),
            ("src/b/index.ts", "export enum b { X }\n"),
            ("src/c.ts", "namespace N { export const x = 1; }\nexport default N;\n"),
        ]);
        let plan = plan(&repo, &["r.mjs"]).unwrap();
        let found: Vec<String> = targets(&plan, "r.mjs").iter().map(|(_, t)| path_of(&plan, t)).collect();
        assert_eq!(found, ["src/a.ts", "src/b/index.ts", "src/c.ts"]);
        let code = |path: &str| &plan.modules.iter().find(|m| m.path == path).unwrap().code;
        assert_eq!(code("src/a.ts"), "export const a         = 1;\n");
        assert!(code("src/b/index.ts").starts_with("export var b; (function (b) "), "{}", code("src/b/index.ts"));
        assert!(code("src/c.ts").starts_with("throw new SyntaxError(\"src/c.ts cannot run: line 1: a namespace"));
        assert!(plan.modules.iter().skip(1).all(|m| m.format == Format::Module));
    }

    #[test]
    fn a_missing_entry_and_a_circle_of_modules_are_refused() {
        assert!(
            matches!(plan(&files(&[]), &["reproducer.mjs"]), Err(PlanError::NoEntry(m)) if m.contains("reproducer.mjs"))
        );
        let circle = files(&[
            ("r.mjs", "import './a.mjs';\n"),
            ("a.mjs", "import './b.mjs';\n"),
            ("b.mjs", "export const late = () => import('./a.mjs');\n"),
        ]);
        assert_eq!(
            plan(&circle, &["r.mjs"]),
            Err(PlanError::Circle(vec!["a.mjs".into(), "b.mjs".into(), "a.mjs".into()]))
        );
        let commonjs_circle = files(&[("r.cjs", "require('./a.cjs');\n"), ("a.cjs", "require('./r.cjs');\n")]);
        assert!(plan(&commonjs_circle, &["r.cjs"]).is_ok(), "require handles circles as Node does");
        let two = plan(
            &files(&[("t.test.mjs", "import './r.mjs';\n"), ("r.mjs", ""), ("rep.mjs", "")]),
            &["t.test.mjs", "rep.mjs"],
        );
        let paths: Vec<String> = two.unwrap().modules.into_iter().map(|m| m.path).collect();
        assert_eq!(paths, ["t.test.mjs", "rep.mjs", "r.mjs"], "the entries first, in order");
    }
}
