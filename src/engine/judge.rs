//! Judging a run: outcome, root cause, symptoms, benign lines, confidence.
//!
//! Causal selection, in order:
//!
//! 1. **Liveness**: a crash-looking finding after which the run kept making
//!    progress (batches, requests, start-up phases, ready) that no death
//!    line interrupted is not a crash; it is listed as benign.
//! 2. **Orderly stop**: findings after an operator stop are consequences of
//!    the stop; a run with a stop and no cause is `stopped`.
//! 3. **Root cause**: the earliest active `cause` finding, or `confirm`
//!    finding whose symptom is present (same pid when both name one).
//!    Everything else that failed in the run is a symptom pointing at it.
//! 4. **Fallback**: with no cause, the earliest unexplained symptom that
//!    stands for a cause the log cannot show (a SIGKILL with no record of
//!    who sent it, a peer that died) or the earliest unrecognised failure
//!    (an uncaught traceback): category `unknown`, low confidence.
//! 5. Otherwise the markers decide: `healthy`, `starting`, `stopped` or
//!    `unknown`.

use super::diagnosis::{
    Benign, Confidence, Diagnosis, Evidence, Hundredths, Inferred, InputSummary, Outcome, Recurring,
    RootCause, Run, Symptom, Verdict, Work, SCHEMA, WENT_ON,
};
use super::fingerprint::Fingerprint;
use super::handling::says_it_ends;
use super::health;
use super::launches;
use super::place::Places;
use super::run::{EvidenceLine, Failure, Finding, RunState};
use super::{JudgeOptions, SourceState};
use crate::rules::{fate, Category, Role, RuleSet};

/// The category a memory kill record confirms a SIGKILL as.
const OOM_KILL: Category = Category::HostOomKill;
/// The category of a SIGKILL whose sender the log does not show.
const UNATTRIBUTED_KILL: Category = Category::SigkillUnattributed;

/// The category of a GPU fault after which the process's CUDA context is
/// unusable (an illegal access, a device-side assert, a misaligned address).
const STICKY_FAULT: Category = Category::CudaIllegalAccess;

/// Supporting findings of the root cause's category added to its evidence.
const MAX_CORROBORATING: usize = 3;

pub(super) fn diagnose(rules: &RuleSet, sources: &[SourceState], options: &JudgeOptions) -> Diagnosis {
    let mut runs = Vec::new();
    let mut inputs = Vec::new();
    let kill_records = kill_records(sources);
    let loose = loose_failures(sources);
    // Runs are numbered across sources as a report of every run lists them.
    let mut numbered = 0;
    for (source_index, source) in sources.iter().enumerate() {
        let mut notices = source.notices.clone();
        let dropped: u64 = source.units.list.iter().map(|u| u.dropped_runs).sum();
        if dropped > 0 {
            notices.push(format!(
                "{dropped} earlier run(s) that recorded no failure were not kept (too many launches); the latest runs and every run that failed are judged"
            ));
        }
        if source.units.dropped_units > 0 {
            notices.push(format!(
                "{} older units with findings were not kept (a source keeps at most {} units): the latest are judged",
                source.units.dropped_units,
                super::units::MAX_UNITS
            ));
        }
        notices.extend(source.units.notices());
        let unit = source.units.list.iter().find_map(|u| u.name.as_deref());
        notices.extend(source.ellipsized.notice(unit));
        if !options.units.is_empty() {
            let named: Vec<&str> = source.units.list.iter().filter_map(|u| u.name.as_deref()).collect();
            if !named.iter().any(|n| options.units.matches(Some(n))) {
                notices.push(options.units.no_match_notice(&named));
            }
        }
        inputs.push(InputSummary {
            name: source.name.clone(),
            lines: source.lines,
            formats: source.formats.iter().map(|f| f.name().to_string()).collect(),
            notices,
        });
        let numbers = RunNumbers::of(source, numbered);
        numbered += numbers.count;
        let mut judged = Vec::new();
        for (unit_index, unit) in source.units.list.iter().enumerate() {
            if !options.units.is_empty() && !options.units.matches(unit.name.as_deref()) {
                continue;
            }
            let setting = Setting {
                source: source_index,
                places: Places::of(source),
                unit: unit.name.as_deref(),
                boot: unit.holds_a_boot(),
                kills: &kill_records,
                loose: &loose,
                hang_after: options.hang_after_seconds,
            };
            // Every run is judged: a later run's speed is compared with
            // earlier ones, whether or not they are reported.
            let mut all: Vec<Run> = unit.runs.iter().map(|state| judge_run(rules, &setting, state)).collect();
            health::judge_collapses(setting.places, &unit.runs, &mut all, options.degraded_below);
            for (run_index, run) in all.iter_mut().enumerate() {
                run.number = numbers.of_run(unit_index, run_index);
                if let Some(degraded) = run.degraded.as_mut() {
                    degraded.vs_run = numbers.starting_at(degraded.vs_stream_line);
                }
            }
            if !options.any_launch {
                launches::mark_history(&mut all);
            }
            let skip = options.latest.map_or(0, |n| unit.runs.len().saturating_sub(n));
            judged.extend(all.into_iter().skip(skip));
        }
        // The runs of all units, in input order.
        judged.sort_by_key(|r| r.number);
        runs.extend(judged);
    }
    let current = || runs.iter().filter(|r| !r.history);
    let verdict = if current().any(|r| r.outcome == Outcome::Crash) {
        Verdict::Crash
    } else if current().any(|r| r.outcome == Outcome::Hung) {
        Verdict::Hung
    } else if current().any(|r| r.outcome == Outcome::Degraded) {
        Verdict::Degraded
    } else {
        Verdict::NoCrash
    };
    let recurring = Recurring::among(&runs);
    Diagnosis { schema: SCHEMA, verdict, root_cause: headline_cause(&runs), inputs, runs, recurring }
}

