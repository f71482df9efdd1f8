//! The chat-completions response parser: any status, any body.
#![no_main]

use acr_core::llm::openai::{HttpResponse, parse_response};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (status, body) = match data {
        [hi, lo, rest @ ..] => (u16::from_be_bytes([*hi, *lo]), rest),
        _ => (200, data),
    };
    let response = HttpResponse { status, body: acr_fuzz::text(body), retry_after: None };
    let _ = parse_response(&response);
});
