//! Model and runner settings: which model answers (the offline demo model by default, or an OpenAI-compatible
//! server chosen from presets), the API key, where executions happen (Python in this tab by default, the runner
//! server, or none), and a connection test for each.
//!
//! Settings live in memory. Only when "remember" is ticked are they written to `localStorage` (key included);
//! unticking it deletes what was saved. Packages for the tab's Python are read from each loaded repository, and
//! dropped wheels stay in memory.

use acr_core::llm::openai::Endpoint;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::browser;
use crate::model::ModelChoice;
use crate::runner_client::BrowserRunner;
use crate::runners::{PageRunner, RunnerKind};
use crate::tab_runner::TabRunner;
use crate::tab_runner::packages::{self, Packages};
use crate::tab_runner::protocol::WheelFile;

const STORAGE_KEY: &str = "acr-wasm.settings";

/// Where the model comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Provider {
    /// The offline scripted demo model.
    Demo,
    /// OpenAI's API.
    OpenAi,
    /// A local Ollama server.
    Ollama,
    /// A local vLLM server.
    Vllm,
    /// LM Studio's local server.
    LmStudio,
    /// llama.cpp's `llama-server`.
    LlamaCpp,
    /// A LiteLLM proxy.
    LiteLlm,
    /// Any other OpenAI-compatible server.
    Custom,
}

impl Provider {
    /// Every provider, in menu order.
    pub const ALL: [Provider; 8] = [
        Provider::Demo,
        Provider::OpenAi,
        Provider::Ollama,
        Provider::Vllm,
        Provider::LmStudio,
        Provider::LlamaCpp,
        Provider::LiteLlm,
        Provider::Custom,
    ];

    /// The menu label.
    pub fn label(self) -> &'static str {
        match self {
            Provider::Demo => "Demo model (offline, scripted)",
            Provider::OpenAi => "OpenAI",
            Provider::Ollama => "Ollama",
            Provider::Vllm => "vLLM",
            Provider::LmStudio => "LM Studio",
            Provider::LlamaCpp => "llama.cpp server",
            Provider::LiteLlm => "LiteLLM proxy",
            Provider::Custom => "Other OpenAI-compatible server",
        }
    }

    /// A stable identifier for the `<select>`.
    pub fn id(self) -> &'static str {
        match self {
            Provider::Demo => "demo",
            Provider::OpenAi => "openai",
            Provider::Ollama => "ollama",
            Provider::Vllm => "vllm",
            Provider::LmStudio => "lmstudio",
            Provider::LlamaCpp => "llamacpp",
            Provider::LiteLlm => "litellm",
            Provider::Custom => "custom",
        }
    }

    /// The provider with an identifier.
    pub fn from_id(id: &str) -> Provider {
        Provider::ALL.into_iter().find(|p| p.id() == id).unwrap_or(Provider::Custom)
    }

    /// The context window to assume, in tokens, as text for the settings field (empty: unknown, no trimming).
    pub fn context_window(self) -> &'static str {
        match self {
            // gpt-4o and gpt-4.1 mini hold 128,000 tokens or more.
            Provider::OpenAi => "128000",
            // Ollama's default (2,048 to 4,096 tokens by version) unless raised when the server starts.
            Provider::Ollama => "4096",
            Provider::Demo
            | Provider::Vllm
            | Provider::LmStudio
            | Provider::LlamaCpp
            | Provider::LiteLlm
            | Provider::Custom => "",
        }
    }

    /// The preset base URL and model name.
    pub fn preset(self) -> (&'static str, &'static str) {
        match self {
            Provider::Demo | Provider::Custom => ("", ""),
            Provider::OpenAi => ("https://api.openai.com/v1", "gpt-4o-mini"),
            Provider::Ollama => ("http://localhost:11434/v1", "qwen2.5-coder:7b"),
            Provider::Vllm => ("http://localhost:8000/v1", ""),
            Provider::LmStudio => ("http://localhost:1234/v1", ""),
            // llama-server serves the one model it was started with, whatever name is sent.
            Provider::LlamaCpp => ("http://localhost:8080/v1", "local"),
            // The proxy's model names are those of its config's `model_list`.
            Provider::LiteLlm => ("http://localhost:4000/v1", ""),
        }
    }
}