/// The numbers of a source's runs ([`Run::number`]): in input order, the
/// runs of all its units interleaved, whichever a report leaves out.
struct RunNumbers {
    /// Per unit, per run: its number and its first line in the stream.
    numbers: Vec<Vec<(usize, u64)>>,
    /// How many runs the source holds.
    count: usize,
}

impl RunNumbers {
    /// Numbers the runs of `source` after the `before` runs of the sources
    /// before it.
    fn of(source: &SourceState, before: usize) -> Self {
        let mut order: Vec<(u64, usize, usize)> = Vec::new();
        let mut numbers = Vec::new();
        for (unit_index, unit) in source.units.list.iter().enumerate() {
            numbers.push(vec![(0, 0); unit.runs.len()]);
            for (run_index, run) in unit.runs.iter().enumerate() {
                order.push((run.first_line, unit_index, run_index));
            }
        }
        order.sort_unstable();
        for (place, &(first_line, unit_index, run_index)) in order.iter().enumerate() {
            numbers[unit_index][run_index] = (before + place + 1, first_line);
        }
        RunNumbers { numbers, count: order.len() }
    }

    fn of_run(&self, unit_index: usize, run_index: usize) -> usize {
        self.numbers[unit_index][run_index].0
    }

    /// The number of the first run that starts at this stream line.
    fn starting_at(&self, stream_line: u64) -> Option<usize> {
        self.numbers.iter().flatten().filter(|(_, first)| *first == stream_line).map(|(n, _)| *n).min()
    }
}

/// The root cause the diagnosis leads with: that of the latest crashed run
/// of a unit, the latest such with an identified cause when there is one
/// (of one unit, the latest crash; of several, the unit that died of a
/// named cause before one whose SIGKILL nobody explains).
fn headline_cause(runs: &[Run]) -> Option<RootCause> {
    let mut latest: Vec<&Run> = Vec::new();
    for run in runs.iter().filter(|r| r.outcome == Outcome::Crash && !r.history) {
        latest.retain(|r| !(r.source == run.source && r.unit == run.unit));
        latest.push(run);
    }
    let causes: Vec<&RootCause> = latest.iter().filter_map(|r| r.root_cause.as_ref()).collect();
    let identified = causes.iter().rev().find(|c| c.identified);
    identified.or(causes.last()).map(|c| (*c).clone())
}

/// Where a run is judged: its source and unit, and what other runs found
/// that can explain its death.
struct Setting<'s> {
    /// The index of the source.
    source: usize,
    places: Places<'s>,
    /// The unit's name, when the log names one.
    unit: Option<&'s str>,
    /// The unit holds a boot's unclaimed lines (`UnitRuns::holds_a_boot`).
    boot: bool,
    /// The memory-kill records of every run of every source.
    kills: &'s [KillRecord<'s>],
    /// Failures in runs no unit claims (see [`loose_failures`]).
    loose: &'s [(usize, u64)],
    /// Seconds without progress, work pending, that make a run hung.
    hang_after: f64,
}

/// A record that the kernel, systemd or a container runtime killed a
/// process for memory, found in some run. It can explain a SIGKILL seen in
/// another source (the journal of the unit, the dmesg of the host) when
/// both name the same process or unit.
#[derive(Clone, Copy)]
struct KillRecord<'a> {
    /// The index of its source.
    source: usize,
    places: Places<'a>,
    /// It is in the run of a unit that claims its processes (not the
    /// boot's lines, nor a process no unit claimed).
    claimed: bool,
    run: &'a RunState,
    finding: &'a Finding,
}

fn kill_records<'a>(sources: &'a [SourceState]) -> Vec<KillRecord<'a>> {
    let mut records = Vec::new();
    for (index, source) in sources.iter().enumerate() {
        for unit in &source.units.list {
            for run in &unit.runs {
                for finding in &run.findings {
                    let oom = finding.category == Some(OOM_KILL);
                    if oom && matches!(finding.role, Role::Cause | Role::Confirm) {
                        let places = Places::of(source);
                        let claimed = unit.is_claimed();
                        records.push(KillRecord { source: index, places, run, finding, claimed });
                    }
                }
            }
        }
    }
    records
}

