//! The gate against CPython: a corpus of real files, mutants of them and CPython's own syntax-test snippets, each
//! judged by the reference interpreter's `compile()` and by the gate. Shared by the test (a slice, with the
//! targets asserted) and the benchmark (everything, figures printed).
//!
//! The reference interpreter is CPython 3.12, the version whose grammar the gate follows: `ACR_GATE_PYTHON`, else
//! pyenv's 3.12 (`$(pyenv root)/versions/3.12.*`), else `python3.12` or `python3` on the path when it is 3.12.
//! Nothing is downloaded: without such an interpreter the checks are skipped with a message.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use acr_core::gate::{Gate, ProblemKind, SyntaxProblem, TextEdit};

/// What the Python side prints for one source.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct Verdict {
    pub ok: bool,
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub msg: Option<String>,
    pub line: Option<i64>,
    pub stage: Option<String>,
}

/// One source of the corpus.
#[derive(Debug, Clone)]
pub struct Case {
    /// `file`, `mutant` or `snippet`.
    pub group: &'static str,
    /// Where it comes from (file name and mutation, or test file).
    pub origin: String,
    pub source: String,
    /// For a mutant: the index of the file it was made from.
    pub base: Option<usize>,
}

const JUDGE: &str = include_str!("judge.py");

/// The reference interpreter, or `None` (with the reason printed).
pub fn interpreter() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("ACR_GATE_PYTHON") {
        return Some(PathBuf::from(p));
    }
    let mut candidates = Vec::new();
    let root = Command::new("pyenv")
        .arg("root")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
        .or_else(|| std::env::var("HOME").ok().map(|h| PathBuf::from(h).join(".pyenv")));
    if let Some(root) = root
        && let Ok(entries) = std::fs::read_dir(root.join("versions"))
    {
        let mut versions: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("3.12")))
            .collect();
        versions.sort();
        candidates.extend(versions.into_iter().rev().map(|v| v.join("bin/python3.12")));
    }
    candidates.push(PathBuf::from("python3.12"));
    candidates.push(PathBuf::from("python3"));
    for c in candidates {
        let out = Command::new(&c).args(["-c", "import sys; print(sys.version_info[:2] == (3, 12))"]).output();
        if let Ok(o) = out
            && o.status.success()
            && String::from_utf8_lossy(&o.stdout).trim() == "True"
        {
            return Some(c);
        }
    }
    println!("SKIP: no CPython 3.12 found (set ACR_GATE_PYTHON, or install it with pyenv)");
    None
}

fn run_judge(python: &Path, mode: &str, input: Option<Vec<u8>>) -> Option<Vec<u8>> {
    let mut child = Command::new(python)
        .args(["-c", JUDGE, mode])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let writer = std::thread::spawn(move || {
        if let Some(bytes) = input {
            let _ = stdin.write_all(&bytes);
        }
    });
    let out = child.wait_with_output().ok()?;
    writer.join().ok()?;
    out.status.success().then_some(out.stdout)
}

/// The seconds the reference interpreter's `compile()` takes over the sources (the best of three passes), for the
/// benchmark.
#[allow(dead_code, reason = "only the benchmark times CPython, and the test shares this file")]
pub fn compile_seconds(python: &Path, sources: &[&str]) -> Option<f64> {
    let out = run_judge(python, "timing", Some(serde_json::to_vec(sources).ok()?))?;
    serde_json::from_slice(&out).ok()
}

/// The interpreter's standard library folder and site-packages.
pub fn library_paths(python: &Path) -> Option<(PathBuf, PathBuf)> {
    let out = run_judge(python, "paths", None)?;
    let v: serde_json::Value = serde_json::from_slice(&out).ok()?;
    Some((PathBuf::from(v["stdlib"].as_str()?), PathBuf::from(v["purelib"].as_str()?)))
}

