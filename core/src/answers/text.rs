//! Short answers and code: a yes or no, a rating, a choice, a fenced code block and the reasoning before it.

use serde_json::Value as Json;

use super::json;
use crate::language::Language;

/// An object of required, closed properties: the shape every schema here has.
fn object(properties: Json) -> Json {
    let required: Vec<&String> = properties.as_object().map(|p| p.keys().collect()).unwrap_or_default();
    serde_json::json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
}

/// The JSON schema of the answer to "is this issue reproducible?": `key` (read by [`yes_no`]) as a boolean, and the
/// reason.
pub fn yes_no_schema(key: &str) -> Json {
    object(serde_json::json!({key: {"type": "boolean"}, "reason": super::text_schema(super::MAX_TEXT_CHARS / 2)}))
}

/// The JSON schema of a rating (MCTS): `{"rating": n}`, whose number [`rating`] reads (capped at 100 there).
pub fn rating_schema() -> Json {
    object(serde_json::json!({"rating": {"type": "integer"}}))
}

/// The JSON schema of the choice among patches: `{"choice": n, "reason": "..."}`, read by [`choice`].
pub fn choice_schema() -> Json {
    object(serde_json::json!({"choice": {"type": "integer"}, "reason": super::text_schema(super::MAX_TEXT_CHARS / 2)}))
}

/// Reads a yes/no value: a JSON boolean, or text such as `yes`, `No.`, `true`, `Y`.
fn truth(value: &Json) -> Option<bool> {
    match value {
        Json::Bool(b) => Some(*b),
        Json::String(s) => {
            let word = s.trim().trim_end_matches(['.', '!']).trim().to_ascii_lowercase();
            match word.as_str() {
                "yes" | "y" | "true" | "correct" => Some(true),
                "no" | "n" | "false" | "incorrect" | "wrong" => Some(false),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The yes/no value of `key` (compared in [`json::key_form`]) in the answer's JSON object; `None` when there is no
/// such key or its value is not a yes or a no.
pub fn yes_no(answer: &str, key: &str) -> Option<bool> {
    let key = json::key_form(key);
    json::objects(answer).find_map(|o| json::get(&o, &[key.as_str()]).and_then(truth))
}

/// Reads a `yes`/`no` field of an object already found.
pub(super) fn field_truth(obj: &serde_json::Map<String, Json>, key: &str) -> Option<bool> {
    json::get(obj, &[json::key_form(key).as_str()]).and_then(truth)
}

/// The first whole number in a text, with its byte span.
fn first_number(text: &str) -> Option<u64> {
    text.split(|c: char| !c.is_ascii_digit()).find(|s| !s.is_empty()).and_then(|s| s.parse().ok())
}

/// A 0-100 rating: the first whole number of the answer (`85`, `Rating: 85/100`, `{"score": 85}`), capped at 100;
/// `None` when the answer holds no number.
pub fn rating(answer: &str) -> Option<u8> {
    first_number(answer).map(|n| n.min(100) as u8)
}

/// A choice among `count` numbered candidates: a JSON `{"choice": n}` (or `patch`, `candidate`), else the first whole
/// number of the answer; `None` unless it is between 1 and `count`.
pub fn choice(answer: &str, count: usize) -> Option<usize> {
    let from_json = json::objects(answer).find_map(|o| {
        let v = json::get(&o, &["choice", "patch", "candidate", "selected", "selection"])?;
        v.as_u64().or_else(|| v.as_str().and_then(first_number))
    });
    let n = from_json.or_else(|| first_number(answer))? as usize;
    (1..=count).contains(&n).then_some(n)
}

/// The first fenced code block of an answer, preferring one tagged as `language` (its row's fence or an extension:
/// `python` or `py`), without the fences.
pub fn code_block(answer: &str, language: Language) -> Option<String> {
    let row = language.row();
    let mut lines = answer.lines();
    let mut found: Option<String> = None;
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if let Some(lang) = t.strip_prefix("```") {
            let mut body = String::new();
            for inner in lines.by_ref() {
                if inner.trim_start().starts_with("```") {
                    break;
                }
                body.push_str(inner);
                body.push('\n');
            }
            let tag = lang.trim();
            if tag.eq_ignore_ascii_case(row.fence) || row.extensions.iter().any(|e| tag.eq_ignore_ascii_case(e)) {
                return Some(body);
            }
            found.get_or_insert(body);
        }
    }
    found
}

/// The text before the first code block or edit (an answer's reflection), without `# modification N` headings.
pub fn reflection(answer: &str) -> String {
    let end = ["```", "<file>"].iter().filter_map(|m| answer.find(m)).min().unwrap_or(answer.len());
    let kept: Vec<&str> = answer[..end]
        .lines()
        .filter(|l| {
            !l.trim_start().trim_start_matches('#').trim_start().to_ascii_lowercase().starts_with("modification")
        })
        .collect();
    kept.join("\n").trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reflections_stop_at_the_first_code_or_edit_and_drop_headings() {
        assert_eq!(reflection("It adds once.\n\n# modification 1\n```\n<file>a.py</file>```"), "It adds once.");
        assert_eq!(reflection("Reason.\n<file>a.py</file>"), "Reason.");
        let python = Language::default();
        assert_eq!(code_block("x\n```diff\n-a\n```\n```python\nb = 1\n```", python).as_deref(), Some("b = 1\n"));
        assert_eq!(code_block("x\n```diff\n-a\n```\n```PY\nb = 1\n```", python).as_deref(), Some("b = 1\n"));
        assert_eq!(code_block("no code", python), None);
    }

    #[test]
    fn short_answers_are_read_leniently() {
        assert_eq!(yes_no("```json\n{'reproducible': True,}\n```", "reproducible"), Some(true));
        assert_eq!(yes_no("{\"Reproducible\": \"no.\"}", "reproducible"), Some(false));
        assert_eq!(yes_no("{\"reproducible\": \"maybe\"}", "reproducible"), None);
        assert_eq!(yes_no("yes", "reproducible"), None);
        assert_eq!(rating("I'd say 85/100."), Some(85));
        assert_eq!(rating("{\"score\": 300}"), Some(100));
        assert_eq!(rating("high"), None);
        assert_eq!(choice("{\"choice\": 2, \"reason\": \"validated\"}", 3), Some(2));
        assert_eq!(choice("Patch 3 is best.", 3), Some(3));
        assert_eq!(choice("Patch 4 is best.", 3), None);
    }
}