/// Where a crash-looking finding stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Standing {
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
fn standing(rules: &RuleSet, run: &RunState, finding: &Finding, hung: bool) -> Standing {
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
    if finding.category == Some(STICKY_FAULT) {
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

const CAUGHT_AND_ANNOUNCED: &str =
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
fn unsurvived_failures<'r>(
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
fn set_aside_warnings<'r>(
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
            true => benign.push(self::benign(rules, places, f, WHY.to_string())),
            false => kept.push(f),
        }
    }
    (kept, failures)
}

fn answered_why(places: Places<'_>, line: u64) -> String {
    format!(
        "{WENT_ON}: the server caught it and answered a request after it ({}), so it was not fatal",
        places.cite(line)
    )
}

fn went_on_why(places: Places<'_>, line: u64) -> String {
    format!("{WENT_ON}: its writer logged {} after it, so it was not fatal", places.cite(line))
}

fn judge_run(rules: &RuleSet, setting: &Setting<'_>, run: &RunState) -> Run {
    let places = setting.places;
    let (source, first) = places.locate(run.first_line);
    let (last_source, last) = places.locate(run.last_line);
    // In a file read bottom-up the run's first line is below its last.
    let (first_line, last_line) =
        if source == last_source && first > last { (last, first) } else { (first, last) };
    let mut result = Run {
        // Set once every run of the source is known.
        number: 0,
        source: source.to_string(),
        first_line,
        last_line,
        last_source: (source != last_source).then(|| last_source.to_string()),
        unit: setting.unit.map(str::to_string).or_else(|| run.unit.clone()),
        outcome: Outcome::Unknown,
        history: false,
        phase: run.phase.clone(),
        ready: run.ready.as_ref().map(|r| evidence_at(places, r.line, r)),
        root_cause: None,
        symptoms: Vec::new(),
        benign: Vec::new(),
        notices: Vec::new(),
        stream_first_line: run.first_line,
        stream_last_line: run.last_line,
        work: run.vitals.as_deref().and_then(|v| {
            let advance = v.last_advance()?;
            let line = advance.moment.line;
            let evidence = evidence_at(places, line, &EvidenceLine::new(line, &advance.text));
            Some(Work { evidence, stream_line: line, pending: v.stuck_with_work() })
        }),
        vitals: run.vitals.as_deref().and_then(|v| v.summary()).map(|v| in_source_lines(places, v)),
        degraded: None,
        hang: None,
    };
    if let Some(cut) = &run.cut_traceback {
        result.notices.push(cut_notice(places, cut));
    }

    // A hang then a stop (the operator's, systemd's stop timeout and its
    // SIGKILL) is a hang.
    let hang = health::hang(places, run, setting.hang_after);
    let hung = hang.is_some();
    let mut active: Vec<&Finding> = Vec::new();
    // Named causes whose writer went on (without progress) after them.
    let mut outlived_causes: Vec<&Finding> = Vec::new();
    // The lines of the findings the run outlived or that harm nothing.
    let mut set_aside: Vec<u64> = Vec::new();
    for f in &run.findings {
        let why = if f.role == Role::Benign {
            benign_why(rules, f)
        } else {
            match standing(rules, run, f, hung) {
                Standing::Active => {
                    active.push(f);
                    continue;
                }
                Standing::Survived(line) => format!(
                    "the run kept making progress after it ({}), so it was not fatal",
                    places.cite(line)
                ),
                Standing::AfterStop(line) => {
                    format!("a consequence of the orderly stop seen at {}", places.cite(line))
                }
                Standing::WentOn(line) => {
                    if f.role == Role::Cause {
                        outlived_causes.push(f);
                    }
                    went_on_why(places, line)
                }
                Standing::Answered(line) => answered_why(places, line),
                Standing::CaughtAndAnnounced => CAUGHT_AND_ANNOUNCED.to_string(),
            }
        };
        set_aside.push(f.line);
        result.benign.push(benign(rules, places, f, why));
    }

    let failures = unsurvived_failures(places, run, &mut result.benign);
    let (mut active, failures) = set_aside_warnings(rules, places, run, active, failures, &mut result.benign);

    let mut root = choose_root(rules, setting, run, &active, &failures);
    // The run then ended, and the end says nothing of why (a program's last
    // words, an exit status, a traceback cut before its exception line): a
    // named cause its writer went on from only to shut down or to pass the
    // error on (no progress came after it: tritonserver unloading its other
    // models after one failed to load, NCCL's `init.cc:1397 -> 1` lines) is
    // why.
    let unexplained_end = match &root {
        Some(Root::StandIn(end)) => end.category.is_none_or(|c| c == Category::Unknown).then_some(end.line),
        Some(Root::Failure(failure)) => failure.headless.then_some(failure.first_line),
        _ => None,
    };
    if let Some(end_line) = unexplained_end {
        if let Some(cause) = outlived_causes.iter().rev().find(|c| c.line < end_line) {
            let cause: &Finding = cause;
            result.benign.retain(|b| b.line != cause.line);
            active.push(cause);
            active.sort_by_key(|f| f.line);
            root = choose_root(rules, setting, run, &active, &failures);
        }
    }

    // The kernel's or a service manager's consequence that names no
    // process (`python invoked oom-killer`), among a boot's lines: the
    // process it concerns is named by the lines that follow it (`Killed
    // process N`, in that process's unit), not by these.
    if let Some(Root::StandIn(f)) = root.as_ref().filter(|_| setting.boot) {
        if f.writer.is_none() && f.pid.is_none() && f.unit.is_none() {
            let why =
                "it names no process, and this boot's lines are no one process's: the lines after it name \
the process it concerns";
            result.benign.push(benign(rules, places, f, why.to_string()));
            root = None;
        }
    }

    let Some(root) = root else {
        // A death the run outlived (a child's, a runner's) did not end it.
        let outlived_its_end = run.last_terminal.is_some_and(|t| set_aside.contains(&t));
        result.outcome = quiet_outcome(run, outlived_its_end);
        if let Some(hang) = hang {
            result.outcome = Outcome::Hung;
            result.hang = Some(hang);
        }
        if let Some(stop) = run.stop_line {
            for f in &active {
                let why = format!("a consequence of the orderly stop seen at {}", places.cite(stop));
                result.benign.push(benign(rules, places, f, why));
            }
        }
        result.benign.sort_by_key(|b| b.line);
        return result;
    };
    let (cause, shown) = root_cause(rules, run, places, &root, &active);
    let label = match &root {
        Root::Failure(failure) => format!("the failure at {}", places.cite(failure.first_line)),
        Root::Elsewhere(record, _, _) => {
            let (file, line) = record.places.locate(record.finding.line);
            format!("{} in {file} (line {line})", rules.rule(record.finding.rule).id)
        }
        Root::Cause(f, _) | Root::StandIn(f) => {
            format!("{} ({})", rules.rule(f.rule).id, places.cite(f.line))
        }
    };
    for f in active.iter().filter(|f| !shown.contains(&f.line)) {
        result.symptoms.push(symptom(rules, places, f, &label));
    }
    // In lines that name no unit, the unit the root cause names is the
    // run's.
    if let (None, Root::Cause(f, _) | Root::StandIn(f)) = (setting.unit, &root) {
        if let Some(unit) = &f.unit {
            result.unit = Some(unit.clone());
        }
    }
    result.root_cause = Some(cause);
    result.outcome = Outcome::Crash;
    result
}

