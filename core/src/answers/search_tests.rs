use super::*;
use crate::proxy;

fn extract(answer: &str) -> SearchAnswer {
    read(answer)
}

fn validate(result: &ProxyResult) -> proxy::Validated {
    proxy::validate(result, None)
}

fn loc(file: &str, class: &str, method: &str, why: &str) -> LocationSpec {
    let opt = |s: &str| (!s.is_empty()).then(|| s.to_string());
    LocationSpec { file: opt(file), class: opt(class), method: opt(method), intended_behavior: why.to_string() }
}

#[test]
fn fenced_json_with_prose_around() {
    let answer = r#"Sure! Here is the result:

```json
{
  "API_calls": ["search_method_in_class(\"write\", \"RST\")"],
  "bug_locations": [
    {"file": "astropy/io/ascii/rst.py", "class": "RST", "method": "__init__", "intended_behavior": "accept header_rows"}
  ]
}
```

Let me know if you need anything else."#;
    let e = extract(answer);
    assert_eq!(e.source, Source::Json);
    assert_eq!(e.result.api_calls, vec![r#"search_method_in_class("write", "RST")"#]);
    assert_eq!(e.result.bug_locations, vec![loc("astropy/io/ascii/rst.py", "RST", "__init__", "accept header_rows")]);
}

#[test]
fn bare_json_followed_by_prose() {
    let answer = "{\"API_calls\": [], \"bug_locations\": [{\"file\": \"a.py\", \"class\": \"\", \"method\": \"f\", \
                  \"intended_behavior\": \"\"}]} I hope this {helps}.";
    let e = extract(answer);
    assert_eq!(e.source, Source::Json);
    assert!(e.result.api_calls.is_empty());
    assert_eq!(e.result.bug_locations, vec![loc("a.py", "", "f", "")]);
}

#[test]
fn single_quotes_trailing_commas_and_python_constants() {
    let answer = "Result: {'API_calls': ['search_class(\"Foo\")', 'search_code(\\'x = 1\\')',], \
                  'bug_locations': [{'file': None, 'class': 'Foo', 'method': '', 'intended_behavior': \"don't \
                  crash\", 'verified': True,},],}";
    let e = extract(answer);
    assert_eq!(e.source, Source::Json, "{:?}", e.notes);
    assert_eq!(e.result.api_calls, vec!["search_class(\"Foo\")", "search_code('x = 1')"]);
    assert_eq!(e.result.bug_locations, vec![loc("", "Foo", "", "don't crash")]);
    assert!(validate(&e.result).is_valid());
}

#[test]
fn unescaped_nested_quotes_are_recovered() {
    let answer = r#"{"API_calls": ["search_method_in_class("write", "RST")", "search_code("print('hi')")", "search_class(Foo)"],
"bug_locations": [{"file": "rst.py", "class": "RST", "method": "write", "intended_behavior": "keep rows"}]}"#;
    let e = extract(answer);
    assert_eq!(e.source, Source::Json);
    assert_eq!(
        e.result.api_calls,
        vec![r#"search_method_in_class("write", "RST")"#, r#"search_code("print('hi')")"#, "search_class(Foo)"]
    );
    assert_eq!(e.result.bug_locations, vec![loc("rst.py", "RST", "write", "keep rows")]);
    let v = validate(&e.result);
    assert_eq!(v.calls.len(), 2);
    assert_eq!(v.problems.len(), 1, "the unquoted argument is reported");
}

#[test]
fn keyword_arguments_survive_extraction_and_validation() {
    let answer = "```\n{\"API_calls\": [\"search_method_in_file(file_name='src/app.py', method_name='run')\", \
                  \"get_code_around_line('src/app.py', line_no=40, window=5)\"], \"bug_locations\": []}\n```";
    let e = extract(answer);
    let v = validate(&e.result);
    assert!(v.is_valid(), "{:?}", v.problems);
    let shown: Vec<String> = v.calls.iter().map(ToString::to_string).collect();
    assert_eq!(
        shown,
        vec!["search_method_in_file(\"run\", \"src/app.py\")", "get_code_around_line(\"src/app.py\", 40, 5)"]
    );
}

#[test]
fn class_dot_method_in_one_field() {
    let answer = r#"{"API_calls": [], "bug_locations": [
        {"file": "requests/sessions.py", "class": "", "method": "Session.request", "intended_behavior": "decode"},
        {"file": "", "class": "Session.resolve_redirects", "method": "", "intended_behavior": "copy"}]}"#;
    let e = extract(answer);
    let v = validate(&e.result);
    let qs: Vec<(Option<&str>, Option<&str>)> =
        v.locations.iter().map(|l| (l.query.class.as_deref(), l.query.method.as_deref())).collect();
    assert_eq!(qs, vec![(Some("Session"), Some("request")), (Some("Session"), Some("resolve_redirects"))]);
}

