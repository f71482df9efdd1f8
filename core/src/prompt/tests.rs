use super::*;

#[test]
fn every_kind_has_a_sample_and_is_recognised_from_its_messages() {
    let samples = samples();
    assert_eq!(samples.len(), PromptKind::ALL.len());
    for (kind, messages) in &samples {
        // As a server sees it: an earlier conversation, then this prompt's messages.
        let mut conversation = if messages[0].role == Role::System {
            Vec::new()
        } else {
            vec![Message::system("earlier"), Message::user("earlier question"), Message::assistant("earlier answer")]
        };
        conversation.extend(messages.iter().cloned());
        assert_eq!(PromptKind::recognise(&conversation), Some(*kind), "{kind:?}: {:?}", messages.last());
    }
    assert_eq!(PromptKind::recognise(&[Message::user("Reply with the word: ok")]), None);
    assert_eq!(PromptKind::recognise(&[]), None);
}

#[test]
fn every_stage_is_reached_by_some_kind() {
    for stage in Stage::ALL {
        assert!(PromptKind::ALL.iter().any(|k| k.stage() == stage), "{stage}");
    }
}

#[test]
fn requests_continue_or_start_a_conversation() {
    let history = vec![Message::system("s"), Message::user("u"), Message::assistant("a")];
    let decide = Prompt::Decide.request(&history);
    assert_eq!((decide.messages.len(), decide.stage, decide.schema), (4, Stage::Decide, None));
    let proxy = Prompt::Proxy { answer: "x" }.request(&history);
    assert_eq!((proxy.messages.len(), proxy.stage), (2, Stage::Proxy));
    assert_eq!(proxy.schema, Some(Shape::Proxy.schema()));
}

/// The kinds whose answers are read as JSON carry their schema, and no other kind does: the proxy, the reviewer,
/// the reproducible question, the rating and the selection, never an answer written in words.
#[test]
fn the_kinds_read_as_json_carry_their_schema() {
    let constrained: Vec<(PromptKind, Shape)> = PromptKind::ALL.iter().filter_map(|k| Some((*k, k.shape()?))).collect();
    let stages: std::collections::BTreeSet<Stage> = constrained.iter().map(|(k, _)| k.stage()).collect();
    assert_eq!(
        stages.into_iter().collect::<Vec<_>>(),
        [Stage::Proxy, Stage::Reproducible, Stage::Review, Stage::Rate, Stage::Select]
    );
    for (kind, shape) in constrained {
        assert!(PromptKind::ALL.iter().filter(|k| k.stage() == kind.stage()).all(|k| k.shape() == Some(shape)));
    }
}

/// What a server holding the model to a schema reads: the schema of each JSON answer, as sent in `response_format`.
#[test]
fn snapshot_of_the_json_schemas() {
    for shape in Shape::ALL {
        let format = shape.schema().response_format();
        insta::assert_snapshot!(format!("schema_{shape:?}"), serde_json::to_string_pretty(&format).unwrap_or_default());
    }
}

/// What the model reads, for every kind of request: a change here is a change to what the model is told.
#[test]
fn snapshot_of_every_prompt() {
    for (kind, messages) in samples() {
        let rendered: Vec<String> = messages
            .iter()
            .map(|m| {
                format!("[{}]\n{}", serde_json::to_value(m.role).unwrap_or_default().as_str().unwrap_or(""), m.content)
            })
            .collect();
        insta::assert_snapshot!(format!("{kind:?}"), rendered.join("\n\n"));
    }
}

/// What the model reads when the search APIs are offered as tools: their definitions, and the answer to a call that
/// could not be made.
#[test]
fn snapshot_of_the_tools() {
    let tools: Vec<serde_json::Value> = crate::llm::Tool::search_apis().iter().map(crate::llm::Tool::to_json).collect();
    insta::assert_snapshot!("tools", serde_json::to_string_pretty(&tools).unwrap_or_default());
    insta::assert_snapshot!(
        "tool_call_failed",
        text::tool_call_failed(
            "search_klass",
            &crate::llm::ToolCall {
                id: "call_1".into(),
                name: "search_klass".into(),
                arguments: "{\"class_name\": \"Cart\"}".into(),
            }
            .search_call()
            .unwrap_err()
        )
    );
}

