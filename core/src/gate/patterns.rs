//! `match` patterns (PEP 634) and their `invalid_*` rules.

use super::ProblemKind;
use super::ast::{Const, ExprId, ExprKind, PatId, PatKind, TokId};
use super::memo::Memo;
use super::parser::Parser;
use super::tokens::{Kind, Kw, Op};

impl Parser<'_> {
    /// `patterns: open_sequence_pattern | pattern`.
    pub(super) fn patterns(&mut self) -> Option<PatId> {
        let start = self.pos as TokId;
        if let Some(v) = self.alt(Self::open_sequence_pattern) {
            return Some(self.ast.add_pattern(PatKind::Sequence(v.into()), start, self.last()));
        }
        self.alt(Self::pattern)
    }

    /// `pattern: as_pattern | or_pattern`.
    fn pattern(&mut self) -> Option<PatId> {
        if !self.enter() {
            return None;
        }
        let r = self.alt(Self::as_pattern).or_else(|| self.alt(Self::or_pattern));
        self.leave();
        r
    }

    /// `as_pattern: or_pattern 'as' pattern_capture_target | invalid_as_pattern`.
    fn as_pattern(&mut self) -> Option<PatId> {
        let start = self.pos as TokId;
        if let Some(p) = self.alt(|p| {
            let pat = p.or_pattern()?;
            p.kw(Kw::As)?;
            let name = p.pattern_capture_target()?;
            Some(p.ast.add_pattern(PatKind::As { pattern: Some(pat), name: Some(name) }, start, p.last()))
        }) {
            return Some(p);
        }
        if self.invalid {
            if let Some(a) = self.alt(|p| {
                p.or_pattern()?;
                p.kw(Kw::As)?;
                p.soft("_")
            }) {
                self.raise_at(a, ProblemKind::Syntax, "cannot use '_' as a target");
                return None;
            }
            if let Some(a) = self.alt(|p| {
                p.or_pattern()?;
                p.kw(Kw::As)?;
                if p.at(Kind::Name) {
                    return None;
                }
                p.expression()
            }) {
                self.raise_expr(a, "invalid pattern target");
            }
        }
        None
    }

    /// `or_pattern: '|'.closed_pattern+`.
    fn or_pattern(&mut self) -> Option<PatId> {
        let start = self.pos as TokId;
        let v = self.gather(Op::VBar, Self::closed_pattern)?;
        if v.len() == 1 {
            return Some(v[0]);
        }
        Some(self.ast.add_pattern(PatKind::Or(v.into()), start, self.last()))
    }

    /// `closed_pattern (memo)`.
    fn closed_pattern(&mut self) -> Option<PatId> {
        self.memoized(Memo::ClosedPattern, |p| {
            p.alt(Self::literal_pattern)
                .or_else(|| p.alt(Self::capture_pattern))
                .or_else(|| p.alt(Self::wildcard_pattern))
                .or_else(|| p.alt(Self::value_pattern))
                .or_else(|| p.alt(Self::group_pattern))
                .or_else(|| p.alt(Self::sequence_pattern))
                .or_else(|| p.alt(Self::mapping_pattern))
                .or_else(|| p.alt(Self::class_pattern))
        })
    }

    fn literal_pattern(&mut self) -> Option<PatId> {
        let start = self.pos as TokId;
        if let Some(e) = self.literal_expr() {
            let kind = match self.ast.expr(e).kind {
                ExprKind::Constant(Const::None | Const::True | Const::False) => PatKind::Singleton,
                _ => PatKind::Value(e),
            };
            return Some(self.ast.add_pattern(kind, start, self.last()));
        }
        None
    }

    /// `literal_expr: signed_number !('+' | '-') | complex_number | strings | 'None' | 'True' | 'False'`.
    fn literal_expr(&mut self) -> Option<ExprId> {
        if let Some(e) = self.alt(|p| {
            let e = p.signed_number()?;
            if p.at_op(Op::Plus) || p.at_op(Op::Minus) { None } else { Some(e) }
        }) {
            return Some(e);
        }
        if let Some(e) = self.alt(Self::complex_number) {
            return Some(e);
        }
        if let Some(e) = self.alt(Self::strings) {
            return Some(e);
        }
        let here = self.pos as TokId;
        for (kw, c) in [(Kw::None, Const::None), (Kw::True, Const::True), (Kw::False, Const::False)] {
            if self.kw(kw).is_some() {
                return Some(self.ast.add_expr(ExprKind::Constant(c), here, here));
            }
        }
        None
    }

    /// `signed_number: NUMBER | '-' NUMBER`.
    fn signed_number(&mut self) -> Option<ExprId> {
        let start = self.pos as TokId;
        self.op(Op::Minus);
        let n = self.expect(Kind::Number)?;
        let _ = n;
        Some(self.ast.add_expr(ExprKind::Constant(Const::Number), start, self.last()))
    }

    /// `complex_number: signed_real_number ('+' | '-') imaginary_number`.
    fn complex_number(&mut self) -> Option<ExprId> {
        let start = self.pos as TokId;
        self.op(Op::Minus);
        let real = self.expect(Kind::Number)?;
        if self.op(Op::Plus).is_none() {
            self.op(Op::Minus)?;
        }
        let imag = self.expect(Kind::Number)?;
        if self.is_imaginary(real) {
            self.raise_at(real, ProblemKind::Syntax, "real number required in complex literal");
            return None;
        }
        if !self.is_imaginary(imag) {
            self.raise_at(imag, ProblemKind::Syntax, "imaginary number required in complex literal");
            return None;
        }
        Some(self.ast.add_expr(ExprKind::Constant(Const::Number), start, self.last()))
    }

    fn is_imaginary(&self, tok: TokId) -> bool {
        self.tok_text(tok).last().is_some_and(|c| c.eq_ignore_ascii_case(&b'j'))
    }

    fn capture_pattern(&mut self) -> Option<PatId> {
        let n = self.pattern_capture_target()?;
        Some(self.ast.add_pattern(PatKind::As { pattern: None, name: Some(n) }, n, n))
    }

    /// `pattern_capture_target: !"_" NAME !('.' | '(' | '=')`.
    fn pattern_capture_target(&mut self) -> Option<TokId> {
        if self.at_soft("_") {
            return None;
        }
        let n = self.name()?;
        if self.at_op(Op::Dot) || self.at_op(Op::LPar) || self.at_op(Op::Equal) {
            return None;
        }
        Some(n)
    }

    fn wildcard_pattern(&mut self) -> Option<PatId> {
        let t = self.soft("_")?;
        Some(self.ast.add_pattern(PatKind::As { pattern: None, name: None }, t, t))
    }

    /// `value_pattern: attr !('.' | '(' | '=')`.
    fn value_pattern(&mut self) -> Option<PatId> {
        let start = self.pos as TokId;
        let e = self.attr()?;
        if self.at_op(Op::Dot) || self.at_op(Op::LPar) || self.at_op(Op::Equal) {
            return None;
        }
        Some(self.ast.add_pattern(PatKind::Value(e), start, self.last()))
    }

    /// `attr: name_or_attr '.' NAME` (a dotted name with at least one dot).
    fn attr(&mut self) -> Option<ExprId> {
        let e = self.name_or_attr()?;
        if matches!(self.ast.expr(e).kind, ExprKind::Attribute(..)) { Some(e) } else { None }
    }

    /// `name_or_attr: attr | NAME`.
    fn name_or_attr(&mut self) -> Option<ExprId> {
        let start = self.pos as TokId;
        let n = self.name()?;
        let mut e = self.name_expr(n);
        loop {
            let m = self.pos;
            if self.op(Op::Dot).is_some()
                && let Some(a) = self.name()
            {
                e = self.ast.add_expr(ExprKind::Attribute(e, a), start, a);
                continue;
            }
            self.pos = m;
            return Some(e);
        }
    }

    fn group_pattern(&mut self) -> Option<PatId> {
        self.op(Op::LPar)?;
        let p = self.pattern()?;
        self.op(Op::RPar)?;
        Some(p)
    }

    /// `sequence_pattern: '[' maybe_sequence_pattern? ']' | '(' open_sequence_pattern? ')'`.
    fn sequence_pattern(&mut self) -> Option<PatId> {
        let start = self.pos as TokId;
        if let Some(v) = self.alt(|p| {
            p.op(Op::LSqb)?;
            let v = p.alt(Self::maybe_sequence_pattern).unwrap_or_default();
            p.op(Op::RSqb)?;
            Some(v)
        }) {
            return Some(self.ast.add_pattern(PatKind::Sequence(v.into()), start, self.last()));
        }
        let v = self.alt(|p| {
            p.op(Op::LPar)?;
            let v = p.alt(Self::open_sequence_pattern).unwrap_or_default();
            p.op(Op::RPar)?;
            Some(v)
        })?;
        Some(self.ast.add_pattern(PatKind::Sequence(v.into()), start, self.last()))
    }

    /// `open_sequence_pattern: maybe_star_pattern ',' maybe_sequence_pattern?`.
    fn open_sequence_pattern(&mut self) -> Option<Vec<PatId>> {
        let first = self.maybe_star_pattern()?;
        self.op(Op::Comma)?;
        let mut v = vec![first];
        if let Some(rest) = self.alt(Self::maybe_sequence_pattern) {
            v.extend(rest);
        }
        Some(v)
    }

    /// `maybe_sequence_pattern: ','.maybe_star_pattern+ ','?`.
    fn maybe_sequence_pattern(&mut self) -> Option<Vec<PatId>> {
        let v = self.gather(Op::Comma, Self::maybe_star_pattern)?;
        self.op(Op::Comma);
        Some(v)
    }

    fn maybe_star_pattern(&mut self) -> Option<PatId> {
        self.alt(Self::star_pattern).or_else(|| self.alt(Self::pattern))
    }

    /// `star_pattern (memo): '*' pattern_capture_target | '*' wildcard_pattern`.
    fn star_pattern(&mut self) -> Option<PatId> {
        self.memoized(Memo::StarPattern, |p| {
            let start = p.op(Op::Star)?;
            if let Some(n) = p.alt(Self::pattern_capture_target) {
                return Some(p.ast.add_pattern(PatKind::Star(Some(n)), start, n));
            }
            let w = p.soft("_")?;
            Some(p.ast.add_pattern(PatKind::Star(None), start, w))
        })
    }

    fn mapping_pattern(&mut self) -> Option<PatId> {
        let start = self.pos as TokId;
        if self
            .alt(|p| {
                p.op(Op::LBrace)?;
                p.op(Op::RBrace)
            })
            .is_some()
        {
            return Some(self.ast.add_pattern(
                PatKind::Mapping { keys: Vec::new().into(), patterns: Vec::new().into(), rest: None },
                start,
                self.last(),
            ));
        }
        if let Some(rest) = self.alt(|p| {
            p.op(Op::LBrace)?;
            let rest = p.double_star_pattern()?;
            p.op(Op::Comma);
            p.op(Op::RBrace)?;
            Some(rest)
        }) {
            return Some(self.ast.add_pattern(
                PatKind::Mapping { keys: Vec::new().into(), patterns: Vec::new().into(), rest: Some(rest) },
                start,
                self.last(),
            ));
        }
        if let Some((items, rest)) = self.alt(|p| {
            p.op(Op::LBrace)?;
            let items = p.items_pattern()?;
            p.op(Op::Comma)?;
            let rest = p.double_star_pattern()?;
            p.op(Op::Comma);
            p.op(Op::RBrace)?;
            Some((items, rest))
        }) {
            let (keys, patterns): (Vec<_>, Vec<_>) = items.into_iter().unzip();
            return Some(self.ast.add_pattern(
                PatKind::Mapping { keys: keys.into(), patterns: patterns.into(), rest: Some(rest) },
                start,
                self.last(),
            ));
        }
        let items = self.alt(|p| {
            p.op(Op::LBrace)?;
            let items = p.items_pattern()?;
            p.op(Op::Comma);
            p.op(Op::RBrace)?;
            Some(items)
        })?;
        let (keys, patterns): (Vec<_>, Vec<_>) = items.into_iter().unzip();
        Some(self.ast.add_pattern(
            PatKind::Mapping { keys: keys.into(), patterns: patterns.into(), rest: None },
            start,
            self.last(),
        ))
    }

    fn items_pattern(&mut self) -> Option<Vec<(ExprId, PatId)>> {
        self.gather(Op::Comma, |p| {
            let key = p.alt(Self::literal_expr).or_else(|| p.alt(Self::attr))?;
            p.op(Op::Colon)?;
            let pat = p.pattern()?;
            Some((key, pat))
        })
    }

    fn double_star_pattern(&mut self) -> Option<TokId> {
        self.op(Op::DoubleStar)?;
        self.pattern_capture_target()
    }

    fn class_pattern(&mut self) -> Option<PatId> {
        let start = self.pos as TokId;
        let class = |p: &mut Self, positional: bool, keywords: bool| {
            let cls = p.name_or_attr()?;
            p.op(Op::LPar)?;
            let pos = if positional { p.gather(Op::Comma, Self::pattern)? } else { Vec::new() };
            if positional && keywords {
                p.op(Op::Comma)?;
            }
            let kws = if keywords {
                p.gather(Op::Comma, |p| {
                    let n = p.name()?;
                    p.op(Op::Equal)?;
                    Some((n, p.pattern()?))
                })?
            } else {
                Vec::new()
            };
            if positional || keywords {
                p.op(Op::Comma);
            }
            p.op(Op::RPar)?;
            let (kwd_attrs, kwd_patterns): (Vec<_>, Vec<_>) = kws.into_iter().unzip();
            Some(p.ast.add_pattern(
                PatKind::Class {
                    cls,
                    patterns: pos.into(),
                    kwd_attrs: kwd_attrs.into(),
                    kwd_patterns: kwd_patterns.into(),
                },
                start,
                p.last(),
            ))
        };
        for (positional, keywords) in [(false, false), (true, false), (false, true), (true, true)] {
            if let Some(p) = self.alt(|p| class(p, positional, keywords)) {
                return Some(p);
            }
        }
        if self.invalid
            && let Some(a) = self.alt(|p| {
                p.name_or_attr()?;
                p.op(Op::LPar)?;
                p.alt(|p| {
                    let v = p.gather(Op::Comma, Self::pattern)?;
                    p.op(Op::Comma)?;
                    Some(v)
                });
                p.gather(Op::Comma, |p| {
                    p.name()?;
                    p.op(Op::Equal)?;
                    p.pattern()
                })?;
                p.op(Op::Comma)?;
                let v = p.gather(Op::Comma, Self::pattern)?;
                Some(v[0])
            })
        {
            let first = self.ast.pattern(a).first;
            self.raise_at(first, ProblemKind::Syntax, "positional patterns follow keyword patterns");
        }
        None
    }
}
