//! Bug locations written as prose, and the shape of a prose answer.
//!
//! Asked "where are bug locations?", models mostly answer in a labelled outline:
//!
//! ```text
//! - where are bug locations:
//!   - File: `astropy/io/fits/fitsrec.py`
//!     - Method: `_scale_back_ascii` in class `FITS_rec`
//!   - **File**: `django/forms/widgets.py`, **Method**: `Media.merge`
//!   - Buggy methods:
//!     - `_line_type`: needs to ignore case.
//! ```
//!
//! [`locations`] reads that section line by line: `File`/`Class`/`Method` labels (and their usual variants: `Buggy
//! file`, `Methods`, `Function`...), values in backticks or bare, lists (`` `a`, `b` and `c` ``), a class given
//! after a method (`` `m` in class `C` ``, `` `m` of the `C` class ``), `Class.method` in one value, items under a
//! `Methods:` label, and a path at the start of an item (`` - `pkg/mod.py`: ... ``). Explanations after a value or on
//! their own lines become the location's intended behaviour.
//!
//! It is strict on purpose: a line it cannot place (a file named in a sentence, a class mentioned next to the word
//! "method", a name it might be missing) makes the whole reading fail, and the agent asks the proxy model instead.
//! A reading that placed every line is checked once more ([`unnamed`]): a path, a name said to be a method or class,
//! a `Class.method` or a dunder name anywhere in the section that the reading lacks (a method and its class in a
//! sentence under a file read alone) leaves it incomplete, and so does a request for more context made in words
//! ([`asks_for_more`]).
//! Checked against AutoCodeRover's recorded proxy rounds (see `core/tests/replay_proxy_rounds.rs`).

use std::sync::LazyLock;

use regex_lite::Regex;

use super::location::{LocationSpec, is_path};
use crate::language::Language;

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("the patterns in this module are valid")
}

/// `pattern` with each `{ext}` standing for the extension of any language of the build ([`Language::ALL`]).
fn re_ext(pattern: &str) -> Regex {
    re(&pattern.replace("{ext}", &Language::extension_pattern()))
}