/// What a crashed run died of.
enum Root<'a> {
    /// A cause rule's finding, or a confirm finding with the symptom it
    /// confirms.
    Cause(&'a Finding, Option<&'a Finding>),
    /// A symptom standing in for a cause the log does not show.
    StandIn(&'a Finding),
    /// An uncaught failure no rule recognises.
    Failure(&'a Failure),
    /// A memory kill recorded in another source or unit, for this run's
    /// SIGKILL; `true` when it names the run's process or unit, `false`
    /// when it only came just before.
    Elsewhere(KillRecord<'a>, &'a Finding, bool),
}

/// Lines within which an error after frames that lack their exception line
/// is taken to be that exception, split off by a paste.
const SPLIT_LINES: u64 = 3;

/// How many lines after a death's telling a launcher may tell it again,
/// with how it ended.
const RETOLD_LINES: u64 = 6;

/// Causal selection: the earliest cause; with none (and no orderly stop),
/// the earliest of an unexplained stand-in symptom and an unrecognised
/// failure. `None` means the run did not crash.
fn choose_root<'a>(
    rules: &RuleSet,
    setting: &Setting<'a>,
    run: &'a RunState,
    active: &[&'a Finding],
    failures: &[&'a Failure],
) -> Option<Root<'a>> {
    if let Some((cause, confirmed)) = select_cause(rules, run, active) {
        return Some(Root::Cause(cause, confirmed));
    }
    // After an orderly stop, only failures that count despite the stop (a
    // stop that timed out) make the run a crash.
    let before_stop = |line: u64| run.stop_line.is_none_or(|stop| line < stop);
    let active: Vec<&Finding> = active
        .iter()
        .copied()
        .filter(|f| before_stop(f.line) || rules.rule(f.rule).counts_after_stop)
        .collect();
    let explained = |f: &Finding| {
        active
            .iter()
            .any(|other| !std::ptr::eq(*other, f) && rules.rule(other.rule).explains.contains(&f.rule))
    };
    let unexplained = |f: &&Finding| f.role == Role::Symptom && !explained(f);
    let stand_in = active.iter().copied().filter(unexplained).min_by_key(|f| (f.summary, f.line));
    // A death told twice, first without how (`the job has been aborted`),
    // then with it (`… exited on signal 9 (Killed)`): the telling that
    // names how is the evidence.
    let fate = |f: &Finding| rules.rule(f.rule).role == Role::Fate;
    let told_how = |s: &Finding, o: &&Finding| {
        fate(o)
            && o.line > s.line
            && o.ordinal <= s.event_last_ordinal + RETOLD_LINES
            && o.category.is_some_and(|c| c != Category::Unknown)
    };
    let stand_in = stand_in.map(|s| match s.category {
        Some(Category::Unknown) | None if fate(s) => {
            active.iter().copied().filter(unexplained).find(|o| !o.summary && told_how(s, o)).unwrap_or(s)
        }
        _ => s,
    });
    // A writer's error, then its fatal one by the same rule (`slurmd:
    // error: Waiting for …`, then `slurmd: fatal: can't stat …`): the
    // fatal one is what ended it.
    let stand_in = stand_in.map(|s| {
        if s.summary || s.writer.is_none() || says_it_ends(&s.text) {
            return s;
        }
        let ended_it = |o: &&Finding| {
            o.rule == s.rule && o.line > s.line && o.writer == s.writer && says_it_ends(&o.text)
        };
        active.iter().copied().filter(unexplained).find(ended_it).unwrap_or(s)
    });
    // Frames with no exception line, right before a line that names an
    // error: the paste split one traceback, and that line is decisive.
    let split_off = |f: &Failure| {
        let next = |ordinal: u64| ordinal > f.last_ordinal && ordinal <= f.last_ordinal + SPLIT_LINES;
        f.headless
            && (active.iter().any(|a| next(a.ordinal)) || failures.iter().any(|o| next(o.first_ordinal)))
    };
    // A traceback whose own lines hold the stop (an uncaught
    // KeyboardInterrupt) is the stop, not a failure before it.
    let is_the_stop = |f: &Failure| run.stop_line.is_some_and(|s| (f.first_line..=f.last_line).contains(&s));
    let failure =
        failures.iter().copied().find(|f| before_stop(f.first_line) && !split_off(f) && !is_the_stop(f));
    match (stand_in, failure) {
        (Some(s), Some(f)) if s.summary || f.first_line <= s.line => Some(Root::Failure(f)),
        (Some(s), _) => Some(match kill_record_for(setting, run, s) {
            Some((record, named)) => Root::Elsewhere(record, s, named),
            None => Root::StandIn(s),
        }),
        (None, Some(f)) => Some(Root::Failure(f)),
        (None, None) => None,
    }
}

/// A memory kill recorded elsewhere that explains a SIGKILL stand-in, and
/// whether it names one of the run's processes or its unit (else it is a
/// kill of a process nobody owns, just before).
fn kill_record_for<'a>(
    setting: &Setting<'a>,
    run: &RunState,
    stand_in: &Finding,
) -> Option<(KillRecord<'a>, bool)> {
    if stand_in.category != Some(UNATTRIBUTED_KILL) {
        return None;
    }
    let unit = setting.unit.or(run.unit.as_deref());
    let names = |record: &KillRecord<'_>| {
        let pid = record.finding.pid.is_some_and(|p| run.pids.contains(&p) || stand_in.pid == Some(p));
        pid || record.finding.unit.as_deref().is_some_and(|u| Some(u) == unit)
    };
    let elsewhere = setting.kills.iter().copied().filter(|r| !std::ptr::eq(r.run, run));
    let named = elsewhere.clone().find(|r| names(r)).map(|r| (r, true));
    let source = setting.source;
    named.or_else(|| {
        let near = elsewhere.filter(|r| just_before(source, run, stand_in, r));
        let record = near.max_by_key(|r| r.finding.line)?;
        // A failure of a process no unit claims, between the kill and the
        // SIGKILL, may be what the unit died of (sglang kills its own
        // process tree after a child fails): then nobody can tell.
        let between =
            |&&(s, line): &&(usize, u64)| s == source && line > record.finding.line && line < stand_in.line;
        setting.loose.iter().find(between).is_none().then_some((record, false))
    })
}