/// The prompts that change with the repository's language, for a Java repository: the system messages name Java and
/// code is fenced as Java.
#[cfg(feature = "java")]
#[test]
fn snapshot_of_the_java_prompts() {
    let file = "src/main/java/shop/Cart.java";
    let code = "    public long total() {\n        long total = 0;\n        return total;\n    }\n";
    let location = BugLocation {
        file: file.into(),
        class: Some("Cart".into()),
        method: Some("total".into()),
        start: 16,
        end: 19,
        code: code.into(),
        intended_behavior: "Multiply each price by its quantity.".into(),
    };
    let failed = RunOutcome { exit_code: Some(1), stdout: "0 passed, 1 failed\n".into(), ..RunOutcome::default() };
    let passed = RunOutcome { exit_code: Some(0), ..RunOutcome::default() };
    let test = "// src/test/java/shop/CartTest.java (failing: shop.CartTest.total)\nclass CartTest {}\n";
    let copying = Flaws { copies: vec!["total".into()], ..Flaws::default() };
    let prompts = [
        Prompt::Search { issue: "Cart.total() ignores quantities.", language: Language::Java, trace: None },
        Prompt::PatchWithLocations {
            issue: "Cart.total() ignores quantities.",
            locations: &[location],
            context: &[],
            format: AskedFormat { format: crate::patch::EditFormat::Acr, language: Language::Java },
        },
        Prompt::Infill { file, masked_code: "        >>> [ INFILL ] <<<", feedback: "it does not compile" },
        Prompt::RewriteFunction { file, code, feedback: "the tests still fail" },
        Prompt::Review { issue: "x", test, language: Language::Java, before: &failed, patch: "diff", after: &passed },
        Prompt::Reproducer { issue: "Cart.total() ignores quantities.", places: &[], language: Language::Java },
        Prompt::ReproducerNoScript { language: Language::Java },
        Prompt::ReproducerFailed { outcome: &passed, flaws: &Flaws::default(), language: Language::Java },
        Prompt::ReproducerFailed { outcome: &failed, flaws: &copying, language: Language::Java },
        Prompt::ReproducerFeedback { analysis: "It never adds a pen.", advice: "Add three.", language: Language::Java },
    ];
    // The markers a server recognises prompts by hold in either language.
    for prompt in &prompts {
        let mut conversation = vec![Message::system("earlier"), Message::user("q"), Message::assistant("a")];
        if prompt.messages()[0].role == Role::System {
            conversation.clear();
        }
        conversation.extend(prompt.messages());
        assert_eq!(PromptKind::recognise(&conversation), Some(prompt.kind()), "{:?}", prompt.kind());
    }
    let rendered: Vec<String> =
        prompts.iter().flat_map(|p| p.messages()).map(|m| format!("[{:?}]\n{}", m.role, m.content)).collect();
    insta::assert_snapshot!("java_prompts", rendered.join("\n\n"));
}

