//! Every failure the package reports, and its conversion to a JavaScript `Error`.
//!
//! Exported functions return `Result<_, PkgError>`; wasm-bindgen turns the `Err` into a thrown value through the
//! single `From<PkgError> for JsValue` below. The thrown value is a real `Error` (so `instanceof Error` holds and
//! stack traces work) named `AcrError`, with a `code` property for programs and a message for people.

use std::fmt;

use acr_core::call::CallError;
use acr_core::repo::{RepoError, SkippedFile};
use wasm_bindgen::JsValue;

/// Files named in a refusal message before the rest are only counted.
const NAMED_REFUSALS: usize = 5;

/// Why a call failed.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum PkgError {
    /// The bytes given to `Repo.fromZip` are not a readable zip archive.
    Archive(RepoError),
    /// `Repo.fromFiles` or `addFile` was given files it cannot keep (binary, not UTF-8, too large, unsafe path).
    Refused(Vec<SkippedFile>),
    /// An argument has the wrong type or shape; the text names the argument and what was expected.
    BadInput(String),
    /// A search call names no API, or its arguments do not fit the API.
    Search(CallError),
    /// A result could not be converted to a JavaScript value.
    Convert(String),
}

impl PkgError {
    /// A stable identifier for programs, set as the error's `code` property.
    pub fn code(&self) -> &'static str {
        match self {
            PkgError::Archive(_) => "BAD_ARCHIVE",
            PkgError::Refused(_) => "REFUSED_FILES",
            PkgError::BadInput(_) => "BAD_INPUT",
            PkgError::Search(_) => "BAD_SEARCH",
            PkgError::Convert(_) => "CONVERSION",
        }
    }
}

impl fmt::Display for PkgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PkgError::Archive(e) => write!(f, "{e}"),
            PkgError::Refused(files) => {
                let noun = if files.len() == 1 { "file" } else { "files" };
                write!(f, "{} {noun} refused: ", files.len())?;
                for (i, s) in files.iter().take(NAMED_REFUSALS).enumerate() {
                    let sep = if i == 0 { "" } else { "; " };
                    write!(f, "{sep}{} ({})", s.path, s.reason)?;
                }
                if files.len() > NAMED_REFUSALS {
                    write!(f, "; and {} more", files.len() - NAMED_REFUSALS)?;
                }
                Ok(())
            }
            PkgError::BadInput(m) => f.write_str(m),
            PkgError::Search(e) => write!(f, "{e}"),
            PkgError::Convert(m) => write!(f, "cannot convert a result to JavaScript: {m}"),
        }
    }
}

impl std::error::Error for PkgError {}

impl From<CallError> for PkgError {
    fn from(e: CallError) -> Self {
        PkgError::Search(e)
    }
}

impl From<RepoError> for PkgError {
    fn from(e: RepoError) -> Self {
        PkgError::Archive(e)
    }
}

/// The one conversion of a failure into what JavaScript sees: `Error { name: "AcrError", code, message }`.
impl From<PkgError> for JsValue {
    fn from(e: PkgError) -> JsValue {
        let err = js_sys::Error::new(&e.to_string());
        err.set_name("AcrError");
        // Setting a property on a fresh Error object cannot fail; if it somehow did, the message still stands.
        let _ = js_sys::Reflect::set(&err, &JsValue::from_str("code"), &JsValue::from_str(e.code()));
        err.into()
    }
}
