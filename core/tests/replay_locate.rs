//! Replays every bug location ACR fetched in the recorded search cases through [`acr_core::locate::resolve`].
//!
//! ACR recorded no proxy outputs in this corpus (no `agent_proxy_*.json`), but it did record, as `kind:
//! bug_location` calls, the searches it made itself for each location the model named: for one location the
//! consecutive tries in one round, in its fixed order, until one succeeded. Grouping those tries gives back the
//! location (the union of their file/class/method arguments). Each is resolved against the task's `repo/` tree and
//! compared with ACR's own outcome: where ACR found code, every code block it returned must be among ours.
//!
//! Run with `cargo test -p acr-core --test replay_locate -- --nocapture` to see the figures.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use acr_core::Index;
use acr_core::locate::{Outcome, Query, Resolution, Tier, resolve};
use regex_lite::Regex;
use serde_json::Value;

/// ACR's order of tries for one bug location.
const ACR_ORDER: &[&str] = &[
    "search_method_in_class",
    "search_method_in_file",
    "search_class_in_file",
    "get_class_full_snippet",
    "search_method",
];

#[derive(Debug)]
struct Try {
    api: String,
    file: Option<String>,
    class: Option<String>,
    method: Option<String>,
    ok: bool,
    output: String,
}

#[derive(Debug)]
struct Group {
    layer: i64,
    tries: Vec<Try>,
}

impl Group {
    fn field(&self, f: impl Fn(&Try) -> Option<&String>) -> Option<String> {
        self.tries.iter().find_map(|t| f(t).cloned())
    }
    fn location(&self) -> (Option<String>, Option<String>, Option<String>) {
        (self.field(|t| t.file.as_ref()), self.field(|t| t.class.as_ref()), self.field(|t| t.method.as_ref()))
    }
}

fn order(api: &str) -> usize {
    ACR_ORDER.iter().position(|a| *a == api).unwrap_or(usize::MAX)
}

fn arg(c: &Value, name: &str) -> Option<String> {
    c["args"][name].as_str().map(str::to_string)
}

/// Splits the bug-location calls of one task into locations: a new location starts at a new round, after a
/// success, when ACR's order restarts, or when an argument contradicts the location so far.
fn group(calls: &[Value]) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for c in calls.iter().filter(|c| c["kind"] == "bug_location") {
        let t = Try {
            api: c["api"].as_str().unwrap_or_default().to_string(),
            file: arg(c, "file_name"),
            class: arg(c, "class_name"),
            method: arg(c, "method_name"),
            ok: c["call_ok"].as_bool().unwrap_or(false),
            output: c["acr_output"].as_str().unwrap_or_default().to_string(),
        };
        let layer = c["layer"].as_i64().unwrap_or(-1);
        let starts_new = match groups.last() {
            None => true,
            Some(g) => {
                let last = g.tries.last();
                let (f, cl, m) = g.location();
                let conflicts =
                    |known: &Option<String>, new: &Option<String>| matches!((known, new), (Some(a), Some(b)) if a != b);
                g.layer != layer
                    || last.is_none_or(|l| l.ok || order(&l.api) >= order(&t.api))
                    || conflicts(&f, &t.file)
                    || conflicts(&cl, &t.class)
                    || conflicts(&m, &t.method)
            }
        };
        if starts_new {
            groups.push(Group { layer, tries: vec![t] });
        } else if let Some(g) = groups.last_mut() {
            g.tries.push(t);
        }
    }
    groups
}

/// The (file, code) blocks of an ACR search output.
fn acr_blocks(output: &str) -> Vec<(String, String)> {
    let re = Regex::new(r"(?s)<file>(.*?)</file>.*?<code>(.*?)</code>").expect("valid regex");
    re.captures_iter(output).map(|c| (c[1].to_string(), c[2].to_string())).collect()
}

fn acr_tier(api: &str) -> Tier {
    match api {
        "search_method_in_class" => Tier::MethodInClass,
        "search_method_in_file" => Tier::MethodInFile,
        "search_class_in_file" => Tier::ClassInFile,
        "get_class_full_snippet" => Tier::ClassAnywhere,
        _ => Tier::MethodAnywhere,
    }
}

fn describe(r: &Resolution) -> String {
    let reasons: Vec<String> = r
        .attempts
        .iter()
        .filter_map(|a| match &a.outcome {
            Outcome::Missed { reason } => Some(format!("{}: {reason}", a.tier)),
            _ => None,
        })
        .collect();
    reasons.join("; ")
}

