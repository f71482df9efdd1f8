//! The code an issue names, found in the index: what the reproducer writer needs to import it, and whether the issue
//! shows a call of it to reproduce.
//!
//! An issue writes the code it is about as code: in backticks (`` `lis([4, 1, 5])` ``, `` `Square.area` ``) or as
//! a call (`gcd(13, 13)`). Each such name that the index defines in a few places at most is a [`Place`]: its kind,
//! its class and its file. The reproducer request lists them, so that a model that never saw the repository's
//! layout imports from the module that defines the code rather than guessing (Qwen2.5-Coder-1.5B wrote
//! `from repository import lis` for a repository whose only file is `lis.py`, three times).

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::index::{DefKind, Index, Span};

/// A name the issue writes as code, defined at most this many times in the repository: more, and it says little.
pub const MAX_DEFINITIONS: usize = 3;

/// At most this many places are listed.
pub const MAX_PLACES: usize = 8;

/// Where one name the issue mentions is defined.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Place {
    /// The file, as the index has it.
    pub file: String,
    /// The `def`/`class` line.
    pub line: u32,
    /// Class, method or function.
    pub kind: DefKind,
    /// The name, with its class for a method (`Square.area`).
    pub name: String,
}

impl Place {
    /// The module a Python file is imported as from the repository's root (`pkg/mod.py` → `pkg.mod`, a package's
    /// `__init__.py` → the package); `None` for other files and for names Python cannot import.
    pub fn python_module(&self) -> Option<String> {
        let stem = self.file.strip_suffix(".py")?;
        let stem = stem.strip_suffix("/__init__").unwrap_or(stem);
        let parts: Vec<&str> = stem.split('/').collect();
        let importable = |p: &&str| {
            p.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
                && p.chars().all(|c| c.is_alphanumeric() || c == '_')
        };
        (!stem.is_empty() && parts.iter().all(importable)).then(|| parts.join("."))
    }

    /// The name a script imports to reach this place: the function or class, a method's class.
    pub fn importable_name(&self) -> &str {
        self.name.split_once('.').map_or(self.name.as_str(), |(class, _)| class)
    }
}

/// The places of the names the issue writes as code, in the order the issue first names them, then by file and line.
pub fn places(issue: &str, index: &Index) -> Vec<Place> {
    let names = names_written_as_code(issue);
    let methods = methods_named(index, &names);
    let mut out: Vec<Place> = Vec::new();
    for name in &names {
        let found = definitions(index, name, methods.get(name.as_str()).map_or(&[], Vec::as_slice));
        if found.is_empty() || found.len() > MAX_DEFINITIONS {
            continue;
        }
        for place in found {
            if out.len() == MAX_PLACES {
                return out;
            }
            if !out.contains(&place) {
                out.push(place);
            }
        }
    }
    out
}

/// The methods called one of `names`, with their classes: one pass over the class table, whatever the number of
/// names (an issue can write thousands). A name with more than [`MAX_DEFINITIONS`] is left out anyway, so no more
/// are kept.
fn methods_named<'i>(index: &'i Index, names: &[String]) -> HashMap<&'i str, Vec<(&'i str, Span)>> {
    let wanted: HashSet<&str> = names.iter().map(String::as_str).collect();
    let mut out: HashMap<&str, Vec<(&str, Span)>> = HashMap::new();
    for (class, table) in &index.class_methods {
        for (name, spans) in table {
            if wanted.contains(&**name) {
                let kept = out.entry(&**name).or_default();
                let room = (MAX_DEFINITIONS + 1).saturating_sub(kept.len());
                kept.extend(spans.iter().take(room).map(|s| (&**class, *s)));
            }
        }
    }
    out
}

/// Every class, function and method the index defines as `name`, by file and line.
pub fn defined(name: &str, index: &Index) -> Vec<Place> {
    let methods = methods_named(index, &[name.to_string()]);
    definitions(index, name, methods.get(name).map_or(&[], Vec::as_slice))
}

/// Every class, function and method (`methods`: its class and span) called `name`, by file and line.
fn definitions(index: &Index, name: &str, methods: &[(&str, Span)]) -> Vec<Place> {
    let place = |kind: DefKind, name: String, span: &Span| Place {
        file: index.path(span.file).to_string(),
        line: span.start,
        kind,
        name,
    };
    let mut found: BTreeSet<Place> = BTreeSet::new();
    for span in index.classes.get(name).into_iter().flatten() {
        found.insert(place(DefKind::Class, name.to_string(), span));
    }
    for span in index.functions.get(name).into_iter().flatten() {
        found.insert(place(DefKind::Function, name.to_string(), span));
    }
    for (class, span) in methods {
        found.insert(place(DefKind::Method, format!("{class}.{name}"), span));
    }
    found.into_iter().collect()
}

/// The identifiers the issue writes as code, each once, in order: every identifier inside a backtick span, and
/// every identifier directly followed by `(`. Words of one letter and Python's keywords are left out.
pub fn names_written_as_code(issue: &str) -> Vec<String> {
    distinct(words(issue).filter(|w| w.in_code || w.called))
}

/// The identifiers the issue calls inside code (a backtick span or a fenced block: `` `rpn_eval([3.0, '+'])` ``),
/// each once, in order: what a script can run as the issue shows it.
pub fn names_called_in_code(issue: &str) -> Vec<String> {
    distinct(words(issue).filter(|w| w.in_code && w.called))
}

