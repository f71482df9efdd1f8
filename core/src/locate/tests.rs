use super::*;

const BASE: &str = "\
class Root:
    def save(self):
        return 'root'

    def close(self):
        pass


class Base(Root):
    def load(self):
        return 'base'
";

const MODELS: &str = "\
from pkg import base


class Model(base.Base):
    def save(self):
        return 'model'


def helper():
    return 1


class Other:
    x = 1
";

const CHILD: &str = "\
from pkg.models import Model


class Child(Model):
    def save(self):
        return 'child'
";

const DUP: &str = "\
class Model:
    def save(self):
        pass
";

const CYCLE: &str = "\
class A(B):
    pass


class B(A):
    pass
";

fn fixture() -> (Index, Repo) {
    let repo = Repo::from_files([
        ("pkg/base.py", BASE),
        ("pkg/models.py", MODELS),
        ("pkg/child.py", CHILD),
        ("pkg/dup/models.py", DUP),
        ("pkg/cycle.py", CYCLE),
        ("tests/test_models.py", "def test_save():\n    assert True\n"),
        ("README.md", "# fixture\n"),
    ]);
    (Index::build(&repo), repo)
}

fn run(file: Option<&str>, class: Option<&str>, method: Option<&str>) -> Resolution {
    let (index, repo) = fixture();
    resolve(&index, &repo, &Query::new(file, class, method), "do it right")
}

fn spans(r: &Resolution) -> Vec<String> {
    r.locations.iter().map(|l| format!("{}:{}-{}", l.file, l.start, l.end)).collect()
}

fn outcomes(r: &Resolution) -> Vec<&'static str> {
    r.attempts
        .iter()
        .map(|a| match a.outcome {
            Outcome::Skipped => "skip",
            Outcome::Missed { .. } => "miss",
            Outcome::Found { .. } => "found",
            Outcome::NotReached => "-",
        })
        .collect()
}

#[test]
fn tier1_method_in_class_narrowed_by_file() {
    let r = run(Some("pkg/models.py"), Some("Model"), Some("save"));
    assert_eq!(r.tier, Some(Tier::MethodInClass));
    assert_eq!(spans(&r), vec!["pkg/models.py:5-6"]);
    assert_eq!(outcomes(&r), vec!["found", "-", "-", "-", "-", "-"]);
    let l = &r.locations[0];
    assert_eq!(l.code, "    def save(self):\n        return 'model'\n");
    assert_eq!((l.class.as_deref(), l.method.as_deref()), (Some("Model"), Some("save")));
    assert_eq!(l.intended_behavior, "do it right");

    // Without a file both same-named classes answer.
    let r = run(None, Some("Model"), Some("save"));
    assert_eq!(spans(&r), vec!["pkg/dup/models.py:2-3", "pkg/models.py:5-6"]);
}

#[test]
fn method_in_class_brings_class_and_ancestor_two_levels_up_across_files() {
    let r = run(Some("pkg/models.py"), Some("Model"), Some("save"));
    let ctx: Vec<(String, String)> = r
        .context
        .iter()
        .map(|c| (format!("{:?}", c.kind), format!("{}:{}-{}", c.location.file, c.location.start, c.location.end)))
        .collect();
    assert_eq!(
        ctx,
        vec![
            ("EnclosingClass".to_string(), "pkg/models.py:4-6".to_string()),
            ("AncestorMethod { class: \"Root\", depth: 2 }".to_string(), "pkg/base.py:2-3".to_string()),
        ]
    );
    // Child -> Model (another file) is the nearest ancestor defining save.
    let r = run(None, Some("Child"), Some("save"));
    let anc: Vec<_> = r
        .context
        .iter()
        .filter_map(|c| match &c.kind {
            ContextKind::AncestorMethod { class, depth } => Some((class.clone(), *depth, c.location.file.clone())),
            ContextKind::EnclosingClass => None,
        })
        .collect();
    assert_eq!(
        anc,
        vec![
            ("Model".to_string(), 1, "pkg/dup/models.py".to_string()),
            ("Model".to_string(), 1, "pkg/models.py".to_string())
        ]
    );
}

