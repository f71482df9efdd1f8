//! The Java syntax gate ([`acr_core::gate::java`]) against `javac`'s parser, on the JDK's own sources and on
//! single-token and single-line mutants of them.
//!
//! The sources come from the `src.zip` of a JDK on this machine (the first under `/usr/lib/jvm` that has one, or
//! `ACR_JDK=DIR`), judged by that JDK's `javac` through `tools/javac/ParseCheck.java` (the parser only: no
//! attribution, so a mutant that only breaks types still counts as valid). `make test` runs a sample (every 8th file
//! of `java.base/java`); `ACR_JAVAC_FULL=1` runs all of `java.base`. Skips, saying why, without a JDK and its sources.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use acr_core::gate::java::check;
use gate_mutants::{Tally, mutants, pct, scratch_dir, verdicts};

mod gate_mutants;

/// A JDK with its sources: (home, src.zip).
fn jdk() -> Option<(PathBuf, PathBuf)> {
    let homes: Vec<PathBuf> = match std::env::var_os("ACR_JDK") {
        Some(dir) => vec![PathBuf::from(dir)],
        None => {
            let mut homes: Vec<PathBuf> =
                std::fs::read_dir("/usr/lib/jvm").ok()?.filter_map(|e| e.ok().map(|e| e.path())).collect();
            homes.sort();
            homes
        }
    };
    homes.into_iter().find_map(|home| {
        let src = home.join("lib/src.zip");
        (src.is_file() && home.join("bin/java").is_file()).then_some((home, src))
    })
}

#[test]
fn the_java_gate_agrees_with_javac_on_the_jdk_and_its_mutants() {
    let Some((home, src_zip)) = jdk() else {
        eprintln!("skipped: no JDK with lib/src.zip under /usr/lib/jvm (or ACR_JDK)");
        return;
    };
    let full = std::env::var_os("ACR_JAVAC_FULL").is_some();
    let mut archive = zip::ZipArchive::new(std::fs::File::open(&src_zip).expect("src.zip")).expect("a zip");
    let prefix = if full { "java.base/" } else { "java.base/java/" };
    let mut names: Vec<String> = archive
        .file_names()
        .filter_map(|n| n.ok().map(|n| n.into_owned()))
        .filter(|n| n.starts_with(prefix) && n.ends_with(".java"))
        .collect();
    names.sort();
    if !full {
        names = names.into_iter().step_by(8).collect();
    }
    let scratch = scratch_dir("javac");
    let mut originals = Vec::new();
    let mut mutated = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let mut text = String::new();
        if archive.by_name(name).expect("entry").read_to_string(&mut text).is_err() {
            continue;
        }
        let path = scratch.join(format!("orig/{i}/{}", name.rsplit('/').next().unwrap()));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &text).unwrap();
        for (m, mutant) in mutants(&text, i as u64, b"\"'").into_iter().enumerate() {
            let path = scratch.join(format!("mut/{i}-{m}/{}", name.rsplit('/').next().unwrap()));
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &mutant).unwrap();
            mutated.push((path, mutant));
        }
        originals.push((path, text));
    }
    let all: Vec<PathBuf> = originals.iter().chain(&mutated).map(|(p, _)| p.clone()).collect();
    let mut javac = Command::new(home.join("bin/java"));
    javac.arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../tools/javac/ParseCheck.java"));
    let verdicts = verdicts(javac, &all);
    let (mut valid, mut mutants) = (Tally::default(), Tally::default());
    for (tally, set) in [(&mut valid, &originals), (&mut mutants, &mutated)] {
        for (path, text) in set {
            tally.add(path, &verdicts[path], &check(text));
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    eprintln!("JDK: {} ({} files of {prefix})", home.display(), originals.len());
    gate_mutants::report("javac", &valid, &mutants);
    assert!(valid.files > 50 && mutants.files > 200, "too few cases to judge");
    assert_eq!(valid.compiler_rejects, 0, "the JDK's own sources parse");
    // Measured on Temurin 25's java.base (every file, ACR_JAVAC_FULL=1): 1 of 3,400 valid files rejected (a
    // pattern tree-sitter-java 0.23 does not know), 0.25% of broken mutants accepted, 0.23% of valid mutants
    // rejected (a repeated `super(...)`, which javac refuses one stage later), the same line for 88% of the rest.
    assert!(pct(valid.false_rejects, valid.files) <= 0.5, "valid JDK sources rejected");
    assert!(pct(mutants.false_accepts, mutants.compiler_rejects) <= 2.0, "broken mutants accepted");
    assert!(pct(mutants.false_rejects, mutants.files - mutants.compiler_rejects) <= 1.0, "valid mutants rejected");
    assert!(pct(mutants.same_line, mutants.both_reject) >= 80.0, "error lines apart from javac's");
}
