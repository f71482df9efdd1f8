//! The model behind the agent, as a trait: chat messages in, text out.
//!
//! The core never performs I/O. [`Llm`] is implemented at the edges: [`openai::OpenAiClient`] speaks the
//! chat-completions protocol over any [`openai::Transport`] (the CLI's HTTP crate, the browser's fetch), and
//! [`scripted::ScriptedModel`] answers from a script keyed by the conversation [`Stage`], so every loop can be driven
//! end to end deterministically in tests and in the playground's offline demo.

pub mod budget;
pub mod estimate;
pub mod openai;
pub mod price;
pub mod reasoning;
pub mod repetition;
pub mod schema;
pub mod scripted;
pub mod sse;
pub mod stream;
pub mod tools;
pub mod window;
pub mod wire;

use std::fmt;
use std::future::Future;

use serde::{Deserialize, Serialize};

pub use schema::JsonSchema;
pub use tools::{Tool, ToolCall};

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions that frame the conversation.
    System,
    /// The agent's side: tasks, tool output, feedback.
    User,
    /// The model's side.
    Assistant,
    /// The result of a function the model called ([`ToolCall`]).
    Tool,
}

/// One chat message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// Author.
    pub role: Role,
    /// Text.
    pub content: String,
    /// Functions the model called in this (assistant) message.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// The call this (tool) message answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl Message {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Message::of(Role::System, content)
    }
    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Message::of(Role::User, content)
    }
    /// An assistant message.
    pub fn assistant(content: impl Into<String>) -> Self {
        Message::of(Role::Assistant, content)
    }
    /// The result of the tool call `id`.
    pub fn tool(id: impl Into<String>, content: impl Into<String>) -> Self {
        Message { tool_call_id: Some(id.into()), ..Message::of(Role::Tool, content) }
    }
    fn of(role: Role, content: impl Into<String>) -> Self {
        Message { role, content: content.into(), tool_calls: Vec::new(), tool_call_id: None }
    }
}

/// Which step of the repair the agent is asking about. Not sent to the model; it keys scripts and transcripts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Choose search API calls for the issue.
    Search,
    /// Analyse the results of the calls just made.
    Analyse,
    /// Decide: more context, or bug locations.
    Decide,
    /// Turn free text into `{"API_calls", "bug_locations"}` JSON.
    Proxy,
    /// Write a patch as `<file>/<original>/<patched>` blocks.
    Patch,
    /// Say whether the issue has a reproducible example.
    Reproducible,
    /// Write a standalone reproducer script.
    Reproducer,
    /// Judge a patch and a reproducer by their execution.
    Review,
    /// Rate a candidate patch from 0 to 100 (MCTS).
    Rate,
    /// Choose one patch among several workflow tries.
    Select,
}

/// The answer cap of each stage, in tokens: every request carries one, so a model that never stops (a small local
/// model repeating a phrase) is stopped by the server. Measured on AutoCodeRover's recorded GPT-4 answers
/// (`../shared/replay`, 2,111 answers at about four characters a token): the longest search answer took 687
/// tokens, analyse 1,135, decide 913, patch 1,291. Each cap is about twice the longest recorded answer of its stage,
/// rounded up; stages with no recording get room for what they ask for (a JSON object, a short script, a verdict).
const ANSWER_CAPS: [(Stage, u32); 10] = [
    (Stage::Search, 1_536),
    (Stage::Analyse, 2_048),
    (Stage::Decide, 2_048),
    (Stage::Proxy, 1_024),
    (Stage::Patch, 3_072),
    (Stage::Reproducible, 512),
    (Stage::Reproducer, 2_048),
    (Stage::Review, 1_536),
    (Stage::Rate, 512),
    (Stage::Select, 1_024),
];

impl Stage {
    /// Every stage, in pipeline order.
    pub const ALL: [Stage; 10] = [
        Stage::Search,
        Stage::Analyse,
        Stage::Decide,
        Stage::Proxy,
        Stage::Patch,
        Stage::Reproducible,
        Stage::Reproducer,
        Stage::Review,
        Stage::Rate,
        Stage::Select,
    ];

