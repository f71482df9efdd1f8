//! Definition edits (issue 44): an answer that shows whole definitions replaces each one it names, found by file
//! and class when given, else by the bug locations, else by a name that is unique; ambiguous names are refused with
//! the places. The answers here are written the way small coder models write them: the method alone, with or
//! without a path, with or without the line numbers the prompt showed.

use acr_core::Repo;
use acr_core::patch::{
    self, BugLine, EditFailure, EditFormat, ExtractOptions, ExtractStatus, Extraction, FileOrEditFailure, Outcome,
};

const SQUARE: &str = "\"\"\"Squares.\"\"\"\n\nfrom shapes.shape import Shape\n\n\nclass Square(Shape):\n    \"\"\"A square.\"\"\"\n\n    def __init__(self, side):\n        self.side = side\n\n    def area(self):\n        return self.side * 2\n\n    def perimeter(self):\n        return 4 * self.side\n";
const SHAPE: &str = "class Shape:\n    def area(self):\n        raise NotImplementedError\n\n    def describe(self):\n        return f\"{type(self).__name__} of area {self.area()}\"\n";
const FIXED: &str = "\"\"\"Squares.\"\"\"\n\nfrom shapes.shape import Shape\n\n\nclass Square(Shape):\n    \"\"\"A square.\"\"\"\n\n    def __init__(self, side):\n        self.side = side\n\n    def area(self):\n        return self.side ** 2\n\n    def perimeter(self):\n        return 4 * self.side\n";

fn repo() -> Repo {
    Repo::from_files([("shapes/square.py", SQUARE.as_bytes()), ("shapes/shape.py", SHAPE.as_bytes())])
}

fn extract_with(answer: &str, options: &ExtractOptions) -> Extraction {
    patch::extract(&repo(), answer, options)
}

fn extract(answer: &str) -> Extraction {
    extract_with(answer, &ExtractOptions::default())
}

fn failure(ex: &Extraction) -> &EditFailure {
    match &ex.edits[0].outcome {
        Outcome::Failed { failure: FileOrEditFailure::Edit { failure } } => failure,
        other => panic!("the edit did not fail on a file: {other:?}"),
    }
}

fn assert_fixed(ex: &Extraction) {
    assert_eq!(ex.status, ExtractStatus::ApplicablePatch, "{}", ex.reason);
    assert_eq!(ex.files.get("shapes/square.py").map(String::as_str), Some(FIXED), "{}", ex.diff);
    assert_eq!(ex.files.len(), 1, "only square.py changes");
    assert_eq!(ex.formats, vec![EditFormat::Definition]);
}

/// What Qwen2.5-Coder-1.5B wrote, in every form it wrote it: the method alone, in a fence, with the prompt's line
/// numbers, with and without a path.
#[test]
fn the_method_alone_with_or_without_a_path_and_line_numbers() {
    let answers = [
        "The area of a square is its side squared.\n\n```python\n    12     def area(self):\n    13         return self.side ** 2\n```\n",
        "shapes/square.py\n```python\n    12     def area(self):\n    13         return self.side ** 2\n```\n",
        "```python\ndef area(self):\n    return self.side ** 2\n```\n",
        "`shapes/square.py`\n```python\n    def area(self):\n        return self.side ** 2\n```\n",
        "```python shapes/square.py\nclass Square(Shape):\n    def area(self):\n        return self.side ** 2\n```\n",
    ];
    for answer in answers {
        let located = ExtractOptions {
            bug_lines: vec![BugLine { file: "shapes/square.py".into(), line: 12, end: Some(13) }],
            ..ExtractOptions::default()
        };
        assert_fixed(&extract_with(answer, &located));
    }
    // Without a location, `area` is in both files: the path, the class or the line numbers decide.
    assert_fixed(&extract(answers[1]));
    assert_fixed(&extract(answers[3]));
    assert_fixed(&extract(answers[4]));
    let ex = extract(answers[2]);
    assert!(matches!(failure(&ex), EditFailure::AmbiguousDefinition { .. }), "{:?}", ex.edits);
    assert!(ex.reason.contains("square.py") && ex.reason.contains("shape.py"), "{}", ex.reason);
}

