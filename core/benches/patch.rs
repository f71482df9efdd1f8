//! Apply + gate time on a 4,000-line Python file.
//!
//! `cargo bench -p acr-core --bench patch` prints, for a generated 4,000-line module: the full gate on the file,
//! one edit applied with the first indentation candidate, one edit that needs the second candidate (two gate
//! runs), and the whole `extract` (parse, resolve, apply, gate, diff); then the same for the largest file of the
//! replay corpus when it is present. Each candidate is checked by the whole gate (CPython 3.12's grammar and compiler
//! checks over the whole file; the verdict on the file before the edit is remembered). AutoCodeRover's pylint gate
//! takes about 0.9 s per candidate on such a file.

use std::hint::black_box;
use std::time::{Duration, Instant};

use acr_core::Repo;
use acr_core::gate::Gate;
use acr_core::patch::{self, ApplyOptions, BugLine, Edit, ExtractOptions};

/// A module of `classes` classes with 8 methods each (52 lines a class; 77 classes make about 4,000 lines).
fn module(classes: usize) -> String {
    let mut s = String::from("import os\nimport sys\n\n\n");
    for c in 0..classes {
        s.push_str(&format!("class Widget{c}(object):\n    \"\"\"A widget.\"\"\"\n\n"));
        for m in 0..8 {
            s.push_str(&format!(
                "    def method_{m}(self, value, *args, **kwargs):\n        total = value + {m}\n        for item in args:\n            total += len(str(item))\n        return total\n\n"
            ));
        }
        s.push('\n');
    }
    s
}

fn time<F: FnMut()>(label: &str, iterations: u32, mut f: F) -> Duration {
    f(); // warm up
    let mut samples = Vec::with_capacity(iterations as usize);
    for _ in 0..iterations {
        let t = Instant::now();
        f();
        samples.push(t.elapsed());
    }
    samples.sort();
    let median = samples[samples.len() / 2];
    let mean = samples.iter().sum::<Duration>() / iterations;
    println!(
        "{label:<44} median {:>8.3} ms   mean {:>8.3} ms   min {:>8.3} ms",
        median.as_secs_f64() * 1e3,
        mean.as_secs_f64() * 1e3,
        samples[0].as_secs_f64() * 1e3
    );
    median
}

fn main() {
    let text = module(77);
    let lines = text.lines().count();
    println!("module: {lines} lines, {} bytes", text.len());
    let mut gate = Gate::new();
    assert!(gate.check(&text).is_ok());

    let relative = Edit {
        index: 1,
        file: "big.py".into(),
        original: "def method_3(self, value, *args, **kwargs):\n    total = value + 3".into(),
        patched: "def method_3(self, value, *args, **kwargs):\n    if value is None:\n        return 0\n    total = value + 3".into(),
        had_line_numbers: false,
        format: patch::EditFormat::Acr,
        line: None,
    };
    // The model wrote the body at its absolute indentation: the first candidate fails, the second passes.
    let second = Edit {
        original: "def method_5(self, value, *args, **kwargs):\n        total = value + 5".into(),
        patched: "def method_5(self, value, *args, **kwargs):\n        total = value + 50\n\n    def extra(self):\n        return 1".into(),
        ..relative.clone()
    };
    let hint = ApplyOptions { hints: vec![((lines / 2) as u32, (lines / 2) as u32)], refuse_ambiguous: false };
    let answer = format!(
        "# modification 1\n```python\n<file>big.py</file>\n<original>\n{}\n</original>\n<patched>\n{}\n</patched>\n```\n",
        relative.original, relative.patched
    );
    let repo = Repo::from_files([("big.py", text.as_bytes())]);

    let n = 30;
    time("full gate on the file", n, || {
        black_box(gate.check(black_box(&text)).is_ok());
    });
    let first = time("apply + gate, first candidate", n, || {
        let a = patch::apply_edit(&text, &relative, &hint, &mut gate).expect("applies");
        black_box(a);
    });
    let both = time("apply + gate, second candidate", n, || {
        let a = patch::apply_edit(&text, &second, &hint, &mut gate).expect("applies");
        assert_eq!(a.indent, patch::IndentGuess::FirstLineOnly);
        black_box(a);
    });
    // The original recurs in every class of the module: the bug location decides, as in the agent.
    let located = ExtractOptions {
        bug_lines: vec![BugLine { file: "big.py".into(), line: (lines / 2) as u32, end: None }],
        ..Default::default()
    };
    let whole = time("extract (parse, apply, gate, diff)", n, || {
        let ex = patch::extract_with_gate(&repo, &answer, &located, &mut gate);
        assert!(ex.status.is_applicable());
        black_box(ex);
    });
    real_file(&mut gate);
    let target = Duration::from_millis(5);
    let verdict = |d: Duration| if d < target { "met" } else { "MISSED" };
    println!(
        "target < 5 ms for apply + gate on 4,000 lines: first candidate {}, second candidate {}, extract {}",
        verdict(first),
        verdict(both),
        verdict(whole)
    );
}

/// The largest source of the replay corpus (xarray's `dataset.py`, about 7,300 lines, most of it one class), when
/// `../shared/replay` is present: the full gate, and one edit in the middle of it.
fn real_file(gate: &mut Gate) {
    let root = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/replay/search/acr-run-1/pydata__xarray-5131/repo/xarray/core/dataset.py"
    );
    let Ok(text) = std::fs::read_to_string(root) else {
        println!("(replay corpus not found: real-file timing skipped)");
        return;
    };
    let lines: Vec<&str> = text.lines().collect();
    let mid = lines.len() / 2;
    let Some(at) = (mid..lines.len()).find(|&i| lines[i].trim_start().starts_with("return ")) else {
        return;
    };
    let line = lines[at].trim();
    let edit = Edit {
        index: 1,
        file: "dataset.py".into(),
        original: line.into(),
        patched: format!("if self is None:\n    raise ValueError(\"no dataset\")\n{line}"),
        had_line_numbers: false,
        format: patch::EditFormat::Acr,
        line: None,
    };
    let hint = ApplyOptions { hints: vec![(at as u32 + 1, at as u32 + 1)], refuse_ambiguous: false };
    println!("real file: xarray/core/dataset.py, {} lines, edit at line {}", lines.len(), at + 1);
    time("  full gate on the file", 10, || {
        black_box(gate.check(black_box(&text)).is_ok());
    });
    time("  apply + gate", 30, || {
        let a = patch::apply_edit(&text, &edit, &hint, gate).expect("applies");
        black_box(a);
    });
}
