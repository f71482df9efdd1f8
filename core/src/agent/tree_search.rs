//! APR-MCTS driven by the model: select a node by UCB, expand it by sampling several answers, evaluate each distinct
//! candidate, back-propagate, and stop when a candidate passes validation or the rounds run out.
//!
//! How a node is expanded depends on its candidate's shape ([`crate::mcts::classify()`]): the root is expanded with the
//! ordinary patch prompt; a single-line or single-hunk candidate with the masked `>>> [ INFILL ] <<<` prompt; a
//! single-function candidate with the whole-function prompt; anything else with a refinement prompt showing the
//! parent's diff and what was learnt about it.
//!
//! Rewards come from the validation run ([`RunOutcome`]): it passes → the search ends; an error (crash other than
//! an assertion, timeout) → -1; a failure the same as the parent's (same exit code, same final error line) → 0; any
//! other failure → the model's 0-100 rating / 100. Without a runner, every applicable candidate is rated by the model.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::patch_writer::PatchWriter;
use super::reproduce::{Check, Reproduction};
use super::search_loop::Found;
use super::transcript::TreeNode;
use super::{Agent, AgentError, Event, Phase, RunPurpose, Verdict};
use crate::answers;
use crate::index::DefKind;
use crate::language::Language;
use crate::llm::{Llm, Message};
use crate::mcts::{BugType, Tree, TreePolicy, classify};
use crate::patch::diff::FileDiff;
use crate::patch::{self, Edit, EditFailure, ExtractOptions, ExtractStatus, Extraction, FileOrEditFailure};
use crate::prompt::{Prompt, text::INFILL_MASK};
use crate::runner::{RunOutcome, Runner};

/// A node's candidate.
#[derive(Debug, Clone, Default)]
pub struct Candidate {
    /// The diff against the original program as text, for prompts and runs (empty at the root).
    pub diff: String,
    /// The same changes as values (MCTS reads the bug's shape from them).
    pub changes: Vec<FileDiff>,
    /// What validation made of it (`None` at the root).
    pub verdict: Option<Verdict>,
    /// The validation run, when there was one (the root's is the reproducer on the original program).
    pub run: Option<RunOutcome>,
    /// What was learnt about it, for the next expansion's prompt.
    pub feedback: String,
}

/// How to prompt an expansion.
enum Mode {
    /// The ordinary patch prompt (root).
    Patch,
    /// Masked lines `start..=end` of `file`, shown within `window`.
    Infill { file: String, start: u32, end: u32, window: (u32, u32) },
    /// Rewrite the function at `start..=end` of `file`.
    Function { file: String, start: u32, end: u32 },
    /// Refine the parent's diff.
    Refine,
}

