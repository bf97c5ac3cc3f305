//! Where a crash-looking finding or a failure no rule names stands: does
//! it count, or did the run outlive it (progress after it, its writer
//! going on, a request answered), did an operator stop bring it, was it a
//! warning or a thread's? What does not count is listed as benign, with why.

use super::failure_benign;
use crate::engine::diagnosis::{Benign, WENT_ON};
use crate::engine::place::Places;
use crate::engine::run::{Failure, Finding, RunState};
use crate::rules::{Category, Role, RuleSet};

/// Where a crash-looking finding stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Standing {
    /// It counts.
    Active,
    /// The run made progress after it: not a crash.
    Survived(u64),
    /// It came after an operator stop at this line.
    AfterStop(u64),
    /// Its writer went on: it wrote this ordinary line after it.
    WentOn(u64),
    /// Code caught it, and the server answered this request after it.
    Answered(u64),
    /// Code caught it and said what failed, and nothing after says the
    /// process ended.
    CaughtAndAnnounced,
}

/// `hung`: the run hung before any operator stop, so what the stop brings
/// (systemd's stop timeout, its SIGKILL) is the stop's, whatever the rule.
pub(super) fn standing(rules: &RuleSet, run: &RunState, finding: &Finding, hung: bool) -> Standing {
    // A status block is printed after the journal lines below it.
    if finding.summary {
        return Standing::Active;
    }
    let after_stop = run.stop_line.filter(|&s| finding.line > s);
    if let Some(stop) = after_stop.filter(|_| hung || !rules.rule(finding.rule).counts_after_stop) {
        return Standing::AfterStop(stop);
    }
    // A fault that poisons the process's CUDA context cannot be outlived:
    // progress after it is another process's, or a tuning pass that reports
    // the fault again.
    if finding.category.is_some_and(Category::poisons_cuda_context) {
        return Standing::Active;
    }
    if let Some(progress) = survived(run, finding.event_last) {
        return Standing::Survived(progress);
    }
    if let Some(line) = went_on(run, finding.outlived) {
        return Standing::WentOn(line);
    }
    if let Some(line) = went_on(run, finding.answered_after) {
        return Standing::Answered(line);
    }
    // An error its writer may outlive, in a traceback the catcher
    // announced, with nothing after it that says the process ended, no
    // phase to say it was starting and no other cause in the run (see
    // `caught_while_serving`).
    let outlivable = finding.writer.is_some() && finding.announced;
    let ended_after = run.last_terminal.is_some_and(|t| t > finding.event_last);
    if outlivable && !ended_after && only_announced_errors(run) {
        return Standing::CaughtAndAnnounced;
    }
    Standing::Active
}

/// Did the run outlive a failure that ended at line `event_last`? It did
/// if it made progress afterwards and either never died after its last
/// progress, or died of a new failure logged after that progress. Returns
/// the last progress line. Progress alone is not enough: another rank can
/// log a batch between a failure and the kill it causes.
fn survived(run: &RunState, event_last: u64) -> Option<u64> {
    let progress = run.own_progress().filter(|&p| p > event_last)?;
    let before_stop = |t: u64| run.stop_line.is_none_or(|s| t < s);
    let Some(death) = run.terminal_after_progress.filter(|&t| before_stop(t)) else {
        return Some(progress);
    };
    failed_between(run, progress, death).then_some(progress)
}

/// Did a new failure (a cause, a confirmation, or one no rule names) come
/// after line `alive` and by line `death`? Then the death is that
/// failure's, and what came before `alive` was outlived.
fn failed_between(run: &RunState, alive: u64, death: u64) -> bool {
    let between = |line: u64| line > alive && line <= death;
    run.findings.iter().any(|f| matches!(f.role, Role::Cause | Role::Confirm) && between(f.line))
        || run.failures.iter().any(|f| between(f.first_line))
}

/// Did the writer of an error outlive it? It did if it wrote an ordinary
/// line afterwards (`outlived`), and the run did not die after that line
/// of nothing logged since. Returns that line.
fn went_on(run: &RunState, outlived: Option<u64>) -> Option<u64> {
    let alive = outlived?;
    let before_stop = |t: u64| run.stop_line.is_none_or(|s| t < s);
    let Some(death) = run.last_terminal.filter(|&t| t > alive && before_stop(t)) else {
        return Some(alive);
    };
    failed_between(run, alive, death).then_some(alive)
}

/// Why a failure no rule names did not end the run, if it did not: the run
/// made progress after it, or its writer went on.
fn failure_survival(places: Places<'_>, run: &RunState, failure: &Failure) -> Option<String> {
    if let Some(progress) = survived(run, failure.last_line) {
        return Some(format!(
            "the run kept making progress after it ({}), so it was not fatal",
            places.cite(progress)
        ));
    }
    went_on(run, failure.outlived)
        .map(|line| went_on_why(places, line))
        .or_else(|| went_on(run, failure.answered_after).map(|line| answered_why(places, line)))
        .or_else(|| caught_while_serving(places, run, failure))
}