#[test]
fn loose_key_names_and_nesting() {
    let answer = r#"{"answer": {"api calls": null, "Bug_Locations": {"file_name": "x.py", "function": "f",
        "intended_behaviour": "return 0"}}}"#;
    let e = extract(answer);
    assert_eq!(e.result.bug_locations, vec![loc("x.py", "", "f", "return 0")]);
}

#[test]
fn calls_given_as_objects() {
    let answer = r#"{"API_calls": [{"name": "search_class", "args": ["Foo"]},
        {"api": "search_method_in_class", "arguments": {"method_name": "m", "class_name": "C"}}, 7]}"#;
    let e = extract(answer);
    assert_eq!(
        e.result.api_calls,
        vec![
            "search_class(\"Foo\")",
            // Keyword order does not matter; serde_json's map sorts keys.
            "search_method_in_class(class_name=\"C\", method_name=\"m\")"
        ]
    );
    assert_eq!(e.notes, vec!["API call 3 is not a call: 7"]);
}

#[test]
fn prose_fallback_takes_parsable_calls_only() {
    let answer = "To find the bug I need `search_class(\"Foo\")` and then\nsearch_method_in_file('bar', \
                  \"pkg/x.py\"). The API search_method_in_class(method_name, class_name) also helps, as would \
                  search_code ( 'a(b)' ).";
    let e = extract(answer);
    assert_eq!(e.source, Source::ProseCalls);
    assert_eq!(
        e.result.api_calls,
        vec!["search_class(\"Foo\")", "search_method_in_file('bar', \"pkg/x.py\")", "search_code ( 'a(b)' )"]
    );
    insta::assert_snapshot!(e.notes.join("\n"));
    assert!(validate(&e.result).is_valid());
}

#[test]
fn nothing_usable() {
    let e = extract("I do not know where the bug is. {not json}");
    assert_eq!(e.source, Source::Nothing);
    assert_eq!(e.result, ProxyResult::default());
    assert!(!validate(&e.result).is_valid());
}

#[test]
fn json_without_proxy_keys_falls_back_to_prose() {
    let e = extract("{\"thoughts\": \"look\"} then search_method(\"f\")");
    assert_eq!(e.source, Source::ProseCalls);
    assert_eq!(e.result.api_calls, vec!["search_method(\"f\")"]);
}

#[test]
fn extraction_snapshot_of_a_messy_answer() {
    let answer = "Analysis done.\n```json\n{\n  // the calls\n  'API_calls': [\n    \"search_code('raise \
                  ValueError(\\\"bad\\\")')\",\n  ],\n  \"bug_locations\": [\n    {\"file\": \"./lib/core.py\", \
                  \"class\": \"N/A\", \"method\": \"def parse(text):\", \"intended_behavior\": \"Handle\nempty \
                  input\"},\n  ],\n}\n```\nThat is all.";
    let e = extract(answer);
    let v = validate(&e.result);
    let shown = serde_json::json!({"extraction": e, "validated": v});
    insta::assert_snapshot!(serde_json::to_string_pretty(&shown).unwrap_or_default());
}

#[test]
fn arbitrary_text_never_panics() {
    for t in [
        "{",
        "}",
        "```",
        "```json\n{",
        "{'a': '",
        "{\"API_calls\": [\"",
        "{\"API_calls\": [\"search_class(\"",
        "{'bug_locations': [{",
        "search_class(",
        "{\"API_calls\": \"search_class('x')\"}",
        "é{é}é",
        "{\"bug_locations\": [1, \"x\"]}",
        "{\"API_calls\": [\"a\", 'b\\",
    ] {
        let e = extract(t);
        let _ = validate(&e.result);
    }
    let single = extract("{\"API_calls\": \"search_class('x')\"}");
    assert_eq!(single.result.api_calls, vec!["search_class('x')"]);
}

