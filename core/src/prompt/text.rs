//! The wording of every request, one function or constant per piece; [`super::Prompt`] assembles them.
//!
//! The wording is this project's own; the structure follows AutoCodeRover: a context-retrieval conversation that
//! calls search APIs, a patch writer that answers in `<file>/<original>/<patched>` blocks, a reproducer writer and a
//! reviewer that judge by execution, and, for APR-MCTS, refinement and rating prompts.

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::api::{APIS, MAX_CALLS_PER_ROUND};
use crate::call::SearchCall;
use crate::index::DefKind;
use crate::issue_names::Place;
use crate::language::Language;
#[cfg(feature = "java")]
pub use crate::language::junit_reproducer;
pub use crate::language::{PRINT_STACKTRACE, script_reproducer};
use crate::locate::{BugLocation, Context, ContextKind};
use crate::patch::EditFormat;
use crate::proxy::{Fate, NotRun, Problem};
use crate::runner::RunOutcome;
use crate::script_check::Flaws;

use super::{AskedFormat, Tried};

/// The system message of the context-retrieval conversation.
pub fn search_system(language: Language) -> String {
    format!(
        "You are a senior {} developer who fixes bugs in large codebases. You are given an issue report and can \
         explore the repository only through the code search APIs listed below. Gather just enough context to pin \
         down where the bug lives and how the code there should behave.",
        language.name()
    )
}

/// The system message of the patch writer.
pub fn patch_system(language: Language) -> String {
    format!(
        "You are a senior {} developer. You write minimal, correct patches for issue reports. You never edit test \
         files and you keep the surrounding code style.",
        language.name()
    )
}

/// The first request of the context-retrieval conversation: the issue, a reproducer's output when there is one, and
/// the APIs.
pub fn search_start(issue: &str, trace: Option<&str>) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "<issue>\n{}\n</issue>\n", issue.trim());
    if let Some(trace) = trace.map(str::trim).filter(|t| !t.is_empty()) {
        let _ = writeln!(
            s,
            "A script that reproduces the issue was run on the repository. What it printed to stderr (line numbers \
             in the trace point at the code involved):\n```\n{}\n```\n",
            tail(trace, 3000)
        );
    }
    s.push_str("Search APIs you can call (arguments are strings, except line numbers):\n");
    for api in APIS {
        let _ = writeln!(s, "- {}: {}", api.signature(), api.summary);
    }
    s.push_str(
        "\nChoose the calls that will best show you the code related to this issue. Several calls may be made at \
         once. Write each call on its own line, exactly as in `search_method_in_class(\"method\", \"Class\")`.",
    );
    s
}

/// Asks the model to analyse the results it was just shown.
pub const ANALYSE: &str = "Analyse the search results above. What does this code do, how does it relate to the \
issue, and what is still unknown? Do not write a patch yet.";

/// Asks the model to decide between more context and bug locations.
pub const DECIDE: &str = "Based on your analysis, answer both questions.\n\
1. Do you need more context? If so, list the search API calls to make (one per line). Otherwise leave this empty.\n\
2. Where is the bug? If you know, give each buggy location as a file, a class and/or a method, and describe the \
intended behaviour of the code there once it is fixed. Otherwise leave this empty.";

/// Tells the model that the calls it asked for produced these results.
pub fn call_results(results: &[(SearchCall, String)]) -> String {
    let mut s = String::new();
    for (call, output) in results {
        let _ = write!(s, "Result of {call}:\n\n{}\n\n", output.trim_end());
    }
    s
}

/// Most calls listed by name in a note of calls not run; the rest are counted.
const LISTED: usize = 5;

