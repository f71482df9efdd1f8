//! A model that answers from a script: for each [`Stage`], a list of answers given in order.
//!
//! Scripts drive every loop end to end without a network (tests, the playground's offline demo, the mock
//! chat-completions server of the end-to-end tests). When a stage's answers run out, the last one is repeated if
//! the script says `repeat_last`, otherwise the call fails with [`LlmError::ScriptExhausted`].
//!
//! Offered tools, a scripted model uses them as a tool-calling model would: the search calls an answer names come
//! back as [`super::ToolCall`]s as well ([`super::tools::calls_in`]), so one script drives both ways of searching.
//! A script cannot be held to a JSON schema, and the model says so ([`Llm::takes_json_schema`]): requests to it carry
//! none, and its answers are not marked constrained. Served over HTTP (`acr serve-model`), the server it plays says
//! what that server would.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::future::Future;

use serde::{Deserialize, Serialize};

use super::{ChatRequest, ChatResponse, Llm, LlmError, Stage, Usage, estimate};

/// The script: answers per stage.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Script {
    /// Answers for each stage, used in order.
    pub answers: BTreeMap<Stage, Vec<String>>,
    /// Repeat a stage's last answer once its list is used up.
    #[serde(default)]
    pub repeat_last: bool,
}

impl Script {
    /// Adds an answer for a stage (builder style).
    pub fn answer(mut self, stage: Stage, text: impl Into<String>) -> Self {
        self.answers.entry(stage).or_default().push(text.into());
        self
    }

    /// Parses a script from JSON: `{"answers": {"search": ["..."], ...}, "repeat_last": false}`.
    pub fn from_json(text: &str) -> Result<Script, String> {
        serde_json::from_str(text).map_err(|e| format!("not a valid model script: {e}"))
    }
}

/// A model that plays a [`Script`].
#[derive(Debug, Default)]
pub struct ScriptedModel {
    script: Script,
    used: RefCell<BTreeMap<Stage, usize>>,
}

impl ScriptedModel {
    /// A model playing `script`.
    pub fn new(script: Script) -> Self {
        ScriptedModel { script, used: RefCell::default() }
    }

    /// The next answer for a stage.
    pub fn next(&self, stage: Stage) -> Result<String, LlmError> {
        let answers = self.script.answers.get(&stage).filter(|a| !a.is_empty());
        let Some(answers) = answers else { return Err(LlmError::ScriptExhausted(stage)) };
        let mut used = self.used.borrow_mut();
        let n = used.entry(stage).or_default();
        let answer = match answers.get(*n) {
            Some(a) => a,
            None if self.script.repeat_last => answers.last().expect("non-empty"),
            None => return Err(LlmError::ScriptExhausted(stage)),
        };
        *n += 1;
        Ok(answer.clone())
    }
}

impl Llm for ScriptedModel {
    fn chat(&self, request: &ChatRequest) -> impl Future<Output = Result<ChatResponse, LlmError>> {
        let answer = self.next(request.stage).map(|text| {
            // Scripts hold answers as servers send them, thinking included; usage is estimated so meters move.
            let mut answer = ChatResponse::new(&text, Usage::default(), None);
            if !request.tools.is_empty() {
                answer.tool_calls = super::tools::calls_in(&answer.content);
            }
            estimate::fill_missing_usage(&mut answer, request);
            answer
        });
        async move { answer }
    }

    fn takes_json_schema(&self) -> impl Future<Output = Option<bool>> {
        std::future::ready(Some(false))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::Message;
    use pollster::block_on;

    #[test]
    fn answers_come_in_order_per_stage() {
        let model = ScriptedModel::new(Script::default().answer(Stage::Search, "a").answer(Stage::Search, "b"));
        let req = ChatRequest::new(Stage::Search, vec![Message::user("x")]);
        assert_eq!(block_on(model.chat(&req)).unwrap().content, "a");
        assert_eq!(block_on(model.chat(&req)).unwrap().content, "b");
        assert_eq!(block_on(model.chat(&req)).unwrap_err(), LlmError::ScriptExhausted(Stage::Search));
        let other = ChatRequest::new(Stage::Patch, vec![]);
        assert_eq!(block_on(model.chat(&other)).unwrap_err(), LlmError::ScriptExhausted(Stage::Patch));
    }

    #[test]
    fn scripts_parse_from_json() {
        let s = Script::from_json(r#"{"answers": {"rate": ["80"]}, "repeat_last": true}"#).unwrap();
        let model = ScriptedModel::new(s);
        assert_eq!(model.next(Stage::Rate).unwrap(), "80");
        assert_eq!(model.next(Stage::Rate).unwrap(), "80");
        assert!(Script::from_json(r#"{"answers": {"nope": []}}"#).unwrap_err().contains("not a valid model script"));
    }
}
