//! One budget for a whole batch, shared by its workers and kept across invocations.
//!
//! Each worker thread drives its own agent (the core's futures are not `Send`), and each task keeps its own
//! [`Budgeted`](acr_core::llm::budget::Budgeted) limits as `acr run` does. In front of every task's model sits a
//! [`Gate`] on the batch's [`BatchBudget`]: before a request is sent, [`Budget::admit`] decides on it against what
//! was spent plus what the requests in flight hold, cutting its answer cap (and its time-out) to what is left, and
//! the batch reserves the most it can take (one call, its estimated prompt and the answer cap it is sent with,
//! their price); when the answer comes back the reservation is replaced by what was used. So workers calling at
//! once never pass a limit together: a server bills at most the cap it was sent, and the only slack is the prompt
//! estimate's error (see [`acr_core::llm::budget`]).
//!
//! Calls, tokens and dollars are counted over every invocation on the same folder: each reservation and each use is
//! a line of the journal ([`super::journal`]), read back on resume, so neither a resume nor a rerun of the same shard
//! starts from zero (a call in flight when the batch was killed counts as its whole reservation). The time limit is
//! each invocation's own wall time. The first refusal is remembered: [`BatchBudget::reached`] then keeps every new
//! task from starting, in this invocation and in the next ones while the same request would still not fit.

use std::cell::Cell;
use std::rc::Rc;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use acr_core::llm::budget::{Budget, Exhausted, Limit, Used};
use acr_core::llm::price::Price;
use acr_core::llm::{ChatRequest, ChatResponse, Llm, LlmError, Usage};

use super::health::Health;
use super::journal::{Entry, Journal, Spending};

#[derive(Debug, Default)]
struct State {
    /// What every invocation has used (this one's calls that ended included).
    used: Spending,
    /// What this invocation has used.
    this_run: Spending,
    /// Requests sent and not answered yet, and the most they can still take.
    in_flight: u64,
    held_tokens: u64,
    held_cost: f64,
    /// Calls admitted so far (numbers the journal's holds).
    admitted: u64,
    /// The first refusal, after which no task starts.
    refused: Option<Exhausted>,
}

/// The batch's limits and what has been used against them, shared by every worker.
pub struct BatchBudget {
    limits: Budget,
    price: Option<Price>,
    started: Instant,
    journal: Arc<Journal>,
    state: Mutex<State>,
}

/// What one admitted request has reserved, given back (as what it used) when it ends.
struct Hold<'a> {
    budget: &'a BatchBudget,
    call: u64,
    tokens: u64,
    cost: f64,
    /// Calls, usage and whether it is estimated, once the request ended.
    answer: Option<(u64, Usage, bool)>,
}

impl Drop for Hold<'_> {
    fn drop(&mut self) {
        let (calls, usage, estimated) = self.answer.unwrap_or_default();
        let cost = self.budget.price.map_or(0.0, |p| p.cost(usage));
        {
            let mut state = self.budget.lock();
            state.in_flight -= 1;
            state.held_tokens -= self.tokens;
            state.held_cost = (state.held_cost - self.cost).max(0.0);
            state.used.add(calls, usage, cost, estimated);
            state.this_run.add(calls, usage, cost, estimated);
        }
        let run = self.budget.journal.run;
        self.budget.journal.note(&Entry::Spent { run, call: self.call, calls, usage, cost, estimated });
    }
}

impl BatchBudget {
    /// A budget of `limits` for the batch, priced at `price`, its wall time counted from now; `earlier` is what
    /// earlier invocations spent, and `refused` their last refusal (kept while the same request would still not
    /// fit). Reservations and uses are written to `journal`.
    pub fn new(
        limits: Budget,
        price: Option<Price>,
        earlier: Spending,
        refused: Option<Exhausted>,
        journal: Arc<Journal>,
    ) -> Arc<BatchBudget> {
        let still = refused.filter(|r| {
            let limit = match r.what {
                Limit::Calls => limits.max_calls.map(|l| l as f64),
                Limit::Tokens => limits.max_tokens.map(|l| l as f64),
                Limit::Cost => limits.max_cost,
                // The time limit is each invocation's own.
                Limit::Seconds => None,
            };
            let used = match r.what {
                Limit::Calls => earlier.calls as f64,
                Limit::Tokens => earlier.tokens() as f64,
                _ => earlier.cost,
            };
            limit.is_some_and(|limit| used + r.needed > limit)
        });
        let state = State { used: earlier, refused: still, ..State::default() };
        Arc::new(BatchBudget { limits, price, started: Instant::now(), journal, state: Mutex::new(state) })
    }

