//! CPython 3.12's tokenizer (`Parser/tokenizer.c`), rewritten for the gate.
//!
//! The token stream is what CPython's parser sees: `NEWLINE`, `INDENT` and `DEDENT` from the indentation stack,
//! hard keywords as their own kind, soft keywords (`match`, `case`, `type`, `_`) as names, f-strings split into
//! `FSTRING_START`, `FSTRING_MIDDLE`, replacement-field tokens and `FSTRING_END` (PEP 701). Tokenizing stops at the
//! first error, which is kept with the index of the token it prevented: CPython's parser only meets a tokenizer error
//! when it asks for that token, so the parser raises it at the same moment (see [`End`]).
//!
//! Positions: byte offsets into the prepared text (newlines translated to `\n`, a final newline added, as CPython's
//! `translate_newlines` does), 1-based lines, and CPython's column rules (a token created without a start, such as
//! `INDENT`, `DEDENT` and the end marker, has no column of its own).

use super::{ProblemKind, SyntaxProblem};

/// Hard keywords (3.12). Soft keywords stay [`Kind::Name`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kw {
    False,
    None,
    True,
    And,
    As,
    Assert,
    Async,
    Await,
    Break,
    Class,
    Continue,
    Def,
    Del,
    Elif,
    Else,
    Except,
    Finally,
    For,
    From,
    Global,
    If,
    Import,
    In,
    Is,
    Lambda,
    Nonlocal,
    Not,
    Or,
    Pass,
    Raise,
    Return,
    Try,
    While,
    With,
    Yield,
}

impl Kw {
    fn from_name(name: &[u8]) -> Option<Kw> {
        Some(match name {
            b"False" => Kw::False,
            b"None" => Kw::None,
            b"True" => Kw::True,
            b"and" => Kw::And,
            b"as" => Kw::As,
            b"assert" => Kw::Assert,
            b"async" => Kw::Async,
            b"await" => Kw::Await,
            b"break" => Kw::Break,
            b"class" => Kw::Class,
            b"continue" => Kw::Continue,
            b"def" => Kw::Def,
            b"del" => Kw::Del,
            b"elif" => Kw::Elif,
            b"else" => Kw::Else,
            b"except" => Kw::Except,
            b"finally" => Kw::Finally,
            b"for" => Kw::For,
            b"from" => Kw::From,
            b"global" => Kw::Global,
            b"if" => Kw::If,
            b"import" => Kw::Import,
            b"in" => Kw::In,
            b"is" => Kw::Is,
            b"lambda" => Kw::Lambda,
            b"nonlocal" => Kw::Nonlocal,
            b"not" => Kw::Not,
            b"or" => Kw::Or,
            b"pass" => Kw::Pass,
            b"raise" => Kw::Raise,
            b"return" => Kw::Return,
            b"try" => Kw::Try,
            b"while" => Kw::While,
            b"with" => Kw::With,
            b"yield" => Kw::Yield,
            _ => return None,
        })
    }
}

/// Operators and delimiters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
    LPar,
    RPar,
    LSqb,
    RSqb,
    Colon,
    Comma,
    Semi,
    Plus,
    Minus,
    Star,
    Slash,
    VBar,
    Amper,
    Less,
    Greater,
    Equal,
    Dot,
    Percent,
    LBrace,
    RBrace,
    EqEqual,
    NotEqual,
    LessEqual,
    GreaterEqual,
    Tilde,
    Circumflex,
    LeftShift,
    RightShift,
    DoubleStar,
    PlusEqual,
    MinEqual,
    StarEqual,
    SlashEqual,
    PercentEqual,
    AmperEqual,
    VBarEqual,
    CircumflexEqual,
    LeftShiftEqual,
    RightShiftEqual,
    DoubleStarEqual,
    DoubleSlash,
    DoubleSlashEqual,
    At,
    AtEqual,
    RArrow,
    Ellipsis,
    ColonEqual,
    Exclamation,
    /// `<>`: a `NOTEQUAL` token that only Barry as FLUFL accepts, so no rule matches it.
    LtGt,
    /// Any other printable character (`$`, `?`, a backtick): a token no rule matches.
    Other,
}

fn one_char(c: u8) -> Op {
    match c {
        b'(' => Op::LPar,
        b')' => Op::RPar,
        b'[' => Op::LSqb,
        b']' => Op::RSqb,
        b':' => Op::Colon,
        b',' => Op::Comma,
        b';' => Op::Semi,
        b'+' => Op::Plus,
        b'-' => Op::Minus,
        b'*' => Op::Star,
        b'/' => Op::Slash,
        b'|' => Op::VBar,
        b'&' => Op::Amper,
        b'<' => Op::Less,
        b'>' => Op::Greater,
        b'=' => Op::Equal,
        b'.' => Op::Dot,
        b'%' => Op::Percent,
        b'{' => Op::LBrace,
        b'}' => Op::RBrace,
        b'~' => Op::Tilde,
        b'^' => Op::Circumflex,
        b'@' => Op::At,
        b'!' => Op::Exclamation,
        _ => Op::Other,
    }
}

fn two_chars(c1: u8, c2: u8) -> Option<Op> {
    Some(match (c1, c2) {
        (b'!', b'=') => Op::NotEqual,
        (b'%', b'=') => Op::PercentEqual,
        (b'&', b'=') => Op::AmperEqual,
        (b'*', b'*') => Op::DoubleStar,
        (b'*', b'=') => Op::StarEqual,
        (b'+', b'=') => Op::PlusEqual,
        (b'-', b'=') => Op::MinEqual,
        (b'-', b'>') => Op::RArrow,
        (b'/', b'/') => Op::DoubleSlash,
        (b'/', b'=') => Op::SlashEqual,
        (b':', b'=') => Op::ColonEqual,
        (b'<', b'<') => Op::LeftShift,
        (b'<', b'=') => Op::LessEqual,
        (b'<', b'>') => Op::LtGt,
        (b'=', b'=') => Op::EqEqual,
        (b'>', b'=') => Op::GreaterEqual,
        (b'>', b'>') => Op::RightShift,
        (b'@', b'=') => Op::AtEqual,
        (b'^', b'=') => Op::CircumflexEqual,
        (b'|', b'=') => Op::VBarEqual,
        _ => return None,
    })
}

