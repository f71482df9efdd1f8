//! The `acr:core` component under wasmtime: the fixture repository indexed, every search API, locate, apply and the
//! syntax gate, with the results checked against what the fixture holds. Skips when the component is not built.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use wasmtime::component::{Component, Linker, ResourceAny, bindgen};
use wasmtime::{Config, Engine, OptLevel, Store};

bindgen!({ world: "core", path: "../../wit" });

use exports::acr::core::edits::{EditCandidate, EditFailure, EditFormat, EditOutcome, ExtractStatus, ProblemKind};
use exports::acr::core::locate::{ContextKind, Query, Tier};
use exports::acr::core::repository::File;
use exports::acr::core::search::{CallErrorKind, SearchOutput};
use exports::acr::core::types::SkipReason;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

fn component_path() -> PathBuf {
    Path::new(ROOT).join("dist/acr_core.component.wasm")
}

/// The engine and the compiled component, compiled once for all tests; `None` (after a message) when not built.
fn compiled() -> Option<&'static (Engine, Component)> {
    static COMPILED: OnceLock<Option<(Engine, Component)>> = OnceLock::new();
    COMPILED
        .get_or_init(|| {
            let path = component_path();
            if !path.exists() {
                eprintln!("skipped: {} is missing; build it with `make component`", path.display());
                return None;
            }
            // Unoptimised machine code compiles faster in this debug build (4.2 s instead of 5.8 s for the tests).
            let engine = Engine::new(Config::new().cranelift_opt_level(OptLevel::None)).expect("an engine");
            let component = Component::from_file(&engine, &path).expect("the component compiles");
            Some((engine, component))
        })
        .as_ref()
}

/// A fresh instance with a repository handle holding the files of `tests/fixtures/<name>`.
struct Host {
    store: Store<()>,
    core: Core,
    repo: ResourceAny,
}

impl Host {
    fn new() -> Option<Host> {
        let (engine, component) = compiled()?;
        let mut store = Store::new(engine, ());
        let core = Core::instantiate(&mut store, component, &Linker::new(engine)).expect("instantiates");
        let repo = core.acr_core_repository().repo().call_constructor(&mut store).expect("constructor");
        Some(Host { store, core, repo })
    }

    fn with_fixture(name: &str) -> Option<Host> {
        let mut host = Host::new()?;
        let root = Path::new(ROOT).join("tests/fixtures").join(name);
        let mut files = Vec::new();
        collect(&root, &root, &mut files);
        let refused = host.core.acr_core_repository().repo().call_add_files(&mut host.store, host.repo, &files);
        assert_eq!(refused.expect("add-files").len(), 0);
        Some(host)
    }

    fn search(&mut self, api: &str, args: &[&str]) -> SearchOutput {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let out = self.core.acr_core_search().call_call(&mut self.store, self.repo, api, &args).expect("no trap");
        out.unwrap_or_else(|e| panic!("{api}{args:?}: {}", e.message))
    }
}

fn collect(root: &Path, dir: &Path, out: &mut Vec<File>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).expect("fixture dir").flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(root, &p, out);
        } else {
            let path = p.strip_prefix(root).expect("under root").to_string_lossy().replace('\\', "/");
            out.push(File { path, contents: std::fs::read(&p).expect("readable") });
        }
    }
}

#[test]
fn the_fixture_is_indexed_as_natively() {
    let Some(mut h) = Host::with_fixture("minirepo") else { return };
    let repos = h.core.acr_core_repository().repo();
    let stats = repos.call_index(&mut h.store, h.repo).unwrap();
    // Written for the fixture: 3 non-test sources (one broken); Base, Order, Survivor; six methods (one nested in a
    // method); make_order, fine, broken.
    assert_eq!((stats.files, stats.parsed, stats.with_errors), (3, 2, 1));
    assert_eq!((stats.classes, stats.methods, stats.functions), (3, 6, 3));
    let paths = repos.call_paths(&mut h.store, h.repo).unwrap();
    assert!(paths.contains(&"tests/test_orders.py".to_string()), "test files are kept, just not indexed");
    assert_eq!(
        repos.call_read_file(&mut h.store, h.repo, "shop/__init__.py").unwrap().as_deref(),
        Some("from .orders import Order\n")
    );
}

