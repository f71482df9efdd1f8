//! Reproduce first: before the search, when a runner is available, ask whether the issue has a runnable example,
//! get a standalone `reproducer.py` that fails with an `AssertionError` on the original program, and keep what it
//! printed. Its standard error (the stack trace) goes into the first search request as a clue; the script validates
//! patches later (the reviewer's runs, MCTS rewards).
//!
//! What the reproducer is, how it is asked for and how it runs is the repository's language's row
//! ([`crate::language::Reproducer`]). A language whose row runs the repository's own tests first (Java, by
//! [`crate::language::junit`]) is reproduced by them: the tests that fail on the original program are the bug, as in APR-MCTS,
//! and no test is written. When they all pass, the model is asked for a test (Java: a JUnit class,
//! `AcrReproducerTest.java`) that fails, run with them by the same harness.
//!
//! # A reproducer that does not reproduce
//!
//! AutoCodeRover's test agent (`app/agents/agent_reproducer.py`, with `ReproResult` in `app/data_structures.py`
//! and the callers in `app/inference.py` and `app/api/review_manage.py`, at commit 3536ac29) handles it this way,
//! and so does this module:
//!
//! 1. **Is there an example at all?** The model is asked, in JSON, whether the issue holds a reproducible example;
//!    an answer that is not JSON with a boolean is asked for again, three tries in all. No example: no reproducer,
//!    and the run goes on without one. Here: [`REPRODUCIBLE_TRIES`] tries, the answer held to its JSON schema where
//!    the server can. After three unreadable answers ACR has no rule (the retry's error is caught by nothing, and
//!    the task fails); here they count as no example, with a note. One departure: an issue that calls code the
//!    repository defines inside code (`` `rpn_eval([3.0, 5.0, '+'])` returns 0.25 ``) shows its own example, and a
//!    reproducer is asked for whatever the answer ([`crate::issue_names::call_shown`]). Qwen2.5-Coder-1.5B answered
//!    "not reproducible" to 5 of the 16 QuixBugs issues it was asked about, each of which states the failing call.
//! 2. **Reproduced** means the script exited with a code other than 0 and its standard error holds
//!    `AssertionError` (a time-out counts as exit -1, with "Test execution timeout." as its error). A script that
//!    exits 0 on the buggy program, or fails some other way, did not reproduce the issue. Here:
//!    [`RunOutcome::reproduces_bug`], which also takes the Java harness's count of failed tests. One departure: a
//!    Python script that ends with the uncaught exception the issue names, raised in the repository's code (the
//!    issue says `gcd(13, 13)` "raises `RecursionError`", and so does the script), shows the bug as the issue tells
//!    it, and is kept (`raises_the_named_error`). Qwen2.5-Coder-1.5B wrote such a script three times over for
//!    gcd, each refused for having no `AssertionError`, and the run went on unvalidated.
//! 3. **Three attempts.** After a script that did not reproduce, the model is told so, with the exit code and what
//!    the script printed on standard output and standard error, and asked for the script again. Each new attempt
//!    starts a fresh conversation that holds the issue, the request, the *last* attempt and its feedback only
//!    (`num_feedbacks=1`), not every earlier attempt. Here: [`AgentConfig::reproducer_attempts`] (3), each retry
//!    the request, the last answer and [`Prompt::ReproducerFailed`] (the exit code, whether the time limit stopped
//!    it, the ends of stdout and stderr).
//! 4. An answer with no script in it (ACR wants exactly one code block) uses up its attempt; ACR says nothing
//!    about it and asks again as before. Here the model is told the script is missing
//!    ([`Prompt::ReproducerNoScript`]), with the same three attempts.
//! 5. **When every attempt fails,** ACR gives up on reproduction: the search gets no stack trace, and the patch is
//!    written without the reviewer (`write_patch_iterative`), so nothing is validated by execution. Here the same,
//!    and a note says so.
//! 6. A rewrite the reviewer asks for (its test judged wrong) gets three attempts too, each asked the same way: the
//!    test the reviewer judged and its advice (ACR shows the last test that reproduced with its feedback, so a
//!    rewrite that failed is not shown). When none reproduces, ACR ends the review, and so does [`super::review`].
//!    A rewrite that reproduces becomes the test, and the conversation behind it holds the request and it alone.
//!
//! ACR has a rule for every way a written reproducer fails to reproduce, so there is no case here of asking once
//! more beyond its attempts. Its rules are Python's; the JUnit test a Java repository's model writes goes through
//! the same ones. One departure, after the attempts: where the issue shows a call of the repository's code and the
//! value it should give, a script of that example ([`crate::issue_example`]) is run, and kept when it shows the bug
//! ([`Origin::IssueExample`]: the reviewer cannot have it rewritten, since it asserts what the issue states).
//!
//! [`AgentConfig::reproducer_attempts`]: super::AgentConfig::reproducer_attempts