/// The lines of the failures (causes other than memory kills, and
/// unrecognised failures) in runs that no unit claims, per source.
fn loose_failures(sources: &[SourceState]) -> Vec<(usize, u64)> {
    let mut lines = Vec::new();
    for (index, source) in sources.iter().enumerate() {
        for run in source.units.list.iter().filter(|u| !u.is_claimed()).flat_map(|u| &u.runs) {
            let causes =
                run.findings.iter().filter(|f| f.role == Role::Cause && f.category != Some(OOM_KILL));
            lines.extend(causes.map(|f| (index, f.line)));
            lines.extend(run.failures.iter().map(|f| (index, f.first_line)));
        }
    }
    lines
}

/// Lines within which a kill record of a process nobody is known to own
/// can explain the SIGKILL that follows it.
const NEAR_LINES: u64 = 32;

/// Is `record` a kill of a process no unit is known to own (a child that
/// never wrote to the journal, a process the journal names only by pid,
/// a process whose unit a short-mode journal does not say), in the same
/// source, just before the SIGKILL of a run whose processes are unknown?
/// systemd-oomd and the kernel name the pid they kill; systemd then names
/// only the unit whose process died.
fn just_before(source: usize, run: &RunState, stand_in: &Finding, record: &KillRecord<'_>) -> bool {
    let same_source = record.source == source;
    let orphan = !record.claimed || record.finding.pid.is_none_or(|p| !record.run.pids.contains(&p));
    let before = record.finding.line < stand_in.line
        && stand_in.ordinal.saturating_sub(record.finding.ordinal) <= NEAR_LINES;
    same_source && orphan && before && run.pids.is_empty() && stand_in.pid.is_none()
}

