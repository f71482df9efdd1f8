//! Turning an imprecise bug location from the model (file? class? method?) into real code.
//!
//! [`resolve`] tries six tiers in order and stops at the first that finds something:
//!
//! 1. the method in the class (the file, when given and it holds the class, narrows the choice; when the class does
//!    not define the method, its nearest ancestor that does is used);
//! 2. the method (or function) in the file;
//! 3. the class in the file;
//! 4. the class anywhere;
//! 5. the method (or function) anywhere;
//! 6. the whole file.
//!
//! A tier needs the fields it uses; tiers whose fields are absent are skipped. File names are read by the one
//! policy of [`crate::paths`], so `models.py`, `requests/models.py` and `/testbed/requests/models.py` all name
//! `requests/models.py`; a name that fits several files (or only ends a file's name) is reported in the tier's detail, in the policy's
//! words ([`crate::paths::PathMatch::note`]). [`Query::new`] cleans the fields first: empty or placeholder values (`None`, `N/A`) mean
//! absent, `def`/`class` keywords and argument lists are dropped, and `Class.method` written in one field is split.
//!
//! When the hit is a method of a class, the whole class comes back as context, together with the nearest
//! ancestor's definition of the same method (breadth first over [`Index::class_bases`], base names resolved by
//! their last dotted segment, across files), since the bug may live there.
//!
//! A [`BugLocation`] carries the code re-read from the file at its line range. Locations are equal when file, start
//! and end are; [`dedup`] collapses duplicates.

use std::collections::{HashSet, VecDeque};
use std::fmt::{self, Write as _};
use std::hash::{Hash, Hasher};

use serde::Serialize;

use crate::index::{DefKind, Index, Span};
use crate::paths::{self, PathError};
use crate::repo::Repo;

/// A location as the model named it, cleaned up by [`Query::new`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Query {
    /// File path or name.
    pub file: Option<String>,
    /// Class name (last segment of a dotted name).
    pub class: Option<String>,
    /// Method or function name.
    pub method: Option<String>,
    /// What cleaning changed, in words (for traces).
    pub notes: Vec<String>,
}

/// Values that models write to mean "no value".
const PLACEHOLDERS: &[&str] = &["none", "null", "n/a", "na", "-", "unknown", "nil", "<none>"];

fn clean_text(raw: Option<&str>) -> Option<String> {
    let t = raw?.trim().trim_matches(|c: char| c == '`' || c == '"' || c == '\'').trim();
    if t.is_empty() || PLACEHOLDERS.contains(&t.to_ascii_lowercase().as_str()) { None } else { Some(t.to_string()) }
}

/// Drops a leading keyword and anything from the first `(` on: `def f(self)` becomes `f`.
fn strip_decl(text: &str, keywords: &[&str]) -> String {
    let mut t = text.trim();
    for k in keywords {
        if let Some(rest) = t.strip_prefix(k) {
            t = rest.trim_start();
        }
    }
    let t = t.split('(').next().unwrap_or(t);
    t.trim().trim_end_matches(':').trim().to_string()
}

/// Whether a dotted-name segment looks like a class name (its first letter is upper case).
fn looks_like_class(segment: &str) -> bool {
    segment.chars().find(|c| c.is_alphabetic()).is_some_and(char::is_uppercase)
}