use super::{Agent, AgentError, Event, Phase, RunPurpose};
use crate::answers;
use crate::language::{Language, ProjectTests};
use crate::llm::{Llm, Message};
use crate::prompt::Prompt;
use crate::runner::{RunOutcome, Runner};
use crate::script_check::Flaws;

/// How a reproducer runs: the files it adds to the repository and the command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// Files written into the run's folder beside the repository's (path, text).
    pub files: Vec<(String, String)>,
    /// The command line.
    pub command: String,
}

impl Check {
    /// The language's harness alone: the repository's own tests, as its row runs them.
    pub fn project_tests(language: Language) -> Check {
        let reproducer = &language.row().reproducer;
        let files = reproducer.harness.iter().map(|(p, t)| (p.to_string(), t.to_string())).collect();
        Check { files, command: reproducer.command.to_string() }
    }

    /// A reproducer the model wrote, in the repository's language: saved as its row says (`reproducer.py`, or a
    /// JUnit test class run with the repository's tests by the Java harness) beside the row's harness.
    pub fn written(language: Language, test: &str) -> Check {
        let mut check = Check::project_tests(language);
        check.files.push((language.row().reproducer.file.to_string(), test.to_string()));
        check
    }

    /// The files as the runner takes them.
    pub fn file_refs(&self) -> Vec<(&str, &str)> {
        self.files.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect()
    }
}

/// A reproducer that shows the bug, and its run on the original program.
#[derive(Debug, Clone)]
pub struct Reproduction {
    /// The script, or the source of the repository's failing tests: what a reviewer reads.
    pub test: String,
    /// The language `test` is written in.
    pub language: Language,
    /// Its run on the original program (fails with an `AssertionError`, with failing tests, or with the error the
    /// issue names).
    pub before: RunOutcome,
    /// The conversation that wrote it, so a reviewer's advice can continue it (empty for the repository's tests).
    pub conversation: Vec<Message>,
    /// How it runs.
    pub check: Check,
    /// Where it came from.
    pub origin: Origin,
    /// The issue's own examples as a second check ([`crate::issue_example`]), when the issue states some, their script
    /// shows the bug on the original program, and the reproducer is not that script already: a patch the reproducer
    /// passes on must pass it too.
    pub example: Option<Check>,
}

/// Where a reproducer came from: what may rewrite it, and what else checks a patch it passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The repository's own tests: never rewritten, and, run whole, the regression check as well.
    ProjectTests,
    /// A script the model wrote: a reviewer who judges it wrong has it rewritten, and the repository's tests that
    /// touch the changed files check for regressions.
    Model,
    /// A script written from the issue's own examples ([`crate::issue_example`]): never rewritten, since it asserts
    /// what the issue states, and the regression check as for the model's.
    IssueExample,
}

impl Origin {
    /// Whether a reviewer's advice may have the reproducer rewritten.
    pub fn rewritable(self) -> bool {
        self == Origin::Model
    }

