//! The symbol table's errors (CPython's `Python/symtable.c`): which names each scope binds, uses and declares, and
//! what is refused on the way: duplicate parameters and type parameters, `global`/`nonlocal` after a use or an
//! assignment or on a parameter, `nonlocal` at module level or without a binding, `import *` outside the module,
//! `yield` in a comprehension, assignment expressions where they cannot bind, and `yield`/`await`/`:=` in the
//! scopes of type parameters.
//!
//! As in CPython, the construction errors come in the order the tree is visited, and the errors found when the
//! names are resolved (`nonlocal`) come after all of them.

use std::borrow::Cow;
use std::collections::HashSet;
use std::hash::BuildHasher;

#[cfg(not(target_family = "wasm"))]
use foldhash::fast::RandomState;
#[cfg(target_family = "wasm")]
use std::hash::RandomState;
use std::rc::Rc;

use super::ast::{
    Arg, CallExpr, ClassDef, CompareExpr, Comprehension, Conditional, Ctx, DictExpr, ExprId, ExprKind, ForLoop,
    FunctionDef, Handler, ImportFrom, MatchStmt, PatId, PatKind, StmtId, StmtKind, TokId, TryStmt, TypeAlias,
    TypeParam, WithBlock,
};
use super::compile::View;
use super::{ProblemKind, Stack, SyntaxProblem};

const DEF_GLOBAL: u32 = 1;
const DEF_LOCAL: u32 = 2;
const DEF_PARAM: u32 = 4;
const DEF_NONLOCAL: u32 = 8;
const USE: u32 = 16;
const DEF_IMPORT: u32 = 32;
const DEF_ANNOT: u32 = 64;
const DEF_COMP_ITER: u32 = 128;
const DEF_TYPE_PARAM: u32 = 256;
const DEF_BOUND: u32 = DEF_LOCAL | DEF_PARAM | DEF_IMPORT;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Block {
    Module,
    Class,
    Function,
    TypeParams,
    TypeAlias,
    TypeVarBound,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Comp {
    List,
    Set,
    Dict,
    Generator,
}

struct Scope {
    block: Block,
    comprehension: Option<Comp>,
    /// Names in the order they were first seen, with their flags, each stored once.
    names: Vec<(Rc<str>, u32)>,
    /// Positions in `names` by the name's hash: four bytes a name (a 200,000-name function would otherwise keep
    /// every name again as a key).
    index: hashbrown::HashTable<u32>,
    hasher: RandomState,
    /// `global`/`nonlocal` directives (and assignment expressions in comprehensions): name and position.
    directives: Vec<(String, TokId)>,
    children: Vec<usize>,
    comp_iter_target: bool,
    comp_iter_expr: u32,
    coroutine: bool,
}

impl Scope {
    fn new(block: Block) -> Scope {
        Scope {
            block,
            comprehension: None,
            names: Vec::new(),
            index: hashbrown::HashTable::new(),
            hasher: RandomState::default(),
            directives: Vec::new(),
            children: Vec::new(),
            comp_iter_target: false,
            comp_iter_expr: 0,
            coroutine: false,
        }
    }

    /// Where a name is in `names`.
    fn position(&self, name: &str) -> Option<usize> {
        let names = &self.names;
        self.index.find(self.hasher.hash_one(name), |&i| &*names[i as usize].0 == name).map(|&i| i as usize)
    }

    fn flags(&self, name: &str) -> u32 {
        self.position(name).map_or(0, |i| self.names[i].1)
    }

    /// Sets a name's flags, adding it when it is new.
    fn set_flags(&mut self, name: &str, flags: u32) {
        match self.position(name) {
            Some(i) => self.names[i].1 = flags,
            None => {
                let Scope { names, index, hasher, .. } = self;
                let at = names.len() as u32;
                index.insert_unique(hasher.hash_one(name), at, |&i| hasher.hash_one(&*names[i as usize].0));
                names.push((name.into(), flags));
            }
        }
    }

    fn is_function_like(&self) -> bool {
        matches!(self.block, Block::Function | Block::TypeParams | Block::TypeAlias | Block::TypeVarBound)
    }
}

struct Table<'a> {
    view: &'a View<'a>,
    scopes: Vec<Scope>,
    /// The stack of scopes being built (indices into `scopes`).
    stack: Vec<usize>,
    /// The class whose name mangles `__private` names.
    private: Option<&'a str>,
    budget: Stack,
    /// A `global` statement was met in the module's own scope.
    module_global: bool,
}