impl Query {
    /// Cleans the three fields and splits `Class.method` written in one field.
    pub fn new(file: Option<&str>, class: Option<&str>, method: Option<&str>) -> Query {
        let mut notes = Vec::new();
        let file = clean_text(file).and_then(|f| {
            let mut p = f.replace('\\', "/");
            while let Some(rest) = p.strip_prefix("./") {
                p = rest.to_string();
            }
            // `path.py:123` carries a line number the tiers do not use.
            if let Some((path, line)) = p.rsplit_once(':')
                && !line.is_empty()
                && line.chars().all(|c| c.is_ascii_digit())
            {
                notes.push(format!("dropped line number `:{line}` from the file"));
                p = path.to_string();
            }
            let p = p.trim_start_matches('/').to_string();
            (!p.is_empty()).then_some(p)
        });
        let mut class = clean_text(class).map(|c| strip_decl(&c, &["class "]));
        let mut method = clean_text(method).map(|m| strip_decl(&m, &["async def ", "async ", "def "]));
        if let Some(m) = method.clone().filter(|m| m.contains('.')) {
            let parts: Vec<&str> = m.split('.').filter(|s| !s.is_empty()).collect();
            if let Some((last, prefix)) = parts.split_last() {
                method = Some(last.to_string());
                match (prefix.last(), &class) {
                    (Some(owner), None) if looks_like_class(owner) => {
                        notes.push(format!("split method `{m}` into class `{owner}` and method `{last}`"));
                        class = Some(owner.to_string());
                    }
                    (Some(owner), Some(c)) if c.rsplit('.').next() != Some(*owner) => {
                        notes.push(format!(
                            "method `{m}` names `{owner}`, not class `{c}`; kept class `{c}` and method `{last}`"
                        ));
                    }
                    _ => notes.push(format!("took method `{last}` from `{m}`")),
                }
            }
        }
        if let Some(c) = class.clone().filter(|c| c.contains('.')) {
            let parts: Vec<&str> = c.split('.').filter(|s| !s.is_empty()).collect();
            let n = parts.len();
            let is_class_dot_method =
                n >= 2 && method.is_none() && !looks_like_class(parts[n - 1]) && looks_like_class(parts[n - 2]);
            if is_class_dot_method {
                notes.push(format!("split class `{c}` into class `{}` and method `{}`", parts[n - 2], parts[n - 1]));
                class = Some(parts[n - 2].to_string());
                method = Some(parts[n - 1].to_string());
            } else if let Some(last) = parts.last() {
                notes.push(format!("took class `{last}` from `{c}`"));
                class = Some(last.to_string());
            }
        }
        let class = class.filter(|c| !c.is_empty());
        let method = method.filter(|m| !m.is_empty());
        Query { file, class, method, notes }
    }

    /// Whether no field is present.
    pub fn is_empty(&self) -> bool {
        self.file.is_none() && self.class.is_none() && self.method.is_none()
    }
}

impl fmt::Display for Query {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(x) = &self.file {
            parts.push(format!("file `{x}`"));
        }
        if let Some(x) = &self.class {
            parts.push(format!("class `{x}`"));
        }
        if let Some(x) = &self.method {
            parts.push(format!("method `{x}`"));
        }
        if parts.is_empty() { f.write_str("an empty location") } else { f.write_str(&parts.join(", ")) }
    }
}

/// The six resolution tiers, in the order they are tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// The method in the named class (or its nearest ancestor that defines it).
    MethodInClass,
    /// The method or function in the named file.
    MethodInFile,
    /// The class in the named file.
    ClassInFile,
    /// The class wherever it is defined.
    ClassAnywhere,
    /// The method or function wherever it is defined.
    MethodAnywhere,
    /// The whole named file.
    WholeFile,
}

impl Tier {
    /// Every tier, in order.
    pub const ALL: [Tier; 6] = [
        Tier::MethodInClass,
        Tier::MethodInFile,
        Tier::ClassInFile,
        Tier::ClassAnywhere,
        Tier::MethodAnywhere,
        Tier::WholeFile,
    ];

    /// 1-based position in the order.
    pub fn number(self) -> usize {
        self as usize + 1
    }

    /// The fields the tier needs.
    pub fn needs(self) -> &'static str {
        match self {
            Tier::MethodInClass => "class and method",
            Tier::MethodInFile => "file and method",
            Tier::ClassInFile => "file and class",
            Tier::ClassAnywhere => "class",
            Tier::MethodAnywhere => "method",
            Tier::WholeFile => "file",
        }
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Tier::MethodInClass => "method in class",
            Tier::MethodInFile => "method in file",
            Tier::ClassInFile => "class in file",
            Tier::ClassAnywhere => "class anywhere",
            Tier::MethodAnywhere => "method anywhere",
            Tier::WholeFile => "whole file",
        })
    }
}

