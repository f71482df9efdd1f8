//! The deterministic reading of search answers against AutoCodeRover's recorded proxy model.
//!
//! `../shared/replay/proxy/acr-run-1.jsonl` holds every proxy round of ACR's April 2024 run: the model's prose and
//! the JSON its proxy model (GPT-4) made of it. For each round this test does what the agent does
//! ([`acr_core::proxy::stands`] on [`acr_core::answers::search::read`]) and compares the action it would take
//! without the proxy model with the action the proxy model's JSON leads to (the first attempt that validates, as in
//! the agent's retry loop):
//!
//! - the calls to run (as checked calls, arguments put in order), when there are calls;
//! - otherwise the bug locations to resolve (file, class and method as cleaned queries; a name with spaces in it
//!   resolves to nothing and is left out);
//! - otherwise "unusable" (the model is asked again).
//!
//! The rounds are split by task into two halves that never change: a task is in the tuning half when the FNV-1a hash
//! of its instance id is even, in the held-out half when it is odd. The readers and the trust rule are tuned by
//! looking at the tuning half only; the held-out half says how well that carries to answers nobody looked at.
//!
//! Figures, for each half: rounds; coverage (the share of rounds acted on without the proxy model); disagreement
//! (the share of rounds where the trusted reading acts differently from the proxy model). Where the task's
//! repository is in the corpus (18 of the 300 tasks), its index (built as the agent builds it) puts swapped arguments
//! in order and confirms the locations read from prose, as in the agent; for the other tasks the figures count those
//! locations as confirmed (the most the index could let through, so disagreement is an upper bound) and also print
//! the coverage with none of them confirmed (the least). Run with
//! `cargo test -p acr-core --release --test replay_proxy_rounds -- --nocapture` to see them
//! (`ACR_PROXY_ROUNDS_VERBOSE=1` also lists the held-out half's disagreements; the tuning half's are always listed).

mod common;

use std::collections::{BTreeMap, BTreeSet};

use acr_core::Index;
use acr_core::answers::{self, Source};
use acr_core::locate::Query;
use acr_core::proxy::{self, Names, Validated};

/// What the agent does with a round's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Action {
    Calls(BTreeSet<String>),
    Locations(BTreeSet<(String, String, String)>),
    Unusable,
}

/// Whether two location sets differ only in a class one of them gives for a method the other names in the same file
/// (the same method unless that file defines it in two classes).
fn differ_only_by_class(a: &Action, b: &Action) -> bool {
    let (Action::Locations(a), Action::Locations(b)) = (a, b) else { return false };
    let without = |s: &BTreeSet<(String, String, String)>| -> BTreeSet<(String, String)> {
        s.iter().filter(|(_, _, m)| !m.is_empty()).map(|(f, _, m)| (f.clone(), m.clone())).collect()
    };
    let rest = |s: &BTreeSet<(String, String, String)>| -> BTreeSet<(String, String, String)> {
        s.iter().filter(|(f, _, m)| m.is_empty() || f.is_empty()).cloned().collect()
    };
    without(a) == without(b) && rest(a) == rest(b) && a.iter().all(|(f, _, _)| !f.is_empty())
}

fn action(v: &Validated) -> Action {
    if !v.calls.is_empty() {
        return Action::Calls(v.calls.iter().map(ToString::to_string).collect());
    }
    fn resolvable(x: &Option<String>) -> &str {
        x.as_deref().filter(|s| !s.contains(char::is_whitespace)).unwrap_or("")
    }
    let locations: BTreeSet<(String, String, String)> = v
        .locations
        .iter()
        .map(|l| {
            let q = &l.query;
            (resolvable(&q.file).to_lowercase(), resolvable(&q.class).to_string(), resolvable(&q.method).to_string())
        })
        .filter(|(f, c, m)| !(f.is_empty() && c.is_empty() && m.is_empty()))
        .collect();
    if locations.is_empty() { Action::Unusable } else { Action::Locations(locations) }
}

/// Stands in for the index of a task whose repository is not in the corpus, when the figures assume that every
/// location read from prose names real code (the most the index could let through).
struct Everything;

impl Names for Everything {
    fn is_class(&self, _: &str) -> bool {
        false
    }

    fn is_callable(&self, _: &str) -> bool {
        false
    }

    fn class_has(&self, _: &str, _: &str) -> bool {
        false
    }

    fn has_file(&self, _: &str) -> bool {
        true
    }

    fn confirms(&self, _: &Query) -> bool {
        true
    }
}

/// The index of a task whose repository is in the corpus (built as the agent builds it), built once.
struct Indexes {
    cases: BTreeMap<String, std::path::PathBuf>,
    built: BTreeMap<String, Option<Index>>,
}

