//! The syntax gate's Java check: would `javac`'s parser accept this source?
//!
//! Python's gate is CPython's front end ported rule by rule ([`crate::gate`]). For Java the gate reads
//! tree-sitter-java's parse: a source passes when the tree holds no `ERROR` node and no `MISSING` node (a token the
//! parser had to invent, such as a `;`), and otherwise the first such node in the source is the problem, with a
//! message in `javac`'s words where the two correspond (`';' expected`, `reached end of file while parsing`). What it
//! does not see, because tree-sitter-java's grammar is looser than `javac`'s parser or newer than it, is measured
//! against `javac` itself by `core/tests/gate_javac.rs`.

use tree_sitter::Node;

use super::tree_problems::{Step, first_problem, problem_at, shorten, walk};
use super::{ProblemKind, SyntaxProblem};
use crate::grammar::{self, JAVA};

/// `Ok` when the Java source parses without an error or an invented token, otherwise the first problem.
pub fn check(source: &str) -> Result<(), SyntaxProblem> {
    let mut parser = grammar::parser(tree_sitter_java::LANGUAGE.into());
    let Some(tree) = parser.parse(source, None) else {
        return Err(SyntaxProblem::new(ProblemKind::TooComplex, "the source could not be parsed", 1, 1));
    };
    let root = tree.root_node();
    if !root.has_error() {
        return beyond_the_grammar(root, source);
    }
    let Some(node) = first_problem(root) else {
        return Err(problem_at(root, source, "invalid syntax"));
    };
    let message = if node.is_missing() {
        let expected = node.kind();
        if expected.chars().all(|c| c.is_alphanumeric() || c == '_') && !is_keyword(expected) {
            "<identifier> expected".to_string()
        } else {
            format!("'{expected}' expected")
        }
    } else if node.end_byte() >= source.trim_end().len() && node.start_byte() < node.end_byte() {
        "reached end of file while parsing".to_string()
    } else {
        let token = source.get(node.start_byte()..node.end_byte()).unwrap_or("").split_whitespace().next();
        match token {
            Some(token) => format!("illegal start of `{}`", shorten(token)),
            None => "invalid syntax".to_string(),
        }
    };
    Err(problem_at(node, source, &message))
}

/// Expression kinds `javac` takes as a statement on their own; any other expression followed by `;` is "not a
/// statement" (tree-sitter-java's grammar accepts every expression there).
const STATEMENT_EXPRESSIONS: &[&str] = &[
    "assignment_expression",
    "update_expression",
    "method_invocation",
    "object_creation_expression",
    "explicit_constructor_invocation",
    // tree-sitter-java reads a `switch` statement as a switch expression used as a statement.
    "switch_expression",
];

/// What `javac`'s parser refuses that tree-sitter-java's grammar accepts, found in one walk of a tree with no
/// error: an expression used as a statement that cannot be one, and a constructor whose name is not its class's
/// (a method that lost its return type).
fn beyond_the_grammar(root: Node<'_>, source: &str) -> Result<(), SyntaxProblem> {
    file_order(root, source)?;
    // Names of the enclosing type declarations, with the node id that opened each.
    let mut types: Vec<(usize, &str)> = Vec::new();
    walk(root, |step| {
        let node = match step {
            Step::Enter(node) => node,
            Step::Leave(node) => {
                if types.last().is_some_and(|(id, _)| *id == node.id()) {
                    types.pop();
                }
                return Ok(());
            }
        };
        match node.kind() {
            "expression_statement" => {
                // A switch rule's body (`case 1 -> 2;`) may be any expression.
                let in_rule = node.parent().is_some_and(|p| p.kind() == "switch_rule");
                let expression = node.named_child(0);
                if !in_rule && expression.is_some_and(|e| !STATEMENT_EXPRESSIONS.contains(&e.kind())) {
                    return Err(problem_at(node, source, "not a statement"));
                }
            }
            "constructor_declaration" => {
                let name = node.child_by_field_name("name").and_then(|n| n.utf8_text(source.as_bytes()).ok());
                if let (Some(name), Some((_, owner))) = (name, types.last())
                    && name != *owner
                {
                    return Err(problem_at(node, source, "invalid method declaration; return type required"));
                }
            }
            kind if JAVA.class_kinds.contains(&kind) => {
                if let Some(name) = node.child_by_field_name("name").and_then(|n| n.utf8_text(source.as_bytes()).ok()) {
                    types.push((node.id(), name));
                }
            }
            _ => {}
        }
        Ok(())
    })
}

