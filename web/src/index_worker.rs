//! The indexing worker's side: the export `web/js/index-worker.mjs` calls in a Web Worker running this same module.

use acr_core::index::{IndexBuilder, ParsedFile, encode_parsed};
use wasm_bindgen::prelude::*;

/// Parses Python files (paths and texts in the same order) and returns them in [`encode_parsed`]'s binary form,
/// for the page to enter into its index ([`crate::index_pool`]).
#[wasm_bindgen]
pub fn parse_sources(paths: Vec<String>, texts: Vec<String>) -> Result<Vec<u8>, JsError> {
    if paths.len() != texts.len() {
        return Err(JsError::new("parse_sources needs one text per path"));
    }
    let mut builder = IndexBuilder::new();
    let parsed: Vec<ParsedFile> = paths.iter().zip(&texts).map(|(p, t)| builder.parse(p, t)).collect();
    Ok(encode_parsed(&parsed))
}
