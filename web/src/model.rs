//! The model a run talks to: the offline demo model (a script written for the bundled demo repository) or any
//! OpenAI-compatible server reached with fetch.
//!
//! [`PlaygroundModel`] also yields to the browser before every call, so the transcript and counters repaint
//! between model answers even when the answers are instant (the demo model), and it paces the demo model a little
//! so its run can be watched. With streaming chosen, a remote model's answers are streamed and each piece is handed
//! to the run's live view as it arrives.

use std::cell::Cell;
use std::future::Future;
use std::pin::pin;
use std::rc::Rc;
use std::task::Poll;

use acr_core::agent::{Judge, Stop};
use acr_core::llm::openai::{Endpoint, OpenAiClient, Retry};
use acr_core::llm::scripted::{Script, ScriptedModel};
use acr_core::llm::stream::Partial;
use acr_core::llm::{ChatRequest, ChatResponse, Llm, LlmError};
use acr_core::model_defaults;
use acr_core::patch::EditFormatChoice;

use crate::browser;
use crate::transport::FetchTransport;

/// Pause before each demo answer, in milliseconds, so a run is visible rather than instant.
const DEMO_PACE_MS: u32 = 60;

/// Which model to use, as chosen in the settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelChoice {
    /// The offline scripted model.
    Demo,
    /// An OpenAI-compatible chat-completions server.
    Remote {
        /// Where and which model.
        endpoint: Endpoint,
        /// Ask for streamed answers (`stream: true`).
        stream: bool,
        /// The model's context window in tokens, if set: requests are fitted to it.
        context_window: Option<u64>,
        /// Offer the search APIs as tools (function calling).
        tools: bool,
        /// The edit format the patch prompt asks for (`acr`, `search-replace`, `udiff`, `whole` or `auto`).
        edit_format: String,
    },
}

impl ModelChoice {
    /// The context window requests must fit, if one is set.
    pub fn context_window(&self) -> Option<u64> {
        match self {
            ModelChoice::Demo => None,
            ModelChoice::Remote { context_window, .. } => *context_window,
        }
    }

    /// The edit format the patch prompt asks for: the setting, `auto` read from the model's name. The demo model
    /// writes AutoCodeRover's format.
    pub fn edit_format(&self) -> EditFormatChoice {
        match self {
            ModelChoice::Demo => EditFormatChoice::default(),
            ModelChoice::Remote { endpoint, edit_format, .. } => {
                model_defaults::edit_format_setting(edit_format, &endpoint.model).unwrap_or_default()
            }
        }
    }

    /// Who judges a patch once a reproducer shows the bug: chosen by the model's name, as the command line's
    /// `--judge auto` does. The demo model's script was written with AutoCodeRover's reviewer.
    pub fn judge(&self) -> Judge {
        match self {
            ModelChoice::Demo => Judge::Reviewer,
            ModelChoice::Remote { endpoint, .. } => model_defaults::judge(&endpoint.model),
        }
    }

    /// Whether the search APIs are offered as tools.
    pub fn tools(&self) -> bool {
        matches!(self, ModelChoice::Remote { tools: true, .. })
    }
}

/// Which model answers.
enum Backend {
    /// The scripted demo model.
    Demo(ScriptedModel),
    /// A chat-completions server.
    Remote(OpenAiClient<FetchTransport>),
}

/// A model for one run. A call in flight is abandoned as soon as `stop` is set, so the stop button does not wait
/// for a slow server.
pub struct PlaygroundModel {
    backend: Backend,
    stop: Rc<Cell<bool>>,
    asking: Box<dyn Fn(&ChatRequest)>,
}

impl PlaygroundModel {
    /// Builds the model for a choice (the demo model plays `script`); setting `stop` abandons the call in flight and
    /// aborts its request. Every request is shown to `asking` as it is sent (the page counts the call in flight),
    /// and a streamed answer is handed to `live` piece by piece.
    pub fn new(
        choice: &ModelChoice,
        script: &str,
        stop: Rc<Cell<bool>>,
        asking: impl Fn(&ChatRequest) + 'static,
        live: impl Fn(&Partial) + 'static,
    ) -> Result<Self, String> {
        let backend = match choice {
            ModelChoice::Demo => Backend::Demo(ScriptedModel::new(Script::from_json(script)?)),
            ModelChoice::Remote { endpoint, stream, .. } => {
                check_endpoint(endpoint)?;
                let transport = FetchTransport { timeout_ms: None, stop: Some(stop.clone()) };
                let client = OpenAiClient::new(endpoint.clone(), transport);
                Backend::Remote(if *stream { client.streaming(live) } else { client })
            }
        };
        Ok(PlaygroundModel { backend, stop, asking: Box::new(asking) })
    }
}