/// A piece of code the bug may live in.
#[derive(Debug, Clone, Serialize)]
pub struct BugLocation {
    /// Relative path.
    pub file: String,
    /// The class the code is in (for a class location, the class itself).
    pub class: Option<String>,
    /// The method or function, when the location is one.
    pub method: Option<String>,
    /// First line, 1-based.
    pub start: u32,
    /// Last line, inclusive.
    pub end: u32,
    /// The text of lines `start..=end`, line endings included, re-read from the file.
    pub code: String,
    /// What the model says the code should do.
    pub intended_behavior: String,
}

impl PartialEq for BugLocation {
    fn eq(&self, other: &Self) -> bool {
        (self.file.as_str(), self.start, self.end) == (other.file.as_str(), other.start, other.end)
    }
}

impl Eq for BugLocation {}

impl Hash for BugLocation {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (self.file.as_str(), self.start, self.end).hash(state);
    }
}

/// Collapses equal locations (same file, start and end), keeping the first and joining distinct
/// intended-behaviour texts.
pub fn dedup(locations: impl IntoIterator<Item = BugLocation>) -> Vec<BugLocation> {
    let mut out: Vec<BugLocation> = Vec::new();
    for loc in locations {
        merge(&mut out, loc);
    }
    out
}

/// Adds `loc` to `out` unless an equal location is there (then its intended behaviour joins the kept one's);
/// returns its position in `out`.
fn merge(out: &mut Vec<BugLocation>, loc: BugLocation) -> usize {
    match out.iter().position(|l| *l == loc) {
        Some(i) => {
            let kept = &mut out[i];
            let extra = loc.intended_behavior.trim();
            if !extra.is_empty() && !kept.intended_behavior.contains(extra) {
                if !kept.intended_behavior.is_empty() {
                    kept.intended_behavior.push('\n');
                }
                kept.intended_behavior.push_str(extra);
            }
            i
        }
        None => {
            out.push(loc);
            out.len() - 1
        }
    }
}

/// Joins several resolutions' locations and context: equal locations collapse as in [`dedup`], each context
/// follows its location's new position, and context equal to a location or to earlier context is dropped (the
/// model reads every piece of code once).
pub fn combine(resolutions: impl IntoIterator<Item = Resolution>) -> (Vec<BugLocation>, Vec<Context>) {
    let mut locations: Vec<BugLocation> = Vec::new();
    let mut context: Vec<Context> = Vec::new();
    for resolution in resolutions {
        let positions: Vec<usize> = resolution.locations.into_iter().map(|l| merge(&mut locations, l)).collect();
        for mut c in resolution.context {
            let Some(&position) = positions.get(c.for_location) else { continue };
            c.for_location = position;
            context.push(c);
        }
    }
    let mut kept: Vec<Context> = Vec::new();
    for c in context {
        if !locations.contains(&c.location) && !kept.iter().any(|k| k.location == c.location) {
            kept.push(c);
        }
    }
    (locations, kept)
}

/// What one tier did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Outcome {
    /// The query lacks a field the tier needs.
    Skipped,
    /// The tier ran and found nothing; the reason says what was missing.
    Missed {
        /// What was looked up and not found.
        reason: String,
    },
    /// The tier found code.
    Found {
        /// Number of locations.
        count: usize,
        /// Anything worth knowing about how (narrowed to a file, inherited from an ancestor, ...).
        detail: Option<String>,
    },
    /// An earlier tier already found code.
    NotReached,
}

/// One tier and its outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Attempt {
    /// The tier.
    pub tier: Tier,
    /// What happened.
    pub outcome: Outcome,
}

/// Why a piece of context accompanies a location.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ContextKind {
    /// The whole class a found method belongs to.
    EnclosingClass,
    /// The nearest ancestor's definition of a found method.
    AncestorMethod {
        /// The ancestor class.
        class: String,
        /// Inheritance steps from the method's class (1 = direct base).
        depth: usize,
    },
}

/// Extra code shown with a location.
#[derive(Debug, Clone, Serialize)]
pub struct Context {
    /// Why it is shown.
    pub kind: ContextKind,
    /// Position of the location it belongs to in [`Resolution::locations`].
    pub for_location: usize,
    /// The code.
    pub location: BugLocation,
}

