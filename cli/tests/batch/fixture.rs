//! The batch tests' fixture: five SWE-bench tasks over the demo shop (a clone and a bare mirror, two commits), a
//! model script that repairs each, and readers of what `acr batch` writes.
// Each test binary uses a different part of these helpers.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

use crate::common::{ACR, ModelServer, root};

/// Five tasks over two repositories and two base commits.
pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub repos: PathBuf,
    pub tasks: PathBuf,
    pub script: PathBuf,
    pub ids: Vec<String>,
    /// Each repository's refs and HEAD before the batch, to check that it is left as it was.
    pub before: Vec<(PathBuf, String)>,
}

pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=acr", "-c", "user.email=acr@example.invalid", "-c", "init.defaultBranch=main"])
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            if entry.file_name() != "__pycache__" {
                copy_dir(&entry.path(), &target);
            }
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn state_of(repo: &Path) -> String {
    let refs = git(repo, &["for-each-ref", "--format=%(refname) %(objectname)"]);
    let bare = git(repo, &["rev-parse", "--is-bare-repository"]) == "true";
    let status = if bare { String::new() } else { git(repo, &["status", "--porcelain", "--ignored"]) };
    let worktrees = git(repo, &["worktree", "list", "--porcelain"]);
    format!("{refs}\n{status}\n{worktrees}")
}

/// One SWE-bench task as a JSON line.
fn task_line(id: &str, repo: &str, commit: &str, issue: &str) -> Value {
    json!({
        "instance_id": id, "repo": repo, "base_commit": commit, "problem_statement": issue,
        "version": "1.0", "created_at": "2026-11-27T00:00:00Z",
    })
}

pub fn fixture() -> Fixture {
    let dir = tempfile::tempdir().expect("temp dir");
    let repos = dir.path().join("repos");
    let shop = repos.join("acme/shop");
    let demo = root().join("web/demo");
    copy_dir(&demo.join("inventory"), &shop.join("inventory"));
    copy_dir(&demo.join("tests"), &shop.join("tests"));
    git(&shop, &["init", "-q"]);
    git(&shop, &["add", "-A"]);
    git(&shop, &["commit", "-qm", "the shop"]);
    let first = git(&shop, &["rev-parse", "HEAD"]);
    std::fs::write(shop.join("CHANGES.md"), "# Changes\n\n- Discounts in percent.\n").unwrap();
    git(&shop, &["add", "-A"]);
    git(&shop, &["commit", "-qm", "a change log"]);
    let second = git(&shop, &["rev-parse", "HEAD"]);
    // The same history as a bare mirror, under another name.
    git(&repos, &["clone", "-q", "--mirror", "acme/shop", "acme/tools.git"]);

    let issue = std::fs::read_to_string(demo.join("ISSUE.md")).unwrap();
    let tasks = [
        ("acme__shop-1", "acme/shop", &first),
        ("acme__shop-2", "acme/shop", &second),
        ("acme__shop-3", "acme/shop", &first),
        ("acme__tools-1", "acme/tools", &first),
        ("acme__tools-2", "acme/tools", &second),
    ];
    let mut lines = String::new();
    for (id, repo, commit) in tasks {
        lines.push_str(&format!("{}\n", task_line(id, repo, commit, &issue)));
    }
    let tasks_file = dir.path().join("tasks.jsonl");
    std::fs::write(&tasks_file, lines).unwrap();

    // The demo's script with one answer per stage, played again for every task.
    let mut script: Value = serde_json::from_str(&std::fs::read_to_string(demo.join("script.json")).unwrap()).unwrap();
    for stage in ["patch", "rate"] {
        let first = script["answers"][stage][0].clone();
        script["answers"][stage] = json!([first]);
    }
    script["repeat_last"] = json!(true);
    let script_file = dir.path().join("script.json");
    std::fs::write(&script_file, script.to_string()).unwrap();

    let before = [shop.clone(), repos.join("acme/tools.git")].into_iter().map(|r| (r.clone(), state_of(&r))).collect();
    Fixture {
        ids: tasks.iter().map(|t| t.0.to_string()).collect(),
        dir,
        repos,
        tasks: tasks_file,
        script: script_file,
        before,
    }
}

impl Fixture {
    pub fn out(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// A list of `n` tasks (the fixture's five, over and over under new ids), written to `name`.
    pub fn many(&self, n: usize, name: &str) -> PathBuf {
        let text = std::fs::read_to_string(&self.tasks).unwrap();
        let five: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let mut lines = String::new();
        for k in 0..n {
            let mut task = five[k % five.len()].clone();
            task["instance_id"] = json!(format!("many__task-{k}"));
            lines.push_str(&format!("{task}\n"));
        }
        let path = self.out(name);
        std::fs::write(&path, lines).unwrap();
        path
    }

    /// `acr batch` against `server` into `out`, with more options.
    pub fn batch(&self, server: &ModelServer, out: &Path, extra: &[&str]) -> Command {
        self.command(&self.tasks, &server.url, out, extra)
    }

    /// `acr batch` over the list `tasks` against the model server at `url` into `out`, with more options.
    pub fn command(&self, tasks: &Path, url: &str, out: &Path, extra: &[&str]) -> Command {
        self.command_for("scripted", tasks, url, out, extra)
    }

    /// [`Fixture::command`] with another `--model`.
    pub fn command_for(&self, model: &str, tasks: &Path, url: &str, out: &Path, extra: &[&str]) -> Command {
        let mut command = Command::new(ACR);
        command
            .arg("batch")
            .arg("--tasks")
            .arg(tasks)
            .arg("--repos")
            .arg(&self.repos)
            .arg("--out")
            .arg(out)
            .args(["--endpoint", url, "--model", model])
            .args(extra);
        command
    }

    pub fn run(&self, server: &ModelServer, out: &Path, extra: &[&str]) -> Output {
        self.batch(server, out, extra).output().expect("acr batch runs")
    }

    pub fn assert_repos_unchanged(&self) {
        for (repo, before) in &self.before {
            assert_eq!(&state_of(repo), before, "{} was changed", repo.display());
        }
    }
}

/// The predictions file's lines, each checked to end with a newline.
pub fn predictions(out: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(out.join("predictions.jsonl")).expect("predictions.jsonl");
    assert!(text.is_empty() || text.ends_with('\n'), "every line is whole");
    text.lines().map(|l| serde_json::from_str(l).expect("a prediction is JSON")).collect()
}

pub fn ids(predictions: &[Value]) -> Vec<String> {
    predictions.iter().map(|p| p["instance_id"].as_str().unwrap().to_string()).collect()
}

pub fn batch_json(out: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("batch.json")).expect("batch.json")).expect("JSON")
}

/// The journal's lines (journal.jsonl), each checked to be JSON.
pub fn journal(out: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(out.join("journal.jsonl")).expect("journal.jsonl");
    text.lines().map(|l| serde_json::from_str(l).expect("a journal line is JSON")).collect()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}
