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
use gate_mutants::{Tally, mutants, pct, scratch_dir, verdicts};

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

/// Every JavaScript file under `dir`, in path order.
fn script_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "js" || e == "mjs" || e == "cjs") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
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
    let mut files = script_files(&root);
    if !full {
        files = files.into_iter().step_by(3).collect();
    }
    let scratch = scratch_dir("node");
    let mut originals = Vec::new();
    let mut mutated = Vec::new();
    for (i, path) in files.iter().enumerate() {
        let Ok(text) = std::fs::read_to_string(path) else { continue };
        // Each copy keeps its file name (`.mjs` says ES module) beside a package.json saying what the original's
        // package says of `.js` files.
        let name = path.file_name().unwrap();
        let module = nearest_type(path);
        for (m, variant) in std::iter::once(text.clone()).chain(mutants(&text, i as u64, b"\"'`")).enumerate() {
            let dir = scratch.join(format!("{i}-{m}"));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("package.json"), format!("{{\"type\": \"{module}\"}}\n")).unwrap();
            let copy = dir.join(name);
            std::fs::write(&copy, &variant).unwrap();
            if m == 0 { originals.push((copy, variant)) } else { mutated.push((copy, variant)) }
        }
    }
    let all: Vec<PathBuf> = originals.iter().chain(&mutated).map(|(p, _)| p.clone()).collect();
    let mut node = Command::new("node");
    node.arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../tools/node/parse_check.mjs"));
    let verdicts = verdicts(node, &all);
    let (mut valid, mut broken) = (Tally::default(), Tally::default());
    for (tally, set) in [(&mut valid, &originals), (&mut broken, &mutated)] {
        for (path, text) in set {
            tally.add(path, &verdicts[path], &SyntaxCheck::JavaScript.check(text));
        }
    }
    if std::env::var_os("ACR_KEEP_SCRATCH").is_none() {
        let _ = std::fs::remove_dir_all(&scratch);
    }
    eprintln!("corpus: {} ({} files)", root.display(), originals.len());
    gate_mutants::report("V8", &valid, &broken);
    assert!(valid.files > 50 && broken.files > 200, "too few cases to judge");
    assert_eq!(valid.compiler_rejects, 0, "the packages' own files parse");
    assert_eq!(valid.false_rejects, 0, "a valid published file was rejected");
    assert!(pct(broken.false_accepts, broken.compiler_rejects) <= 5.0, "broken mutants accepted");
    assert!(pct(broken.false_rejects, broken.files - broken.compiler_rejects) <= 1.0, "valid mutants rejected");
    assert!(pct(broken.same_line, broken.both_reject) >= 60.0, "error lines apart from V8's");
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
