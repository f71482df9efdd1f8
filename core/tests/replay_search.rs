//! Replays every search call that AutoCodeRover made in `../shared/replay/search` and compares the code units we
//! return with the ones in ACR's recorded output. Skips (with a message) when the corpus is absent.
//!
//! A unit is one result: a definition or a text hit, identified by file, class and function; when ACR showed the
//! code, the line range is checked too (our range's text must equal ACR's code, or ACR's context must cover our
//! hit's line). When either side collapsed a long listing to `<file>…</file> (N matches)`, units are compared per
//! file (and per function for `search_code_in_file`).
//!
//! The recorded run (April 2024) used ACR's first public search backend, whose file list included test files and
//! left out paths starting with `build`, `doc`, `requests/packages` and a few others. The replay indexes the same
//! files so that the comparison is about search behaviour; it also reports how many of ACR's units lie in test
//! files, which the product's default index leaves out (as ACR does today).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use acr_core::Repo;
use acr_core::index::{Index, IndexBuilder};
use acr_core::repo::is_test_file;
use acr_core::search::{SearchOutput, Searcher};
use regex_lite::Regex;
use serde_json::Value;

fn corpus() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/replay/search/acr-run-1"))
}

/// Path prefixes ACR's 2024 file walk skipped (`get_all_py_files`), plus hidden folders, which its glob never
/// entered.
fn acr_2024_indexed(path: &str) -> bool {
    const SKIPPED: &[&str] = &[
        "build",
        "doc",
        "requests/packages",
        "tests/regrtest_data",
        "tests/input",
        "tests/functional",
        "tests/roots",
        "sphinx/templates/latex",
        "tests/test_runner_apps/tagged/",
        "django/conf/app_template/",
    ];
    path.ends_with(".py")
        && !path.split('/').any(|c| c.starts_with('.'))
        && !SKIPPED.iter().any(|p| path.starts_with(p))
}

fn load_dir(root: &Path) -> Repo {
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("readable corpus folder") {
            let path = entry.expect("readable entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(root).expect("under root").to_string_lossy().replace('\\', "/");
                files.push((rel, std::fs::read(&path).expect("readable file")));
            }
        }
    }
    Repo::from_files(files)
}

fn acr_2024_index(repo: &Repo) -> Index {
    let mut b = IndexBuilder::new();
    for (path, text) in repo.files().filter(|(p, _)| acr_2024_indexed(p)) {
        b.add_file(path, text);
    }
    b.finish()
}

/// One unit parsed from an output text.
#[derive(Debug, Clone)]
struct Unit {
    file: String,
    class: Option<String>,
    func: Option<String>,
    /// Whether class and function are known (a full result, or a per-method line for `func`).
    identity: Identity,
    /// Code lines shown, if the result was shown in full (line numbers stripped from ours).
    code: Option<Vec<String>>,
    /// For our full results: the line range.
    range: Option<(u32, u32)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Identity {
    Full,
    FuncOnly,
    FileOnly,
}

struct Parser {
    result: Regex,
    file_line: Regex,
    method_line: Regex,
}

impl Parser {
    fn new() -> Parser {
        Parser {
            result: Regex::new(
                r"Search result (\d+): <file>(.*?)</file>(?: <class>(.*?)</class>)?(?: <func>(.*?)</func>)? <code>",
            )
            .unwrap(),
            file_line: Regex::new(r"(?m)^<file>([^<]*)</file> \((\d+) matches\)$").unwrap(),
            method_line: Regex::new(
                r"(?m)^<file>([^<]*)</file>(?: <class>[^<]*</class>)?(?: <func>([^<]*)</func>| ?Not in a function) \((\d+) matches\)$",
            )
            .unwrap(),
        }
    }

