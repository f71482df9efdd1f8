//! The `Repo` class: a repository in memory with its index, the search APIs and bug-location resolution.
//!
//! The index is built on first use (`index()`, a search, `locate()`) and kept until a file is added. Searches that
//! find nothing are not errors: they return `ok: false` and a sentence, as the model would read it. Calls that
//! cannot be run (an unknown API, a missing argument, a value of the wrong type) throw.
//!
//! Every method reads its JavaScript arguments into Rust values *before* it touches the repository's state, and
//! takes `&self` (the state sits in a `RefCell` borrowed only around pure Rust work). A JavaScript exception raised
//! while an argument is read (a throwing getter, a Proxy trap) therefore unwinds through no borrow: the `Repo`
//! keeps working, where a `&mut self` method would have left wasm-bindgen's borrow flag set for good ("recursive
//! use of an object detected" on every later call).

use acr_core::Index;
use acr_core::api::APIS;
use acr_core::locate::{Query, resolve};
use acr_core::repo::{Limits, Repo as CoreRepo};
use acr_core::search::{SearchCall, Searcher};
use serde::Deserialize;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

use crate::PkgError;
use crate::input::{self, LoadOptions};
use crate::views::{ApiView, ResolutionView, SkippedView, StatsView, to_js};

/// A Python repository held in memory, with its structural index.
#[wasm_bindgen]
pub struct Repo {
    state: RefCell<State>,
}

/// What a [`Repo`] holds: the files and, once built, their index.
struct State {
    repo: CoreRepo,
    index: Option<Index>,
}

impl State {
    /// The index (built now if needed) and the repository it describes.
    fn indexed(&mut self) -> (&Index, &CoreRepo) {
        let index = self.index.get_or_insert_with(|| Index::build(&self.repo));
        (index, &self.repo)
    }
}

impl Repo {
    /// Wraps a core repository.
    pub fn from_core(repo: CoreRepo) -> Repo {
        Repo { state: RefCell::new(State { repo, index: None }) }
    }

    /// Runs `f` on the core repository.
    pub fn with_core<T>(&self, f: impl FnOnce(&CoreRepo) -> T) -> T {
        f(&self.state.borrow().repo)
    }

    /// Runs `f` on the index (built now if needed) and the repository.
    fn with_index<T>(&self, f: impl FnOnce(&Index, &CoreRepo) -> T) -> T {
        let mut state = self.state.borrow_mut();
        let (index, repo) = state.indexed();
        f(index, repo)
    }

    /// Adds every file or none: a refused file (binary, not UTF-8, too large, unsafe path) fails the whole call.
    /// The files are checked in a scratch repository first, so only the new files are copied.
    fn add_all(&self, files: Vec<(String, Vec<u8>)>, limits: &Limits) -> Result<Vec<String>, PkgError> {
        let mut staged = CoreRepo::new();
        let kept: Vec<String> = files.into_iter().filter_map(|(p, b)| staged.add_owned(&p, b, limits)).collect();
        if !staged.skipped().is_empty() {
            return Err(PkgError::Refused(staged.skipped().to_vec()));
        }
        let mut state = self.state.borrow_mut();
        for (path, text) in staged.files() {
            state.repo.set_file(path, text.to_string());
        }
        state.index = None;
        Ok(kept)
    }

    /// Runs one search call by API name (snake_case or camelCase) with JSON arguments.
    fn run(&self, api: &str, args: serde_json::Value) -> Result<JsValue, PkgError> {
        let call = SearchCall::from_json(&input::snake_case(api), &input::snake_case_keys(args))?;
        let output = self.with_index(|index, repo| Searcher::new(index, repo).run(&call));
        to_js(&output)
    }

    /// A positional call from the per-API methods: every argument is read before the state is touched.
    fn positional(&self, api: &str, args: &[&JsValue]) -> Result<JsValue, PkgError> {
        let mut list = Vec::with_capacity(args.len());
        for (value, param) in
            args.iter().zip(acr_core::api::api(api).map_or(&[][..], |a| a.params).iter().map(|p| p.name))
        {
            list.push(input::json(value, &format!("{api}: `{param}`"))?);
        }
        // Trailing absent arguments are left out, so optional parameters take their defaults.
        while list.last().is_some_and(serde_json::Value::is_null) && list.len() > 1 {
            list.pop();
        }
        self.run(api, serde_json::Value::Array(list))
    }
}

/// The location object `repo.locate()` takes.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct LocationInput {
    file: Option<String>,
    class: Option<String>,
    method: Option<String>,
}

