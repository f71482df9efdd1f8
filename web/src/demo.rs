//! The bundled demo repositories, so the playground works offline: a small Python package, a small Java project and a
//! small JavaScript package, each with one known bug, its issue, and the script the demo model plays for it.

/// One demo repository.
#[derive(Debug, PartialEq, Eq)]
pub struct Demo {
    /// The name the page shows for it once loaded.
    pub name: &'static str,
    /// Its files, `(path, text)`.
    pub files: &'static [(&'static str, &'static str)],
    /// The issue the demo model repairs.
    pub issue: &'static str,
    /// The demo model's answers per stage, written for this repository's issue (JSON, as `acr serve-model` reads).
    pub script: &'static str,
}

/// The Python package: a shopping cart whose total forgets quantities.
pub const PYTHON: Demo = Demo {
    name: "demo repository",
    files: &[
        ("inventory/__init__.py", include_str!("../demo/inventory/__init__.py")),
        ("inventory/cart.py", include_str!("../demo/inventory/cart.py")),
        ("inventory/models.py", include_str!("../demo/inventory/models.py")),
        ("inventory/pricing.py", include_str!("../demo/inventory/pricing.py")),
        ("tests/test_cart.py", include_str!("../demo/tests/test_cart.py")),
    ],
    issue: include_str!("../demo/ISSUE.md"),
    script: include_str!("../demo/script.json"),
};

/// The Java project (Maven layout, JUnit 5 tests): a library that reports a book due today as overdue.
pub const JAVA: Demo = Demo {
    name: "Java demo repository",
    files: &[
        ("src/main/java/library/Book.java", include_str!("../demo-java/src/main/java/library/Book.java")),
        ("src/main/java/library/Library.java", include_str!("../demo-java/src/main/java/library/Library.java")),
        ("src/main/java/library/Loan.java", include_str!("../demo-java/src/main/java/library/Loan.java")),
        ("src/test/java/library/LibraryTest.java", include_str!("../demo-java/src/test/java/library/LibraryTest.java")),
    ],
    issue: include_str!("../demo-java/ISSUE.md"),
    script: include_str!("../demo-java/script.json"),
};

/// The JavaScript package (ES modules): a shop cart whose total forgets quantities.
pub const JAVASCRIPT: Demo = Demo {
    name: "JavaScript demo repository",
    files: &[
        ("package.json", include_str!("../demo-js/package.json")),
        ("src/cart.js", include_str!("../demo-js/src/cart.js")),
        ("src/index.js", include_str!("../demo-js/src/index.js")),
        ("src/item.js", include_str!("../demo-js/src/item.js")),
    ],
    issue: include_str!("../demo-js/ISSUE.md"),
    script: include_str!("../demo-js/script.json"),
};

/// Every demo, in the order the page offers them.
pub const ALL: [&Demo; 3] = [&PYTHON, &JAVA, &JAVASCRIPT];

#[cfg(test)]
mod tests {
    use acr_core::Repo;
    use acr_core::index::Language;
    use acr_core::llm::Stage;
    use acr_core::llm::scripted::Script;

    use super::*;

    #[test]
    fn each_demo_is_in_its_language_and_its_script_parses() {
        for (demo, language) in
            [(&PYTHON, Language::Python), (&JAVA, Language::Java), (&JAVASCRIPT, Language::JavaScript)]
        {
            let repo = Repo::from_files(demo.files.iter().copied());
            assert_eq!(repo.language(), language, "{}", demo.name);
            let script = Script::from_json(demo.script).unwrap();
            assert!(script.answers.contains_key(&Stage::Patch), "{}", demo.name);
            assert!(!demo.issue.trim().is_empty());
        }
    }
}
