//! The search APIs the model may call: names, typed parameters, and what each one does.
//!
//! This table is the single source of truth for the call binder ([`crate::call`], used by the proxy, the CLI, the
//! npm package, the component and the playground), the search dispatcher, the prompts that list the APIs, and the
//! explorer's form. A parameter's [`ParamKind`] says what it holds, so numbers are recognised by kind rather than
//! by name, the swapped-argument check knows a path from a name, and a tool schema can be generated.

use serde_json::{Value, json};

/// What a parameter holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// A class, method or function name (`Cart`, `total`, `Cart.total`).
    Name,
    /// Literal code text to look for.
    Code,
    /// A file path or the tail of one, resolved by the path-matching policy.
    Path,
    /// A whole number; `default` is used when the argument is left out.
    Number {
        /// The value when omitted; `None` makes the argument required.
        default: Option<u32>,
    },
}

impl ParamKind {
    /// Whether the parameter takes text (every kind but [`ParamKind::Number`]).
    pub fn is_text(self) -> bool {
        !matches!(self, ParamKind::Number { .. })
    }
}

/// One parameter of a search API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Param {
    /// The name, as ACR spells it (`class_name`, `file_name`, ...).
    pub name: &'static str,
    /// What it holds.
    pub kind: ParamKind,
    /// Other keywords models use for it (`file_path`, `method`, ...), accepted as the same parameter.
    pub aliases: &'static [&'static str],
}

/// One search API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApiSpec {
    /// The name the model writes, e.g. `search_method_in_class`.
    pub name: &'static str,
    /// Parameters, in positional order.
    pub params: &'static [Param],
    /// One-line description shown to the model and in the explorer.
    pub summary: &'static str,
}

impl ApiSpec {
    /// Parameter names, in positional order.
    pub fn param_names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.params.iter().map(|p| p.name)
    }

    /// The signature as the model reads it: `search_method_in_class(method_name, class_name)`.
    pub fn signature(&self) -> String {
        format!("{}({})", self.name, self.param_names().collect::<Vec<_>>().join(", "))
    }

    /// The parameter a keyword refers to: its own name first, then an alias.
    pub fn param_for_keyword(&self, keyword: &str) -> Option<usize> {
        self.params
            .iter()
            .position(|p| p.name == keyword)
            .or_else(|| self.params.iter().position(|p| p.aliases.contains(&keyword)))
    }

    /// A JSON Schema of the arguments, as chat-completions tool definitions take it.
    pub fn parameters_schema(&self) -> Value {
        let mut properties = serde_json::Map::new();
        let mut required = Vec::new();
        for p in self.params {
            let (ty, description) = match p.kind {
                ParamKind::Name => ("string", "a class, method or function name"),
                ParamKind::Code => ("string", "literal code text"),
                ParamKind::Path => ("string", "a file path, or its last components"),
                ParamKind::Number { .. } => ("integer", "a whole number"),
            };
            properties.insert(p.name.to_string(), json!({ "type": ty, "description": description }));
            if !matches!(p.kind, ParamKind::Number { default: Some(_) }) {
                required.push(p.name);
            }
        }
        json!({ "type": "object", "properties": properties, "required": required })
    }
}

const FILE: Param =
    Param { name: "file_name", kind: ParamKind::Path, aliases: &["file_path", "file", "path", "filename", "filepath"] };
const METHOD: Param = Param {
    name: "method_name",
    kind: ParamKind::Name,
    aliases: &["method", "function_name", "function", "func_name", "func", "name"],
};
const CLASS: Param = Param { name: "class_name", kind: ParamKind::Name, aliases: &["class", "cls", "classname"] };
const CODE: Param =
    Param { name: "code_str", kind: ParamKind::Code, aliases: &["code", "code_snippet", "snippet", "query", "text"] };
const LINE: Param =
    Param { name: "line_no", kind: ParamKind::Number { default: None }, aliases: &["line", "line_number", "lineno"] };
/// Lines either side of the target when `get_code_around_line` is called without a window.
pub const DEFAULT_WINDOW: u32 = 10;

/// Most distinct search calls run in one round; the rest of a longer list are not run, and the model is told which
/// ([`mod@crate::proxy::bound`]), as a model that lists a hundred calls at once (a small one looping over line numbers)
/// is not searching any more.
///
/// Taken from AutoCodeRover's recorded GPT-4 run (`../shared/replay`, 300 SWE-bench Lite tasks) so that no recorded
/// round is cut. Of its 1,197 proxy rounds (`proxy/acr-run-1.jsonl`), ACR acted on a try in 841; that try's
/// `API_calls`, read and deduplicated as the agent reads them (`answers::search::read`, `proxy::validate`), hold at
/// most 9 calls (django-10914, round 1; then 7 in two rounds, 6 in fourteen, 5 or fewer in the rest). The 1,197
/// search and decide answers of the recorded conversations (`agent/acr-run-1/`), read the same way without the proxy
/// model, name at most 7 (scikit-learn-11281, round 0). The cap is the largest round, 9, plus one.
/// `core/tests/call_cap.rs` measures both again whenever the corpus is present, and fails if a round would be cut.
pub const MAX_CALLS_PER_ROUND: usize = 10;
const WINDOW: Param = Param {
    name: "window",
    kind: ParamKind::Number { default: Some(DEFAULT_WINDOW) },
    aliases: &["window_size", "context", "radius"],
};

/// Every search API, in the order they are presented to the model.
pub const APIS: &[ApiSpec] = &[
    ApiSpec {
        name: "search_class",
        params: &[CLASS],
        summary: "Signatures of a class (header, method signatures, class attributes) wherever it is defined.",
    },
    ApiSpec {
        name: "search_class_in_file",
        params: &[CLASS, FILE],
        summary: "The full code of a class defined in a given file.",
    },
    ApiSpec {
        name: "search_method",
        params: &[METHOD],
        summary: "Every top-level function and method of any class with this name.",
    },
    ApiSpec {
        name: "search_method_in_file",
        params: &[METHOD, FILE],
        summary: "Functions and methods with this name in a given file.",
    },
    ApiSpec {
        name: "search_method_in_class",
        params: &[METHOD, CLASS],
        summary: "Methods with this name in a given class.",
    },
    ApiSpec {
        name: "search_code",
        params: &[CODE],
        summary: "Literal code text anywhere in the codebase, with surrounding lines.",
    },
    ApiSpec {
        name: "search_code_in_file",
        params: &[CODE, FILE],
        summary: "Literal code text in a given file, with surrounding lines.",
    },
    ApiSpec {
        name: "get_code_around_line",
        params: &[FILE, LINE, WINDOW],
        summary: "The lines of a file around a line number.",
    },
    ApiSpec {
        name: "get_class_full_snippet",
        params: &[CLASS],
        summary: "The full code of a class wherever it is defined.",
    },
];

/// Looks an API up by name.
pub fn api(name: &str) -> Option<&'static ApiSpec> {
    APIS.iter().find(|a| a.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_and_schemas_follow_the_table() {
        let s = api("get_code_around_line").unwrap();
        assert_eq!(s.signature(), "get_code_around_line(file_name, line_no, window)");
        let schema = s.parameters_schema();
        assert_eq!(schema["properties"]["line_no"]["type"], "integer");
        assert_eq!(schema["required"], json!(["file_name", "line_no"]));
        assert_eq!(api("search_method_in_file").unwrap().param_for_keyword("file_path"), Some(1));
        assert_eq!(api("search_class").unwrap().param_for_keyword("name"), None);
    }
}