/// The order `javac` requires at the top of a file: at most one `package` declaration, first; then imports; then
/// type declarations. A `;` right before an import is refused too ("extraneous semicolon", as `javac` 21 and later
/// say).
fn file_order(root: Node<'_>, source: &str) -> Result<(), SyntaxProblem> {
    #[derive(PartialEq, PartialOrd)]
    enum Part {
        Start,
        Package,
        Imports,
        Types,
    }
    let mut part = Part::Start;
    let mut after_semicolon = false;
    let mut cursor = root.walk();
    for child in root.children(&mut cursor) {
        let misplaced = |node| Err(problem_at(node, source, "class, interface, enum, or record expected"));
        match child.kind() {
            "comment" | "line_comment" | "block_comment" => continue,
            "package_declaration" if part > Part::Start => return misplaced(child),
            "package_declaration" => part = Part::Package,
            "import_declaration" if part == Part::Types => return misplaced(child),
            "import_declaration" if after_semicolon => return Err(problem_at(child, source, "extraneous semicolon")),
            "import_declaration" => part = Part::Imports,
            ";" => {}
            _ => part = Part::Types,
        }
        after_semicolon = child.kind() == ";";
    }
    Ok(())
}

fn is_keyword(word: &str) -> bool {
    matches!(word, "class" | "interface" | "enum" | "record" | "extends" | "implements" | "return" | "new" | "throws")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(src: &str) -> Result<(), (u32, String)> {
        check(src).map_err(|p| (p.line, p.message))
    }

    #[test]
    fn valid_java_passes() {
        let src = "package a;\n\npublic class A<T> extends B implements C {\n    private int n;\n    \
                   public A(int n) { this.n = n; }\n    int f() { return switch (n) { case 1 -> 2; default -> 3; }; }\n}\n";
        assert_eq!(verdict(src), Ok(()));
        assert_eq!(
            verdict("record P(int x, int y) {}\nenum E { A, B; }\n@interface N { String v() default \"\"; }\n"),
            Ok(())
        );
    }

    #[test]
    fn problems_are_reported_where_they_are() {
        assert_eq!(verdict("class A {\n    int f() {\n        return 1\n    }\n}\n"), Err((3, "';' expected".into())));
        assert!(verdict("class A {\n    void f() {\n        g(;\n    }\n}\n").is_err());
        assert!(verdict("class A {\n    void f() {\n").is_err(), "cut short");
        assert!(verdict("class A {\n    void f() { int x = ; }\n}\n").is_err());
        assert!(verdict("class A {\n    void f() { } }\n}\n").is_err(), "a stray closing brace");
        assert_eq!(verdict("class A {\n  void f() { g(); x = 1; i++; new A(); }\n}\n"), Ok(()));
        assert_eq!(
            verdict("class A {\n  void f(int t) {\n    switch (t) {\n      case 1 -> g();\n    }\n  }\n}\n"),
            Ok(())
        );
        assert_eq!(verdict("class A {\n  void f() {\n    a + 1;\n  }\n}\n"), Err((3, "not a statement".into())));
        assert_eq!(verdict("class A {\n  A() {}\n  class B { B() {} }\n}\n"), Ok(()));
        let lost_type = verdict("class A {\n  f() {}\n}\n");
        assert_eq!(lost_type, Err((2, "invalid method declaration; return type required".into())));
        assert!(verdict("class A {\n  void f() {}\n}\n}\n").is_err(), "a closing brace after the class");
        let twice = verdict("package a;\npackage a;\nclass A {}\n");
        assert_eq!(twice, Err((2, "class, interface, enum, or record expected".into())));
        assert!(verdict("package a;\nclass A {}\nimport b.C;\n").is_err(), "an import after a type");
        assert_eq!(verdict("import a.B;;\nimport a.C;\nclass A {}\n"), Err((2, "extraneous semicolon".into())));
        assert_eq!(verdict("package a;\nimport a.B;\nclass A {};\nclass C {}\n"), Ok(()));
    }
}
