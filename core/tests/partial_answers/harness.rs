//! Answers that show one fixed definition of a real module, the way models write them, applied to the module:
//! shared by the test (`core/tests/partial_answers.rs`, a slice) and the bench (`core/benches/partial_answers.rs`,
//! every definition). The modules are the Python files of the replay corpus's search cases (requests, flask,
//! seaborn, xarray as ACR searched them).
//!
//! For each definition (a function, a method or a class, as the index has it) the fix is a comment added to its
//! last line (`  # fixed 7`): a change the gate accepts wherever it lands, and one whose right result is exact. Each
//! answer shows that one definition, fixed, in one of the ways below, and is read with no format asked and with
//! each format asked:
//!
//! | variant | the answer |
//! |---|---|
//! | def path | the path, then the definition in a fence, without its indentation |
//! | def bare | the definition in a fence, no path |
//! | def numbered | the path, then the definition with the line numbers a prompt shows (`    12     def f():`) |
//! | def numbered bare | the same without the path |
//! | def indented | the path, then the definition with its indentation in the file |
//! | def in class | a method inside its class's header line (the class shown in part) |
//! | def info | the path in the fence's info string |
//! | sr | a SEARCH/REPLACE block of the whole definition |
//! | udiff | a fenced git diff of the changed line with three lines of context |
//! | acr | ACR's tags around the whole definition |
//!
//! Every answer sits in a code fence, so it is read whatever format is asked.
//!
//! An answer comes out right (the module with exactly that line changed), refused (nothing changed), or wrong
//! (anything else; a wipe when lines outside the definition are lost). A definition whose place the answer makes
//! unambiguous (its name, with its class where shown, is defined once: in the module when the answer names the
//! file, in the project when it does not) must come out right.

use std::collections::BTreeMap;
use std::path::Path;

use acr_core::Repo;
use acr_core::index::{DefKind, Index};
use acr_core::patch::{self, EditFormat, ExtractOptions, Outcome};

/// The ways an answer is written, in the order printed.
pub const VARIANTS: [&str; 10] = [
    "def path",
    "def bare",
    "def numbered",
    "def numbered bare",
    "def indented",
    "def in class",
    "def info",
    "sr",
    "udiff",
    "acr",
];

/// What the prompt asked for: nothing (`acr apply`, the package), or each format.
pub const ASKED: [Option<EditFormat>; 6] = [
    None,
    Some(EditFormat::Acr),
    Some(EditFormat::SearchReplace),
    Some(EditFormat::Udiff),
    Some(EditFormat::Definition),
    Some(EditFormat::Whole),
];

/// One variant's figures (over every format asked).
#[derive(Default, Debug, Clone, Copy)]
pub struct Count {
    /// Answers read.
    pub answers: usize,
    /// The module came out with exactly the fixed line changed.
    pub right: usize,
    /// Nothing changed.
    pub refused: usize,
    /// Something else changed.
    pub wrong: usize,
    /// Wrong, and lines outside the definition were lost.
    pub wipes: usize,
    /// Answers whose place is unambiguous...
    pub unambiguous: usize,
    /// ...that were refused.
    pub unambiguous_refused: usize,
    /// Answers showing the module's last definition.
    pub last: usize,
}

/// What a run measured.
#[derive(Default)]
pub struct Report {
    /// Figures per variant.
    pub counts: BTreeMap<&'static str, Count>,
    /// Figures per format asked (`none` when none), over the variants.
    pub by_asked: BTreeMap<String, Count>,
    /// One line per wrong answer, and per unambiguous answer refused: `path def (variant, asked): why`.
    pub problems: Vec<String>,
}

/// The search cases' projects (one case per repository: the first), each as its loaded files.
pub fn projects(corpus: &Path) -> Vec<(String, Repo)> {
    let mut seen = Vec::new();
    let mut out = Vec::new();
    let Ok(runs) = std::fs::read_dir(corpus.join("search")) else { return out };
    let mut cases: Vec<_> = runs
        .flatten()
        .flat_map(|r| std::fs::read_dir(r.path()).into_iter().flatten().flatten())
        .map(|e| e.path())
        .collect();
    cases.sort();
    for case in cases {
        let name = case.file_name().unwrap_or_default().to_string_lossy().into_owned();
        let project = name.rsplit_once('-').map_or(name.as_str(), |(p, _)| p).to_string();
        if seen.contains(&project) || !case.join("repo").is_dir() {
            continue;
        }
        seen.push(project.clone());
        out.push((project, super::common::load_tree(&case.join("repo"))));
    }
    out
}