#[test]
fn every_search_api_answers() {
    let Some(mut h) = Host::with_fixture("minirepo") else { return };
    let cases: &[(&str, &[&str], &str)] = &[
        ("search_class", &["Order"], "class Order(Base):"),
        ("search_class_in_file", &["Order", "orders.py"], "def stamp():"),
        ("search_method", &["make_order"], "def make_order(*lines):"),
        ("search_method_in_file", &["total", "shop/orders.py"], "return sum(price * qty"),
        ("search_method_in_class", &["refresh", "Order"], "async def refresh(self):"),
        ("search_code", &["datetime.now()"], "<func>refresh</func>"),
        ("search_code_in_file", &["lines or []", "orders.py"], "self.lines = lines or []"),
        ("get_code_around_line", &["shop/orders.py", "15", "1"], "self.lines = lines or []"),
        ("get_class_full_snippet", &["Survivor"], "return 3"),
    ];
    for (api, args, expected) in cases {
        let out = h.search(api, args);
        assert!(out.ok, "{api}: {}", out.text);
        assert!(out.text.contains(expected), "{api} should show `{expected}`:\n{}", out.text);
        assert!(!out.results.is_empty(), "{api} lists its hits");
    }
    let typed = h.core.acr_core_search().call_search_method_in_class(&mut h.store, h.repo, "total", "Order");
    let typed = typed.unwrap().unwrap();
    assert_eq!(typed.results.len(), 1);
    let hit = &typed.results[0];
    assert_eq!(
        (hit.file.as_str(), hit.class.as_deref(), hit.func.as_deref()),
        ("shop/orders.py", Some("Order"), Some("total"))
    );
    let miss = h.search("search_class", &["Nowhere"]);
    assert!(!miss.ok && miss.results.is_empty(), "a miss is an answer, not an error: {}", miss.text);
}

#[test]
fn bad_calls_are_errors_with_a_kind() {
    let Some(mut h) = Host::with_fixture("minirepo") else { return };
    let search = h.core.acr_core_search();
    let unknown = search.call_call(&mut h.store, h.repo, "search_klass", &["A".to_string()]).unwrap().unwrap_err();
    assert_eq!(unknown.kind, CallErrorKind::UnknownApi);
    let empty = search.call_search_class(&mut h.store, h.repo, "  ").unwrap().unwrap_err();
    assert_eq!((empty.kind, empty.param.as_deref()), (CallErrorKind::EmptyArgument, Some("class_name")));
    let args = ["orders.py".to_string(), "seven".to_string()];
    let nan = search.call_call(&mut h.store, h.repo, "get_code_around_line", &args).unwrap().unwrap_err();
    assert_eq!((nan.kind, nan.param.as_deref()), (CallErrorKind::NotANumber, Some("line_no")));
    assert!(nan.message.contains("whole number"), "{}", nan.message);
}

#[test]
fn calls_parse_as_the_agent_reads_them_and_run_by_name() {
    let Some(mut h) = Host::with_fixture("minirepo") else { return };
    let search = h.core.acr_core_search();
    let c = search.call_parse_call(&mut h.store, "search_method_in_class(class_name='Order', method_name: 'total')");
    let c = c.unwrap().unwrap();
    assert_eq!(
        (c.api.as_str(), c.text.as_str()),
        ("search_method_in_class", "search_method_in_class(\"total\", \"Order\")")
    );
    let by_name = search.call_call(&mut h.store, h.repo, &c.api, &c.args).unwrap().unwrap();
    let typed = search.call_search_method_in_class(&mut h.store, h.repo, "total", "Order").unwrap().unwrap();
    assert_eq!((by_name.text, by_name.results.len()), (typed.text, typed.results.len()));
    let around = search.call_parse_call(&mut h.store, "get_code_around_line('orders.py', 15)").unwrap().unwrap();
    assert_eq!(around.args, ["orders.py", "15", "10"], "the default window is filled in");
    let bad = search.call_parse_call(&mut h.store, "search_class(Order)").unwrap().unwrap_err();
    assert!(bad.message.contains("put text arguments in quotes"), "{}", bad.message);
}

