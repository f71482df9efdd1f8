//! What the syntax gates' agreement tests with real compilers share (`gate_javac.rs`, `gate_node.rs`): mutants of
//! real sources, the tally of verdicts beside a compiler's, and a scratch folder.
// Each test target uses a different part of this module.
#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A compiler's verdict per path, from a checker (`command`) that reads the paths on its stdin, one per line, and
/// prints `OK<TAB>path` or `ERR<TAB>line<TAB>message<TAB>path` for each: `None` when it accepts, else the line and
/// message of its first error.
pub fn verdicts(mut command: Command, paths: &[PathBuf]) -> HashMap<PathBuf, Option<(u32, String)>> {
    let mut child = command.stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().expect("the checker runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let list: String = paths.iter().map(|p| format!("{}\n", p.display())).collect();
    let writer = std::thread::spawn(move || stdin.write_all(list.as_bytes()));
    let mut out = String::new();
    child.stdout.take().expect("stdout").read_to_string(&mut out).expect("the checker's verdicts");
    writer.join().expect("writer").expect("file list written");
    assert!(child.wait().expect("the checker ends").success(), "the checker failed");
    out.lines()
        .map(|line| {
            let parts: Vec<&str> = line.splitn(4, '\t').collect();
            match parts.as_slice() {
                ["OK", path] => (PathBuf::from(path), None),
                ["ERR", n, message, path] => (PathBuf::from(path), Some((n.parse().unwrap_or(0), message.to_string()))),
                _ => panic!("unexpected checker line: {line}"),
            }
        })
        .collect()
}

/// Tokens of a source as byte ranges: words, literals quoted by one of `quotes` (up to the end of their line), and
/// single other characters.
fn tokens(src: &str, quotes: &[u8]) -> Vec<(usize, usize)> {
    let bytes = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let start = i;
        if b.is_ascii_whitespace() {
            i += 1;
            continue;
        } else if b.is_ascii_alphanumeric() || b == b'_' || b == b'$' {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] == b'$') {
                i += 1;
            }
        } else if quotes.contains(&b) {
            i += 1;
            while i < bytes.len() && bytes[i] != b && bytes[i] != b'\n' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(bytes.len());
        } else {
            i += src[i..].chars().next().map_or(1, char::len_utf8);
        }
        out.push((start, i));
    }
    out
}

/// Five mutants of a source, chosen by `seed`: a token deleted, a token repeated, a line deleted, a line repeated,
/// a bracket or semicolon deleted. `quotes` are the characters that quote the language's literals.
pub fn mutants(src: &str, seed: u64, quotes: &[u8]) -> Vec<String> {
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let mut next = |n: usize| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((state >> 33) as usize) % n.max(1)
    };
    let toks = tokens(src, quotes);
    let lines: Vec<&str> = src.split_inclusive('\n').collect();
    let code_lines: Vec<usize> = (0..lines.len()).filter(|&i| !lines[i].trim().is_empty()).collect();
    let mut out = Vec::new();
    if toks.is_empty() || code_lines.is_empty() {
        return out;
    }
    let (a, b) = toks[next(toks.len())];
    out.push(format!("{}{}", &src[..a], &src[b..]));
    let (a, b) = toks[next(toks.len())];
    out.push(format!("{}{} {}", &src[..b], &src[a..b], &src[b..]));
    let line = code_lines[next(code_lines.len())];
    out.push(lines.iter().enumerate().filter(|(i, _)| *i != line).map(|(_, l)| *l).collect());
    let line = code_lines[next(code_lines.len())];
    out.push(lines.iter().enumerate().flat_map(|(i, l)| if i == line { vec![*l, *l] } else { vec![*l] }).collect());
    let closers: Vec<(usize, usize)> =
        toks.iter().copied().filter(|&(a, b)| matches!(&src[a..b], ";" | "}" | ")" | "{" | "(")).collect();
    if !closers.is_empty() {
        let (a, b) = closers[next(closers.len())];
        out.push(format!("{}{}", &src[..a], &src[b..]));
    }
    out
}

/// The gate's verdicts beside a compiler's, over a set of files.
#[derive(Default)]
pub struct Tally {
    /// Files judged.
    pub files: usize,
    /// Files the compiler rejects.
    pub compiler_rejects: usize,
    /// Files the compiler rejects and the gate accepts.
    pub false_accepts: usize,
    /// Files the compiler accepts and the gate rejects.
    pub false_rejects: usize,
    /// Files both reject.
    pub both_reject: usize,
    /// Of those, the files where both name the same line.
    pub same_line: usize,
    /// A few of the disagreements, to print.
    pub examples: Vec<String>,
    /// Every file the compiler rejects: its line and message, the gate's (`-` and `accepted` where it accepts), the
    /// path.
    pub both_lines: Vec<String>,
}

