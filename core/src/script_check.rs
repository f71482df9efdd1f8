//! What is wrong with a reproducer script, read from its text: a run says only that it did not show the bug, and a
//! small model told just that writes the same script again (Qwen2.5-Coder-1.5B did, three times over, on most of
//! QuixBugs' programs). Two flaws are named to it:
//!
//! - the script **copies** the code it is about: it defines a function or class the issue names instead of
//!   importing it, so it tests its own copy. Such a script never counts as a reproducer, whatever its run did;
//! - the script **never checks** a result (Python: no `assert` statement and no `AssertionError` raised), so it
//!   cannot fail the way a reproducer must;
//! - the script **imports nothing** from the modules that define the code the issue names (Python): it tests
//!   something else, often a renamed copy (Qwen2.5-Coder-1.5B answered a copy's feedback by renaming `powerset`
//!   to `get_powerset`). Told, not disqualified: a script can reach the code in other ways (a command it runs);
//! - the script **uses names it never binds** (Python: [`crate::python::free_names`]), so it stops with a
//!   `NameError` where one is used. Told, not disqualified: a script whose `NameError` comes only after its
//!   assertion failed still reproduces (ACR's rule), and still validates a patch.
//!
//! Where only one thing can be meant, the flaw is mended instead ([`mended`]): a script that calls the helper the
//! request showed (Python's `print_stacktrace`) without pasting it gets the helper's definition, and one that uses
//! a standard-library module it never imported (`sys.exit(1)`) gets the import, and one that imports the module of
//! the issue's function whole and calls the module (`import rpn_eval`, then `rpn_eval(tokens)`) imports the function,
//! and one that imports the helper from the issue's module (`from lis import lis, print_stacktrace`) imports only the
//! rest and gets the helper's definition, and one that defines pytest-style test functions and never calls them
//! gets the calls. Qwen2.5-Coder-1.5B left both out
//! more often than not; the `NameError` they raise in the handler of the `AssertionError` put a second trace after
//! the first, and the search then blamed the script (QuixBugs' lis: "`print_stacktrace` is not defined").

use std::collections::BTreeSet;

use crate::index::{DefKind, IndexBuilder};
use crate::issue_names::Place;
use crate::language::Language;
use crate::python::free_names::free_names;
use tree_sitter::Tree;

/// The flaws of one reproducer script.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Flaws {
    /// Names of the repository's code that the script defines itself instead of importing.
    pub copies: Vec<String>,
    /// The script has no check that could fail: no `assert` and no `AssertionError` raised (Python only).
    pub never_checks: bool,
    /// The Python modules that define the code the issue names, when the script imports none of them (empty when
    /// it imports one, or when no place is in a Python module).
    pub unimported: Vec<String>,
    /// Names the script uses but never defines, assigns or imports (Python only), in order of first use.
    pub undefined: Vec<String>,
}

impl Flaws {
    /// The flaws of `script`, a reproducer in `language` saved as `path`; `places` are where the code the issue
    /// names is defined ([`crate::issue_names::places`]).
    pub fn of(language: Language, path: &str, script: &str, places: &[Place]) -> Flaws {
        let copies = copies(path, script, places);
        // The other flaws are read from a Python syntax tree, parsed once for all three.
        if language != Language::Python {
            return Flaws { copies, ..Flaws::default() };
        }
        let mut parser = language.parser();
        let Some(tree) = language.parse(&mut parser, script) else { return Flaws { copies, ..Flaws::default() } };
        Flaws {
            copies,
            never_checks: never_checks(&tree, script),
            unimported: unimported(&tree, script, places),
            undefined: free_names(&tree, script).unwrap_or_default(),
        }
    }

    /// Why the script cannot count as a reproducer, whatever its run did, for the transcript; `None` when it can.
    pub fn why_disqualified(&self) -> Option<String> {
        (!self.copies.is_empty()).then(|| {
            format!(
                "the reproducer defines `{}` itself instead of importing it: it tests its own copy, and does not count",
                self.copies.join("`, `")
            )
        })
    }
}