/// The outcome of a run that did not crash. An end it logged counts as
/// a stop unless it was a death the run outlived (`outlived_its_end`).
fn quiet_outcome(run: &RunState, outlived_its_end: bool) -> Outcome {
    if run.stop_line.is_some() {
        Outcome::Stopped
    } else if run.ready.is_some() {
        Outcome::Healthy
    } else if run.ended && !outlived_its_end {
        Outcome::Stopped
    } else if run.max_stage.is_some() || run.last_progress.is_some() {
        Outcome::Starting
    } else {
        Outcome::Unknown
    }
}

/// The root cause of a crashed run, and the (stream) lines its evidence
/// shows, which are then not listed again as symptoms.
fn root_cause(
    rules: &RuleSet,
    run: &RunState,
    places: Places<'_>,
    root: &Root<'_>,
    active: &[&Finding],
) -> (RootCause, Vec<u64>) {
    let mut shown = Vec::new();
    let mut evidence = |lines: &[EvidenceLine]| -> Vec<Evidence> {
        let mut out: Vec<Evidence> = Vec::with_capacity(lines.len());
        for l in lines {
            if !shown.contains(&l.line) {
                shown.push(l.line);
                let (source, line) = places.locate(l.line);
                out.push(Evidence {
                    source: source.to_string(),
                    line,
                    text: l.text.clone(),
                    cut_bytes: l.cut,
                });
            }
        }
        out
    };
    let cause = match root {
        Root::Cause(cause, confirmed) => {
            let rule = rules.rule(cause.rule);
            let mut lines = cause.evidence.clone();
            lines.extend(confirmed.map(evidence_of));
            // Other causes of the same category back it up (the OOM
            // record, then the unit's oom-kill result).
            let corroborating = active
                .iter()
                .filter(|f| matches!(f.role, Role::Cause | Role::Confirm) && !std::ptr::eq(**f, *cause))
                .filter(|f| f.category == cause.category)
                .take(MAX_CORROBORATING);
            lines.extend(corroborating.map(|f| evidence_of(f)));
            let died = cause.summary || run.last_terminal.is_some_and(|t| t >= cause.line);
            RootCause {
                rule: Some(rule.id.clone()),
                category: category_of(cause),
                title: cause.title.clone(),
                confidence: if died { Confidence::High } else { Confidence::Medium },
                hint: hint_of(rules, cause),
                evidence: evidence(&lines),
                identified: true,
                inferred: None,
                fingerprint: None,
            }
        }
        Root::StandIn(symptom) => {
            let rule = rules.rule(symptom.rule);
            RootCause {
                rule: Some(rule.id.clone()),
                category: category_of(symptom),
                title: symptom.title.clone(),
                confidence: Confidence::Low,
                hint: hint_of(rules, symptom).or_else(|| rule.why.clone()),
                evidence: evidence(&symptom.evidence),
                identified: false,
                inferred: None,
                fingerprint: None,
            }
        }
        Root::Elsewhere(record, symptom, named) => {
            let rule = rules.rule(record.finding.rule);
            let mut lines =
                vec![evidence_at(record.places, record.finding.line, &evidence_of(record.finding))];
            lines.extend(evidence(&[evidence_of(symptom)]));
            RootCause {
                rule: Some(rule.id.clone()),
                category: category_of(record.finding),
                title: record.finding.title.clone(),
                confidence: if *named { Confidence::High } else { Confidence::Medium },
                hint: rule.hint.clone(),
                evidence: lines,
                identified: true,
                inferred: None,
                fingerprint: None,
            }
        }
        Root::Failure(failure) => {
            // A fate line in its exception may say what it was.
            let (category, names_cause) = failure.fate.unwrap_or((Category::Unknown, false));
            let hint = match &run.cut_traceback {
                Some(cut) if cut.first_line == failure.first_line => cut_hint(cut),
                _ if category != Category::Unknown => fate::hint(category).to_string(),
                _ => UNRECOGNISED_HINT.to_string(),
            };
            RootCause {
                rule: None,
                category,
                title: failure.title.clone(),
                confidence: if names_cause { Confidence::Medium } else { Confidence::Low },
                hint: Some(hint),
                evidence: evidence(&failure.evidence),
                identified: names_cause,
                inferred: None,
                fingerprint: None,
            }
        }
    };
    (with_inferred_category(rules, root, with_fingerprint(rules, root, cause)), shown)
}