/// Qwen2.5-Coder-1.5B copied the prompt's example path (`path/to/file.py`) above a right fix, in every answer of a
/// QuixBugs task: a path that names no file is read as no path, so the bug locations or a name only one file defines
/// place the definition, and a note says so. A name two files define, with no location, stays refused.
#[test]
fn a_path_that_names_no_file_is_read_as_no_path() {
    let answer =
        "path/to/file.py\n```python\nclass Square(Shape):\n    def area(self):\n        return self.side ** 2\n```\n";
    let ex = extract(answer);
    assert_fixed(&ex);
    let Outcome::Applied(applied) = &ex.edits[0].outcome else { panic!("{:?}", ex.edits) };
    assert!(applied.notes.iter().any(|n| n.contains("no file is named `path/to/file.py`")), "{:?}", applied.notes);
    let bare = "path/to/file.py\n```python\ndef area(self):\n    return self.side ** 2\n```\n";
    let located = ExtractOptions {
        bug_lines: vec![BugLine { file: "shapes/square.py".into(), line: 12, end: Some(13) }],
        ..ExtractOptions::default()
    };
    assert_fixed(&extract_with(bare, &located));
    let ex = extract(bare);
    assert_eq!(ex.status, ExtractStatus::RawPatchButUnmatched, "{}", ex.reason);
    assert!(matches!(&ex.edits[0].outcome, Outcome::Failed { failure: FileOrEditFailure::FileNotFound { .. } }));
    // Code under it that does not parse (an `elif` with no `if`, as Qwen2.5-Coder-1.5B wrote for QuixBugs' lis) is
    // told so, not that the file is missing: the code is what must change.
    let broken = "path/to/file.py\n```python\ndef area(self):\n    # the fix\n    elif self.side:\n        return self.side ** 2\n```\n";
    let ex = extract_with(broken, &located);
    assert_eq!(ex.status, ExtractStatus::RawPatchButUnmatched, "{}", ex.reason);
    assert!(ex.reason.contains("it does not parse as code"), "{}", ex.reason);
    assert!(!ex.reason.contains("no file with this path"), "{}", ex.reason);
    // Other formats keep the path as written: an edit for a file that does not exist is refused.
    let tags = "<file>path/to/file.py</file>\n<original>\n        return self.side * 2\n</original>\n<patched>\n        return self.side ** 2\n</patched>\n";
    let ex = extract(tags);
    assert!(matches!(&ex.edits[0].outcome, Outcome::Failed { failure: FileOrEditFailure::FileNotFound { .. } }));
}

/// Line numbers decide between two definitions of one name only when they agree with the file.
#[test]
fn line_numbers_that_agree_with_the_file_pick_the_definition() {
    let text = "class A:\n    def run(self):\n        return 1\n\n\nclass B:\n    def run(self):\n        return 1\n";
    let r = Repo::from_files([("m.py", text.as_bytes())]);
    let answer = |n: u32| format!("m.py\n```python\n{n:>6}     def run(self):\n{:>6}         return 2\n```\n", n + 1);
    let ex = patch::extract(&r, &answer(7), &ExtractOptions::default());
    assert_eq!(ex.status, ExtractStatus::ApplicablePatch, "{}", ex.reason);
    assert_eq!(
        ex.files["m.py"],
        "class A:\n    def run(self):\n        return 1\n\n\nclass B:\n    def run(self):\n        return 2\n"
    );
    let ex = patch::extract(&r, &answer(40), &ExtractOptions::default());
    assert!(
        matches!(failure(&ex), EditFailure::AmbiguousDefinition { candidates, .. } if candidates.len() == 2),
        "{:?}",
        ex.edits
    );
}

/// A class shown with one of its methods stands for that method; the others stay as they are.
#[test]
fn a_class_shown_in_part_changes_only_the_members_shown() {
    let answer =
        "shapes/square.py\n```python\nclass Square(Shape):\n    def area(self):\n        return self.side ** 2\n```\n";
    assert_fixed(&extract(answer));
}

/// A class shown whole replaces the class.
#[test]
fn a_class_shown_whole_replaces_the_class() {
    let class = &FIXED[FIXED.find("class Square").unwrap()..];
    let answer = format!("shapes/square.py\n```python\n{class}```\n");
    assert_fixed(&extract(&answer));
}

/// Decorators go with their definition; a helper the file lacks goes after the definition shown before it, and an
/// import it lacks after the file's last import.
#[test]
fn decorators_new_helpers_and_imports() {
    let text =
        "import os\n\n\n@cache\ndef size(path):\n    return os.path.getsize(path)\n\n\ndef other():\n    return 0\n";
    let r = Repo::from_files([("m.py", text.as_bytes())]);
    let answer = "m.py\n```python\nimport math\n\n@cache\ndef size(path):\n    return rounded(os.path.getsize(path))\n\n\ndef rounded(n):\n    return math.ceil(n)\n```\n";
    let ex = patch::extract(&r, answer, &ExtractOptions::default());
    assert_eq!(ex.status, ExtractStatus::ApplicablePatch, "{}", ex.reason);
    assert_eq!(
        ex.files["m.py"],
        "import os\nimport math\n\n\n@cache\ndef size(path):\n    return rounded(os.path.getsize(path))\n\n\ndef rounded(n):\n    return math.ceil(n)\n\n\ndef other():\n    return 0\n"
    );
}

