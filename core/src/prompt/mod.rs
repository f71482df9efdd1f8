//! Every request the agent makes, as a value: [`Prompt`], one variant per request.
//!
//! A prompt knows its [`Stage`] (what the agent is asking for), whether it wants JSON, and the messages it adds to a
//! conversation; [`Prompt::request`] turns it into the [`ChatRequest`] the model receives. Requests are built only
//! from here, and the words are in [`text`], so a change to what the model reads is a change to this module, and
//! the snapshot of every variant (`prompt/snapshots/`) shows it in review.
//!
//! Over HTTP only the messages travel. [`PromptKind::recognise`] finds which kind of prompt a conversation ends
//! with, from a marker each kind's text is guaranteed to contain; `acr serve-model` answers scripted models that
//! way, and a test renders a sample of every kind and checks it is recognised.
//!
//! | stage | kinds |
//! |---|---|
//! | search | `Search` |
//! | analyse | `Analyse` |
//! | decide | `Decide`, `DecideAfterUnusable`, `DecideAfterNotFound` |
//! | proxy | `Proxy`, `ProxyRetry` |
//! | patch | `PatchWithLocations`, `PatchAfresh`, `PatchFromConversation`, `PatchRetry`, `PatchAmbiguous`, `ReviewFeedback`, `ValidationFeedback`, `Refine`, `Infill`, `RewriteFunction` |
//! | reproducible | `Reproducible` |
//! | reproducer | `Reproducer`, `ReproducerNoScript`, `ReproducerFailed`, `ReproducerFeedback` |
//! | review | `Review`, `ReviewRetry` |
//! | rate | `Rate` |
//! | select | `Select` |

pub mod text;

use crate::answers::Shape;
use crate::call::SearchCall;
use crate::issue_names::Place;
use crate::language::Language;
use crate::llm::{ChatRequest, Message, Role, Stage};
use crate::locate::{BugLocation, Context};
use crate::patch::EditFormat;
use crate::proxy::{NotRun, Problem};
use crate::runner::RunOutcome;
use crate::script_check::Flaws;

/// A patch the review judged and found wanting, with what running the reproducer on it gave.
#[derive(Debug, Clone)]
pub struct Tried {
    /// The patch's diff.
    pub diff: String,
    /// The reproducer's run on the patched program.
    pub run: RunOutcome,
}

/// The edit format a patch request asks for, and the language of the code it is for: the system message names that
/// language and the instructions show its definitions (a Python `def`, a JavaScript `function`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AskedFormat {
    /// The edit format.
    pub format: EditFormat,
    /// The language of the code at the bug locations.
    pub language: Language,
}

impl From<EditFormat> for AskedFormat {
    /// The format for Python, the language assumed where none is known.
    fn from(format: EditFormat) -> Self {
        AskedFormat { format, language: Language::default() }
    }
}

