//! Assignment and deletion targets (`star_targets`, `single_target`, `del_targets` and `t_primary`).

use super::ast::{CallExpr, Ctx, ExprId, ExprKind, TokId};
use super::memo::Memo;
use super::parser::Parser;
use super::tokens::{Kind, Op};

impl Parser<'_> {
    /// `star_targets: star_target !',' | star_target (',' star_target)* [',']`.
    pub(super) fn star_targets(&mut self) -> Option<ExprId> {
        let start = self.pos as TokId;
        let first = self.star_target()?;
        if !self.at_op(Op::Comma) {
            return Some(first);
        }
        let mut elts = vec![first];
        loop {
            let m = self.pos;
            if self.op(Op::Comma).is_none() {
                break;
            }
            match self.alt(Self::star_target) {
                Some(t) => elts.push(t),
                None => {
                    if self.failed() {
                        return None;
                    }
                    // A trailing comma stays consumed.
                    let _ = m;
                    break;
                }
            }
        }
        let e = self.ast.add_expr(ExprKind::Tuple(elts.into()), start, self.last());
        self.ast.set_ctx(e, Ctx::Store);
        Some(e)
    }

    /// `star_target (memo): '*' (!'*' star_target) | target_with_star_atom`.
    pub(super) fn star_target(&mut self) -> Option<ExprId> {
        if !self.enter() {
            return None;
        }
        let r = self.memoized(Memo::StarTarget, |p| {
            let start = p.pos as TokId;
            if let Some(e) = p.alt(|p| {
                p.op(Op::Star)?;
                if p.at_op(Op::Star) {
                    return None;
                }
                let v = p.star_target()?;
                p.ast.set_ctx(v, Ctx::Store);
                let e = p.ast.add_expr(ExprKind::Starred(v), start, p.last());
                p.ast.set_ctx(e, Ctx::Store);
                Some(e)
            }) {
                return Some(e);
            }
            p.alt(Self::target_with_star_atom)
        });
        self.leave();
        r
    }

    /// `target_with_star_atom (memo): t_primary '.' NAME !t_lookahead | t_primary '[' slices ']' !t_lookahead |
    /// star_atom`.
    fn target_with_star_atom(&mut self) -> Option<ExprId> {
        self.memoized(Memo::TargetWithStarAtom, |p| {
            if let Some(e) = p.alt(|p| p.subscript_attribute_target(Ctx::Store)) {
                return Some(e);
            }
            p.alt(Self::star_atom)
        })
    }

    /// The two `t_primary` alternatives shared by the target rules.
    fn subscript_attribute_target(&mut self, ctx: Ctx) -> Option<ExprId> {
        let start = self.pos as TokId;
        if let Some(e) = self.alt(|p| {
            let v = p.t_primary()?;
            p.op(Op::Dot)?;
            let n = p.name()?;
            if p.t_lookahead() {
                return None;
            }
            Some(p.ast.add_expr(ExprKind::Attribute(v, n), start, p.last()))
        }) {
            self.ast.exprs[e as usize].ctx = ctx;
            return Some(e);
        }
        let e = self.alt(|p| {
            let v = p.t_primary()?;
            p.op(Op::LSqb)?;
            let s = p.slices()?;
            p.op(Op::RSqb)?;
            if p.t_lookahead() {
                return None;
            }
            Some(p.ast.add_expr(ExprKind::Subscript(v, s), start, p.last()))
        })?;
        self.ast.exprs[e as usize].ctx = ctx;
        Some(e)
    }

    /// `star_atom`.
    fn star_atom(&mut self) -> Option<ExprId> {
        if let Some(n) = self.name() {
            let e = self.name_expr(n);
            self.ast.set_ctx(e, Ctx::Store);
            return Some(e);
        }
        if let Some(e) = self.alt(|p| {
            p.op(Op::LPar)?;
            let e = p.target_with_star_atom()?;
            p.op(Op::RPar)?;
            p.ast.set_ctx(e, Ctx::Store);
            Some(e)
        }) {
            return Some(e);
        }
        if let Some(e) = self.alt(|p| {
            let start = p.op(Op::LPar)?;
            let elts = p.alt(Self::star_targets_tuple_seq).unwrap_or_default();
            p.op(Op::RPar)?;
            let e = p.ast.add_expr(ExprKind::Tuple(elts.into()), start, p.last());
            p.ast.set_ctx(e, Ctx::Store);
            Some(e)
        }) {
            return Some(e);
        }
        self.alt(|p| {
            let start = p.op(Op::LSqb)?;
            let elts = p
                .alt(|p| {
                    let v = p.gather(Op::Comma, Self::star_target)?;
                    p.op(Op::Comma);
                    Some(v)
                })
                .unwrap_or_default();
            p.op(Op::RSqb)?;
            let e = p.ast.add_expr(ExprKind::List(elts.into()), start, p.last());
            p.ast.set_ctx(e, Ctx::Store);
            Some(e)
        })
    }

    /// `star_targets_tuple_seq: star_target (',' star_target)+ [','] | star_target ','`.
    fn star_targets_tuple_seq(&mut self) -> Option<Vec<ExprId>> {
        let first = self.star_target()?;
        self.op(Op::Comma)?;
        let mut elts = vec![first];
        while let Some(t) = self.alt(Self::star_target) {
            elts.push(t);
            if self.op(Op::Comma).is_none() {
                break;
            }
        }
        if self.failed() { None } else { Some(elts) }
    }

    /// `single_target: single_subscript_attribute_target | NAME | '(' single_target ')'`.
    pub(super) fn single_target(&mut self) -> Option<ExprId> {
        if let Some(e) = self.alt(Self::single_subscript_attribute_target) {
            return Some(e);
        }
        if let Some(n) = self.name() {
            let e = self.name_expr(n);
            self.ast.set_ctx(e, Ctx::Store);
            return Some(e);
        }
        self.alt(|p| {
            p.op(Op::LPar)?;
            let e = p.single_target()?;
            p.op(Op::RPar)?;
            Some(e)
        })
    }

    pub(super) fn single_subscript_attribute_target(&mut self) -> Option<ExprId> {
        self.subscript_attribute_target(Ctx::Store)
    }

    /// `t_lookahead: '(' | '[' | '.'`.
    fn t_lookahead(&mut self) -> bool {
        matches!(self.peek_kind(), Some(Kind::Op(Op::LPar | Op::LSqb | Op::Dot)))
    }

    /// `t_primary`: an atom followed by suffixes, each of which must be followed by `t_lookahead`.
    fn t_primary(&mut self) -> Option<ExprId> {
        self.memoized(Memo::TPrimary, |p| {
            let start = p.pos as TokId;
            let mut e = p.atom()?;
            if !p.t_lookahead() {
                return None;
            }
            loop {
                let next = p.alt(|p| {
                    let n = p.t_suffix(e, start)?;
                    if p.t_lookahead() { Some(n) } else { None }
                });
                match next {
                    Some(n) => e = n,
                    None => break,
                }
            }
            if p.failed() { None } else { Some(e) }
        })
    }

    /// One suffix of `t_primary`, in the grammar's order: `'.' NAME`, `'[' slices ']'`, `genexp`,
    /// `'(' [arguments] ')'`. Each alternative is tried with its lookahead by the caller, so each is tried in
    /// turn here until one is followed by `t_lookahead`.
    fn t_suffix(&mut self, e: ExprId, start: TokId) -> Option<ExprId> {
        if let Some(x) = self.alt(|p| {
            p.op(Op::Dot)?;
            let n = p.name()?;
            if !p.t_lookahead() {
                return None;
            }
            Some(p.ast.add_expr(ExprKind::Attribute(e, n), start, p.last()))
        }) {
            return Some(x);
        }
        if let Some(x) = self.alt(|p| {
            p.op(Op::LSqb)?;
            let s = p.slices()?;
            p.op(Op::RSqb)?;
            if !p.t_lookahead() {
                return None;
            }
            Some(p.ast.add_expr(ExprKind::Subscript(e, s), start, p.last()))
        }) {
            return Some(x);
        }
        if let Some(x) = self.alt(|p| {
            let g = p.genexp()?;
            if !p.t_lookahead() {
                return None;
            }
            Some(p.ast.add_expr(
                ExprKind::Call(Box::new(CallExpr { func: e, args: vec![g].into(), keywords: Vec::new().into() })),
                start,
                p.last(),
            ))
        }) {
            return Some(x);
        }
        self.alt(|p| {
            p.op(Op::LPar)?;
            let args = p.alt(Self::arguments);
            p.op(Op::RPar)?;
            if !p.t_lookahead() {
                return None;
            }
            let (args, keywords) = p.call_parts(args);
            Some(p.ast.add_expr(ExprKind::Call(Box::new(CallExpr { func: e, args, keywords })), start, p.last()))
        })
    }

    /// `del_targets: ','.del_target+ [',']`.
    pub(super) fn del_targets(&mut self) -> Option<Vec<ExprId>> {
        let v = self.gather(Op::Comma, Self::del_target)?;
        self.op(Op::Comma);
        Some(v)
    }

    /// `del_target (memo): t_primary '.' NAME !t_lookahead | t_primary '[' slices ']' !t_lookahead | del_t_atom`.
    fn del_target(&mut self) -> Option<ExprId> {
        if !self.enter() {
            return None;
        }
        let r = self.memoized(Memo::DelTarget, |p| {
            if let Some(e) = p.alt(|p| p.subscript_attribute_target(Ctx::Del)) {
                return Some(e);
            }
            p.alt(Self::del_t_atom)
        });
        self.leave();
        r
    }

    fn del_t_atom(&mut self) -> Option<ExprId> {
        if let Some(n) = self.name() {
            let e = self.name_expr(n);
            self.ast.set_ctx(e, Ctx::Del);
            return Some(e);
        }
        if let Some(e) = self.alt(|p| {
            p.op(Op::LPar)?;
            let e = p.del_target()?;
            p.op(Op::RPar)?;
            p.ast.set_ctx(e, Ctx::Del);
            Some(e)
        }) {
            return Some(e);
        }
        for (open, close) in [(Op::LPar, Op::RPar), (Op::LSqb, Op::RSqb)] {
            if let Some(e) = self.alt(|p| {
                let start = p.op(open)?;
                let elts = p.alt(Self::del_targets).unwrap_or_default();
                p.op(close)?;
                let kind = if open == Op::LPar { ExprKind::Tuple(elts.into()) } else { ExprKind::List(elts.into()) };
                let e = p.ast.add_expr(kind, start, p.last());
                p.ast.set_ctx(e, Ctx::Del);
                Some(e)
            }) {
                return Some(e);
            }
        }
        None
    }
}
