//! The compiler's errors (CPython's `Python/future.c` and `Python/compile.c`): what parses but cannot be compiled.
//!
//! `from __future__` features and placement; `return`, `yield` and `await` outside a function (or an async one),
//! `'return' with value in async generator`, `'yield from' inside async function`; `break` and `continue` outside a
//! loop or in an `except*` block; `async for`/`async with` and asynchronous comprehensions outside an async function;
//! repeated keyword arguments; assignments to `__debug__`; starred expressions where they cannot be; `except:` not
//! last; and the rules of `match` patterns (unreachable cases, names bound twice or differently, duplicate mapping
//! keys). The walk follows CPython's code generation order, so the first error is CPython's first error.

use std::collections::HashSet;

use super::ast::{
    Arg, Ast, CallExpr, ClassDef, CompareExpr, Conditional, Const, Ctx, DictExpr, ExprId, ExprKind, ForLoop,
    FunctionDef, ImportFrom, Keyword, MatchStmt, PatId, PatKind, StmtId, StmtKind, TokId, TryStmt, WithBlock,
};
use super::tokens::{Token, char_count};
use super::{ProblemKind, Stack, SyntaxProblem};

/// The parsed source, as the checks read it.
pub(super) struct View<'a> {
    pub(super) src: &'a [u8],
    pub(super) toks: &'a [Token],
    /// [`super::tokens::Tokens::line_starts`].
    pub(super) line_starts: &'a [u32],
    pub(super) ast: &'a Ast,
}

impl<'a> View<'a> {
    /// 1-based line and character column of a token's start.
    pub(super) fn position(&self, tok: TokId) -> (u32, u32) {
        let Some(t) = self.toks.get(tok as usize) else {
            return (1, 1);
        };
        let line_start = t.line_start(self.line_starts);
        (t.line, char_count(&self.src[line_start..t.start as usize]) as u32 + 1)
    }

    /// A name token's text (borrowed from the source, which is UTF-8 and split between characters).
    pub(super) fn name(&self, tok: TokId) -> &'a str {
        self.toks
            .get(tok as usize)
            .and_then(|t| std::str::from_utf8(&self.src[t.start as usize..t.end as usize]).ok())
            .unwrap_or_default()
    }
}

type Res = Result<(), SyntaxProblem>;

fn error(msg: impl Into<String>, (line, col): (u32, u32)) -> SyntaxProblem {
    SyntaxProblem::new(ProblemKind::Compile, msg, line, col)
}

/// The features `from __future__` may import (and `braces`, which it may not).
const FEATURES: &[&str] = &[
    "nested_scopes",
    "generators",
    "division",
    "absolute_import",
    "with_statement",
    "print_function",
    "unicode_literals",
    "barry_as_FLUFL",
    "generator_stop",
    "annotations",
];

/// What `future.c` finds: the line of the last leading `from __future__` import, and whether annotations are
/// postponed. The default (no future import) is what a part of a module after its first statements is checked
/// with ([`super::parts`]): any `from __future__` import in it is then out of place, and annotations are checked.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Future {
    /// Line and column of the last leading future import (`(0, 0)` when there is none).
    at: (u32, u32),
    annotations: bool,
}

impl Future {
    /// The line of the last leading future import, 0 when there is none.
    pub(super) fn line(&self) -> u32 {
        self.at.0
    }
}

fn is_future_import(view: &View<'_>, s: StmtId) -> bool {
    matches!(&view.ast.stmt(s).kind, StmtKind::ImportFrom(import)
        if import.module.is_some_and(|(a, b)| a == b && view.name(a) == "__future__"))
}

/// `future.c`: the leading `from __future__` imports must name known features.
pub(super) fn future(view: &View<'_>, body: &[StmtId]) -> Result<Future, SyntaxProblem> {
    let mut f = Future { at: (0, 0), annotations: false };
    let mut i = 0;
    if let Some(&first) = body.first()
        && let StmtKind::Expr(e) = &view.ast.stmt(first).kind
        && matches!(view.ast.expr(*e).kind, ExprKind::Constant(Const::Str { bytes: false }))
    {
        i = 1;
    }
    for &s in &body[i.min(body.len())..] {
        if !is_future_import(view, s) {
            break;
        }
        let stmt = view.ast.stmt(s);
        let at = view.position(stmt.first);
        if let StmtKind::ImportFrom(import) = &stmt.kind {
            let ImportFrom { names, star, .. } = &**import;
            if star.is_some() {
                return Err(error("future feature * is not defined", at));
            }
            for a in names {
                let feature = view.name(a.first);
                if feature == "braces" {
                    return Err(error("not a chance", at));
                }
                if !FEATURES.contains(&feature) {
                    return Err(error(format!("future feature {feature} is not defined"), at));
                }
                if feature == "annotations" {
                    f.annotations = true;
                }
            }
        }
        f.at = at;
    }
    Ok(f)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    Module,
    Class,
    Function {
        is_async: bool,
        generator: bool,
    },
    Lambda,
    /// A generator expression (comprehensions are inlined in their enclosing unit, as in CPython 3.12).
    Genexp,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Block {
    Loop,
    ExceptStar,
    Other,
}

/// CPython's `CO_MAXBLOCKS`.
const MAX_BLOCKS: usize = 20;

struct Compiler<'a> {
    view: &'a View<'a>,
    future: Future,
    units: Vec<(Unit, Vec<Block>)>,
    stack: Stack,
}

