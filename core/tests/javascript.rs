//! JavaScript and TypeScript as the index's third language: the fixture project `tests/fixtures/jsrepo` (an ES
//! module cart with a getter, a setter, a static method, private names, class fields holding arrows, functions in
//! every form people write; TypeScript with an interface, an enum, an abstract class, overloads and a generic arrow;
//! a TSX component; test files by Jest's, Mocha's and Vitest's conventions) indexed, searched, located and edited as
//! Python is, each edit gated by its own language's grammar.

use acr_core::Repo;
use acr_core::index::{Index, Language};
use acr_core::patch::{ExtractOptions, ExtractStatus, extract};
use acr_core::search::Searcher;

mod common;

fn fixture() -> Repo {
    common::fixture("jsrepo")
}

#[test]
fn script_sources_are_indexed_and_tests_left_out() {
    let repo = fixture();
    let index = Index::build(&repo);
    let paths: Vec<&str> = index.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        ["src/basket.js", "src/cart.js", "src/money.ts", "src/view.tsx"],
        "*.test.*, *.spec.*, __tests__/ and test/ hold tests"
    );
    assert!(index.files.iter().all(|f| !f.has_error), "the TSX file parses with the TSX grammar");
    insta::assert_snapshot!("cart_js_definitions", common::definitions(&index, "src/cart.js").join("\n"));
    insta::assert_snapshot!("money_ts_definitions", common::definitions(&index, "src/money.ts").join("\n"));
    insta::assert_snapshot!("view_tsx_definitions", common::definitions(&index, "src/view.tsx").join("\n"));
    let bases = |c: &str| index.class_bases.get(c).map(|b| b.iter().map(|n| n.to_string()).collect::<Vec<_>>());
    assert_eq!(bases("Cart"), Some(vec!["Basket".into()]));
    assert_eq!(bases("Money"), Some(vec!["Priced".into()]));
    assert_eq!(bases("Euros"), Some(vec!["Money".into()]));
    let counts = index.files_by_language();
    assert_eq!(counts, [(Language::JavaScript, 2), (Language::TypeScript, 1), (Language::Tsx, 1)]);
    assert_eq!(
        index.files_per_language_name(),
        [("JavaScript", 2), ("TypeScript", 2)],
        "TypeScript's grammars together"
    );
    assert_eq!(index.languages_summary(), "JavaScript 2, TypeScript 2");
}

/// Classes written as expressions are classes, their methods methods: a mixin's named class (npm's arborist builds its
/// tree this way), a class bound to a name, and the same in TypeScript. A class with neither name is not a definition,
/// and its methods stay functions.
#[test]
fn classes_written_as_expressions_are_classes() {
    let repo = Repo::from_files([
        ("lib/build.js", "module.exports = cls => class Builder extends cls {\n  build() {}\n};\n"),
        (
            "lib/impl.js",
            "var Impl = class extends Base {\n  debug() {}\n};\nconst f = cls => class {\n  loose() {}\n};\n",
        ),
        ("lib/typed.ts", "export const Typed = class implements Shape {\n  area(): number { return 0; }\n};\n"),
    ]);
    let index = Index::build(&repo);
    assert_eq!(common::definitions(&index, "lib/build.js"), ["class Builder 1-3", "method Builder::build 2-2"]);
    assert_eq!(
        common::definitions(&index, "lib/impl.js"),
        ["class Impl 1-3", "method Impl::debug 2-2", "function f 4-6", "function loose 5-5"]
    );
    assert_eq!(common::definitions(&index, "lib/typed.ts"), ["class Typed 1-3", "method Typed::area 2-2"]);
    let bases = |c: &str| index.class_bases.get(c).map(|b| b.iter().map(|n| n.to_string()).collect::<Vec<_>>());
    assert_eq!(bases("Builder"), Some(vec!["cls".into()]));
    assert_eq!(bases("Impl"), Some(vec!["Base".into()]));
    let searcher = Searcher::new(&index, &repo);
    assert!(searcher.search_class("Impl").text.contains("debug() {}"), "{}", searcher.search_class("Impl").text);
}

#[test]
fn a_class_shows_its_shape_and_its_methods_answer_in_every_form() {
    let repo = fixture();
    let index = Index::build(&repo);
    let searcher = Searcher::new(&index, &repo);
    insta::assert_snapshot!("cart_js_signature", searcher.search_class("Cart").text);
    insta::assert_snapshot!("money_ts_signature", searcher.search_class("Money").text);
    for (method, class) in [("total", "Cart"), ("discount", "Cart"), ("#round", "Cart"), ("onChange", "Cart")] {
        let out = searcher.search_method_in_class(method, class);
        assert_eq!(out.results.len(), 1, "{method}: {}", out.text);
    }
    let overloads = searcher.search_method("parse");
    assert_eq!(overloads.results.len(), 3, "two signatures and the implementation: {}", overloads.text);
    for function in ["subtract", "formatCents", "countUp", "describe", "size", "reset", "convert", "Total"] {
        assert!(!searcher.search_method(function).results.is_empty(), "{function}");
    }
    let code = searcher.search_code("sum - this.#discount");
    assert!(code.text.contains("<func>total</func>"), "{}", code.text);
}

