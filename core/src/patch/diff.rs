//! Changes to files as values: a [`FileDiff`] is a file's path and its [`Hunk`]s, each with its typed [`Line`]s.
//! The core hands these values around (MCTS reads bug shapes from them, the runner applies them); text is made
//! only at the edges (the model's prompts, CLI output, downloads, the page) by [`FileDiff`]'s `Display`, and text
//! that arrives from outside (a runner request) is read back by the one parser, [`parse_patch`].
//!
//! The text is `git diff` form: `diff --git a/P b/P`, `--- a/P`, `+++ b/P` and hunks with three lines of context, so
//! it applies with `git apply` or `patch -p1`. Unlike `git diff` there is no `index` line (no blob hashes in memory)
//! and no function name after `@@ … @@`. Unusual path names are quoted as git quotes them (see [`quote_path`]), so
//! a path can never forge a `---`, `+++` or `@@` line; and the parser reads a hunk by its line counts, so a removed
//! line that starts with `-- ` (text `--- …`) stays a removed line.
//!
//! Lines end at `\n` only, as `git apply`, `patch` and the runner read them: a lone `\r` is part of its line
//! (`similar`'s own line splitting would end a line there and write a diff that applies nowhere).

use std::fmt::{self, Write};

use serde::{Deserialize, Serialize};
use similar::{ChangeTag, TextDiff};

/// One line of a hunk, with its line ending; a line without `\n` is the last line of a file that has no final
/// newline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", content = "text", rename_all = "snake_case")]
pub enum Line {
    /// Unchanged.
    Context(String),
    /// Only in the original.
    Removed(String),
    /// Only in the new text.
    Added(String),
}

impl Line {
    /// The line's text, line ending included.
    pub fn text(&self) -> &str {
        match self {
            Line::Context(t) | Line::Removed(t) | Line::Added(t) => t,
        }
    }

    fn in_old(&self) -> bool {
        !matches!(self, Line::Added(_))
    }

    fn in_new(&self) -> bool {
        !matches!(self, Line::Removed(_))
    }
}

/// One hunk: where it sits in the original and the new text, and its lines. Starts are as a hunk header writes
/// them: 1-based, and for an empty range the line before it (0 at the top of the file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hunk {
    /// First original line.
    pub old_start: u32,
    /// Original lines covered (context and removed).
    pub old_len: u32,
    /// First new line.
    pub new_start: u32,
    /// New lines covered (context and added).
    pub new_len: u32,
    /// The lines, in order.
    pub lines: Vec<Line>,
}

impl Hunk {
    /// The original's 1-based line numbers of the removed lines.
    pub fn removed_lines(&self) -> Vec<u32> {
        let mut at = self.old_start.max(1);
        let mut removed = Vec::new();
        for line in &self.lines {
            if let Line::Removed(_) = line {
                removed.push(at);
            }
            if line.in_old() {
                at += 1;
            }
        }
        removed
    }

    /// How many lines the hunk adds.
    pub fn added(&self) -> usize {
        self.lines.iter().filter(|l| matches!(l, Line::Added(_))).count()
    }

    /// The original line the changes are anchored at: the first removed line, or, when the hunk only adds, the
    /// original line the first addition goes before.
    pub fn anchor(&self) -> u32 {
        let mut at = self.old_start.max(1);
        for line in &self.lines {
            match line {
                Line::Context(_) => at += 1,
                Line::Removed(_) | Line::Added(_) => return at,
            }
        }
        self.old_start
    }

    /// The `@@ -a,b +c,d @@` line.
    pub fn header(&self) -> String {
        let range = |start: u32, len: u32| if len == 1 { start.to_string() } else { format!("{start},{len}") };
        format!("@@ -{} +{} @@", range(self.old_start, self.old_len), range(self.new_start, self.new_len))
    }
}

/// Lines of context around each change.
const CONTEXT: usize = 3;

/// The changes to one file: its repository path and its hunks, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileDiff {
    /// Repository-relative path.
    pub path: String,
    /// The hunks, in file order.
    pub hunks: Vec<Hunk>,
}