/// Standard-library modules a script may use without importing them (`sys.exit(1)`), each mended by adding
/// `import NAME`: nothing else can be meant by a name that is never bound and is the name of one of these.
const STANDARD_MODULES: &[&str] = &[
    "argparse",
    "bisect",
    "collections",
    "contextlib",
    "copy",
    "dataclasses",
    "datetime",
    "decimal",
    "doctest",
    "fractions",
    "functools",
    "heapq",
    "inspect",
    "io",
    "itertools",
    "json",
    "math",
    "operator",
    "os",
    "pathlib",
    "pprint",
    "random",
    "re",
    "string",
    "subprocess",
    "sys",
    "tempfile",
    "textwrap",
    "time",
    "traceback",
    "typing",
    "unittest",
];

/// What [`mended`] added to a script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mended {
    /// The script with the additions.
    pub script: String,
    /// What was added, in words for the transcript.
    pub added: Vec<String>,
}

/// `script` (a reproducer in `language`) mended where only one thing can be meant (see the module's account):
/// `import NAME` added for a module of a short list of the standard library's, the definition of its row's helper
/// added (and the helper no longer imported from a module of `places`, which does not define it), and a module of
/// `places` imported whole and then called as the function of its name (`import rpn_eval`, then `rpn_eval(tokens)`:
/// "'module' object is not callable") imported as that function. `None` when nothing changes. The additions go after the script's leading comments, docstring and `from __future__` imports, which
/// must stay first.
pub fn mended(language: Language, script: &str, places: &[Place]) -> Option<Mended> {
    if language != Language::Python {
        return None;
    }
    let helper = language.row().reproducer.helper.as_ref().map(|h| h.name);
    let mut parser = language.parser();
    let mut script = script.to_string();
    let mut added = Vec::new();
    // The script's own lines first, each rewrite read from a fresh parse; then what the script never binds.
    let module_called = |tree: &Tree, text: &str| module_called(tree, text, places);
    let helper_imported = |tree: &Tree, text: &str| helper.and_then(|name| helper_imported(tree, text, places, name));
    let rewrites: [&Rewrite<'_>; 4] =
        [&module_called, &helper_imported, &failure_after_its_assertion, &tests_never_called];
    for rewrite in rewrites {
        let tree = language.parse(&mut parser, &script)?;
        if let Some((text, said)) = rewrite(&tree, &script) {
            script = text;
            added.push(said);
        }
    }
    let tree = language.parse(&mut parser, &script)?;
    if let Some(more) = with_unbound(language, &script, &tree) {
        script = more.script;
        added.extend(more.added);
    }
    (!added.is_empty()).then_some(Mended { script, added })
}

/// A Python script that raises `AssertionError` unconditionally right after an `assert`, in the same block
/// (`assert result == -1`, then `raise AssertionError("The issue is present")`): it fails whether the assertion holds
/// or not, so no patch could ever pass it. The script without that `raise` (its whole lines), and the change in
/// words. Qwen2.5-Coder-1.5B's find_in_sorted reproducer was so, and failed on every patch, the right one included.
fn failure_after_its_assertion(tree: &Tree, script: &str) -> Option<(String, String)> {
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        let mut cursor = node.walk();
        let children: Vec<_> = node.named_children(&mut cursor).filter(|c| c.kind() != "comment").collect();
        for pair in children.windows(2) {
            let [assert, raise] = pair else { continue };
            if assert.kind() == "assert_statement"
                && raise.kind() == "raise_statement"
                && script[raise.byte_range()].contains("AssertionError")
            {
                let start = script[..raise.start_byte()].rfind('\n').map_or(0, |i| i + 1);
                let end = script[raise.end_byte()..].find('\n').map_or(script.len(), |i| raise.end_byte() + i + 1);
                let text = format!("{}{}", &script[..start], &script[end..]);
                let line = raise.start_position().row + 1;
                let said = format!(
                    "the `raise AssertionError` right after the `assert` removed (line {line}: it failed the script \
                     even when the assertion held)"
                );
                return Some((text, said));
            }
        }
        stack.extend(children);
    }
    None
}

