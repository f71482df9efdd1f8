//! The structural index: which classes, methods and functions a repository defines, and where.
//!
//! Valid Python sources are read from the syntax gate's parse (its outline: CPython's statements, about twice as fast
//! as tree-sitter natively and three times in wasm), every other source with tree-sitter, which also recovers the
//! definitions of broken files; both readings give the same result where both apply. It keeps AutoCodeRover's four tables (classes, methods per class, functions,
//! base classes per class) with ACR's conventions: lines are 1-based and inclusive, and a definition starts at its
//! `def`/`class` line (decorators are not part of the range) and ends at its last token that is not a comment,
//! as Python's `ast` has it. These things are done better than ACR does them:
//!
//! - `async def` functions are indexed (ACR's `ast.FunctionDef` walk skips them);
//! - a file with a syntax error still contributes every definition tree-sitter recovers (ACR drops the file);
//! - each definition is recorded once: a function whose nearest enclosing class is `C` is a method of `C` and is
//!   not repeated in the function table, and two classes of the same name in one file do not list each other's
//!   methods twice (ACR's 2024 index did);
//! - the function table holds every function outside a class, also those nested in a function or defined under
//!   `if`/`try` at module level (ACR's 2024 index kept only module-level `def`s).
//!
//! Measured against ACR's 2024 `ast` index on the 18 replay trees: class and function ranges agree exactly;
//! methods differ only where listed above (and ACR's search treats methods of nested classes as methods of the
//! outer class, which [`crate::search`] reproduces at search time).
//!
//! What differs between languages for tree-sitter is a [`Grammar`] row (node kinds and field names), not code.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tree_sitter::{Node, Parser, Tree};

use crate::repo::Repo;

pub use crate::language::{Grammar, Language, PYTHON};
pub use crate::python::python_parser;

/// A definition's name, stored once per definition and shared by every table and by the definitions nested in it
/// (a method refers to its class's name; it does not copy it), so memory grows with the source, not with
/// methods times name length.
pub type Name = Arc<str>;

/// Index of a file in [`Index::files`].
pub type FileId = u32;

/// Where a definition lives: a file and an inclusive, 1-based line range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Span {
    /// The file, as an index into [`Index::files`].
    pub file: FileId,
    /// First line (the `def`/`class` line).
    pub start: u32,
    /// Last line, inclusive.
    pub end: u32,
}

/// What kind of definition a [`Def`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DefKind {
    /// A `class` statement.
    Class,
    /// A function whose nearest enclosing class is [`Def::class`].
    Method,
    /// A function with no enclosing class.
    Function,
}

/// One definition in a file, as recorded in [`FileEntry::defs`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Def {
    /// Class, method or function.
    pub kind: DefKind,
    /// The defined name.
    pub name: Name,
    /// For methods, the enclosing class's name; for classes and functions, the nearest enclosing class, if any.
    pub class: Option<Name>,
    /// First line (1-based).
    pub start: u32,
    /// Last line (inclusive).
    pub end: u32,
}

/// One indexed source file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    /// Relative `/`-separated path.
    pub path: String,
    /// Size in bytes.
    pub bytes: usize,
    /// Number of lines.
    pub lines: u32,
    /// Whether tree-sitter found a syntax error (definitions it recovered are still indexed).
    pub has_error: bool,
    /// Definitions in source order (by start line).
    pub defs: Vec<Def>,
}

/// Counts describing an index, as printed by `acr index` and shown by the playground.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct IndexStats {
    /// Source files indexed.
    pub files: usize,
    /// Files parsed without any syntax error.
    pub parsed: usize,
    /// Files with at least one syntax error.
    pub with_errors: usize,
    /// Class definitions.
    pub classes: usize,
    /// Method definitions (functions whose nearest enclosing scope chain contains a class).
    pub methods: usize,
    /// Functions outside any class.
    pub functions: usize,
    /// Bytes of source indexed.
    pub bytes: usize,
}

/// The four lookup tables plus the per-file definition lists.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Index {
    /// Indexed files; a [`FileId`] is a position here.
    pub files: Vec<FileEntry>,
    /// Class name to every definition of a class with that name.
    pub classes: HashMap<Name, Vec<Span>>,
    /// Class name to method name to definitions (classes of the same name in different files share an entry).
    pub class_methods: HashMap<Name, HashMap<Name, Vec<Span>>>,
    /// Function name to every function (not method) with that name.
    pub functions: HashMap<Name, Vec<Span>>,
    /// Class name to the names of its base classes, as written (`Base`, `mod.Base`).
    pub class_bases: HashMap<Name, Vec<Name>>,
}

