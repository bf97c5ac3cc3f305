//! What one event contributes to its run: the findings its rules' matches
//! make (benign lines silence the other rules on their lines, one cause
//! chosen by priority, each symptom, confirmation and benign rule once),
//! and for a traceback or dump no rule explains, the unrecognised failure
//! of the `unknown` fallback.

use super::announcement::{Announcement, Announcer};
use super::handling::Handling;
use super::run::{EvidenceLine, Finding, RunState};
use super::unrecognised::{cut_traceback_of, failure_of};
use super::{liveness, run, subject};
use crate::events::{Event, EventKind, LineRole};
use crate::framing::Format;
use crate::rules::{Category, LineMatch, Role, RuleSet};

/// What the engine knows of an event beside its matches: who wrote it,
/// and what announced it.
pub(super) struct Said {
    /// Its writer ([`super::writer::Writer::key`]).
    pub writer: u64,
    /// The error record a line or two above it that announced it (see
    /// [`super::announcement::ErrorRecord`]).
    pub announcer: Option<Announcer>,
    /// A harmless announcement of the same writer came right before it.
    pub announced_apart: bool,
    /// It is a record at a fatal level.
    pub fatal_record: bool,
}

/// Adds to `run` what `event` contributes: its findings, and its
/// unrecognised failure when no rule explains it. `matches` are the
/// event's matches (a fate line within a failure is taken out of them).
/// Returns the harmless announcement it makes for the traceback that may
/// follow, if any.
pub(super) fn contribute(
    rules: &RuleSet,
    event: &Event,
    matches: &mut Vec<LineMatch>,
    run: &mut RunState,
    said: Said,
) -> Option<Announcement> {
    let handling = Handling::of(event, said.announcer.as_ref().is_some_and(|a| a.caught));
    let fate_within = take_fate_within(rules, event, matches);
    let matches = &matches[..];
    let silences = Silences::of(matches);
    let writer = outlivable_writer(event, said.writer);
    let best_cause = best_cause(rules, event, matches, &silences);
    if let Some(m) = best_cause {
        run.add_finding(finding(rules, event, m, None, writer, handling), terminal(rules, m));
    }
    // systemd saying the unit's process ended: no later line of the
    // run can be that process's progress.
    let from_systemd = event.identifier() == Some("systemd");
    if from_systemd && matches.iter().any(|m| terminal(rules, m) && !silences.silenced(m)) {
        run.note_unit_exit(event.first_line());
    }
    add_other_findings(rules, event, matches, &silences, (writer, handling), run);

    let announced = said.announced_apart && writer.is_some();
    let announcement = harmless_announcement(event, matches, writer);
    // A traceback or dump no rule explains is an unrecognised failure
    // (the `unknown` fallback). One whose exception line a benign or
    // symptom rule matched is recognised: harmless, or a consequence.
    let recognised = best_cause.is_some() || announced || is_recognised(event, matches, &silences);
    // A record at a fatal level (`FATAL`, zerolog's `FTL`, glog's `F`)
    // says its program gives up, by the logging convention.
    let failing = matches!(event.kind, EventKind::Traceback | EventKind::FaultDump) || said.fatal_record;
    if failing && !recognised {
        let announcer = said.announcer.map(|a| a.said);
        run.add_failure(failure_of(event, writer, fate_within, handling, announcer));
    }
    if event.kind == EventKind::Traceback && event.cut_by_end {
        run.cut_traceback = Some(cut_traceback_of(event));
    }
    announcement
}

/// Takes out of `matches` a fate line inside a traceback (a child killed
/// by a signal, a task killed for memory): it tells what the writer's
/// failure was; the traceback stays the writer's, which it may outlive.
/// So does one that opens a native dump (`Failed to initialize executor
/// on rank 0: … Assertion failed` over numbered frames). Returns its
/// category and whether it names a cause by itself.
fn take_fate_within(
    rules: &RuleSet,
    event: &Event,
    matches: &mut Vec<LineMatch>,
) -> Option<(Category, bool)> {
    let within_failure = |m: &LineMatch| {
        let place = match event.kind {
            EventKind::Traceback => {
                matches!(event.lines[m.line].role, LineRole::Exception | LineRole::ExceptionText)
            }
            EventKind::FaultDump => m.line == 0,
            _ => false,
        };
        place && rules.rule(m.rule).role == Role::Fate
    };
    let fate_within = matches
        .iter()
        .find(|m| within_failure(m))
        .map(|m| (m.category.unwrap_or(Category::Unknown), m.role == Role::Cause));
    if fate_within.is_some() {
        matches.retain(|m| !within_failure(m));
    }
    fate_within
}