/// Tells the model which of its calls were not run and why ([`mod@crate::proxy::bound`]), after the results of those
/// that were; `None` when all ran.
pub fn calls_not_run(not_run: &NotRun) -> Option<String> {
    let listed = |calls: &[SearchCall]| {
        let mut list: Vec<String> = calls.iter().take(LISTED).map(|c| format!("`{c}`")).collect();
        if calls.len() > LISTED {
            list.push(format!("and {} more", calls.len() - LISTED));
        }
        list.join(", ")
    };
    let mut notes = Vec::new();
    if !not_run.names_nothing.is_empty() {
        notes.push(format!(
            "- {}: no file, class or method named there is in this repository. Search for names that appear in the \
             issue or in earlier results.",
            listed(&not_run.names_nothing)
        ));
    }
    if !not_run.over_cap.is_empty() {
        notes.push(format!(
            "- {}: at most {MAX_CALLS_PER_ROUND} calls are run in a round. Ask again for those you still need, the \
             most useful first.",
            listed(&not_run.over_cap)
        ));
    }
    if not_run.repeats > 0 {
        notes.push("- calls given more than once were run once.".to_string());
    }
    if !not_run.answered.is_empty() {
        notes.push(format!(
            "- {}: already run in an earlier round; the result is above. Search for something new, or give the bug \
             locations if you know them.",
            listed(&not_run.answered)
        ));
    }
    (!notes.is_empty()).then(|| format!("[Some of the calls were not run:\n{}]\n\n", notes.join("\n")))
}

/// Answers a tool call that was not run, with why ([`crate::proxy::Fate`]); `None` for one that runs.
pub fn tool_call_not_run(fate: Fate) -> Option<String> {
    Some(match fate {
        Fate::Run => return None,
        Fate::Repeat => "The same call was made earlier in this turn; its result is there.".to_string(),
        Fate::Answered => "Not run: the same call was made in an earlier round; its result is above.".to_string(),
        Fate::NamesNothing => "Not run: no file, class or method named there is in this repository. Search for \
                               names that appear in the issue or in earlier results."
            .to_string(),
        Fate::OverCap => format!(
            "Not run: at most {MAX_CALLS_PER_ROUND} calls are run in a round. Call it again if you still need it."
        ),
    })
}

/// The calls whose results a message holds, when it is a [`call_results`] message.
pub fn results_calls(content: &str) -> Option<Vec<&str>> {
    if !content.starts_with("Result of ") {
        return None;
    }
    let calls = content
        .split("\n\n")
        .filter_map(|part| part.strip_prefix("Result of ")?.strip_suffix(':'))
        .filter(|call| !call.contains('\n'))
        .collect();
    Some(calls)
}

/// Answers a tool call that could not be made (an unknown API, arguments that do not fit it).
pub fn tool_call_failed(name: &str, problem: &str) -> String {
    format!(
        "The call to `{name}` could not be made: {problem}\nCheck the API's name and arguments against the list of \
         APIs, and call it again if you still need it."
    )
}

/// Takes the place of search results left out to fit the model's context window.
pub fn results_left_out(calls: &[&str]) -> String {
    format!(
        "[The results of {} were shown here and have been left out to fit the context window. Call them again if \
         you need them.]",
        if calls.is_empty() { "earlier searches".to_string() } else { calls.join(", ") }
    )
}

/// Ends the issue's message once older exchanges of the conversation were left out to fit the context window.
pub fn exchanges_left_out() -> String {
    "\n\n[Some earlier messages of this conversation were left out to fit the context window.]".to_string()
}

/// Stands in the middle of a message shortened to fit the context window, for the `chars` characters left out.
pub fn middle_left_out(chars: usize) -> String {
    format!("\n[... {chars} characters of this message were left out here to fit the context window ...]\n")
}

/// Tells the model that none of the locations it named could be found.
pub fn locations_not_found(reasons: &[String]) -> String {
    let mut s = String::from(
        "None of the bug locations you gave could be found in the repository, so they cannot be used yet:\n",
    );
    for r in reasons {
        let _ = writeln!(s, "- {r}");
    }
    s.push_str("Search further with the APIs, then name locations that exist (check file paths and names).");
    s
}

/// Tells the model that its answer could not be turned into calls or locations.
pub fn unusable_answer(problem: &str) -> String {
    format!(
        "Your answer could not be used: {problem}\nPlease answer again: list search API calls one per line, \
         or name the bug locations (file, class, method) with their intended behaviour."
    )
}