#[test]
fn tier1_inherited_method_when_class_lacks_it() {
    // Child does not define load; Model (depth 1) does not either; Base (depth 2, dotted `base.Base`) does.
    let r = run(None, Some("Child"), Some("load"));
    assert_eq!(r.tier, Some(Tier::MethodInClass));
    assert_eq!(spans(&r), vec!["pkg/base.py:10-11"]);
    assert_eq!(
        r.attempts[0].outcome,
        Outcome::Found { count: 1, detail: Some("`Child` inherits `load` from `Base` (depth 2)".into()) }
    );
    // Three levels: Root.close through Child -> Model -> Base -> Root.
    let r = run(None, Some("Child"), Some("close"));
    assert_eq!(spans(&r), vec!["pkg/base.py:5-6"]);
}

#[test]
fn tier2_method_in_file() {
    let r = run(Some("models.py"), None, Some("helper"));
    assert_eq!(r.tier, Some(Tier::MethodInFile));
    assert_eq!(outcomes(&r), vec!["skip", "found", "-", "-", "-", "-"]);
    assert_eq!(spans(&r), vec!["pkg/models.py:9-10"]);
    assert_eq!(r.locations[0].class, None);
    assert!(r.context.is_empty(), "functions have no class context");
}

#[test]
fn tier3_class_in_file() {
    let r = run(Some("pkg/models.py"), Some("Other"), Some("missing"));
    assert_eq!(r.tier, Some(Tier::ClassInFile));
    assert_eq!(outcomes(&r), vec!["miss", "miss", "found", "-", "-", "-"]);
    assert_eq!(spans(&r), vec!["pkg/models.py:13-14"]);
    assert_eq!(r.locations[0].code, "class Other:\n    x = 1\n");
}

#[test]
fn tier4_class_anywhere() {
    let r = run(Some("wrong.py"), Some("Other"), None);
    assert_eq!(r.tier, Some(Tier::ClassAnywhere));
    assert_eq!(outcomes(&r), vec!["skip", "skip", "miss", "found", "-", "-"]);
    assert_eq!(spans(&r), vec!["pkg/models.py:13-14"]);
}

#[test]
fn tier5_method_anywhere() {
    let r = run(Some("nope.py"), Some("Nope"), Some("helper"));
    assert_eq!(r.tier, Some(Tier::MethodAnywhere));
    assert_eq!(outcomes(&r), vec!["miss", "miss", "miss", "miss", "found", "-"]);
    assert_eq!(spans(&r), vec!["pkg/models.py:9-10"]);
    // Methods anywhere come back sorted by path, each with its class as context.
    let r = run(None, None, Some("save"));
    assert_eq!(spans(&r), vec!["pkg/base.py:2-3", "pkg/child.py:5-6", "pkg/dup/models.py:2-3", "pkg/models.py:5-6"]);
    assert_eq!(r.context.iter().filter(|c| c.kind == ContextKind::EnclosingClass).count(), 4);
}

