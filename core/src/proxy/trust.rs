//! When the deterministic reading of a search answer stands, and when the proxy model must rewrite it.
//!
//! The proxy model costs a model call per round; the deterministic reader ([`crate::answers::search::read`]) costs
//! nothing, but must never act where the proxy model would have acted differently. So a reading is trusted only when
//! it is complete (nothing call-like was skipped, no API name was unknown, every line of the locations section was
//! placed) and:
//!
//! | source | trusted when |
//! |---|---|
//! | a JSON object | always (it is what the proxy model would write) |
//! | calls in prose | round 1 (calls are what was asked), or later when they are asked for: after a "need more context" heading, or in an answer that names no bug location |
//! | labelled locations in prose | always (the reader is strict) |
//! | nothing | after round 1, when the answer plainly names no code at all (no names, paths or calls): the proxy model would find nothing either |
//!
//! Measured against AutoCodeRover's recorded proxy rounds in `core/tests/replay_proxy_rounds.rs`.

use crate::answers::{SearchAnswer, Source};

/// Whether the deterministic reading of an answer at search round `round` (1-based) can be acted on without the
/// proxy model. (The calls and locations must also validate; a trusted [`Source::Nothing`] means "unusable".)
pub fn trusted(answer: &SearchAnswer, round: usize) -> bool {
    if !answer.complete {
        return false;
    }
    match answer.source {
        Source::Json | Source::ProseLocations => true,
        Source::ProseCalls => round == 1 || answer.calls_requested,
        Source::Nothing => round > 1,
    }
}