/// Whether `base_url` points at the server that serves this page (`origin`): the same scheme and port on the same
/// host, counting every loopback name (localhost, 127.0.0.1, [::1]) as one host.
pub fn is_page_origin(base_url: &str, origin: &str) -> bool {
    fn parts(url: &str) -> Option<(String, String, u16)> {
        let (scheme, rest) = url.trim().split_once("://")?;
        let scheme = scheme.to_ascii_lowercase();
        let authority = rest.split(['/', '?', '#']).next()?.rsplit('@').next()?.to_ascii_lowercase();
        let (host, port) = match authority.rsplit_once(':') {
            Some((h, p)) if !p.contains(']') => (h.to_string(), p.parse().ok()?),
            _ => (authority.clone(), if scheme == "https" { 443 } else { 80 }),
        };
        let host = match host.as_str() {
            "localhost" | "127.0.0.1" | "[::1]" | "0.0.0.0" => "loopback".to_string(),
            _ => host,
        };
        Some((scheme, host, port))
    }
    matches!((parts(base_url), parts(origin)), (Some(a), Some(b)) if a == b)
}

/// What to say under the base URL: a warning when it is this page's own address.
pub(crate) fn base_url_hint(base_url: &str, origin: &str) -> Option<String> {
    is_page_origin(base_url, origin).then(|| {
        format!(
            "This is the address this page is served from ({origin}), not a model server: start the model server on \
             another port (e.g. llama-server --port 8081) and enter that."
        )
    })
}

/// The outcome of a connection test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    /// Not tried.
    Idle,
    /// Waiting for the answer.
    Checking,
    /// It worked; what to tell the user.
    Ok(String),
    /// It failed; why.
    Failed(String),
    /// It worked, but with a danger the user must see (shown in red).
    Warning(String),
}

/// The settings, as signals shared by the page.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// Where the model comes from.
    pub provider: RwSignal<Provider>,
    /// The server's base URL.
    pub base_url: RwSignal<String>,
    /// The model name.
    pub model: RwSignal<String>,
    /// The API key (memory only unless `remember`).
    pub api_key: RwSignal<String>,
    /// Ask for streamed answers and show them as they arrive.
    pub stream: RwSignal<bool>,
    /// The model's context window in tokens, as typed (empty: unknown).
    pub context_window: RwSignal<String>,
    /// Offer the search APIs as tools (function calling).
    pub tools: RwSignal<bool>,
    /// The edit format the patch prompt asks for: `acr`, `search-replace`, `udiff`, `whole` or `auto`.
    pub edit_format: RwSignal<String>,
    /// Save the settings in `localStorage`.
    pub remember: RwSignal<bool>,
    /// Where executions happen.
    pub runner_kind: RwSignal<RunnerKind>,
    /// Requirements for the tab's Python, one per line.
    pub requirements: RwSignal<String>,
    /// Where the requirements were read from (empty: typed).
    pub requirements_source: RwSignal<String>,
    /// The package index for the tab's Python (empty: PyPI).
    pub package_index: RwSignal<String>,
    /// Wheels dropped for the tab's Python (memory only).
    pub wheels: RwSignal<Vec<WheelFile>, LocalStorage>,
    /// The reproducer runner's URL (empty: no runner).
    pub runner_url: RwSignal<String>,
    /// The runner's access token.
    pub runner_token: RwSignal<String>,
    /// The last model connection test.
    pub connection: RwSignal<Check>,
    /// The last runner check.
    pub runner_check: RwSignal<Check>,
}

/// What is written to `localStorage`.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
struct Saved {
    provider: Option<Provider>,
    base_url: String,
    model: String,
    api_key: String,
    stream: bool,
    context_window: String,
    tools: bool,
    edit_format: String,
    runner: Option<RunnerKind>,
    package_index: String,
    runner_url: String,
    runner_token: String,
}