/// The system prompt for the proxy model, which rewrites a free-text answer as JSON (held to its schema where the
/// server can: [`crate::answers::Shape::Proxy`]). The API list comes from [`crate::api::APIS`], so the prompt and
/// the binder never disagree.
pub fn proxy_system() -> String {
    let mut p = String::from(
        "You turn another assistant's notes about a software bug into JSON. The notes may ask for code searches \
         and may say where the bug is. Copy those out; do not invent anything that the notes do not say.\n\
         \n\
         Reply with one JSON object and nothing else:\n\
         {\"API_calls\": [\"search_class(\\\"Foo\\\")\", ...], \"bug_locations\": [{\"file\": \"...\", \"class\": \"...\", \
         \"method\": \"...\", \"intended_behavior\": \"...\"}, ...]}\n\
         \n\
         API_calls: each item is one call written as a string, with every text argument in quotes and exactly the \
         arguments the API takes. The searches that exist are:\n",
    );
    for a in APIS {
        let _ = writeln!(p, "- {}: {}", a.signature(), a.summary);
    }
    p.push_str(
        "\n\
         bug_locations: one entry per place the notes say must change. Put the path in \"file\", the class in \
         \"class\" and the method or function in \"method\", each on its own (write `Session.send` as class \
         \"Session\" and method \"send\"). Use an empty string for anything the notes do not give. \
         \"intended_behavior\" says in a sentence or two what that code should do once fixed.\n\
         \n\
         If the notes ask for no search, API_calls is []. If they name no buggy place, bug_locations is [].\n",
    );
    p
}

/// The user message that carries the answer to be rewritten by the proxy model.
pub fn proxy_request(answer: &str) -> String {
    format!("Rewrite these notes as the JSON object described:\n\n{answer}")
}

/// Asks the proxy model again, item by item, after an unusable rewrite.
pub fn proxy_retry(problems: &[Problem]) -> String {
    let mut m = String::from("Your answer could not be used as it is:\n");
    for p in problems {
        let _ = writeln!(m, "- {p}");
    }
    m.push_str(
        "\nReply again with only a JSON object of the form \
         {\"API_calls\": [...], \"bug_locations\": [...]}. Each API call is one string such as \
         search_method_in_class(\"method\", \"Class\"), with text arguments in quotes. The APIs are:\n",
    );
    for a in APIS {
        let _ = writeln!(m, "  {}", a.signature());
    }
    m
}

/// Instructions on AutoCodeRover's edit format (`<file>/<original>/<patched>`).
pub const EDIT_FORMAT: &str = "Write the patch as one or more modifications, each in this exact form:\n\n\
# modification 1\n\
```\n\
<file>path/to/file.py</file>\n\
<original>\n\
lines copied exactly from the current code\n\
</original>\n\
<patched>\n\
the same lines, changed\n\
</patched>\n\
```\n\n\
Copy <original> exactly, with its indentation, and keep it short but unique. Do not write line numbers or \
placeholders such as `# ...` inside the blocks. Before the modifications, explain in a few sentences what is wrong \
and how you fix it.";

/// Instructions on SEARCH/REPLACE blocks.
pub const SEARCH_REPLACE_FORMAT: &str = "Write the patch as one or more SEARCH/REPLACE blocks. Put the path of \
the file on a line of its own, then the block in a code fence:\n\n\
path/to/file.py\n\
```\n\
<<<<<<< SEARCH\n\
lines copied exactly from the current code\n\
=======\n\
the same lines, changed\n\
>>>>>>> REPLACE\n\
```\n\n\
The SEARCH lines must be in the file exactly as you write them, indentation included, and only once: keep them \
few, but enough to be unique. Write one block for each place you change. Do not write line numbers or \
placeholders such as `# ...` inside a block. Before the blocks, explain in a few sentences what is wrong and how \
you fix it.";

/// Instructions on unified diffs.
pub const UDIFF_FORMAT: &str = "Write the patch as a unified diff, in a fence marked `diff`:\n\n\
```diff\n\
--- a/path/to/file.py\n\
+++ b/path/to/file.py\n\
@@ -10,4 +10,4 @@\n\
 a line kept before the change\n\
-a line taken out\n\
+a line put in\n\
 a line kept after the change\n\
```\n\n\
Name each file with its `---` and `+++` lines and begin each change with an `@@` line. Every line of a change \
starts with one character: a space for a line kept, `-` for a line taken out, `+` for a line put in. Copy the kept \
and removed lines exactly, with their indentation, and keep enough unchanged lines around each change for it to \
occur once in the file; the numbers after `@@` may be approximate. Never leave code out with placeholders such as \
`# ...`. Before the diff, explain in a few sentences what is wrong and how you fix it.";

