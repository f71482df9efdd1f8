//! The definitions of a valid Python source, read from the gate's own parse: the index's fast path.
//!
//! tree-sitter's parse is the index's reference, and most of its cost. The gate's tokenizer and PEG parser read a
//! source about twice as fast and build CPython's AST, whose statements carry exactly what the index records:
//! which `class` and `def` statements there are, in which blocks, from which line to which. For a source the
//! gate's parser accepts (CPython 3.12 would parse it), [`outline`] returns them; for anything else it returns
//! `None` and the caller parses with tree-sitter, which also recovers definitions from broken sources.
//!
//! It also returns `None` wherever the two could count lines differently: a lone `\r` (a line break to CPython, not
//! to tree-sitter), a byte-order mark, or a source the gate decodes (an `iso-8859-1` declaration with non-ASCII
//! text), so that line numbers and names are always the source's own.

use super::ast::{Ast, ExprKind, StmtId, StmtKind};
use super::parser::Parser;
use super::source;
use super::tokens::{Kind, Op, Tokens, tokenize};

/// One `class` or `def` statement of a source, in source order (a definition before the ones nested in it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OutlineDef {
    /// A `class` (otherwise a `def` or `async def`).
    pub(crate) class: bool,
    /// The name, as a byte range of [`Outline::text`].
    pub(crate) name: std::ops::Range<usize>,
    /// The position in [`Outline::defs`] of the nearest enclosing class, through any functions in between.
    pub(crate) enclosing_class: Option<usize>,
    /// Line of the `class`, `def` or `async` keyword (1-based; decorators are not part of the definition).
    pub(crate) start: u32,
    /// Line of the definition's last token (1-based, inclusive; comments are not tokens).
    pub(crate) end: u32,
    /// For a class: the byte ranges of the bases written as a plain or dotted name (`Base`, `mod.Base`, not
    /// `Generic[T]`, `(Base)` or `metaclass=M`), in order.
    pub(crate) bases: Vec<std::ops::Range<usize>>,
}

/// The definitions of a source and the text their byte ranges point into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Outline {
    /// The source as the gate read it: `\r\n` turned into `\n` and a final newline added, nothing else.
    pub(crate) text: String,
    /// Every definition, in source order.
    pub(crate) defs: Vec<OutlineDef>,
}

/// The definitions of `source` when the gate's parser accepts it and reads it with tree-sitter's lines and bytes;
/// `None` otherwise (see the module's documentation).
pub(crate) fn outline(source: &str) -> Option<Outline> {
    let bytes = source.as_bytes();
    let lone_cr = memchr::memchr_iter(b'\r', bytes).any(|i| bytes.get(i + 1) != Some(&b'\n'));
    if lone_cr || source.starts_with('\u{feff}') {
        return None;
    }
    let text = source::prepare(source).ok()?;
    let crlf = memchr::memchr_iter(b'\r', bytes).count();
    let added = usize::from(!source.ends_with('\n'));
    if text.len() != source.len() - crlf + added {
        return None;
    }
    let tokens = tokenize(&text);
    let (ast, body) = Parser::new(&text, &tokens).run().ok()?;
    let mut walk = Walk { tokens: &tokens, ast: &ast, defs: Vec::new() };
    walk.block(&body, None);
    let defs = walk.defs;
    Some(Outline { text, defs })
}

/// A pre-order walk over the statements that can hold definitions.
struct Walk<'a> {
    tokens: &'a Tokens,
    ast: &'a Ast,
    defs: Vec<OutlineDef>,
}

