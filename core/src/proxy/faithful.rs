//! What the proxy model may write: only what the notes it rewrites say. Its instructions say so, and a large model
//! keeps to them; a small one copies names from the instructions' own examples. Qwen2.5-Coder-1.5B wrote class
//! `Session` or method `send` (the example of how to split `Session.send`) into 23 of its 55 readings of QuixBugs
//! search answers in the runs at 833d53d, e0b984f and 4cd1078, and `path/to/file.py` or `example.py` into 3; the
//! search then chased classes the repository does not have, round after round.
//!
//! So a reading keeps a call only when every text argument is in the notes (a name, each of its dotted parts; a
//! path, whole or by its file name or that name without its extension; code, whitespace, quotes and case aside), and
//! a location keeps each of its file, class and method only when the notes give it; a location left with none is
//! dropped. On AutoCodeRover's recorded proxy rounds (`../shared/replay/proxy`, GPT-4 as the proxy model;
//! `core/tests/replay_proxy_rounds.rs` prints and guards the figures) it leaves out, of the held-out half's 656
//! calls and 1,031 location fields, 1 call and 4 fields, each a description rather than a name
//! (`search_code("--recursive option")`, the method `content setter`, the file `Django app's migrations folder`).

use super::validate::Validated;
use crate::api::ParamKind;
use crate::call::ArgValue;

/// Leaves out of `v` what `notes` do not say (see the module's documentation); returns what was left out, in words.
pub fn to_the_notes(v: &mut Validated, notes: &str) -> Vec<String> {
    let notes = Notes::new(notes);
    let mut left_out = Vec::new();
    v.calls.retain(|call| {
        let said = call.values().iter().zip(call.spec().params).all(|(value, param)| match value {
            ArgValue::Text(text) => notes.say(param.kind, text),
            ArgValue::Number(_) => true,
        });
        if !said {
            left_out.push(format!("`{call}`"));
        }
        said
    });
    v.locations.retain_mut(|location| {
        let q = &mut location.query;
        for (what, field, kind) in [
            ("file", &mut q.file, ParamKind::Path),
            ("class", &mut q.class, ParamKind::Name),
            ("method", &mut q.method, ParamKind::Name),
        ] {
            if let Some(value) = field.as_deref().filter(|value| !notes.say(kind, value)) {
                left_out.push(format!("the {what} `{value}` of a bug location"));
                *field = None;
            }
        }
        q.file.is_some() || q.class.is_some() || q.method.is_some()
    });
    left_out
}

/// The notes, lowercased and with whitespace, quotes and backslashes made uniform.
struct Notes(String);

impl Notes {
    fn new(text: &str) -> Notes {
        Notes(uniform(text))
    }

    /// Whether the notes give `value`, a parameter of `kind`.
    fn say(&self, kind: ParamKind, value: &str) -> bool {
        let value = uniform(value);
        let has = |part: &str| part.is_empty() || self.0.contains(part);
        match kind {
            ParamKind::Path => {
                let name = value.rsplit(['/', '\\']).next().unwrap_or(&value);
                let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
                has(&value) || has(name) || (stem.chars().count() >= 3 && has(stem))
            }
            ParamKind::Name => value.split(['.', ':']).all(|part| has(part.trim())),
            ParamKind::Code | ParamKind::Number { .. } => has(&value),
        }
    }
}

/// `text` lowercased, with runs of whitespace as one space, every quote as `"` and no backslashes.
fn uniform(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.trim().chars() {
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        match c {
            '\\' => {}
            '\'' | '`' | '"' => out.push('"'),
            c => out.extend(c.to_lowercase()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answers::ProxyResult;
    use crate::proxy::validate;

    fn read(json: &str) -> Validated {
        let result: ProxyResult = crate::answers::search::read(json).result;
        validate(&result, None)
    }

    /// Qwen2.5-Coder-1.5B's reading of a powerset answer: the example's `Session` and `send` are left out, the
    /// function the notes name is kept.
    #[test]
    fn names_from_the_instructions_examples_are_left_out() {
        let notes = "No more context is needed. The bug is in the recursive implementation of the `powerset` \
                     function in powerset.py: it drops the subsets without the first element.";
        let mut v = read(
            r#"{"API_calls": ["search_class(\"Session\")", "search_method(\"powerset\")", "search_code_in_file(\"rest_subsets\", \"session.py\")"],
                "bug_locations": [{"file": "session.py", "class": "Session", "method": "send"},
                                  {"file": "src/powerset.py", "class": "Session", "method": "powerset"}]}"#,
        );
        let left_out = to_the_notes(&mut v, notes);
        let calls: Vec<String> = v.calls.iter().map(ToString::to_string).collect();
        assert_eq!(calls, ["search_method(\"powerset\")"]);
        assert_eq!(v.locations.len(), 1, "{:?}", v.locations);
        let q = &v.locations[0].query;
        assert_eq!(
            (q.file.as_deref(), q.class.as_deref(), q.method.as_deref()),
            (Some("src/powerset.py"), None, Some("powerset"))
        );
        assert!(left_out.contains(&"`search_class(\"Session\")`".to_string()), "{left_out:?}");
        assert!(left_out.contains(&"the class `Session` of a bug location".to_string()), "{left_out:?}");
    }

    /// What the notes give, written otherwise: a path by its file name or module, a dotted name, code with other
    /// quotes, spacing and escapes.
    #[test]
    fn what_the_notes_say_is_kept_however_it_is_written() {
        let notes = "Look at `Cart.total` in the `shop.cart` module, and search for `if units == 0 :  return 'none'`.";
        let mut v = read(
            r#"{"API_calls": ["search_method_in_class(\"total\", \"Cart\")", "search_code(\"if units == 0 : return \\\"none\\\"\")", "search_method_in_file(\"total\", \"shop/cart.py\")"],
                "bug_locations": [{"file": "shop/cart.py", "class": "Cart", "method": "Cart.total"}]}"#,
        );
        let left_out = to_the_notes(&mut v, notes);
        assert!(left_out.is_empty(), "{left_out:?}");
        assert_eq!(v.calls.len(), 3);
        assert_eq!(v.locations.len(), 1);
    }
}
