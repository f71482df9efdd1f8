//! Replays AutoCodeRover's recorded patch extractions (`../shared/replay/patch`) through [`acr_core::patch`].
//!
//! For every answer ACR turned into a patch and whose files are stored, the expected diff is applied to the stored
//! originals and the resulting file contents are compared with ours (so `index` lines and hunk headers do not
//! matter). For answers ACR could not apply, the test reports what we make of them. Figures are printed; run with
//! `cargo test -p acr-core --test replay_patch -- --nocapture` to see them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use acr_core::Repo;
use acr_core::patch::{self, ExtractOptions, ExtractStatus, Outcome};

fn replay_root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/replay"))
}

struct Case {
    dir: PathBuf,
    id: String,
    acr: ExtractStatus,
    has_files: bool,
    response: String,
}

fn cases(root: &Path) -> Vec<Case> {
    let mut out = Vec::new();
    let Ok(runs) = std::fs::read_dir(root.join("patch")) else {
        return out;
    };
    let mut dirs: Vec<PathBuf> = Vec::new();
    for run in runs.flatten() {
        for task in std::fs::read_dir(run.path()).into_iter().flatten().flatten() {
            for answer in std::fs::read_dir(task.path()).into_iter().flatten().flatten() {
                dirs.push(answer.path());
            }
        }
    }
    dirs.sort();
    for dir in dirs {
        let Ok(json) = std::fs::read_to_string(dir.join("case.json")) else {
            continue;
        };
        let case: serde_json::Value = serde_json::from_str(&json).expect("case.json is JSON");
        let acr = case["acr_status"].as_str().and_then(ExtractStatus::from_name).expect("known status");
        let has_files = case["repo_available"].as_bool() == Some(true)
            && case["missing_files"].as_array().is_some_and(|m| m.is_empty())
            && case["files"].as_array().is_some_and(|f| !f.is_empty());
        let id = format!("{}#{}", case["instance_id"].as_str().unwrap_or("?"), case["answer_index"]);
        let response = std::fs::read_to_string(dir.join("response.txt")).unwrap_or_default();
        out.push(Case { dir, id, acr, has_files, response });
    }
    out
}

fn load_files(dir: &Path) -> BTreeMap<String, String> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = entry.path();
            if p.is_dir() {
                walk(base, &p, out);
            } else if let Ok(text) = std::fs::read_to_string(&p) {
                let rel = p.strip_prefix(base).unwrap().to_string_lossy().replace('\\', "/");
                out.insert(rel, text);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(&dir.join("files"), &dir.join("files"), &mut out);
    out
}

/// Applies a `git diff` to the given originals; returns the new text of every file it touches.
fn apply_git_diff(diff: &str, originals: &BTreeMap<String, String>) -> Result<BTreeMap<String, String>, String> {
    let mut out = BTreeMap::new();
    let lines: Vec<&str> = diff.split_inclusive('\n').collect();
    let mut i = 0;
    while i < lines.len() {
        let Some(rest) = lines[i].strip_prefix("diff --git a/") else {
            i += 1;
            continue;
        };
        let path = rest.split(" b/").next().unwrap_or("").to_string();
        let old = originals.get(&path).ok_or_else(|| format!("no original for {path}"))?;
        let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
        let mut new = String::new();
        let mut cursor = 0usize; // next old line to copy
        i += 1;
        while i < lines.len() && !lines[i].starts_with("diff --git ") {
            let line = lines[i];
            if let Some(h) = line.strip_prefix("@@ -") {
                let start: usize = h.split([',', ' ']).next().and_then(|n| n.parse().ok()).ok_or("bad hunk")?;
                let from = start.saturating_sub(1).max(cursor);
                // An empty old range (`-N,0`) inserts after line N.
                let from = if h.split(' ').next().is_some_and(|r| r.ends_with(",0")) { start } else { from };
                for l in &old_lines[cursor..from] {
                    new.push_str(l);
                }
                cursor = from;
                i += 1;
                while i < lines.len() {
                    let l = lines[i];
                    if let Some(t) = l.strip_prefix(' ') {
                        if old_lines.get(cursor).map(|o| o.trim_end_matches('\n')) != Some(t.trim_end_matches('\n')) {
                            return Err(format!("context mismatch in {path} at line {}", cursor + 1));
                        }
                        new.push_str(old_lines[cursor]);
                        cursor += 1;
                    } else if l.starts_with('-') {
                        cursor += 1;
                    } else if let Some(t) = l.strip_prefix('+') {
                        new.push_str(t);
                    } else if l.starts_with('\\') {
                        if new.ends_with('\n') && lines[i - 1].starts_with('+') {
                            new.pop();
                        }
                    } else {
                        break;
                    }
                    i += 1;
                }
            } else {
                i += 1;
            }
        }
        for l in &old_lines[cursor.min(old_lines.len())..] {
            new.push_str(l);
        }
        out.insert(path, new);
    }
    Ok(out)
}

/// ACR pads blank lines of a re-indented block with the indentation; we leave them empty. This erases only that
/// difference: whitespace-only lines become empty, every other line stays byte for byte.
fn blank_lines_emptied(s: &str) -> String {
    s.split_inclusive('\n').map(|l| if l.trim().is_empty() { "\n" } else { l }).collect()
}

