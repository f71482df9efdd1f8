//! A module checked in parts: runs of whole top-level statements, each tokenised, parsed and compiled on its own.
//!
//! CPython's verdict on a module that passes is the verdict on its top-level statements one after the other: the
//! tokenizer starts every top-level statement in the same state (no open bracket or string, indentation 0), the
//! grammar's `statements` rule parses each one without looking past its end (a statement is never continued by the
//! next one: the words that continue a compound statement, `elif`, `else`, `except` and `finally`, and the
//! definition after a decorator, never start a part), and the symbol table and the compiler see nothing of one
//! module-level statement from another except through
//! - `from __future__` imports, which must lead the module: a later part is checked as if it had none, so that any
//!   future import in it is an error, and annotations in it are checked (a postponed annotation is never an error
//!   that a checked one is not);
//! - a module-level `global` statement, which makes earlier uses and assignments of its names errors: a part that
//!   has one does not count as passing.
//!
//! So when every part passes on its own, the module passes. A part that fails on its own proves nothing (its
//! problem may be another part's, or be reported elsewhere by CPython): the caller then checks the whole module,
//! which gives CPython's own problem. Parts are how a large module is checked on several threads
//! ([`parallel::check_in_parallel`]) and how the gate re-checks only the statements an edit touched (`super::incremental`).

use super::compile::{self, Future, View};
use super::parser::Parser;
use super::tokens::Tokens;
use super::{SyntaxProblem, symbols};

/// What a part that passed on its own tells about the module around it (read when a module is checked in parts or
/// an edit re-checked: without the `incremental` feature, only part of it natively and none of it in wasm).
#[derive(Debug, Clone, Copy)]
#[cfg_attr(not(feature = "incremental"), allow(dead_code))]
pub(super) struct Passed {
    /// The part has a module-level `global` statement.
    pub(super) module_global: bool,
    /// The line of its last leading `from __future__` import, 0 when none (always 0 for a later part).
    pub(super) future_line: u32,
}

/// Parses and compiles the tokens of a run of whole top-level statements (or of a whole module). `first`: the run
/// opens the module, so leading `from __future__` imports are allowed in it.
pub(super) fn check(text: &str, tokens: &Tokens, first: bool) -> Result<Passed, SyntaxProblem> {
    let (ast, body) = Parser::new(text, tokens).run()?;
    let view = View { src: text.as_bytes(), toks: &tokens.tokens, line_starts: &tokens.line_starts, ast: &ast };
    let future = if first { compile::future(&view, &body)? } else { Future::default() };
    let module_global = symbols::check(&view, &body)?;
    compile::check(&view, &body, future)?;
    Ok(Passed { module_global, future_line: future.line() })
}

/// The indices of the tokens that start a top-level statement which can be checked apart from the one before it:
/// at indentation 0 at the start of a logical line, not a word that continues a compound statement, and not the
/// definition a decorator line belongs to. The first token of the module is always one.
#[cfg(any(feature = "incremental", not(target_family = "wasm")))]
pub(super) fn statement_starts(toks: &[super::tokens::Token]) -> Vec<usize> {
    use super::tokens::{Kind, Kw, Op};
    let mut starts = Vec::new();
    let mut depth = 0u32;
    let mut line_start = true;
    let mut after_decorator = false;
    for (i, t) in toks.iter().enumerate() {
        match t.kind {
            Kind::Newline => line_start = true,
            Kind::Indent => depth += 1,
            Kind::Dedent => depth = depth.saturating_sub(1),
            Kind::EndMarker => break,
            kind if line_start => {
                line_start = false;
                if depth > 0 {
                    continue;
                }
                let continues = matches!(kind, Kind::Kw(Kw::Elif | Kw::Else | Kw::Except | Kw::Finally));
                if i == 0 || !(continues || after_decorator) {
                    starts.push(i);
                }
                after_decorator = kind == Kind::Op(Op::At);
            }
            _ => {}
        }
    }
    starts
}

/// Checking a large module's parts on several threads (not in wasm, which has one).
#[cfg(not(target_family = "wasm"))]
pub(super) mod parallel {
    use super::super::SyntaxProblem;
    use super::super::tokens::{End, Tokens};
    use super::{Passed, check, statement_starts};