/// Instructions on definition edits: each changed function, method or class written whole, shown in `language`.
pub fn definition_format(language: Language) -> String {
    let row = language.row();
    let shape = &row.definition;
    format!(
        "Write the patch as the complete new text of each function, method or class you change: the path of its file \
         on a line of its own, then the whole definition in a code fence, from {} to its last line:\n\n\
         path/to/file.{}\n```{}\n{}\n```\n\n\
         Show only the definitions you change, each complete: never leave lines out with `...` or `{} ...`. A method \
         keeps its name; write it alone or inside its class. Before the code, explain in a few sentences what is \
         wrong and how you fix it.",
        shape.starts, row.extensions[0], row.fence, shape.example, shape.line_comment
    )
}

/// Instructions on whole files.
pub const WHOLE_FORMAT: &str = "Write the patch as the complete new text of each file you change: the path of the \
file on a line of its own, then the whole file in a code fence:\n\n\
path/to/file.py\n\
```\n\
every line of the file, with your change made\n\
```\n\n\
Write every line, the unchanged ones too. A file shortened with a comment such as `# ... rest unchanged`, or cut \
off before its end, is refused. Before the files, explain in a few sentences what is wrong and how you fix it.";

/// The instructions on an edit format, as every patch prompt ends.
pub fn edit_format(asked: AskedFormat) -> Cow<'static, str> {
    match asked.format {
        EditFormat::Acr => Cow::Borrowed(EDIT_FORMAT),
        EditFormat::SearchReplace => Cow::Borrowed(SEARCH_REPLACE_FORMAT),
        EditFormat::Udiff => Cow::Borrowed(UDIFF_FORMAT),
        EditFormat::Definition => Cow::Owned(definition_format(asked.language)),
        EditFormat::Whole => Cow::Borrowed(WHOLE_FORMAT),
    }
}

/// How much of an unreadable answer a retry shows back to the model.
pub const ANSWER_START_CHARS: usize = 600;

/// Code of a file with line numbers, in a fenced block of the file's language.
fn numbered(s: &mut String, file: &str, code: &str, start: u32) {
    let _ = writeln!(s, "```{}", Language::fence_of(file));
    for (n, line) in code.lines().enumerate() {
        let _ = writeln!(s, "{:>6} {line}", start as usize + n);
    }
    let _ = writeln!(s, "```");
}

/// The `<file>`, `<class>` and `<method>` tags of a location.
fn tags(s: &mut String, loc: &BugLocation) {
    let _ = write!(s, "<file>{}</file>", loc.file);
    if let Some(c) = &loc.class {
        let _ = write!(s, " <class>{c}</class>");
    }
    if let Some(m) = &loc.method {
        let _ = write!(s, " <method>{m}</method>");
    }
}

/// Why a piece of context is shown, in words for the model.
pub fn context_label(context: &Context, location: &BugLocation) -> String {
    match &context.kind {
        ContextKind::EnclosingClass => format!(
            "the whole class `{}` that location #{} belongs to, for reference (not itself a place to change)",
            context.location.class.as_deref().unwrap_or("?"),
            context.for_location + 1
        ),
        ContextKind::AncestorMethod { class, .. } => format!(
            "`{class}.{}`, the definition that `{}` in location #{} overrides: the bug may live in this parent",
            context.location.method.as_deref().unwrap_or("?"),
            match (&location.class, &location.method) {
                (Some(c), Some(m)) => format!("{c}.{m}"),
                (None, Some(m)) => m.clone(),
                _ => "the method".to_string(),
            },
            context.for_location + 1
        ),
    }
}

/// The patch request when bug locations are known: the issue, each location's code and intended behaviour, then the
/// context that comes with them (the enclosing class, the overridden parents' methods), labelled.
pub fn patch_with_locations(
    issue: &str,
    locations: &[BugLocation],
    context: &[Context],
    format: AskedFormat,
) -> String {
    let mut s = bug_code(issue, locations, context);
    s.push_str(&edit_format(format));
    s
}