/// The heading of the locations section.
static HEADING: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)where\s+are\s+(?:the\s+)?bug\s+locations?|bug\s+locations?\s*(?:are|is)?\s*(?:as\s+follows)?\s*:|buggy\s+(?:files|locations)",
    )
});
/// A "need more context" heading (the first half of the decide answer).
static CONTEXT_HEADING: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)need\s+(?:more|additional|further)\s+context"));
/// Words that say a bug location is being named.
static NAMES_A_BUG: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)bug\s+locations?|\bbuggy\b|\bthe\s+bug\s+(?:is|lies|resides|seems|appears)"));
static BULLET: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*(?:[-*+•]|\d+[.)])\s+"));
static LABEL: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^\s*(?:[-*+•]|\d+[.)])?\s*(?:\*\*|__)?\s*(?P<label>[A-Za-z][A-Za-z /()]*?)\s*(?:\*\*|__)?\s*:\s*(?:\*\*)?\s*(?P<rest>.*)$",
    )
});
/// A label after a value on the same line: `, **Method**: ...`. (After the colon only `**` opens bold text: `__`
/// there starts a name such as `__init__`.)
static INLINE_LABEL: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^[,;\-–—]?\s*(?:\*\*|__)?\s*(?P<label>[A-Za-z][A-Za-z /]*?)\s*(?:\*\*|__)?\s*:\s*(?:\*\*)?\s*")
});
static TICKED: LazyLock<Regex> = LazyLock::new(|| re(r"`([^`\n]+)`"));
/// A class named right after a method: `` in class `C` ``, `` of the `C` class ``.
static OWNER: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:(?:method|function)\s+)?(?:in|of|within|from)\s+(?:the\s+)?(?:class\s+)?`(?P<class>[^`]+)`(?:\s+class)?",
    )
});
/// A bare value: a path, or a dotted name, optionally followed by `()`.
static BARE: LazyLock<Regex> = LazyLock::new(|| re_ext(r"^(?P<v>[\w./-]+\.{ext}|[A-Za-z_][\w.]*)(?:\(\))?"));
/// How an explanation after a value may start.
static EXPLANATION_START: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:[,:;.(\-–—]|(?:for|which|that|where|to|as|because|since|is|are|needs?|should|with|responsible|handles?|related|specifically)\b)",
    )
});
/// Words that make a backticked name in an explanation a possible location.
static DEFINITION_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:class|classes|method|methods|function|functions|file|files|attributes?|property|modules?|constructor|initiali[sz]er|setter|getter)\b",
    )
});
/// A backticked name said to be a definition: `` `X` method ``, `` class `X` ``, `` `X`'s ``.
static NAMED_DEFINITION: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)`[^`\n]+`(?:\s+(?:class(?:es)?|methods?|functions?|constructor|attributes?|property|modules?|files?)\b|'s\s)|\b(?:class(?:es)?|methods?|functions?|constructor|files?)\s+`",
    )
});
/// Two or more backticked names in a list: `` `a`, `b` `` or `` `a` and `b` ``.
static NAME_LIST: LazyLock<Regex> = LazyLock::new(|| re(r"`[^`\n]+`\s*(?:,|\band\b|\bor\b)\s*(?:(?:and|or)\s+)?`"));
/// A leading "This file", "These methods", "It" that refers back to the location above.
static BACK_REFERENCE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)^(?:this|these|that|those|its?)\b(?:\s+(?:files?|methods?|functions?|class(?:es)?|locations?|tests?)\b)?")
});
/// "This method in the `C` class ..." right after a method: the class of that method.
static METHOD_OWNER_LINE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^\s*(?:[-*+•]|\d+[.)])?\s*(?:this|the)\s+(?:method|function)\s+(?:is\s+)?(?:in|of|within|from)\s+(?:the\s+)?`(?P<class>[A-Za-z_]\w*)`\s+class\b(?P<rest>.*)$",
    )
});
/// A constructor named as such: `Constructor (`__init__`)`.
static CONSTRUCTOR: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^(?:the\s+)?constructor(?:\s*\(`__init__`\))?\s*[.:]?$"));
/// A code name in a place of a bug-location sentence: a path, or a name with a word that says what it is.
static PLACE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:the\s+)?(?:(?P<kw>file|method|function|class)\s+)?`(?P<name>[^`\n]+)`(?:'s)?(?:\s+(?P<kind>file|method|function|class)\b)?",
    )
});
/// What joins two places of a bug-location sentence.
static JOIN: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:,?\s*(?:and\s+)?(?:more\s+)?(?:specifically|particularly)?,?\s*(?:with)?in\s+(?:the\s+)?(?:implementation\s+of\s+(?:the\s+)?)?|\s+of\s+|,?\s+and\s+(?:its|the)\s+|\s+)",
    )
});
/// The start of a sentence that says where the bug is.
static BUG_IS: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:the\s+)?(?:bugs?|issues?|problem|bug\s+locations?|buggy\s+location)\s+(?:is|are|lies|lie|resides|reside|has\s+been\s+identified\s+as)\s+(?:likely\s+|most\s+likely\s+|specifically\s+)?(?:located\s+|found\s+)?(?:with)?in\s+",
    )
});
/// An item that starts with a path: `` - `pkg/mod.py`: ... `` (of any language the index reads).
static PATH_ITEM: LazyLock<Regex> = LazyLock::new(|| {
    re_ext(r"^\s*(?:[-*+•]|\d+[.)])\s+(?:\*\*)?`?(?P<path>[\w./-]+\.{ext})`?(?:\*\*)?\s*(?::|\s[-–—]\s)(?P<rest>.*)$")
});
/// A file name of a language the index reads.
static PATH: LazyLock<Regex> = LazyLock::new(|| re_ext(r"\w\.{ext}\b"));
/// Words a bare value is never.
const NOT_NAMES: &[&str] = &[
    "the",
    "a",
    "an",
    "none",
    "n/a",
    "not",
    "no",
    "potentially",
    "likely",
    "this",
    "while",
    "within",
    "in",
    "it",
    "there",
    "various",
    "several",
    "multiple",
    "all",
    "any",
    "some",
    "unknown",
    "additionally",
    "however",
    "also",
    "specifically",
    "possibly",
    "moreover",
    "furthermore",
    "currently",
    "both",
    "either",
    "and",
    "or",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    File,
    Class,
    Method,
    /// Functions: methods outside any class.
    Function,
}

/// The kind of a label: `Some(Ok(kind))` for a location label, `Some(Err(()))` for a heading or an explanation
/// label (nothing to read), `None` for anything else.
fn label_kind(label: &str) -> Option<Result<Kind, ()>> {
    let l = label.trim().to_ascii_lowercase();
    let l = l.strip_prefix("buggy ").or_else(|| l.strip_prefix("related ")).unwrap_or(&l);
    Some(Ok(match l {
        "file" | "files" | "file path" | "path" | "filename" | "location" => Kind::File,
        "class" | "classes" | "class name" => Kind::Class,
        "method" | "methods" | "method/function" | "methods/functions" => Kind::Method,
        "function" | "functions" => Kind::Function,
        "files and methods"
        | "files and classes"
        | "file and methods"
        | "files, classes and methods"
        | "where are bug locations"
        | "bug locations"
        | "locations"
        | "do we need more context"
        | "we need more context" => return Some(Err(())),
        "description" | "context" | "reason" | "explanation" | "note" | "notes" | "issue" | "details"
        | "intended behavior" | "intended behaviour" | "why" | "problem" | "analysis" | "fix" | "suggested fix"
        | "potential fix" | "impact" | "purpose" | "role" | "relevance" | "observation" => {
            return Some(Err(()));
        }
        _ => return None,
    }))
}

/// A value (or list of values) read at the start of a text, the class named after it, and the rest of the text.
struct Value<'a> {
    names: Vec<String>,
    owner: Option<String>,
    /// The value was followed by the word `method`/`function` (or `class`): it says what it is.
    said: Option<Kind>,
    rest: &'a str,
}

/// Drops `()` and an argument list from a name: `write()` and `write(self, x)` are `write`.
fn clean_name(name: &str) -> String {
    name.split('(').next().unwrap_or(name).trim().to_string()
}

/// Whether two paths can name the same file: equal, or one ends the other on a `/`.
fn same_file(a: &str, b: &str) -> bool {
    let ends = |long: &str, short: &str| long.strip_suffix(short).is_some_and(|head| head.ends_with('/'));
    a == b || ends(a, b) || ends(b, a)
}

/// Skips `()` and a `method`/`function`/`class` word after a value (saying which it was), then reads a class named
/// after it.
fn after_value(text: &str) -> (Option<String>, Option<Kind>, &str) {
    let mut t = text.trim_start();
    if let Some(rest) = t.strip_prefix("()") {
        t = rest.trim_start();
    }
    let mut said = None;
    for (word, kind) in [
        ("methods", Kind::Method),
        ("method", Kind::Method),
        ("functions", Kind::Method),
        ("function", Kind::Method),
        ("classes", Kind::Class),
        ("class", Kind::Class),
    ] {
        if t.get(..word.len()).is_some_and(|w| w.eq_ignore_ascii_case(word)) {
            let rest = &t[word.len()..];
            if rest.chars().next().is_none_or(|c| !c.is_alphanumeric() && c != '_') {
                t = rest.trim_start();
                said = Some(kind);
                break;
            }
        }
    }
    match OWNER.captures(t) {
        Some(c) => (Some(c["class"].to_string()), said, &t[c.get(0).map_or(0, |m| m.end())..]),
        None => (None, said, t),
    }
}

/// Reads the value at the start of `text`: backticked names (a list joined by `,`/`and`), or one bare name.
fn value(text: &str) -> Option<Value<'_>> {
    let mut s = text.trim().trim_start_matches('*').trim_start();
    // "The `eval` method ..."
    if s.get(..5).is_some_and(|w| w.eq_ignore_ascii_case("the `")) {
        s = &s[4..];
    }
    let mut names = Vec::new();
    let mut owner = None;
    let mut said = None;
    while let Some(inner) = s.strip_prefix('`') {
        let Some(close) = inner.find('`').filter(|&i| !inner[..i].contains('\n')) else { break };
        names.push(inner[..close].to_string());
        let (class, word, rest) = after_value(&inner[close + 1..]);
        said = said.or(word);
        let joined = rest
            .strip_prefix(',')
            .map(|r| r.trim_start())
            .map(|r| r.strip_prefix("and ").unwrap_or(r).trim_start())
            .or_else(|| rest.strip_prefix("and ").map(str::trim_start))
            .or_else(|| rest.strip_prefix('&').map(str::trim_start))
            .filter(|r| r.starts_with('`'));
        match (joined, class) {
            (Some(next), None) => s = next,
            (_, class) => {
                owner = class;
                s = rest;
                break;
            }
        }
    }
    if names.is_empty() {
        let c = BARE.captures(s)?;
        let v = &c["v"];
        if NOT_NAMES.contains(&v.to_ascii_lowercase().as_str()) {
            return None;
        }
        let rest = &s[c.get(0).map_or(0, |m| m.end())..];
        let ends_cleanly = rest.trim().is_empty()
            || rest.trim() == "."
            || rest.trim_start().starts_with([',', ';', '('])
            || rest.starts_with(" - ")
            || rest.starts_with(" – ")
            || rest.starts_with(" — ");
        if !ends_cleanly {
            return None;
        }
        names.push(v.to_string());
        let (class, word, rest) = after_value(rest);
        owner = class;
        said = word;
        s = rest;
    }
    Some(Value { names, owner, said, rest: s.trim() })
}

