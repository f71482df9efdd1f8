//! The names a Python script uses but never binds: what would stop it with a `NameError` when the line using one
//! runs. Small models call helpers they were shown but did not paste (`print_stacktrace`), and use modules they did
//! not import (`sys.exit(1)` with no `import sys`), often on the path that runs only when the bug shows.
//!
//! The reading is deliberately one-sided: a name counts as bound at a use when it is bound anywhere in a scope the
//! use can see (the module, or a function or lambda around the use; any binding form: definitions, parameters,
//! assignment and loop targets, `as` targets, imports, `global`, walrus, match patterns, type parameters), whatever
//! the order; class bodies and comprehensions count as part of the scope around them. So a name reported is one no
//! visible scope ever binds: `sys` used at the top of a script that imports it only inside a helper function.
//! Builtins and dunder names (`__name__`, `__file__`) are known. A script that can bind names the tree does not show (a star
//! import, `exec`, `globals()`, writes to `builtins`) or that does not parse gets no answer rather than a wrong one.

use std::collections::HashMap;

use tree_sitter::{Node, Tree};

/// Python 3's builtin names (3.8 to 3.13), which a script uses without binding them.
const BUILTINS: &[&str] = &[
    "ArithmeticError",
    "AssertionError",
    "AttributeError",
    "BaseException",
    "BaseExceptionGroup",
    "BlockingIOError",
    "BrokenPipeError",
    "BufferError",
    "BytesWarning",
    "ChildProcessError",
    "ConnectionAbortedError",
    "ConnectionError",
    "ConnectionRefusedError",
    "ConnectionResetError",
    "DeprecationWarning",
    "EOFError",
    "Ellipsis",
    "EncodingWarning",
    "EnvironmentError",
    "Exception",
    "ExceptionGroup",
    "False",
    "FileExistsError",
    "FileNotFoundError",
    "FloatingPointError",
    "FutureWarning",
    "GeneratorExit",
    "IOError",
    "ImportError",
    "ImportWarning",
    "IndentationError",
    "IndexError",
    "InterruptedError",
    "IsADirectoryError",
    "KeyError",
    "KeyboardInterrupt",
    "LookupError",
    "MemoryError",
    "ModuleNotFoundError",
    "NameError",
    "None",
    "NotADirectoryError",
    "NotImplemented",
    "NotImplementedError",
    "OSError",
    "OverflowError",
    "PendingDeprecationWarning",
    "PermissionError",
    "ProcessLookupError",
    "PythonFinalizationError",
    "RecursionError",
    "ReferenceError",
    "ResourceWarning",
    "RuntimeError",
    "RuntimeWarning",
    "StopAsyncIteration",
    "StopIteration",
    "SyntaxError",
    "SyntaxWarning",
    "SystemError",
    "SystemExit",
    "TabError",
    "TimeoutError",
    "True",
    "TypeError",
    "UnboundLocalError",
    "UnicodeDecodeError",
    "UnicodeEncodeError",
    "UnicodeError",
    "UnicodeTranslateError",
    "UnicodeWarning",
    "UserWarning",
    "ValueError",
    "Warning",
    "WindowsError",
    "ZeroDivisionError",
    "abs",
    "aiter",
    "all",
    "anext",
    "any",
    "ascii",
    "bin",
    "bool",
    "breakpoint",
    "bytearray",
    "bytes",
    "callable",
    "chr",
    "classmethod",
    "compile",
    "complex",
    "copyright",
    "credits",
    "delattr",
    "dict",
    "dir",
    "divmod",
    "enumerate",
    "eval",
    "exec",
    "exit",
    "filter",
    "float",
    "format",
    "frozenset",
    "getattr",
    "globals",
    "hasattr",
    "hash",
    "help",
    "hex",
    "id",
    "input",
    "int",
    "isinstance",
    "issubclass",
    "iter",
    "len",
    "license",
    "list",
    "locals",
    "map",
    "max",
    "memoryview",
    "min",
    "next",
    "object",
    "oct",
    "open",
    "ord",
    "pow",
    "print",
    "property",
    "quit",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "setattr",
    "slice",
    "sorted",
    "staticmethod",
    "str",
    "sum",
    "super",
    "tuple",
    "type",
    "vars",
    "zip",
];

/// Names through which a script can bind names its syntax does not show; a script using one gets no answer.
const DYNAMIC: &[&str] = &["exec", "globals", "vars", "builtins", "__builtins__"];

