//! Re-indenting the model's lines into the file's indentation.
//!
//! The model's indentation is compared with the file's on the lines of the `<original>` and the file lines they
//! matched. When one shift of whitespace (adding or removing the same prefix) turns every one of those lines'
//! indentation into the file's, that shift is used and nothing else changes: an edit copied exactly is written
//! exactly (tabs and spaces as they were, whitespace-only lines kept). Otherwise the model wrote other characters
//! than the file uses (tabs in a space-indented file, spaces in a tab-indented one): its indentation is first
//! rewritten in the file's style, decided from the matched block (or the whole file when the block is at column
//! 0), with one tab for one level of the file's (or the model's) indentation unit, and then shifted.

/// How a file indents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    /// With tabs.
    Tabs,
    /// With spaces, this many per level.
    Spaces(usize),
}

/// How to move a line's indentation once its characters are in the file's style.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Shift {
    /// Prepend this whitespace.
    Add(String),
    /// Remove up to this many leading whitespace characters.
    Cut(usize),
    /// Move by this many columns (the indentation is rewritten in the file's style).
    Columns(isize),
}

/// Rewrites the indentation of the model's lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Indenter {
    /// The file's style and the model's spaces per level, when the model's characters must be rewritten.
    convert: Option<(Style, usize)>,
    shift: Shift,
}

/// The leading spaces and tabs of a line.
pub(super) fn leading_ws(s: &str) -> &str {
    let rest = s.trim_start_matches([' ', '\t']);
    &s[..s.len() - rest.len()]
}

impl Indenter {
    /// `pairs`: the indentation of each non-blank original line as written and of the file line it matched (the
    /// first is the reference); `model`: every line the model wrote (original and patched); `file`: the file's
    /// lines; `block`: the matched range of `file`.
    pub(super) fn new<'a>(
        pairs: &[(&str, &str)],
        model: impl Iterator<Item = &'a str>,
        file: &[&str],
        block: (usize, usize),
    ) -> Indenter {
        let Some(&(bi, fi)) = pairs.first() else {
            return Indenter { convert: None, shift: Shift::Add(String::new()) };
        };
        let model: Vec<&str> = model.collect();
        let as_written = Indenter { convert: None, shift: prefix_shift(bi, fi).unwrap_or(Shift::Add(String::new())) };
        if prefix_shift(bi, fi).is_some()
            && pairs.iter().all(|&(m, f)| as_written.ws(m) == f)
            && !writes_foreign_chars(&model, file)
        {
            return as_written;
        }
        let style = file_style(file, block);
        let convert = Some((style, model_unit(model.into_iter())));
        let mut converted = Indenter { convert, shift: Shift::Add(String::new()) };
        let cbi = converted.chars(bi);
        converted.shift =
            prefix_shift(&cbi, fi).unwrap_or(Shift::Columns(width(fi, style) as isize - width(&cbi, style) as isize));
        converted
    }

    /// Whether lines come out exactly as the model wrote them.
    fn is_identity(&self) -> bool {
        self.convert.is_none() && matches!(&self.shift, Shift::Add(a) if a.is_empty())
    }

    /// The indentation `ws` rewritten in the file's characters (not shifted).
    fn chars(&self, ws: &str) -> String {
        match self.convert {
            None => ws.to_string(),
            Some((style, unit)) => render_width(model_width(ws, style, unit), style),
        }
    }

    /// The indentation `ws` rewritten and shifted.
    fn ws(&self, ws: &str) -> String {
        let ws = self.chars(ws);
        match &self.shift {
            Shift::Add(add) => format!("{add}{ws}"),
            Shift::Cut(n) => ws.chars().skip(*n).collect(),
            Shift::Columns(delta) => {
                let style = self.convert.map_or(Style::Spaces(4), |(s, _)| s);
                render_width(width(&ws, style).saturating_add_signed(*delta), style)
            }
        }
    }

    /// A model line, re-indented (`shift`) or with its indentation's characters rewritten only.
    pub(super) fn line(&self, line: &str, shift: bool) -> String {
        if self.is_identity() {
            return line.to_string();
        }
        if line.trim().is_empty() {
            return String::new();
        }
        let ws = leading_ws(line);
        let new = if shift { self.ws(ws) } else { self.chars(ws) };
        format!("{new}{}", &line[ws.len()..])
    }
}

/// Whether the model indents with a character the file's style does not use: tabs in a file with no tab-indented
/// line (a file with no indented line at all is taken as space-indented, PEP 8's default, as [`file_style`] does),
/// or spaces in a tab-indented file with no space-indented line. The matched lines can agree as written and still
/// say nothing about this, when they hold no indented line (a block at column 0): the patched lines would then keep
/// the model's characters.
fn writes_foreign_chars(model: &[&str], file: &[&str]) -> bool {
    let uses = |lines: &mut dyn Iterator<Item = &str>| {
        lines.filter(|l| !l.trim().is_empty()).fold((false, false), |(tab, space), l| {
            let ws = leading_ws(l);
            (tab || ws.contains('\t'), space || ws.contains(' '))
        })
    };
    let (file_tab, file_space) = uses(&mut file.iter().copied());
    let (model_tab, model_space) = uses(&mut model.iter().copied());
    (model_tab && !file_tab) || (model_space && !file_space && file_tab)
}

/// A shift that turns `from` into `to` by adding or removing a prefix.
fn prefix_shift(from: &str, to: &str) -> Option<Shift> {
    if let Some(add) = to.strip_prefix(from) {
        return Some(Shift::Add(add.to_string()));
    }
    from.starts_with(to).then(|| Shift::Cut(from.len() - to.len()))
}

