//! The runner's request decoding, short of running anything: the `POST /run` JSON body, its base64 zip snapshot,
//! the snapshot's paths and the patch applied in memory (every path it leaves must be safe to write).
#![no_main]

use acr_core::repo::{Limits, normalize_path};
use acr_runner::exec::{apply_patch, checked_files};
use acr_runner::snapshot::request_from_body;
use acr_runner::wire::RunBody;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(body) = serde_json::from_slice::<RunBody>(data) else { return };
    let limits = Limits { max_total_bytes: 64 << 20, ..Limits::default() };
    let Ok(request) = request_from_body(body, &limits) else { return };
    if let Ok(mut files) = checked_files(&request.files)
        && apply_patch(&mut files, &request.patch).is_ok()
    {
        for path in files.keys() {
            assert_eq!(normalize_path(path).as_deref(), Some(path.as_str()), "the patch made an unsafe path");
        }
    }
});