impl FileDiff {
    /// The changes from `old` to `new`, with three lines of context; `None` when the texts are equal.
    pub fn between(path: &str, old: &str, new: &str) -> Option<FileDiff> {
        if old == new {
            return None;
        }
        let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
        let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
        // Only the lines between the common head and tail are diffed, with the three lines of context each side
        // keeps (an edit of a long file is one short stretch of it).
        let head = old_lines.iter().zip(&new_lines).take_while(|(a, b)| a == b).count().saturating_sub(CONTEXT);
        let room = old_lines.len().min(new_lines.len()) - head;
        let tail = old_lines.iter().rev().zip(new_lines.iter().rev()).take(room).take_while(|(a, b)| a == b).count();
        let tail = tail.saturating_sub(CONTEXT);
        let (old_mid, new_mid) = (&old_lines[head..old_lines.len() - tail], &new_lines[head..new_lines.len() - tail]);
        // Myers' algorithm is quadratic on two long, unrelated texts: past the deadline the rest of the difference
        // is written as plain removals and additions (still a correct diff). Natively only: wasm32 has no clock.
        let diff = TextDiff::configure().timeout(std::time::Duration::from_millis(500)).diff_slices(old_mid, new_mid);
        let mut hunks = Vec::new();
        for group in diff.grouped_ops(CONTEXT) {
            let (Some(first), Some(last)) = (group.first(), group.last()) else { continue };
            let old_range = head + first.old_range().start..head + last.old_range().end;
            let new_range = head + first.new_range().start..head + last.new_range().end;
            let start = |r: &std::ops::Range<usize>| (r.start + usize::from(!r.is_empty())) as u32;
            let lines = group
                .iter()
                .flat_map(|op| diff.iter_changes(op))
                .map(|change| {
                    let text = change.value().to_string();
                    match change.tag() {
                        ChangeTag::Equal => Line::Context(text),
                        ChangeTag::Delete => Line::Removed(text),
                        ChangeTag::Insert => Line::Added(text),
                    }
                })
                .collect();
            hunks.push(Hunk {
                old_start: start(&old_range),
                old_len: old_range.len() as u32,
                new_start: start(&new_range),
                new_len: new_range.len() as u32,
                lines,
            });
        }
        Some(FileDiff { path: path.to_string(), hunks })
    }

    /// `old` with the hunks applied. Each hunk goes where its header says, or, when the file has moved, to the
    /// nearest place where its original lines stand (as `patch` does, without fuzz); otherwise it does not apply.
    pub fn apply(&self, old: &str) -> Result<String, HunkMismatch> {
        apply_hunks(&self.hunks, old)
    }
}

impl fmt::Display for FileDiff {
    /// The `git diff` text of the file.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (a, b) = (quote_path(&format!("a/{}", self.path)), quote_path(&format!("b/{}", self.path)));
        write!(f, "diff --git {a} {b}\n--- {a}\n+++ {b}\n")?;
        write_hunks(f, &self.hunks)
    }
}

fn write_hunks(f: &mut impl Write, hunks: &[Hunk]) -> fmt::Result {
    for hunk in hunks {
        writeln!(f, "{}", hunk.header())?;
        for line in &hunk.lines {
            let prefix = match line {
                Line::Context(_) => ' ',
                Line::Removed(_) => '-',
                Line::Added(_) => '+',
            };
            f.write_char(prefix)?;
            f.write_str(line.text())?;
            if !line.text().ends_with('\n') {
                f.write_str("\n\\ No newline at end of file\n")?;
            }
        }
    }
    Ok(())
}

/// A hunk that does not fit the text it is applied to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HunkMismatch {
    /// 1-based position of the hunk in its file's diff.
    pub hunk: usize,
    /// The original line its header names.
    pub line: u32,
}

impl fmt::Display for HunkMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "hunk {} (at line {}) does not match the file", self.hunk, self.line)
    }
}

impl std::error::Error for HunkMismatch {}