/// The names `script` (parsed as `tree`) uses where no visible scope binds them, in order of first use, each once;
/// `None` when the script cannot be read with confidence (it does not parse, star-imports, or binds names
/// dynamically).
pub fn free_names(tree: &Tree, script: &str) -> Option<Vec<String>> {
    let root = tree.root_node();
    if root.has_error() {
        return None;
    }
    let mut bound = Bindings::default();
    // The scopes a node sees, innermost last, as chains shared by index: the module's is the first.
    let mut chains: Vec<Vec<usize>> = vec![vec![root.id()]];
    let mut used: Vec<(Node, usize)> = Vec::new();
    // Each node with its chain, and whether an identifier there reads a name (not `x.NAME`, not `f(NAME=...)`).
    let mut stack = vec![(root, 0, true)];
    while let Some((node, chain, reads)) = stack.pop() {
        let text = |n: Node| &script[n.byte_range()];
        let here = *chains[chain].last().expect("a chain holds the module");
        match node.kind() {
            "import_statement" | "import_from_statement" | "future_import_statement" => {
                if !bind_imports(node, script, here, &mut bound) {
                    return None;
                }
                continue;
            }
            "function_definition" | "class_definition" => {
                if let Some(name) = node.child_by_field_name("name") {
                    bound.add(text(name), here);
                }
            }
            // `global` names are the module's.
            "global_statement" => bound.add_all(node, script, root.id()),
            "case_pattern" | "keyword_pattern" | "type_parameter" | "nonlocal_statement" => {
                bound.add_all(node, script, here)
            }
            "assignment" | "augmented_assignment" | "for_statement" | "for_in_clause" | "type_alias_statement" => {
                if let Some(left) = node.child_by_field_name("left") {
                    bound.add_all(left, script, here);
                }
            }
            "as_pattern" | "except_clause" => {
                if let Some(alias) = node.child_by_field_name("alias") {
                    bound.add_all(alias, script, here);
                }
            }
            "named_expression" => {
                if let Some(name) = node.child_by_field_name("name") {
                    bound.add(text(name), here);
                }
            }
            "identifier" if reads => used.push((node, chain)),
            _ => {}
        }
        // A function or lambda opens a scope for what is inside it, its parameters included.
        let inner = if matches!(node.kind(), "function_definition" | "lambda") {
            let mut opened = chains[chain].clone();
            opened.push(node.id());
            chains.push(opened);
            let inner = chains.len() - 1;
            let parameters = node.child_by_field_name("parameters");
            if let Some(parameters) = parameters {
                bound.add_all(parameters, script, node.id());
            }
            inner
        } else {
            chain
        };
        let not_read = match node.kind() {
            "attribute" => node.child_by_field_name("attribute"),
            "keyword_argument" => node.child_by_field_name("name"),
            _ => None,
        };
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            stack.push((child, inner, not_read.is_none_or(|n| n.id() != child.id())));
        }
    }
    if used.iter().any(|(n, _)| DYNAMIC.contains(&&script[n.byte_range()])) {
        return None;
    }
    used.sort_unstable_by_key(|(n, _)| n.start_byte());
    let mut out: Vec<String> = Vec::new();
    for (node, chain) in used {
        let name = &script[node.byte_range()];
        let known = BUILTINS.contains(&name)
            || (name.starts_with("__") && name.ends_with("__"))
            || bound.sees(name, &chains[chain]);
        if !known && !out.iter().any(|n| n == name) {
            out.push(name.to_string());
        }
    }
    Some(out)
}

/// The scopes each name is bound in, by the id of the scope's node (a function, a lambda or the module).
#[derive(Default)]
struct Bindings<'s> {
    scopes: HashMap<&'s str, Vec<usize>>,
}

impl<'s> Bindings<'s> {
    fn add(&mut self, name: &'s str, scope: usize) {
        self.scopes.entry(name).or_default().push(scope);
    }

    /// Binds every identifier under `node` (an over-approximation: `a[i] = x` binds `a` and `i` too).
    fn add_all(&mut self, node: Node, script: &'s str, scope: usize) {
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            if n.kind() == "identifier" {
                self.add(&script[n.byte_range()], scope);
            }
            let mut cursor = n.walk();
            stack.extend(n.children(&mut cursor));
        }
    }

    /// Whether `name` is bound in one of the scopes of `chain` (those a use sees).
    fn sees(&self, name: &str, chain: &[usize]) -> bool {
        self.scopes.get(name).is_some_and(|scopes| scopes.iter().any(|s| chain.contains(s)))
    }
}

