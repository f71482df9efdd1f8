//! `search_class` (signatures), `search_class_in_file` and `get_class_full_snippet` (whole classes).

use std::collections::HashSet;

use tree_sitter::Node;

use super::format::{collapse_to_files, numbered, numbered_lines, push_results, tagged};
use super::source::LineTable;
use super::tree::find_at;
use super::{FULL_SNIPPET_LIMIT, RESULT_SHOW_LIMIT, SearchHit, SearchOutput, Searcher};
use crate::index::{FileId, Span, python_parser};
use crate::language::{ClassView, Language};

impl<'a> Searcher<'a> {
    fn class_spans(&self, class_name: &str) -> Option<&'a [Span]> {
        let key = self.index.class_key(class_name)?;
        self.index.classes.get(key).map(Vec::as_slice)
    }

    fn class_hits(&self, spans: &[Span], class_name: &str) -> Vec<SearchHit> {
        spans.iter().map(|s| self.hit(s.file, s.start, s.end, Some(class_name), None)).collect()
    }

    fn full_class_block(&self, span: &Span, class_name: &str) -> String {
        let code = numbered(self.lines(span.file), self.text(span.file), span.start, span.end);
        tagged(self.path(span.file), Some(class_name), None, &code)
    }

    /// `search_class(class_name)`: the signature of every class with this name (header, method signatures,
    /// class-level assignments), or past three classes, the files that define one.
    pub fn search_class(&self, class_name: &str) -> SearchOutput {
        let Some(spans) = self.class_spans(class_name).filter(|s| !s.is_empty()) else {
            return SearchOutput::miss(format!("Could not find class {class_name} in the codebase."));
        };
        let mut text = format!("Found {} classes with name {class_name} in the codebase.\n", spans.len());
        if spans.len() > RESULT_SHOW_LIMIT {
            text.push_str("They appeared in the following files:\n");
            text.push_str(&collapse_to_files(spans.iter().map(|s| (self.path(s.file), 1))));
        } else {
            let blocks = spans.iter().map(|s| {
                let src = self.text(s.file);
                let table = self.lines(s.file);
                let lines = match Language::for_path(self.path(s.file)).row().class_view {
                    ClassView::DefLines => class_signature_lines(src, table, s.start, s.end),
                    #[cfg(any(feature = "java", feature = "js"))]
                    ClassView::MemberHeads => {
                        let language = Language::for_path(self.path(s.file));
                        super::member_heads::signature_lines(language, src, table, s.start)
                    }
                };
                let lines = lines.unwrap_or_else(|| (s.start..=s.start).collect());
                let code = numbered_lines(self.lines(s.file), src, lines);
                tagged(self.path(s.file), Some(class_name), None, &code)
            });
            push_results(&mut text, 1, blocks);
        }
        SearchOutput::found(text, self.class_hits(spans, class_name))
    }

    /// `search_class_in_file(class_name, file_name)`: the full code of the classes with this name in the files
    /// `file_name` names.
    pub fn search_class_in_file(&self, class_name: &str, file_name: &str) -> SearchOutput {
        let named = match self.files_named(file_name) {
            Ok(named) => named,
            Err(miss) => return miss,
        };
        let files: HashSet<FileId> = named.files.iter().copied().collect();
        let Some(spans) = self.class_spans(class_name) else {
            return SearchOutput::miss(format!("Could not find class {class_name} in the codebase."));
        };
        let spans: Vec<Span> = spans.iter().filter(|s| files.contains(&s.file)).copied().collect();
        if spans.is_empty() {
            return SearchOutput::miss(format!("Could not find class {class_name} in file {file_name}."));
        }
        let mut text = format!("Found {} classes with name {class_name} in file {file_name}.\n", spans.len());
        push_results(&mut text, 1, spans.iter().map(|s| self.full_class_block(s, class_name)));
        named.note(SearchOutput::found(text, self.class_hits(&spans, class_name)))
    }

    /// `get_class_full_snippet(class_name)`: the full code of the first two classes with this name.
    pub fn get_class_full_snippet(&self, class_name: &str) -> SearchOutput {
        let Some(spans) = self.class_spans(class_name).filter(|s| !s.is_empty()) else {
            return SearchOutput::miss(format!("Could not find class {class_name} in the codebase."));
        };
        let mut text = format!("Found {} classes with name {class_name} in the codebase.\n", spans.len());
        if spans.len() > FULL_SNIPPET_LIMIT {
            text.push_str(&format!("Too many results, showing full code for {FULL_SNIPPET_LIMIT} of them:\n"));
        }
        push_results(&mut text, 1, spans.iter().take(FULL_SNIPPET_LIMIT).map(|s| self.full_class_block(s, class_name)));
        SearchOutput::found(text, self.class_hits(spans, class_name))
    }
}

