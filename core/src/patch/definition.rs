//! Definition edits: an answer that shows whole definitions (a function, a method, a class: its decorators, its
//! `def`/`class` line and its body) replaces each definition it names. This is how small models write the fix they
//! mean: the function they changed, alone in a fence, often with the line numbers they were shown.
//!
//! ````text
//! shapes/square.py
//! ```python
//!     14     def area(self):
//!     15         return self.side ** 2
//! ```
//! ````
//!
//! Reading the code shown ([`Shown::read`]): line-number prefixes are removed when every line has one and they count
//! up by one (they then also say where the definition starts, which decides between places only when they agree
//! with the file); the common indentation is removed; the text must parse, and hold nothing at its top level but
//! definitions, imports, comments and docstrings. A class shown with only some of the file's members stands for
//! those members, each in its class (the others are left as they are).
//!
//! Placing each definition ([`plan`]) in the file: by name, within the class when one is given; among several,
//! the one the written line numbers point at, else the one a bug location is in, else none (the edit is refused as
//! ambiguous, with the places). A definition the file does not have goes next to the one shown before it (or after
//! it); imports the file lacks go after its last import (in a Python file without imports, before its first
//! definition). A definition whose body is only `...` or a placeholder comment was shown for orientation and
//! changes nothing; one that leaves code out in its body is refused.
//!
//! Each placement becomes an ordinary [`Edit`] whose original is the definition's exact text in the file, with
//! [`Edit::line`] set to where it starts, so it goes through the same matcher, gate and diff as every other format.

use tree_sitter::Node;

use super::block::{is_placeholder, strip_line_numbers};
use super::edit::{Edit, EditFormat};
use crate::language::Language;

/// A definition in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unit {
    /// Whether it is a class (or interface, enum...), not a function or method.
    pub class_like: bool,
    /// Its name.
    pub name: String,
    /// The class it is directly in, if any.
    pub class: Option<String>,
    /// First line (0-based), decorators and annotations included.
    pub start: usize,
    /// Last line (0-based): the line of its last token that is not a comment.
    pub end: usize,
    /// The definitions in its body: a class's methods and nested classes, a function's local functions (also
    /// those under its `if`, `try` and `with` statements).
    pub members: Vec<Unit>,
    /// Whether its body holds statements besides definitions, a docstring and `pass` (for a class shown in part).
    pub other_members: bool,
    /// Whether its body opens with a docstring.
    pub docstring: bool,
}

impl Unit {
    /// `Class.name` or `name`.
    pub fn qualified(&self) -> String {
        match &self.class {
            Some(c) => format!("{c}.{}", self.name),
            None => self.name.clone(),
        }
    }

    /// Every definition in `units` and below, depth first.
    fn flatten(units: &[Unit]) -> Vec<&Unit> {
        let mut out = Vec::new();
        for u in units {
            out.push(u);
            out.extend(Unit::flatten(&u.members));
        }
        out
    }
}

/// What stands at the top level of a text.
#[derive(Debug, Clone, Default)]
pub(crate) struct Outline {
    /// The definitions, in order.
    pub units: Vec<Unit>,
    /// Lines (0-based) of the top-level imports.
    pub imports: Vec<(usize, usize)>,
    /// Lines (0-based) of the top-level docstrings (statements that are one string).
    pub docstrings: Vec<(usize, usize)>,
    /// Whether anything else stands at the top level (statements, assignments, calls...).
    pub other: bool,
    /// Whether the text has a syntax error.
    pub errors: bool,
}

/// The top-level outline of `text` in `language`.
pub(crate) fn outline(language: Language, text: &str) -> Outline {
    let mut parser = language.parser();
    let Some(tree) = language.parse(&mut parser, text) else {
        return Outline { errors: true, ..Outline::default() };
    };
    let grammar = language.grammar();
    let src = text.as_bytes();
    let root = tree.root_node();
    let mut out = Outline { errors: root.has_error(), ..Outline::default() };
    let mut cursor = root.walk();
    for child in root.named_children(&mut cursor) {
        match classify(grammar, child) {
            Top::Unit(node) => {
                if let Some(u) = unit(grammar, child, node, src, None) {
                    out.units.push(u);
                }
            }
            Top::Import => out.imports.push((child.start_position().row, end_row(child))),
            Top::Docstring => out.docstrings.push((child.start_position().row, end_row(child))),
            Top::Ignorable => {}
            Top::Other => {
                out.other = true;
                nested_units(grammar, child, src, &mut out.units);
            }
        }
    }
    out
}