/// The compiler's checks over a parsed module.
pub(super) fn check(view: &View<'_>, body: &[StmtId], future: Future) -> Res {
    let mut c = Compiler { view, future, units: vec![(Unit::Module, Vec::new())], stack: Stack::new() };
    c.stmts(body)
}

impl Compiler<'_> {
    /// A compiler error at a token (its line and column are worked out only for an error).
    fn error(&self, msg: impl Into<String>, at: TokId) -> SyntaxProblem {
        error(msg, self.view.position(at))
    }

    fn unit(&self) -> Unit {
        self.units.last().map_or(Unit::Module, |u| u.0)
    }

    fn blocks(&mut self) -> &mut Vec<Block> {
        &mut self.units.last_mut().expect("the module unit stays").1
    }

    fn push_block(&mut self, b: Block, at: TokId) -> Res {
        if self.blocks().len() >= MAX_BLOCKS {
            return Err(self.error("too many statically nested blocks", at));
        }
        self.blocks().push(b);
        Ok(())
    }

    fn pop_block(&mut self) {
        self.blocks().pop();
    }

    fn at_expr(&self, e: ExprId) -> TokId {
        self.view.ast.expr(e).first
    }

    fn function_like(&self) -> bool {
        matches!(self.unit(), Unit::Function { .. } | Unit::Lambda | Unit::Genexp)
    }

    fn guard(&mut self) -> Res {
        if self.stack.exhausted() {
            return Err(Stack::problem(1));
        }
        Ok(())
    }

    /// `forbidden_name`: `__debug__` cannot be assigned or deleted.
    fn forbidden(&self, name: &str, ctx: Ctx, at: TokId) -> Res {
        if name != "__debug__" {
            return Ok(());
        }
        match ctx {
            Ctx::Store => Err(self.error("cannot assign to __debug__", at)),
            Ctx::Del => Err(self.error("cannot delete __debug__", at)),
            Ctx::Load => Ok(()),
        }
    }

    fn check_debug_args<'p>(&self, args: impl Iterator<Item = &'p Arg>) -> Res {
        for a in args {
            self.forbidden(self.view.name(a.name), Ctx::Store, a.name)?;
        }
        Ok(())
    }

    // ------------------------------------------------------------------ statements

    fn stmts(&mut self, body: &[StmtId]) -> Res {
        body.iter().try_for_each(|&s| self.stmt(s))
    }

    fn stmt(&mut self, id: StmtId) -> Res {
        self.guard()?;
        self.stmt_inner(id)
    }

    fn annotation(&mut self, e: ExprId) -> Res {
        if self.future.annotations { Ok(()) } else { self.expr(e) }
    }

    fn stmt_inner(&mut self, id: StmtId) -> Res {
        let view = self.view;
        let s = view.ast.stmt(id);
        let at = s.first;
        match &s.kind {
            StmtKind::FunctionDef(node) => {
                let FunctionDef { is_async, name, type_params, params, returns, body, decorators } = &**node;
                self.check_debug_args(params.all())?;
                self.exprs(decorators)?;
                for tp in type_params {
                    if let Some(b) = tp.bound {
                        self.expr(b)?;
                    }
                }
                self.exprs(&params.defaults)?;
                self.exprs(&params.kw_defaults)?;
                for a in params.all() {
                    if let Some(ann) = a.annotation {
                        // `*args: *Ts` (PEP 646): the starred annotation of `*args` is allowed.
                        match view.ast.expr(ann).kind {
                            ExprKind::Starred(v) => self.annotation(v)?,
                            _ => self.annotation(ann)?,
                        }
                    }
                }
                if let Some(r) = returns {
                    self.annotation(*r)?;
                }
                let generator = contains_yield(view.ast, body);
                self.units.push((Unit::Function { is_async: *is_async, generator }, Vec::new()));
                self.stmts(body)?;
                self.units.pop();
                self.forbidden(view.name(*name), Ctx::Store, at)?;
            }
            StmtKind::ClassDef(node) => {
                let ClassDef { name, type_params, bases, keywords, body, decorators } = &**node;
                self.exprs(decorators)?;
                for tp in type_params {
                    if let Some(b) = tp.bound {
                        self.expr(b)?;
                    }
                }
                self.units.push((Unit::Class, Vec::new()));
                self.stmts(body)?;
                self.units.pop();
                self.call_args(bases, keywords)?;
                self.forbidden(view.name(*name), Ctx::Store, at)?;
            }
            StmtKind::TypeAlias(alias) => self.expr(alias.value)?,
            StmtKind::Return(value) => {
                if !self.function_like() {
                    return Err(self.error("'return' outside function", at));
                }
                if value.is_some() && self.unit() == (Unit::Function { is_async: true, generator: true }) {
                    return Err(self.error("'return' with value in async generator", at));
                }
                if let Some(v) = value {
                    self.expr(*v)?;
                }
                if self.units.last().is_some_and(|u| u.1.contains(&Block::ExceptStar)) {
                    return Err(self.error("'break', 'continue' and 'return' cannot appear in an except* block", at));
                }
            }
            StmtKind::Delete(targets) => self.exprs(targets)?,
            StmtKind::Assign { targets, value } => {
                self.expr(*value)?;
                self.exprs(targets)?;
            }
            StmtKind::AugAssign { target, value } => {
                let t = view.ast.expr(*target);
                match &t.kind {
                    ExprKind::Name => self.forbidden(view.name(t.first), Ctx::Store, self.at_expr(*target))?,
                    ExprKind::Attribute(v, attr) => {
                        self.expr(*v)?;
                        self.forbidden(view.name(*attr), Ctx::Store, self.at_expr(*target))?;
                    }
                    ExprKind::Subscript(v, sl) => {
                        self.expr(*v)?;
                        self.expr(*sl)?;
                    }
                    _ => {}
                }
                self.expr(*value)?;
            }
            StmtKind::AnnAssign { target, annotation, value, simple } => {
                if let Some(v) = value {
                    self.expr(*v)?;
                    self.expr(*target)?;
                }
                let t = view.ast.expr(*target);
                match &t.kind {
                    ExprKind::Name => {
                        self.forbidden(view.name(t.first), Ctx::Store, at)?;
                        if *simple && matches!(self.unit(), Unit::Module | Unit::Class) {
                            self.annotation(*annotation)?;
                        }
                    }
                    ExprKind::Attribute(v, attr) => {
                        self.forbidden(view.name(*attr), Ctx::Store, at)?;
                        if value.is_none() {
                            self.expr(*v)?;
                        }
                    }
                    ExprKind::Subscript(v, sl) if value.is_none() => {
                        self.expr(*v)?;
                        self.expr(*sl)?;
                    }
                    _ => {}
                }
                if !*simple && matches!(self.unit(), Unit::Module | Unit::Class) {
                    self.annotation(*annotation)?;
                }
            }
            StmtKind::For(node) => {
                let ForLoop { is_async, target, iter, body, orelse } = &**node;
                if *is_async && !matches!(self.unit(), Unit::Function { is_async: true, .. }) {
                    return Err(self.error("'async for' outside async function", at));
                }
                self.expr(*iter)?;
                self.push_block(Block::Loop, at)?;
                self.expr(*target)?;
                self.stmts(body)?;
                self.pop_block();
                self.stmts(orelse)?;
            }
            StmtKind::While(node) => {
                let Conditional { test, body, orelse } = &**node;
                self.expr(*test)?;
                self.push_block(Block::Loop, at)?;
                self.stmts(body)?;
                self.pop_block();
                self.stmts(orelse)?;
            }
            StmtKind::If(node) => {
                let Conditional { test, body, orelse } = &**node;
                self.expr(*test)?;
                self.stmts(body)?;
                self.stmts(orelse)?;
            }
            StmtKind::With(node) => {
                let WithBlock { is_async, items, body } = &**node;
                if *is_async && !matches!(self.unit(), Unit::Function { is_async: true, .. }) {
                    return Err(self.error("'async with' outside async function", at));
                }
                let mut pushed = 0;
                for (e, v) in items {
                    self.expr(*e)?;
                    self.push_block(Block::Other, at)?;
                    pushed += 1;
                    if let Some(v) = v {
                        self.expr(*v)?;
                    }
                }
                self.stmts(body)?;
                for _ in 0..pushed {
                    self.pop_block();
                }
            }
            StmtKind::Match(node) => {
                let MatchStmt { subject, cases } = &**node;
                self.expr(*subject)?;
                let n = cases.len();
                let has_default = cases.last().is_some_and(|c| {
                    c.guard.is_none()
                        && matches!(view.ast.pattern(c.pattern).kind, PatKind::As { pattern: None, name: None })
                });
                for (i, c) in cases.iter().enumerate() {
                    if !(has_default && i == n - 1) {
                        let mut stores = Vec::new();
                        let allow = c.guard.is_some() || i + 1 == n;
                        self.pattern(c.pattern, allow, &mut stores)?;
                    }
                    if let Some(g) = c.guard {
                        self.expr(g)?;
                    }
                    self.stmts(&c.body)?;
                }
            }
            StmtKind::Raise { exc, cause } => {
                for e in [exc, cause].into_iter().flatten() {
                    self.expr(*e)?;
                }
            }
            StmtKind::Try(node) => {
                let TryStmt { body, handlers, orelse, finalbody, star } = &**node;
                let finally = !finalbody.is_empty();
                if finally {
                    self.push_block(Block::Other, at)?;
                }
                if !handlers.is_empty() {
                    self.push_block(Block::Other, at)?;
                    self.stmts(body)?;
                    self.pop_block();
                    self.stmts(orelse)?;
                    let n = handlers.len();
                    for (i, h) in handlers.iter().enumerate() {
                        let hat = h.kw;
                        if h.type_.is_none() && i + 1 < n {
                            return Err(self.error("default 'except:' must be last", hat));
                        }
                        if let Some(t) = h.type_ {
                            self.expr(t)?;
                        }
                        if let Some(name) = h.name {
                            self.forbidden(view.name(name), Ctx::Store, hat)?;
                        }
                        self.push_block(if *star { Block::ExceptStar } else { Block::Other }, hat)?;
                        self.stmts(&h.body)?;
                        self.pop_block();
                    }
                } else {
                    self.stmts(body)?;
                }
                if finally {
                    self.pop_block();
                    self.push_block(Block::Other, at)?;
                    self.stmts(finalbody)?;
                    self.pop_block();
                }
            }
            StmtKind::Assert { test, msg } => {
                self.expr(*test)?;
                if let Some(m) = msg {
                    self.expr(*m)?;
                }
            }
            StmtKind::Import(names) => {
                for a in names {
                    let stored = view.name(a.asname.unwrap_or(a.first));
                    self.forbidden(stored, Ctx::Store, a.first)?;
                }
            }
            StmtKind::ImportFrom(node) => {
                let ImportFrom { names, .. } = &**node;
                if is_future_import(view, id) && view.position(at) > self.future.at {
                    return Err(self.error("from __future__ imports must occur at the beginning of the file", at));
                }
                for a in names {
                    let stored = view.name(a.asname.unwrap_or(a.first));
                    self.forbidden(stored, Ctx::Store, at)?;
                }
            }
            StmtKind::Break | StmtKind::Continue => {
                let is_break = matches!(s.kind, StmtKind::Break);
                let mut found = false;
                let blocks = self.units.last().map(|u| u.1.clone()).unwrap_or_default();
                for b in blocks.iter().rev() {
                    match b {
                        Block::ExceptStar => {
                            return Err(
                                self.error("'break', 'continue' and 'return' cannot appear in an except* block", at)
                            );
                        }
                        Block::Loop => {
                            found = true;
                            break;
                        }
                        Block::Other => {}
                    }
                }
                if !found {
                    let msg = if is_break { "'break' outside loop" } else { "'continue' not properly in loop" };
                    return Err(self.error(msg, at));
                }
            }
            StmtKind::Expr(e) => self.expr(*e)?,
            StmtKind::Global(_) | StmtKind::Nonlocal(_) | StmtKind::Pass => {}
        }
        Ok(())
    }

    // ------------------------------------------------------------------ expressions

    fn exprs(&mut self, es: &[ExprId]) -> Res {
        es.iter().try_for_each(|&e| self.expr(e))
    }

    fn expr(&mut self, id: ExprId) -> Res {
        self.guard()?;
        self.expr_inner(id)
    }

    /// `validate_keywords` and the arguments of a call (or the bases of a class).
    fn call_args(&mut self, args: &[ExprId], keywords: &[Keyword]) -> Res {
        for (i, k) in keywords.iter().enumerate() {
            let Some(name) = k.name else {
                continue;
            };
            let name = self.view.name(name);
            self.forbidden(name, Ctx::Store, k.first)?;
            for other in &keywords[i + 1..] {
                if let Some(o) = other.name
                    && self.view.name(o) == name
                {
                    return Err(self.error(format!("keyword argument repeated: {name}"), other.first));
                }
            }
        }
        self.elements(args)?;
        for k in keywords {
            self.expr(k.value)?;
        }
        Ok(())
    }

    /// Elements of a display or call arguments: a starred element stands for its value.
    fn elements(&mut self, elts: &[ExprId]) -> Res {
        for &e in elts {
            match self.view.ast.expr(e).kind {
                ExprKind::Starred(v) => self.expr(v)?,
                _ => self.expr(e)?,
            }
        }
        Ok(())
    }

    fn expr_inner(&mut self, id: ExprId) -> Res {
        let view = self.view;
        let e = view.ast.expr(id);
        let at = e.first;
        match &e.kind {
            ExprKind::Name => self.forbidden(view.name(e.first), e.ctx, at)?,
            ExprKind::Constant(_) => {}
            ExprKind::NamedExpr(target, value) => {
                self.expr(*value)?;
                self.expr(*target)?;
            }
            ExprKind::BoolOp(vs) | ExprKind::JoinedStr(vs) => self.exprs(vs)?,
            ExprKind::BinOp(a, b) => {
                self.expr(*a)?;
                self.expr(*b)?;
            }
            ExprKind::UnaryOp { operand, .. } => self.expr(*operand)?,
            ExprKind::Lambda { params, body } => {
                self.check_debug_args(params.all())?;
                self.exprs(&params.defaults)?;
                self.exprs(&params.kw_defaults)?;
                self.units.push((Unit::Lambda, Vec::new()));
                self.expr(*body)?;
                self.units.pop();
            }
            ExprKind::IfExp { test, body, orelse } => {
                self.expr(*test)?;
                self.expr(*body)?;
                self.expr(*orelse)?;
            }
            ExprKind::Dict(node) => {
                let DictExpr { keys, values } = &**node;
                for (k, v) in keys.iter().zip(values) {
                    if let Some(k) = k {
                        self.expr(*k)?;
                    }
                    self.expr(*v)?;
                }
            }
            ExprKind::Set(elts) => self.elements(elts)?,
            ExprKind::ListComp(elt, gens) | ExprKind::SetComp(elt, gens) => {
                self.comprehension(id, gens, &[*elt], false)?
            }
            ExprKind::DictComp(node) => {
                let (k, v, gens) = &**node;
                self.comprehension(id, gens, &[*k, *v], false)?
            }
            ExprKind::GeneratorExp(elt, gens) => self.comprehension(id, gens, &[*elt], true)?,
            ExprKind::Await(v) => {
                if !self.function_like() {
                    return Err(self.error("'await' outside function", at));
                }
                if !matches!(self.unit(), Unit::Function { is_async: true, .. } | Unit::Genexp) {
                    return Err(self.error("'await' outside async function", at));
                }
                self.expr(*v)?;
            }
            ExprKind::Yield(v) => {
                if !self.function_like() {
                    return Err(self.error("'yield' outside function", at));
                }
                if let Some(v) = v {
                    self.expr(*v)?;
                }
            }
            ExprKind::YieldFrom(v) => {
                if !self.function_like() {
                    return Err(self.error("'yield' outside function", at));
                }
                if matches!(self.unit(), Unit::Function { is_async: true, .. }) {
                    return Err(self.error("'yield from' inside async function", at));
                }
                self.expr(*v)?;
            }
            ExprKind::Compare(node) => {
                let CompareExpr { left, comparators, .. } = &**node;
                self.expr(*left)?;
                self.exprs(comparators)?;
            }
            ExprKind::Call(node) => {
                let CallExpr { func, args, keywords } = &**node;
                self.expr(*func)?;
                self.call_args(args, keywords)?;
            }
            ExprKind::FormattedValue(v, spec) => {
                self.expr(*v)?;
                if let Some(s) = spec {
                    self.expr(*s)?;
                }
            }
            ExprKind::Attribute(v, attr) => {
                self.expr(*v)?;
                self.forbidden(view.name(*attr), e.ctx, at)?;
            }
            ExprKind::Subscript(v, s) => {
                self.expr(*v)?;
                self.expr(*s)?;
            }
            ExprKind::Starred(_) => {
                let msg = if e.ctx == Ctx::Store {
                    "starred assignment target must be in a list or tuple"
                } else {
                    "can't use starred expression here"
                };
                return Err(self.error(msg, at));
            }
            ExprKind::List(elts) | ExprKind::Tuple(elts) => {
                if e.ctx == Ctx::Store {
                    let stars = elts.iter().filter(|&&x| matches!(view.ast.expr(x).kind, ExprKind::Starred(_))).count();
                    if stars > 1 {
                        return Err(self.error("multiple starred expressions in assignment", at));
                    }
                    let before =
                        elts.iter().take_while(|&&x| !matches!(view.ast.expr(x).kind, ExprKind::Starred(_))).count();
                    if stars == 1 && before >= 256 {
                        return Err(self.error("too many expressions in star-unpacking assignment", at));
                    }
                }
                self.elements(elts)?;
            }
            ExprKind::Slice(bounds) => {
                let (a, b, c) = &**bounds;
                for x in [a, b, c].into_iter().flatten() {
                    self.expr(*x)?;
                }
            }
        }
        Ok(())
    }

    /// A comprehension: list, set and dict comprehensions are inlined in the current unit (CPython 3.12);
    /// generator expressions get their own.
    fn comprehension(&mut self, id: ExprId, gens: &[super::ast::Comprehension], elts: &[ExprId], genexp: bool) -> Res {
        let Some(outermost) = gens.first() else {
            return Ok(());
        };
        let at = self.at_expr(id);
        let view = self.view;
        if genexp {
            self.units.push((Unit::Genexp, Vec::new()));
        } else {
            self.expr(outermost.iter)?;
            let is_async = comprehension_is_async(view.ast, id);
            let allowed = matches!(self.unit(), Unit::Function { is_async: true, .. } | Unit::Genexp);
            if is_async && !allowed {
                return Err(self.error("asynchronous comprehension outside of an asynchronous function", at));
            }
        }
        for (i, g) in gens.iter().enumerate() {
            if i > 0 || genexp {
                if i == 0 {
                    // The outermost iterable of a generator expression is evaluated outside it.
                    let unit = self.units.pop();
                    let r = self.expr(g.iter);
                    if let Some(u) = unit {
                        self.units.push(u);
                    }
                    r?;
                } else {
                    self.expr(g.iter)?;
                }
            }
            self.expr(g.target)?;
            self.exprs(&g.ifs)?;
        }
        for &e in elts {
            self.expr(e)?;
        }
        if genexp {
            self.units.pop();
        }
        Ok(())
    }

    // ------------------------------------------------------------------ patterns

    fn store_name(&self, name: TokId, stores: &mut Vec<String>) -> Res {
        let n = self.view.name(name);
        let at = name;
        self.forbidden(n, Ctx::Store, at)?;
        if stores.iter().any(|s| s == n) {
            return Err(self.error(format!("multiple assignments to name '{n}' in pattern"), at));
        }
        stores.push(n.to_string());
        Ok(())
    }

    fn pattern(&mut self, id: PatId, allow_irrefutable: bool, stores: &mut Vec<String>) -> Res {
        self.guard()?;
        self.pattern_inner(id, allow_irrefutable, stores)
    }

    fn pattern_inner(&mut self, id: PatId, allow_irrefutable: bool, stores: &mut Vec<String>) -> Res {
        let view = self.view;
        let p = view.ast.pattern(id);
        let at = p.first;
        match &p.kind {
            PatKind::Value(e) => {
                if !matches!(
                    view.ast.expr(*e).kind,
                    ExprKind::Constant(_) | ExprKind::Attribute(..) | ExprKind::UnaryOp { .. } | ExprKind::BinOp(..)
                ) {
                    return Err(self.error("patterns may only match literals and attribute lookups", at));
                }
                self.expr(*e)
            }
            PatKind::Singleton => Ok(()),
            PatKind::Sequence(ps) => {
                let stars = ps.iter().filter(|&&q| matches!(view.ast.pattern(q).kind, PatKind::Star(_))).count();
                if stars > 1 {
                    return Err(self.error("multiple starred names in sequence pattern", at));
                }
                ps.iter().try_for_each(|&q| self.pattern(q, true, stores))
            }
            PatKind::Mapping { keys, patterns, rest } => {
                let mut seen: Vec<Literal> = Vec::new();
                for &k in keys {
                    let key = view.ast.expr(k);
                    match literal(view, k) {
                        Some(lit) => {
                            if seen.iter().any(|s| s.same(&lit)) {
                                return Err(
                                    self.error(format!("mapping pattern checks duplicate key ({})", lit.repr), at)
                                );
                            }
                            seen.push(lit);
                        }
                        None if matches!(key.kind, ExprKind::Attribute(..)) => {}
                        None => {
                            return Err(
                                self.error("mapping pattern keys may only match literals and attribute lookups", at)
                            );
                        }
                    }
                    self.expr(k)?;
                }
                patterns.iter().try_for_each(|&q| self.pattern(q, true, stores))?;
                if let Some(r) = rest {
                    self.store_name(*r, stores)?;
                }
                Ok(())
            }
            PatKind::Class { cls, patterns, kwd_attrs, kwd_patterns } => {
                for (i, &a) in kwd_attrs.iter().enumerate() {
                    let name = view.name(a);
                    self.forbidden(name, Ctx::Store, a)?;
                    if kwd_attrs[i + 1..].iter().any(|&b| view.name(b) == name) {
                        let later = kwd_attrs[i + 1..].iter().find(|&&b| view.name(b) == name).copied().unwrap_or(a);
                        return Err(self.error(format!("attribute name repeated in class pattern: {name}"), later));
                    }
                }
                self.expr(*cls)?;
                patterns.iter().chain(kwd_patterns).try_for_each(|&q| self.pattern(q, true, stores))
            }
            PatKind::Star(name) => match name {
                Some(n) => self.store_name(*n, stores),
                None => Ok(()),
            },
            PatKind::As { pattern, name } => {
                match pattern {
                    None => {
                        if !allow_irrefutable {
                            return Err(match name {
                                None => self.error("wildcard makes remaining patterns unreachable", at),
                                Some(n) => self.error(
                                    format!("name capture '{}' makes remaining patterns unreachable", view.name(*n)),
                                    at,
                                ),
                            });
                        }
                    }
                    Some(q) => self.pattern(*q, allow_irrefutable, stores)?,
                }
                match name {
                    Some(n) => self.store_name(*n, stores),
                    None => Ok(()),
                }
            }
            PatKind::Or(alts) => {
                let mut first: Option<Vec<String>> = None;
                let n = alts.len();
                for (i, &q) in alts.iter().enumerate() {
                    let mut own = stores.clone();
                    self.pattern(q, i + 1 == n && allow_irrefutable, &mut own)?;
                    let bound: Vec<String> = own[stores.len()..].to_vec();
                    match &first {
                        None => first = Some(bound),
                        Some(f) => {
                            let a: HashSet<&String> = f.iter().collect();
                            let b: HashSet<&String> = bound.iter().collect();
                            if a != b {
                                return Err(self.error("alternative patterns bind different names", at));
                            }
                        }
                    }
                }
                if let Some(f) = first {
                    stores.extend(f);
                }
                Ok(())
            }
        }
    }
}