    /// The largest answer this stage asks for, in tokens (measured on recorded answers: see `ANSWER_CAPS` in this module).
    pub fn answer_cap(self) -> u32 {
        ANSWER_CAPS.iter().find(|(s, _)| *s == self).map_or(2_048, |(_, cap)| *cap)
    }

    /// The stage's snake_case name.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Search => "search",
            Stage::Analyse => "analyse",
            Stage::Decide => "decide",
            Stage::Proxy => "proxy",
            Stage::Patch => "patch",
            Stage::Reproducible => "reproducible",
            Stage::Reproducer => "reproducer",
            Stage::Review => "review",
            Stage::Rate => "rate",
            Stage::Select => "select",
        }
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A request to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// The conversation so far.
    pub messages: Vec<Message>,
    /// What the agent is asking for.
    pub stage: Stage,
    /// Sampling temperature; `None` leaves the server's default.
    pub temperature: Option<f32>,
    /// The JSON schema the answer must follow, sent as `response_format` for the server to constrain its decoding to
    /// ([`schema`]); `None` for an answer in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<JsonSchema>,
    /// Largest answer wanted, in tokens; `None` sends the stage's [`Stage::answer_cap`].
    pub max_tokens: Option<u32>,
    /// Functions the model may call; empty for a plain text answer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Tool>,
    /// Longest wait for the answer, in milliseconds, retries included; `None` leaves the client's own time-out. A
    /// budget with a time limit sets it to the time left ([`budget`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

impl ChatRequest {
    /// A request at a stage with default sampling.
    pub fn new(stage: Stage, messages: Vec<Message>) -> Self {
        ChatRequest {
            messages,
            stage,
            temperature: None,
            schema: None,
            max_tokens: None,
            tools: Vec::new(),
            timeout_ms: None,
        }
    }

    /// The same request with its answer constrained to `schema`.
    pub fn constrained(mut self, schema: JsonSchema) -> Self {
        self.schema = Some(schema);
        self
    }

    /// The answer cap sent with the request: [`ChatRequest::max_tokens`] or the stage's.
    pub fn answer_cap(&self) -> u32 {
        self.max_tokens.unwrap_or_else(|| self.stage.answer_cap())
    }

    /// The same request at a temperature.
    pub fn with_temperature(mut self, t: f32) -> Self {
        self.temperature = Some(t);
        self
    }
}

/// Token counts reported by the server (zero when it reports none).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens in the prompt.
    pub prompt_tokens: u64,
    /// Tokens in the answer.
    pub completion_tokens: u64,
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, rhs: Usage) {
        self.prompt_tokens += rhs.prompt_tokens;
        self.completion_tokens += rhs.completion_tokens;
    }
}

/// The model's answer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatResponse {
    /// The answer text.
    pub content: String,
    /// Token counts.
    pub usage: Usage,
    /// The model's thinking: a `reasoning_content` / `reasoning` field and any `<think>` blocks of the answer
    /// (see [`reasoning`]). Shown to people, never parsed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// The server sent no token counts; [`ChatResponse::usage`] is an [`estimate`].
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub usage_estimated: bool,
    /// Functions the model called (when the request offered [`ChatRequest::tools`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// The answer ended before the model finished it: what arrived is kept, and this says why it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut: Option<Cut>,
}

/// Why an answer ended before the model finished it. What arrived is kept and read like any answer; the agent asks
/// again, within the budget, when it cannot use it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "detail", rename_all = "snake_case")]
pub enum Cut {
    /// The answer reached its cap (`finish_reason: length`).
    Cap,
    /// The answer was still arriving when the time limit passed.
    Time,
    /// The answer was repeating itself and was stopped early; the repeats are left out.
    Loop,
    /// The answer broke off: the stream stopped without an end, or the connection failed while reading.
    Broken(String),
    /// The user stopped the run while the answer was arriving.
    Cancelled,
    /// No answer came: the call failed in a way another call may not (a time-out with nothing received, a body
    /// that is not a chat completion).
    Failed(String),
}

impl fmt::Display for Cut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cut::Cap => f.write_str("cut at its length cap"),
            Cut::Time => f.write_str("cut when the time limit passed while it was still arriving"),
            Cut::Loop => f.write_str("stopped early because it was repeating itself"),
            Cut::Broken(why) => write!(f, "broke off: {why}"),
            Cut::Cancelled => f.write_str("stopped by the user while it was arriving"),
            Cut::Failed(why) => write!(f, "no answer: {why}"),
        }
    }
}

