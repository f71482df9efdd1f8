//! Budgets, enforced before every call: a decorator over any [`Llm`] that refuses the request which could go over.
//!
//! [`Budgeted`] checks each request before it is sent: one more call against [`Budget::max_calls`]; the tokens used
//! so far plus the request's [estimated](super::estimate) prompt and its whole `max_tokens` against
//! [`Budget::max_tokens`]; the same in dollars against [`Budget::max_cost`] when the model has a
//! [price](super::price); the wall time so far against [`Budget::max_seconds`]. A request that could go over is not
//! sent: the call fails with [`LlmError::BudgetExhausted`]. A run therefore ends within its budget, except by the
//! error of the estimate and, for requests without `max_tokens`, by at most one answer.
//!
//! Defaults (also in the README): 300 calls, 2,000,000 tokens, 30 minutes, no money limit. A full ACR run with
//! review takes 20 to 60 calls; an MCTS run up to about 250.

use std::cell::Cell;
use std::fmt;
use std::future::Future;
use std::rc::Rc;

use serde::{Deserialize, Serialize};

use super::price::Price;
use super::{ChatRequest, ChatResponse, Llm, LlmError, Usage, estimate};

/// Milliseconds from some fixed origin; supplied by the host (the core reads no clock).
pub type Clock = Box<dyn Fn() -> f64>;

/// Limits of one run; `None` is no limit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Budget {
    /// Model calls.
    pub max_calls: Option<u64>,
    /// Tokens in and out, summed over calls.
    pub max_tokens: Option<u64>,
    /// Wall time from the first call, in seconds.
    pub max_seconds: Option<f64>,
    /// US dollars, at the model's price.
    pub max_cost: Option<f64>,
}

impl Default for Budget {
    fn default() -> Self {
        Budget { max_calls: Some(300), max_tokens: Some(2_000_000), max_seconds: Some(1800.0), max_cost: None }
    }
}

impl Budget {
    /// No limits at all.
    pub fn unlimited() -> Self {
        Budget { max_calls: None, max_tokens: None, max_seconds: None, max_cost: None }
    }

    /// Checks that the budget can be enforced for a model: a money limit needs the model's price.
    pub fn check(&self, model: &str, price: Option<Price>) -> Result<(), String> {
        match (self.max_cost, price) {
            (Some(_), None) => Err(format!(
                "a money budget needs a price for `{model}`: give one as MODEL=IN/OUT dollars per million tokens"
            )),
            _ => Ok(()),
        }
    }
}

/// Which limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    /// Model calls.
    Calls,
    /// Tokens in and out.
    Tokens,
    /// Wall time.
    Seconds,
    /// Money.
    Cost,
}

impl Limit {
    /// How an amount of this limit is written.
    pub fn amount(self, value: f64) -> String {
        match self {
            Limit::Calls => format!("{value:.0} calls"),
            Limit::Tokens => format!("{value:.0} tokens"),
            Limit::Seconds => format!("{value:.0} s"),
            Limit::Cost => format!("${value:.4}"),
        }
    }
}

/// A limit reached: the request that would pass it was not sent.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Exhausted {
    /// Which limit.
    pub what: Limit,
    /// Used so far.
    pub used: f64,
    /// What the next request needed at most (zero for wall time).
    pub needed: f64,
    /// The limit.
    pub limit: f64,
}

// Amounts are finite numbers compared for reporting, never NaN.
impl Eq for Exhausted {}

impl fmt::Display for Exhausted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = self.what;
        write!(f, "budget exhausted: {} used of {}", what.amount(self.used), what.amount(self.limit))?;
        if self.needed > 0.0 && what != Limit::Calls {
            write!(f, ", and the next request could take up to {} more", what.amount(self.needed))?;
        }
        Ok(())
    }
}

