//! The shapes of the plain objects the package returns, with camelCase keys, and their TypeScript declarations.
//!
//! Each view is built from a core value and serialized with serde-wasm-bindgen's JSON-compatible serializer, so
//! absent values are `null` and maps are plain objects. String values that name a kind of thing (skip reasons,
//! tiers, edit outcomes) use the core's snake_case spelling; extraction statuses keep AutoCodeRover's
//! `APPLICABLE_PATCH` spelling. The TypeScript text below is emitted into the generated `.d.ts`; keep the two in
//! step (the Node tests type-check a program that uses every field).

use std::collections::BTreeMap;

use acr_core::IndexStats;
use acr_core::api::ApiSpec;
use acr_core::gate::SyntaxProblem;
use acr_core::locate::{BugLocation, ContextKind, Outcome as TierOutcome, Resolution};
use acr_core::patch::{EditReport, Extraction, Outcome as EditOutcome};
use acr_core::repo::SkippedFile;
use serde::Serialize;
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;

use crate::PkgError;
use crate::input::camel_case;

/// Converts a view to a plain JavaScript value (objects for maps, `null` for absent values).
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, PkgError> {
    value.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).map_err(|e| PkgError::Convert(e.to_string()))
}

/// The value of a serde tag field (`kind`, `status`) of a core enum, e.g. `not_utf8`.
fn tag_of<T: Serialize>(value: &T, field: &str) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.get(field).and_then(|k| k.as_str()).map(str::to_string))
        .unwrap_or_default()
}

/// The name of a unit-variant enum as the core serializes it (`method_in_class`).
fn name_of<T: Serialize>(value: &T) -> String {
    serde_json::to_value(value).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

/// `repo.index()`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatsView {
    files: usize,
    parsed: usize,
    with_errors: usize,
    classes: usize,
    methods: usize,
    functions: usize,
    bytes: usize,
    skipped: usize,
    /// Files per language, by the language's name.
    languages: BTreeMap<&'static str, usize>,
}