/// A root cause whose category no rule named carries the fingerprint of
/// its failure: the failure's own, or for a symptom standing in, the
/// rule that read it and its masked message.
fn with_fingerprint(rules: &RuleSet, root: &Root<'_>, mut cause: RootCause) -> RootCause {
    if cause.category != Category::Unknown {
        return cause;
    }
    cause.fingerprint = match root {
        Root::Failure(failure) => Some(failure.fingerprint.fingerprint()),
        Root::StandIn(symptom) => {
            let message = symptom.text.get(symptom.message_at as usize..).unwrap_or(&symptom.text);
            Some(Fingerprint::new(&rules.rule(symptom.rule).id, message, []))
        }
        Root::Cause(..) | Root::Elsewhere(..) => None,
    };
    cause
}

/// A root cause whose category no rule named takes the one its decisive
/// line's words point to, when they point clearly (`rules::wording`): at
/// low confidence, never identified (exit 3), and saying which words
/// decided. That is a failure no rule matched, or a fate line that says
/// only that something ended; a rule that knows its line and left the
/// category `unknown` (a Rust panic, vLLM's dead engine) meant it. A
/// traceback cut before its exception line has no decisive line.
fn with_inferred_category(rules: &RuleSet, root: &Root<'_>, mut cause: RootCause) -> RootCause {
    let worded = match root {
        Root::Failure(failure) => !failure.headless,
        // An exit status was read for what it says (139 a segfault, 137 a
        // kill); its other words only name what exited (`Service Frigate
        // exited with code 1`).
        Root::StandIn(symptom) => {
            rules.rule(symptom.rule).role == Role::Fate && rules.rule(symptom.rule).id != "fate.exit-status"
        }
        Root::Cause(..) | Root::Elsewhere(..) => false,
    };
    if !worded || cause.category != Category::Unknown {
        return cause;
    }
    // Its words as the program wrote them: a wrapper's (a host, a pod, a
    // service name) would weigh in otherwise.
    let words = |e: &Evidence| rules.infer_category(crate::framing::program_text(&e.text));
    let Some(inference) = cause.evidence.first().and_then(words) else {
        return cause;
    };
    cause.category = inference.category;
    cause.confidence = Confidence::Low;
    cause.inferred = Some(Inferred {
        words: inference.words,
        score: Hundredths((inference.score * 100.0).floor().clamp(0.0, 100.0) as u8),
    });
    cause
}

const UNRECOGNISED_HINT: &str =
    "No rule recognises this failure. Read the evidence lines (the first exception of a chain is \
the root); if it is a known problem, add a rule for it (rules/README.md).";

/// Vitals with line numbers of the run's source file instead of the
/// stream (they differ after a rotated file).
fn in_source_lines(places: Places<'_>, mut vitals: crate::vitals::Vitals) -> crate::vitals::Vitals {
    vitals.active.first_line = places.locate(vitals.active.first_line).1;
    vitals.active.last_line = places.locate(vitals.active.last_line).1;
    for point in &mut vitals.series {
        point.line = places.locate(point.line).1;
    }
    vitals
}

/// Evidence for stream line `line`, named by its own file and number.
pub(super) fn evidence_at(places: Places<'_>, line: u64, kept: &EvidenceLine) -> Evidence {
    let (source, number) = places.locate(line);
    Evidence { source: source.to_string(), line: number, text: kept.text.clone(), cut_bytes: kept.cut }
}

fn evidence_of(f: &Finding) -> EvidenceLine {
    EvidenceLine { line: f.line, text: f.text.clone(), cut: f.cut }
}

/// What to do about a finding: its rule's hint, or for a fate line that
/// gives none, the hint for the category its ending names.
fn hint_of(rules: &RuleSet, f: &Finding) -> Option<String> {
    let rule = rules.rule(f.rule);
    if let Some(filled) = &f.hint {
        return Some(filled.clone());
    }
    match (&rule.hint, rule.role) {
        (Some(hint), _) => Some(hint.clone()),
        (None, Role::Fate) => Some(fate::hint(category_of(f)).to_string()),
        (None, _) => None,
    }
}

fn category_of(f: &Finding) -> Category {
    f.category.unwrap_or(Category::Unknown)
}

fn benign_why(rules: &RuleSet, f: &Finding) -> String {
    let why = rules.rule(f.rule).why.clone().unwrap_or_default();
    match f.silenced {
        Some(other) => format!("{why} (not {})", rules.rule(other).id),
        None => why,
    }
}

