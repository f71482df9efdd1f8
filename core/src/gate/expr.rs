//! Expression rules of CPython 3.12's grammar (`expression` down to `atom`, displays, comprehensions, call
//! arguments), with their `invalid_*` rules.
//!
//! The binary operators from `bitwise_or` down to `term` are parsed by precedence climbing instead of one function
//! per level: the tokens examined are the same (each level only looks for its operator after an operand), and the
//! parser's stack stays shallow for deeply bracketed code.

use super::ProblemKind;
use super::ast::{
    CallExpr, CmpOp, CompareExpr, Comprehension, Const, Ctx, DictExpr, ExprId, ExprKind, Keyword, List, TargetsKind,
    TokId,
};
use super::memo::Memo;
use super::parser::Parser;
use super::tokens::{Kind, Kw, Op};

/// Binding power of a binary operator between `bitwise_or` and `term` (higher binds tighter).
fn binary_power(op: Op) -> Option<u8> {
    Some(match op {
        Op::VBar => 1,
        Op::Circumflex => 2,
        Op::Amper => 3,
        Op::LeftShift | Op::RightShift => 4,
        Op::Plus | Op::Minus => 5,
        Op::Star | Op::Slash | Op::DoubleSlash | Op::Percent | Op::At => 6,
        _ => return None,
    })
}

