//! Parsing Python with tree-sitter, and the one guard every caller needs.
//!
//! tree-sitter-python's external scanner looks ahead over every following comment line each time it meets one
//! (to place a dedent before or after the comments), so a run of n comment-only lines costs O(n²): 10,000 of them
//! take about 3 s, and a 4 MiB file of comments would take hours. [`parse`] therefore parses a view of the source
//! in which each comment-only line is blanked (its bytes from `#` to the end of the line become spaces): lines,
//! byte offsets and every statement stay where they were, only comment nodes disappear, which no caller reads
//! (definitions end at their last token that is not a comment anyway). Whitespace-only lines cost the scanner
//! nothing. Lines inside strings are never touched (a small lexer tracks quotes, escapes and comments).

use std::borrow::Cow;

use tree_sitter::{Parser, Tree};

pub mod free_names;

/// A new parser for Python.
pub fn python_parser() -> Parser {
    let mut parser = Parser::new();
    parser.set_language(&tree_sitter_python::LANGUAGE.into()).expect("the bundled grammar matches the runtime");
    parser
}

/// Parses `text` (through [`parse_view`]); `None` only when the parser was cancelled.
pub fn parse(parser: &mut Parser, text: &str) -> Option<Tree> {
    parser.parse(parse_view(text).as_ref(), None)
}

/// `text` with every comment-only line blanked from its `#` to the end of the line (borrowed when there is none).
/// Lines inside a string (a triple-quoted one, or a quoted one continued with a backslash) are left alone: blanking
/// one could remove the quotes that close the string.
pub fn parse_view(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let mut out: Option<Vec<u8>> = None;
    let mut strings = StringState::Code;
    let mut line_start = 0;
    while line_start < bytes.len() {
        let line_end = memchr::memchr(b'\n', &bytes[line_start..]).map_or(bytes.len(), |i| line_start + i);
        let line = &bytes[line_start..line_end];
        let indent = line.iter().take_while(|b| matches!(b, b' ' | b'\t' | b'\x0c')).count();
        if strings == StringState::Code && line.get(indent) == Some(&b'#') {
            let end = if line.ends_with(b"\r") { line.len() - 1 } else { line.len() };
            let buffer = out.get_or_insert_with(|| bytes.to_vec());
            buffer[line_start + indent..line_start + end].fill(b' ');
        } else {
            strings = strings.after_line(line);
        }
        line_start = line_end + 1;
    }
    match out {
        // Whole UTF-8 sequences inside comments were replaced by spaces byte for byte, and everything else is
        // untouched, so the buffer is still UTF-8.
        Some(buffer) => Cow::Owned(String::from_utf8(buffer).unwrap_or_else(|_| text.to_string())),
        None => Cow::Borrowed(text),
    }
}

/// Whether the end of a line is inside a string that goes on to the next line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StringState {
    /// Outside any string.
    Code,
    /// Inside a triple-quoted string opened with this quote.
    Triple(u8),
    /// Inside a one-line string, continued by a backslash at the end of the line.
    Continued(u8),
}

impl StringState {
    /// The state after one line (without its `\n`), starting from this state. A lexer for quotes, escapes and
    /// comments only: enough to know where strings are, which is all [`parse_view`] needs.
    fn after_line(self, line: &[u8]) -> StringState {
        let mut state = self;
        let mut i = 0;
        while i < line.len() {
            let b = line[i];
            match state {
                StringState::Code => match b {
                    b'#' => return StringState::Code,
                    b'\'' | b'"' if line[i..].starts_with(&[b, b, b]) => {
                        state = StringState::Triple(b);
                        i += 3;
                        continue;
                    }
                    b'\'' | b'"' => state = StringState::Continued(b),
                    _ => {}
                },
                StringState::Triple(q) => {
                    if b == b'\\' {
                        i += 2;
                        continue;
                    }
                    if line[i..].starts_with(&[q, q, q]) {
                        state = StringState::Code;
                        i += 3;
                        continue;
                    }
                }
                StringState::Continued(q) => {
                    if b == b'\\' {
                        let rest = &line[i + 1..];
                        if rest.is_empty() || rest == b"\r" {
                            return state;
                        }
                        i += 2;
                        continue;
                    }
                    if b == q {
                        state = StringState::Code;
                    }
                }
            }
            i += 1;
        }
        // A one-line string that is not continued ends with its line (unterminated: the parser reports it).
        match state {
            StringState::Continued(_) => StringState::Code,
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comment_lines_are_blanked_in_place() {
        let src = "x = 1  # kept\n    # gone é\r\n\t# gone\ny = '#'\n#";
        let view = parse_view(src);
        assert_eq!(view, "x = 1  # kept\n             \r\n\t      \ny = '#'\n ");
        assert_eq!(view.len(), src.len());
        assert!(matches!(parse_view("x = 1\n"), Cow::Borrowed(_)));
    }

    /// A line that looks like a comment inside a string can hold the string's closing quotes: it stays.
    #[test]
    fn lines_inside_strings_are_left_alone() {
        let src = r#"x = """
# not a comment """
# a comment
y = 'a\
# in a string'
s = '''a \''' still open
# inside
'''
# outside
"#;
        let want = r#"x = """
# not a comment """
           
y = 'a\
# in a string'
s = '''a \''' still open
# inside
'''
         
"#;
        assert_eq!(parse_view(src), want);
    }

    #[test]
    fn definitions_parse_the_same_with_or_without_comments() {
        let src = "class A:\n    # c\n    def f(self):\n        pass\n        # trailing\n    # between\n\n    def g(self):\n        return 1\n# end\n";
        let mut parser = python_parser();
        let with = parser.parse(src, None).unwrap();
        let without = parse(&mut parser, src).unwrap();
        let defs = |t: &Tree| {
            let mut out = Vec::new();
            let mut stack = vec![t.root_node()];
            while let Some(n) = stack.pop() {
                if n.kind() == "function_definition" || n.kind() == "class_definition" {
                    out.push((n.start_position().row, n.child_by_field_name("body").map(|b| b.end_position().row)));
                }
                let mut c = n.walk();
                stack.extend(n.children(&mut c));
            }
            out.sort();
            out
        };
        assert!(!without.root_node().has_error());
        // tree-sitter ends a block after its trailing comments; without them it ends at the last statement.
        let rows = |t: &Tree| defs(t).into_iter().map(|(r, _)| r).collect::<Vec<_>>();
        assert_eq!(rows(&with), rows(&without));
    }
}
