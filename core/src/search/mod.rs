//! The nine search APIs over an [`Index`] and the repository's text, with AutoCodeRover's observable behaviour.
//!
//! A [`Searcher`] borrows an index and the repository it was built from, and answers each API listed in
//! [`crate::api::APIS`] with a [`SearchOutput`]: the text the model reads, the code units found, and whether the
//! call succeeded. Misses and bad arguments are answered with a sentence, never a panic.
//!
//! The model-facing text follows ACR's conventions: `Found N methods with name X in the codebase.`, then
//! `Search result 1: <file>…</file> <class>…</class> <func>…</func> <code>…</code>` blocks, and more than
//! [`RESULT_SHOW_LIMIT`] results collapse to a per-file list of hit counts (per method for
//! `search_code_in_file`). Code comes with 1-based line numbers (`57     def __init__(self):`).
//!
//! Where this departs from ACR (all in the direction of finding more, or of saying less that is wrong):
//!
//! - file names are read by the one policy of [`crate::paths`]: exact, then suffix on a `/` boundary (ACR matched
//!   any suffix, so `t.py` found `cart.py`), then shorter tails, then ignoring case (`rst.py`, `io/ascii/RST.py`);
//!   ACR's any-suffix match is the policy's last resort. When a name fits several files the answer covers all of
//!   them, as ACR's did, and ends with a note saying so (the [`crate::paths::Ambiguity`]), as it does when the name
//!   only ends the files' names; a name that cannot be a path is refused with the policy's reason;
//! - `search_code_in_file` searches for the string it was given (ACR dropped one trailing `)` first);
//! - `search_class` shows each class's own signature, including `async` methods (ACR showed the first class of
//!   that name in the file for every entry, and skipped `async def`);
//! - a class or `def` whose body starts on its own line still shows that line in a signature;
//! - an empty `Other results are in these files:` header is not printed;
//! - a method is listed once (ACR listed the methods of two same-named classes in one file twice each).
//!
//! Like ACR, the methods of a class include those of classes nested in it: `search_method_in_class("f", "Outer")`
//! finds `Outer.Inner.f`, and a text hit inside it is labelled with `Outer`.
//!
//! Text searches (`search_code`, `search_code_in_file`) count every hit with a SIMD substring search
//! ([`memchr::memmem`]) and only work out line numbers and enclosing definitions for the hits they report, so a
//! string with tens of thousands of hits costs little more than one pass over the text.

mod class;
mod code;
mod format;
#[cfg(any(feature = "java", feature = "js"))]
mod member_heads;
mod method;
mod source;
mod tree;

use std::cell::OnceCell;
use std::fmt::Write as _;

use serde::Serialize;

pub(crate) use source::LineTable;

pub use crate::api::DEFAULT_WINDOW;
pub use crate::call::{CallError, SearchCall};
pub use code::CODE_CONTEXT_LINES;

use crate::index::{DefKind, FileId, Index};
use crate::paths::{self, PathError};
use crate::repo::Repo;

/// Results shown in full before a listing collapses to file names and counts (ACR's `RESULT_SHOW_LIMIT`).
pub const RESULT_SHOW_LIMIT: usize = 3;

/// Classes shown in full by `get_class_full_snippet`.
pub const FULL_SNIPPET_LIMIT: usize = 2;

/// Most code units kept in [`SearchOutput::results`]; the text still reports every hit's count.
pub const RESULT_CAP: usize = 100;

/// One code unit found by a search: a definition, a text hit, or a window of lines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SearchHit {
    /// Relative `/`-separated path.
    pub file: String,
    /// First line (1-based).
    pub start: u32,
    /// Last line (inclusive).
    pub end: u32,
    /// The enclosing or named class, if any.
    pub class: Option<String>,
    /// The enclosing or named function or method, if any.
    pub func: Option<String>,
}

/// The answer to one search call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SearchOutput {
    /// What the model reads.
    pub text: String,
    /// Code units found, in the order the text lists them (at most [`RESULT_CAP`]).
    pub results: Vec<SearchHit>,
    /// Whether anything was found (ACR's success flag).
    pub ok: bool,
}

impl SearchOutput {
    /// A failed call: a sentence and no results.
    pub fn miss(text: impl Into<String>) -> SearchOutput {
        SearchOutput { text: text.into(), results: Vec::new(), ok: false }
    }

    fn found(text: String, mut results: Vec<SearchHit>) -> SearchOutput {
        results.truncate(RESULT_CAP);
        SearchOutput { text, results, ok: true }
    }
}

/// Runs one API call by name, with arguments as a JSON object (parameter names from [`crate::api::APIS`]) or a
/// list in parameter order. Builds a [`Searcher`] for the call; keep a [`Searcher`] to answer many calls.
pub fn search(index: &Index, repo: &Repo, api: &str, args: &serde_json::Value) -> SearchOutput {
    Searcher::new(index, repo).call(api, args)
}

/// Answers search calls over one index and the repository it was built from.
///
/// Construction is cheap (one pass over the file list); per-file line tables are built the first time a file's
/// lines are needed and kept for later calls.
pub struct Searcher<'a> {
    index: &'a Index,
    files: Vec<SourceFile<'a>>,
}

/// A file's text and lazily built line table.
struct SourceFile<'a> {
    text: &'a str,
    lines: OnceCell<LineTable>,
}

