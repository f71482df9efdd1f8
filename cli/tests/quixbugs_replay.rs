//! The QuixBugs bench's recorded runs (tests/fixtures/quixbugs/MODEL/TASK.json, written by
//! `python3 tests/bench/quixbugs.py --record DIR`), replayed through `acr run --script`: the same answers, in the same
//! order per stage, with the options the run had, the edit format `auto` gave its model, the judge it had and as many calls as it
//! made. A run the model resolved must resolve again, with the same final diff (or, when the validated patch is
//! trimmed since it was recorded, with lines of it), and QuixBugs' own tests must pass on it; every other run must
//! still end with an outcome. Needs ../shared/quixbugs (the programs and their tests) and tests/.venv (pytest,
//! from tools/setup.sh); skips with a message without them.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

mod common;
use common::{ACR, root};

fn quixbugs() -> Option<PathBuf> {
    let dir = root().parent()?.join("shared/quixbugs");
    dir.is_dir().then_some(dir)
}

/// `python3 tests/bench/quixbugs.py ARGS...`, which makes tasks and judges results the bench's way.
fn bench(args: &[&str]) -> std::process::Output {
    Command::new("python3").arg(root().join("tests/bench/quixbugs.py")).args(args).output().expect("python3 runs")
}

fn recordings() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    let Ok(models) = std::fs::read_dir(root().join("tests/fixtures/quixbugs")) else { return out };
    for model in models.flatten() {
        for task in std::fs::read_dir(model.path()).into_iter().flatten().flatten() {
            let path = task.path();
            if path.extension().is_some_and(|e| e == "json") {
                out.push((model.file_name().to_string_lossy().into_owned(), path));
            }
        }
    }
    out.sort();
    out
}

/// Whether QuixBugs' tests pass on `repo`'s program (the bench's judgement).
fn resolved(task: &str, repo: &Path) -> bool {
    let code = format!(
        "import sys; sys.argv = ['q']; sys.path.insert(0, {:?}); import quixbugs; \
         sys.exit(0 if quixbugs.resolved({task:?}, {:?})[0] else 1)",
        root().join("tests/bench").display().to_string(),
        repo.display().to_string()
    );
    Command::new("python3").args(["-c", &code]).status().is_ok_and(|s| s.success())
}

#[test]
fn recorded_quixbugs_runs_replay_to_the_same_outcome() {
    if quixbugs().is_none() || !root().join("tests/.venv/bin/python3").exists() {
        eprintln!("skipped: ../shared/quixbugs or tests/.venv (tools/setup.sh test) is missing");
        return;
    }
    let recorded = recordings();
    assert!(!recorded.is_empty(), "tests/fixtures/quixbugs holds the bench's recorded runs");
    for (model, path) in recorded {
        let task = path.file_stem().unwrap().to_string_lossy().into_owned();
        let fixture: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).expect("a fixture");
        let work = tempfile::tempdir().unwrap();
        let made = bench(&["--make-task", &task, "--into", &work.path().display().to_string()]);
        assert!(made.status.success(), "{task}: {}", String::from_utf8_lossy(&made.stderr));
        let script = work.path().join("script.json");
        std::fs::write(&script, fixture["script"].to_string()).unwrap();
        let format = acr_core::model_defaults::edit_format(fixture["model"].as_str().unwrap_or_default());
        // The judge the run had: recorded since the table chose one (`auto`); runs recorded before were reviewed.
        let judge = fixture["judge"].as_str().unwrap_or("reviewer");
        let options: Vec<String> =
            fixture["options"].as_array().unwrap().iter().map(|o| o.as_str().unwrap().to_string()).collect();
        // As many model calls as the run made: a run its time limit stopped stops at the same answer here (the
        // scripted model answers at once, so the seconds never run out), keeping the best patch so far as it did.
        let answers: usize =
            fixture["script"]["answers"].as_object().unwrap().values().map(|a| a.as_array().unwrap().len()).sum();
        let out = work.path().join("out");
        let run = Command::new(ACR)
            .arg("run")
            .arg(work.path().join("repo"))
            .arg("--issue")
            .arg(work.path().join("ISSUE.md"))
            .arg("--script")
            .arg(&script)
            .args(["--edit-format", format.format.name()])
            .args(["--judge", judge])
            .args(&options)
            .args(["--max-calls", &answers.to_string()])
            .arg("--out")
            .arg(&out)
            .output()
            .expect("acr run runs");
        let stderr = String::from_utf8_lossy(&run.stderr);
        let outcome: Value = serde_json::from_str(
            &std::fs::read_to_string(out.join("outcome.json"))
                .unwrap_or_else(|e| panic!("{model}/{task}: no outcome ({e}):\n{stderr}")),
        )
        .unwrap();
        let diff = std::fs::read_to_string(out.join("final.diff")).unwrap_or_default();
        if fixture["resolved"].as_bool() == Some(true) {
            assert_eq!(outcome["status"], "APPLICABLE_PATCH", "{model}/{task}: {outcome}\n{stderr}");
            let recorded = fixture["diff"].as_str().unwrap();
            let transcript = std::fs::read_to_string(out.join("transcript.json")).unwrap_or_default();
            if transcript.contains("the validated patch was trimmed") {
                // Trimmed since it was recorded: every line it adds is a line of the recorded patch or of the
                // original around it (a change undone brings the original's lines back).
                let body = |d: &str, marks: &str| -> Vec<String> {
                    let lines = d.lines().filter(|l| !l.starts_with("+++") && !l.starts_with("---"));
                    lines.filter(|l| l.starts_with(|c| marks.contains(c))).map(|l| l[1..].to_string()).collect()
                };
                let known = body(recorded, "+- ");
                let kept = body(&diff, "+").into_iter().all(|l| known.contains(&l));
                assert!(kept, "{model}/{task}: trimmed from {recorded}\n{diff}");
            } else {
                assert_eq!(diff, recorded, "{model}/{task}: the same final diff");
            }
            let repo = work.path().join("repo");
            let patched = Command::new("patch")
                .args(["-p1", "--no-backup-if-mismatch", "-s", "-i"])
                .arg(out.join("final.diff"))
                .current_dir(&repo)
                .status()
                .expect("patch runs");
            assert!(patched.success(), "{model}/{task}: the diff applies");
            assert!(resolved(&task, &repo), "{model}/{task}: QuixBugs' tests pass on the replayed patch");
        } else {
            assert!(outcome["status"].as_str().is_some(), "{model}/{task}: an outcome: {outcome}\n{stderr}");
        }
    }
}