/// Whether a function body yields (directly, not in nested functions, lambdas, classes or comprehensions).
fn contains_yield(ast: &Ast, body: &[StmtId]) -> bool {
    let mut stack: Vec<Node> = body.iter().map(|&s| Node::Stmt(s)).collect();
    while let Some(n) = stack.pop() {
        match n {
            Node::Stmt(s) => match &ast.stmt(s).kind {
                StmtKind::FunctionDef(node) => {
                    let FunctionDef { params, decorators, returns, .. } = &**node;
                    stack.extend(
                        decorators.iter().chain(&params.defaults).chain(&params.kw_defaults).map(|&e| Node::Expr(e)),
                    );
                    stack.extend(returns.iter().map(|&e| Node::Expr(e)));
                }
                StmtKind::ClassDef(node) => {
                    let ClassDef { bases, decorators, keywords, .. } = &**node;
                    stack.extend(bases.iter().chain(decorators).map(|&e| Node::Expr(e)));
                    stack.extend(keywords.iter().map(|k| Node::Expr(k.value)));
                }
                other => child_nodes_of_stmt(other, &mut stack),
            },
            Node::Expr(e) => match &ast.expr(e).kind {
                ExprKind::Yield(_) | ExprKind::YieldFrom(_) => return true,
                ExprKind::Lambda { params, .. } => {
                    stack.extend(params.defaults.iter().chain(&params.kw_defaults).map(|&e| Node::Expr(e)));
                }
                kind @ (ExprKind::ListComp(..)
                | ExprKind::SetComp(..)
                | ExprKind::DictComp(..)
                | ExprKind::GeneratorExp(..)) => {
                    if let Some(g) = kind.generators().and_then(<[_]>::first) {
                        stack.push(Node::Expr(g.iter));
                    }
                }
                other => child_nodes_of_expr(other, &mut stack),
            },
        }
    }
    false
}

