//! `search_method`, `search_method_in_file` and `search_method_in_class`.

use std::collections::HashSet;

use super::format::{collapse_to_files, numbered, push_results, tagged};
use super::{RESULT_SHOW_LIMIT, SearchHit, SearchOutput, Searcher};
use crate::index::{DefKind, FileId, Span};

/// A function or method definition found by name.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DefUnit<'a> {
    pub(crate) span: Span,
    pub(crate) class: Option<&'a str>,
    pub(crate) name: &'a str,
}

impl<'a> Searcher<'a> {
    /// Top-level functions named `name`, then methods of every class, each group in (file, line) order.
    pub(crate) fn functions_named(&self, name: &str) -> Vec<DefUnit<'a>> {
        let index = self.index;
        let mut units: Vec<DefUnit<'a>> = Vec::new();
        if let Some((key, spans)) = index.functions.get_key_value(name) {
            units.extend(spans.iter().map(|&span| DefUnit { span, class: None, name: key }));
        }
        let mut methods: Vec<DefUnit<'a>> = Vec::new();
        for (class, table) in &index.class_methods {
            if let Some((key, spans)) = table.get_key_value(name) {
                methods.extend(spans.iter().map(|&span| DefUnit { span, class: Some(&**class), name: key }));
            }
        }
        methods.sort_by_key(|u| u.span);
        units.extend(methods);
        units
    }

    /// Methods named `method` inside any class named `class`, including those of classes nested in it (as in
    /// ACR), labelled with `class`, in (file, line) order.
    fn methods_in_class(&self, method: &str, class: &str) -> Vec<DefUnit<'a>> {
        let index = self.index;
        let Some((class_key, spans)) = index.class_key(class).and_then(|key| index.classes.get_key_value(key)) else {
            return Vec::new();
        };
        let mut units: Vec<DefUnit<'a>> = Vec::new();
        for span in spans {
            let Some(entry) = index.files.get(span.file as usize) else {
                continue;
            };
            let inside = entry
                .defs
                .iter()
                .filter(|d| d.start > span.start && d.end <= span.end)
                .filter(|d| d.kind == DefKind::Method && &*d.name == method);
            for d in inside {
                units.push(DefUnit {
                    span: Span { file: span.file, start: d.start, end: d.end },
                    class: Some(&**class_key),
                    name: &d.name,
                });
            }
        }
        units.sort_by_key(|u| u.span);
        // A class nested in a same-named class would list its methods twice.
        units.dedup_by_key(|u| u.span);
        units
    }

    fn def_block(&self, u: &DefUnit<'_>) -> String {
        let file = u.span.file;
        let code = numbered(self.lines(file), self.text(file), u.span.start, u.span.end);
        tagged(self.path(file), u.class, Some(u.name), &code)
    }

    fn def_hits(&self, units: &[DefUnit<'_>]) -> Vec<SearchHit> {
        units.iter().map(|u| self.hit(u.span.file, u.span.start, u.span.end, u.class, Some(u.name))).collect()
    }

    /// `search_method(method_name)`: every top-level function and method with this name.
    pub fn search_method(&self, method_name: &str) -> SearchOutput {
        let units = self.functions_named(method_name);
        if units.is_empty() {
            return SearchOutput::miss(format!("Could not find method {method_name} in the codebase."));
        }
        let mut text = format!("Found {} methods with name {method_name} in the codebase.\n", units.len());
        if units.len() > RESULT_SHOW_LIMIT {
            text.push_str("They appeared in the following files:\n");
            text.push_str(&collapse_to_files(units.iter().map(|u| (self.path(u.span.file), 1))));
        } else {
            push_results(&mut text, 1, units.iter().map(|u| self.def_block(u)));
        }
        SearchOutput::found(text, self.def_hits(&units))
    }

    /// `search_method_in_file(method_name, file_name)`: functions and methods with this name in the files
    /// `file_name` names, all shown in full.
    pub fn search_method_in_file(&self, method_name: &str, file_name: &str) -> SearchOutput {
        let named = match self.files_named(file_name) {
            Ok(named) => named,
            Err(miss) => return miss,
        };
        let files: HashSet<FileId> = named.files.iter().copied().collect();
        let units = self.functions_named(method_name);
        if units.is_empty() {
            return SearchOutput::miss(format!("The method {method_name} does not appear in the codebase."));
        }
        let units: Vec<DefUnit<'_>> = units.into_iter().filter(|u| files.contains(&u.span.file)).collect();
        if units.is_empty() {
            return SearchOutput::miss(format!("There is no method with name `{method_name}` in file {file_name}."));
        }
        let mut text = format!("Found {} methods with name `{method_name}` in file {file_name}.\n", units.len());
        push_results(&mut text, 1, units.iter().map(|u| self.def_block(u)));
        named.note(SearchOutput::found(text, self.def_hits(&units)))
    }

    /// `search_method_in_class(method_name, class_name)`: methods with this name in every class with this name;
    /// past three, the rest are listed by file.
    pub fn search_method_in_class(&self, method_name: &str, class_name: &str) -> SearchOutput {
        if self.index.class_key(class_name).is_none() {
            return SearchOutput::miss(format!("Could not find class {class_name} in the codebase."));
        }
        let units = self.methods_in_class(method_name, class_name);
        if units.is_empty() {
            return SearchOutput::miss(format!("Could not find method {method_name} in class {class_name}."));
        }
        let mut text = format!("Found {} methods with name {method_name} in class {class_name}.\n", units.len());
        if units.len() > RESULT_SHOW_LIMIT {
            text.push_str(&format!(
                "Too many results, showing full code for {RESULT_SHOW_LIMIT} of them, and the rest just file names:\n"
            ));
        }
        let (shown, rest) = units.split_at(units.len().min(RESULT_SHOW_LIMIT));
        push_results(&mut text, 1, shown.iter().map(|u| self.def_block(u)));
        if !rest.is_empty() {
            text.push_str("Other results are in these files:\n");
            text.push_str(&collapse_to_files(rest.iter().map(|u| (self.path(u.span.file), 1))));
        }
        SearchOutput::found(text, self.def_hits(&units))
    }
}
