//! A reader that stops reading (`acr index DIR | head -1`): every printing command ends quietly, with status 0, and
//! no panic about a broken pipe.

use std::process::{Command, Stdio};

const ACR: &str = env!("CARGO_BIN_EXE_acr");

/// Runs `acr args...` with standard output on a pipe whose reading end is closed before it starts.
fn run_into_closed_pipe(args: &[&str]) -> (Option<i32>, String) {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let out = Command::new(ACR).args(args).stdout(Stdio::from(writer)).stderr(Stdio::piped()).output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn printing_into_a_closed_pipe_ends_quietly() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("m.py"), "class A:\n    def f(self):\n        return 1\n").unwrap();
    let root = dir.path().to_str().unwrap();
    let file = dir.path().join("m.py");
    let cases: [&[&str]; 4] = [
        &["index", root],
        &["index", "--json", root],
        &["search", root, "search_class(\"A\")"],
        &["check", file.to_str().unwrap()],
    ];
    for args in cases {
        let (code, stderr) = run_into_closed_pipe(args);
        assert_eq!(code, Some(0), "acr {args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "acr {args:?}: {stderr}");
    }
}