impl Index {
    /// Indexes every source file of a repository ([`Repo::source_files`]: not tests, in a [`Language`] it reads).
    ///
    /// Natively, files are parsed on every available core (each thread with its own parser) and entered into the
    /// tables in path order, so the result is the same as [`IndexBuilder::add_file`] file by file. In wasm32 the
    /// files are parsed one after another.
    pub fn build(repo: &Repo) -> Index {
        let sources: Vec<(&str, &str)> = repo.source_files().collect();
        Index::from_parsed(parse_all(&sources))
    }

    /// Enters files parsed elsewhere (see [`IndexBuilder::parse`]), in the order given: in path order, the same
    /// index as [`Index::build`] on the same files.
    pub fn from_parsed(parsed: impl IntoIterator<Item = ParsedFile>) -> Index {
        let mut index = Index::default();
        for p in parsed {
            index.insert(p);
        }
        index
    }

    /// Enters one parsed file into the tables.
    fn insert(&mut self, parsed: ParsedFile) -> &FileEntry {
        let id = self.files.len() as FileId;
        for d in &parsed.entry.defs {
            let span = Span { file: id, start: d.start, end: d.end };
            match d.kind {
                DefKind::Class => self.classes.entry(d.name.clone()).or_default().push(span),
                DefKind::Method => {
                    let class = d.class.clone().unwrap_or_default();
                    let methods = self.class_methods.entry(class).or_default();
                    methods.entry(d.name.clone()).or_default().push(span);
                }
                DefKind::Function => self.functions.entry(d.name.clone()).or_default().push(span),
            }
        }
        for (class, bases) in parsed.bases {
            let entry = self.class_bases.entry(class).or_default();
            // Usually a handful of bases: a linear check; a set only when a class collects many (hostile input).
            if entry.len() + bases.len() <= 32 {
                for b in bases {
                    if !entry.contains(&b) {
                        entry.push(b);
                    }
                }
            } else {
                let mut seen: HashSet<Name> = entry.iter().cloned().collect();
                entry.extend(bases.into_iter().filter(|b| seen.insert(b.clone())));
            }
        }
        self.files.push(parsed.entry);
        self.files.last().expect("just pushed")
    }

    /// The class-table key a class name stands for: the name itself when a class (or a method table) has it, else
    /// the one nested class whose own name it is (Java's `Outer.Inner` for `Inner`). `None` when no class has it, or
    /// when several nested classes do (the caller then reports the name as not found).
    pub fn class_key(&self, name: &str) -> Option<&Name> {
        if let Some((key, _)) = self.classes.get_key_value(name) {
            return Some(key);
        }
        if let Some((key, _)) = self.class_methods.get_key_value(name) {
            return Some(key);
        }
        let mut nested = self.classes.keys().filter(|k| k.rsplit_once('.').is_some_and(|(_, own)| own == name));
        match (nested.next(), nested.next()) {
            (Some(key), None) => Some(key),
            _ => None,
        }
    }

    /// The path of a file id.
    pub fn path(&self, file: FileId) -> &str {
        &self.files[file as usize].path
    }

    /// The file id of an exact path.
    pub fn file_id(&self, path: &str) -> Option<FileId> {
        self.files.iter().position(|f| f.path == path).map(|i| i as FileId)
    }

    /// How many files of each language the index holds, in [`Language::ALL`] order, leaving out languages with none.
    pub fn files_by_language(&self) -> Vec<(Language, usize)> {
        let mut counts: Vec<(Language, usize)> = Language::ALL.iter().map(|&l| (l, 0)).collect();
        for f in &self.files {
            if let Some(count) = counts.iter_mut().find(|(l, _)| Language::of_path(&f.path) == Some(*l)) {
                count.1 += 1;
            }
        }
        counts.retain(|(_, n)| *n > 0);
        counts
    }

