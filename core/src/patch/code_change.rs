//! Whether an edit changes code at all, or only what never runs: comments, docstrings and layout.
//!
//! A small model asked for the definition it changes sometimes shows it with the code as it was and a docstring or
//! comment added (Qwen2.5-Coder-1.5B on QuixBugs' `longest_common_subsequence` and `rpn_eval`: the file's own
//! docstring moved into the function; `# Changed to handle division` after an unchanged line). Applied, such a patch
//! is a diff that fixes nothing and, with no reproducer to judge it, ends the run. The agent's patch writer tells a
//! model that was asked for definitions so, and asks again ([`super::Extraction::changes_code`]); applying such an
//! answer (`acr apply`, the npm package) is not affected: a comment can be the change a user wants.
//!
//! Two texts have the same code when their syntax trees match once comments and statements that are a string alone
//! (docstrings, which do nothing when run) are left out: the same node kinds in the same nesting, the same text in
//! every leaf. Indentation is structure in Python, so moving a line into or out of a block changes the tree.

use tree_sitter::Node;

use crate::language::Language;

/// Whether `after` runs the same code as `before` in `language`: only comments, docstrings and layout differ.
/// `false` when either text does not parse cleanly, so that no change is taken for none.
pub(crate) fn same_code(language: Language, before: &str, after: &str) -> bool {
    let mut parser = language.parser();
    let (Some(old), Some(new)) = (language.parse(&mut parser, before), language.parse(&mut parser, after)) else {
        return false;
    };
    if old.root_node().has_error() || new.root_node().has_error() {
        return false;
    }
    let mut a = Vec::new();
    let mut b = Vec::new();
    shape(old.root_node(), before.as_bytes(), &mut a);
    shape(new.root_node(), after.as_bytes(), &mut b);
    a == b
}

/// The tree in preorder, without what never runs: each node's kind, and each leaf's text.
fn shape<'s>(node: Node<'_>, src: &'s [u8], out: &mut Vec<(u16, &'s [u8])>) {
    if is_inert(node) {
        return;
    }
    let leaf = node.child_count() == 0;
    out.push((node.kind_id(), if leaf { &src[node.byte_range()] } else { &[] }));
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        shape(child, src, out);
    }
    // Close the node, so that the nesting is part of the shape.
    out.push((u16::MAX, &[]));
}

/// A comment, or a statement that is a string alone (a docstring).
fn is_inert(node: Node<'_>) -> bool {
    let kind = node.kind();
    if kind.contains("comment") {
        return true;
    }
    kind == "expression_statement"
        && node.named_child_count() == 1
        && node.named_child(0).is_some_and(|c| matches!(c.kind(), "string" | "concatenated_string"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const LCS: &str = "def lcs(a, b):\n    if not a or not b:\n        return ''\n\n    elif a[0] == b[0]:\n        return a[0] + lcs(a[1:], b)\n";

    #[test]
    fn comments_docstrings_and_blank_lines_are_not_code() {
        let documented = "def lcs(a, b):\n    \"\"\"The longest common subsequence.\"\"\"\n    if not a or not b:\n        return ''  # nothing left\n    elif a[0] == b[0]:\n        return a[0] + lcs(a[1:], b)\n";
        assert!(same_code(Language::Python, LCS, documented));
        let spaced = LCS.replace("(a[1:], b)", "( a[1:],  b )");
        assert!(same_code(Language::Python, LCS, &spaced));
    }

    #[test]
    fn a_change_of_code_is_code() {
        let fixed = LCS.replace("lcs(a[1:], b)", "lcs(a[1:], b[1:])");
        assert!(!same_code(Language::Python, LCS, &fixed));
        // A string that is a value, not a statement alone, is code.
        let message = LCS.replace("return ''", "return 'none'");
        assert!(!same_code(Language::Python, LCS, &message));
        // Moving a line out of its block changes the structure.
        let flat = "def f(x):\n    if x:\n        x += 1\n        return x\n";
        let moved = "def f(x):\n    if x:\n        x += 1\n    return x\n";
        assert!(!same_code(Language::Python, flat, moved));
    }

    #[test]
    fn text_that_does_not_parse_is_never_the_same() {
        assert!(!same_code(Language::Python, LCS, "def lcs(a, b:\n"));
    }
}
