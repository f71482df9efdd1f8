//! The search explorer's state, shared by its parts ([`Explorer`]): the API chosen and its arguments, the typed
//! call, the last answer and what the file view shows; and the actions on it (run the form's call or the typed one,
//! follow a request from the transcript or the file tree).

use acr_core::api::{APIS, ApiSpec, api};
use acr_core::call::SearchCall;
use acr_core::search::{SearchHit, SearchOutput, Searcher};
use leptos::prelude::*;

use crate::load::Loaded;
use crate::state::{AppState, ExploreRequest};

/// What the file view shows: a file, the lines to highlight (none when `start` is 0), and the code searched for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Focus {
    /// The file's path.
    pub path: String,
    /// The first highlighted line (0: none).
    pub start: u32,
    /// The last highlighted line.
    pub end: u32,
    /// The code searched for, marked where it occurs.
    pub needle: Option<String>,
}

/// The last search made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The call, as text.
    pub call: String,
    /// What it answered.
    pub output: SearchOutput,
    /// The code it searched for.
    pub needle: Option<String>,
}

/// The explorer's state, shared by its parts (signal handles, cheap to copy).
#[derive(Clone, Copy)]
pub struct Explorer {
    app: AppState,
    /// The API chosen in the form.
    pub spec: RwSignal<&'static ApiSpec>,
    /// Its arguments, as typed.
    pub args: RwSignal<Vec<String>>,
    /// The call typed (or the last one run).
    pub typed: RwSignal<String>,
    /// What is wrong with the form or the typed call (empty: nothing).
    pub problem: RwSignal<String>,
    /// The last search made.
    pub answer: RwSignal<Option<Answer>>,
    /// What the file view shows.
    pub focus: RwSignal<Option<Focus>>,
}

impl Explorer {
    /// An empty explorer, on the first API.
    pub fn new(app: AppState) -> Explorer {
        Explorer {
            app,
            spec: RwSignal::new(&APIS[0]),
            args: RwSignal::new(vec![String::new(); APIS[0].params.len()]),
            typed: RwSignal::new(String::new()),
            problem: RwSignal::new(String::new()),
            answer: RwSignal::new(None),
            focus: RwSignal::new(None),
        }
    }

    /// Runs the form's call over the loaded repository, and focuses the file view on its first hit.
    pub fn run(self) {
        self.problem.set(String::new());
        let Some(loaded) = self.app.loaded.get_untracked() else {
            self.problem.set("Load a repository first.".into());
            return;
        };
        let a = match from_form(self.spec.get_untracked(), &self.args.get_untracked()) {
            Ok(call) => search(&loaded, &call),
            Err(a) => a,
        };
        self.typed.set(a.call.clone());
        self.focus.set(a.output.results.first().map(|h| focus_on(h, a.needle.clone())));
        self.answer.set(Some(a));
    }

    /// Chooses the API named `name`, with empty arguments.
    pub fn choose_api(self, name: &str) {
        if let Some(s) = api(name) {
            self.spec.set(s);
            self.args.set(vec![String::new(); s.params.len()]);
        }
    }

    /// Runs the typed call, or says why it cannot be read.
    pub fn run_typed(self) {
        match SearchCall::parse(&self.typed.get_untracked()) {
            Ok(call) => self.run_call(&call),
            Err(e) => self.problem.set(format!("Could not read the call: {e}")),
        }
    }

    /// Fills the form in with a call, and runs it.
    fn run_call(self, call: &SearchCall) {
        let (s, values) = form_of(call);
        self.spec.set(s);
        self.args.set(values);
        self.run();
    }

    /// Shows what the transcript or the file tree asked for.
    pub fn follow(self, request: ExploreRequest) {
        match request {
            ExploreRequest::Call(call) => self.run_call(&call),
            ExploreRequest::File { path } => self.focus.set(Some(Focus { path, start: 0, end: 0, needle: None })),
        }
    }
}

/// Runs one call over the loaded repository, checked as the agent checks a model's call.
fn search(loaded: &Loaded, call: &SearchCall) -> Answer {
    let output = Searcher::new(&loaded.index, &loaded.repo).run(call);
    Answer { call: call.to_string(), output, needle: call.code().map(str::to_string) }
}

/// The form's fields, checked: the call, or an answer that says what is wrong with them.
fn from_form(spec: &'static ApiSpec, args: &[String]) -> Result<SearchCall, Answer> {
    SearchCall::from_texts(spec.name, args).map_err(|e| Answer {
        call: format!("{}({})", spec.name, args.join(", ")),
        output: SearchOutput::miss(e.to_string()),
        needle: None,
    })
}

/// The form's fields for a call: its API and its arguments as text.
fn form_of(call: &SearchCall) -> (&'static ApiSpec, Vec<String>) {
    (call.spec(), call.values().iter().map(ToString::to_string).collect())
}

/// The file view's focus on a hit.
pub fn focus_on(hit: &SearchHit, needle: Option<String>) -> Focus {
    Focus { path: hit.file.clone(), start: hit.start, end: hit.end, needle }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_form_is_a_call_or_says_what_is_wrong() {
        let spec = api("search_class").expect("search_class");
        let call = from_form(spec, &["Cart".into()]).expect("a call");
        assert_eq!(form_of(&call), (spec, vec!["Cart".to_string()]));
        let wrong = from_form(spec, &[]).expect_err("no class");
        assert_eq!((wrong.call.as_str(), wrong.output.ok), ("search_class()", false));
    }

    #[test]
    fn a_hit_focuses_its_lines() {
        let hit = SearchHit { file: "a.py".into(), start: 3, end: 7, class: None, func: None };
        let focus = focus_on(&hit, Some("x".into()));
        assert_eq!(focus, Focus { path: "a.py".into(), start: 3, end: 7, needle: Some("x".into()) });
    }
}
