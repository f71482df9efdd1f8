//! Parameter lists of `def` and `lambda` (the grammar writes them twice; here one set of rules takes a flag), with
//! their `invalid_*` rules: parameter order, `/` and `*` placement, defaults on `*args` and `**kwargs`.

use super::ProblemKind;
use super::ast::{Arg, ExprId, Params, TokId};
use super::parser::Parser;
use super::tokens::Op;

/// Parameters with their default values.
type Defaulted = Vec<(Arg, ExprId)>;

/// A parameter with its default, when it has one.
type WithDefault = (Arg, Option<ExprId>);

impl Parser<'_> {
    /// `params: invalid_parameters | parameters`.
    pub(super) fn params(&mut self) -> Option<Params> {
        self.param_list(false)
    }

    /// `lambda_params: invalid_lambda_parameters | lambda_parameters`.
    pub(super) fn lambda_params(&mut self) -> Option<Params> {
        self.param_list(true)
    }

    fn param_list(&mut self, lambda: bool) -> Option<Params> {
        if self.invalid {
            self.invalid_parameters(lambda);
            if self.failed() {
                return None;
            }
        }
        self.parameters(lambda)
    }

    /// The token that ends a parameter list: `)` for `def`, `:` for `lambda`.
    fn closer(lambda: bool) -> Op {
        if lambda { Op::Colon } else { Op::RPar }
    }

    /// `param ','` or `param &closer`.
    fn param_end(&mut self, lambda: bool) -> Option<()> {
        if self.op(Op::Comma).is_some() {
            return Some(());
        }
        if self.at_op(Self::closer(lambda)) { Some(()) } else { None }
    }

    /// `param: NAME annotation?` (no annotation for `lambda`).
    fn param(&mut self, lambda: bool) -> Option<Arg> {
        let name = self.name()?;
        let annotation = if lambda {
            None
        } else {
            self.alt(|p| {
                p.op(Op::Colon)?;
                p.expression()
            })
        };
        Some(Arg { name, annotation })
    }

    fn param_no_default(&mut self, lambda: bool) -> Option<Arg> {
        self.alt(|p| {
            let a = p.param(lambda)?;
            p.param_end(lambda)?;
            Some(a)
        })
    }

    fn param_with_default(&mut self, lambda: bool) -> Option<(Arg, ExprId)> {
        self.alt(|p| {
            let a = p.param(lambda)?;
            let d = p.default()?;
            p.param_end(lambda)?;
            Some((a, d))
        })
    }

    fn param_maybe_default(&mut self, lambda: bool) -> Option<WithDefault> {
        self.alt(|p| {
            let a = p.param(lambda)?;
            let d = p.alt(Self::default);
            if p.failed() {
                return None;
            }
            p.param_end(lambda)?;
            Some((a, d))
        })
    }

    /// `default: '=' expression | invalid_default`.
    fn default(&mut self) -> Option<ExprId> {
        if let Some(e) = self.alt(|p| {
            p.op(Op::Equal)?;
            p.expression()
        }) {
            return Some(e);
        }
        if self.invalid
            && let Some(a) = self.alt(|p| {
                let a = p.op(Op::Equal)?;
                if p.at_op(Op::RPar) || p.at_op(Op::Comma) { Some(a) } else { None }
            })
        {
            self.raise_at(a, ProblemKind::Syntax, "expected default value expression");
        }
        None
    }

    /// `slash_no_default: param_no_default+ '/' (',' | &closer)`.
    fn slash_no_default(&mut self, lambda: bool) -> Option<Vec<Arg>> {
        self.alt(|p| {
            let v = p.repeat1(|p| p.param_no_default(lambda))?;
            p.op(Op::Slash)?;
            p.param_end(lambda)?;
            Some(v)
        })
    }

    /// `slash_with_default: param_no_default* param_with_default+ '/' (',' | &closer)`.
    fn slash_with_default(&mut self, lambda: bool) -> Option<(Vec<Arg>, Defaulted)> {
        self.alt(|p| {
            let a = p.repeat(|p| p.param_no_default(lambda));
            let b = p.repeat1(|p| p.param_with_default(lambda))?;
            p.op(Op::Slash)?;
            p.param_end(lambda)?;
            Some((a, b))
        })
    }

    fn parameters(&mut self, lambda: bool) -> Option<Params> {
        let mut out = Params::default();
        let fill_star = |out: &mut Params, star: Option<StarEtc>| {
            if let Some(s) = star {
                out.vararg = s.vararg;
                for (a, d) in s.kwonly {
                    out.kwonly.push(a);
                    if let Some(d) = d {
                        out.kw_defaults.push(d);
                    }
                }
                out.kwarg = s.kwarg;
            }
        };
        if let Some(r) = self.alt(|p| {
            let posonly = p.slash_no_default(lambda)?;
            let args = p.repeat(|p| p.param_no_default(lambda));
            let with = p.repeat(|p| p.param_with_default(lambda));
            let star = p.alt(|p| p.star_etc(lambda));
            if p.failed() {
                return None;
            }
            Some((posonly, args, with, star))
        }) {
            let (posonly, args, with, star) = r;
            out.posonly = posonly;
            out.args = args;
            for (a, d) in with {
                out.args.push(a);
                out.defaults.push(d);
            }
            fill_star(&mut out, star);
            return Some(out);
        }
        if let Some(r) = self.alt(|p| {
            let (a, b) = p.slash_with_default(lambda)?;
            let with = p.repeat(|p| p.param_with_default(lambda));
            let star = p.alt(|p| p.star_etc(lambda));
            if p.failed() {
                return None;
            }
            Some((a, b, with, star))
        }) {
            let (a, b, with, star) = r;
            out.posonly = a;
            for (arg, d) in b {
                out.posonly.push(arg);
                out.defaults.push(d);
            }
            for (arg, d) in with {
                out.args.push(arg);
                out.defaults.push(d);
            }
            fill_star(&mut out, star);
            return Some(out);
        }
        if let Some(r) = self.alt(|p| {
            let args = p.repeat1(|p| p.param_no_default(lambda))?;
            let with = p.repeat(|p| p.param_with_default(lambda));
            let star = p.alt(|p| p.star_etc(lambda));
            if p.failed() {
                return None;
            }
            Some((args, with, star))
        }) {
            let (args, with, star) = r;
            out.args = args;
            for (a, d) in with {
                out.args.push(a);
                out.defaults.push(d);
            }
            fill_star(&mut out, star);
            return Some(out);
        }
        if let Some(r) = self.alt(|p| {
            let with = p.repeat1(|p| p.param_with_default(lambda))?;
            let star = p.alt(|p| p.star_etc(lambda));
            if p.failed() {
                return None;
            }
            Some((with, star))
        }) {
            let (with, star) = r;
            for (a, d) in with {
                out.args.push(a);
                out.defaults.push(d);
            }
            fill_star(&mut out, star);
            return Some(out);
        }
        let star = self.alt(|p| p.star_etc(lambda))?;
        fill_star(&mut out, Some(star));
        Some(out)
    }

    /// `star_etc`.
    fn star_etc(&mut self, lambda: bool) -> Option<StarEtc> {
        if self.invalid {
            self.invalid_star_etc(lambda);
            if self.failed() {
                return None;
            }
        }
        if let Some(s) = self.alt(|p| {
            p.op(Op::Star)?;
            let vararg = p.param_no_default(lambda)?;
            let kwonly = p.repeat(|p| p.param_maybe_default(lambda));
            let kwarg = p.alt(|p| p.kwds(lambda));
            if p.failed() {
                return None;
            }
            Some(StarEtc { vararg: Some(vararg), kwonly, kwarg })
        }) {
            return Some(s);
        }
        if !lambda
            && let Some(s) = self.alt(|p| {
                p.op(Op::Star)?;
                let name = p.name()?;
                p.op(Op::Colon)?;
                let annotation = p.star_expression()?;
                p.param_end(false)?;
                let kwonly = p.repeat(|p| p.param_maybe_default(false));
                let kwarg = p.alt(|p| p.kwds(false));
                if p.failed() {
                    return None;
                }
                Some(StarEtc { vararg: Some(Arg { name, annotation: Some(annotation) }), kwonly, kwarg })
            })
        {
            return Some(s);
        }
        if let Some(s) = self.alt(|p| {
            p.op(Op::Star)?;
            p.op(Op::Comma)?;
            let kwonly = p.repeat1(|p| p.param_maybe_default(lambda))?;
            let kwarg = p.alt(|p| p.kwds(lambda));
            if p.failed() {
                return None;
            }
            Some(StarEtc { vararg: None, kwonly, kwarg })
        }) {
            return Some(s);
        }
        let kwarg = self.alt(|p| p.kwds(lambda))?;
        Some(StarEtc { vararg: None, kwonly: Vec::new(), kwarg: Some(kwarg) })
    }

    /// `kwds: invalid_kwds | '**' param_no_default`.
    fn kwds(&mut self, lambda: bool) -> Option<Arg> {
        if self.invalid {
            if let Some(a) = self.alt(|p| {
                p.op(Op::DoubleStar)?;
                p.param(lambda)?;
                p.op(Op::Equal)
            }) {
                self.raise_at(a, ProblemKind::Syntax, "var-keyword argument cannot have default value");
                return None;
            }
            if let Some(a) = self.alt(|p| {
                p.op(Op::DoubleStar)?;
                p.param(lambda)?;
                p.op(Op::Comma)?;
                let a = p.pos as TokId;
                p.param(lambda)?;
                Some(a)
            }) {
                self.raise_at(a, ProblemKind::Syntax, "arguments cannot follow var-keyword argument");
                return None;
            }
            if let Some(a) = self.alt(|p| {
                p.op(Op::DoubleStar)?;
                p.param(lambda)?;
                p.op(Op::Comma)?;
                p.op(Op::Star).or_else(|| p.op(Op::DoubleStar)).or_else(|| p.op(Op::Slash))
            }) {
                self.raise_at(a, ProblemKind::Syntax, "arguments cannot follow var-keyword argument");
                return None;
            }
            if self.failed() {
                return None;
            }
        }
        self.alt(|p| {
            p.op(Op::DoubleStar)?;
            p.param_no_default(lambda)
        })
    }

    fn invalid_star_etc(&mut self, lambda: bool) {
        let closer = Self::closer(lambda);
        if let Some(a) = self.alt(|p| {
            let a = p.op(Op::Star)?;
            if p.op(closer).is_some() {
                return Some(a);
            }
            p.op(Op::Comma)?;
            p.op(closer).or_else(|| p.op(Op::DoubleStar))?;
            Some(a)
        }) {
            if lambda {
                self.raise_last(ProblemKind::Syntax, "named arguments must follow bare *");
            } else {
                self.raise_at(a, ProblemKind::Syntax, "named arguments must follow bare *");
            }
            return;
        }
        if let Some(a) = self.alt(|p| {
            p.op(Op::Star)?;
            p.param(lambda)?;
            p.op(Op::Equal)
        }) {
            self.raise_at(a, ProblemKind::Syntax, "var-positional argument cannot have default value");
            return;
        }
        if let Some(a) = self.alt(|p| {
            p.op(Op::Star)?;
            if p.param_no_default(lambda).is_none() {
                p.op(Op::Comma)?;
            }
            p.repeat(|p| p.param_maybe_default(lambda));
            let a = p.op(Op::Star)?;
            if p.param_no_default(lambda).is_none() {
                p.op(Op::Comma)?;
            }
            Some(a)
        }) {
            self.raise_at(a, ProblemKind::Syntax, "* argument may appear only once");
        }
    }

    fn invalid_parameters(&mut self, lambda: bool) {
        // param_no_default* invalid_parameters_helper a=param_no_default
        if let Some(a) = self.alt(|p| {
            p.repeat(|p| p.param_no_default(lambda));
            let helper =
                p.slash_with_default(lambda).is_some() || !p.repeat(|p| p.param_with_default(lambda)).is_empty();
            if !helper {
                return None;
            }
            let a = p.pos as TokId;
            p.param_no_default(lambda)?;
            Some(a)
        }) {
            self.raise_at(a, ProblemKind::Syntax, "parameter without a default follows parameter with a default");
            return;
        }
        // param_no_default* a='(' param_no_default+ ','? b=')'
        if let Some(a) = self.alt(|p| {
            p.repeat(|p| p.param_no_default(lambda));
            let a = p.op(Op::LPar)?;
            if lambda {
                p.gather(Op::Comma, |p| p.name())?;
            } else {
                p.repeat1(|p| p.param_no_default(lambda))?;
            }
            p.op(Op::Comma);
            p.op(Op::RPar)?;
            Some(a)
        }) {
            let msg = if lambda {
                "Lambda expression parameters cannot be parenthesized"
            } else {
                "Function parameters cannot be parenthesized"
            };
            self.raise_at(a, ProblemKind::Syntax, msg);
            return;
        }
        // a="/" ','
        if let Some(a) = self.alt(|p| {
            let a = p.op(Op::Slash)?;
            p.op(Op::Comma)?;
            Some(a)
        }) {
            self.raise_at(a, ProblemKind::Syntax, "at least one argument must precede /");
            return;
        }
        // (slash_no_default | slash_with_default) param_maybe_default* a='/'
        if let Some(a) = self.alt(|p| {
            if p.slash_no_default(lambda).is_none() {
                p.slash_with_default(lambda)?;
            }
            p.repeat(|p| p.param_maybe_default(lambda));
            p.op(Op::Slash)
        }) {
            self.raise_at(a, ProblemKind::Syntax, "/ may appear only once");
            return;
        }
        // (slash_no_default | slash_with_default)? param_maybe_default* '*' (',' | param_no_default)
        // param_maybe_default* a='/'
        if let Some(a) = self.alt(|p| {
            if p.slash_no_default(lambda).is_none() {
                p.slash_with_default(lambda);
            }
            p.repeat(|p| p.param_maybe_default(lambda));
            p.op(Op::Star)?;
            if p.op(Op::Comma).is_none() {
                p.param_no_default(lambda)?;
            }
            p.repeat(|p| p.param_maybe_default(lambda));
            p.op(Op::Slash)
        }) {
            self.raise_at(a, ProblemKind::Syntax, "/ must be ahead of *");
            return;
        }
        // param_maybe_default+ '/' a='*'
        if let Some(a) = self.alt(|p| {
            p.repeat1(|p| p.param_maybe_default(lambda))?;
            p.op(Op::Slash)?;
            p.op(Op::Star)
        }) {
            self.raise_at(a, ProblemKind::Syntax, "expected comma between / and *");
        }
    }
}

/// What follows `*` in a parameter list.
struct StarEtc {
    vararg: Option<Arg>,
    kwonly: Vec<WithDefault>,
    kwarg: Option<Arg>,
}
