//! APR-MCTS: Monte Carlo tree search over patch candidates.
//!
//! [`tree`] holds the search tree with UCB selection and back-propagation; [`mod@classify`] reads the shape of a candidate's typed
//! diffs
//! (single line, single hunk, single function, other) to choose how the model is prompted.

pub mod classify;
pub mod tree;

pub use classify::{BugType, classify};
pub use tree::{Node, NodeId, Tree, TreePolicy};