impl StatsView {
    /// The index's counts, its files per language and the number of files left out of the repository.
    pub fn new(s: &IndexStats, languages: &[(&'static str, usize)], skipped: usize) -> Self {
        StatsView {
            files: s.files,
            parsed: s.parsed,
            with_errors: s.with_errors,
            classes: s.classes,
            methods: s.methods,
            functions: s.functions,
            bytes: s.bytes,
            skipped,
            languages: languages.iter().copied().collect(),
        }
    }
}

/// An entry of `repo.skipped()`.
#[derive(Debug, Serialize)]
pub struct SkippedView {
    path: String,
    reason: String,
    message: String,
}

impl From<&SkippedFile> for SkippedView {
    fn from(s: &SkippedFile) -> Self {
        SkippedView { path: s.path.clone(), reason: tag_of(&s.reason, "kind"), message: s.reason.to_string() }
    }
}

/// An entry of `apis()`.
#[derive(Debug, Serialize)]
pub struct ApiView {
    name: &'static str,
    method: String,
    params: Vec<&'static str>,
    summary: &'static str,
}

impl From<&ApiSpec> for ApiView {
    fn from(a: &ApiSpec) -> Self {
        ApiView { name: a.name, method: camel_case(a.name), params: a.param_names().collect(), summary: a.summary }
    }
}

/// A piece of code in a `repo.locate()` result.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct LocationView {
    file: String,
    class: Option<String>,
    method: Option<String>,
    start: u32,
    end: u32,
    code: String,
    intended_behavior: String,
}

impl From<&BugLocation> for LocationView {
    fn from(l: &BugLocation) -> Self {
        LocationView {
            file: l.file.clone(),
            class: l.class.clone(),
            method: l.method.clone(),
            start: l.start,
            end: l.end,
            code: l.code.clone(),
            intended_behavior: l.intended_behavior.clone(),
        }
    }
}

#[derive(Debug, Serialize)]
struct QueryView {
    file: Option<String>,
    class: Option<String>,
    method: Option<String>,
    notes: Vec<String>,
}

#[derive(Debug, Serialize)]
struct AttemptView {
    tier: String,
    status: String,
    reason: Option<String>,
    count: Option<usize>,
    detail: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ContextView {
    kind: String,
    ancestor: Option<String>,
    depth: Option<usize>,
    for_location: usize,
    location: LocationView,
}

/// `repo.locate()`.
#[derive(Debug, Serialize)]
pub struct ResolutionView {
    found: bool,
    tier: Option<String>,
    message: Option<String>,
    query: QueryView,
    attempts: Vec<AttemptView>,
    locations: Vec<LocationView>,
    context: Vec<ContextView>,
}

impl From<&Resolution> for ResolutionView {
    fn from(r: &Resolution) -> Self {
        let attempts = r
            .attempts
            .iter()
            .map(|a| {
                let (reason, count, detail) = match &a.outcome {
                    TierOutcome::Missed { reason } => (Some(reason.clone()), None, None),
                    TierOutcome::Found { count, detail } => (None, Some(*count), detail.clone()),
                    TierOutcome::Skipped | TierOutcome::NotReached => (None, None, None),
                };
                AttemptView { tier: name_of(&a.tier), status: tag_of(&a.outcome, "status"), reason, count, detail }
            })
            .collect();
        let context = r
            .context
            .iter()
            .map(|c| {
                let (ancestor, depth) = match &c.kind {
                    ContextKind::AncestorMethod { class, depth } => (Some(class.clone()), Some(*depth)),
                    ContextKind::EnclosingClass => (None, None),
                };
                ContextView {
                    kind: tag_of(&c.kind, "kind"),
                    ancestor,
                    depth,
                    for_location: c.for_location,
                    location: (&c.location).into(),
                }
            })
            .collect();
        ResolutionView {
            found: r.found(),
            tier: r.tier.as_ref().map(name_of),
            message: r.not_found_message(),
            query: QueryView {
                file: r.query.file.clone(),
                class: r.query.class.clone(),
                method: r.query.method.clone(),
                notes: r.query.notes.clone(),
            },
            attempts,
            locations: r.locations.iter().map(LocationView::from).collect(),
            context,
        }
    }
}

/// One edit of an `applyEdits()` result.
#[derive(Debug, Serialize)]
struct EditView {
    index: usize,
    file: String,
    path: Option<String>,
    outcome: &'static str,
    format: &'static str,
    message: String,
    start: Option<u32>,
    end: Option<u32>,
    changed: Option<bool>,
    indent: Option<String>,
    failure: Option<String>,
    candidates: Option<Vec<CandidateView>>,
}

/// One place an ambiguous original matches.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct CandidateView {
    line: u32,
    end_line: u32,
    enclosing: Option<String>,
}

impl From<&EditReport> for EditView {
    fn from(e: &EditReport) -> Self {
        let mut view = EditView {
            index: e.index,
            file: e.file.clone(),
            path: e.path.clone(),
            outcome: "applied",
            format: e.format.name(),
            message: e.message(),
            start: None,
            end: None,
            changed: None,
            indent: None,
            failure: None,
            candidates: None,
        };
        match &e.outcome {
            EditOutcome::Applied(a) => {
                view.start = Some(a.start);
                view.end = Some(a.end);
                view.changed = Some(a.changed);
                view.indent = Some(name_of(&a.indent));
            }
            EditOutcome::Failed { failure } => {
                view.outcome = "failed";
                view.failure = Some(failure.kind().to_string());
                if !failure.candidates().is_empty() {
                    let places = failure.candidates().iter().map(|c| CandidateView {
                        line: c.line,
                        end_line: c.end_line,
                        enclosing: c.enclosing.clone(),
                    });
                    view.candidates = Some(places.collect());
                }
            }
            EditOutcome::Dropped { reason } => {
                view.outcome = "dropped";
                view.failure = Some(name_of(reason));
            }
        }
        view
    }
}

/// `applyEdits()`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExtractionView {
    status: String,
    applicable: bool,
    reason: String,
    diff: String,
    formats: Vec<&'static str>,
    edits: Vec<EditView>,
    files: BTreeMap<String, String>,
}