/// A definition shown with `...` for a body is shown for orientation: it is left as it is, and one that leaves part
/// of its body out is refused.
#[test]
fn placeholders_stand_for_definitions_left_alone_never_for_lines_to_delete() {
    let answer = "shapes/square.py\n```python\n    def __init__(self, side):\n        ...\n\n    def area(self):\n        return self.side ** 2\n```\n";
    let ex = extract(answer);
    assert_fixed(&ex);
    let Outcome::Applied(applied) = &ex.edits[0].outcome else { panic!() };
    assert!(applied.notes.iter().any(|n| n.contains("__init__")), "{:?}", applied.notes);
    let only = "shapes/square.py\n```python\n    def area(self):\n        ...\n```\n";
    assert!(matches!(failure(&extract(only)), EditFailure::NotAUnit { .. }));
    let partial = "shapes/square.py\n```python\n    def area(self):\n        # ... existing code ...\n        return self.side ** 2\n```\n";
    let ex = extract(partial);
    assert!(
        matches!(failure(&ex), EditFailure::NotAUnit { reason } if reason.contains("leaves code out")),
        "{:?}",
        ex.edits
    );
}

/// A name the file does not have is refused with the names it has.
#[test]
fn a_definition_the_file_lacks_is_refused_with_similar_names() {
    let ex = extract("shapes/square.py\n```python\n    def areas(self):\n        return self.side ** 2\n```\n");
    assert!(
        matches!(failure(&ex), EditFailure::NoDefinition { name, similar } if name == "areas" && similar.contains(&"Square.area".to_string())),
        "{:?}",
        ex.edits
    );
}

/// QuixBugs' get_factors, as the model wrote it in its first answer: a complete rewrite of the function in a bare
/// fence, no path. The function is unique in the repository, so it is placed.
#[test]
fn a_bare_fence_with_a_unique_function_is_placed() {
    let program = "def get_factors(n):\n    if n == 1:\n        return []\n\n    for i in range(2, int(n ** 0.5) + 1):\n        if n % i == 0:\n            return [i] + get_factors(n // i)\n\n    return []\n\n\n\"\"\"\nPrime Factorization\n\"\"\"\n";
    let r = Repo::from_files([("get_factors.py", program.as_bytes()), ("README.md", b"# factors\n".as_slice())]);
    let answer = "Here is the corrected function:\n\n```\ndef get_factors(n):\n    if n == 1:\n        return []\n\n    for i in range(2, int(n ** 0.5) + 1):\n        if n % i == 0:\n            return [i] + get_factors(n // i)\n\n    return [n]\n```\n";
    let ex = patch::extract(&r, answer, &ExtractOptions::default());
    assert_eq!(ex.status, ExtractStatus::ApplicablePatch, "{}", ex.reason);
    assert_eq!(ex.files["get_factors.py"], program.replace("    return []\n\n\n\"\"\"", "    return [n]\n\n\n\"\"\""));
}

/// A Java method written alone is placed in its class.
#[test]
fn a_java_method_alone_is_placed_in_its_class() {
    let text = "package shop;\n\npublic class Cart {\n    private int total;\n\n    public int total() {\n        return total + 1;\n    }\n}\n";
    let r = Repo::from_files([("src/main/java/shop/Cart.java", text.as_bytes())]);
    let answer = "src/main/java/shop/Cart.java\n```java\n    public int total() {\n        return total;\n    }\n```\n";
    let ex = patch::extract(&r, answer, &ExtractOptions::default());
    if cfg!(feature = "java") {
        assert_eq!(ex.status, ExtractStatus::ApplicablePatch, "{}", ex.reason);
        assert_eq!(ex.files["src/main/java/shop/Cart.java"], text.replace("return total + 1;", "return total;"));
    }
}

