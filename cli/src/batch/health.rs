//! Riding out a failing model server: a batch runs for hours and meets servers that are down, overloaded or slow.
//!
//! A call that fails for a reason of the server's rather than the request's ([`transient`]: no connection, a time-out,
//! a 5xx, a rate limit the client's own retries did not outlast) is not handed to the agent, which would count it as a
//! failed step and could end the task with an empty patch. The worker waits instead, with back-off (2 s, doubling up
//! to a minute), and sends the call again, for as long as the server has been failing for less than the batch's
//! patience (`--wait-for-server`). Each wait is a line on stderr and in the journal, saying what failed.
//!
//! The server is taken to be failing from the first such failure until any worker's call is answered. When another
//! worker's call was answered while this one kept failing, the failure is this call's own (a request the server
//! cannot serve in time, say): after a few tries it goes back to the agent, which deals with it as with any failed
//! call. When the server has failed every call for the whole patience, the batch gives up ([`Health::gave_up`]): the
//! call fails, its task stops (it runs again on resume) and no more tasks start. With one worker, a call's own
//! failure cannot be told from an outage: it is waited out to the end of the patience too.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use acr_core::llm::{ChatRequest, LlmError, schema, tools};

/// Tries of one call that keeps failing while the server answers other calls, before the failure goes to the agent.
const OWN_FAILURE_TRIES: u32 = 4;

/// The first wait, doubled after each failed try of the same call.
const FIRST_WAIT: Duration = Duration::from_secs(2);

/// The longest single wait.
const LONGEST_WAIT: Duration = Duration::from_secs(60);

/// What a failure of `request` says of the server, when it is the server's and may pass: `None` for a failure of
/// the request's own (a refusal, a prompt too long, tools the server does not take, a key refused, a budget), which
/// waiting would not mend.
pub fn transient(error: &LlmError, request: &ChatRequest) -> Option<String> {
    match error {
        LlmError::Transport(_) | LlmError::RateLimited(_) | LlmError::Timeout => Some(error.to_string()),
        // Some servers refuse tools with a 500 (llama.cpp without --jinja), or a JSON schema (llama.cpp before it
        // read one): the agent goes on without them at once.
        LlmError::Http { status, message } if !request.tools.is_empty() && tools::refused(*status, message) => None,
        LlmError::Http { status, message } if request.schema.is_some() && schema::refused(*status, message) => None,
        LlmError::Http { status, .. } if *status >= 500 => Some(error.to_string()),
        _ => None,
    }
}

#[derive(Default)]
struct State {
    /// When the server began failing, if it is failing now.
    failing_since: Option<Instant>,
    /// When a call was last answered.
    last_answer: Option<Instant>,
    /// Why the batch gave up on the server.
    gave_up: Option<String>,
}

/// The batch's view of the model server, shared by the workers.
pub struct Health {
    patience: Duration,
    stop: Arc<AtomicBool>,
    /// Told each wait as it starts (the progress lines, the journal).
    say: Box<dyn Fn(&Waiting) + Send + Sync>,
    state: Mutex<State>,
}

/// A wait about to start.
pub struct Waiting<'a> {
    /// What failed.
    pub why: &'a str,
    /// How long this wait is.
    pub wait: Duration,
    /// How long the server has been failing.
    pub failing_for: Duration,
    /// The patience.
    pub patience: Duration,
}

