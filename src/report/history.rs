//! Earlier launches in the text report: one line each, and one line for
//! consecutive launches of a unit that ended the same way (a restart loop):
//! `runs 3–12 (lines 40-812): crashed the same way 10 times: <cause>
//! [category] — first at line 52, last at line 801`.

use super::escape::for_terminal;
use crate::engine::diagnosis::{Outcome, Run};

/// The lines that list `runs` (history, in report order).
pub(super) fn entries(runs: &[&Run]) -> Vec<String> {
    let mut entries = Vec::new();
    let mut start = 0;
    while start < runs.len() {
        let mut end = start + 1;
        while end < runs.len() && same_end(runs[start], runs[end]) {
            end += 1;
        }
        entries.push(entry(&runs[start..end]));
        start = end;
    }
    entries
}

/// Two launches of one unit that ended the same way: the same outcome,
/// and for crashes the same rule and title (or the same fingerprint).
fn same_end(a: &Run, b: &Run) -> bool {
    if a.source != b.source || a.unit != b.unit || a.outcome != b.outcome {
        return false;
    }
    match (&a.root_cause, &b.root_cause) {
        (Some(x), Some(y)) => match (&x.fingerprint, &y.fingerprint) {
            (Some(fx), Some(fy)) => fx.id == fy.id,
            _ => x.rule == y.rule && x.title == y.title,
        },
        (None, None) => a.outcome == Outcome::Crash || a.outcome == Outcome::Hung,
        _ => false,
    }
}

fn entry(group: &[&Run]) -> String {
    let (first, last) = (group[0], group[group.len() - 1]);
    let unit = first.unit.as_deref().map(|u| format!(" {}", for_terminal(u))).unwrap_or_default();
    let place = format!("{}:{}-{}", for_terminal(&first.source), first.first_line, last.last_line);
    let what = ended(first);
    let line = |run: &Run| run.root_cause.as_ref().and_then(|c| c.evidence.first()).map(|e| e.line);
    if group.len() == 1 {
        let at = line(first).map(|l| format!(" — line {l}")).unwrap_or_default();
        return format!("run {}{unit} ({place}): {what}{at}", first.number);
    }
    let at = match (line(first), line(last)) {
        (Some(a), Some(b)) => format!(" — first at line {a}, last at line {b}"),
        _ => String::new(),
    };
    format!(
        "runs {}–{}{unit} ({place}): {} the same way {} times: {what}{at}",
        first.number,
        last.number,
        verb(first.outcome),
        group.len()
    )
}

/// How a launch ended, in a few words: `crashed: <cause> [category]`.
fn ended(run: &Run) -> String {
    match (&run.root_cause, run.outcome) {
        (Some(cause), _) => format!("crashed: {} [{}]", for_terminal(&cause.title), cause.category),
        (None, Outcome::Hung) => "hung".to_string(),
        (None, Outcome::Degraded) => "ready, then its speed collapsed".to_string(),
        (None, Outcome::Healthy) => "ready".to_string(),
        (None, Outcome::Stopped) if run.ready.is_some() => "ready, then stopped".to_string(),
        (None, Outcome::Stopped) => "stopped before it was ready".to_string(),
        (None, Outcome::Starting) => "never became ready".to_string(),
        (None, _) => "no sign of how it ended".to_string(),
    }
}

fn verb(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Crash => "crashed",
        Outcome::Hung => "hung",
        _ => "ended",
    }
}