/// Whether a list, set or dict comprehension is asynchronous: an `async for`, or an `await` in it, or an
/// asynchronous comprehension nested in it (the outermost iterable does not count: it is evaluated outside).
fn comprehension_is_async(ast: &Ast, id: ExprId) -> bool {
    let (gens, elts): (&[super::ast::Comprehension], Vec<ExprId>) = match &ast.expr(id).kind {
        ExprKind::ListComp(e, g) | ExprKind::SetComp(e, g) => (g, vec![*e]),
        ExprKind::DictComp(node) => (&node.2, vec![node.0, node.1]),
        _ => return false,
    };
    if gens.iter().any(|g| g.is_async) {
        return true;
    }
    let mut stack: Vec<Node> = elts.into_iter().map(Node::Expr).collect();
    for (i, g) in gens.iter().enumerate() {
        stack.push(Node::Expr(g.target));
        stack.extend(g.ifs.iter().map(|&e| Node::Expr(e)));
        if i > 0 {
            stack.push(Node::Expr(g.iter));
        }
    }
    while let Some(n) = stack.pop() {
        let Node::Expr(e) = n else {
            continue;
        };
        match &ast.expr(e).kind {
            ExprKind::Await(_) => return true,
            ExprKind::Lambda { params, .. } => {
                stack.extend(params.defaults.iter().chain(&params.kw_defaults).map(|&e| Node::Expr(e)));
            }
            ExprKind::ListComp(..) | ExprKind::SetComp(..) | ExprKind::DictComp(..) => {
                if comprehension_is_async(ast, e) {
                    return true;
                }
                let kind = &ast.expr(e).kind;
                if !matches!(kind, ExprKind::GeneratorExp(..))
                    && let Some(g) = kind.generators().and_then(<[_]>::first)
                {
                    stack.push(Node::Expr(g.iter));
                }
            }
            ExprKind::GeneratorExp(_, g) => {
                if let Some(g) = g.first() {
                    stack.push(Node::Expr(g.iter));
                }
            }
            other => child_nodes_of_expr(other, &mut stack),
        }
    }
    false
}