/// CPython's own syntax-test snippets.
pub fn snippets(python: &Path) -> Vec<Case> {
    let Some(out) = run_judge(python, "snippets", None) else {
        return Vec::new();
    };
    let v: Vec<serde_json::Value> = serde_json::from_slice(&out).unwrap_or_default();
    v.into_iter()
        .filter_map(|s| {
            Some(Case {
                group: "snippet",
                origin: s["origin"].as_str()?.to_string(),
                source: s["source"].as_str()?.to_string(),
                base: None,
            })
        })
        .collect()
}

/// Every `.py` file under `dir` (sorted), leaving out the test suite and its data.
pub fn python_files(dir: &Path, skip_tests: bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if p.is_dir() {
                let skipped = skip_tests && matches!(name.as_str(), "test" | "tests" | "idle_test" | "site-packages");
                if !skipped && name != "__pycache__" {
                    stack.push(p);
                }
            } else if name.ends_with(".py") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// CPython's verdicts, in order.
pub fn verdicts(python: &Path, cases: &[Case]) -> Option<Vec<Verdict>> {
    let sources: Vec<&str> = cases.iter().map(|c| c.source.as_str()).collect();
    let out = run_judge(python, "verdicts", Some(serde_json::to_vec(&sources).ok()?))?;
    let v: Vec<Verdict> = serde_json::from_slice(&out).ok()?;
    (v.len() == cases.len()).then_some(v)
}

/// A small deterministic generator (xorshift64*).
pub struct Rng(pub u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next() % n as u64) as usize }
    }
}

fn indent_of(line: &str) -> &str {
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// The mutants of one source, each with a label: the kinds of damage models and editors do.
pub fn mutants(src: &str, rng: &mut Rng) -> Vec<(&'static str, String)> {
    let lines: Vec<&str> = src.split_inclusive('\n').collect();
    let code: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|(i, _)| i)
        .collect();
    let mut out = Vec::new();
    if code.is_empty() {
        return out;
    }
    let owned: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    let join = |v: &[String]| v.concat();
    let pick = |rng: &mut Rng| code[rng.below(code.len())];

    // A token deleted from a line.
    let i = pick(rng);
    let line = &owned[i];
    let chars: Vec<(usize, char)> = line.char_indices().filter(|(_, c)| !c.is_whitespace()).collect();
    if !chars.is_empty() {
        let (at, c) = chars[rng.below(chars.len())];
        let end = if c.is_alphanumeric() || c == '_' {
            line[at..].find(|x: char| !(x.is_alphanumeric() || x == '_')).map_or(line.len(), |n| at + n)
        } else {
            at + c.len_utf8()
        };
        let start = if c.is_alphanumeric() || c == '_' {
            line[..at].rfind(|x: char| !(x.is_alphanumeric() || x == '_')).map_or(0, |n| n + 1)
        } else {
            at
        };
        let mut v = owned.clone();
        v[i] = format!("{}{}", &line[..start], &line[end..]);
        out.push(("delete token", join(&v)));
    }
    // A line deleted; a line duplicated.
    let i = pick(rng);
    let mut v = owned.clone();
    v.remove(i);
    out.push(("delete line", join(&v)));
    let i = pick(rng);
    let mut v = owned.clone();
    v.insert(i, owned[i].clone());
    out.push(("duplicate line", join(&v)));
    // A line re-indented by +4, -4 and +2 columns.
    for delta in [4isize, -4, 2] {
        let i = pick(rng);
        let mut v = owned.clone();
        v[i] = if delta > 0 {
            format!("{}{}", " ".repeat(delta as usize), owned[i])
        } else {
            let ws = owned[i].len() - owned[i].trim_start_matches(' ').len();
            owned[i][ws.min(delta.unsigned_abs())..].to_string()
        };
        out.push(("re-indent line", join(&v)));
    }
    // An indented block written with tabs.
    let indented: Vec<usize> = code.iter().copied().filter(|&i| !indent_of(&owned[i]).is_empty()).collect();
    if !indented.is_empty() {
        let i = indented[rng.below(indented.len())];
        let base = indent_of(&owned[i]).len();
        let mut v = owned.clone();
        let mut j = i;
        while j < v.len() && (v[j].trim().is_empty() || indent_of(&v[j]).len() >= base) {
            let ws = indent_of(&v[j]).to_string();
            v[j] = format!("{}{}", ws.replace("    ", "\t"), &v[j][ws.len()..]);
            j += 1;
        }
        out.push(("tab-indented block", join(&v)));
    }
    // A stray `else:` and a stray `return`.
    for stray in ["else:", "return"] {
        let i = pick(rng);
        let mut v = owned.clone();
        v.insert(i, format!("{}{stray}\n", indent_of(&owned[i])));
        out.push(("stray statement", join(&v)));
    }
    // Truncation at a random line.
    let i = pick(rng);
    out.push(("truncation", owned[..i.max(1)].concat()));
    // An opened triple quote.
    let i = pick(rng);
    let mut v = owned.clone();
    let at = indent_of(&owned[i]).len();
    v[i] = format!("{}\"\"\"{}", &owned[i][..at], &owned[i][at..]);
    out.push(("open triple quote", join(&v)));
    out
}