/// Whether free text can be passed over: it names no file, and any code name in it stands in no phrase that could
/// make it a location (`` the `C` class ``, `` `A.b` ``, `` `__init__` ``).
///
/// A sentence that starts by referring back to the location above ("This method ...", "These files ...") describes
/// it; its code names are taken as part of the description unless one is a `Class.method`.
fn passable(text: &str) -> bool {
    let t = BULLET.replace(text, "");
    let t = t.trim().trim_matches('*').trim();
    let describes_the_above = BACK_REFERENCE.is_match(t);
    let t = BACK_REFERENCE.replace(t, "");
    if PATH.is_match(&t) {
        return false;
    }
    let names: Vec<&str> = TICKED.captures_iter(&t).filter_map(|c| c.get(1)).map(|m| m.as_str()).collect();
    // `Class.method` names a definition; `self.x`, `np.polyfit` or `p.is_Pow` are code.
    let dotted = |n: &&str| {
        let n = n.trim_end_matches("()");
        n.contains('.')
            && !n.contains(' ')
            && n.split('.')
                .next()
                .and_then(|c| c.trim_start_matches('_').chars().next())
                .is_some_and(char::is_uppercase)
    };
    if names.is_empty() {
        return true;
    }
    let dunder = |n: &&str| n.starts_with("__") && n.ends_with("__");
    if names.iter().any(|n| dotted(n) || dunder(n)) {
        return false;
    }
    if describes_the_above {
        return true;
    }
    // A name said to be a definition, or a list of names beside the word "method", may be a location.
    let listed = DEFINITION_WORDS.is_match(&t) && NAME_LIST.is_match(&t);
    !(NAMED_DEFINITION.is_match(&t) || listed)
}

/// An explanation after a value: empty, or starting like one and passable.
fn explanation(rest: &str) -> Option<String> {
    let rest = rest.trim();
    if rest.is_empty() {
        return Some(String::new());
    }
    let text = rest.trim_start_matches([',', ':', ';', '-', '–', '—', '.']).trim();
    if !EXPLANATION_START.is_match(rest) || !passable(text) {
        return None;
    }
    Some(text.to_string())
}

