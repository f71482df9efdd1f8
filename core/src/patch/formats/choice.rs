//! Which edit format to ask a model for: one chosen by the user, or `auto`, which looks the model's name up in a
//! table kept as data (`models.tsv` next to this file): large hosted models get SEARCH/REPLACE blocks, small and
//! local ones definition edits (the function they change, whole), and a model the table does not know
//! AutoCodeRover's own format. A row may also ask for whole files when every file to change is short.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::EditFormat;

/// The table `auto` reads.
const TABLE: &str = include_str!("models.tsv");

/// The edit format the agent asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct EditFormatChoice {
    /// The format asked for.
    pub format: EditFormat,
    /// Ask for whole files instead when every file to change has at most this many lines.
    pub whole_up_to: Option<u32>,
}

impl Default for EditFormatChoice {
    fn default() -> Self {
        EditFormatChoice::fixed(EditFormat::Acr)
    }
}

impl EditFormatChoice {
    /// Always `format`.
    pub fn fixed(format: EditFormat) -> EditFormatChoice {
        EditFormatChoice { format, whole_up_to: None }
    }

    /// The table's choice for a model name (AutoCodeRover's format when no row fits).
    pub fn auto(model: &str) -> EditFormatChoice {
        let name = model.to_ascii_lowercase();
        rows().find(|(pattern, _, _)| fits(pattern, &name)).map_or_else(
            EditFormatChoice::default,
            |(_, format, up_to)| EditFormatChoice { format, whole_up_to: (up_to > 0).then_some(up_to) },
        )
    }

    /// The setting as the command line writes it (`acr`, `search-replace`, `udiff`, `whole` or `auto`), for `model`.
    pub fn from_setting(setting: &str, model: &str) -> Result<EditFormatChoice, String> {
        if setting == "auto" { Ok(EditFormatChoice::auto(model)) } else { setting.parse().map(EditFormatChoice::fixed) }
    }

    /// The format for one request, given the line counts of the files it is about to change (empty when unknown).
    pub fn for_files(&self, line_counts: &[usize]) -> EditFormat {
        match self.whole_up_to {
            Some(max) if !line_counts.is_empty() && line_counts.iter().all(|&n| n <= max as usize) => EditFormat::Whole,
            _ => self.format,
        }
    }
}

impl fmt::Display for EditFormatChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.whole_up_to {
            Some(n) => write!(f, "{} (whole files up to {n} lines)", self.format),
            None => write!(f, "{}", self.format),
        }
    }
}

impl FromStr for EditFormatChoice {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        s.parse().map(EditFormatChoice::fixed)
    }
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

/// The table's rows: pattern, format, whole-file limit. Malformed rows are skipped (a test checks there are none).
fn rows() -> impl Iterator<Item = (String, EditFormat, u32)> {
    TABLE.lines().filter_map(|line| {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            return None;
        }
        let mut cols = line.split_whitespace();
        let pattern = cols.next()?.to_ascii_lowercase();
        let format = cols.next()?.parse().ok()?;
        let up_to = cols.next()?.parse().ok()?;
        Some((pattern, format, up_to))
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
        let f = |m: &str| EditFormatChoice::auto(m);
        assert_eq!(f("gpt-4o"), EditFormatChoice::fixed(EditFormat::SearchReplace));
        assert_eq!(f("openai/GPT-4-Turbo-2024-04-09").format, EditFormat::Udiff);
        assert_eq!(f("claude-3-5-sonnet-20241022").format, EditFormat::SearchReplace);
        assert_eq!(f("qwen2.5-coder:7b").format, EditFormat::Definition);
        assert_eq!(f("Qwen2.5-Coder-1.5B-Instruct").format, EditFormat::Definition);
        assert_eq!(f("qwen2.5-coder:32b").format, EditFormat::SearchReplace);
        assert_eq!(f("HuggingFaceTB/SmolLM2-135M-Instruct").format, EditFormat::Definition);
        assert_eq!(f("some-unknown-model"), EditFormatChoice::default());
        assert_eq!(EditFormatChoice::from_setting("udiff", "gpt-4o"), Ok(EditFormatChoice::fixed(EditFormat::Udiff)));
        assert_eq!(
            EditFormatChoice::from_setting("definition", "gpt-4o").map(|c| c.format),
            Ok(EditFormat::Definition)
        );
        assert!(EditFormatChoice::from_setting("xml", "gpt-4o").is_err());
    }

    /// Each row is the first to fit its own pattern: no earlier row hides it (`llama` once hid `codellama`).
    #[test]
    fn no_row_is_hidden_by_an_earlier_one() {
        let all: Vec<(String, EditFormat, u32)> = rows().collect();
        for (i, (pattern, ..)) in all.iter().enumerate() {
            let first = all.iter().position(|(p, ..)| fits(p, pattern));
            assert_eq!(first, Some(i), "`{pattern}` is fitted first by `{}`", all[first.unwrap_or(i)].0);
        }
    }

    /// Rows fit the models they are for and no others: real model names, as servers list them.
    #[test]
    fn rows_fit_whole_words_only() {
        let f = |m: &str| EditFormatChoice::auto(m).format;
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

    #[test]
    fn short_files_get_whole_files_from_small_models() {
        let small = EditFormatChoice { format: EditFormat::SearchReplace, whole_up_to: Some(400) };
        assert_eq!(small.for_files(&[120, 399]), EditFormat::Whole);
        assert_eq!(small.for_files(&[120, 401]), EditFormat::SearchReplace);
        assert_eq!(small.for_files(&[]), EditFormat::SearchReplace);
        assert_eq!(EditFormatChoice::fixed(EditFormat::Udiff).for_files(&[3]), EditFormat::Udiff);
    }
}
