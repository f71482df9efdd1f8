//! Locate requests: the proxy's JSON answer (validated, then each location resolved), or a bare file / class /
//! method triple, against a small indexed repository.
#![no_main]

use acr_core::locate::{Query, resolve};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (repo, index) = acr_fuzz::sample();
    if data.contains(&0) {
        let parts = acr_fuzz::fields(data, 3);
        let field = |i: usize| parts.get(i).map(String::as_str).filter(|s| !s.is_empty());
        let query = Query::new(field(0), field(1), field(2));
        let _ = resolve(index, repo, &query, "").report(true);
        return;
    }
    let answer = acr_fuzz::text(data);
    let read = acr_core::answers::search::read(&answer);
    let validated = acr_core::proxy::validate(&read.result, Some(index));
    for location in &validated.locations {
        let _ = resolve(index, repo, &location.query, &location.intended_behavior).report(true);
    }
});
