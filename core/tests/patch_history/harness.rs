//! The patch core against real history, shared by the bench (`core/benches/patch_history.rs`, every commit) and
//! the test (`core/tests/patch_history.rs`, a slice): commits of small, long-lived Python projects, each file's
//! change written as an answer in the ways models write them, applied to the parent's file and compared with the
//! child's.
//!
//! Bare git mirrors in the folder `ACR_MIRRORS` names are read at run time (`ACR_MIRRORS/owner+name/repo` for six,
//! itsdangerous, attrs and click; without the variable the test and the bench skip and say so). Nothing of them is copied into the project. For each of the latest commits of
//! each repository and each modified `.py` file, every hunk becomes one edit with 1-3 lines of context, in these
//! variants:
//! | variant | the edit as written |
//! |---|---|
//! | exact | copied with its indentation |
//! | dedented | the indentation common to the original and patched lines removed |
//! | indented | 4 more spaces on every line |
//! | stripped | trailing whitespace removed (compared with the child's file modulo trailing whitespace) |
//! | tabs | each leading run of 4 spaces written as a tab |
//! | minimal | no context lines (hunks that only add lines are left out) |
//! | near miss | one identifier of the original changed to a token absent from the file: must never apply |
//! | located | exact, with the bug locations the agent's search would give: the span of the innermost class or
//! function around each hunk (none for module-level hunks), which decides between repeated originals |
//!
//! and the same change in the other edit formats models write (see `acr_core::patch::formats`):
//! | variant | the answer as written |
//! |---|---|
//! | sr | exact, as SEARCH/REPLACE blocks after the path |
//! | sr near miss | near miss, as SEARCH/REPLACE blocks: must never apply |
//! | udiff git | exact, as `git diff` writes it: `diff --git`, `a/`/`b/`, right hunk numbers |
//! | udiff guessed | exact, as a unified diff whose hunk numbers are off by 1-40 lines (a model's guess) |
//! | udiff bare | exact, as Aider's unified diff: `--- path`, `+++ path`, `@@ ... @@` without numbers |
//! | udiff near miss | near miss, as a git diff with right numbers: must never apply |
//! | whole | the child's whole file after its path |
//! | whole cut | the child's file cut after half its lines with `# ... rest of the file unchanged`: never to apply |
//! | mixed | exact, each hunk in turn as ACR tags, SEARCH/REPLACE and a bare unified diff |
//!
//! Printed per variant: answers, right file, refused (an edit did not apply), wrong (every edit applied and the
//! file differs from the child's; for near misses, any edit applied). Test files are left out (the core drops edits
//! to them on purpose).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use acr_core::Repo;
use acr_core::patch::{self, ExtractOptions, Outcome};
use similar::{DiffTag, TextDiff};

const REPOS: [&str; 4] = ["benjaminp+six", "pallets+itsdangerous", "python-attrs+attrs", "pallets+click"];
/// The ways an answer is written, in the order printed.
pub const VARIANTS: [&str; 17] = [
    "exact",
    "dedented",
    "indented",
    "stripped",
    "tabs",
    "minimal",
    "near miss",
    "located",
    "sr",
    "sr near miss",
    "udiff git",
    "udiff guessed",
    "udiff bare",
    "udiff near miss",
    "whole",
    "whole cut",
    "mixed",
];

/// Variants whose answers must never apply.
pub fn never_applies(variant: &str) -> bool {
    variant.ends_with("near miss") || variant == "whole cut"
}

/// How an answer's edits are written down.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    Acr,
    SearchReplace,
    /// A unified diff: git's headers and numbers; numbers off by some lines; Aider's bare form.
    GitDiff,
    GuessedDiff,
    BareDiff,
}

/// The edits and how they are written for a variant: (the edit variant, its form; `None` for whole files).
fn written_as(variant: &str) -> (&str, Option<Form>) {
    match variant {
        "located" => ("exact", Some(Form::Acr)),
        "sr" => ("exact", Some(Form::SearchReplace)),
        "sr near miss" => ("near miss", Some(Form::SearchReplace)),
        "udiff git" => ("exact", Some(Form::GitDiff)),
        "udiff guessed" => ("exact", Some(Form::GuessedDiff)),
        "udiff bare" | "mixed" => ("exact", Some(Form::BareDiff)),
        "udiff near miss" => ("near miss", Some(Form::GitDiff)),
        "whole" | "whole cut" => ("exact", None),
        v => (v, Some(Form::Acr)),
    }
}