impl Indexes {
    fn get(&mut self, task: &str) -> Option<&Index> {
        if !self.built.contains_key(task) {
            let index = self.cases.get(task).map(|case| Index::build(&common::load_repo(case)));
            self.built.insert(task.to_string(), index);
        }
        self.built.get(task).and_then(Option::as_ref)
    }
}

/// FNV-1a (64 bits) of a task's instance id: a split that depends on nothing but the id.
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// Whether a task is in the held-out half.
fn held_out(task: &str) -> bool {
    fnv1a(task) % 2 == 1
}

/// The figures of one half.
#[derive(Default)]
struct Half {
    rounds: usize,
    tasks: BTreeSet<String>,
    trusted_by_source: BTreeMap<String, usize>,
    wrong: Vec<String>,
    /// Rounds not trusted whose reading validates, and of those the ones the proxy model agrees with.
    untrusted_readable: (usize, usize),
    /// Trusted rounds whose locations were read from prose with no index to confirm them (the repository is not in
    /// the corpus): counted as trusted, as if the index held every name.
    assumed: usize,
    /// Rounds whose locations were read from prose completely and checked against the task's real index, and of
    /// those the ones it confirmed.
    prose_locations_with_index: (usize, usize),
}

impl Half {
    fn trusted(&self) -> usize {
        self.trusted_by_source.values().sum()
    }

    fn share(&self, n: usize) -> f64 {
        100.0 * n as f64 / self.rounds.max(1) as f64
    }

    fn coverage(&self) -> f64 {
        self.share(self.trusted())
    }

    fn disagreement(&self) -> f64 {
        self.share(self.wrong.len())
    }

    fn report(&self, name: &str, list: bool) {
        println!(
            "{name}: {} rounds of {} tasks; coverage {:.1}% ({} trusted: {:?}); disagreement {:.2}% ({})",
            self.rounds,
            self.tasks.len(),
            self.coverage(),
            self.trusted(),
            self.trusted_by_source,
            self.disagreement(),
            self.wrong.len()
        );
        println!(
            "  untrusted rounds with a valid reading: {}, of which the proxy model agrees with {}",
            self.untrusted_readable.0, self.untrusted_readable.1
        );
        println!(
            "  locations read from prose: {} complete readings checked against the task's index, {} confirmed; {} \
             trusted with no index to check (coverage without them {:.1}%)",
            self.prose_locations_with_index.0,
            self.prose_locations_with_index.1,
            self.assumed,
            self.share(self.trusted() - self.assumed)
        );
        if list {
            for w in &self.wrong {
                println!("  {w}");
            }
        }
    }
}

/// The corpus's root and its recorded proxy rounds, one JSON object a line; `None` (with a message) without them.
fn proxy_rounds() -> Option<(std::path::PathBuf, String)> {
    let root = common::corpus()?;
    let Ok(text) = std::fs::read_to_string(root.join("proxy/acr-run-1.jsonl")) else {
        println!("SKIP: no proxy rounds in the corpus");
        return None;
    };
    Some((root, text))
}

