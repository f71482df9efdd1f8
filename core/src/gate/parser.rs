//! The parser's machinery: token access, CPython's rules for where an error is reported, memoisation, and the two
//! passes of `_PyPegen_run_parser`.
//!
//! The grammar rules (in `stmt`, `expr`, `targets`, `params`, `patterns` and `strings`) are a hand port of CPython
//! 3.12's `Grammar/python.gram`, rule by rule and alternative by alternative, because *where* CPython reports an
//! error depends on how far its PEG parser looked ahead: a generic `invalid syntax` is reported at the furthest
//! token the first pass fetched. So the port fetches tokens in the same order, keeps the `invalid_*` rules for a
//! second pass, and raises tokenizer errors only when the parser reaches them (or, after a parser error, when
//! CPython's full-source tokenizer check would).

use super::ast::{Ast, ExprId, StmtId, TokId};
use super::memo::{Memo, MemoTable};
use super::tokens::{End, Kind, Kw, Op, Token, Tokens, char_count};
use super::{ProblemKind, Stack, SyntaxProblem};

const NONE: u32 = u32::MAX;

/// The memo is pruned ([`Parser::forget_before`]) once it holds this many entries (and then whenever it has doubled
/// since the last pruning): small sources never pay for it.
const MEMO_PRUNE_MIN: usize = 1 << 12;

/// The sizes of the node arenas and the count of memo writes at one moment of the parse.
#[derive(Clone, Copy)]
struct NodeMark {
    exprs: usize,
    stmts: usize,
    patterns: usize,
    memo_writes: u64,
}

/// The parser state.
pub(super) struct Parser<'a> {
    pub(super) src: &'a [u8],
    pub(super) toks: &'a [Token],
    /// [`Tokens::line_starts`].
    pub(super) line_starts: &'a [u32],
    end: &'a End,
    pub(super) pos: usize,
    pub(super) fill: usize,
    pub(super) err: Option<SyntaxProblem>,
    /// The error came from the tokenizer (CPython's `tok->done` is an error code).
    tok_err: bool,
    /// Second pass: the `invalid_*` rules are active.
    pub(super) invalid: bool,
    pub(super) ast: Ast,
    memo: MemoTable,
    /// Size of the memo at which it is next pruned.
    memo_prune_at: usize,
    /// Memo entries written so far (see [`Parser::discard_since`]).
    memo_writes: u64,
    stack: Stack,
}