impl Settings {
    /// Settings from `localStorage` if the user chose to remember them, else the defaults (the demo model).
    pub fn load() -> Settings {
        let saved: Option<Saved> = browser::load(STORAGE_KEY).and_then(|s| serde_json::from_str(&s).ok());
        let remember = saved.is_some();
        let saved = saved.unwrap_or_default();
        let settings = Settings {
            provider: RwSignal::new(saved.provider.unwrap_or(Provider::Demo)),
            base_url: RwSignal::new(saved.base_url),
            model: RwSignal::new(saved.model),
            api_key: RwSignal::new(saved.api_key),
            stream: RwSignal::new(saved.stream),
            context_window: RwSignal::new(saved.context_window),
            tools: RwSignal::new(saved.tools),
            edit_format: RwSignal::new(if saved.edit_format.is_empty() { "auto".into() } else { saved.edit_format }),
            remember: RwSignal::new(remember),
            runner_kind: RwSignal::new(saved.runner.unwrap_or_default()),
            requirements: RwSignal::new(String::new()),
            requirements_source: RwSignal::new(String::new()),
            package_index: RwSignal::new(saved.package_index),
            wheels: RwSignal::new_local(Vec::new()),
            runner_url: RwSignal::new(saved.runner_url),
            runner_token: RwSignal::new(saved.runner_token),
            connection: RwSignal::new(Check::Idle),
            runner_check: RwSignal::new(Check::Idle),
        };
        settings.persist();
        settings.follow_packages();
        settings
    }

    /// Keeps the tab's Python told which packages to install.
    fn follow_packages(self) {
        Effect::new(move |_| {
            let wanted = Packages {
                requirements: packages::parse_list(&self.requirements.get()),
                index_url: self.package_index.get(),
                wheels: self.wheels.get(),
            };
            TabRunner::shared().set_packages(wanted);
        });
    }

    /// Keeps `localStorage` in step with the settings while "remember" is ticked, and empty when it is not.
    fn persist(self) {
        Effect::new(move |_| {
            if !self.remember.get() {
                browser::forget(STORAGE_KEY);
                return;
            }
            let saved = Saved {
                provider: Some(self.provider.get()),
                base_url: self.base_url.get(),
                model: self.model.get(),
                api_key: self.api_key.get(),
                stream: self.stream.get(),
                context_window: self.context_window.get(),
                tools: self.tools.get(),
                edit_format: self.edit_format.get(),
                runner: Some(self.runner_kind.get()),
                package_index: self.package_index.get(),
                runner_url: self.runner_url.get(),
                runner_token: self.runner_token.get(),
            };
            if let Ok(json) = serde_json::to_string(&saved) {
                browser::save(STORAGE_KEY, &json);
            }
        });
    }

    /// The model chosen now.
    pub fn choice(&self) -> ModelChoice {
        match self.provider.get_untracked() {
            Provider::Demo => ModelChoice::Demo,
            _ => ModelChoice::Remote {
                endpoint: Endpoint {
                    base_url: self.base_url.get_untracked().trim().to_string(),
                    model: self.model.get_untracked().trim().to_string(),
                    api_key: self.api_key.get_untracked().trim().to_string(),
                },
                stream: self.stream.get_untracked(),
                context_window: self.context_window_tokens(),
                tools: self.tools.get_untracked(),
                edit_format: self.edit_format.get_untracked(),
            },
        }
    }

    /// The context window typed, in tokens (`None` when empty or not a positive number).
    pub fn context_window_tokens(&self) -> Option<u64> {
        parse_tokens(&self.context_window.get_untracked())
    }

    /// The runner a run should use: Python in this tab, the runner server (when its URL is set), or none.
    pub fn runner(&self) -> Option<PageRunner> {
        match self.runner_kind.get_untracked() {
            RunnerKind::Tab => Some(PageRunner::Tab(TabRunner::shared())),
            RunnerKind::Server => self.server().map(PageRunner::Server),
            RunnerKind::None => None,
        }
    }

    /// The runner server, when a URL is set.
    pub fn server(&self) -> Option<BrowserRunner> {
        let url = self.runner_url.get_untracked();
        (!url.trim().is_empty()).then(|| BrowserRunner::new(&url, &self.runner_token.get_untracked()))
    }