/// Replays every `every`-th definition of each source module of `repo` (test files left out).
pub fn run(project: &str, repo: &Repo, every: usize, report: &mut Report) {
    let index = Index::build(repo);
    // How many times each name is defined in the project, for answers that give no path.
    let mut in_project: BTreeMap<&str, usize> = BTreeMap::new();
    for f in &index.files {
        for d in &f.defs {
            *in_project.entry(&d.name).or_default() += 1;
        }
    }
    let mut n = 0usize;
    for file in &index.files {
        let Some(text) = repo.file(&file.path) else { continue };
        if acr_core::gate::check(text).is_err() || text.contains('\r') {
            continue;
        }
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let last_start = file.defs.iter().filter(|d| d.class.is_none()).map(|d| d.start).max();
        for def in &file.defs {
            n += 1;
            if !n.is_multiple_of(every) {
                continue;
            }
            let (start, end) = (def.start as usize - 1, def.end as usize);
            // Decorators belong to the definition as an answer shows it.
            let mut from = start;
            while from > 0 && lines[from - 1].trim_start().starts_with('@') {
                from -= 1;
            }
            if end > lines.len() || lines[end - 1].trim_end().ends_with('\\') {
                continue;
            }
            let mark = format!("  # fixed {n}");
            let fixed_line = format!("{}{mark}\n", lines[end - 1].trim_end_matches(['\n', '\r']));
            let mut expected = lines[..end - 1].concat();
            expected.push_str(&fixed_line);
            expected.push_str(&lines[end..].concat());
            if acr_core::gate::check(&expected).is_err() {
                continue;
            }
            let shown_old: Vec<&str> = lines[from..end].iter().map(|l| l.trim_end_matches(['\n', '\r'])).collect();
            let mut shown_new = shown_old.clone();
            let last = shown_new.len() - 1;
            let fixed_trimmed = fixed_line.trim_end_matches('\n').to_string();
            shown_new[last] = &fixed_trimmed;
            let named = |d: &&acr_core::index::Def| d.name == def.name;
            let unique_in_module = file.defs.iter().filter(named).count() == 1;
            let unique_in_class = file.defs.iter().filter(named).filter(|d| d.class == def.class).count() == 1;
            let unique_in_project = in_project.get(def.name.as_ref()).copied() == Some(1);
            let is_last = def.class.is_none() && Some(def.start) == last_start;
            for variant in VARIANTS {
                let Some(answer) = render(variant, &file.path, def, &shown_old, &shown_new, from, &lines, end) else {
                    continue;
                };
                let unambiguous = match variant {
                    "def bare" | "def numbered bare" => unique_in_project,
                    "def numbered" | "udiff" => true,
                    "sr" | "acr" => text.matches(shown_old.join("\n").as_str()).count() == 1,
                    "def in class" => unique_in_class,
                    _ => unique_in_module,
                };
                for asked in ASKED {
                    let options = ExtractOptions { asked, ..ExtractOptions::default() };
                    let ex = patch::extract(repo, &answer, &options);
                    let result = ex.files.get(&file.path).map_or(text, String::as_str);
                    let others_changed = ex.files.keys().any(|p| p != &file.path);
                    let applied_all = ex.edits.iter().all(|e| matches!(e.outcome, Outcome::Applied(_)));
                    let asked_name = asked.map_or("none".to_string(), |f| f.name().to_string());
                    for c in [
                        report.counts.entry(variant).or_default(),
                        report.by_asked.entry(asked_name.clone()).or_default(),
                    ] {
                        c.answers += 1;
                        c.last += usize::from(is_last);
                        c.unambiguous += usize::from(unambiguous);
                    }
                    let outcome = if result == expected && !others_changed && applied_all {
                        "right"
                    } else if ex.files.is_empty() {
                        "refused"
                    } else {
                        "wrong"
                    };
                    let wipe = outcome == "wrong" && lost_outside(text, result, from, end) > 0;
                    for c in [
                        report.counts.entry(variant).or_default(),
                        report.by_asked.entry(asked_name.clone()).or_default(),
                    ] {
                        match outcome {
                            "right" => c.right += 1,
                            "refused" => {
                                c.refused += 1;
                                c.unambiguous_refused += usize::from(unambiguous);
                            }
                            _ => {
                                c.wrong += 1;
                                c.wipes += usize::from(wipe);
                            }
                        }
                    }
                    if outcome == "wrong" || (outcome == "refused" && unambiguous) {
                        report.problems.push(format!(
                            "{project} {} {}{} ({variant}, asked {asked_name}): {outcome}: {}",
                            file.path,
                            def.class.as_ref().map_or(String::new(), |c| format!("{c}.")),
                            def.name,
                            ex.reason.lines().take(3).collect::<Vec<_>>().join(" ")
                        ));
                    }
                }
            }
        }
    }
}

