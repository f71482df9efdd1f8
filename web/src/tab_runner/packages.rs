//! The third-party packages a repository's code needs in the tab: requirements read from the repository
//! (`requirements*.txt`, `pyproject.toml`) or typed by the user, and wheels the user dropped for offline use.

use std::rc::Rc;

use acr_core::repo::Repo;

use super::protocol::{PackageRequest, WheelFile};

/// What to install in the tab's Python before any run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Packages {
    /// Requirements for micropip, one per entry.
    pub requirements: Vec<String>,
    /// The package index instead of PyPI (empty: PyPI).
    pub index_url: String,
    /// Dropped wheels.
    pub wheels: Vec<WheelFile>,
}

impl Packages {
    /// The set-up request's part.
    pub fn request(&self) -> PackageRequest {
        PackageRequest {
            wheels: self.wheels.clone(),
            requirements: self.requirements.clone(),
            index_url: self.index_url.trim().to_string(),
        }
    }
}

/// A dropped file as a wheel, or why it is not one.
pub fn wheel(name: &str, bytes: Vec<u8>) -> Result<WheelFile, String> {
    if name.contains(['/', '\\']) {
        return Err(format!("{name} is not a file name"));
    }
    let parts: Vec<&str> = name.strip_suffix(".whl").map(|n| n.split('-').collect()).unwrap_or_default();
    if parts.len() < 5 {
        return Err(format!("{name} is not a wheel (expected name-version-python-abi-platform.whl)"));
    }
    if !bytes.starts_with(b"PK") {
        return Err(format!("{name} is not a zip archive, so not a wheel"));
    }
    let platform = parts[parts.len() - 1];
    if platform != "any" && !platform.contains("emscripten") && !platform.contains("pyodide") {
        return Err(format!("{name} is built for {platform}; the browser needs a pure-Python (any) or Pyodide wheel"));
    }
    Ok(WheelFile { name: name.to_string(), bytes: Rc::from(bytes) })
}

/// Parses the requirements box: one requirement per line, `#` comments and blank lines ignored.
pub fn parse_list(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = strip_comment(line).trim();
        if !line.is_empty() && !out.iter().any(|r: &String| r == line) {
            out.push(line.to_string());
        }
    }
    out
}

/// The requirements a repository declares, and the files they came from.
pub fn from_repo(repo: &Repo) -> (Vec<String>, Vec<String>) {
    let mut requirements: Vec<String> = Vec::new();
    let mut sources = Vec::new();
    let mut add = |found: Vec<String>, source: &str, sources: &mut Vec<String>| {
        let before = requirements.len();
        for r in found {
            let name = canonical(requirement_name(&r));
            if !requirements.iter().any(|have| canonical(requirement_name(have)) == name) {
                requirements.push(r);
            }
        }
        if requirements.len() > before {
            sources.push(source.to_string());
        }
    };
    for (path, text) in repo.files() {
        let name = path.rsplit('/').next().unwrap_or(path);
        let top_or_folder = !path.contains('/') || path.starts_with("requirements/");
        if top_or_folder && name.starts_with("requirements") && name.ends_with(".txt") {
            add(requirements_txt(text), path, &mut sources);
        }
    }
    if let Some(text) = repo.file("pyproject.toml") {
        add(pyproject(text), "pyproject.toml", &mut sources);
    }
    (requirements, sources)
}

/// Requirements in a `requirements.txt`: options (`-r`, `-e`, `--index-url`...), local paths and comments skipped,
/// continued lines joined.
pub fn requirements_txt(text: &str) -> Vec<String> {
    let joined = text.replace("\\\r\n", " ").replace("\\\n", " ");
    joined
        .lines()
        .map(|l| strip_comment(l).trim())
        .filter(|l| !l.is_empty() && !l.starts_with('-') && !l.starts_with('.') && !l.starts_with('/'))
        .map(str::to_string)
        .collect()
}

/// Requirements in a `pyproject.toml`: `[project] dependencies`, the `test`/`tests`/`testing` extras of
/// `[project.optional-dependencies]`, and the names in `[tool.poetry.dependencies]` (without `python`).
pub fn pyproject(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut table = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let line = strip_comment(line).trim();
        if line.starts_with('[') && !line.contains('=') {
            table = line.trim_matches(|c| c == '[' || c == ']').trim().to_string();
            continue;
        }
        let Some((key, value)) = line.split_once('=') else { continue };
        let (key, value) = (key.trim().trim_matches('"'), value.trim());
        let wanted = match table.as_str() {
            "project" => key == "dependencies",
            "project.optional-dependencies" => matches!(key, "test" | "tests" | "testing"),
            "tool.poetry.dependencies" => {
                if key != "python" && !key.is_empty() {
                    out.push(key.to_string());
                }
                false
            }
            _ => false,
        };
        if wanted && value.starts_with('[') {
            let mut array = value.to_string();
            while !closes(&array) {
                let Some(next) = lines.next() else { break };
                array.push('\n');
                array.push_str(strip_comment(next));
            }
            out.extend(strings(&array));
        }
    }
    out
}

/// Whether a TOML array's text has its closing bracket (outside strings).
fn closes(array: &str) -> bool {
    let mut quote = None;
    for c in array.chars() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, ']') => return true,
            _ => {}
        }
    }
    false
}

