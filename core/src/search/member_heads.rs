//! `search_class`'s member view of a class of Java, JavaScript or TypeScript: what a reader needs to know its shape
//! without its code.
//!
//! The view holds the declaration up to its opening brace; every field (whole, unless it holds a function); every
//! method's and constructor's head up to its opening brace (the whole declaration when it has no body: abstract and
//! interface methods), a field holding a function shown as far as that function's opening brace; each Java enum
//! constant's first line; and the head of each class declared inside. Comment lines are left out, as in Python's
//! view. Which kinds are classes, functions and fields is the language's grammar's.

use tree_sitter::Node;

use super::source::LineTable;
use super::tree::find_at;
use crate::grammar::Grammar;
use crate::language::Language;

/// Kinds of Java's enum constants and annotation elements, whose first line stands for them.
const FIRST_LINE_KINDS: &[&str] = &["enum_constant", "annotation_type_element_declaration"];

/// The lines (1-based, in order) of the signature of the class of `language` declared on line `start`, or `None`
/// when no class declaration starts there.
pub(crate) fn signature_lines(language: Language, src: &str, table: &LineTable, start: u32) -> Option<Vec<u32>> {
    let grammar = language.grammar();
    let mut parser = language.parser();
    let tree = language.parse(&mut parser, src)?;
    let class = find_at(tree.root_node(), start.checked_sub(1)? as usize, |n| grammar.class_kinds.contains(&n.kind()))?;
    let mut lines: Vec<u32> = head(class).collect();
    if let Some(body) = class.child_by_field_name("body") {
        let mut cursor = body.walk();
        for member in body.named_children(&mut cursor) {
            if member.kind() == "enum_body_declarations" {
                // Java's members after an enum's constants.
                let mut inner = member.walk();
                for decl in member.named_children(&mut inner) {
                    member_lines(grammar, decl, &mut lines);
                }
            } else {
                member_lines(grammar, member, &mut lines);
            }
        }
    }
    lines.sort_unstable();
    lines.dedup();
    Some(lines.into_iter().filter(|&n| !is_comment_line(table.line(src, n))).collect())
}

/// The lines a class member adds to the view.
fn member_lines(grammar: &Grammar, member: Node<'_>, lines: &mut Vec<u32>) {
    let kind = member.kind();
    if grammar.binds_function(member) {
        // A field holding a function: up to the function's opening brace.
        let body = member.child_by_field_name("value").and_then(|v| v.child_by_field_name("body"));
        lines.extend(row(member)..=body.map_or_else(|| end_row(member), row).max(row(member)));
    } else if grammar.field_kinds.contains(&kind) {
        lines.extend(row(member)..=end_row(member));
    } else if grammar.function_kinds.contains(&kind) || grammar.class_kinds.contains(&kind) {
        lines.extend(head(member));
    } else if FIRST_LINE_KINDS.contains(&kind) {
        lines.push(row(member));
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(feature = "java")]
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
        assert_eq!(
            signature_lines(Language::Java, src, &table, 2),
            Some(vec![2, 3, 4, 6, 7, 8, 10, 14, 15, 19, 20, 22])
        );
        assert_eq!(signature_lines(Language::Java, src, &table, 22), Some(vec![22, 23, 24, 28]));
        assert_eq!(signature_lines(Language::Java, src, &table, 5), None);
    }

    #[cfg(feature = "js")]
    #[test]
    fn the_view_of_a_script_class_keeps_heads_and_fields() {
        let src = "\
/** A cart. */
export class Cart extends Basket {
  // how many
  count = 0;
  #secret = 1;
  onAdd = (item) => {
    this.count += 1;
  };
  static of(items) {
    return new Cart(items);
  }
  get total() {
    return 0;
  }
}
";
        let table = LineTable::new(src);
        let view = signature_lines(Language::JavaScript, src, &table, 2);
        assert_eq!(view, Some(vec![2, 4, 5, 6, 9, 12]));
        let ts = "interface Shape {\n  area(): number;\n  name: string;\n}\n";
        let view = signature_lines(Language::TypeScript, ts, &LineTable::new(ts), 1);
        assert_eq!(view, Some(vec![1, 2, 3]));
    }
}