/// Benign rules silence the other rules on the lines they match.
struct Silences {
    /// The lines a benign rule matched.
    benign_lines: Vec<usize>,
}

impl Silences {
    fn of(matches: &[LineMatch]) -> Self {
        Silences { benign_lines: matches.iter().filter(|m| m.role == Role::Benign).map(|m| m.line).collect() }
    }

    /// Is `m` a match of another rule on a line a benign rule matched?
    fn silenced(&self, m: &LineMatch) -> bool {
        m.role != Role::Benign && self.benign_lines.contains(&m.line)
    }
}

/// A match on the exception line speaks for a rule better than one on
/// the `raise …` source line above it.
fn on_exception(event: &Event, m: &LineMatch) -> bool {
    event.lines[m.line].role == LineRole::Exception
}

/// The cause the event names: of the cause matches no benign rule
/// silenced, the one of the highest priority (on the exception line, then
/// the earliest, when priorities tie).
fn best_cause<'m>(
    rules: &RuleSet,
    event: &Event,
    matches: &'m [LineMatch],
    silences: &Silences,
) -> Option<&'m LineMatch> {
    matches
        .iter()
        .filter(|m| m.role == Role::Cause && !silences.silenced(m))
        .max_by_key(|m| (rules.rule(m.rule).priority, on_exception(event, m), std::cmp::Reverse(m.line)))
}

/// The writer (`key`) whose going on would outlive the event's errors,
/// unless the kernel or a service manager wrote it: they write about
/// other processes, and their going on says nothing of the process that
/// failed.
fn outlivable_writer(event: &Event, key: u64) -> Option<u64> {
    let opening = &event.lines[0];
    let from_kernel = opening.formats.contains(Format::Dmesg) || opening.formats.contains(Format::DmesgCtime);
    (!subject::is_manager(event.identifier()) && !from_kernel).then_some(key)
}

/// Adds a finding for each symptom, confirm and benign rule that matched
/// (once per rule: its match on the exception line, else its first), and
/// says which rule a benign match silenced.
fn add_other_findings(
    rules: &RuleSet,
    event: &Event,
    matches: &[LineMatch],
    silences: &Silences,
    (writer, handling): (Option<u64>, Handling),
    run: &mut RunState,
) {
    let silenced = |m: &LineMatch| silences.silenced(m);
    let mut seen_rules: Vec<usize> = Vec::new();
    for first in matches {
        let wanted = match first.role {
            Role::Symptom | Role::Confirm => !silenced(first),
            Role::Benign => true,
            Role::Cause | Role::Marker | Role::Fate => false,
        };
        if !wanted || seen_rules.contains(&first.rule) {
            continue;
        }
        seen_rules.push(first.rule);
        let m = matches
            .iter()
            .filter(|o| o.rule == first.rule && (o.role == Role::Benign || !silenced(o)))
            .min_by_key(|o| (!on_exception(event, o), o.line))
            .unwrap_or(first);
        let silenced_rule = (m.role == Role::Benign)
            .then(|| matches.iter().find(|o| o.line == m.line && silenced(o)).map(|o| o.rule))
            .flatten();
        run.add_finding(finding(rules, event, m, silenced_rule, writer, handling), terminal(rules, m));
    }
}

/// The announcement a record makes whose opening line a benign rule
/// matched (`Exception occurred during processing of request from …`):
/// for the traceback of the same writer that may follow it.
fn harmless_announcement(event: &Event, matches: &[LineMatch], writer: Option<u64>) -> Option<Announcement> {
    match (event.kind, writer) {
        (EventKind::Record, Some(who)) if matches.iter().any(|m| m.line == 0 && m.role == Role::Benign) => {
            Some(Announcement::new(who))
        }
        _ => None,
    }
}

/// Does a benign or symptom rule's match recognise the event's failure
/// (the cause and a harmless announcement aside)?
fn is_recognised(event: &Event, matches: &[LineMatch], silences: &Silences) -> bool {
    let silenced = |m: &LineMatch| silences.silenced(m);
    matches.iter().any(|m| {
        let role = m.role;
        // A benign announcement (`Error in preprocessing prompt
        // inputs`: one request failed) covers its traceback too.
        // A symptom on the record that opened a traceback cut before
        // its exception line (`failed (exitcode: -9)` over
        // ChildFailedError's frames) says what the traceback was.
        let announces = m.line == 0
            && (role == Role::Benign
                || (role == Role::Symptom && !silenced(m) && event.exception_lines().next().is_none()));
        // A rule for a Rust panic's first line knows the panic.
        let names_panic = m.line == 0 && role == Role::Symptom && !silenced(m) && is_panic(event);
        announces
            || names_panic
            || (on_exception(event, m) && (role == Role::Benign || (role == Role::Symptom && !silenced(m))))
    })
}