fn three_chars(c1: u8, c2: u8, c3: u8) -> Option<Op> {
    Some(match (c1, c2, c3) {
        (b'*', b'*', b'=') => Op::DoubleStarEqual,
        (b'.', b'.', b'.') => Op::Ellipsis,
        (b'/', b'/', b'=') => Op::DoubleSlashEqual,
        (b'<', b'<', b'=') => Op::LeftShiftEqual,
        (b'>', b'>', b'=') => Op::RightShiftEqual,
        _ => return None,
    })
}

/// A token's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Name,
    Number,
    String,
    FStringStart,
    FStringMiddle,
    FStringEnd,
    Newline,
    Indent,
    Dedent,
    EndMarker,
    Kw(Kw),
    Op(Op),
}

/// One token (24 bytes: a source of many short lines has about one token per 4 bytes, so the token list is a large
/// share of the gate's memory; columns are derived from [`Tokens::line_starts`] instead of being stored).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Token {
    pub(super) kind: Kind,
    /// Bracket depth after the token (CPython's `token->level`, at most `MAXLEVEL`).
    pub(super) level: u8,
    /// Whether the token has a column of its own (CPython creates `INDENT`, `DEDENT`, the end marker and tokens
    /// starting on an earlier line than the tokenizer without one).
    has_col: bool,
    /// Byte range in the prepared text.
    pub(super) start: u32,
    pub(super) end: u32,
    /// 1-based line of the start and of the end.
    pub(super) line: u32,
    pub(super) end_line: u32,
    /// Where the tokenizer stood after this token (for tokens without a column).
    cur: u32,
}

impl Token {
    /// Byte column of the start on its line, or `None` for tokens CPython creates without a start.
    pub(super) fn col(&self, line_starts: &[u32]) -> Option<u32> {
        self.has_col.then(|| self.start - line_starts[self.line as usize])
    }

    /// Start of the token's line, or the token's own start when it has no column.
    pub(super) fn line_start(&self, line_starts: &[u32]) -> usize {
        self.col(line_starts).map_or(self.start, |c| self.start - c) as usize
    }

    /// Byte column of the end on `end_line`.
    pub(super) fn end_col(&self, line_starts: &[u32]) -> u32 {
        self.end.saturating_sub(line_starts[self.end_line as usize])
    }

    /// The byte range of the tokenizer's line that it had read after this token (start of the line, position).
    pub(super) fn read_after(&self, line_starts: &[u32]) -> (usize, usize) {
        (line_starts[self.line as usize] as usize, self.cur as usize)
    }
}

/// How the token stream ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum End {
    /// With an `ENDMARKER` token (the last of the stream).
    Marker,
    /// With a tokenizer error, met when the parser asks for token `tokens.len()`.
    Error {
        problem: SyntaxProblem,
        /// CPython sets an exception for it (`syntaxerror()`), as opposed to only an error code (bad indentation,
        /// tabs, a character after a backslash): only the former overrides a parser error found earlier.
        exception: bool,
        /// It happened inside an f-string.
        in_fstring: bool,
        /// The innermost bracket open at that point: the character, its line and byte column.
        open: Option<(u8, u32, u32)>,
    },
    /// With the end of the text inside brackets (`'(' was never closed`) or after a backslash: CPython's
    /// `ERRORTOKEN` with `E_EOF` and no exception set.
    Eof {
        /// The innermost open bracket: the character, its line and byte column.
        open: Option<(u8, u32, u32)>,
        /// Line and byte column of the tokenizer at the end (for `unexpected EOF while parsing`).
        line: u32,
        col: u32,
    },
}

/// The tokens of a source and how the stream ends.
#[derive(Debug, Clone)]
pub(super) struct Tokens {
    pub(super) tokens: Vec<Token>,
    pub(super) end: End,
    /// Byte offset of the start of each line, by 1-based line number (entry 0 is 0).
    pub(super) line_starts: Vec<u32>,
}

const TABSIZE: u32 = 8;
const ALTTABSIZE: u32 = 1;
const MAXINDENT: usize = 100;
const MAXLEVEL: usize = 200;
const MAXFSTRINGLEVEL: usize = 150;
const MAX_EXPR_NESTING: i32 = 3;
const EOF: i32 = -1;

/// One level of CPython's tokenizer mode stack.
#[derive(Debug, Clone)]
struct Mode {
    quote: u8,
    quote_size: u8,
    raw: bool,
    /// Where the f-string started: byte offset, line start, line.
    start: usize,
    start_line_start: usize,
    start_line: u32,
    curly_depth: i32,
    expr_start_depth: i32,
    /// The expression part of the current replacement field has ended (`!`, `:` or `}` met at its level).
    expr_ended: bool,
    /// The replacement field has a `=` (CPython's `f_string_debug`).
    debug: bool,
    /// Whether the tokenizer is reading the literal part (CPython's `TOK_FSTRING_MODE`).
    in_literal: bool,
}

impl Mode {
    fn regular() -> Mode {
        Mode {
            quote: 0,
            quote_size: 0,
            raw: false,
            start: 0,
            start_line_start: 0,
            start_line: 0,
            curly_depth: 0,
            expr_start_depth: -1,
            expr_ended: false,
            debug: false,
            in_literal: false,
        }
    }
    fn inside_expr(&self) -> bool {
        self.expr_start_depth >= 0
    }
}