#[test]
fn large_inputs_stay_fast_enough() {
    // Many prose calls and a big broken list: each call is read from a bounded window, not the whole rest.
    let prose = "see search_class(\"A\") and ".repeat(5000);
    let e = extract(&prose);
    assert_eq!(e.result.api_calls.len(), 5000);
    let broken =
        format!("{{\"API_calls\": [{}], \"bug_locations\": []}}", vec!["\"search_code(\"x\")\""; 3000].join(", "));
    let e = extract(&broken);
    assert_eq!(e.result.api_calls.len(), 3000);
    let braces = "{".repeat(100_000);
    assert_eq!(extract(&braces).source, Source::Nothing);
}

/// Random text built from the characters that matter to the parsers never makes them panic.
#[test]
fn random_text_never_panics() {
    const PIECES: &[&str] = &[
        "{",
        "}",
        "[",
        "]",
        "(",
        ")",
        "\"",
        "'",
        "\\",
        ",",
        ":",
        "=",
        "`",
        "```",
        "```json\n",
        " ",
        "\n",
        "é",
        "’",
        "“",
        "search_class",
        "search_method_in_class",
        "API_calls",
        "bug_locations",
        "True",
        "None",
        "0x",
        "1e",
        "-",
        ".",
        "_",
        "r'",
        "\"\"\"",
        "//",
        "file",
        "Class.method",
        "def ",
        "\\u00",
        "\\x",
    ];
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..3000 {
        let len = (next() % 40) as usize;
        let text: String = (0..len).map(|_| PIECES[(next() % PIECES.len() as u64) as usize]).collect();
        let e = extract(&text);
        let _ = validate(&e.result);
        let _ = crate::call::parse_call(&text);
        let _ = crate::locate::Query::new(Some(&text), Some(&text), Some(&text));
    }
}

/// The rule the agent applies, against an index of `files`.
fn acted_on(answer: &str, round: usize, files: &[(&str, &str)]) -> bool {
    let index = crate::index::Index::build(&crate::repo::Repo::from_files(files.iter().copied()));
    let read = extract(answer);
    let direct = proxy::validate(&read.result, Some(&index));
    proxy::stands(&read, round, &direct, Some(&index))
}

const CORE: &[(&str, &str)] = &[
    ("pkg/core.py", "class Engine:\n    def use(self):\n        pass\n\n    def __init__(self):\n        pass\n"),
    ("pkg/plot.py", "class Plot:\n    def draw(self):\n        pass\n"),
];

#[test]
fn a_method_in_a_file_is_not_a_class_named_py() {
    // "The `use` method in `core.py`": the file of the method, not class `core.py` (read as class `py`).
    let answer = "- where are bug locations:\n  - Method: `use` in `pkg/core.py`\n";
    let e = extract(answer);
    assert_eq!(e.result.bug_locations, vec![loc("pkg/core.py", "", "use", "")]);
    let q = e.result.bug_locations[0].query();
    assert_eq!((q.file.as_deref(), q.class.as_deref(), q.method.as_deref()), (Some("pkg/core.py"), None, Some("use")));
    assert!(acted_on(answer, 2, CORE));
    // Under a file, the same file written shorter is that file; another file fails the reading.
    let e = extract("- where are bug locations:\n  - File: `pkg/core.py`\n  - Method: `use` in `core.py`\n");
    assert_eq!(e.result.bug_locations, vec![loc("pkg/core.py", "", "use", "")]);
    let other = extract("- where are bug locations:\n  - File: `pkg/plot.py`\n  - Method: `use` in `core.py`\n");
    assert!(!other.complete);
    // The proxy model's JSON with a path for a class is read the same way.
    let spec = LocationSpec { class: Some("core.py".into()), method: Some("use".into()), ..LocationSpec::default() };
    let q = spec.query();
    assert_eq!((q.file.as_deref(), q.class.as_deref(), q.method.as_deref()), (Some("core.py"), None, Some("use")));
}

#[test]
fn dunder_names_keep_their_underscores_and_a_bare_init_is_not_trusted() {
    // `__` after a label's colon starts the name; it is not markdown bold.
    let e = extract("- where are bug locations:\n  - File: `pkg/core.py`\n  - Method: __init__\n");
    assert_eq!(e.result.bug_locations, vec![loc("pkg/core.py", "", "__init__", "")]);
    let e = extract("- where are bug locations:\n  - **File**: pkg/core.py, **Method**: __init__\n");
    assert_eq!(e.result.bug_locations, vec![loc("pkg/core.py", "", "__init__", "")]);
    // `init` in a call, in an answer that speaks of `__init__`: which was meant is not clear.
    let answer = "1. `search_method_in_class(\"init\", \"Engine\")`: the constructor (`__init__`) sets it up.";
    let e = extract(answer);
    assert_eq!(e.source, Source::ProseCalls);
    assert!(!e.complete, "{:?}", e.notes);
    assert!(!acted_on(answer, 1, CORE));
    assert!(acted_on("1. `search_method_in_class(\"__init__\", \"Engine\")`: the constructor.", 1, CORE));
    assert!(acted_on("1. `search_method_in_class(\"init\", \"Engine\")`: the set-up.", 1, CORE));
}

