//! # acr-wasm
//!
//! The npm face of `acr-core`: a repository in memory, its structural index, the nine search APIs, bug-location
//! resolution, patch application from a model's answer and the syntax gate, exported to JavaScript with
//! wasm-bindgen. Values cross the boundary as plain objects (serde-wasm-bindgen, camelCase keys); every failure
//! becomes a thrown JavaScript `Error` in one place ([`error`]).
//!
//! | module | what it exports |
//! |---|---|
//! | [`repo`] | the `Repo` class: `fromFiles`, `fromZip`, `addFile`, `index`, `search` and one method per API, `locate` |
//! | [`edits`] | `applyEdits(repo, answer)` and `checkSyntax(source)` |
//! | [`call`] | `parseCall(text)`: a search call in Python syntax, checked |
//! | [`views`] | the shapes of returned objects, and their TypeScript declarations |
//! | [`input`] | reading JavaScript arguments (file maps, bytes, options) with clear complaints |
//! | [`error`] | [`error::PkgError`] and its conversion to a JavaScript `Error` |
#![deny(missing_docs)]

pub mod call;
pub mod edits;
pub mod error;
pub mod input;
pub mod repo;
pub mod views;

pub use error::PkgError;
pub use repo::Repo;

/// Makes the WebAssembly instance trap, exactly as running out of memory does. It exists so that the package's
/// tests can check recovery (`__testing.trap()` in `index.js`); it is not part of the API.
#[cfg(target_arch = "wasm32")]
#[doc(hidden)]
#[wasm_bindgen::prelude::wasm_bindgen(js_name = __trapForTests)]
pub fn trap_for_tests() {
    core::arch::wasm32::unreachable()
}