    /// Files per language by the language's name, in [`Language::ALL`]'s order; rows of one language (TypeScript's
    /// two grammars) count together.
    pub fn files_per_language_name(&self) -> Vec<(&'static str, usize)> {
        let mut counts: Vec<(&'static str, usize)> = Vec::new();
        for (language, n) in self.files_by_language() {
            match counts.iter_mut().find(|(name, _)| *name == language.name()) {
                Some((_, total)) => *total += n,
                None => counts.push((language.name(), n)),
            }
        }
        counts
    }

    /// [`Index::files_per_language_name`] as people read it: `Python 12, Java 3` (`none` for an empty index).
    pub fn languages_summary(&self) -> String {
        let counts: Vec<String> =
            self.files_per_language_name().iter().map(|(name, n)| format!("{name} {n}")).collect();
        if counts.is_empty() { "none".to_string() } else { counts.join(", ") }
    }

    /// Summary counts.
    pub fn stats(&self) -> IndexStats {
        let mut s = IndexStats { files: self.files.len(), ..IndexStats::default() };
        for f in &self.files {
            s.bytes += f.bytes;
            if f.has_error {
                s.with_errors += 1;
            } else {
                s.parsed += 1;
            }
            for d in &f.defs {
                match d.kind {
                    DefKind::Class => s.classes += 1,
                    DefKind::Method => s.methods += 1,
                    DefKind::Function => s.functions += 1,
                }
            }
        }
        s
    }
}

/// Builds an [`Index`] one file at a time, so that callers can report progress between files.
pub struct IndexBuilder {
    /// A parser and resolved kinds per language, made when a file of that language first comes.
    parsers: Vec<(Language, Parser, KindIds)>,
    index: Index,
}

/// What a node kind id means to the walk.
#[derive(Debug, Clone, Copy, Default)]
struct KindRole {
    class: bool,
    function: bool,
    /// Binds a value to a name: a function's definition when the value is one ([`Grammar::bindings`]).
    binding: bool,
    /// Definitions can occur below a node of this kind.
    container: bool,
}

/// A [`Grammar`]'s node kinds resolved to the parser's numeric ids, so the walk compares numbers.
struct KindIds {
    /// Indexed by kind id.
    roles: Vec<KindRole>,
}

impl KindIds {
    fn new(g: &Grammar, language: &tree_sitter::Language) -> KindIds {
        let mut roles = vec![
            KindRole { container: g.container_kinds.is_none(), ..KindRole::default() };
            language.node_kind_count()
        ];
        let mut mark = |kinds: &[&str], set: fn(&mut KindRole)| {
            // Id 0 means the grammar has no such kind.
            for id in kinds.iter().map(|k| language.id_for_node_kind(k, true)).filter(|&i| i != 0) {
                if let Some(role) = roles.get_mut(id as usize) {
                    set(role);
                }
            }
        };
        mark(g.class_kinds, |r| r.class = true);
        mark(g.function_kinds, |r| r.function = true);
        let bindings: Vec<&str> = g.bindings.iter().map(|b| b.kind).collect();
        mark(&bindings, |r| r.binding = true);
        mark(g.container_kinds.unwrap_or(&[]), |r| r.container = true);
        KindIds { roles }
    }

    /// The role of a kind id; kinds the grammar does not list (error nodes) are walked into.
    fn role(&self, kind: u16) -> KindRole {
        self.roles.get(kind as usize).copied().unwrap_or(KindRole { container: true, ..KindRole::default() })
    }
}

impl Default for IndexBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl IndexBuilder {
    /// A builder for every [`Language`] of this build.
    pub fn new() -> Self {
        IndexBuilder { parsers: Vec::new(), index: Index::default() }
    }

    /// The parser and kinds for a language, made on first use.
    fn parser_for(&mut self, language: Language) -> (&mut Parser, &KindIds) {
        let at = match self.parsers.iter().position(|(l, _, _)| *l == language) {
            Some(at) => at,
            None => {
                let parser = language.parser();
                let kinds = match parser.language() {
                    Some(ts) => KindIds::new(language.grammar(), &ts),
                    None => KindIds { roles: Vec::new() },
                };
                self.parsers.push((language, parser, kinds));
                self.parsers.len() - 1
            }
        };
        let (_, parser, kinds) = &mut self.parsers[at];
        (parser, kinds)
    }

    /// Parses and indexes one file. The caller decides which files are sources (see [`Repo::source_files`]).
    pub fn add_file(&mut self, path: &str, text: &str) -> &FileEntry {
        let parsed = self.parse(path, text);
        self.insert(parsed)
    }

