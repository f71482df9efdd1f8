//! String literals: the `strings` rule (implicit concatenation), f-strings (PEP 701), and what CPython's string
//! decoding refuses (bad escapes, non-ASCII bytes, bytes mixed with text).

use super::ProblemKind;
use super::ast::{Const, ExprId, ExprKind, TokId};
use super::memo::Memo;
use super::parser::Parser;
use super::tokens::{Kind, Op};

impl Parser<'_> {
    /// `strings (memo): (fstring | string)+`.
    pub(super) fn strings(&mut self) -> Option<ExprId> {
        self.memoized(Memo::Strings, |p| {
            let start = p.pos as TokId;
            let (mut bytes, mut text) = (false, false);
            let mut parts = Vec::new();
            loop {
                match p.peek_kind() {
                    Some(Kind::String) => {
                        let t = p.pos as TokId;
                        p.pos += 1;
                        let is_bytes = p.check_string_token(t)?;
                        if is_bytes {
                            bytes = true;
                        } else {
                            text = true;
                        }
                    }
                    Some(Kind::FStringStart) => {
                        let f = p.alt(Self::fstring);
                        match f {
                            Some(f) => {
                                parts.push(f);
                                text = true;
                            }
                            None => break,
                        }
                    }
                    _ => break,
                }
            }
            if p.failed() || p.pos == start as usize {
                return None;
            }
            if bytes && text {
                p.raise_last(ProblemKind::Syntax, "cannot mix bytes and nonbytes literals");
                return None;
            }
            let kind = if parts.is_empty() {
                ExprKind::Constant(Const::Str { bytes })
            } else {
                ExprKind::JoinedStr(parts.into())
            };
            Some(p.ast.add_expr(kind, start, p.last()))
        })
    }

    /// `fstring: FSTRING_START fstring_middle* FSTRING_END`.
    fn fstring(&mut self) -> Option<ExprId> {
        let start = self.expect(Kind::FStringStart)?;
        let raw = self.tok_text(start).iter().any(|b| b.eq_ignore_ascii_case(&b'r'));
        let mut values = Vec::new();
        loop {
            if let Some(t) = self.expect(Kind::FStringMiddle) {
                if !raw {
                    self.check_escapes(t, false)?;
                }
                continue;
            }
            match self.alt(Self::fstring_replacement_field) {
                Some(v) => values.push(v),
                None => break,
            }
        }
        if self.failed() {
            return None;
        }
        self.expect(Kind::FStringEnd)?;
        Some(self.ast.add_expr(ExprKind::JoinedStr(values.into()), start, self.last()))
    }

    /// `fstring_replacement_field: '{' (yield_expr | star_expressions) '='? [fstring_conversion]
    /// [fstring_full_format_spec] '}' | invalid_replacement_field`.
    fn fstring_replacement_field(&mut self) -> Option<ExprId> {
        if !self.enter() {
            return None;
        }
        let r = self.replacement_field_inner();
        self.leave();
        r
    }

    fn replacement_field_inner(&mut self) -> Option<ExprId> {
        if let Some(e) = self.alt(|p| {
            let start = p.op(Op::LBrace)?;
            let value = p.alt(Self::yield_expr).or_else(|| p.alt(Self::star_expressions))?;
            p.op(Op::Equal);
            let conversion = p.alt(|p| {
                let bang = p.op(Op::Exclamation)?;
                let name = p.name()?;
                Some((bang, name))
            });
            let spec = p.alt(|p| {
                p.op(Op::Colon)?;
                let mut parts = Vec::new();
                loop {
                    if let Some(t) = p.expect(Kind::FStringMiddle) {
                        let _ = t;
                        continue;
                    }
                    match p.alt(Self::fstring_replacement_field) {
                        Some(v) => parts.push(v),
                        None => break,
                    }
                }
                if p.failed() {
                    return None;
                }
                Some(parts)
            });
            p.op(Op::RBrace)?;
            if let Some((bang, name)) = conversion {
                let (b, n) = (p.tok(bang), p.tok(name));
                if b.end_line != n.line || b.end != n.start {
                    p.raise_at(
                        bang,
                        ProblemKind::Syntax,
                        "f-string: conversion type must come right after the exclamanation mark",
                    );
                    return None;
                }
                let text = p.tok_text(name);
                if !matches!(text, b"s" | b"r" | b"a") {
                    let shown = String::from_utf8_lossy(text).into_owned();
                    p.raise_at(
                        name,
                        ProblemKind::Syntax,
                        format!("f-string: invalid conversion character '{shown}': expected 's', 'r', or 'a'"),
                    );
                    return None;
                }
            }
            let spec = spec.map(|parts| p.ast.add_expr(ExprKind::JoinedStr(parts.into()), start, p.last()));
            Some(p.ast.add_expr(ExprKind::FormattedValue(value, spec), start, p.last()))
        }) {
            return Some(e);
        }
        if self.invalid {
            self.invalid_replacement_field();
        }
        None
    }

    fn invalid_replacement_field(&mut self) {
        let m = self.pos;
        if self.op(Op::LBrace).is_none() {
            return;
        }
        for (op, what) in [(Op::Equal, '='), (Op::Exclamation, '!'), (Op::Colon, ':'), (Op::RBrace, '}')] {
            if let Some(a) = self.op(op) {
                self.raise_at(a, ProblemKind::Syntax, format!("f-string: valid expression required before '{what}'"));
                return;
            }
        }
        let after_brace = self.pos;
        let has_expr = self.alt(Self::yield_expr).or_else(|| self.alt(Self::star_expressions)).is_some();
        if self.failed() {
            return;
        }
        if !has_expr {
            self.pos = after_brace;
            self.raise_next("f-string: expecting a valid expression after '{'");
            return;
        }
        let is = |p: &mut Self, ops: &[Op]| ops.iter().any(|&o| p.at_op(o));
        if !is(self, &[Op::Equal, Op::Exclamation, Op::Colon, Op::RBrace]) {
            self.raise_next("f-string: expecting '=', or '!', or ':', or '}'");
            return;
        }
        let after_expr = self.pos;
        if self.op(Op::Equal).is_some() && !is(self, &[Op::Exclamation, Op::Colon, Op::RBrace]) {
            self.raise_next("f-string: expecting '!', or ':', or '}'");
            return;
        }
        self.pos = after_expr;
        self.op(Op::Equal);
        let before_bang = self.pos;
        if self.op(Op::Exclamation).is_some() {
            if self.at_op(Op::Colon) || self.at_op(Op::RBrace) {
                self.raise_next("f-string: missing conversion character");
                return;
            }
            if !self.at(Kind::Name) {
                self.raise_next("f-string: invalid conversion character");
                return;
            }
        }
        self.pos = before_bang;
        if self
            .alt(|p| {
                p.op(Op::Exclamation)?;
                p.name()
            })
            .is_none()
        {
            self.pos = before_bang;
        }
        if !is(self, &[Op::Colon, Op::RBrace]) {
            self.raise_next("f-string: expecting ':' or '}'");
            return;
        }
        if self.op(Op::Colon).is_some() {
            loop {
                if self.expect(Kind::FStringMiddle).is_some() {
                    continue;
                }
                if self.alt(Self::fstring_replacement_field).is_none() {
                    break;
                }
            }
            if self.failed() {
                return;
            }
            if !self.at_op(Op::RBrace) {
                self.raise_next("f-string: expecting '}', or format specs");
            }
            return;
        }
        if !self.at_op(Op::RBrace) {
            self.raise_next("f-string: expecting '}'");
        }
        let _ = m;
    }

    /// Validates one string token: `Some(is_bytes)`, or `None` with the error raised.
    fn check_string_token(&mut self, t: TokId) -> Option<bool> {
        let text = self.tok_text(t);
        let quote_at = text.iter().position(|&b| b == b'\'' || b == b'"').unwrap_or(0);
        let prefix = &text[..quote_at];
        let bytes = prefix.iter().any(|b| b.eq_ignore_ascii_case(&b'b'));
        let raw = prefix.iter().any(|b| b.eq_ignore_ascii_case(&b'r'));
        if bytes && text.iter().any(|&b| b >= 0x80) {
            self.raise_at(t, ProblemKind::Syntax, "bytes can only contain ASCII literal characters");
            return None;
        }
        if !raw {
            self.check_escapes(t, bytes)?;
        }
        Some(bytes)
    }

    /// CPython's escape decoding errors for a string or f-string part (`\x`, `\u`, `\U`, `\N{...}`), with the
    /// positions CPython gives (offsets in the literal's body).
    fn check_escapes(&mut self, t: TokId, bytes: bool) -> Option<()> {
        let token = self.tok_text(t);
        // The body: after the prefix and the opening quotes (f-string parts have neither).
        let body_start = match token.iter().position(|&b| b == b'\'' || b == b'"') {
            Some(q) if self.tok(t).kind == super::tokens::Kind::String => {
                let quote = token[q];
                if token[q..].starts_with(&[quote, quote, quote]) && token.len() >= q + 6 { q + 3 } else { q + 1 }
            }
            _ => 0,
        };
        let text = &token[body_start..];
        let mut i = 0;
        while i < text.len() {
            if text[i] != b'\\' {
                i += 1;
                continue;
            }
            let Some(&c) = text.get(i + 1) else {
                break;
            };
            let hex_run = |n: usize| text.iter().skip(i + 2).take(n).take_while(|b| b.is_ascii_hexdigit()).count();
            let unicode = |end: usize, what: &str| {
                format!("(unicode error) 'unicodeescape' codec can't decode bytes in position {i}-{end}: {what}")
            };
            let problem = match c {
                b'x' if hex_run(2) < 2 => Some(if bytes {
                    format!("(value error) invalid \\x escape at position {i}")
                } else {
                    unicode(i + 1 + hex_run(2), "truncated \\xXX escape")
                }),
                b'u' if !bytes && hex_run(4) < 4 => Some(unicode(i + 1 + hex_run(4), "truncated \\uXXXX escape")),
                b'U' if !bytes && hex_run(8) < 8 => Some(unicode(i + 1 + hex_run(8), "truncated \\UXXXXXXXX escape")),
                b'U' if !bytes => {
                    let v =
                        std::str::from_utf8(&text[i + 2..i + 10]).ok().and_then(|h| u32::from_str_radix(h, 16).ok());
                    v.filter(|&v| v > 0x10_FFFF).map(|_| unicode(i + 9, "illegal Unicode character"))
                }
                b'N' if !bytes => {
                    let rest = &text[i + 2..];
                    let close = rest.iter().position(|&b| b == b'}');
                    let ok = rest.first() == Some(&b'{') && close.is_some_and(|c| c > 1);
                    (!ok).then(|| {
                        let end = match close {
                            Some(c) => i + 2 + c,
                            None => i + 1 + rest.iter().take_while(|&&b| b != b'"' && b != b'\'').count(),
                        };
                        unicode(end, "malformed \\N character escape")
                    })
                }
                _ => None,
            };
            if let Some(msg) = problem {
                self.raise_at(t, ProblemKind::Syntax, msg);
                return None;
            }
            i += 2;
        }
        Some(())
    }
}
