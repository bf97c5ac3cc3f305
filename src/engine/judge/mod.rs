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
    Benign, Diagnosis, Hang, InputSummary, Outcome, Recurring, RootCause, Run, Symptom, Verdict, Work, SCHEMA,
};
use super::health;
use super::launches;
use super::place::{evidence_at, Places};
use super::run::{EvidenceLine, Failure, Finding, RunState};
use super::{JudgeOptions, SourceState};
use crate::notice::Notice;
use crate::rules::{fate, Category, Role, RuleSet};
use root::{choose_root, loose_failures, root_cause, Root};
use standing::{
    answered_why, set_aside_warnings, standing, unsurvived_failures, went_on_why, Standing,
    CAUGHT_AND_ANNOUNCED,
};

mod root;
mod standing;

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
            notices.push(Notice::RunsNotKept { count: dropped });
        }
        if source.units.dropped_units > 0 {
            let count = source.units.dropped_units;
            notices.push(Notice::UnitsNotKept { count, kept: super::units::MAX_UNITS });
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
            notices: notices.iter().map(Notice::to_string).collect(),
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
                    let oom = finding.category.is_some_and(Category::confirms_a_kill);
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

fn judge_run(rules: &RuleSet, setting: &Setting<'_>, run: &RunState) -> Run {
    let places = setting.places;
    let mut result = unjudged(setting, run);
    if let Some(cut) = &run.cut_traceback {
        result.notices.push(cut_notice(places, cut).to_string());
    }

    // A hang then a stop (the operator's, systemd's stop timeout and its
    // SIGKILL) is a hang.
    let hang = health::hang(places, run, setting.hang_after);
    let Standings { active, outlived_causes, set_aside } =
        sort_by_standing(rules, places, run, hang.is_some(), &mut result.benign);

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

    match root {
        Some(root) => crashed(rules, setting, run, &root, &active, result),
        None => {
            // A death the run outlived (a child's, a runner's) did not end it.
            let outlived_its_end = run.last_terminal.is_some_and(|t| set_aside.contains(&t));
            did_not_crash(rules, places, run, (hang, outlived_its_end), &active, result)
        }
    }
}

/// The report of a run before it is judged: where it is, its unit, phase,
/// readiness, work and vitals.
fn unjudged(setting: &Setting<'_>, run: &RunState) -> Run {
    let places = setting.places;
    let (source, first) = places.locate(run.first_line);
    let (last_source, last) = places.locate(run.last_line);
    // In a file read bottom-up the run's first line is below its last.
    let (first_line, last_line) =
        if source == last_source && first > last { (last, first) } else { (first, last) };
    Run {
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
        launch_args: run.args.clone(),
    }
}

/// The findings of a run sorted by where they stand.
struct Standings<'r> {
    /// Those that count.
    active: Vec<&'r Finding>,
    /// Named causes whose writer went on (without progress) after them.
    outlived_causes: Vec<&'r Finding>,
    /// The lines of the findings the run outlived or that harm nothing.
    set_aside: Vec<u64>,
}

/// Sorts the run's findings by where they stand ([`standing`]); those
/// that do not count are added to `benign`, with why. `hung`: the run
/// hung (see [`standing`]).
fn sort_by_standing<'r>(
    rules: &RuleSet,
    places: Places<'_>,
    run: &'r RunState,
    hung: bool,
    benign: &mut Vec<Benign>,
) -> Standings<'r> {
    let mut sorted = Standings { active: Vec::new(), outlived_causes: Vec::new(), set_aside: Vec::new() };
    for f in &run.findings {
        let why = if f.role == Role::Benign {
            benign_why(rules, f)
        } else {
            match standing(rules, run, f, hung) {
                Standing::Active => {
                    sorted.active.push(f);
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
                        sorted.outlived_causes.push(f);
                    }
                    went_on_why(places, line)
                }
                Standing::Answered(line) => answered_why(places, line),
                Standing::CaughtAndAnnounced => CAUGHT_AND_ANNOUNCED.to_string(),
            }
        };
        sorted.set_aside.push(f.line);
        benign.push(self::benign(rules, places, f, why));
    }
    sorted
}

/// The report of a run that did not crash: its quiet outcome, or hung
/// (`hang`); what an operator stop brought is benign.
/// `outlived_its_end`: see [`quiet_outcome`].
fn did_not_crash(
    rules: &RuleSet,
    places: Places<'_>,
    run: &RunState,
    (hang, outlived_its_end): (Option<Hang>, bool),
    active: &[&Finding],
    mut result: Run,
) -> Run {
    result.outcome = quiet_outcome(run, outlived_its_end);
    if let Some(hang) = hang {
        result.outcome = Outcome::Hung;
        result.hang = Some(hang);
    }
    if let Some(stop) = run.stop_line {
        for f in active {
            let why = format!("a consequence of the orderly stop seen at {}", places.cite(stop));
            result.benign.push(benign(rules, places, f, why));
        }
    }
    result.benign.sort_by_key(|b| b.line);
    result
}

/// The report of a run that crashed of `root`: its root cause, and the
/// other active findings as symptoms pointing at it.
fn crashed(
    rules: &RuleSet,
    setting: &Setting<'_>,
    run: &RunState,
    root: &Root<'_>,
    active: &[&Finding],
    mut result: Run,
) -> Run {
    let places = setting.places;
    let (cause, shown) = root_cause(rules, run, places, root, active);
    let label = match root {
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
    if let (None, Root::Cause(f, _) | Root::StandIn(f)) = (setting.unit, root) {
        if let Some(unit) = &f.unit {
            result.unit = Some(unit.clone());
        }
    }
    result.root_cause = Some(cause);
    result.outcome = Outcome::Crash;
    result
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

fn cut_notice(places: Places<'_>, cut: &super::run::CutTraceback) -> Notice {
    let (source, first) = places.locate(cut.first_line);
    let last = places.locate(cut.last_line).1;
    // A journal names the writer: its next lines can be fetched by pid.
    let pid = cut.pid.filter(|_| cut.identifier.is_some());
    Notice::TracebackCut { source: source.to_string(), first, last, pid }
}