/// `old` with `hunks` applied (see [`FileDiff::apply`]).
pub fn apply_hunks(hunks: &[Hunk], old: &str) -> Result<String, HunkMismatch> {
    let lines: Vec<&str> = old.split_inclusive('\n').collect();
    let mut out = String::with_capacity(old.len());
    let mut next = 0usize; // first original line not yet copied (0-based)
    let mut offset: i64 = 0; // how far earlier hunks were found from their headers
    for (k, hunk) in hunks.iter().enumerate() {
        let wanted: Vec<&str> = hunk.lines.iter().filter(|l| l.in_old()).map(Line::text).collect();
        let stated = if hunk.old_len == 0 { hunk.old_start as usize } else { hunk.old_start.max(1) as usize - 1 };
        let fits = |at: usize| {
            at >= next
                && at.checked_add(wanted.len()).is_some_and(|end| end <= lines.len() && lines[at..end] == wanted[..])
        };
        let guess =
            usize::try_from((stated as i64).saturating_add(offset).max(0)).unwrap_or(usize::MAX).min(lines.len());
        let at = (0..=lines.len())
            .flat_map(|d| [guess.checked_add(d), guess.checked_sub(d).filter(|_| d > 0)])
            .flatten()
            .find(|&at| fits(at))
            .ok_or(HunkMismatch { hunk: k + 1, line: hunk.old_start })?;
        offset = (at as i64).saturating_sub(stated as i64);
        out.extend(lines[next..at].iter().copied());
        out.extend(hunk.lines.iter().filter(|l| l.in_new()).map(Line::text));
        next = at + wanted.len();
    }
    out.extend(lines[next..].iter().copied());
    Ok(out)
}

/// The diff of one file as `git diff` text, or an empty string when `old == new`.
pub fn file_diff(path: &str, old: &str, new: &str) -> String {
    FileDiff::between(path, old, new).map(|d| d.to_string()).unwrap_or_default()
}

/// The text of several files' diffs, in order.
pub fn render(diffs: &[FileDiff]) -> String {
    diffs.iter().map(ToString::to_string).collect()
}

/// One file's part of a patch read from text: its paths before and after (`None` for `/dev/null`: created or
/// deleted) and its hunks. Paths are as written, `a/`/`b/` prefixes included; the reader of a snapshot resolves them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchFile {
    /// The original's path; `None` when the patch creates the file.
    pub old_path: Option<String>,
    /// The new path; `None` when the patch deletes the file.
    pub new_path: Option<String>,
    /// A copy (`copy from`/`copy to`): the original stays.
    pub copy: bool,
    /// The hunks.
    pub hunks: Vec<Hunk>,
}

/// Why a patch text cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PatchError {
    /// No file header (`--- a/…` / `+++ b/…` or `diff --git`) was found.
    NoFiles,
    /// A binary patch, a symlink or a submodule: nothing an executor can apply to text files.
    NotText {
        /// 1-based line of the patch.
        line: usize,
    },
    /// A hunk header that cannot be read, or a hunk that ends before its line counts say.
    BadHunk {
        /// 1-based line of the patch.
        line: usize,
    },
    /// A path that cannot be read (a quote never closed).
    BadPath {
        /// 1-based line of the patch.
        line: usize,
    },
}

impl fmt::Display for PatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PatchError::NoFiles => write!(f, "no file header (`--- a/...` / `+++ b/...`) found in the patch"),
            PatchError::NotText { line } => {
                write!(f, "line {line}: binary patches, symlinks and submodules cannot be applied")
            }
            PatchError::BadHunk { line } => {
                write!(f, "line {line}: a hunk header is malformed, or its lines do not add up to its counts")
            }
            PatchError::BadPath { line } => write!(f, "line {line}: a path cannot be read"),
        }
    }
}

impl std::error::Error for PatchError {}