/// Definitions inside a top-level statement that can hold them (`if`, `try`, `with`...: Python defines functions
/// per version that way), found through such statements only.
fn nested_units(grammar: &crate::grammar::Grammar, node: Node<'_>, src: &[u8], out: &mut Vec<Unit>) {
    let Some(containers) = grammar.container_kinds else { return };
    if !containers.contains(&node.kind()) {
        return;
    }
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match classify(grammar, child) {
            Top::Unit(def) => out.extend(unit(grammar, child, def, src, None)),
            Top::Other => nested_units(grammar, child, src, out),
            Top::Import | Top::Docstring | Top::Ignorable => {}
        }
    }
}

/// What a top-level (or class-level) node is.
enum Top<'t> {
    /// A definition: the class or function node (inside its decorators).
    Unit(Node<'t>),
    Import,
    /// A statement that is one string.
    Docstring,
    /// Comments, `pass`, a package line.
    Ignorable,
    Other,
}

fn classify<'t>(grammar: &crate::grammar::Grammar, node: Node<'t>) -> Top<'t> {
    if let Some(def) = definition_in(grammar, node) {
        return Top::Unit(def);
    }
    if grammar.wrapped(node).is_some() {
        return Top::Other;
    }
    match node.kind() {
        "import_statement" | "import_from_statement" | "future_import_statement" | "import_declaration" => Top::Import,
        "comment" | "line_comment" | "block_comment" | "pass_statement" | "package_declaration" => Top::Ignorable,
        "expression_statement"
            if node.named_child_count() == 1 && node.named_child(0).is_some_and(|c| c.kind() == "string") =>
        {
            Top::Docstring
        }
        _ => Top::Other,
    }
}

/// The definition a statement is or holds: a class or function, one inside a wrapper (decorators, `export`), or
/// the one function binding of a declaration (`const f = () => ...`).
fn definition_in<'t>(grammar: &crate::grammar::Grammar, node: Node<'t>) -> Option<Node<'t>> {
    let kind = node.kind();
    if grammar.class_kinds.contains(&kind) || grammar.function_kinds.contains(&kind) || grammar.binds_function(node) {
        return Some(node);
    }
    if let Some(inner) = grammar.wrapped(node) {
        return definition_in(grammar, inner);
    }
    let only = (node.named_child_count() == 1).then(|| node.named_child(0)).flatten()?;
    grammar.binds_function(only).then_some(only)
}

/// The definition `def` (whose outer node, with decorators, is `outer`).
fn unit(
    grammar: &crate::grammar::Grammar,
    outer: Node<'_>,
    def: Node<'_>,
    src: &[u8],
    class: Option<&str>,
) -> Option<Unit> {
    let name = grammar.definition_name(def, src)?.to_string();
    let class_like = grammar.class_kinds.contains(&def.kind());
    let mut members = Vec::new();
    let mut other_members = false;
    let mut docstring = false;
    if let Some(body) = def.child_by_field_name("body") {
        let mut cursor = body.walk();
        for (i, child) in body.named_children(&mut cursor).enumerate() {
            match classify(grammar, child) {
                // A class's definitions are its methods; a function's are local functions of no class.
                Top::Unit(node) => members.extend(unit(grammar, child, node, src, class_like.then_some(&name))),
                Top::Docstring => docstring |= i == 0,
                Top::Ignorable => {}
                Top::Import | Top::Other => {
                    other_members = true;
                    if !class_like {
                        nested_units(grammar, child, src, &mut members);
                    }
                }
            }
        }
    }
    Some(Unit {
        class_like,
        name,
        class: class.map(str::to_string),
        start: outer.start_position().row,
        end: end_row(def),
        members,
        other_members,
        docstring,
    })
}

/// The last line (0-based) of a node: its last token that is not a comment.
fn end_row(node: Node<'_>) -> usize {
    let mut last = node;
    loop {
        let mut cursor = last.walk();
        let next = last.children(&mut cursor).filter(|c| !c.kind().contains("comment")).last();
        match next {
            Some(child) => last = child,
            None => break,
        }
    }
    let end = last.end_position();
    if end.column == 0 && end.row > last.start_position().row { end.row - 1 } else { end.row }
}