impl Parser<'_> {
    pub(super) fn name_expr(&mut self, tok: TokId) -> ExprId {
        self.ast.add_expr(ExprKind::Name, tok, tok)
    }

    /// `expressions: expression (',' expression)+ [','] | expression ',' | expression`.
    pub(super) fn expressions(&mut self) -> Option<ExprId> {
        let start = self.pos as TokId;
        let first = self.expression()?;
        let mut elts = vec![first];
        let mut tuple = false;
        loop {
            let m = self.pos;
            if self.op(Op::Comma).is_none() {
                break;
            }
            tuple = true;
            match self.alt(Self::expression) {
                Some(e) => elts.push(e),
                None => {
                    if self.failed() {
                        return None;
                    }
                    // A trailing comma.
                    let _ = m;
                    break;
                }
            }
        }
        if !tuple {
            return Some(first);
        }
        Some(self.ast.add_expr(ExprKind::Tuple(elts.into()), start, self.last()))
    }

    /// `expression (memo): invalid_expression | invalid_legacy_expression | disjunction 'if' disjunction 'else'
    /// expression | disjunction | lambdef`.
    pub(super) fn expression(&mut self) -> Option<ExprId> {
        if !self.enter() {
            return None;
        }
        let r = self.memoized(Memo::Expression, Self::expression_raw);
        self.leave();
        r
    }

    fn expression_raw(&mut self) -> Option<ExprId> {
        if self.invalid {
            self.invalid_expression();
            if self.failed() {
                return None;
            }
            self.invalid_legacy_expression();
            if self.failed() {
                return None;
            }
        }
        self.expression_alternatives()
    }

    fn expression_alternatives(&mut self) -> Option<ExprId> {
        let start = self.pos as TokId;
        if let Some(e) = self.alt(|p| {
            let body = p.disjunction()?;
            p.kw(Kw::If)?;
            let test = p.disjunction()?;
            p.kw(Kw::Else)?;
            let orelse = p.expression()?;
            Some(p.ast.add_expr(ExprKind::IfExp { test, body, orelse }, start, p.last()))
        }) {
            return Some(e);
        }
        if let Some(e) = self.alt(Self::disjunction) {
            return Some(e);
        }
        self.alt(Self::lambdef)
    }

    /// `expression_without_invalid`: `expression`'s normal alternatives with the `invalid_*` rules switched off
    /// for everything under it.
    fn expression_without_invalid(&mut self) -> Option<ExprId> {
        let saved = self.invalid;
        self.invalid = false;
        let r = self.alt(Self::expression_alternatives);
        self.invalid = saved;
        r
    }

    fn invalid_expression(&mut self) {
        // !(NAME STRING | SOFT_KEYWORD) a=disjunction b=expression_without_invalid
        let m = self.pos;
        let name_string = self.ahead(|p| {
            p.name()?;
            p.expect(Kind::String)
        });
        let soft = self.at_any_soft_keyword();
        if !name_string && !soft {
            if let Some((a, _b)) = self.alt(|p| {
                let a = p.disjunction()?;
                let b = p.expression_without_invalid()?;
                Some((a, b))
            }) {
                let level = self.tok(self.last()).level;
                if !self.is_legacy_name(a) && level != 0 {
                    self.raise_expr(a, "invalid syntax. Perhaps you forgot a comma?");
                }
                self.pos = m;
                return;
            }
            if self.failed() {
                return;
            }
        }
        if let Some(a) = self.alt(|p| {
            let a = p.disjunction()?;
            p.kw(Kw::If)?;
            p.disjunction()?;
            if p.at_kw(Kw::Else) || p.at_op(Op::Colon) { None } else { Some(a) }
        }) {
            self.raise_expr(a, "expected 'else' after 'if' expression");
            return;
        }
        if let Some(a) = self.alt(|p| {
            let a = p.kw(Kw::Lambda)?;
            p.alt(Self::lambda_params);
            p.op(Op::Colon)?;
            if p.at(Kind::FStringMiddle) { Some(a) } else { None }
        }) {
            self.raise_at(a, ProblemKind::Syntax, "f-string: lambda expressions are not allowed without parentheses");
        }
        self.pos = m;
    }

    /// `_PyPegen_check_legacy_stmt`: the expression is the name `print` or `exec`.
    fn is_legacy_name(&self, e: ExprId) -> bool {
        let x = self.ast.expr(e);
        x.kind == ExprKind::Name && matches!(self.tok_text(x.first), b"print" | b"exec")
    }

    fn invalid_legacy_expression(&mut self) {
        let m = self.pos;
        if let Some((a, b)) = self.alt(|p| {
            let n = p.name()?;
            if p.at_op(Op::LPar) {
                return None;
            }
            let b = p.star_expressions()?;
            Some((n, b))
        }) {
            let _ = b;
            let name = String::from_utf8_lossy(self.tok_text(a)).into_owned();
            if name == "print" || name == "exec" {
                self.raise_at(
                    a,
                    ProblemKind::Syntax,
                    format!("Missing parentheses in call to '{name}'. Did you mean {name}(...)?"),
                );
            }
        }
        self.pos = m;
    }

    /// `yield_expr: 'yield' 'from' expression | 'yield' [star_expressions]`.
    pub(super) fn yield_expr(&mut self) -> Option<ExprId> {
        let start = self.pos as TokId;
        if let Some(e) = self.alt(|p| {
            p.kw(Kw::Yield)?;
            p.kw(Kw::From)?;
            let v = p.expression()?;
            Some(p.ast.add_expr(ExprKind::YieldFrom(v), start, p.last()))
        }) {
            return Some(e);
        }
        self.alt(|p| {
            p.kw(Kw::Yield)?;
            let v = p.alt(Self::star_expressions);
            Some(p.ast.add_expr(ExprKind::Yield(v), start, p.last()))
        })
    }

    /// `star_expressions`: one `star_expression`, or a tuple of them.
    pub(super) fn star_expressions(&mut self) -> Option<ExprId> {
        let start = self.pos as TokId;
        let first = self.star_expression()?;
        let mut elts = vec![first];
        let mut tuple = false;
        loop {
            if self.op(Op::Comma).is_none() {
                break;
            }
            tuple = true;
            match self.alt(Self::star_expression) {
                Some(e) => elts.push(e),
                None => {
                    if self.failed() {
                        return None;
                    }
                    break;
                }
            }
        }
        if !tuple {
            return Some(first);
        }
        Some(self.ast.add_expr(ExprKind::Tuple(elts.into()), start, self.last()))
    }

    /// `star_expression (memo): '*' bitwise_or | expression`.
    pub(super) fn star_expression(&mut self) -> Option<ExprId> {
        self.memoized(Memo::StarExpression, |p| {
            let start = p.pos as TokId;
            if let Some(e) = p.alt(|p| {
                p.op(Op::Star)?;
                let v = p.bitwise_or()?;
                Some(p.ast.add_expr(ExprKind::Starred(v), start, p.last()))
            }) {
                return Some(e);
            }
            p.alt(Self::expression)
        })
    }

    /// `star_named_expressions: ','.star_named_expression+ [',']`.
    pub(super) fn star_named_expressions(&mut self) -> Option<Vec<ExprId>> {
        let v = self.gather(Op::Comma, Self::star_named_expression)?;
        self.op(Op::Comma);
        Some(v)
    }

    /// `star_named_expression: '*' bitwise_or | named_expression`.
    pub(super) fn star_named_expression(&mut self) -> Option<ExprId> {
        let start = self.pos as TokId;
        if let Some(e) = self.alt(|p| {
            p.op(Op::Star)?;
            let v = p.bitwise_or()?;
            Some(p.ast.add_expr(ExprKind::Starred(v), start, p.last()))
        }) {
            return Some(e);
        }
        self.alt(Self::named_expression)
    }

    /// `assignment_expression: NAME ':=' ~ expression` (the cut only closes this one-alternative rule).
    fn assignment_expression(&mut self) -> Option<ExprId> {
        self.alt(|p| {
            let start = p.pos as TokId;
            let n = p.name()?;
            p.op(Op::ColonEqual)?;
            let v = p.expression()?;
            let target = p.name_expr(n);
            p.ast.set_ctx(target, Ctx::Store);
            Some(p.ast.add_expr(ExprKind::NamedExpr(target, v), start, p.last()))
        })
    }

    /// `named_expression: assignment_expression | invalid_named_expression | expression !':='`.
    pub(super) fn named_expression(&mut self) -> Option<ExprId> {
        if self.failed() {
            return None;
        }
        if let Some(e) = self.assignment_expression() {
            return Some(e);
        }
        if self.invalid {
            self.invalid_named_expression();
            if self.failed() {
                return None;
            }
        }
        self.alt(|p| {
            let e = p.expression()?;
            if p.at_op(Op::ColonEqual) { None } else { Some(e) }
        })
    }

    fn invalid_named_expression(&mut self) {
        let _ = self.memoized(Memo::InvalidNamedExpression, |p| {
            p.invalid_named_expression_raw();
            None
        });
    }

    fn invalid_named_expression_raw(&mut self) {
        if let Some(a) = self.alt(|p| {
            let a = p.expression()?;
            p.op(Op::ColonEqual)?;
            p.expression()?;
            Some(a)
        }) {
            let name = self.ast.expr_name(a);
            self.raise_expr(a, format!("cannot use assignment expressions with {name}"));
            return;
        }
        if let Some(a) = self.alt(|p| {
            let a = p.name()?;
            p.op(Op::Equal)?;
            p.bitwise_or()?;
            if p.at_op(Op::Equal) || p.at_op(Op::ColonEqual) { None } else { Some(a) }
        }) {
            self.raise_at(a, ProblemKind::Syntax, "invalid syntax. Maybe you meant '==' or ':=' instead of '='?");
            return;
        }
        let excluded = self.ahead(Self::list)
            || self.ahead(Self::tuple)
            || self.ahead(Self::genexp)
            || self.at_kw(Kw::True)
            || self.at_kw(Kw::None)
            || self.at_kw(Kw::False);
        if self.failed() || excluded {
            return;
        }
        if let Some(a) = self.alt(|p| {
            let a = p.bitwise_or()?;
            p.op(Op::Equal)?;
            p.bitwise_or()?;
            if p.at_op(Op::Equal) || p.at_op(Op::ColonEqual) { None } else { Some(a) }
        }) {
            let name = self.ast.expr_name(a);
            self.raise_expr(a, format!("cannot assign to {name} here. Maybe you meant '==' instead of '='?"));
        }
    }

    /// `disjunction (memo): conjunction ('or' conjunction)+ | conjunction`.
    pub(super) fn disjunction(&mut self) -> Option<ExprId> {
        self.memoized(Memo::Disjunction, |p| p.bool_chain(Kw::Or))
    }

    fn conjunction(&mut self) -> Option<ExprId> {
        self.memoized(Memo::Conjunction, |p| p.bool_chain(Kw::And))
    }

    fn bool_chain(&mut self, kw: Kw) -> Option<ExprId> {
        let start = self.pos as TokId;
        let operand = |p: &mut Self| if kw == Kw::Or { p.conjunction() } else { p.inversion() };
        let first = operand(self)?;
        let mut values = vec![first];
        loop {
            let m = self.pos;
            if self.kw(kw).is_none() {
                break;
            }
            match self.alt(operand) {
                Some(v) => values.push(v),
                None => {
                    self.pos = m;
                    break;
                }
            }
        }
        if self.failed() {
            return None;
        }
        if values.len() == 1 {
            return Some(first);
        }
        Some(self.ast.add_expr(ExprKind::BoolOp(values.into()), start, self.last()))
    }

    /// `inversion (memo): 'not' inversion | comparison`.
    fn inversion(&mut self) -> Option<ExprId> {
        if !self.enter() {
            return None;
        }
        let r = self.memoized(Memo::Inversion, |p| {
            let start = p.pos as TokId;
            if let Some(e) = p.alt(|p| {
                p.kw(Kw::Not)?;
                let operand = p.inversion()?;
                Some(p.ast.add_expr(ExprKind::UnaryOp { not: true, operand }, start, p.last()))
            }) {
                return Some(e);
            }
            p.alt(Self::comparison)
        });
        self.leave();
        r
    }

    /// `comparison: bitwise_or compare_op_bitwise_or_pair+ | bitwise_or`.
    fn comparison(&mut self) -> Option<ExprId> {
        let start = self.pos as TokId;
        let left = self.bitwise_or()?;
        let mut ops = Vec::new();
        let mut comparators = Vec::new();
        while let Some((op, e)) = self.alt(|p| {
            let op = p.compare_op()?;
            let e = p.bitwise_or()?;
            Some((op, e))
        }) {
            ops.push(op);
            comparators.push(e);
        }
        if self.failed() {
            return None;
        }
        if ops.is_empty() {
            return Some(left);
        }
        Some(self.ast.add_expr(
            ExprKind::Compare(Box::new(CompareExpr { left, ops: ops.into(), comparators: comparators.into() })),
            start,
            self.last(),
        ))
    }

    fn compare_op(&mut self) -> Option<CmpOp> {
        let t = self.peek()?;
        match t.kind {
            Kind::Op(Op::EqEqual | Op::NotEqual | Op::LessEqual | Op::Less | Op::GreaterEqual | Op::Greater) => {
                self.pos += 1;
                Some(CmpOp::Other)
            }
            Kind::Kw(Kw::Not) => {
                self.pos += 1;
                self.kw(Kw::In)?;
                Some(CmpOp::Other)
            }
            Kind::Kw(Kw::In) => {
                self.pos += 1;
                Some(CmpOp::In)
            }
            Kind::Kw(Kw::Is) => {
                self.pos += 1;
                let m = self.pos;
                if self.kw(Kw::Not).is_none() {
                    self.pos = m;
                }
                Some(CmpOp::Other)
            }
            _ => None,
        }
    }

    /// `bitwise_or` (memo) and the levels under it down to `term`.
    pub(super) fn bitwise_or(&mut self) -> Option<ExprId> {
        self.memoized(Memo::BitwiseOr, |p| p.binary(1))
    }

    fn binary(&mut self, min_power: u8) -> Option<ExprId> {
        let start = self.pos as TokId;
        let mut left = self.factor()?;
        loop {
            let m = self.pos;
            let Some(Kind::Op(op)) = self.peek_kind() else {
                break;
            };
            let Some(power) = binary_power(op) else {
                break;
            };
            if power < min_power {
                break;
            }
            self.pos += 1;
            let right = if power == 6 { self.alt(Self::factor) } else { self.alt(|p| p.binary(power + 1)) };
            match right {
                Some(r) => left = self.ast.add_expr(ExprKind::BinOp(left, r), start, self.last()),
                None => {
                    self.pos = m;
                    break;
                }
            }
        }
        if self.failed() { None } else { Some(left) }
    }

    /// `factor (memo): '+' factor | '-' factor | '~' factor | power`.
    fn factor(&mut self) -> Option<ExprId> {
        if !self.enter() {
            return None;
        }
        let r = self.memoized(Memo::Factor, |p| {
            let start = p.pos as TokId;
            if matches!(p.peek_kind(), Some(Kind::Op(Op::Plus | Op::Minus | Op::Tilde)))
                && let Some(e) = p.alt(|p| {
                    p.pos += 1;
                    let operand = p.factor()?;
                    Some(p.ast.add_expr(ExprKind::UnaryOp { not: false, operand }, start, p.last()))
                })
            {
                return Some(e);
            }
            p.alt(Self::power)
        });
        self.leave();
        r
    }

    /// `power: await_primary '**' factor | await_primary`.
    fn power(&mut self) -> Option<ExprId> {
        let start = self.pos as TokId;
        let base = self.await_primary()?;
        let m = self.pos;
        if self.op(Op::DoubleStar).is_some() {
            if let Some(exp) = self.alt(Self::factor) {
                return Some(self.ast.add_expr(ExprKind::BinOp(base, exp), start, self.last()));
            }
            self.pos = m;
        }
        if self.failed() { None } else { Some(base) }
    }

    /// `await_primary (memo): AWAIT primary | primary`.
    fn await_primary(&mut self) -> Option<ExprId> {
        self.memoized(Memo::AwaitPrimary, |p| {
            let start = p.pos as TokId;
            if let Some(e) = p.alt(|p| {
                p.kw(Kw::Await)?;
                let v = p.primary()?;
                Some(p.ast.add_expr(ExprKind::Await(v), start, p.last()))
            }) {
                return Some(e);
            }
            p.alt(Self::primary)
        })
    }

    /// `primary`: an atom followed by attribute, call and subscript suffixes (left recursion as a loop).
    pub(super) fn primary(&mut self) -> Option<ExprId> {
        self.memoized(Memo::Primary, |p| {
            let start = p.pos as TokId;
            let mut e = p.atom()?;
            while let Some(next) = p.primary_suffix(e, start) {
                e = next;
            }
            if p.failed() { None } else { Some(e) }
        })
    }

    /// One suffix of `primary` in the grammar's order: `'.' NAME`, `genexp`, `'(' [arguments] ')'`,
    /// `'[' slices ']'`.
    fn primary_suffix(&mut self, e: ExprId, start: TokId) -> Option<ExprId> {
        if let Some(n) = self.alt(|p| {
            p.op(Op::Dot)?;
            p.name()
        }) {
            return Some(self.ast.add_expr(ExprKind::Attribute(e, n), start, self.last()));
        }
        if self.at_op(Op::LPar) {
            if let Some(g) = self.alt(Self::genexp) {
                return Some(self.ast.add_expr(
                    ExprKind::Call(Box::new(CallExpr { func: e, args: vec![g].into(), keywords: Vec::new().into() })),
                    start,
                    self.last(),
                ));
            }
            if let Some(call) = self.alt(|p| {
                p.op(Op::LPar)?;
                let args = p.alt(Self::arguments);
                p.op(Op::RPar)?;
                Some(args)
            }) {
                let (args, keywords) = self.call_parts(call);
                return Some(self.ast.add_expr(
                    ExprKind::Call(Box::new(CallExpr { func: e, args, keywords })),
                    start,
                    self.last(),
                ));
            }
        }
        if self.at_op(Op::LSqb)
            && let Some(s) = self.alt(|p| {
                p.op(Op::LSqb)?;
                let s = p.slices()?;
                p.op(Op::RSqb)?;
                Some(s)
            })
        {
            return Some(self.ast.add_expr(ExprKind::Subscript(e, s), start, self.last()));
        }
        None
    }

    /// The positional and keyword arguments of an `arguments` result (a call of a dummy name).
    pub(super) fn call_parts(&self, args: Option<ExprId>) -> (List<ExprId>, List<Keyword>) {
        match args.map(|a| self.ast.expr(a).kind.clone()) {
            Some(ExprKind::Call(call)) => {
                let CallExpr { args, keywords, .. } = *call;
                (args, keywords)
            }
            _ => (List::default(), List::default()),
        }
    }

    /// `slices: slice !',' | ','.(slice | starred_expression)+ [',']`.
    pub(super) fn slices(&mut self) -> Option<ExprId> {
        self.memoized(Memo::Slices, |p| {
            if let Some(s) = p.alt(|p| {
                let s = p.slice()?;
                if p.at_op(Op::Comma) { None } else { Some(s) }
            }) {
                return Some(s);
            }
            let start = p.pos as TokId;
            let elts = p.gather(Op::Comma, |p| p.alt(Self::slice).or_else(|| p.alt(Self::starred_expression)))?;
            p.op(Op::Comma);
            Some(p.ast.add_expr(ExprKind::Tuple(elts.into()), start, p.last()))
        })
    }

    /// `slice: [expression] ':' [expression] [':' [expression]] | named_expression`.
    fn slice(&mut self) -> Option<ExprId> {
        let start = self.pos as TokId;
        if let Some(e) = self.alt(|p| {
            let lower = p.alt(Self::expression);
            p.op(Op::Colon)?;
            let upper = p.alt(Self::expression);
            let step = p
                .alt(|p| {
                    p.op(Op::Colon)?;
                    Some(p.alt(Self::expression))
                })
                .flatten();
            Some(p.ast.add_expr(ExprKind::Slice(Box::new((lower, upper, step))), start, p.last()))
        }) {
            return Some(e);
        }
        self.alt(Self::named_expression)
    }

    /// `atom`.
    pub(super) fn atom(&mut self) -> Option<ExprId> {
        let t = self.peek()?;
        let here = self.pos as TokId;
        let constant = |p: &mut Self, c: Const| {
            p.pos += 1;
            Some(p.ast.add_expr(ExprKind::Constant(c), here, here))
        };
        match t.kind {
            Kind::Name => {
                self.pos += 1;
                Some(self.name_expr(here))
            }
            Kind::Kw(Kw::True) => constant(self, Const::True),
            Kind::Kw(Kw::False) => constant(self, Const::False),
            Kind::Kw(Kw::None) => constant(self, Const::None),
            Kind::String | Kind::FStringStart => self.alt(Self::strings),
            Kind::Number => {
                self.pos += 1;
                self.check_number(here);
                if self.failed() {
                    return None;
                }
                Some(self.ast.add_expr(ExprKind::Constant(Const::Number), here, here))
            }
            Kind::Op(Op::LPar) => {
                self.alt(Self::tuple).or_else(|| self.alt(Self::group)).or_else(|| self.alt(Self::genexp))
            }
            Kind::Op(Op::LSqb) => self.alt(Self::list).or_else(|| self.alt(Self::listcomp)),
            Kind::Op(Op::LBrace) => self
                .alt(Self::dict)
                .or_else(|| self.alt(Self::set))
                .or_else(|| self.alt(Self::dictcomp))
                .or_else(|| self.alt(Self::setcomp)),
            Kind::Op(Op::Ellipsis) => constant(self, Const::Ellipsis),
            _ => None,
        }
    }

    /// `_PyPegen_number_token`: decimal integers longer than CPython's conversion limit are refused.
    fn check_number(&mut self, tok: TokId) {
        let text = self.tok_text(tok);
        let is_decimal_int = text.iter().all(|b| b.is_ascii_digit() || *b == b'_');
        if is_decimal_int {
            let digits = text.iter().filter(|b| b.is_ascii_digit()).count();
            if digits > 4300 {
                self.raise_at(
                    tok,
                    ProblemKind::Syntax,
                    format!(
                        "Exceeds the limit (4300 digits) for integer string conversion: value has {digits} digits; \
                         use sys.set_int_max_str_digits() to increase the limit - Consider hexadecimal for huge \
                         integer literals to avoid decimal conversion limits."
                    ),
                );
            }
        }
    }

    /// `group: '(' (yield_expr | named_expression) ')' | invalid_group`.
    fn group(&mut self) -> Option<ExprId> {
        if let Some(e) = self.alt(|p| {
            p.op(Op::LPar)?;
            let e = p.alt(Self::yield_expr).or_else(|| p.alt(Self::named_expression))?;
            p.op(Op::RPar)?;
            Some(e)
        }) {
            return Some(e);
        }
        if self.invalid {
            if let Some(a) = self.alt(|p| {
                p.op(Op::LPar)?;
                let a = p.starred_expression()?;
                p.op(Op::RPar)?;
                Some(a)
            }) {
                self.raise_expr(a, "cannot use starred expression here");
                return None;
            }
            if let Some(a) = self.alt(|p| {
                p.op(Op::LPar)?;
                let a = p.op(Op::DoubleStar)?;
                p.expression()?;
                p.op(Op::RPar)?;
                Some(a)
            }) {
                self.raise_at(a, ProblemKind::Syntax, "cannot use double starred expression here");
            }
        }
        None
    }

    /// `lambdef: 'lambda' [lambda_params] ':' expression`.
    pub(super) fn lambdef(&mut self) -> Option<ExprId> {
        let start = self.kw(Kw::Lambda)?;
        let params = self.alt(Self::lambda_params).unwrap_or_default();
        self.op(Op::Colon)?;
        let body = self.expression()?;
        Some(self.ast.add_expr(ExprKind::Lambda { params: Box::new(params), body }, start, self.last()))
    }

    /// `list: '[' [star_named_expressions] ']'`.
    pub(super) fn list(&mut self) -> Option<ExprId> {
        let start = self.op(Op::LSqb)?;
        let elts = self.alt(Self::star_named_expressions).unwrap_or_default();
        self.op(Op::RSqb)?;
        Some(self.ast.add_expr(ExprKind::List(elts.into()), start, self.last()))
    }

    /// `tuple: '(' [star_named_expression ',' [star_named_expressions]] ')'`.
    pub(super) fn tuple(&mut self) -> Option<ExprId> {
        let start = self.op(Op::LPar)?;
        let elts = self
            .alt(|p| {
                let first = p.star_named_expression()?;
                p.op(Op::Comma)?;
                let mut v = vec![first];
                if let Some(rest) = p.alt(Self::star_named_expressions) {
                    v.extend(rest);
                }
                Some(v)
            })
            .unwrap_or_default();
        self.op(Op::RPar)?;
        Some(self.ast.add_expr(ExprKind::Tuple(elts.into()), start, self.last()))
    }

    /// `set: '{' star_named_expressions '}'`.
    fn set(&mut self) -> Option<ExprId> {
        let start = self.op(Op::LBrace)?;
        let elts = self.star_named_expressions()?;
        self.op(Op::RBrace)?;
        Some(self.ast.add_expr(ExprKind::Set(elts.into()), start, self.last()))
    }

    /// `dict: '{' [double_starred_kvpairs] '}' | '{' invalid_double_starred_kvpairs '}'`.
    fn dict(&mut self) -> Option<ExprId> {
        if let Some(e) = self.alt(|p| {
            let start = p.op(Op::LBrace)?;
            let pairs = p
                .alt(|p| {
                    let v = p.gather(Op::Comma, Self::double_starred_kvpair)?;
                    p.op(Op::Comma);
                    Some(v)
                })
                .unwrap_or_default();
            p.op(Op::RBrace)?;
            let (keys, values): (Vec<_>, Vec<_>) = pairs.into_iter().unzip();
            Some(p.ast.add_expr(
                ExprKind::Dict(Box::new(DictExpr { keys: keys.into(), values: values.into() })),
                start,
                p.last(),
            ))
        }) {
            return Some(e);
        }
        if self.invalid {
            self.alt(|p| {
                p.op(Op::LBrace)?;
                p.invalid_double_starred_kvpairs();
                None::<()>
            });
        }
        None
    }

    fn double_starred_kvpair(&mut self) -> Option<(Option<ExprId>, ExprId)> {
        if let Some(v) = self.alt(|p| {
            p.op(Op::DoubleStar)?;
            p.bitwise_or()
        }) {
            return Some((None, v));
        }
        let (k, v) = self.alt(Self::kvpair)?;
        Some((Some(k), v))
    }

    fn kvpair(&mut self) -> Option<(ExprId, ExprId)> {
        let k = self.expression()?;
        self.op(Op::Colon)?;
        let v = self.expression()?;
        Some((k, v))
    }

    fn invalid_double_starred_kvpairs(&mut self) {
        let m = self.pos;
        if self
            .alt(|p| {
                p.gather(Op::Comma, Self::double_starred_kvpair)?;
                p.op(Op::Comma)?;
                p.invalid_kvpair();
                None::<()>
            })
            .is_none()
            && self.failed()
        {
            return;
        }
        self.pos = m;
        self.invalid_dict_value();
    }

    /// The alternatives `invalid_double_starred_kvpairs` and `invalid_kvpair` share: `expression ':' '*'
    /// bitwise_or` and `expression ':' &('}'|',')`.
    fn invalid_dict_value(&mut self) {
        if let Some(a) = self.alt(|p| {
            p.expression()?;
            p.op(Op::Colon)?;
            let a = p.op(Op::Star)?;
            p.bitwise_or()?;
            Some(a)
        }) {
            self.raise_at(a, ProblemKind::Syntax, "cannot use a starred expression in a dictionary value");
            return;
        }
        if let Some(a) = self.alt(|p| {
            p.expression()?;
            let a = p.op(Op::Colon)?;
            if p.at_op(Op::RBrace) || p.at_op(Op::Comma) { Some(a) } else { None }
        }) {
            self.raise_at(a, ProblemKind::Syntax, "expression expected after dictionary key and ':'");
        }
    }

    fn invalid_kvpair(&mut self) {
        if let Some(a) = self.alt(|p| {
            let a = p.expression()?;
            if p.at_op(Op::Colon) { None } else { Some(a) }
        }) {
            let (line, col) = {
                let last = self.ast.expr(a).last;
                let t = self.tok(last);
                (self.tok(self.ast.expr(a).first).line, t.end_col(self.line_starts))
            };
            if !self.failed() {
                self.err = Some(super::SyntaxProblem::new(
                    ProblemKind::Syntax,
                    "':' expected after dictionary key",
                    line,
                    col,
                ));
            }
            return;
        }
        self.invalid_dict_value();
    }

    /// `for_if_clauses: for_if_clause+`.
    pub(super) fn for_if_clauses(&mut self) -> Option<Vec<Comprehension>> {
        let mut out = Vec::new();
        loop {
            let m = self.pos;
            match self.for_if_clause() {
                Ok(Some(c)) => out.push(c),
                Ok(None) | Err(()) => {
                    self.pos = m;
                    break;
                }
            }
        }
        if out.is_empty() || self.failed() { None } else { Some(out) }
    }

    /// `for_if_clause`; `Err` when the cut after `in` was passed and the rest failed.
    fn for_if_clause(&mut self) -> Result<Option<Comprehension>, ()> {
        if self.failed() {
            return Err(());
        }
        for is_async in [true, false] {
            let m = self.pos;
            if is_async && self.kw(Kw::Async).is_none() {
                continue;
            }
            let head = self.alt(|p| {
                p.kw(Kw::For)?;
                let target = p.star_targets()?;
                p.kw(Kw::In)?;
                Some(target)
            });
            let Some(target) = head else {
                self.pos = m;
                continue;
            };
            let Some(iter) = self.disjunction() else {
                self.pos = m;
                return Err(());
            };
            let ifs = self.repeat(|p| {
                p.kw(Kw::If)?;
                p.disjunction()
            });
            if self.failed() {
                return Err(());
            }
            return Ok(Some(Comprehension { target, iter, ifs: ifs.into(), is_async }));
        }
        if self.invalid
            && let Some(a) = self.alt(|p| {
                p.kw(Kw::Async);
                p.kw(Kw::For)?;
                p.star_expressions()
            })
        {
            self.raise_invalid_target(TargetsKind::For, a);
            return Err(());
        }
        Ok(None)
    }

    /// `listcomp: '[' named_expression for_if_clauses ']' | invalid_comprehension`.
    fn listcomp(&mut self) -> Option<ExprId> {
        if let Some(e) = self.alt(|p| {
            let start = p.op(Op::LSqb)?;
            let elt = p.named_expression()?;
            let gens = p.for_if_clauses()?;
            p.op(Op::RSqb)?;
            Some(p.ast.add_expr(ExprKind::ListComp(elt, gens.into()), start, p.last()))
        }) {
            return Some(e);
        }
        if self.invalid {
            self.invalid_comprehension();
        }
        None
    }

    fn setcomp(&mut self) -> Option<ExprId> {
        if let Some(e) = self.alt(|p| {
            let start = p.op(Op::LBrace)?;
            let elt = p.named_expression()?;
            let gens = p.for_if_clauses()?;
            p.op(Op::RBrace)?;
            Some(p.ast.add_expr(ExprKind::SetComp(elt, gens.into()), start, p.last()))
        }) {
            return Some(e);
        }
        if self.invalid {
            self.invalid_comprehension();
        }
        None
    }

    /// `genexp: '(' (assignment_expression | expression !':=') for_if_clauses ')' | invalid_comprehension`.
    pub(super) fn genexp(&mut self) -> Option<ExprId> {
        if let Some(e) = self.alt(|p| {
            let start = p.op(Op::LPar)?;
            let elt = match p.assignment_expression() {
                Some(e) => e,
                None => p.alt(|p| {
                    let e = p.expression()?;
                    if p.at_op(Op::ColonEqual) { None } else { Some(e) }
                })?,
            };
            let gens = p.for_if_clauses()?;
            p.op(Op::RPar)?;
            Some(p.ast.add_expr(ExprKind::GeneratorExp(elt, gens.into()), start, p.last()))
        }) {
            return Some(e);
        }
        if self.invalid {
            self.invalid_comprehension();
        }
        None
    }

    fn dictcomp(&mut self) -> Option<ExprId> {
        if let Some(e) = self.alt(|p| {
            let start = p.op(Op::LBrace)?;
            let (k, v) = p.kvpair()?;
            let gens = p.for_if_clauses()?;
            p.op(Op::RBrace)?;
            Some(p.ast.add_expr(ExprKind::DictComp(Box::new((k, v, gens.into()))), start, p.last()))
        }) {
            return Some(e);
        }
        if self.invalid
            && let Some(a) = self.alt(|p| {
                p.op(Op::LBrace)?;
                let a = p.op(Op::DoubleStar)?;
                p.bitwise_or()?;
                p.for_if_clauses()?;
                p.op(Op::RBrace)?;
                Some(a)
            })
        {
            self.raise_at(a, ProblemKind::Syntax, "dict unpacking cannot be used in dict comprehension");
        }
        None
    }

    fn invalid_comprehension(&mut self) {
        if let Some(a) = self.alt(|p| {
            let t = p.peek()?;
            if !matches!(t.kind, Kind::Op(Op::LSqb | Op::LPar | Op::LBrace)) {
                return None;
            }
            p.pos += 1;
            let a = p.starred_expression()?;
            p.for_if_clauses()?;
            Some(a)
        }) {
            self.raise_expr(a, "iterable unpacking cannot be used in comprehension");
            return;
        }
        if let Some(a) = self.alt(|p| {
            let t = p.peek()?;
            if !matches!(t.kind, Kind::Op(Op::LSqb | Op::LBrace)) {
                return None;
            }
            p.pos += 1;
            let a = p.star_named_expression()?;
            p.op(Op::Comma)?;
            p.star_named_expressions()?;
            p.for_if_clauses()?;
            Some(a)
        }) {
            self.raise_expr(a, "did you forget parentheses around the comprehension target?");
            return;
        }
        if let Some(a) = self.alt(|p| {
            let t = p.peek()?;
            if !matches!(t.kind, Kind::Op(Op::LSqb | Op::LBrace)) {
                return None;
            }
            p.pos += 1;
            let a = p.star_named_expression()?;
            p.op(Op::Comma)?;
            p.for_if_clauses()?;
            Some(a)
        }) {
            self.raise_expr(a, "did you forget parentheses around the comprehension target?");
        }
    }

    // ------------------------------------------------------------------ call arguments

    /// `arguments (memo): args [','] &')' | invalid_arguments`; the result is a call of a dummy name holding the
    /// arguments.
    pub(super) fn arguments(&mut self) -> Option<ExprId> {
        self.memoized(Memo::Arguments, |p| {
            if let Some(a) = p.alt(|p| {
                let a = p.args()?;
                p.op(Op::Comma);
                if p.at_op(Op::RPar) { Some(a) } else { None }
            }) {
                return Some(a);
            }
            if p.invalid {
                p.invalid_arguments();
            }
            None
        })
    }

    /// `args`: positional arguments, then keyword arguments.
    fn args(&mut self) -> Option<ExprId> {
        let start = self.pos as TokId;
        if let Some(e) = self.alt(|p| {
            let positional = p.gather(Op::Comma, |p| {
                if let Some(s) = p.alt(Self::starred_expression) {
                    return Some(s);
                }
                let e = match p.assignment_expression() {
                    Some(e) => e,
                    None => p.alt(|p| {
                        let e = p.expression()?;
                        if p.at_op(Op::ColonEqual) { None } else { Some(e) }
                    })?,
                };
                if p.at_op(Op::Equal) { None } else { Some(e) }
            })?;
            let kwargs = p
                .alt(|p| {
                    p.op(Op::Comma)?;
                    p.kwargs()
                })
                .unwrap_or_default();
            let mut args = positional;
            let mut keywords = Vec::new();
            for k in kwargs {
                match k {
                    KwOrStar::Star(s) => args.push(s),
                    KwOrStar::Kw(k) => keywords.push(k),
                }
            }
            let func = start;
            let dummy = p.ast.add_expr(ExprKind::Name, func, func);
            Some(p.ast.add_expr(
                ExprKind::Call(Box::new(CallExpr { func: dummy, args: args.into(), keywords: keywords.into() })),
                start,
                p.last(),
            ))
        }) {
            return Some(e);
        }
        self.alt(|p| {
            let kwargs = p.kwargs()?;
            let mut args = Vec::new();
            let mut keywords = Vec::new();
            for k in kwargs {
                match k {
                    KwOrStar::Star(s) => args.push(s),
                    KwOrStar::Kw(k) => keywords.push(k),
                }
            }
            let dummy = p.ast.add_expr(ExprKind::Name, start, start);
            Some(p.ast.add_expr(
                ExprKind::Call(Box::new(CallExpr { func: dummy, args: args.into(), keywords: keywords.into() })),
                start,
                p.last(),
            ))
        })
    }

    fn kwargs(&mut self) -> Option<Vec<KwOrStar>> {
        if let Some(v) = self.alt(|p| {
            let mut a = p.gather(Op::Comma, Self::kwarg_or_starred)?;
            p.op(Op::Comma)?;
            let b = p.gather(Op::Comma, Self::kwarg_or_double_starred)?;
            a.extend(b);
            Some(a)
        }) {
            return Some(v);
        }
        if let Some(v) = self.alt(|p| p.gather(Op::Comma, Self::kwarg_or_starred)) {
            return Some(v);
        }
        self.alt(|p| p.gather(Op::Comma, Self::kwarg_or_double_starred))
    }

    /// `starred_expression: invalid_starred_expression | '*' expression`.
    pub(super) fn starred_expression(&mut self) -> Option<ExprId> {
        if self.invalid
            && let Some(a) = self.alt(|p| {
                let a = p.op(Op::Star)?;
                p.expression()?;
                p.op(Op::Equal)?;
                p.expression()?;
                Some(a)
            })
        {
            self.raise_at(a, ProblemKind::Syntax, "cannot assign to iterable argument unpacking");
            return None;
        }
        let start = self.op(Op::Star)?;
        let v = self.expression()?;
        Some(self.ast.add_expr(ExprKind::Starred(v), start, self.last()))
    }

    fn keyword_argument(&mut self) -> Option<KwOrStar> {
        let n = self.name()?;
        self.op(Op::Equal)?;
        let value = self.expression()?;
        Some(KwOrStar::Kw(Keyword { name: Some(n), value, first: n, last: self.last() }))
    }

    fn kwarg_or_starred(&mut self) -> Option<KwOrStar> {
        if self.invalid {
            self.invalid_kwarg();
            if self.failed() {
                return None;
            }
        }
        if let Some(k) = self.alt(Self::keyword_argument) {
            return Some(k);
        }
        self.alt(Self::starred_expression).map(KwOrStar::Star)
    }

    fn kwarg_or_double_starred(&mut self) -> Option<KwOrStar> {
        if self.invalid {
            self.invalid_kwarg();
            if self.failed() {
                return None;
            }
        }
        if let Some(k) = self.alt(Self::keyword_argument) {
            return Some(k);
        }
        self.alt(|p| {
            let first = p.op(Op::DoubleStar)?;
            let value = p.expression()?;
            Some(KwOrStar::Kw(Keyword { name: None, value, first, last: p.last() }))
        })
    }

    fn invalid_kwarg(&mut self) {
        let m = self.pos;
        if let Some(a) = self.alt(|p| {
            let t = p.peek()?;
            if !matches!(t.kind, Kind::Kw(Kw::True | Kw::False | Kw::None)) {
                return None;
            }
            p.pos += 1;
            p.op(Op::Equal)?;
            Some((p.pos - 2) as TokId)
        }) {
            let name = String::from_utf8_lossy(self.tok_text(a)).into_owned();
            self.raise_at(a, ProblemKind::Syntax, format!("cannot assign to {name}"));
            return;
        }
        if let Some(a) = self.alt(|p| {
            let a = p.name()?;
            p.op(Op::Equal)?;
            p.expression()?;
            p.for_if_clauses()?;
            Some(a)
        }) {
            self.raise_at(a, ProblemKind::Syntax, "invalid syntax. Maybe you meant '==' or ':=' instead of '='?");
            return;
        }
        if self.failed() {
            return;
        }
        let name_eq = self.ahead(|p| {
            p.name()?;
            p.op(Op::Equal)
        });
        if !name_eq
            && let Some(a) = self.alt(|p| {
                let a = p.expression()?;
                p.op(Op::Equal)?;
                Some(a)
            })
        {
            self.raise_expr(a, "expression cannot contain assignment, perhaps you meant \"==\"?");
            return;
        }
        if let Some(a) = self.alt(|p| {
            let a = p.op(Op::DoubleStar)?;
            p.expression()?;
            p.op(Op::Equal)?;
            p.expression()?;
            Some(a)
        }) {
            self.raise_at(a, ProblemKind::Syntax, "cannot assign to keyword argument unpacking");
            return;
        }
        self.pos = m;
    }

    fn invalid_arguments(&mut self) {
        if let Some(star) = self.alt(|p| {
            p.args()?;
            p.op(Op::Comma)?;
            p.op(Op::Star)
        }) {
            self.raise_at(star, ProblemKind::Syntax, "iterable argument unpacking follows keyword argument unpacking");
            return;
        }
        if let Some(a) = self.alt(|p| {
            let a = p.expression()?;
            p.for_if_clauses()?;
            p.op(Op::Comma)?;
            p.alt(|p| {
                if p.alt(Self::args).is_some() {
                    return Some(());
                }
                p.expression()?;
                p.for_if_clauses()?;
                Some(())
            });
            Some(a)
        }) {
            self.raise_expr(a, "Generator expression must be parenthesized");
            return;
        }
        if let Some(a) = self.alt(|p| {
            let a = p.name()?;
            p.op(Op::Equal)?;
            p.expression()?;
            p.for_if_clauses()?;
            Some(a)
        }) {
            self.raise_at(a, ProblemKind::Syntax, "invalid syntax. Maybe you meant '==' or ':=' instead of '='?");
            return;
        }
        if let Some(a) = self.alt(|p| {
            let a = p.args()?;
            p.for_if_clauses()?;
            Some(a)
        }) {
            if let ExprKind::Call(call) = &self.ast.expr(a).kind
                && call.args.len() > 1
            {
                let last = call.args[call.args.len() - 1];
                self.raise_expr(last, "Generator expression must be parenthesized");
            }
            return;
        }
        if let Some(a) = self.alt(|p| {
            p.args()?;
            p.op(Op::Comma)?;
            let a = p.expression()?;
            p.for_if_clauses()?;
            Some(a)
        }) {
            self.raise_expr(a, "Generator expression must be parenthesized");
            return;
        }
        if let Some(a) = self.alt(|p| {
            let a = p.args()?;
            p.op(Op::Comma)?;
            p.args()?;
            Some(a)
        }) {
            let unpacking = matches!(&self.ast.expr(a).kind, ExprKind::Call(call)
                if call.keywords.iter().any(|k| k.name.is_none()));
            let msg = if unpacking {
                "positional argument follows keyword argument unpacking"
            } else {
                "positional argument follows keyword argument"
            };
            self.raise_last(ProblemKind::Syntax, msg);
        }
    }
}

/// A keyword argument or a starred positional argument among the keyword arguments.
pub(super) enum KwOrStar {
    Kw(Keyword),
    Star(ExprId),
}