/// A Python script that defines test functions at its top level (`def test_...():`, taking nothing), as for pytest,
/// and calls none of them, nor runs unittest or pytest: run as a script it checks nothing and exits 0. The script
/// with calls to them, in their order, added at its end under `if __name__ == "__main__":`, and the change in words.
/// Qwen2.5-Coder-1.5B wrote its find_in_sorted reproducers so, twice in a row, each told only that it exited 0.
fn tests_never_called(tree: &Tree, script: &str) -> Option<(String, String)> {
    if script.contains("unittest") || script.contains("pytest.main") {
        return None;
    }
    let root = tree.root_node();
    let mut cursor = root.walk();
    let definitions = root.named_children(&mut cursor).filter_map(|node| match node.kind() {
        "function_definition" => Some(node),
        "decorated_definition" => node.child_by_field_name("definition"),
        _ => None,
    });
    let mut tests = Vec::new();
    for definition in definitions {
        let name = definition.child_by_field_name("name").and_then(|n| n.utf8_text(script.as_bytes()).ok());
        let takes_nothing = definition.child_by_field_name("parameters").is_some_and(|p| p.named_child_count() == 0);
        if let Some(name) = name.filter(|n| n.starts_with("test")) {
            if !takes_nothing {
                return None;
            }
            tests.push(name);
        }
    }
    let called = |name: &str| {
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            let function = node.child_by_field_name("function").and_then(|f| f.utf8_text(script.as_bytes()).ok());
            if node.kind() == "call" && function == Some(name) {
                return true;
            }
            let mut cursor = node.walk();
            stack.extend(node.named_children(&mut cursor));
        }
        false
    };
    if tests.is_empty() || tests.iter().any(|name| called(name)) {
        return None;
    }
    let calls: String = tests.iter().map(|name| format!("    {name}()\n")).collect();
    let end = if script.ends_with('\n') { "" } else { "\n" };
    let text = format!("{script}{end}\nif __name__ == \"__main__\":\n{calls}");
    let named: Vec<String> = tests.iter().map(|name| format!("`{name}()`")).collect();
    let said = format!(
        "calls to its test functions added at its end ({}: it defined them and never called them)",
        named.join(", ")
    );
    Some((text, said))
}

/// A rewrite of a script's own lines, read from its tree: the new text and the change in words, or `None`.
type Rewrite<'p> = dyn Fn(&Tree, &str) -> Option<(String, String)> + 'p;

/// A Python script that imports the row's helper (`helper`, shown in the request to be pasted) from a module of
/// `places`, which does not define it (`from lis import lis, print_stacktrace`: an `ImportError` before anything
/// runs): the script with the helper left out of that import (the whole statement when it was the only name; its
/// definition is then added as for any script that uses it unbound), and the change in words. Qwen2.5-Coder-1.5B
/// wrote all three of its reproducers for QuixBugs' lis so.
fn helper_imported(tree: &Tree, script: &str, places: &[Place], helper: &str) -> Option<(String, String)> {
    let modules: BTreeSet<String> = places.iter().filter_map(Place::python_module).collect();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        let mut cursor = node.walk();
        if node.kind() != "import_from_statement" {
            stack.extend(node.children(&mut cursor));
            continue;
        }
        let Some(module) = node.child_by_field_name("module_name").map(|m| &script[m.byte_range()]) else { continue };
        if !modules.contains(module) {
            continue;
        }
        let names: Vec<&str> =
            node.children_by_field_name("name", &mut cursor).map(|n| &script[n.byte_range()]).collect();
        if !names.contains(&helper) {
            continue;
        }
        let kept: Vec<&str> = names.into_iter().filter(|n| *n != helper).collect();
        let line = if kept.is_empty() { String::new() } else { format!("from {module} import {}", kept.join(", ")) };
        let said =
            format!("`{helper}` left out of the import from `{module}` (the request's helper, not the module's)");
        let range = node.byte_range();
        return Some((format!("{}{line}{}", &script[..range.start], &script[range.end..]), said));
    }
    None
}

