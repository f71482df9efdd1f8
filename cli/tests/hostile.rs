//! Hostile repositories on disk (issue: never write outside, never lock out): each test builds a repository an
//! attacker could publish (links, odd names, unreadable entries) and checks what `acr` reads, prints and writes.

use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const ACR: &str = env!("CARGO_BIN_EXE_acr");

/// A scratch folder holding `repo/` (what `acr` is pointed at) and `outside/` (what it must never touch).
struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    fn new() -> Scratch {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir_all(dir.path().join("repo/pkg")).unwrap();
        std::fs::create_dir_all(dir.path().join("outside")).unwrap();
        Scratch { dir }
    }
    fn repo(&self) -> PathBuf {
        self.dir.path().join("repo")
    }
    fn outside(&self) -> PathBuf {
        self.dir.path().join("outside")
    }
    fn answer(&self, file: &str, original: &str, patched: &str) -> PathBuf {
        let path = self.dir.path().join("answer.txt");
        let text =
            format!("<file>{file}</file>\n<original>\n{original}\n</original>\n<patched>\n{patched}\n</patched>\n");
        std::fs::write(&path, text).unwrap();
        path
    }
}

fn acr(args: &[&str], dir: &Path, extra: Option<&Path>) -> Output {
    let mut cmd = Command::new(ACR);
    cmd.args(args).arg(dir);
    if let Some(e) = extra {
        cmd.arg(e);
    }
    cmd.output().expect("acr runs")
}

fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        walk(dir).into_iter().map(|p| p.strip_prefix(dir).unwrap().display().to_string()).collect();
    names.sort();
    names
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let meta = std::fs::symlink_metadata(&path).unwrap();
        if meta.is_dir() {
            out.extend(walk(&path));
        }
        out.push(path);
    }
    out
}

/// Regression (security): a link `sub -> ../outside` plus a file literally named `sub\evil.py` made an edit of
/// `sub/evil.py` create `../outside/evil.py` while the diff said `sub/evil.py`.
#[test]
fn a_backslash_name_beside_a_linked_folder_writes_nothing_outside() {
    let s = Scratch::new();
    symlink("../outside", s.repo().join("sub")).unwrap();
    std::fs::write(s.repo().join("sub\\evil.py"), "x = 1\n").unwrap();
    let answer = s.answer("sub/evil.py", "x = 1", "import os  # planted");
    let out = acr(&["apply", "--write"], &s.repo(), Some(&answer));
    assert_eq!(out.status.code(), Some(1), "nothing applicable: {}", String::from_utf8_lossy(&out.stderr));
    assert!(listing(&s.outside()).is_empty(), "outside: {:?}", listing(&s.outside()));
    assert_eq!(std::fs::read_to_string(s.repo().join("sub\\evil.py")).unwrap(), "x = 1\n");

    let out = acr(&["index", "--json"], &s.repo(), None);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let skipped: Vec<(String, String)> = v["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["path"].as_str().unwrap().to_string(), e["reason"]["kind"].as_str().unwrap().to_string()))
        .collect();
    assert!(skipped.contains(&("sub".into(), "symlink".into())), "{skipped:?}");
    assert!(skipped.contains(&("sub\\evil.py".into(), "unsafe_path".into())), "{skipped:?}");
}

/// A linked file is never read or written through, even when the model names it exactly.
#[test]
fn a_linked_file_is_skipped_and_its_target_untouched() {
    let s = Scratch::new();
    std::fs::write(s.outside().join("secret.py"), "TOKEN = 'abc'\n").unwrap();
    symlink(s.outside().join("secret.py"), s.repo().join("pkg/conf.py")).unwrap();
    let answer = s.answer("pkg/conf.py", "TOKEN = 'abc'", "TOKEN = 'stolen'");
    let out = acr(&["apply", "--write"], &s.repo(), Some(&answer));
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("abc"), "the link's target must not be read: {stdout}");
    assert_eq!(std::fs::read_to_string(s.outside().join("secret.py")).unwrap(), "TOKEN = 'abc'\n");
}

