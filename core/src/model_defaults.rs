//! What `auto` picks for a model, by its name: the edit format the patch writer asks for and who judges a patch. The
//! choices are kept as data (`model_defaults.tsv` next to this file), with the measurements behind them: large
//! hosted models get SEARCH/REPLACE blocks and AutoCodeRover's reviewer, small and local ones definition edits (the
//! function they change, whole) and the reproducer as the judge, and a model the table does not know
//! AutoCodeRover's own format and reviewer. A row may also ask for whole files when every file to change is short.

use crate::agent::Judge;
use crate::patch::{EditFormat, EditFormatChoice};

/// The table, as written.
const TABLE: &str = include_str!("model_defaults.tsv");

/// One row of the table.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Row {
    /// A piece of the model name, lowercased.
    pattern: String,
    edit_format: EditFormatChoice,
    judge: Judge,
}

/// The edit format for `model` (AutoCodeRover's when no row fits).
pub fn edit_format(model: &str) -> EditFormatChoice {
    row_for(model).map_or_else(EditFormatChoice::default, |r| r.edit_format)
}

/// Who judges `model`'s patches (AutoCodeRover's reviewer when no row fits).
pub fn judge(model: &str) -> Judge {
    row_for(model).map_or_else(Judge::default, |r| r.judge)
}

/// An edit-format setting as the command line and the page write it (`acr`, `search-replace`, `udiff`,
/// `definition`, `whole` or `auto`), for `model`.
pub fn edit_format_setting(setting: &str, model: &str) -> Result<EditFormatChoice, String> {
    if setting == "auto" { Ok(edit_format(model)) } else { setting.parse().map(EditFormatChoice::fixed) }
}

/// A judge setting as the command line and the page write it (`reviewer`, `execution` or `auto`), for `model`.
pub fn judge_setting(setting: &str, model: &str) -> Result<Judge, String> {
    if setting == "auto" { Ok(judge(model)) } else { setting.parse() }
}

/// The first row that fits `model`.
fn row_for(model: &str) -> Option<Row> {
    let name = model.to_ascii_lowercase();
    rows().find(|row| fits(&row.pattern, &name))
}

/// Whether a row's `pattern` fits the (lowercased) model `name`: it occurs as a word, starting at the name's start
/// or after a character that is not a letter or digit, and ending at the name's end or before a character that is
/// not a letter.
fn fits(pattern: &str, name: &str) -> bool {
    name.match_indices(pattern).any(|(at, _)| {
        let before = name[..at].chars().next_back();
        let after = name[at + pattern.len()..].chars().next();
        before.is_none_or(|c| !c.is_alphanumeric()) && after.is_none_or(|c| !c.is_alphabetic())
    })
}

/// The table's rows. Malformed rows are skipped (a test checks there are none).
fn rows() -> impl Iterator<Item = Row> {
    TABLE.lines().filter_map(|line| {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            return None;
        }
        let mut cols = line.split_whitespace();
        let pattern = cols.next()?.to_ascii_lowercase();
        let format: EditFormat = cols.next()?.parse().ok()?;
        let up_to: u32 = cols.next()?.parse().ok()?;
        let judge = cols.next()?.parse().ok()?;
        let edit_format = EditFormatChoice { format, whole_up_to: (up_to > 0).then_some(up_to) };
        cols.next().is_none().then_some(Row { pattern, edit_format, judge })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_of_the_table_reads() {
        let written = TABLE.lines().filter(|l| !l.trim().is_empty() && !l.trim().starts_with('#')).count();
        assert_eq!(rows().count(), written);
    }

    #[test]
    fn auto_picks_by_model_name() {
        let f = edit_format;
        assert_eq!(f("gpt-4o"), EditFormatChoice::fixed(EditFormat::SearchReplace));
        assert_eq!(f("openai/GPT-4-Turbo-2024-04-09").format, EditFormat::Udiff);
        assert_eq!(f("claude-3-5-sonnet-20241022").format, EditFormat::SearchReplace);
        assert_eq!(f("qwen2.5-coder:7b").format, EditFormat::Definition);
        assert_eq!(f("Qwen2.5-Coder-1.5B-Instruct").format, EditFormat::Definition);
        assert_eq!(f("qwen2.5-coder:32b").format, EditFormat::SearchReplace);
        assert_eq!(f("HuggingFaceTB/SmolLM2-135M-Instruct").format, EditFormat::Definition);
        assert_eq!(f("some-unknown-model"), EditFormatChoice::default());
        assert_eq!(edit_format_setting("udiff", "gpt-4o"), Ok(EditFormatChoice::fixed(EditFormat::Udiff)));
        assert_eq!(edit_format_setting("definition", "gpt-4o").map(|c| c.format), Ok(EditFormat::Definition));
        assert!(edit_format_setting("xml", "gpt-4o").is_err());
    }

    #[test]
    fn small_local_models_are_judged_by_execution_and_the_rest_by_the_reviewer() {
        assert_eq!(judge("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"), Judge::Execution);
        assert_eq!(judge("llama3.1:8b"), Judge::Execution);
        assert_eq!(judge("gpt-4o"), Judge::Reviewer);
        assert_eq!(judge("qwen2.5-coder:32b"), Judge::Reviewer);
        assert_eq!(judge("some-unknown-model"), Judge::Reviewer);
        assert_eq!(judge_setting("auto", "smollm2"), Ok(Judge::Execution));
        assert_eq!(judge_setting("reviewer", "smollm2"), Ok(Judge::Reviewer));
        assert_eq!(judge_setting("execution", "gpt-4o"), Ok(Judge::Execution));
        assert!(judge_setting("jury", "gpt-4o").is_err());
    }

    /// Each row is the first to fit its own pattern: no earlier row hides it (`llama` once hid `codellama`).
    #[test]
    fn no_row_is_hidden_by_an_earlier_one() {
        let all: Vec<Row> = rows().collect();
        for (i, row) in all.iter().enumerate() {
            let first = all.iter().position(|r| fits(&r.pattern, &row.pattern));
            assert_eq!(first, Some(i), "`{}` is fitted first by `{}`", row.pattern, all[first.unwrap_or(i)].pattern);
        }
    }

    /// Rows fit the models they are for and no others: real model names, as servers list them.
    #[test]
    fn rows_fit_whole_words_only() {
        let f = |m: &str| edit_format(m).format;
        for (model, format) in [
            ("dolphin-mixtral:8x7b", EditFormat::SearchReplace),
            ("dolphin3:8b", EditFormat::Acr),
            ("phind-codellama:34b", EditFormat::Definition),
            ("codellama:7b-instruct", EditFormat::Definition),
            ("phi3:mini", EditFormat::Definition),
            ("phi-4", EditFormat::Definition),
            ("llama3.1:8b", EditFormat::Definition),
            ("meta-llama/Llama-3.2-3B-Instruct", EditFormat::Definition),
            ("tinyllama:1.1b", EditFormat::Definition),
            ("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", EditFormat::Definition),
            ("deepseek-coder-v2:16b", EditFormat::SearchReplace),
            ("o3-mini", EditFormat::SearchReplace),
            ("yolo3-detector", EditFormat::Acr),
            ("mistral-nemo", EditFormat::Definition),
            ("gemma2:9b", EditFormat::Definition),
            ("philosopher-7b", EditFormat::Acr),
            ("openchat", EditFormat::Acr),
        ] {
            assert_eq!(f(model), format, "{model}");
        }
    }
}