/// One definition of the code shown, ready to place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ShownDef {
    /// Its name.
    pub name: String,
    /// The class it belongs to, when the code shows it inside one.
    pub class: Option<String>,
    /// Whether it is a class.
    pub class_like: bool,
    /// Its lines, without the indentation of its first line.
    pub text: String,
    /// The line number written before its first line, when the code carried numbers.
    pub number: Option<u32>,
}

/// The code of a fenced block read as definitions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Shown {
    /// The definitions, in order, classes shown in part already split into their members.
    pub defs: Vec<ShownDef>,
    /// The import lines, trimmed.
    pub imports: Vec<String>,
    /// The first line of each docstring at the top level, trimmed: the module's, which the file must have as written
    /// (a definition edit cannot change it).
    pub docstrings: Vec<String>,
    /// The definitions shown only for orientation (a body of `...` or a placeholder comment): `Class.name`.
    pub skipped: Vec<String>,
    /// The language the code was read as.
    pub language: Language,
}

/// Why fenced code is not whole definitions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NotDefinitions {
    /// It is not definitions at all (other statements, no definition, code that does not parse).
    Not(String),
    /// It is definitions, but one leaves part of its body out.
    LeavesOut(String),
}

impl Shown {
    /// Reads `block` as definitions of `language`. `file` is the outline of the file they are for, when known: a
    /// class shown with fewer members than the file's class of that name stands for those members.
    pub fn read(block: &str, language: Language, file: Option<&Outline>) -> Result<Shown, NotDefinitions> {
        let raw: Vec<&str> = block.split('\n').collect();
        let (lines, first_number) = match strip_line_numbers(&raw) {
            Some(stripped) => (stripped, first_line_number(&raw)),
            None => (raw.iter().map(|l| l.to_string()).collect(), None),
        };
        let lines = dedent(&lines);
        let text = lines.join("\n");
        let (outline, shift) = parse_as_definitions(language, &text)?;
        let line_of = |row: usize| row.saturating_sub(shift);
        let number_of = |row: usize| first_number.map(|n| n + line_of(row) as u32);
        let mut shown =
            Shown { defs: Vec::new(), imports: Vec::new(), docstrings: Vec::new(), skipped: Vec::new(), language };
        for (from, _) in &outline.docstrings {
            shown.docstrings.extend(lines.get(line_of(*from)).map(|l| l.trim().to_string()));
        }
        for (from, to) in &outline.imports {
            shown
                .imports
                .extend(lines[line_of(*from)..=line_of(*to).min(lines.len() - 1)].iter().map(|l| l.trim().to_string()));
        }
        let file_units = file.map(|f| Unit::flatten(&f.units)).unwrap_or_default();
        for u in &outline.units {
            let in_file = file_units.iter().find(|f| f.class_like && u.class_like && f.name == u.name);
            // A class shown without some of what the file's class has (a method, its docstring, its attributes)
            // stands for the methods it shows: what it does not show is left as it is.
            let partial = u.class_like
                && !u.members.is_empty()
                && in_file.is_some_and(|f| {
                    f.members.iter().any(|m| !u.members.iter().any(|s| s.name == m.name))
                        || (f.docstring && !u.docstring)
                        || (f.other_members && !u.other_members)
                });
            if partial {
                if u.other_members {
                    return Err(NotDefinitions::Not(format!(
                        "the class `{}` is shown with only some of its methods, and with other statements in its body \
                         that cannot be placed",
                        u.name
                    )));
                }
                for m in &u.members {
                    shown.push(m, &lines, line_of, number_of)?;
                }
            } else {
                shown.push(u, &lines, line_of, number_of)?;
            }
        }
        if shown.defs.is_empty() && shown.skipped.is_empty() {
            return Err(NotDefinitions::Not("it holds no definition".into()));
        }
        Ok(shown)
    }