type Res = Result<(), SyntaxProblem>;

/// A set of names (bound names, type parameters) for the analysis of scopes.
type NameSet = HashSet<Rc<str>, RandomState>;

/// Builds the symbol table of a module and resolves its names: the first error, if any. On success, whether the
/// module's own scope has a `global` statement: the only way one module-level statement's names can make another
/// one an error (`name 'x' is assigned to before global declaration`), which [`super::parts`] must know.
pub(super) fn check(view: &View<'_>, body: &[StmtId]) -> Result<bool, SyntaxProblem> {
    let mut t = Table {
        view,
        scopes: vec![Scope::new(Block::Module)],
        stack: vec![0],
        private: None,
        budget: Stack::new(),
        module_global: false,
    };
    t.stmts(body)?;
    t.analyze(0, None, &NameSet::default())?;
    Ok(t.module_global)
}

fn error(msg: impl Into<String>, (line, col): (u32, u32)) -> SyntaxProblem {
    SyntaxProblem::new(ProblemKind::Compile, msg, line, col)
}

impl<'a> Table<'a> {
    fn cur(&self) -> usize {
        *self.stack.last().expect("the module scope stays")
    }

    fn scope(&mut self) -> &mut Scope {
        let c = self.cur();
        &mut self.scopes[c]
    }

    fn at_expr(&self, e: ExprId) -> TokId {
        self.view.ast.expr(e).first
    }

    /// A symbol-table error at a token.
    fn error(&self, msg: impl Into<String>, at: TokId) -> SyntaxProblem {
        error(msg, self.view.position(at))
    }