/// What a run has used so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Spent {
    /// Calls answered.
    pub calls: u64,
    /// Tokens in and out.
    pub usage: Usage,
    /// Dollars, when the model has a price.
    pub cost: f64,
    /// Seconds since the first call.
    pub seconds: f64,
    /// Some token counts are estimates (the server sent none).
    pub estimated: bool,
}

impl Spent {
    /// Tokens in and out.
    pub fn tokens(&self) -> u64 {
        self.usage.prompt_tokens + self.usage.completion_tokens
    }
}

/// A model whose calls are counted and refused past a [`Budget`].
pub struct Budgeted<L> {
    inner: L,
    budget: Budget,
    price: Option<Price>,
    clock: Clock,
    started: Cell<Option<f64>>,
    spent: Rc<Cell<Spent>>,
}

impl<L: Llm> Budgeted<L> {
    /// `inner` under `budget`, priced at `price` (money is not counted without one), timed by `clock`.
    pub fn new(inner: L, budget: Budget, price: Option<Price>, clock: Clock) -> Self {
        Budgeted { inner, budget, price, clock, started: Cell::new(None), spent: Rc::default() }
    }

    /// The budget.
    pub fn budget(&self) -> Budget {
        self.budget
    }

    /// A live view of what has been used, for meters.
    pub fn meter(&self) -> Rc<Cell<Spent>> {
        self.spent.clone()
    }

    /// What has been used so far.
    pub fn spent(&self) -> Spent {
        self.spent.get()
    }

    /// Whether `request` fits what is left; the limit it would pass otherwise.
    pub fn admit(&self, request: &ChatRequest) -> Result<(), Exhausted> {
        let spent = self.spent.get();
        let over = |what, used: f64, needed: f64, limit: Option<f64>| match limit {
            Some(limit) if used + needed > limit => Err(Exhausted { what, used, needed, limit }),
            _ => Ok(()),
        };
        let b = &self.budget;
        over(Limit::Calls, spent.calls as f64, 1.0, b.max_calls.map(|l| l as f64))?;
        let seconds = self.started.get().map_or(0.0, |t| ((self.clock)() - t) / 1000.0);
        if let Some(limit) = b.max_seconds.filter(|&l| seconds >= l) {
            return Err(Exhausted { what: Limit::Seconds, used: seconds, needed: 0.0, limit });
        }
        let most = Usage {
            prompt_tokens: estimate::request_tokens(request),
            completion_tokens: request.max_tokens.map_or(0, u64::from),
        };
        let tokens = (most.prompt_tokens + most.completion_tokens) as f64;
        over(Limit::Tokens, spent.tokens() as f64, tokens, b.max_tokens.map(|l| l as f64))?;
        if let Some(price) = self.price {
            over(Limit::Cost, spent.cost, price.cost(most), b.max_cost)?;
        }
        Ok(())
    }

    async fn chat_within(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        self.admit(request).map_err(LlmError::BudgetExhausted)?;
        let now = (self.clock)();
        let started = self.started.get().unwrap_or(now);
        self.started.set(Some(started));
        let answer = self.inner.chat(request).await;
        let mut spent = self.spent.get();
        spent.seconds = ((self.clock)() - started) / 1000.0;
        match &answer {
            Ok(answer) => {
                spent.calls += 1;
                spent.usage += answer.usage;
                spent.cost += self.price.map_or(0.0, |p| p.cost(answer.usage));
                spent.estimated |= answer.usage_estimated;
            }
            // A call that reached the server and failed (a time-out, an error status) is a call spent: a server that
            // fails every call still ends the run at the call limit.
            Err(LlmError::Timeout | LlmError::Http { .. } | LlmError::Malformed(_)) => spent.calls += 1,
            Err(_) => {}
        }
        self.spent.set(spent);
        answer
    }
}