    /// Adds the definition `u`, or notes it as shown only for orientation; refuses one that leaves code out.
    fn push(
        &mut self,
        u: &Unit,
        lines: &[String],
        line_of: impl Fn(usize) -> usize,
        number_of: impl Fn(usize) -> Option<u32>,
    ) -> Result<(), NotDefinitions> {
        let (from, to) = (line_of(u.start), line_of(u.end).min(lines.len() - 1));
        let body: Vec<&str> = lines[from..=to].iter().map(String::as_str).collect();
        let code: Vec<&str> = body.iter().skip(1).map(|l| l.trim()).filter(|l| !l.is_empty()).collect();
        let head_end =
            body.iter().position(|l| l.trim_end().ends_with(':') || l.trim_end().ends_with('{')).unwrap_or(0);
        let after_head: Vec<&str> =
            body.iter().skip(head_end + 1).map(|l| l.trim()).filter(|l| !l.is_empty()).collect();
        let orientation =
            !after_head.is_empty() && after_head.iter().all(|l| *l == "..." || *l == "}" || is_placeholder(l));
        if orientation {
            self.skipped.push(u.qualified());
            return Ok(());
        }
        if let Some(line) = code.iter().find(|l| is_placeholder(l)) {
            return Err(NotDefinitions::LeavesOut(format!(
                "`{}` leaves code out (`{line}`): show every line of each definition you change",
                u.qualified()
            )));
        }
        let indent = leading(body[0]);
        let text = body.iter().map(|l| l.get(indent.min(leading(l))..).unwrap_or("")).collect::<Vec<_>>().join("\n");
        self.defs.push(ShownDef {
            name: u.name.clone(),
            class: u.class.clone(),
            class_like: u.class_like,
            text: text.trim_end().to_string(),
            number: number_of(u.start),
        });
        Ok(())
    }
}

/// The most lines of a cut tail [`without_cut_tail`] looks at.
const CUT_TAIL_LINES: usize = 40;

/// A code block that does not read as definitions because text that is not code follows them, cut short: the block
/// without that tail, and how many lines were left out. Qwen2.5-Coder-1.5B ended its fence, six times in one run,
/// after the right fix of QuixBugs' powerset, with the opening of the module docstring that follows the function
/// (`"""`, then its title twice): an unterminated string, so the block did not parse and the fix was refused. A
/// tail is left out when it is
///
/// - a copy of the file's own text, line by line (indentation, blank lines and line numbers aside), its last line
///   possibly cut: leaving it out leaves that text as the file has it; or
/// - in Python, a triple-quoted string never closed: text, never code, and a definition edit does not change the
///   file's module docstring in any case; or
/// - the instructions' example definition of the language (its row's `definition.example`), or its start, copied
///   after the fix
///   (Qwen2.5-Coder-1.5B did, after its kheapsort fix): it is not code;
///
/// and it starts at the block's outer indentation (after the definitions, not inside one), and what is left reads
/// as definitions on its own. Any other tail keeps the block unread.
pub(crate) fn without_cut_tail(language: Language, block: &str, file: &str) -> Option<(String, usize)> {
    let lines: Vec<&str> = block.split('\n').collect();
    let end = lines.iter().rposition(|l| !l.trim().is_empty())? + 1;
    let outer = lines[..end].iter().filter(|l| !l.trim().is_empty()).map(|l| leading(l)).min()?;
    let file_lines: Vec<&str> = file.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let example: Vec<&str> = language.row().definition.example.lines().map(str::trim).collect();
    // The longest tail first: a shorter one could leave part of the text, an open string, in what is read.
    for start in end.saturating_sub(CUT_TAIL_LINES).max(1)..end {
        // The tail starts after the definitions, at the block's outer indentation: a tail inside a definition
        // would be cut out of it.
        if lines[start].trim().is_empty() || leading(lines[start]) != outer {
            continue;
        }
        let raw = &lines[start..end];
        let numbered = strip_line_numbers(raw);
        let tail: Vec<&str> = match &numbered {
            Some(stripped) => stripped.iter().map(|l| l.trim()).filter(|l| !l.is_empty()).collect(),
            None => raw.iter().map(|l| l.trim()).filter(|l| !l.is_empty()).collect(),
        };
        let unterminated = language == Language::Python
            && ["\"\"\"", "'''"].iter().any(|q| tail[0].starts_with(q) && tail.join("\n").matches(q).count() == 1);
        let copied_example = tail.len() <= example.len() && copied_from(&tail, &example);
        if !unterminated && !copied_example && !copied_from(&tail, &file_lines) {
            continue;
        }
        let head = lines[..start].join("\n");
        if Shown::read(&head, language, None).is_ok() {
            return Some((head, end - start));
        }
    }
    None
}