impl Walk<'_> {
    fn block(&mut self, body: &[StmtId], class: Option<usize>) {
        for &s in body {
            self.statement(s, class);
        }
    }

    fn statement(&mut self, id: StmtId, class: Option<usize>) {
        let stmt = self.ast.stmt(id);
        match &stmt.kind {
            StmtKind::ClassDef(c) => {
                let at = self.define(true, c.name, stmt.first, stmt.last, class);
                // Only a class with bases has parentheses to look for (the search would run on past its header).
                if let Some(parens) = (!c.bases.is_empty()).then(|| self.class_parens(c.name)).flatten() {
                    self.defs[at].bases = c.bases.iter().filter_map(|&b| self.plain_base(parens, b)).collect();
                }
                self.block(&c.body, Some(at));
            }
            StmtKind::FunctionDef(f) => {
                self.define(false, f.name, stmt.first, stmt.last, class);
                self.block(&f.body, class);
            }
            StmtKind::For(f) => {
                self.block(&f.body, class);
                self.block(&f.orelse, class);
            }
            StmtKind::While(c) | StmtKind::If(c) => {
                self.block(&c.body, class);
                self.block(&c.orelse, class);
            }
            StmtKind::With(w) => self.block(&w.body, class),
            StmtKind::Match(m) => {
                for case in &m.cases {
                    self.block(&case.body, class);
                }
            }
            StmtKind::Try(t) => {
                self.block(&t.body, class);
                for handler in &t.handlers {
                    self.block(&handler.body, class);
                }
                self.block(&t.orelse, class);
                self.block(&t.finalbody, class);
            }
            _ => {}
        }
    }

    /// Records a definition and returns its position.
    fn define(&mut self, class: bool, name: u32, first: u32, last: u32, enclosing_class: Option<usize>) -> usize {
        let toks = &self.tokens.tokens;
        let name = toks[name as usize].start as usize..toks[name as usize].end as usize;
        // A block's statement ends with the NEWLINE and DEDENT tokens that close it; the definition ends with the
        // last token before them.
        let mut end = last as usize;
        while end > first as usize
            && matches!(toks[end].kind, Kind::Newline | Kind::Indent | Kind::Dedent | Kind::EndMarker)
        {
            end -= 1;
        }
        self.defs.push(OutlineDef {
            class,
            name,
            enclosing_class,
            start: toks[first as usize].line,
            end: toks[end].end_line,
            bases: Vec::new(),
        });
        self.defs.len() - 1
    }

    /// The class's own parentheses around its bases: the first `(` after the name at one level deeper (type
    /// parameters come in `[...]`), and the `)` back at the name's level.
    fn class_parens(&self, class_name: u32) -> Option<(usize, usize)> {
        let toks = &self.tokens.tokens;
        let level = toks[class_name as usize].level;
        let open = (class_name as usize + 1..toks.len())
            .find(|&i| toks[i].kind == Kind::Op(Op::LPar) && toks[i].level == level + 1)?;
        let close = (open + 1..toks.len()).find(|&i| toks[i].kind == Kind::Op(Op::RPar) && toks[i].level == level)?;
        Some((open, close))
    }

    /// The byte range of a base that is a plain or dotted name standing directly in the class's argument list
    /// (`parens`, from [`Walk::class_parens`]): not in parentheses of its own, which tree-sitter keeps as a
    /// parenthesised expression.
    fn plain_base(&self, (open, close): (usize, usize), base: u32) -> Option<std::ops::Range<usize>> {
        let e = self.ast.expr(base);
        if !matches!(e.kind, ExprKind::Name | ExprKind::Attribute(..)) {
            return None;
        }
        let toks = &self.tokens.tokens;
        let level = toks[open].level;
        let (first, last) = (e.first as usize, e.last as usize);
        let separates =
            |i: usize, paren: usize| i == paren || (toks[i].kind == Kind::Op(Op::Comma) && toks[i].level == level);
        (separates(first.checked_sub(1)?, open) && separates(last + 1, close))
            .then(|| toks[first].start as usize..toks[last].end as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn described(source: &str) -> Option<Vec<String>> {
        let o = outline(source)?;
        let text = |r: &std::ops::Range<usize>| o.text[r.clone()].to_string();
        Some(
            o.defs
                .iter()
                .map(|d| {
                    let bases: Vec<String> = d.bases.iter().map(text).collect();
                    let enclosing = d.enclosing_class.map(|c| text(&o.defs[c].name));
                    format!(
                        "{} {} {}-{} in {:?} bases {:?}",
                        if d.class { "class" } else { "def" },
                        text(&d.name),
                        d.start,
                        d.end,
                        enclosing,
                        bases
                    )
                })
                .collect(),
        )
    }

    #[test]
    fn definitions_with_their_lines_classes_and_bases() {
        let src = "\
import os

@decorated
class Base(object, mod . Mixin, (Paren), Generic[T], *extra, metaclass=Meta):
    x = 1

    @property
    def name(self):
        return (
            'b'
        )  # trailing comment
    # a comment after the block

if os:
    async def fetch():
        def inner():
            class Local: pass
        return inner
else:
    try:
        pass
    except* ValueError:
        def handler(): ...
";
        let want = [
            "class Base 4-11 in None bases [\"object\", \"mod . Mixin\"]",
            "def name 8-11 in Some(\"Base\") bases []",
            "def fetch 15-18 in None bases []",
            "def inner 16-17 in None bases []",
            "class Local 17-17 in None bases []",
            "def handler 23-23 in None bases []",
        ];
        assert_eq!(described(src).unwrap(), want);
    }

    #[test]
    fn sources_the_gate_refuses_or_reads_differently_have_no_outline() {
        assert!(described("def f(:\n    pass\n").is_none());
        assert!(described("x = 1\rdef f(): pass\n").is_none());
        assert!(described("\u{feff}def f(): pass\n").is_none());
        assert!(described("# coding: latin-1\nname = 'é'\n").is_none());
        assert_eq!(described("def f():\r\n    pass").unwrap(), ["def f 1-2 in None bases []"]);
    }
}