/// Columns of an indentation in the file's style (a tab is one level of it).
fn width(ws: &str, style: Style) -> usize {
    let tab = match style {
        Style::Tabs => 8,
        Style::Spaces(unit) => unit,
    };
    ws.chars().map(|c| if c == '\t' { tab } else { 1 }).sum()
}

/// Columns of a model indentation in the file's style: a model tab is one level of the file; in a tab-indented
/// file, `unit` model spaces are one level.
fn model_width(ws: &str, style: Style, unit: usize) -> usize {
    match style {
        Style::Spaces(file_unit) => ws.chars().map(|c| if c == '\t' { file_unit } else { 1 }).sum(),
        Style::Tabs => {
            let spaces = ws.chars().filter(|&c| c == ' ').count();
            let tabs = ws.chars().filter(|&c| c == '\t').count();
            tabs * 8 + spaces / unit.max(1) * 8 + spaces % unit.max(1)
        }
    }
}

fn render_width(columns: usize, style: Style) -> String {
    match style {
        Style::Spaces(_) => " ".repeat(columns),
        Style::Tabs => format!("{}{}", "\t".repeat(columns / 8), " ".repeat(columns % 8)),
    }
}

/// The file's indentation style: the matched block's, or the whole file's when the block has no indented line.
fn file_style(file: &[&str], block: (usize, usize)) -> Style {
    let count = |lines: &[&str]| {
        lines.iter().fold((0usize, 0usize), |(t, s), l| match l.as_bytes().first() {
            Some(b'\t') if !l.trim().is_empty() => (t + 1, s),
            Some(b' ') if !l.trim().is_empty() => (t, s + 1),
            _ => (t, s),
        })
    };
    let in_block = file.get(block.0..block.1.min(file.len())).map_or((0, 0), count);
    let (tabs, spaces) = if in_block == (0, 0) { count(file) } else { in_block };
    if tabs > spaces { Style::Tabs } else { Style::Spaces(space_unit(file.iter().copied()).unwrap_or(4)) }
}

/// The model's spaces per level (for spaces written into a tab-indented file).
fn model_unit<'a>(lines: impl Iterator<Item = &'a str>) -> usize {
    space_unit(lines).unwrap_or(4)
}

/// The most common positive step between the space indentations of consecutive non-blank lines.
fn space_unit<'a>(lines: impl Iterator<Item = &'a str>) -> Option<usize> {
    let mut steps = [0usize; 9];
    let mut previous: Option<usize> = None;
    for line in lines.take(5_000) {
        if line.trim().is_empty() {
            continue;
        }
        let ws = leading_ws(line);
        if ws.contains('\t') {
            previous = None;
            continue;
        }
        if let Some(p) = previous
            && ws.len() > p
            && ws.len() - p <= 8
        {
            steps[ws.len() - p] += 1;
        }
        previous = Some(ws.len());
    }
    let (unit, n) = steps.iter().enumerate().skip(1).max_by_key(|&(i, n)| (*n, std::cmp::Reverse(i)))?;
    (*n > 0).then_some(unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn indenter(pairs: &[(&str, &str)], model: &[&str], file: &[&str]) -> Indenter {
        Indenter::new(pairs, model.iter().copied(), file, (0, file.len()))
    }

    #[test]
    fn an_exact_copy_is_written_exactly() {
        let file = ["\tdef f(self):\n", "\t\t\"\"\"Doc\twith a tab\n", "        and spaces.\"\"\"\n"];
        let pairs = [("\t", "\t"), ("\t\t", "\t\t"), ("        ", "        ")];
        let i = indenter(&pairs, &["\tdef f(self):", "\t\t\"\"\"Doc\twith a tab", "        and spaces.\"\"\""], &file);
        assert!(i.is_identity());
        assert_eq!(i.line("    \t  ", true), "    \t  ");
    }

    #[test]
    fn tabs_at_column_zero_become_the_files_spaces() {
        let file = ["def f():\n", "    return 1\n"];
        let i = indenter(&[("", ""), ("\t", "    ")], &["def f():", "\treturn 1", "\treturn 2"], &file);
        assert_eq!(i.line("\treturn 2", true), "    return 2");
        assert_eq!(i.line("\t\tx", true), "        x");
        let file = ["def f():\n", "  return 1\n", "\n", "def g():\n", "  if x:\n", "    y\n"];
        let i = indenter(&[("", ""), ("\t", "  ")], &["def f():", "\treturn 1"], &file[..2]);
        assert_eq!(i.line("\t\tx", true), "    x");
    }

    #[test]
    fn spaces_become_the_files_tabs() {
        let file = ["class A:\n", "\tdef f(self):\n", "\t\treturn 1\n"];
        let i =
            Indenter::new(&[("", "\t"), ("    ", "\t\t")], ["def f(self):", "    return 1"].into_iter(), &file, (1, 3));
        assert_eq!(i.line("    return 2", true), "\t\treturn 2");
        assert_eq!(i.line("def g(self):", true), "\tdef g(self):");
    }

    #[test]
    fn a_dedented_copy_moves_by_a_prefix() {
        let file = ["class A:\n", "    def f(self):\n", "        return 1\n"];
        let i = indenter(&[("", "    "), ("    ", "        ")], &["def f(self):", "    return 1"], &file);
        assert_eq!(i.line("    return 2", true), "        return 2");
        assert_eq!(i.line("    return 2", false), "    return 2");
    }
}