/// Lines of `before` outside lines `from..end` (0-based, the definition) that `after` no longer has.
fn lost_outside(before: &str, after: &str, from: usize, end: usize) -> usize {
    let mut left: BTreeMap<&str, usize> = BTreeMap::new();
    for l in after.lines() {
        *left.entry(l).or_default() += 1;
    }
    let mut lost = 0;
    for (i, l) in before.lines().enumerate() {
        if (from..end).contains(&i) {
            continue;
        }
        match left.get_mut(l) {
            Some(n) if *n > 0 => *n -= 1,
            _ => lost += 1,
        }
    }
    lost
}

/// The answer of one variant, or `None` when it does not apply to the definition.
#[allow(clippy::too_many_arguments)]
fn render(
    variant: &str,
    path: &str,
    def: &acr_core::index::Def,
    old: &[&str],
    new: &[&str],
    from: usize,
    lines: &[&str],
    end: usize,
) -> Option<String> {
    let indent = old.iter().filter(|l| !l.trim().is_empty()).map(|l| l.len() - l.trim_start().len()).min().unwrap_or(0);
    let dedented = |block: &[&str]| -> String {
        block.iter().map(|l| l.get(indent..).unwrap_or(l.trim_start())).collect::<Vec<_>>().join("\n")
    };
    let numbered = |block: &[&str]| -> String {
        block.iter().enumerate().map(|(i, l)| format!("{:>6} {l}", from + 1 + i)).collect::<Vec<_>>().join("\n")
    };
    let intro = "The fix is below.\n\n";
    Some(match variant {
        "def path" => format!("{intro}{path}\n```python\n{}\n```\n", dedented(new)),
        "def bare" => format!("{intro}```python\n{}\n```\n", dedented(new)),
        "def numbered" => format!("{intro}{path}\n```python\n{}\n```\n", numbered(new)),
        "def numbered bare" => format!("{intro}```python\n{}\n```\n", numbered(new)),
        "def indented" => format!("{intro}{path}\n```python\n{}\n```\n", new.join("\n")),
        "def in class" => {
            let class = def.class.as_ref().filter(|_| def.kind == DefKind::Method)?;
            let header = lines[..from].iter().rev().find(|l| {
                let t = l.trim_start();
                t.starts_with(&format!("class {class}(")) || t.starts_with(&format!("class {class}:"))
            })?;
            // A method of a class at the module's top level (not a function local to one of its methods).
            let def_line = old.iter().find(|l| !l.trim_start().starts_with('@'))?;
            if header.len() - header.trim_start().len() != 0 || def_line.len() - def_line.trim_start().len() != 4 {
                return None;
            }
            format!("{intro}{path}\n```python\n{}\n{}\n```\n", header.trim_end(), new.join("\n"))
        }
        "def info" => format!("{intro}```python {path}\n{}\n```\n", dedented(new)),
        "sr" => format!(
            "{path}\n```python\n<<<<<<< SEARCH\n{}\n=======\n{}\n>>>>>>> REPLACE\n```\n",
            old.join("\n"),
            new.join("\n")
        ),
        "udiff" => {
            let at = end - 1;
            let (lo, hi) = (at.saturating_sub(3), (at + 4).min(lines.len()));
            let mut s =
                format!("```diff\n--- a/{path}\n+++ b/{path}\n@@ -{},{} +{},{} @@\n", lo + 1, hi - lo, lo + 1, hi - lo);
            for (i, l) in lines[lo..hi].iter().enumerate() {
                let l = l.trim_end_matches(['\n', '\r']);
                if lo + i == at {
                    s.push_str(&format!("-{l}\n+{}\n", new[new.len() - 1]));
                } else {
                    s.push_str(&format!(" {l}\n"));
                }
            }
            s.push_str("```\n");
            s
        }
        "acr" => format!(
            "# modification 1\n```\n<file>{path}</file>\n<original>\n{}\n</original>\n<patched>\n{}\n</patched>\n```\n",
            old.join("\n"),
            new.join("\n")
        ),
        _ => return None,
    })
}
