//! Arguments written in the wrong order, put right.
//!
//! Models sometimes swap two arguments: `search_method_in_file("text.py", "UserWarning")`, or
//! `search_method_in_class("Plot", "_plot")` where `Plot` is the class. Run as written, such a call finds nothing,
//! and the round is spent. [`reorder`] swaps the first two arguments when the evidence is clear:
//!
//! - by their kinds ([`crate::api::ParamKind`]): a path parameter received something that is not a path while the
//!   name or code parameter before it received one (`.py`, or a `/` with no spaces);
//! - against the index ([`Names`]): a class parameter received a name that is no class, while the method parameter
//!   received the name of a class that has (or inherits nothing and is next to) a method of the other name.
//!
//! When neither holds, the call is left as written.
//!
//! One call is also read as the call that was meant ([`retarget`]): `search_method_in_class` given a file where the
//! class goes (`search_method_in_class("kheapsort", "kheapsort.py")`, as Qwen2.5-Coder-1.5B wrote it round after
//! round) is `search_method_in_file`. No class is called `kheapsort.py`, so the call as written names nothing.
//! Likewise, against the index, a class search for a name that is no class but a function or method
//! (`search_class("gcd")`, asked round after round of a module holding `def gcd`) is that name's function search,
//! in the file when one was given; and a search in a file that the repository does not have, for a function or
//! class it does have (`search_method_in_file("powerset", "src/your_module.py")`, Qwen2.5-Coder-1.5B's guess of a
//! path), is the search for that name everywhere.

use crate::api::ParamKind;
use crate::call::{ArgValue, SearchCall};
use crate::index::{DefKind, Index};
use crate::language::Language;
use crate::locate::Query;
use crate::paths::{self, Rule};

/// What the index knows about names.
pub trait Names {
    /// Whether a class of this name is defined.
    fn is_class(&self, name: &str) -> bool;
    /// Whether a function or method of this name is defined anywhere.
    fn is_callable(&self, name: &str) -> bool;
    /// Whether the class defines a method of this name.
    fn class_has(&self, class: &str, method: &str) -> bool;
    /// Whether a file name means some indexed file, as the searcher reads file names (the [`crate::paths`] policy,
    /// to its last resort).
    fn has_file(&self, name: &str) -> bool;
    /// Whether a bug location names real code, each of its parts in one place: the file is one indexed file, the
    /// class is defined (in that file, when one is given), the method is defined (in that class and file, when they
    /// are given). A name the index does not hold, or a file name that fits several files, is not confirmed.
    fn confirms(&self, location: &Query) -> bool;
}

impl Names for Index {
    fn is_class(&self, name: &str) -> bool {
        self.class_key(name).is_some()
    }

    fn is_callable(&self, name: &str) -> bool {
        self.functions.contains_key(name) || self.class_methods.values().any(|m| m.contains_key(name))
    }

    fn class_has(&self, class: &str, method: &str) -> bool {
        self.class_key(class).and_then(|key| self.class_methods.get(key)).is_some_and(|m| m.contains_key(method))
    }

    fn has_file(&self, name: &str) -> bool {
        let all: Vec<&str> = self.files.iter().map(|f| f.path.as_str()).collect();
        paths::find(&all, name).is_ok()
    }

    fn confirms(&self, location: &Query) -> bool {
        let file = match location.file.as_deref() {
            None => None,
            Some(name) => {
                let all: Vec<&str> = self.files.iter().map(|f| f.path.as_str()).collect();
                match paths::find(&all, name) {
                    Ok(m) if m.rule != Rule::PartOfName && m.positions.len() == 1 => Some(&self.files[m.positions[0]]),
                    _ => return false,
                }
            }
        };
        let class = match location.class.as_deref() {
            None => None,
            Some(name) => match self.class_key(name) {
                Some(key) => Some(&**key),
                None => return false,
            },
        };
        let own = |key: &str| key.rsplit('.').next().unwrap_or(key).to_string();
        if let (Some(file), Some(key)) = (file, class)
            && !file.defs.iter().any(|d| d.kind == DefKind::Class && *d.name == *own(key))
        {
            return false;
        }
        let Some(method) = location.method.as_deref() else { return true };
        match (file, class) {
            (Some(file), class) => file.defs.iter().any(|d| {
                &*d.name == method
                    && match class {
                        Some(key) => {
                            d.kind == DefKind::Method && d.class.as_deref().is_some_and(|c| own(c) == own(key))
                        }
                        None => d.kind != DefKind::Class,
                    }
            }),
            (None, Some(key)) => self.class_has(key, method),
            (None, None) => self.is_callable(method),
        }
    }
}