    /// Parses one file without touching the tables: the part of indexing that can run anywhere (another thread, a
    /// Web Worker) and be entered later with [`IndexBuilder::insert`]. The language comes from the path
    /// ([`Language::of_path`]; Python when the extension names none).
    ///
    /// A source whose language's syntax check outlines ([`crate::gate::SyntaxCheck::outlines`]: Python's) is read
    /// from that outline first ([`gate_outline`]), which reads a
    /// source of at most [`OUTLINE_MAX_BYTES`] that the syntax gate's parser accepts from that parse (about twice as
    /// fast as tree-sitter natively, three times in wasm); any other source, and every source of a language with no
    /// outline, is parsed with tree-sitter ([`IndexBuilder::parse_tree`]).
    /// Both give the same [`ParsedFile`] for a source both accept (`core/tests/index_outline.rs` checks every file
    /// of the replay trees, and the `syntax_gate` fuzz target arbitrary sources).
    pub fn parse(&mut self, path: &str, text: &str) -> ParsedFile {
        if Language::for_path(path).row().syntax.outlines()
            && let Some(parsed) = gate_outline(path, text)
        {
            return parsed;
        }
        self.parse_tree(path, text)
    }

    /// [`IndexBuilder::parse`] with tree-sitter whatever the source: the reference the gate's outline is measured
    /// against, and the only reader of sources with syntax errors (tree-sitter recovers their definitions).
    pub fn parse_tree(&mut self, path: &str, text: &str) -> ParsedFile {
        let language = Language::for_path(path);
        let (parser, kinds) = self.parser_for(language);
        let tree = language.parse(parser, text);
        let mut defs = Vec::new();
        let mut bases = HashMap::new();
        let has_error = match &tree {
            Some(tree) => {
                collect(language.grammar(), kinds, tree, text.as_bytes(), &mut defs, &mut bases);
                tree.root_node().has_error()
            }
            // Only a cancelled parse returns None; treat it as unparsable.
            None => true,
        };
        parsed_file(path, text, has_error, defs, bases)
    }

    /// Enters a parsed file into the tables. Entering the files of a repository in path order gives the same index as
    /// [`Index::build`].
    pub fn insert(&mut self, parsed: ParsedFile) -> &FileEntry {
        self.index.insert(parsed)
    }

    /// The index built so far.
    pub fn finish(self) -> Index {
        self.index
    }
}

/// The largest source [`IndexBuilder::parse`] reads from the gate's outline. The gate holds its tokens and syntax
/// tree while it reads, 20 to 35 bytes of heap per source byte, so this bounds one file's transient memory at about
/// 35 MiB (an indexing worker's wasm memory never shrinks); larger files, which are rare and mostly generated, go to
/// tree-sitter.
pub const OUTLINE_MAX_BYTES: usize = 1 << 20;

/// A Python source's [`ParsedFile`] read from the syntax gate's outline (for the languages whose
/// [`crate::gate::SyntaxCheck::outlines`]): `None` for a source larger than [`OUTLINE_MAX_BYTES`] or one the
/// gate's parser refuses.
pub fn gate_outline(path: &str, text: &str) -> Option<ParsedFile> {
    if text.len() > OUTLINE_MAX_BYTES {
        return None;
    }
    crate::gate::outline(text).map(|outline| from_outline(path, text, &outline))
}

/// A [`ParsedFile`] from its definitions (in any order) and bases.
fn parsed_file(
    path: &str,
    text: &str,
    has_error: bool,
    mut defs: Vec<Def>,
    bases: HashMap<Name, Vec<Name>>,
) -> ParsedFile {
    defs.sort_by_key(|d| (d.start, std::cmp::Reverse(d.end)));
    let newlines = memchr::memchr_iter(b'\n', text.as_bytes()).count();
    let lines = (newlines + usize::from(!text.is_empty() && !text.ends_with('\n'))) as u32;
    ParsedFile { entry: FileEntry { path: path.to_string(), bytes: text.len(), lines, has_error, defs }, bases }
}

/// A Python file's [`ParsedFile`] from the gate's outline of it, with the conventions [`collect`] follows on
/// tree-sitter's tree: the nearest enclosing class makes a function a method, and bases go through [`add_bases`].
fn from_outline(path: &str, text: &str, outline: &crate::gate::Outline) -> ParsedFile {
    let g = &PYTHON;
    let mut names: Vec<Name> = Vec::with_capacity(outline.defs.len());
    let mut defs = Vec::with_capacity(outline.defs.len());
    let mut bases = HashMap::new();
    for d in &outline.defs {
        let name: Name = Arc::from(&outline.text[d.name.clone()]);
        names.push(name.clone());
        let enclosing = d.enclosing_class.map(|c| names[c].clone());
        let kind = match (d.class, &enclosing) {
            (true, _) => {
                add_bases(g, &name, d.bases.iter().map(|b| &outline.text[b.clone()]), &mut bases);
                DefKind::Class
            }
            (false, Some(_)) => DefKind::Method,
            (false, None) => DefKind::Function,
        };
        defs.push(Def { kind, name, class: enclosing, start: d.start, end: d.end });
    }
    parsed_file(path, text, false, defs, bases)
}

/// A file parsed but not yet entered into the tables: its entry and the bases of the classes it defines.
///
/// Serialisable so that files parsed elsewhere (the playground's indexing workers) or earlier (its index cache)
/// can be entered without parsing again. Its serialised form changes with [`PARSED_FORMAT`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParsedFile {
    /// The file's entry, definitions included.
    pub entry: FileEntry,
    /// Class name to the bases written in this file.
    pub bases: HashMap<Name, Vec<Name>>,
}