    /// Whether a patch it passes still needs the repository's tests run for regressions.
    pub fn needs_regression_check(self) -> bool {
        self != Origin::ProjectTests
    }
}

impl Reproduction {
    /// What the reproducer printed to standard error on the original program: the clue for the search.
    pub fn trace(&self) -> &str {
        &self.before.stderr
    }
}

/// How many times the model is asked whether the issue has a reproducible example while its answer cannot be read
/// (AutoCodeRover's three tries).
pub const REPRODUCIBLE_TRIES: usize = 3;

/// Writes and runs a reproducer, when a runner is configured. With `ask_first`, the model is first asked whether the
/// issue has a reproducible example at all. `None` when there is no runner, no example, or no script showed the bug.
pub async fn run<L: Llm, R: Runner>(
    agent: &mut Agent<L, R>,
    issue: &str,
    ask_first: bool,
) -> Result<Option<Reproduction>, AgentError> {
    if agent.runner.is_none() {
        return Ok(None);
    }
    agent.emit(Event::Phase { name: Phase::Reproduce });
    let language = agent.repo.language();
    if let Some(tests) = &language.row().reproducer.project_tests {
        match project_tests(agent, language, tests).await? {
            Tests::Fail(reproduction) => return Ok(Some(*reproduction)),
            Tests::Broken => return Ok(None),
            Tests::Pass => {}
        }
    }
    if ask_first {
        let mut reproducible = None;
        for _ in 0..REPRODUCIBLE_TRIES {
            let answer = agent.ask(&Prompt::Reproducible { issue }).await?;
            reproducible = answers::yes_no(&answer, "reproducible");
            if reproducible.is_some() {
                break;
            }
        }
        let shown = crate::issue_names::call_shown(issue, &agent.index);
        match (reproducible, shown) {
            (Some(true), _) => {}
            (answer, Some(call)) => {
                let answered = match answer {
                    Some(_) => "the model answered that the issue has no reproducible example",
                    None => "the model's answers did not say whether the issue has a reproducible example",
                };
                agent.note(format!(
                    "{answered}, but the issue shows a call of `{}` ({}:{}); a reproducer is asked for all the same",
                    call.name, call.file, call.line
                ));
            }
            (Some(false), None) => {
                agent.note("the issue has no reproducible example; the patch will not be reviewed by execution");
                return Ok(None);
            }
            (None, None) => {
                agent.note(format!(
                    "whether the issue has a reproducible example could not be read from {REPRODUCIBLE_TRIES} answers; \
                     the run goes on as without one, and the patch will not be reviewed by execution"
                ));
                return Ok(None);
            }
        }
    }
    let mut conversation = Vec::new();
    let written = write(agent, issue, &mut conversation, None).await?;
    let example = issue_example(agent, issue, language).await?;
    match (written, example) {
        (Some((test, before)), example) => {
            let example = example.map(|e| {
                agent.note(format!(
                    "the issue's own examples ({}) show the bug too: a patch must also pass them",
                    e.shown
                ));
                e.check
            });
            Ok(Some(Reproduction {
                check: Check::written(language, &test),
                test,
                language,
                before,
                conversation,
                origin: Origin::Model,
                example,
            }))
        }
        (None, Some(e)) => {
            agent.note(format!(
                "no reproducer the model wrote showed the bug; a script of the issue's own examples ({}) does, and \
                 validates patches",
                e.shown
            ));
            Ok(Some(Reproduction {
                test: e.script,
                language,
                before: e.before,
                conversation: Vec::new(),
                check: e.check,
                origin: Origin::IssueExample,
                example: None,
            }))
        }
        (None, None) => {
            agent.note("no reproducer showed the bug; the patch will not be validated by execution");
            Ok(None)
        }
    }
}

/// The issue's own examples as a script, with its run on the original program.
struct IssueExample {
    script: String,
    check: Check,
    before: RunOutcome,
    /// The example in words, for the transcript.
    shown: String,
}

