//! An arrow function's body or a statement that opens with `{` is a block to V8 and to the `typescript` parser,
//! whatever follows: an object literal there needs its parentheses (`() => ({ a: 1 })`, `({ a } = b)`).
//! tree-sitter's grammar can read either as an object, and where the block does not parse it keeps the object
//! (`() => { a: 1, b: 2 }`, or a call's `({` lost in an edit, which leaves `beforeEach(() => { key: value, })`), so
//! it accepts what both compilers refuse, and a reading that stops where they do goes on past it. [`as_blocks`]
//! writes each such brace so that only a block can be read.

use tree_sitter::Node;

use super::tree_problems::{Step, walk};

/// A source with a `;` put after braces the compilers read as blocks ([`as_blocks`]).
pub(super) struct Blocks {
    /// The source so written.
    pub text: String,
    /// The bytes of the source before which a `;` was put in (not written over a space).
    inserted: Vec<usize>,
}

impl Blocks {
    /// Where byte `at` of the source is in [`Blocks::text`].
    pub fn moved(&self, at: usize) -> usize {
        at + self.inserted.partition_point(|&i| i < at)
    }
}

/// The source with a `;` after the `{` of each arrow function's body or statement the tree read as opening with an
/// object literal or pattern, so that a new reading can only take it as a block, as the compilers do (an empty
/// statement, which changes nothing else); `None` when the tree read none so. The `;` takes the place of a space or
/// tab after the brace where there is one, so every position is kept; otherwise it is put in, and the rest of that
/// line moves one column on.
pub(super) fn as_blocks(root: Node<'_>, source: &str) -> Option<Blocks> {
    let mut braces = Vec::new();
    let _ = walk(root, |step| {
        let Step::Enter(node) = step else { return Ok::<(), ()>(()) };
        let starts_a_block = match node.kind() {
            "arrow_function" => node.child_by_field_name("body"),
            "expression_statement" => Some(node),
            _ => None,
        };
        if let Some(object) = starts_a_block.and_then(object_leading)
            // Written so already: the grammar's recovery can still make an object of it, and a second `;` would
            // change nothing.
            && !source[object.start_byte() + 1..].starts_with(';')
        {
            braces.push(object.start_byte());
        }
        Ok(())
    });
    if braces.is_empty() {
        return None;
    }
    let mut text = String::with_capacity(source.len() + braces.len());
    let mut inserted = Vec::new();
    let mut from = 0;
    for brace in braces {
        let after = brace + 1;
        text.push_str(&source[from..after]);
        text.push(';');
        from = match source[after..].starts_with([' ', '\t']) {
            true => after + 1,
            false => {
                inserted.push(after);
                after
            }
        };
    }
    text.push_str(&source[from..]);
    Some(Blocks { text, inserted })
}

/// The object literal or pattern that `node` opens with, if any: it or its first child, and so on down, while they
/// start where it does (`{ a: 1 }.b` opens with one).
fn object_leading(node: Node<'_>) -> Option<Node<'_>> {
    let mut at = node;
    loop {
        if matches!(at.kind(), "object" | "object_pattern") {
            return Some(at);
        }
        at = at.child(0).filter(|first| first.start_byte() == node.start_byte())?;
    }
}

#[cfg(test)]
mod tests {
    use super::as_blocks;
    use crate::grammar;

    fn rewritten(source: &str) -> Option<String> {
        let mut parser = grammar::parser(tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into());
        let tree = parser.parse(source, None).unwrap();
        as_blocks(tree.root_node(), source).map(|b| b.text)
    }

    #[test]
    fn a_body_read_as_an_object_can_then_only_be_a_block() {
        assert_eq!(rewritten("f(() => { a: 1, b: 2 })\n").as_deref(), Some("f(() => {;a: 1, b: 2 })\n"));
        assert_eq!(rewritten("f(() => {\n  a: 1,\n})\n").as_deref(), Some("f(() => {;\n  a: 1,\n})\n"));
        assert_eq!(rewritten("{ a: { [k]: v } }\n").as_deref(), Some("{;a: { [k]: v } }\n"));
    }

    #[test]
    fn blocks_and_parenthesised_objects_are_left_as_they_are() {
        assert_eq!(rewritten("f(() => ({ a: 1, b: 2 }))\nf(() => { return 1 })\nf(() => {})\n({ a } = b)\n"), None);
    }
}
