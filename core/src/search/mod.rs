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
//! - file names match case-insensitively by suffix (`rst.py`, `io/ascii/RST.py`);
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
mod method;
mod source;

use std::cell::OnceCell;

use serde::Serialize;

pub use crate::api::DEFAULT_WINDOW;
pub use crate::call::{CallError, SearchCall};
pub use code::CODE_CONTEXT_LINES;

use crate::index::{DefKind, FileId, Index};
use crate::repo::Repo;
use source::LineTable;

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

/// A file's text, lower-cased path (for suffix matching) and lazily built line table.
struct SourceFile<'a> {
    text: &'a str,
    lower_path: String,
    lines: OnceCell<LineTable>,
}

impl<'a> Searcher<'a> {
    /// A searcher over `index`, reading file text from `repo`. Files of the index that the repository lacks are
    /// searched as empty.
    pub fn new(index: &'a Index, repo: &'a Repo) -> Searcher<'a> {
        let files = index
            .files
            .iter()
            .map(|f| SourceFile {
                text: repo.file(&f.path).unwrap_or(""),
                lower_path: f.path.to_lowercase(),
                lines: OnceCell::new(),
            })
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

    /// Files whose path ends with `name`, ignoring case, in index order. A leading `./` or `/` is ignored; an
    /// empty name matches nothing.
    pub fn files_matching(&self, name: &str) -> Vec<FileId> {
        let name = name.trim();
        let name = name.trim_start_matches("./").trim_start_matches('/');
        if name.is_empty() {
            return Vec::new();
        }
        let wanted = name.replace('\\', "/").to_lowercase();
        self.files
            .iter()
            .enumerate()
            .filter(|(_, f)| f.lower_path.ends_with(&wanted))
            .map(|(i, _)| i as FileId)
            .collect()
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