    /// The tokens `toks[from..to]` of a module that tokenised cleanly, as a stream of their own ending with the
    /// module's end marker.
    pub(super) fn part_tokens(whole: &Tokens, from: usize, to: usize) -> Tokens {
        let mut tokens = Vec::with_capacity(to - from + 1);
        tokens.extend_from_slice(&whole.tokens[from..to]);
        tokens.extend(whole.tokens.last().copied());
        Tokens { tokens, end: End::Marker, line_starts: whole.line_starts.clone() }
    }

    /// Below this size a module is checked on one thread: starting threads would cost more than they save.
    const PARALLEL_MIN_BYTES: usize = 24 * 1024;

    /// How many threads a check may use (at most 4), read once.
    fn threads() -> usize {
        static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
        *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(4)))
    }

    /// Checks a large module in parts on several threads: what the first part found when every part passed (then the
    /// module passes); `None` when the module is small, the machine has one processor, the tokenizer did not reach the
    /// end cleanly, or some part did not pass (then only a check of the whole module can tell).
    pub(in crate::gate) fn check_in_parallel(text: &str, tokens: &Tokens) -> Option<Passed> {
        let threads = threads();
        if threads < 2 || text.len() < PARALLEL_MIN_BYTES || tokens.end != End::Marker {
            return None;
        }
        let starts = statement_starts(&tokens.tokens);
        let end = tokens.tokens.len().saturating_sub(1);
        let mut cuts = vec![0];
        for k in 1..threads {
            let target = end * k / threads;
            let at = starts.partition_point(|&s| s < target);
            if let Some(&cut) = starts.get(at)
                && cut > *cuts.last().expect("starts with 0")
                && cut < end
            {
                cuts.push(cut);
            }
        }
        if cuts.len() < 2 {
            return None;
        }
        cuts.push(end);
        let stack = if cfg!(debug_assertions) { 8 << 20 } else { 4 << 20 };
        std::thread::scope(|scope| {
            let later: Vec<_> = cuts[1..]
                .windows(2)
                .map(|w| {
                    let (from, to) = (w[0], w[1]);
                    std::thread::Builder::new()
                        .stack_size(stack)
                        .spawn_scoped(scope, move || check(text, &part_tokens(tokens, from, to), false))
                })
                .collect();
            let passed = |r: Result<Passed, SyntaxProblem>| r.ok().filter(|p| !p.module_global);
            let first = passed(check(text, &part_tokens(tokens, 0, cuts[1]), true));
            let mut all = first.is_some();
            for handle in later {
                // Every thread is joined, whatever the others found.
                all &= handle.ok().and_then(|h| h.join().ok()).and_then(passed).is_some();
            }
            first.filter(|_| all)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::tokens::tokenize;
    use super::parallel::part_tokens;
    use super::*;

    fn starts_of(src: &str) -> Vec<u32> {
        let tokens = tokenize(src);
        statement_starts(&tokens.tokens).into_iter().map(|i| tokens.tokens[i].line).collect()
    }

    #[test]
    fn parts_start_at_statements_that_stand_alone() {
        let src = "import os\n\n@dec\n@dec2\ndef f():\n    if x:\n        pass\n\nif a:\n    pass\nelif b:\n    pass\nelse:\n    pass\ntry:\n    pass\nexcept E:\n    pass\nfinally:\n    pass\nx = (1,\n2)\n# c\nclass K: pass\n";
        assert_eq!(starts_of(src), [1, 3, 9, 15, 21, 24]);
    }

    #[test]
    fn a_module_passes_in_parts_exactly_when_each_part_does() {
        let whole = "x = 1\nglobal x\n";
        let tokens = tokenize(whole);
        let starts = statement_starts(&tokens.tokens);
        let second = part_tokens(&tokens, starts[1], tokens.tokens.len() - 1);
        assert!(check(whole, &second, false).is_ok_and(|p| p.module_global), "a module-level global is told");
        let future = "x = 1\nfrom __future__ import annotations\n";
        let tokens = tokenize(future);
        let starts = statement_starts(&tokens.tokens);
        let second = part_tokens(&tokens, starts[1], tokens.tokens.len() - 1);
        assert!(check(future, &second, false).is_err(), "a later part may not import from __future__");
        assert!(check(future, &tokenize(future), true).is_err());
    }
}