    /// Units of one output text. `numbered`: code lines carry our `N ` prefix.
    fn units(&self, text: &str, numbered: bool) -> Vec<Unit> {
        let mut units = Vec::new();
        let heads: Vec<_> = self.result.captures_iter(text).collect();
        let mut tail_start = 0;
        for (i, cap) in heads.iter().enumerate() {
            let code_start = cap.get(0).unwrap().end();
            let limit = heads.get(i + 1).map_or(text.len(), |next| next.get(0).unwrap().start());
            let code_end = text[code_start..limit].rfind("</code>").map_or(limit, |p| code_start + p);
            tail_start = code_end;
            let mut code = &text[code_start..code_end];
            if numbered {
                code = code.strip_prefix('\n').unwrap_or(code);
            }
            let lines = code
                .lines()
                .map(|l| {
                    if numbered {
                        let digits = l.trim_start_matches(|c: char| c.is_ascii_digit());
                        digits.strip_prefix(' ').unwrap_or(digits).to_string()
                    } else {
                        l.to_string()
                    }
                })
                .collect();
            units.push(Unit {
                file: cap[2].to_string(),
                class: cap.get(3).map(|m| m.as_str().to_string()),
                func: cap.get(4).map(|m| m.as_str().to_string()),
                identity: Identity::Full,
                code: Some(lines),
                range: None,
            });
        }
        let tail = &text[tail_start..];
        if tail.contains("They appeared in the following methods:") {
            for cap in self.method_line.captures_iter(tail) {
                for _ in 0..cap[3].parse::<usize>().unwrap() {
                    units.push(Unit {
                        file: cap[1].to_string(),
                        class: None,
                        func: cap.get(2).map(|m| m.as_str().to_string()),
                        identity: Identity::FuncOnly,
                        code: None,
                        range: None,
                    });
                }
            }
        } else {
            for cap in self.file_line.captures_iter(tail) {
                for _ in 0..cap[2].parse::<usize>().unwrap() {
                    units.push(Unit {
                        file: cap[1].to_string(),
                        class: None,
                        func: None,
                        identity: Identity::FileOnly,
                        code: None,
                        range: None,
                    });
                }
            }
        }
        units
    }
}

/// How an ACR unit was matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Match {
    /// Same identity, and the code agrees line for line (or covers our hit).
    Exact,
    /// Same identity; ACR showed no code or its code differs.
    Identity,
    /// Same file; one side only listed files.
    File,
}

fn line_of(text: &str, offset: usize) -> u32 {
    text.as_bytes()[..offset].iter().filter(|&&b| b == b'\n').count() as u32 + 1
}

/// Whether ACR's code agrees with our unit.
fn code_agrees(api: &str, acr: &Unit, ours: &Unit, file_text: &str) -> bool {
    let (Some(a), Some(o)) = (&acr.code, &ours.code) else {
        return false;
    };
    if api == "search_code" || api == "search_code_in_file" {
        // ACR's context window differs from ours; check that it surrounds our hit.
        let Some((hit, _)) = ours.range else {
            return false;
        };
        let ctx = a.join("\n");
        let ctx = ctx.trim_matches('\n');
        if ctx.is_empty() {
            return false;
        }
        return file_text.match_indices(ctx).any(|(off, m)| {
            let (l1, l2) = (line_of(file_text, off), line_of(file_text, off + m.len()));
            l1 <= hit && hit <= l2
        });
    }
    let trim = |v: &Vec<String>| {
        let mut v: Vec<String> = v.iter().map(|l| l.trim_end().to_string()).collect();
        while v.last().is_some_and(String::is_empty) {
            v.pop();
        }
        v
    };
    trim(a) == trim(o)
}

fn compatible(acr: &Unit, ours: &Unit, level: Match) -> bool {
    if acr.file != ours.file {
        return false;
    }
    match level {
        Match::Exact | Match::Identity => {
            acr.identity == Identity::Full
                && ours.identity == Identity::Full
                && acr.class == ours.class
                && acr.func == ours.func
        }
        Match::File => {
            if acr.identity == Identity::FileOnly || ours.identity == Identity::FileOnly {
                true
            } else {
                // Per-method listings: compare functions.
                acr.func == ours.func
            }
        }
    }
}

#[derive(Default)]
struct Tally {
    acr_units: usize,
    our_units: usize,
    matched: usize,
    exact: usize,
    with_code: usize,
    calls: usize,
    ok_agree: usize,
    in_test_files: usize,
}