/// The lines (1-based, in order) that make up the signature of the class whose `class` keyword is on `start`:
/// the header up to the first statement of the body; for each method directly in the body, its decorators and
/// `def` lines up to the first statement of its body; each plain class-level assignment (not annotated, not
/// augmented, not mentioning `__doc__`). Lines that are comments are dropped, and a line is shown once even where
/// ACR repeated it (decorators of a first method). `None` if no class starts there.
pub(crate) fn class_signature_lines(src: &str, table: &LineTable, start: u32, end: u32) -> Option<Vec<u32>> {
    // A class at column 0 parses on its own: parsing only its lines saves most of the work in a large file.
    let (text, skipped) = match table.span(start, end) {
        Some((a, b)) if src.get(a..).is_some_and(|t| t.starts_with("class")) => {
            (src.get(a..b).unwrap_or(src), start - 1)
        }
        _ => (src, 0),
    };
    let tree = crate::python::parse(&mut python_parser(), text)?;
    let class = find_class_at(tree.root_node(), start.checked_sub(1 + skipped)? as usize)?;
    let mut lines: Vec<u32> = Vec::new();
    let row = |n: Node<'_>| n.start_position().row as u32 + 1;
    let body = class.child_by_field_name("body");
    lines.extend(head_lines(class, body));
    if let Some(body) = body {
        let mut cursor = body.walk();
        for stmt in body.named_children(&mut cursor) {
            match stmt.kind() {
                "function_definition" => lines.extend(head_lines(stmt, stmt.child_by_field_name("body"))),
                "decorated_definition" => {
                    let Some(def) = stmt.child_by_field_name("definition") else {
                        continue;
                    };
                    if def.kind() == "function_definition" {
                        let head = head_lines(def, def.child_by_field_name("body"));
                        lines.extend(row(stmt)..=*head.end());
                    }
                }
                "expression_statement" if is_plain_assignment(stmt, text) => {
                    lines.extend(row(stmt)..=end_row(stmt));
                }
                _ => {}
            }
        }
    }
    lines.sort_unstable();
    lines.dedup();
    let lines = lines.into_iter().map(|n| n + skipped);
    Some(lines.filter(|&n| !table.line(src, n).trim_start().starts_with('#')).collect())
}

/// From a definition's own line to the line before the first statement of its body (at least the own line).
/// Like Python's `ast`, a decorated first statement starts at its `def`/`class` line, so its decorators belong
/// to the head.
fn head_lines(def: Node<'_>, body: Option<Node<'_>>) -> std::ops::RangeInclusive<u32> {
    let first = def.start_position().row as u32 + 1;
    let last = match body.and_then(first_statement) {
        Some(stmt) => {
            let stmt = match stmt.kind() {
                "decorated_definition" => stmt.child_by_field_name("definition").unwrap_or(stmt),
                _ => stmt,
            };
            (stmt.start_position().row as u32).max(first)
        }
        None => end_row(def),
    };
    first..=last
}

fn first_statement(block: Node<'_>) -> Option<Node<'_>> {
    let mut cursor = block.walk();
    block.named_children(&mut cursor).find(|n| n.kind() != "comment")
}

fn end_row(node: Node<'_>) -> u32 {
    let end = node.end_position();
    let row = if end.column == 0 && end.row > node.start_position().row { end.row - 1 } else { end.row };
    row as u32 + 1
}

/// `x = …` or `a = b = …` at class level; not `x: T = …`, `x += …`, or anything naming `__doc__`.
fn is_plain_assignment(stmt: Node<'_>, src: &str) -> bool {
    let Some(expr) = stmt.named_child(0) else {
        return false;
    };
    expr.kind() == "assignment"
        && expr.child_by_field_name("type").is_none()
        && expr.child_by_field_name("right").is_some()
        && !stmt.utf8_text(src.as_bytes()).is_ok_and(|t| t.contains("__doc__"))
}

/// The class definition whose first row (the `class` keyword) is `row`.
fn find_class_at(root: Node<'_>, row: usize) -> Option<Node<'_>> {
    find_at(root, row, |n| n.kind() == "class_definition")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_keeps_heads_and_assignments() {
        let src = "\
@dataclass
class A(Base):
    \"\"\"Doc.\"\"\"
    x = 1
    y: int = 2
    __doc__ = 'no'
    z += 1

    # comment
    @property
    def name(self,
             other):
        # leading comment
        return 1

    async def fetch(self): return 2

    class Inner:
        def hidden(self):
            pass
";
        let sig = |src: &str, start: u32| class_signature_lines(src, &LineTable::new(src), start, u32::MAX);
        assert_eq!(sig(src, 2), Some(vec![2, 4, 10, 11, 12, 16]));
        assert_eq!(sig(src, 3), None);
        // A nested class is found in a parse of the whole file.
        assert_eq!(sig(src, 18), Some(vec![18, 19]));
        // Decorators of a decorated first statement belong to the head, as in Python's `ast`; shown once.
        let first_decorated =
            "class B:\n    @property\n    def p(self):\n        @wraps(f)\n        def g():\n            pass\n";
        assert_eq!(sig(first_decorated, 1), Some(vec![1, 2, 3, 4]));
        // A class on one line still shows its header.
        assert_eq!(sig("class E(Exception): pass\n", 1), Some(vec![1]));
    }
}
