//! Worst cases of hostile answers for the patch core (time and peak heap), natively.
//!
//! `cargo bench -p acr-core --bench hostile_patch` prints, for each shape, the answer and file sizes, the time of
//! the whole `extract` (parse, resolve, apply, gate, diff) and the peak Rust heap during it. The shapes are the
//! ones that once took minutes: an unmatched 2,000-character line against a 20,000-line file (a character diff
//! per file line), a 200 KB `<file>` name, 40,000 and 12 MB of unclosed tags, a 200,000-line `<patched>` (Myers
//! with no deadline), and an original of 10,000 repeated lines against a file of them. Target: under 2 s and under
//! 20x the input for an answer up to 10 MB against a file up to 1 MB.

use std::time::Instant;

use acr_core::Repo;
use acr_core::patch::{self, ExtractOptions};
use peak_alloc::PeakAlloc;

#[global_allocator]
static HEAP: PeakAlloc = PeakAlloc;

fn measure(label: &str, files: &[(&str, String)], answer: &str) {
    let repo = Repo::from_files(files.iter().map(|(p, t)| (*p, t.as_bytes())));
    let input = answer.len() + files.iter().map(|(_, t)| t.len()).sum::<usize>();
    let before = HEAP.current_usage();
    HEAP.reset_peak_usage();
    let started = Instant::now();
    let ex = patch::extract(&repo, answer, &ExtractOptions::default());
    let elapsed = started.elapsed();
    let peak = HEAP.peak_usage().saturating_sub(before);
    println!(
        "{label:<52} answer {:>6.2} MB  file {:>5.2} MB  {:>8.1} ms  peak heap {:>7.1} MB ({:>4.1}x the input)  {:?}",
        answer.len() as f64 / 1e6,
        (input - answer.len()) as f64 / 1e6,
        elapsed.as_secs_f64() * 1e3,
        peak as f64 / 1e6,
        peak as f64 / input as f64,
        ex.status,
    );
}

fn numbered_lines(n: usize) -> String {
    (0..n).map(|i| format!("value_{i} = compute({i}, 'a fairly ordinary line of code')\n")).collect()
}

fn main() {
    let file = numbered_lines(20_000);
    let long_line = format!("value_x = compute({})", "y".repeat(2_000));
    measure(
        "unmatched 2,000-char line, 20,000-line file",
        &[("m.py", file.clone())],
        &format!("<file>m.py</file><original>{long_line}</original><patched>x = 1</patched>"),
    );
    let near = format!("value_12 = compute(12, 'a fairly ordinary line of code{}')", "z".repeat(300));
    measure(
        "near-miss 360-char line, 20,000-line file",
        &[("m.py", file.clone())],
        &format!("<file>m.py</file><original>{near}</original><patched>x = 1</patched>"),
    );
    let three: Vec<(&str, String)> =
        vec![("a.py", "x = 1\n".into()), ("pkg/b.py", "y = 2\n".into()), ("pkg/c.py", "z = 3\n".into())];
    measure(
        "200 KB <file> name, 3 files",
        &three,
        &format!("<file>{}</file><original>x = 1</original><patched>x = 2</patched>", "n".repeat(200_000)),
    );
    measure("40,000 unclosed <file> tags", &three, &"<file>".repeat(40_000));
    measure("12 MB of unclosed tags", &three, &"<file><original><patched>".repeat(500_000));
    let small = "def f():\n    return 1\n".to_string();
    let patched: String = (0..200_000).map(|i| format!("    x{i} = {i}\n")).collect();
    measure(
        "200,000-line <patched>",
        &[("m.py", small)],
        &format!(
            "<file>m.py</file><original>def f():\n    return 1</original><patched>def f():\n{patched}    return 1</patched>"
        ),
    );
    let big: String = (0..200_000).map(|i| format!("x{i} = {i}\n")).collect();
    let before = HEAP.current_usage();
    HEAP.reset_peak_usage();
    let started = Instant::now();
    let verdict = acr_core::gate::check(&big);
    println!(
        "{:<52} file {:>5.2} MB  {:>8.1} ms  peak heap {:>7.1} MB  {verdict:?}",
        "the gate alone on 200,000 lines",
        big.len() as f64 / 1e6,
        started.elapsed().as_secs_f64() * 1e3,
        HEAP.peak_usage().saturating_sub(before) as f64 / 1e6
    );
    let repeated = "x = 0\n".repeat(170_000);
    let original = format!("{}y = 1", "x = 0\n".repeat(10_000));
    measure(
        "10,000 repeated lines + 1 against 170,000 (1 MB)",
        &[("m.py", repeated)],
        &format!("<file>m.py</file><original>{original}</original><patched>y = 2</patched>"),
    );
    let unrelated_old = numbered_lines(12_000);
    let unrelated_new: String = (0..12_000).map(|i| format!("other_{i} = call({i})\n")).collect();
    measure(
        "whole 1 MB file replaced by unrelated lines",
        &[("m.py", unrelated_old.clone())],
        &format!(
            "<file>m.py</file><original>{}</original><patched>{unrelated_new}</patched>",
            unrelated_old.trim_end()
        ),
    );
}