/// Version of [`ParsedFile`]'s serialised form and of what the parse extracts: stored parsed files of another
/// version must be parsed again, never trusted.
pub const PARSED_FORMAT: u32 = 3;

/// The first bytes of [`encode_parsed`]'s output, before the little-endian [`PARSED_FORMAT`].
const PARSED_MAGIC: &[u8; 4] = b"ACRP";

/// Parsed files in a compact binary form: a header naming [`PARSED_FORMAT`], then the files (postcard). This is how
/// the playground's indexing workers hand files back and how its index cache stores them: several times smaller
/// and quicker to read than JSON.
pub fn encode_parsed(files: &[ParsedFile]) -> Vec<u8> {
    let mut out = PARSED_MAGIC.to_vec();
    out.extend_from_slice(&PARSED_FORMAT.to_le_bytes());
    // Writing plain data into a growing buffer cannot fail.
    postcard::to_extend(files, out).expect("parsed files serialise")
}

/// Reads what [`encode_parsed`] wrote. Bytes of another format version, or that do not decode to the end, are an
/// error: the caller parses the files again.
pub fn decode_parsed(bytes: &[u8]) -> Result<Vec<ParsedFile>, String> {
    let header = PARSED_MAGIC.len() + 4;
    if bytes.len() < header || &bytes[..4] != PARSED_MAGIC {
        return Err("not a parsed-files record".into());
    }
    let format = u32::from_le_bytes(bytes[4..header].try_into().expect("four bytes"));
    if format != PARSED_FORMAT {
        return Err(format!("parsed files of format {format}, expected {PARSED_FORMAT}"));
    }
    match postcard::take_from_bytes(&bytes[header..]) {
        Ok((files, [])) => Ok(files),
        Ok(_) => Err("trailing bytes after the parsed files".into()),
        Err(e) => Err(format!("unreadable parsed files: {e}")),
    }
}

/// Parses every source, in order. Natively the work is spread over the available cores.
#[cfg(not(target_arch = "wasm32"))]
fn parse_all(sources: &[(&str, &str)]) -> Vec<ParsedFile> {
    const MIN_FILES_PER_THREAD: usize = 16;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = cores.min(8).min(sources.len() / MIN_FILES_PER_THREAD).max(1);
    if threads == 1 {
        let mut builder = IndexBuilder::new();
        return sources.iter().map(|(p, t)| builder.parse(p, t)).collect();
    }
    // Largest files first, each thread taking the next one when it is free: a few big files (sympy has 400 KB ones)
    // cannot leave one thread working alone at the end. The results are put back in path order.
    let mut order: Vec<usize> = (0..sources.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(sources[i].1.len()));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut parsed: Vec<(usize, ParsedFile)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut builder = IndexBuilder::new();
                    let mut out = Vec::new();
                    loop {
                        let taken = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(&i) = order.get(taken) else { break out };
                        let (path, text) = sources[i];
                        out.push((i, builder.parse(path, text)));
                    }
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().expect("an index worker panicked")).collect()
    });
    parsed.sort_by_key(|(i, _)| *i);
    parsed.into_iter().map(|(_, p)| p).collect()
}

/// Parses every source, in order (wasm32 has no threads here).
#[cfg(target_arch = "wasm32")]
fn parse_all(sources: &[(&str, &str)]) -> Vec<ParsedFile> {
    let mut builder = IndexBuilder::new();
    sources.iter().map(|(p, t)| builder.parse(p, t)).collect()
}

