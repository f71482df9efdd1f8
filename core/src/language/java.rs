//! The Java row ([`JAVA_ROW`]): classes, interfaces, enums, records and annotation types are classes; test files
//! follow Maven's and Gradle's conventions; the repository's own JUnit tests, run by the harness of
//! [`super::junit`], reproduce the issue before a reproducer is asked for in [`junit_reproducer`]'s words.

use super::junit;
use super::row::{ClassView, DefinitionShape, LanguageRow, ProjectTests, Reproducer, test_folder_and_name};
use crate::gate::SyntaxCheck;
use crate::grammar::JAVA;

/// The Java row.
pub static JAVA_ROW: LanguageRow = LanguageRow {
    name: "Java",
    fence: "java",
    extensions: &["java"],
    grammar: &JAVA,
    tree_sitter: || tree_sitter_java::LANGUAGE.into(),
    parse: |parser, text| parser.parse(text, None),
    is_test_file: java_test_file,
    syntax: SyntaxCheck::Javac,
    class_view: ClassView::MemberHeads,
    reproducer: Reproducer {
        // At the repository's root: the compiler reads a class's package from the file, not its folder.
        file: "AcrReproducerTest.java",
        harness: &[(junit::HARNESS_FILE, junit::HARNESS)],
        command: junit::COMMAND,
        request: junit_reproducer,
        must: "its test must fail, and the code must compile",
        helper: None,
        project_tests: Some(ProjectTests { failures: junit::failures, failing_source: junit::failing_tests_source }),
    },
    // The written reproducer runs with every test of the repository already.
    regression: None,
    runs_in_tab: false,
    definition: DefinitionShape {
        starts: "its annotations and its first line",
        example: "void name(Type argument) {\n    the whole body, with your change made\n}",
        line_comment: "//",
    },
};

/// A `test` or `tests` folder (Maven's and Gradle's `src/test/java`) or the names their test runners pick up
/// (`Test*.java`, `*Test.java`, `*Tests.java`, `*TestCase.java`).
fn java_test_file(path: &str) -> bool {
    let (in_test_folder, name) = test_folder_and_name(path);
    let stem = name.strip_suffix(".java").unwrap_or(name);
    let test_prefix = stem.strip_prefix("Test").is_some_and(|rest| rest.starts_with(char::is_uppercase));
    in_test_folder
        || test_prefix
        || ["Test", "Tests", "TestCase"].iter().any(|s| stem.ends_with(s) && stem.len() > s.len())
}

/// Asks for a JUnit 5 test class that reproduces the issue, run with the repository's tests (Java's request).
pub fn junit_reproducer(issue: &str, places: &str, reproducer: &Reproducer) -> String {
    format!(
        "<issue>\n{}\n</issue>\n\n{places}Write a JUnit 5 test class `AcrReproducerTest` that reproduces this issue. While \
         the bug is present it must fail, with an assertion whose message explains what went wrong; once the bug \
         is fixed it must pass. It is saved as `{}` and compiled and run with the repository's own code and \
         tests: declare the package of the code it tests (so it can reach what that package shares) and import \
         `org.junit.jupiter.api.Test` and `org.junit.jupiter.api.Assertions`.\n\n\
         Reply with the whole class in a single ```java code block.",
        issue.trim(),
        reproducer.file
    )
}