/// What a patch request in a new conversation begins with: the issue, the code at the bug locations and the code
/// they depend on.
fn bug_code(issue: &str, locations: &[BugLocation], context: &[Context]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "<issue>\n{}\n</issue>\n", issue.trim());
    s.push_str("The bug is in the following code:\n\n");
    for (i, loc) in locations.iter().enumerate() {
        let _ = write!(s, "Location #{}: ", i + 1);
        tags(&mut s, loc);
        s.push('\n');
        numbered(&mut s, &loc.file, &loc.code, loc.start);
        if !loc.intended_behavior.trim().is_empty() {
            let _ = writeln!(s, "Intended behaviour: {}", loc.intended_behavior.trim());
        }
        s.push('\n');
    }
    if !context.is_empty() {
        s.push_str("More code that these locations depend on:\n\n");
        for c in context {
            let Some(location) = locations.get(c.for_location) else { continue };
            let _ = write!(s, "Context for location #{}: ", c.for_location + 1);
            tags(&mut s, &c.location);
            let _ = writeln!(s, "\nThis is {}.", context_label(c, location));
            numbered(&mut s, &c.location.file, &c.location.code, c.location.start);
            s.push('\n');
        }
    }
    s.push_str("Line numbers are shown for reference only; never copy them into a patch.\n\n");
    s
}

/// How many of the fixes tried before a new conversation shows (the latest).
pub const TRIED_SHOWN: usize = 3;

/// Marks the fixes tried before in a patch request that starts afresh.
pub const TRIED_BEFORE: &str = "These fixes were written before and judged not to resolve the issue; below each is \
                                what the reproducer printed when it ran on it:";

/// The patch request of a new conversation, after the model wrote a judged patch again: the opening request with
/// the latest [`TRIED_SHOWN`] fixes tried and what the reproducer printed on each.
pub fn patch_afresh(
    issue: &str,
    locations: &[BugLocation],
    context: &[Context],
    tried: &[Tried],
    format: AskedFormat,
) -> String {
    let mut s = bug_code(issue, locations, context);
    let _ = writeln!(s, "{TRIED_BEFORE}\n");
    let shown = &tried[tried.len().saturating_sub(TRIED_SHOWN)..];
    for (i, t) in shown.iter().enumerate() {
        let exit = exit_status(&t.run);
        let both = [t.run.stdout.trim_end(), t.run.stderr.trim_end()];
        let printed = both.iter().filter(|o| !o.is_empty()).copied().collect::<Vec<_>>().join("\n");
        let printed = tail(&printed, 800);
        let _ = writeln!(
            s,
            "Fix {}:\n```diff\n{}\n```\nThe reproducer on it ({exit}):\n```text\n{}\n```\n",
            i + 1,
            t.diff.trim_end(),
            printed.trim_end()
        );
    }
    s.push_str("Write a different fix, one that makes the reproducer pass.\n\n");
    s.push_str(&edit_format(format));
    s
}

/// The patch request that reuses the search conversation (no location resolved).
pub fn patch_from_conversation(format: AskedFormat) -> String {
    format!("Using everything gathered above, write a patch that resolves the issue.\n\n{}", edit_format(format))
}

/// Why a patch of definitions that changes no code is refused (the agent's patch writer; see
/// [`crate::patch::Extraction::changes_code`]).
pub const NO_CODE_CHANGED: &str = "it changes only comments, docstrings or blank lines, so the code runs as before and \
                                   the bug is still there. Make the fix in the code itself.";

/// Why a patch written after feedback is refused when it is one the model already wrote in the conversation (the
/// agent's patch writer): it was judged, and did not fix the issue.
pub const SAME_PATCH_AGAIN: &str = "it is the same patch you wrote earlier in this conversation, which was judged \
                                    above and did not fix the issue. Write a different fix.";

/// Feedback after a patch could not be applied. `answer_start` is the start of the answer when no edit could be
/// read from it (empty otherwise): the model sees what it wrote next to the format it was asked for.
pub fn patch_failed(reason: &str, format: AskedFormat, answer_start: &str) -> String {
    let mut s = format!("Your patch could not be applied: {}\n", reason.trim());
    if !answer_start.trim().is_empty() {
        let _ = writeln!(
            s,
            "\nYour answer began like this:\n````text\n{}\n````\nNo edit in the format below could be read from it.",
            answer_start.trim_end()
        );
    }
    let _ = write!(s, "Write the whole patch again.\n\n{}", edit_format(format));
    s
}