/// What one labelled line holds.
enum Line {
    /// Not a labelled line.
    Unlabelled,
    /// A heading or an explanation label: nothing to read.
    Skip,
    /// `(kind, names, class named after them, explanation)` for each label on the line.
    Items(Vec<(Kind, Vec<String>, Option<String>, String)>),
}

fn labelled(line: &str) -> Result<Line, ()> {
    let Some(c) = LABEL.captures(line) else { return Ok(Line::Unlabelled) };
    let mut label = c["label"].to_string();
    let mut rest = c.name("rest").map_or("", |m| m.as_str());
    let mut items = Vec::new();
    loop {
        let kind = match label_kind(&label) {
            None if items.is_empty() => return Ok(Line::Unlabelled),
            None => return Err(()),
            Some(Err(())) if items.is_empty() => return Ok(Line::Skip),
            Some(Err(_)) => return Err(()),
            Some(Ok(kind)) => kind,
        };
        if rest.trim().is_empty() {
            items.push((kind, Vec::new(), None, String::new()));
            return Ok(Line::Items(items));
        }
        let v = value(rest).ok_or(())?;
        if let Some(next) = INLINE_LABEL.captures(v.rest)
            && label_kind(&next["label"]).is_some_and(|k| k.is_ok())
        {
            items.push((kind, v.names, v.owner, String::new()));
            label = next["label"].to_string();
            rest = &v.rest[next.get(0).map_or(0, |m| m.end())..];
            continue;
        }
        let why = explanation(v.rest).ok_or(())?;
        items.push((kind, v.names, v.owner, why));
        return Ok(Line::Items(items));
    }
}

/// The locations section being read.
#[derive(Default)]
struct Reader {
    found: Vec<LocationSpec>,
    file: Option<String>,
    class: Option<String>,
    /// The current file (and class) has not produced a location yet.
    pending: bool,
    /// Items below a `Methods:` label are methods.
    in_methods: bool,
    /// Items below a `Files:` label are files.
    in_files: bool,
}

impl Reader {
    fn flush(&mut self, why: &str) {
        if self.pending && (self.file.is_some() || self.class.is_some()) {
            self.found.push(LocationSpec {
                file: self.file.clone(),
                class: self.class.clone(),
                method: None,
                intended_behavior: why.to_string(),
            });
        }
        self.pending = false;
    }

    fn file(&mut self, path: String) {
        self.flush("");
        self.file = Some(path);
        self.class = None;
        self.pending = true;
        self.in_methods = false;
        self.in_files = false;
    }

    /// A method, with the class (or the file: `` `use` in `core.py` ``) named after it. A file other than the
    /// current one fails the line.
    fn method(&mut self, name: &str, owner: Option<&str>, why: &str) -> Result<(), ()> {
        let (file, class) = match owner {
            Some(path) if is_path(path) => match &self.file {
                Some(current) if !same_file(current, path) => return Err(()),
                Some(current) if current.len() >= path.len() => (Some(current.clone()), self.class.clone()),
                _ => (Some(path.to_string()), self.class.clone()),
            },
            Some(class) => (self.file.clone(), Some(class.to_string())),
            None => (self.file.clone(), self.class.clone()),
        };
        self.found.push(LocationSpec {
            file,
            class,
            method: Some(clean_name(name)),
            intended_behavior: why.to_string(),
        });
        self.pending = false;
        Ok(())
    }

    /// Adds explanation text to the last location.
    fn explain(&mut self, text: &str) {
        let text = BULLET.replace(text, "");
        let text = text.trim().trim_matches('*').trim();
        if text.is_empty() || self.pending {
            return;
        }
        if let Some(last) = self.found.last_mut() {
            if !last.intended_behavior.is_empty() {
                last.intended_behavior.push(' ');
            }
            last.intended_behavior.push_str(text);
        }
    }

    fn items(&mut self, items: Vec<(Kind, Vec<String>, Option<String>, String)>) -> Result<(), ()> {
        for (kind, names, owner, why) in items {
            match kind {
                Kind::File if names.is_empty() => {
                    self.in_files = true;
                    self.in_methods = false;
                }
                Kind::File => {
                    let [path] = names.as_slice() else { return Err(()) };
                    if !is_path(path) {
                        return Err(());
                    }
                    self.file(path.clone());
                }
                Kind::Class => {
                    let [class] = names.as_slice() else { return Err(()) };
                    if self.class.is_some() {
                        self.flush("");
                    }
                    self.class = Some(clean_name(class));
                    self.pending = true;
                    self.in_methods = false;
                }
                Kind::Method | Kind::Function if names.is_empty() => {
                    if kind == Kind::Function {
                        self.flush("");
                        self.class = None;
                    }
                    self.in_methods = true;
                    self.in_files = false;
                }
                Kind::Method | Kind::Function => {
                    for name in &names {
                        if is_path(name) {
                            return Err(());
                        }
                        self.method(name, owner.as_deref(), &why)?;
                    }
                }
            }
            if !matches!(kind, Kind::Method | Kind::Function) && !why.is_empty() {
                self.flush(&why);
            }
        }
        Ok(())
    }

