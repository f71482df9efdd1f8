//! From model text to typed values: the one place where the agent reads what a model wrote.
//!
//! Every answer the agent receives is read here, with the same tolerance: JSON may be loose or wrapped in prose
//! ([`json`]), keys are matched loosely, code may be fenced or not, and what cannot be read is `None` (or, for a
//! search answer, marked incomplete) so the caller can ask again rather than act on a guess.
//!
//! | the answer to | read by | gives |
//! |---|---|---|
//! | a search request (choose calls, decide) and the proxy model's JSON | [`search::read`] | [`SearchAnswer`]: calls as written, bug locations, where they came from, whether all was read |
//! | a patch request | [`edits`] (the patch layer's parser) | [`Edit`]s |
//! | an infill or whole-function request | [`code_block`], [`reflection`] | the code, the reasoning before it |
//! | the reviewer | [`review`] | [`ReviewVerdict`] |
//! | "is this reproducible?" | [`yes_no`] | `bool` |
//! | a rating request (MCTS) | [`rating`] | 0 to 100 |
//! | the choice among patches | [`choice`] | a 1-based candidate number |

pub mod json;
mod location;
mod prose;
pub mod search;
mod text;
mod verdict;

pub use crate::patch::{Edit, parse_edits as edits};
pub use location::LocationSpec;
pub use search::{ProxyResult, SearchAnswer, Source};
pub use text::{choice, code_block, rating, reflection, yes_no};
pub use verdict::{ReviewVerdict, review};