#[test]
fn locate_resolves_through_the_tiers() {
    let Some(mut h) = Host::with_fixture("minirepo") else { return };
    let locate = h.core.acr_core_locate();
    let query = Query { file: None, class: Some("Order".into()), method: Some("total".into()) };
    let r = locate.call_locate(&mut h.store, h.repo, &query, "sum the lines").unwrap();
    assert_eq!(r.tier, Some(Tier::MethodInClass));
    assert_eq!(r.locations.len(), 1);
    let loc = &r.locations[0];
    assert_eq!((loc.file.as_str(), loc.start, loc.end), ("shop/orders.py", 18, 19));
    assert!(loc.code.contains("def total(self):") && loc.intended_behavior == "sum the lines");
    assert!(r.context.iter().any(|c| matches!(c.kind, ContextKind::EnclosingClass)), "the class comes as context");

    let inherited = Query { file: None, class: Some("Order".into()), method: Some("describe".into()) };
    let r = locate.call_locate(&mut h.store, h.repo, &inherited, "").unwrap();
    assert_eq!(r.locations.first().and_then(|l| l.class.as_deref()), Some("Base"), "found in the ancestor");

    let nothing = Query { file: Some("nowhere.py".into()), class: None, method: None };
    let r = locate.call_locate(&mut h.store, h.repo, &nothing, "").unwrap();
    assert!(r.locations.is_empty() && r.message.is_some_and(|m| m.contains("nowhere.py")));
}

#[test]
fn an_answer_is_applied_in_memory() {
    let Some(mut h) = Host::with_fixture("minirepo") else { return };
    let answer = "I will fix the total.\n<file>shop/orders.py</file>\n<original>\n        return sum(price * qty for price, qty in self.lines)\n</original>\n<patched>\n        return round(sum(price * qty for price, qty in self.lines), 2)\n</patched>\n\n<file>tests/test_orders.py</file>\n<original>x</original>\n<patched>y</patched>\n<file>shop/orders.py</file>\n<original>return nothing</original>\n<patched>return 0</patched>\n";
    let x = h.core.acr_core_edits().call_apply(&mut h.store, h.repo, answer).unwrap();
    assert_eq!(x.status, ExtractStatus::ApplicablePatch);
    assert!(x.diff.contains("+        return round(sum(price * qty for price, qty in self.lines), 2)"), "{}", x.diff);
    assert_eq!(x.files.len(), 1);
    assert_eq!(x.edits.len(), 3);
    assert!(matches!(&x.edits[0].outcome, EditOutcome::Applied(a) if a.start == 19 && a.changed));
    assert!(matches!(x.edits[1].outcome, EditOutcome::DroppedTestFile));
    assert!(
        matches!(&x.edits[2].outcome, EditOutcome::Failed(EditFailure::OriginalNotFound(nf)) if nf.wanted == "return nothing")
    );
    assert!(x.reason.contains("1 of the edits could not be applied"), "{}", x.reason);
    let unchanged = h.core.acr_core_repository().repo().call_read_file(&mut h.store, h.repo, "shop/orders.py").unwrap();
    assert!(unchanged.unwrap().contains("        return sum(price * qty"), "the repository itself is not changed");

    let breaking = "<file>shop/orders.py</file>\n<original>return sum(price * qty for price, qty in self.lines)</original>\n<patched>return sum(price * qty for price, qty in self.lines</patched>";
    let x = h.core.acr_core_edits().call_apply(&mut h.store, h.repo, breaking).unwrap();
    assert_eq!(x.status, ExtractStatus::RawPatchButUnmatched);
    assert!(matches!(&x.edits[0].outcome, EditOutcome::Failed(EditFailure::BreaksSyntax(_))));
    assert_eq!(x.formats, vec![EditFormat::Acr]);

    // The same fix as SEARCH/REPLACE, as a unified diff without numbers: both read, each named.
    let sr = "shop/orders.py\n```python\n<<<<<<< SEARCH\n        return sum(price * qty for price, qty in self.lines)\n=======\n        return round(sum(price * qty for price, qty in self.lines), 2)\n>>>>>>> REPLACE\n```\n";
    let udiff = "--- shop/orders.py\n+++ shop/orders.py\n@@ ... @@\n-        return sum(price * qty for price, qty in self.lines)\n+        return round(sum(price * qty for price, qty in self.lines), 2)\n";
    for (answer, format) in [(sr, EditFormat::SearchReplace), (udiff, EditFormat::Udiff)] {
        let x = h.core.acr_core_edits().call_apply(&mut h.store, h.repo, answer).unwrap();
        assert_eq!(x.status, ExtractStatus::ApplicablePatch, "{}", x.reason);
        assert_eq!((x.formats.as_slice(), x.edits[0].format), ([format].as_slice(), format));
    }
}