/// One request of the agent, with what it needs to be written.
#[derive(Debug, Clone)]
pub enum Prompt<'a> {
    /// Start the search: the issue (and a reproducer's stderr, when one ran first), and the APIs.
    Search {
        /// The issue text.
        issue: &'a str,
        /// The repository's language.
        language: Language,
        /// What a reproducer printed to stderr on the original program.
        trace: Option<&'a str>,
    },
    /// Show search results and ask for an analysis.
    Analyse {
        /// Each call run and the text it returned; empty when the results were given as answers to tool calls.
        results: &'a [(SearchCall, String)],
        /// The calls of the round that were not run, and why ([`mod@crate::proxy::bound`]).
        not_run: &'a NotRun,
    },
    /// Ask: more context, or bug locations?
    Decide,
    /// Say the last answer could not be read, then ask the decide question again.
    DecideAfterUnusable {
        /// What was wrong with it.
        problem: &'a str,
    },
    /// Say the locations named could not be found, then ask the decide question again.
    DecideAfterNotFound {
        /// Why each was not found.
        reasons: &'a [String],
    },
    /// Ask the proxy model to rewrite an answer as `{"API_calls", "bug_locations"}` JSON.
    Proxy {
        /// The answer to rewrite.
        answer: &'a str,
    },
    /// Tell the proxy model what was wrong with its JSON and ask again.
    ProxyRetry {
        /// What was wrong.
        problems: &'a [Problem],
    },
    /// Ask for a patch, showing the bug locations and their context.
    PatchWithLocations {
        /// The issue text.
        issue: &'a str,
        /// The resolved locations.
        locations: &'a [BugLocation],
        /// Enclosing classes and overridden parents' methods, each tied to a location.
        context: &'a [Context],
        /// The edit format asked for, in the language of the code.
        format: AskedFormat,
    },
    /// Ask for a patch in a new conversation, after the model wrote a judged patch again: the opening request with
    /// the fixes tried so far and what the reproducer printed on each.
    PatchAfresh {
        /// The issue text.
        issue: &'a str,
        /// The resolved locations.
        locations: &'a [BugLocation],
        /// Enclosing classes and overridden parents' methods, each tied to a location.
        context: &'a [Context],
        /// The fixes judged so far, oldest first.
        tried: &'a [Tried],
        /// The edit format asked for, in the language of the code.
        format: AskedFormat,
    },
    /// Ask for a patch at the end of the search conversation (no location resolved).
    PatchFromConversation {
        /// The edit format asked for, in the language of the code.
        format: AskedFormat,
    },
    /// Say why the patch did not apply and ask again.
    PatchRetry {
        /// Why it did not apply.
        reason: &'a str,
        /// The edit format asked for, in the language of the code.
        format: AskedFormat,
        /// The start of the answer when no edit could be read from it, shown back (empty otherwise).
        answer_start: &'a str,
    },
    /// Ask again for a patch that applied only in part: some edits' originals occur more than once, and nothing
    /// tells which place was meant.
    PatchAmbiguous {
        /// The refused edits and their candidate places, one line each ([`crate::patch::Extraction::ambiguity_list`]).
        refused: &'a str,
        /// The edit format asked for, in the language of the code.
        format: AskedFormat,
    },
    /// Pass the reviewer's judgement of the patch to the patch writer.
    ReviewFeedback {
        /// The reviewer's analysis.
        analysis: &'a str,
        /// The reviewer's advice.
        advice: &'a str,
        /// The edit format asked for, in the language of the code.
        format: AskedFormat,
    },
    /// Tell the patch writer that validation by execution failed.
    ValidationFeedback {
        /// What failed, with the output.
        message: &'a str,
        /// The edit format asked for, in the language of the code.
        format: AskedFormat,
    },
    /// MCTS: refine a candidate given what was learnt about it.
    Refine {
        /// The candidate's diff.
        parent_patch: &'a str,
        /// What validation or the rating said.
        feedback: &'a str,
        /// The edit format asked for, in the language of the code.
        format: AskedFormat,
    },
    /// MCTS: replace masked lines (single-line and single-hunk candidates).
    Infill {
        /// The file.
        file: &'a str,
        /// The code around the candidate's change, with the changed lines masked.
        masked_code: &'a str,
        /// What was learnt about the candidate.
        feedback: &'a str,
    },
    /// MCTS: rewrite a whole function (single-function candidates).
    RewriteFunction {
        /// The file.
        file: &'a str,
        /// The function's original code.
        code: &'a str,
        /// What was learnt about the candidate.
        feedback: &'a str,
    },
    /// Ask whether the issue has a runnable example.
    Reproducible {
        /// The issue text.
        issue: &'a str,
    },
    /// Ask for a standalone reproducer: a Python script, or a JUnit test class for Java.
    Reproducer {
        /// The issue text.
        issue: &'a str,
        /// Where the code the issue names is defined ([`crate::issue_names::places`]).
        places: &'a [Place],
        /// The repository's language.
        language: Language,
    },
    /// Ask again for the reproducer: the answer had no script.
    ReproducerNoScript {
        /// The repository's language.
        language: Language,
    },
    /// Say the reproducer did not show the bug, with its output, and ask again.
    ReproducerFailed {
        /// The run on the original program.
        outcome: &'a RunOutcome,
        /// What is wrong with the script, read from its text.
        flaws: &'a Flaws,
        /// The repository's language.
        language: Language,
    },
    /// Pass the reviewer's judgement of the test to the test writer.
    ReproducerFeedback {
        /// The reviewer's analysis.
        analysis: &'a str,
        /// The reviewer's advice.
        advice: &'a str,
        /// The repository's language.
        language: Language,
    },
    /// Ask the reviewer to judge a patch and a test by their runs.
    Review {
        /// The issue text.
        issue: &'a str,
        /// The reproducer.
        test: &'a str,
        /// The reproducer's language (its code block's).
        language: Language,
        /// Its run on the original program.
        before: &'a RunOutcome,
        /// The candidate patch.
        patch: &'a str,
        /// Its run on the patched program.
        after: &'a RunOutcome,
    },
    /// Ask the reviewer again after an unreadable answer.
    ReviewRetry,
    /// MCTS: ask for a 0-100 rating of a candidate.
    Rate {
        /// The issue text.
        issue: &'a str,
        /// The candidate's diff.
        patch: &'a str,
        /// What execution showed, or that there was none.
        evidence: &'a str,
    },
    /// Ask the model to choose among the patches of several workflow tries.
    Select {
        /// The issue text.
        issue: &'a str,
        /// The candidates' diffs, numbered from 1 in the prompt.
        candidates: &'a [&'a str],
    },
}