/// Why producing a token stopped.
enum Stop {
    /// A tokenizer error (the exception CPython sets).
    Error(SyntaxProblem),
    /// A tokenizer error CPython reports only through an error code.
    Done(SyntaxProblem),
    /// End of text inside brackets or after a backslash, with no exception.
    Eof,
}

struct Tokenizer<'a> {
    src: &'a [u8],
    cur: usize,
    line: u32,
    line_start: usize,
    line_end: usize,
    atbol: bool,
    indstack: Vec<u32>,
    altindstack: Vec<u32>,
    pendin: i32,
    parens: Vec<(u8, u32, u32)>,
    blankline: bool,
    modes: Vec<Mode>,
    /// Start of the token being read.
    start: Option<usize>,
    first_line: u32,
    multi_line_start: usize,
    out: Vec<Token>,
    line_starts: Vec<u32>,
}

/// Tokenizes prepared text (see [`super::source::prepare`]).
pub(super) fn tokenize(src: &str) -> Tokens {
    let mut t = Tokenizer {
        src: src.as_bytes(),
        cur: 0,
        line: 0,
        line_start: 0,
        line_end: 0,
        atbol: true,
        indstack: vec![0],
        altindstack: vec![0],
        pendin: 0,
        parens: Vec::new(),
        blankline: false,
        modes: vec![Mode::regular()],
        start: None,
        first_line: 0,
        multi_line_start: 0,
        out: Vec::new(),
        line_starts: vec![0],
    };
    let end = loop {
        match t.next_token() {
            Ok(Kind::EndMarker) => break End::Marker,
            Ok(_) => {}
            Err(Stop::Error(problem)) => {
                let open = t.parens.last().copied();
                break End::Error { problem, exception: true, in_fstring: t.modes.len() > 1, open };
            }
            Err(Stop::Done(problem)) => {
                let open = t.parens.last().copied();
                break End::Error { problem, exception: false, in_fstring: t.modes.len() > 1, open };
            }
            Err(Stop::Eof) => {
                let open = t.parens.last().copied();
                break End::Eof { open, line: t.line, col: (t.cur - t.line_start) as u32 };
            }
        }
    };
    let (mut tokens, mut line_starts) = (t.out, t.line_starts);
    tokens.shrink_to_fit();
    line_starts.shrink_to_fit();
    Tokens { tokens, end, line_starts }
}

fn is_potential_identifier_start(c: i32) -> bool {
    (c >= b'a' as i32 && c <= b'z' as i32) || (c >= b'A' as i32 && c <= b'Z' as i32) || c == b'_' as i32 || c >= 128
}

fn is_potential_identifier_char(c: i32) -> bool {
    is_potential_identifier_start(c) || (c >= b'0' as i32 && c <= b'9' as i32)
}

fn is_digit(c: i32) -> bool {
    (b'0' as i32..=b'9' as i32).contains(&c)
}

fn is_xdigit(c: i32) -> bool {
    is_digit(c) || (b'a' as i32..=b'f' as i32).contains(&c) || (b'A' as i32..=b'F' as i32).contains(&c)
}

impl<'a> Tokenizer<'a> {
    fn mode(&self) -> &Mode {
        self.modes.last().expect("the regular mode is never popped")
    }

    fn mode_mut(&mut self) -> &mut Mode {
        self.modes.last_mut().expect("the regular mode is never popped")
    }

    fn inside_fstring(&self) -> bool {
        self.modes.len() > 1
    }

    #[cfg_attr(not(target_family = "wasm"), inline(always))]
    fn nextc(&mut self) -> i32 {
        if self.cur >= self.src.len() {
            return EOF;
        }
        if self.cur == self.line_end {
            self.next_line();
        }
        let c = self.src[self.cur];
        self.cur += 1;
        i32::from(c)
    }

    /// Enters the next line (where `cur` stands).
    fn next_line(&mut self) {
        self.line += 1;
        self.line_start = self.cur;
        self.line_starts.push(self.cur as u32);
        self.line_end = memchr::memchr(b'\n', &self.src[self.cur..]).map_or(self.src.len(), |i| self.cur + i + 1);
    }

    #[cfg_attr(not(target_family = "wasm"), inline(always))]
    fn backup(&mut self, c: i32) {
        if c != EOF {
            self.cur -= 1;
        }
    }

    /// An error at the current position (CPython's `syntaxerror(tok, ...)`): the column is the text read so far
    /// on the line.
    fn error(&self, msg: impl Into<String>) -> Stop {
        Stop::Error(self.error_at(self.cur, msg))
    }

    fn error_at(&self, at: usize, msg: impl Into<String>) -> SyntaxProblem {
        let col = char_count(&self.src[self.line_start.min(at)..at]) as u32;
        SyntaxProblem::new(ProblemKind::Syntax, msg, self.line, col.max(1))
    }

    fn push(&mut self, kind: Kind, start: Option<usize>, end: usize) {
        let (line, col) = match (kind, start) {
            (Kind::String, Some(s)) => (self.first_line, Some((s - self.multi_line_start) as u32)),
            (_, Some(s)) if s >= self.line_start => (self.line, Some((s - self.line_start) as u32)),
            _ => (self.line, None),
        };
        let token = Token {
            kind,
            level: u8::try_from(self.parens.len()).unwrap_or(u8::MAX),
            has_col: col.is_some(),
            start: start.unwrap_or(self.cur) as u32,
            end: end as u32,
            line,
            end_line: self.line,
            cur: self.cur as u32,
        };
        debug_assert_eq!(token.col(&self.line_starts), col);
        debug_assert_eq!(token.end_col(&self.line_starts), end.saturating_sub(self.line_start) as u32);
        debug_assert!(col.is_some() || token.read_after(&self.line_starts).0 == self.line_start);
        self.out.push(token);
    }