/// Walks the tree once, depth first, tracking the nearest enclosing class; records definitions and, at each
/// class, its base classes. Subtrees that cannot hold a definition (expressions, simple statements) are skipped
/// unless they contain a syntax error.
fn collect(
    g: &Grammar,
    k: &KindIds,
    tree: &Tree,
    src: &[u8],
    out: &mut Vec<Def>,
    bases: &mut HashMap<Name, Vec<Name>>,
) {
    let mut cursor = tree.walk();
    // (node id, class name it opens) for classes we are inside of.
    let mut class_stack: Vec<(usize, Name)> = Vec::new();
    loop {
        let node = cursor.node();
        let role = k.role(node.kind_id());
        let mut opened_class = None;
        if (role.class || role.function || role.binding)
            && let Some(text) = g.definition_name(node, src)
        {
            let enclosing = class_stack.last().map(|(_, c)| c.clone());
            let name: Name = match &enclosing {
                Some(outer) if role.class && g.qualify_nested => Arc::from(format!("{outer}.{text}")),
                _ => Arc::from(text),
            };
            let bound_class = if role.binding { g.bound_class(node).map(|(_, class)| class) } else { None };
            let def_kind = if role.class || bound_class.is_some() {
                opened_class = Some(name.clone());
                record_bases(g, bound_class.unwrap_or(node), &name, src, bases);
                DefKind::Class
            } else if enclosing.is_some() {
                DefKind::Method
            } else {
                DefKind::Function
            };
            let start = node.start_position().row as u32 + 1;
            let end = end_line(node);
            out.push(Def { kind: def_kind, name, class: enclosing, start, end });
        }
        if let Some(c) = opened_class {
            class_stack.push((node.id(), c));
        }
        let descend = role.container || node.has_error();
        if descend && cursor.goto_first_child() {
            continue;
        }
        // Climb until a sibling exists, closing classes we leave.
        loop {
            if class_stack.last().is_some_and(|(id, _)| *id == cursor.node().id()) {
                class_stack.pop();
            }
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

/// The last line of a definition (1-based): the line of its last token that is not a comment, as Python's `ast`
/// reports it (tree-sitter puts comments that follow the last statement inside the block). A token that ends at
/// column 0 ends on the line before.
fn end_line(node: Node<'_>) -> u32 {
    let mut last = node;
    while let Some(child) = last_code_child(last) {
        last = child;
    }
    let end = last.end_position();
    let row = if end.column == 0 && end.row > last.start_position().row { end.row - 1 } else { end.row };
    row as u32 + 1
}

/// The last child that is not a comment, found in one forward pass: `Node::child(i)` and `prev_sibling` each cost
/// up to O(children) in tree-sitter, so walking backwards from the end would be quadratic in a block that ends in
/// many comments.
fn last_code_child(node: Node<'_>) -> Option<Node<'_>> {
    let mut cursor = node.walk();
    let mut last = None;
    for child in node.children(&mut cursor) {
        if child.kind() != "comment" {
            last = Some(child);
        }
    }
    last
}

/// Adds a class's base names (as written, whitespace removed; the grammar's ignored names such as `object`
/// dropped) to its entry.
fn record_bases(g: &Grammar, class: Node<'_>, name: &Name, src: &[u8], out: &mut HashMap<Name, Vec<Name>>) {
    let mut names = Vec::new();
    let mut c = class.walk();
    for holder in class.children(&mut c).filter(|n| g.base_holders.contains(&n.kind())) {
        base_nodes(g, holder, &mut names);
    }
    add_bases(g, name, names.into_iter().filter_map(|node| node.utf8_text(src).ok()), out);
}

/// Adds base names as written (whitespace removed), leaving out the grammar's ignored names and names the class
/// already has.
fn add_bases<'t>(
    g: &Grammar,
    class: &Name,
    written: impl Iterator<Item = &'t str>,
    out: &mut HashMap<Name, Vec<Name>>,
) {
    let entry = out.entry(class.clone()).or_default();
    let mut seen: HashSet<Name> = entry.iter().cloned().collect();
    for text in written {
        let base: String = text.split_whitespace().collect();
        if !g.ignored_bases.contains(&base.as_str()) && !seen.contains(base.as_str()) {
            let base: Name = Arc::from(base);
            seen.insert(base.clone());
            entry.push(base);
        }
    }
}

/// The nodes naming bases in a base list, in order, looking into the grammar's wrappers (Java's type lists and
/// generic types; never into type arguments or keyword arguments, so the depth stays small).
fn base_nodes<'t>(g: &Grammar, list: Node<'t>, out: &mut Vec<Node<'t>>) {
    let mut c = list.walk();
    for arg in list.named_children(&mut c) {
        if g.base_wrappers.contains(&arg.kind()) {
            base_nodes(g, arg, out);
        } else if g.base_kinds.contains(&arg.kind()) {
            out.push(arg);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "\
import os

class Base(object):
    x = 1

    @property
    def name(self):
        return 'b'

class Child(Base, mod.Mixin, metaclass=Meta):
    async def fetch(self):
        def inner():
            pass
        return inner

def top():
    class Local:
        def m(self):
            pass
    return Local
";

    fn index_of(files: &[(&str, &str)]) -> Index {
        let mut b = IndexBuilder::new();
        for (p, t) in files {
            b.add_file(p, t);
        }
        b.finish()
    }

    #[test]
    fn tables_hold_each_definition_once() {
        let idx = index_of(&[("a.py", SRC)]);
        assert_eq!(idx.classes["Base"], vec![Span { file: 0, start: 3, end: 8 }]);
        // Decorators are excluded from the range.
        assert_eq!(idx.class_methods["Base"]["name"], vec![Span { file: 0, start: 7, end: 8 }]);
        // async def is indexed; a nested function belongs to the nearest class.
        assert_eq!(idx.class_methods["Child"]["fetch"], vec![Span { file: 0, start: 11, end: 14 }]);
        assert!(idx.class_methods["Child"].contains_key("inner"));
        assert_eq!(idx.functions["top"], vec![Span { file: 0, start: 16, end: 20 }]);
        assert!(!idx.functions.contains_key("name"), "methods are not repeated as functions");
        assert_eq!(idx.class_methods["Local"]["m"].len(), 1);
        assert_eq!(idx.class_bases["Child"], vec![Name::from("Base"), Name::from("mod.Mixin")]);
        assert!(idx.class_bases["Base"].is_empty(), "object is dropped");
        let s = idx.stats();
        assert_eq!((s.files, s.parsed, s.classes, s.methods, s.functions), (1, 1, 3, 4, 1));
    }

    /// Every node kind that the grammar allows to hold a block, a statement or a definition must be walked into.
    #[test]
    fn container_kinds_cover_the_grammar() {
        let types: serde_json::Value =
            serde_json::from_str(tree_sitter_python::NODE_TYPES).expect("node-types.json parses");
        let holds = [
            "block",
            "_statement",
            "_compound_statement",
            "_simple_statement",
            "function_definition",
            "class_definition",
            "decorated_definition",
        ];
        let containers = PYTHON.container_kinds.expect("Python lists its containers");
        let mut missing = Vec::new();
        for node in types.as_array().expect("a list of node types") {
            let mut child_types = Vec::new();
            if let Some(fields) = node["fields"].as_object() {
                for f in fields.values() {
                    child_types.extend(f["types"].as_array().into_iter().flatten());
                }
            }
            child_types.extend(node["children"]["types"].as_array().into_iter().flatten());
            let kind = node["type"].as_str().unwrap_or("");
            if child_types.iter().any(|t| holds.contains(&t["type"].as_str().unwrap_or("")))
                && !containers.contains(&kind)
            {
                missing.push(kind.to_string());
            }
        }
        assert!(missing.is_empty(), "not walked into: {missing:?}");
        assert!(containers.len() >= 15);
    }

    #[test]
    fn definitions_inside_compound_statements_and_broken_code_are_found() {
        let src = "\
if X:
    def a(): pass
elif Y:
    def b(): pass
else:
    def c(): pass
for i in x:
    def d(): pass
while 1:
    def e(): pass
try:
    def f(): pass
except E:
    def g(): pass
finally:
    def h(): pass
with ctx:
    def i(): pass
match v:
    case 1:
        def j(): pass
x = [lambda: 1 for _ in y]
def k(:
    def l(): pass
";
        let idx = index_of(&[("c.py", src)]);
        let mut names: Vec<&str> = idx.functions.keys().map(|k| &**k).collect();
        names.sort_unstable();
        assert_eq!(names, ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"]);
    }

    #[test]
    fn trailing_comments_are_not_part_of_a_definition() {
        let src = "class A:\n    def f(self):\n        if x:\n            y = 1\n            # after y\n        # after if\n    # after f\n\n# top\ndef g(): pass  # same line\n";
        let idx = index_of(&[("t.py", src)]);
        assert_eq!(idx.classes["A"][0].end, 4);
        assert_eq!(idx.class_methods["A"]["f"][0].end, 4);
        assert_eq!(idx.functions["g"][0].end, 10);
    }

    #[test]
    fn line_counts_match_str_lines() {
        for text in ["", "a", "a\n", "a\nb", "a\r\nb\r\n", "\n\n"] {
            let idx = index_of(&[("x.py", text)]);
            assert_eq!(idx.files[0].lines as usize, text.lines().count(), "{text:?}");
        }
    }

    #[test]
    fn broken_files_still_contribute_definitions() {
        let broken =
            "class Good:\n    def ok(self):\n        return 1\n\ndef bad(:\n    pass\n\ndef fine():\n    pass\n";
        let idx = index_of(&[("b.py", broken)]);
        let s = idx.stats();
        assert_eq!(s.with_errors, 1);
        assert!(idx.classes.contains_key("Good"));
        assert!(idx.functions.contains_key("fine"));
    }

    #[test]
    fn same_name_across_files_is_a_list() {
        let idx = index_of(&[("a.py", "def f():\n    pass\n"), ("b.py", "\n\ndef f():\n    pass\n")]);
        assert_eq!(idx.functions["f"], vec![Span { file: 0, start: 1, end: 2 }, Span { file: 1, start: 3, end: 4 }]);
    }

    #[test]
    fn parallel_build_equals_file_by_file() {
        let files: Vec<(String, String)> = (0..120)
            .map(|i| {
                let text = format!(
                    "class C{m}(Base{m}):\n    def run(self):\n        pass\n\nclass Shared(B{i}):\n    pass\n\ndef f{i}():\n    return {i}\n",
                    m = i % 7
                );
                (format!("pkg/m{i:03}.py"), text)
            })
            .collect();
        let repo = Repo::from_files(files.iter().map(|(p, t)| (p.as_str(), t.as_bytes())));
        let parallel = Index::build(&repo);
        let sequential = index_of(&files.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect::<Vec<_>>());
        assert_eq!(parallel.classes, sequential.classes);
        assert_eq!(parallel.class_methods, sequential.class_methods);
        assert_eq!(parallel.functions, sequential.functions);
        assert_eq!(parallel.class_bases, sequential.class_bases);
        assert_eq!(parallel.class_bases["Shared"].len(), 120, "bases merge across files in file order");
        assert_eq!(&*parallel.class_bases["Shared"][0], "B0");
        assert_eq!(parallel, sequential);
    }

    #[test]
    fn parsed_files_entered_after_serialisation_give_the_same_index() {
        let files: Vec<(String, String)> = (0..40)
            .map(|i| {
                let body = "    def m(self):\n        return 1\n".repeat(i % 5);
                (format!("p/m{i:02}.py"), format!("class K{i}(Base, mix.In):\n{body}    pass\n\ndef top{i}(): ...\n"))
            })
            .collect();
        let repo = Repo::from_files(files.iter().map(|(p, t)| (p.as_str(), t.as_bytes())));
        let mut builder = IndexBuilder::new();
        let parsed: Vec<ParsedFile> = files.iter().map(|(p, t)| builder.parse(p, t)).collect();
        let json = serde_json::to_string(&parsed).expect("serialises");
        let back: Vec<ParsedFile> = serde_json::from_str(&json).expect("deserialises");
        assert_eq!(back, parsed);
        assert_eq!(Index::from_parsed(back), Index::build(&repo));
        let bytes = encode_parsed(&parsed);
        assert_eq!(decode_parsed(&bytes).expect("decodes"), parsed);
    }

    #[test]
    fn parsed_bytes_of_another_format_or_cut_short_are_refused() {
        let repo = Repo::from_files([("a.py", "class A:\n    def f(self): pass\n")]);
        let mut builder = IndexBuilder::new();
        let parsed: Vec<ParsedFile> = repo.source_files().map(|(p, t)| builder.parse(p, t)).collect();
        let bytes = encode_parsed(&parsed);
        let mut old = bytes.clone();
        old[4..8].copy_from_slice(&(PARSED_FORMAT - 1).to_le_bytes());
        assert!(decode_parsed(&old).unwrap_err().contains("format"));
        assert!(decode_parsed(&bytes[..bytes.len() - 1]).is_err());
        assert!(decode_parsed(&[bytes.as_slice(), &[0]].concat()).unwrap_err().contains("trailing"));
        assert!(decode_parsed(b"{\"json\": true}").is_err());
    }
}