/// One edit written in `form`: `from` is its original's first line (0-based) in the parent's file, `shift` the
/// lines the answer's earlier edits added (what a right `+` number accounts for), `seed` varies guessed numbers.
fn render(form: Form, path: &str, original: &str, patched: &str, from: usize, shift: isize, seed: usize) -> String {
    match form {
        Form::Acr => {
            format!("<file>{path}</file>\n<original>\n{original}\n</original>\n<patched>\n{patched}</patched>\n")
        }
        Form::SearchReplace => {
            format!("{path}\n```python\n<<<<<<< SEARCH\n{original}\n=======\n{patched}>>>>>>> REPLACE\n```\n")
        }
        Form::GitDiff | Form::GuessedDiff | Form::BareDiff => {
            let old: Vec<&str> = original.split('\n').collect();
            let new: Vec<&str> = if patched.is_empty() {
                Vec::new()
            } else {
                patched.strip_suffix('\n').unwrap_or(patched).split('\n').collect()
            };
            let head = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
            let tail = old[head..].iter().rev().zip(new[head..].iter().rev()).take_while(|(a, b)| a == b).count();
            let (old_start, new_start) = (from + 1, (from as isize + 1 + shift).max(1) as usize);
            let (old_start, new_start) = if form == Form::GuessedDiff {
                let off = 1 + seed % 40;
                let sign = |n: usize| if seed.is_multiple_of(2) { n + off } else { n.saturating_sub(off).max(1) };
                (sign(old_start), sign(new_start))
            } else {
                (old_start, new_start)
            };
            let mut s = match form {
                Form::BareDiff => format!("--- {path}\n+++ {path}\n@@ ... @@\n"),
                _ => format!(
                    "diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -{old_start},{} +{new_start},{} @@\n",
                    old.len(),
                    new.len()
                ),
            };
            for l in &old[..head] {
                s.push_str(&format!(" {l}\n"));
            }
            for l in &old[head..old.len() - tail] {
                s.push_str(&format!("-{l}\n"));
            }
            for l in &new[head..new.len() - tail] {
                s.push_str(&format!("+{l}\n"));
            }
            for l in &old[old.len() - tail..] {
                s.push_str(&format!(" {l}\n"));
            }
            s
        }
    }
}

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git").arg("--git-dir").arg(dir).args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8(out.stdout).ok()).flatten()
}

/// One hunk: old lines `[old_start, old_end)` become `new`, with the file's lines for context.
struct Hunk {
    old_start: usize,
    old_end: usize,
    new: Vec<String>,
    /// The new lines with their line endings.
    raw: String,
}

fn hunks(old: &str, new: &str) -> Vec<Hunk> {
    let diff = TextDiff::from_lines(old, new);
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    let mut out: Vec<Hunk> = Vec::new();
    // The ranges are rebuilt from running positions: `similar` can report an insertion that follows an equal run at
    // the run's start rather than its end, which would put the new lines one line too early.
    let (mut old_at, mut new_at) = (0usize, 0usize);
    for op in diff.ops() {
        let o = old_at..old_at + op.old_range().len();
        let n = new_at..new_at + op.new_range().len();
        (old_at, new_at) = (o.end, n.end);
        if op.tag() == DiffTag::Equal {
            continue;
        }
        let lines: Vec<String> =
            new_lines[n.clone()].iter().map(|l| l.trim_end_matches(['\n', '\r']).to_string()).collect();
        // Changes closer than 7 lines would overlap through their context: merge them.
        if let Some(last) = out.last_mut()
            && o.start < last.old_end + 7
        {
            let between = old.split_inclusive('\n').skip(last.old_end).take(o.start - last.old_end);
            for l in between {
                last.raw.push_str(l);
                last.new.push(l.trim_end_matches(['\n', '\r']).to_string());
            }
            last.raw.extend(new_lines[n.clone()].iter().copied());
            last.new.extend(lines);
            last.old_end = o.end;
            continue;
        }
        out.push(Hunk { old_start: o.start, old_end: o.end, new: lines, raw: new_lines[n].concat() });
    }
    out
}