/// Asks again for a patch of which some edits were refused because their original occurs in several places.
/// `refused` lists those edits with the places, one line each.
pub fn patch_ambiguous(refused: &str, format: AskedFormat) -> String {
    if format.format == EditFormat::Definition {
        return format!(
            "Only part of your patch could be applied. These definitions have a name that is defined in more than \
             one place, and nothing says which one you meant, so they were left out:\n{}\nThe other definitions \
             applied. Write the whole patch again, every definition included. Show each definition above inside its \
             class (its `class` line above it), or after its file's path with the line numbers it was shown with, so \
             that it fits one place only.\n\n{}",
            refused.trim_end(),
            edit_format(format)
        );
    }
    format!(
        "Only part of your patch could be applied. The <original> of these edits matches more than one place, and \
         nothing says which one you meant, so they were left out:\n{}\nThe other edits applied. Write the whole \
         patch again, every edit included. For each edit above, choose the place you mean and add to its \
         <original> a few neighbouring lines that differ between the places, so that it matches there and nowhere \
         else.\n\n{}",
        refused.trim_end(),
        edit_format(format)
    )
}

/// Feedback to the patch writer from the reviewer.
pub fn review_patch_feedback(analysis: &str, advice: &str, format: AskedFormat) -> String {
    format!(
        "A reviewer ran your patch against a reproducer and judged it wrong.\nAnalysis: {}\nAdvice: {}\nWrite an \
         improved patch.\n\n{}",
        analysis.trim(),
        advice.trim(),
        edit_format(format)
    )
}

/// Feedback to the patch writer after a patch the reviewer judged right failed validation (the reproducer or the
/// repository's tests).
pub fn validation_failed(message: &str, format: AskedFormat) -> String {
    format!(
        "A reviewer judged your patch right, but validating it by execution failed:\n{}\nWrite an improved \
         patch.\n\n{}",
        message.trim(),
        edit_format(format)
    )
}

/// MCTS: asks for a refined candidate, given the parent's patch and what was learnt from it.
pub fn refine(parent_patch: &str, feedback: &str, format: AskedFormat) -> String {
    format!(
        "A previous attempt produced this patch:\n```diff\n{}\n```\nWhat we know about it: {}\n\nFirst reflect in a \
         few sentences on what it gets wrong or misses, then write a better patch.\n\n{}",
        parent_patch.trim_end(),
        feedback.trim(),
        edit_format(format)
    )
}

/// MCTS: the masked prompt for single-line and single-hunk bugs.
pub fn infill(file: &str, masked_code: &str, feedback: &str) -> String {
    format!(
        "In {file}, the lines marked `>>> [ INFILL ] <<<` are wrong:\n```{fence}\n{}\n```\nFirst reflect in a few \
         sentences on what they should do, then reply with only the replacement lines, correctly indented, in one \
         ```{fence} code block.\nWhat we know about the last attempt there: {feedback}",
        masked_code.trim_end(),
        fence = Language::fence_of(file)
    )
}

/// The marker that stands in for the masked lines of an infill prompt.
pub const INFILL_MASK: &str = ">>> [ INFILL ] <<<";

/// MCTS: the whole-function prompt for single-function bugs.
pub fn rewrite_function(file: &str, function_code: &str, feedback: &str) -> String {
    format!(
        "In {file}, this function is buggy:\n```{fence}\n{}\n```\nFirst reflect in a few sentences on the fault, \
         then reply with the whole corrected function in one ```{fence} code block.\nWhat we know about the last \
         attempt there: {feedback}",
        function_code.trim_end(),
        fence = Language::fence_of(file)
    )
}

/// Asks whether the issue contains a runnable example.
pub fn reproducible(issue: &str) -> String {
    format!(
        "<issue>\n{}\n</issue>\n\nDoes this issue show, or clearly describe, how to make the bug happen (code to run, \
         or a call and the wrong result it gives), so that a short standalone script could show it? Answer in JSON: \
         {{\"reproducible\": true or false, \"reason\": \"...\"}}",
        issue.trim()
    )
}

/// Asks for a standalone reproducer, in the words of the language's row ([`crate::language::Reproducer::request`]),
/// with where the code the issue names is defined.
pub fn reproducer(issue: &str, places: &[Place], language: Language) -> String {
    let reproducer = &language.row().reproducer;
    (reproducer.request)(issue, &places_note(places), reproducer)
}

/// Where the code the issue names is defined, one line a name, for the reproducer writer (empty when nothing is
/// known). A Python file also gives the import line itself (a method's class is what is imported): a small model
/// told only the module still pasted the function into its script, or imported it from elsewhere.
fn places_note(places: &[Place]) -> String {
    if places.is_empty() {
        return String::new();
    }
    let mut note = String::from("The code the issue names is defined in the repository here:\n");
    for place in places {
        let kind = match place.kind {
            DefKind::Class => "class",
            DefKind::Method => "method",
            DefKind::Function => "function",
        };
        let import = place
            .python_module()
            .map(|m| format!("; import it with `from {m} import {}`", place.importable_name()))
            .unwrap_or_default();
        note.push_str(&format!("- {kind} `{}`: `{}`, line {}{import}\n", place.name, place.file, place.line));
    }
    note.push('\n');
    note
}