/// Whether `tail` is a run of `file`'s lines (both trimmed, without blank lines), its last line possibly cut short.
fn copied_from(tail: &[&str], file: &[&str]) -> bool {
    let Some((last, whole)) = tail.split_last() else { return false };
    file.windows(tail.len()).any(|w| w[..whole.len()] == *whole && w[whole.len()].starts_with(last))
}

/// Parses `text` as nothing but definitions: the outline, and how many lines a wrapper added before the text
/// (a method of Java is parsed inside a class).
fn parse_as_definitions(language: Language, text: &str) -> Result<(Outline, usize), NotDefinitions> {
    let outline = outline(language, text);
    if outline.errors && language != Language::Python {
        let wrapped = outline_in_class(language, text);
        if let Some(wrapped) = wrapped {
            return Ok((wrapped, 1));
        }
    }
    if outline.errors {
        return Err(NotDefinitions::Not("it does not parse as code".into()));
    }
    if outline.other {
        return Err(NotDefinitions::Not("it holds statements besides definitions and imports".into()));
    }
    if outline.units.is_empty() {
        return Err(NotDefinitions::Not("it holds no definition".into()));
    }
    Ok((outline, 0))
}

/// Members of a class-based language written alone, parsed inside a class: their outline, shifted by the wrapper.
fn outline_in_class(language: Language, text: &str) -> Option<Outline> {
    let wrapped = format!("class AcrShown {{\n{text}\n}}\n");
    let outer = outline(language, &wrapped);
    if outer.errors || outer.other || outer.units.len() != 1 {
        return None;
    }
    let class = outer.units.into_iter().next()?;
    if class.other_members || class.members.is_empty() {
        return None;
    }
    let units = class.members.into_iter().map(|m| Unit { class: None, ..m }).collect();
    Some(Outline { units, ..Outline::default() })
}

/// The number written before the first numbered line of `lines`.
fn first_line_number(lines: &[&str]) -> Option<u32> {
    let line = lines.iter().find(|l| !l.trim().is_empty())?;
    let t = line.trim_start();
    let digits: String = t.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

fn leading(line: &str) -> usize {
    line.len() - line.trim_start_matches([' ', '\t']).len()
}

/// The lines without the indentation all their non-blank lines share.
fn dedent(lines: &[String]) -> Vec<String> {
    let cut = lines.iter().filter(|l| !l.trim().is_empty()).map(|l| leading(l)).min().unwrap_or(0);
    lines.iter().map(|l| if l.trim().is_empty() { String::new() } else { l[cut..].to_string() }).collect()
}

/// Whether a fenced block looks like definitions at a glance (cheap, before any parse): after line numbers, imports,
/// comments and decorators, its first line opens a function or a class.
pub(crate) fn looks_like_definitions(body: &[&str]) -> bool {
    let lines = strip_line_numbers(body).unwrap_or_else(|| body.iter().map(|l| l.to_string()).collect());
    let skipped = |l: &str| {
        l.is_empty()
            || l.starts_with('#')
            || l.starts_with("//")
            || l.starts_with('@')
            || l.starts_with("import ")
            || (l.starts_with("from ") && l.contains(" import "))
    };
    let Some(first) = lines.iter().map(|l| l.trim()).find(|l| !skipped(l)) else { return false };
    let python = ["def ", "async def ", "class "].iter().any(|k| first.starts_with(k));
    let words: Vec<&str> = first.split_whitespace().collect();
    const MODIFIERS: [&str; 8] =
        ["public", "private", "protected", "static", "final", "abstract", "synchronized", "default"];
    let mut kinds = words.iter().skip_while(|w| MODIFIERS.contains(w));
    let java_type = kinds.next().is_some_and(|w| ["class", "interface", "enum", "record"].contains(w));
    // A method's head: a type and a name before the parenthesis (`int area() {`), never a call or a statement.
    let before_paren = first.split('(').next().unwrap_or("").split_whitespace().count();
    let java_method = before_paren >= 2
        && (first.ends_with('{') || first.ends_with(')') || first.contains(") throws "))
        && !["return", "new", "else", "throw"].iter().any(|k| words.first() == Some(k));
    python || java_type || java_method || script_head(first)
}

/// Whether a line opens a JavaScript or TypeScript definition: a function, class, interface or enum declaration, a
/// function bound to a name (`const f = (a) => {`, `onClick = async () => {`), or a method's head
/// (`total() {`, `get total() {`, `static async #load(id) {`), past the modifiers that may come first.
fn script_head(first: &str) -> bool {
    const MODIFIERS: [&str; 14] = [
        "export",
        "default",
        "async",
        "declare",
        "abstract",
        "public",
        "private",
        "protected",
        "static",
        "readonly",
        "override",
        "get",
        "set",
        "*",
    ];
    const NOT_NAMES: [&str; 8] = ["if", "for", "while", "switch", "catch", "with", "return", "function"];
    let words: Vec<&str> = first.split_whitespace().collect();
    let mut rest = words.iter().copied().skip_while(|w| MODIFIERS.contains(w));
    let Some(head) = rest.next() else { return false };
    if ["function", "function*", "class", "interface", "enum"].contains(&head) || head.starts_with("function*") {
        return true;
    }
    let bound_function = first.contains("=>") || first.contains("= function") || first.contains("= async function");
    if ["const", "let", "var"].contains(&head) {
        return bound_function;
    }
    let name = head.split(['(', '<', ':', '=']).next().unwrap_or("");
    let is_name = !name.is_empty()
        && name.trim_start_matches(['#', '*']).chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        && !NOT_NAMES.contains(&name);
    // A class field holding a function, or a method's head up to its opening brace.
    let field = is_name && words.iter().any(|w| *w == "=" || w.starts_with('=')) && bound_function;
    let method =
        is_name && head.len() > name.len() && head[name.len()..].starts_with(['(', '<']) && first.ends_with('{');
    field || method
}

/// A definition of the file the code shown is placed at: where, and why there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Placement {
    /// The edit that makes the change (its original the file's exact lines, its line where they start).
    pub edit: Edit,
    /// What it does, for the report: ``replaced `Square.area` (lines 14-15)``.
    pub note: String,
}