/// Reads a unified diff (plain or `git diff` form, one or more files) into its files and hunks. Hunks are read by
/// their headers' line counts, so a hunk line is never taken for a file header. Lines outside files and hunks (a
/// commit message, `index` lines) are skipped.
pub fn parse_patch(text: &str) -> Result<Vec<PatchFile>, PatchError> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut files: Vec<PatchFile> = Vec::new();
    // Whether the last file began with `diff --git` and has not had its `---`/`+++` pair yet.
    let mut open_git = false;
    let mut i = 0;
    while i < lines.len() {
        let n = i + 1;
        let line = lines[i].trim_end_matches(['\n', '\r']);
        i += 1;
        if let Some(rest) = line.strip_prefix("diff --git ") {
            let (old, new) = git_header_paths(rest).ok_or(PatchError::BadPath { line: n })?;
            files.push(PatchFile { old_path: Some(old), new_path: Some(new), copy: false, hunks: Vec::new() });
            open_git = true;
            continue;
        }
        if line.starts_with("--- ") && lines.get(i).is_some_and(|l| l.starts_with("+++ ")) {
            let old = header_path(&line[4..]).ok_or(PatchError::BadPath { line: n })?;
            let new = header_path(lines[i].trim_end_matches(['\n', '\r'])[4..].as_ref())
                .ok_or(PatchError::BadPath { line: n + 1 })?;
            i += 1;
            match files.last_mut() {
                Some(f) if open_git => {
                    f.old_path = old;
                    f.new_path = new;
                }
                _ => files.push(PatchFile { old_path: old, new_path: new, copy: false, hunks: Vec::new() }),
            }
            open_git = false;
            continue;
        }
        if line.starts_with("@@ ") {
            let Some(file) = files.last_mut() else { return Err(PatchError::BadHunk { line: n }) };
            let (old_start, old_len, new_start, new_len) = hunk_header(line).ok_or(PatchError::BadHunk { line: n })?;
            let (mut old_left, mut new_left) = (old_len, new_len);
            let mut hunk_lines: Vec<Line> = Vec::new();
            while old_left > 0 || new_left > 0 {
                let Some(raw) = lines.get(i) else { return Err(PatchError::BadHunk { line: n }) };
                i += 1;
                let body = |r: &str| {
                    let t = &r[1..];
                    if t.ends_with('\n') { t.to_string() } else { format!("{t}\n") }
                };
                let parsed = match raw.as_bytes().first() {
                    Some(b' ') => Line::Context(body(raw)),
                    Some(b'-') => Line::Removed(body(raw)),
                    Some(b'+') => Line::Added(body(raw)),
                    // Some tools strip the space of an empty context line.
                    Some(b'\n') | Some(b'\r') => Line::Context(raw.to_string()),
                    Some(b'\\') => {
                        no_final_newline(&mut hunk_lines);
                        continue;
                    }
                    _ => return Err(PatchError::BadHunk { line: n }),
                };
                let (in_old, in_new) = (parsed.in_old(), parsed.in_new());
                if (in_old && old_left == 0) || (in_new && new_left == 0) {
                    return Err(PatchError::BadHunk { line: n });
                }
                old_left -= u32::from(in_old);
                new_left -= u32::from(in_new);
                hunk_lines.push(parsed);
            }
            if lines.get(i).is_some_and(|l| l.starts_with('\\')) {
                no_final_newline(&mut hunk_lines);
                i += 1;
            }
            file.hunks.push(Hunk { old_start, old_len, new_start, new_len, lines: hunk_lines });
            continue;
        }
        if line == "-- " {
            break; // a `git format-patch` signature follows the last hunk
        }
        if !open_git
            && files.last().is_some_and(|f| !f.hunks.is_empty())
            && matches!(line.as_bytes().first(), Some(b'+' | b'-' | b' '))
        {
            return Err(PatchError::BadHunk { line: n }); // more hunk lines than the header counted
        }
        if let (Some(file), true) = (files.last_mut(), open_git) {
            let mode = ["new file mode ", "deleted file mode ", "new mode ", "old mode "]
                .iter()
                .find_map(|p| line.strip_prefix(p));
            // 120000 is a symlink, 160000 a submodule.
            if mode.is_some_and(|m| m.starts_with("120") || m.starts_with("160")) {
                return Err(PatchError::NotText { line: n });
            }
            if line.starts_with("new file mode ") {
                file.old_path = None;
            } else if line.starts_with("deleted file mode ") {
                file.new_path = None;
            } else if let Some(p) = line.strip_prefix("rename from ").or_else(|| line.strip_prefix("copy from ")) {
                file.old_path = Some(unquote(p).ok_or(PatchError::BadPath { line: n })?);
                file.copy = line.starts_with("copy");
            } else if let Some(p) = line.strip_prefix("rename to ").or_else(|| line.strip_prefix("copy to ")) {
                file.new_path = Some(unquote(p).ok_or(PatchError::BadPath { line: n })?);
            } else if line.starts_with("GIT binary patch")
                || (line.starts_with("Binary files ") && line.ends_with(" differ"))
            {
                return Err(PatchError::NotText { line: n });
            }
        }
    }
    if files.is_empty() {
        return Err(PatchError::NoFiles);
    }
    Ok(files)
}