impl<'a> Parser<'a> {
    pub(super) fn new(src: &'a str, tokens: &'a Tokens) -> Parser<'a> {
        Parser {
            src: src.as_bytes(),
            toks: &tokens.tokens,
            line_starts: &tokens.line_starts,
            end: &tokens.end,
            pos: 0,
            fill: 0,
            err: None,
            tok_err: false,
            invalid: false,
            ast: Ast::default(),
            memo: MemoTable::default(),
            memo_prune_at: MEMO_PRUNE_MIN,
            memo_writes: 0,
            stack: Stack::new(),
        }
    }

    // ---------------------------------------------------------------- tokens

    /// Fetches token `i` (CPython's `_PyPegen_fill_token`): `None` when the tokenizer fails there (the error is
    /// raised) or an error is already set.
    ///
    /// This and the other calls made at every step of the parse are inlined natively, where they were a third of the
    /// gate's time; wasm builds (the package and the component are built for size) leave it to the compiler.
    #[cfg_attr(not(target_family = "wasm"), inline(always))]
    pub(super) fn token(&mut self, i: usize) -> Option<Token> {
        if self.err.is_some() {
            return None;
        }
        if let Some(t) = self.toks.get(i) {
            self.fill = self.fill.max(i + 1);
            return Some(*t);
        }
        self.past_the_end()
    }

    /// A fetch past the last token: the end marker again, or the tokenizer's error at the end.
    #[cold]
    fn past_the_end(&mut self) -> Option<Token> {
        match self.end {
            End::Marker => self.toks.last().copied(),
            End::Error { problem, .. } => {
                self.fill = self.fill.max(self.toks.len() + 1);
                self.err = Some(problem.clone());
                self.tok_err = true;
                None
            }
            End::Eof { open, line, col } => {
                self.fill = self.fill.max(self.toks.len() + 1);
                let problem = match open {
                    Some(o) => self.unclosed(*o),
                    None => SyntaxProblem::new(ProblemKind::Syntax, "unexpected EOF while parsing", *line, *col),
                };
                self.err = Some(problem);
                self.tok_err = true;
                None
            }
        }
    }

    fn unclosed(&self, (c, line, col): (u8, u32, u32)) -> SyntaxProblem {
        let column = self.char_col_at_line(line, col) + 1;
        SyntaxProblem::new(ProblemKind::Syntax, format!("'{}' was never closed", c as char), line, column)
    }

    /// Character column of byte column `col` on `line`, found from any token on that line (or the byte column).
    fn char_col_at_line(&self, line: u32, col: u32) -> u32 {
        let t = self.toks.iter().find(|t| t.line == line && t.col(self.line_starts).is_some());
        match t {
            Some(t) => {
                let line_start = t.line_start(self.line_starts);
                let end = (line_start + col as usize).min(self.src.len());
                char_count(&self.src[line_start..end]) as u32
            }
            None => col,
        }
    }

    /// The token at the current position.
    #[cfg_attr(not(target_family = "wasm"), inline(always))]
    pub(super) fn peek(&mut self) -> Option<Token> {
        self.token(self.pos)
    }

    #[cfg_attr(not(target_family = "wasm"), inline(always))]
    pub(super) fn peek_kind(&mut self) -> Option<Kind> {
        self.peek().map(|t| t.kind)
    }

    /// Consumes the current token when it is of `kind`.
    #[cfg_attr(not(target_family = "wasm"), inline(always))]
    pub(super) fn expect(&mut self, kind: Kind) -> Option<TokId> {
        let t = self.peek()?;
        if t.kind == kind {
            self.pos += 1;
            Some((self.pos - 1) as TokId)
        } else {
            None
        }
    }

    #[cfg_attr(not(target_family = "wasm"), inline)]
    pub(super) fn op(&mut self, op: Op) -> Option<TokId> {
        self.expect(Kind::Op(op))
    }

    #[cfg_attr(not(target_family = "wasm"), inline)]
    pub(super) fn kw(&mut self, kw: Kw) -> Option<TokId> {
        self.expect(Kind::Kw(kw))
    }

    #[cfg_attr(not(target_family = "wasm"), inline)]
    pub(super) fn name(&mut self) -> Option<TokId> {
        self.expect(Kind::Name)
    }

    /// A soft keyword: a name with this text.
    pub(super) fn soft(&mut self, word: &str) -> Option<TokId> {
        let t = self.peek()?;
        if t.kind == Kind::Name && self.text(t) == word.as_bytes() {
            self.pos += 1;
            Some((self.pos - 1) as TokId)
        } else {
            None
        }
    }

    /// Whether the current token is of `kind` (a lookahead: nothing is consumed).
    #[cfg_attr(not(target_family = "wasm"), inline(always))]
    pub(super) fn at(&mut self, kind: Kind) -> bool {
        self.peek_kind() == Some(kind)
    }

    pub(super) fn at_op(&mut self, op: Op) -> bool {
        self.at(Kind::Op(op))
    }

    pub(super) fn at_kw(&mut self, kw: Kw) -> bool {
        self.at(Kind::Kw(kw))
    }

    pub(super) fn at_soft(&mut self, word: &str) -> bool {
        let m = self.pos;
        let r = self.soft(word).is_some();
        self.pos = m;
        r
    }

    /// Whether the current token is a soft keyword (CPython's `SOFT_KEYWORD`).
    pub(super) fn at_any_soft_keyword(&mut self) -> bool {
        match self.peek() {
            Some(t) if t.kind == Kind::Name => matches!(self.text(t), b"_" | b"case" | b"match" | b"type"),
            _ => false,
        }
    }

    pub(super) fn text(&self, t: Token) -> &'a [u8] {
        &self.src[t.start as usize..t.end as usize]
    }

    pub(super) fn tok(&self, i: TokId) -> Token {
        self.toks.get(i as usize).copied().unwrap_or_else(|| *self.toks.last().expect("at least an end marker"))
    }

    pub(super) fn tok_text(&self, i: TokId) -> &'a [u8] {
        self.text(self.tok(i))
    }

    /// The last token consumed.
    pub(super) fn last(&self) -> TokId {
        self.pos.saturating_sub(1) as TokId
    }

    // ---------------------------------------------------------------- control

    #[cfg_attr(not(target_family = "wasm"), inline(always))]
    pub(super) fn failed(&self) -> bool {
        self.err.is_some()
    }

    /// Enters a recursive rule; `false` (with an error) when the nesting would exhaust the stack budget.
    pub(super) fn enter(&mut self) -> bool {
        if self.err.is_some() {
            return false;
        }
        if self.stack.exhausted() {
            let line = self.peek_line();
            self.err = Some(Stack::problem(line));
            return false;
        }
        true
    }

    pub(super) fn leave(&mut self) {}

    fn peek_line(&self) -> u32 {
        self.toks.get(self.pos).or(self.toks.last()).map_or(1, |t| t.line)
    }

    /// A memoised result at the current position: `Some(result)` when known (the position moves to its end).
    #[cfg_attr(not(target_family = "wasm"), inline(always))]
    pub(super) fn memo_get(&mut self, rule: Memo) -> Option<Option<u32>> {
        let (value, end) = self.memo.get(rule, self.pos)?;
        self.pos = end as usize;
        Some((value != NONE).then_some(value))
    }

    #[cfg_attr(not(target_family = "wasm"), inline)]
    pub(super) fn memo_put(&mut self, rule: Memo, start: usize, value: Option<u32>) {
        self.memo_writes += 1;
        self.memo.insert(rule, start, value.unwrap_or(NONE), self.pos as u32);
    }

    /// Runs `f` memoised under `rule`.
    pub(super) fn memoized(&mut self, rule: Memo, f: impl FnOnce(&mut Self) -> Option<u32>) -> Option<u32> {
        if self.failed() {
            return None;
        }
        if let Some(r) = self.memo_get(rule) {
            return r;
        }
        let start = self.pos;
        let mark = self.mark();
        let r = f(self);
        if r.is_none() {
            self.discard_since(mark);
        }
        if !self.failed() {
            if r.is_none() {
                self.pos = start;
            }
            self.memo_put(rule, start, r);
        }
        r
    }

    /// Where the arenas and the memo stand, for [`Parser::discard_since`].
    #[cfg_attr(not(target_family = "wasm"), inline(always))]
    fn mark(&self) -> NodeMark {
        NodeMark {
            exprs: self.ast.exprs.len(),
            stmts: self.ast.stmts.len(),
            patterns: self.ast.patterns.len(),
            memo_writes: self.memo_writes,
        }
    }

    /// After an alternative failed: drops the nodes it built, unless a memo entry was written meanwhile (it may
    /// refer to them). Nothing else refers to the nodes of a failed alternative, and a failing source builds as
    /// many as a passing one (CPython's arena keeps them: `x = 1` alone builds four expressions, two of them for
    /// `t_primary`'s `atom &t_lookahead`, which fails).
    #[cfg_attr(not(target_family = "wasm"), inline(always))]
    fn discard_since(&mut self, mark: NodeMark) {
        if self.memo_writes == mark.memo_writes {
            self.ast.exprs.truncate(mark.exprs);
            self.ast.stmts.truncate(mark.stmts);
            self.ast.patterns.truncate(mark.patterns);
        }
    }

    /// Drops the memo entries of positions before `pos`, called between two statements of a statement list at
    /// `pos`. The parse cannot come back to an earlier token inside the list without first leaving the enclosing
    /// block, whose own entry (and every other block's) is kept, so re-parsing a block is still one look-up; what
    /// can be re-parsed from scratch is only the header of an enclosing compound statement. Memoisation is a cache
    /// (a rule's result depends only on its position and the pass), so this changes no verdict: it keeps the memo
    /// to the statement being parsed instead of the whole file (it was most of the gate's memory).
    pub(super) fn forget_before(&mut self, pos: usize) {
        if self.memo.len() < self.memo_prune_at {
            return;
        }
        self.memo.retain(|rule, at| rule == Memo::Block || at >= pos);
        self.memo_prune_at = (self.memo.len() * 2).max(MEMO_PRUNE_MIN);
    }

    // ---------------------------------------------------------------- combinators

    /// One alternative: runs `f`, and on failure moves back to where it started.
    pub(super) fn alt<T>(&mut self, f: impl FnOnce(&mut Self) -> Option<T>) -> Option<T> {
        if self.failed() {
            return None;
        }
        let m = self.pos;
        let mark = self.mark();
        let r = f(self);
        if r.is_none() {
            self.pos = m;
            self.discard_since(mark);
        }
        r
    }

    /// `&e` (or, negated, `!e`): whether `f` matches here; nothing is consumed.
    pub(super) fn ahead<T>(&mut self, f: impl FnOnce(&mut Self) -> Option<T>) -> bool {
        let m = self.pos;
        let mark = self.mark();
        let r = f(self).is_some();
        self.pos = m;
        self.discard_since(mark);
        r
    }

    /// `s.e+`: one or more `f` separated by `sep` (a trailing separator is left unconsumed).
    pub(super) fn gather<T>(&mut self, sep: Op, mut f: impl FnMut(&mut Self) -> Option<T>) -> Option<Vec<T>> {
        let first = self.alt(&mut f)?;
        let mut out = vec![first];
        loop {
            let m = self.pos;
            if self.op(sep).is_none() {
                break;
            }
            match self.alt(&mut f) {
                Some(x) => out.push(x),
                None => {
                    self.pos = m;
                    break;
                }
            }
        }
        if self.failed() { None } else { Some(out) }
    }

    /// `e*`: zero or more `f`.
    pub(super) fn repeat<T>(&mut self, mut f: impl FnMut(&mut Self) -> Option<T>) -> Vec<T> {
        let mut out = Vec::new();
        while let Some(x) = self.alt(&mut f) {
            out.push(x);
        }
        out
    }

    /// `e+`: one or more `f`.
    pub(super) fn repeat1<T>(&mut self, f: impl FnMut(&mut Self) -> Option<T>) -> Option<Vec<T>> {
        let out = self.repeat(f);
        if out.is_empty() || self.failed() { None } else { Some(out) }
    }

    // ---------------------------------------------------------------- errors

    /// 1-based line and character column of token `i`'s start (CPython's `t->lineno`, `t->col_offset + 1`); tokens
    /// without a column use the tokenizer's position after them.
    pub(super) fn start_of(&self, i: usize) -> (u32, u32) {
        let Some(t) = self.toks.get(i) else {
            return self.end_position();
        };
        match t.col(self.line_starts) {
            Some(c) => {
                let line_start = (t.start - c) as usize;
                (t.line, char_count(&self.src[line_start..t.start as usize]) as u32 + 1)
            }
            None => {
                let (ls, cur) = t.read_after(self.line_starts);
                (t.line, char_count(&self.src[ls.min(cur)..cur]) as u32)
            }
        }
    }

    fn end_position(&self) -> (u32, u32) {
        match self.end {
            End::Error { problem, .. } => (problem.line, problem.column),
            End::Eof { line, col, .. } => (*line, *col),
            End::Marker => self.toks.last().map_or((1, 1), |t| (t.line, 1)),
        }
    }

    /// Raises `msg` at token `at` (CPython's `RAISE_SYNTAX_ERROR_KNOWN_LOCATION` and `_RANGE`/`_STARTING_FROM`):
    /// only the first error counts.
    pub(super) fn raise_at(&mut self, at: TokId, kind: ProblemKind, msg: impl Into<String>) {
        if self.err.is_some() {
            return;
        }
        let (line, column) = self.start_of(at as usize);
        self.err = Some(SyntaxProblem::new(kind, msg, line, column));
    }

    pub(super) fn raise_expr(&mut self, e: ExprId, msg: impl Into<String>) {
        let at = self.ast.expr(e).first;
        self.raise_at(at, ProblemKind::Syntax, msg);
    }

    /// `RAISE_SYNTAX_ERROR(msg)`: at the last token fetched.
    pub(super) fn raise_last(&mut self, kind: ProblemKind, msg: impl Into<String>) {
        let at = self.fill.saturating_sub(1);
        self.raise_at(at as TokId, kind, msg);
    }

    /// `RAISE_SYNTAX_ERROR_ON_NEXT_TOKEN(msg)`: at the token at the current position.
    pub(super) fn raise_next(&mut self, msg: impl Into<String>) {
        if self.peek().is_none() {
            return;
        }
        self.raise_at(self.pos as TokId, ProblemKind::Syntax, msg);
    }

    /// `&&token`: the token must be there, or `expected '...'` is raised at once (in either pass).
    pub(super) fn forced(&mut self, kind: Kind, text: &str) -> Option<TokId> {
        if let Some(t) = self.expect(kind) {
            return Some(t);
        }
        if self.failed() {
            return None;
        }
        self.raise_at(self.pos as TokId, ProblemKind::Syntax, format!("expected '{text}'"));
        None
    }

    // ---------------------------------------------------------------- the two passes

    /// CPython's `_PyPegen_run_parser` for a file: the module's statements, or the error CPython reports.
    pub(super) fn run(mut self) -> Result<(Ast, Vec<StmtId>), SyntaxProblem> {
        if let Some(body) = self.file() {
            return Ok((self.ast, body));
        }
        let last_token = self.fill.saturating_sub(1);
        if self.err.is_none() {
            self.pos = 0;
            self.memo.clear();
            self.memo_prune_at = MEMO_PRUNE_MIN;
            self.invalid = true;
            let _ = self.file();
        }
        self.set_syntax_error(last_token);
        Err(self.err.unwrap_or_else(|| SyntaxProblem::new(ProblemKind::Syntax, "invalid syntax", 1, 1)))
    }

    /// `file: [statements] ENDMARKER`.
    fn file(&mut self) -> Option<Vec<StmtId>> {
        let body = self.statements().unwrap_or_default();
        if self.failed() {
            return None;
        }
        self.expect(Kind::EndMarker)?;
        Some(body)
    }

    /// CPython's `_PyPegen_set_syntax_error`.
    fn set_syntax_error(&mut self, last_token: usize) {
        if self.err.is_some() {
            if !self.tok_err {
                self.check_full_source();
            }
            return;
        }
        let lt = self.toks.get(last_token).map(|t| t.kind);
        if matches!(lt, Some(Kind::Indent | Kind::Dedent)) {
            let msg = if lt == Some(Kind::Indent) { "unexpected indent" } else { "unexpected unindent" };
            self.raise_last(ProblemKind::Indentation, msg);
            return;
        }
        self.raise_at(last_token as TokId, ProblemKind::Syntax, "invalid syntax");
        self.check_full_source();
    }

    /// CPython's `_PyPegen_tokenize_full_source_to_check_for_errors`: a tokenizer error later in the file (one that
    /// raises) takes the place of a parser error, and a bracket left open takes its place when it opened on an
    /// earlier line.
    fn check_full_source(&mut self) {
        let current_line = self.start_of(self.fill.saturating_sub(1)).0;
        match self.end {
            End::Error { problem, exception: true, in_fstring: false, .. } => self.err = Some(problem.clone()),
            // An error token without an exception (the end of the text, bad indentation or tabs, a character after
            // a backslash): a bracket still open there, opened before the error's line, is reported instead.
            End::Error { exception: false, open: Some(o), .. } | End::Eof { open: Some(o), .. }
                if current_line > o.1 =>
            {
                self.err = Some(self.unclosed(*o))
            }
            _ => {}
        }
    }
}
