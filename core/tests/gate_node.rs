//! The JavaScript syntax gate ([`acr_core::gate::script`]) against V8, as `node --check` judges, on real published
//! npm packages and on single-token and single-line mutants of them.
//!
//! The sources are the JavaScript files of the packages installed beside Node on this machine (`npm root -g`: npm
//! itself and the packages it bundles, as the registry published them), or of `ACR_JS_CORPUS=DIR`. They are judged
//! by `tools/node/parse_check.mjs` (V8's parser only, nothing run; ES modules as modules, CommonJS inside Node's
//! module wrapper). `make test` runs a sample (every 3rd file); `ACR_NODE_FULL=1` runs them all. Skips, saying why,
//! without Node.

use std::path::{Path, PathBuf};
use std::process::Command;

use acr_core::gate::SyntaxCheck;
use gate_mutants::{files_ending, judge_corpus, pct, scratch_dir};

mod gate_mutants;

/// The folder of real JavaScript to judge: `ACR_JS_CORPUS`, or the global `node_modules` npm reports.
fn corpus() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("ACR_JS_CORPUS") {
        return Some(PathBuf::from(dir));
    }
    let out = Command::new("npm").args(["root", "-g"]).output().ok()?;
    let root = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    root.is_dir().then_some(root)
}

#[test]
fn the_javascript_gate_agrees_with_v8_on_npm_packages_and_their_mutants() {
    if Command::new("node").arg("--version").output().is_err() {
        eprintln!("skipped: no `node` on PATH");
        return;
    }
    let Some(root) = corpus() else {
        eprintln!("skipped: no global node_modules (`npm root -g`) and no ACR_JS_CORPUS");
        return;
    };
    let full = std::env::var_os("ACR_NODE_FULL").is_some();
    let mut files = files_ending(&root, &[".js", ".mjs", ".cjs"]);
    if !full {
        files = files.into_iter().step_by(3).collect();
    }
    // Each copy keeps its file name (`.mjs` says ES module) beside a package.json saying what the original's
    // package says of `.js` files.
    let package = |path: &Path| vec![("package.json", format!("{{\"type\": \"{}\"}}\n", nearest_type(path)))];
    let mut node = Command::new("node");
    node.arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../tools/node/parse_check.mjs"));
    let gate = |_: &Path, text: &str| SyntaxCheck::JavaScript.check(text);
    let (valid, broken) = judge_corpus(&files, b"\"'`", &scratch_dir("node"), package, node, gate);
    eprintln!("corpus: {} ({} files)", root.display(), valid.files);
    gate_mutants::report("V8", &valid, &broken);
    assert!(valid.files > 50 && broken.files > 200, "too few cases to judge");
    assert_eq!(valid.compiler_rejects, 0, "the packages' own files parse");
    assert_eq!(valid.false_rejects, 0, "a valid published file was rejected");
    // Measured on npm 10's own files and the packages it bundles (ACR_NODE_FULL=1, Node 20): none of 1,152 valid
    // files rejected; of 5,758 mutants, 0.76% of those V8 rejects accepted (assignments to what cannot be assigned,
    // reserved words of strict mode, a default export declared twice), 1 of 2,484 it accepts rejected, the same line
    // for 95.8% of those both reject (95.8% on each half of the files; 80.0% before the gate looked for the token
    // V8 stops at). The every-3rd-file sample: 0.18%, 0 and 95.9%.
    assert!(pct(broken.false_accepts, broken.compiler_rejects) <= 1.0, "broken mutants accepted");
    assert!(pct(broken.false_rejects, broken.files - broken.compiler_rejects) <= 0.5, "valid mutants rejected");
    assert!(pct(broken.same_line, broken.both_reject) >= 95.0, "error lines apart from V8's");
}

/// What the nearest package.json above `path` says its `.js` files are: `module` or `commonjs`.
fn nearest_type(path: &Path) -> &'static str {
    for dir in path.ancestors().skip(1) {
        let Ok(text) = std::fs::read_to_string(dir.join("package.json")) else { continue };
        let manifest: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        return if manifest["type"] == "module" { "module" } else { "commonjs" };
    }
    "commonjs"
}