#[test]
fn replay_patch_extraction() {
    let root = replay_root();
    if !root.join("patch").is_dir() {
        eprintln!("SKIP replay_patch: {} not found", root.display());
        return;
    }
    let all = cases(&root);
    assert!(!all.is_empty(), "no cases under {}", root.display());
    let mut gate = acr_core::gate::Gate::new();
    // ACR places an ambiguous original at its first occurrence; the core refuses it by default. To compare with
    // what ACR applied, this takes the first occurrence too.
    let options = ExtractOptions { refuse_ambiguous: false, ..ExtractOptions::default() };

    let (mut applied_total, mut same, mut same_modulo_ws, mut same_plus_extra) = (0, 0, 0, 0);
    let mut misses: Vec<String> = Vec::new();
    let mut others: BTreeMap<(ExtractStatus, ExtractStatus), Vec<String>> = BTreeMap::new();
    let mut parse_only: BTreeMap<(ExtractStatus, bool), usize> = BTreeMap::new();

    for case in &all {
        if !case.has_files {
            let parsed = !patch::parse_edits(&case.response).is_empty();
            *parse_only.entry((case.acr, parsed)).or_default() += 1;
            continue;
        }
        let files = load_files(&case.dir);
        let repo = Repo::from_files(files.iter().map(|(p, t)| (p.as_str(), t.as_bytes())));
        let ours = patch::extract_with_gate(&repo, &case.response, &options, &mut gate);
        if case.acr != ExtractStatus::ApplicablePatch {
            let why =
                ours.edits.iter().map(|e| format!("#{} {}", e.index, e.message())).collect::<Vec<_>>().join(" | ");
            let line = if ours.edits.is_empty() { ours.reason.clone() } else { why };
            others.entry((case.acr, ours.status)).or_default().push(format!("{}: {}", case.id, line));
            continue;
        }
        applied_total += 1;
        let diff = std::fs::read_to_string(case.dir.join("expected.diff")).unwrap_or_default();
        let expected = match apply_git_diff(&diff, &files) {
            Ok(e) => e,
            Err(e) => panic!("{}: expected.diff does not apply: {e}", case.id),
        };
        if ours.files == expected {
            same += 1;
            continue;
        }
        let norm = |m: &BTreeMap<String, String>| -> BTreeMap<String, String> {
            m.iter().map(|(k, v)| (k.clone(), blank_lines_emptied(v))).collect()
        };
        let ours_n = norm(&ours.files);
        let exp_n = norm(&expected);
        if ours_n == exp_n {
            same_modulo_ws += 1;
            misses.push(format!("{} [differs only in whitespace-only lines]", case.id));
            continue;
        }
        // Did we only apply more? Drop the edits we found by a reading ACR does not have and compare again.
        let extra: Vec<usize> = ours
            .edits
            .iter()
            .filter(|e| matches!(&e.outcome, Outcome::Applied(a) if a.reading != patch::Reading::AsWritten))
            .map(|e| e.index)
            .collect();
        if !extra.is_empty() {
            let kept: Vec<patch::Edit> =
                patch::parse_edits(&case.response).into_iter().filter(|e| !extra.contains(&e.index)).collect();
            let narrowed = patch::extract_edits(&repo, &kept, &options, &mut gate);
            if norm(&narrowed.files) == exp_n {
                same_plus_extra += 1;
                misses.push(format!(
                    "{} [same change, and we also applied edit(s) {:?} that ACR could not match]",
                    case.id, extra
                ));
                continue;
            }
        }
        let detail = ours
            .edits
            .iter()
            .filter(|e| !matches!(e.outcome, Outcome::Applied(_)))
            .map(|e| format!("#{} {}", e.index, e.message()))
            .collect::<Vec<_>>()
            .join(" | ");
        misses.push(format!(
            "{} [ours {} files {:?}, ACR files {:?}] {}",
            case.id,
            ours.status,
            ours.files.keys().collect::<Vec<_>>(),
            expected.keys().collect::<Vec<_>>(),
            detail
        ));
    }

    let pct = |a: usize, b: usize| {
        if b == 0 { 0.0 } else { 100.0 * a as f64 / b as f64 }
    };
    println!("replay_patch: {} answers, {} with stored files", all.len(), all.iter().filter(|c| c.has_files).count());
    println!(
        "ACR applied, files stored: {applied_total}; identical files: {same} ({:.1}%); identical but for whitespace-only lines: {same_modulo_ws}; same change plus edits ACR could not match: {same_plus_extra}; same change overall: {:.1}%",
        pct(same, applied_total),
        pct(same + same_modulo_ws + same_plus_extra, applied_total)
    );
    for m in &misses {
        println!("  miss: {m}");
    }
    println!("ACR did not apply (files stored): ACR status -> our status");
    for ((acr, ours), ids) in &others {
        println!("  {acr} -> {ours}: {}", ids.len());
        for id in ids {
            println!("      {id}");
        }
    }
    println!("no stored files (parse only): ACR status, we parse >=1 edit -> answers");
    for ((acr, parsed), n) in &parse_only {
        println!("  {acr}, parsed={parsed}: {n}");
    }
    assert!(applied_total >= 100, "expected over 100 applicable cases with files");
    assert!(
        pct(same + same_modulo_ws + same_plus_extra, applied_total) >= 98.0,
        "same-change rate fell below the floor"
    );
}