/// A Python script that imports a module of `places` whole (`import rpn_eval`), never reads an attribute of it, and
/// calls it as the function of its name, which the module defines: the script with that import made `from rpn_eval
/// import rpn_eval`, and the change in words. Qwen2.5-Coder-1.5B wrote such a script for QuixBugs' rpn_eval, whose
/// run ended in a `TypeError` instead of its assertion.
fn module_called(tree: &Tree, script: &str, places: &[Place]) -> Option<(String, String)> {
    let defined: BTreeSet<(String, &str)> =
        places.iter().filter_map(|p| Some((p.python_module()?, p.importable_name()))).collect();
    let mut imports = Vec::new();
    let (mut called, mut attributes) = (BTreeSet::new(), BTreeSet::new());
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "import_statement" => {
                let mut cursor = node.walk();
                let names: Vec<_> = node.children_by_field_name("name", &mut cursor).collect();
                if let [name] = names.as_slice()
                    && name.kind() == "dotted_name"
                    && name.named_child_count() == 1
                {
                    imports.push((node.byte_range(), &script[name.byte_range()]));
                }
            }
            "call" => {
                called.extend(
                    node.child_by_field_name("function")
                        .filter(|f| f.kind() == "identifier")
                        .map(|f| &script[f.byte_range()]),
                );
            }
            "attribute" => {
                attributes.extend(
                    node.child_by_field_name("object")
                        .filter(|o| o.kind() == "identifier")
                        .map(|o| &script[o.byte_range()]),
                );
            }
            _ => {}
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    let (range, module) = imports
        .into_iter()
        .find(|(_, m)| called.contains(m) && !attributes.contains(m) && defined.contains(&(m.to_string(), *m)))?;
    let line = format!("from {module} import {module}");
    let fixed = format!("`{line}` for `import {module}` (the module was called as its function)");
    Some((format!("{}{line}{}", &script[..range.start], &script[range.end..]), fixed))
}

/// `script` (parsed as `tree`) with what it uses but never binds added: standard modules and the row's helper.
fn with_unbound(language: Language, script: &str, tree: &Tree) -> Option<Mended> {
    let helper = language.row().reproducer.helper.as_ref();
    let free = free_names(tree, script)?;
    let modules: Vec<&str> = free.iter().map(String::as_str).filter(|n| STANDARD_MODULES.contains(n)).collect();
    let helper = helper.filter(|h| free.iter().any(|n| n == h.name));
    if modules.is_empty() && helper.is_none() {
        return None;
    }
    let root = tree.root_node();
    let mut cursor = root.walk();
    let (mut at, mut statements) = (0, 0);
    for child in root.children(&mut cursor) {
        let leading = match child.kind() {
            "comment" => true,
            "future_import_statement" => true,
            // The module's docstring: a string as its first statement.
            "expression_statement" => statements == 0 && child.named_child(0).is_some_and(|n| n.kind() == "string"),
            _ => false,
        };
        if !leading {
            break;
        }
        statements += usize::from(child.kind() != "comment");
        at = child.end_byte();
    }
    let (head, rest) = script.split_at(at);
    let mut out = if head.is_empty() { String::new() } else { format!("{}\n\n", head.trim_end()) };
    let mut added = Vec::new();
    for module in &modules {
        out.push_str(&format!("import {module}\n"));
        added.push(format!("`import {module}`"));
    }
    if let Some(helper) = helper {
        if !modules.is_empty() {
            out.push('\n');
        }
        out.push_str(&format!("{}\n\n", helper.definition));
        added.push(format!("the definition of `{}` the request gave", helper.name));
    }
    out.push('\n');
    out.push_str(rest.trim_start_matches(['\n', '\r']));
    Some(Mended { script: out, added })
}

