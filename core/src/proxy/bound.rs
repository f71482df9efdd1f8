//! Degenerate answers bounded: which of a round's search calls run.
//!
//! A small model can answer a search request with a hundred calls (Qwen2.5-Coder-1.5B once listed 126,
//! `search_code_in_file("116", "Square.py")`, `("117", ...)`, ...), every one of which would run and be shown to it.
//! [`bound`] decides each call's [`Fate`], in the answer's order:
//!
//! 1. a call given again is run once ([`Fate::Repeat`]), and a call an earlier round of the search ran is not run
//!    again ([`Fate::Answered`]): its result is in the conversation. Small models ask for the same calls round
//!    after round (Qwen2.5-Coder-1.5B: 45 model calls on QuixBugs' one-function kheapsort, most of them
//!    `search_class_in_file("kheapsort", "kheapsort.py")` again), and a round whose calls were all answered before
//!    goes on to the locations it names. ACR runs such calls again; in its recorded GPT-4 run this happens in one
//!    round of 1,197;
//! 2. a call that cannot name anything in the repository is not run ([`Fate::NamesNothing`]): every file, class
//!    and method it names is absent from the index, by the same rules the searcher finds them ([`Names`]: a file by
//!    the [`crate::paths`] policy, a class by its table key, a method or function by name). Code texts are not
//!    names (`search_code("x")` always runs), and a call with one name present runs, so its answer can say what
//!    is missing (`search_method_in_class("area", "Square")` with `area` defined elsewhere);
//! 3. of the rest, the first [`MAX_CALLS_PER_ROUND`] run; the others are over the cap ([`Fate::OverCap`]).
//!
//! The model reads which calls were not run and why ([`NotRun`], worded by [`crate::prompt::text::calls_not_run`]).

use serde::Serialize;

use super::Names;
use crate::api::{MAX_CALLS_PER_ROUND, ParamKind};
use crate::call::{ArgValue, SearchCall};

/// What becomes of one call of a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Fate {
    /// It runs.
    Run,
    /// The same call came earlier in the round, and runs there.
    Repeat,
    /// An earlier round of the search ran the same call: its result is in the conversation.
    Answered,
    /// Every file, class and method it names is absent from the repository.
    NamesNothing,
    /// The round already runs [`MAX_CALLS_PER_ROUND`] calls.
    OverCap,
}

/// Each call's fate, in order (see the module's rules); `answered` are the calls earlier rounds ran.
pub fn bound(calls: &[SearchCall], answered: &[SearchCall], names: &dyn Names) -> Vec<Fate> {
    let mut running = 0;
    calls
        .iter()
        .enumerate()
        .map(|(i, call)| {
            if calls[..i].contains(call) {
                Fate::Repeat
            } else if answered.contains(call) {
                Fate::Answered
            } else if names_nothing(call, names) {
                Fate::NamesNothing
            } else if running == MAX_CALLS_PER_ROUND {
                Fate::OverCap
            } else {
                running += 1;
                Fate::Run
            }
        })
        .collect()
}

/// Whether every file, class and method a call names is absent from the repository (and it names at least one).
pub fn names_nothing(call: &SearchCall, names: &dyn Names) -> bool {
    let named: Vec<bool> = call
        .spec()
        .params
        .iter()
        .zip(call.values())
        .filter_map(|(param, value)| {
            let ArgValue::Text(text) = value else { return None };
            match param.kind {
                ParamKind::Path => Some(names.has_file(text)),
                ParamKind::Name if param.name == "class_name" => Some(names.is_class(text)),
                ParamKind::Name => Some(names.is_callable(text) || names.is_class(text)),
                ParamKind::Code | ParamKind::Number { .. } => None,
            }
        })
        .collect();
    !named.is_empty() && !named.contains(&true)
}

/// The calls of a round that were not run, by why, for the model and the transcript.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NotRun {
    /// Calls that name nothing in the repository.
    pub names_nothing: Vec<SearchCall>,
    /// Calls past the round's cap.
    pub over_cap: Vec<SearchCall>,
    /// Calls given more than once (each ran once).
    pub repeats: usize,
    /// Calls an earlier round ran.
    pub answered: Vec<SearchCall>,
}

impl NotRun {
    /// The calls `fates` (from [`bound`]) did not run.
    pub fn of(calls: &[SearchCall], fates: &[Fate]) -> NotRun {
        let mut not_run = NotRun::default();
        for (call, fate) in calls.iter().zip(fates) {
            match fate {
                Fate::Run => {}
                Fate::Repeat => not_run.repeats += 1,
                Fate::NamesNothing => not_run.names_nothing.push(call.clone()),
                Fate::OverCap => not_run.over_cap.push(call.clone()),
                Fate::Answered => not_run.answered.push(call.clone()),
            }
        }
        not_run
    }