/// Declares [`PromptKind`] with its stage, the JSON shape of its answer and its recognition marker, and
/// [`PromptKind::ALL`], from one table.
macro_rules! kinds {
    ($($kind:ident => $stage:ident, $shape:expr, $marker:expr;)*) => {
        /// The kind of a [`Prompt`], without its data.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
        pub enum PromptKind {
            $(
                #[doc = concat!("[`Prompt::", stringify!($kind), "`].")]
                $kind,
            )*
        }

        impl PromptKind {
            /// Every kind, most specific marker first (the order [`PromptKind::recognise`] tries them in).
            pub const ALL: &'static [PromptKind] = &[$(PromptKind::$kind),*];

            /// The stage this kind of request is at.
            pub fn stage(self) -> Stage {
                match self {
                    $(PromptKind::$kind => Stage::$stage,)*
                }
            }

            /// The JSON the answer must be, for the kinds whose answer is read as JSON: its schema travels with
            /// the request ([`ChatRequest::schema`]).
            pub fn shape(self) -> Option<Shape> {
                match self {
                    $(PromptKind::$kind => $shape,)*
                }
            }

            /// Text that every prompt of this kind contains in its last message (the system message for the proxy).
            fn marker(self) -> Marker {
                match self {
                    $(PromptKind::$kind => $marker,)*
                }
            }
        }
    };
}