    /// The limits.
    pub fn limits(&self) -> Budget {
        self.limits
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// What every invocation has used (requests in flight not included).
    pub fn spent(&self) -> Spending {
        self.lock().used
    }

    /// What this invocation has used.
    pub fn spent_this_run(&self) -> Spending {
        self.lock().this_run
    }

    /// Seconds since this invocation started.
    pub fn seconds(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    /// Why no task may start, if one may not: a limit already spent (calls in flight count as spent: they will be),
    /// or a request already refused.
    pub fn reached(&self) -> Option<Exhausted> {
        let state = self.lock();
        if let Some(refused) = state.refused {
            return Some(refused);
        }
        let b = &self.limits;
        let at = |what, used: f64, limit: Option<f64>| match limit {
            Some(limit) if used >= limit => Some(Exhausted { what, used, needed: 0.0, limit }),
            _ => None,
        };
        at(Limit::Calls, (state.used.calls + state.in_flight) as f64, b.max_calls.map(|l| l as f64))
            .or_else(|| at(Limit::Tokens, state.used.tokens() as f64, b.max_tokens.map(|l| l as f64)))
            .or_else(|| at(Limit::Cost, state.used.cost, b.max_cost.filter(|_| self.price.is_some())))
            .or_else(|| at(Limit::Seconds, self.seconds(), b.max_seconds))
    }

    /// Reserves what `request` may take and returns it as it may be sent (its answer cap and time-out cut to what
    /// is left), or names the limit it would pass (and remembers the refusal).
    fn admit(&self, request: &ChatRequest) -> Result<(Hold<'_>, ChatRequest), Exhausted> {
        let mut state = self.lock();
        let used = Used {
            calls: state.used.calls + state.in_flight,
            tokens: state.used.tokens() + state.held_tokens,
            cost: state.used.cost + state.held_cost,
            seconds: self.seconds(),
        };
        let grant = match self.limits.admit(self.price, used, request) {
            Ok(grant) => grant,
            Err(e) => {
                if state.refused.is_none() {
                    state.refused = Some(e);
                    drop(state);
                    self.journal.note(&Entry::Refused { run: self.journal.run, exhausted: e });
                }
                return Err(e);
            }
        };
        state.in_flight += 1;
        state.held_tokens += grant.tokens();
        state.held_cost += grant.cost;
        state.admitted += 1;
        let call = state.admitted;
        drop(state);
        self.journal.note(&Entry::Hold { run: self.journal.run, call, most: grant.most, cost: grant.cost });
        let hold = Hold { budget: self, call, tokens: grant.tokens(), cost: grant.cost, answer: None };
        Ok((hold, grant.apply(request)))
    }
}

/// A task's model behind the batch's budget and the batch's patience with a failing server. `refused` is set when
/// the batch budget (not the task's own) refused a request, so the batch can tell a task it stopped from one that
/// ended on its own.
pub struct Gate<L> {
    /// The task's model.
    pub inner: L,
    /// The batch's budget.
    pub budget: Arc<BatchBudget>,
    /// Waits out a failing model server.
    pub health: Arc<Health>,
    /// The batch budget's refusal, if it refused this task a request.
    pub refused: Rc<Cell<Option<Exhausted>>>,
    /// The client's own time-out for an answer (`--timeout`), in milliseconds.
    pub client_timeout_ms: u64,
}

impl<L: Llm> Llm for Gate<L> {
    async fn chat(&self, asked: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let mut waits = 0;
        loop {
            let (mut hold, request) = match self.budget.admit(asked) {
                Ok(admitted) => admitted,
                Err(e) => {
                    self.refused.set(Some(e));
                    return Err(LlmError::BudgetExhausted(e));
                }
            };
            let sent = Instant::now();
            let answer = self.inner.chat(&request).await;
            hold.answer = match &answer {
                Ok(answer) => Some((1, answer.usage, answer.usage_estimated)),
                // As the task's own budget counts them: a call that reached the server and failed is a call spent.
                Err(LlmError::Timeout | LlmError::Http { .. } | LlmError::Malformed(_)) => {
                    Some((1, Usage::default(), false))
                }
                Err(_) => None,
            };
            drop(hold);
            // A time-out shorter than the client's own was set by a time limit (the task's or the batch's): when it
            // passes, that limit is reached, the server did not fail.
            let limited = request.timeout_ms.is_some_and(|t| t < self.client_timeout_ms);
            match &answer {
                Ok(_) => self.health.answered(),
                Err(LlmError::Timeout) if limited => {}
                Err(e) => {
                    if let Some(what) = super::health::transient(e, &request)
                        && self.health.wait(&what, sent, waits)
                    {
                        waits += 1;
                        continue;
                    }
                }
            }
            return answer;
        }
    }
    async fn context_window(&self) -> Option<u64> {
        self.inner.context_window().await
    }
    async fn takes_json_schema(&self) -> Option<bool> {
        self.inner.takes_json_schema().await
    }
}

#[cfg(test)]
mod tests {
    use acr_core::llm::scripted::{Script, ScriptedModel};
    use acr_core::llm::{Message, Stage};
    use pollster::block_on;

    use super::*;

    struct Folder {
        _dir: tempfile::TempDir,
        journal: Arc<Journal>,
        path: std::path::PathBuf,
    }

    fn folder() -> Folder {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        Folder { journal: Arc::new(Journal::open(&path, 1).unwrap()), path, _dir: dir }
    }

    fn budget(f: &Folder, limits: Budget, price: Option<Price>) -> Arc<BatchBudget> {
        BatchBudget::new(limits, price, Spending::default(), None, f.journal.clone())
    }

    fn gate(budget: &Arc<BatchBudget>) -> Gate<ScriptedModel> {
        let script = Script { repeat_last: true, ..Script::default() }.answer(Stage::Search, "x".repeat(400));
        let health = Health::new(std::time::Duration::ZERO, Arc::default(), Box::new(|_| {}));
        Gate {
            inner: ScriptedModel::new(script),
            budget: budget.clone(),
            health,
            refused: Rc::default(),
            client_timeout_ms: 300_000,
        }
    }

    fn request() -> ChatRequest {
        ChatRequest::new(Stage::Search, vec![Message::user("y".repeat(400))])
    }

    #[test]
    fn calls_are_shared_between_tasks_and_refused_past_the_limit() {
        let f = folder();
        let budget = budget(&f, Budget { max_calls: Some(3), ..Budget::unlimited() }, None);
        let (a, b) = (gate(&budget), gate(&budget));
        assert!(block_on(a.chat(&request())).is_ok());
        assert!(block_on(b.chat(&request())).is_ok());
        assert!(budget.reached().is_none());
        assert!(block_on(a.chat(&request())).is_ok());
        let err = block_on(b.chat(&request())).unwrap_err();
        assert!(matches!(err, LlmError::BudgetExhausted(Exhausted { what: Limit::Calls, .. })), "{err}");
        assert!(b.refused.get().is_some() && a.refused.get().is_none());
        assert_eq!(budget.reached().map(|e| e.what), Some(Limit::Calls));
        assert_eq!(budget.spent().calls, 3);
        assert_eq!(budget.spent().tokens(), 3 * 204);
    }

    #[test]
    fn requests_in_flight_hold_their_most_until_they_end() {
        let f = folder();
        let budget = budget(&f, Budget { max_tokens: Some(300), ..Budget::unlimited() }, None);
        let request = ChatRequest { max_tokens: Some(100), ..request() };
        let (first, sent) = budget.admit(&request).expect("204 of 300 fits");
        assert_eq!(sent.max_tokens, Some(100));
        let second = budget.admit(&request).err().expect("104 more do not fit beside the first's 204");
        assert_eq!((second.what, second.used), (Limit::Tokens, 204.0), "the first request's most is held");
        drop(first);
        assert_eq!(budget.reached().map(|e| e.what), Some(Limit::Tokens), "the first refusal stops new tasks");
        assert_eq!(budget.spent().tokens(), 0, "a request that ended without an answer gives its hold back");
    }

    #[test]
    fn the_answer_cap_is_cut_to_what_the_batch_has_left() {
        let f = folder();
        let budget = budget(&f, Budget { max_tokens: Some(400), ..Budget::unlimited() }, None);
        let (_hold, sent) = budget.admit(&request()).unwrap();
        assert_eq!(sent.max_tokens, Some(296), "400 - 104 of prompt, less than the stage's 1,536");
    }

    #[test]
    fn what_was_spent_is_counted_again_on_resume_and_a_refusal_holds_while_it_would_be_refused_again() {
        let f = folder();
        let price = Price { input: 1_000.0, output: 1_000.0 };
        let limits = Budget { max_cost: Some(0.3), ..Budget::unlimited() };
        let first = budget(&f, limits, Some(price));
        let g = gate(&first);
        assert!(block_on(g.chat(&request())).is_ok());
        assert!((first.spent().cost - 0.204).abs() < 1e-9);
        assert!(block_on(g.chat(&request())).is_err(), "0.204 + 0.104 of prompt + 0.128 of answer > 0.3");
        let past = super::super::journal::read(&f.path).unwrap();
        assert!((past.spent.cost - 0.204).abs() < 1e-9, "{past:?}");
        let again = BatchBudget::new(limits, Some(price), past.spent, past.refused, f.journal.clone());
        assert_eq!(again.reached().map(|e| e.what), Some(Limit::Cost), "resumed: still spent, no task starts");
        let raised = Budget { max_cost: Some(1.0), ..limits };
        let more = BatchBudget::new(raised, Some(price), past.spent, past.refused, f.journal.clone());
        assert!(more.reached().is_none(), "a higher limit lets tasks start again");
        assert!((more.spent().cost - 0.204).abs() < 1e-9, "counted from what was spent");
    }

    #[test]
    fn a_time_limit_is_reached_at_once_when_zero() {
        let f = folder();
        let budget = budget(&f, Budget { max_seconds: Some(0.0), ..Budget::unlimited() }, None);
        assert_eq!(budget.reached().map(|e| e.what), Some(Limit::Seconds));
    }
}