/// A script of the call the issue shows and the value it says the call should give ([`crate::issue_example`]), when
/// it shows the bug on the original program. AutoCodeRover has no such rule: it asks the model alone.
async fn issue_example<L: Llm, R: Runner>(
    agent: &mut Agent<L, R>,
    issue: &str,
    language: Language,
) -> Result<Option<IssueExample>, AgentError> {
    let examples = crate::issue_example::examples(issue, &agent.index);
    let Some(script) = crate::issue_example::script(&examples, language) else { return Ok(None) };
    let check = Check::written(language, &script);
    let Some(before) = agent.execute(RunPurpose::ExampleOnOriginal, "", &check.file_refs(), &check.command).await?
    else {
        return Ok(None);
    };
    let shown = examples.iter().map(|e| format!("`{}` should give `{}`", e.call, e.expected)).collect::<Vec<_>>();
    let shown = shown.join("; ");
    if !before.reproduces_bug() && raises_the_named_error(&before, issue, language).is_none() {
        agent.note(format!(
            "a script of the issue's own examples ({shown}) does not show the bug: {}",
            before.error_line()
        ));
        return Ok(None);
    }
    Ok(Some(IssueExample { script, check, before, shown }))
}

/// What the repository's own tests say on the original program.
enum Tests {
    /// Some fail: they reproduce the issue.
    Fail(Box<Reproduction>),
    /// All pass (or there are none): a test of the model's is needed.
    Pass,
    /// They could not be run (the code does not compile, no runner): nothing will be validated by execution.
    Broken,
}

/// Runs the repository's own tests on the original program, as the language's row does: a reproduction when some
/// fail, else a note saying why not.
async fn project_tests<L: Llm, R: Runner>(
    agent: &mut Agent<L, R>,
    language: Language,
    tests: &ProjectTests,
) -> Result<Tests, AgentError> {
    let check = Check::project_tests(language);
    let Some(before) =
        agent.execute(super::RunPurpose::ReproducerOnOriginal, "", &check.file_refs(), &check.command).await?
    else {
        return Ok(Tests::Broken);
    };
    if before.reproduces_bug() {
        let files: Vec<(&str, &str)> = agent.repo.files().collect();
        let test = (tests.failing_source)(&files, &before);
        let failing = (tests.failures)(&before).len();
        agent.note(format!(
            "{failing} of the repository's tests fail on the original program: they reproduce the issue and validate \
             patches"
        ));
        return Ok(Tests::Fail(Box::new(Reproduction {
            test,
            language,
            before,
            conversation: Vec::new(),
            check,
            origin: Origin::ProjectTests,
            example: None,
        })));
    }
    if before.passed() {
        agent.note(
            "every test of the repository passes on the original program; a test that shows the bug is asked for",
        );
        return Ok(Tests::Pass);
    }
    let why = match before.exit_code {
        Some(2) => format!(
            "the repository does not compile with its tests:\n{}",
            crate::prompt::text::tail(&before.stderr, 1500)
        ),
        _ => format!("the repository's tests could not be run: {}", before.error_line()),
    };
    agent.note(format!("{why}; patches will not be validated by execution"));
    Ok(Tests::Broken)
}