/// The first function, class or method the issue calls inside code that the index defines in a few places at most: the
/// issue shows how to run the code it is about, so it can be reproduced whatever a model answers.
pub fn call_shown(issue: &str, index: &Index) -> Option<Place> {
    let names = names_called_in_code(issue);
    let methods = methods_named(index, &names);
    names.iter().find_map(|name| {
        let found = definitions(index, name, methods.get(name.as_str()).map_or(&[], Vec::as_slice));
        (found.len() <= MAX_DEFINITIONS).then(|| found.into_iter().next()).flatten()
    })
}

/// An identifier of the issue's text, where it stands.
struct Word<'t> {
    text: &'t str,
    /// Inside a backtick span or a fenced block.
    in_code: bool,
    /// Directly followed by `(`.
    called: bool,
}

/// The identifiers of `issue` (words of one letter and Python's keywords left out), in order.
fn words(issue: &str) -> impl Iterator<Item = Word<'_>> {
    let chars: Vec<(usize, char)> = issue.char_indices().collect();
    let mut in_code = false;
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < chars.len() {
            let (at, c) = chars[i];
            if c == '`' {
                in_code = !in_code;
                i += 1;
                continue;
            }
            if !(c.is_alphabetic() || c == '_') || (i > 0 && is_word_char(chars[i - 1].1)) {
                i += 1;
                continue;
            }
            let mut j = i;
            while j < chars.len() && is_word_char(chars[j].1) {
                j += 1;
            }
            let end = chars.get(j).map_or(issue.len(), |(k, _)| *k);
            let text = &issue[at..end];
            let called = chars.get(j).is_some_and(|(_, c)| *c == '(');
            i = j;
            if text.chars().count() > 1 && !KEYWORDS.contains(&text) {
                return Some(Word { text, in_code, called });
            }
        }
        None
    })
}

/// The words' texts, each once, in order.
fn distinct<'t>(words: impl Iterator<Item = Word<'t>>) -> Vec<String> {
    let mut seen = BTreeSet::new();
    words.filter(|w| seen.insert(w.text)).map(|w| w.text.to_string()).collect()
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Words that are code but never a definition's name.
const KEYWORDS: [&str; 24] = [
    "and", "as", "assert", "class", "def", "del", "elif", "else", "False", "for", "from", "if", "import", "in", "is",
    "lambda", "None", "not", "or", "print", "return", "self", "True", "with",
];

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::Repo;

    /// An index of the files given (path, text).
    pub(crate) fn index(files: &[(&str, &str)]) -> Index {
        Index::build(&Repo::from_files(files.iter().map(|(p, t)| (*p, t.as_bytes()))))
    }

    #[test]
    fn names_in_backticks_and_calls() {
        let issue = "`lis([4, 1, 5])` returns `2`; calling gcd(13, 13) or `Square.area` fails.\nSee the docs (if any).";
        assert_eq!(names_written_as_code(issue), ["lis", "gcd", "Square", "area"]);
    }

    #[test]
    fn calls_shown_in_code() {
        let issue = "Calling gcd(13, 13) fails; `rpn_eval([3.0, '+'])` and `Square.area` too.\n\n```python\n>>> flatten([[1]])\n```\n";
        assert_eq!(names_called_in_code(issue), ["rpn_eval", "flatten"]);
        let idx = index(&[
            ("rpn_eval.py", "def rpn_eval(tokens):\n    return 0\n"),
            ("flatten.py", "def flatten(arr):\n    return arr\n"),
        ]);
        let shown = call_shown(issue, &idx).map(|p| (p.name, p.file));
        assert_eq!(shown, Some(("rpn_eval".to_string(), "rpn_eval.py".to_string())));
        assert_eq!(call_shown("`gcd` is wrong, see gcd(13, 13)", &idx), None, "no call inside code");
        assert_eq!(call_shown("`missing(1)` fails", &idx), None, "nothing the repository defines");
    }

    #[test]
    fn names_found_in_the_index_with_their_files() {
        let idx = index(&[
            ("lis.py", "def lis(arr):\n    return 0\n"),
            ("shapes/square.py", "class Square:\n    def area(self):\n        return 1\n"),
            ("shapes/circle.py", "class Circle:\n    def area(self):\n        return 2\n"),
        ]);
        let found = places("`lis([1])` is wrong, and so is `Square(3).area()`; `missing()` too.", &idx);
        let shown: Vec<(&str, &str, DefKind)> =
            found.iter().map(|p| (p.name.as_str(), p.file.as_str(), p.kind)).collect();
        assert_eq!(
            shown,
            [
                ("lis", "lis.py", DefKind::Function),
                ("Square", "shapes/square.py", DefKind::Class),
                ("Circle.area", "shapes/circle.py", DefKind::Method),
                ("Square.area", "shapes/square.py", DefKind::Method),
            ]
        );
    }

    #[test]
    fn a_name_defined_in_many_places_is_left_out() {
        let files: Vec<(String, String)> =
            (0..=MAX_DEFINITIONS).map(|i| (format!("m{i}.py"), "def run():\n    pass\n".to_string())).collect();
        let refs: Vec<(&str, &str)> = files.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
        assert!(places("`run()` crashes", &index(&refs)).is_empty());
    }
}
