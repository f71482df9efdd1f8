//! The syntax tree the gate's parser builds: CPython's AST, reduced to what the compile-stage checks and the error
//! messages need. Nodes live in arenas and refer to each other (and to tokens) by index; spans are token indices.

/// Index of an expression in [`Ast::exprs`].
pub(super) type ExprId = u32;
/// Index of a statement in [`Ast::stmts`].
pub(super) type StmtId = u32;
/// Index of a pattern in [`Ast::patterns`].
pub(super) type PatId = u32;
/// Index of a token.
pub(super) type TokId = u32;
/// A node's list of children: a boxed slice is two words where a `Vec` is three, and holds no spare capacity.
pub(super) type List<T> = Box<[T]>;

/// Load, store or delete (CPython's `expr_context`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ctx {
    Load,
    Store,
    Del,
}

/// Constants, by what the error messages call them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Const {
    True,
    False,
    None,
    Ellipsis,
    Number,
    /// A string literal (possibly concatenated); `bytes` when it is a bytes literal.
    Str {
        bytes: bool,
    },
}

/// Comparison operators (only `in` matters to the checks, the rest are kept for completeness of `Compare`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CmpOp {
    In,
    Other,
}

/// One `for ... in ... if ...` clause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Comprehension {
    pub(super) target: ExprId,
    pub(super) iter: ExprId,
    pub(super) ifs: List<ExprId>,
    pub(super) is_async: bool,
}

/// A keyword argument (`name=value`) or `**value` (no name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Keyword {
    pub(super) name: Option<TokId>,
    pub(super) value: ExprId,
    /// First and last token.
    pub(super) first: TokId,
    pub(super) last: TokId,
}

/// One parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Arg {
    pub(super) name: TokId,
    pub(super) annotation: Option<ExprId>,
}

/// A parameter list (CPython's `arguments`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Params {
    pub(super) posonly: Vec<Arg>,
    pub(super) args: Vec<Arg>,
    pub(super) vararg: Option<Arg>,
    pub(super) kwonly: Vec<Arg>,
    pub(super) kwarg: Option<Arg>,
    pub(super) defaults: Vec<ExprId>,
    pub(super) kw_defaults: Vec<ExprId>,
}

impl Params {
    /// Every parameter, in order.
    pub(super) fn all(&self) -> impl Iterator<Item = &Arg> {
        self.posonly.iter().chain(&self.args).chain(&self.vararg).chain(&self.kwonly).chain(&self.kwarg)
    }
}

/// A call: `func(*args, **keywords)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct CallExpr {
    pub(super) func: ExprId,
    pub(super) args: List<ExprId>,
    pub(super) keywords: List<Keyword>,
}

/// A comparison chain: `left op comparator op comparator ...`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct CompareExpr {
    pub(super) left: ExprId,
    pub(super) ops: List<CmpOp>,
    pub(super) comparators: List<ExprId>,
}

/// A dict display: `None` keys are `**` unpackings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct DictExpr {
    pub(super) keys: List<Option<ExprId>>,
    pub(super) values: List<ExprId>,
}

/// Expression kinds. The kinds with more than a list in them are boxed, so that an expression is 40 bytes (a file
/// of 200,000 assignments keeps 400,000 of them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum ExprKind {
    Name,
    Constant(Const),
    JoinedStr(List<ExprId>),
    FormattedValue(ExprId, Option<ExprId>),
    Attribute(ExprId, TokId),
    Subscript(ExprId, ExprId),
    Starred(ExprId),
    Call(Box<CallExpr>),
    BinOp(ExprId, ExprId),
    UnaryOp { not: bool, operand: ExprId },
    BoolOp(List<ExprId>),
    Compare(Box<CompareExpr>),
    Lambda { params: Box<Params>, body: ExprId },
    IfExp { test: ExprId, body: ExprId, orelse: ExprId },
    Dict(Box<DictExpr>),
    Set(List<ExprId>),
    List(List<ExprId>),
    Tuple(List<ExprId>),
    ListComp(ExprId, List<Comprehension>),
    SetComp(ExprId, List<Comprehension>),
    DictComp(Box<(ExprId, ExprId, List<Comprehension>)>),
    GeneratorExp(ExprId, List<Comprehension>),
    Await(ExprId),
    Yield(Option<ExprId>),
    YieldFrom(ExprId),
    NamedExpr(ExprId, ExprId),
    Slice(Box<(Option<ExprId>, Option<ExprId>, Option<ExprId>)>),
}