/// Qwen2.5-Coder-1.5B wrote the path inside the fence, followed by a second opening fence, in most patch answers of
/// QuixBugs' kheapsort and find_in_sorted: the path line and the inner fence are read as the path above a fence. A
/// first line that is not a path, or a second fence line that is prose, leaves the block as it was.
#[test]
fn a_path_written_inside_the_fence_is_the_blocks_path() {
    for open in ["```python", "```"] {
        let answer = format!(
            "{open}\nshapes/square.py\n```python\n    def area(self):\n        return self.side ** 2\n```\n\nThe area is the side squared.\n"
        );
        assert_fixed(&extract(&answer));
    }
    // The prompt's example path above a real fix: placed by the bug locations, as with the path outside.
    let copied = "```python\npath/to/square.py\n```python\ndef area(self):\n    return self.side ** 2\n```\n";
    let located = ExtractOptions {
        bug_lines: vec![BugLine { file: "shapes/square.py".into(), line: 12, end: Some(13) }],
        ..ExtractOptions::default()
    };
    assert_fixed(&extract_with(copied, &located));
    // Not a path on the first line: the inner fence line stays in the code, which then is no definition.
    let prose = "```python\nsee below\n```python\n    def area(self):\n        return self.side ** 2\n```\n";
    assert_ne!(extract(prose).status, ExtractStatus::ApplicablePatch);
}

/// A definition shown with its code as the file has it and only a docstring or comment added (Qwen2.5-Coder-1.5B on
/// QuixBugs' longest_common_subsequence and rpn_eval) applies, as any edit does, but changes no code: the agent's
/// patch writer reads that from `changes_code` and asks again. The same answer with the fix made changes code.
#[test]
fn a_definition_that_changes_no_code_is_told_apart() {
    let documented = "shapes/square.py\n```python\n    def area(self):\n        \"\"\"The area.\"\"\"\n        return self.side * 2  # the area\n```\n";
    let ex = extract(documented);
    assert_eq!(ex.status, ExtractStatus::ApplicablePatch, "{}", ex.reason);
    assert!(!ex.changes_code(&repo()), "{}", ex.diff);
    let fixed = extract(&documented.replace("self.side * 2  # the area", "self.side ** 2"));
    assert_eq!(fixed.status, ExtractStatus::ApplicablePatch, "{}", fixed.reason);
    assert!(fixed.changes_code(&repo()), "{}", fixed.diff);
}

/// Qwen2.5-Coder-1.5B ended its fence, after the right fix of QuixBugs' powerset, with the opening of the module
/// docstring that follows the function (its title written twice): an unterminated string, so the block did not parse
/// and the fix was refused six times; after a kheapsort fix it copied the instructions' example definition. A tail that is the file's own text cut short, or a triple-quoted string that
/// never closes, is left out (the file keeps its text as it is); any other tail keeps the block unread. Definitions
/// were asked for, as the agent asks small models.
#[test]
fn a_fence_that_ends_with_text_cut_short_is_read_up_to_it() {
    let program = "def powerset(arr):\n    if arr:\n        first, *rest = arr\n        rest_subsets = powerset(rest)\n        return [[first] + subset for subset in rest_subsets]\n    else:\n        return [[]]\n\n\n\"\"\"\nPower Set\n\nInput:\n    arr: A list\n\"\"\"\n\n\ndef tail(arr):\n    return arr[1:]\n";
    let r = Repo::from_files([("powerset.py", program.as_bytes())]);
    let asked = ExtractOptions { asked: Some(EditFormat::Definition), ..ExtractOptions::default() };
    let fix = "def powerset(arr):\n    if arr:\n        first, *rest = arr\n        rest_subsets = powerset(rest)\n        return rest_subsets + [[first] + subset for subset in rest_subsets]\n    else:\n        return [[]]\n";
    let fixed = program.replace("return [[first] +", "return rest_subsets + [[first] +");
    for tail in [
        "\n\"\"\"\nPower Set\nPower Set",
        "\n\"\"\"\nPower Set\n\nInput:\n    arr: A",
        "\n\"\"\"\nPow",
        "\ndef tail(arr):\n    return arr[",
        "\ndef name(arguments):\n    the whole body, with your change made",
    ] {
        let answer = format!(
            "The subsets without the first element are missing.\n\nfile/powerset.py\n```python\n{fix}{tail}\n```\n"
        );
        let ex = patch::extract(&r, &answer, &asked);
        assert_eq!(ex.status, ExtractStatus::ApplicablePatch, "{tail:?}: {}", ex.reason);
        assert_eq!(ex.files["powerset.py"], fixed, "{tail:?}");
        let Outcome::Applied(applied) = &ex.edits[0].outcome else { panic!("{:?}", ex.edits[0].outcome) };
        let said = applied.notes.iter().any(|n| n.contains("text after the definitions, cut short, not code"));
        assert!(said, "{:?}", applied.notes);
    }
    // Code the file does not have after the definition, the file's text inside the definition (here a copy of its
    // docstring's line, which does not parse there) or a string opened inside it: the block stays unread.
    for tail in
        ["\nprint(powerset([1, 2]))\n\"\"\"\nPower Set", "\ndef tail(arr):\n    return arr[2", "\n    arr: A list"]
    {
        let answer = format!("file/powerset.py\n```python\n{fix}{tail}\n```\n");
        let ex = patch::extract(&r, &answer, &asked);
        assert_ne!(ex.status, ExtractStatus::ApplicablePatch, "{tail:?}: {}", ex.diff);
    }
    let inside = fix.replace("    else:\n        return [[]]\n", "    else:\n        \"\"\"\n        Power Set");
    let answer = format!("file/powerset.py\n```python\n{inside}\n```\n");
    let ex = patch::extract(&r, &answer, &asked);
    assert_ne!(ex.status, ExtractStatus::ApplicablePatch, "a string opened inside the function: {}", ex.diff);
}