    /// Switches provider, filling in its preset.
    pub fn choose(&self, provider: Provider) {
        let previous = self.provider.get_untracked();
        self.provider.set(provider);
        self.connection.set(Check::Idle);
        let (url, model) = provider.preset();
        if provider != Provider::Demo && provider != Provider::Custom {
            self.base_url.set(url.to_string());
            // Keep a model name the user typed unless it was the previous preset's.
            let current = self.model.get_untracked();
            if current.is_empty() || current == previous.preset().1 {
                self.model.set(model.to_string());
            }
            // The same for the context window.
            let window = self.context_window.get_untracked();
            if window.trim().is_empty() || window == previous.context_window() {
                self.context_window.set(provider.context_window().to_string());
            }
        }
    }
}

/// Fewer tokens than a run's requests usually need (the system prompt, the issue, a round of search results and
/// room for the answer come to 3,000 to 8,000).
const SMALL_WINDOW: u64 = 6_000;

/// A number of tokens as typed (`16384`, `16,384`, `16 384`); `None` when empty, zero or not a number.
fn parse_tokens(typed: &str) -> Option<u64> {
    typed.trim().replace([',', '_', ' '], "").parse().ok().filter(|&n| n > 0)
}

/// What to say under the context window field.
pub(crate) fn context_hint(provider: Provider, typed: &str) -> String {
    let tokens = parse_tokens(typed);
    let mut hint = match tokens {
        None if !typed.trim().is_empty() => "Not a number of tokens: requests will be sent whole.".to_string(),
        None => "Unknown: requests are sent whole, and a server may refuse (or cut) the longer ones.".to_string(),
        Some(n) if n < SMALL_WINDOW => format!(
            "Small: a run's requests reach 3,000 to 8,000 tokens, so older search results will often be left out \
             (with a note) to stay under {n}, and a long issue may not fit at all."
        ),
        Some(n) => format!("Older search results are left out (with a note) when a request would pass {n} tokens."),
    };
    if provider == Provider::Ollama {
        hint.push_str(
            " Ollama cuts longer prompts silently; its default window is 2,048 to 4,096 tokens. Start it with a \
             larger one (OLLAMA_CONTEXT_LENGTH=16384 ollama serve) and enter that number here.",
        );
    }
    hint
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_windows_are_read_and_explained() {
        assert_eq!(parse_tokens(" 16,384 "), Some(16_384));
        assert_eq!((parse_tokens(""), parse_tokens("0"), parse_tokens("lots")), (None, None, None));
        assert!(context_hint(Provider::Custom, "").starts_with("Unknown"));
        assert!(context_hint(Provider::Custom, "lots").starts_with("Not a number"));
        assert!(context_hint(Provider::Vllm, "4096").starts_with("Small"));
        assert!(context_hint(Provider::OpenAi, "128000").contains("128000 tokens"));
        assert!(context_hint(Provider::Ollama, "32768").contains("OLLAMA_CONTEXT_LENGTH"), "Ollama's caveat always");
        assert_eq!(Provider::Ollama.context_window(), "4096");
    }

    #[test]
    fn the_page_own_address_is_not_taken_for_a_model_server() {
        assert!(is_page_origin("http://localhost:8080/v1", "http://127.0.0.1:8080"));
        assert!(is_page_origin("http://127.0.0.1:8765/v1/", "http://127.0.0.1:8765"));
        assert!(!is_page_origin("http://127.0.0.1:8081/v1", "http://127.0.0.1:8080"));
        assert!(!is_page_origin("https://api.openai.com/v1", "http://127.0.0.1:8765"));
        assert!(is_page_origin("https://example.org/v1", "https://example.org"));
        assert!(
            base_url_hint("http://localhost:8765/v1", "http://127.0.0.1:8765").unwrap().contains("not a model server")
        );
        assert_eq!(base_url_hint("", "http://127.0.0.1:8765"), None);
        // No preset points at the port `make play` serves the page on.
        for p in Provider::ALL {
            assert!(!p.preset().0.contains(":8765"), "{p:?}");
        }
        assert_eq!(Provider::from_id("litellm").preset().0, "http://localhost:4000/v1");
    }
}