// The sizes the boxing above is for (200,000-line answers keep 200,000 statements and 400,000 expressions).
const _: () = assert!(std::mem::size_of::<Expr>() <= 40 && std::mem::size_of::<Stmt>() <= 32);

impl ExprKind {
    /// The `for` clauses of a comprehension or a generator expression.
    pub(super) fn generators(&self) -> Option<&[Comprehension]> {
        match self {
            ExprKind::ListComp(_, g) | ExprKind::SetComp(_, g) | ExprKind::GeneratorExp(_, g) => Some(g),
            ExprKind::DictComp(d) => Some(&d.2),
            _ => None,
        }
    }
}

/// An expression with its span (first and last token, inclusive) and context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Expr {
    pub(super) kind: ExprKind,
    pub(super) first: TokId,
    pub(super) last: TokId,
    pub(super) ctx: Ctx,
}

/// `TypeVar`, `TypeVarTuple` or `ParamSpec`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct TypeParam {
    pub(super) name: TokId,
    pub(super) bound: Option<ExprId>,
}

/// One name of an import: the dotted name's tokens and the `as` name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Alias {
    pub(super) first: TokId,
    pub(super) last: TokId,
    pub(super) asname: Option<TokId>,
}

/// An `except` clause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Handler {
    pub(super) kw: TokId,
    pub(super) type_: Option<ExprId>,
    pub(super) name: Option<TokId>,
    pub(super) body: List<StmtId>,
}

/// One `case` of a `match`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Case {
    pub(super) pattern: PatId,
    pub(super) guard: Option<ExprId>,
    pub(super) body: List<StmtId>,
}

/// A `def` (or `async def`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct FunctionDef {
    pub(super) is_async: bool,
    pub(super) name: TokId,
    pub(super) type_params: List<TypeParam>,
    pub(super) params: Params,
    pub(super) returns: Option<ExprId>,
    pub(super) body: List<StmtId>,
    pub(super) decorators: List<ExprId>,
}

/// A `class`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ClassDef {
    pub(super) name: TokId,
    pub(super) type_params: List<TypeParam>,
    pub(super) bases: List<ExprId>,
    pub(super) keywords: List<Keyword>,
    pub(super) body: List<StmtId>,
    pub(super) decorators: List<ExprId>,
}

/// A `type X[T] = ...` statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct TypeAlias {
    pub(super) name: ExprId,
    pub(super) type_params: List<TypeParam>,
    pub(super) value: ExprId,
}

/// A `for` (or `async for`) loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ForLoop {
    pub(super) is_async: bool,
    pub(super) target: ExprId,
    pub(super) iter: ExprId,
    pub(super) body: List<StmtId>,
    pub(super) orelse: List<StmtId>,
}

/// An `if` or a `while`: a test, a body and an `else`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Conditional {
    pub(super) test: ExprId,
    pub(super) body: List<StmtId>,
    pub(super) orelse: List<StmtId>,
}

/// A `with` (or `async with`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct WithBlock {
    pub(super) is_async: bool,
    pub(super) items: List<(ExprId, Option<ExprId>)>,
    pub(super) body: List<StmtId>,
}

/// A `match`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct MatchStmt {
    pub(super) subject: ExprId,
    pub(super) cases: List<Case>,
}

/// A `try` (or `try` with `except*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct TryStmt {
    pub(super) body: List<StmtId>,
    pub(super) handlers: List<Handler>,
    pub(super) orelse: List<StmtId>,
    pub(super) finalbody: List<StmtId>,
    pub(super) star: bool,
}

/// A `from ... import ...`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ImportFrom {
    pub(super) module: Option<(TokId, TokId)>,
    pub(super) names: List<Alias>,
    pub(super) star: Option<TokId>,
    pub(super) level: u32,
}