/// A definition of a file, as failures list it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Place {
    /// `Class.name` or `name`.
    pub name: String,
    /// First line, 1-based (decorators included).
    pub start: u32,
    /// Last line, 1-based.
    pub end: u32,
}

impl Place {
    fn of(u: &Unit) -> Place {
        Place { name: u.qualified(), start: u.start as u32 + 1, end: u.end as u32 + 1 }
    }
}

/// Why the code shown could not be placed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unplaced {
    /// Several definitions of the file fit a name.
    Ambiguous(String, Vec<Place>),
    /// The file has no definition of that name, and nothing shown beside it is placed.
    Missing { name: String, similar: Vec<String> },
    /// Every definition shown was only for orientation.
    NothingToChange(Vec<String>),
    /// The code changes something outside its definitions that cannot be placed (the module's docstring).
    Outside(String),
}

/// The edits that put each definition of `shown` in place in `text` (whose outline is `file`), for the edit
/// `template` (its index, file and format are kept). `hints` are the bug locations' line spans in this file (1-based).
pub(crate) fn plan(
    shown: &Shown,
    text: &str,
    file: &Outline,
    template: &Edit,
    hints: &[(u32, u32)],
) -> Result<Vec<Placement>, Unplaced> {
    let lines: Vec<&str> = text.split('\n').collect();
    let trimmed: Vec<&str> = lines.iter().map(|l| l.trim()).collect();
    if let Some(doc) = shown.docstrings.iter().find(|d| !trimmed.contains(&d.as_str())) {
        return Err(Unplaced::Outside(format!(
            "it changes the module's docstring (`{doc}`), which is not a definition: write the whole file, or leave the \
             docstring out"
        )));
    }
    let units = Unit::flatten(&file.units);
    // The place of each definition shown: Some(unit) when the file has it.
    let mut places: Vec<Option<&Unit>> = Vec::with_capacity(shown.defs.len());
    for d in &shown.defs {
        let fits: Vec<&Unit> = units
            .iter()
            .copied()
            .filter(|u| u.name == d.name && u.class_like == d.class_like)
            .filter(|u| d.class.is_none() || u.class == d.class)
            .collect();
        let chosen = match fits.as_slice() {
            [] => None,
            [one] => Some(*one),
            many => {
                let by_number = d.number.and_then(|n| {
                    let at: Vec<&Unit> = many
                        .iter()
                        .copied()
                        .filter(|u| n as usize == u.start + 1 || head_line(u, &lines) + 1 == n as usize)
                        .collect();
                    (at.len() == 1).then(|| at[0])
                });
                let by_hint = || {
                    let inside: Vec<&Unit> = many
                        .iter()
                        .copied()
                        .filter(|u| hints.iter().any(|&(a, b)| (a as usize) <= u.end + 1 && u.start < b as usize))
                        .collect();
                    // The innermost definition a location falls in: of nested fits, the one starting last.
                    match inside.as_slice() {
                        [one] => Some(*one),
                        _ => None,
                    }
                };
                match by_number.or_else(by_hint) {
                    Some(u) => Some(u),
                    None => {
                        let places = many.iter().map(|u| Place::of(u)).collect();
                        return Err(Unplaced::Ambiguous(qualified(d), places));
                    }
                }
            }
        };
        places.push(chosen);
    }
    if shown.defs.is_empty() {
        return Err(Unplaced::NothingToChange(shown.skipped.clone()));
    }
    let indent_of = |u: &Unit| lines[u.start].get(..leading(lines[u.start])).unwrap_or("").to_string();
    // What happens at each definition of the file that changes, by its first line: its replacement, and the
    // definitions the file lacks, placed before or after it.
    struct Change<'u> {
        unit: &'u Unit,
        replacement: Option<String>,
        before: Vec<String>,
        after: Vec<String>,
        notes: Vec<String>,
    }
    let mut changes: std::collections::BTreeMap<usize, Change<'_>> = std::collections::BTreeMap::new();
    let change_at = |u| Change { unit: u, replacement: None, before: Vec::new(), after: Vec::new(), notes: Vec::new() };
    for (i, d) in shown.defs.iter().enumerate() {
        if let Some(u) = places[i] {
            let change = changes.entry(u.start).or_insert_with(|| change_at(u));
            change.replacement = Some(indented(&d.text, &indent_of(u)));
            change.notes.push(format!("replaced `{}` (lines {}-{})", u.qualified(), u.start + 1, u.end + 1));
            continue;
        }
        // After the nearest definition shown before it that the file has, else before the next one.
        let before = (0..i).rev().find_map(|j| places[j]);
        let after = (i + 1..shown.defs.len()).find_map(|j| places[j]);
        let Some(anchor) = before.or(after) else {
            let mut similar: Vec<String> =
                units.iter().filter(|u| u.class_like == d.class_like).map(|u| u.qualified()).collect();
            similar.sort_by_key(|n| name_distance(n, &d.name));
            similar.truncate(3);
            return Err(Unplaced::Missing { name: qualified(d), similar });
        };
        let change = changes.entry(anchor.start).or_insert_with(|| change_at(anchor));
        let new = indented(&d.text, &indent_of(anchor));
        if before.is_some() {
            change.after.push(new)
        } else {
            change.before.push(new)
        }
        change.notes.push(format!("added `{}` next to `{}`", qualified(d), anchor.qualified()));
    }
    let new_imports: Vec<&String> = shown.imports.iter().filter(|i| !trimmed.contains(&i.as_str())).collect();
    // A Python file without imports gets the new ones before its first definition (Qwen2.5-Coder-1.5B's powerset
    // fix added `from typing import List` for its type hints; without the import the fix raised NameError).
    if let (false, true, Language::Python, Some(first)) =
        (new_imports.is_empty(), file.imports.is_empty(), shown.language, file.units.first())
    {
        let added: Vec<&str> = new_imports.iter().map(|s| s.as_str()).collect();
        let change = changes.entry(first.start).or_insert_with(|| change_at(first));
        change.before.insert(0, added.join("\n"));
        change.notes.push(format!("added the import(s) `{}` before `{}`", added.join("`, `"), first.qualified()));
    }
    let mut out = Vec::new();
    for change in changes.into_values() {
        let u = change.unit;
        let original = lines[u.start..=u.end.min(lines.len() - 1)].join("\n");
        // Blank lines between definitions as PEP 8 has them: one in a class, two at the top level.
        let gap = if u.class.is_some() { "\n\n" } else { "\n\n\n" };
        let middle = change.replacement.unwrap_or_else(|| original.clone());
        let parts: Vec<String> = change.before.into_iter().chain([middle]).chain(change.after).collect();
        let patched = parts.join(gap);
        out.push(Placement { edit: placed(template, original, patched, u.start), note: change.notes.join("; ") });
    }
    if let (false, Some(&(from, to))) = (new_imports.is_empty(), file.imports.last()) {
        let original = lines[from..=to.min(lines.len() - 1)].join("\n");
        let added: Vec<&str> = new_imports.iter().map(|s| s.as_str()).collect();
        let patched = format!("{original}\n{}", added.join("\n"));
        let note = format!("added the import(s) `{}`", added.join("`, `"));
        out.push(Placement { edit: placed(template, original, patched, from), note });
    }
    // Bottom up, so that each edit's line still points at its place when the ones below it are in.
    out.sort_by_key(|p| std::cmp::Reverse(p.edit.line));
    Ok(out)
}