impl Llm for PlaygroundModel {
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        (self.asking)(request);
        match &self.backend {
            Backend::Demo(m) => {
                browser::sleep_ms(DEMO_PACE_MS).await;
                m.chat(request).await
            }
            Backend::Remote(m) => {
                browser::yield_now().await;
                unless_stopped(m.chat(request), &self.stop).await
            }
        }
    }

    /// The server's own word on the context window (llama.cpp's `/props`), asked before the first call; nothing for
    /// the demo model, and nothing once the run is stopped.
    async fn context_window(&self) -> Option<u64> {
        match &self.backend {
            Backend::Demo(_) => None,
            Backend::Remote(m) => {
                unless_stopped(async { Ok(m.context_window().await) }, &self.stop).await.ok().flatten()
            }
        }
    }

    /// Whether the server holds the model to a JSON schema, as far as it says (llama.cpp's `/props`, Ollama's
    /// version); the demo model cannot be.
    async fn takes_json_schema(&self) -> Option<bool> {
        match &self.backend {
            Backend::Demo(m) => m.takes_json_schema().await,
            Backend::Remote(m) => {
                unless_stopped(async { Ok(m.takes_json_schema().await) }, &self.stop).await.ok().flatten()
            }
        }
    }
}

/// Runs `call` unless `stop` is set first (checked every 100 ms). A call that fails once `stop` is set failed
/// because of it (the transport aborts its request on stop), so that too is [`LlmError::Cancelled`].
async fn unless_stopped<T>(call: impl Future<Output = Result<T, LlmError>>, stop: &Cell<bool>) -> Result<T, LlmError> {
    let mut call = pin!(call);
    let mut watch = pin!(async {
        while !stop.get() {
            browser::sleep_ms(100).await;
        }
    });
    std::future::poll_fn(|cx| {
        if let Poll::Ready(r) = call.as_mut().poll(cx) {
            return Poll::Ready(if r.is_err() && stop.get() { Err(LlmError::Cancelled) } else { r });
        }
        match watch.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(LlmError::Cancelled)),
            Poll::Pending => Poll::Pending,
        }
    })
    .await
}

/// Checks an endpoint's fields before anything is sent.
pub fn check_endpoint(endpoint: &Endpoint) -> Result<(), String> {
    let url = endpoint.base_url.trim();
    if url.is_empty() {
        return Err("Enter the server's base URL, e.g. http://localhost:11434/v1.".into());
    }
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(format!("The base URL must start with http:// or https:// (got `{url}`)."));
    }
    if endpoint.model.trim().is_empty() {
        return Err("Enter a model name (the server's id for it, e.g. gpt-4o-mini or llama3.1).".into());
    }
    Ok(())
}

/// Sends one tiny request to check the settings; returns what to tell the user.
pub async fn test_connection(choice: &ModelChoice) -> Result<String, String> {
    let ModelChoice::Remote { endpoint, .. } = choice else {
        return Ok("The demo model is built into the page and needs no connection.".into());
    };
    check_endpoint(endpoint)?;
    let transport = FetchTransport { timeout_ms: Some(30_000), stop: None };
    let mut client = OpenAiClient::new(endpoint.clone(), transport);
    client.retry = Retry { retries: 0, ..Retry::default() };
    let started = browser::now();
    match client.ping().await {
        Ok(answer) => {
            let ms = browser::now() - started;
            let said: String = answer.content.trim().chars().take(60).collect();
            Ok(format!("Connected: {} answered in {ms:.0} ms (“{said}”).", endpoint.model))
        }
        Err(e) => Err(explain(&e)),
    }
}

/// A model error as a sentence, with a hint where one helps.
pub fn explain(e: &LlmError) -> String {
    let hint = match e {
        LlmError::Http { status: 404, .. } => {
            " Check the base URL (it usually ends in /v1) and that the server knows this model name."
        }
        LlmError::Auth(_) => " Check the API key.",
        LlmError::ModelUnknown(_) => " Check the model name: the server's list of models (GET /v1/models) names them.",
        LlmError::Timeout => {
            " Nothing arrived before the page's time limit for a request passed (five minutes in a run, 30 seconds for \
             the connection test); a streamed answer still arriving then is kept, cut where the time ran out."
        }
        LlmError::Malformed(_) => " Is the base URL an OpenAI-compatible API (it usually ends in /v1)?",
        _ => "",
    };
    let mut text = e.to_string();
    if let Some(first) = text.get(..1) {
        text = format!("{}{}", first.to_uppercase(), text.get(1..).unwrap_or(""));
    }
    let stop = if text.ends_with('.') { "" } else { "." };
    format!("{text}{stop}{hint}")
}

