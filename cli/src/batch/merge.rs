//! `acr batch merge OUT... --into DIR`: the predictions of several batch folders (the shards of one task list, or
//! reruns) as one predictions file, with one line per instance id, and their batch.json records side by side.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;

use super::predictions::{self, Prediction};
use super::tasks;
use super::{files, journal};

/// Merges the folders `outs` into `into`; with `tasks_file`, names the tasks that have no prediction.
pub fn run(outs: &[PathBuf], into: &Path, tasks_file: Option<&Path>) -> anyhow::Result<ExitCode> {
    let mut predictions: Vec<Prediction> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut records: Vec<serde_json::Value> = Vec::new();
    let mut conflicts = 0;
    for out in outs {
        let path = out.join("predictions.jsonl");
        anyhow::ensure!(path.is_file(), "{} is not a batch folder: it has no predictions.jsonl", out.display());
        let read = predictions::read(&path)?;
        if read.torn > 0 || read.unreadable > 0 {
            eprintln!(
                "acr batch merge: {}: left out a line cut short and {} unreadable lines (resume that batch to finish it)",
                path.display(),
                read.unreadable
            );
        }
        for p in read.predictions {
            match index.get(&p.instance_id) {
                Some(&n) => {
                    if predictions[n] != p {
                        conflicts += 1;
                        eprintln!(
                            "acr batch merge: {} is predicted twice, differently: the first (from an earlier folder) is kept",
                            p.instance_id
                        );
                    }
                }
                None => {
                    index.insert(p.instance_id.clone(), predictions.len());
                    predictions.push(p);
                }
            }
        }
        records.extend(batch_records(out)?);
    }
    // One record per task: a done one when some folder has it done.
    let mut kept: Vec<serde_json::Value> = Vec::new();
    let mut by_id: HashMap<String, usize> = HashMap::new();
    for record in records {
        let id = record["instance_id"].as_str().unwrap_or_default().to_string();
        let done = record["status"] == "done";
        match by_id.get(&id) {
            Some(&n) if done && kept[n]["status"] != "done" => kept[n] = record,
            Some(_) => {}
            None => {
                by_id.insert(id, kept.len());
                kept.push(record);
            }
        }
    }
    let missing: Vec<String> = match tasks_file {
        Some(file) => {
            let listed = tasks::load(file)?;
            let ids: HashSet<&str> = listed.iter().map(|t| t.instance_id.as_str()).collect();
            let strays = predictions.iter().filter(|p| !ids.contains(p.instance_id.as_str())).count();
            if strays > 0 {
                eprintln!("acr batch merge: {strays} predictions are for tasks not in {}", file.display());
            }
            listed.into_iter().map(|t| t.instance_id).filter(|id| !index.contains_key(id)).collect()
        }
        None => Vec::new(),
    };
    std::fs::create_dir_all(into).with_context(|| format!("cannot create {}", into.display()))?;
    predictions::write_all(&into.join("predictions.jsonl"), &predictions)?;
    let patches = predictions.iter().filter(|p| !p.model_patch.is_empty()).count();
    let summary = serde_json::json!({
        "merged_from": outs,
        "predictions": predictions.len(),
        "patches": patches,
        "conflicts": conflicts,
        "missing": missing,
        "tasks": kept,
    });
    files::replace(&into.join("batch.json"), serde_json::to_string_pretty(&summary)?.as_bytes())?;
    eprintln!(
        "acr batch merge: {} predictions ({patches} with a patch) from {} folders into {}{}",
        predictions.len(),
        outs.len(),
        into.join("predictions.jsonl").display(),
        if tasks_file.is_some() { format!("; {} tasks have none", missing.len()) } else { String::new() }
    );
    for id in &missing {
        eprintln!("  no prediction: {id}");
    }
    Ok(if missing.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// The task records of `out`: each task's last record in its journal, or, for a folder without one, the records of
/// its batch.json (none if it has neither); each with the folder holding its transcript.
fn batch_records(out: &Path) -> anyhow::Result<Vec<serde_json::Value>> {
    let past = journal::read(&out.join("journal.jsonl"))?;
    let mut values: Vec<serde_json::Value> = Vec::new();
    if past.runs > 0 {
        let mut records: Vec<_> = past.records.into_values().collect();
        records.sort_by(|a, b| a.instance_id.cmp(&b.instance_id));
        for record in records {
            values.push(serde_json::to_value(record)?);
        }
    } else {
        let path = out.join("batch.json");
        let Ok(text) = std::fs::read_to_string(&path) else { return Ok(Vec::new()) };
        let json: serde_json::Value =
            serde_json::from_str(&text).with_context(|| format!("{} is not JSON", path.display()))?;
        values.extend(json["tasks"].as_array().into_iter().flatten().cloned());
    }
    for value in &mut values {
        // Records of an earlier merge already say where they come from.
        if value.get("folder").is_none() {
            let id = value["instance_id"].as_str().unwrap_or_default().to_string();
            value["folder"] = serde_json::json!(out.join(id));
        }
    }
    Ok(values)
}