    fn line(&mut self, line: &str) -> Result<(), ()> {
        match labelled(line)? {
            Line::Skip => {
                self.in_methods = false;
                self.in_files = false;
                Ok(())
            }
            Line::Items(items) => self.items(items),
            Line::Unlabelled => {
                if let Some(c) = PATH_ITEM.captures(line) {
                    let rest = c["rest"].trim();
                    self.file(c["path"].to_string());
                    // `- pkg/mod.py: reduce`: a file and the one method in it.
                    if let Some(v) = value(rest).filter(|v| v.rest.is_empty() && v.names.len() == 1)
                        && !is_path(&v.names[0])
                        && !rest.contains(' ')
                    {
                        return self.method(&v.names[0], v.owner.as_deref(), "");
                    }
                    if !passable(rest) {
                        return Err(());
                    }
                    self.explain_pending(rest);
                    return Ok(());
                }
                if self.in_files && BULLET.is_match(line) {
                    let item = BULLET.replace(line, "");
                    let item = item.trim().trim_matches('*').trim();
                    let v = value(item).ok_or(())?;
                    let [path] = v.names.as_slice() else { return Err(()) };
                    if !is_path(path) {
                        return Err(());
                    }
                    let why = explanation(v.rest).ok_or(())?;
                    self.file(path.clone());
                    self.in_files = true;
                    self.explain_pending(&why);
                    return Ok(());
                }
                if let Some(c) = METHOD_OWNER_LINE.captures(line) {
                    let last_is_classless_method =
                        !self.pending && self.found.last().is_some_and(|l| l.class.is_none() && l.method.is_some());
                    if last_is_classless_method && passable(&c["rest"]) {
                        if let Some(last) = self.found.last_mut() {
                            last.class = Some(c["class"].to_string());
                        }
                        self.explain(line);
                        return Ok(());
                    }
                    return Err(());
                }
                let item = BULLET.replace(line, "");
                let item = item.trim().trim_matches('*').trim();
                if BULLET.is_match(line) && CONSTRUCTOR.is_match(item) {
                    return self.method("__init__", None, "");
                }
                let said_method = value(item).is_some_and(|v| v.said == Some(Kind::Method) && item.starts_with('`'));
                if (self.in_methods || said_method) && BULLET.is_match(line) {
                    let Some(v) = value(item) else {
                        return if passable(item) { Ok(()) } else { Err(()) };
                    };
                    let rest = v.rest.strip_prefix(':').unwrap_or(v.rest);
                    let why = if v.rest.starts_with(':') && passable(rest) {
                        rest.trim().to_string()
                    } else {
                        explanation(v.rest).ok_or(())?
                    };
                    for name in &v.names {
                        if is_path(name) {
                            return Err(());
                        }
                        self.method(name, v.owner.as_deref(), &why)?;
                    }
                    return Ok(());
                }
                if passable(line) {
                    self.explain(line);
                    Ok(())
                } else {
                    Err(())
                }
            }
        }
    }

    /// Explanation text for a file that has no method yet.
    fn explain_pending(&mut self, text: &str) {
        let text = text.trim();
        if !text.is_empty() && self.pending {
            self.flush(text);
            // The file is recorded; later methods under it still attach to it.
            self.pending = false;
        }
    }
}

/// Reads a sentence such as "The bug is located in the file `a.py`, specifically within the `delete` method of the
/// `Model` class." as one location. Every code name must be a path or be said to be a method, function or class.
fn sentence_location(sentence: &str) -> Option<LocationSpec> {
    let s = BULLET.replace(sentence, "");
    let s = s.trim().trim_matches('*').trim();
    let start = BUG_IS.find(s)?;
    let mut rest = s[start.end()..].trim_end().trim_end_matches('.').trim_end();
    let mut spec = LocationSpec::default();
    let mut first = true;
    while !rest.is_empty() {
        if !first {
            let j = JOIN.find(rest).filter(|m| m.end() > 0)?;
            rest = &rest[j.end()..];
        }
        first = false;
        let c = PLACE.captures(rest)?;
        let name = c["name"].trim().to_string();
        let kind = c.name("kw").or(c.name("kind")).map(|m| m.as_str().to_ascii_lowercase());
        let slot = match kind.as_deref() {
            Some("file") => &mut spec.file,
            _ if is_path(&name) => &mut spec.file,
            Some("class") => &mut spec.class,
            Some("method" | "function") => &mut spec.method,
            _ => return None,
        };
        if slot.replace(clean_name(&name)).is_some() {
            return None;
        }
        rest = &rest[c.get(0).map_or(0, |m| m.end())..];
    }
    (spec.file.is_some() || spec.class.is_some() || spec.method.is_some()).then_some(spec)
}