/// Asks again for the reproducer when the answer had no code block.
pub fn reproducer_no_script(language: Language) -> String {
    let file = language.row().reproducer.file;
    format!(
        "Your reply has no script in it. Reply with the whole of `{file}` in a single ```{} code block.",
        language.fence()
    )
}

/// Feedback to the reproducer writer after a run that did not show the bug, or that ran a copy of the code it is
/// about, with the flaws read from the script.
pub fn reproducer_failed(outcome: &RunOutcome, flaws: &Flaws, language: Language) -> String {
    let copies = &flaws.copies;
    let must = language.row().reproducer.must;
    let exit = outcome.exit_code.map(|c| c.to_string()).unwrap_or_else(|| "killed".into());
    let timed_out = if outcome.timed_out { " (it was stopped at the time limit)" } else { "" };
    let why = if copies.is_empty() {
        format!("Running your script on the unpatched repository did not reproduce the issue ({must}).")
    } else {
        // Only a Python file's place comes with its import line (`places_note`).
        let from = if language == Language::Python {
            " with the import line the request above gives"
        } else {
            ", from where the request above says it is defined"
        };
        format!(
            "Your script defines {} itself, so it did not reproduce the issue: it runs its own copy, not the \
             repository's code. Remove that definition and import the name from the repository{from}. Its run on \
             the unpatched repository:",
            code_list(copies)
        )
    };
    let imports = if copies.is_empty() && !flaws.unimported.is_empty() {
        format!(
            "\nYour script imports nothing from {}, where the code the issue names is defined, so it does not run \
             that code. Import it with the line the request above gives and call it as the issue does.",
            code_list(&flaws.unimported)
        )
    } else {
        String::new()
    };
    let unbound = if flaws.undefined.is_empty() {
        String::new()
    } else {
        format!(
            "\nYour script uses {} but never defines or imports it, so Python stops with a NameError where it is \
             used. Import or define every name it uses.",
            code_list(&flaws.undefined)
        )
    };
    // A script that printed its AssertionError and still exited 0 caught it and carried on (Qwen2.5-Coder-1.5B's
    // lis reproducers did, three times over, told only that the issue was not reproduced).
    let swallowed = language == Language::Python
        && outcome.exit_code == Some(0)
        && !outcome.timed_out
        && outcome.stderr.contains("AssertionError");
    // A unittest run that reported failed tests and still exited 0 was started with `exit=False` (Qwen2.5-Coder-1.5B's
    // gcd and powerset reproducers were, each three times over).
    let unittest_failed = language == Language::Python
        && outcome.exit_code == Some(0)
        && outcome.stderr.lines().any(|l| l.starts_with("FAILED (") && l.ends_with(')'));
    // A module the script imports that is not installed where it runs (`import pytest`, as lis's reproducers had).
    let missing = outcome
        .stderr
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("ModuleNotFoundError: No module named '")?.strip_suffix('\''))
        .filter(|_| language == Language::Python);
    let missing = missing.map_or_else(String::new, |module| {
        format!(
            "\nThe module `{module}` is not installed where the script runs. Use only Python's standard library and \
             the repository's own code."
        )
    });
    let caught = if unittest_failed {
        "\nYour script's tests failed (unittest reported FAILED), yet the script ended with exit code 0: \
         `unittest.main(exit=False)` does not end the script with the tests' result. Call `unittest.main()` with no \
         `exit` argument, so that the script fails while the bug is present."
    } else if swallowed {
        "\nYour script printed its AssertionError but then ended normally with exit code 0: it catches the error and \
         carries on. After printing the trace, raise it again (a bare `raise` in the `except` block), so that the \
         script fails while the bug is present."
    } else {
        ""
    };
    let check = if flaws.never_checks {
        "\nYour script never checks a result: it has no `assert`, so it cannot fail. Call the code as the issue \
         does, then compare what it returns with what the issue expects, as in \
         `assert got == expected, f\"expected {expected!r}, got {got!r}\"`."
    } else {
        ""
    };
    format!(
        "{why} Exit code: {exit}{timed_out}.\nstdout:\n{}\nstderr:\n{}{caught}{missing}{imports}{unbound}{check}\nWrite \
         the script again.",
        tail(&outcome.stdout, 2000),
        tail(&outcome.stderr, 2000)
    )
}