#[wasm_bindgen]
impl Repo {
    /// An empty repository; add files with `addFile`.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Repo {
        Repo::from_core(CoreRepo::new())
    }

    /// A repository from `{path: contents}`, contents being text or UTF-8 bytes. Strict: if any file is refused
    /// (binary, not UTF-8, over `maxFileBytes`, a path outside the root) nothing is loaded and the error lists
    /// each refused file with the reason.
    #[wasm_bindgen(js_name = fromFiles)]
    pub fn from_files(
        #[wasm_bindgen(unchecked_param_type = "Record<string, FileContents>")] files: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "LoadOptions")] options: JsValue,
    ) -> Result<Repo, PkgError> {
        let options: LoadOptions = input::options(&options, "Repo.fromFiles: options")?;
        let files = input::file_map(&files, "Repo.fromFiles: files")?;
        let repo = Repo::new();
        repo.add_all(files, &options.limits())?;
        Ok(repo)
    }

    /// A repository from the bytes of a zip archive. A common top-level folder (as in GitHub's "Download ZIP") is
    /// removed from every path. Lenient: entries that cannot be kept are listed by `skipped()`; only an archive
    /// that cannot be read at all throws.
    #[wasm_bindgen(js_name = fromZip)]
    pub fn from_zip(
        #[wasm_bindgen(unchecked_param_type = "Uint8Array | ArrayBuffer")] bytes: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "LoadOptions")] options: JsValue,
    ) -> Result<Repo, PkgError> {
        let options: LoadOptions = input::options(&options, "Repo.fromZip: options")?;
        let bytes = input::bytes(&bytes, "Repo.fromZip: bytes")?;
        Ok(Repo::from_core(CoreRepo::from_zip(&bytes, &options.limits())?))
    }

    /// Adds or replaces one file and returns its normalised path; throws when the file is refused.
    #[wasm_bindgen(js_name = addFile)]
    pub fn add_file(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] path: JsValue,
        #[wasm_bindgen(unchecked_param_type = "FileContents")] contents: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "LoadOptions")] options: JsValue,
    ) -> Result<String, PkgError> {
        let path = input::text(&path, "repo.addFile: path")?;
        let data = input::contents(&contents, "repo.addFile: contents")?;
        let options: LoadOptions = input::options(&options, "repo.addFile: options")?;
        let kept = self.add_all(vec![(path, data)], &options.limits())?;
        kept.into_iter().next().ok_or_else(|| PkgError::BadInput("repo.addFile: the file was not kept".to_string()))
    }

    /// Every file kept, by path, in path order.
    #[wasm_bindgen(unchecked_return_type = "string[]")]
    pub fn files(&self) -> Result<JsValue, PkgError> {
        self.with_core(|repo| to_js(&repo.files().map(|(p, _)| p).collect::<Vec<_>>()))
    }

    /// The text of a file by exact path, or `undefined`.
    pub fn file(&self, #[wasm_bindgen(unchecked_param_type = "string")] path: JsValue) -> Option<String> {
        let path = path.as_string()?;
        self.with_core(|repo| repo.file(&path).map(str::to_string))
    }

    /// Files left out of the repository, with reasons.
    #[wasm_bindgen(unchecked_return_type = "SkippedFile[]")]
    pub fn skipped(&self) -> Result<JsValue, PkgError> {
        self.with_core(|repo| to_js(&repo.skipped().iter().map(SkippedView::from).collect::<Vec<_>>()))
    }

    /// Builds the index (once; again after a file is added) and returns its counts.
    #[wasm_bindgen(unchecked_return_type = "IndexStats")]
    pub fn index(&self) -> Result<JsValue, PkgError> {
        let view = self.with_index(|index, repo| {
            StatsView::new(&index.stats(), &index.files_per_language_name(), repo.skipped().len())
        });
        to_js(&view)
    }

    /// Runs a search API by name (`"search_method_in_class"` or `"searchMethodInClass"`). `args` is an object
    /// keyed by parameter name, a list in parameter order, or a single value for the first parameter. Throws for
    /// an unknown API or arguments that do not fit; a search that finds nothing returns `ok: false`.
    #[wasm_bindgen(unchecked_return_type = "SearchOutput")]
    pub fn search(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ApiName | string")] api: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "SearchArgs")] args: JsValue,
    ) -> Result<JsValue, PkgError> {
        let api = input::text(&api, "repo.search: api")?;
        let args = input::json(&args, "repo.search: args")?;
        self.run(&api, args)
    }

    /// `search_class`: the signature of every class with this name (header, method signatures, attributes).
    #[wasm_bindgen(js_name = searchClass, unchecked_return_type = "SearchOutput")]
    pub fn search_class(
        &self,
        #[wasm_bindgen(js_name = className, unchecked_param_type = "string")] class_name: JsValue,
    ) -> Result<JsValue, PkgError> {
        self.positional("search_class", &[&class_name])
    }

    /// `search_class_in_file`: the full code of a class defined in a file (matched by path suffix).
    #[wasm_bindgen(js_name = searchClassInFile, unchecked_return_type = "SearchOutput")]
    pub fn search_class_in_file(
        &self,
        #[wasm_bindgen(js_name = className, unchecked_param_type = "string")] class_name: JsValue,
        #[wasm_bindgen(js_name = fileName, unchecked_param_type = "string")] file_name: JsValue,
    ) -> Result<JsValue, PkgError> {
        self.positional("search_class_in_file", &[&class_name, &file_name])
    }

    /// `search_method`: every function and method with this name.
    #[wasm_bindgen(js_name = searchMethod, unchecked_return_type = "SearchOutput")]
    pub fn search_method(
        &self,
        #[wasm_bindgen(js_name = methodName, unchecked_param_type = "string")] method_name: JsValue,
    ) -> Result<JsValue, PkgError> {
        self.positional("search_method", &[&method_name])
    }

    /// `search_method_in_file`: functions and methods with this name in a file.
    #[wasm_bindgen(js_name = searchMethodInFile, unchecked_return_type = "SearchOutput")]
    pub fn search_method_in_file(
        &self,
        #[wasm_bindgen(js_name = methodName, unchecked_param_type = "string")] method_name: JsValue,
        #[wasm_bindgen(js_name = fileName, unchecked_param_type = "string")] file_name: JsValue,
    ) -> Result<JsValue, PkgError> {
        self.positional("search_method_in_file", &[&method_name, &file_name])
    }

    /// `search_method_in_class`: methods with this name in a class.
    #[wasm_bindgen(js_name = searchMethodInClass, unchecked_return_type = "SearchOutput")]
    pub fn search_method_in_class(
        &self,
        #[wasm_bindgen(js_name = methodName, unchecked_param_type = "string")] method_name: JsValue,
        #[wasm_bindgen(js_name = className, unchecked_param_type = "string")] class_name: JsValue,
    ) -> Result<JsValue, PkgError> {
        self.positional("search_method_in_class", &[&method_name, &class_name])
    }

    /// `search_code`: literal text anywhere, with surrounding lines.
    #[wasm_bindgen(js_name = searchCode, unchecked_return_type = "SearchOutput")]
    pub fn search_code(
        &self,
        #[wasm_bindgen(js_name = codeStr, unchecked_param_type = "string")] code_str: JsValue,
    ) -> Result<JsValue, PkgError> {
        self.positional("search_code", &[&code_str])
    }

    /// `search_code_in_file`: literal text in a file, with surrounding lines.
    #[wasm_bindgen(js_name = searchCodeInFile, unchecked_return_type = "SearchOutput")]
    pub fn search_code_in_file(
        &self,
        #[wasm_bindgen(js_name = codeStr, unchecked_param_type = "string")] code_str: JsValue,
        #[wasm_bindgen(js_name = fileName, unchecked_param_type = "string")] file_name: JsValue,
    ) -> Result<JsValue, PkgError> {
        self.positional("search_code_in_file", &[&code_str, &file_name])
    }

    /// `get_code_around_line`: the lines of a file around a 1-based line (`window` lines each side, default 10).
    #[wasm_bindgen(js_name = getCodeAroundLine, unchecked_return_type = "SearchOutput")]
    pub fn get_code_around_line(
        &self,
        #[wasm_bindgen(js_name = fileName, unchecked_param_type = "string")] file_name: JsValue,
        #[wasm_bindgen(js_name = lineNo, unchecked_param_type = "number")] line_no: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "number")] window: JsValue,
    ) -> Result<JsValue, PkgError> {
        self.positional("get_code_around_line", &[&file_name, &line_no, &window])
    }

    /// `get_class_full_snippet`: the full code of a class wherever it is defined.
    #[wasm_bindgen(js_name = getClassFullSnippet, unchecked_return_type = "SearchOutput")]
    pub fn get_class_full_snippet(
        &self,
        #[wasm_bindgen(js_name = className, unchecked_param_type = "string")] class_name: JsValue,
    ) -> Result<JsValue, PkgError> {
        self.positional("get_class_full_snippet", &[&class_name])
    }

    /// Resolves a bug location `{file, class, method}` (each optional) to code through six tiers; the method's
    /// class and its nearest ancestor's definition come back as context.
    #[wasm_bindgen(unchecked_return_type = "Resolution")]
    pub fn locate(
        &self,
        #[wasm_bindgen(unchecked_param_type = "LocationQuery")] location: JsValue,
        #[wasm_bindgen(js_name = intendedBehavior, unchecked_optional_param_type = "string")]
        intended_behavior: JsValue,
    ) -> Result<JsValue, PkgError> {
        if location.is_undefined() || location.is_null() {
            return Err(PkgError::BadInput("repo.locate: location must be an object, not undefined".to_string()));
        }
        let loc: LocationInput = input::options(&location, "repo.locate: location")?;
        let intended = input::optional_text(&intended_behavior, "repo.locate: intendedBehavior")?.unwrap_or_default();
        let query = Query::new(loc.file.as_deref(), loc.class.as_deref(), loc.method.as_deref());
        let view = self.with_index(|index, repo| ResolutionView::from(&resolve(index, repo, &query, &intended)));
        to_js(&view)
    }
}

impl Default for Repo {
    fn default() -> Self {
        Repo::new()
    }
}

/// The nine search APIs: name, `Repo` method, parameters and summary.
#[wasm_bindgen(unchecked_return_type = "ApiInfo[]")]
pub fn apis() -> Result<JsValue, PkgError> {
    let list: Vec<ApiView> = APIS.iter().map(ApiView::from).collect();
    to_js(&list)
}
