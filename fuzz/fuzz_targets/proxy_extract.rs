//! The proxy's deterministic extractor and validator on arbitrary model answers (prose or JSON).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let answer = acr_fuzz::text(data);
    let extracted = acr_core::proxy::extract(&answer);
    let validated = acr_core::proxy::validate(&extracted.result);
    let _ = validated.retry_message();
});