    fn next_token(&mut self) -> Result<Kind, Stop> {
        if self.inside_fstring() && self.mode().in_literal {
            return self.fstring_token();
        }
        self.normal_token()
    }

    fn normal_token(&mut self) -> Result<Kind, Stop> {
        'nextline: loop {
            self.start = None;
            self.blankline = false;
            if self.atbol {
                self.indentation()?;
            }
            // Pending indents and dedents.
            if self.pendin != 0 {
                let kind = if self.pendin < 0 {
                    self.pendin += 1;
                    Kind::Dedent
                } else {
                    self.pendin -= 1;
                    Kind::Indent
                };
                self.push(kind, None, self.cur);
                return Ok(kind);
            }
            'again: loop {
                let mut c;
                loop {
                    c = self.nextc();
                    if c != b' ' as i32 && c != b'\t' as i32 && c != 0x0c {
                        break;
                    }
                }
                let start = if c == EOF { self.cur } else { self.cur - 1 };
                self.start = Some(start);
                if c == b'#' as i32 {
                    while c != EOF && c != b'\n' as i32 {
                        c = self.nextc();
                    }
                }
                if c == EOF {
                    if !self.parens.is_empty() {
                        return Err(Stop::Eof);
                    }
                    self.push(Kind::EndMarker, None, self.cur);
                    return Ok(Kind::EndMarker);
                }
                if c == 0 {
                    // Null bytes are refused before tokenizing (see `source::prepare`); this is a safety net.
                    return Err(self.error("source code cannot contain null bytes"));
                }
                if is_potential_identifier_start(c) {
                    return self.identifier_or_string(c, start);
                }
                if c == b'\n' as i32 {
                    self.atbol = true;
                    if self.blankline || !self.parens.is_empty() {
                        continue 'nextline;
                    }
                    self.push(Kind::Newline, Some(start), self.cur - 1);
                    return Ok(Kind::Newline);
                }
                if c == b'.' as i32 {
                    let c2 = self.nextc();
                    if is_digit(c2) {
                        return self.number_fraction(c2, start);
                    } else if c2 == b'.' as i32 {
                        let c3 = self.nextc();
                        if c3 == b'.' as i32 {
                            self.push(Kind::Op(Op::Ellipsis), Some(start), self.cur);
                            return Ok(Kind::Op(Op::Ellipsis));
                        }
                        self.backup(c3);
                        self.backup(c2);
                    } else {
                        self.backup(c2);
                    }
                    self.push(Kind::Op(Op::Dot), Some(start), self.cur);
                    return Ok(Kind::Op(Op::Dot));
                }
                if is_digit(c) {
                    return self.number(c, start);
                }
                if c == b'\'' as i32 || c == b'"' as i32 {
                    return self.string(c, start);
                }
                if c == b'\\' as i32 {
                    self.continuation_line()?;
                    continue 'again;
                }
                return self.operator(c, start);
            }
        }
    }

    /// Measures the indentation of a new line and queues `INDENT`/`DEDENT` tokens (CPython's `atbol` block).
    fn indentation(&mut self) -> Result<(), Stop> {
        self.atbol = false;
        let (mut col, mut altcol, mut cont_line_col) = (0u32, 0u32, 0u32);
        let mut c;
        loop {
            c = self.nextc();
            if c == b' ' as i32 {
                col += 1;
                altcol += 1;
            } else if c == b'\t' as i32 {
                col = (col / TABSIZE + 1) * TABSIZE;
                altcol = (altcol / ALTTABSIZE + 1) * ALTTABSIZE;
            } else if c == 0x0c {
                col = 0;
                altcol = 0;
            } else if c == b'\\' as i32 {
                if cont_line_col == 0 {
                    cont_line_col = col;
                }
                self.continuation_line()?;
            } else {
                break;
            }
        }
        self.backup(c);
        if c == b'#' as i32 || c == b'\n' as i32 {
            self.blankline = true;
        }
        if !self.blankline && self.parens.is_empty() {
            if cont_line_col != 0 {
                col = cont_line_col;
                altcol = cont_line_col;
            }
            let top = self.indstack.len() - 1;
            if col == self.indstack[top] {
                if altcol != self.altindstack[top] {
                    return Err(self.tab_error());
                }
            } else if col > self.indstack[top] {
                if self.indstack.len() >= MAXINDENT {
                    return Err(Stop::Done(SyntaxProblem::new(
                        ProblemKind::Indentation,
                        "too many levels of indentation",
                        self.line,
                        1,
                    )));
                }
                if altcol <= self.altindstack[top] {
                    return Err(self.tab_error());
                }
                self.pendin += 1;
                self.indstack.push(col);
                self.altindstack.push(altcol);
            } else {
                while self.indstack.len() > 1 && col < *self.indstack.last().unwrap_or(&0) {
                    self.pendin -= 1;
                    self.indstack.pop();
                    self.altindstack.pop();
                }
                let top = self.indstack.len() - 1;
                if col != self.indstack[top] {
                    let at = self.line_end.min(self.src.len());
                    let col = char_count(self.src.get(self.line_start..at).unwrap_or(&[])) as u32;
                    return Err(Stop::Done(SyntaxProblem::new(
                        ProblemKind::Indentation,
                        "unindent does not match any outer indentation level",
                        self.line,
                        col,
                    )));
                }
                if altcol != self.altindstack[top] {
                    return Err(self.tab_error());
                }
            }
        }
        Ok(())
    }

    fn tab_error(&self) -> Stop {
        Stop::Done(SyntaxProblem::new(
            ProblemKind::Tab,
            "inconsistent use of tabs and spaces in indentation",
            self.line,
            1,
        ))
    }

    /// After a backslash: the next character must end the line, and another line must follow.
    fn continuation_line(&mut self) -> Result<(), Stop> {
        let c = self.nextc();
        if c != b'\n' as i32 {
            return Err(Stop::Done(SyntaxProblem::new(
                ProblemKind::Syntax,
                "unexpected character after line continuation character",
                self.line,
                char_count(&self.src[self.line_start..self.cur.saturating_sub(1).max(self.line_start)]) as u32 + 1,
            )));
        }
        let c = self.nextc();
        if c == EOF {
            return Err(Stop::Eof);
        }
        self.backup(c);
        Ok(())
    }

    fn identifier_or_string(&mut self, first: i32, start: usize) -> Result<Kind, Stop> {
        let (mut saw_b, mut saw_r, mut saw_u, mut saw_f) = (false, false, false, false);
        let mut c = first;
        loop {
            let lower = (c as u8).to_ascii_lowercase();
            if c < 128 && !(saw_b || saw_u || saw_f) && lower == b'b' {
                saw_b = true;
            } else if c < 128 && !(saw_b || saw_u || saw_r || saw_f) && lower == b'u' {
                saw_u = true;
            } else if c < 128 && !(saw_r || saw_u) && lower == b'r' {
                saw_r = true;
            } else if c < 128 && !(saw_f || saw_b || saw_u) && lower == b'f' {
                saw_f = true;
            } else {
                break;
            }
            c = self.nextc();
            if c == b'"' as i32 || c == b'\'' as i32 {
                if saw_f {
                    return self.fstring_start(c, start);
                }
                return self.string(c, start);
            }
        }
        let mut nonascii = false;
        while is_potential_identifier_char(c) {
            if c >= 128 {
                nonascii = true;
            }
            c = self.nextc();
        }
        self.backup(c);
        if nonascii {
            self.verify_identifier(start)?;
        }
        let kind = match Kw::from_name(&self.src[start..self.cur]) {
            Some(k) => Kind::Kw(k),
            None => Kind::Name,
        };
        self.push(kind, Some(start), self.cur);
        Ok(kind)
    }

    fn verify_identifier(&mut self, start: usize) -> Result<(), Stop> {
        let bytes = &self.src[start..self.cur];
        // The bytes are a run of whole UTF-8 characters: the text is valid UTF-8 and the run stops at an ASCII byte.
        let text = std::str::from_utf8(bytes).unwrap_or("");
        let mut offset = start;
        for (i, ch) in text.char_indices() {
            let ok =
                if i == 0 { ch == '_' || unicode_ident::is_xid_start(ch) } else { unicode_ident::is_xid_continue(ch) };
            if !ok {
                offset = start + i + ch.len_utf8();
                self.cur = offset;
                let msg = if is_printable(ch) {
                    format!("invalid character '{ch}' (U+{:04X})", ch as u32)
                } else {
                    format!("invalid non-printable character U+{:04X}", ch as u32)
                };
                return Err(self.error(msg));
            }
        }
        let _ = offset;
        Ok(())
    }

    fn verify_end_of_number(&mut self, c: i32, kind: &str) -> Result<(), Stop> {
        // A keyword right after a number (`1if x else y`) only warns; another name is an error.
        let keyword_follows = match c as u8 {
            b'a' => self.lookahead(b"nd"),
            b'e' => self.lookahead(b"lse"),
            b'f' => self.lookahead(b"or"),
            b'i' => {
                let c2 = self.nextc();
                let r = c2 == b'f' as i32 || c2 == b'n' as i32 || c2 == b's' as i32;
                self.backup(c2);
                r
            }
            b'o' => self.lookahead(b"r"),
            b'n' => self.lookahead(b"ot"),
            _ => false,
        };
        if c != EOF && keyword_follows {
            return Ok(());
        }
        if (0..128).contains(&c) && is_potential_identifier_char(c) {
            self.backup(c);
            return Err(self.error(format!("invalid {kind} literal")));
        }
        Ok(())
    }

    fn lookahead(&mut self, rest: &[u8]) -> bool {
        let mut read = Vec::with_capacity(rest.len() + 1);
        let mut ok = true;
        for &want in rest {
            let c = self.nextc();
            read.push(c);
            if c != i32::from(want) {
                ok = false;
                break;
            }
        }
        if ok {
            let c = self.nextc();
            read.push(c);
            ok = !is_potential_identifier_char(c);
        }
        for c in read.into_iter().rev() {
            self.backup(c);
        }
        ok
    }

    fn decimal_tail(&mut self) -> Result<i32, Stop> {
        loop {
            let mut c;
            loop {
                c = self.nextc();
                if !is_digit(c) {
                    break;
                }
            }
            if c != b'_' as i32 {
                return Ok(c);
            }
            c = self.nextc();
            if !is_digit(c) {
                self.backup(c);
                return Err(self.error("invalid decimal literal"));
            }
        }
    }

    fn finish_number(&mut self, c: i32, start: usize) -> Result<Kind, Stop> {
        self.backup(c);
        self.push(Kind::Number, Some(start), self.cur);
        Ok(Kind::Number)
    }

    fn number(&mut self, first: i32, start: usize) -> Result<Kind, Stop> {
        let mut c = first;
        if c == b'0' as i32 {
            c = self.nextc();
            let lower = if c >= 0 { (c as u8).to_ascii_lowercase() } else { 0 };
            if lower == b'x' {
                c = self.nextc();
                loop {
                    if c == b'_' as i32 {
                        c = self.nextc();
                    }
                    if !is_xdigit(c) {
                        self.backup(c);
                        return Err(self.error("invalid hexadecimal literal"));
                    }
                    loop {
                        c = self.nextc();
                        if !is_xdigit(c) {
                            break;
                        }
                    }
                    if c != b'_' as i32 {
                        break;
                    }
                }
                self.verify_end_of_number(c, "hexadecimal")?;
                return self.finish_number(c, start);
            }
            if lower == b'o' || lower == b'b' {
                let (name, max) = if lower == b'o' { ("octal", b'7') } else { ("binary", b'1') };
                let ok = |c: i32| c >= b'0' as i32 && c <= i32::from(max);
                c = self.nextc();
                loop {
                    if c == b'_' as i32 {
                        c = self.nextc();
                    }
                    if !ok(c) {
                        if is_digit(c) {
                            return Err(self.error(format!("invalid digit '{}' in {name} literal", c as u8 as char)));
                        }
                        self.backup(c);
                        return Err(self.error(format!("invalid {name} literal")));
                    }
                    loop {
                        c = self.nextc();
                        if !ok(c) {
                            break;
                        }
                    }
                    if c != b'_' as i32 {
                        break;
                    }
                }
                if is_digit(c) {
                    return Err(self.error(format!("invalid digit '{}' in {name} literal", c as u8 as char)));
                }
                self.verify_end_of_number(c, name)?;
                return self.finish_number(c, start);
            }
            // Maybe an old-style octal; `0` alone is fine.
            let mut nonzero = false;
            loop {
                if c == b'_' as i32 {
                    c = self.nextc();
                    if !is_digit(c) {
                        self.backup(c);
                        return Err(self.error("invalid decimal literal"));
                    }
                }
                if c != b'0' as i32 {
                    break;
                }
                c = self.nextc();
            }
            let zeros_end = self.cur;
            if is_digit(c) {
                nonzero = true;
                c = self.decimal_tail()?;
            }
            if c == b'.' as i32 {
                let c2 = self.nextc();
                return self.number_fraction(c2, start);
            }
            if c == b'e' as i32 || c == b'E' as i32 {
                return self.number_exponent(c, start);
            }
            if c == b'j' as i32 || c == b'J' as i32 {
                return self.number_imaginary(start);
            }
            if nonzero {
                self.backup(c);
                let _ = zeros_end;
                let col = char_count(&self.src[self.line_start..start]) as u32 + 1;
                return Err(Stop::Error(SyntaxProblem::new(
                    ProblemKind::Syntax,
                    "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers",
                    self.line,
                    col,
                )));
            }
            self.verify_end_of_number(c, "decimal")?;
            return self.finish_number(c, start);
        }
        c = self.decimal_tail()?;
        if c == b'.' as i32 {
            let c2 = self.nextc();
            return self.number_fraction(c2, start);
        }
        if c == b'e' as i32 || c == b'E' as i32 {
            return self.number_exponent(c, start);
        }
        if c == b'j' as i32 || c == b'J' as i32 {
            return self.number_imaginary(start);
        }
        self.verify_end_of_number(c, "decimal")?;
        self.finish_number(c, start)
    }

    /// After the `.` of a number (`c` is the character after it).
    fn number_fraction(&mut self, first: i32, start: usize) -> Result<Kind, Stop> {
        let mut c = first;
        if is_digit(c) {
            c = self.decimal_tail()?;
        }
        if c == b'e' as i32 || c == b'E' as i32 {
            return self.number_exponent(c, start);
        }
        if c == b'j' as i32 || c == b'J' as i32 {
            return self.number_imaginary(start);
        }
        self.verify_end_of_number(c, "decimal")?;
        self.finish_number(c, start)
    }

    fn number_exponent(&mut self, e: i32, start: usize) -> Result<Kind, Stop> {
        let mut c = self.nextc();
        if c == b'+' as i32 || c == b'-' as i32 {
            c = self.nextc();
            if !is_digit(c) {
                self.backup(c);
                return Err(self.error("invalid decimal literal"));
            }
        } else if !is_digit(c) {
            self.backup(c);
            self.verify_end_of_number(e, "decimal")?;
            self.backup(e);
            self.push(Kind::Number, Some(start), self.cur);
            return Ok(Kind::Number);
        }
        c = self.decimal_tail()?;
        if c == b'j' as i32 || c == b'J' as i32 {
            return self.number_imaginary(start);
        }
        self.verify_end_of_number(c, "decimal")?;
        self.finish_number(c, start)
    }

    fn number_imaginary(&mut self, start: usize) -> Result<Kind, Stop> {
        let c = self.nextc();
        self.verify_end_of_number(c, "imaginary")?;
        self.finish_number(c, start)
    }

    /// A string literal (not an f-string); `quote` has just been read.
    fn string(&mut self, quote: i32, start: usize) -> Result<Kind, Stop> {
        self.first_line = self.line;
        self.multi_line_start = self.line_start;
        let mut quote_size = 1;
        let mut end_quote_size = 0;
        let mut c = self.nextc();
        if c == quote {
            c = self.nextc();
            if c == quote {
                quote_size = 3;
            } else {
                end_quote_size = 1;
            }
        }
        if c != quote {
            self.backup(c);
        }
        while end_quote_size != quote_size {
            c = self.nextc();
            if c == EOF || (quote_size == 1 && c == b'\n' as i32) {
                let detected = self.line;
                let col = char_count(&self.src[self.multi_line_start..start]) as u32 + 1;
                if self.inside_fstring() {
                    let m = self.mode();
                    if i32::from(m.quote) == quote && m.quote_size == quote_size {
                        return Err(Stop::Error(SyntaxProblem::new(
                            ProblemKind::Syntax,
                            "f-string: expecting '}'",
                            self.first_line,
                            col,
                        )));
                    }
                }
                let msg = if quote_size == 3 {
                    format!("unterminated triple-quoted string literal (detected at line {detected})")
                } else {
                    format!("unterminated string literal (detected at line {detected})")
                };
                return Err(Stop::Error(SyntaxProblem::new(ProblemKind::Syntax, msg, self.first_line, col)));
            }
            if c == quote {
                end_quote_size += 1;
            } else {
                end_quote_size = 0;
                if c == b'\\' as i32 {
                    self.nextc();
                }
            }
        }
        self.push(Kind::String, Some(start), self.cur);
        Ok(Kind::String)
    }

    /// An f-string's opening quote(s) have been reached.
    fn fstring_start(&mut self, quote: i32, start: usize) -> Result<Kind, Stop> {
        self.first_line = self.line;
        self.multi_line_start = self.line_start;
        let mut quote_size = 1u8;
        let after = self.nextc();
        if after == quote {
            let after2 = self.nextc();
            if after2 == quote {
                quote_size = 3;
            } else {
                self.backup(after2);
                self.backup(after);
            }
        } else {
            self.backup(after);
        }
        if self.modes.len() >= MAXFSTRINGLEVEL {
            return Err(self.error("too many nested f-strings"));
        }
        let prefix = &self.src[start..self.cur];
        let raw = prefix.iter().any(|b| b.eq_ignore_ascii_case(&b'r'));
        self.modes.push(Mode {
            quote: quote as u8,
            quote_size,
            raw,
            start,
            start_line_start: self.line_start,
            start_line: self.line,
            curly_depth: 0,
            expr_start_depth: -1,
            expr_ended: false,
            debug: false,
            in_literal: true,
        });
        self.push(Kind::FStringStart, Some(start), self.cur);
        Ok(Kind::FStringStart)
    }

    /// The literal part of an f-string (CPython's `tok_get_fstring_mode`).
    fn fstring_token(&mut self) -> Result<Kind, Stop> {
        let start = self.cur;
        self.start = Some(start);
        self.first_line = self.line;
        self.multi_line_start = self.line_start;
        let first = self.nextc();
        if first == b'{' as i32 {
            let peek = self.nextc();
            self.backup(peek);
            self.backup(first);
            if peek != b'{' as i32 {
                let m = self.mode_mut();
                m.expr_start_depth += 1;
                if m.expr_start_depth >= MAX_EXPR_NESTING {
                    return Err(self.error("f-string: expressions nested too deeply"));
                }
                self.mode_mut().in_literal = false;
                return self.normal_token();
            }
        } else {
            self.backup(first);
        }
        // The end of the string?
        let (quote, quote_size) = (i32::from(self.mode().quote), self.mode().quote_size);
        let mut read = Vec::new();
        let mut at_end = true;
        for _ in 0..quote_size {
            let c = self.nextc();
            read.push(c);
            if c != quote {
                at_end = false;
                break;
            }
        }
        if at_end {
            self.modes.pop();
            self.push(Kind::FStringEnd, Some(start), self.cur);
            return Ok(Kind::FStringEnd);
        }
        for c in read.into_iter().rev() {
            self.backup(c);
        }
        let mut end_quote_size = 0u8;
        let mut unicode_escape = false;
        while end_quote_size != quote_size {
            let c = self.nextc();
            let in_format_spec = self.mode().expr_ended && self.mode().inside_expr();
            if c == EOF || (quote_size == 1 && c == b'\n' as i32) {
                if in_format_spec && c == b'\n' as i32 {
                    self.backup(c);
                    self.mode_mut().in_literal = false;
                    self.push(Kind::FStringMiddle, Some(start), self.cur);
                    return Ok(Kind::FStringMiddle);
                }
                let detected = self.line;
                let m = self.mode();
                let col = char_count(&self.src[m.start_line_start..m.start]) as u32 + 1;
                let msg = if quote_size == 3 {
                    format!("unterminated triple-quoted f-string literal (detected at line {detected})")
                } else {
                    format!("unterminated f-string literal (detected at line {detected})")
                };
                return Err(Stop::Error(SyntaxProblem::new(ProblemKind::Syntax, msg, m.start_line, col)));
            }
            if c == quote {
                end_quote_size += 1;
                continue;
            }
            end_quote_size = 0;
            if c == b'{' as i32 {
                let peek = self.nextc();
                if peek != b'{' as i32 || in_format_spec {
                    self.backup(peek);
                    self.backup(c);
                    let m = self.mode_mut();
                    m.expr_start_depth += 1;
                    if m.expr_start_depth >= MAX_EXPR_NESTING {
                        return Err(self.error("f-string: expressions nested too deeply"));
                    }
                    self.mode_mut().in_literal = false;
                    self.push(Kind::FStringMiddle, Some(start), self.cur);
                } else {
                    self.push(Kind::FStringMiddle, Some(start), self.cur - 1);
                }
                return Ok(Kind::FStringMiddle);
            } else if c == b'}' as i32 {
                if unicode_escape {
                    self.push(Kind::FStringMiddle, Some(start), self.cur);
                    return Ok(Kind::FStringMiddle);
                }
                let peek = self.nextc();
                if peek == b'}' as i32 && !in_format_spec {
                    self.push(Kind::FStringMiddle, Some(start), self.cur - 1);
                } else {
                    self.backup(peek);
                    self.backup(c);
                    self.mode_mut().in_literal = false;
                    self.push(Kind::FStringMiddle, Some(start), self.cur);
                }
                return Ok(Kind::FStringMiddle);
            } else if c == b'\\' as i32 {
                let mut peek = self.nextc();
                if peek == b'{' as i32 || peek == b'}' as i32 {
                    self.backup(peek);
                    continue;
                }
                if !self.mode().raw && peek == b'N' as i32 {
                    peek = self.nextc();
                    if peek == b'{' as i32 {
                        unicode_escape = true;
                    } else {
                        self.backup(peek);
                    }
                }
            }
        }
        for _ in 0..quote_size {
            self.backup(quote);
        }
        self.push(Kind::FStringMiddle, Some(start), self.cur);
        Ok(Kind::FStringMiddle)
    }

    fn operator(&mut self, c: i32, start: usize) -> Result<Kind, Stop> {
        let cb = c as u8;
        // Inside an f-string's replacement field, `:`, `!`, `}` and `{` at its own level steer the tokenizer.
        if matches!(cb, b':' | b'}' | b'!' | b'{') && self.inside_fstring() && self.mode().inside_expr() {
            let m = self.mode();
            let cursor = m.curly_depth - i32::from(cb != b'{');
            if cursor == 0 {
                let m = self.mode_mut();
                m.expr_ended = cb != b'{';
            }
            let m = self.mode();
            if cb == b':' && cursor == m.expr_start_depth {
                self.mode_mut().in_literal = true;
                self.push(Kind::Op(Op::Colon), Some(start), self.cur);
                return Ok(Kind::Op(Op::Colon));
            }
        }
        let c2 = self.nextc();
        if c2 >= 0
            && let Some(op2) = two_chars(cb, c2 as u8)
        {
            let c3 = self.nextc();
            let op = if c3 >= 0
                && let Some(op3) = three_chars(cb, c2 as u8, c3 as u8)
            {
                op3
            } else {
                self.backup(c3);
                op2
            };
            self.push(Kind::Op(op), Some(start), self.cur);
            return Ok(Kind::Op(op));
        }
        self.backup(c2);
        match cb {
            b'(' | b'[' | b'{' => {
                if self.parens.len() >= MAXLEVEL {
                    return Err(self.error("too many nested parentheses"));
                }
                self.parens.push((cb, self.line, (start - self.line_start) as u32));
                if self.inside_fstring() {
                    self.mode_mut().curly_depth += 1;
                }
            }
            b')' | b']' | b'}' => {
                if self.inside_fstring() && self.mode().curly_depth == 0 && cb == b'}' {
                    return Err(self.error("f-string: single '}' is not allowed"));
                }
                let Some((opening, open_line, _)) = self.parens.pop() else {
                    return Err(self.error(format!("unmatched '{}'", cb as char)));
                };
                let matches = matches!((opening, cb), (b'(', b')') | (b'[', b']') | (b'{', b'}'));
                if !matches {
                    if self.inside_fstring() && opening == b'{' {
                        let m = self.mode();
                        if m.curly_depth - 1 == m.expr_start_depth {
                            return Err(self.error(format!("f-string: unmatched '{}'", cb as char)));
                        }
                    }
                    let msg = if open_line != self.line {
                        format!(
                            "closing parenthesis '{}' does not match opening parenthesis '{}' on line {open_line}",
                            cb as char, opening as char
                        )
                    } else {
                        format!(
                            "closing parenthesis '{}' does not match opening parenthesis '{}'",
                            cb as char, opening as char
                        )
                    };
                    return Err(self.error(msg));
                }
                if self.inside_fstring() {
                    let m = self.mode_mut();
                    m.curly_depth -= 1;
                    if cb == b'}' && m.curly_depth == m.expr_start_depth {
                        m.expr_start_depth -= 1;
                        m.in_literal = true;
                        m.debug = false;
                    }
                }
            }
            _ => {}
        }
        if !(0x20..0x7f).contains(&c) {
            return Err(self.error(format!("invalid non-printable character U+{:04X}", c)));
        }
        if cb == b'=' && self.inside_fstring() && self.mode().inside_expr() {
            self.mode_mut().debug = true;
        }
        let op = one_char(cb);
        self.push(Kind::Op(op), Some(start), self.cur);
        Ok(Kind::Op(op))
    }
}