/// Names as code, in backticks, separated by commas.
fn code_list(names: &[String]) -> String {
    names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
}

/// Feedback to the reproducer writer from the reviewer.
pub fn review_test_feedback(analysis: &str, advice: &str, language: Language) -> String {
    format!(
        "A reviewer judged your reproducer wrong.\nAnalysis: {}\nAdvice: {}\nWrite the script again in a single \
         ```{} block.",
        analysis.trim(),
        advice.trim(),
        language.fence()
    )
}

/// How a run ended, in words: `exit code N`, or that it was killed.
pub fn exit_status(run: &RunOutcome) -> String {
    run.exit_code.map_or_else(|| "it was killed".to_string(), |c| format!("exit code {c}"))
}

/// A run's outcome as the reviewer reads it.
pub fn run_output(run: &RunOutcome) -> String {
    let exit = run.exit_code.map(|c| c.to_string()).unwrap_or_else(|| "killed".into());
    format!(
        "exit code: {exit}{}\nstdout:\n{}\nstderr:\n{}",
        if run.timed_out { " (timed out)" } else { "" },
        run.stdout,
        run.stderr
    )
}

/// Asks the reviewer to judge a patch and a reproducer by their runs.
pub fn review(
    issue: &str,
    test: &str,
    language: Language,
    before: &RunOutcome,
    patch: &str,
    after: &RunOutcome,
) -> String {
    format!(
        "<issue>\n{}\n</issue>\n\nA reproducer test:\n```{}\n{}\n```\nIts output on the original program:\n```\n{}\n\
         ```\nA candidate patch:\n```diff\n{}\n```\nThe test's output on the patched program:\n```\n{}\n```\n\n\
         {REVIEW_QUESTION}",
        issue.trim(),
        language.fence(),
        test.trim_end(),
        tail(&run_output(before), 3000),
        patch.trim_end(),
        tail(&run_output(after), 3000)
    )
}

/// The reviewer's question and answer format.
pub const REVIEW_QUESTION: &str = "Judge whether the patch resolves the issue and whether the test checks the issue \
correctly. Answer in JSON with the keys \"patch-correct\" (\"yes\" or \"no\"), \"test-correct\" (\"yes\" or \"no\"), \
\"patch-analysis\", \"test-analysis\", \"patch-advice\" and \"test-advice\".";

/// Asks the reviewer again after an answer that could not be read.
pub fn review_retry() -> String {
    format!("Your review could not be read as JSON with a yes or no for both judgements. {REVIEW_QUESTION}")
}

/// MCTS: asks the model to rate a candidate patch.
pub fn rate(issue: &str, patch: &str, evidence: &str) -> String {
    format!(
        "<issue>\n{}\n</issue>\n\nCandidate patch:\n```diff\n{}\n```\n{}\nHow likely is this patch to resolve the \
         issue without breaking anything? Answer in JSON: {{\"rating\": <an integer from 0 to 100>}}",
        issue.trim(),
        patch.trim_end(),
        evidence.trim()
    )
}

/// Asks the model to choose one patch among those the workflow tries produced.
pub fn select(issue: &str, candidates: &[&str]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "<issue>\n{}\n</issue>\n", issue.trim());
    let _ = writeln!(
        s,
        "Several attempts each produced a candidate patch; none was confirmed by execution. Read them all:\n"
    );
    for (i, patch) in candidates.iter().enumerate() {
        let _ = writeln!(s, "Candidate {}:\n```diff\n{}\n```\n", i + 1, patch.trim_end());
    }
    s.push_str(
        "Which candidate is most likely to resolve the issue without breaking anything? Answer in JSON: \
         {\"choice\": <the candidate's number>, \"reason\": \"...\"}",
    );
    s
}

/// The last `max` bytes of a text (cut on a character boundary), for execution output.
pub fn tail(s: &str, max: usize) -> &str {
    let start = s.len().saturating_sub(max);
    let start = (start..=s.len()).find(|&i| s.is_char_boundary(i)).unwrap_or(s.len());
    &s[start..]
}