/// Why a run ended early, as the page says it: the stop's own message, advice for what the model server refused,
/// and whether the best patch so far was kept.
pub fn stop_message(stop: &Stop, kept: bool) -> String {
    let advice = match stop {
        Stop::KeyRefused(_) => " Check the API key.",
        Stop::ModelUnknown(_) => " Check the model name: the server's list of models (GET /v1/models) names them.",
        Stop::ServerError(_) => " The transcript shows each failed call and what the server said.",
        Stop::ContextTooSmall(_) => {
            " Enter a larger context window if the model has one, or start the server with a larger one (llama-server \
             -c, OLLAMA_CONTEXT_LENGTH for Ollama)."
        }
        Stop::Budget(_) | Stop::Cancelled | Stop::Unreachable(_) => "",
    };
    let mut text = stop.to_string();
    if let Some(first) = text.get(..1) {
        text = format!("{}{}", first.to_uppercase(), text.get(1..).unwrap_or(""));
    }
    let end = if text.ends_with('.') { "" } else { "." };
    let kept = if kept { " The best patch so far is kept." } else { " No patch was made." };
    format!("{text}{end}{advice}{kept}")
}

/// A short label for why a run stopped, for the Diff tab's badge.
pub fn stop_label(stop: &Stop) -> &'static str {
    match stop {
        Stop::Budget(_) => "budget exhausted",
        Stop::Cancelled => "stopped by the user",
        Stop::KeyRefused(_) => "API key refused",
        Stop::ModelUnknown(_) => "model unknown to the server",
        Stop::Unreachable(_) => "model server unreachable",
        Stop::ServerError(_) => "model server failing",
        Stop::ContextTooSmall(_) => "context window too small",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use acr_core::patch::EditFormat;

    /// The edit format chosen in the model card reaches the agent: as set, or by the model's name for `auto`.
    #[test]
    fn the_edit_format_setting_becomes_the_agents_choice() {
        let remote = |model: &str, format: &str| ModelChoice::Remote {
            endpoint: Endpoint {
                base_url: "http://127.0.0.1:8081/v1".into(),
                model: model.into(),
                api_key: String::new(),
            },
            stream: false,
            context_window: None,
            tools: false,
            edit_format: format.into(),
        };
        assert_eq!(remote("gpt-4o", "udiff").edit_format().format, EditFormat::Udiff);
        assert_eq!(remote("gpt-4o", "search-replace").edit_format().format, EditFormat::SearchReplace);
        assert_eq!(remote("qwen2.5-coder:7b", "auto").edit_format(), model_defaults::edit_format("qwen2.5-coder:7b"));
        assert_eq!(ModelChoice::Demo.edit_format().format, EditFormat::Acr, "the demo model writes ACR's format");
    }

    #[test]
    fn stops_by_the_server_say_what_to_check_and_what_was_kept() {
        let key = stop_message(&Stop::KeyRefused("Invalid API Key".into()), false);
        assert_eq!(key, "The model server refused the API key: Invalid API Key. Check the API key. No patch was made.");
        let small =
            stop_message(&Stop::ContextTooSmall(acr_core::llm::window::TooLong { needed: 1200, window: 1024 }), true);
        assert!(small.contains("context window of 1024") && small.contains("llama-server -c"), "{small}");
        assert!(small.ends_with("The best patch so far is kept."), "{small}");
        assert_eq!(stop_message(&Stop::Cancelled, false), "Stopped by the user. No patch was made.");
        assert_eq!(stop_label(&Stop::Unreachable("x".into())), "model server unreachable");
    }

    fn endpoint(base_url: &str, model: &str) -> Endpoint {
        Endpoint { base_url: base_url.into(), model: model.into(), api_key: String::new() }
    }

    #[test]
    fn endpoints_are_checked_before_sending() {
        assert!(check_endpoint(&endpoint("http://localhost:11434/v1", "m")).is_ok());
        assert!(check_endpoint(&endpoint("", "m")).unwrap_err().contains("base URL"));
        assert!(check_endpoint(&endpoint("localhost:11434", "m")).unwrap_err().contains("http://"));
        assert!(check_endpoint(&endpoint("https://x/v1", " ")).unwrap_err().contains("model name"));
    }

    #[test]
    fn errors_read_as_sentences_with_hints() {
        let e = LlmError::Http { status: 404, message: "no such model".into() };
        assert_eq!(
            explain(&e),
            "The model server answered HTTP 404: no such model. Check the base URL (it usually ends in /v1) and \
             that the server knows this model name."
        );
        assert_eq!(explain(&LlmError::Auth("bad key".into())), "The API key was refused: bad key. Check the API key.");
        let timeout = explain(&LlmError::Timeout);
        assert!(timeout.starts_with("The model server did not answer in time. Nothing arrived before"), "{timeout}");
    }
}
