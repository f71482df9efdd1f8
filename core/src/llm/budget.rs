//! Budgets, enforced before every call: a decorator over any [`Llm`] that refuses the request which could go over.
//!
//! [`Budget::admit`] decides for each request before it is sent, from what has been used (and, for a budget shared
//! by several workers, what the requests in flight hold): one more call against [`Budget::max_calls`]; the tokens
//! used plus the request's [estimated](super::estimate) prompt and the answer cap it is sent with against
//! [`Budget::max_tokens`]; the same in dollars against [`Budget::max_cost`] when the model has a
//! [price](super::price); the wall time against [`Budget::max_seconds`]. What does not fit is cut rather than
//! refused while it can be: the answer cap to the tokens (and dollars) left, down to [`window::MIN_ANSWER`], and the
//! request's time-out to the time left. A request that cannot fit even so is not sent: the call fails with
//! [`LlmError::BudgetExhausted`].
//!
//! **The bound.** A server bills at most the answer cap it was sent, so calls and tokens end within their limits
//! except by the estimate's error on prompts (the estimate counts four characters a token; a server's tokenizer
//! may count more), and dollars likewise at the model's price. Wall time ends within its limit except by the time
//! a call's failed attempts took before they were retried (the client cannot measure them; refusals and failed
//! connections come back fast), since the time-out sent is what was left.
//!
//! Defaults (also in the README): 300 calls, 2,000,000 tokens, 30 minutes, no money limit. A full ACR run with
//! review takes 20 to 60 calls; an MCTS run up to about 250.

use std::cell::Cell;
use std::fmt;
use std::future::Future;
use std::rc::Rc;

use serde::{Deserialize, Serialize};

use super::price::Price;
use super::{ChatRequest, ChatResponse, Llm, LlmError, Usage, estimate, window};

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

    /// Whether `request` fits what is left after `used`: the grant it may be sent with (its answer cap and
    /// time-out cut to what is left), or the limit it would pass. One rule for every budget: a run's own
    /// ([`Budgeted`]) and a batch's, shared by its workers.
    pub fn admit(&self, price: Option<Price>, used: Used, request: &ChatRequest) -> Result<Grant, Exhausted> {
        if let Some(limit) = self.max_calls.filter(|&l| used.calls + 1 > l) {
            return Err(Exhausted { what: Limit::Calls, used: used.calls as f64, needed: 1.0, limit: limit as f64 });
        }
        let mut timeout_ms = request.timeout_ms;
        if let Some(limit) = self.max_seconds {
            let left = limit - used.seconds;
            if left <= 0.0 {
                return Err(Exhausted { what: Limit::Seconds, used: used.seconds, needed: 0.0, limit });
            }
            let left_ms = (left * 1000.0).ceil() as u64;
            timeout_ms = Some(timeout_ms.map_or(left_ms, |t| t.min(left_ms)));
        }
        let prompt = estimate::request_tokens(request);
        let asked = request.answer_cap();
        // An answer cut below this is not worth its prompt: the request is refused instead.
        let least = u64::from(asked).min(window::MIN_ANSWER);
        let mut cap = u64::from(asked);
        if let Some(limit) = self.max_tokens {
            let room = limit.saturating_sub(used.tokens + prompt);
            if room < least {
                let (used, needed) = (used.tokens as f64, (prompt + least) as f64);
                return Err(Exhausted { what: Limit::Tokens, used, needed, limit: limit as f64 });
            }
            cap = cap.min(room);
        }
        if let (Some(limit), Some(price)) = (self.max_cost, price) {
            let prompt_cost = price.cost(Usage { prompt_tokens: prompt, completion_tokens: 0 });
            let left = limit - used.cost - prompt_cost;
            // Tokens of answer the dollars left pay for (all of them when answers cost nothing).
            let room =
                if price.output > 0.0 { (left.max(0.0) * 1_000_000.0 / price.output).floor() as u64 } else { cap };
            if room < least || left < 0.0 {
                let needed = prompt_cost + price.cost(Usage { prompt_tokens: 0, completion_tokens: least });
                return Err(Exhausted { what: Limit::Cost, used: used.cost, needed, limit });
            }
            cap = cap.min(room);
        }
        let most = Usage { prompt_tokens: prompt, completion_tokens: cap };
        let answer_cap = u32::try_from(cap).unwrap_or(asked);
        Ok(Grant { most, cost: price.map_or(0.0, |p| p.cost(most)), answer_cap, cut: answer_cap < asked, timeout_ms })
    }
}