/// The `\ No newline at end of file` marker: the line before it has no line ending.
fn no_final_newline(lines: &mut [Line]) {
    if let Some(Line::Context(t) | Line::Removed(t) | Line::Added(t)) = lines.last_mut()
        && t.ends_with('\n')
    {
        t.pop();
    }
}

/// `@@ -a,b +c,d @@ …` as `(a, b, c, d)`; a missing count is 1.
fn hunk_header(line: &str) -> Option<(u32, u32, u32, u32)> {
    let rest = line.strip_prefix("@@ -")?;
    let (ranges, _) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let range = |r: &str| -> Option<(u32, u32)> {
        match r.split_once(',') {
            Some((s, l)) => Some((s.parse().ok()?, l.parse().ok()?)),
            None => Some((r.parse().ok()?, 1)),
        }
    };
    let ((a, b), (c, d)) = (range(old)?, range(new)?);
    Some((a, b, c, d))
}

/// A `---`/`+++` path: `None` for `/dev/null`; a plain path loses a trailing tab and timestamp.
fn header_path(raw: &str) -> Option<Option<String>> {
    let raw = raw.trim_end_matches(['\n', '\r']);
    let path = if raw.starts_with('"') { unquote(raw)? } else { raw.split('\t').next().unwrap_or(raw).to_string() };
    Some((path != "/dev/null").then_some(path))
}

/// `a/X b/Y` from a `diff --git` line (each side may be quoted).
fn git_header_paths(rest: &str) -> Option<(String, String)> {
    if rest.starts_with('"') {
        let end = quoted_end(rest)?;
        let old = unquote(&rest[..end])?;
        let new = unquote(rest[end..].trim_start())?;
        return Some((old, new));
    }
    if let Some(at) = rest.find(" \"") {
        return Some((rest[..at].to_string(), unquote(&rest[at + 1..])?));
    }
    // Unquoted on both sides: the split where both halves name the same path after their prefixes.
    let mid = rest.len() / 2;
    if rest.as_bytes().get(mid) == Some(&b' ') && rest[..mid].get(2..) == rest[mid + 1..].get(2..) {
        return Some((rest[..mid].to_string(), rest[mid + 1..].to_string()));
    }
    let (old, new) = rest.split_once(" b/")?;
    Some((old.to_string(), format!("b/{new}")))
}

/// The byte just after the closing quote of a quoted path at the start of `s`.
fn quoted_end(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut k = 1;
    while k < bytes.len() {
        match bytes[k] {
            b'\\' => k += 2,
            b'"' => return Some(k + 1),
            _ => k += 1,
        }
    }
    None
}

/// A path as git writes it: unchanged when plain, otherwise its C-style quoting undone (the reverse of
/// [`quote_path`]).
fn unquote(s: &str) -> Option<String> {
    let s = s.trim_end_matches(['\n', '\r']);
    let Some(inner) = s.strip_prefix('"') else { return Some(s.to_string()) };
    let inner = inner.strip_suffix('"')?;
    let bytes = inner.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut k = 0;
    while k < bytes.len() {
        if bytes[k] != b'\\' {
            out.push(bytes[k]);
            k += 1;
            continue;
        }
        let c = *bytes.get(k + 1)?;
        k += 2;
        out.push(match c {
            b'a' => 0x07,
            b'b' => 0x08,
            b't' => b'\t',
            b'n' => b'\n',
            b'v' => 0x0b,
            b'f' => 0x0c,
            b'r' => b'\r',
            b'0'..=b'7' => {
                let digits = inner.get(k - 1..k + 2)?;
                k += 2;
                u8::from_str_radix(digits, 8).ok()?
            }
            other => other,
        });
    }
    String::from_utf8(out).ok()
}

