//! Search arguments: an API name and JSON arguments, checked and run against a small indexed repository.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = acr_fuzz::text(data);
    let (api, args) = text.split_once('\n').unwrap_or((text.as_str(), "{}"));
    let Ok(args) = serde_json::from_str::<serde_json::Value>(args) else { return };
    let _ = acr_core::call::SearchCall::from_json(api, &args);
    let (repo, index) = acr_fuzz::sample();
    let _ = acr_core::search::search(index, repo, api, &args);
});