#[derive(Clone, Copy)]
enum Node {
    Stmt(StmtId),
    Expr(ExprId),
}

fn child_nodes_of_stmt(kind: &StmtKind, out: &mut Vec<Node>) {
    let e = |out: &mut Vec<Node>, x: &ExprId| out.push(Node::Expr(*x));
    let ss = |out: &mut Vec<Node>, b: &[StmtId]| out.extend(b.iter().map(|&s| Node::Stmt(s)));
    match kind {
        StmtKind::FunctionDef(_) | StmtKind::ClassDef(_) => {}
        StmtKind::Return(v) => v.iter().for_each(|x| e(out, x)),
        StmtKind::Delete(v) => v.iter().for_each(|x| e(out, x)),
        StmtKind::Assign { targets, value } => {
            targets.iter().for_each(|x| e(out, x));
            e(out, value);
        }
        StmtKind::TypeAlias(alias) => e(out, &alias.value),
        StmtKind::AugAssign { target, value } => {
            e(out, target);
            e(out, value);
        }
        StmtKind::AnnAssign { target, annotation, value, .. } => {
            e(out, target);
            e(out, annotation);
            value.iter().for_each(|x| e(out, x));
        }
        StmtKind::For(node) => {
            let ForLoop { target, iter, body, orelse, .. } = &**node;
            e(out, target);
            e(out, iter);
            ss(out, body);
            ss(out, orelse);
        }
        StmtKind::While(node) | StmtKind::If(node) => {
            let Conditional { test, body, orelse } = &**node;
            e(out, test);
            ss(out, body);
            ss(out, orelse);
        }
        StmtKind::With(node) => {
            let WithBlock { items, body, .. } = &**node;
            for (a, b) in items {
                e(out, a);
                b.iter().for_each(|x| e(out, x));
            }
            ss(out, body);
        }
        StmtKind::Match(node) => {
            let MatchStmt { subject, cases } = &**node;
            e(out, subject);
            for c in cases {
                c.guard.iter().for_each(|x| e(out, x));
                ss(out, &c.body);
            }
        }
        StmtKind::Raise { exc, cause } => exc.iter().chain(cause).for_each(|x| e(out, x)),
        StmtKind::Try(node) => {
            let TryStmt { body, handlers, orelse, finalbody, .. } = &**node;
            ss(out, body);
            for h in handlers {
                h.type_.iter().for_each(|x| e(out, x));
                ss(out, &h.body);
            }
            ss(out, orelse);
            ss(out, finalbody);
        }
        StmtKind::Assert { test, msg } => {
            e(out, test);
            msg.iter().for_each(|x| e(out, x));
        }
        StmtKind::Expr(x) => e(out, x),
        StmtKind::Import(_)
        | StmtKind::ImportFrom(_)
        | StmtKind::Global(_)
        | StmtKind::Nonlocal(_)
        | StmtKind::Pass
        | StmtKind::Break
        | StmtKind::Continue => {}
    }
}

