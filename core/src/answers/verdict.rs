//! The reviewer's answer: whether the patch and the reproducer are right, why, and what to change.

use serde::Serialize;

use super::json;
use super::text::field_truth;

/// A reviewer's verdict, read from its JSON answer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ReviewVerdict {
    /// The patch resolves the issue.
    pub patch_correct: bool,
    /// The test checks the issue correctly.
    pub test_correct: bool,
    /// Why, about the patch.
    pub patch_analysis: String,
    /// Why, about the test.
    pub test_analysis: String,
    /// What the patch writer should change.
    pub patch_advice: String,
    /// What the test writer should change.
    pub test_advice: String,
}

/// The JSON schema of a reviewer's answer: the two judgements as `"yes"` or `"no"` and the four texts, under the
/// keys [`review`] reads (the prompt's, [`crate::prompt::text::REVIEW_QUESTION`]).
pub fn schema() -> serde_json::Value {
    let judgement = || serde_json::json!({"type": "string", "enum": ["yes", "no"]});
    let text = || super::text_schema(super::MAX_TEXT_CHARS);
    serde_json::json!({
        "type": "object",
        "properties": {
            "patch-correct": judgement(),
            "test-correct": judgement(),
            "patch-analysis": text(),
            "test-analysis": text(),
            "patch-advice": text(),
            "test-advice": text(),
        },
        "required": ["patch-correct", "test-correct", "patch-analysis", "test-analysis", "patch-advice", "test-advice"],
        "additionalProperties": false,
    })
}

/// Reads a reviewer's answer: a (possibly loose, possibly wrapped) JSON object whose `patch-correct` and
/// `test-correct` are each a yes or a no. `None` when either is missing or unreadable: the caller asks again rather
/// than guessing a verdict.
pub fn review(answer: &str) -> Option<ReviewVerdict> {
    json::objects(answer).find_map(|o| {
        let patch_correct = field_truth(&o, "patch-correct")?;
        let test_correct = field_truth(&o, "test-correct")?;
        let text = |k: &str| {
            json::get(&o, &[json::key_form(k).as_str()])
                .map(|x| x.as_str().map(str::to_string).unwrap_or_else(|| x.to_string()))
                .unwrap_or_default()
        };
        Some(ReviewVerdict {
            patch_correct,
            test_correct,
            patch_analysis: text("patch-analysis"),
            test_analysis: text("test-analysis"),
            patch_advice: text("patch-advice"),
            test_advice: text("test-advice"),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_are_read_leniently() {
        let v = review(
            "Here is my review:\n```json\n{\"patch-correct\": \"yes\", \"test_correct\": false, \
             \"patch-analysis\": \"ok\", \"test-advice\": \"assert the total\"}\n```",
        )
        .unwrap();
        assert!(v.patch_correct && !v.test_correct);
        assert_eq!((v.patch_analysis.as_str(), v.test_advice.as_str()), ("ok", "assert the total"));
        assert_eq!(review("no json here"), None);
    }

    #[test]
    fn loose_json_is_read_and_a_missing_judgement_is_not_guessed() {
        let v = review("{'patch-correct': 'no', 'test-correct': 'yes', 'patch-advice': 'multiply',}").unwrap();
        assert!(!v.patch_correct && v.test_correct);
        assert_eq!(v.patch_advice, "multiply");
        assert_eq!(review("{\"patch-correct\": \"yes\"}"), None, "no test judgement");
        assert_eq!(review("{\"patch-correct\": \"perhaps\", \"test-correct\": \"yes\"}"), None);
    }
}