/// The sentences of a text: split after `.`, `!` or `?` followed by white space, and at line ends.
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut start = 0;
        let bytes = line.as_bytes();
        let mut in_code = false;
        for (i, &b) in bytes.iter().enumerate() {
            match b {
                b'`' => in_code = !in_code,
                b'.' | b'!' | b'?' if !in_code && bytes.get(i + 1).is_some_and(u8::is_ascii_whitespace) => {
                    out.push(&line[start..=i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        if !line[start..].trim().is_empty() {
            out.push(&line[start..]);
        }
    }
    out.into_iter().map(str::trim).filter(|s| !s.is_empty()).collect()
}

/// A text whose first sentence says where the bug is and whose other sentences can be passed over.
fn located_by_sentence(text: &str) -> Option<LocationSpec> {
    let all = sentences(text);
    let (first, rest) = all.split_first()?;
    let spec = sentence_location(first)?;
    rest.iter().all(|s| passable(s)).then_some(spec)
}

/// The bug locations of the answer's locations section: `None` when it has no such section, `Err(line)` with the
/// first line that could not be read.
pub(crate) fn locations(text: &str) -> Option<Result<Vec<LocationSpec>, String>> {
    if HEADING.find(text).is_none()
        && let Some(start) = labelled_start(text)
    {
        // No heading, but an outline that starts with a `Buggy file:` (or class, method) label: read it from there,
        // once nothing before it names code.
        if !sentences(&text[..start]).iter().all(|s| passable(s)) {
            return Some(Err(text[..start].to_string()));
        }
        return Some(read_outline(&text[start..]));
    }
    let Some(heading) = HEADING.find(text) else {
        // No heading: a paragraph whose first sentence says where the bug is, and nothing else naming code.
        let paragraphs: Vec<&str> = text.split("\n\n").filter(|p| !p.trim().is_empty()).collect();
        let mut found = None;
        for p in &paragraphs {
            match located_by_sentence(p) {
                Some(spec) if found.is_none() => found = Some(spec),
                Some(_) => return Some(Err(p.to_string())),
                None if sentences(p).iter().all(|s| passable(s)) => {}
                None => return found.map(|_| Err(p.to_string())),
            }
        }
        return found.map(|spec| Ok(vec![spec]));
    };
    let line_start = text[..heading.start()].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[heading.end()..].find('\n').map_or(text.len(), |i| heading.end() + i);
    let after_heading = text[heading.end()..line_end].trim_start_matches(['*', ':', ' ']);
    if after_heading.contains('`') || PATH.is_match(after_heading) {
        // The heading's own line says where, in a sentence; then nothing else may name code.
        let rest = &text[line_end..];
        return match located_by_sentence(after_heading) {
            Some(spec) if rest.lines().all(|l| l.trim().is_empty() || passable(l)) => Some(Ok(vec![spec])),
            _ => Some(Err(text[line_start..line_end].to_string())),
        };
    }
    Some(read_outline(&text[line_end..]))
}

/// Where the locations section starts: its heading, else the first `Buggy ...:` label, else the start.
fn section_start(text: &str) -> usize {
    HEADING.find(text).map(|h| h.start()).or_else(|| labelled_start(text)).unwrap_or(0)
}

/// What the locations section names as a place for the bug, and `found` (the reading of it) lacks: a path, a name
/// said to be a method, function or class (`` the `m` method ``, `` class `C` ``), a `Class.method`, a dunder name.
/// Each comes back as written. Code blocks are passed over, and so are names that are plainly code (`self.x`).
///
/// A reading that misses one of them is incomplete: "the `save` method of the `Model` class" under a file that was
/// read alone, or a second method in an explanation, would be acted on without the place the answer meant.
pub(crate) fn unnamed(text: &str, found: &[LocationSpec]) -> Vec<String> {
    static FILE_NAME: LazyLock<Regex> = LazyLock::new(|| re_ext(r"[\w./-]*\w\.{ext}\b"));
    static KINDED: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)`(?P<a>[^`\n]+)`\s+(?P<akind>method|function|class|constructor)\b|\b(?P<bkind>method|function|class|constructor)\s+`(?P<b>[^`\n]+)`",
        )
    });
    let last = |n: &str| clean_name(n).rsplit('.').next().unwrap_or_default().to_string();
    let files: Vec<&str> = found.iter().filter_map(|l| l.file.as_deref()).collect();
    let methods: Vec<String> = found.iter().filter_map(|l| l.method.as_deref()).map(last).collect();
    let classes: Vec<String> = found
        .iter()
        .flat_map(|l| {
            let from_method = l.method.as_deref().map(clean_name).and_then(|m| {
                let mut parts = m.rsplit('.');
                parts.next();
                parts.next().map(str::to_string)
            });
            l.class.as_deref().map(last).into_iter().chain(from_method)
        })
        .collect();
    let has_method = |n: &str| methods.iter().any(|m| *m == last(n));
    let has_class = |n: &str| classes.iter().any(|c| *c == last(n));
    let mut missing = Vec::new();
    let mut in_code = false;
    for line in text[section_start(text)..].lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        for m in FILE_NAME.find_iter(line) {
            if !files.iter().any(|f| same_file(f, m.as_str())) {
                missing.push(m.as_str().to_string());
            }
        }
        for c in KINDED.captures_iter(line) {
            let (Some(name), Some(kind)) = (c.name("a").or(c.name("b")), c.name("akind").or(c.name("bkind"))) else {
                continue;
            };
            let name = name.as_str().trim();
            if is_path(name) || name.contains(char::is_whitespace) {
                continue;
            }
            let known = match kind.as_str().to_ascii_lowercase().as_str() {
                "class" => has_class(name),
                "constructor" => has_class(name) || has_method("__init__"),
                _ => has_method(name),
            };
            if !known {
                missing.push(name.to_string());
            }
        }
        for t in TICKED.captures_iter(line) {
            let name = clean_name(&t[1]);
            if name.contains(char::is_whitespace) || is_path(&name) {
                continue;
            }
            let dunder = name.starts_with("__") && name.ends_with("__") && name.len() > 4 && !name.contains('.');
            let mut parts = name.rsplit('.');
            let (method, owner) = (parts.next().unwrap_or_default(), parts.next());
            let class_dot_method =
                owner.is_some_and(|o| o.trim_start_matches('_').chars().next().is_some_and(char::is_uppercase));
            let known = match owner {
                _ if dunder => has_method(&name),
                Some(o) if class_dot_method => has_method(method) && has_class(o),
                _ => true,
            };
            if !known {
                missing.push(name);
            }
        }
    }
    missing.dedup();
    missing
}