#[test]
fn deterministic_reading_against_recorded_proxy_rounds() {
    let Some((root, text)) = proxy_rounds() else {
        return;
    };
    let cases = common::search_cases(&root)
        .into_iter()
        .filter_map(|c| Some((c.file_name()?.to_string_lossy().to_string(), c)))
        .collect();
    let mut indexes = Indexes { cases, built: BTreeMap::new() };
    let (mut tuning, mut held) = (Half::default(), Half::default());
    for line in text.lines() {
        let Ok(row) = serde_json::from_str::<serde_json::Value>(line) else { continue };
        let (Some(prose), Some(round), Some(task)) =
            (row["prose"].as_str(), row["round"].as_u64(), row["task"].as_str())
        else {
            continue;
        };
        let half = if held_out(task) { &mut held } else { &mut tuning };
        half.rounds += 1;
        half.tasks.insert(task.to_string());
        let round = round as usize + 1;
        let read = answers::search::read(prose);
        // The index matters for calls whose order it can check and for locations read from prose; build it only then.
        let needs_index = read.result.api_calls.iter().any(|c| c.contains("search_method_in_class"))
            || read.source == Source::ProseLocations;
        let index = if needs_index { indexes.get(task).map(|i| i as &dyn Names) } else { None };
        let direct = proxy::validate(&read.result, index);
        // Without the task's repository, the bounds: locations from prose all confirmed (what the figures count), or
        // none (the least coverage the index could leave).
        let trusted = proxy::stands(&read, round, &direct, Some(index.unwrap_or(&Everything)));
        if index.is_some() && read.source == Source::ProseLocations && proxy::trusted(&read, round) {
            half.prose_locations_with_index.0 += 1;
            half.prose_locations_with_index.1 += usize::from(trusted);
        }
        if trusted && index.is_none() && !proxy::stands(&read, round, &direct, None) {
            half.assumed += 1;
        }

        let attempts: Vec<Validated> = row["attempts"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str())
                    .map(|j| proxy::validate(&answers::search::read(j).result, index))
                    .collect()
            })
            .unwrap_or_default();
        let model = attempts.iter().find(|v| v.is_valid()).or(attempts.last());
        let want = model.map_or(Action::Unusable, action);
        let mine = if direct.is_valid() { action(&direct) } else { Action::Unusable };

        if trusted {
            *half.trusted_by_source.entry(format!("{:?}", read.source)).or_default() += 1;
            if mine != want {
                let class_only = if differ_only_by_class(&mine, &want) { " [differs only by a class]" } else { "" };
                half.wrong.push(format!(
                    "{task} round {round} ({:?}){class_only}: read {mine:?}, proxy model {want:?}",
                    read.source
                ));
            }
        }
        if !trusted && direct.is_valid() {
            half.untrusted_readable.0 += 1;
            half.untrusted_readable.1 += usize::from(mine == want);
        }
    }
    assert!(
        tuning.rounds > 500 && held.rounds > 500,
        "expected the corpus's proxy rounds, found {} + {}",
        tuning.rounds,
        held.rounds
    );
    let verbose = std::env::var_os("ACR_PROXY_ROUNDS_VERBOSE").is_some();
    tuning.report("tuning half (FNV-1a of the instance id even)", true);
    held.report("held-out half (odd)", verbose);
    // The held-out half is the figure that counts. Its guards sit just under the measured coverage and allow at most
    // two disagreements in either half, so a change that makes the reading act wrongly on answers it was not tuned
    // on fails here.
    assert!(tuning.coverage() > 60.5, "tuning: coverage {:.1}%", tuning.coverage());
    assert!(held.coverage() > 53.5, "held-out: coverage {:.1}%", held.coverage());
    for (name, half) in [("tuning", &tuning), ("held-out", &held)] {
        assert!(half.disagreement() < 0.4, "{name}: disagreement {:.2}%: {:#?}", half.disagreement(), half.wrong);
    }
}

/// The proxy model's readings keep to the notes they rewrite ([`proxy::faithful`]): over GPT-4's recorded readings
/// (the first attempt that validates, as the agent takes it), the share of calls and of location fields (file,
/// class, method) the rule leaves out, for each half. A reading left out here is one the agent would not act on, so
/// the held-out half must lose almost nothing.
#[test]
fn recorded_proxy_readings_keep_to_their_notes() {
    let Some((_, text)) = proxy_rounds() else {
        return;
    };
    // (calls, calls left out, location fields, fields left out) for the tuning and the held-out half.
    let mut halves = [(0usize, 0usize, 0usize, 0usize); 2];
    let mut examples: Vec<String> = Vec::new();
    for line in text.lines() {
        let Ok(row) = serde_json::from_str::<serde_json::Value>(line) else { continue };
        let (Some(prose), Some(task), Some(attempts)) =
            (row["prose"].as_str(), row["task"].as_str(), row["attempts"].as_array())
        else {
            continue;
        };
        let Some(mut v) = attempts
            .iter()
            .filter_map(|x| x.as_str())
            .map(|j| proxy::validate(&answers::search::read(j).result, None))
            .find(Validated::is_valid)
        else {
            continue;
        };
        let fields = |v: &Validated| -> usize {
            v.locations
                .iter()
                .map(|l| [&l.query.file, &l.query.class, &l.query.method].iter().filter(|f| f.is_some()).count())
                .sum()
        };
        let (calls, located) = (v.calls.len(), fields(&v));
        let left_out = proxy::faithful::to_the_notes(&mut v, prose);
        let half = &mut halves[usize::from(held_out(task))];
        half.0 += calls;
        half.1 += calls - v.calls.len();
        half.2 += located;
        half.3 += located - fields(&v);
        if !left_out.is_empty() {
            examples.push(format!(
                "{task}{}: {}",
                if held_out(task) { " (held out)" } else { "" },
                left_out.join(", ")
            ));
        }
    }
    for (name, (calls, calls_out, fields, fields_out)) in ["tuning", "held-out"].iter().zip(halves) {
        println!("{name}: {calls_out} of {calls} calls and {fields_out} of {fields} location fields left out");
    }
    for e in &examples {
        println!("  {e}");
    }
    let (calls, calls_out, fields, fields_out) = halves[1];
    assert!(calls > 500 && fields > 500, "expected the corpus's proxy rounds: {calls} calls, {fields} fields");
    assert!(calls_out * 200 < calls, "held-out: {calls_out} of {calls} calls left out");
    assert!(fields_out * 200 < fields, "held-out: {fields_out} of {fields} location fields left out");
}
