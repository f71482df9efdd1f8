//! A task's own copy of its repository at the base commit, in a scratch folder removed afterwards.
//!
//! `git clone --shared --no-checkout` makes a clone that borrows the source's objects (nothing is copied, and the
//! source, a clone or a bare mirror, is only read), then `git checkout --detach` writes the base commit's files.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::Context;

/// A checkout in a scratch folder, removed on drop.
pub struct Checkout {
    pub dir: PathBuf,
}

impl Drop for Checkout {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Checks out `commit` of the repository `source` into `dir` (anything already there is removed first).
pub fn checkout(source: &Path, commit: &str, dir: &Path) -> anyhow::Result<Checkout> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).with_context(|| format!("cannot remove {}", dir.display()))?;
    }
    if let Some(parent) = dir.parent() {
        std::fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
    }
    let checkout = Checkout { dir: dir.to_path_buf() };
    git(
        None,
        &[
            "clone".as_ref(),
            "--quiet".as_ref(),
            "--shared".as_ref(),
            "--no-checkout".as_ref(),
            "--".as_ref(),
            source.as_os_str(),
            dir.as_os_str(),
        ],
    )
    .with_context(|| format!("cannot clone {}", source.display()))?;
    git(
        Some(dir),
        &["-c", "advice.detachedHead=false", "checkout", "--quiet", "--detach", commit, "--"].map(AsRef::as_ref),
    )
    .with_context(|| format!("cannot check out {commit} of {}", source.display()))?;
    Ok(checkout)
}

/// Runs git (in `dir`), its error output as the error.
fn git(dir: Option<&Path>, args: &[&std::ffi::OsStr]) -> anyhow::Result<()> {
    let mut command = Command::new("git");
    if let Some(dir) = dir {
        command.arg("-C").arg(dir);
    }
    let output = command
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(Stdio::null())
        .output()
        .context("cannot run git (is it installed?)")?;
    anyhow::ensure!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr).trim());
    Ok(())
}