/// The files a file-scoped call names ([`Searcher::files_named`]).
struct NamedFiles {
    /// In index order; never empty.
    files: Vec<FileId>,
    /// What to tell the model about the match (several files, or only part of a name), when anything.
    note: Option<String>,
}

impl NamedFiles {
    /// `output` with the ambiguity sentence after it, when the call found something in several files.
    fn note(&self, mut output: SearchOutput) -> SearchOutput {
        if let (true, Some(note)) = (output.ok, &self.note) {
            let _ = write!(output.text, "\n\nNote: {note}; the results above cover all of them.");
        }
        output
    }
}

impl<'a> Searcher<'a> {
    /// A searcher over `index`, reading file text from `repo`. Files of the index that the repository lacks are
    /// searched as empty.
    pub fn new(index: &'a Index, repo: &'a Repo) -> Searcher<'a> {
        let files = index
            .files
            .iter()
            .map(|f| SourceFile { text: repo.file(&f.path).unwrap_or(""), lines: OnceCell::new() })
            .collect();
        Searcher { index, files }
    }

    /// The index searched.
    pub fn index(&self) -> &'a Index {
        self.index
    }

    /// Runs one API call by name, with arguments as a JSON object or list. Unknown APIs and bad arguments give a
    /// failed [`SearchOutput`] whose text says what was wrong.
    pub fn call(&self, api: &str, args: &serde_json::Value) -> SearchOutput {
        match SearchCall::from_json(api, args) {
            Ok(call) => self.run(&call),
            Err(e) => SearchOutput::miss(e.to_string()),
        }
    }

    /// Runs one parsed call.
    pub fn run(&self, call: &SearchCall) -> SearchOutput {
        match call {
            SearchCall::SearchClass { class_name } => self.search_class(class_name),
            SearchCall::SearchClassInFile { class_name, file_name } => self.search_class_in_file(class_name, file_name),
            SearchCall::SearchMethod { method_name } => self.search_method(method_name),
            SearchCall::SearchMethodInFile { method_name, file_name } => {
                self.search_method_in_file(method_name, file_name)
            }
            SearchCall::SearchMethodInClass { method_name, class_name } => {
                self.search_method_in_class(method_name, class_name)
            }
            SearchCall::SearchCode { code_str } => self.search_code(code_str),
            SearchCall::SearchCodeInFile { code_str, file_name } => self.search_code_in_file(code_str, file_name),
            SearchCall::GetCodeAroundLine { file_name, line_no, window } => {
                self.get_code_around_line(file_name, *line_no, *window)
            }
            SearchCall::GetClassFullSnippet { class_name } => self.get_class_full_snippet(class_name),
        }
    }

    /// The indexed files `name` names by the [`crate::paths`] policy, in index order (none when it names none).
    pub fn files_matching(&self, name: &str) -> Vec<FileId> {
        self.files_named(name).map(|n| n.files).unwrap_or_default()
    }

    /// The indexed files `name` names, or the failed output to answer with: ACR's sentence when no file fits, the
    /// policy's reason when the name cannot be a path.
    fn files_named(&self, name: &str) -> Result<NamedFiles, SearchOutput> {
        let paths: Vec<&str> = self.index.files.iter().map(|f| f.path.as_str()).collect();
        match paths::find(&paths, name) {
            Ok(m) => Ok(NamedFiles {
                note: m.note(name, &paths),
                files: m.positions.into_iter().map(|i| i as FileId).collect(),
            }),
            Err(PathError::NoMatch { .. }) => {
                Err(SearchOutput::miss(format!("Could not find file {name} in the codebase.")))
            }
            Err(e) => Err(SearchOutput::miss(format!("{e}."))),
        }
    }

    /// The class and function a line of a file belongs to, as ACR reports it for text hits: the outermost method
    /// containing the line, labelled with the outermost class around it (ACR counts the methods of a nested class
    /// as methods of the outer class too); otherwise the outermost function containing the line; otherwise
    /// neither.
    pub fn enclosing(&self, file: FileId, line: u32) -> (Option<&'a str>, Option<&'a str>) {
        let Some(entry) = self.index.files.get(file as usize) else {
            return (None, None);
        };
        let defs = &entry.defs;
        let upto = defs.partition_point(|d| d.start <= line);
        let mut func = None;
        let mut outer_class = None;
        for d in &defs[..upto] {
            if d.end < line {
                continue;
            }
            match d.kind {
                DefKind::Class if outer_class.is_none() => outer_class = Some(d),
                DefKind::Method => {
                    let class = outer_class.map_or(d.class.as_deref(), |c| Some(&*c.name));
                    return (class, Some(&*d.name));
                }
                DefKind::Function if func.is_none() => func = Some(&*d.name),
                _ => {}
            }
        }
        (None, func)
    }

    fn path(&self, file: FileId) -> &'a str {
        self.index.path(file)
    }

    fn text(&self, file: FileId) -> &'a str {
        self.files.get(file as usize).map_or("", |f| f.text)
    }

    fn lines(&self, file: FileId) -> &LineTable {
        let f = &self.files[file as usize];
        f.lines.get_or_init(|| LineTable::new(f.text))
    }

    fn hit(&self, file: FileId, start: u32, end: u32, class: Option<&str>, func: Option<&str>) -> SearchHit {
        SearchHit {
            file: self.path(file).to_string(),
            start,
            end,
            class: class.map(str::to_string),
            func: func.map(str::to_string),
        }
    }
}

#[cfg(test)]
mod tests;