#[test]
fn replay_search_calls() {
    let root = corpus();
    if !root.is_dir() {
        println!("SKIP replay_search: no corpus at {} (see ../shared/replay/README.md)", root.display());
        return;
    }
    let parser = Parser::new();
    let mut tasks: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("calls.jsonl").is_file())
        .collect();
    tasks.sort();
    let mut total = Tally::default();
    let mut per_api: BTreeMap<String, Tally> = BTreeMap::new();
    let mut disagreements: Vec<String> = Vec::new();
    let mut index_ms = 0.0;
    let started = Instant::now();
    for task in &tasks {
        let name = task.file_name().unwrap().to_string_lossy().to_string();
        let repo = load_dir(&task.join("repo"));
        let t = Instant::now();
        let index = acr_2024_index(&repo);
        index_ms += t.elapsed().as_secs_f64() * 1000.0;
        let searcher = Searcher::new(&index, &repo);
        let calls = std::fs::read_to_string(task.join("calls.jsonl")).unwrap();
        for line in calls.lines().filter(|l| !l.trim().is_empty()) {
            let call: Value = serde_json::from_str(line).unwrap();
            let api = call["api"].as_str().unwrap();
            let acr_text = call["acr_output"].as_str().unwrap();
            let acr_ok = call["call_ok"].as_bool().unwrap();
            let ours: SearchOutput = searcher.call(api, &call["args"]);
            let acr_units = if acr_ok { parser.units(acr_text, false) } else { Vec::new() };
            let mut our_units = if ours.ok { parser.units(&ours.text, true) } else { Vec::new() };
            // Full results are listed first, in the order of the structured results.
            for (u, hit) in our_units.iter_mut().filter(|u| u.identity == Identity::Full).zip(&ours.results) {
                u.range = Some((hit.start, hit.end));
            }
            let tally = per_api.entry(api.to_string()).or_default();
            for t in [&mut total, tally] {
                t.calls += 1;
                t.ok_agree += usize::from(acr_ok == ours.ok);
                t.acr_units += acr_units.len();
                t.our_units += our_units.len();
                t.in_test_files += acr_units.iter().filter(|u| is_test_file(&u.file)).count();
            }
            // Greedy matching, strictest level first.
            let mut acr_match: Vec<Option<Match>> = vec![None; acr_units.len()];
            let mut taken = vec![false; our_units.len()];
            for level in [Match::Exact, Match::Identity, Match::File] {
                for (ai, a) in acr_units.iter().enumerate() {
                    if acr_match[ai].is_some() {
                        continue;
                    }
                    let file_text = repo.file(&a.file).unwrap_or("");
                    let found = our_units.iter().enumerate().position(|(oi, o)| {
                        !taken[oi]
                            && compatible(a, o, level)
                            && (level != Match::Exact || code_agrees(api, a, o, file_text))
                    });
                    if let Some(oi) = found {
                        taken[oi] = true;
                        acr_match[ai] = Some(level);
                    }
                }
            }
            let matched = acr_match.iter().filter(|m| m.is_some()).count();
            let exact = acr_match.iter().filter(|m| **m == Some(Match::Exact)).count();
            let with_code = acr_units.iter().filter(|u| u.code.is_some()).count();
            for t in [&mut total, per_api.get_mut(api).unwrap()] {
                t.matched += matched;
                t.exact += exact;
                t.with_code += with_code;
            }
            let seq = call["seq"].as_i64().unwrap_or(-1);
            let head = format!("{name}#{seq} {api}{}", call["args"]);
            if acr_ok != ours.ok {
                disagreements.push(format!(
                    "{head}: ok differs (ACR {acr_ok}, ours {}): ours says {:?}",
                    ours.ok,
                    ours.text.lines().next().unwrap_or("")
                ));
            }
            for (a, m) in acr_units.iter().zip(&acr_match) {
                match m {
                    None => {
                        disagreements.push(format!("{head}: ACR unit not found: {} {:?}.{:?}", a.file, a.class, a.func))
                    }
                    Some(Match::Identity) if a.code.is_some() => disagreements
                        .push(format!("{head}: same unit, code differs: {} {:?}.{:?}", a.file, a.class, a.func)),
                    _ => {}
                }
            }
            for (o, t) in our_units.iter().zip(&taken) {
                if !t {
                    disagreements.push(format!(
                        "{head}: extra unit of ours: {} {:?}.{:?} {:?}",
                        o.file, o.class, o.func, o.range
                    ));
                }
            }
        }
    }
    let pct = |a: usize, b: usize| {
        if b == 0 { 100.0 } else { 100.0 * a as f64 / b as f64 }
    };
    println!(
        "replay_search: {} tasks, {} calls, index (debug build) {:.0} ms in total, whole replay {:.1} s",
        tasks.len(),
        total.calls,
        index_ms,
        started.elapsed().as_secs_f64()
    );
    println!(
        "{:<24} {:>5} {:>6} {:>9} {:>8} {:>9} {:>9} {:>9}",
        "api", "calls", "ok=ok", "ACR units", "ours", "recall%", "precis%", "exact%"
    );
    let row = |name: &str, t: &Tally| {
        println!(
            "{:<24} {:>5} {:>6} {:>9} {:>8} {:>9.2} {:>9.2} {:>9.2}",
            name,
            t.calls,
            t.ok_agree,
            t.acr_units,
            t.our_units,
            pct(t.matched, t.acr_units),
            pct(t.matched, t.our_units),
            pct(t.exact, t.with_code),
        );
    };
    for (api, t) in &per_api {
        row(api, t);
    }
    row("ALL", &total);
    println!(
        "exact% = ACR units shown with code whose code matches ours line for line (or whose context covers our hit)."
    );
    println!(
        "{} of ACR's {} units ({:.1}%) lie in test files, which the product's default index leaves out.",
        total.in_test_files,
        total.acr_units,
        pct(total.in_test_files, total.acr_units)
    );
    println!("disagreements ({}):", disagreements.len());
    for d in &disagreements {
        println!("  {d}");
    }
    let recall = pct(total.matched, total.acr_units);
    let precision = pct(total.matched, total.our_units);
    assert!(total.calls >= 100, "the corpus should hold 145 calls");
    assert!(recall >= 99.0, "recall of ACR's units fell to {recall:.2}%");
    assert!(precision >= 97.0, "precision fell to {precision:.2}%");
    let exact = pct(total.exact, total.with_code);
    assert!(exact >= 95.0, "code agreement fell to {exact:.2}%");
}