impl Tally {
    /// Counts one file: the compiler's verdict (`None` when it accepts, else the line and message) and the gate's.
    pub fn add(
        &mut self,
        path: &Path,
        compiler: &Option<(u32, String)>,
        ours: &Result<(), acr_core::gate::SyntaxProblem>,
    ) {
        self.files += 1;
        match (compiler, ours) {
            (Some(_), Ok(())) => {
                self.compiler_rejects += 1;
                self.false_accepts += 1;
                self.note(format!("accepted, the compiler: {compiler:?}: {}", path.display()));
                if let Some((line, message)) = compiler {
                    self.both_lines.push(format!("{line}\t{message}\t-\taccepted\t{}", path.display()));
                }
            }
            (Some((line, _)), Err(p)) => {
                self.compiler_rejects += 1;
                self.both_reject += 1;
                self.same_line += usize::from(*line == p.line);
                let theirs = compiler.as_ref().map_or("", |(_, message)| message.as_str());
                self.both_lines.push(format!("{line}\t{theirs}\t{}\t{}\t{}", p.line, p.message, path.display()));
            }
            (None, Err(p)) => {
                self.false_rejects += 1;
                self.note(format!("rejected ({p}): {}", path.display()));
            }
            (None, Ok(())) => {}
        }
    }

    fn note(&mut self, text: String) {
        if self.examples.len() < 12 {
            self.examples.push(text);
        }
    }
}

/// Every file under `dir` whose name ends with one of `endings`, in path order.
pub fn files_ending(dir: &Path, endings: &[&str]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if endings.iter().any(|e| path.to_string_lossy().ends_with(e)) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// Each file and five mutants of it (literals quoted by `quotes`), written into a folder of their own under
/// `scratch` with their file name and the files `beside` gives for the original, judged by `checker` (see
/// [`verdicts`]) and by `gate`: the tallies of the originals and of the mutants.
pub fn judge_corpus(
    files: &[PathBuf],
    quotes: &[u8],
    scratch: &Path,
    beside: impl Fn(&Path) -> Vec<(&'static str, String)>,
    checker: Command,
    gate: impl Fn(&Path, &str) -> Result<(), acr_core::gate::SyntaxProblem>,
) -> (Tally, Tally) {
    let mut originals = Vec::new();
    let mut mutated = Vec::new();
    for (i, path) in files.iter().enumerate() {
        let Ok(text) = std::fs::read_to_string(path) else { continue };
        let name = path.file_name().unwrap();
        let extra = beside(path);
        for (m, variant) in std::iter::once(text.clone()).chain(mutants(&text, i as u64, quotes)).enumerate() {
            let dir = scratch.join(format!("{i}-{m}"));
            std::fs::create_dir_all(&dir).unwrap();
            for (file, content) in &extra {
                std::fs::write(dir.join(file), content).unwrap();
            }
            let copy = dir.join(name);
            std::fs::write(&copy, &variant).unwrap();
            if m == 0 { originals.push((copy, variant)) } else { mutated.push((copy, variant)) }
        }
    }
    let all: Vec<PathBuf> = originals.iter().chain(&mutated).map(|(p, _)| p.clone()).collect();
    let verdicts = verdicts(checker, &all);
    let (mut valid, mut broken) = (Tally::default(), Tally::default());
    for (tally, set) in [(&mut valid, &originals), (&mut broken, &mutated)] {
        for (path, text) in set {
            tally.add(path, &verdicts[path], &gate(path, text));
        }
    }
    if std::env::var_os("ACR_KEEP_SCRATCH").is_none() {
        let _ = std::fs::remove_dir_all(scratch);
    }
    (valid, broken)
}

/// Prints the verdicts on the valid files and on their mutants beside `compiler`'s, with a few disagreements.
pub fn report(compiler: &str, valid: &Tally, mutants: &Tally) {
    eprintln!(
        "valid files: {} ({compiler} rejects {}); the gate rejects {} ({:.2}%)",
        valid.files,
        valid.compiler_rejects,
        valid.false_rejects,
        pct(valid.false_rejects, valid.files - valid.compiler_rejects)
    );
    eprintln!(
        "mutants: {}; {compiler} rejects {}, the gate accepts {} of those ({:.2}%); {compiler} accepts {}, the gate \
         rejects {} of those; both reject {}, same line {:.1}%",
        mutants.files,
        mutants.compiler_rejects,
        mutants.false_accepts,
        pct(mutants.false_accepts, mutants.compiler_rejects),
        mutants.files - mutants.compiler_rejects,
        mutants.false_rejects,
        mutants.both_reject,
        pct(mutants.same_line, mutants.both_reject)
    );
    for e in valid.examples.iter().chain(&mutants.examples) {
        eprintln!("  {e}");
    }
    // For study: the verdicts on every mutant the compiler rejects, as a table (with ACR_KEEP_SCRATCH, the files stay
    // to read).
    if let Some(file) = std::env::var_os("ACR_GATE_LINES") {
        let mut table = "compiler line\tcompiler message\tgate line\tgate message\tpath\n".to_string();
        table.extend(mutants.both_lines.iter().map(|row| format!("{row}\n")));
        std::fs::write(&file, table).expect("the table of lines is written");
        eprintln!("lines: {}", Path::new(&file).display());
    }
}

/// `n` as a percentage of `of` (0 when `of` is 0).
pub fn pct(n: usize, of: usize) -> f64 {
    if of == 0 { 0.0 } else { 100.0 * n as f64 / of as f64 }
}

/// A scratch folder under the system's temporary folder named after `what`, removed by the test.
pub fn scratch_dir(what: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("acr-gate-{what}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}
