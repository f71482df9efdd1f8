//! Where a JavaScript module names the modules it loads, with the `js` feature: the string of every static
//! `import ... from '...'` and `export ... from '...'`, every `import('...')` written with a plain string, and every
//! `require('...')` call, with its place in the source. A runner that cannot resolve modules itself (the playground's
//! tab, which loads each module from a URL of its own) rewrites them there.

use std::ops::Range;

use crate::grammar::parser;

/// How a module is named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpecifierKind {
    /// `import ... from '...'`, `import '...'` or `export ... from '...'`.
    Static,
    /// `import('...')`.
    Dynamic,
    /// `require('...')`.
    Require,
}

/// One module named by a source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleSpecifier {
    /// The specifier as written between the quotes.
    pub text: String,
    /// Its bytes in the source, quotes left out.
    pub range: Range<usize>,
    /// How it is named.
    pub kind: SpecifierKind,
}

/// The path a relative `specifier` names from the folder `dir` (both relative to the repository's root), `.` and `..`
/// worked out; `None` when it leaves the root or names the root itself.
pub fn join(dir: &str, specifier: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for part in specifier.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// The folder of a path relative to the repository's root (`""` at the root).
pub fn folder(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// Every module `source` names, in the order they appear. A specifier with an escape sequence, or a dynamic import
/// or `require` of anything but one plain string, names no module that can be known before the code runs, and is
/// left out.
pub fn module_specifiers(source: &str) -> Vec<ModuleSpecifier> {
    let Some(tree) = parser(tree_sitter_javascript::LANGUAGE.into()).parse(source, None) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let mut cursor = tree.walk();
    'walk: loop {
        let node = cursor.node();
        if let Some(specifier) = named_at(node, source) {
            found.push(specifier);
        }
        if cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    found
}

/// The module `node` names, if it is an import, a re-export, a dynamic import or a `require`.
fn named_at(node: tree_sitter::Node, source: &str) -> Option<ModuleSpecifier> {
    match node.kind() {
        "import_statement" | "export_statement" => {
            plain_string(node.child_by_field_name("source")?, source, SpecifierKind::Static)
        }
        "call_expression" => {
            let function = node.child_by_field_name("function")?;
            let kind = match function.kind() {
                "import" => SpecifierKind::Dynamic,
                "identifier" if &source[function.byte_range()] == "require" => SpecifierKind::Require,
                _ => return None,
            };
            let arguments = node.child_by_field_name("arguments")?;
            let mut cursor = arguments.walk();
            let mut named = arguments.named_children(&mut cursor).filter(|n| n.kind() != "comment");
            let (first, rest) = (named.next()?, named.next());
            if rest.is_some() && kind == SpecifierKind::Require {
                return None;
            }
            plain_string(first, source, kind)
        }
        _ => None,
    }
}

/// A string literal with no escape sequence, read as a specifier.
fn plain_string(node: tree_sitter::Node, source: &str, kind: SpecifierKind) -> Option<ModuleSpecifier> {
    if node.kind() != "string" || node.has_error() || node.byte_range().len() < 2 {
        return None;
    }
    let mut cursor = node.walk();
    if node.named_children(&mut cursor).any(|c| c.kind() != "string_fragment") {
        return None;
    }
    let range = node.start_byte() + 1..node.end_byte() - 1;
    Some(ModuleSpecifier { text: source[range.clone()].to_string(), range, kind })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(source: &str) -> Vec<(String, SpecifierKind)> {
        module_specifiers(source)
            .into_iter()
            .inspect(|s| assert_eq!(&source[s.range.clone()], s.text))
            .map(|s| (s.text, s.kind))
            .collect()
    }

    #[test]
    fn every_way_of_naming_a_module_is_found_in_order() {
        use SpecifierKind::*;
        let source = r#"import assert from 'node:assert';
import { Cart } from "./src/cart.js";
import './side-effect.js';
export { Item } from './item.js';
export * from '../all.mjs';
const late = await import('./late.js');
const { old } = require("./old.cjs");
function f() { return require('./inner.cjs').value; }
"#;
        assert_eq!(
            named(source),
            [
                ("node:assert".into(), Static),
                ("./src/cart.js".into(), Static),
                ("./side-effect.js".into(), Static),
                ("./item.js".into(), Static),
                ("../all.mjs".into(), Static),
                ("./late.js".into(), Dynamic),
                ("./old.cjs".into(), Require),
                ("./inner.cjs".into(), Require),
            ]
        );
    }

    #[test]
    fn names_known_only_when_the_code_runs_are_left_out() {
        let source = "const a = import(name);\nconst b = require(`./${x}.js`);\nconst c = require('\\x2e/c.js');\n\
                      const d = obj.require('./d.js');\nexport const e = 1;\nconst s = 'import x from \"./no.js\"';\n";
        assert_eq!(named(source), []);
    }

    #[test]
    fn relative_names_join_their_folder_inside_the_root() {
        assert_eq!(join("src", "./cart.js").as_deref(), Some("src/cart.js"));
        assert_eq!(join("src/a", "../../lib/x.js").as_deref(), Some("lib/x.js"));
        assert_eq!(join("", "./r.mjs").as_deref(), Some("r.mjs"));
        assert_eq!(join("src", "../../up.js"), None, "outside the root");
        assert_eq!(join("src", ".."), None, "the root itself");
        assert_eq!((folder("src/a/b.js"), folder("b.js")), ("src/a", ""));
    }

    #[test]
    fn places_are_bytes_of_the_source() {
        let source = "// é\nimport x from './é.js';\n";
        let found = module_specifiers(source);
        assert_eq!(found.len(), 1);
        assert_eq!(&source[found[0].range.clone()], "./é.js");
    }
}