impl From<&Extraction> for ExtractionView {
    fn from(x: &Extraction) -> Self {
        ExtractionView {
            status: x.status.as_str().to_string(),
            applicable: x.status.is_applicable(),
            reason: x.reason.clone(),
            diff: x.diff.clone(),
            formats: x.formats.iter().map(|f| f.name()).collect(),
            edits: x.edits.iter().map(EditView::from).collect(),
            files: x.files.clone(),
        }
    }
}

/// `checkSyntax()`.
#[derive(Debug, Serialize)]
pub struct SyntaxView {
    ok: bool,
    line: Option<u32>,
    column: Option<u32>,
    message: Option<String>,
    kind: Option<String>,
}

impl From<Result<(), SyntaxProblem>> for SyntaxView {
    fn from(r: Result<(), SyntaxProblem>) -> Self {
        match r {
            Ok(()) => SyntaxView { ok: true, line: None, column: None, message: None, kind: None },
            Err(p) => SyntaxView {
                ok: false,
                line: Some(p.line),
                column: Some(p.column),
                message: Some(p.to_string()),
                kind: Some(name_of(&p.kind)),
            },
        }
    }
}

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
/** Counts returned by `repo.index()`. */
export interface IndexStats {
  /** Non-test source files indexed (`.py`, `.java`, `.js` `.mjs` `.cjs` `.jsx`, `.ts` `.mts` `.cts`, `.tsx`). */
  files: number;
  /** Files that parsed without a syntax error. */
  parsed: number;
  /** Files with at least one syntax error (what tree-sitter recovered is still indexed). */
  withErrors: number;
  classes: number;
  methods: number;
  /** Functions outside any class. */
  functions: number;
  /** Bytes of source indexed. */
  bytes: number;
  /** Files left out of the repository (see `repo.skipped()`). */
  skipped: number;
  /** Files indexed per language, by name: `{ Python: 3 }`, `{ Java: 9, Python: 1 }`. */
  languages: Record<string, number>;
}

/** Why a file was left out. */
export type SkipReasonKind =
  | "binary" | "not_utf8" | "too_large" | "unsafe_path" | "duplicate" | "symlink" | "special_file"
  | "budget_exhausted" | "unreadable";

/** A file left out of a repository, with the reason. */
export interface SkippedFile {
  path: string;
  reason: SkipReasonKind;
  /** The reason in words, e.g. "5000000 bytes, over the 4194304-byte limit". */
  message: string;
}

/** Size caps for loading; every field is optional. */
export interface LoadOptions {
  /** Largest single file kept, in bytes (default 4 MiB). */
  maxFileBytes?: number;
  /** Largest total of uncompressed bytes read from a zip (default 1 GiB). */
  maxTotalBytes?: number;
  /** Most entries read from a zip (default 200000). */
  maxEntries?: number;
}

/** File contents: text, or bytes that must be UTF-8. */
export type FileContents = string | Uint8Array;

/** The nine search APIs, by the name the model writes. */
export type ApiName =
  | "search_class" | "search_class_in_file" | "search_method" | "search_method_in_file"
  | "search_method_in_class" | "search_code" | "search_code_in_file" | "get_code_around_line"
  | "get_class_full_snippet";

/** A search API: its name, the camelCase `Repo` method that runs it, its parameters and what it does. */
export interface ApiInfo {
  name: ApiName;
  method: string;
  params: string[];
  summary: string;
}

