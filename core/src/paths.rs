//! Which repository file a name from the model means: one policy for search, locate and patch.
//!
//! Models name files loosely (`models.py`, `requests/models.py`, `/testbed/requests/models.py`, `Requests/Models.py`).
//! [`find`] reads a name the same way wherever it arrives:
//!
//! 1. **Clean.** Surrounding whitespace, leading `./` and `/` are dropped, `\` becomes `/`, and `.` parts and repeated
//!    `/` go ([`check_path`]). A name that cannot be a path (over [`MAX_PATH_BYTES`] bytes, a part over 255 bytes, a
//!    control character, `..` leaving the root) is refused with a [`PathError`] before any comparison, so a 200 KB
//!    name costs one length check.
//! 2. **Exact**: a file with exactly this path.
//! 3. **Suffix** on a `/` boundary: `models.py` names `requests/models.py`, never `othermodels.py`.
//! 4. **Tail**: the name with leading folders dropped, one at a time, longest first, each tried exactly and then as a
//!    suffix: `/testbed/requests/models.py` names `requests/models.py`; `requests/sub/models.py`, when no such folder
//!    exists, names the files called `models.py`.
//! 5. **Ignoring case**: steps 2 to 4 again with both sides lower-cased.
//! 6. **Part of a name**, the last resort: paths that end with the name anywhere, ignoring case (`_core.py` names
//!    `tests/test_core.py` when no file is called `_core.py`). AutoCodeRover's search matched this way from the start,
//!    so `t.py` found `cart.py` even beside a `t.py`; here it is tried only when nothing else fits, and the match says
//!    so ([`Rule::PartOfName`]), for callers to tell the model.
//!
//! The first step that finds anything decides. When it finds several files they are all returned, in the order the
//! caller gave them, and the [`PathMatch`] is ambiguous: its [`Ambiguity`] lists the candidates and reads the same
//! in every face. What to do with several files is the caller's choice (search answers from all of them, locate
//! looks in all of them, patch uses the first whose text holds the edit's original), never a different reading of
//! the name. Similarity of names is used only to suggest files when nothing matches ([`similar_paths`]).

use std::fmt;

use serde::Serialize;

use crate::repo::{MAX_PATH_BYTES, PathProblem, check_path};

/// How a name matched (the step of the policy that decided).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// The path itself.
    Exact,
    /// A suffix of the path on a `/` boundary.
    Suffix,
    /// The name with leading folders dropped, exactly or as a suffix.
    Tail,
    /// One of the above, ignoring case.
    IgnoringCase,
    /// The name ends a path inside a folder or file name (the last resort).
    PartOfName,
}

/// The files a name matched: positions in the caller's list, in its order (never empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathMatch {
    /// The step that decided.
    pub rule: Rule,
    /// Positions of the matched paths in the list given to [`find`].
    pub positions: Vec<usize>,
}

/// A name that fits several files: the name as written and every candidate, in repository order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Ambiguity {
    /// The name as the model wrote it.
    pub name: String,
    /// Every file it fits.
    pub candidates: Vec<String>,
}