/// Whether the answer asks for more context in words before naming bug locations: a "need more context" heading
/// (or sentence) that is not denied ("we do not need more context", "- do we need more context: No") and is
/// followed by something. (Calls written as calls are read as calls before this.)
pub(crate) fn asks_for_more(text: &str) -> bool {
    static DENIED: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)^(?:no|not|none)\b|\b(?:not|n't|no)\s+(?:\w+\s+){0,2}(?:need|needed|necessary|required)\b|\bno\s+(?:more|additional|further)\b|\b(?:sufficient|enough)\b",
        )
    });
    let Some(c) = CONTEXT_HEADING.find(text) else { return false };
    let line_start = text[..c.start()].rfind('\n').map_or(0, |i| i + 1);
    let end = HEADING.find_at(text, c.end()).map_or(text.len(), |h| h.start());
    let said: String =
        text[c.end()..end].lines().filter(|l| !l.trim_start().starts_with("```")).collect::<Vec<_>>().join("\n");
    let said = said.trim_matches(|ch: char| ch.is_whitespace() || matches!(ch, '*' | ':' | '-' | '?'));
    let first_sentence = sentences(said).first().copied().unwrap_or_default();
    let denied = DENIED.is_match(&text[line_start..c.end()]) || DENIED.is_match(first_sentence);
    !(said.is_empty() || denied)
}

/// The byte offset of the first line labelled `Buggy file`, `Buggy class` or `Buggy method`.
fn labelled_start(text: &str) -> Option<usize> {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let starts_outline = LABEL.captures(line).is_some_and(|c| {
            let label = c["label"].trim().to_ascii_lowercase();
            label.starts_with("buggy ") && label_kind(&label).is_some_and(|k| k.is_ok())
        });
        if starts_outline {
            return Some(at);
        }
        at += line.len();
    }
    None
}

/// Reads an outline of labelled locations, line by line; `Err` with the first line that cannot be placed.
fn read_outline(text: &str) -> Result<Vec<LocationSpec>, String> {
    let mut reader = Reader::default();
    for line in text.lines() {
        if line.trim().is_empty() || line.trim_start().starts_with("```") {
            continue;
        }
        if reader.line(line).is_err() {
            return Err(line.to_string());
        }
    }
    reader.flush("");
    Ok(reader.found)
}

/// Whether the calls starting at byte `first_call` are asked for: they follow a "need more context" heading that
/// comes before any bug-location heading, or words that introduce calls to make ("the following search API calls",
/// "let's search"), or the answer names no bug location at all.
pub(crate) fn calls_are_requested(text: &str, first_call: usize) -> bool {
    static INTRODUCED: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)\b(?:following|these|additional|more|further|next|new)\s+(?:(?:targeted|specific|refined)\s+)?(?:search\s+)?(?:api\s+)?calls?\b|\blet(?:'|’)?s\s+(?:search|call|look|perform|make)\b|\bwe\s+(?:should|need\s+to|could|can|will)\s+(?:search|call|look|perform|make)\b",
        )
    });
    let before = &text[..first_call];
    let asked =
        CONTEXT_HEADING.find(before).is_some_and(|c| HEADING.find(before).is_none_or(|h| h.start() > c.start()));
    asked || INTRODUCED.is_match(before) || !NAMES_A_BUG.is_match(text)
}

