//! Java as the index's second language: the fixture project `tests/fixtures/javarepo` (a cart with overloads,
//! nested and anonymous classes, a record, an enum with a constant body, an interface and an annotation type) indexed
//! and searched as Python is, with Java's own conventions.

use acr_core::Repo;
use acr_core::index::Index;
use acr_core::search::Searcher;

mod common;

fn fixture() -> Repo {
    common::fixture("javarepo")
}

#[test]
fn java_sources_are_indexed_and_tests_left_out() {
    let repo = fixture();
    let index = Index::build(&repo);
    let paths: Vec<&str> = index.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "src/main/java/shop/Basket.java",
            "src/main/java/shop/Cart.java",
            "src/main/java/shop/Checked.java",
            "src/main/java/shop/Currency.java",
            "src/main/java/shop/Item.java",
            "src/main/java/shop/Priced.java",
        ],
        "src/test/java is a test folder"
    );
    assert!(index.files.iter().all(|f| !f.has_error));
    insta::assert_snapshot!("cart_definitions", common::definitions(&index, "src/main/java/shop/Cart.java").join("\n"));
    insta::assert_snapshot!(
        "enum_definitions",
        common::definitions(&index, "src/main/java/shop/Currency.java").join("\n")
    );
    let bases = |c: &str| index.class_bases.get(c).map(|b| b.iter().map(|n| n.to_string()).collect::<Vec<_>>());
    assert_eq!(bases("Cart"), Some(vec!["Basket".into(), "Priced".into(), "Comparable".into()]));
    assert_eq!(bases("Priced"), Some(vec!["java.io.Serializable".into()]));
    assert_eq!(bases("Currency"), Some(vec!["Priced".into()]));
    let stats = index.stats();
    assert_eq!((stats.classes, stats.functions), (8, 0), "Java has no functions outside classes");
}

#[test]
fn overloads_are_separate_results() {
    let repo = fixture();
    let index = Index::build(&repo);
    let out = Searcher::new(&index, &repo).search_method_in_class("add", "Cart");
    assert_eq!(out.results.len(), 2, "{}", out.text);
    insta::assert_snapshot!("overloads_in_class", out.text);
}

#[test]
fn a_class_shows_its_shape_and_nested_types_answer_to_their_own_names() {
    let repo = fixture();
    let index = Index::build(&repo);
    let searcher = Searcher::new(&index, &repo);
    insta::assert_snapshot!("cart_signature", searcher.search_class("Cart").text);
    insta::assert_snapshot!("enum_signature", searcher.search_class("Currency").text);
    let line = searcher.search_class("Line");
    assert_eq!(line.results.len(), 1, "{}", line.text);
    assert_eq!(line.text, searcher.search_class("Cart.Line").text.replace("Cart.Line", "Line"));
    let log = searcher.search_method_in_class("log", "Audit");
    assert!(log.text.contains("<class>Cart.Audit</class> <func>log</func>"), "{}", log.text);
    let anonymous = searcher.search_method_in_class("compare", "Cart");
    assert_eq!(anonymous.results.len(), 1, "a method of an anonymous class belongs to the enclosing type");
    let constant_body = searcher.search_method_in_class("total", "Currency");
    assert_eq!(constant_body.results.len(), 2, "{}", constant_body.text);
}

#[test]
fn locate_resolves_java_classes_methods_and_ancestors() {
    use acr_core::locate::{Query, resolve};
    let repo = fixture();
    let index = Index::build(&repo);
    let found = |class: Option<&str>, method: Option<&str>| {
        let r = resolve(&index, &repo, &Query::new(None, class, method), "");
        r.locations.iter().map(|l| format!("{}:{}-{}", l.file, l.start, l.end)).collect::<Vec<_>>()
    };
    assert_eq!(found(Some("Cart"), Some("total")), ["src/main/java/shop/Cart.java:29-36"]);
    assert_eq!(found(Some("Cart.Line"), None), ["src/main/java/shop/Cart.java:55-61"]);
    // `isEmpty` is inherited from `Basket`: the ancestor tier finds it.
    assert_eq!(found(Some("Cart"), Some("isEmpty")), ["src/main/java/shop/Basket.java:6-8"]);
}

#[test]
fn edits_to_java_files_pass_javas_gate_not_pythons() {
    use acr_core::patch::{ExtractOptions, ExtractStatus, extract};
    let repo = fixture();
    let edit = |patched: &str| {
        format!(
            "<file>src/main/java/shop/Cart.java</file>\n<original>\n            total += line.item().priceCents();\n\
             </original>\n<patched>\n{patched}\n</patched>\n"
        )
    };
    let fixed = extract(
        &repo,
        &edit("            total += line.item().priceCents() * line.units();"),
        &ExtractOptions::default(),
    );
    assert_eq!(fixed.status, ExtractStatus::ApplicablePatch, "{}", fixed.reason);
    assert!(fixed.diff.contains("+            total += line.item().priceCents() * line.units();"));
    let broken = extract(
        &repo,
        &edit("            total += line.item().priceCents() * line.units()"),
        &ExtractOptions::default(),
    );
    assert_ne!(broken.status, ExtractStatus::ApplicablePatch, "a missing `;` is refused");
    assert!(broken.reason.contains("';' expected"), "{}", broken.reason);
}

#[test]
fn a_mixed_repository_counts_its_files_per_language() {
    let mut repo = fixture();
    repo.set_file("tools/gen.py", "def main():\n    pass\n".to_string());
    repo.set_file("README.md", "# not source\n".to_string());
    let index = Index::build(&repo);
    let counts = index.files_by_language();
    let java = index.files.iter().filter(|f| f.path.ends_with(".java")).count();
    assert!(java > 1, "the fixture indexes several Java files");
    assert_eq!(counts, [(acr_core::index::Language::Python, 1), (acr_core::index::Language::Java, java)]);
    assert_eq!(counts.iter().map(|(_, n)| n).sum::<usize>(), index.stats().files);
    assert_eq!(index.languages_summary(), format!("Python 1, Java {java}"));
    assert_eq!(Index::build(&Repo::new()).languages_summary(), "none");
}
