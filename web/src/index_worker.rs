//! The indexing worker's side: the export `web/js/index-worker.mjs` calls in a Web Worker running this same module.

use acr_core::index::{IndexBuilder, ParsedFile};
use wasm_bindgen::prelude::*;

/// Parses Python files (paths and texts in the same order) and returns them as a JSON list of
/// [`ParsedFile`]s, for the page to enter into its index ([`crate::index_pool`]).
#[wasm_bindgen]
pub fn parse_sources(paths: Vec<String>, texts: Vec<String>) -> Result<String, JsError> {
    if paths.len() != texts.len() {
        return Err(JsError::new("parse_sources needs one text per path"));
    }
    let mut builder = IndexBuilder::new();
    let parsed: Vec<ParsedFile> = paths.iter().zip(&texts).map(|(p, t)| builder.parse(p, t)).collect();
    serde_json::to_string(&parsed).map_err(|e| JsError::new(&e.to_string()))
}
