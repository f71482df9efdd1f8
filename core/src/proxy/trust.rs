//! When the deterministic reading of a search answer stands, and when the proxy model must rewrite it.
//!
//! The proxy model costs a model call per round; the deterministic reader ([`crate::answers::search::read`]) costs
//! nothing, but must never act where the proxy model would have acted differently. So a reading is trusted only when
//! it is complete and unambiguous (nothing call-like was skipped, no API name was unknown, every line of the
//! locations section was placed and every place it names is in the reading, no `init` that may be `__init__`, no
//! request for more context in words; see [`SearchAnswer::complete`]) and:
//!
//! | source | trusted when |
//! |---|---|
//! | a JSON object | always (it is what the proxy model would write) |
//! | calls in prose | round 1 (calls are what was asked), or later when they are asked for: after a "need more context" heading, or in an answer that names no bug location; and no code argument is wrapped in quotes (`search_code("'use'")`: the literal or the bare text? the proxy model may take either) |
//! | labelled locations in prose | the reading is complete (every file, class and method the locations section names is in it, and the answer asks for nothing more) and the index confirms every location ([`Names::confirms`]): see [`stands`] |
//! | nothing | after round 1, when the answer plainly names no code at all (no names, paths or calls): the proxy model would find nothing either |
//!
//! Measured against AutoCodeRover's recorded proxy rounds in `core/tests/replay_proxy_rounds.rs`.

use super::Names;
use super::validate::Validated;
use crate::answers::{SearchAnswer, Source};
use crate::api::ParamKind;
use crate::call::SearchCall;

/// Whether the deterministic reading of an answer at search round `round` (1-based) can be acted on without the
/// proxy model. (The calls and locations must also validate; a trusted [`Source::Nothing`] means "unusable".)
pub fn trusted(answer: &SearchAnswer, round: usize) -> bool {
    if !answer.complete {
        return false;
    }
    match answer.source {
        Source::Json | Source::ProseLocations => true,
        Source::ProseCalls => (round == 1 || answer.calls_requested) && !quoted_code(answer),
        Source::Nothing => round > 1,
    }
}

/// Whether a call's code argument is itself wrapped in quotes or backticks (`search_code("'use'")`): the text to
/// look for may be the string literal or the bare text, and the proxy model may take either.
fn quoted_code(answer: &SearchAnswer) -> bool {
    answer.result.api_calls.iter().filter_map(|text| SearchCall::parse(text).ok()).any(|call| {
        call.values().iter().zip(call.spec().params).any(|(value, param)| {
            let text = value.to_string();
            let t = text.trim();
            param.kind == ParamKind::Code
                && t.len() >= 2
                && ['\'', '"', '`', '\u{2018}', '\u{201c}'].iter().any(|&q| t.starts_with(q))
                && ['\'', '"', '`', '\u{2019}', '\u{201d}'].iter().any(|&q| t.ends_with(q))
        })
    })
}

/// Whether the agent acts on the deterministic reading of an answer without the proxy model: the reading is
/// [`trusted`], what it found validates (`direct`, [`super::validate()`] of it; a trusted [`Source::Nothing`] means
/// "unusable"), and bug locations read from prose are each confirmed by the index (`names`): every file, class and
/// method exists, in one place. Without an index, locations read from prose are not acted on.
pub fn stands(answer: &SearchAnswer, round: usize, direct: &Validated, names: Option<&dyn Names>) -> bool {
    if !trusted(answer, round) || !(direct.is_valid() || answer.source == Source::Nothing) {
        return false;
    }
    match answer.source {
        Source::ProseLocations => names.is_some_and(|n| direct.locations.iter().all(|l| n.confirms(&l.query))),
        Source::Json | Source::ProseCalls | Source::Nothing => true,
    }
}
