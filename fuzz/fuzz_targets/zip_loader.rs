//! `Repo::from_zip` on arbitrary bytes: an error or a repository of safe paths, never a panic; then the index.
#![no_main]

use acr_core::repo::{Limits, Repo, normalize_path};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(repo) = Repo::from_zip(data, &Limits::default()) {
        for (path, _) in repo.files() {
            assert_eq!(normalize_path(path).as_deref(), Some(path), "an unsafe path was kept");
        }
        let _ = acr_core::Index::build(&repo);
    }
});