/// Characters in a run of UTF-8 bytes.
pub(super) fn char_count(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b & 0xC0) != 0x80).count()
}

/// Python's `str.isprintable` for one character, approximately: not a control, separator or unassigned character.
fn is_printable(ch: char) -> bool {
    !(ch.is_control() || matches!(ch, '\u{2028}' | '\u{2029}' | '\u{00A0}' | '\u{00AD}') || ch.is_whitespace())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<Kind> {
        tokenize(src).tokens.iter().map(|t| t.kind).collect()
    }

    #[test]
    fn indentation_makes_indent_and_dedent() {
        use Kind::*;
        assert_eq!(
            kinds("if x:\n    y\nz\n"),
            vec![
                Kw(super::Kw::If),
                Name,
                Op(super::Op::Colon),
                Newline,
                Indent,
                Name,
                Newline,
                Dedent,
                Name,
                Newline,
                EndMarker
            ]
        );
    }

    #[test]
    fn fstrings_are_split() {
        use Kind::*;
        let k = kinds("f'a{x!r:>{w}}b'\n");
        assert_eq!(k.first(), Some(&FStringStart));
        assert!(k.contains(&FStringEnd), "{k:?}");
        assert!(tokenize("f'{x:{y:{z:{w}}}}'\n").end != End::Marker);
    }

    #[test]
    fn errors_stop_the_stream() {
        let t = tokenize("x = 012\n");
        assert!(
            matches!(t.end, End::Error { ref problem, .. } if problem.message.starts_with("leading zeros")),
            "{:?}",
            t.end
        );
        assert!(matches!(tokenize("x = (\n").end, End::Eof { open: Some((b'(', 1, 4)), .. }));
    }
}
