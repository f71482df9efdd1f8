//! `applyEdits(repo, answer)`: a model's answer to a patch, in any edit format (`<file>/<original>/<patched>` tags,
//! SEARCH/REPLACE blocks, a unified diff, whole definitions, whole files; the result's `formats` says which; the
//! `format` option names the one the model was asked for, read first), and
//! `checkSyntax(source)`: the syntax gate on one Python source.

use acr_core::gate;
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

/// Checks that a Python source parses (tree-sitter plus CPython's indentation rules) and returns the first
/// problem's 1-based line and column.
#[wasm_bindgen(js_name = checkSyntax, unchecked_return_type = "SyntaxCheck")]
pub fn check_syntax(#[wasm_bindgen(unchecked_param_type = "string")] source: JsValue) -> Result<JsValue, PkgError> {
    let source = input::text(&source, "checkSyntax: source")?;
    to_js(&SyntaxView::from(gate::check(&source)))
}