/** A search call read by `parseCall()`: the API, its arguments by parameter name, and the call written out. */
export interface SearchCallInfo {
  api: ApiName;
  args: Record<string, string | number>;
  call: string;
}

/** A code unit found by a search. Lines are 1-based and inclusive. */
export interface SearchHit {
  file: string;
  start: number;
  end: number;
  class: string | null;
  func: string | null;
}

/** The answer to a search call. */
export interface SearchOutput {
  /** What the model reads, in AutoCodeRover's format. */
  text: string;
  /** Code units found, in the order the text lists them (at most 100). */
  results: SearchHit[];
  /** Whether anything was found; a miss is `ok: false` with a sentence in `text`, not an exception. */
  ok: boolean;
}

/** Arguments of `repo.search()`: an object keyed by parameter name (snake_case or camelCase), a list in
 *  parameter order, or a single value for the first parameter. */
export type SearchArgs = Record<string, string | number> | Array<string | number> | string | number;

/** A bug location as a model names it; every field is optional. */
export interface LocationQuery {
  file?: string | null;
  class?: string | null;
  method?: string | null;
}

/** The six resolution tiers, in the order they are tried. */
export type Tier =
  | "method_in_class" | "method_in_file" | "class_in_file" | "class_anywhere" | "method_anywhere" | "whole_file";

/** What one tier did. */
export interface Attempt {
  tier: Tier;
  status: "skipped" | "missed" | "found" | "not_reached";
  /** For `missed`: what was looked up and not found. */
  reason: string | null;
  /** For `found`: how many locations. */
  count: number | null;
  /** For `found`: how (narrowed to a file, inherited from an ancestor, ...). */
  detail: string | null;
}

/** A piece of code the bug may live in. */
export interface BugLocation {
  file: string;
  class: string | null;
  method: string | null;
  start: number;
  end: number;
  /** Lines `start..=end` of the file. */
  code: string;
  intendedBehavior: string;
}

/** Extra code shown with a location: its enclosing class, or an ancestor's definition of the same method. */
export interface LocationContext {
  kind: "enclosing_class" | "ancestor_method";
  ancestor: string | null;
  depth: number | null;
  /** Index into `locations`. */
  forLocation: number;
  location: BugLocation;
}

/** The result of `repo.locate()`. */
export interface Resolution {
  found: boolean;
  /** The tier that found code. */
  tier: Tier | null;
  /** When nothing was found: a message for the model saying what was tried. */
  message: string | null;
  /** The query after cleaning (placeholders dropped, `Class.method` split), with notes on what changed. */
  query: { file: string | null; class: string | null; method: string | null; notes: string[] };
  attempts: Attempt[];
  locations: BugLocation[];
  context: LocationContext[];
}

/** How far an answer got, in AutoCodeRover's spelling, worst first. */
export type ExtractStatus =
  | "NO_PATCH" | "RAW_PATCH_BUT_UNPARSED" | "RAW_PATCH_BUT_UNMATCHED" | "MATCHED_BUT_EMPTY_ORIGIN"
  | "MATCHED_BUT_EMPTY_DIFF" | "APPLICABLE_PATCH";

/** One `<file>/<original>/<patched>` edit of an answer and what became of it. */
export interface EditResult {
  /** 1-based position in the answer. */
  index: number;
  /** The path as the answer wrote it. */
  file: string;
  /** The repository path it was applied to (or tried last). */
  path: string | null;
  outcome: "applied" | "failed" | "dropped";
  /** The edit format the edit was written in. */
  format: EditFormat;
  /** A one-line account, fit to show a person or the model. */
  message: string;
  /** For `applied`: the matched lines, 1-based, inclusive. */
  start: number | null;
  end: number | null;
  changed: boolean | null;
  indent: "relative" | "first_line_only" | "deletion" | null;
  /** For `failed` and `dropped`: why, e.g. "not_found", "ambiguous", "breaks_syntax", "cut_short", "not_a_unit",
   *  "no_definition", "file_not_found", "test_file". */
  failure: string | null;
  /** For an edit refused as `ambiguous`: every place its original matches, in file order (`null` otherwise). */
  candidates: EditCandidate[] | null;
}