fn looks_like_path(text: &str) -> bool {
    let t = text.trim();
    Language::of_path(t).is_some() || (t.contains('/') && !t.contains(char::is_whitespace))
}

/// The call with its first two arguments swapped, when they were clearly written in the wrong order.
pub fn reorder(call: &SearchCall, names: Option<&dyn Names>) -> Option<SearchCall> {
    let spec = call.spec();
    let values = call.values();
    let (ArgValue::Text(first), ArgValue::Text(second)) = (*values.first()?, *values.get(1)?) else { return None };
    let (p0, p1) = (spec.params[0], spec.params[1]);
    let swap = match (p0.kind, p1.kind) {
        (ParamKind::Name | ParamKind::Code, ParamKind::Path) => looks_like_path(first) && !looks_like_path(second),
        (ParamKind::Name, ParamKind::Name) if p0.name == "method_name" && p1.name == "class_name" => {
            let names = names?;
            !names.is_class(second)
                && names.is_class(first)
                && (names.class_has(first, second) || names.is_callable(second))
        }
        _ => false,
    };
    if swap { call.swapped() } else { None }
}

/// The call that was meant, when the call as written names nothing: `search_method_in_class` given a file for its
/// class (either argument) is `search_method_in_file` with the other argument as the method; with the index,
/// `search_class` and `search_class_in_file` of a name that no class has but a function or method has are
/// `search_method` and `search_method_in_file`, and `search_method_in_file` and `search_class_in_file` given a file
/// that no file of the repository fits, for a name it defines, are `search_method` and `search_class`. `None` for
/// every other call.
pub fn retarget(call: &SearchCall, names: Option<&dyn Names>) -> Option<SearchCall> {
    let callable_only = |name: &str| names.is_some_and(|n| !n.is_class(name) && n.is_callable(name));
    let no_file = |file: &str| names.is_some_and(|n| !n.has_file(file));
    let (method_name, class_name) = match call {
        SearchCall::SearchMethodInClass { method_name, class_name } => (method_name, class_name),
        SearchCall::SearchClass { class_name } if callable_only(class_name) => {
            return Some(SearchCall::SearchMethod { method_name: class_name.clone() });
        }
        SearchCall::SearchClassInFile { class_name, file_name } if callable_only(class_name) => {
            let method_name = class_name.clone();
            return Some(if no_file(file_name) {
                SearchCall::SearchMethod { method_name }
            } else {
                SearchCall::SearchMethodInFile { method_name, file_name: file_name.clone() }
            });
        }
        SearchCall::SearchClassInFile { class_name, file_name }
            if no_file(file_name) && names.is_some_and(|n| n.is_class(class_name)) =>
        {
            return Some(SearchCall::SearchClass { class_name: class_name.clone() });
        }
        SearchCall::SearchMethodInFile { method_name, file_name }
            if no_file(file_name) && names.is_some_and(|n| n.is_callable(method_name)) =>
        {
            return Some(SearchCall::SearchMethod { method_name: method_name.clone() });
        }
        _ => return None,
    };
    let (method, file) = match (looks_like_path(method_name), looks_like_path(class_name)) {
        (false, true) => (method_name, class_name),
        (true, false) => (class_name, method_name),
        _ => return None,
    };
    Some(SearchCall::SearchMethodInFile { method_name: method.clone(), file_name: file.clone() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repo::Repo;

    fn call(text: &str) -> SearchCall {
        SearchCall::parse(text).unwrap()
    }

    #[test]
    fn kinds_show_a_path_in_the_wrong_place() {
        let fixed = reorder(&call("search_method_in_file(\"text.py\", \"UserWarning\")"), None).unwrap();
        assert_eq!(fixed.to_string(), "search_method_in_file(\"UserWarning\", \"text.py\")");
        assert_eq!(reorder(&call("search_method_in_file(\"run\", \"app.py\")"), None), None);
        assert_eq!(reorder(&call("search_code_in_file(\"a/b.py\", \"c/d.py\")"), None), None, "both paths");
    }

    #[test]
    fn a_file_given_for_the_class_means_the_method_in_that_file() {
        let read = |text: &str| retarget(&call(text), None).map(|c| c.to_string());
        let meant = Some("search_method_in_file(\"kheapsort\", \"kheapsort.py\")".to_string());
        assert_eq!(read("search_method_in_class(\"kheapsort\", \"kheapsort.py\")"), meant);
        assert_eq!(read("search_method_in_class(\"kheapsort.py\", \"kheapsort\")"), meant);
        assert_eq!(read("search_method_in_class(\"area\", \"Square\")"), None);
        assert_eq!(read("search_method_in_class(\"a.py\", \"b.py\")"), None);
        assert_eq!(read("search_method(\"kheapsort.py\")"), None);
    }

    #[test]
    fn a_search_of_the_wrong_kind_or_in_no_file_is_the_search_meant() {
        let repo = Repo::from_files([("gcd.py", "def gcd(a, b):\n    return a\n\nclass Euclid:\n    pass\n")]);
        let index = Index::build(&repo);
        let read = |text: &str| retarget(&call(text), Some(&index)).map(|c| c.to_string());
        assert_eq!(read("search_class(\"gcd\")").as_deref(), Some("search_method(\"gcd\")"));
        assert_eq!(
            read("search_class_in_file(\"gcd\", \"gcd.py\")").as_deref(),
            Some("search_method_in_file(\"gcd\", \"gcd.py\")")
        );
        assert_eq!(read("search_class(\"Euclid\")"), None, "a class stays a class search");
        assert_eq!(
            read("search_method_in_file(\"gcd\", \"src/your_module.py\")").as_deref(),
            Some("search_method(\"gcd\")"),
            "a file the repository does not have"
        );
        assert_eq!(
            read("search_class_in_file(\"Euclid\", \"math/euclid.py\")").as_deref(),
            Some("search_class(\"Euclid\")")
        );
        assert_eq!(
            read("search_class_in_file(\"gcd\", \"lib.py\")").as_deref(),
            Some("search_method(\"gcd\")"),
            "a function, in no file"
        );
        assert_eq!(read("search_method_in_file(\"gcd\", \"gcd.py\")"), None, "the call as meant");
        assert_eq!(read("search_method_in_file(\"lcm\", \"lib.py\")"), None, "nothing to search for anywhere");
        assert_eq!(read("search_class(\"lcm\")"), None, "a name the index does not hold is left as written");
        assert_eq!(retarget(&call("search_class(\"gcd\")"), None), None, "without the index nothing is guessed");
    }

    #[test]
    fn the_index_shows_a_class_given_as_the_method() {
        let repo = Repo::from_files([("plot.py", "class Plot:\n    def _plot(self):\n        pass\n")]);
        let index = Index::build(&repo);
        let swapped = call("search_method_in_class(\"Plot\", \"_plot\")");
        let fixed = reorder(&swapped, Some(&index)).unwrap();
        assert_eq!(fixed.to_string(), "search_method_in_class(\"_plot\", \"Plot\")");
        assert_eq!(reorder(&fixed, Some(&index)), None, "the right order stays");
        assert_eq!(reorder(&swapped, None), None, "without the index nothing is guessed");
        let unknown = call("search_method_in_class(\"Other\", \"_plot\")");
        assert_eq!(reorder(&unknown, Some(&index)), None);
    }

    #[test]
    fn a_location_is_confirmed_only_when_every_part_is_in_one_place() {
        let repo = Repo::from_files([
            ("pkg/core.py", "class Plot:\n    def use(self):\n        pass\n\ndef helper():\n    pass\n"),
            ("pkg/other/core.py", "class Other:\n    pass\n"),
            ("pkg/plots.py", "class Chart:\n    def use(self):\n        pass\n"),
        ]);
        let index = Index::build(&repo);
        let q = |f: Option<&str>, c: Option<&str>, m: Option<&str>| Query::new(f, c, m);
        assert!(index.confirms(&q(Some("pkg/core.py"), Some("Plot"), Some("use"))));
        assert!(index.confirms(&q(Some("plots.py"), None, Some("use"))));
        assert!(index.confirms(&q(None, Some("Plot"), Some("use"))));
        assert!(index.confirms(&q(Some("pkg/core.py"), None, Some("helper"))));
        assert!(!index.confirms(&q(Some("core.py"), None, None)), "two files are called core.py");
        assert!(!index.confirms(&q(Some("pkg/core.py"), Some("Chart"), None)), "Chart is in another file");
        assert!(!index.confirms(&q(None, Some("Plot"), Some("helper"))), "helper is no method of Plot");
        assert!(!index.confirms(&q(None, Some("py"), Some("use"))), "no class py");
        assert!(!index.confirms(&q(Some("pkg/plots.py"), None, Some("init"))));
    }
}