/// The names of `places` that a script (saved as `path`) defines itself, as a function or a class: a reproducer that
/// does so tests its own copy of the code, not the repository's (Qwen2.5-Coder-1.5B pasted QuixBugs' `powerset`
/// into every reproducer it wrote, though asked to import it). A method's place counts by its class.
fn copies(path: &str, script: &str, places: &[Place]) -> Vec<String> {
    let owners: BTreeSet<&str> = places.iter().map(Place::importable_name).collect();
    let parsed = IndexBuilder::new().parse(path, script);
    let mut out: Vec<String> = Vec::new();
    for def in &parsed.entry.defs {
        let shadows = matches!(def.kind, DefKind::Class | DefKind::Function) && def.class.is_none();
        if shadows && owners.contains(&*def.name) && !out.iter().any(|n| **n == *def.name) {
            out.push(def.name.to_string());
        }
    }
    out
}

/// The modules of `places` when a Python script (`tree`, parsed from `script`) imports none of them, nor a package
/// holding one, nor a module inside one; empty otherwise. Relative imports are not read (a reproducer runs from the
/// repository's root).
fn unimported(tree: &Tree, script: &str, places: &[Place]) -> Vec<String> {
    let modules: BTreeSet<String> = places.iter().filter_map(Place::python_module).collect();
    if modules.is_empty() {
        return Vec::new();
    }
    let mut imported: Vec<&str> = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "import_from_statement" => {
                imported.extend(node.child_by_field_name("module_name").map(|m| &script[m.byte_range()]))
            }
            "import_statement" => {
                let mut cursor = node.walk();
                for name in node.children_by_field_name("name", &mut cursor) {
                    let dotted =
                        if name.kind() == "aliased_import" { name.child_by_field_name("name") } else { Some(name) };
                    imported.extend(dotted.map(|d| &script[d.byte_range()]));
                }
            }
            _ => {
                let mut cursor = node.walk();
                stack.extend(node.children(&mut cursor));
            }
        }
    }
    let related = |a: &str, b: &str| a == b || a.strip_prefix(b).is_some_and(|rest| rest.starts_with('.'));
    let reaches = |m: &str| imported.iter().any(|i| related(m, i) || related(i, m));
    if modules.iter().any(|m| reaches(m)) {
        return Vec::new();
    }
    modules.into_iter().collect()
}