#[test]
fn replay_bug_locations() {
    let Some(root) = common::corpus() else {
        return;
    };
    let started = std::time::Instant::now();
    let mut total = 0usize;
    let mut distinct: BTreeSet<String> = BTreeSet::new();
    let mut by_tier: BTreeMap<String, usize> = BTreeMap::new();
    let mut by_tier_all_py: BTreeMap<String, usize> = BTreeMap::new();
    let mut unresolved: Vec<String> = Vec::new();
    let mut acr_ok = 0usize;
    let mut acr_ok_same_tier = 0usize;
    let mut acr_blocks_total = 0usize;
    let mut acr_blocks_matched = 0usize;
    let mut mismatches: Vec<String> = Vec::new();
    let mut rescued: Vec<String> = Vec::new();
    let mut tier_differs: Vec<String> = Vec::new();
    let mut extra: Vec<String> = Vec::new();

    for case in common::search_cases(&root) {
        let task = case.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let calls = common::calls(&case);
        let groups = group(&calls);
        if groups.is_empty() {
            continue;
        }
        let repo = common::load_repo(&case);
        let index = Index::build(&repo);
        let index_all = common::index_all_py(&repo);
        for g in &groups {
            total += 1;
            let (file, class, method) = g.location();
            distinct.insert(format!("{task} {file:?} {class:?} {method:?}"));
            let query = Query::new(file.as_deref(), class.as_deref(), method.as_deref());
            let r = resolve(&index, &repo, &query, "");
            let r_all = resolve(&index_all, &repo, &query, "");
            let tier_name =
                |r: &Resolution| r.tier.map(|t| format!("{} {t}", t.number())).unwrap_or_else(|| "unresolved".into());
            *by_tier.entry(tier_name(&r)).or_default() += 1;
            *by_tier_all_py.entry(tier_name(&r_all)).or_default() += 1;
            let label = format!("{task} layer {}: file={:?} class={:?} method={:?}", g.layer, file, class, method);
            println!(
                "{label}\n    ours: {} ({} locations){}; ACR: {}",
                tier_name(&r),
                r.locations.len(),
                if r.tier == r_all.tier {
                    String::new()
                } else {
                    format!(" [with test files indexed: {}]", tier_name(&r_all))
                },
                g.tries
                    .iter()
                    .map(|t| format!("{}={}", t.api, if t.ok { "ok" } else { "fail" }))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            if !r.found() {
                unresolved.push(format!("{label}: {}", describe(&r)));
            }
            let last = g.tries.last();
            match last {
                Some(t) if t.ok => {
                    acr_ok += 1;
                    // Compare with the resolution over the same files ACR indexed.
                    if r_all.tier == Some(acr_tier(&t.api)) {
                        acr_ok_same_tier += 1;
                    } else {
                        tier_differs.push(format!("{label}: ACR {} vs ours {}", t.api, tier_name(&r_all)));
                    }
                    let blocks = acr_blocks(&t.output);
                    let theirs: BTreeSet<(&str, &str)> = blocks.iter().map(|(f, c)| (f.as_str(), c.as_str())).collect();
                    for l in &r_all.locations {
                        if !theirs.contains(&(l.file.as_str(), l.code.as_str())) {
                            extra.push(format!("{label}: we also return {}:{}-{}", l.file, l.start, l.end));
                        }
                    }
                    for (f, code) in blocks {
                        acr_blocks_total += 1;
                        if r_all.locations.iter().any(|l| l.file == f && l.code == code) {
                            acr_blocks_matched += 1;
                        } else {
                            mismatches.push(format!("{label}: ACR block in {f} not among ours"));
                        }
                    }
                }
                _ => {
                    if r.found() {
                        rescued.push(format!("{label} -> {}", tier_name(&r)));
                    }
                }
            }
        }
    }

    println!("\n== replay_locate: {:.2?}", started.elapsed());
    println!("bug locations (grouped tries): {total}; distinct per task: {}", distinct.len());
    println!("resolved by tier (product index, test files left out): {by_tier:?}");
    println!("resolved by tier (every .py indexed, as ACR's run): {by_tier_all_py:?}");
    println!(
        "ACR found code for {acr_ok}; same tier as ours {acr_ok_same_tier}; ACR code blocks {acr_blocks_total}, \
         found verbatim among ours {acr_blocks_matched}"
    );
    println!("ACR failed, we resolve ({}):", rescued.len());
    for r in &rescued {
        println!("  {r}");
    }
    println!("tier differs from ACR's ({}):", tier_differs.len());
    for t in &tier_differs {
        println!("  {t}");
    }
    println!("locations we return that ACR did not ({}):", extra.len());
    for e in &extra {
        println!("  {e}");
    }
    println!("ACR blocks we miss ({}):", mismatches.len());
    for m in &mismatches {
        println!("  {m}");
    }
    println!("unresolved ({}):", unresolved.len());
    for u in &unresolved {
        println!("  {u}");
    }

    assert!(total >= 30, "expected the corpus's bug locations, got {total}");
    let resolved = total - unresolved.len();
    assert!(resolved * 100 >= total * 95, "only {resolved} of {total} resolved");
    assert_eq!(acr_blocks_matched, acr_blocks_total, "every code block ACR found must be found again");
}

#[test]
fn grouping_splits_on_success_order_and_conflicts() {
    let c = |api: &str, layer: i64, ok: bool, m: &str| {
        serde_json::json!({"kind": "bug_location", "api": api, "layer": layer, "call_ok": ok,
            "args": {"method_name": m, "file_name": "a.py"}, "acr_output": ""})
    };
    let calls = vec![
        c("search_method_in_file", 1, false, "A.f"),
        c("search_method", 1, false, "A.f"),
        c("search_method_in_file", 1, true, "g"),
        c("search_method_in_file", 1, true, "h"),
        c("search_method_in_file", 2, false, "h"),
        c("search_method", 2, false, "other"),
    ];
    let sizes: Vec<usize> = group(&calls).iter().map(|g| g.tries.len()).collect();
    assert_eq!(sizes, vec![2, 1, 1, 1, 1]);
}
