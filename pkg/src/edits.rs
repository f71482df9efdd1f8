//! `applyEdits(repo, answer)`: a model's answer to a patch, in any edit format (`<file>/<original>/<patched>` tags,
//! SEARCH/REPLACE blocks, a unified diff, whole definitions, whole files; the result's `formats` says which; the
//! `format` option names the one the model was asked for, read first), and
//! `checkSyntax(source, {path})`: the syntax gate on one source, of the language `path`'s extension names (Python
//! when no path is given).

use acr_core::language::Language;
use acr_core::patch::{self, BugLine, EditFormat, ExtractOptions};
use serde::Deserialize;
use wasm_bindgen::prelude::*;

use crate::input;
use crate::views::{ExtractionView, SyntaxView, to_js};
use crate::{PkgError, Repo};

/// Options of `applyEdits`, as JavaScript passes them.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ApplyInput {
    #[serde(default)]
    bug_lines: Vec<BugLineInput>,
    #[serde(default = "refuse_by_default")]
    refuse_ambiguous: bool,
    #[serde(default)]
    format: Option<EditFormat>,
}

fn refuse_by_default() -> bool {
    true
}

impl Default for ApplyInput {
    fn default() -> Self {
        ApplyInput { bug_lines: Vec::new(), refuse_ambiguous: refuse_by_default(), format: None }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BugLineInput {
    file: String,
    line: u32,
    #[serde(default)]
    end: Option<u32>,
}

/// Applies the edits of a model's answer to the repository's files in memory (the repository is not changed)
/// and returns the verdict, the unified diff, each edit's fate and the new text of every changed file.
#[wasm_bindgen(js_name = applyEdits, unchecked_return_type = "ApplyResult")]
pub fn apply_edits(
    repo: &Repo,
    #[wasm_bindgen(unchecked_param_type = "string")] answer: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "ApplyOptions")] options: JsValue,
) -> Result<JsValue, PkgError> {
    let answer = input::text(&answer, "applyEdits: answer")?;
    let opts: ApplyInput = input::options(&options, "applyEdits: options")?;
    let options = ExtractOptions {
        bug_lines: opts.bug_lines.into_iter().map(|b| BugLine { file: b.file, line: b.line, end: b.end }).collect(),
        refuse_ambiguous: opts.refuse_ambiguous,
        asked: opts.format,
    };
    let extraction = repo.with_core(|core| patch::extract(core, &answer, &options));
    to_js(&ExtractionView::from(&extraction))
}

/// Options of `checkSyntax`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckInput {
    /// The file the source is for: its extension names the language (Python when absent).
    #[serde(default)]
    path: Option<String>,
}

/// Checks that a source parses as the compiler of its language would parse it (CPython 3.12, javac, V8 or the
/// `typescript` package, by the extension of `options.path`; Python without one) and returns the first problem's
/// 1-based line and column. A path of no known language is refused, naming the extensions this build checks.
#[wasm_bindgen(js_name = checkSyntax, unchecked_return_type = "SyntaxCheck")]
pub fn check_syntax(
    #[wasm_bindgen(unchecked_param_type = "string")] source: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "CheckOptions")] options: JsValue,
) -> Result<JsValue, PkgError> {
    let source = input::text(&source, "checkSyntax: source")?;
    let opts: CheckInput = input::options(&options, "checkSyntax: options")?;
    let language = match &opts.path {
        None => Language::Python,
        Some(path) => Language::of_path(path).ok_or_else(|| {
            let known: Vec<String> =
                Language::ALL.iter().flat_map(|l| l.extensions()).map(|e| format!(".{e}")).collect();
            PkgError::BadInput(format!(
                "checkSyntax: `{path}` is of no language this build checks (its extensions: {})",
                known.join(" ")
            ))
        })?,
    };
    to_js(&SyntaxView::from(language.row().syntax.check(&source)))
}