/// Builds a finding for match `m`, with supporting lines from its event:
/// for a traceback, the exception line, the innermost frame and the line
/// that announced the traceback.
fn finding(
    rules: &RuleSet,
    event: &Event,
    m: &LineMatch,
    silenced: Option<usize>,
    writer_key: Option<u64>,
    handling: Handling,
) -> Finding {
    let rule = rules.rule(m.rule);
    let line = &event.lines[m.line];
    let mut evidence = vec![EvidenceLine::of(line)];
    let explains_failure = matches!(m.role, Role::Cause | Role::Confirm);
    if event.kind == EventKind::Traceback && explains_failure {
        let before = &event.lines[..m.line];
        if line.role == LineRole::ExceptionText {
            if let Some(exception) = before.iter().rev().find(|l| l.role == LineRole::Exception) {
                evidence.push(EvidenceLine::of(exception));
            }
        }
        let mut frames = before.iter().rev().filter(|l| l.role == LineRole::Frame);
        if let Some(innermost) = frames.next() {
            evidence.push(EvidenceLine::of(innermost));
            // Below a standard-library frame (subprocess.run…), the frame of
            // the code that called it says more.
            if is_stdlib_frame(innermost.message()) {
                if let Some(caller) = frames.find(|l| !is_stdlib_frame(l.message())) {
                    evidence.push(EvidenceLine::of(caller));
                }
            }
        }
    }
    if is_panic(event) && m.line == 0 && m.role != Role::Benign {
        // A Rust panic's message is on the line after `panicked at …:`.
        evidence.extend(event.lines.iter().find(|l| l.role == LineRole::ExceptionText).map(EvidenceLine::of));
    }
    if explains_failure && m.line > 0 {
        // The line that opened the event: a traceback's announcement, or the
        // first line of a message that continues on indented lines.
        let first = &event.lines[0];
        if matches!(first.role, LineRole::TracebackHeader | LineRole::Text) && first.number != line.number {
            evidence.push(EvidenceLine::of(first));
        }
    }
    let capture = |wanted: &str| m.captures.iter().find(|(name, _)| name == wanted).map(|(_, v)| v.as_str());
    let writer = event.stream.pid.filter(|_| !subject::is_manager(event.identifier()));
    let pid = capture("pid").and_then(|v| v.parse().ok()).or(writer);
    let unit = capture("unit").map(str::to_string).or_else(|| match subject::subject_of(event) {
        Some(subject::Subject::Unit(unit)) => Some(unit),
        _ => None,
    });
    Finding {
        rule: m.rule,
        role: m.role,
        category: m.category,
        line: line.number,
        ordinal: line.ordinal,
        text: evidence[0].text.clone(),
        cut: evidence[0].cut,
        message_at: line.message_span.0,
        key: run::message_hash(line.message()),
        event_last: event.last_line(),
        event_last_ordinal: event.last_ordinal(),
        title: run::excerpt(&rule.render_title(&m.captures)).0,
        hint: rule.render_hint(&m.captures),
        evidence,
        pid,
        unit,
        count: 1,
        silenced,
        summary: line.formats.contains(Format::SystemctlStatus) || rule.summary,
        caught: handling.caught,
        announced: handling.announced,
        answered_after: None,
        // An error its writer may outlive; a death is not outlived.
        writer: writer_key.filter(|_| matches!(m.role, Role::Cause | Role::Symptom) && !terminal(rules, m)),
        outlived: None,
        // A line that reports a death (its own process's or a peer's) is a
        // fate, whatever its level.
        warning: !terminal(rules, m)
            && !m.category.is_some_and(Category::reports_a_death)
            && (liveness::is_warning(line.level, line.message()) || handling.retried),
    }
}

/// Whether a match records a death: its rule says so, or it is a fate
/// line (a clean end is never a match).
fn terminal(rules: &RuleSet, m: &LineMatch) -> bool {
    let rule = rules.rule(m.rule);
    rule.terminal || rule.role == Role::Fate
}

/// Whether the event is a Rust panic (a dump opened by `panicked at`).
fn is_panic(event: &Event) -> bool {
    event.kind == EventKind::FaultDump
        && crate::events::traceback::panic_header(event.lines[0].message()).is_some()
}

/// A frame in Python's standard library (`/usr/lib/python3.12/subprocess.py`).
fn is_stdlib_frame(message: &str) -> bool {
    let Some(frame) = crate::events::traceback::parse_frame(message.trim()) else {
        return false;
    };
    let file = frame.file;
    file.contains("/lib/python3") && !file.contains("-packages/")
}