/// A failure the process caught and logged while it was already serving
/// is one request's or task's, unless a death came after it: a server
/// that catches an error goes on, and the log ending there (a paste cut
/// after the traceback) does not say otherwise. During start-up a caught
/// error usually ends the launch, so it still counts; where the log shows
/// no phase at all, one the catcher announced in its own words does not.
fn caught_while_serving(places: Places<'_>, run: &RunState, failure: &Failure) -> Option<String> {
    if run.last_terminal.is_some_and(|t| t >= failure.first_line) {
        return None;
    }
    // A traceback whose top was cut off (no header, no outermost frame)
    // may be a caught one: while the server serves, nothing says it is not.
    if let Some(serving_since) = failure.serving_since.filter(|_| failure.caught || failure.topless) {
        return Some(format!(
            "the process caught and logged it while serving (since {}), and nothing ended after it: one request's failure",
            places.cite(serving_since)
        ));
    }
    // Nothing says the process was starting: a handler that announces
    // what failed (`logger.exception("Failed to load the model.")`) and
    // nothing after it that says the process ended is the handler's end,
    // not the process's; unless the run has a cause of another kind.
    (failure.announced && only_announced_errors(run)).then(|| CAUGHT_AND_ANNOUNCED.to_string())
}

pub(super) const CAUGHT_AND_ANNOUNCED: &str =
    "the process caught it and logged what failed, and nothing in the log says the process ended";

/// Does the run show no phase (no start marker, readiness or progress) and
/// no error but those a handler caught and announced: no cause outside a
/// caught traceback, no failure unannounced?
fn only_announced_errors(run: &RunState) -> bool {
    let phase_unknown = run.max_stage.is_none() && run.ready.is_none() && run.last_progress.is_none();
    let causes_announced = run.findings.iter().filter(|f| f.role == Role::Cause).all(|f| f.announced);
    phase_unknown && causes_announced && run.failures.iter().all(|f| f.announced)
}

/// The failures no rule names that the run did not outlive; the others
/// are added to `benign`, with why.
pub(super) fn unsurvived_failures<'r>(
    places: Places<'_>,
    run: &'r RunState,
    benign: &mut Vec<Benign>,
) -> Vec<&'r Failure> {
    let mut failures = Vec::new();
    for f in &run.failures {
        let after_stop = run.stop_line.is_some();
        match failure_survival(places, run, f).filter(|_| !after_stop) {
            Some(why) => benign.push(failure_benign(places, f, why)),
            None => failures.push(f),
        }
    }
    failures
}

/// A warning never decides a crash by itself: a finding logged as a
/// warning counts only when a death, or a failure that is no warning, comes
/// at or after it (then it may explain it: a library that could not load);
/// a warning no rule names decides nothing. The others are added to
/// `benign`.
pub(super) fn set_aside_warnings<'r>(
    rules: &RuleSet,
    places: Places<'_>,
    run: &RunState,
    active: Vec<&'r Finding>,
    failures: Vec<&'r Failure>,
    benign: &mut Vec<Benign>,
) -> (Vec<&'r Finding>, Vec<&'r Failure>) {
    const WHY: &str = "a warning, and nothing ended after it: the run went on";
    const UNNAMED_WHY: &str = "a warning no rule names: it decides nothing by itself";
    const THREAD_WHY: &str = "raised in a thread (its outermost frame is where `threading` starts one), and nothing ended after it: a thread's exception does not end the process";
    let (weak_failures, failures): (Vec<&Failure>, Vec<&Failure>) =
        failures.into_iter().partition(|f| f.warning);
    for f in weak_failures {
        benign.push(failure_benign(places, f, UNNAMED_WHY.to_string()));
    }
    let decided_after = |line: u64, failures: &[&Failure]| {
        run.last_terminal.is_some_and(|t| t >= line)
            || active.iter().any(|f| !f.warning && f.line >= line)
            || failures.iter().any(|f| f.first_line >= line && !f.in_thread)
    };
    let (threads, failures): (Vec<&Failure>, Vec<&Failure>) =
        failures.iter().partition(|f| f.in_thread && !decided_after(f.last_line, &failures));
    for f in threads {
        benign.push(failure_benign(places, f, THREAD_WHY.to_string()));
    }
    let decided_after = |line: u64| decided_after(line, &failures);
    let weak: Vec<bool> = active.iter().map(|f| f.warning && !decided_after(f.line)).collect();
    let mut kept = Vec::with_capacity(active.len());
    for (f, weak) in active.into_iter().zip(weak) {
        match weak {
            true => benign.push(super::benign(rules, places, f, WHY.to_string())),
            false => kept.push(f),
        }
    }
    (kept, failures)
}

pub(super) fn answered_why(places: Places<'_>, line: u64) -> String {
    format!(
        "{WENT_ON}: the server caught it and answered a request after it ({}), so it was not fatal",
        places.cite(line)
    )
}

pub(super) fn went_on_why(places: Places<'_>, line: u64) -> String {
    format!("{WENT_ON}: its writer logged {} after it, so it was not fatal", places.cite(line))
}