impl fmt::Display for Ambiguity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` names {} files ({})", preview(&self.name), self.candidates.len(), self.candidates.join(", "))
    }
}

/// Why a name matched no file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PathError {
    /// The name cannot be a repository path; it was not compared with any file.
    NotAPath {
        /// The start of the name (at most 60 characters).
        name: String,
        /// Its length in bytes.
        bytes: usize,
        /// What is wrong with it.
        problem: PathProblem,
    },
    /// No file fits the name.
    NoMatch {
        /// The name as written.
        name: String,
    },
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PathError::NotAPath { name, bytes, problem: PathProblem::TooLong } => write!(
                f,
                "`{name}` is not a file path: it is {bytes} bytes long (a path has at most {MAX_PATH_BYTES} bytes, a \
                 folder or file name at most 255)"
            ),
            PathError::NotAPath { name, problem, .. } => write!(f, "`{name}` is not a file path: {problem}"),
            PathError::NoMatch { name } => write!(f, "no file matches `{}`", preview(name)),
        }
    }
}

impl std::error::Error for PathError {}

impl PathMatch {
    /// The ambiguity, when the name fits more than one of `paths` (the list given to [`find`]).
    pub fn ambiguity(&self, name: &str, paths: &[&str]) -> Option<Ambiguity> {
        (self.positions.len() > 1).then(|| Ambiguity {
            name: name.trim().to_string(),
            candidates: self.positions.iter().filter_map(|&i| paths.get(i)).map(|p| p.to_string()).collect(),
        })
    }
}

impl PathMatch {
    /// What a person or the model should hear about the match, when anything: that the name only ends the files'
    /// names ([`Rule::PartOfName`]), or that it fits several files (the [`Ambiguity`]).
    pub fn note(&self, name: &str, paths: &[&str]) -> Option<String> {
        let files = || self.positions.iter().filter_map(|&i| paths.get(i).copied()).collect::<Vec<_>>().join(", ");
        match self.rule {
            Rule::PartOfName => Some(format!(
                "no file is called `{}`; {} only end{} with it ({})",
                preview(name),
                if self.positions.len() == 1 { "1 path" } else { "these paths" },
                if self.positions.len() == 1 { "s" } else { "" },
                files()
            )),
            _ => self.ambiguity(name, paths).map(|a| a.to_string()),
        }
    }
}

/// The start of a name for messages: at most 60 characters, with `…` when cut (a model can write a name of any
/// length; messages quote it briefly).
pub fn preview(name: &str) -> String {
    let name = name.trim();
    match name.char_indices().nth(60) {
        Some((cut, _)) => format!("{}…", &name[..cut]),
        None => name.to_string(),
    }
}

/// The name cleaned as step 1 of the policy says.
pub fn clean(name: &str) -> Result<String, PathError> {
    let refuse = |problem| PathError::NotAPath { name: preview(name), bytes: name.len(), problem };
    if name.len() > MAX_PATH_BYTES + 64 {
        return Err(refuse(PathProblem::TooLong));
    }
    let mut t = name.trim().replace('\\', "/");
    loop {
        let stripped = t.trim_start_matches("./").trim_start_matches('/');
        if stripped.len() == t.len() {
            break;
        }
        t = stripped.to_string();
    }
    check_path(&t).map_err(refuse)
}

/// The files of `paths` that `name` means, by the policy in the module docs.
pub fn find(paths: &[&str], name: &str) -> Result<PathMatch, PathError> {
    let wanted = clean(name)?;
    if let Some(m) = find_cased(paths.iter().copied(), &wanted, false) {
        return Ok(m);
    }
    let lower: Vec<String> = paths.iter().map(|p| p.to_lowercase()).collect();
    let wanted = wanted.to_lowercase();
    if let Some(m) = find_cased(lower.iter().map(String::as_str), &wanted, true) {
        return Ok(m);
    }
    let partial: Vec<usize> = lower.iter().enumerate().filter(|(_, p)| p.ends_with(&wanted)).map(|(i, _)| i).collect();
    if partial.is_empty() {
        return Err(PathError::NoMatch { name: name.trim().to_string() });
    }
    Ok(PathMatch { rule: Rule::PartOfName, positions: partial })
}

/// Steps 2 to 4 over `paths` (already lower-cased when `ignoring_case`).
fn find_cased<'a>(
    paths: impl Iterator<Item = &'a str> + Clone,
    wanted: &str,
    ignoring_case: bool,
) -> Option<PathMatch> {
    let rule = |r| if ignoring_case { Rule::IgnoringCase } else { r };
    let mut tail = wanted;
    let mut first = true;
    loop {
        let exact: Vec<usize> = paths.clone().enumerate().filter(|(_, p)| *p == tail).map(|(i, _)| i).collect();
        if !exact.is_empty() {
            return Some(PathMatch { rule: rule(if first { Rule::Exact } else { Rule::Tail }), positions: exact });
        }
        let suffix: Vec<usize> = paths
            .clone()
            .enumerate()
            .filter(|(_, p)| {
                p.len() > tail.len() && p.ends_with(tail) && p.as_bytes()[p.len() - tail.len() - 1] == b'/'
            })
            .map(|(i, _)| i)
            .collect();
        if !suffix.is_empty() {
            return Some(PathMatch { rule: rule(if first { Rule::Suffix } else { Rule::Tail }), positions: suffix });
        }
        let (_, rest) = tail.split_once('/')?;
        tail = rest;
        first = false;
    }
}

/// Up to three of `paths` whose file names are most like `name`'s (a similarity of at least 0.7), best first: the
/// suggestions shown when [`find`] matches nothing. Names that cannot be paths get none.
pub fn similar_paths(paths: &[&str], name: &str) -> Vec<String> {
    let Ok(clean) = clean(name) else { return Vec::new() };
    let base = clean.rsplit('/').next().unwrap_or(&clean);
    let mut scored: Vec<(f32, &str)> = paths
        .iter()
        .map(|&p| {
            let theirs = p.rsplit('/').next().unwrap_or(p);
            let theirs = if theirs.len() > crate::repo::MAX_NAME_BYTES { "" } else { theirs };
            (similar::TextDiff::from_chars(base, theirs).ratio(), p)
        })
        .filter(|(r, _)| *r >= 0.7)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    scored.into_iter().take(3).map(|(_, p)| p.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATHS: &[&str] = &["pkg/models.py", "pkg/othermodels.py", "pkg/dup/models.py", "cart.py", "Docs/Conf.py"];

    fn names(name: &str) -> Result<(Rule, Vec<&'static str>), PathError> {
        find(PATHS, name).map(|m| (m.rule, m.positions.iter().map(|&i| PATHS[i]).collect()))
    }

    #[test]
    fn the_steps_apply_in_order() {
        assert_eq!(names("pkg/models.py").unwrap(), (Rule::Exact, vec!["pkg/models.py"]));
        assert_eq!(names("./pkg/models.py").unwrap(), (Rule::Exact, vec!["pkg/models.py"]));
        assert_eq!(names("dup/models.py").unwrap(), (Rule::Suffix, vec!["pkg/dup/models.py"]));
        assert_eq!(names("models.py").unwrap(), (Rule::Suffix, vec!["pkg/models.py", "pkg/dup/models.py"]));
        assert_eq!(names("/testbed/pkg/models.py").unwrap(), (Rule::Tail, vec!["pkg/models.py"]));
        assert_eq!(names("pkg\\dup\\models.py").unwrap(), (Rule::Exact, vec!["pkg/dup/models.py"]));
        assert_eq!(names("PKG/Models.py").unwrap(), (Rule::IgnoringCase, vec!["pkg/models.py"]));
        assert_eq!(names("docs/conf.py").unwrap(), (Rule::IgnoringCase, vec!["Docs/Conf.py"]));
    }

    #[test]
    fn suffixes_stop_at_folder_boundaries() {
        assert_eq!(names("othermodels.py").unwrap(), (Rule::Suffix, vec!["pkg/othermodels.py"]));
        assert_eq!(names("odels.py").unwrap().0, Rule::PartOfName, "only as the last resort");
        let with_t = ["t.py", "cart.py"];
        assert_eq!(find(&with_t, "t.py").unwrap(), PathMatch { rule: Rule::Exact, positions: vec![0] }, "not cart.py");
        assert_eq!(find(&["cart.py"], "t.py").unwrap().rule, Rule::PartOfName);
        assert_eq!(names("x.txt").unwrap_err().to_string(), "no file matches `x.txt`");
    }

    #[test]
    fn ambiguity_lists_every_candidate() {
        let m = find(PATHS, " models.py ").unwrap();
        let a = m.ambiguity(" models.py ", PATHS).expect("two files");
        assert_eq!(a.to_string(), "`models.py` names 2 files (pkg/models.py, pkg/dup/models.py)");
        assert!(find(PATHS, "cart.py").unwrap().ambiguity("cart.py", PATHS).is_none());
        assert_eq!(m.note(" models.py ", PATHS), Some(a.to_string()));
        assert_eq!(find(PATHS, "cart.py").unwrap().note("cart.py", PATHS), None);
        let part = find(PATHS, "art.py").unwrap();
        assert_eq!(
            part.note("art.py", PATHS).unwrap(),
            "no file is called `art.py`; 1 path only ends with it (cart.py)"
        );
    }

    #[test]
    fn names_that_cannot_be_paths_are_refused_before_any_comparison() {
        let huge = "a/".repeat(100_000) + "m.py";
        let e = find(PATHS, &huge).unwrap_err();
        assert!(matches!(e, PathError::NotAPath { problem: PathProblem::TooLong, bytes: 200_004, .. }), "{e:?}");
        let text = e.to_string();
        assert!(text.starts_with("`a/a/") && text.contains("is not a file path: it is 200004 bytes long"), "{text}");
        assert!(text.len() < 300, "the message quotes only the start of the name: {text}");
        assert!(matches!(find(PATHS, "../x.py"), Err(PathError::NotAPath { problem: PathProblem::ParentDir, .. })));
        assert!(matches!(find(PATHS, "  "), Err(PathError::NotAPath { problem: PathProblem::Empty, .. })));
        assert!(similar_paths(PATHS, &huge).is_empty());
    }

    #[test]
    fn suggestions_come_from_similar_file_names() {
        assert_eq!(similar_paths(PATHS, "model.py"), vec!["pkg/dup/models.py", "pkg/models.py", "pkg/othermodels.py"]);
        assert!(similar_paths(PATHS, "zzz.txt").is_empty());
    }
}