/// The string literals in a TOML array.
fn strings(array: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut quote = None;
    let mut current = String::new();
    for c in array.chars() {
        match quote {
            None if c == '"' || c == '\'' => quote = Some(c),
            Some(q) if c == q => {
                out.push(current.trim().to_string());
                current.clear();
                quote = None;
            }
            Some(_) => current.push(c),
            None => {}
        }
    }
    out.into_iter().filter(|s| !s.is_empty()).collect()
}

/// A line without its comment: `#` at the start or after whitespace (a `#` inside a URL fragment stays).
fn strip_comment(line: &str) -> &str {
    let bytes = line.as_bytes();
    for (i, b) in bytes.iter().enumerate() {
        if *b == b'#' && (i == 0 || bytes[i - 1].is_ascii_whitespace()) {
            return &line[..i];
        }
    }
    line
}

/// The distribution name at the start of a requirement (or in a wheel's URL).
pub fn requirement_name(requirement: &str) -> &str {
    if let Some(file) = requirement.strip_suffix(".whl").and_then(|r| r.rsplit_once('/')).map(|(_, f)| f) {
        return file.split('-').next().unwrap_or(file);
    }
    let end = requirement.find(|c: char| c.is_whitespace() || "[<>=!~;@(".contains(c)).unwrap_or(requirement.len());
    &requirement[..end]
}

/// A distribution name compared as pip does: case-insensitive, `-`, `_` and `.` alike.
pub fn canonical(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if matches!(c, '-' | '_' | '.') {
            if !out.ends_with('-') {
                out.push('-');
            }
        } else {
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requirements_txt_keeps_requirements_and_skips_the_rest() {
        let text = "# tools\nrequests>=2.0  # http\n-r base.txt\n-e .\n./local\n\nattrs[tests] ; python_version >= '3.8'\n\
                    pkg @ https://example.org/pkg-1.0-py3-none-any.whl#sha256=abc\nlong-name \\\n  ==1.0\n--index-url x\n";
        assert_eq!(
            requirements_txt(text),
            [
                "requests>=2.0",
                "attrs[tests] ; python_version >= '3.8'",
                "pkg @ https://example.org/pkg-1.0-py3-none-any.whl#sha256=abc",
                "long-name    ==1.0",
            ]
        );
    }

    #[test]
    fn pyproject_reads_dependencies_test_extras_and_poetry_names() {
        let text = r#"
[build-system]
requires = ["setuptools"]

[project]
name = "shop"
dependencies = [
    "requests>=2",  # http
    'attrs',
]

[project.optional-dependencies]
docs = ["sphinx"]
test = ["pytest>=7", "hypothesis"]

[tool.poetry.dependencies]
python = "^3.10"
click = "^8.0"
"#;
        assert_eq!(pyproject(text), ["requests>=2", "attrs", "pytest>=7", "hypothesis", "click"]);
        assert_eq!(pyproject("[project]\ndependencies = []\n"), Vec::<String>::new());
        assert_eq!(pyproject("[project]\ndependencies = [\"a\""), ["a"], "an unclosed array ends with the file");
    }

    #[test]
    fn a_repository_declares_requirements_once_each_with_their_sources() {
        let repo = Repo::from_files([
            ("requirements.txt", "Requests\n"),
            ("requirements-dev.txt", "pytest\nrequests>=2\n"),
            ("docs/requirements.txt", "sphinx\n"),
            ("pyproject.toml", "[project]\ndependencies = [\"attrs\"]\n"),
            ("m.py", "x = 1\n"),
        ]);
        let (requirements, sources) = from_repo(&repo);
        assert_eq!(requirements, ["pytest", "requests>=2", "attrs"]);
        assert_eq!(sources, ["requirements-dev.txt", "pyproject.toml"]);
    }

    #[test]
    fn names_compare_as_pip_compares_them() {
        assert_eq!(canonical(requirement_name("Typing_Extensions>=4")), "typing-extensions");
        assert_eq!(requirement_name("pkg @ https://x"), "pkg");
        assert_eq!(requirement_name("https://x.org/w/Pkg_Name-1.0-py3-none-any.whl"), "Pkg_Name");
        assert_eq!(parse_list("a\n# note\n a \nb # why\n"), ["a", "b"]);
    }

    #[test]
    fn only_wheels_the_browser_can_use_are_taken() {
        assert!(wheel("pytest-9.0.2-py3-none-any.whl", b"PK\x03\x04".to_vec()).is_ok());
        assert!(wheel("numpy-2.0-cp314-cp314-pyodide_2026_0_wasm32.whl", b"PK".to_vec()).is_ok());
        let linux = wheel("numpy-2.0-cp314-cp314-manylinux_2_17_x86_64.whl", b"PK".to_vec()).unwrap_err();
        assert!(linux.contains("manylinux_2_17_x86_64"), "{linux}");
        assert!(wheel("notes.txt", b"PK".to_vec()).is_err());
        assert!(wheel("../x-1-py3-none-any.whl", b"PK".to_vec()).is_err());
        assert!(wheel("x-1-py3-none-any.whl", b"not a zip".to_vec()).unwrap_err().contains("not a zip"));
    }
}