/// Asked for no format (`acr apply`, the npm package, the component), a block with a path that passes for the whole
/// file is read as the whole file first; when the gate refuses that reading, and the block reads as whole definitions
/// followed by text cut short, the definitions are put in place instead: the right fix is not refused for the
/// reading tried first.
#[test]
fn a_whole_file_reading_the_gate_refuses_falls_back_to_the_definitions() {
    let program = "def powerset(arr):\n    if arr:\n        first, *rest = arr\n        rest_subsets = powerset(rest)\n        return [[first] + subset for subset in rest_subsets]\n    else:\n        return [[]]\n\n\n\"\"\"\nPower Set\n\nInput:\n    arr: A list\n\"\"\"\n";
    let r = Repo::from_files([("powerset.py", program.as_bytes())]);
    let fix = program.replace("return [[first] +", "return rest_subsets + [[first] +");
    let cut = fix.strip_suffix("\"\"\"\n").unwrap();
    let answer = format!("powerset.py\n```python\n{cut}```\n");
    let ex = patch::extract(&r, &answer, &ExtractOptions::default());
    assert_eq!(ex.status, ExtractStatus::ApplicablePatch, "{}", ex.reason);
    assert_eq!(ex.files["powerset.py"], fix);
    let Outcome::Applied(applied) = &ex.edits[0].outcome else { panic!("{:?}", ex.edits[0].outcome) };
    let said = applied.notes.iter().any(|n| n.contains("as the whole file, the gate refused it"));
    assert!(said, "{:?}", applied.notes);
    // A whole file the gate refuses that does not read as definitions either stays refused, for the gate's reason.
    let broken = fix.replace("rest_subsets = powerset(rest)", "rest_subsets = powerset(rest");
    let ex = patch::extract(&r, &format!("powerset.py\n```python\n{broken}```\n"), &ExtractOptions::default());
    assert_ne!(ex.status, ExtractStatus::ApplicablePatch, "{}", ex.diff);
    assert_eq!(r.file("powerset.py"), Some(program));
}

/// An import shown with the definitions is added when the file lacks it, also to a file with no imports at all
/// (before its first definition): Qwen2.5-Coder-1.5B's powerset fix came with `from typing import List` for its type
/// hints, and without the import the fixed function raised NameError.
#[test]
fn an_import_shown_is_added_to_a_file_without_imports() {
    let program =
        "\ndef powerset(arr):\n    return [[]]\n\n\ndef helper():\n    return 1\n\n\n\"\"\"\nPower Set\n\"\"\"\n";
    let r = Repo::from_files([("powerset.py", program.as_bytes())]);
    let asked = ExtractOptions { asked: Some(EditFormat::Definition), ..ExtractOptions::default() };
    let answer = "powerset.py\n```python\nfrom typing import List\n\ndef powerset(arr: List[str]) -> List[List[str]]:\n    return [[]] + [arr]\n```\n";
    let ex = patch::extract(&r, answer, &asked);
    assert_eq!(ex.status, ExtractStatus::ApplicablePatch, "{}", ex.reason);
    assert_eq!(
        ex.files["powerset.py"],
        "\nfrom typing import List\n\n\ndef powerset(arr: List[str]) -> List[List[str]]:\n    return [[]] + [arr]\n\n\ndef helper():\n    return 1\n\n\n\"\"\"\nPower Set\n\"\"\"\n"
    );
    // The definition changed is not the first: the import still goes before the first one.
    let answer = "powerset.py\n```python\nfrom typing import List\n\ndef helper() -> List[int]:\n    return [1]\n```\n";
    let ex = patch::extract(&r, answer, &asked);
    assert_eq!(ex.status, ExtractStatus::ApplicablePatch, "{}", ex.reason);
    assert!(ex.files["powerset.py"].starts_with("\nfrom typing import List\n\n\ndef powerset(arr):\n"), "{}", ex.diff);
}