/// The figures of one run.
#[derive(Debug, Default)]
pub struct Report {
    pub files: usize,
    pub files_rejected_by_cpython: usize,
    pub file_false_rejects: Vec<String>,
    pub mutants: usize,
    pub mutants_rejected: usize,
    pub mutants_accepted_by_gate: Vec<String>,
    pub mutant_false_rejects: Vec<String>,
    pub mutants_both_reject: usize,
    pub mutants_same_line: usize,
    pub line_mismatches: Vec<String>,
    pub snippets: usize,
    pub snippets_rejected: usize,
    /// Snippets CPython's compiler (not its parser) refuses, and how many of them the gate accepts.
    pub snippets_compile_stage: usize,
    pub snippets_compile_stage_accepted: usize,
    pub snippets_accepted_by_gate: Vec<String>,
    pub snippet_false_rejects: Vec<String>,
    pub same_message: usize,
}

fn short(s: &str) -> String {
    let one: String = s.chars().take(160).collect::<String>().replace('\n', "\\n");
    one
}

/// The gate's verdict on every case, in order, judged on `threads` threads: the cases are dealt out like cards (whole
/// files come first, mutants and snippets after), each thread with its own gate.
pub fn judge(cases: &[Case], threads: usize) -> Judged {
    let threads = threads.max(1);
    let hands: Vec<Vec<(Result<(), SyntaxProblem>, bool)>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|first| {
                scope.spawn(move || {
                    let mut gate = Gate::new();
                    let mut base_passes = (usize::MAX, false);
                    cases
                        .iter()
                        .skip(first)
                        .step_by(threads)
                        .map(|case| judge_one(cases, case, &mut gate, &mut base_passes))
                        .collect()
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().expect("a judging thread")).collect()
    });
    let mut hands: Vec<_> = hands.into_iter().map(Vec::into_iter).collect();
    let mut judged = Judged::default();
    for (i, case) in cases.iter().enumerate() {
        let (verdict, same) = hands[i % threads].next().expect("a verdict for every case");
        if !same {
            judged.incremental_differs.push(case.origin.clone());
        }
        judged.verdicts.push(verdict);
    }
    judged
}

/// The gate's verdicts on a corpus.
#[derive(Debug, Default)]
pub struct Judged {
    /// One per case: [`Gate::check`] for files and snippets; for a mutant of a file the gate passes,
    /// [`Gate::check_edit`] from that file, which re-checks only the statements the mutation touched.
    pub verdicts: Vec<Result<(), SyntaxProblem>>,
    /// The mutants whose [`Gate::check_edit`] verdict is not exactly [`Gate::check`]'s (there must be none).
    pub incremental_differs: Vec<String>,
}

