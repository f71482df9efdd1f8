//! Statement rules of CPython 3.12's grammar, with their `invalid_*` rules (second pass only).

use super::ProblemKind;
use super::ast::{
    Alias, Case, ClassDef, Conditional, Ctx, ExprId, ExprKind, ForLoop, FunctionDef, Handler, ImportFrom, MatchStmt,
    StmtId, StmtKind, TargetsKind, TokId, TryStmt, TypeAlias, TypeParam, WithBlock,
};
use super::memo::Memo;
use super::parser::Parser;
use super::tokens::{Kind, Kw, Op};

impl Parser<'_> {
    /// `statements: statement+`.
    pub(super) fn statements(&mut self) -> Option<Vec<StmtId>> {
        let mut out = Vec::new();
        loop {
            let m = self.pos;
            match self.statement() {
                Some(v) => {
                    out.extend(v);
                    self.forget_before(self.pos);
                }
                None => {
                    self.pos = m;
                    break;
                }
            }
        }
        if out.is_empty() || self.failed() { None } else { Some(out) }
    }

    /// `statement: compound_stmt | simple_stmts`.
    fn statement(&mut self) -> Option<Vec<StmtId>> {
        if !self.enter() {
            return None;
        }
        let r = match self.alt(Self::compound_stmt) {
            Some(s) => Some(vec![s]),
            None => self.alt(Self::simple_stmts),
        };
        self.leave();
        r
    }

    /// `simple_stmts: simple_stmt !';' NEWLINE | ';'.simple_stmt+ [';'] NEWLINE`.
    fn simple_stmts(&mut self) -> Option<Vec<StmtId>> {
        if let Some(v) = self.alt(|p| {
            let s = p.simple_stmt()?;
            if p.at_op(Op::Semi) {
                return None;
            }
            p.expect(Kind::Newline)?;
            Some(vec![s])
        }) {
            return Some(v);
        }
        self.alt(|p| {
            let v = p.gather(Op::Semi, Self::simple_stmt)?;
            p.op(Op::Semi);
            p.expect(Kind::Newline)?;
            Some(v)
        })
    }

    fn simple_stmt(&mut self) -> Option<StmtId> {
        self.memoized(Memo::SimpleStmt, Self::simple_stmt_raw)
    }

    fn simple_stmt_raw(&mut self) -> Option<StmtId> {
        let start = self.pos as TokId;
        if let Some(s) = self.alt(Self::assignment) {
            return Some(s);
        }
        if self.at_soft("type")
            && let Some(s) = self.alt(Self::type_alias)
        {
            return Some(s);
        }
        if let Some(e) = self.alt(Self::star_expressions) {
            return Some(self.ast.add_stmt(StmtKind::Expr(e), start, self.last()));
        }
        if self.at_kw(Kw::Return)
            && let Some(s) = self.alt(|p| {
                p.kw(Kw::Return)?;
                let value = p.alt(Self::star_expressions);
                Some(p.ast.add_stmt(StmtKind::Return(value), start, p.last()))
            })
        {
            return Some(s);
        }
        if (self.at_kw(Kw::Import) || self.at_kw(Kw::From))
            && let Some(s) = self.alt(Self::import_stmt)
        {
            return Some(s);
        }
        if self.at_kw(Kw::Raise)
            && let Some(s) = self.alt(Self::raise_stmt)
        {
            return Some(s);
        }
        if let Some(t) = self.kw(Kw::Pass) {
            return Some(self.ast.add_stmt(StmtKind::Pass, t, t));
        }
        if self.at_kw(Kw::Del)
            && let Some(s) = self.alt(Self::del_stmt)
        {
            return Some(s);
        }
        if self.at_kw(Kw::Yield)
            && let Some(e) = self.alt(Self::yield_expr)
        {
            return Some(self.ast.add_stmt(StmtKind::Expr(e), start, self.last()));
        }
        if self.at_kw(Kw::Assert)
            && let Some(s) = self.alt(|p| {
                p.kw(Kw::Assert)?;
                let test = p.expression()?;
                let msg = p.alt(|p| {
                    p.op(Op::Comma)?;
                    p.expression()
                });
                Some(p.ast.add_stmt(StmtKind::Assert { test, msg }, start, p.last()))
            })
        {
            return Some(s);
        }
        if let Some(t) = self.kw(Kw::Break) {
            return Some(self.ast.add_stmt(StmtKind::Break, t, t));
        }
        if let Some(t) = self.kw(Kw::Continue) {
            return Some(self.ast.add_stmt(StmtKind::Continue, t, t));
        }
        for (kw, global) in [(Kw::Global, true), (Kw::Nonlocal, false)] {
            if self.at_kw(kw)
                && let Some(s) = self.alt(|p| {
                    p.kw(kw)?;
                    let names = p.gather(Op::Comma, Self::name)?;
                    let kind = if global { StmtKind::Global(names.into()) } else { StmtKind::Nonlocal(names.into()) };
                    Some(p.ast.add_stmt(kind, start, p.last()))
                })
            {
                return Some(s);
            }
        }
        None
    }

    /// `compound_stmt`.
    fn compound_stmt(&mut self) -> Option<StmtId> {
        if (self.at_kw(Kw::Def) || self.at_op(Op::At) || self.at_kw(Kw::Async))
            && let Some(s) = self.alt(Self::function_def)
        {
            return Some(s);
        }
        if self.at_kw(Kw::If)
            && let Some(s) = self.alt(Self::if_stmt)
        {
            return Some(s);
        }
        if (self.at_kw(Kw::Class) || self.at_op(Op::At))
            && let Some(s) = self.alt(Self::class_def)
        {
            return Some(s);
        }
        if (self.at_kw(Kw::With) || self.at_kw(Kw::Async))
            && let Some(s) = self.alt(Self::with_stmt)
        {
            return Some(s);
        }
        if (self.at_kw(Kw::For) || self.at_kw(Kw::Async))
            && let Some(s) = self.alt(Self::for_stmt)
        {
            return Some(s);
        }
        if self.at_kw(Kw::Try)
            && let Some(s) = self.alt(Self::try_stmt)
        {
            return Some(s);
        }
        if self.at_kw(Kw::While)
            && let Some(s) = self.alt(Self::while_stmt)
        {
            return Some(s);
        }
        self.alt(Self::match_stmt)
    }

    // ------------------------------------------------------------------ simple statements

    fn annotated_rhs(&mut self) -> Option<ExprId> {
        self.alt(Self::yield_expr).or_else(|| self.alt(Self::star_expressions))
    }

    fn assignment(&mut self) -> Option<StmtId> {
        let start = self.pos as TokId;
        if let Some(s) = self.alt(|p| {
            let n = p.name()?;
            p.op(Op::Colon)?;
            let annotation = p.expression()?;
            let value = p.alt(|p| {
                p.op(Op::Equal)?;
                p.annotated_rhs()
            });
            let target = p.name_expr(n);
            p.ast.set_ctx(target, Ctx::Store);
            Some(p.ast.add_stmt(StmtKind::AnnAssign { target, annotation, value, simple: true }, start, p.last()))
        }) {
            return Some(s);
        }
        if let Some(s) = self.alt(|p| {
            let target = p
                .alt(|p| {
                    p.op(Op::LPar)?;
                    let t = p.single_target()?;
                    p.op(Op::RPar)?;
                    Some(t)
                })
                .or_else(|| p.alt(Self::single_subscript_attribute_target))?;
            p.op(Op::Colon)?;
            let annotation = p.expression()?;
            let value = p.alt(|p| {
                p.op(Op::Equal)?;
                p.annotated_rhs()
            });
            Some(p.ast.add_stmt(StmtKind::AnnAssign { target, annotation, value, simple: false }, start, p.last()))
        }) {
            return Some(s);
        }
        if let Some(s) = self.alt(|p| {
            let targets = p.repeat1(|p| {
                let t = p.star_targets()?;
                p.op(Op::Equal)?;
                Some(t)
            })?;
            let value = p.annotated_rhs()?;
            if p.at_op(Op::Equal) {
                return None;
            }
            Some(p.ast.add_stmt(StmtKind::Assign { targets: targets.into(), value }, start, p.last()))
        }) {
            return Some(s);
        }
        // `single_target augassign ~ (yield_expr | star_expressions)`: after the operator, no other alternative.
        let m = self.pos;
        if let Some(target) = self.single_target()
            && self.augassign()
        {
            return match self.annotated_rhs() {
                Some(value) => Some(self.ast.add_stmt(StmtKind::AugAssign { target, value }, start, self.last())),
                None => {
                    self.pos = m;
                    None
                }
            };
        }
        self.pos = m;
        if self.invalid && !self.failed() {
            self.invalid_assignment();
            self.pos = m;
        }
        None
    }

    fn augassign(&mut self) -> bool {
        let Some(Kind::Op(op)) = self.peek_kind() else {
            return false;
        };
        let aug = matches!(
            op,
            Op::PlusEqual
                | Op::MinEqual
                | Op::StarEqual
                | Op::AtEqual
                | Op::SlashEqual
                | Op::PercentEqual
                | Op::AmperEqual
                | Op::VBarEqual
                | Op::CircumflexEqual
                | Op::LeftShiftEqual
                | Op::RightShiftEqual
                | Op::DoubleStarEqual
                | Op::DoubleSlashEqual
        );
        if aug {
            self.pos += 1;
        }
        aug
    }

    fn invalid_assignment(&mut self) {
        if let Some(a) = self.alt(|p| {
            let a = p.invalid_ann_assign_target()?;
            p.op(Op::Colon)?;
            p.expression()?;
            Some(a)
        }) {
            let name = self.ast.expr_name(a);
            self.raise_expr(a, format!("only single target (not {name}) can be annotated"));
            return;
        }
        if let Some(a) = self.alt(|p| {
            let a = p.star_named_expression()?;
            p.op(Op::Comma)?;
            p.repeat(Self::star_named_expressions);
            p.op(Op::Colon)?;
            p.expression()?;
            Some(a)
        }) {
            self.raise_expr(a, "only single target (not tuple) can be annotated");
            return;
        }
        if let Some(a) = self.alt(|p| {
            let a = p.expression()?;
            p.op(Op::Colon)?;
            p.expression()?;
            Some(a)
        }) {
            self.raise_expr(a, "illegal target for annotation");
            return;
        }
        if let Some(a) = self.alt(|p| {
            p.repeat(|p| {
                p.star_targets()?;
                p.op(Op::Equal)
            });
            let a = p.star_expressions()?;
            p.op(Op::Equal)?;
            Some(a)
        }) {
            self.raise_invalid_target(TargetsKind::Star, a);
            return;
        }
        if let Some(a) = self.alt(|p| {
            p.repeat(|p| {
                p.star_targets()?;
                p.op(Op::Equal)
            });
            let a = p.yield_expr()?;
            p.op(Op::Equal)?;
            Some(a)
        }) {
            self.raise_expr(a, "assignment to yield expression not possible");
            return;
        }
        if let Some(a) = self.alt(|p| {
            let a = p.star_expressions()?;
            if !p.augassign() {
                return None;
            }
            p.annotated_rhs()?;
            Some(a)
        }) {
            let name = self.ast.expr_name(a);
            self.raise_expr(a, format!("'{name}' is an illegal expression for augmented assignment"));
        }
    }

    /// `invalid_ann_assign_target: list | tuple | '(' invalid_ann_assign_target ')'`.
    fn invalid_ann_assign_target(&mut self) -> Option<ExprId> {
        if self.at_op(Op::LSqb)
            && let Some(e) = self.alt(Self::list)
        {
            return Some(e);
        }
        if let Some(e) = self.alt(Self::tuple) {
            return Some(e);
        }
        self.alt(|p| {
            p.op(Op::LPar)?;
            let a = p.invalid_ann_assign_target()?;
            p.op(Op::RPar)?;
            Some(a)
        })
    }

    /// `RAISE_SYNTAX_ERROR_INVALID_TARGET`.
    pub(super) fn raise_invalid_target(&mut self, kind: TargetsKind, e: ExprId) {
        if let Some(bad) = self.ast.invalid_target(e, kind) {
            let name = self.ast.expr_name(bad);
            let msg = if kind == TargetsKind::Del {
                format!("cannot delete {name}")
            } else {
                format!("cannot assign to {name}")
            };
            self.raise_expr(bad, msg);
        }
    }

    /// `type_alias: "type" NAME [type_params] '=' expression`.
    fn type_alias(&mut self) -> Option<StmtId> {
        let start = self.soft("type")?;
        let n = self.name()?;
        let type_params = self.alt(Self::type_params).unwrap_or_default();
        self.op(Op::Equal)?;
        let value = self.expression()?;
        let name = self.name_expr(n);
        self.ast.set_ctx(name, Ctx::Store);
        Some(self.ast.add_stmt(
            StmtKind::TypeAlias(Box::new(TypeAlias { name, type_params: type_params.into(), value })),
            start,
            self.last(),
        ))
    }

    /// `raise_stmt: 'raise' expression ['from' expression] | 'raise'`.
    fn raise_stmt(&mut self) -> Option<StmtId> {
        let start = self.pos as TokId;
        if let Some(s) = self.alt(|p| {
            p.kw(Kw::Raise)?;
            let exc = p.expression()?;
            let cause = p.alt(|p| {
                p.kw(Kw::From)?;
                p.expression()
            });
            Some(p.ast.add_stmt(StmtKind::Raise { exc: Some(exc), cause }, start, p.last()))
        }) {
            return Some(s);
        }
        let t = self.kw(Kw::Raise)?;
        Some(self.ast.add_stmt(StmtKind::Raise { exc: None, cause: None }, t, t))
    }

    /// `del_stmt: 'del' del_targets &(';' | NEWLINE) | invalid_del_stmt`.
    fn del_stmt(&mut self) -> Option<StmtId> {
        let start = self.pos as TokId;
        if let Some(s) = self.alt(|p| {
            p.kw(Kw::Del)?;
            let targets = p.del_targets()?;
            if !(p.at_op(Op::Semi) || p.at(Kind::Newline)) {
                return None;
            }
            Some(p.ast.add_stmt(StmtKind::Delete(targets.into()), start, p.last()))
        }) {
            return Some(s);
        }
        if self.invalid
            && let Some(a) = self.alt(|p| {
                p.kw(Kw::Del)?;
                p.star_expressions()
            })
        {
            self.raise_invalid_target(TargetsKind::Del, a);
        }
        None
    }

    /// `import_stmt: invalid_import | import_name | import_from`.
    fn import_stmt(&mut self) -> Option<StmtId> {
        if self.invalid
            && let Some(a) = self.alt(|p| {
                let a = p.kw(Kw::Import)?;
                p.gather(Op::Comma, Self::dotted_name)?;
                p.kw(Kw::From)?;
                p.dotted_name()?;
                Some(a)
            })
        {
            self.raise_at(a, ProblemKind::Syntax, "Did you mean to use 'from ... import ...' instead?");
            return None;
        }
        let start = self.pos as TokId;
        if let Some(s) = self.alt(|p| {
            p.kw(Kw::Import)?;
            let names = p.gather(Op::Comma, |p| {
                let (first, last) = p.dotted_name()?;
                let asname = p.alt(|p| {
                    p.kw(Kw::As)?;
                    p.name()
                });
                Some(Alias { first, last, asname })
            })?;
            Some(p.ast.add_stmt(StmtKind::Import(names.into()), start, p.last()))
        }) {
            return Some(s);
        }
        if let Some(s) = self.alt(|p| {
            p.kw(Kw::From)?;
            let level = p.import_dots();
            let module = p.dotted_name()?;
            p.kw(Kw::Import)?;
            let (names, star) = p.import_from_targets()?;
            Some(p.ast.add_stmt(
                StmtKind::ImportFrom(Box::new(ImportFrom { module: Some(module), names: names.into(), star, level })),
                start,
                p.last(),
            ))
        }) {
            return Some(s);
        }
        self.alt(|p| {
            p.kw(Kw::From)?;
            let level = p.import_dots();
            if level == 0 {
                return None;
            }
            p.kw(Kw::Import)?;
            let (names, star) = p.import_from_targets()?;
            Some(p.ast.add_stmt(
                StmtKind::ImportFrom(Box::new(ImportFrom { module: None, names: names.into(), star, level })),
                start,
                p.last(),
            ))
        })
    }

    /// `('.' | '...')*`: the number of dots.
    fn import_dots(&mut self) -> u32 {
        let mut level = 0;
        loop {
            if self.op(Op::Dot).is_some() {
                level += 1;
            } else if self.op(Op::Ellipsis).is_some() {
                level += 3;
            } else {
                return level;
            }
        }
    }

    fn import_from_targets(&mut self) -> Option<(Vec<Alias>, Option<TokId>)> {
        if let Some(v) = self.alt(|p| {
            p.op(Op::LPar)?;
            let v = p.import_from_as_names()?;
            p.op(Op::Comma);
            p.op(Op::RPar)?;
            Some(v)
        }) {
            return Some((v, None));
        }
        if let Some(v) = self.alt(|p| {
            let v = p.import_from_as_names()?;
            if p.at_op(Op::Comma) { None } else { Some(v) }
        }) {
            return Some((v, None));
        }
        if let Some(t) = self.op(Op::Star) {
            return Some((Vec::new(), Some(t)));
        }
        if self.invalid
            && self
                .alt(|p| {
                    p.import_from_as_names()?;
                    p.op(Op::Comma)?;
                    p.expect(Kind::Newline)
                })
                .is_some()
        {
            self.raise_last(ProblemKind::Syntax, "trailing comma not allowed without surrounding parentheses");
        }
        None
    }

    fn import_from_as_names(&mut self) -> Option<Vec<Alias>> {
        self.gather(Op::Comma, |p| {
            let n = p.name()?;
            let asname = p.alt(|p| {
                p.kw(Kw::As)?;
                p.name()
            });
            Some(Alias { first: n, last: n, asname })
        })
    }

    /// `dotted_name: dotted_name '.' NAME | NAME`: first and last token.
    fn dotted_name(&mut self) -> Option<(TokId, TokId)> {
        let first = self.name()?;
        let mut last = first;
        loop {
            let m = self.pos;
            if self.op(Op::Dot).is_some()
                && let Some(n) = self.name()
            {
                last = n;
                continue;
            }
            self.pos = m;
            return Some((first, last));
        }
    }

    // ------------------------------------------------------------------ blocks and definitions

    /// `block: NEWLINE INDENT statements DEDENT | simple_stmts | invalid_block`.
    pub(super) fn block(&mut self) -> Option<Vec<StmtId>> {
        let id = self.memoized(Memo::Block, |p| {
            let body = p.block_raw()?;
            p.ast.blocks.push(body);
            Some((p.ast.blocks.len() - 1) as u32)
        })?;
        Some(self.ast.blocks[id as usize].clone())
    }

    fn block_raw(&mut self) -> Option<Vec<StmtId>> {
        if let Some(v) = self.alt(|p| {
            p.expect(Kind::Newline)?;
            p.expect(Kind::Indent)?;
            let v = p.statements()?;
            p.expect(Kind::Dedent)?;
            Some(v)
        }) {
            return Some(v);
        }
        if let Some(v) = self.alt(Self::simple_stmts) {
            return Some(v);
        }
        if self.invalid
            && self
                .alt(|p| {
                    p.expect(Kind::Newline)?;
                    if p.at(Kind::Indent) { None } else { Some(()) }
                })
                .is_some()
        {
            self.raise_last(ProblemKind::Indentation, "expected an indented block");
        }
        None
    }

    /// `NEWLINE !INDENT` after a block header: the indentation error of the `invalid_*_stmt` rules.
    fn missing_block(&mut self, what: &str, line_of: TokId) -> bool {
        let ok = self
            .alt(|p| {
                p.expect(Kind::Newline)?;
                if p.at(Kind::Indent) { None } else { Some(()) }
            })
            .is_some();
        if ok {
            let line = self.tok(line_of).line;
            self.raise_last(
                ProblemKind::Indentation,
                format!("expected an indented block after {what} on line {line}"),
            );
        }
        ok
    }

    /// `decorators: ('@' named_expression NEWLINE)+`.
    fn decorators(&mut self) -> Option<Vec<ExprId>> {
        self.repeat1(|p| {
            p.op(Op::At)?;
            let e = p.named_expression()?;
            p.expect(Kind::Newline)?;
            Some(e)
        })
    }

    /// `decorators raw | raw` (`class_def` and `function_def`): the definition with its decorators.
    fn decorated(&mut self, raw: fn(&mut Self) -> Option<StmtId>) -> Option<StmtId> {
        if let Some(s) = self.alt(|p| {
            let d = p.decorators()?;
            let s = raw(p)?;
            match &mut p.ast.stmts[s as usize].kind {
                StmtKind::ClassDef(class) => class.decorators = d.into(),
                StmtKind::FunctionDef(function) => function.decorators = d.into(),
                _ => {}
            }
            Some(s)
        }) {
            return Some(s);
        }
        self.alt(raw)
    }

    fn class_def(&mut self) -> Option<StmtId> {
        self.decorated(Self::class_def_raw)
    }

    fn class_def_raw(&mut self) -> Option<StmtId> {
        if self.invalid {
            self.alt(|p| {
                p.kw(Kw::Class)?;
                p.name()?;
                p.alt(Self::type_params);
                p.alt(|p| {
                    p.op(Op::LPar)?;
                    p.alt(Self::arguments);
                    p.op(Op::RPar)
                });
                if p.at(Kind::Newline) {
                    p.pos += 1;
                    p.raise_last(ProblemKind::Syntax, "expected ':'");
                }
                None::<()>
            });
            if self.failed() {
                return None;
            }
            self.alt(|p| {
                let a = p.kw(Kw::Class)?;
                p.name()?;
                p.alt(Self::type_params);
                p.alt(|p| {
                    p.op(Op::LPar)?;
                    p.alt(Self::arguments);
                    p.op(Op::RPar)
                });
                p.op(Op::Colon)?;
                p.missing_block("class definition", a);
                None::<()>
            });
            if self.failed() {
                return None;
            }
        }
        self.alt(|p| {
            let start = p.kw(Kw::Class)?;
            let name = p.name()?;
            let type_params = p.alt(Self::type_params).unwrap_or_default();
            let (bases, keywords) = p
                .alt(|p| {
                    p.op(Op::LPar)?;
                    let args = p.alt(Self::arguments);
                    p.op(Op::RPar)?;
                    Some(p.call_parts(args))
                })
                .unwrap_or_default();
            p.op(Op::Colon)?;
            let body = p.block()?;
            Some(p.ast.add_stmt(
                StmtKind::ClassDef(Box::new(ClassDef {
                    name,
                    type_params: type_params.into(),
                    bases,
                    keywords,
                    body: body.into(),
                    decorators: Vec::new().into(),
                })),
                start,
                p.last(),
            ))
        })
    }

    fn function_def(&mut self) -> Option<StmtId> {
        self.decorated(Self::function_def_raw)
    }

    fn function_def_raw(&mut self) -> Option<StmtId> {
        if self.invalid {
            self.alt(|p| {
                p.kw(Kw::Async);
                let a = p.kw(Kw::Def)?;
                p.name()?;
                p.alt(Self::type_params);
                p.op(Op::LPar)?;
                p.alt(Self::params);
                p.op(Op::RPar)?;
                p.alt(|p| {
                    p.op(Op::RArrow)?;
                    p.expression()
                });
                p.op(Op::Colon)?;
                p.missing_block("function definition", a);
                None::<()>
            });
            if self.failed() {
                return None;
            }
        }
        for is_async in [false, true] {
            if let Some(s) = self.alt(|p| {
                let start = p.pos as TokId;
                if is_async {
                    p.kw(Kw::Async)?;
                }
                p.kw(Kw::Def)?;
                let name = p.name()?;
                let type_params = p.alt(Self::type_params).unwrap_or_default();
                p.forced(Kind::Op(Op::LPar), "(")?;
                let params = p.alt(Self::params).unwrap_or_default();
                p.op(Op::RPar)?;
                let returns = p.alt(|p| {
                    p.op(Op::RArrow)?;
                    p.expression()
                });
                p.forced(Kind::Op(Op::Colon), ":")?;
                p.type_comment_probe();
                let body = p.block()?;
                Some(p.ast.add_stmt(
                    StmtKind::FunctionDef(Box::new(FunctionDef {
                        is_async,
                        name,
                        type_params: type_params.into(),
                        params,
                        returns,
                        body: body.into(),
                        decorators: Vec::new().into(),
                    })),
                    start,
                    p.last(),
                ))
            }) {
                return Some(s);
            }
        }
        None
    }

    /// `[func_type_comment]`: CPython looks for a type comment after `NEWLINE`, which fetches the token after it.
    fn type_comment_probe(&mut self) {
        let m = self.pos;
        if self.expect(Kind::Newline).is_some() {
            self.peek();
        }
        self.pos = m;
    }

    /// `type_params: '[' type_param_seq ']'`.
    pub(super) fn type_params(&mut self) -> Option<Vec<TypeParam>> {
        self.op(Op::LSqb)?;
        let v = self.gather(Op::Comma, Self::type_param)?;
        self.op(Op::Comma);
        self.op(Op::RSqb)?;
        Some(v)
    }

    fn type_param(&mut self) -> Option<TypeParam> {
        if let Some(tp) = self.alt(|p| {
            let name = p.name()?;
            let bound = p.alt(|p| {
                p.op(Op::Colon)?;
                p.expression()
            });
            Some(TypeParam { name, bound })
        }) {
            return Some(tp);
        }
        for (op, what) in [(Op::Star, "TypeVarTuple"), (Op::DoubleStar, "ParamSpec")] {
            if let Some((colon, e)) = self.alt(|p| {
                p.op(op)?;
                p.name()?;
                let colon = p.op(Op::Colon)?;
                Some((colon, p.expression()?))
            }) {
                let msg = if matches!(self.ast.expr(e).kind, ExprKind::Tuple(_)) {
                    format!("cannot use constraints with {what}")
                } else {
                    format!("cannot use bound with {what}")
                };
                self.raise_at(colon, ProblemKind::Syntax, msg);
                return None;
            }
            if let Some(name) = self.alt(|p| {
                p.op(op)?;
                p.name()
            }) {
                return Some(TypeParam { name, bound: None });
            }
        }
        None
    }

    // ------------------------------------------------------------------ compound statements

    fn if_stmt(&mut self) -> Option<StmtId> {
        self.if_or_elif(Kw::If)
    }

    /// `if_stmt` and `elif_stmt` (the same rule with another keyword).
    fn if_or_elif(&mut self, kw: Kw) -> Option<StmtId> {
        let what = if kw == Kw::If { "'if' statement" } else { "'elif' statement" };
        if self.invalid {
            if self
                .alt(|p| {
                    p.kw(kw)?;
                    p.named_expression()?;
                    p.expect(Kind::Newline)
                })
                .is_some()
            {
                self.raise_last(ProblemKind::Syntax, "expected ':'");
                return None;
            }
            if self.failed() {
                return None;
            }
            self.alt(|p| {
                let a = p.kw(kw)?;
                p.named_expression()?;
                p.op(Op::Colon)?;
                p.missing_block(what, a);
                None::<()>
            });
            if self.failed() {
                return None;
            }
        }
        let start = self.pos as TokId;
        if let Some(s) = self.alt(|p| {
            p.kw(kw)?;
            let test = p.named_expression()?;
            p.op(Op::Colon)?;
            let body = p.block()?;
            let elif = p.if_or_elif(Kw::Elif)?;
            Some(p.ast.add_stmt(
                StmtKind::If(Box::new(Conditional { test, body: body.into(), orelse: vec![elif].into() })),
                start,
                p.last(),
            ))
        }) {
            return Some(s);
        }
        self.alt(|p| {
            p.kw(kw)?;
            let test = p.named_expression()?;
            p.op(Op::Colon)?;
            let body = p.block()?;
            let orelse = p.alt(Self::else_block).unwrap_or_default();
            Some(p.ast.add_stmt(
                StmtKind::If(Box::new(Conditional { test, body: body.into(), orelse: orelse.into() })),
                start,
                p.last(),
            ))
        })
    }

    fn else_block(&mut self) -> Option<Vec<StmtId>> {
        if self.invalid {
            self.alt(|p| {
                let a = p.kw(Kw::Else)?;
                p.op(Op::Colon)?;
                p.missing_block("'else' statement", a);
                None::<()>
            });
            if self.failed() {
                return None;
            }
        }
        self.alt(|p| {
            p.kw(Kw::Else)?;
            p.forced(Kind::Op(Op::Colon), ":")?;
            p.block()
        })
    }

    fn while_stmt(&mut self) -> Option<StmtId> {
        if self.invalid {
            if self
                .alt(|p| {
                    p.kw(Kw::While)?;
                    p.named_expression()?;
                    p.expect(Kind::Newline)
                })
                .is_some()
            {
                self.raise_last(ProblemKind::Syntax, "expected ':'");
                return None;
            }
            self.alt(|p| {
                let a = p.kw(Kw::While)?;
                p.named_expression()?;
                p.op(Op::Colon)?;
                p.missing_block("'while' statement", a);
                None::<()>
            });
            if self.failed() {
                return None;
            }
        }
        self.alt(|p| {
            let start = p.kw(Kw::While)?;
            let test = p.named_expression()?;
            p.op(Op::Colon)?;
            let body = p.block()?;
            let orelse = p.alt(Self::else_block).unwrap_or_default();
            Some(p.ast.add_stmt(
                StmtKind::While(Box::new(Conditional { test, body: body.into(), orelse: orelse.into() })),
                start,
                p.last(),
            ))
        })
    }

    fn for_stmt(&mut self) -> Option<StmtId> {
        if self.invalid {
            if self
                .alt(|p| {
                    p.kw(Kw::Async);
                    p.kw(Kw::For)?;
                    p.star_targets()?;
                    p.kw(Kw::In)?;
                    p.star_expressions()?;
                    p.expect(Kind::Newline)
                })
                .is_some()
            {
                self.raise_last(ProblemKind::Syntax, "expected ':'");
                return None;
            }
            self.alt(|p| {
                p.kw(Kw::Async);
                let a = p.kw(Kw::For)?;
                p.star_targets()?;
                p.kw(Kw::In)?;
                p.star_expressions()?;
                p.op(Op::Colon)?;
                p.missing_block("'for' statement", a);
                None::<()>
            });
            if self.failed() {
                return None;
            }
        }
        for is_async in [false, true] {
            let m = self.pos;
            let start = self.pos as TokId;
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
            // Cut: after `in`, no other alternative of for_stmt is tried.
            let rest = self.alt(|p| {
                let iter = p.star_expressions()?;
                p.op(Op::Colon)?;
                let body = p.block()?;
                let orelse = p.alt(Self::else_block).unwrap_or_default();
                Some(p.ast.add_stmt(
                    StmtKind::For(Box::new(ForLoop {
                        is_async,
                        target,
                        iter,
                        body: body.into(),
                        orelse: orelse.into(),
                    })),
                    start,
                    p.last(),
                ))
            });
            if rest.is_none() {
                self.pos = m;
            }
            return rest;
        }
        if self.invalid
            && let Some(a) = self.alt(|p| {
                p.kw(Kw::Async);
                p.kw(Kw::For)?;
                p.star_expressions()
            })
        {
            self.raise_invalid_target(TargetsKind::For, a);
        }
        None
    }

    fn with_stmt(&mut self) -> Option<StmtId> {
        if self.invalid {
            for parenthesized in [false, true] {
                self.alt(|p| {
                    p.kw(Kw::Async);
                    let a = p.kw(Kw::With)?;
                    p.with_items_loose(parenthesized)?;
                    p.op(Op::Colon)?;
                    p.missing_block("'with' statement", a);
                    None::<()>
                });
                if self.failed() {
                    return None;
                }
            }
        }
        for is_async in [false, true] {
            for parenthesized in [true, false] {
                if let Some(s) = self.alt(|p| {
                    let start = p.pos as TokId;
                    if is_async {
                        p.kw(Kw::Async)?;
                    }
                    p.kw(Kw::With)?;
                    let items = if parenthesized {
                        p.op(Op::LPar)?;
                        let items = p.gather(Op::Comma, Self::with_item)?;
                        p.op(Op::Comma);
                        p.op(Op::RPar)?;
                        items
                    } else {
                        p.gather(Op::Comma, Self::with_item)?
                    };
                    p.op(Op::Colon)?;
                    let body = p.block()?;
                    Some(p.ast.add_stmt(
                        StmtKind::With(Box::new(WithBlock { is_async, items: items.into(), body: body.into() })),
                        start,
                        p.last(),
                    ))
                }) {
                    return Some(s);
                }
            }
        }
        if self.invalid {
            for parenthesized in [false, true] {
                if self
                    .alt(|p| {
                        p.kw(Kw::Async);
                        p.kw(Kw::With)?;
                        p.with_items_loose(parenthesized)?;
                        p.expect(Kind::Newline)
                    })
                    .is_some()
                {
                    self.raise_last(ProblemKind::Syntax, "expected ':'");
                    return None;
                }
            }
        }
        None
    }

    /// The items of the `invalid_with_stmt*` rules: `','.(expression ['as' star_target])+`, or in parentheses
    /// `'(' ','.(expressions ['as' star_target])+ ','? ')'`.
    fn with_items_loose(&mut self, parenthesized: bool) -> Option<()> {
        if parenthesized {
            self.op(Op::LPar)?;
            self.gather(Op::Comma, |p| {
                p.expressions()?;
                p.alt(|p| {
                    p.kw(Kw::As)?;
                    p.star_target()
                });
                Some(())
            })?;
            self.op(Op::Comma);
            self.op(Op::RPar)?;
        } else {
            self.gather(Op::Comma, |p| {
                p.expression()?;
                p.alt(|p| {
                    p.kw(Kw::As)?;
                    p.star_target()
                });
                Some(())
            })?;
        }
        Some(())
    }

    fn with_item(&mut self) -> Option<(ExprId, Option<ExprId>)> {
        if let Some(item) = self.alt(|p| {
            let e = p.expression()?;
            p.kw(Kw::As)?;
            let t = p.star_target()?;
            if p.at_op(Op::Comma) || p.at_op(Op::RPar) || p.at_op(Op::Colon) { Some((e, Some(t))) } else { None }
        }) {
            return Some(item);
        }
        if self.invalid
            && let Some(a) = self.alt(|p| {
                p.expression()?;
                p.kw(Kw::As)?;
                let a = p.expression()?;
                if p.at_op(Op::Comma) || p.at_op(Op::RPar) || p.at_op(Op::Colon) { Some(a) } else { None }
            })
        {
            self.raise_invalid_target(TargetsKind::Star, a);
            return None;
        }
        let e = self.alt(Self::expression)?;
        Some((e, None))
    }

    fn try_stmt(&mut self) -> Option<StmtId> {
        if self.invalid {
            self.invalid_try_stmt();
            if self.failed() {
                return None;
            }
        }
        let start = self.pos as TokId;
        if let Some(s) = self.alt(|p| {
            p.kw(Kw::Try)?;
            p.forced(Kind::Op(Op::Colon), ":")?;
            let body = p.block()?;
            let finalbody = p.finally_block()?;
            Some(p.ast.add_stmt(
                StmtKind::Try(Box::new(TryStmt {
                    body: body.into(),
                    handlers: Vec::new().into(),
                    orelse: Vec::new().into(),
                    finalbody: finalbody.into(),
                    star: false,
                })),
                start,
                p.last(),
            ))
        }) {
            return Some(s);
        }
        for star in [false, true] {
            if let Some(s) = self.alt(|p| {
                p.kw(Kw::Try)?;
                p.forced(Kind::Op(Op::Colon), ":")?;
                let body = p.block()?;
                let handlers = p.repeat1(|p| p.except_block(star))?;
                let orelse = p.alt(Self::else_block).unwrap_or_default();
                let finalbody = p.alt(Self::finally_block).unwrap_or_default();
                Some(p.ast.add_stmt(
                    StmtKind::Try(Box::new(TryStmt {
                        body: body.into(),
                        handlers: handlers.into(),
                        orelse: orelse.into(),
                        finalbody: finalbody.into(),
                        star,
                    })),
                    start,
                    p.last(),
                ))
            }) {
                return Some(s);
            }
        }
        None
    }

    fn invalid_try_stmt(&mut self) {
        self.alt(|p| {
            let a = p.kw(Kw::Try)?;
            p.op(Op::Colon)?;
            p.missing_block("'try' statement", a);
            None::<()>
        });
        if self.failed() {
            return;
        }
        if self
            .alt(|p| {
                p.kw(Kw::Try)?;
                p.op(Op::Colon)?;
                p.block()?;
                if p.at_kw(Kw::Except) || p.at_kw(Kw::Finally) { None } else { Some(()) }
            })
            .is_some()
        {
            self.raise_last(ProblemKind::Syntax, "expected 'except' or 'finally' block");
            return;
        }
        if let Some(a) = self.alt(|p| {
            p.kw(Kw::Try)?;
            p.op(Op::Colon)?;
            p.repeat(Self::block);
            p.repeat1(|p| p.except_block(false))?;
            let a = p.kw(Kw::Except)?;
            p.op(Op::Star)?;
            p.expression()?;
            p.alt(|p| {
                p.kw(Kw::As)?;
                p.name()
            });
            p.op(Op::Colon)?;
            Some(a)
        }) {
            self.raise_at(a, ProblemKind::Syntax, "cannot have both 'except' and 'except*' on the same 'try'");
            return;
        }
        if let Some(a) = self.alt(|p| {
            p.kw(Kw::Try)?;
            p.op(Op::Colon)?;
            p.repeat(Self::block);
            p.repeat1(|p| p.except_block(true))?;
            let a = p.kw(Kw::Except)?;
            p.alt(|p| {
                p.expression()?;
                p.alt(|p| {
                    p.kw(Kw::As)?;
                    p.name()
                });
                Some(())
            });
            p.op(Op::Colon)?;
            Some(a)
        }) {
            self.raise_at(a, ProblemKind::Syntax, "cannot have both 'except' and 'except*' on the same 'try'");
        }
    }

    /// `except_block` (or `except_star_block` when `star`).
    fn except_block(&mut self, star: bool) -> Option<Handler> {
        if self.invalid {
            self.alt(|p| {
                let a = p.kw(Kw::Except)?;
                if star {
                    p.op(Op::Star)?;
                }
                p.expression()?;
                p.alt(|p| {
                    p.kw(Kw::As)?;
                    p.name()
                });
                p.op(Op::Colon)?;
                let what = if star { "'except*' statement" } else { "'except' statement" };
                p.missing_block(what, a);
                None::<()>
            });
            if !star {
                self.alt(|p| {
                    let a = p.kw(Kw::Except)?;
                    p.op(Op::Colon)?;
                    p.missing_block("'except' statement", a);
                    None::<()>
                });
            }
            if self.failed() {
                return None;
            }
        }
        if let Some(h) = self.alt(|p| {
            let kw = p.kw(Kw::Except)?;
            if star {
                p.op(Op::Star)?;
            }
            let type_ = p.expression()?;
            let name = p.alt(|p| {
                p.kw(Kw::As)?;
                p.name()
            });
            p.op(Op::Colon)?;
            let body = p.block()?;
            Some(Handler { kw, type_: Some(type_), name, body: body.into() })
        }) {
            return Some(h);
        }
        if !star
            && let Some(h) = self.alt(|p| {
                let kw = p.kw(Kw::Except)?;
                p.op(Op::Colon)?;
                let body = p.block()?;
                Some(Handler { kw, type_: None, name: None, body: body.into() })
            })
        {
            return Some(h);
        }
        if self.invalid {
            self.invalid_except_stmt();
        }
        None
    }

    fn invalid_except_stmt(&mut self) {
        if let Some(a) = self.alt(|p| {
            p.kw(Kw::Except)?;
            p.op(Op::Star);
            let a = p.expression()?;
            p.op(Op::Comma)?;
            p.expressions()?;
            p.alt(|p| {
                p.kw(Kw::As)?;
                p.name()
            });
            p.op(Op::Colon)?;
            Some(a)
        }) {
            self.raise_expr(a, "multiple exception types must be parenthesized");
            return;
        }
        if self
            .alt(|p| {
                p.kw(Kw::Except)?;
                p.op(Op::Star);
                p.expression()?;
                p.alt(|p| {
                    p.kw(Kw::As)?;
                    p.name()
                });
                p.expect(Kind::Newline)
            })
            .is_some()
        {
            self.raise_last(ProblemKind::Syntax, "expected ':'");
            return;
        }
        if self
            .alt(|p| {
                p.kw(Kw::Except)?;
                p.expect(Kind::Newline)
            })
            .is_some()
        {
            self.raise_last(ProblemKind::Syntax, "expected ':'");
            return;
        }
        if self
            .alt(|p| {
                p.kw(Kw::Except)?;
                p.op(Op::Star)?;
                p.expect(Kind::Newline).or_else(|| p.op(Op::Colon))
            })
            .is_some()
        {
            self.raise_last(ProblemKind::Syntax, "expected one or more exception types");
        }
    }

    fn finally_block(&mut self) -> Option<Vec<StmtId>> {
        if self.invalid {
            self.alt(|p| {
                let a = p.kw(Kw::Finally)?;
                p.op(Op::Colon)?;
                p.missing_block("'finally' statement", a);
                None::<()>
            });
            if self.failed() {
                return None;
            }
        }
        self.alt(|p| {
            p.kw(Kw::Finally)?;
            p.forced(Kind::Op(Op::Colon), ":")?;
            p.block()
        })
    }

    fn match_stmt(&mut self) -> Option<StmtId> {
        if let Some(s) = self.alt(|p| {
            let start = p.soft("match")?;
            let subject = p.subject_expr()?;
            p.op(Op::Colon)?;
            p.expect(Kind::Newline)?;
            p.expect(Kind::Indent)?;
            let cases = p.repeat1(Self::case_block)?;
            p.expect(Kind::Dedent)?;
            Some(p.ast.add_stmt(StmtKind::Match(Box::new(MatchStmt { subject, cases: cases.into() })), start, p.last()))
        }) {
            return Some(s);
        }
        if self.invalid {
            if self
                .alt(|p| {
                    p.soft("match")?;
                    p.subject_expr()?;
                    p.expect(Kind::Newline)
                })
                .is_some()
            {
                self.raise_last(ProblemKind::Syntax, "expected ':'");
                return None;
            }
            self.alt(|p| {
                let a = p.soft("match")?;
                p.subject_expr()?;
                p.op(Op::Colon)?;
                p.missing_block("'match' statement", a);
                None::<()>
            });
        }
        None
    }

    /// `subject_expr: star_named_expression ',' star_named_expressions? | named_expression`.
    fn subject_expr(&mut self) -> Option<ExprId> {
        if let Some(e) = self.alt(|p| {
            let first = p.pos as TokId;
            let v = p.star_named_expression()?;
            p.op(Op::Comma)?;
            let mut elts = vec![v];
            if let Some(rest) = p.alt(Self::star_named_expressions) {
                elts.extend(rest);
            }
            Some(p.ast.add_expr(ExprKind::Tuple(elts.into()), first, p.last()))
        }) {
            return Some(e);
        }
        self.alt(Self::named_expression)
    }

    fn case_block(&mut self) -> Option<Case> {
        if self.invalid {
            if self
                .alt(|p| {
                    p.soft("case")?;
                    p.patterns()?;
                    p.alt(Self::guard);
                    p.expect(Kind::Newline)
                })
                .is_some()
            {
                self.raise_last(ProblemKind::Syntax, "expected ':'");
                return None;
            }
            self.alt(|p| {
                let a = p.soft("case")?;
                p.patterns()?;
                p.alt(Self::guard);
                p.op(Op::Colon)?;
                p.missing_block("'case' statement", a);
                None::<()>
            });
            if self.failed() {
                return None;
            }
        }
        self.alt(|p| {
            p.soft("case")?;
            let pattern = p.patterns()?;
            let guard = p.alt(Self::guard);
            p.op(Op::Colon)?;
            let body = p.block()?;
            Some(Case { pattern, guard, body: body.into() })
        })
    }

    fn guard(&mut self) -> Option<ExprId> {
        self.kw(Kw::If)?;
        self.named_expression()
    }
}