/// Whether a Python script (`tree`, parsed from `script`) has nothing that could raise an `AssertionError`: no
/// `assert` statement, and no `raise` naming `AssertionError` outside a handler of `AssertionError` (one inside only
/// passes on an assertion something else raised: Qwen2.5-Coder-1.5B wrapped a bare call in `try`, re-raised
/// `AssertionError` from `except AssertionError`, and so compared nothing). Other languages' tests check in many
/// ways (JUnit's assertions), so [`Flaws::of`] asks this of Python alone.
fn never_checks(tree: &Tree, script: &str) -> bool {
    let mut stack = vec![(tree.root_node(), false)];
    while let Some((node, in_handler)) = stack.pop() {
        let text = &script[node.byte_range()];
        let in_handler = in_handler
            || (node.kind() == "except_clause"
                && node
                    .child_by_field_name("value")
                    .is_some_and(|caught| script[caught.byte_range()].contains("AssertionError")));
        match node.kind() {
            "assert_statement" => return false,
            "raise_statement" if !in_handler && text.contains("AssertionError") => return false,
            _ => {}
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor).map(|c| (c, in_handler)));
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::issue_names::places;
    use crate::issue_names::tests::index;

    /// The places of an issue naming `powerset` (in `powerset.py`) and `Cart.total` (in `cart_file`).
    fn powerset_and_cart(cart_file: &str) -> Vec<Place> {
        let idx = index(&[
            ("powerset.py", "def powerset(arr):\n    return [[]]\n"),
            (cart_file, "class Cart:\n    def total(self):\n        return 0\n"),
        ]);
        places("`powerset([1])` and `Cart().total()` are wrong", &idx)
    }

    #[test]
    fn test_functions_never_called_are_called_at_the_end() {
        let pytest_style = "from find_in_sorted import find_in_sorted\n\ndef test_find_in_sorted():\n    \
                            assert find_in_sorted([1, 2, 3, 4, 6, 7, 8], 5) == -1\n\ndef test_example():\n    \
                            assert find_in_sorted([3, 4, 5], 5) == 2\n";
        let mended = mended(Language::Python, pytest_style, &[]).expect("tests to call");
        assert!(
            mended.script.ends_with("\nif __name__ == \"__main__\":\n    test_find_in_sorted()\n    test_example()\n")
        );
        assert_eq!(mended.added.len(), 1);
        assert!(mended.added[0].contains("`test_find_in_sorted()`, `test_example()`"), "{:?}", mended.added);
        // Called already, run by unittest, or taking a fixture: left as it is.
        for kept in [
            format!("{pytest_style}\ntest_find_in_sorted()\n"),
            format!("import unittest\n{pytest_style}"),
            pytest_style.replace("def test_example()", "def test_example(tmp_path)"),
        ] {
            assert!(tests_never_called(&parse(&kept), &kept).is_none(), "{kept}");
        }
    }

    fn parse(script: &str) -> Tree {
        let mut parser = Language::Python.parser();
        Language::Python.parse(&mut parser, script).expect("a parse")
    }

    #[test]
    fn a_script_that_defines_the_code_it_should_import_copies_it() {
        let found = powerset_and_cart("shop.py");
        let pasted = "import sys\n\ndef powerset(arr):\n    return []\n\nclass Cart:\n    pass\n\ndef check():\n    assert powerset([1]) == [[], [1]]\n";
        assert_eq!(copies("reproducer.py", pasted, &found), ["powerset", "Cart"]);
        let imported = "from powerset import powerset\nfrom shop import Cart\n\nclass Test:\n    def powerset(self):\n        assert powerset([1]) == [[], [1]]\n";
        assert!(copies("reproducer.py", imported, &found).is_empty());
    }

    #[test]
    fn a_script_that_imports_none_of_the_issues_modules_is_told_so() {
        let found = powerset_and_cart("shop/cart.py");
        let check = |script: &str| Flaws::of(Language::Python, "reproducer.py", script, &found).unimported;
        // A renamed copy, as Qwen2.5-Coder-1.5B wrote it once told not to define `powerset`.
        let renamed =
            "import sys\n\ndef get_powerset(arr):\n    return [[]]\n\nassert get_powerset([1]) == [[], [1]]\n";
        assert_eq!(check(renamed), ["powerset", "shop.cart"]);
        for reaches in [
            "from powerset import powerset\nassert powerset([1]) == [[], [1]]\n",
            "import shop.cart as c\nassert c.Cart().total() == 1\n",
            "from shop import cart\n",
            "import os, shop\n",
            "def main():\n    from shop.cart import Cart\n",
        ] {
            assert!(check(reaches).is_empty(), "{reaches}");
        }
        assert!(check("import shopping\nfrom powersets import x\n").len() == 2);
        // Nothing to say for a file that is no Python module.
        let java = index(&[("src/Cart.java", "class Cart { int total() { return 0; } }\n")]);
        assert!(
            Flaws::of(Language::Python, "reproducer.py", renamed, &places("`Cart` is wrong", &java))
                .unimported
                .is_empty()
        );
    }

    #[test]
    fn a_script_without_an_assert_never_checks() {
        let check = |script: &str| Flaws::of(Language::Python, "reproducer.py", script, &[]).never_checks;
        assert!(check(
            "from to_base import to_base\ntry:\n    to_base(31, 16)\nexcept AssertionError as e:\n    print(e)\n"
        ));
        assert!(!check("from to_base import to_base\nassert to_base(31, 16) == '1F'\n"));
        // Re-raised from a handler of AssertionError, with nothing in the `try` that asserts: no check.
        let reraised = "from lis import lis\ntry:\n    lis([4, 1])\nexcept AssertionError as e:\n    raise AssertionError('bug')\n";
        assert!(check(reraised));
        assert!(!check(&reraised.replace("    lis([4, 1])", "    assert lis([4, 1]) == 1")));
        // Raised from a handler of the error the issue is about: a check.
        assert!(!check(
            "from lis import lis\ntry:\n    lis([])\nexcept ValueError as e:\n    raise AssertionError(e)\n"
        ));
        assert!(!check("got = 1\nif got != 2:\n    raise AssertionError(f'got {got}')\n"));
    }

    #[test]
    fn a_script_using_names_it_never_binds_is_told_them() {
        let flaws = |script: &str| Flaws::of(Language::Python, "reproducer.py", script, &[]);
        let broken = "import lis\ntry:\n    assert lis.lis([4, 1]) == 1\nexcept AssertionError as e:\n    report(e)\n";
        assert_eq!(flaws(broken).undefined, ["report"]);
        assert_eq!(flaws(broken).why_disqualified(), None, "told, not disqualified");
        assert!(flaws(&format!("from checks import report\n{broken}")).undefined.is_empty());
    }

    #[test]
    fn the_helper_and_standard_modules_used_but_not_there_are_added_after_what_must_stay_first() {
        let calls = "from __future__ import annotations\nimport lis\n\ntry:\n    assert lis.lis([1]) == 1\nexcept AssertionError as e:\n    print_stacktrace(e)\n    sys.exit(1)\n";
        let done = mended(Language::Python, calls, &[]).unwrap();
        assert!(
            done.script.starts_with("from __future__ import annotations\n\nimport sys\n\ndef print_stacktrace("),
            "{}",
            done.script
        );
        assert!(done.script.ends_with(&calls["from __future__ import annotations\n".len()..]), "{}", done.script);
        assert_eq!(done.added, ["`import sys`", "the definition of `print_stacktrace` the request gave"]);
        assert!(Flaws::of(Language::Python, "reproducer.py", &done.script, &[]).undefined.is_empty());
        // Its docstring stays first too; a script that binds them, or never uses them, is left alone.
        let documented =
            mended(Language::Python, "\"\"\"Shows the bug.\"\"\"\nprint_stacktrace(ValueError())\n", &[]).unwrap();
        assert!(
            documented.script.starts_with("\"\"\"Shows the bug.\"\"\"\n\ndef print_stacktrace("),
            "{}",
            documented.script
        );
        assert_eq!(mended(Language::Python, &done.script, &[]), None);
        assert_eq!(mended(Language::Python, "assert 1 == 2\n", &[]), None);
        // A name that is no standard module is not guessed at.
        assert_eq!(mended(Language::Python, "numpy.zeros(3)\n", &[]), None);
        #[cfg(feature = "java")]
        assert_eq!(mended(Language::Java, "class T { void t() { print_stacktrace(e); } }", &[]), None);
    }

    /// Qwen2.5-Coder-1.5B's rpn_eval reproducer imported the module and called it: the import becomes the
    /// function's (with the helper it left out added too). A script that reads the module's attributes, or a module
    /// that does not define a function of its name, is left alone.
    #[test]
    fn a_module_imported_and_called_as_its_function_is_imported_as_the_function() {
        let idx = index(&[("rpn_eval.py", "def rpn_eval(tokens):\n    return 0.0\n")]);
        let places = places("`rpn_eval([3.0, 5.0, '+'])` is wrong", &idx);
        let script = "import rpn_eval\n\ndef reproduce_issue():\n    try:\n        got = rpn_eval([3.0, 5.0, '+'])\n        assert got == 8.0\n    except AssertionError as e:\n        print_stacktrace(e)\n        raise\n\nreproduce_issue()\n";
        let done = mended(Language::Python, script, &places).unwrap();
        assert!(done.script.contains("from rpn_eval import rpn_eval\n\ndef reproduce_issue"), "{}", done.script);
        assert!(!done.script.contains("\nimport rpn_eval"), "{}", done.script);
        assert_eq!(
            done.added[0],
            "`from rpn_eval import rpn_eval` for `import rpn_eval` (the module was called as its function)"
        );
        assert_eq!(done.added.len(), 2, "the helper too: {:?}", done.added);
        let attribute = script.replace("got = rpn_eval(", "got = rpn_eval.rpn_eval(");
        assert!(mended(Language::Python, &attribute, &places).is_none_or(|m| m.script.contains("import rpn_eval\n")));
        assert!(mended(Language::Python, script, &[]).is_none_or(|m| !m.script.contains("from rpn_eval")));
    }

    /// Qwen2.5-Coder-1.5B's three lis reproducers imported the helper from the module under test, which stopped them
    /// with an `ImportError` before the call: the helper leaves the import and its definition is added. An import
    /// of the helper from elsewhere (a module of the script's own) is left alone.
    #[test]
    fn the_helper_imported_from_the_issues_module_is_defined_instead() {
        let idx = index(&[("lis.py", "def lis(arr):\n    return 0\n")]);
        let places = places("`lis([4, 1, 5])` returns 2", &idx);
        let script = "import sys\nfrom lis import lis, print_stacktrace\n\ntry:\n    assert lis([4, 1, 5]) == 2\nexcept AssertionError as e:\n    print_stacktrace(e)\n    sys.exit(1)\n";
        let done = mended(Language::Python, script, &places).unwrap();
        assert!(done.script.contains("\nfrom lis import lis\n"), "{}", done.script);
        assert!(done.script.contains("def print_stacktrace("), "{}", done.script);
        assert_eq!(
            done.added,
            [
                "`print_stacktrace` left out of the import from `lis` (the request's helper, not the module's)",
                "the definition of `print_stacktrace` the request gave"
            ]
        );
        assert!(Flaws::of(Language::Python, "reproducer.py", &done.script, &places).undefined.is_empty());
        // The only name imported: the statement goes.
        let alone = script
            .replace("from lis import lis, print_stacktrace", "from lis import print_stacktrace\nfrom lis import lis");
        let done = mended(Language::Python, &alone, &places).unwrap();
        assert!(!done.script.contains("import print_stacktrace"), "{}", done.script);
        assert!(done.script.contains("\nfrom lis import lis\n"), "{}", done.script);
        // From a module the issue does not name: left alone.
        let elsewhere = script.replace(
            "from lis import lis, print_stacktrace",
            "from lis import lis\nfrom helpers import print_stacktrace",
        );
        assert_eq!(mended(Language::Python, &elsewhere, &places), None);
    }

    /// Qwen2.5-Coder-1.5B's find_in_sorted reproducer raised `AssertionError` right after its assertion, so it
    /// failed on every patch: the `raise` goes. One that raises only when a check fails is left alone.
    #[test]
    fn a_failure_raised_whatever_the_assertion_says_is_removed() {
        let script = "from find_in_sorted import find_in_sorted\n\ndef reproduce_issue():\n    try:\n        result = find_in_sorted([1, 2, 4], 3)\n        assert result == -1, f\"Expected -1 but got {result}\"\n        raise AssertionError(\"The issue is present. This test should fail.\")\n    except Exception as e:\n        print_stacktrace(e)\n        exit(1)\n\nif __name__ == \"__main__\":\n    reproduce_issue()\n";
        let done = mended(Language::Python, script, &[]).unwrap();
        assert!(!done.script.contains("The issue is present"), "{}", done.script);
        assert!(
            done.script.contains(
                "        assert result == -1, f\"Expected -1 but got {result}\"\n    except Exception as e:\n"
            )
        );
        assert!(
            done.added[0].starts_with("the `raise AssertionError` right after the `assert` removed (line 7"),
            "{:?}",
            done.added
        );
        let conditional = script
            .replace("        raise AssertionError(", "        if result != -1:\n            raise AssertionError(");
        assert!(mended(Language::Python, &conditional, &[]).is_none_or(|m| m.script.contains("The issue is present")));
    }
}