/// Runs the search; returns the best candidate's extraction and whether validation passed.
pub async fn run<L: Llm, R: Runner>(
    agent: &mut Agent<L, R>,
    issue: &str,
    found: &Found,
    reproduction: Option<&Reproduction>,
) -> Result<(Extraction, bool), AgentError> {
    agent.emit(Event::Phase { name: Phase::Mcts });
    if !found.locations.is_empty() {
        agent.emit(Event::Shown { units: super::patch_writer::shown_units(found) });
    }
    let cfg = agent.config.mcts.clone();
    let policy = TreePolicy { exploration: cfg.exploration, ..TreePolicy::default() };
    let mut tree = Tree::new(Candidate::default(), policy, cfg.seed);
    let writer = PatchWriter::new(found);
    let format = PatchWriter::format_for(&agent.config.edit_format, &agent.repo, found);
    let base = PatchWriter::opening_messages(issue, found, format);
    let options = ExtractOptions { asked: Some(format.format), ..writer.options().clone() };
    let mut best: BTreeMap<usize, Extraction> = BTreeMap::new();
    // With a runner, candidates are validated by a reproducer that fails on the original program; its output
    // there is the root's evidence, so children that fail the same way score 0.
    let check = reproduction.map(|r| &r.check);
    if let Some(r) = reproduction {
        let root = &mut tree.nodes[0].state;
        root.feedback =
            format!("the reproducer still fails:\n{}", tail(&format!("{}{}", r.before.stdout, r.before.stderr)));
        root.run = Some(r.before.clone());
    }

    for iteration in 1..=cfg.max_rounds {
        let Some(node) = tree.select() else {
            agent.note("every branch of the search tree is exhausted");
            break;
        };
        let mode = mode_for(agent, &tree.nodes[node].state);
        let (messages, kind) = messages_for(&agent.repo, &base, &mode, &tree.nodes[node].state, format);
        let mut children = Vec::new();
        let mut seen: Vec<String> = tree.nodes.iter().map(|n| n.state.diff.clone()).collect();
        let mut passed = None;
        for _ in 0..cfg.samples {
            if children.len() >= cfg.branch {
                break;
            }
            let mut request = crate::llm::ChatRequest::new(crate::llm::Stage::Patch, messages.clone())
                .with_temperature(cfg.temperature);
            let answer = agent
                .send(&mut request, kind)
                .await
                .inspect_err(|_| keep_partial(agent, &tree, iteration, node, &children))?
                .text;
            let extraction = extract_for(agent, &mode, &answer, &options);
            if let Some(problem) = syntax_error(&extraction) {
                // APR-MCTS: a candidate that does not compile is an error with reward -1. It stays in the tree as a
                // leaf that is never expanded, so its parent's value falls.
                let candidate = Candidate {
                    diff: String::new(),
                    changes: Vec::new(),
                    verdict: Some(Verdict::Error),
                    run: None,
                    feedback: format!("it does not compile: {problem}"),
                };
                let id = tree.add_child(node, candidate, answers::reflection(&answer), -1.0);
                tree.mark_expanded(id);
                children.push((id, -1.0));
                continue;
            }
            if !extraction.status.is_applicable() || seen.contains(&extraction.diff) {
                continue;
            }
            seen.push(extraction.diff.clone());
            let parent = tree.nodes[node].state.run.clone();
            let (reward, mut candidate) = evaluate(agent, issue, check, &extraction, parent.as_ref())
                .await
                .inspect_err(|_| keep_partial(agent, &tree, iteration, node, &children))?;
            if extraction.is_partial_for_ambiguity() {
                // Only part of the answer applied: its refinement is told which edits were left out and where their
                // originals occur, as the patch writer tells a retry.
                let _ = write!(
                    candidate.feedback,
                    "; and some of its edits were left out because their <original> matches several places:\n{}",
                    extraction.ambiguity_list()
                );
            }
            let is_pass = candidate.verdict == Some(Verdict::Pass);
            let id = tree.add_child(node, candidate, answers::reflection(&answer), reward);
            best.insert(id, extraction);
            children.push((id, reward));
            if is_pass {
                passed = Some(id);
                break;
            }
        }
        tree.mark_expanded(node);
        tree.backpropagate(node);
        let snapshot = snapshot(&tree);
        agent.emit(Event::Mcts { iteration, node, children, tree: snapshot });
        if let Some(id) = passed {
            return Ok((best.remove(&id).expect("recorded"), true));
        }
    }
    let pick = tree.best_by(|n| !n.state.diff.is_empty() && n.state.verdict != Some(Verdict::Error));
    match pick.and_then(|id| best.remove(&id)) {
        Some(extraction) => Ok((extraction, false)),
        None => Ok((
            Extraction {
                status: ExtractStatus::NoPatch,
                reason: "the tree search produced no applicable candidate".into(),
                diff: String::new(),
                changes: Vec::new(),
                edits: Vec::new(),
                files: BTreeMap::new(),
                parse_issues: Vec::new(),
                formats: Vec::new(),
            },
            false,
        )),
    }
}

