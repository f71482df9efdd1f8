//! Finding nodes in a tree-sitter tree by the row they start on, for the class views of every language.

use tree_sitter::Node;

/// The node of a wanted kind that starts on `row`, found by descending only into the nodes that span the row.
pub(super) fn find_at<'t>(root: Node<'t>, row: usize, wanted: impl Fn(&Node<'t>) -> bool) -> Option<Node<'t>> {
    let mut node = root;
    'descend: loop {
        if wanted(&node) && node.start_position().row == row {
            return Some(node);
        }
        // Into the first named child that spans the row (a keyword that starts there, such as JavaScript's
        // `export` before a class, holds nothing).
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            if child.start_position().row <= row && row <= child.end_position().row {
                node = child;
                continue 'descend;
            }
        }
        return None;
    }
}