/// The prompts that change with the repository's language, for a TypeScript and a JavaScript repository: the system
/// messages name the language, code is fenced as it, and the reproducer is an ES module run by Node.
#[cfg(feature = "js")]
#[test]
fn snapshot_of_the_script_prompts() {
    let location = BugLocation {
        file: "src/cart.ts".into(),
        class: Some("Cart".into()),
        method: Some("total".into()),
        start: 7,
        end: 9,
        code: "  total(): number {\n    return this.items.reduce((sum, i) => sum + i.price, 0);\n  }\n".into(),
        intended_behavior: "Multiply each price by its units.".into(),
    };
    let failed = RunOutcome { exit_code: Some(0), stdout: "15\n".into(), ..RunOutcome::default() };
    let prompts = [
        Prompt::Search { issue: "Cart.total() ignores units.", language: Language::TypeScript, trace: None },
        Prompt::PatchWithLocations {
            issue: "Cart.total() ignores units.",
            locations: &[location],
            context: &[],
            format: AskedFormat { format: crate::patch::EditFormat::Definition, language: Language::TypeScript },
        },
        Prompt::Reproducer { issue: "Cart.total() ignores units.", places: &[], language: Language::JavaScript },
        Prompt::ReproducerNoScript { language: Language::JavaScript },
        Prompt::ReproducerFailed { outcome: &failed, flaws: &Flaws::default(), language: Language::JavaScript },
    ];
    for prompt in &prompts {
        let conversation = prompt.messages();
        assert_eq!(PromptKind::recognise(&conversation), Some(prompt.kind()), "{:?}", prompt.kind());
    }
    let rendered: Vec<String> =
        prompts.iter().flat_map(|p| p.messages()).map(|m| format!("[{:?}]\n{}", m.role, m.content)).collect();
    insta::assert_snapshot!("script_prompts", rendered.join("\n\n"));
}

/// The instructions of every edit format, as the opening patch request, a retry that shows the model the start of
/// an answer nothing could be read from, the reviewer's feedback and a request to place ambiguous edits carry them. Each is recognised as its kind.
#[test]
fn snapshot_of_every_edit_format() {
    use crate::patch::EditFormat;
    for format in EditFormat::ALL {
        let asked = format.into();
        let prompts = [
            Prompt::PatchFromConversation { format: asked },
            Prompt::PatchRetry {
                reason: "No edit could be read from the answer.",
                format: asked,
                answer_start: "I would multiply the price by the units in `total`:\n\n    return sum(i.price * i.units",
            },
            Prompt::ReviewFeedback { analysis: "It adds units.", advice: "Multiply.", format: asked },
            Prompt::PatchAmbiguous {
                refused: "- edit 1 (shop/cart.py): 3 in `Cart.total`; 9 in `Order.total`\n",
                format: asked,
            },
        ];
        let mut rendered = Vec::new();
        for prompt in &prompts {
            let mut conversation = vec![Message::system("earlier"), Message::user("q"), Message::assistant("a")];
            conversation.extend(prompt.messages());
            assert_eq!(PromptKind::recognise(&conversation), Some(prompt.kind()), "{format}: {:?}", prompt.kind());
            rendered.extend(prompt.messages().into_iter().map(|m| format!("[{:?}]\n{}", m.role, m.content)));
        }
        insta::assert_snapshot!(format!("edit_format_{}", format.name().replace('-', "_")), rendered.join("\n\n"));
    }
}

/// What the model reads of the calls of a round that were not run: in the results (a long list, over the cap, with
/// a call that names nothing and repeats), and as the answers to tool calls.
#[test]
fn snapshot_of_the_calls_not_run() {
    let call = |n: usize| SearchCall::SearchCodeInFile { code_str: n.to_string(), file_name: "square.py".into() };
    let not_run = crate::proxy::NotRun {
        names_nothing: vec![SearchCall::SearchClass { class_name: "Circle".into() }],
        over_cap: (126..242).map(call).collect(),
        repeats: 3,
        answered: vec![SearchCall::SearchClass { class_name: "Square".into() }],
    };
    insta::assert_snapshot!("calls_not_run", text::calls_not_run(&not_run).unwrap_or_default());
    assert_eq!(text::calls_not_run(&crate::proxy::NotRun::default()), None);
    let fates = [
        crate::proxy::Fate::Repeat,
        crate::proxy::Fate::Answered,
        crate::proxy::Fate::NamesNothing,
        crate::proxy::Fate::OverCap,
    ];
    let tool_answers: Vec<String> = fates.iter().filter_map(|f| text::tool_call_not_run(*f)).collect();
    assert_eq!(text::tool_call_not_run(crate::proxy::Fate::Run), None);
    insta::assert_snapshot!("tool_calls_not_run", tool_answers.join("\n\n"));
}

