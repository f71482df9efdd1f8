//! `search_code`, `search_code_in_file` and `get_code_around_line`: literal text and line windows.

use memchr::memmem::Finder;

use super::format::{collapse_to_files, collapse_to_methods, numbered, push_results, tagged};
use super::{RESULT_CAP, RESULT_SHOW_LIMIT, SearchHit, SearchOutput, Searcher};
use crate::index::FileId;

/// Lines of context shown either side of a text hit.
pub const CODE_CONTEXT_LINES: u32 = 3;

/// Every occurrence of a string in a set of files: counts for all, positions for the first few.
struct TextScan {
    /// Hits per file with at least one, in file order.
    per_file: Vec<(FileId, usize)>,
    /// (file, byte offset) of the first hits, in order.
    kept: Vec<(FileId, usize)>,
    /// All hits.
    total: usize,
}

/// A located text hit.
struct TextHit<'a> {
    file: FileId,
    start: u32,
    end: u32,
    class: Option<&'a str>,
    func: Option<&'a str>,
}

impl<'a> Searcher<'a> {
    /// Non-overlapping occurrences of `needle` (non-empty) in `files`, keeping the positions of the first `keep`.
    fn scan(&self, needle: &str, files: impl IntoIterator<Item = FileId>, keep: usize) -> TextScan {
        let finder = Finder::new(needle.as_bytes());
        let mut scan = TextScan { per_file: Vec::new(), kept: Vec::new(), total: 0 };
        for file in files {
            let mut n = 0;
            for offset in finder.find_iter(self.text(file).as_bytes()) {
                if scan.kept.len() < keep {
                    scan.kept.push((file, offset));
                }
                n += 1;
            }
            if n > 0 {
                scan.per_file.push((file, n));
                scan.total += n;
            }
        }
        scan
    }

    fn locate(&self, file: FileId, offset: usize, len: usize) -> TextHit<'a> {
        let table = self.lines(file);
        let start = table.line_of(offset);
        let end = table.line_of(offset + len.saturating_sub(1));
        let (class, func) = self.enclosing(file, start);
        TextHit { file, start, end, class, func }
    }

    fn text_block(&self, h: &TextHit<'_>) -> String {
        let table = self.lines(h.file);
        let from = h.start.saturating_sub(CODE_CONTEXT_LINES).max(1);
        let to = (h.end + CODE_CONTEXT_LINES).min(table.count());
        let code = numbered(table, self.text(h.file), from, to);
        tagged(self.path(h.file), h.class, h.func, &code)
    }

    fn text_hits(&self, hits: &[TextHit<'_>]) -> Vec<SearchHit> {
        hits.iter().map(|h| self.hit(h.file, h.start, h.end, h.class, h.func)).collect()
    }

    /// `search_code(code_str)`: every occurrence of the literal text in the codebase, with three lines of context
    /// either side and the enclosing class and function; past three hits, the files and their hit counts.
    pub fn search_code(&self, code_str: &str) -> SearchOutput {
        if code_str.is_empty() {
            return SearchOutput::miss("The code to search for is empty.");
        }
        let all = 0..self.files.len() as FileId;
        let scan = self.scan(code_str, all, RESULT_CAP);
        if scan.total == 0 {
            return SearchOutput::miss(format!("Could not find code {code_str} in the codebase."));
        }
        let hits: Vec<TextHit<'_>> = scan.kept.iter().map(|&(f, off)| self.locate(f, off, code_str.len())).collect();
        let mut text = format!("Found {} snippets containing `{code_str}` in the codebase.\n", scan.total);
        if scan.total > RESULT_SHOW_LIMIT {
            text.push_str("They appeared in the following files:\n");
            text.push_str(&collapse_to_files(scan.per_file.iter().map(|&(f, n)| (self.path(f), n))));
        } else {
            push_results(&mut text, 1, hits.iter().map(|h| self.text_block(h)));
        }
        SearchOutput::found(text, self.text_hits(&hits))
    }

    /// `search_code_in_file(code_str, file_name)`: occurrences of the literal text in the files
    /// `file_name` names; past three hits, the enclosing methods and their hit counts.
    pub fn search_code_in_file(&self, code_str: &str, file_name: &str) -> SearchOutput {
        let named = match self.files_named(file_name) {
            Ok(named) => named,
            Err(miss) => return miss,
        };
        let files = named.files.clone();
        if code_str.is_empty() {
            return SearchOutput::miss("The code to search for is empty.");
        }
        let scan = self.scan(code_str, files, usize::MAX);
        if scan.total == 0 {
            return SearchOutput::miss(format!("Could not find code {code_str} in file {file_name}."));
        }
        let hits: Vec<TextHit<'_>> = scan.kept.iter().map(|&(f, off)| self.locate(f, off, code_str.len())).collect();
        let mut text = format!("Found {} snippets with code {code_str} in file {file_name}.\n", scan.total);
        if scan.total > RESULT_SHOW_LIMIT {
            text.push_str("They appeared in the following methods:\n");
            text.push_str(&collapse_to_methods(hits.iter().map(|h| (self.path(h.file), h.class, h.func))));
        } else {
            push_results(&mut text, 1, hits.iter().map(|h| self.text_block(h)));
        }
        named.note(SearchOutput::found(text, self.text_hits(&hits)))
    }

    /// `get_code_around_line(file_name, line_no, window)`: lines `line_no - window ..= line_no + window` of each
    /// file `file_name` names that has that line.
    pub fn get_code_around_line(&self, file_name: &str, line_no: u32, window: u32) -> SearchOutput {
        let named = match self.files_named(file_name) {
            Ok(named) => named,
            Err(miss) => return miss,
        };
        let files = named.files.clone();
        let mut blocks = Vec::new();
        let mut hits = Vec::new();
        for file in files {
            let table = self.lines(file);
            if line_no == 0 || line_no > table.count() {
                continue;
            }
            let from = line_no.saturating_sub(window).max(1);
            let to = line_no.saturating_add(window).min(table.count());
            let (class, func) = self.enclosing(file, line_no);
            let code = numbered(table, self.text(file), from, to);
            blocks.push(tagged(self.path(file), class, func, &code));
            hits.push(self.hit(file, from, to, class, func));
        }
        if hits.is_empty() {
            return SearchOutput::miss(format!("Line {line_no} does not exist in file {file_name}."));
        }
        let mut text = format!("Found {} code snippets around line {line_no}.\n", hits.len());
        push_results(&mut text, 1, blocks);
        named.note(SearchOutput::found(text, hits))
    }
}
