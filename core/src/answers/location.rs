//! A bug location as an answer states it (file, class, method, what should change), and what a name in it means:
//! read by the prose reader and the JSON reader alike.

use serde::Serialize;

use crate::language::Language;
use crate::locate::Query;

/// A bug location as the answer states it; empty fields are `None`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct LocationSpec {
    /// File path or name.
    pub file: Option<String>,
    /// Class name.
    pub class: Option<String>,
    /// Method or function name (possibly written as `Class.method`).
    pub method: Option<String>,
    /// What the code should do instead.
    pub intended_behavior: String,
}

impl LocationSpec {
    /// The cleaned query for [`crate::locate::resolve`] (placeholders dropped, `Class.method` split). A class or
    /// method written as a path (`core.py`, `pkg/core`) names the file, never class `core` and method `py`: it
    /// becomes the file when none is given, and is dropped when one is.
    pub fn query(&self) -> Query {
        fn path(v: &Option<String>) -> Option<&str> {
            v.as_deref().filter(|v| is_path(v.trim().trim_matches(['`', '"', '\''])))
        }
        let (class_path, method_path) = (path(&self.class), path(&self.method));
        let file = self.file.as_deref().or(class_path).or(method_path);
        let class = if class_path.is_some() { None } else { self.class.as_deref() };
        let method = if method_path.is_some() { None } else { self.method.as_deref() };
        Query::new(file, class, method)
    }
}

/// Whether a name is a file path: it has a folder, or ends with the extension of a language the index reads
/// (`core.py` is a file, never class `core` and method `py`).
pub(crate) fn is_path(name: &str) -> bool {
    let name = name.trim();
    name.contains('/') || Language::of_path(name).is_some()
}
