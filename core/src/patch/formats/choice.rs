//! Which edit format to ask a model for: a fixed one, or whole files instead when every file to change is short.
//! `auto` picks one by model name ([`crate::model_defaults`]).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::EditFormat;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_files_get_whole_files_from_small_models() {
        let small = EditFormatChoice { format: EditFormat::SearchReplace, whole_up_to: Some(400) };
        assert_eq!(small.for_files(&[120, 399]), EditFormat::Whole);
        assert_eq!(small.for_files(&[120, 401]), EditFormat::SearchReplace);
        assert_eq!(small.for_files(&[]), EditFormat::SearchReplace);
        assert_eq!(EditFormatChoice::fixed(EditFormat::Udiff).for_files(&[3]), EditFormat::Udiff);
    }
}