/// A reproducer stopped at the time limit is told so, beside its exit code and output.
#[test]
fn a_reproducer_stopped_at_the_time_limit_is_told_so() {
    let outcome = crate::runner::RunOutcome { exit_code: None, timed_out: true, ..Default::default() };
    let told = text::reproducer_failed(&outcome, &Flaws::default(), Language::Python);
    assert!(told.contains("Exit code: killed (it was stopped at the time limit)."), "{told}");
    let plain = crate::runner::RunOutcome { exit_code: Some(0), stdout: "6\n".into(), ..Default::default() };
    let told = text::reproducer_failed(&plain, &Flaws::default(), Language::Python);
    assert!(told.contains("Exit code: 0.\nstdout:\n6\n"), "{told}");
}

/// A reproducer that defines the code it should import is told so, before its run's output.
#[test]
fn a_reproducer_that_copies_the_code_is_told_to_import_it() {
    let outcome = crate::runner::RunOutcome {
        exit_code: Some(1),
        stderr: "AssertionError: [['a', 'b', 'c']] != [[], ['c']]".into(),
        ..Default::default()
    };
    insta::assert_snapshot!(
        "reproducer_copies",
        text::reproducer_failed(
            &outcome,
            &Flaws { copies: vec!["powerset".into()], ..Flaws::default() },
            Language::Python
        )
    );
}

/// A patch of definitions that changes no code is sent back with why.
#[test]
fn a_patch_that_changes_no_code_is_sent_back() {
    let told = text::patch_failed(text::NO_CODE_CHANGED, crate::patch::EditFormat::Definition.into(), "");
    insta::assert_snapshot!("patch_changes_no_code", told);
}

/// A Python reproducer that printed its AssertionError and exited 0 caught it and carried on: the model is told to
/// raise it again; one whose unittest run reported failures and exited 0 is told to let unittest exit; one that
/// imports a module not installed is told to use the standard library. A run that printed none, or a Java run, is
/// not told so.
#[test]
fn a_reproducer_that_swallows_its_assertion_is_told_to_raise_it_again() {
    let swallowed = RunOutcome {
        exit_code: Some(0),
        stderr:
            "Traceback (most recent call last):\n  File \"reproducer.py\", line 7\nAssertionError: expected 3, got 2\n"
                .into(),
        ..RunOutcome::default()
    };
    let told = |outcome: &RunOutcome, language| {
        Prompt::ReproducerFailed { outcome, flaws: &Flaws::default(), language }.messages()[0].content.clone()
    };
    assert!(told(&swallowed, Language::Python).contains("raise it again"), "{}", told(&swallowed, Language::Python));
    assert!(!told(&RunOutcome { exit_code: Some(0), ..RunOutcome::default() }, Language::Python).contains("raise it"));
    #[cfg(feature = "java")]
    assert!(!told(&swallowed, Language::Java).contains("raise it again"));
    // A unittest run with `exit=False`: its failed tests are reported, and the script still exits 0.
    let unittest = RunOutcome {
        exit_code: Some(0),
        stderr: "F\n====\nFAIL: test_gcd (__main__.TestGCD.test_gcd)\nTraceback (most recent call last):\n  File \
                 \"reproducer.py\", line 6, in test_gcd\nAssertionError: 0 != 13\n----\nRan 1 test in 0.001s\n\n\
                 FAILED (failures=1)\n"
            .into(),
        ..RunOutcome::default()
    };
    let said = told(&unittest, Language::Python);
    assert!(said.contains("`unittest.main(exit=False)` does not end the script"), "{said}");
    assert!(!said.contains("raise it again"), "{said}");
    let no_pytest = RunOutcome {
        exit_code: Some(1),
        stderr: "Traceback (most recent call last):\n  File \"reproducer.py\", line 1, in <module>\n    import \
                 pytest\nModuleNotFoundError: No module named 'pytest'\n"
            .into(),
        ..RunOutcome::default()
    };
    let said = told(&no_pytest, Language::Python);
    assert!(said.contains("The module `pytest` is not installed where the script runs."), "{said}");
}
