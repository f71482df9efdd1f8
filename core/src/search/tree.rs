//! Finding nodes in a tree-sitter tree by the row they start on, for the class views of every language.

use tree_sitter::Node;

/// The node of a wanted kind that starts on `row`, found by descending only into the nodes that span the row: depth
/// first, so that a name before the node on its row (`const Impl = class {...}`) or a keyword (`export`) is passed
/// over.
pub(super) fn find_at<'t>(root: Node<'t>, row: usize, wanted: impl Fn(&Node<'t>) -> bool) -> Option<Node<'t>> {
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if wanted(&node) && node.start_position().row == row {
            return Some(node);
        }
        let mut cursor = node.walk();
        let spanning: Vec<Node<'t>> = node
            .named_children(&mut cursor)
            .filter(|c| c.start_position().row <= row && row <= c.end_position().row)
            .collect();
        stack.extend(spanning.into_iter().rev());
    }
    None
}
