//! What model calls cost: a price per million tokens, in and out, looked up by model name.
//!
//! [`PriceTable::default`] holds OpenAI's list prices (standard tier, US dollars, as published in 2025) for common
//! models; they change, so the table is editable (the playground's settings, `acr run --price MODEL=IN/OUT`). A model
//! matches the longest entry that is its whole name or a prefix followed by `-` (`gpt-4o-2024-08-06` is `gpt-4o`,
//! `gpt-4o-mini` is `gpt-4o-mini`). Local servers cost nothing here: a money budget needs a price for the model.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::Usage;

/// US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Price {
    /// Per million prompt tokens.
    pub input: f64,
    /// Per million answer tokens.
    pub output: f64,
}

impl Price {
    /// Dollars for a usage.
    pub fn cost(&self, usage: Usage) -> f64 {
        (usage.prompt_tokens as f64 * self.input + usage.completion_tokens as f64 * self.output) / 1_000_000.0
    }
}

impl fmt::Display for Price {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.input, self.output)
    }
}

/// Prices by model name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PriceTable {
    /// Model name (or name prefix) to price.
    pub prices: BTreeMap<String, Price>,
}

/// OpenAI list prices, dollars per million tokens in and out.
const OPENAI: [(&str, f64, f64); 14] = [
    ("gpt-5", 1.25, 10.0),
    ("gpt-5-mini", 0.25, 2.0),
    ("gpt-5-nano", 0.05, 0.4),
    ("gpt-4.1", 2.0, 8.0),
    ("gpt-4.1-mini", 0.4, 1.6),
    ("gpt-4.1-nano", 0.1, 0.4),
    ("gpt-4o", 2.5, 10.0),
    ("gpt-4o-mini", 0.15, 0.6),
    ("gpt-4-turbo", 10.0, 30.0),
    ("gpt-3.5-turbo", 0.5, 1.5),
    ("o1", 15.0, 60.0),
    ("o3", 2.0, 8.0),
    ("o3-mini", 1.1, 4.4),
    ("o4-mini", 1.1, 4.4),
];

impl Default for PriceTable {
    fn default() -> Self {
        let prices = OPENAI.iter().map(|&(m, input, output)| (m.to_string(), Price { input, output })).collect();
        PriceTable { prices }
    }
}

impl PriceTable {
    /// The price of a model: the longest entry naming it or a `-`-separated prefix of it.
    pub fn lookup(&self, model: &str) -> Option<Price> {
        let model = model.rsplit('/').next().unwrap_or(model);
        self.prices
            .iter()
            .filter(|(name, _)| {
                model == name.as_str() || model.strip_prefix(name.as_str()).is_some_and(|rest| rest.starts_with('-'))
            })
            .max_by_key(|(name, _)| name.len())
            .map(|(_, p)| *p)
    }

    /// Sets a price from `MODEL=IN/OUT` (dollars per million tokens), as `--price` takes it.
    pub fn set_from(&mut self, spec: &str) -> Result<(), String> {
        let bad =
            || format!("`{spec}` is not a price: write MODEL=IN/OUT in dollars per million tokens, e.g. gpt-4o=2.5/10");
        let (model, rates) = spec.split_once('=').ok_or_else(bad)?;
        let (input, output) = rates.split_once('/').ok_or_else(bad)?;
        let rate = |s: &str| s.trim().parse::<f64>().ok().filter(|r| r.is_finite() && *r >= 0.0).ok_or_else(bad);
        let price = Price { input: rate(input)?, output: rate(output)? };
        let model = model.trim();
        if model.is_empty() {
            return Err(bad());
        }
        self.prices.insert(model.to_string(), price);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_match_their_longest_entry() {
        let table = PriceTable::default();
        assert_eq!(table.lookup("gpt-4o").unwrap().input, 2.5);
        assert_eq!(table.lookup("gpt-4o-2024-08-06").unwrap().input, 2.5);
        assert_eq!(table.lookup("gpt-4o-mini").unwrap().input, 0.15);
        assert_eq!(table.lookup("openai/gpt-4o-mini-2024-07-18").unwrap().output, 0.6);
        assert_eq!(table.lookup("o3-mini").unwrap().input, 1.1);
        assert_eq!(table.lookup("gpt-4oo"), None);
        assert_eq!(table.lookup("qwen3:8b"), None);
    }

    #[test]
    fn prices_are_set_from_flags_and_cost_is_per_million() {
        let mut table = PriceTable::default();
        table.set_from("qwen3:8b=0.2/0.8").unwrap();
        let price = table.lookup("qwen3:8b").unwrap();
        let cost = price.cost(Usage { prompt_tokens: 1_000_000, completion_tokens: 500_000 });
        assert!((cost - 0.6).abs() < 1e-9);
        for bad in ["gpt-4o", "gpt-4o=1", "=1/2", "m=x/1", "m=-1/2", "m=NaN/1"] {
            assert!(table.set_from(bad).unwrap_err().contains("MODEL=IN/OUT"), "{bad}");
        }
    }
}
