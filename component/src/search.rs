//! The `search` interface: every API builds the core's [`SearchCall`] and checks it with the core's binder (so empty
//! names are refused exactly as for a model's call), then runs it on the repository's index.

use acr_core::api::DEFAULT_WINDOW;
use acr_core::call::{CallError as CoreError, SearchCall};
use acr_core::search::{SearchOutput as CoreOutput, Searcher};

use crate::Component;
use crate::bindings::exports::acr::core::search::{
    CallError, CallErrorKind, Guest, RepoBorrow, SearchCall as WitCall, SearchHit, SearchOutput,
};
use crate::repository::RepoResource;

/// Checks and runs one call.
fn run(repo: RepoBorrow<'_>, call: Result<SearchCall, CoreError>) -> Result<SearchOutput, CallError> {
    let call = call.map_err(|e| call_error(&e))?;
    let output = repo.get::<RepoResource>().with_index(|index, repo| Searcher::new(index, repo).run(&call));
    Ok(output_of(output))
}

fn output_of(o: CoreOutput) -> SearchOutput {
    let results = o
        .results
        .into_iter()
        .map(|h| SearchHit { file: h.file, start: h.start, end: h.end, class: h.class, func: h.func })
        .collect();
    SearchOutput { text: o.text, results, ok: o.ok }
}

/// A call error as the WIT record: kind, parameter, and the sentence the model would read.
fn call_error(e: &CoreError) -> CallError {
    use acr_core::call::ValueProblem;
    let kind = match e {
        CoreError::UnknownApi { .. } => CallErrorKind::UnknownApi,
        CoreError::Missing { .. } => CallErrorKind::MissingArgument,
        CoreError::TooMany { .. } => CallErrorKind::TooManyArguments,
        CoreError::BadValue { problem: ValueProblem::Empty, .. } => CallErrorKind::EmptyArgument,
        CoreError::BadValue { problem: ValueProblem::NotANumber { .. }, .. } => CallErrorKind::NotANumber,
        _ => CallErrorKind::Other,
    };
    CallError { kind, param: e.param().map(str::to_string), message: e.to_string() }
}

impl Guest for Component {
    fn search_class(repo: RepoBorrow<'_>, class_name: String) -> Result<SearchOutput, CallError> {
        run(repo, SearchCall::SearchClass { class_name }.checked())
    }

    fn search_class_in_file(
        repo: RepoBorrow<'_>,
        class_name: String,
        file_name: String,
    ) -> Result<SearchOutput, CallError> {
        run(repo, SearchCall::SearchClassInFile { class_name, file_name }.checked())
    }

    fn search_method(repo: RepoBorrow<'_>, method_name: String) -> Result<SearchOutput, CallError> {
        run(repo, SearchCall::SearchMethod { method_name }.checked())
    }

    fn search_method_in_file(
        repo: RepoBorrow<'_>,
        method_name: String,
        file_name: String,
    ) -> Result<SearchOutput, CallError> {
        run(repo, SearchCall::SearchMethodInFile { method_name, file_name }.checked())
    }

    fn search_method_in_class(
        repo: RepoBorrow<'_>,
        method_name: String,
        class_name: String,
    ) -> Result<SearchOutput, CallError> {
        run(repo, SearchCall::SearchMethodInClass { method_name, class_name }.checked())
    }

    fn search_code(repo: RepoBorrow<'_>, code_str: String) -> Result<SearchOutput, CallError> {
        run(repo, SearchCall::SearchCode { code_str }.checked())
    }

    fn search_code_in_file(
        repo: RepoBorrow<'_>,
        code_str: String,
        file_name: String,
    ) -> Result<SearchOutput, CallError> {
        run(repo, SearchCall::SearchCodeInFile { code_str, file_name }.checked())
    }

    fn get_code_around_line(
        repo: RepoBorrow<'_>,
        file_name: String,
        line_no: u32,
        window: Option<u32>,
    ) -> Result<SearchOutput, CallError> {
        let window = window.unwrap_or(DEFAULT_WINDOW);
        run(repo, SearchCall::GetCodeAroundLine { file_name, line_no, window }.checked())
    }

    fn get_class_full_snippet(repo: RepoBorrow<'_>, class_name: String) -> Result<SearchOutput, CallError> {
        run(repo, SearchCall::GetClassFullSnippet { class_name }.checked())
    }

    fn call(repo: RepoBorrow<'_>, api: String, args: Vec<String>) -> Result<SearchOutput, CallError> {
        run(repo, SearchCall::from_texts(&api, &args))
    }

    fn parse_call(text: String) -> Result<WitCall, CallError> {
        let call = SearchCall::parse(&text).map_err(|e| call_error(&e))?;
        let args = call.values().iter().map(ToString::to_string).collect();
        Ok(WitCall { api: call.name().to_string(), args, text: call.to_string() })
    }
}