impl<L: Llm> Llm for Budgeted<L> {
    fn context_window(&self) -> impl Future<Output = Option<u64>> {
        self.inner.context_window()
    }
    fn chat(&self, request: &ChatRequest) -> impl Future<Output = Result<ChatResponse, LlmError>> {
        self.chat_within(request)
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use pollster::block_on;

    use super::*;
    use crate::llm::scripted::{Script, ScriptedModel};
    use crate::llm::{Message, Stage};

    fn model(budget: Budget, price: Option<Price>) -> Budgeted<ScriptedModel> {
        let script = Script { repeat_last: true, ..Script::default() }.answer(Stage::Search, "x".repeat(400));
        Budgeted::new(ScriptedModel::new(script), budget, price, Box::new(|| 0.0))
    }

    fn request(max_tokens: Option<u32>) -> ChatRequest {
        ChatRequest { max_tokens, ..ChatRequest::new(Stage::Search, vec![Message::user("y".repeat(400))]) }
    }

    #[test]
    fn calls_stop_at_the_limit() {
        let m = model(Budget { max_calls: Some(2), ..Budget::unlimited() }, None);
        assert!(block_on(m.chat(&request(None))).is_ok());
        assert!(block_on(m.chat(&request(None))).is_ok());
        let err = block_on(m.chat(&request(None))).unwrap_err();
        let LlmError::BudgetExhausted(e) = &err else { panic!("{err:?}") };
        assert_eq!((e.what, e.used, e.limit), (Limit::Calls, 2.0, 2.0));
        assert_eq!(err.to_string(), "budget exhausted: 2 calls used of 2 calls");
        assert_eq!(m.spent().calls, 2);
    }

    #[test]
    fn tokens_are_checked_with_the_request_and_its_max_tokens() {
        // Each exchange: 100 + 4 tokens in, 100 out (the scripted model's estimate).
        let m = model(Budget { max_tokens: Some(500), ..Budget::unlimited() }, None);
        assert!(block_on(m.chat(&request(None))).is_ok());
        assert_eq!(m.spent().tokens(), 204);
        // 204 used + 104 prompt + 200 max_tokens > 500: refused before sending.
        let err = block_on(m.chat(&request(Some(200)))).unwrap_err();
        assert!(matches!(err, LlmError::BudgetExhausted(Exhausted { what: Limit::Tokens, .. })), "{err}");
        assert_eq!(m.spent().calls, 1, "the refused request was not sent");
        assert!(block_on(m.chat(&request(None))).is_ok(), "a request that fits is still sent");
        assert!(m.spent().tokens() <= 500);
    }

    #[test]
    fn money_is_checked_at_the_models_price() {
        let price = Price { input: 1_000.0, output: 1_000.0 }; // $0.001 a token
        let m = model(Budget { max_cost: Some(0.5), ..Budget::unlimited() }, Some(price));
        assert!(block_on(m.chat(&request(Some(50)))).is_ok());
        assert!((m.spent().cost - 0.204).abs() < 1e-9);
        let err = block_on(m.chat(&request(Some(300)))).unwrap_err();
        assert!(err.to_string().starts_with("budget exhausted: $0.2040 used of $0.5000"), "{err}");
        assert!(
            Budget { max_cost: Some(1.0), ..Budget::unlimited() }.check("local", None).unwrap_err().contains("price")
        );
    }

    #[test]
    fn wall_time_counts_from_the_first_call() {
        let now = Rc::new(RefCell::new(5_000.0));
        let clock = now.clone();
        let script = Script { repeat_last: true, ..Script::default() }.answer(Stage::Search, "ok");
        let m = Budgeted::new(
            ScriptedModel::new(script),
            Budget { max_seconds: Some(10.0), ..Budget::unlimited() },
            None,
            Box::new(move || *clock.borrow()),
        );
        assert!(block_on(m.chat(&request(None))).is_ok());
        *now.borrow_mut() = 14_000.0;
        assert!(block_on(m.chat(&request(None))).is_ok());
        *now.borrow_mut() = 15_000.0;
        let err = block_on(m.chat(&request(None))).unwrap_err();
        assert_eq!(err.to_string(), "budget exhausted: 10 s used of 10 s");
    }
}