/// Chooses the prompt mode from a node's candidate.
fn mode_for<L: Llm, R: Runner>(agent: &Agent<L, R>, candidate: &Candidate) -> Mode {
    let Some((file, first)) = candidate.changes.iter().find_map(|d| Some((d.path.clone(), d.hunks.first()?))) else {
        return Mode::Patch;
    };
    let removed = first.removed_lines();
    let function_at = |file: &str, line: u32| innermost_function(agent, file, line);
    match classify(&candidate.changes, function_at) {
        BugType::SL | BugType::SH if !removed.is_empty() => {
            let (start, end) = (removed[0], *removed.last().expect("non-empty"));
            let window = innermost_function(agent, &file, start)
                .filter(|&(s, e)| s <= start && end <= e)
                .unwrap_or((start.saturating_sub(5).max(1), end + 5));
            Mode::Infill { file, start, end, window }
        }
        BugType::SF => {
            let line = removed.first().copied().unwrap_or(first.anchor());
            match innermost_function(agent, &file, line) {
                Some((start, end)) => Mode::Function { file, start, end },
                None => Mode::Refine,
            }
        }
        _ => Mode::Refine,
    }
}

/// The innermost function or method of the original file containing a line.
fn innermost_function<L: Llm, R: Runner>(agent: &Agent<L, R>, file: &str, line: u32) -> Option<(u32, u32)> {
    let id = agent.index.file_id(file)?;
    agent.index.files[id as usize]
        .defs
        .iter()
        .filter(|d| d.kind != DefKind::Class && d.start <= line && line <= d.end)
        .min_by_key(|d| d.end - d.start)
        .map(|d| (d.start, d.end))
}

fn original_lines(agent_repo: &crate::repo::Repo, file: &str, start: u32, end: u32) -> Vec<String> {
    let text = agent_repo.file(file).unwrap_or("");
    text.lines()
        .skip(start.saturating_sub(1) as usize)
        .take((end + 1).saturating_sub(start) as usize)
        .map(str::to_string)
        .collect()
}

/// The conversation for an expansion (the patch prompt, plus the mode's request) and the kind of its last prompt.
fn messages_for(
    repo: &crate::repo::Repo,
    base: &[Message],
    mode: &Mode,
    candidate: &Candidate,
    format: crate::prompt::AskedFormat,
) -> (Vec<Message>, crate::prompt::PromptKind) {
    let masked;
    let code;
    let prompt = match mode {
        Mode::Patch => {
            let kind =
                crate::prompt::PromptKind::recognise(base).unwrap_or(crate::prompt::PromptKind::PatchWithLocations);
            return (base.to_vec(), kind);
        }
        Mode::Refine => Prompt::Refine { parent_patch: &candidate.diff, feedback: &candidate.feedback, format },
        Mode::Infill { file, start, end, window } => {
            let lines = original_lines(repo, file, window.0, window.1);
            let mut kept = Vec::new();
            for (i, line) in lines.iter().enumerate() {
                let n = window.0 + i as u32;
                if n == *start {
                    let indent: String = line.chars().take_while(|c| c.is_whitespace()).collect();
                    kept.push(format!("{indent}{INFILL_MASK}"));
                } else if n < *start || n > *end {
                    kept.push(line.clone());
                }
            }
            masked = kept.join("\n");
            Prompt::Infill { file, masked_code: &masked, feedback: &candidate.feedback }
        }
        Mode::Function { file, start, end } => {
            code = original_lines(repo, file, *start, *end).join("\n");
            Prompt::RewriteFunction { file, code: &code, feedback: &candidate.feedback }
        }
    };
    (prompt.request(base).messages, prompt.kind())
}

/// Turns an answer into an extraction according to the prompt mode.
fn extract_for<L: Llm, R: Runner>(
    agent: &Agent<L, R>,
    mode: &Mode,
    answer: &str,
    options: &ExtractOptions,
) -> Extraction {
    let (file, start, end) = match mode {
        Mode::Patch | Mode::Refine => return patch::extract(&agent.repo, answer, options),
        Mode::Infill { file, start, end, .. } | Mode::Function { file, start, end } => (file, *start, *end),
    };
    // Masked and whole-function answers carry only code: the lines they replace are known.
    let code = answers::code_block(answer, Language::for_path(file)).unwrap_or_default();
    let original = original_lines(&agent.repo, file, start, end).join("\n");
    let edit = Edit {
        index: 1,
        file: file.clone(),
        original,
        patched: code.trim_end_matches('\n').to_string(),
        had_line_numbers: false,
        format: patch::EditFormat::Acr,
        line: None,
    };
    patch::extract_edits(&agent.repo, &[edit], options, &mut crate::gate::Gate::new())
}

