//! Which tasks of the list an invocation runs: the selection (`--instance-ids`, `--filter`), and which of the tasks
//! that have ended are done again (`--redo`).
//!
//! A task that has not ended for good (never started, stopped, killed while running) always runs again when
//! selected. A task done or failed is kept unless `--redo` names it: `failed`, `empty` (done without a patch) or
//! `patch` (done with one). A task done again loses its prediction first, so the predictions keep one line per task.

use std::collections::HashSet;

use super::record::{Record, Status};

/// Tasks that ended, by how they ended, to do again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Redo {
    /// Failed for reasons of its own.
    Failed,
    /// Done without a patch (an empty prediction).
    Empty,
    /// Done with a patch.
    Patch,
}

/// What an invocation picks from the list.
#[derive(Debug, Default)]
pub struct Selection {
    /// Only these ids, when given.
    pub ids: Option<HashSet<String>>,
    /// Only ids matching this, when given.
    pub filter: Option<regex_lite::Regex>,
    /// Ended tasks to do again.
    pub redo: HashSet<Redo>,
}

impl Selection {
    /// Whether the task named `id` is selected.
    pub fn picks(&self, id: &str) -> bool {
        self.ids.as_ref().is_none_or(|ids| ids.contains(id)) && self.filter.as_ref().is_none_or(|f| f.is_match(id))
    }

    /// Whether a selected task whose last record is `record` runs in this invocation.
    pub fn runs(&self, record: &Record) -> bool {
        let redo = match record.status {
            Status::Done if record.patch => Redo::Patch,
            Status::Done => Redo::Empty,
            Status::Failed => Redo::Failed,
            Status::Pending | Status::Running | Status::Stopped | Status::NotRun => return true,
        };
        self.redo.contains(&redo)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ended_tasks_run_again_only_when_redo_names_how_they_ended() {
        let done = Record { patch: true, ..Record::new("a", Status::Done, "") };
        let empty = Record::new("b", Status::Done, "");
        let failed = Record::new("c", Status::Failed, "no repository");
        let stopped = Record::new("d", Status::Stopped, "Ctrl-C");
        let plain = Selection::default();
        assert_eq!([&done, &empty, &failed, &stopped].map(|r| plain.runs(r)), [false, false, false, true]);
        let redo = Selection { redo: HashSet::from([Redo::Failed, Redo::Empty]), ..Selection::default() };
        assert_eq!([&done, &empty, &failed, &stopped].map(|r| redo.runs(r)), [false, true, true, true]);
    }

    #[test]
    fn ids_and_a_pattern_narrow_the_list() {
        let s = Selection {
            ids: Some(HashSet::from(["django__django-1".to_string(), "sympy__sympy-2".to_string()])),
            filter: Some(regex_lite::Regex::new("^django").unwrap()),
            ..Selection::default()
        };
        assert!(s.picks("django__django-1"));
        assert!(!s.picks("sympy__sympy-2"), "listed but not matching");
        assert!(!s.picks("django__django-3"), "matching but not listed");
        assert!(Selection::default().picks("anything"));
    }
}