fn child_nodes_of_expr(kind: &ExprKind, out: &mut Vec<Node>) {
    let mut e = |x: &ExprId| out.push(Node::Expr(*x));
    match kind {
        ExprKind::Name | ExprKind::Constant(_) => {}
        ExprKind::JoinedStr(v) | ExprKind::BoolOp(v) | ExprKind::Set(v) | ExprKind::List(v) | ExprKind::Tuple(v) => {
            v.iter().for_each(e)
        }
        ExprKind::FormattedValue(a, b) => {
            e(a);
            b.iter().for_each(e);
        }
        ExprKind::Attribute(a, _) | ExprKind::Starred(a) | ExprKind::Await(a) | ExprKind::YieldFrom(a) => e(a),
        ExprKind::UnaryOp { operand, .. } => e(operand),
        ExprKind::Subscript(a, b) | ExprKind::BinOp(a, b) | ExprKind::NamedExpr(a, b) => {
            e(a);
            e(b);
        }
        ExprKind::Call(node) => {
            let CallExpr { func, args, keywords } = &**node;
            e(func);
            args.iter().for_each(&mut e);
            keywords.iter().for_each(|k| e(&k.value));
        }
        ExprKind::Compare(node) => {
            let CompareExpr { left, comparators, .. } = &**node;
            e(left);
            comparators.iter().for_each(e);
        }
        ExprKind::Lambda { body, .. } => e(body),
        ExprKind::IfExp { test, body, orelse } => {
            e(test);
            e(body);
            e(orelse);
        }
        ExprKind::Dict(node) => {
            let DictExpr { keys, values } = &**node;
            keys.iter().flatten().for_each(&mut e);
            values.iter().for_each(e);
        }
        ExprKind::ListComp(a, g) | ExprKind::SetComp(a, g) | ExprKind::GeneratorExp(a, g) => {
            e(a);
            for c in g {
                e(&c.target);
                e(&c.iter);
                c.ifs.iter().for_each(&mut e);
            }
        }
        ExprKind::DictComp(node) => {
            let (a, b, g) = &**node;
            e(a);
            e(b);
            for c in g {
                e(&c.target);
                e(&c.iter);
                c.ifs.iter().for_each(&mut e);
            }
        }
        ExprKind::Yield(a) => a.iter().for_each(e),
        ExprKind::Slice(bounds) => [&bounds.0, &bounds.1, &bounds.2].into_iter().flatten().for_each(e),
    }
}