#[test]
fn quoting_names_are_unquoted_and_quoted_code_is_asked_about() {
    // A name quoted twice is the name.
    let answer = "1. `search_class(\"'Engine'\")`\n2. `search_method_in_file(\"`use`\", \"pkg/core.py\")`";
    let v = validate(&extract(answer).result);
    let calls: Vec<String> = v.calls.iter().map(ToString::to_string).collect();
    assert_eq!(calls, ["search_class(\"Engine\")", "search_method_in_file(\"use\", \"pkg/core.py\")"]);
    assert!(acted_on(answer, 1, CORE));
    // Code wrapped in quotes may be the string literal or the bare text: the proxy model decides.
    assert!(!acted_on("1. `search_code(\"'use'\")`", 1, CORE));
    // Quotes inside code are code.
    assert!(acted_on("1. `search_code(\"x = 'use'\")`", 1, CORE));
}

#[test]
fn a_method_and_its_class_are_kept_or_the_reading_is_not_trusted() {
    // Both kept: acted on.
    let answer = "- where are bug locations:\n  - File: `pkg/core.py`\n  - Method: `use` of the `Engine` class\n";
    assert_eq!(extract(answer).result.bug_locations, vec![loc("pkg/core.py", "Engine", "use", "")]);
    assert!(acted_on(answer, 2, CORE));
    // A method and its class said under a file the reading keeps alone: incomplete, so not trusted.
    for answer in [
        "- where are bug locations:\n  - File: `pkg/core.py`\n    - This method `use` in class `Engine` needs care.\n",
        "- where are bug locations:\n  - File: `pkg/core.py`\n    - This file holds `Engine.use`, which is wrong.\n",
        "- where are bug locations:\n  - File: `pkg/core.py`\n  - Method: `use`: it should call the `draw` method.\n",
    ] {
        let e = extract(answer);
        assert!(!e.complete || e.source != Source::ProseLocations, "{answer}: {:?}", e.result);
        assert!(!acted_on(answer, 2, CORE), "{answer}");
    }
    // A place the index does not hold (another method of the same file, a class in another file) is not trusted.
    assert!(!acted_on("- where are bug locations:\n  - File: `pkg/core.py`\n  - Method: `draw`\n", 2, CORE));
    assert!(!acted_on("- where are bug locations:\n  - File: `pkg/core.py`\n  - Class: `Plot`\n", 2, CORE));
}

#[test]
fn locations_with_a_request_for_more_context_are_not_trusted() {
    let asks = "- do we need more context: Yes, the `draw` method of `Plot` should be searched as well.\n\
                - where are bug locations:\n  - File: `pkg/core.py`\n  - Method: `use`\n";
    let e = extract(asks);
    assert_eq!(e.source, Source::ProseLocations);
    assert!(!e.complete);
    assert!(!acted_on(asks, 2, CORE));
    for no in [
        "- do we need more context:\n\n- where are bug locations:\n  - File: `pkg/core.py`\n  - Method: `use`\n",
        "- do we need more context: No.\n- where are bug locations:\n  - File: `pkg/core.py`\n  - Method: `use`\n",
        "- We do not need more context.\n\n- Bug locations:\n  - File: `pkg/core.py`\n  - Method: `use`\n",
    ] {
        assert!(acted_on(no, 2, CORE), "{no}");
    }
    // Calls written as calls next to locations are read as calls.
    let both =
        "- do we need more context: `search_class(\"Plot\")`\n- where are bug locations:\n  - File: `pkg/core.py`\n";
    assert_eq!(extract(both).source, Source::ProseCalls);
}

#[test]
fn locations_from_prose_need_an_index() {
    let answer = "- where are bug locations:\n  - File: `pkg/core.py`\n  - Method: `use`\n";
    let read = extract(answer);
    let direct = validate(&read.result);
    assert!(proxy::trusted(&read, 2));
    assert!(!proxy::stands(&read, 2, &direct, None));
}
