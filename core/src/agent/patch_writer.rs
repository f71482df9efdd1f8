//! The patch writer: asks for edits in the format [`AgentConfig::edit_format`] chooses (AutoCodeRover's
//! `<file>/<original>/<patched>` by default; whole files for short files when the model's row says so), applies
//! them through the edits layer (which reads every format), and feeds the reason back when they do not apply, up to
//! [`AgentConfig::patch_attempts`] times. When no edit at all could be read, the retry shows the model the start of
//! its answer next to the format asked for. A patch that applies but is one the writer already produced (the model
//! wrote it again after the reviewer or a run judged it) is refused the same way while attempts remain; with bug
//! locations and a judged fix, the refusal starts a new conversation instead ([`Prompt::PatchAfresh`]): the opening
//! request with the fixes tried so far and what the reproducer printed on each. A small model that repeats itself
//! does so because its own answer is in the conversation (Qwen2.5-Coder-1.5B wrote one wrong `kheapsort` nine times
//! in a row, told each time that it had written it before).
//!
//! With bug locations, the conversation starts fresh with the issue and each location's code and intended
//! behaviour; without, it continues the search conversation. The writer keeps its conversation so the review loop
//! can send a reviewer's advice back to it.
//!
//! [`AgentConfig::patch_attempts`]: super::AgentConfig::patch_attempts
//! [`AgentConfig::edit_format`]: super::AgentConfig::edit_format

use super::search_loop::Found;
use super::{Agent, AgentError, Event, Phase, ShownUnit};
use crate::language::Language;
use crate::llm::{Llm, Message};
use crate::locate::{BugLocation, ContextKind};
use crate::patch::{self, BugLine, EditFormat, EditFormatChoice, ExtractOptions, ExtractStatus, Extraction};
use crate::prompt::text::{ANSWER_START_CHARS, NO_CODE_CHANGED, SAME_PATCH_AGAIN};
use crate::prompt::{AskedFormat, Prompt, Tried};
use crate::repo::Repo;
use crate::runner::{RunOutcome, Runner};

/// A patch-writing conversation.
#[derive(Debug, Clone)]
pub struct PatchWriter {
    /// The conversation so far, up to the last answer.
    messages: Vec<Message>,
    /// Feedback waiting to be sent with the next request (the first request when nothing was written yet).
    pending: Option<Pending>,
    options: ExtractOptions,
    attempts: usize,
    /// The diffs of the applicable patches written so far.
    written: Vec<String>,
    /// The patches the reproducer ran on, with what it gave, oldest first.
    tried: Vec<Tried>,
    /// The patches sent back because they change only comments, docstrings or blank lines, or nothing at all.
    no_code: Vec<String>,
}

/// The next request's words, when it is not the opening one.
#[derive(Debug, Clone)]
enum Pending {
    /// The opening request.
    Start,
    /// Why the last patch did not apply, and the start of the answer when no edit could be read from it.
    Retry(String, String),
    /// The last patch applied only in part: these edits were refused as ambiguous (with their places).
    Ambiguous(String),
    /// What the reviewer said of the patch.
    Review { analysis: String, advice: String },
    /// What validation by execution said of a patch a reviewer had judged right.
    Validation(String),
    /// A new conversation: the opening request with the fixes tried.
    Afresh,
}

impl PatchWriter {
    /// Starts the conversation for an issue and what the search found.
    pub fn new(found: &Found) -> Self {
        let messages = if found.locations.is_empty() { found.conversation.clone() } else { Vec::new() };
        let bug_lines = found
            .locations
            .iter()
            .map(|l| BugLine { file: l.file.clone(), line: l.start, end: Some(l.end) })
            .collect::<Vec<_>>();
        PatchWriter {
            messages,
            pending: Some(Pending::Start),
            options: ExtractOptions { bug_lines, ..ExtractOptions::default() },
            attempts: 0,
            written: Vec::new(),
            tried: Vec::new(),
            no_code: Vec::new(),
        }
    }

    /// The request that opens the conversation, asking for edits in `format`.
    pub fn opening<'a>(issue: &'a str, found: &'a Found, format: AskedFormat) -> Prompt<'a> {
        if found.locations.is_empty() {
            Prompt::PatchFromConversation { format }
        } else {
            Prompt::PatchWithLocations { issue, locations: &found.locations, context: &found.context, format }
        }
    }

    /// The messages of the opening request (after the search conversation when there are no locations).
    pub fn opening_messages(issue: &str, found: &Found, format: AskedFormat) -> Vec<Message> {
        let history = if found.locations.is_empty() { found.conversation.as_slice() } else { &[] };
        PatchWriter::opening(issue, found, format).request(history).messages
    }