fn leading(l: &str) -> usize {
    l.len() - l.trim_start_matches([' ', '\t']).len()
}

/// The edit's original text and patched block body for one variant, or `None` when the variant does not apply to the hunk.
fn write_edit(
    old_lines: &[&str],
    h: &Hunk,
    variant: &str,
    context: usize,
    file: &str,
) -> Option<(String, String, usize)> {
    let ctx = if variant == "minimal" { 0 } else { context };
    if ctx == 0 && h.old_start == h.old_end {
        return None;
    }
    let (mut from, mut to) = (h.old_start.saturating_sub(ctx), (h.old_end + ctx).min(old_lines.len()));
    // Context that is only blank lines is widened until it holds a line of code, as a model's would.
    let blank = |from: usize, to: usize| old_lines[from..to].iter().all(|l| l.trim().is_empty());
    while ctx > 0 && blank(from, to) && (from > 0 || to < old_lines.len()) {
        (from, to) = (from.saturating_sub(1), (to + 1).min(old_lines.len()));
    }
    let strip = |l: &&str| l.trim_end_matches(['\n', '\r']).to_string();
    let mut original: Vec<String> = old_lines[from..to].iter().map(strip).collect();
    let mut patched: Vec<String> = old_lines[from..h.old_start].iter().map(strip).collect();
    patched.extend(h.new.iter().cloned());
    patched.extend(old_lines[h.old_end..to].iter().map(strip));
    if original.iter().all(|l| l.trim().is_empty()) {
        return None;
    }
    match variant {
        "dedented" => {
            // The indentation both blocks share, so the patched lines keep their places relative to the original's.
            let written = original.iter().chain(patched.iter()).filter(|l| !l.trim().is_empty());
            let cut = written.map(|l| leading(l)).min().unwrap_or(0);
            for l in original.iter_mut().chain(patched.iter_mut()) {
                let n = leading(l).min(cut);
                *l = l[n..].to_string();
            }
        }
        "indented" => {
            for l in original.iter_mut().chain(patched.iter_mut()) {
                if !l.trim().is_empty() {
                    *l = format!("    {l}");
                }
            }
        }
        "stripped" => {
            for l in original.iter_mut().chain(patched.iter_mut()) {
                *l = l.trim_end().to_string();
            }
        }
        "tabs" => {
            for l in original.iter_mut().chain(patched.iter_mut()) {
                let spaces = l.len() - l.trim_start_matches(' ').len();
                *l = format!("{}{}{}", "\t".repeat(spaces / 4), " ".repeat(spaces % 4), &l[spaces..]);
            }
        }
        "near miss" => {
            let word = original
                .iter()
                .flat_map(|l| l.split(|c: char| !c.is_alphanumeric() && c != '_'))
                .find(|w| w.len() >= 3 && w.starts_with(|c: char| c.is_alphabetic() || c == '_'))?;
            let word = word.to_string();
            let absent = "zq_absent_name";
            if file.contains(absent) {
                return None;
            }
            let line = original.iter_mut().find(|l| l.contains(&word))?;
            *line = line.replacen(&word, absent, 1);
        }
        _ => {}
    }
    // The patched block's body: no line at all is an empty block (`<patched>\n\n</patched>` is one blank line).
    let patched = if patched.is_empty() { String::new() } else { format!("{}\n", patched.join("\n")) };
    Some((original.join("\n"), patched, from))
}

/// How many times `original` occurs in the file, comparing lines without their surrounding whitespace and leaving
/// blank lines out: the bench's own count, independent of the core's matcher.
fn occurrences(original: &str, old_lines: &[&str]) -> usize {
    let wanted: Vec<&str> = original.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let file: Vec<&str> = old_lines.iter().map(|l| l.trim()).filter(|l| !l.is_empty()).collect();
    if wanted.is_empty() {
        return 0;
    }
    file.windows(wanted.len()).filter(|w| *w == wanted.as_slice()).count()
}