/// A file hard-linked from outside: the repository's name gets the new text, the other name keeps the old.
#[test]
fn a_hard_link_from_outside_keeps_its_text() {
    let s = Scratch::new();
    std::fs::write(s.repo().join("pkg/m.py"), "def f():\n    return 1\n").unwrap();
    std::fs::hard_link(s.repo().join("pkg/m.py"), s.outside().join("shared.py")).unwrap();
    std::fs::set_permissions(s.repo().join("pkg/m.py"), std::fs::Permissions::from_mode(0o640)).unwrap();
    let answer = s.answer("pkg/m.py", "return 1", "return 2");
    let out = acr(&["apply", "--write"], &s.repo(), Some(&answer));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(s.repo().join("pkg/m.py")).unwrap(), "def f():\n    return 2\n");
    assert_eq!(std::fs::read_to_string(s.outside().join("shared.py")).unwrap(), "def f():\n    return 1\n");
    let mode = std::fs::metadata(s.repo().join("pkg/m.py")).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640, "permissions are kept");
    assert_eq!(listing(&s.repo().join("pkg")), ["m.py"], "no temporary file is left behind");
}

/// Regression (diff forging): a name holding newlines and diff headers is skipped at load time, with the reason.
#[test]
fn names_with_control_characters_are_skipped_and_listed() {
    let s = Scratch::new();
    let forged = "x\n--- a/setup.py\n+++ b/setup.py\n@@ -1 +1 @@\n.py";
    std::fs::create_dir_all(s.repo().join(forged).parent().unwrap()).unwrap();
    std::fs::write(s.repo().join(forged), "x = 1\n").unwrap();
    std::fs::write(s.repo().join("setup.py"), "x = 1\n").unwrap();
    let out = acr(&["index", "--json"], &s.repo(), None);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["files"], 1, "only setup.py is indexed");
    let skipped = &v["skipped"][0];
    assert_eq!(skipped["path"], forged);
    assert_eq!(skipped["reason"]["problem"], "control_character");
}

/// Regression: one unreadable entry made `acr index` (and every command) exit 2 and lose the whole index.
/// Root reads everything, so when the tests run as root the command runs as `nobody` through `setpriv`.
#[test]
fn unreadable_entries_and_fifos_are_skipped_not_fatal() {
    let s = Scratch::new();
    std::fs::write(s.repo().join("pkg/ok.py"), "def ok():\n    pass\n").unwrap();
    std::fs::write(s.repo().join("pkg/locked.py"), "def hidden():\n    pass\n").unwrap();
    std::fs::create_dir(s.repo().join("closed")).unwrap();
    std::fs::write(s.repo().join("closed/inner.py"), "x = 1\n").unwrap();
    let fifo = s.repo().join("pkg/pipe.py");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    for dir in [s.dir.path(), &s.repo(), &s.repo().join("pkg")] {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::set_permissions(s.repo().join("pkg/ok.py"), std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::set_permissions(s.repo().join("pkg/locked.py"), std::fs::Permissions::from_mode(0o000)).unwrap();
    std::fs::set_permissions(s.repo().join("closed"), std::fs::Permissions::from_mode(0o000)).unwrap();

    let as_root = Command::new("id").arg("-u").output().map(|o| o.stdout == b"0\n").unwrap_or(false);
    let mut cmd = if as_root {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", ACR]);
        c
    } else {
        Command::new(ACR)
    };
    let out = cmd.args(["index", "--json"]).arg(s.repo()).output().expect("acr runs");
    let _ = std::fs::set_permissions(s.repo().join("closed"), std::fs::Permissions::from_mode(0o755));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["files"], 1, "ok.py is indexed: {v}");
    let mut kinds: Vec<(String, String)> = v["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["path"].as_str().unwrap().to_string(), e["reason"]["kind"].as_str().unwrap().to_string()))
        .collect();
    kinds.sort();
    assert_eq!(
        kinds,
        [
            ("closed".to_string(), "unreadable".to_string()),
            ("pkg/locked.py".to_string(), "unreadable".to_string()),
            ("pkg/pipe.py".to_string(), "special_file".to_string()),
        ]
    );
}