/// A path as git writes it in diff headers: unchanged when it is plain, otherwise in double quotes with C-style
/// escapes (`\n`, `\t`, `\"`, `\\`...) and every other control or non-ASCII byte in octal (`\303\251`), as git does
/// with its default `core.quotePath`.
pub fn quote_path(path: &str) -> String {
    let plain = path.bytes().all(|b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\');
    if plain {
        return path.to_string();
    }
    let mut out = String::with_capacity(path.len() + 2);
    out.push('"');
    for b in path.bytes() {
        match b {
            0x07 => out.push_str("\\a"),
            0x08 => out.push_str("\\b"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            0x0b => out.push_str("\\v"),
            0x0c => out.push_str("\\f"),
            b'\r' => out.push_str("\\r"),
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x20..0x7f => out.push(b as char),
            _ => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out.push('"');
    out
}

/// The diff text of several files, in the order given; unchanged files contribute nothing.
pub fn repo_diff<'a>(changes: impl IntoIterator<Item = (&'a str, &'a str, &'a str)>) -> String {
    changes.into_iter().map(|(path, old, new)| file_diff(path, old, new)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_style_headers_and_hunks() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let new = "a\nb\nc\nD\ne\nf\ng\nh\n";
        insta::assert_snapshot!(file_diff("pkg/m.py", old, new), @r"
        diff --git a/pkg/m.py b/pkg/m.py
        --- a/pkg/m.py
        +++ b/pkg/m.py
        @@ -1,7 +1,7 @@
         a
         b
         c
        -d
        +D
         e
         f
         g
        ");
    }

    #[test]
    fn a_lone_carriage_return_stays_inside_its_line() {
        let old = "a = 1\nb = 2 \r c\nd = 3\n";
        let new = "a = 2\nb = 2 \r c\nd = 3\n";
        assert_eq!(
            file_diff("m.py", old, new),
            "diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,3 @@\n-a = 1\n+a = 2\n b = 2 \r c\n d = 3\n"
        );
        let crlf = file_diff("w.py", "x\r\ny\r\n", "x\r\nz\r\n");
        assert!(crlf.ends_with("@@ -1,2 +1,2 @@\n x\r\n-y\r\n+z\r\n"), "{crlf:?}");
        let last = file_diff("e.py", "a\nb\r", "a\nc\r");
        assert!(last.ends_with("-b\r\n\\ No newline at end of file\n+c\r\n\\ No newline at end of file\n"), "{last:?}");
    }

    #[test]
    fn hunk_ranges_follow_the_unified_format() {
        assert_eq!(
            file_diff("n.py", "", "x\n"),
            "diff --git a/n.py b/n.py\n--- a/n.py\n+++ b/n.py\n@@ -0,0 +1 @@\n+x\n"
        );
        assert!(file_diff("n.py", "x\n", "").contains("@@ -1 +0,0 @@\n-x\n"));
    }

    #[test]
    fn unchanged_is_empty_and_missing_newline_is_marked() {
        assert_eq!(file_diff("x.py", "a\n", "a\n"), "");
        let d = file_diff("x.py", "a\nb", "a\nc");
        assert!(d.contains("\\ No newline at end of file"), "{d}");
        let both = repo_diff([("x.py", "a\n", "b\n"), ("y.py", "s\n", "s\n")]);
        assert_eq!(both.matches("diff --git").count(), 1);
    }

    /// Every change written as text reads back as the same values and applies to give the new text.
    #[test]
    fn text_reads_back_as_the_same_hunks_and_applies() {
        let cases = [
            ("a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n", "a\nB\nc\nd\ne\nf\ng\nh\ni\nJ\nk\n"),
            ("x\r\ny\r\n", "x\r\nz\r\n"),
            ("a\nb", "a\nc"),
            ("a\nb\n", "a\nb"),
            ("", "new\n"),
            ("gone\n", ""),
            ("a = 1\nb = 2 \r c\n", "a = 2\nb = 2 \r c\n"),
            ("-- x\n++ y\n--- z\n", "+++ w\n-- x\n"),
        ];
        for (old, new) in cases {
            let diff = FileDiff::between("p/m.py", old, new).expect("a change");
            assert_eq!(diff.apply(old).as_deref(), Ok(new), "{diff}");
            let read = parse_patch(&diff.to_string()).expect("reads");
            assert_eq!(read.len(), 1);
            assert_eq!(
                (read[0].old_path.as_deref(), read[0].new_path.as_deref()),
                (Some("a/p/m.py"), Some("b/p/m.py"))
            );
            assert_eq!(read[0].hunks, diff.hunks, "{diff}");
        }
    }

    #[test]
    fn hunks_apply_where_the_file_has_moved_and_refuse_what_does_not_match() {
        let old = "a\nb\nc\nd\n";
        let diff = FileDiff::between("m.py", old, "a\nb\nC\nd\n").expect("a change");
        assert_eq!(diff.apply(&format!("0\n1\n{old}")).as_deref(), Ok("0\n1\na\nb\nC\nd\n"));
        assert_eq!(diff.apply("a\nb\nx\nd\n"), Err(HunkMismatch { hunk: 1, line: 1 }));
    }

    #[test]
    fn foreign_patches_are_read_or_refused_with_the_line() {
        let git = "commit message\ndiff --git a/x.py b/y.py\nsimilarity index 90%\nrename from x.py\nrename to y.py\n\
                   --- a/x.py\n+++ b/y.py\n@@ -1 +1 @@\n-a\n+b\n\
                   diff --git \"a/caf\\303\\251.py\" \"b/caf\\303\\251.py\"\nnew file mode 100644\n--- /dev/null\n\
                   +++ \"b/caf\\303\\251.py\"\n@@ -0,0 +1 @@\n+x\n\\ No newline at end of file\n";
        let files = parse_patch(git).expect("reads");
        assert_eq!((files[0].old_path.as_deref(), files[0].new_path.as_deref()), (Some("a/x.py"), Some("b/y.py")));
        assert_eq!((files[1].old_path.as_deref(), files[1].new_path.as_deref()), (None, Some("b/caf\u{e9}.py")));
        assert_eq!(files[1].hunks[0].lines, vec![Line::Added("x".into())]);
        let plain = "--- m.py\t2024-01-01 00:00:00\n+++ m.py\t2024-01-02 00:00:00\n@@ -1,2 +1,2 @@\n a\n\n-b\n+c\n";
        assert_eq!(parse_patch(plain), Err(PatchError::BadHunk { line: 6 }), "the counts say 2 lines, 4 came");
        assert_eq!(parse_patch("--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n a\n"), Err(PatchError::BadHunk { line: 3 }));
        assert_eq!(parse_patch("--- a/m.py\n+++ b/m.py\n@@ -x +1 @@\n"), Err(PatchError::BadHunk { line: 3 }));
        assert_eq!(parse_patch("words\n"), Err(PatchError::NoFiles));
        let binary = "diff --git a/i.png b/i.png\nGIT binary patch\nliteral 1\n";
        assert_eq!(parse_patch(binary), Err(PatchError::NotText { line: 2 }));
    }

    #[test]
    fn unusual_paths_are_quoted_as_git_quotes_them() {
        assert_eq!(quote_path("a/pkg/m y.py"), "a/pkg/m y.py");
        assert_eq!(quote_path("a/caf\u{e9}.py"), "\"a/caf\\303\\251.py\"");
        assert_eq!(quote_path("a/x\"\\\t\u{1}.py"), "\"a/x\\\"\\\\\\t\\001.py\"");
        // A path that tries to forge the headers of another file stays on its own header lines.
        let forged = "x.py\n--- a/setup.py\n+++ b/setup.py\n@@ -1 +1 @@";
        let d = file_diff(forged, "a\n", "b\n");
        let lines: Vec<&str> = d.lines().collect();
        assert_eq!(
            lines[0],
            r#"diff --git "a/x.py\n--- a/setup.py\n+++ b/setup.py\n@@ -1 +1 @@" "b/x.py\n--- a/setup.py\n+++ b/setup.py\n@@ -1 +1 @@""#
        );
        assert!(lines[1].starts_with("--- \"a/x.py\\n"), "{d}");
        assert!(!d.lines().any(|l| l.starts_with("--- a/setup.py") || l.starts_with("+++ b/setup.py")), "{d}");
        assert_eq!(d.lines().filter(|l| l.starts_with("@@")).count(), 1, "{d}");
    }
}
