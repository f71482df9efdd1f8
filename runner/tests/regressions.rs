//! Regression tests for what fuzzing found, each named after what broke (the fuzz targets are in `fuzz/`).

use std::collections::BTreeMap;

use acr_core::Repo;
use acr_core::patch::{ExtractOptions, ExtractStatus, extract};
use acr_runner::exec::apply_patch;

/// Applies `answer` to `file` with the core, then the core's diff with the runner; both must agree.
fn core_and_runner_agree(path: &str, file: &str, answer: &str) {
    let repo = Repo::from_files([(path, file.as_bytes())]);
    let extraction = extract(&repo, answer, &ExtractOptions::default());
    assert_eq!(extraction.status, ExtractStatus::ApplicablePatch, "{}", extraction.reason);
    let mut files: BTreeMap<String, String> = BTreeMap::from([(path.to_string(), file.to_string())]);
    apply_patch(&mut files, &extraction.diff).unwrap_or_else(|e| panic!("{e}\n{}", extraction.diff));
    assert_eq!(files.get(path), extraction.files.get(path), "{}", extraction.diff);
}

/// Found by `fuzz/apply`: `similar` ends a line at a lone `\r`, so a file with one near an edit got a diff whose
/// context line no tool could match ("error applying hunk #1").
#[test]
fn a_diff_near_a_lone_carriage_return_applies_in_the_runner() {
    let file = "def main():\n    try:\n        run()\n    except KeyboardInterrupt:\n        exit(1)\n\n\n\
                def other(argv) \r -> None:\n    pass\n";
    let answer = "<file>pkg/cli.py</file>\n<original>\n    except KeyboardInterrupt:\n        exit(1)\n</original>\n\
                  <patched>\n    except KeyboardInterrupt:\n        exit(1)\n    except ValueError:\n        exit(2)\n\
                  </patched>\n";
    core_and_runner_agree("pkg/cli.py", file, answer);
}