    fn name_text(&self, tok: TokId) -> &'a str {
        self.view.name(tok)
    }

    /// CPython's `_Py_Mangle`.
    fn mangle<'n>(&self, name: &'n str) -> Cow<'n, str> {
        let Some(class) = self.private else {
            return Cow::Borrowed(name);
        };
        if !name.starts_with("__") || name.ends_with("__") || name.contains('.') {
            return Cow::Borrowed(name);
        }
        let stripped = class.trim_start_matches('_');
        if stripped.is_empty() {
            return Cow::Borrowed(name);
        }
        Cow::Owned(format!("_{stripped}{name}"))
    }

    fn enter(&mut self, block: Block) -> usize {
        let id = self.scopes.len();
        self.scopes.push(Scope::new(block));
        let cur = self.cur();
        self.scopes[cur].children.push(id);
        self.stack.push(id);
        id
    }

    fn exit(&mut self) {
        self.stack.pop();
    }

    /// `symtable_add_def`.
    fn add_def(&mut self, name: &str, flag: u32, at: TokId) -> Res {
        let cur = self.cur();
        self.add_def_in(cur, name, flag, at)
    }

    fn add_def_in(&mut self, scope: usize, name: &str, flag: u32, at: TokId) -> Res {
        let mangled = self.mangle(name);
        let s = &mut self.scopes[scope];
        let mut val = s.flags(&mangled);
        if flag & DEF_PARAM != 0 && val & DEF_PARAM != 0 {
            return Err(self.error(format!("duplicate argument '{name}' in function definition"), at));
        }
        if flag & DEF_TYPE_PARAM != 0 && val & DEF_TYPE_PARAM != 0 {
            return Err(self.error(format!("duplicate type parameter '{name}'"), at));
        }
        val |= flag;
        if s.comp_iter_target {
            if val & (DEF_GLOBAL | DEF_NONLOCAL) != 0 {
                return Err(self.error(
                    format!("comprehension inner loop cannot rebind assignment expression target '{name}'"),
                    at,
                ));
            }
            val |= DEF_COMP_ITER;
        }
        s.set_flags(&mangled, val);
        Ok(())
    }

    fn lookup(&self, name: &str) -> u32 {
        self.scopes[self.cur()].flags(&self.mangle(name))
    }

    fn guard(&mut self) -> Res {
        if self.budget.exhausted() {
            return Err(Stack::problem(1));
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

    fn stmt_inner(&mut self, id: StmtId) -> Res {
        let view = self.view;
        let s = view.ast.stmt(id);
        let at = s.first;
        match &s.kind {
            StmtKind::FunctionDef(node) => {
                let FunctionDef { name, type_params, params, returns, body, decorators, .. } = &**node;
                let fname = self.name_text(*name);
                self.add_def(fname, DEF_LOCAL, at)?;
                self.exprs(&params.defaults)?;
                self.exprs(&params.kw_defaults)?;
                self.exprs(decorators)?;
                if !type_params.is_empty() {
                    self.enter(Block::TypeParams);
                    self.type_params(type_params)?;
                }
                for a in params.all() {
                    if let Some(ann) = a.annotation {
                        self.expr(ann)?;
                    }
                }
                if let Some(r) = returns {
                    self.expr(*r)?;
                }
                self.enter(Block::Function);
                self.params(params.all())?;
                self.stmts(body)?;
                self.exit();
                if !type_params.is_empty() {
                    self.exit();
                }
            }
            StmtKind::ClassDef(node) => {
                let ClassDef { name, type_params, bases, keywords, body, decorators } = &**node;
                let cname = self.name_text(*name);
                self.add_def(cname, DEF_LOCAL, at)?;
                self.exprs(decorators)?;
                let saved = self.private;
                if !type_params.is_empty() {
                    self.enter(Block::TypeParams);
                    self.private = Some(cname);
                    self.type_params(type_params)?;
                }
                self.exprs(bases)?;
                for k in keywords {
                    self.expr(k.value)?;
                }
                self.enter(Block::Class);
                self.private = Some(cname);
                self.stmts(body)?;
                self.exit();
                if !type_params.is_empty() {
                    self.exit();
                }
                self.private = saved;
            }
            StmtKind::TypeAlias(alias) => {
                let TypeAlias { name, type_params, value } = &**alias;
                self.expr(*name)?;
                if !type_params.is_empty() {
                    self.enter(Block::TypeParams);
                    self.type_params(type_params)?;
                }
                self.enter(Block::TypeAlias);
                self.expr(*value)?;
                self.exit();
                if !type_params.is_empty() {
                    self.exit();
                }
            }
            StmtKind::Return(v) => {
                if let Some(v) = v {
                    self.expr(*v)?;
                }
            }
            StmtKind::Delete(targets) => self.exprs(targets)?,
            StmtKind::Assign { targets, value } => {
                self.exprs(targets)?;
                self.expr(*value)?;
            }
            StmtKind::AnnAssign { target, annotation, value, simple } => {
                let t = view.ast.expr(*target);
                if t.kind == ExprKind::Name {
                    let name = self.name_text(t.first);
                    let cur = self.lookup(name);
                    if cur & (DEF_GLOBAL | DEF_NONLOCAL) != 0 && self.cur() != 0 && *simple {
                        let what = if cur & DEF_GLOBAL != 0 { "global" } else { "nonlocal" };
                        return Err(self.error(format!("annotated name '{name}' can't be {what}"), at));
                    }
                    let name_at = self.at_expr(*target);
                    if *simple {
                        self.add_def(name, DEF_ANNOT | DEF_LOCAL, name_at)?;
                    } else if value.is_some() {
                        self.add_def(name, DEF_LOCAL, name_at)?;
                    }
                } else {
                    self.expr(*target)?;
                }
                self.expr(*annotation)?;
                if let Some(v) = value {
                    self.expr(*v)?;
                }
            }
            StmtKind::AugAssign { target, value } => {
                self.expr(*target)?;
                self.expr(*value)?;
            }
            StmtKind::For(node) => {
                let ForLoop { target, iter, body, orelse, .. } = &**node;
                self.expr(*target)?;
                self.expr(*iter)?;
                self.stmts(body)?;
                self.stmts(orelse)?;
            }
            StmtKind::While(node) | StmtKind::If(node) => {
                let Conditional { test, body, orelse } = &**node;
                self.expr(*test)?;
                self.stmts(body)?;
                self.stmts(orelse)?;
            }
            StmtKind::With(node) => {
                let WithBlock { items, body, .. } = &**node;
                for (e, v) in items {
                    self.expr(*e)?;
                    if let Some(v) = v {
                        self.expr(*v)?;
                    }
                }
                self.stmts(body)?;
            }
            StmtKind::Match(node) => {
                let MatchStmt { subject, cases } = &**node;
                self.expr(*subject)?;
                for c in cases {
                    self.pattern(c.pattern)?;
                    if let Some(g) = c.guard {
                        self.expr(g)?;
                    }
                    self.stmts(&c.body)?;
                }
            }
            StmtKind::Raise { exc, cause } => {
                if let Some(e) = exc {
                    self.expr(*e)?;
                }
                if let Some(c) = cause {
                    self.expr(*c)?;
                }
            }
            StmtKind::Try(node) => {
                let TryStmt { body, handlers, orelse, finalbody, .. } = &**node;
                self.stmts(body)?;
                self.stmts(orelse)?;
                for h in handlers {
                    self.handler(h)?;
                }
                self.stmts(finalbody)?;
            }
            StmtKind::Assert { test, msg } => {
                self.expr(*test)?;
                if let Some(m) = msg {
                    self.expr(*m)?;
                }
            }
            StmtKind::Import(names) => {
                for a in names {
                    let bound = match a.asname {
                        Some(n) => self.name_text(n),
                        None => self.name_text(a.first),
                    };
                    self.add_def(bound, DEF_IMPORT, a.first)?;
                }
            }
            StmtKind::ImportFrom(node) => {
                let ImportFrom { names, star, .. } = &**node;
                for a in names {
                    let bound = self.name_text(a.asname.unwrap_or(a.first));
                    self.add_def(bound, DEF_IMPORT, a.first)?;
                }
                if let Some(t) = star
                    && self.scopes[self.cur()].block != Block::Module
                {
                    return Err(self.error("import * only allowed at module level", *t));
                }
            }
            StmtKind::Global(names) | StmtKind::Nonlocal(names) => {
                let global = matches!(s.kind, StmtKind::Global(_));
                self.module_global |= global && self.cur() == 0;
                for &n in names {
                    let name = self.name_text(n);
                    let cur = self.lookup(name);
                    if cur & (DEF_PARAM | DEF_LOCAL | USE | DEF_ANNOT) != 0 {
                        let what = if global { "global" } else { "nonlocal" };
                        let msg = if cur & DEF_PARAM != 0 {
                            format!("name '{name}' is parameter and {what}")
                        } else if cur & USE != 0 {
                            format!("name '{name}' is used prior to {what} declaration")
                        } else if cur & DEF_ANNOT != 0 {
                            format!("annotated name '{name}' can't be {what}")
                        } else {
                            format!("name '{name}' is assigned to before {what} declaration")
                        };
                        return Err(self.error(msg, at));
                    }
                    self.add_def(name, if global { DEF_GLOBAL } else { DEF_NONLOCAL }, at)?;
                    let mangled = self.mangle(name);
                    self.scope().directives.push((mangled.into_owned(), at));
                }
            }
            StmtKind::Expr(e) => self.expr(*e)?,
            StmtKind::Pass | StmtKind::Break | StmtKind::Continue => {}
        }
        Ok(())
    }

    fn handler(&mut self, h: &Handler) -> Res {
        if let Some(t) = h.type_ {
            self.expr(t)?;
        }
        if let Some(n) = h.name {
            let name = self.name_text(n);
            self.add_def(name, DEF_LOCAL, h.kw)?;
        }
        self.stmts(&h.body)
    }

    fn params<'p>(&mut self, params: impl Iterator<Item = &'p Arg>) -> Res {
        for a in params {
            let name = self.name_text(a.name);
            self.add_def(name, DEF_PARAM, a.name)?;
        }
        Ok(())
    }

    fn type_params(&mut self, tps: &[TypeParam]) -> Res {
        for tp in tps {
            let name = self.name_text(tp.name);
            self.add_def(name, DEF_TYPE_PARAM | DEF_LOCAL, tp.name)?;
            if let Some(b) = tp.bound {
                self.enter(Block::TypeVarBound);
                self.expr(b)?;
                self.exit();
            }
        }
        Ok(())
    }

    fn pattern(&mut self, id: PatId) -> Res {
        let view = self.view;
        let p = view.ast.pattern(id);
        match &p.kind {
            PatKind::Value(e) => self.expr(*e),
            PatKind::Singleton => Ok(()),
            PatKind::Sequence(ps) | PatKind::Or(ps) => ps.iter().try_for_each(|&q| self.pattern(q)),
            PatKind::Mapping { keys, patterns, rest } => {
                self.exprs(keys)?;
                patterns.iter().try_for_each(|&q| self.pattern(q))?;
                if let Some(r) = rest {
                    let name = self.name_text(*r);
                    self.add_def(name, DEF_LOCAL, *r)?;
                }
                Ok(())
            }
            PatKind::Class { cls, patterns, kwd_patterns, .. } => {
                self.expr(*cls)?;
                patterns.iter().chain(kwd_patterns).try_for_each(|&q| self.pattern(q))
            }
            PatKind::Star(name) => match name {
                Some(n) => {
                    let name = self.name_text(*n);
                    self.add_def(name, DEF_LOCAL, *n)
                }
                None => Ok(()),
            },
            PatKind::As { pattern, name } => {
                if let Some(q) = pattern {
                    self.pattern(*q)?;
                }
                if let Some(n) = name {
                    let name = self.name_text(*n);
                    self.add_def(name, DEF_LOCAL, *n)?;
                }
                Ok(())
            }
        }
    }

    // ------------------------------------------------------------------ expressions

    fn exprs(&mut self, es: &[ExprId]) -> Res {
        es.iter().try_for_each(|&e| self.expr(e))
    }

    fn expr(&mut self, id: ExprId) -> Res {
        self.guard()?;
        self.expr_inner(id)
    }

    /// `symtable_raise_if_annotation_block`.
    fn not_in_type_scope(&self, what: &str, at: TokId) -> Res {
        let msg = match self.scopes[self.cur()].block {
            Block::TypeVarBound => format!("{what} cannot be used within a TypeVar bound"),
            Block::TypeAlias => format!("{what} cannot be used within a type alias"),
            Block::TypeParams => format!("{what} cannot be used within the definition of a generic"),
            _ => return Ok(()),
        };
        Err(self.error(msg, at))
    }

    fn expr_inner(&mut self, id: ExprId) -> Res {
        let view = self.view;
        let e = view.ast.expr(id);
        let at = e.first;
        match &e.kind {
            ExprKind::Name => {
                let name = self.name_text(e.first);
                let flag = if e.ctx == Ctx::Load { USE } else { DEF_LOCAL };
                self.add_def(name, flag, at)?;
            }
            ExprKind::NamedExpr(target, value) => {
                self.not_in_type_scope("named expression", at)?;
                if view.ast.expr(*target).kind == ExprKind::Name {
                    if self.scopes[self.cur()].comp_iter_expr > 0 {
                        return Err(self
                            .error("assignment expression cannot be used in a comprehension iterable expression", at));
                    }
                    if self.scopes[self.cur()].comprehension.is_some() {
                        self.extend_namedexpr_scope(*target)?;
                    }
                }
                self.expr(*value)?;
                self.expr(*target)?;
            }
            ExprKind::Constant(_) => {}
            ExprKind::JoinedStr(vs)
            | ExprKind::BoolOp(vs)
            | ExprKind::Set(vs)
            | ExprKind::List(vs)
            | ExprKind::Tuple(vs) => self.exprs(vs)?,
            ExprKind::FormattedValue(v, spec) => {
                self.expr(*v)?;
                if let Some(s) = spec {
                    self.expr(*s)?;
                }
            }
            ExprKind::Attribute(v, _) | ExprKind::Starred(v) => self.expr(*v)?,
            ExprKind::UnaryOp { operand, .. } => self.expr(*operand)?,
            ExprKind::Subscript(a, b) | ExprKind::BinOp(a, b) => {
                self.expr(*a)?;
                self.expr(*b)?;
            }
            ExprKind::Call(node) => {
                let CallExpr { func, args, keywords } = &**node;
                self.expr(*func)?;
                self.exprs(args)?;
                for k in keywords {
                    self.expr(k.value)?;
                }
            }
            ExprKind::Compare(node) => {
                let CompareExpr { left, comparators, .. } = &**node;
                self.expr(*left)?;
                self.exprs(comparators)?;
            }
            ExprKind::Lambda { params, body } => {
                self.exprs(&params.defaults)?;
                self.exprs(&params.kw_defaults)?;
                self.enter(Block::Function);
                self.params(params.all())?;
                self.expr(*body)?;
                self.exit();
            }
            ExprKind::IfExp { test, body, orelse } => {
                self.expr(*test)?;
                self.expr(*body)?;
                self.expr(*orelse)?;
            }
            ExprKind::Dict(node) => {
                let DictExpr { keys, values } = &**node;
                for k in keys.iter().flatten() {
                    self.expr(*k)?;
                }
                self.exprs(values)?;
            }
            ExprKind::ListComp(elt, gens) => self.comprehension(id, Comp::List, gens, *elt, None)?,
            ExprKind::SetComp(elt, gens) => self.comprehension(id, Comp::Set, gens, *elt, None)?,
            ExprKind::GeneratorExp(elt, gens) => self.comprehension(id, Comp::Generator, gens, *elt, None)?,
            ExprKind::DictComp(node) => {
                let (k, v, gens) = &**node;
                self.comprehension(id, Comp::Dict, gens, *k, Some(*v))?
            }
            ExprKind::Yield(v) => {
                self.not_in_type_scope("yield expression", at)?;
                if let Some(v) = v {
                    self.expr(*v)?;
                }
                self.yield_here(at)?;
            }
            ExprKind::YieldFrom(v) => {
                self.not_in_type_scope("yield expression", at)?;
                self.expr(*v)?;
                self.yield_here(at)?;
            }
            ExprKind::Await(v) => {
                self.not_in_type_scope("await expression", at)?;
                self.expr(*v)?;
                self.scope().coroutine = true;
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

    fn yield_here(&mut self, at: TokId) -> Res {
        if let Some(kind) = self.scopes[self.cur()].comprehension {
            let what = match kind {
                Comp::List => "list comprehension",
                Comp::Set => "set comprehension",
                Comp::Dict => "dict comprehension",
                Comp::Generator => "generator expression",
            };
            return Err(self.error(format!("'yield' inside {what}"), at));
        }
        Ok(())
    }

    /// `symtable_handle_comprehension`.
    fn comprehension(
        &mut self,
        _id: ExprId,
        kind: Comp,
        gens: &[Comprehension],
        elt: ExprId,
        value: Option<ExprId>,
    ) -> Res {
        let Some(outermost) = gens.first() else {
            return Ok(());
        };
        self.scope().comp_iter_expr += 1;
        self.expr(outermost.iter)?;
        self.scope().comp_iter_expr -= 1;
        self.enter(Block::Function);
        self.scope().comprehension = Some(kind);
        if outermost.is_async {
            self.scope().coroutine = true;
        }
        self.scope().comp_iter_target = true;
        self.expr(outermost.target)?;
        self.scope().comp_iter_target = false;
        self.exprs(&outermost.ifs)?;
        for g in &gens[1..] {
            self.scope().comp_iter_target = true;
            self.expr(g.target)?;
            self.scope().comp_iter_target = false;
            self.scope().comp_iter_expr += 1;
            self.expr(g.iter)?;
            self.scope().comp_iter_expr -= 1;
            self.exprs(&g.ifs)?;
            if g.is_async {
                self.scope().coroutine = true;
            }
        }
        if let Some(v) = value {
            self.expr(v)?;
        }
        self.expr(elt)?;
        let is_async = self.scopes[self.cur()].coroutine && kind != Comp::Generator;
        self.exit();
        if is_async {
            self.scope().coroutine = true;
        }
        Ok(())
    }

    /// `symtable_extend_namedexpr_scope`: where an assignment expression in a comprehension binds its name.
    fn extend_namedexpr_scope(&mut self, target: ExprId) -> Res {
        let name = self.name_text(self.view.ast.expr(target).first);
        let at = self.at_expr(target);
        for i in (0..self.stack.len()).rev() {
            let sid = self.stack[i];
            let s = &self.scopes[sid];
            if s.comprehension.is_some() {
                let f = s.flags(&self.mangle(name));
                if f & DEF_COMP_ITER != 0 && f & DEF_LOCAL != 0 {
                    return Err(self.error(
                        format!("assignment expression cannot rebind comprehension iteration variable '{name}'"),
                        at,
                    ));
                }
                continue;
            }
            match s.block {
                Block::Function => {
                    let f = s.flags(&self.mangle(name));
                    let flag = if f & DEF_GLOBAL != 0 { DEF_GLOBAL } else { DEF_NONLOCAL };
                    self.add_def(name, flag, at)?;
                    let mangled = self.mangle(name);
                    self.scope().directives.push((mangled.into_owned(), at));
                    return self.add_def_in(sid, name, DEF_LOCAL, at);
                }
                Block::Module => {
                    self.add_def(name, DEF_GLOBAL, at)?;
                    let mangled = self.mangle(name);
                    self.scope().directives.push((mangled.into_owned(), at));
                    return self.add_def_in(sid, name, DEF_GLOBAL, at);
                }
                Block::Class => {
                    return Err(
                        self.error("assignment expression within a comprehension cannot be used in a class body", at)
                    );
                }
                Block::TypeParams => {
                    return Err(self.error(
                        "assignment expression within a comprehension cannot be used within the definition of a generic",
                        at,
                    ));
                }
                Block::TypeAlias => {
                    return Err(
                        self.error("assignment expression within a comprehension cannot be used in a type alias", at)
                    );
                }
                Block::TypeVarBound => {
                    return Err(self
                        .error("assignment expression within a comprehension cannot be used in a TypeVar bound", at));
                }
            }
        }
        Ok(())
    }

    // ------------------------------------------------------------------ name resolution

    /// `analyze_block`: `nonlocal` and `global` conflicts, scope by scope. `bound` holds the names bound in
    /// enclosing functions (`None` at module level); `type_params` the type parameters of enclosing scopes that no
    /// scope in between binds again, which `nonlocal` may not name.
    fn analyze(&self, sid: usize, bound: Option<&NameSet>, type_params: &NameSet) -> Res {
        let s = &self.scopes[sid];
        let mut local = NameSet::default();
        let mut inner_type_params = type_params.clone();
        for (name, flags) in &s.names {
            if flags & DEF_GLOBAL != 0 {
                if flags & DEF_NONLOCAL != 0 {
                    return Err(self.error(format!("name '{name}' is nonlocal and global"), directive(s, name)));
                }
                continue;
            }
            if flags & DEF_NONLOCAL != 0 {
                let Some(bound) = bound else {
                    return Err(self.error("nonlocal declaration not allowed at module level", directive(s, name)));
                };
                if !bound.contains(name) {
                    return Err(self.error(format!("no binding for nonlocal '{name}' found"), directive(s, name)));
                }
                if type_params.contains(name) {
                    let message = format!("nonlocal binding not allowed for type parameter '{name}'");
                    return Err(self.error(message, directive(s, name)));
                }
                continue;
            }
            if flags & DEF_BOUND != 0 {
                if flags & DEF_TYPE_PARAM != 0 {
                    inner_type_params.insert(Rc::clone(name));
                } else {
                    inner_type_params.remove(name);
                }
                // What a function binds matters only to the scopes nested in it.
                if s.is_function_like() && !s.children.is_empty() {
                    local.insert(Rc::clone(name));
                }
            }
        }
        if s.children.is_empty() {
            return Ok(());
        }
        let mut newbound = NameSet::default();
        if s.block == Block::Class {
            if let Some(b) = bound {
                newbound.extend(b.iter().cloned());
            }
            // The methods of a class can name its implicit cells (`super()` uses `__class__`).
            newbound.extend(["__class__", "__classdict__"].map(Rc::from));
        } else {
            if s.is_function_like() {
                newbound.extend(local);
            }
            if let Some(b) = bound {
                newbound.extend(b.iter().cloned());
            }
        }
        for &child in &s.children {
            self.analyze(child, Some(&newbound), &inner_type_params)?;
        }
        Ok(())
    }
}

/// Where the first `global`/`nonlocal` directive for `name` in the scope is.
fn directive(s: &Scope, name: &str) -> TokId {
    s.directives.iter().find(|(n, _)| n == name).map_or(TokId::MAX, |(_, at)| *at)
}