    /// The format to ask for: the choice, given the length of the files at the bug locations, in the language of
    /// the first location's file (Python's when there is none).
    pub fn format_for(choice: &EditFormatChoice, repo: &Repo, found: &Found) -> AskedFormat {
        let mut files: Vec<&str> = found.locations.iter().map(|l| l.file.as_str()).collect();
        files.dedup();
        let counts: Vec<usize> = files.iter().filter_map(|f| repo.file(f)).map(|t| t.lines().count()).collect();
        let language = files.first().and_then(|f| Language::of_path(f)).unwrap_or_default();
        AskedFormat { format: choice.for_files(&counts), language }
    }

    /// The conversation so far.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// The options used to apply answers (bug lines break ties between duplicate matches).
    pub fn options(&self) -> &ExtractOptions {
        &self.options
    }

    /// Passes a reviewer's judgement to the next [`PatchWriter::write`].
    pub fn review_feedback(&mut self, analysis: &str, advice: &str) {
        self.pending = Some(Pending::Review { analysis: analysis.to_string(), advice: advice.to_string() });
    }

    /// Passes a failed validation of a patch the reviewer judged right to the next [`PatchWriter::write`].
    pub fn validation_feedback(&mut self, message: &str) {
        self.pending = Some(Pending::Validation(message.to_string()));
    }

    /// Whether a patch that changes no code (`diff`, its diff) was sent back once already, so that a new
    /// conversation is due (with bug locations to show it); else it is remembered as sent back now.
    fn sent_back_before(&mut self, diff: &str, found: &Found) -> bool {
        if self.no_code.iter().any(|d| d == diff) && !found.locations.is_empty() {
            return true;
        }
        self.no_code.push(diff.to_string());
        false
    }

    /// Drops the conversation: the next request opens a new one, showing the fixes tried when there are any.
    fn start_afresh(&mut self) {
        self.messages.clear();
        self.pending = Some(if self.tried.is_empty() { Pending::Start } else { Pending::Afresh });
    }

    /// Drops the conversation: the next request is the opening one again, a new sample of the model that knows
    /// nothing of the fixes tried. With the reproducer as the judge, a failed patch is followed by a new sample
    /// rather than a revision: a small model shown its wrong fix mostly rewrites that fix (Qwen2.5-Coder-1.5B's
    /// revisions of QuixBugs' kheapsort, rpn_eval, powerset and subsequences never found the fix, over 26 answers on
    /// one program), and one shown the fixes tried wrote none that passed, where the opening request alone
    /// sometimes did.
    pub fn sample_again(&mut self) {
        self.messages.clear();
        self.pending = Some(Pending::Start);
    }

    /// Records the reproducer's run on a patch this writer wrote, for a conversation that starts afresh.
    pub fn ran(&mut self, diff: &str, run: &RunOutcome) {
        self.tried.retain(|t| t.diff != diff);
        self.tried.push(Tried { diff: diff.to_string(), run: run.clone() });
    }