    /// Whether every call ran.
    pub fn is_empty(&self) -> bool {
        self.names_nothing.is_empty() && self.over_cap.is_empty() && self.repeats == 0 && self.answered.is_empty()
    }
}

/// The calls of `calls` that run, in order.
pub fn running(calls: &[SearchCall], fates: &[Fate]) -> Vec<SearchCall> {
    calls.iter().zip(fates).filter(|(_, f)| **f == Fate::Run).map(|(c, _)| c.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::Index;
    use crate::repo::Repo;

    fn index() -> Index {
        let square = "from .shape import Shape\n\nclass Square(Shape):\n    def __init__(self, side):\n        self.side = side\n\n    def area(self):\n        return self.side * 2\n";
        let shape = "class Shape:\n    def area(self):\n        raise NotImplementedError\n";
        Index::build(&Repo::from_files([("shapes/square.py", square), ("shapes/shape.py", shape)]))
    }

    fn calls(texts: &[&str]) -> Vec<SearchCall> {
        texts.iter().map(|t| SearchCall::parse(t).unwrap()).collect()
    }

    /// The case: a call on a file the repository does not have names nothing, whatever it searches for;
    /// the same call on a file it has (by any rule of the paths policy, here ignoring case) runs.
    #[test]
    fn a_call_whose_every_name_is_absent_is_not_run() {
        let index = index();
        let absent = [
            "search_code_in_file(\"116\", \"Circle.py\")",
            "search_class(\"Circle\")",
            "search_method(\"perimeter\")",
            "search_method_in_class(\"perimeter\", \"Circle\")",
            "search_method_in_file(\"perimeter\", \"circle.py\")",
            "search_class_in_file(\"Circle\", \"shapes/circle.py\")",
            "get_code_around_line(\"circle.py\", 3)",
            "get_class_full_snippet(\"Circle\")",
        ];
        for call in calls(&absent) {
            assert!(names_nothing(&call, &index), "{call}");
        }
        let present = [
            "search_code_in_file(\"116\", \"Square.py\")",
            "search_code(\"no such text\")",
            "search_method_in_class(\"area\", \"Circle\")",
            "search_method_in_class(\"perimeter\", \"Square\")",
            "search_method_in_file(\"perimeter\", \"square.py\")",
            "search_method(\"Square\")",
            "get_code_around_line(\"shapes/shape.py\", 2)",
        ];
        for call in calls(&present) {
            assert!(!names_nothing(&call, &index), "{call}");
        }
    }

    /// 126 calls, repeats and absent names among them: each distinct call that names something runs, up to the cap,
    /// in the order given; the rest are told apart by why.
    #[test]
    fn a_round_runs_each_call_once_and_at_most_the_cap() {
        let index = index();
        let mut texts: Vec<String> = vec!["search_class(\"Square\")".into(), "search_class(\"Circle\")".into()];
        texts.extend((116..240).map(|n| format!("search_code_in_file(\"{n}\", \"square.py\")")));
        texts.push("search_class(\"Square\")".into());
        let all: Vec<SearchCall> = texts.iter().map(|t| SearchCall::parse(t).unwrap()).collect();
        assert_eq!(all.len(), 127);
        let fates = bound(&all, &[], &index);
        let run = running(&all, &fates);
        assert_eq!(run.len(), MAX_CALLS_PER_ROUND);
        assert_eq!(run[0], all[0]);
        assert_eq!(run[1], all[2], "the absent call takes no place among those run");
        let not_run = NotRun::of(&all, &fates);
        assert_eq!(not_run.names_nothing, [all[1].clone()]);
        assert_eq!(not_run.over_cap.len(), 124 - (MAX_CALLS_PER_ROUND - 1));
        assert_eq!(not_run.repeats, 1);
        assert_eq!(fates[126], Fate::Repeat);
        let few = calls(&["search_class(\"Square\")", "search_method(\"area\")"]);
        let fates = bound(&few, &[], &index);
        assert!(NotRun::of(&few, &fates).is_empty());
        assert_eq!(running(&few, &fates), few);
    }

    /// A call an earlier round ran is not run again; the others of the round run as before.
    #[test]
    fn a_call_an_earlier_round_ran_is_not_run_again() {
        let index = index();
        let earlier = calls(&["search_class(\"Square\")"]);
        let now = calls(&["search_class(\"Square\")", "search_method(\"area\")"]);
        let fates = bound(&now, &earlier, &index);
        assert_eq!(fates, [Fate::Answered, Fate::Run]);
        let not_run = NotRun::of(&now, &fates);
        assert_eq!(not_run.answered, earlier);
        assert!(!not_run.is_empty());
    }
}
