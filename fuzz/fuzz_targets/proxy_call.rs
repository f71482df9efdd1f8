//! The parser for one Python call expression, and binding the call to the API table.
#![no_main]

use acr_core::call::{SearchCall, parse_call, parse_call_prefix};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = acr_fuzz::text(data);
    let parsed = parse_call(&text);
    if let Ok((_, end)) = parse_call_prefix(&text) {
        assert!(text.is_char_boundary(end), "a call prefix ends inside a character");
    }
    if let Ok(call) = SearchCall::parse(&text) {
        assert!(parsed.is_ok(), "a bound call whose syntax does not parse");
        // A checked call displays as Python syntax that reads back as the same call.
        let again = SearchCall::parse(&call.to_string());
        assert_eq!(again.as_ref(), Ok(&call), "`{call}` does not read back");
    }
});
