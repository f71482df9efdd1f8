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
//!   to `get_powerset`). Told, not disqualified: a script can reach the code in other ways (a command it runs).

use std::collections::BTreeSet;

use crate::index::{DefKind, IndexBuilder};
use crate::issue_names::Place;
use crate::language::Language;
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
}

impl Flaws {
    /// The flaws of `script`, a reproducer in `language` saved as `path`; `places` are where the code the issue
    /// names is defined ([`crate::issue_names::places`]).
    pub fn of(language: Language, path: &str, script: &str, places: &[Place]) -> Flaws {
        let copies = copies(path, script, places);
        // The other two flaws are read from a Python syntax tree, parsed once for both.
        if language != Language::Python {
            return Flaws { copies, ..Flaws::default() };
        }
        let mut parser = language.parser();
        let Some(tree) = language.parse(&mut parser, script) else { return Flaws { copies, ..Flaws::default() } };
        Flaws { copies, never_checks: never_checks(&tree, script), unimported: unimported(&tree, script, places) }
    }

    /// Whether the script cannot count as a reproducer, whatever its run did.
    pub fn disqualify(&self) -> bool {
        !self.copies.is_empty()
    }
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
/// `assert` statement, and no `raise` naming `AssertionError`. Other languages' tests check in many ways (JUnit's
/// assertions), so [`Flaws::of`] asks this of Python alone.
fn never_checks(tree: &Tree, script: &str) -> bool {
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "assert_statement" => return false,
            "raise_statement" if script[node.byte_range()].contains("AssertionError") => return false,
            _ => {}
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
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
        assert!(!check("got = 1\nif got != 2:\n    raise AssertionError(f'got {got}')\n"));
    }
}