/// One case's verdict, and whether the edit check and the whole check agree on it. `base_passes` remembers whether
/// the gate passes the last base file seen.
fn judge_one(
    cases: &[Case],
    case: &Case,
    gate: &mut Gate,
    base_passes: &mut (usize, bool),
) -> (Result<(), SyntaxProblem>, bool) {
    let whole = gate.check(&case.source);
    let Some(b) = case.base else {
        return (whole, true);
    };
    let base = &cases[b].source;
    if base_passes.0 != b {
        *base_passes = (b, gate.check(base).is_ok());
    }
    if !base_passes.1 {
        return (whole, true);
    }
    // The gate is told the base first (it then remembers it), as the patch layer does before trying edits of it.
    let unchanged = TextEdit { start: 0, old_end: base.len(), new_end: base.len() };
    assert_eq!(gate.check_edit(base, base, unchanged), Ok(()), "{}", cases[b].origin);
    let edit = TextEdit { start: 0, old_end: base.len(), new_end: case.source.len() };
    let by_edit = gate.check_edit(base, &case.source, edit);
    let same = by_edit == whole;
    (by_edit, same)
}

/// Compares the gate's verdicts ([`judge`]) with CPython's, case by case.
pub fn compare(cases: &[Case], verdicts: &[Verdict], judged: Vec<Result<(), SyntaxProblem>>) -> Report {
    let mut r = Report::default();
    // ACR_GATE_DUMP=DIR writes each disagreeing source there (for investigation).
    let dump = std::env::var_os("ACR_GATE_DUMP").map(PathBuf::from);
    for (i, ((case, v), ours)) in cases.iter().zip(verdicts).zip(judged).enumerate() {
        let agrees = match (&ours, v.ok) {
            (Ok(()), true) => true,
            (Err(p), false) => case.group != "mutant" || v.line.is_none_or(|l| l <= 0 || l == i64::from(p.line)),
            _ => false,
        };
        if !agrees && let Some(dir) = &dump {
            let _ = std::fs::create_dir_all(dir);
            let _ = std::fs::write(dir.join(format!("{i}.py")), &case.source);
        }
        let cpython = if v.ok {
            "ok".to_string()
        } else {
            format!(
                "{}: {} (line {})",
                v.kind.as_deref().unwrap_or("?"),
                v.msg.as_deref().unwrap_or("?"),
                v.line.unwrap_or(0)
            )
        };
        let describe = || {
            let gate = match &ours {
                Ok(()) => "ok".to_string(),
                Err(p) => format!("{} ({})", p, kind_name(p.kind)),
            };
            format!(
                "[{}] {}: cpython says {cpython}; gate says {gate}; source: {}",
                case.group,
                case.origin,
                short(&case.source)
            )
        };
        match case.group {
            "file" => {
                r.files += 1;
                if !v.ok {
                    r.files_rejected_by_cpython += 1;
                } else if ours.is_err() {
                    r.file_false_rejects.push(describe());
                }
            }
            "mutant" => {
                r.mutants += 1;
                match (v.ok, &ours) {
                    (true, Err(_)) => r.mutant_false_rejects.push(describe()),
                    (false, Ok(())) => {
                        r.mutants_rejected += 1;
                        r.mutants_accepted_by_gate.push(describe());
                    }
                    (false, Err(p)) => {
                        r.mutants_rejected += 1;
                        r.mutants_both_reject += 1;
                        let lines_known = v.line.is_some_and(|l| l > 0);
                        if !lines_known || v.line == Some(i64::from(p.line)) {
                            r.mutants_same_line += 1;
                        } else {
                            r.line_mismatches.push(describe());
                        }
                        if v.msg.as_deref() == Some(p.message.as_str()) {
                            r.same_message += 1;
                        }
                    }
                    (true, Ok(())) => {}
                }
            }
            _ => {
                r.snippets += 1;
                match (v.ok, &ours) {
                    (true, Err(_)) => r.snippet_false_rejects.push(describe()),
                    (false, Ok(())) => {
                        r.snippets_rejected += 1;
                        if v.stage.as_deref() == Some("compile") {
                            r.snippets_compile_stage += 1;
                            r.snippets_compile_stage_accepted += 1;
                        }
                        r.snippets_accepted_by_gate.push(describe());
                    }
                    (false, Err(_)) => {
                        r.snippets_rejected += 1;
                        if v.stage.as_deref() == Some("compile") {
                            r.snippets_compile_stage += 1;
                        }
                    }
                    (true, Ok(())) => {}
                }
            }
        }
    }
    r
}