/// Statement kinds. Compound statements and imports are boxed, so that a statement is 32 bytes however many
/// lists its largest kind holds (a file of 200,000 assignments keeps 200,000 of them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum StmtKind {
    FunctionDef(Box<FunctionDef>),
    ClassDef(Box<ClassDef>),
    Return(Option<ExprId>),
    Delete(List<ExprId>),
    Assign { targets: List<ExprId>, value: ExprId },
    TypeAlias(Box<TypeAlias>),
    AugAssign { target: ExprId, value: ExprId },
    AnnAssign { target: ExprId, annotation: ExprId, value: Option<ExprId>, simple: bool },
    For(Box<ForLoop>),
    While(Box<Conditional>),
    If(Box<Conditional>),
    With(Box<WithBlock>),
    Match(Box<MatchStmt>),
    Raise { exc: Option<ExprId>, cause: Option<ExprId> },
    Try(Box<TryStmt>),
    Assert { test: ExprId, msg: Option<ExprId> },
    Import(List<Alias>),
    ImportFrom(Box<ImportFrom>),
    Global(List<TokId>),
    Nonlocal(List<TokId>),
    Expr(ExprId),
    Pass,
    Break,
    Continue,
}

/// A statement with its span.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Stmt {
    pub(super) kind: StmtKind,
    pub(super) first: TokId,
    pub(super) last: TokId,
}

/// Pattern kinds (PEP 634).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum PatKind {
    Value(ExprId),
    Singleton,
    Sequence(List<PatId>),
    Mapping { keys: List<ExprId>, patterns: List<PatId>, rest: Option<TokId> },
    Class { cls: ExprId, patterns: List<PatId>, kwd_attrs: List<TokId>, kwd_patterns: List<PatId> },
    Star(Option<TokId>),
    As { pattern: Option<PatId>, name: Option<TokId> },
    Or(List<PatId>),
}

/// A pattern with its span.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Pattern {
    pub(super) kind: PatKind,
    pub(super) first: TokId,
    pub(super) last: TokId,
}

/// Nodes in fixed-size chunks: growing never copies the nodes nor holds two copies at once (a `Vec` doubling its
/// buffer briefly needs three times its length), and no more than one chunk is reserved ahead.
#[derive(Debug)]
pub(super) struct Arena<T> {
    chunks: Vec<Vec<T>>,
    /// Nodes held (read at every alternative the parser tries, so kept rather than computed).
    len: usize,
}

/// Nodes per chunk of an [`Arena`].
const CHUNK: usize = 1 << 10;

impl<T> Default for Arena<T> {
    fn default() -> Self {
        Arena { chunks: Vec::new(), len: 0 }
    }
}

impl<T> Arena<T> {
    /// How many nodes it holds.
    #[cfg_attr(not(target_family = "wasm"), inline(always))]
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Adds a node; its index is the former length.
    fn push(&mut self, node: T) -> u32 {
        let id = self.len as u32;
        self.len += 1;
        match self.chunks.last_mut() {
            Some(last) if last.len() < CHUNK => last.push(node),
            _ => {
                let mut chunk = Vec::with_capacity(CHUNK);
                chunk.push(node);
                self.chunks.push(chunk);
            }
        }
        id
    }

    /// Keeps the first `len` nodes (called after every failed alternative, which mostly added none).
    #[cfg_attr(not(target_family = "wasm"), inline(always))]
    pub(super) fn truncate(&mut self, len: usize) {
        if len < self.len {
            self.drop_from(len);
        }
    }

    fn drop_from(&mut self, len: usize) {
        self.len = len;
        self.chunks.truncate(len.div_ceil(CHUNK));
        if let Some(last) = self.chunks.last_mut() {
            last.truncate(len - (len - 1) / CHUNK * CHUNK);
        }
    }
}

impl<T> std::ops::Index<usize> for Arena<T> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        &self.chunks[i / CHUNK][i % CHUNK]
    }
}

impl<T> std::ops::IndexMut<usize> for Arena<T> {
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self.chunks[i / CHUNK][i % CHUNK]
    }
}

/// The arenas of one parse.
#[derive(Debug, Default)]
pub(super) struct Ast {
    pub(super) exprs: Arena<Expr>,
    pub(super) stmts: Arena<Stmt>,
    pub(super) patterns: Arena<Pattern>,
    /// Statement lists memoised by the parser (blocks), by index.
    pub(super) blocks: Vec<Vec<StmtId>>,
}