/// How a kind is recognised in the last message of a conversation.
enum Marker {
    /// The last user message contains this text.
    Contains(&'static str),
    /// The last user message ends with this text.
    EndsWith(&'static str),
    /// The last user message is exactly this text.
    Is(&'static str),
    /// The first (system) message contains this text.
    System(&'static str),
}

kinds! {
    ProxyRetry => Proxy, Some(Shape::Proxy), Marker::Contains("Reply again with only a JSON object of the form");
    Proxy => Proxy, Some(Shape::Proxy), Marker::System("You turn another assistant's notes about a software bug into JSON");
    DecideAfterNotFound => Decide, None, Marker::Contains("None of the bug locations you gave could be found");
    DecideAfterUnusable => Decide, None, Marker::Contains("Your answer could not be used: ");
    Decide => Decide, None, Marker::EndsWith(text::DECIDE);
    Analyse => Analyse, None, Marker::Is(text::ANALYSE);
    Search => Search, None, Marker::Contains("Search APIs you can call");
    Rate => Rate, Some(Shape::Rating), Marker::Contains("How likely is this patch to resolve the issue");
    Select => Select, Some(Shape::Choice), Marker::Contains("Which candidate is most likely to resolve the issue");
    ReviewRetry => Review, Some(Shape::Review), Marker::Contains("Your review could not be read");
    Review => Review, Some(Shape::Review), Marker::Contains("\n\nA reproducer test:\n```");
    Reproducible => Reproducible, Some(Shape::Reproducible), Marker::Contains("so that a short standalone script could show it?");
    PatchRetry => Patch, None, Marker::Contains("Your patch could not be applied: ");
    PatchAmbiguous => Patch, None, Marker::Contains("Only part of your patch could be applied.");
    ReviewFeedback => Patch, None, Marker::Contains("A reviewer ran your patch against a reproducer");
    ValidationFeedback => Patch, None, Marker::Contains("validating it by execution failed");
    Refine => Patch, None, Marker::Contains("A previous attempt produced this patch");
    Infill => Patch, None, Marker::Contains(text::INFILL_MASK);
    RewriteFunction => Patch, None, Marker::Contains("this function is buggy");
    PatchAfresh => Patch, None, Marker::Contains(text::TRIED_BEFORE);
    PatchWithLocations => Patch, None, Marker::Contains("The bug is in the following code:");
    PatchFromConversation => Patch, None, Marker::Contains("Using everything gathered above, write a patch");
    ReproducerNoScript => Reproducer, None, Marker::Contains("Your reply has no script in it.");
    ReproducerFailed => Reproducer, None, Marker::Contains("did not reproduce the issue");
    ReproducerFeedback => Reproducer, None, Marker::Contains("A reviewer judged your reproducer wrong");
    Reproducer => Reproducer, None, Marker::Contains("that reproduces this issue. While the bug is present it must fail");
}

impl PromptKind {
    /// The kind of prompt a conversation ends with, recognised from its messages alone (the last user message, or
    /// the proxy's system message). `None` for text the agent never sends.
    pub fn recognise(messages: &[Message]) -> Option<PromptKind> {
        let system = messages.first().filter(|m| m.role == Role::System).map(|m| m.content.as_str());
        let last = messages.iter().rev().find(|m| m.role == Role::User).map(|m| m.content.as_str());
        PromptKind::ALL.iter().copied().find(|kind| match kind.marker() {
            Marker::System(t) => system.is_some_and(|s| s.contains(t)) && messages.len() == 2,
            Marker::Contains(t) => last.is_some_and(|l| l.contains(t)),
            Marker::EndsWith(t) => last.is_some_and(|l| l.ends_with(t)),
            Marker::Is(t) => last == Some(t),
        })
    }
}

impl Prompt<'_> {
    /// The kind of request.
    pub fn kind(&self) -> PromptKind {
        match self {
            Prompt::Search { .. } => PromptKind::Search,
            Prompt::Analyse { .. } => PromptKind::Analyse,
            Prompt::Decide => PromptKind::Decide,
            Prompt::DecideAfterUnusable { .. } => PromptKind::DecideAfterUnusable,
            Prompt::DecideAfterNotFound { .. } => PromptKind::DecideAfterNotFound,
            Prompt::Proxy { .. } => PromptKind::Proxy,
            Prompt::ProxyRetry { .. } => PromptKind::ProxyRetry,
            Prompt::PatchWithLocations { .. } => PromptKind::PatchWithLocations,
            Prompt::PatchAfresh { .. } => PromptKind::PatchAfresh,
            Prompt::PatchFromConversation { .. } => PromptKind::PatchFromConversation,
            Prompt::PatchRetry { .. } => PromptKind::PatchRetry,
            Prompt::PatchAmbiguous { .. } => PromptKind::PatchAmbiguous,
            Prompt::ReviewFeedback { .. } => PromptKind::ReviewFeedback,
            Prompt::ValidationFeedback { .. } => PromptKind::ValidationFeedback,
            Prompt::Refine { .. } => PromptKind::Refine,
            Prompt::Infill { .. } => PromptKind::Infill,
            Prompt::RewriteFunction { .. } => PromptKind::RewriteFunction,
            Prompt::Reproducible { .. } => PromptKind::Reproducible,
            Prompt::Reproducer { .. } => PromptKind::Reproducer,
            Prompt::ReproducerNoScript { .. } => PromptKind::ReproducerNoScript,
            Prompt::ReproducerFailed { .. } => PromptKind::ReproducerFailed,
            Prompt::ReproducerFeedback { .. } => PromptKind::ReproducerFeedback,
            Prompt::Review { .. } => PromptKind::Review,
            Prompt::ReviewRetry => PromptKind::ReviewRetry,
            Prompt::Rate { .. } => PromptKind::Rate,
            Prompt::Select { .. } => PromptKind::Select,
        }
    }

    /// The stage of the request.
    pub fn stage(&self) -> Stage {
        self.kind().stage()
    }

    /// The messages this request adds to its conversation.
    pub fn messages(&self) -> Vec<Message> {
        let user = |s: String| vec![Message::user(s)];
        match *self {
            Prompt::Search { issue, language, trace } => {
                vec![Message::system(text::search_system(language)), Message::user(text::search_start(issue, trace))]
            }
            // With no results given, they are already in the conversation (as the answers to tool calls).
            Prompt::Analyse { results: [], .. } => user(text::ANALYSE.to_string()),
            Prompt::Analyse { results, not_run } => {
                let mut shown = text::call_results(results);
                if let Some(note) = text::calls_not_run(not_run) {
                    shown.push_str(&note);
                }
                vec![Message::user(shown), Message::user(text::ANALYSE)]
            }
            Prompt::Decide => user(text::DECIDE.to_string()),
            Prompt::DecideAfterUnusable { problem } => {
                user(format!("{}\n\n{}", text::unusable_answer(problem), text::DECIDE))
            }
            Prompt::DecideAfterNotFound { reasons } => {
                user(format!("{}\n\n{}", text::locations_not_found(reasons), text::DECIDE))
            }
            Prompt::Proxy { answer } => {
                vec![Message::system(text::proxy_system()), Message::user(text::proxy_request(answer))]
            }
            Prompt::ProxyRetry { problems } => user(text::proxy_retry(problems)),
            Prompt::PatchWithLocations { issue, locations, context, format } => vec![
                Message::system(text::patch_system(format.language)),
                Message::user(text::patch_with_locations(issue, locations, context, format)),
            ],
            Prompt::PatchAfresh { issue, locations, context, tried, format } => vec![
                Message::system(text::patch_system(format.language)),
                Message::user(text::patch_afresh(issue, locations, context, tried, format)),
            ],
            Prompt::PatchFromConversation { format } => user(text::patch_from_conversation(format)),
            Prompt::PatchRetry { reason, format, answer_start } => {
                user(text::patch_failed(reason, format, answer_start))
            }
            Prompt::PatchAmbiguous { refused, format } => user(text::patch_ambiguous(refused, format)),
            Prompt::ReviewFeedback { analysis, advice, format } => {
                user(text::review_patch_feedback(analysis, advice, format))
            }
            Prompt::ValidationFeedback { message, format } => user(text::validation_failed(message, format)),
            Prompt::Refine { parent_patch, feedback, format } => user(text::refine(parent_patch, feedback, format)),
            Prompt::Infill { file, masked_code, feedback } => user(text::infill(file, masked_code, feedback)),
            Prompt::RewriteFunction { file, code, feedback } => user(text::rewrite_function(file, code, feedback)),
            Prompt::Reproducible { issue } => user(text::reproducible(issue)),
            Prompt::Reproducer { issue, places, language } => user(text::reproducer(issue, places, language)),
            Prompt::ReproducerNoScript { language } => user(text::reproducer_no_script(language)),
            Prompt::ReproducerFailed { outcome, flaws, language } => {
                user(text::reproducer_failed(outcome, flaws, language))
            }
            Prompt::ReproducerFeedback { analysis, advice, language } => {
                user(text::review_test_feedback(analysis, advice, language))
            }
            Prompt::Review { issue, test, language, before, patch, after } => {
                user(text::review(issue, test, language, before, patch, after))
            }
            Prompt::ReviewRetry => user(text::review_retry()),
            Prompt::Rate { issue, patch, evidence } => user(text::rate(issue, patch, evidence)),
            Prompt::Select { issue, candidates } => user(text::select(issue, candidates)),
        }
    }

    /// The request to send: `history` (the conversation so far) followed by this prompt's messages. Kinds whose
    /// messages start with a system message start a new conversation, and ignore `history`.
    pub fn request(&self, history: &[Message]) -> ChatRequest {
        let new = self.messages();
        let mut messages =
            if new.first().is_some_and(|m| m.role == Role::System) { Vec::new() } else { history.to_vec() };
        messages.extend(new);
        let request = ChatRequest::new(self.stage(), messages);
        match self.kind().shape() {
            Some(shape) => request.constrained(shape.schema()),
            None => request,
        }
    }
}

/// A rendered sample of every kind of prompt (last message, or the whole conversation for kinds that start one),
/// built from a small example. For tests of recognition and snapshots, and for documentation.
pub fn samples() -> Vec<(PromptKind, Vec<Message>)> {
    use crate::locate::ContextKind;
    let issue = "Cart.total() ignores the number of units of each item.";
    // The sample's language is its file's.
    let language = Language::for_path("shop/cart.py");
    let location = |class: Option<&str>, method: &str, start: u32, code: &str, why: &str| BugLocation {
        file: "shop/cart.py".into(),
        class: class.map(str::to_string),
        method: Some(method.to_string()),
        start,
        end: start + code.lines().count() as u32 - 1,
        code: code.to_string(),
        intended_behavior: why.to_string(),
    };
    let locations = [location(
        Some("Cart"),
        "total",
        12,
        "    def total(self):\n        return sum(i.price for i in self.items)\n",
        "Multiply each price by its units.",
    )];
    let class_code = "class Cart(Basket):\n    def __init__(self):\n        self.items = []\n\n    def total(self):\n        return sum(i.price for i in self.items)\n";
    let context = [
        Context {
            kind: ContextKind::EnclosingClass,
            for_location: 0,
            location: BugLocation { class: Some("Cart".into()), method: None, ..location(None, "", 8, class_code, "") },
        },
        Context {
            kind: ContextKind::AncestorMethod { class: "Basket".into(), depth: 1 },
            for_location: 0,
            location: BugLocation {
                file: "shop/basket.py".into(),
                ..location(Some("Basket"), "total", 5, "    def total(self):\n        return 0\n", "")
            },
        },
    ];
    let results = [(
        SearchCall::SearchMethodInClass { method_name: "total".into(), class_name: "Cart".into() },
        "Found 1 methods with name total in class Cart.\nSearch result 1: <file>shop/cart.py</file> <class>Cart</class> <func>total</func>\n<code>\n12     def total(self):\n</code>".to_string(),
    )];
    let not_found = ["No code matches the bug location file `shop/basket.py`.".to_string()];
    let not_run = NotRun {
        names_nothing: vec![SearchCall::SearchCodeInFile { code_str: "116".into(), file_name: "Square.py".into() }],
        over_cap: Vec::new(),
        repeats: 0,
        answered: vec![SearchCall::SearchClass { class_name: "Cart".into() }],
    };
    let problems = [Problem::Empty];
    let failed = RunOutcome {
        exit_code: Some(1),
        stderr: "Traceback (most recent call last):\n  File \"reproducer.py\", line 4\nAssertionError: 50 != 150"
            .into(),
        ..RunOutcome::default()
    };
    let passed = RunOutcome { exit_code: Some(0), ..RunOutcome::default() };
    let diff = "--- a/shop/cart.py\n+++ b/shop/cart.py\n@@ -13 +13 @@\n-        return sum(i.price for i in self.items)\n+        return sum(i.price * i.units for i in self.items)\n";
    let test = "from shop.cart import Cart\nassert Cart().total() == 150\n";
    let candidates = [diff, diff];
    let tried = [Tried { diff: diff.to_string(), run: failed.clone() }];
    let places = [crate::issue_names::Place {
        file: "shop/cart.py".into(),
        line: 11,
        kind: crate::index::DefKind::Method,
        name: "Cart.total".into(),
    }];
    let flaws = Flaws {
        copies: Vec::new(),
        never_checks: true,
        unimported: vec!["shop.cart".into()],
        undefined: vec!["report".into()],
    };
    let prompt = |kind: PromptKind| -> Prompt<'_> {
        match kind {
            PromptKind::Search => Prompt::Search { issue, language, trace: Some(&failed.stderr) },
            PromptKind::Analyse => Prompt::Analyse { results: &results, not_run: &not_run },
            PromptKind::Decide => Prompt::Decide,
            PromptKind::DecideAfterUnusable => {
                Prompt::DecideAfterUnusable { problem: "no search calls or bug locations could be read from it." }
            }
            PromptKind::DecideAfterNotFound => Prompt::DecideAfterNotFound { reasons: &not_found },
            PromptKind::Proxy => Prompt::Proxy { answer: "Let me look at the cart: search_class(\"Cart\")." },
            PromptKind::ProxyRetry => Prompt::ProxyRetry { problems: &problems },
            PromptKind::PatchWithLocations => Prompt::PatchWithLocations {
                issue,
                locations: &locations,
                context: &context,
                format: EditFormat::Acr.into(),
            },
            PromptKind::PatchAfresh => Prompt::PatchAfresh {
                issue,
                locations: &locations,
                context: &context,
                tried: &tried,
                format: EditFormat::Definition.into(),
            },
            PromptKind::PatchFromConversation => Prompt::PatchFromConversation { format: EditFormat::Acr.into() },
            PromptKind::PatchRetry => Prompt::PatchRetry {
                reason: "Edit 1 (shop/cart.py): the <original> was not found.",
                format: EditFormat::Acr.into(),
                answer_start: "",
            },
            PromptKind::PatchAmbiguous => Prompt::PatchAmbiguous {
                refused: "- edit 2 (shop/cart.py): line 11 in `Cart.total`; line 13 in `Cart.total`\n",
                format: EditFormat::Acr.into(),
            },
            PromptKind::ReviewFeedback => Prompt::ReviewFeedback {
                analysis: "It adds units.",
                advice: "Multiply.",
                format: EditFormat::Acr.into(),
            },
            PromptKind::ValidationFeedback => Prompt::ValidationFeedback {
                message: "The reproducer still fails:\nAssertionError: 50 != 150",
                format: EditFormat::Acr.into(),
            },
            PromptKind::Refine => Prompt::Refine {
                parent_patch: diff,
                feedback: "the reproducer still fails",
                format: EditFormat::Acr.into(),
            },
            PromptKind::Infill => Prompt::Infill {
                file: "shop/cart.py",
                masked_code: "    def total(self):\n        >>> [ INFILL ] <<<\n",
                feedback: "the model rated it 40/100",
            },
            PromptKind::RewriteFunction => Prompt::RewriteFunction {
                file: "shop/cart.py",
                code: "    def total(self):\n        return sum(i.price for i in self.items)\n",
                feedback: "the model rated it 40/100",
            },
            PromptKind::Reproducible => Prompt::Reproducible { issue },
            PromptKind::Reproducer => Prompt::Reproducer { issue, places: &places, language },
            PromptKind::ReproducerNoScript => Prompt::ReproducerNoScript { language },
            PromptKind::ReproducerFailed => Prompt::ReproducerFailed { outcome: &passed, flaws: &flaws, language },
            PromptKind::ReproducerFeedback => {
                let (analysis, advice) = ("It never calls total().", "Call it.");
                Prompt::ReproducerFeedback { analysis, advice, language }
            }
            PromptKind::Review => {
                Prompt::Review { issue, test, language, before: &failed, patch: diff, after: &passed }
            }
            PromptKind::ReviewRetry => Prompt::ReviewRetry,
            PromptKind::Rate => Prompt::Rate { issue, patch: diff, evidence: "No execution was available." },
            PromptKind::Select => Prompt::Select { issue, candidates: &candidates },
        }
    };
    PromptKind::ALL
        .iter()
        .map(|&kind| {
            let p = prompt(kind);
            assert_eq!(p.kind(), kind, "the sample of {kind:?} is of its kind");
            (kind, p.messages())
        })
        .collect()
}

#[cfg(test)]
mod tests;
