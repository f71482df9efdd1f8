//! Diffs for people: a unified diff parsed into files, hunks and numbered lines, shown unified or side by side with
//! Python colouring, with copy and download buttons.

use acr_core::patch::diff::{Hunk as CoreHunk, Line, parse_patch};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::browser;
use crate::highlight::{self, State};

/// What a diff line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// Unchanged.
    Context,
    /// Only in the old file.
    Removed,
    /// Only in the new file.
    Added,
    /// `\ No newline at end of file` and the like.
    Note,
}

/// One line of a hunk with its numbers in the old and new file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffLine {
    /// What it is.
    pub kind: LineKind,
    /// Line number in the old file.
    pub old: Option<u32>,
    /// Line number in the new file.
    pub new: Option<u32>,
    /// The text without the leading marker.
    pub text: String,
}

/// A hunk: its `@@` header and lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    /// The `@@ -a,b +c,d @@` line.
    pub header: String,
    /// The lines.
    pub lines: Vec<DiffLine>,
}

/// The changes to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileDiff {
    /// The file's path (the new name).
    pub path: String,
    /// Its hunks.
    pub hunks: Vec<Hunk>,
}

/// Reads a unified diff (as `git diff` or the core writes it) with the core's one parser
/// ([`acr_core::patch::diff::parse_patch`]) and numbers its lines for display; text the parser refuses shows as no
/// files.
pub fn parse(diff: &str) -> Vec<FileDiff> {
    let Ok(files) = parse_patch(diff) else { return Vec::new() };
    files
        .into_iter()
        .map(|f| {
            let path = match (&f.new_path, &f.old_path) {
                (Some(p), _) => p.strip_prefix("b/").unwrap_or(p),
                (None, Some(p)) => p.strip_prefix("a/").unwrap_or(p),
                (None, None) => "",
            };
            FileDiff { path: path.to_string(), hunks: f.hunks.iter().map(numbered).collect() }
        })
        .collect()
}

/// A core hunk as numbered display lines, with a note after a line that has no final newline.
fn numbered(hunk: &CoreHunk) -> Hunk {
    let (mut old, mut new) = (hunk.old_start, hunk.new_start);
    let mut lines = Vec::with_capacity(hunk.lines.len());
    for line in &hunk.lines {
        let (kind, o, n) = match line {
            Line::Context(_) => (LineKind::Context, Some(old), Some(new)),
            Line::Removed(_) => (LineKind::Removed, Some(old), None),
            Line::Added(_) => (LineKind::Added, None, Some(new)),
        };
        old += u32::from(o.is_some());
        new += u32::from(n.is_some());
        let raw = line.text();
        let text = raw.strip_suffix('\n').map_or(raw, |t| t.strip_suffix('\r').unwrap_or(t));
        lines.push(DiffLine { kind, old: o, new: n, text: text.to_string() });
        if !raw.ends_with('\n') {
            let note = "\\ No newline at end of file".to_string();
            lines.push(DiffLine { kind: LineKind::Note, old: None, new: None, text: note });
        }
    }
    Hunk { header: hunk.header(), lines }
}

/// Pairs a hunk's lines for a side-by-side view: context on both sides, removed runs beside the added runs that
/// follow them.
pub fn side_by_side(hunk: &Hunk) -> Vec<(Option<&DiffLine>, Option<&DiffLine>)> {
    let mut rows = Vec::new();
    let mut i = 0;
    let lines = &hunk.lines;
    while i < lines.len() {
        match lines[i].kind {
            LineKind::Context | LineKind::Note => {
                rows.push((Some(&lines[i]), Some(&lines[i])));
                i += 1;
            }
            _ => {
                let removed: Vec<&DiffLine> = lines[i..].iter().take_while(|l| l.kind == LineKind::Removed).collect();
                i += removed.len();
                let added: Vec<&DiffLine> = lines[i..].iter().take_while(|l| l.kind == LineKind::Added).collect();
                i += added.len();
                for k in 0..removed.len().max(added.len()) {
                    rows.push((removed.get(k).copied(), added.get(k).copied()));
                }
            }
        }
    }
    rows
}

fn number(n: Option<u32>) -> String {
    n.map(|n| n.to_string()).unwrap_or_default()
}

fn marker(kind: LineKind) -> &'static str {
    match kind {
        LineKind::Added => "+",
        LineKind::Removed => "-",
        _ => " ",
    }
}

fn row_class(kind: LineKind) -> &'static str {
    match kind {
        LineKind::Added => "add",
        LineKind::Removed => "del",
        LineKind::Note => "note",
        LineKind::Context => "ctx",
    }
}

/// A diff, unified or side by side, with optional copy and download buttons.
#[component]
pub fn DiffView(
    /// The unified diff.
    diff: String,
    /// Offer copy and download buttons, and the view toggle.
    #[prop(default = true)]
    toolbar: bool,
    /// The name of the downloaded file.
    #[prop(default = "acr.diff")]
    file_name: &'static str,
    /// The `id` of the outer element.
    #[prop(optional)]
    id: Option<&'static str>,
) -> impl IntoView {
    let split = RwSignal::new(false);
    let copied = RwSignal::new(String::new());
    let files = parse(&diff);
    if diff.trim().is_empty() {
        return view! { <p class="muted">"No changes."</p> }.into_any();
    }
    let raw = StoredValue::new(diff);
    let copy = move |_| {
        let text = raw.get_value();
        spawn_local(async move {
            copied.set(match browser::copy_text(&text).await {
                Ok(()) => "Copied.".into(),
                Err(e) => format!("Could not copy: {e}."),
            });
        });
    };
    let download = move |_| {
        if let Err(e) = browser::download(file_name, "text/x-diff", &raw.get_value()) {
            copied.set(format!("Could not download: {e}."));
        }
    };
    let tools = toolbar.then(|| {
        view! {
            <div class="row diff-tools" role="toolbar" aria-label="Diff view">
                <button class="secondary small" aria-pressed=move || (!split.get()).to_string()
                    on:click=move |_| split.set(false)>"Unified"</button>
                <button class="secondary small" aria-pressed=move || split.get().to_string()
                    on:click=move |_| split.set(true)>"Side by side"</button>
                <span class="spacer"></span>
                <button class="secondary small copy-diff" on:click=copy>"Copy"</button>
                <button class="secondary small download-diff" on:click=download>"Download .diff"</button>
                <span class="muted small" aria-live="polite">{move || copied.get()}</span>
            </div>
        }
    });
    let files = StoredValue::new(files);
    view! {
        <div class="diff" id=id>
            {tools}
            {move || {
                let side = split.get();
                files.with_value(|files| files.iter().map(|f| file_view(f, side)).collect_view())
            }}
        </div>
    }
    .into_any()
}

