//! One budget for a whole batch, shared by its workers.
//!
//! Each worker thread drives its own agent (the core's futures are not `Send`), and each task keeps its own
//! [`Budgeted`](acr_core::llm::budget::Budgeted) limits as `acr run` does. In front of every task's model sits a
//! [`Gate`] on the batch's [`BatchBudget`]: before a request is sent it reserves what the request could take at most
//! (one call, its estimated prompt and its whole `max_tokens`, their price), so workers calling at the same time
//! can never pass a limit together; when the answer comes back the reservation is replaced by what was used. A
//! request that could go over is refused with [`LlmError::BudgetExhausted`], so a running task stops at its next
//! call, and [`BatchBudget::reached`] keeps new tasks from starting once a limit is spent.

use std::cell::Cell;
use std::rc::Rc;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use acr_core::llm::budget::{Budget, Exhausted, Limit};
use acr_core::llm::price::Price;
use acr_core::llm::{ChatRequest, ChatResponse, Llm, LlmError, Usage, estimate};
use serde::Serialize;

/// What the batch has used, in this invocation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Totals {
    /// Model calls that reached the server.
    pub calls: u64,
    /// Tokens in and out.
    pub usage: Usage,
    /// Dollars, when the model has a price.
    pub cost: f64,
    /// Seconds since the batch started.
    pub seconds: f64,
    /// Some token counts are estimates (the server sent none).
    pub estimated: bool,
}

impl Totals {
    /// Tokens in and out.
    pub fn tokens(&self) -> u64 {
        self.usage.prompt_tokens + self.usage.completion_tokens
    }
}

#[derive(Debug, Default)]
struct State {
    used: Totals,
    /// Requests sent and not answered yet.
    in_flight: u64,
    /// The most tokens and dollars the requests in flight can still take.
    held_tokens: u64,
    held_cost: f64,
}

/// The batch's limits and what has been used against them, shared by every worker.
#[derive(Debug)]
pub struct BatchBudget {
    limits: Budget,
    price: Option<Price>,
    started: Instant,
    state: Mutex<State>,
}

/// What one admitted request has reserved, given back (as what it used) when it ends.
#[derive(Debug)]
struct Hold<'a> {
    budget: &'a BatchBudget,
    tokens: u64,
    cost: f64,
    answer: Option<(u64, Usage, bool)>,
}

impl Drop for Hold<'_> {
    fn drop(&mut self) {
        let mut state = self.budget.lock();
        state.in_flight -= 1;
        state.held_tokens -= self.tokens;
        state.held_cost = (state.held_cost - self.cost).max(0.0);
        if let Some((calls, usage, estimated)) = self.answer {
            state.used.calls += calls;
            state.used.usage += usage;
            state.used.cost += self.budget.price.map_or(0.0, |p| p.cost(usage));
            state.used.estimated |= estimated;
        }
    }
}

impl BatchBudget {
    /// A budget of `limits` for the batch, priced at `price`, its wall time counted from now.
    pub fn new(limits: Budget, price: Option<Price>) -> Arc<BatchBudget> {
        Arc::new(BatchBudget { limits, price, started: Instant::now(), state: Mutex::default() })
    }

    /// The limits.
    pub fn limits(&self) -> Budget {
        self.limits
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// What has been used so far (requests in flight not included).
    pub fn totals(&self) -> Totals {
        Totals { seconds: self.started.elapsed().as_secs_f64(), ..self.lock().used }
    }

    /// The limit already spent, if one is: no task starts then. Calls in flight count as spent (they will be).
    pub fn reached(&self) -> Option<Exhausted> {
        let state = self.lock();
        let b = &self.limits;
        let at = |what, used: f64, limit: Option<f64>| match limit {
            Some(limit) if used >= limit => Some(Exhausted { what, used, needed: 0.0, limit }),
            _ => None,
        };
        at(Limit::Calls, (state.used.calls + state.in_flight) as f64, b.max_calls.map(|l| l as f64))
            .or_else(|| at(Limit::Tokens, state.used.tokens() as f64, b.max_tokens.map(|l| l as f64)))
            .or_else(|| at(Limit::Cost, state.used.cost, b.max_cost))
            .or_else(|| at(Limit::Seconds, self.started.elapsed().as_secs_f64(), b.max_seconds))
    }

    /// Reserves what `request` could take, or names the limit it could pass.
    fn admit(&self, request: &ChatRequest) -> Result<Hold<'_>, Exhausted> {
        let mut state = self.lock();
        let b = &self.limits;
        let over = |what, used: f64, needed: f64, limit: Option<f64>| match limit {
            Some(limit) if used + needed > limit => Err(Exhausted { what, used, needed, limit }),
            _ => Ok(()),
        };
        over(Limit::Calls, (state.used.calls + state.in_flight) as f64, 1.0, b.max_calls.map(|l| l as f64))?;
        let seconds = self.started.elapsed().as_secs_f64();
        if let Some(limit) = b.max_seconds.filter(|&l| seconds >= l) {
            return Err(Exhausted { what: Limit::Seconds, used: seconds, needed: 0.0, limit });
        }
        let most = Usage {
            prompt_tokens: estimate::request_tokens(request),
            completion_tokens: request.max_tokens.map_or(0, u64::from),
        };
        let tokens = most.prompt_tokens + most.completion_tokens;
        let held = (state.used.tokens() + state.held_tokens) as f64;
        over(Limit::Tokens, held, tokens as f64, b.max_tokens.map(|l| l as f64))?;
        let cost = self.price.map_or(0.0, |p| p.cost(most));
        if self.price.is_some() {
            over(Limit::Cost, state.used.cost + state.held_cost, cost, b.max_cost)?;
        }
        state.in_flight += 1;
        state.held_tokens += tokens;
        state.held_cost += cost;
        Ok(Hold { budget: self, tokens, cost, answer: None })
    }
}