fn qualified(d: &ShownDef) -> String {
    match &d.class {
        Some(c) => format!("{c}.{}", d.name),
        None => d.name.clone(),
    }
}

/// The line of a definition's `def`/`class` head (past its decorators).
fn head_line(u: &Unit, lines: &[&str]) -> usize {
    (u.start..=u.end).find(|&i| !lines.get(i).is_some_and(|l| l.trim_start().starts_with('@'))).unwrap_or(u.start)
}

/// `text` with `indent` before each non-blank line.
fn indented(text: &str, indent: &str) -> String {
    text.split('\n')
        .map(|l| if l.trim().is_empty() { String::new() } else { format!("{indent}{l}") })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The ordinary edit of a placement.
fn placed(template: &Edit, original: String, patched: String, start: usize) -> Edit {
    Edit {
        original,
        patched,
        had_line_numbers: false,
        format: EditFormat::Definition,
        line: Some(start as u32 + 1),
        ..template.clone()
    }
}

/// A rough distance between two names, for suggestions: the length of what they do not share at their ends.
fn name_distance(a: &str, b: &str) -> usize {
    let a = a.rsplit('.').next().unwrap_or(a);
    let prefix = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    let suffix = a.chars().rev().zip(b.chars().rev()).take_while(|(x, y)| x == y).count();
    a.len().max(b.len()).saturating_sub(prefix + suffix)
}

/// The names of the definitions a block of code shows, read as the first language it parses in as definitions
/// (for code shown without a path); when it reads as definitions in none, why not, as the first language says.
pub(crate) fn shown_names(block: &str) -> Result<Vec<String>, String> {
    let mut first_reason = None;
    for &language in Language::ALL {
        match Shown::read(block, language, None) {
            Ok(shown) => return Ok(shown.defs.iter().map(|d| d.name.clone()).collect()),
            Err(NotDefinitions::Not(reason) | NotDefinitions::LeavesOut(reason)) => {
                first_reason.get_or_insert(reason);
            }
        }
    }
    Err(first_reason.unwrap_or_else(|| "it holds no definition".into()))
}

/// Whether `text` may define `name`, at a glance: for Python a line that opens `def name(` or `class name`; for
/// other languages the name followed by a parenthesis, a brace or a space somewhere.
pub(crate) fn may_define(language: Language, text: &str, name: &str) -> bool {
    let bytes = text.as_bytes();
    memchr::memmem::find_iter(bytes, name.as_bytes()).any(|at| {
        let after = bytes.get(at + name.len()).copied().unwrap_or(b'\n');
        let line_start = bytes[..at].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let head = text[line_start..at].trim_start();
        match language {
            Language::Python => {
                matches!(head, "def " | "async def " | "class ") && matches!(after, b'(' | b':' | b'[' | b' ')
            }
            #[allow(unreachable_patterns)]
            _ => matches!(after, b'(' | b'{' | b' ' | b'<' | b':' | b'='),
        }
    })
}

/// The lines of a file outside its top-level definitions: its docstring, imports, assignments and comments.
pub(crate) fn module_lines(language: Language, text: &str) -> Vec<&str> {
    let units = outline(language, text).units;
    text.split('\n')
        .enumerate()
        .filter(|(i, _)| !units.iter().any(|u| (u.start..=u.end).contains(i)))
        .map(|(_, l)| l)
        .collect()
}

/// The definitions of a file named `name`.
pub(crate) fn places_of(language: Language, text: &str, name: &str) -> Vec<Place> {
    Unit::flatten(&outline(language, text).units).into_iter().filter(|u| u.name == name).map(Place::of).collect()
}