/// Why a model call failed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LlmError {
    /// The server answered with an error status.
    Http {
        /// HTTP status code.
        status: u16,
        /// The server's message, shortened.
        message: String,
    },
    /// The key was refused (401/403, llama.cpp's `authentication_error`, LiteLLM's key answers).
    Auth(String),
    /// The server does not know the model asked for.
    ModelUnknown(String),
    /// The prompt is longer than the model's context window, as the server counted it.
    ContextOverflow(window::Overflow),
    /// Still rate limited after every retry.
    RateLimited(String),
    /// No answer within the time limit.
    Timeout,
    /// The request never reached a server (DNS, refused connection, CORS in a browser).
    Transport(String),
    /// The server answered 200 with a body that is not a chat completion.
    Malformed(String),
    /// A scripted model has no answer left for this stage.
    ScriptExhausted(Stage),
    /// The user stopped the run.
    Cancelled,
    /// The next request would go over the run's budget; it was not sent.
    BudgetExhausted(budget::Exhausted),
    /// The next request would not fit the model's context window; it was not sent.
    ContextWindow(window::TooLong),
}

impl fmt::Display for LlmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LlmError::Http { status, message } => write!(f, "the model server answered HTTP {status}: {message}"),
            LlmError::Auth(m) => write!(f, "the API key was refused: {m}"),
            LlmError::ModelUnknown(m) => write!(f, "the model server does not know this model: {m}"),
            LlmError::ContextOverflow(o) => o.fmt(f),
            LlmError::RateLimited(m) => write!(f, "rate limited by the model server after retrying: {m}"),
            LlmError::Timeout => write!(f, "the model server did not answer in time"),
            LlmError::Transport(m) => write!(f, "could not reach the model server: {m}"),
            LlmError::Malformed(m) => write!(f, "the model server's answer is not a chat completion: {m}"),
            LlmError::ScriptExhausted(s) => write!(f, "the scripted model has no answer left for stage `{s}`"),
            LlmError::Cancelled => write!(f, "stopped by the user"),
            LlmError::BudgetExhausted(e) => e.fmt(f),
            LlmError::ContextWindow(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for LlmError {}

impl LlmError {
    /// Whether no further call can succeed either: the key was refused, the model is unknown, or the server could
    /// not be reached or kept refusing for its rate limit after the client's retries. These end a run; every other
    /// failure is one failed call.
    pub fn is_fatal(&self) -> bool {
        matches!(
            self,
            LlmError::Auth(_) | LlmError::ModelUnknown(_) | LlmError::Transport(_) | LlmError::RateLimited(_)
        )
    }
}

/// A chat model. Futures need not be `Send`: the same agent runs in a browser tab.
pub trait Llm {
    /// Sends one request and waits for the answer.
    fn chat(&self, request: &ChatRequest) -> impl Future<Output = Result<ChatResponse, LlmError>>;

    /// The model's context window in tokens, when the server publishes it (llama.cpp's `/props`, Ollama's model
    /// information); asked once, before the first call. The default knows none.
    fn context_window(&self) -> impl Future<Output = Option<u64>> {
        std::future::ready(None)
    }

    /// Whether the server constrains an answer to the JSON schema a request carries ([`ChatRequest::schema`]), when
    /// it says so (llama.cpp's `/props`, Ollama's version); asked once, before the first call. The default knows
    /// nothing: the schema is sent, and a refusal of it is learned from ([`schema::refused`]).
    fn takes_json_schema(&self) -> impl Future<Output = Option<bool>> {
        std::future::ready(None)
    }
}

impl<L: Llm + ?Sized> Llm for &L {
    fn chat(&self, request: &ChatRequest) -> impl Future<Output = Result<ChatResponse, LlmError>> {
        (**self).chat(request)
    }
    fn context_window(&self) -> impl Future<Output = Option<u64>> {
        (**self).context_window()
    }
    fn takes_json_schema(&self) -> impl Future<Output = Option<bool>> {
        (**self).takes_json_schema()
    }
}