/// One variant's figures.
#[derive(Default)]
pub struct Count {
    /// Answers written.
    pub answers: usize,
    /// Answers with an edit whose original occurs more than once in the file (by the bench's own count), which the
    /// core must refuse unless a bug location decides.
    pub ambiguous: usize,
    /// Ambiguous answers refused.
    pub ambiguous_refused: usize,
    /// Every edit applied and the file came out right.
    pub right: usize,
    /// Right files among the answers that are not ambiguous.
    pub right_unique: usize,
    /// An edit did not apply (for near misses: none applied).
    pub refused: usize,
    /// Every edit applied and the file came out wrong (for near misses: any edit applied).
    pub wrong: usize,
}

/// What a run measured.
pub struct Report {
    /// Figures per variant.
    pub counts: BTreeMap<&'static str, Count>,
    /// `repo commit path (variant)` of each wrong file.
    pub wrong: Vec<String>,
}

/// Where the mirrors are: the folder `ACR_MIRRORS` names, if set.
pub fn mirrors() -> Option<PathBuf> {
    std::env::var_os("ACR_MIRRORS").filter(|v| !v.is_empty()).map(PathBuf::from)
}

/// Replays the latest `commits` non-merge commits of each mirrored repository under `root`; `None` when no mirror
/// is there. With `ACR_HISTORY_VERBOSE` set, prints the refusals of answers that are not ambiguous and the first `ACR_HISTORY_SHOWN`
/// (6) wrong files, with their answers when `ACR_HISTORY_ANSWERS` is set.
pub fn run(root: &Path, commits: usize) -> Option<Report> {
    let mut counts: BTreeMap<&'static str, Count> = BTreeMap::new();
    let mut wrong_examples: Vec<String> = Vec::new();
    let mut found_any = false;
    let shown: usize = std::env::var("ACR_HISTORY_SHOWN").ok().and_then(|n| n.parse().ok()).unwrap_or(6);
    for name in REPOS {
        let dir = root.join(name).join("repo");
        let Some(log) = git(&dir, &["log", "--no-merges", "--format=%H", "-n", &commits.to_string()]) else {
            println!("SKIP {name}: no mirror at {}", dir.display());
            continue;
        };
        found_any = true;
        for commit in log.lines() {
            let Some(changed) =
                git(&dir, &["diff-tree", "--no-commit-id", "-r", "--name-status", &format!("{commit}^"), commit])
            else {
                continue;
            };
            for line in changed.lines() {
                // Test files are left out: the patch core drops edits to them on purpose.
                let Some(path) =
                    line.strip_prefix("M\t").filter(|p| p.ends_with(".py") && !acr_core::repo::is_test_file(p))
                else {
                    continue;
                };
                let (Some(old), Some(new)) = (
                    git(&dir, &["show", &format!("{commit}^:{path}")]),
                    git(&dir, &["show", &format!("{commit}:{path}")]),
                ) else {
                    continue;
                };
                if old.len() > 300_000 || old == new {
                    continue;
                }
                let hs = hunks(&old, &new);
                let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
                let repo = Repo::from_files([(path, old.as_bytes())]);
                let defs = acr_core::Index::build(&repo).files.pop().map(|f| f.defs).unwrap_or_default();
                for (vi, variant) in VARIANTS.iter().enumerate() {
                    // A located answer is the exact one, written the same way; so are the other formats' answers.
                    let (written, form) = written_as(variant);
                    let vi =
                        if written == *variant { vi } else { VARIANTS.iter().position(|v| *v == written).unwrap_or(0) };
                    let mut shift = 0isize;
                    let mut bug_lines = Vec::new();
                    let mut answer = String::new();
                    // The child's file, or when a hunk cannot be written in this variant (a minimal answer to a
                    // hunk that only adds lines), the parent's with the written hunks applied.
                    let mut expected = String::new();
                    let mut copied = 0usize;
                    let mut ambiguous = false;
                    for (i, h) in hs.iter().enumerate() {
                        let context = 1 + (i + vi + commit.len()) % 3;
                        let Some((o, p, from)) = write_edit(&old_lines, h, written, context, &old) else {
                            continue;
                        };
                        ambiguous |= !never_applies(variant) && form.is_some() && occurrences(&o, &old_lines) > 1;
                        let line = h.old_start as u32 + 1;
                        let around = defs.iter().filter(|d| d.start <= line && line <= d.end).max_by_key(|d| d.start);
                        if let Some(d) = around {
                            bug_lines.push(patch::BugLine { file: path.to_string(), line: d.start, end: Some(d.end) });
                        }
                        expected.extend(old_lines[copied..h.old_start].iter().copied());
                        expected.push_str(&h.raw);
                        copied = h.old_end;
                        let form = match (*variant, form) {
                            ("mixed", _) => [Form::Acr, Form::SearchReplace, Form::BareDiff][i % 3],
                            (_, Some(f)) => f,
                            (_, None) => continue,
                        };
                        answer.push_str(&render(form, path, &o, &p, from, shift, i + commit.len() + path.len()));
                        shift += p.lines().count() as isize - o.split('\n').count() as isize;
                    }
                    if form.is_none() {
                        // The whole child file, or (cut) its first half and a placeholder for the rest.
                        let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
                        let body = if *variant == "whole cut" {
                            if new_lines.len() < 20 {
                                continue;
                            }
                            format!("{}# ... rest of the file unchanged\n", new_lines[..new_lines.len() / 2].concat())
                        } else {
                            new.clone()
                        };
                        let eol = if body.ends_with('\n') { "" } else { "\n" };
                        answer = format!("{path}\n```python\n{body}{eol}```\n");
                        expected = new.clone();
                        copied = old_lines.len();
                    }
                    if answer.is_empty() {
                        continue;
                    }
                    expected.extend(old_lines[copied..].iter().copied());
                    let options = match *variant {
                        "located" => ExtractOptions { bug_lines, ..Default::default() },
                        _ => ExtractOptions::default(),
                    };
                    let ex = patch::extract(&repo, &answer, &options);
                    let applied = ex.edits.iter().filter(|e| matches!(e.outcome, Outcome::Applied(_))).count();
                    let all = applied == ex.edits.len();
                    let result = ex.files.get(path).map_or(old.as_str(), String::as_str);
                    let same = |a: &str, b: &str| {
                        if *variant == "stripped" {
                            a.lines().map(str::trim_end).eq(b.lines().map(str::trim_end))
                        } else {
                            a == b
                        }
                    };
                    let c = counts.entry(variant).or_default();
                    c.answers += 1;
                    c.ambiguous += usize::from(ambiguous);
                    if never_applies(variant) {
                        if applied > 0 {
                            c.wrong += 1;
                            wrong_examples.push(format!("{name} {commit} {path} {variant} applied"));
                        } else {
                            c.refused += 1;
                        }
                    } else if all && same(result, &expected) {
                        c.right += 1;
                        c.right_unique += usize::from(!ambiguous);
                    } else if all {
                        c.wrong += 1;
                        wrong_examples.push(format!("{name} {commit} {path} ({variant})"));
                        if std::env::var("ACR_HISTORY_VERBOSE").is_ok() && wrong_examples.len() <= shown {
                            let d = TextDiff::from_lines(expected.as_str(), result);
                            println!(
                                "wrong ({variant}) {name} {commit} {path}, child -> ours:\n{}",
                                d.unified_diff().context_radius(1)
                            );
                            if std::env::var("ACR_HISTORY_ANSWERS").is_ok() {
                                println!("answer:\n{answer}");
                            }
                        }
                    } else {
                        c.refused += 1;
                        c.ambiguous_refused += usize::from(ambiguous);
                        // The refusals worth reading: of answers the bench does not count as ambiguous.
                        if std::env::var("ACR_HISTORY_VERBOSE").is_ok() && !ambiguous {
                            for e in ex.edits.iter().filter(|e| !matches!(e.outcome, Outcome::Applied(_))) {
                                println!("refused ({variant}): {name} {commit} {path}: {}", e.message());
                            }
                        }
                    }
                }
            }
        }
    }
    found_any.then_some(Report { counts, wrong: wrong_examples })
}