    /// Asks for a patch until one applies whole or the attempts run out; returns the last extraction, or the last
    /// partial patch when the attempts ran out.
    ///
    /// A patch that applies while some of its edits were refused as ambiguous (their original occurs in several
    /// places and no bug location decides) is not done: the model is shown the places and asked again. Only when
    /// the attempts run out is such a partial patch kept, with a note in the transcript.
    pub async fn write<L: Llm, R: Runner>(
        &mut self,
        agent: &mut Agent<L, R>,
        issue: &str,
        found: &Found,
    ) -> Result<Extraction, AgentError> {
        agent.emit(Event::Phase { name: Phase::Patch });
        let mut last = None;
        let mut partial: Option<(usize, Extraction)> = None;
        for _ in 0..agent.config.patch_attempts.max(1) {
            self.attempts += 1;
            let pending = self.pending.take().unwrap_or(Pending::Start);
            if matches!(pending, Pending::Start) && !found.locations.is_empty() {
                agent.emit(Event::Shown { units: shown_units(found) });
            }
            let format = PatchWriter::format_for(&agent.config.edit_format, &agent.repo, found);
            self.options.asked = Some(format.format);
            let prompt = match &pending {
                Pending::Start => PatchWriter::opening(issue, found, format),
                Pending::Retry(reason, answer_start) => Prompt::PatchRetry { reason, format, answer_start },
                Pending::Ambiguous(refused) => Prompt::PatchAmbiguous { refused, format },
                Pending::Review { analysis, advice } => Prompt::ReviewFeedback { analysis, advice, format },
                Pending::Validation(message) => Prompt::ValidationFeedback { message, format },
                Pending::Afresh => Prompt::PatchAfresh {
                    issue,
                    locations: &found.locations,
                    context: &found.context,
                    tried: &self.tried,
                    format,
                },
            };
            let answer = agent.converse(&mut self.messages, &prompt).await?;
            let extraction = patch::extract(&agent.repo, &answer, &self.options);
            agent.emit(Event::Patch {
                attempt: self.attempts,
                status: extraction.status,
                diff: extraction.diff.clone(),
                reason: extraction.reason.clone(),
                edits: extraction.edits.iter().map(|e| e.message()).collect(),
            });
            if extraction.is_partial_for_ambiguity() {
                self.pending = Some(Pending::Ambiguous(extraction.ambiguity_list()));
                partial = Some((self.attempts, extraction));
                continue;
            }
            if extraction.status.is_applicable() {
                // Asked for definitions, a model that shows its definition unchanged but for a docstring or comment
                // has not written the fix: it hears so, while attempts remain.
                let (note, reason) = if format.format == EditFormat::Definition && !extraction.changes_code(&agent.repo)
                {
                    if self.sent_back_before(&extraction.diff, found) {
                        // Told once, a small model writes the same answer again and again (Qwen2.5-Coder-1.5B, 12
                        // times in a row on QuixBugs' powerset): a new conversation asks afresh.
                        agent.note(
                            "the patch changes only comments again, as before; a new conversation asks for the fix",
                        );
                        self.start_afresh();
                        last = Some(extraction);
                        continue;
                    }
                    (
                        "the patch changes only comments, docstrings or blank lines; asking for the fix in the code",
                        NO_CODE_CHANGED,
                    )
                } else if self.written.contains(&extraction.diff) {
                    // Written again after it was judged (a small model at its default temperature repeats itself
                    // word for word): with fixes tried at the bug locations, a new conversation shows them; else it
                    // hears so. Either way while attempts remain, and the review sees it only if they run out.
                    if !found.locations.is_empty() && !self.tried.is_empty() {
                        agent.note(
                            "the patch is one written before; a new conversation asks for a different fix, showing \
                             the fixes tried and what the reproducer printed on each",
                        );
                        self.start_afresh();
                        last = Some(extraction);
                        continue;
                    }
                    (
                        "the patch is one written before in this conversation; asking for a different fix",
                        SAME_PATCH_AGAIN,
                    )
                } else {
                    self.written.push(extraction.diff.clone());
                    return Ok(extraction);
                };
                last = Some(extraction);
                agent.note(note);
                self.pending = Some(Pending::Retry(reason.to_string(), String::new()));
                continue;
            }
            if extraction.status == ExtractStatus::MatchedButEmptyDiff {
                // The code given back unchanged: told once, a small model gives it back again and again
                // (Qwen2.5-Coder-1.5B, all nine answers over three tries on QuixBugs' powerset), so from the second
                // time on a new conversation asks afresh, as for a patch that changes only comments.
                if self.sent_back_before(&extraction.diff, found) {
                    agent.note("the code was given back unchanged again; a new conversation asks for the fix");
                    self.start_afresh();
                    last = Some(extraction);
                    continue;
                }
            }
            let answer_start = if extraction.status == ExtractStatus::RawPatchButUnparsed {
                answer.chars().take(ANSWER_START_CHARS).collect()
            } else {
                String::new()
            };
            self.pending = Some(Pending::Retry(super::describe(&extraction), answer_start));
            last = Some(extraction);
        }
        if let Some((attempt, extraction)) = partial {
            let edits: Vec<String> = extraction.ambiguous_edits().map(|e| e.index.to_string()).collect();
            agent.note(format!(
                "the patch attempts ran out with ambiguous edits; keeping the partial patch of attempt {attempt}, \
                 without its edit(s) {}",
                edits.join(", ")
            ));
            return Ok(extraction);
        }
        Ok(last.expect("at least one attempt"))
    }
}

/// The code units the opening request shows, locations first, each with why it is shown.
pub fn shown_units(found: &Found) -> Vec<ShownUnit> {
    let unit = |l: &BugLocation, why: String| ShownUnit {
        file: l.file.clone(),
        class: l.class.clone(),
        method: l.method.clone(),
        start: l.start,
        end: l.end,
        why,
    };
    let locations = found.locations.iter().enumerate().map(|(i, l)| unit(l, format!("bug location #{}", i + 1)));
    let context = found.context.iter().map(|c| {
        let n = c.for_location + 1;
        let why = match &c.kind {
            ContextKind::EnclosingClass => format!("the whole class of location #{n}"),
            ContextKind::AncestorMethod { class, depth } => {
                format!("the definition in ancestor `{class}` (depth {depth}) that location #{n} overrides")
            }
        };
        unit(&c.location, why)
    });
    locations.chain(context).collect()
}
