//! Shared by the CLI's end-to-end tests: the `acr` binary and `acr serve-model` on a free port.
// Each test binary uses a different part of these helpers.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

pub const ACR: &str = env!("CARGO_BIN_EXE_acr");

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace root").to_path_buf()
}

/// `acr serve-model` on a free port, killed on drop.
pub struct ModelServer {
    child: Child,
    pub url: String,
}

impl ModelServer {
    pub fn start(script: &str) -> ModelServer {
        let mut child = Command::new(ACR)
            .args(["serve-model", "--script"])
            .arg(root().join("tests/fixtures/scripts").join(script))
            .stdout(Stdio::piped())
            .spawn()
            .expect("acr serve-model starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut line).expect("banner");
        let url = line.trim().strip_prefix("model server: ").expect("banner names the URL").to_string();
        ModelServer { child, url }
    }
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