fn kind_name(k: ProblemKind) -> &'static str {
    match k {
        ProblemKind::Syntax => "syntax",
        ProblemKind::Indentation => "indentation",
        ProblemKind::Tab => "tab",
        ProblemKind::Compile => "compile",
        ProblemKind::Encoding => "encoding",
        ProblemKind::TooComplex => "too complex",
    }
}

pub fn pct(a: usize, b: usize) -> f64 {
    100.0 * a as f64 / b.max(1) as f64
}

impl Report {
    /// Prints the figures and up to `examples` cases of each disagreement.
    pub fn print(&self, examples: usize) {
        println!(
            "valid files: {} judged ({} refused by CPython itself); false rejects: {}",
            self.files,
            self.files_rejected_by_cpython,
            self.file_false_rejects.len()
        );
        println!(
            "mutants: {} ({} refused by CPython); accepted by the gate: {} ({:.2}%); false rejects: {}",
            self.mutants,
            self.mutants_rejected,
            self.mutants_accepted_by_gate.len(),
            pct(self.mutants_accepted_by_gate.len(), self.mutants_rejected),
            self.mutant_false_rejects.len()
        );
        println!(
            "error line equal to CPython's: {} of {} mutants both refuse ({:.2}%); same message: {:.2}%",
            self.mutants_same_line,
            self.mutants_both_reject,
            pct(self.mutants_same_line, self.mutants_both_reject),
            pct(self.same_message, self.mutants_both_reject)
        );
        println!(
            "CPython's syntax-test snippets: {} ({} refused by CPython, {} of them by its compiler); accepted by the gate: {} ({:.2}%; {} of the compiler's); false rejects: {}",
            self.snippets,
            self.snippets_rejected,
            self.snippets_compile_stage,
            self.snippets_accepted_by_gate.len(),
            pct(self.snippets_accepted_by_gate.len(), self.snippets_rejected),
            self.snippets_compile_stage_accepted,
            self.snippet_false_rejects.len()
        );
        for (title, list) in [
            ("false rejects of valid files", &self.file_false_rejects),
            ("mutants the gate accepts", &self.mutants_accepted_by_gate),
            ("mutants the gate rejects but CPython accepts", &self.mutant_false_rejects),
            ("snippets the gate accepts", &self.snippets_accepted_by_gate),
            ("snippets the gate rejects but CPython accepts", &self.snippet_false_rejects),
            ("error lines that differ", &self.line_mismatches),
        ] {
            if list.is_empty() {
                continue;
            }
            println!("{title} ({}):", list.len());
            for e in list.iter().take(examples) {
                println!("  {e}");
            }
        }
    }
}

/// The corpus: `every`-th file of the standard library and site-packages (at most `max_files`, each under
/// `max_bytes`), mutants of each, and CPython's snippets.
pub fn corpus(python: &Path, every: usize, max_files: usize, max_bytes: u64) -> Vec<Case> {
    let Some((stdlib, purelib)) = library_paths(python) else {
        println!("SKIP: the reference interpreter did not report its library paths");
        return Vec::new();
    };
    let mut files = python_files(&stdlib, true);
    files.extend(python_files(&purelib, false));
    let mut cases = Vec::new();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for path in files.iter().step_by(every.max(1)).take(max_files) {
        if std::fs::metadata(path).map(|m| m.len()).unwrap_or(u64::MAX) > max_bytes {
            continue;
        }
        let Ok(src) = std::fs::read_to_string(path) else {
            continue;
        };
        let name = path.strip_prefix(&stdlib).or_else(|_| path.strip_prefix(&purelib)).unwrap_or(path);
        let name = name.to_string_lossy().into_owned();
        let base = cases.len();
        let made = mutants(&src, &mut rng);
        cases.push(Case { group: "file", origin: name.clone(), source: src, base: None });
        for (label, m) in made {
            cases.push(Case { group: "mutant", origin: format!("{name} ({label})"), source: m, base: Some(base) });
        }
    }
    cases.extend(snippets(python));
    cases
}
