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

use crate::api::ParamKind;
use crate::call::{ArgValue, SearchCall};
use crate::index::Index;

/// What the index knows about names.
pub trait Names {
    /// Whether a class of this name is defined.
    fn is_class(&self, name: &str) -> bool;
    /// Whether a function or method of this name is defined anywhere.
    fn is_callable(&self, name: &str) -> bool;
    /// Whether the class defines a method of this name.
    fn class_has(&self, class: &str, method: &str) -> bool;
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
}

fn looks_like_path(text: &str) -> bool {
    let t = text.trim();
    t.ends_with(".py") || (t.contains('/') && !t.contains(char::is_whitespace))
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
}