/// A literal key of a mapping pattern, for duplicate detection (Python's equality: `0 == 0.0 == False`).
struct Literal {
    value: LitValue,
    repr: String,
}

#[derive(PartialEq)]
enum LitValue {
    Number(f64, f64),
    Text(Vec<u8>),
    None,
}

impl Literal {
    fn same(&self, other: &Literal) -> bool {
        self.value == other.value
    }
}

/// The value of a literal pattern key: numbers (with sign and complex parts), strings, `None`, `True`, `False`.
fn literal(view: &View<'_>, id: ExprId) -> Option<Literal> {
    let e = view.ast.expr(id);
    let text: String = (e.first..=e.last).map(|t| view.name(t)).collect::<Vec<_>>().join("");
    match &e.kind {
        ExprKind::Constant(Const::True) => Some(Literal { value: LitValue::Number(1.0, 0.0), repr: "True".into() }),
        ExprKind::Constant(Const::False) => Some(Literal { value: LitValue::Number(0.0, 0.0), repr: "False".into() }),
        ExprKind::Constant(Const::None) => Some(Literal { value: LitValue::None, repr: "None".into() }),
        ExprKind::Constant(Const::Str { .. }) => {
            let body: Vec<u8> = (e.first..=e.last)
                .flat_map(|t| {
                    let s = view.name(t);
                    let start = s.find(['\'', '"']).map_or(0, |i| i + 1);
                    let q = s.as_bytes().get(start.saturating_sub(1)).copied().unwrap_or(b'\'');
                    let triple = s[start..].starts_with(&[q as char, q as char][..]) && s.len() >= start + 5;
                    let (a, b) = if triple { (start + 2, s.len() - 3) } else { (start, s.len().saturating_sub(1)) };
                    s.get(a..b.max(a)).unwrap_or("").as_bytes().to_vec()
                })
                .collect();
            let repr = format!("'{}'", String::from_utf8_lossy(&body));
            Some(Literal { value: LitValue::Text(body), repr })
        }
        ExprKind::Constant(Const::Number) | ExprKind::UnaryOp { .. } | ExprKind::BinOp(..) => {
            let (re, im) = number_value(&text)?;
            let repr = number_repr(&text, re, im);
            Some(Literal { value: LitValue::Number(re, im), repr })
        }
        _ => None,
    }
}

