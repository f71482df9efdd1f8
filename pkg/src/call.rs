//! `parseCall(text)`: a search call written in Python syntax, read and checked by the same binder the agent uses.

use acr_core::call::SearchCall;
use wasm_bindgen::prelude::*;

use crate::PkgError;
use crate::input;
use crate::views::to_js;

/// Reads one call such as `search_method_in_class("write", class_name="RST")` and returns `{api, args, call}`:
/// the API, the arguments by parameter name, and the call written out. `repo.search(c.api, c.args)` runs it. Throws
/// `BAD_SEARCH` with the reason when the text is not a valid search call.
#[wasm_bindgen(js_name = parseCall, unchecked_return_type = "SearchCallInfo")]
pub fn parse_call(#[wasm_bindgen(unchecked_param_type = "string")] text: JsValue) -> Result<JsValue, PkgError> {
    let text = input::text(&text, "parseCall: text")?;
    to_js(&SearchCall::parse(&text)?)
}