/// Asks for a reproducer until one fails with an `AssertionError` on the original program, within
/// [`super::AgentConfig::reproducer_attempts`]. The conversation starts with the reproducer request, or continues with
/// `feedback` from a reviewer; each later attempt holds the request, the last answer and what was wrong with it, as
/// AutoCodeRover's do (see the module's account).
pub(super) async fn write<L: Llm, R: Runner>(
    agent: &mut Agent<L, R>,
    issue: &str,
    messages: &mut Vec<Message>,
    feedback: Option<Prompt<'_>>,
) -> Result<Option<(String, RunOutcome)>, AgentError> {
    let language = agent.repo.language();
    let places = crate::issue_names::places(issue, &agent.index);
    // A reviewer's rewrite is asked the same way every time, from the test it judged (a failed rewrite is left out).
    let judged = feedback.map(|advice| (messages.clone(), advice));
    let mut failed: Option<RunOutcome> = None;
    let mut flaws = Flaws::default();
    let mut no_script = false;
    for _ in 0..agent.config.reproducer_attempts.max(1) {
        let prompt = match (&judged, &failed) {
            (Some((test, advice)), _) => {
                messages.clone_from(test);
                advice.clone()
            }
            (None, Some(outcome)) => Prompt::ReproducerFailed { outcome, flaws: &flaws, language },
            (None, None) if no_script => Prompt::ReproducerNoScript { language },
            (None, None) => Prompt::Reproducer { issue, places: &places, language },
        };
        keep_the_last_attempt(messages);
        let answer = agent.converse(messages, &prompt).await?;
        failed = None;
        let Some(script) = answers::code_block(&answer, language) else {
            no_script = true;
            continue;
        };
        no_script = false;
        let script = match crate::script_check::mended(language, &script, &places) {
            Some(mended) => {
                agent.note(format!(
                    "the reproducer was mended where only one thing can be meant: {}",
                    mended.added.join(", ")
                ));
                mended.script
            }
            None => script,
        };
        let check = Check::written(language, &script);
        let Some(outcome) =
            agent.execute(RunPurpose::ReproducerOnOriginal, "", &check.file_refs(), &check.command).await?
        else {
            return Ok(None);
        };
        flaws = Flaws::of(language, language.row().reproducer.file, &script, &places);
        if let Some(why) = flaws.why_disqualified() {
            agent.note(why);
        } else if outcome.reproduces_bug() {
            keep_the_last_attempt(messages);
            return Ok(Some((script, outcome)));
        } else if let Some(error) = raises_the_named_error(&outcome, issue, language) {
            agent.note(format!(
                "the reproducer ends with the `{error}` the issue names, raised in the repository's code: it shows \
                 the bug, and validates patches"
            ));
            keep_the_last_attempt(messages);
            return Ok(Some((script, outcome)));
        }
        failed = Some(outcome);
    }
    Ok(None)
}

/// Exceptions a script raises by its own making (a name it never bound, an import, its syntax), which never show a
/// bug of the repository's.
const SCRIPT_ERRORS: [&str; 6] =
    ["NameError", "ImportError", "ModuleNotFoundError", "SyntaxError", "IndentationError", "TabError"];

/// The exception a Python run ended with, when the issue names it and the repository's code raised it: the run
/// failed (not by the time limit), the last line of its standard error that starts with an exception's name is
/// `SomeError: ...` (a dotted name is read by its last part; a unittest report ends with it before its summary),
/// the issue holds that name as a word, and the innermost frame of the trace above it is not in the reproducer's
/// own file. `None` for an `AssertionError` (AutoCodeRover's rule already takes it) and for [`SCRIPT_ERRORS`].
pub(super) fn raises_the_named_error(outcome: &RunOutcome, issue: &str, language: Language) -> Option<String> {
    if language != Language::Python || outcome.exit_code == Some(0) || outcome.timed_out {
        return None;
    }
    // The last line that names an exception (`pkg.ParseError: ...`): the trace's end, or inside a unittest report.
    let lines: Vec<&str> = outcome.stderr.lines().collect();
    let (at, name) = lines.iter().enumerate().rev().find_map(|(at, line)| {
        let head = line.split(':').next()?.trim_end();
        let dotted = !head.is_empty() && head.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
        let name = head.rsplit('.').next()?;
        let exception = name.ends_with("Error") || name.ends_with("Exception");
        (dotted && exception && !line.starts_with(char::is_whitespace)).then_some((at, name))
    })?;
    if name == "AssertionError" || SCRIPT_ERRORS.contains(&name) {
        return None;
    }
    let word = |at: usize| {
        let before = issue[..at].chars().next_back();
        let after = issue[at + name.len()..].chars().next();
        let part = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !part(before) && !part(after)
    };
    if !issue.match_indices(name).any(|(at, _)| word(at)) {
        return None;
    }
    let script = language.row().reproducer.file;
    let innermost = lines[..at].iter().rev().find_map(|l| l.trim_start().strip_prefix("File \""))?;
    let file = innermost.split('"').next()?;
    (!file.ends_with(script)).then(|| name.to_string())
}

