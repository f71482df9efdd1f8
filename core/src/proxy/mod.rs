//! The proxy: from a model's answer to a search request, to checked calls and bug locations, and the decision
//! whether that reading can be trusted or the proxy model must rewrite the answer.
//!
//! | step | where | what it does |
//! |---|---|---|
//! | read | [`crate::answers::search`] | JSON, calls in prose and labelled locations, with a note of anything unread |
//! | check | [`mod@validate`] | each call bound to its API ([`crate::call::SearchCall`]), each location cleaned; the problems, for a retry |
//! | keep to the notes | [`faithful`] | what the proxy model wrote that the notes do not say left out (a small model copies the instructions' example names) |
//! | order | [`order`] | arguments written in the wrong order, detected by their kinds and against the index, put right |
//! | bound | [`mod@bound`] | each distinct call once, none that names nothing in the repository, at most [`crate::api::MAX_CALLS_PER_ROUND`] a round |
//! | trust | [`trust`] | whether the reading stands, or the proxy model is asked (its JSON schema sent, up to [`MAX_RETRIES`] corrections) |
//!
//! The requests to the proxy model are [`crate::prompt::Prompt::Proxy`] and [`crate::prompt::Prompt::ProxyRetry`];
//! the retry loop belongs to the agent.

pub mod bound;
pub mod faithful;
pub mod order;
pub mod trust;
pub mod validate;

pub use bound::{Fate, NotRun, bound};
pub use order::{Names, reorder};
pub use trust::{stands, trusted};
pub use validate::{LocationRequest, MAX_RETRIES, Problem, Validated, validate};