/// The result of [`resolve`]: what each tier did, and the code found.
#[derive(Debug, Clone, Serialize)]
pub struct Resolution {
    /// The cleaned query.
    pub query: Query,
    /// One entry per tier, in order.
    pub attempts: Vec<Attempt>,
    /// The tier that found code.
    pub tier: Option<Tier>,
    /// The code found (deduplicated).
    pub locations: Vec<BugLocation>,
    /// Enclosing classes and ancestor methods for method locations.
    pub context: Vec<Context>,
}

impl Resolution {
    /// Whether any tier found code.
    pub fn found(&self) -> bool {
        !self.locations.is_empty()
    }

    /// For an unresolved location, a message for the model that says so and what was tried; `None` when found.
    pub fn not_found_message(&self) -> Option<String> {
        if self.found() {
            return None;
        }
        let mut m = String::new();
        if self.query.is_empty() {
            m.push_str("The bug location names no file, class or method, so there is nothing to look up.");
        } else {
            let _ = write!(m, "No code matches the bug location {}.", self.query);
            for a in &self.attempts {
                if let Outcome::Missed { reason } = &a.outcome {
                    let _ = write!(m, "\n- {}: {reason}", a.tier);
                }
            }
        }
        m.push_str(
            "\nSearch the codebase further (for example with search_class or search_method) and name a location \
             that exists.",
        );
        Some(m)
    }

    /// A plain-text account of the tiers and what they found, as `acr locate` prints it.
    pub fn report(&self, with_code: bool) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "query: {}", self.query);
        for n in &self.query.notes {
            let _ = writeln!(out, "  note: {n}");
        }
        for a in &self.attempts {
            let status = match &a.outcome {
                Outcome::Skipped => format!("skipped (needs {})", a.tier.needs()),
                Outcome::Missed { reason } => format!("no match: {reason}"),
                Outcome::Found { count, detail: None } => format!("found {count}"),
                Outcome::Found { count, detail: Some(d) } => format!("found {count} ({d})"),
                Outcome::NotReached => "not tried".to_string(),
            };
            let _ = writeln!(out, "tier {} {:<16} {status}", a.tier.number(), a.tier);
        }
        let describe = |l: &BugLocation| {
            let mut s = format!("{}:{}-{}", l.file, l.start, l.end);
            match (&l.class, &l.method) {
                (Some(c), Some(m)) => {
                    let _ = write!(s, " {c}.{m}");
                }
                (Some(c), None) => {
                    let _ = write!(s, " class {c}");
                }
                (None, Some(m)) => {
                    let _ = write!(s, " {m}");
                }
                (None, None) => {}
            }
            s
        };
        for (i, l) in self.locations.iter().enumerate() {
            let _ = writeln!(out, "location {}: {}", i + 1, describe(l));
            if with_code {
                push_code(&mut out, l);
            }
            for c in self.context.iter().filter(|c| c.for_location == i) {
                let why = match &c.kind {
                    ContextKind::EnclosingClass => "enclosing class".to_string(),
                    ContextKind::AncestorMethod { class, depth } => {
                        format!("ancestor {class} (depth {depth}) defines it too")
                    }
                };
                let _ = writeln!(out, "  context, {why}: {}", describe(&c.location));
            }
        }
        if let Some(m) = self.not_found_message() {
            let _ = writeln!(out, "{m}");
        }
        out
    }
}

fn push_code(out: &mut String, l: &BugLocation) {
    for (k, line) in l.code.lines().enumerate() {
        let _ = writeln!(out, "  {:>5} | {line}", l.start as usize + k);
    }
}

/// The paths of `paths` that `wanted` names, by the one policy of [`crate::paths`], with its note (several files,
/// or only part of a name) when there is one.
fn files_named<'a>(paths: &[&'a str], wanted: &str) -> Result<(Vec<&'a str>, Option<String>), PathError> {
    let m = paths::find(paths, wanted)?;
    let note = m.note(wanted, paths);
    Ok((m.positions.into_iter().map(|i| paths[i]).collect(), note))
}

