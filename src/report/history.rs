//! Earlier launches in the text report: one line each, and one line for
//! consecutive launches of a unit that ended the same way (a restart loop):
//! `runs 3–12 (lines 40-812): crashed the same way 10 times: <cause>
//! [category] — first at line 52, last at line 801`. And the crash loop a
//! current launch ends: the launches before it that crashed the same way,
//! and the service manager that gave up restarting it.

use super::escape::for_terminal;
use crate::engine::diagnosis::{line_span, Outcome, Run};

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
    let ends_in =
        last.last_source.as_deref().or((last.source != first.source).then_some(last.source.as_str()));
    let lines = line_span(first.first_line, last.last_line, ends_in, |f| for_terminal(f).into());
    let place = format!("{}:{lines}", for_terminal(&first.source));
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
    // `crashed the same way 9 times: <cause>`, not `…: crashed: <cause>`.
    let what = what.strip_prefix("crashed: ").unwrap_or(&what);
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

/// Rules whose line says a service manager restarts a unit in a loop or
/// gave up restarting it, and the words that must be in the line.
const LOOP_RULES: [(&str, &str, &str); 4] = [
    ("systemd.start-limit-hit", "", "systemd stopped restarting it (start-limit-hit)"),
    ("systemd.status-start-limit", "", "systemd stopped restarting it (start-limit-hit)"),
    ("k8s.back-off", "", "Kubernetes keeps restarting it (CrashLoopBackOff)"),
    ("fate.failed", "gave up: ", "supervisord gave up restarting it (FATAL state)"),
];

/// The crash loop that `current` (a current launch) ends, said in one
/// line: how many launches before it in a row crashed the same way
/// (`runs` is every run of the report, in order), and what the service
/// manager said of it. `None` for a crash that is not a loop's.
pub(super) fn crash_loop(runs: &[&Run], current: &Run) -> Option<String> {
    if current.outcome != Outcome::Crash {
        return None;
    }
    let at = runs.iter().position(|r| std::ptr::eq(*r, current))?;
    let earlier = runs[..at]
        .iter()
        .rev()
        .filter(|r| r.source == current.source && r.unit == current.unit)
        .take_while(|r| r.history && same_end(r, current))
        .count();
    let said = loop_said(current);
    if earlier == 0 && said.is_none() {
        return None;
    }
    let line = |run: &Run| run.root_cause.as_ref().and_then(|c| c.evidence.first()).map(|e| e.line);
    let mut text = String::from("crash loop");
    if earlier > 0 {
        let first = runs[..at]
            .iter()
            .rev()
            .filter(|r| r.source == current.source && r.unit == current.unit)
            .nth(earlier - 1)?;
        text.push_str(&format!(
            ": the same crash in {} launches in a row (runs {}–{})",
            earlier + 1,
            first.number,
            current.number
        ));
        if let (Some(a), Some(b)) = (line(first), line(current)) {
            text.push_str(&format!(", first at line {a}, last at line {b}"));
        }
    }
    if let Some((said, at)) = said {
        let joint = if earlier > 0 { "; " } else { ": " };
        text.push_str(&format!("{joint}{said} at line {at}"));
    }
    Some(text)
}

/// What a service manager said of the loop, and where.
fn loop_said(run: &Run) -> Option<(&'static str, u64)> {
    let cause = run.root_cause.as_ref().and_then(|c| Some((c.rule.as_deref()?, c.evidence.first()?)));
    let cause = cause.map(|(rule, e)| (rule, e.line, e.text.as_str()));
    let lines = run.symptoms.iter().map(|s| (s.rule.as_str(), s.line, s.text.as_str())).chain(cause);
    for (rule, line, text) in lines {
        let said = LOOP_RULES.iter().find(|(id, words, _)| *id == rule && text.contains(words));
        if let Some(&(_, _, said)) = said {
            return Some((said, line));
        }
    }
    None
}