/// Whether an answer plainly names nothing: no code in backticks, no path, no `Class.method`, no bug-location
/// heading. (Calls are looked for before this is asked.)
pub(crate) fn is_plain(text: &str) -> bool {
    static CLASS_DOT_NAME: LazyLock<Regex> = LazyLock::new(|| re(r"\b_?[A-Z]\w*\.[A-Za-z_]\w*"));
    !text.contains('`') && !PATH.is_match(text) && !CLASS_DOT_NAME.is_match(text) && !HEADING.is_match(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Vec<(Option<String>, Option<String>, Option<String>)> {
        locations(text)
            .expect("a locations section")
            .unwrap_or_else(|line| panic!("could not read {line:?}"))
            .into_iter()
            .map(|l| (l.file, l.class, l.method))
            .collect()
    }

    fn loc(file: &str, class: &str, method: &str) -> (Option<String>, Option<String>, Option<String>) {
        let opt = |s: &str| (!s.is_empty()).then(|| s.to_string());
        (opt(file), opt(class), opt(method))
    }

    #[test]
    fn labelled_outlines_are_read() {
        let text = "- do we need more context:\n\n- where are bug locations:\n  - Buggy file: `astropy/io/fits/fitsrec.py`\n  - Buggy method: `_scale_back_ascii` in class `FITS_rec`\n";
        assert_eq!(read(text), vec![loc("astropy/io/fits/fitsrec.py", "FITS_rec", "_scale_back_ascii")]);

        let text = "- where are bug locations:\n  - **File**: `django/forms/widgets.py`\n  - **Class**: `MultiWidget`\n  - **Method**: `id_for_label`\n";
        assert_eq!(read(text), vec![loc("django/forms/widgets.py", "MultiWidget", "id_for_label")]);

        let text = "where are bug locations:\n  - **File:** `lib/matplotlib/axis.py`, **Method:** `set_ticks`\n  - File: sympy/core/basic.py, Method: subs\n";
        assert_eq!(
            read(text),
            vec![loc("lib/matplotlib/axis.py", "", "set_ticks"), loc("sympy/core/basic.py", "", "subs")]
        );

        let text = "- where are bug locations:\n  - Buggy File: `astropy/io/ascii/qdp.py`\n    - **Methods:**\n      - `_line_type`: Needs to ignore case.\n      - `_interpret_err_lines`: Likewise.\n";
        let found = locations(text).unwrap().unwrap();
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].intended_behavior, "Needs to ignore case.");

        let text = "- where are bug locations:\n  - File: `lib/matplotlib/figure.py`\n  - Methods: `align_labels`, `align_xlabels`, and `align_ylabels` within the `FigureBase` class.\n";
        assert_eq!(read(text).len(), 3);
        assert!(read(text).iter().all(|l| l.1.as_deref() == Some("FigureBase")));

        let text = "- where are bug locations:\n  - File: `a.py`\n  - Class: `Cart`\n  - Constructor (`__init__`)\n";
        assert_eq!(read(text), vec![loc("a.py", "Cart", "__init__")]);

        let text = "- where are bug locations:\n  - Buggy file: `qdp.py`\n    - This file parses the commands.\n  - Buggy file: `tests/test_qdp.py`\n";
        assert_eq!(read(text), vec![loc("qdp.py", "", ""), loc("tests/test_qdp.py", "", "")]);
    }

    #[test]
    fn a_sentence_can_say_where_the_bug_is() {
        let text = "- where are bug locations: The bug is located in the file `django/db/models/base.py`, specifically within the `delete` method of the `Model` class.";
        assert_eq!(read(text), vec![loc("django/db/models/base.py", "Model", "delete")]);
        let text = "The bug is located in the `django/forms/boundfield.py` file, specifically within the `BoundWidget` class and its `id_for_label` method.\n\nThis method builds the id.";
        assert_eq!(read(text), vec![loc("django/forms/boundfield.py", "BoundWidget", "id_for_label")]);
        let text = "- where are bug locations: The bug is located in the file `sympy/core/mod.py`. The issue likely resides within the evaluation logic.";
        assert_eq!(read(text), vec![loc("sympy/core/mod.py", "", "")]);
        // A name whose kind is not said, or more code named after it, is not read.
        assert!(locations("The bug is located in `Model.delete` of `base.py`.").is_none_or(|r| r.is_err()));
        let more = "The bug is located in the `a.py` file.\n\nThe `save` method of the `Model` class is involved too.";
        assert!(locations(more).unwrap().is_err());
    }

    #[test]
    fn anything_unplaceable_fails_the_reading() {
        for text in [
            // A file in a sentence.
            "- where are bug locations: The bug is somewhere around `django/db/models/base.py` and `delete`.",
            // A class named in an explanation.
            "- where are bug locations:\n  - Method: `_new` (for both `ImmutableDenseNDimArray` and `MutableDenseNDimArray` classes)\n",
            // A method that is only mentioned.
            "- where are bug locations:\n  - File: `a.py`\n  - The constructor of `Cart` (`__init__`)\n",
            "- where are bug locations:\n  - The initialization of `parts` in `SQLCompiler.__init__` is related.\n",
        ] {
            assert!(locations(text).unwrap().is_err(), "{text}");
        }
        assert!(locations("No heading here, `a.py`.").is_none());
    }

    #[test]
    fn calls_are_requested_after_a_context_heading_or_when_no_bug_is_named() {
        let asked = "- do we need more context:\n  - `search_code(\"x\")`\n- where are bug locations:\n";
        assert!(calls_are_requested(asked, asked.find("search_code").unwrap()));
        let past = "search_class(\"Cart\") showed enough. The bug is in Cart.total in shop/cart.py.";
        assert!(!calls_are_requested(past, 0));
        assert!(calls_are_requested("Let me look: search_class(\"Cart\")", 13));
    }

    #[test]
    fn plain_answers_name_nothing() {
        assert!(is_plain("I apologise for the confusion; no more searches are needed at this point."));
        assert!(is_plain("The get_order_by logic needs care, as discussed."));
        assert!(!is_plain("The autodetector in Cart.total is wrong."));
        assert!(!is_plain("Look at `x`."));
        assert!(!is_plain("It is in setup.py."));
    }

    #[cfg(feature = "java")]
    #[test]
    fn java_file_names_are_paths_too() {
        assert!(!is_plain("It is in library.java."));
        let text = "- where are bug locations:\n  - `src/main/java/shop/Cart.java`: total\n";
        assert_eq!(read(text), vec![loc("src/main/java/shop/Cart.java", "", "total")]);
        let text = "- where are bug locations:\n  - File: Cart.java, Method: total\n";
        assert_eq!(read(text), vec![loc("Cart.java", "", "total")], "as before, by is_path");
        // A file named in a sentence under the heading: read as the sentence, not as an outline.
        let text = "- where are bug locations: The bug is located in the file Cart.java.";
        assert!(locations(text).unwrap().is_err(), "{text}");
        // A second file named in an explanation is not passed over.
        let text = "- where are bug locations:\n  - File: `Cart.java`\n    - It calls into Pricing.java as well.\n";
        assert!(locations(text).unwrap().is_err(), "{text}");
    }
}