impl Ast {
    pub(super) fn expr(&self, id: ExprId) -> &Expr {
        &self.exprs[id as usize]
    }
    pub(super) fn stmt(&self, id: StmtId) -> &Stmt {
        &self.stmts[id as usize]
    }
    pub(super) fn pattern(&self, id: PatId) -> &Pattern {
        &self.patterns[id as usize]
    }
    pub(super) fn add_expr(&mut self, kind: ExprKind, first: TokId, last: TokId) -> ExprId {
        self.exprs.push(Expr { kind, first, last, ctx: Ctx::Load })
    }
    pub(super) fn add_stmt(&mut self, kind: StmtKind, first: TokId, last: TokId) -> StmtId {
        self.stmts.push(Stmt { kind, first, last })
    }
    pub(super) fn add_pattern(&mut self, kind: PatKind, first: TokId, last: TokId) -> PatId {
        self.patterns.push(Pattern { kind, first, last })
    }

    /// CPython's `_PyPegen_set_expr_context`: the context of a target, recursively through tuples, lists and
    /// starred expressions.
    pub(super) fn set_ctx(&mut self, id: ExprId, ctx: Ctx) {
        let mut stack = vec![id];
        while let Some(id) = stack.pop() {
            let e = &mut self.exprs[id as usize];
            e.ctx = ctx;
            match &e.kind {
                ExprKind::Tuple(elts) | ExprKind::List(elts) => stack.extend(elts.iter().copied()),
                ExprKind::Starred(v) => stack.push(*v),
                _ => {}
            }
        }
    }

    /// CPython's `_PyPegen_get_expr_name`: what an error message calls an expression.
    pub(super) fn expr_name(&self, id: ExprId) -> &'static str {
        match &self.expr(id).kind {
            ExprKind::Attribute(..) => "attribute",
            ExprKind::Subscript(..) => "subscript",
            ExprKind::Starred(_) => "starred",
            ExprKind::Name => "name",
            ExprKind::List(_) => "list",
            ExprKind::Tuple(_) => "tuple",
            ExprKind::Lambda { .. } => "lambda",
            ExprKind::Call(_) => "function call",
            ExprKind::BoolOp(_) | ExprKind::BinOp(..) | ExprKind::UnaryOp { .. } => "expression",
            ExprKind::GeneratorExp(..) => "generator expression",
            ExprKind::Yield(_) | ExprKind::YieldFrom(_) => "yield expression",
            ExprKind::Await(_) => "await expression",
            ExprKind::ListComp(..) => "list comprehension",
            ExprKind::SetComp(..) => "set comprehension",
            ExprKind::DictComp(..) => "dict comprehension",
            ExprKind::Dict(_) => "dict literal",
            ExprKind::Set(_) => "set display",
            ExprKind::JoinedStr(_) | ExprKind::FormattedValue(..) => "f-string expression",
            ExprKind::Constant(Const::None) => "None",
            ExprKind::Constant(Const::False) => "False",
            ExprKind::Constant(Const::True) => "True",
            ExprKind::Constant(Const::Ellipsis) => "ellipsis",
            ExprKind::Constant(_) => "literal",
            ExprKind::Compare(_) => "comparison",
            ExprKind::IfExp { .. } => "conditional expression",
            ExprKind::NamedExpr(..) => "named expression",
            ExprKind::Slice(..) => "slice",
        }
    }

    /// CPython's `_PyPegen_get_invalid_target`: the first part of `id` that cannot be assigned to (or deleted).
    pub(super) fn invalid_target(&self, id: ExprId, kind: TargetsKind) -> Option<ExprId> {
        match &self.expr(id).kind {
            ExprKind::List(elts) | ExprKind::Tuple(elts) => elts.iter().find_map(|&e| self.invalid_target(e, kind)),
            ExprKind::Starred(v) => {
                if kind == TargetsKind::Del {
                    Some(id)
                } else {
                    self.invalid_target(*v, kind)
                }
            }
            ExprKind::Compare(node) => {
                let CompareExpr { left, ops, .. } = &**node;
                if kind == TargetsKind::For {
                    if ops.first() == Some(&CmpOp::In) { self.invalid_target(*left, kind) } else { None }
                } else {
                    Some(id)
                }
            }
            ExprKind::Name | ExprKind::Subscript(..) | ExprKind::Attribute(..) => None,
            _ => Some(id),
        }
    }
}

/// Which kind of target an invalid-target message is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TargetsKind {
    Star,
    Del,
    For,
}
