//! The chat-completions response parser: any status, any body; and the same body as a streamed answer, cut into
//! pieces of a size the input chooses.
#![no_main]

use acr_core::llm::openai::{HttpResponse, parse_response};
use acr_core::llm::stream::StreamReader;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (status, body) = match data {
        [hi, lo, rest @ ..] => (u16::from_be_bytes([*hi, *lo]), rest),
        _ => (200, data),
    };
    let response = HttpResponse { status, body: acr_fuzz::text(body), retry_after: None };
    let _ = parse_response(&response);
    let piece = usize::from(status % 64) + 1;
    let mut reader = StreamReader::new();
    for chunk in body.chunks(piece) {
        if reader.push(chunk).is_err() {
            break;
        }
        let _ = reader.partial();
    }
    let _ = reader.finish();
});
