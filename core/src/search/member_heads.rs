//! `search_class`'s signature view of a Java type: what a reader needs to know its shape without its code.
//!
//! The view holds the declaration up to its opening brace; every field declaration; every method's and
//! constructor's head up to its opening brace (the whole declaration when it has no body: abstract and interface
//! methods); each enum constant's first line; and the head of each type declared inside. Comment lines are left
//! out, as in Python's view.

use tree_sitter::Node;

use super::source::LineTable;
use super::tree::find_at;
use crate::language::{JAVA, Language};

/// The lines (1-based, in order) of the signature of the type declared on line `start`, or `None` when no type
/// declaration starts there.
pub(crate) fn signature_lines(src: &str, table: &LineTable, start: u32) -> Option<Vec<u32>> {
    let mut parser = Language::Java.parser();
    let tree = Language::Java.parse(&mut parser, src)?;
    let class = find_type_at(tree.root_node(), start.checked_sub(1)? as usize)?;
    let mut lines: Vec<u32> = head(class).collect();
    if let Some(body) = class.child_by_field_name("body") {
        let mut cursor = body.walk();
        for member in body.named_children(&mut cursor) {
            let kind = member.kind();
            if kind == "field_declaration" || kind == "constant_declaration" {
                lines.extend(row(member)..=end_row(member));
            } else if JAVA.function_kinds.contains(&kind) || JAVA.class_kinds.contains(&kind) {
                lines.extend(head(member));
            } else if kind == "enum_constant" || kind == "annotation_type_element_declaration" {
                lines.push(row(member));
            } else if kind == "enum_body_declarations" {
                let mut inner = member.walk();
                for decl in member.named_children(&mut inner) {
                    match decl.kind() {
                        "field_declaration" => lines.extend(row(decl)..=end_row(decl)),
                        k if JAVA.function_kinds.contains(&k) || JAVA.class_kinds.contains(&k) => {
                            lines.extend(head(decl))
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    lines.sort_unstable();
    lines.dedup();
    Some(lines.into_iter().filter(|&n| !is_comment_line(table.line(src, n))).collect())
}

/// A declaration's lines up to the opening brace of its body, or all of it when it has none.
fn head(decl: Node<'_>) -> std::ops::RangeInclusive<u32> {
    let last = decl.child_by_field_name("body").map_or_else(|| end_row(decl), row);
    row(decl)..=last.max(row(decl))
}

fn row(node: Node<'_>) -> u32 {
    node.start_position().row as u32 + 1
}

fn end_row(node: Node<'_>) -> u32 {
    node.end_position().row as u32 + 1
}

fn is_comment_line(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("//") || t.starts_with("/*") || t.starts_with('*')
}

/// The type declaration whose first row is `row`.
fn find_type_at(root: Node<'_>, row: usize) -> Option<Node<'_>> {
    find_at(root, row, |n| JAVA.class_kinds.contains(&n.kind()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_view_keeps_heads_fields_and_constants() {
        let src = "\
/** Doc. */
@Entity
public class A<T> extends B
        implements C {
    // a counter
    private int n = 0;
    static final String NAME =
        \"a\";

    public A(int n) {
        this.n = n;
    }

    @Override
    public String toString() {
        return NAME;
    }

    abstract void later(int x,
                        int y);

    enum Kind {
        ONE,
        TWO {
            void f() {}
        };

        int weight() { return 1; }
    }
}
";
        let table = LineTable::new(src);
        assert_eq!(signature_lines(src, &table, 2), Some(vec![2, 3, 4, 6, 7, 8, 10, 14, 15, 19, 20, 22]));
        assert_eq!(signature_lines(src, &table, 22), Some(vec![22, 23, 24, 28]));
        assert_eq!(signature_lines(src, &table, 5), None);
    }
}
