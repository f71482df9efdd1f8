//! The proxy's reader and validator on arbitrary model answers (prose or JSON), and the retry prompt that words
//! the problems.
#![no_main]

use acr_core::prompt::Prompt;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let answer = acr_fuzz::text(data);
    let read = acr_core::answers::search::read(&answer);
    let (_, index) = acr_fuzz::sample();
    let validated = acr_core::proxy::validate(&read.result, Some(index));
    let _ = acr_core::proxy::trusted(&read, 0);
    if !validated.problems.is_empty() {
        let _ = Prompt::ProxyRetry { problems: &validated.problems }.messages();
    }
});