/// Binds what an import statement binds: `import a.b` binds `a`, `import a.b as c` and `from a import b as c` bind
/// `c`, `from a import b` binds `b`. `false` for a star import, whose names are unknown.
fn bind_imports<'s>(node: Node, script: &'s str, scope: usize, bound: &mut Bindings<'s>) -> bool {
    let from = node.kind() != "import_statement";
    let mut cursor = node.walk();
    if node.children(&mut cursor).any(|c| c.kind() == "wildcard_import") {
        return false;
    }
    for name in node.children_by_field_name("name", &mut cursor) {
        let binds = if name.kind() == "aliased_import" {
            name.child_by_field_name("alias").map(|a| &script[a.byte_range()])
        } else {
            let dotted = &script[name.byte_range()];
            Some(if from { dotted.rsplit('.').next() } else { dotted.split('.').next() }.unwrap_or(dotted).trim())
        };
        if let Some(name) = binds {
            bound.add(name, scope);
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::{parse, python_parser};

    fn free(script: &str) -> Option<Vec<String>> {
        let tree = parse(&mut python_parser(), script).unwrap();
        free_names(&tree, script)
    }

    #[test]
    fn a_helper_called_but_never_pasted_and_a_module_never_imported_are_free() {
        // As Qwen2.5-Coder-1.5B wrote QuixBugs' lis reproducer.
        let script = "import lis\n\ndef main() -> None:\n    try:\n        got = lis.lis([4, 1, 5, 3, 7, 6, 2])\n        assert got == 3, f\"expected 3, got {got}\"\n    except AssertionError as e:\n        print_stacktrace(e)\n        sys.exit(1)\n\nif __name__ == \"__main__\":\n    main()\n";
        assert_eq!(free(script).unwrap(), ["print_stacktrace", "sys"]);
        // A name a function binds is seen in it and in functions inside it, not beside it or around it.
        let helper = "def show(e):\n    import sys\n    def inner():\n        return sys.argv\n    print(e, file=sys.stderr)\n\ntry:\n    assert 1 == 2\nexcept AssertionError as e:\n    show(e)\n    sys.exit(1)\n";
        assert_eq!(free(helper).unwrap(), ["sys"]);
    }

    #[test]
    fn every_binding_form_binds() {
        let script = r#"
import os.path, json as j
from a.b import c, d as e
from . import rel
def f(p, q=1, *args, r: int = 2, **kw):
    global g
    g = p
    return lambda x, y=q: x + y + r + len(args) + len(kw)
class K(Exception):
    attr: int = 0
    def m(self):
        return self.attr
for i, (k2, v) in enumerate({}.items()):
    pass
with open(os.path.join("a")) as fh, open("b") as (h1):
    pass
try:
    pass
except (KeyError, ValueError) as err:
    print(err)
if (n := 3) > 2:
    print([w for w in range(n) if w], {z: 1 for z in ()})
match j.loads("1"):
    case {"k": [first, *rest]} | K(attr=first, *rest):
        print(first, rest)
    case str() as s:
        print(s)
x, *ys = 1, 2
x += 1
a_list = [0]
a_list[0] = c(d=e, f=rel)
print(K().m(), f(1), x, ys, i, k2, v, fh, h1, __name__, __file__, g, a_list)
"#;
        assert_eq!(free(script).unwrap(), Vec::<String>::new());
    }

    #[test]
    fn scripts_that_can_bind_unseen_names_or_do_not_parse_get_no_answer() {
        assert_eq!(free("from os import *\nprint(path)\n"), None);
        assert_eq!(free("exec('x = 1')\nprint(x)\n"), None);
        assert_eq!(free("globals()['x'] = 1\nprint(x)\n"), None);
        assert_eq!(free("def f(:\n    pass\n"), None);
        assert_eq!(free("print(undefined_thing)\n").unwrap(), ["undefined_thing"]);
    }

    /// Against real code: CPython's own standard library (the modules at its top level, found through `python3`).
    /// A module flagged must use a name it never binds; the one known exception is `ssl`, whose enum members are
    /// put into its globals by `_convert_` at import.
    #[test]
    fn cpythons_standard_library_uses_no_name_it_does_not_bind() {
        let Ok(out) = std::process::Command::new("python3")
            .args(["-c", "import os; print(os.path.dirname(os.__file__))"])
            .output()
        else {
            eprintln!("skipped: no python3");
            return;
        };
        let dir = String::from_utf8_lossy(&out.stdout).trim().to_string();
        let mut parser = python_parser();
        let (mut read, mut flagged) = (0, Vec::new());
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            let Some(name) = path.file_name().and_then(|n| n.to_str()).filter(|n| n.ends_with(".py")) else {
                continue;
            };
            let Ok(text) = std::fs::read_to_string(&path) else { continue };
            let tree = parse(&mut parser, &text).unwrap();
            if let Some(free) = free_names(&tree, &text) {
                read += 1;
                if !free.is_empty() && name != "ssl.py" {
                    flagged.push(format!("{name}: {free:?}"));
                }
            }
        }
        assert!(read >= 50, "read {read} modules of {dir}");
        assert!(flagged.is_empty(), "{flagged:#?}");
    }
}
