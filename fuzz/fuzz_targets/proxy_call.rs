//! The proxy's parser for Python call syntax, and validation against the API table.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = acr_fuzz::text(data);
    let _ = acr_core::proxy::parse_call(&text);
    if let Ok(call) = acr_core::proxy::parse_api_call(&text) {
        let _ = call.arg("class_name");
    }
});