/// What a budget counts as used when it decides on the next request: what was spent, plus, for a budget shared by
/// workers calling at once, what the requests in flight hold.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Used {
    /// Model calls (in flight included).
    pub calls: u64,
    /// Tokens in and out.
    pub tokens: u64,
    /// Dollars.
    pub cost: f64,
    /// Seconds of wall time the limit counts.
    pub seconds: f64,
}

/// What an admitted request may take at most, and what it is sent with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Grant {
    /// Its estimated prompt and the answer cap it is sent with: the most it can be billed.
    pub most: Usage,
    /// The dollars of `most` at the model's price (zero without one).
    pub cost: f64,
    /// The answer cap it is sent with.
    pub answer_cap: u32,
    /// Whether the answer cap was cut to what is left.
    pub cut: bool,
    /// The time-out it is sent with, cut to the time left (`None`: the client's own).
    pub timeout_ms: Option<u64>,
}

impl Grant {
    /// Tokens in and out at most.
    pub fn tokens(&self) -> u64 {
        self.most.prompt_tokens + self.most.completion_tokens
    }

    /// `request` as it may be sent: with the answer cap and the time-out granted.
    pub fn apply(&self, request: &ChatRequest) -> ChatRequest {
        ChatRequest {
            max_tokens: if self.cut { Some(self.answer_cap) } else { request.max_tokens },
            timeout_ms: self.timeout_ms,
            ..request.clone()
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
            write!(f, ", and the next request needs at least {} more", what.amount(self.needed))?;
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

    /// What `request` may be sent with, or the limit it would pass.
    pub fn admit(&self, request: &ChatRequest) -> Result<Grant, Exhausted> {
        let spent = self.spent.get();
        let seconds = self.started.get().map_or(0.0, |t| ((self.clock)() - t) / 1000.0);
        let used = Used { calls: spent.calls, tokens: spent.tokens(), cost: spent.cost, seconds };
        self.budget.admit(self.price, used, request)
    }

    async fn chat_within(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let grant = self.admit(request).map_err(LlmError::BudgetExhausted)?;
        let now = (self.clock)();
        let started = self.started.get().unwrap_or(now);
        self.started.set(Some(started));
        let answer = self.inner.chat(&grant.apply(request)).await;
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
    fn takes_json_schema(&self) -> impl Future<Output = Option<bool>> {
        self.inner.takes_json_schema()
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

    /// A model that always answers to the cap it is sent (the prompt billed as estimated), and keeps each request.
    #[derive(Default)]
    struct ToTheCap {
        seen: RefCell<Vec<ChatRequest>>,
    }

    impl Llm for ToTheCap {
        async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
            self.seen.borrow_mut().push(request.clone());
            let usage = Usage {
                prompt_tokens: estimate::request_tokens(request),
                completion_tokens: u64::from(request.answer_cap()),
            };
            Ok(ChatResponse::new("x", usage, None))
        }
    }

    fn to_the_cap(budget: Budget, price: Option<Price>) -> Budgeted<ToTheCap> {
        Budgeted::new(ToTheCap::default(), budget, price, Box::new(|| 0.0))
    }

    /// 100 tokens of prompt plus 4 for the message (the estimate).
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
    fn the_answer_cap_is_cut_to_the_tokens_left_and_a_model_answering_to_it_never_passes_the_limit() {
        let m = to_the_cap(Budget { max_tokens: Some(2_000), ..Budget::unlimited() }, None);
        let mut refused = None;
        for _ in 0..10 {
            match block_on(m.chat(&request(None))) {
                Ok(_) => assert!(m.spent().tokens() <= 2_000, "{:?}", m.spent()),
                Err(e) => {
                    refused = Some(e);
                    break;
                }
            }
        }
        let caps: Vec<Option<u32>> = m.inner.seen.borrow().iter().map(|r| r.max_tokens).collect();
        // 104 + 1,536 (the search stage's cap) fit; then 104 + 256 left; then 104 + 128 is more than is left.
        assert_eq!(caps, [None, Some(256)], "the stage's own cap, then the rest");
        assert_eq!(m.spent().tokens(), 2_000, "spent to the last token, not past it");
        let Some(LlmError::BudgetExhausted(e)) = refused else { panic!("{refused:?}") };
        assert_eq!((e.what, e.used, e.needed), (Limit::Tokens, 2_000.0, 232.0));
        assert_eq!(
            e.to_string(),
            "budget exhausted: 2000 tokens used of 2000 tokens, and the next request needs at least 232 tokens more"
        );
    }

    #[test]
    fn a_request_asking_for_less_than_the_least_answer_is_sent_while_it_fits() {
        let m = to_the_cap(Budget { max_tokens: Some(200), ..Budget::unlimited() }, None);
        assert!(block_on(m.chat(&request(Some(50)))).is_ok(), "104 + 50 fit in 200");
        assert_eq!(m.inner.seen.borrow()[0].max_tokens, Some(50));
        assert!(block_on(m.chat(&request(Some(50)))).is_err(), "154 + 104 + 50 do not");
    }

    #[test]
    fn money_cuts_the_answer_cap_to_the_dollars_left() {
        let price = Price { input: 1_000.0, output: 2_000.0 }; // $0.001 a token in, $0.002 out
        let m = to_the_cap(Budget { max_cost: Some(1.0), ..Budget::unlimited() }, Some(price));
        let grant = m.admit(&request(None)).unwrap();
        // $1 - $0.104 of prompt pays for 448 tokens of answer.
        assert_eq!((grant.answer_cap, grant.cut), (448, true));
        assert!((grant.cost - 1.0).abs() < 1e-9, "{grant:?}");
        assert!(block_on(m.chat(&request(None))).is_ok());
        assert!(m.spent().cost <= 1.0 + 1e-9, "{:?}", m.spent());
        let err = block_on(m.chat(&request(None))).unwrap_err();
        assert!(err.to_string().starts_with("budget exhausted: $1.0000 used of $1.0000"), "{err}");
        assert!(
            Budget { max_cost: Some(1.0), ..Budget::unlimited() }.check("local", None).unwrap_err().contains("price")
        );
    }

    #[test]
    fn wall_time_counts_from_the_first_call_and_cuts_the_time_out() {
        let now = Rc::new(RefCell::new(5_000.0));
        let clock = now.clone();
        let m = Budgeted::new(
            ToTheCap::default(),
            Budget { max_seconds: Some(10.0), ..Budget::unlimited() },
            None,
            Box::new(move || *clock.borrow()),
        );
        assert!(block_on(m.chat(&request(None))).is_ok());
        *now.borrow_mut() = 14_000.0;
        assert!(block_on(m.chat(&request(None))).is_ok());
        let sent: Vec<Option<u64>> = m.inner.seen.borrow().iter().map(|r| r.timeout_ms).collect();
        assert_eq!(sent, [Some(10_000), Some(1_000)], "each request may take only the time left");
        *now.borrow_mut() = 15_000.0;
        let err = block_on(m.chat(&request(None))).unwrap_err();
        assert_eq!(err.to_string(), "budget exhausted: 10 s used of 10 s");
    }
}