/// The text of lines `start..=end` (1-based, inclusive) with their line endings.
fn read_lines(text: &str, start: u32, end: u32) -> String {
    let skip = start.saturating_sub(1) as usize;
    let take = end.saturating_sub(start.max(1)) as usize + 1;
    text.split_inclusive('\n').skip(skip).take(take).collect()
}

struct Resolver<'a> {
    index: &'a Index,
    repo: &'a Repo,
    intended: &'a str,
}

/// What one tier produced.
enum TierResult {
    /// The query lacks the tier's fields.
    Skip,
    /// Nothing found, and why.
    Miss(String),
    /// Definitions found, with an optional remark.
    Hits(Vec<Hit>, Option<String>),
    /// Whole files found (repository paths), with the policy's note on the name when there is one.
    Files(Vec<String>, Option<String>),
}

/// A candidate before it becomes a [`BugLocation`].
#[derive(Debug, Clone)]
struct Hit {
    span: Span,
    class: Option<String>,
    method: Option<String>,
}

impl Resolver<'_> {
    fn location(&self, hit: &Hit) -> BugLocation {
        let file = self.index.path(hit.span.file).to_string();
        let code = self.repo.file(&file).map(|t| read_lines(t, hit.span.start, hit.span.end)).unwrap_or_default();
        BugLocation {
            file,
            class: hit.class.clone(),
            method: hit.method.clone(),
            start: hit.span.start,
            end: hit.span.end,
            code,
            intended_behavior: self.intended.to_string(),
        }
    }

    /// Indexed files the query's file names, with the policy's note (none when it names none).
    fn indexed_files(&self, wanted: &str) -> (Vec<u32>, Option<String>) {
        let paths: Vec<&str> = self.index.files.iter().map(|f| f.path.as_str()).collect();
        match paths::find(&paths, wanted) {
            Ok(m) => {
                let note = m.note(wanted, &paths);
                (m.positions.into_iter().map(|i| i as u32).collect(), note)
            }
            Err(_) => (Vec::new(), None),
        }
    }

    /// Why a file name found no indexed file.
    fn file_miss(&self, wanted: &str) -> String {
        let in_repo: Vec<&str> = self.repo.files().map(|(p, _)| p).collect();
        match files_named(&in_repo, wanted) {
            Ok((found, _)) => format!(
                "`{}` names {}, which is not indexed (test files and non-Python files are left out)",
                paths::preview(wanted),
                found[0]
            ),
            Err(e) => e.to_string(),
        }
    }

    fn methods_of(&self, class: &str, method: &str) -> Vec<Hit> {
        self.index
            .class_methods
            .get(class)
            .and_then(|m| m.get(method))
            .map(|spans| {
                spans
                    .iter()
                    .map(|s| Hit { span: *s, class: Some(class.to_string()), method: Some(method.to_string()) })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Breadth first over base classes: the nearest ancestors defining `method`, with the ancestor and depth.
    fn ancestor_methods(&self, class: &str, method: &str) -> Option<(String, usize, Vec<Hit>)> {
        let mut seen: HashSet<&str> = HashSet::from([class]);
        let mut queue: VecDeque<(&str, usize)> = VecDeque::from([(class, 0)]);
        while let Some((c, depth)) = queue.pop_front() {
            let Some(bases) = self.index.class_bases.get(c) else {
                continue;
            };
            for base in bases {
                let name = base.rsplit('.').next().unwrap_or(base);
                if !seen.insert(name) {
                    continue;
                }
                let hits = self.methods_of(name, method);
                if !hits.is_empty() {
                    return Some((name.to_string(), depth + 1, hits));
                }
                queue.push_back((name, depth + 1));
            }
        }
        None
    }

    fn defs_in_files(&self, files: &[u32], kind: &[DefKind], name: &str) -> Vec<Hit> {
        let mut hits = Vec::new();
        for &f in files {
            for d in &self.index.files[f as usize].defs {
                if &*d.name == name && kind.contains(&d.kind) {
                    let span = Span { file: f, start: d.start, end: d.end };
                    hits.push(if d.kind == DefKind::Class {
                        Hit { span, class: Some(d.name.to_string()), method: None }
                    } else {
                        Hit { span, class: d.class.as_deref().map(str::to_string), method: Some(d.name.to_string()) }
                    });
                }
            }
        }
        hits
    }

    fn tier(&self, tier: Tier, q: &Query) -> TierResult {
        let (file, class, method) = (q.file.as_deref(), q.class.as_deref(), q.method.as_deref());
        match tier {
            Tier::MethodInClass => {
                let (Some(c), Some(m)) = (class, method) else {
                    return TierResult::Skip;
                };
                if !self.index.classes.contains_key(c) && !self.index.class_methods.contains_key(c) {
                    return TierResult::Miss(format!("no class `{c}` is defined"));
                }
                let hits = self.methods_of(c, m);
                if !hits.is_empty() {
                    // The file, when it holds some of the definitions, picks among same-named classes.
                    if let Some(f) = file {
                        let (files, _) = self.indexed_files(f);
                        let narrowed: Vec<Hit> =
                            hits.iter().filter(|h| files.contains(&h.span.file)).cloned().collect();
                        if !narrowed.is_empty() && narrowed.len() < hits.len() {
                            return TierResult::Hits(narrowed, Some(format!("narrowed to file `{f}`")));
                        }
                    }
                    return TierResult::Hits(hits, None);
                }
                match self.ancestor_methods(c, m) {
                    Some((base, depth, hits)) => {
                        TierResult::Hits(hits, Some(format!("`{c}` inherits `{m}` from `{base}` (depth {depth})")))
                    }
                    None => TierResult::Miss(format!("class `{c}` does not define `{m}`, nor does any ancestor")),
                }
            }
            Tier::MethodInFile | Tier::ClassInFile => {
                let (Some(f), Some(name)) = (file, if tier == Tier::MethodInFile { method } else { class }) else {
                    return TierResult::Skip;
                };
                let (files, ambiguity) = self.indexed_files(f);
                if files.is_empty() {
                    return TierResult::Miss(self.file_miss(f));
                }
                let kinds: &[DefKind] =
                    if tier == Tier::MethodInFile { &[DefKind::Method, DefKind::Function] } else { &[DefKind::Class] };
                let hits = self.defs_in_files(&files, kinds, name);
                if hits.is_empty() {
                    let names: Vec<&str> = files.iter().map(|&i| self.index.path(i)).collect();
                    let what = if tier == Tier::MethodInFile { "method or function" } else { "class" };
                    return TierResult::Miss(format!("{} defines no {what} `{name}`", names.join(", ")));
                }
                TierResult::Hits(hits, ambiguity)
            }
            Tier::ClassAnywhere => {
                let Some(c) = class else {
                    return TierResult::Skip;
                };
                let hits: Vec<Hit> = self
                    .index
                    .classes
                    .get(c)
                    .map(|spans| {
                        spans.iter().map(|s| Hit { span: *s, class: Some(c.to_string()), method: None }).collect()
                    })
                    .unwrap_or_default();
                if hits.is_empty() {
                    return TierResult::Miss(format!("no class `{c}` is defined"));
                }
                TierResult::Hits(hits, None)
            }
            Tier::MethodAnywhere => {
                let Some(m) = method else {
                    return TierResult::Skip;
                };
                let mut hits: Vec<Hit> = self
                    .index
                    .functions
                    .get(m)
                    .into_iter()
                    .flatten()
                    .map(|s| Hit { span: *s, class: None, method: Some(m.to_string()) })
                    .collect();
                for (c, methods) in &self.index.class_methods {
                    for s in methods.get(m).into_iter().flatten() {
                        hits.push(Hit { span: *s, class: Some(c.to_string()), method: Some(m.to_string()) });
                    }
                }
                if hits.is_empty() {
                    return TierResult::Miss(format!("no method or function `{m}` is defined"));
                }
                hits.sort_by(|a, b| {
                    (self.index.path(a.span.file), a.span.start).cmp(&(self.index.path(b.span.file), b.span.start))
                });
                TierResult::Hits(hits, None)
            }
            Tier::WholeFile => {
                let Some(f) = file else {
                    return TierResult::Skip;
                };
                let in_repo: Vec<&str> = self.repo.files().map(|(p, _)| p).collect();
                match files_named(&in_repo, f) {
                    Ok((matched, ambiguity)) => {
                        TierResult::Files(matched.into_iter().map(str::to_string).collect(), ambiguity)
                    }
                    Err(e) => TierResult::Miss(e.to_string()),
                }
            }
        }
    }

    /// The enclosing class of a method hit, as a span in the same file.
    fn enclosing_class(&self, hit: &Hit) -> Option<Hit> {
        let class = hit.class.as_deref()?;
        hit.method.as_ref()?;
        self.index.files[hit.span.file as usize]
            .defs
            .iter()
            .filter(|d| {
                d.kind == DefKind::Class && &*d.name == class && d.start <= hit.span.start && d.end >= hit.span.end
            })
            .max_by_key(|d| d.start)
            .map(|d| Hit {
                span: Span { file: hit.span.file, start: d.start, end: d.end },
                class: Some(d.name.to_string()),
                method: None,
            })
    }
}

/// Resolves a location named by the model. `intended_behavior` is copied into every location found.
pub fn resolve(index: &Index, repo: &Repo, query: &Query, intended_behavior: &str) -> Resolution {
    // A nested class named by its own name (Java's `Inner` for `Outer.Inner`) is looked up by its table key.
    let nested =
        query.class.as_deref().and_then(|c| index.class_key(c)).filter(|k| Some(&***k) != query.class.as_deref());
    let keyed;
    let query = match nested {
        Some(key) => {
            keyed = Query { class: Some(key.to_string()), ..query.clone() };
            &keyed
        }
        None => query,
    };
    let r = Resolver { index, repo, intended: intended_behavior };
    let mut attempts = Vec::new();
    let mut tier_hit = None;
    let mut locations = Vec::new();
    let mut hits = Vec::new();
    for tier in Tier::ALL {
        if tier_hit.is_some() {
            attempts.push(Attempt { tier, outcome: Outcome::NotReached });
            continue;
        }
        let outcome = match r.tier(tier, query) {
            TierResult::Skip => Outcome::Skipped,
            TierResult::Miss(reason) => Outcome::Missed { reason },
            TierResult::Files(paths, ambiguity) => {
                for p in &paths {
                    let text = repo.file(p).unwrap_or_default();
                    let lines = text.lines().count().max(1) as u32;
                    locations.push(BugLocation {
                        file: p.clone(),
                        class: None,
                        method: None,
                        start: 1,
                        end: lines,
                        code: text.to_string(),
                        intended_behavior: intended_behavior.to_string(),
                    });
                }
                tier_hit = Some(tier);
                Outcome::Found { count: locations.len(), detail: ambiguity }
            }
            TierResult::Hits(found, detail) => {
                hits = found;
                locations = dedup(hits.iter().map(|h| r.location(h)));
                tier_hit = Some(tier);
                Outcome::Found { count: locations.len(), detail }
            }
        };
        attempts.push(Attempt { tier, outcome });
    }
    let mut context = Vec::new();
    let mut seen_hits: HashSet<Span> = HashSet::new();
    for hit in &hits {
        if !seen_hits.insert(hit.span) {
            continue;
        }
        let Some(for_location) =
            locations.iter().position(|l| l.file == index.path(hit.span.file) && l.start == hit.span.start)
        else {
            continue;
        };
        let Some(class_hit) = r.enclosing_class(hit) else {
            continue;
        };
        context.push(Context { kind: ContextKind::EnclosingClass, for_location, location: r.location(&class_hit) });
        let (Some(class), Some(method)) = (&hit.class, &hit.method) else {
            continue;
        };
        if let Some((base, depth, ancestors)) = r.ancestor_methods(class, method) {
            for a in ancestors {
                context.push(Context {
                    kind: ContextKind::AncestorMethod { class: base.clone(), depth },
                    for_location,
                    location: r.location(&a),
                });
            }
        }
    }
    Resolution { query: query.clone(), attempts, tier: tier_hit, locations, context }
}

#[cfg(test)]
mod tests;