/// Leaves a reproducer's conversation at its request and the last answer: earlier attempts and what was said of them
/// are left out, as AutoCodeRover shows a new attempt only the last one.
fn keep_the_last_attempt(messages: &mut Vec<Message>) {
    if messages.len() > 2 {
        let last = messages.pop().filter(|m| m.role == crate::llm::Role::Assistant);
        messages.truncate(1);
        messages.extend(last);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(stderr: &str) -> RunOutcome {
        RunOutcome { exit_code: Some(1), stderr: stderr.to_string(), ..RunOutcome::default() }
    }

    const RECURSION: &str = "Traceback (most recent call last):\n  File \"/tmp/run/repo/reproducer.py\", line 15, in \
                             <module>\n    got = gcd.gcd(13, 13)\n  File \"/tmp/run/repo/gcd.py\", line 5, in gcd\n    \
                             return gcd(a % b, b)\n  [Previous line repeated 995 more times]\nRecursionError: maximum \
                             recursion depth exceeded\n";

    #[test]
    fn the_error_the_issue_names_raised_by_the_repository_shows_the_bug() {
        let issue = "`gcd(13, 13)` raises `RecursionError: maximum recursion depth exceeded`, but should return 13.";
        let named = |run: &RunOutcome, issue: &str| raises_the_named_error(run, issue, Language::Python);
        assert_eq!(named(&failed(RECURSION), issue).as_deref(), Some("RecursionError"));
        assert_eq!(named(&failed(RECURSION), "`gcd(13, 13)` hangs").as_deref(), None, "the issue names no error");
        assert_eq!(named(&failed(RECURSION), "a MyRecursionError").as_deref(), None, "only the whole word");
        let raised_by_script = "Traceback (most recent call last):\n  File \"/tmp/run/repo/reproducer.py\", line 3, \
                                in <module>\n    raise RecursionError('x')\nRecursionError: x\n";
        assert_eq!(named(&failed(raised_by_script), issue), None, "the script raised it itself");
        let dotted = "Traceback (most recent call last):\n  File \"/r/pkg/io.py\", line 9, in read\n    raise \
                      BadFormat\npkg.errors.ParseError: no header\n";
        assert_eq!(named(&failed(dotted), "read() raises ParseError").as_deref(), Some("ParseError"));
        let unbound = "Traceback (most recent call last):\n  File \"/r/pkg/io.py\", line 9, in read\nNameError: x\n";
        assert_eq!(named(&failed(unbound), "read() raises NameError"), None, "an error of the script's own making");
        let unittest = "E\n====\nERROR: test_gcd (__main__.TestGCD.test_gcd)\n----\nTraceback (most recent call \
                        last):\n  File \"/r/reproducer.py\", line 6, in test_gcd\n    self.assertEqual(gcd(13, 13), \
                        13)\n  File \"/r/gcd.py\", line 5, in gcd\n    return gcd(a % b, b)\nRecursionError: maximum \
                        recursion depth exceeded\n\n----\nRan 1 test in 0.017s\n\nFAILED (errors=1)\n";
        assert_eq!(named(&failed(unittest), issue).as_deref(), Some("RecursionError"), "a unittest report");
        let passed = RunOutcome { exit_code: Some(0), ..failed(RECURSION) };
        assert_eq!(named(&passed, issue), None);
        let timed_out = RunOutcome { timed_out: true, ..failed(RECURSION) };
        assert_eq!(named(&timed_out, issue), None);
        #[cfg(feature = "java")]
        assert_eq!(raises_the_named_error(&failed(RECURSION), issue, Language::Java), None);
    }
}