/// The earliest cause among active findings: the earliest cause, or confirm
/// whose symptom is present; with the confirmed symptom, if any.
fn select_cause<'f>(
    rules: &RuleSet,
    run: &RunState,
    active: &[&'f Finding],
) -> Option<(&'f Finding, Option<&'f Finding>)> {
    let mut candidates: Vec<(&Finding, Option<&Finding>)> = Vec::new();
    for f in active {
        match f.role {
            Role::Cause => candidates.push((*f, None)),
            Role::Confirm => {
                let confirms = &rules.rule(f.rule).confirms;
                // A memory kill record confirms any SIGKILL the log names,
                // in the catalogue's words or a supervisor's.
                let kill =
                    |s: &Finding| f.category == Some(OOM_KILL) && s.category == Some(UNATTRIBUTED_KILL);
                let confirmed = active
                    .iter()
                    .find(|s| (confirms.contains(&s.rule) || kill(s)) && same_process(run, s, f));
                if let Some(symptom) = confirmed {
                    candidates.push((*f, Some(*symptom)));
                }
            }
            _ => {}
        }
    }
    // A kill record about a process that is not one of this run's (another
    // service in the same journal) is the root cause only if nothing else is.
    let owned = |f: &Finding| run.owns_pid(f.pid);
    let pool: Vec<_> = if candidates.iter().any(|(f, _)| owned(f)) {
        candidates.into_iter().filter(|(f, _)| owned(f)).collect()
    } else {
        candidates
    };
    // A `systemctl status` summary says how the unit ended; a cause logged
    // in the journal says why.
    // A warning names a cause only when nothing else does. Hitting the
    // start limit is the cause only when nothing else explains the
    // failed starts, not even the status block's exit status.
    let loop_only = |f: &Finding| f.category == Some(Category::StartLimitHit);
    pool.into_iter()
        .min_by_key(|(f, _)| (loop_only(f), f.summary, f.warning, f.line, -rules.rule(f.rule).priority))
}

/// Do a symptom and the record that would confirm it concern the same
/// process? Yes when both name it and agree, or when the record names one
/// of the run's processes and the symptom names none.
fn same_process(run: &RunState, symptom: &Finding, record: &Finding) -> bool {
    match (symptom.pid, record.pid) {
        (Some(a), Some(b)) => a == b,
        (None, record_pid) => run.owns_pid(record_pid),
        (Some(_), None) => true,
    }
}

fn symptom(rules: &RuleSet, places: Places<'_>, f: &Finding, explained_by: &str) -> Symptom {
    let rule = rules.rule(f.rule);
    let why = match (&rule.why, rule.role) {
        (Some(why), _) => format!("{why}; explained by {explained_by}"),
        (None, Role::Cause) => format!("a later failure; explained by {explained_by}"),
        (None, _) => format!("explained by {explained_by}"),
    };
    let (source, line) = places.locate(f.line);
    Symptom {
        rule: rule.id.clone(),
        source: source.to_string(),
        category: category_of(f),
        line,
        text: f.text.clone(),
        cut_bytes: f.cut,
        why,
    }
}

fn benign(rules: &RuleSet, places: Places<'_>, f: &Finding, why: String) -> Benign {
    let (source, line) = places.locate(f.line);
    Benign {
        rule: rules.rule(f.rule).id.clone(),
        source: source.to_string(),
        line,
        text: f.text.clone(),
        cut_bytes: f.cut,
        why,
    }
}

/// A failure no rule names that did not end the run, as a benign line:
/// its decisive line and why.
fn failure_benign(places: Places<'_>, f: &Failure, why: String) -> Benign {
    // A traceback cut before any frame has no evidence line: its title
    // says what it is.
    let (at, text, cut) = match f.evidence.first() {
        Some(decisive) => (decisive.line, decisive.text.clone(), decisive.cut),
        None => (f.first_line, f.title.clone(), 0),
    };
    let (source, line) = places.locate(at);
    Benign { rule: UNRECOGNISED.to_string(), source: source.to_string(), line, text, cut_bytes: cut, why }
}

/// The rule id of a benign line that no rule names (a failure the run
/// outlived).
const UNRECOGNISED: &str = "unrecognised";

fn cut_notice(places: Places<'_>, cut: &super::run::CutTraceback) -> String {
    let (source, first) = places.locate(cut.first_line);
    let last = places.locate(cut.last_line).1;
    format!(
        "the input ends inside a traceback (lines {first}–{last}) before its exception line: the error itself is missing. {}",
        fetch_more(source, last, cut)
    )
}

fn cut_hint(cut: &super::run::CutTraceback) -> String {
    let suspect = match &cut.innermost {
        Some(place) => {
            // Below site-packages the place starts with the package; outside
            // it (the user's own script) the place is the whole path.
            let whole_path = place.starts_with('/') || place.contains('\\');
            let suspect = match whole_path {
                true => place.rsplit(['/', '\\']).next().and_then(|f| f.split(':').next()).unwrap_or(place),
                false => place.split('/').next().unwrap_or(place),
            };
            format!("Suspect: {suspect} (the innermost frame seen is {place}). ")
        }
        None => String::new(),
    };
    format!("{suspect}The exception line that names the error is missing: fetch more of the log (see the notice).")
}

fn fetch_more(source: &str, last_line: u64, cut: &super::run::CutTraceback) -> String {
    match (cut.pid, cut.identifier.as_deref()) {
        (Some(pid), Some(_)) => format!(
            "Fetch the lines that follow from the journal: `journalctl _PID={pid} --no-pager | grep -A 80 Traceback`, or rerun your `journalctl … | tail` with a larger -n."
        ),
        _ if source == "-" => "Feed logdiag more of the log: the lines after the last one it read.".to_string(),
        _ => format!(
            "Read the lines after line {last_line} of {source} (the file may have been cut or is still being written)."
        ),
    }
}