/** One place an ambiguous original matches. */
export interface EditCandidate {
  /** First and last matched lines, 1-based, inclusive. */
  line: number;
  endLine: number;
  /** The innermost class, method or function around it (`Class.method`), when there is one. */
  enclosing: string | null;
}

/** The ways an answer can write its edits: ACR's `<file>/<original>/<patched>` tags, SEARCH/REPLACE blocks, a
 * unified diff, whole files. `applyEdits()` reads every one of them, mixed or not. */
export type EditFormat = "acr" | "search-replace" | "udiff" | "definition" | "whole";

/** The result of `applyEdits()`. The repository itself is not changed. */
export interface ApplyResult {
  status: ExtractStatus;
  /** `status === "APPLICABLE_PATCH"`. */
  applicable: boolean;
  /** What to tell the model (empty when everything applied cleanly). */
  reason: string;
  /** Unified diff of every changed file. */
  diff: string;
  /** The formats the answer's edits were written in, each once, in the order they first appear. */
  formats: EditFormat[];
  edits: EditResult[];
  /** New text of every changed file, by path. */
  files: Record<string, string>;
}

/** Options of `applyEdits()`. */
export interface ApplyOptions {
  /** Known bug locations (a line, or the span `line`..`end` of the located class or function): among several
   * matches of an original, one inside a location wins over any outside, then the nearest. */
  bugLines?: { file: string; line: number; end?: number }[];
  /** Refuse an original that occurs more than once when no bug line decides (default `true`, the refusal lists the
   * candidate lines); `false` takes the first match. */
  refuseAmbiguous?: boolean;
  /** The edit format the model was asked for: its edits are read first, and the other formats only inside code
   * fences when it has none. By default every format is read, each as far as it is sure. */
  format?: EditFormat;
}

/** Options of `checkSyntax()`. */
export interface CheckOptions {
  /** The file the source is for: its extension names the language and so the compiler whose verdict is given
   * (`.py`: CPython 3.12; `.java`: javac; `.js` `.mjs` `.cjs` `.jsx`: V8, as `node --check`; `.ts` `.mts` `.cts`
   * `.tsx`: the `typescript` package's parser). Python when absent; a path of no known language is refused. */
  path?: string;
}

/** The result of `checkSyntax()`: the compiler's verdict, the first problem with a 1-based line and column. */
export type SyntaxCheck =
  | { ok: true; line: null; column: null; message: null; kind: null }
  | {
      ok: false;
      line: number;
      column: number;
      /** "line L, column C: " and the compiler's message, e.g. "line 1, column 1: 'return' outside function". */
      message: string;
      /** Which error CPython raises (the other languages' problems are "syntax", or "too_complex"): "syntax"
       * (SyntaxError from the parser), "indentation" (IndentationError),
       * "tab" (TabError), "compile" (SyntaxError from the compiler), "encoding" (an encoding declaration or a
       * null byte), "too_complex" (nesting beyond what the gate checks). */
      kind: "syntax" | "indentation" | "tab" | "compile" | "encoding" | "too_complex";
    };

/**
 * What every thrown error looks like: `err instanceof Error`, `err.name === "AcrError"`. `TRAPPED`: the WebAssembly
 * core stopped (out of memory, or a bug); objects made before cannot be used, new ones get a fresh core.
 * `NOT_INITIALIZED`: `init()` has not run.
 */
export interface AcrError extends Error {
  name: "AcrError";
  code: "BAD_ARCHIVE" | "REFUSED_FILES" | "BAD_INPUT" | "BAD_SEARCH" | "CONVERSION" | "TRAPPED" | "NOT_INITIALIZED";
}
"#;