/// An edit refused as ambiguous carries every place its original matches, with the definition around it, while
/// the other edits still apply.
#[test]
fn an_ambiguous_edit_carries_its_candidates() {
    let Some(mut h) = Host::new() else { return };
    let source = "class A:\n    def f(self):\n        return 0\n\n    def g(self):\n        return 0\n\n\ndef h():\n    return 9\n";
    let files = [File { path: "m.py".into(), contents: source.as_bytes().to_vec() }];
    let refused = h.core.acr_core_repository().repo().call_add_files(&mut h.store, h.repo, &files).unwrap();
    assert!(refused.is_empty());
    let answer = "<file>m.py</file><original>return 9</original><patched>return 10</patched>\n<file>m.py</file><original>return 0</original><patched>return 1</patched>";
    let x = h.core.acr_core_edits().call_apply(&mut h.store, h.repo, answer).unwrap();
    assert_eq!(x.status, ExtractStatus::ApplicablePatch, "{}", x.reason);
    let EditOutcome::Failed(EditFailure::Ambiguous(candidates)) = &x.edits[1].outcome else {
        panic!("{:?}", x.edits[1].outcome)
    };
    let places: Vec<(u32, u32, Option<&str>)> =
        candidates.iter().map(|c: &EditCandidate| (c.line, c.end_line, c.enclosing.as_deref())).collect();
    assert_eq!(places, [(3, 3, Some("A.f")), (6, 6, Some("A.g"))]);
}

#[test]
fn syntax_is_checked_with_a_position() {
    let Some(mut h) = Host::new() else { return };
    let edits = h.core.acr_core_edits();
    assert!(edits.call_check_syntax(&mut h.store, "def f():\n    return 1\n").unwrap().is_ok());
    let p = edits.call_check_syntax(&mut h.store, "def f():\n    x = 1\n  return x\n").unwrap().unwrap_err();
    // CPython's IndentationError: its column is the end of the offending line.
    assert_eq!((p.line, p.column, p.kind), (3, 11, ProblemKind::Indentation));
    assert_eq!(p.message, "line 3, column 11: unindent does not match any outer indentation level");
}

#[test]
fn bad_files_are_refused_with_reasons() {
    let Some(mut h) = Host::new() else { return };
    let repos = h.core.acr_core_repository().repo();
    let cases: [(&str, Vec<u8>); 4] = [
        ("latin.py", b"caf\xe9 = 1\n".to_vec()),
        ("blob.py", b"\x00\x01\x02".to_vec()),
        ("huge.py", vec![b'x'; 5 << 20]),
        ("../escape.py", b"x = 1\n".to_vec()),
    ];
    let mut reasons = Vec::new();
    for (path, bytes) in &cases {
        reasons.push(repos.call_add_file(&mut h.store, h.repo, path, bytes).unwrap().unwrap_err());
    }
    assert!(matches!(reasons[0], SkipReason::NotUtf8));
    assert!(matches!(reasons[1], SkipReason::Binary));
    assert!(matches!(reasons[2], SkipReason::TooLarge(s) if s.bytes == 5 << 20 && s.limit == 4 << 20));
    assert!(matches!(reasons[3], SkipReason::UnsafePath(_)));
    let skipped = repos.call_skipped(&mut h.store, h.repo).unwrap();
    assert_eq!(skipped.len(), 4);
    assert_eq!(skipped[2].message, "5242880 bytes, over the 4194304-byte limit");
    assert_eq!(repos.call_index(&mut h.store, h.repo).unwrap().files, 0, "nothing refused was kept");
}

#[test]
fn the_readme_shows_the_tested_example() {
    let readme = std::fs::read_to_string(Path::new(ROOT).join("README.md")).expect("README.md");
    let start = "<!-- wasmtime-example:start -->\n```rust\n";
    let end = "```\n<!-- wasmtime-example:end -->";
    let from = readme.find(start).expect("the README marks the wasmtime example") + start.len();
    let to = readme[from..].find(end).expect("the example block is closed") + from;
    assert_eq!(&readme[from..to], include_str!("readme_example.rs"), "README.md must show tests/readme_example.rs");
}