/// Why a candidate that applied nowhere was refused by the syntax gate, if it was.
fn syntax_error(extraction: &Extraction) -> Option<String> {
    if extraction.status.is_applicable() {
        return None;
    }
    extraction.edits.iter().find_map(|e| match &e.outcome {
        patch::Outcome::Failed {
            failure: failure @ FileOrEditFailure::Edit { failure: EditFailure::BreaksSyntax { .. } },
        } => Some(failure.to_string()),
        _ => None,
    })
}

/// Validates a candidate and computes its reward from the validation run: passes → 1, crashes or times out → -1,
/// fails the same way as its parent → 0, otherwise the model's rating.
async fn evaluate<L: Llm, R: Runner>(
    agent: &mut Agent<L, R>,
    issue: &str,
    check: Option<&Check>,
    extraction: &Extraction,
    parent: Option<&RunOutcome>,
) -> Result<(f64, Candidate), AgentError> {
    let diff = extraction.diff.clone();
    if let Some(check) = check
        && let Some(run) = agent.execute(RunPurpose::Validation, &diff, &check.file_refs(), &check.command).await?
    {
        let output = tail(&format!("{}{}", run.stdout, run.stderr));
        let verdict = Verdict::of(&run);
        let (reward, feedback) = match verdict {
            Verdict::Pass => (1.0, "validation passed".to_string()),
            Verdict::Error => (-1.0, format!("it crashed or timed out:\n{output}")),
            _ if parent.is_some_and(|p| p.same_failure(&run)) => {
                (0.0, format!("the reproducer still fails:\n{output}"))
            }
            _ => {
                let feedback = format!("the reproducer still fails:\n{output}");
                (rate(agent, issue, &diff, &feedback).await?, feedback)
            }
        };
        let changes = extraction.changes.clone();
        return Ok((reward, Candidate { diff, changes, verdict: Some(verdict), run: Some(run), feedback }));
    }
    let score = rate(agent, issue, &diff, "No execution was available; judge from the code alone.").await?;
    let feedback = format!("the model rated it {:.0}/100", score * 100.0);
    let changes = extraction.changes.clone();
    Ok((score, Candidate { diff, changes, verdict: Some(Verdict::Rated), run: None, feedback }))
}

/// Asks the model for a 0-100 rating; unreadable answers count as 0.
async fn rate<L: Llm, R: Runner>(
    agent: &mut Agent<L, R>,
    issue: &str,
    diff: &str,
    evidence: &str,
) -> Result<f64, AgentError> {
    let answer = agent.ask(&Prompt::Rate { issue, patch: diff, evidence }).await?;
    Ok(f64::from(answers::rating(&answer).unwrap_or(0)) / 100.0)
}

fn tail(s: &str) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(15)..].join("\n")
}

/// Records an expansion cut short (the model stopped answering, e.g. its budget ran out), so the candidates it made
/// stay in the transcript for the best-patch-so-far.
fn keep_partial<L: Llm, R: Runner>(
    agent: &mut Agent<L, R>,
    tree: &Tree<Candidate>,
    iteration: usize,
    node: usize,
    children: &[(usize, f64)],
) {
    if !children.is_empty() {
        agent.emit(Event::Mcts { iteration, node, children: children.to_vec(), tree: snapshot(tree) });
    }
}

fn snapshot(tree: &Tree<Candidate>) -> Vec<TreeNode> {
    tree.nodes
        .iter()
        .enumerate()
        .map(|(id, n)| TreeNode {
            id,
            parent: n.parent,
            visits: n.visits,
            value: n.value,
            diff: n.state.diff.clone(),
            reflection: n.reflection.clone(),
            verdict: n.state.verdict,
        })
        .collect()
}