#[test]
fn locate_resolves_script_classes_methods_and_ancestors() {
    use acr_core::locate::{Query, resolve};
    let repo = fixture();
    let index = Index::build(&repo);
    let found = |class: Option<&str>, method: Option<&str>| {
        let r = resolve(&index, &repo, &Query::new(None, class, method), "");
        r.locations.iter().map(|l| format!("{}:{}-{}", l.file, l.start, l.end)).collect::<Vec<_>>()
    };
    assert_eq!(found(Some("Cart"), Some("total")), ["src/cart.js:17-23"]);
    // `isEmpty` is inherited from `Basket`: the ancestor tier finds it.
    assert_eq!(found(Some("Cart"), Some("isEmpty")), ["src/basket.js:7-9"]);
    assert_eq!(found(None, Some("subtract")), ["src/cart.js:34-36"]);
}

#[test]
fn edits_to_script_files_pass_their_own_grammar() {
    let repo = fixture();
    let edit = |file: &str, original: &str, patched: &str| {
        format!("<file>{file}</file>\n<original>\n{original}\n</original>\n<patched>\n{patched}\n</patched>\n")
    };
    let options = ExtractOptions::default();
    let fixed = extract(&repo, &edit("src/cart.js", "  return a - b;", "  return a + b;"), &options);
    assert_eq!(fixed.status, ExtractStatus::ApplicablePatch, "{}", fixed.reason);
    assert!(fixed.diff.contains("+  return a + b;"), "{}", fixed.diff);
    let broken = extract(&repo, &edit("src/cart.js", "  return a - b;", "  return (a + b;"), &options);
    assert_ne!(broken.status, ExtractStatus::ApplicablePatch, "an unclosed parenthesis is refused");
    assert!(broken.reason.contains("break the program's syntax"), "{}", broken.reason);
    // A type annotation is TypeScript: refused in a .js file, accepted in a .ts one.
    let typed = extract(
        &repo,
        &edit("src/cart.js", "export function subtract(a, b) {", "export function subtract(a: number, b: number) {"),
        &options,
    );
    assert_ne!(typed.status, ExtractStatus::ApplicablePatch, "{}", typed.diff);
    let ts = extract(
        &repo,
        &edit("src/money.ts", "  const value = Number(text);", "  const value: number = Number(text.trim());"),
        &options,
    );
    assert_eq!(ts.status, ExtractStatus::ApplicablePatch, "{}", ts.reason);
    let tsx = extract(
        &repo,
        &edit(
            "src/view.tsx",
            "  return <span className=\"price\">{money.priceCents()}</span>;",
            "  return <span className=\"price\">{money.priceCents() / 100}</span>;",
        ),
        &options,
    );
    assert_eq!(tsx.status, ExtractStatus::ApplicablePatch, "{}", tsx.reason);
}

#[test]
fn definitions_of_scripts_are_put_in_place_by_name() {
    let repo = fixture();
    let options = ExtractOptions::default();
    // A getter written alone, as a small model writes the method it changed.
    let answer = "The discount is subtracted twice.\n\nsrc/cart.js\n```javascript\n  get total() {\n    let sum = 0;\n    for (const item of this.items) {\n      sum += item.price * item.units;\n    }\n    return sum - this.#discount;\n  }\n```\n";
    let getter = extract(&repo, answer, &options);
    assert_eq!(getter.status, ExtractStatus::ApplicablePatch, "{}", getter.reason);
    assert!(getter.diff.contains("+      sum += item.price * item.units;"), "{}", getter.diff);
    // The same fix followed by a copy of the instructions' JavaScript example: the copy is left out.
    let example = "function name(argument) {\n  the whole body, with your change made\n}";
    let with_example = answer.replace("  }\n```", &format!("  }}\n{example}\n```"));
    assert!(with_example.contains(example));
    let copied = extract(&repo, &with_example, &options);
    assert_eq!(copied.status, ExtractStatus::ApplicablePatch, "{}", copied.reason);
    assert_eq!(copied.diff, getter.diff);
    // An exported arrow bound to a constant, with no path: placed by its unique name.
    let answer = "```js\nexport const formatCents = (cents) => `${(cents / 100).toFixed(2)} €`;\n```\n";
    let arrow = extract(&repo, answer, &options);
    assert_eq!(arrow.status, ExtractStatus::ApplicablePatch, "{}", arrow.reason);
    assert!(
        arrow.diff.contains("+export const formatCents = (cents) => `${(cents / 100).toFixed(2)} €`;"),
        "{}",
        arrow.diff
    );
    assert_eq!(arrow.files.len(), 1);
    // A whole file that leaves code out with a block comment is refused, and the file stays as it was.
    let original = repo.file("src/basket.js").unwrap().to_string();
    let cut = original
        .replace("  isEmpty() {\n    return this.items.length === 0;\n  }\n", "  /* ... existing code ... */\n");
    let answer = format!("src/basket.js\n```javascript\n{cut}```\n");
    let refused = extract(&repo, &answer, &options);
    assert_ne!(refused.status, ExtractStatus::ApplicablePatch, "{}", refused.diff);
    assert_eq!(repo.file("src/basket.js"), Some(original.as_str()));
}
