//! What a person watching a batch sees on stderr: a line when each task starts and when it ends, and, when stderr
//! is a terminal, a live bar under them (indicatif): tasks ended of those to run, with a patch, failed, running,
//! the spend against the batch's limits and the time left. When stderr is not a terminal (a log file, a pipe, a
//! scheduler's output) there is no bar and no escape code, only the lines.

use std::io::IsTerminal;
use std::time::Duration;

use acr_core::llm::budget::Budget;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::journal::Spending;
use super::record::{Record, Status};
use super::report::Counts;

/// The progress shown on stderr.
pub struct Progress {
    bar: Option<ProgressBar>,
}

/// Everything a progress line or the bar shows besides the task.
pub struct View {
    /// The tasks' counts.
    pub counts: Counts,
    /// What the batch budget counts as spent.
    pub spent: Spending,
    /// The batch's limits.
    pub limits: Budget,
    /// Whether the model has a price (dollars are shown then).
    pub priced: bool,
    /// Seconds since this invocation started.
    pub elapsed: f64,
    /// Seconds left, estimated from the tasks ended so far.
    pub left: Option<f64>,
    /// What the batch is waiting for, while it waits for the model server.
    pub waiting: Option<String>,
}

impl Progress {
    /// Progress over `to_run` tasks: with a live bar when stderr is a terminal.
    pub fn new(to_run: usize) -> Progress {
        if !std::io::stderr().is_terminal() || to_run == 0 {
            return Progress { bar: None };
        }
        let bar = ProgressBar::with_draw_target(Some(to_run as u64), ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template("{bar:24.green/white} {pos}/{len} {wide_msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
        bar.set_style(style);
        bar.enable_steady_tick(Duration::from_millis(500));
        Progress { bar: Some(bar) }
    }

    /// Prints a line (above the bar, when there is one).
    pub fn line(&self, text: &str) {
        match &self.bar {
            Some(bar) => bar.println(text),
            None => eprintln!("{text}"),
        }
    }

    /// Updates the bar.
    pub fn show(&self, view: &View) {
        if let Some(bar) = &self.bar {
            bar.set_position(view.counts.ended as u64);
            bar.set_message(bar_message(view));
        }
    }

    /// Takes the bar away (the closing summary is printed as a line).
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// The line of a task that starts.
pub fn started(id: &str, running: usize) -> String {
    format!("  start {id} ({running} running)")
}

/// The line of a task that ended:
/// `[3/20] id: patch (5 calls, 12.1 s) | 7 of 20 done (5 with a patch), 1 failed | 40 calls, 52.0k tokens | 1m 10s,
/// ~2m 40s left`.
pub fn ended(record: &Record, view: &View) -> String {
    let what = match record.status {
        Status::Done if record.patch => "patch".to_string(),
        Status::Done => "no patch".to_string(),
        Status::Stopped => format!("stopped: {}", record.reason),
        Status::Failed => format!("failed: {}", record.reason),
        Status::NotRun => format!("not run: {}", record.reason),
        Status::Pending | Status::Running => record.status.name().to_string(),
    };
    let c = &view.counts;
    format!(
        "[{}/{}] {}: {what} ({} calls, {:.1} s) | {} | {} | {}{}",
        c.ended,
        c.to_run,
        record.instance_id,
        record.model_calls,
        record.seconds,
        counts(c),
        spend(view),
        duration(view.elapsed),
        view.left.map_or(String::new(), |s| format!(", ~{} left", duration(s))),
    )
}

/// `7 of 20 done (5 with a patch), 1 failed`, and the tasks stopped and not run when there are some.
pub fn counts(c: &Counts) -> String {
    let mut text = format!("{} of {} done ({} with a patch), {} failed", c.done, c.total, c.patches, c.failed);
    for (n, what) in [(c.stopped, "stopped"), (c.not_run, "not run")] {
        if n > 0 {
            text.push_str(&format!(", {n} {what}"));
        }
    }
    text
}

/// The bar's words: `5 with a patch, 1 failed, 2 running | 40 calls, 52.0k of 1.0M tokens, $0.31 of $5.00 | ~2m left`.
fn bar_message(view: &View) -> String {
    let c = &view.counts;
    let state = match &view.waiting {
        Some(what) => format!("waiting for the model server: {what} | "),
        None => String::new(),
    };
    format!(
        "{state}{} with a patch, {} failed, {} running | {} | {}{}",
        c.patches,
        c.failed,
        c.running,
        spend(view),
        duration(view.elapsed),
        view.left.map_or(String::new(), |s| format!(", ~{} left", duration(s)))
    )
}

/// `40 calls, 52.0k of 1.0M tokens, $0.3100 of $5.00`: each amount against its limit, when it has one.
fn spend(view: &View) -> String {
    let (s, b) = (&view.spent, &view.limits);
    let of = |limit: Option<String>| limit.map_or(String::new(), |l| format!(" of {l}"));
    let mut text = format!(
        "{} calls{}, {}{} tokens",
        s.calls,
        of(b.max_calls.map(|l| l.to_string())),
        tokens(s.tokens()),
        of(b.max_tokens.map(tokens))
    );
    if view.priced {
        text.push_str(&format!(", ${:.4}{}", s.cost, of(b.max_cost.map(|l| format!("${l:.2}")))));
    }
    text
}

/// `12.3k`, `1.2M`.
pub fn tokens(n: u64) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..1_000_000 => format!("{:.1}k", n as f64 / 1e3),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
}

/// `45s`, `3m 05s`, `2h 10m`.
pub fn duration(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m {:02}s", s / 60, s % 60),
        _ => format!("{}h {:02}m", s / 3600, s % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spend_is_shown_against_each_limit() {
        let limits = Budget { max_tokens: Some(1_000_000), max_cost: Some(5.0), ..Budget::unlimited() };
        let spent = Spending {
            calls: 40,
            usage: acr_core::llm::Usage { prompt_tokens: 50_000, completion_tokens: 2_000 },
            cost: 0.31,
            estimated: false,
        };
        let counts =
            Counts { total: 20, to_run: 20, ended: 7, done: 6, patches: 5, failed: 1, running: 2, ..Counts::default() };
        let view = View { counts, spent, limits, priced: true, elapsed: 70.0, left: Some(130.0), waiting: None };
        assert_eq!(
            bar_message(&view),
            "5 with a patch, 1 failed, 2 running | 40 calls, 52.0k of 1.0M tokens, $0.3100 of $5.00 | 1m 10s, ~2m 10s left"
        );
        let record = Record { patch: true, model_calls: 5, seconds: 12.1, ..Record::new("a", Status::Done, "") };
        assert_eq!(
            ended(&record, &view),
            "[7/20] a: patch (5 calls, 12.1 s) | 6 of 20 done (5 with a patch), 1 failed | 40 calls, 52.0k of 1.0M \
             tokens, $0.3100 of $5.00 | 1m 10s, ~2m 10s left"
        );
    }
}