fn file_view(file: &FileDiff, side: bool) -> impl IntoView + use<> {
    let body = if side {
        file.hunks.iter().map(split_hunk).collect_view().into_any()
    } else {
        file.hunks.iter().map(unified_hunk).collect_view().into_any()
    };
    let cls = if side { "diff-table split" } else { "diff-table" };
    // Side by side, both halves get the same width whatever their lines hold.
    let cols = side.then(|| {
        view! {
            <colgroup>
                <col class="ln-col" /><col class="code-col" /><col class="ln-col" /><col class="code-col" />
            </colgroup>
        }
    });
    view! {
        <div class="diff-file">
            <div class="diff-path"><code>{file.path.clone()}</code></div>
            <div class="diff-scroll">
                <table class=cls>{cols}{body}</table>
            </div>
        </div>
    }
}

fn unified_hunk(hunk: &Hunk) -> impl IntoView + use<> {
    let mut old_state = State::default();
    let mut new_state = State::default();
    let rows = hunk
        .lines
        .iter()
        .map(|l| {
            let code = match l.kind {
                LineKind::Removed => highlight::view_line(&l.text, &mut old_state).into_any(),
                LineKind::Note => view! { <span class="muted">{l.text.clone()}</span> }.into_any(),
                _ => {
                    let v = highlight::view_line(&l.text, &mut new_state).into_any();
                    if l.kind == LineKind::Context {
                        old_state = new_state;
                    }
                    v
                }
            };
            view! {
                <tr class=row_class(l.kind)>
                    <td class="ln">{number(l.old)}</td>
                    <td class="ln">{number(l.new)}</td>
                    <td class="mk">{marker(l.kind)}</td>
                    <td class="code">{code}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <tbody>
            <tr class="hunk"><td colspan="4">{hunk.header.clone()}</td></tr>
            {rows}
        </tbody>
    }
}

fn split_hunk(hunk: &Hunk) -> impl IntoView + use<> {
    let mut left = State::default();
    let mut right = State::default();
    let cell = |l: Option<&DiffLine>, state: &mut State, old: bool| match l {
        Some(l) => {
            let n = if old { l.old } else { l.new };
            let cls = format!("code {}", row_class(l.kind));
            view! {
                <td class=format!("ln {}", row_class(l.kind))>{number(n)}</td>
                <td class=cls>{highlight::view_line(&l.text, state)}</td>
            }
            .into_any()
        }
        None => view! { <td class="ln empty"></td><td class="code empty"></td> }.into_any(),
    };
    let rows = side_by_side(hunk)
        .into_iter()
        .map(|(l, r)| {
            let a = cell(l, &mut left, true);
            let b = cell(r, &mut right, false);
            view! { <tr>{a}{b}</tr> }
        })
        .collect_view();
    view! {
        <tbody>
            <tr class="hunk"><td colspan="4">{hunk.header.clone()}</td></tr>
            {rows}
        </tbody>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIFF: &str = "diff --git a/inventory/cart.py b/inventory/cart.py\n--- a/inventory/cart.py\n+++ b/inventory/cart.py\n@@ -24,3 +24,4 @@\n         total = 0\n-            total += item.price_cents\n+            total += item.price_cents * units\n+            pass\n         return total\n";

    #[test]
    fn lines_are_numbered() {
        let files = parse(DIFF);
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].path, "inventory/cart.py");
        let lines = &files[0].hunks[0].lines;
        let nums: Vec<_> = lines.iter().map(|l| (l.kind, l.old, l.new)).collect();
        assert_eq!(
            nums,
            vec![
                (LineKind::Context, Some(24), Some(24)),
                (LineKind::Removed, Some(25), None),
                (LineKind::Added, None, Some(25)),
                (LineKind::Added, None, Some(26)),
                (LineKind::Context, Some(26), Some(27)),
            ]
        );
        let rows = side_by_side(&files[0].hunks[0]);
        assert_eq!(rows.len(), 4);
        assert!(rows[2].0.is_none() && rows[2].1.is_some());
    }

    #[test]
    fn garbage_is_not_a_panic() {
        for text in ["", "@@", "+x", "@@ -a +b @@\n+é", "--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n\\ No newline"] {
            let _ = parse(text);
        }
        assert_eq!(parse("--- a/x.py\n+++ b/x.py\n@@ -3 +3 @@\n-x\n+y\n")[0].hunks[0].lines[1].new, Some(3));
        // A removed line that reads `-- x` is not a file header.
        let files = parse("--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,1 @@\n--- x\n y\n");
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].hunks[0].lines[0].kind, LineKind::Removed);
        assert_eq!(files[0].hunks[0].lines[0].text, "-- x");
    }
}