impl Health {
    /// Patience of `patience` with a failing server; waits end early when `stop` is set (Ctrl-C); `say` is told of
    /// each wait.
    pub fn new(patience: Duration, stop: Arc<AtomicBool>, say: Box<dyn Fn(&Waiting) + Send + Sync>) -> Arc<Health> {
        Arc::new(Health { patience, stop, say, state: Mutex::default() })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A call was answered: the server is well.
    pub fn answered(&self) {
        let mut state = self.lock();
        state.failing_since = None;
        state.last_answer = Some(Instant::now());
    }

    /// Why the batch gave up on the server, once it has.
    pub fn gave_up(&self) -> Option<String> {
        self.lock().gave_up.clone()
    }

    /// How long the server has been failing, if it is.
    pub fn failing_for(&self) -> Option<Duration> {
        self.lock().failing_since.map(|t| t.elapsed())
    }

    /// A call sent at `sent` failed with `why` after `tries` earlier waits: waits before it is sent again and
    /// returns `true`, or returns `false` when the failure goes back to the agent (the call's own failure, the
    /// patience spent, or Ctrl-C).
    pub fn wait(&self, why: &str, sent: Instant, tries: u32) -> bool {
        let (wait, failing_for) = {
            let mut state = self.lock();
            if state.gave_up.is_some() {
                return false;
            }
            let since = *state.failing_since.get_or_insert(sent);
            let failing_for = since.elapsed();
            let others_answered = state.last_answer.is_some_and(|t| t > sent);
            if others_answered && tries + 1 >= OWN_FAILURE_TRIES {
                return false;
            }
            if failing_for >= self.patience {
                state.gave_up = Some(format!(
                    "the model server failed every call for {} (the patience of --wait-for-server): {why}",
                    super::progress::duration(failing_for.as_secs_f64())
                ));
                return false;
            }
            let wait = FIRST_WAIT.saturating_mul(1 << tries.min(6)).min(LONGEST_WAIT).min(self.patience - failing_for);
            (wait, failing_for)
        };
        (self.say)(&Waiting { why, wait, failing_for, patience: self.patience });
        let until = Instant::now() + wait;
        while Instant::now() < until {
            if self.stop.load(Ordering::SeqCst) {
                return false;
            }
            std::thread::sleep((until - Instant::now()).min(Duration::from_millis(100)));
        }
        !self.stop.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_servers_own_failures_are_waited_out() {
        let plain = ChatRequest::new(acr_core::llm::Stage::Search, Vec::new());
        let with_tools = ChatRequest { tools: acr_core::llm::Tool::search_apis(), ..plain.clone() };
        let jinja = LlmError::Http { status: 500, message: "tools param requires --jinja flag".into() };
        assert!(transient(&LlmError::Transport("connection refused".into()), &plain).is_some());
        assert!(transient(&LlmError::Timeout, &plain).is_some());
        assert!(transient(&LlmError::Http { status: 503, message: "busy".into() }, &plain).is_some());
        assert!(transient(&jinja, &with_tools).is_none(), "a refusal of tools is not an outage");
        assert!(transient(&jinja, &plain).is_some());
        let with_schema = ChatRequest { schema: Some(acr_core::answers::Shape::Review.schema()), ..plain.clone() };
        let old_llama = LlmError::Http {
            status: 500,
            message: "response_format type must be one of \"text\" or \"json_object\", but got: json_schema".into(),
        };
        assert!(transient(&old_llama, &with_schema).is_none(), "a refusal of the schema is not an outage");
        assert!(transient(&old_llama, &plain).is_some());
        assert!(transient(&LlmError::Http { status: 400, message: "too long".into() }, &plain).is_none());
        assert!(transient(&LlmError::Auth("bad key".into()), &plain).is_none());
        assert!(transient(&LlmError::ModelUnknown("m".into()), &plain).is_none());
    }

    #[test]
    fn a_server_failing_past_the_patience_is_given_up_on_and_an_answer_ends_the_failing() {
        let said = Arc::new(Mutex::new(Vec::new()));
        let log = said.clone();
        let health = Health::new(
            Duration::from_millis(300),
            Arc::default(),
            Box::new(move |w| log.lock().unwrap().push(w.wait)),
        );
        let sent = Instant::now();
        let mut tries = 0;
        while health.wait("refused", sent, tries) {
            tries += 1;
        }
        assert!(sent.elapsed() >= Duration::from_millis(300), "waited the whole patience");
        assert!(health.gave_up().unwrap().contains("refused"), "{:?}", health.gave_up());
        let waits = said.lock().unwrap().clone();
        assert!(waits.len() == 1 && waits[0] <= Duration::from_millis(300), "one wait, cut to the patience: {waits:?}");

        let health = Health::new(Duration::from_secs(60), Arc::default(), Box::new(|_| {}));
        let sent = Instant::now();
        health.answered();
        assert!(!health.wait("timed out", sent, OWN_FAILURE_TRIES - 1), "others were answered: the call's own");
        assert!(health.gave_up().is_none());
    }

    #[test]
    fn ctrl_c_ends_a_wait() {
        let stop = Arc::new(AtomicBool::new(true));
        let health = Health::new(Duration::from_secs(60), stop, Box::new(|_| {}));
        let started = Instant::now();
        assert!(!health.wait("refused", started, 0));
        assert!(started.elapsed() < Duration::from_secs(1));
    }
}