/// A task's model behind the batch's budget. `refused` is set when the batch budget (not the task's own) refused a
/// request, so the batch can tell a task it stopped from one that ended on its own.
pub struct Gate<L> {
    pub inner: L,
    pub budget: Arc<BatchBudget>,
    pub refused: Rc<Cell<Option<Exhausted>>>,
}

impl<L: Llm> Llm for Gate<L> {
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let mut hold = match self.budget.admit(request) {
            Ok(hold) => hold,
            Err(e) => {
                self.refused.set(Some(e));
                return Err(LlmError::BudgetExhausted(e));
            }
        };
        let answer = self.inner.chat(request).await;
        hold.answer = match &answer {
            Ok(answer) => Some((1, answer.usage, answer.usage_estimated)),
            // As the task's own budget counts them: a call that reached the server and failed is a call spent.
            Err(LlmError::Timeout | LlmError::Http { .. } | LlmError::Malformed(_)) => {
                Some((1, Usage::default(), false))
            }
            Err(_) => None,
        };
        answer
    }
    async fn context_window(&self) -> Option<u64> {
        self.inner.context_window().await
    }
}

#[cfg(test)]
mod tests {
    use acr_core::llm::scripted::{Script, ScriptedModel};
    use acr_core::llm::{Message, Stage};
    use pollster::block_on;

    use super::*;

    fn gate(budget: &Arc<BatchBudget>) -> Gate<ScriptedModel> {
        let script = Script { repeat_last: true, ..Script::default() }.answer(Stage::Search, "x".repeat(400));
        Gate { inner: ScriptedModel::new(script), budget: budget.clone(), refused: Rc::default() }
    }

    fn request() -> ChatRequest {
        ChatRequest::new(Stage::Search, vec![Message::user("y".repeat(400))])
    }

    #[test]
    fn calls_are_shared_between_tasks_and_refused_past_the_limit() {
        let budget = BatchBudget::new(Budget { max_calls: Some(3), ..Budget::unlimited() }, None);
        let (a, b) = (gate(&budget), gate(&budget));
        assert!(block_on(a.chat(&request())).is_ok());
        assert!(block_on(b.chat(&request())).is_ok());
        assert!(budget.reached().is_none());
        assert!(block_on(a.chat(&request())).is_ok());
        let err = block_on(b.chat(&request())).unwrap_err();
        assert!(matches!(err, LlmError::BudgetExhausted(Exhausted { what: Limit::Calls, .. })), "{err}");
        assert!(b.refused.get().is_some() && a.refused.get().is_none());
        assert_eq!(budget.reached().map(|e| e.what), Some(Limit::Calls));
        assert_eq!(budget.totals().calls, 3);
        assert_eq!(budget.totals().tokens(), 3 * 204);
    }

    #[test]
    fn requests_in_flight_hold_their_most_until_they_end() {
        let budget = BatchBudget::new(Budget { max_tokens: Some(300), ..Budget::unlimited() }, None);
        let request = ChatRequest { max_tokens: Some(100), ..request() };
        let first = budget.admit(&request).expect("204 of 300 fits");
        let second = budget.admit(&request).unwrap_err();
        assert_eq!((second.what, second.used), (Limit::Tokens, 204.0), "the first request's most is held");
        drop(first);
        assert!(budget.admit(&request).is_ok(), "a request that ended without an answer gives its hold back");
        assert_eq!(budget.totals().tokens(), 0);
    }

    #[test]
    fn money_and_time_limits() {
        let price = Price { input: 1_000.0, output: 1_000.0 };
        let budget = BatchBudget::new(Budget { max_cost: Some(0.3), ..Budget::unlimited() }, Some(price));
        let g = gate(&budget);
        assert!(block_on(g.chat(&request())).is_ok());
        assert!((budget.totals().cost - 0.204).abs() < 1e-9);
        assert!(block_on(g.chat(&request())).is_err(), "0.204 + 0.104 > 0.3");
        let budget = BatchBudget::new(Budget { max_seconds: Some(0.0), ..Budget::unlimited() }, None);
        assert_eq!(budget.reached().map(|e| e.what), Some(Limit::Seconds));
    }
}