#[test]
fn tier6_whole_file_even_when_not_indexed() {
    let r = run(Some("tests/test_models.py"), None, Some("test_other"));
    assert_eq!(r.tier, Some(Tier::WholeFile));
    assert_eq!(outcomes(&r), vec!["skip", "miss", "skip", "skip", "miss", "found"]);
    match &r.attempts[1].outcome {
        Outcome::Missed { reason } => assert!(reason.contains("not indexed"), "{reason}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(spans(&r), vec!["tests/test_models.py:1-2"]);
    assert_eq!(r.locations[0].code, "def test_save():\n    assert True\n");
}

#[test]
fn class_dot_method_in_one_field_is_split() {
    let r = run(Some("PKG/Models.PY"), None, Some("Model.save"));
    assert_eq!(r.tier, Some(Tier::MethodInClass));
    assert_eq!(spans(&r), vec!["pkg/models.py:5-6"]);
    assert_eq!(r.query.notes, vec!["split method `Model.save` into class `Model` and method `save`"]);
    let q = Query::new(None, Some("Model.save"), Some(""));
    assert_eq!((q.class.as_deref(), q.method.as_deref()), (Some("Model"), Some("save")));
    // A module path before a function is not a class.
    let q = Query::new(None, None, Some("pkg.models.helper"));
    assert_eq!((q.class.as_deref(), q.method.as_deref()), (None, Some("helper")));
    // A dotted class keeps its last segment.
    let q = Query::new(None, Some("pkg.models.Model"), Some("save"));
    assert_eq!(q.class.as_deref(), Some("Model"));
    // A method that names another class keeps the given class.
    let q = Query::new(None, Some("Child"), Some("Model.save"));
    assert_eq!((q.class.as_deref(), q.method.as_deref()), (Some("Child"), Some("save")));
}

#[test]
fn fields_are_cleaned() {
    let q = Query::new(Some(" ./pkg\\models.py:12 "), Some("class Model(base.Base):"), Some("def save(self):"));
    assert_eq!(q.file.as_deref(), Some("pkg/models.py"));
    assert_eq!(q.class.as_deref(), Some("Model"));
    assert_eq!(q.method.as_deref(), Some("save"));
    let q = Query::new(Some(""), Some("None"), Some("N/A"));
    assert!(q.is_empty());
    let q = Query::new(Some("/testbed/pkg/models.py"), None, None);
    let r = {
        let (index, repo) = fixture();
        resolve(&index, &repo, &q, "")
    };
    assert_eq!(spans(&r), vec!["pkg/models.py:1-14"]);
}

#[test]
fn file_names_match_by_suffix_on_path_boundaries() {
    let paths = ["pkg/models.py", "pkg/dup/models.py", "pkg/othermodels.py"];
    let named = |wanted| files_named(&paths, wanted).map(|(found, _)| found);
    let (found, ambiguity) = files_named(&paths, "models.py").unwrap();
    assert_eq!(found, vec!["pkg/models.py", "pkg/dup/models.py"]);
    assert_eq!(ambiguity.unwrap(), "`models.py` names 2 files (pkg/models.py, pkg/dup/models.py)");
    assert_eq!(named("Pkg/Models.py").unwrap(), vec!["pkg/models.py"]);
    assert_eq!(named("dup/models.py").unwrap(), vec!["pkg/dup/models.py"]);
    assert_eq!(named("odels.py").unwrap(), vec!["pkg/models.py", "pkg/dup/models.py", "pkg/othermodels.py"]);
    assert!(named("x.txt").is_err());
    assert_eq!(named("/srv/repo/pkg/othermodels.py").unwrap(), vec!["pkg/othermodels.py"]);
}

#[test]
fn duplicates_collapse_on_file_and_range() {
    let loc = |file: &str, start, end, why: &str| BugLocation {
        file: file.into(),
        class: None,
        method: Some("m".into()),
        start,
        end,
        code: String::new(),
        intended_behavior: why.into(),
    };
    let out = dedup([
        loc("a.py", 1, 3, "first"),
        loc("a.py", 1, 4, "other range"),
        loc("a.py", 1, 3, "second"),
        loc("b.py", 1, 3, ""),
        loc("a.py", 1, 3, "first"),
    ]);
    assert_eq!(out.len(), 3);
    assert_eq!(out[0].intended_behavior, "first\nsecond");
    assert_eq!(out[0], loc("a.py", 1, 3, "anything"));
    assert_ne!(out[0], out[1]);
}

#[test]
fn cyclic_bases_terminate() {
    let r = run(None, Some("A"), Some("missing"));
    assert_eq!(r.tier, Some(Tier::ClassAnywhere));
}

#[test]
fn nothing_found_says_what_was_tried() {
    let r = run(Some("nowhere.py"), Some("Ghost"), Some("haunt"));
    assert!(!r.found());
    assert_eq!(r.tier, None);
    insta::assert_snapshot!(r.not_found_message().unwrap_or_default());
    let r = run(None, Some(""), None);
    insta::assert_snapshot!("empty_query", r.not_found_message().unwrap_or_default());
}

#[test]
fn report_lists_every_tier() {
    let r = run(Some("pkg/child.py"), Some("Child"), Some("save"));
    insta::assert_snapshot!(r.report(true));
    let r = run(Some("pkg/models.py"), None, Some("Other.missing"));
    insta::assert_snapshot!("report_class_in_file", r.report(false));
}