/// The value of a (possibly signed or complex) number literal written as `text` (no spaces).
fn number_value(text: &str) -> Option<(f64, f64)> {
    let t = text.replace('_', "");
    // Split a complex literal `a+bj` / `a-bj` at its last sign that is not an exponent's.
    let bytes = t.as_bytes();
    let split = (1..bytes.len())
        .rev()
        .find(|&i| (bytes[i] == b'+' || bytes[i] == b'-') && !matches!(bytes[i - 1], b'e' | b'E'));
    if let Some(i) = split.filter(|_| t.ends_with(['j', 'J'])) {
        let (re, _) = number_value(&t[..i])?;
        let (_, im) = number_value(&t[i..])?;
        return Some((re, im));
    }
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, t.trim_start_matches('+')),
    };
    let sign = if neg { -1.0 } else { 1.0 };
    if let Some(im) = body.strip_suffix(['j', 'J']) {
        return Some((0.0, sign * im.parse::<f64>().ok()?));
    }
    let lower = body.to_ascii_lowercase();
    let value = if let Some(h) = lower.strip_prefix("0x") {
        u128::from_str_radix(h, 16).ok()? as f64
    } else if let Some(o) = lower.strip_prefix("0o") {
        u128::from_str_radix(o, 8).ok()? as f64
    } else if let Some(b) = lower.strip_prefix("0b") {
        u128::from_str_radix(b, 2).ok()? as f64
    } else {
        lower.parse::<f64>().ok()?
    };
    Some((sign * value, 0.0))
}

fn number_repr(text: &str, re: f64, im: f64) -> String {
    let t = text.replace('_', "");
    let is_int = !t.contains(['.', 'e', 'E', 'j', 'J']) || t.to_ascii_lowercase().starts_with("0x");
    if im != 0.0 || t.ends_with(['j', 'J']) {
        return t;
    }
    if is_int && re.fract() == 0.0 && re.abs() < 1e18 {
        return format!("{}", re as i64);
    }
    format!("{re:?}")
}
