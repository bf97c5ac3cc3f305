//! The engine: events in, diagnosis out. Pure and incremental.
//!
//! [`Engine::feed`] takes events one at a time (in input order, as the
//! [`crate::events::Grouper`] hands them out), matches the rules, splits the
//! input into runs at start markers and boot boundaries, and keeps bounded
//! state per run ([`run::RunState`]), its progress lines in a
//! [`crate::vitals::Recorder`]. [`Engine::diagnose`] can be called at any
//! time and judges every run ([`judge`]): outcome, root cause, symptoms,
//! benign lines, confidence; and by its vitals ([`health`]): a hang, a
//! collapse against the runs before it.

pub mod diagnosis;
mod ellipsized;
pub mod fingerprint;
mod health;
mod int_map;
mod judge;
mod launches;
mod liveness;
mod place;
use crate::input::Reversal;
pub use units::UnitFilter;

mod run;
mod subject;
mod units;

use crate::events::{Event, EventKind, EventLine, LineAt, LineRole};
use crate::framing::{Format, FormatSet, Level, Record, Separator};
use crate::rules::{Category, LineMatch, MarkerKind, MatchScratch, Role, RuleSet, Stage};
use crate::vitals::{self, args, progress};

pub use diagnosis::Diagnosis;
use run::{CutTraceback, EvidenceLine, Failure, Finding, RunState, Writer};

/// How to judge.
#[derive(Debug, Clone)]
pub struct JudgeOptions {
    /// Judge only this many of the latest runs of each unit of each source
    /// (`--last` is 1); all when `None`.
    pub latest: Option<usize>,
    /// Judge only the units these patterns name (`--unit`); all when empty.
    pub units: UnitFilter,
    /// Every launch decides the verdict, not only each unit's current one
    /// (`--any-launch`): a crash anywhere in the log is a crash.
    pub any_launch: bool,
    /// A run is degraded when it keeps less than this share of an earlier
    /// run's generation speed per request (`--degraded-below`).
    pub degraded_below: f64,
    /// A run is hung when its last progress line showed work pending and
    /// its lines went on this many seconds without progress (`--hang-after`).
    pub hang_after_seconds: f64,
}

/// The default of `--degraded-below`.
pub const DEGRADED_BELOW: f64 = 0.5;
/// The default of `--hang-after`, in seconds.
pub const HANG_AFTER_SECONDS: f64 = 600.0;

impl Default for JudgeOptions {
    fn default() -> Self {
        JudgeOptions {
            latest: None,
            units: UnitFilter::default(),
            any_launch: false,
            degraded_below: DEGRADED_BELOW,
            hang_after_seconds: HANG_AFTER_SECONDS,
        }
    }
}

#[derive(Clone)]
struct SourceState {
    name: String,
    /// The files the source was read from (one unless rotated files were
    /// joined), in reading order.
    parts: Vec<place::Part>,
    lines: u64,
    formats: FormatSet,
    notices: Vec<String>,
    /// The units its lines belong to, with their runs.
    units: units::Units,
    /// Lines after this one start a new run (see [`Engine::launch_after`]).
    launch_after: Option<u64>,
    /// Its lines that end in `…`, to tell whether a terminal cut them.
    ellipsized: ellipsized::Ellipsized,
}

/// Reads events, remembers what matters, judges on demand.
pub struct Engine<'r> {
    rules: &'r RuleSet,
    sources: Vec<SourceState>,
    matches: Vec<LineMatch>,
    scratch: MatchScratch,
    /// The event [`Engine::feed_record`] makes when it needs one, kept for
    /// its buffers.
    record_event: Option<Box<Event>>,
    /// The latest harmless announcement, for the traceback that may
    /// follow it.
    announcement: Option<Announcement>,
    /// The latest error record, for a traceback that follows it after a
    /// line or two of its message (see [`ErrorRecord`]).
    error_record: Option<ErrorRecord>,
}

/// A record that may announce the traceback of its writer that follows
/// it, and how many lines that writer wrote since. Nearness is counted in
/// the writer's own lines, not in lines of the input: a structured journal
/// spreads one line over many, and other writers' lines between do not
/// part the two.
#[derive(Debug, Clone, Copy)]
struct Announcement {
    writer: u64,
    lines_since: u64,
}

impl Announcement {
    fn new(writer: u64) -> Self {
        Announcement { writer, lines_since: 0 }
    }

    /// Counts the lines of an event (or record) of `writer` read after it.
    fn count(&mut self, writer: u64, lines: usize) {
        if writer == self.writer {
            self.lines_since += lines as u64;
        }
    }

    /// Whether a traceback of `writer` opening now follows it with at most
    /// `gap` of the writer's lines between.
    fn within(&self, writer: u64, gap: u64) -> bool {
        writer == self.writer && self.lines_since <= gap
    }
}

/// An error record that may announce the traceback after it although the
/// two are not one event: the record's message went on for a line or two
/// without a header (httpx's `… For more information check: …`), and the
/// traceback came next (`logger.exception` prints message, then
/// traceback).
#[derive(Clone)]
struct ErrorRecord {
    /// Its writer, and the writer's lines since.
    after: Announcement,
    /// Its first line: what it says the error was, when the traceback is
    /// cut before its own exception line.
    said: EvidenceLine,
    /// Its words say that what failed ends (see [`says_it_ends`]).
    says_it_ends: bool,
    /// multiprocessing's `Process NAME:` came after it: the traceback
    /// that follows is the child's end, which nothing caught.
    child_ended: bool,
}

/// What an error record a line or two above a traceback tells of it.
struct Announcer {
    /// The record's first line.
    said: EvidenceLine,
    /// Code caught the exception and logged it: the record announced it.
    caught: bool,
}

/// How many lines of message may stand between an error record and the
/// traceback it announces.
const ANNOUNCEMENT_GAP: u64 = 2;

/// How many lines of its writer may stand between a harmless announcement
/// (`Exception occurred during processing of request from …`) and the
/// traceback it announces.
const HARMLESS_ANNOUNCEMENT_GAP: u64 = 1;

/// Tells whether `event`, a traceback opened by its header, is announced
/// by an error record a line or two above it, of the same writer (see
/// [`ErrorRecord`]), and remembers what the event leaves for the next one.
/// Returns the announcing record's first line.
fn note_error_record(
    latest: &mut Option<ErrorRecord>,
    event: &Event,
    writer: u64,
    announcing: bool,
) -> Option<Announcer> {
    let opening = &event.lines[0];
    let announced = (event.kind == EventKind::Traceback && opening.role == LineRole::TracebackHeader)
        .then_some(latest.as_ref())
        .flatten()
        .filter(|record| record.after.within(writer, ANNOUNCEMENT_GAP) && !record.says_it_ends)
        .map(|record| Announcer { said: record.said.clone(), caught: !record.child_ended });
    match event.kind {
        // A handler's announcement of an error it caught, at whatever level.
        EventKind::Record if announcing => {
            let said = evidence_line(opening);
            *latest = Some(ErrorRecord {
                after: Announcement::new(writer),
                said,
                says_it_ends: false,
                child_ended: false,
            })
        }
        EventKind::Record => note_record(
            latest,
            opening.level,
            opening.message(),
            (opening.number, &opening.text),
            event.lines.len(),
            || writer,
        ),
        _ => *latest = None,
    }
    announced
}

/// Remembers a record of the stream for the traceback that may follow it:
/// an error record is the latest; a line at no level may be more of its
/// message; any other record ends it. The record is `lines` long.
/// `writer` is asked for only when the record is an error's or may follow
/// one.
fn note_record(
    latest: &mut Option<ErrorRecord>,
    level: Option<Level>,
    message: &str,
    (first_line, text): (u64, &str),
    lines: usize,
    writer: impl FnOnce() -> u64,
) {
    match level {
        Some(level) if level.is_trouble() => {
            *latest = Some(ErrorRecord {
                after: Announcement::new(writer()),
                said: EvidenceLine::new(first_line, text),
                says_it_ends: says_it_ends(message),
                child_ended: false,
            })
        }
        Some(_) => *latest = None,
        None => {
            if let Some(record) = latest.as_mut() {
                record.after.count(writer(), lines);
                record.child_ended |= is_child_process_end(message);
                // Too far to announce anything: forgotten, so that later
                // lines do not each ask for their writer.
                if record.after.lines_since > ANNOUNCEMENT_GAP {
                    *latest = None;
                }
            }
        }
    }
}

/// multiprocessing's line before the traceback of a child process's
/// target that raised (`Process detector:tensorrt:`, `Process
/// SpawnProcess-1:`): the child ends with it.
fn is_child_process_end(message: &str) -> bool {
    message
        .strip_prefix("Process ")
        .and_then(|rest| rest.strip_suffix(':'))
        .is_some_and(|name| !name.is_empty() && !name.contains(' '))
}

impl<'r> Engine<'r> {
    /// An engine using `rules`.
    pub fn new(rules: &'r RuleSet) -> Self {
        Engine {
            rules,
            sources: Vec::new(),
            matches: Vec::new(),
            scratch: MatchScratch::default(),
            record_event: None,
            announcement: None,
            error_record: None,
        }
    }

    /// Adds the sources another engine read, after this one's (sources
    /// read in parallel are joined back in their order this way).
    pub fn append(&mut self, other: Engine<'r>) {
        self.sources.extend(other.sources);
    }

    /// Gives back the memory used only while reading (the matcher's
    /// scratch space, a few hundred KiB): what was read is kept, and more
    /// can still be read. A source read in parallel with others waits for
    /// them this way, holding only what it found.
    pub fn done_reading(&mut self) {
        self.matches = Vec::new();
        self.scratch = MatchScratch::default();
        self.record_event = None;
    }

    /// Starts a new source; following events belong to it.
    pub fn begin_source(&mut self, name: &str) {
        self.sources.push(SourceState {
            name: name.to_string(),
            parts: vec![place::Part { name: name.to_string(), first_line: 1, reversed: None }],
            lines: 0,
            formats: FormatSet::default(),
            notices: Vec::new(),
            units: units::Units::default(),
            launch_after: None,
            ellipsized: ellipsized::Ellipsized::default(),
        });
    }

    /// Records a part of the current source (a rotated file) whose first
    /// line is line `first_line` of the stream (again: the later record
    /// stands). `reversed` says how it was put in time order, when it was
    /// read newest first (a
    /// newest-first journal).
    pub fn begin_part(&mut self, name: &str, first_line: u64, reversed: Option<Reversal>) {
        if let Some(source) = self.sources.last_mut() {
            let part = place::Part { name: name.to_string(), first_line, reversed };
            if first_line <= 1 {
                source.parts[0] = part;
            } else if let Some(same) = source.parts.iter_mut().find(|p| p.first_line == first_line) {
                *same = part;
            } else {
                source.parts.push(part);
            }
        }
    }

    /// Counts a line read and the formats framing saw on it.
    pub fn note_line(&mut self, number: u64, formats: FormatSet) {
        if let Some(source) = self.sources.last_mut() {
            source.lines = source.lines.max(number);
            source.formats.extend(formats);
        }
    }

    /// Says that a launch began after stream line `line` of the current
    /// source: the first event after it starts a new run, whether or not
    /// it is a start marker (`logdiag watch --after-line`, for a log that
    /// a new launch appends to).
    pub fn launch_after(&mut self, line: u64) {
        if let Some(source) = self.sources.last_mut() {
            source.launch_after = Some(line);
        }
    }

    /// Records a problem with reading the current source.
    pub fn note_input_problem(&mut self, notice: String) {
        if let Some(source) = self.sources.last_mut() {
            source.notices.push(notice);
        }
    }

    /// Feeds one event of the current source.
    pub fn feed(&mut self, event: &Event) {
        if self.sources.is_empty() {
            self.begin_source("-");
        }
        let rules = self.rules;
        let source = self.sources.last_mut().expect("a source was begun");
        match event.kind {
            EventKind::Separator(Separator::Boot) => {
                source.units.boot();
                return;
            }
            EventKind::Separator(Separator::Other) => {
                let text = event.lines.first().map_or("", |l| l.text.as_str());
                if text.trim_end().ends_with("-- No entries --") {
                    source.notices.push(
                        "journalctl found no entries: check the unit name (-u) and the time range (-b, --since)"
                            .to_string(),
                    );
                }
                return;
            }
            _ => {}
        }
        for line in &event.lines {
            source.ellipsized.note(line.number, &line.text, line.formats.contains(Format::SystemctlStatus));
        }
        let index = source.units.route(event);
        // A guess of which unit a process was proven wrong: the lines
        // held since go again, with the bindings corrected, then this one.
        if let Some(held) = source.units.take_replay() {
            for past in &held {
                self.feed(past);
            }
            self.feed(event);
            return;
        }
        source.units.hold(index, event);
        let source = self.sources.last_mut().expect("a source was begun");
        let unit = &source.units.list[index];
        let first = event.first_line();
        self.matches.clear();
        // A run needs one proof of readiness; decode lines keep offering it.
        self.scratch.skip_ready = is_ready(unit, source.launch_after, first);
        rules.match_event(event, &mut self.scratch, &mut self.matches);
        let matches = &self.matches;
        let opening = &event.lines[0];
        let writing = Writing {
            first,
            first_ordinal: event.first_ordinal(),
            last: event.last_line(),
            subject: subject::subject_of(event),
            identifier: event.identifier(),
            unit: event.unit(),
            pid: event.stream.pid,
            time: event.time(),
            text: opening.text.as_str(),
            message: opening.message(),
            message_at: opening.message_span.0 as usize,
            writer: writer_of(event),
            level: opening.level,
            plain: event.kind == EventKind::Record && matches.iter().all(|m| m.role == Role::Marker),
            record: event.kind == EventKind::Record,
            interrupted: opening.formats.contains(Format::TerminalInterrupt),
        };
        let line_of = |m: &LineMatch| (event.lines[m.line].at(), event.lines[m.line].text.as_str());
        let run = note_writing(rules, source, index, matches, &writing, line_of);
        let announcing = matches.iter().any(|m| rules.rule(m.rule).announces);
        let key = writing.writer.key();
        let announcer = note_error_record(&mut self.error_record, event, key, announcing);
        // A harmless announcement right before a traceback of the same
        // writer (`Exception occurred during processing of request from …`)
        // announces it, though the two were not grouped into one event.
        let announced_apart = event.kind == EventKind::Traceback
            && self.announcement.as_ref().is_some_and(|a| a.within(key, HARMLESS_ANNOUNCEMENT_GAP));
        if let Some(announcement) = self.announcement.as_mut() {
            announcement.count(key, event.lines.len());
        }
        // Most events are one record that at most marks progress: nothing
        // below concerns them, unless it is at a fatal level.
        let fatal_record = event.kind == EventKind::Record && opening.level == Some(Level::Fatal);
        if event.kind == EventKind::Record && !fatal_record && matches.iter().all(|m| m.role == Role::Marker)
        {
            return;
        }

        let handling = Handling::of(event, announcer.as_ref().is_some_and(|a| a.caught));
        // A fate line inside a traceback (a child killed by a signal, a
        // task killed for memory) tells what the writer's failure was; the
        // traceback stays the writer's, which it may outlive.
        // So does one that opens a native dump (`Failed to initialize
        // executor on rank 0: … Assertion failed` over numbered frames).
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
        let fate_within = self
            .matches
            .iter()
            .find(|m| within_failure(m))
            .map(|m| (m.category.unwrap_or(Category::Unknown), m.role == Role::Cause));
        if fate_within.is_some() {
            self.matches.retain(|m| !within_failure(m));
        }
        let matches = &self.matches[..];

        // Benign rules silence the other rules on the lines they match.
        let benign_lines: Vec<usize> =
            matches.iter().filter(|m| m.role == Role::Benign).map(|m| m.line).collect();
        let silenced = |m: &LineMatch| m.role != Role::Benign && benign_lines.contains(&m.line);

        // A match on the exception line speaks for a rule better than one on
        // the `raise …` source line above it.
        let on_exception = |m: &LineMatch| event.lines[m.line].role == LineRole::Exception;
        let best_cause = matches
            .iter()
            .filter(|m| m.role == Role::Cause && !silenced(m))
            .max_by_key(|m| (rules.rule(m.rule).priority, on_exception(m), std::cmp::Reverse(m.line)));
        // The kernel and service managers write about other processes:
        // their going on says nothing of the process that failed.
        let from_kernel =
            opening.formats.contains(Format::Dmesg) || opening.formats.contains(Format::DmesgCtime);
        let writer = (!subject::is_manager(writing.identifier) && !from_kernel).then(|| writing.writer.key());
        if let Some(m) = best_cause {
            run.add_finding(finding(rules, event, m, None, writer, handling), terminal(rules, m));
        }
        // systemd saying the unit's process ended: no later line of the
        // run can be that process's progress.
        let from_systemd = event.identifier() == Some("systemd");
        if from_systemd && matches.iter().any(|m| terminal(rules, m) && !silenced(m)) {
            run.note_unit_exit(event.first_line());
        }
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
                .min_by_key(|o| (!on_exception(o), o.line))
                .unwrap_or(first);
            let silenced_rule = (m.role == Role::Benign)
                .then(|| matches.iter().find(|o| o.line == m.line && silenced(o)).map(|o| o.rule))
                .flatten();
            run.add_finding(finding(rules, event, m, silenced_rule, writer, handling), terminal(rules, m));
        }

        let announced = announced_apart && writer.is_some();
        self.announcement = match (event.kind, writer) {
            (EventKind::Record, Some(who))
                if matches.iter().any(|m| m.line == 0 && m.role == Role::Benign) =>
            {
                Some(Announcement::new(who))
            }
            _ => None,
        };
        // A traceback or dump no rule explains is an unrecognised failure
        // (the `unknown` fallback). One whose exception line a benign or
        // symptom rule matched is recognised: harmless, or a consequence.
        let recognised = best_cause.is_some()
            || announced
            || matches.iter().any(|m| {
                let role = m.role;
                // A benign announcement (`Error in preprocessing prompt
                // inputs`: one request failed) covers its traceback too.
                // A symptom on the record that opened a traceback cut before
                // its exception line (`failed (exitcode: -9)` over
                // ChildFailedError's frames) says what the traceback was.
                let announces = m.line == 0
                    && (role == Role::Benign
                        || (role == Role::Symptom
                            && !silenced(m)
                            && event.exception_lines().next().is_none()));
                // A rule for a Rust panic's first line knows the panic.
                let names_panic = m.line == 0 && role == Role::Symptom && !silenced(m) && is_panic(event);
                announces
                    || names_panic
                    || (on_exception(m) && (role == Role::Benign || (role == Role::Symptom && !silenced(m))))
            });
        // A record at a fatal level (`FATAL`, zerolog's `FTL`, glog's `F`)
        // says its program gives up, by the logging convention.
        if (matches!(event.kind, EventKind::Traceback | EventKind::FaultDump) || fatal_record) && !recognised
        {
            run.add_failure(failure_of(event, writer, fate_within, handling, announcer.map(|a| a.said)));
        }
        if event.kind == EventKind::Traceback && event.cut_by_end {
            run.cut_traceback = Some(cut_traceback_of(event));
        }
    }

    /// Feeds the one-line record event of line `number` (at byte
    /// `offset`, full text `text`), given by its record: a record that
    /// marks at most progress is judged here without making an event
    /// (most lines of a serving log), any other as [`Engine::feed`] judges
    /// the event the grouper makes of it.
    pub fn feed_record(&mut self, at: LineAt, text: &str, record: &Record<'_>) {
        let number = at.number;
        let rules = self.rules;
        let by_writer = record.unit.is_none()
            && units::routes_by_writer(record.identifier)
            && !subject::is_manager(record.identifier);
        let mut routed = None;
        if let Some(source) = self.sources.last_mut().filter(|_| by_writer) {
            // Routing by writer again gives the same unit: the event made
            // below, if one is needed, is routed the same way.
            let index = source.units.route_writer(record.identifier, record.pid, number);
            // Lines a guess holds, or after one was corrected, go as events.
            let guessing = source.units.holding(index) || source.units.has_replay();
            self.matches.clear();
            self.scratch.skip_ready = is_ready(&source.units.list[index], source.launch_after, number);
            rules.match_record(record, &mut self.scratch, &mut self.matches);
            // A record at a fatal level is a failure's, even when no rule names it.
            let fatal = record.level == Some(Level::Fatal);
            if !fatal && !guessing && self.matches.iter().all(|m| m.role == Role::Marker) {
                routed = Some(index);
            }
        }
        let Some(index) = routed else {
            let mut event = self.record_event.take().unwrap_or_else(Event::empty);
            event.set_record(at, text, record);
            self.feed(&event);
            self.record_event = Some(event);
            return;
        };
        let source = self.sources.last_mut().expect("a record was routed");
        source.ellipsized.note(number, text, record.formats.contains(Format::SystemctlStatus));
        let writing = Writing {
            first: number,
            first_ordinal: at.ordinal,
            last: number,
            subject: None,
            identifier: record.identifier,
            unit: None,
            pid: record.pid,
            time: record.time,
            text,
            message: record.message,
            message_at: record.message_at,
            writer: Writer {
                host: record.host,
                identifier: record.identifier,
                pid: record.pid,
                process: record.process,
                ranks: record.ranks,
            },
            level: record.level,
            plain: true,
            record: true,
            interrupted: record.formats.contains(Format::TerminalInterrupt),
        };
        note_writing(rules, source, index, &self.matches, &writing, |_| (at, text));
        if let Some(announcement) = self.announcement.as_mut() {
            announcement.count(writing.writer.key(), 1);
            // Too far to announce the traceback: forgotten, so that later
            // lines do not each ask for their writer.
            if announcement.lines_since > HARMLESS_ANNOUNCEMENT_GAP {
                self.announcement = None;
            }
        }
        let line = (number, text);
        note_record(&mut self.error_record, record.level, record.message, line, 1, || writing.writer.key());
    }

    /// Judges what was read so far.
    pub fn diagnose(&self, options: &JudgeOptions) -> Diagnosis {
        judge::diagnose(self.rules, &self.sources, options)
    }

    /// Judges what was read so far as if `pending` events (still open:
    /// a traceback that may go on) came next and the input ended there;
    /// this engine is left as it was, to take the real events later.
    pub fn diagnose_with(&self, pending: &[Box<Event>], options: &JudgeOptions) -> Diagnosis {
        if pending.is_empty() {
            return self.diagnose(options);
        }
        let mut copy = Engine {
            rules: self.rules,
            sources: self.sources.clone(),
            matches: Vec::new(),
            scratch: MatchScratch::default(),
            record_event: None,
            announcement: self.announcement,
            error_record: self.error_record.clone(),
        };
        for event in pending {
            copy.feed(event);
        }
        copy.diagnose(options)
    }

    /// Renames the part of the current source that starts at stream line
    /// `first_line` (a followed file rotated to a new name).
    pub fn rename_part(&mut self, first_line: u64, name: &str) {
        if let Some(source) = self.sources.last_mut() {
            if let Some(part) = source.parts.iter_mut().find(|p| p.first_line == first_line.max(1)) {
                part.name = name.to_string();
            }
        }
    }
}

/// Whether the latest run of `unit` has proven it is ready and an event
/// from line `first` does not start a new one: readiness markers need not
/// be matched again.
fn is_ready(unit: &units::UnitRuns, launch_after: Option<u64>, first: u64) -> bool {
    unit.runs.last().is_some_and(|run| run.ready.is_some() && !unit.forces_new_run(launch_after, run, first))
}

crate::framing::writer_fields! {
    /// Who wrote an event, and its opening line: what a run keeps of every
    /// event.
    struct Writing<'a> {
        /// The number of the opening line.
        first: u64,
        /// Its ordinal among the lines the program wrote ([`LineAt::ordinal`]).
        first_ordinal: u64,
        last: u64,
        /// What the event is about, when systemd wrote it.
        subject: Option<subject::Subject>,
        /// The opening line's text.
        text: &'a str,
        /// The opening line's message, and where it starts in the line.
        message: &'a str,
        message_at: usize,
        /// Who wrote it.
        writer: Writer<'a>,
        /// The opening line's level.
        level: Option<Level>,
        /// A record that at most marks progress: no rule found anything wrong.
        plain: bool,
        /// A record (not a traceback or a dump).
        record: bool,
        /// The line begins with a terminal's echo of Ctrl-C.
        interrupted: bool,
    }
    writer fields [identifier, unit, pid, time]: text as Option<&'a str>, pid as Option<u32>
}

fn writer_of(event: &Event) -> Writer<'_> {
    Writer {
        host: event.host(),
        identifier: event.identifier(),
        pid: event.stream.pid,
        process: event.process(),
        ranks: event.ranks(),
    }
}

/// Records an event of unit `index` of `source` in its run (a new one if
/// the event starts one): its lines, writer and markers (`line_of` gives
/// a match's line number and text), progress and vitals; returns the run.
fn note_writing<'s, 'w>(
    rules: &RuleSet,
    source: &'s mut SourceState,
    index: usize,
    matches: &[LineMatch],
    writing: &Writing<'w>,
    line_of: impl Fn(&LineMatch) -> (LineAt, &'w str),
) -> &'s mut RunState {
    let unit = &source.units.list[index];
    let launch_after = source.launch_after;
    let first = writing.first;
    let subject = &writing.subject;
    // The run this event belongs to. A systemd start job for another
    // unit (named differently) does not start a new run of this one.
    let concerns_run = |run: Option<&RunState>| match (subject, run) {
        (Some(subject), Some(run)) => run.concerns(subject),
        _ => true,
    };
    let start_stage = matches
        .iter()
        .filter(|m| rules.rule(m.rule).marker == Some(MarkerKind::Start))
        .map(|m| rules.rule(m.rule).stage)
        .max()
        .filter(|_| concerns_run(unit.runs.last()));
    let new_run = match unit.runs.last() {
        None => true,
        Some(run) => {
            unit.forces_new_run(launch_after, run, first)
                || start_stage.is_some_and(|s| run.is_split_by_start(s))
        }
    };
    if new_run {
        source.units.start_run(index, first);
    }
    let run = source.units.list[index].runs.last_mut().expect("a run exists");
    run.last_line = run.last_line.max(writing.last);
    note_writer(run, writing, start_stage.is_some());
    // The operator pressed Ctrl-C where the program writes: an orderly
    // stop, whatever the line says.
    if writing.interrupted {
        let at = LineAt { number: writing.first, offset: 0, ordinal: writing.first_ordinal };
        run.add_marker(MarkerKind::Stop, (at, writing.text), Stage::Launch, None);
    }
    let own_markers = subject.as_ref().is_none_or(|s| run.concerns(s));
    let mut progress = false;
    for m in matches.iter().filter(|_| own_markers) {
        let rule = rules.rule(m.rule);
        if let Some(kind) = rule.marker {
            run.add_marker(kind, line_of(m), rule.stage, rule.phase.as_deref());
            progress |= matches!(kind, MarkerKind::Progress | MarkerKind::Ready);
        }
    }
    note_progress(run, writing, progress);
    run
}

/// Notes in `run` what `writing` says of its writer: a writer awaited since
/// its failures that goes on, an answered request, the run's unit and
/// subject (when the event marks a start, `starts_run`), and its pid.
fn note_writer(run: &mut RunState, writing: &Writing<'_>, starts_run: bool) {
    let subject = &writing.subject;
    // A writer that goes on writing ordinary lines has outlived the
    // failures it wrote before.
    if !run.awaited_writers.is_empty() && writing.record {
        let writer = writing.writer.key();
        let goes_on = || {
            (writing.plain && liveness::is_ordinary(writing.level, writing.message))
                || liveness::is_handled_request(writing.message)
        };
        if run.awaits(writer) && goes_on() {
            run.note_alive(writer, writing.first);
        }
    }
    // A server that answers a request after an error it caught went on,
    // whichever of its processes logged the error.
    if writing.record && run.awaits_an_answer() && liveness::is_answered_request(writing.message) {
        run.note_answered(writing.first);
    }
    if let Some(subject::Subject::Unit(unit)) = subject {
        run.unit.get_or_insert_with(|| unit.clone());
    }
    // A structured journal names the writer's unit; `-o with-unit`
    // prints it in place of the identifier.
    let writer_unit = writing.unit.or(writing.identifier);
    if let Some(unit) = writer_unit.filter(|u| subject::is_unit_name(u)) {
        run.unit.get_or_insert_with(|| unit.to_string());
    }
    if starts_run && run.subject.is_none() {
        run.subject = subject.clone();
    }
    if let Some(pid) = writing.pid.filter(|_| !subject::is_manager(writing.identifier)) {
        run.note_pid(pid);
    }
}

/// Notes in `run` the progress `writing` shows (`progress`: a rule marked
/// it), or its stamp, the server's arguments or a preemption.
fn note_progress(run: &mut RunState, writing: &Writing<'_>, progress: bool) {
    let (number, text) = (writing.first, writing.text);
    let message = writing.message;
    let progress_kind = if progress { progress::kind_of(message) } else { None };
    // A progress line's stamp is kept with it ([`vitals::Recorder`]).
    if let Some(time) = writing.time.filter(|_| progress_kind.is_none()) {
        run.last_stamp.set(time);
        run.last_stamp_line = number;
    }
    if let Some(kind) = progress_kind {
        let line =
            vitals::Line { kind, line: number, time: writing.time, text, message_at: writing.message_at };
        run.vitals.get_or_insert_default().record(line);
    } else if progress {
        run.last_plain_progress = Some(number.max(run.last_plain_progress.unwrap_or(0)));
    } else if args::is_args_line(message) {
        run.args.get_or_insert_default().read(message);
    } else if vitals::is_preemption(message) {
        run.vitals.get_or_insert_default().note_preemption();
    }
}

fn evidence_line(line: &EventLine) -> EvidenceLine {
    EvidenceLine::new(line.number, &line.text)
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
    let mut evidence = vec![evidence_line(line)];
    let explains_failure = matches!(m.role, Role::Cause | Role::Confirm);
    if event.kind == EventKind::Traceback && explains_failure {
        let before = &event.lines[..m.line];
        if line.role == LineRole::ExceptionText {
            if let Some(exception) = before.iter().rev().find(|l| l.role == LineRole::Exception) {
                evidence.push(evidence_line(exception));
            }
        }
        let mut frames = before.iter().rev().filter(|l| l.role == LineRole::Frame);
        if let Some(innermost) = frames.next() {
            evidence.push(evidence_line(innermost));
            // Below a standard-library frame (subprocess.run…), the frame of
            // the code that called it says more.
            if is_stdlib_frame(innermost.message()) {
                if let Some(caller) = frames.find(|l| !is_stdlib_frame(l.message())) {
                    evidence.push(evidence_line(caller));
                }
            }
        }
    }
    if is_panic(event) && m.line == 0 && m.role != Role::Benign {
        // A Rust panic's message is on the line after `panicked at …:`.
        evidence.extend(event.lines.iter().find(|l| l.role == LineRole::ExceptionText).map(evidence_line));
    }
    if explains_failure && m.line > 0 {
        // The line that opened the event: a traceback's announcement, or the
        // first line of a message that continues on indented lines.
        let first = &event.lines[0];
        if matches!(first.role, LineRole::TracebackHeader | LineRole::Text) && first.number != line.number {
            evidence.push(evidence_line(first));
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
            && m.category != Some(Category::PeerFailure)
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

/// An unrecognised traceback or fatal-error dump, for the `unknown`
/// fallback: the root exception of the chain is the decisive line.
fn failure_of(
    event: &Event,
    writer: Option<u64>,
    fate: Option<(Category, bool)>,
    handling: Handling,
    announcer: Option<EvidenceLine>,
) -> Failure {
    let exceptions: Vec<&EventLine> = event.exception_lines().collect();
    let first = &event.lines[0];
    let mut evidence = Vec::new();
    let title = if let Some(root) = exceptions.first() {
        evidence.push(evidence_line(root));
        if let Some(last) = exceptions.last().filter(|l| l.number != root.number) {
            evidence.push(evidence_line(last));
        }
        let named = fate.is_some_and(|(category, _)| category != Category::Unknown);
        match named {
            // A fate line read it: its own words say what it was.
            true => shorten(root.message().trim(), 160),
            false => format!("Unrecognised failure: {}", shorten(root.message().trim(), 120)),
        }
    } else if event.kind == EventKind::Record {
        evidence.push(evidence_line(first));
        format!("Unrecognised fatal error: {}", shorten(first.message().trim(), 120))
    } else if event.kind == EventKind::FaultDump {
        evidence.push(evidence_line(first));
        match event.lines.iter().find(|l| l.role == LineRole::ExceptionText) {
            // A Rust panic: where, then what.
            Some(message) => {
                evidence.push(evidence_line(message));
                format!("{} {}", first.message().trim(), shorten(message.message().trim(), 120))
            }
            None => first.message().trim().to_string(),
        }
    } else {
        // The error record that announced the traceback says what the
        // missing exception line would have (Frigate's `… ERROR   : can't
        // convert negative value to size_t`, then `Process detector:…`
        // and the traceback).
        evidence.extend(announcer);
        // The innermost source line, when it is a `raise`, names what was
        // raised (`raise RuntimeError("Cannot find valid samples, …")`).
        let last_source =
            event.lines.iter().rev().find(|l| matches!(l.role, LineRole::Source | LineRole::Frame));
        let raised = last_source.filter(|l| l.role == LineRole::Source && raises_with_message(l.message()));
        evidence.extend(raised.map(evidence_line));
        let frame = event.lines.iter().rev().find(|l| l.role == LineRole::Frame);
        evidence.extend(frame.map(evidence_line));
        match frame.and_then(|f| crate::events::traceback::parse_frame(f.message().trim())) {
            Some(f) => format!(
                "Traceback cut before its exception line (innermost frame: {})",
                frame_place(f.file, f.line, f.function)
            ),
            None => "Traceback cut before its exception line".to_string(),
        }
    };
    // The line that opened the traceback: its header, or the record that
    // announced it (`logger.exception`'s message, the warning just before
    // an interpreter's traceback), which says more when the exception line
    // is missing.
    let says_something = first.role != LineRole::Frame && !first.message().trim().is_empty();
    if says_something && !evidence.iter().any(|e| e.line == first.number) {
        evidence.push(evidence_line(first));
    }
    let decisive = exceptions.first().copied().unwrap_or(first);
    let top_level = reaches_top_level(event);
    let fingerprint = fingerprint_parts(event, decisive, !exceptions.is_empty());
    Failure {
        fingerprint,
        title,
        evidence,
        first_line: event.first_line(),
        last_line: event.last_line(),
        first_ordinal: event.first_ordinal(),
        last_ordinal: event.last_ordinal(),
        writer,
        outlived: None,
        // A traceback that reached the program's top level was printed by
        // the interpreter as the process ended, whatever warning came
        // before it.
        warning: (liveness::is_warning(decisive.level, decisive.message()) || handling.retried) && !top_level,
        caught: handling.caught,
        announced: handling.announced,
        serving_since: None,
        answered_after: None,
        fate,
        headless: event.kind == EventKind::Traceback && exceptions.is_empty(),
        // Unless a pid names the writer: the same pid writing on is the same
        // process, whose logger's fatal level did not exit.
        ends_its_writer: event.kind == EventKind::Record
            && first.level == Some(Level::Fatal)
            && event.stream.pid.is_none(),
        topless: event.kind == EventKind::Traceback
            && !event.lines.iter().any(|l| l.role == LineRole::TracebackHeader),
        in_thread: raised_in_a_thread(event),
    }
}

/// A source line that raises an exception it names with a message of its
/// own: `raise RuntimeError("Cannot find valid samples, …")` (not `raise
/// e from None`, nor a message on the lines after it).
fn raises_with_message(source: &str) -> bool {
    let Some(raised) = source.trim_start().strip_prefix("raise ") else { return false };
    let name = raised.bytes().take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.')).count();
    let rest = &raised[name..];
    raised.starts_with(|c: char| c.is_ascii_uppercase())
        && ["(\"", "('", "(f\"", "(f'"].iter().any(|open| rest.starts_with(open))
}

/// What the fingerprint of a failure whose decisive line is `decisive` is
/// taken from: its exception type (when `is_exception`) or what printed
/// it, its message, and the frames above it in its traceback.
fn fingerprint_parts(event: &Event, decisive: &EventLine, is_exception: bool) -> fingerprint::Parts {
    use crate::events::traceback::{exception_name, parse_frame, Place};
    let message = decisive.message().trim();
    let kind = match event.kind {
        _ if is_exception => exception_name(message, Place::InTraceback).unwrap_or("exception"),
        EventKind::Record => "error record",
        EventKind::FaultDump => "native crash",
        _ => "traceback",
    };
    // An exception's frames are those above it; a traceback cut before
    // its exception line has all of its own.
    let above = event.lines.iter().take_while(|l| l.number < decisive.number || !is_exception);
    let frames = above.filter(|l| l.role == LineRole::Frame).filter_map(|l| parse_frame(l.message().trim()));
    fingerprint::Parts::new(kind, message, frames.map(|f| (f.file, f.function)))
}

/// Did the traceback's exception propagate to the program's top level (an
/// outermost frame of the main script's `<module>`, or of `python -m`'s
/// `_run_module_as_main`)? Then nothing caught it: no logger printed it as
/// a warning.
fn reaches_top_level(event: &Event) -> bool {
    if event.kind != EventKind::Traceback {
        return false;
    }
    outermost_frames(event).any(|f| matches!(f.function, "<module>" | "_run_module_as_main"))
}

/// Was the traceback's exception raised in a thread other than the main
/// one: the outermost frame of its last traceback is where `threading`
/// starts a thread (`threading.py … in _bootstrap`)? A thread's exception
/// does not end the process by itself (`threading.excepthook` prints it
/// and the thread ends).
fn raised_in_a_thread(event: &Event) -> bool {
    event.kind == EventKind::Traceback
        && !reaches_top_level(event)
        && outermost_frames(event)
            .last()
            .is_some_and(|f| f.file.ends_with("threading.py") && f.function.starts_with("_bootstrap"))
}

/// The outermost frame of each traceback of the event's chain (the first
/// after its header): a `<module>` frame deeper down is an import's.
fn outermost_frames(event: &Event) -> impl Iterator<Item = crate::events::traceback::Frame<'_>> {
    let mut outermost_next = true;
    event.lines.iter().filter_map(move |l| match l.role {
        LineRole::TracebackHeader => {
            outermost_next = true;
            None
        }
        LineRole::Frame if outermost_next => {
            outermost_next = false;
            crate::events::traceback::parse_frame(l.message().trim())
        }
        _ => None,
    })
}

/// How code handled a traceback's exception, by how it was printed, and
/// whether the writer says it tries again.
#[derive(Clone, Copy)]
struct Handling {
    /// Code caught and logged it (see [`is_caught`]), and it did not reach
    /// the program's top level.
    caught: bool,
    /// And announced it in words of its own (see [`is_announced`]).
    announced: bool,
    /// The event's last line says its writer tries again (`…,
    /// retrying... (attempt 9/60)`): an error it goes on from, like a
    /// warning.
    retried: bool,
}

impl Handling {
    /// `announced_apart`: an error record a line or two above the
    /// traceback announced it (see [`ErrorRecord`]).
    fn of(event: &Event, announced_apart: bool) -> Handling {
        let below_top = event.kind == EventKind::Traceback && !reaches_top_level(event);
        Handling {
            caught: below_top && (announced_apart || is_caught(event)),
            announced: below_top && (announced_apart || is_announced(event)),
            // Its last words: an event may hold an earlier error too.
            retried: event.lines.iter().rev().find(|l| !l.message().trim().is_empty()).is_some_and(|l| {
                matches!(l.role, LineRole::Text | LineRole::Exception | LineRole::ExceptionText)
                    && liveness::says_it_retries(l.message())
            }),
        }
    }
}

/// Was the traceback logged by code that caught its exception: an error
/// record opened it (`logger.exception("Error during inference")`), or its
/// header carries a logger's level? Not when the catcher's own words call
/// it fatal (`EngineCore encountered a fatal error.`); the caller rules
/// out one that reached the program's top level.
fn is_caught(event: &Event) -> bool {
    let Some(header) = event.lines.iter().position(|l| l.role == LineRole::TracebackHeader) else {
        return false;
    };
    event.kind == EventKind::Traceback
        && !announced_as_fatal(event)
        && (is_announced(event) || logged(event.lines[header].level))
}

/// Was the traceback opened by a logger's record with words of its own
/// (`logger.exception("Failed to load the model.")`), not only by a
/// header that carries a level (`ERROR:    Traceback …`, a traceback's
/// text logged as the message)? Not when those words call it fatal.
fn is_announced(event: &Event) -> bool {
    let header = event.lines.iter().position(|l| l.role == LineRole::TracebackHeader);
    let first = &event.lines[0];
    let opened = header.is_some_and(|h| h > 0) && first.role == LineRole::Text && logged(first.level);
    event.kind == EventKind::Traceback && opened && !announced_as_fatal(event)
}

/// Does the record that opened the traceback call it fatal, say that
/// what failed ends (`Exception in Replica(…), the replica will be
/// stopped.`), or that it could not start (`EngineCore failed to start.`)?
fn announced_as_fatal(event: &Event) -> bool {
    says_it_ends(event.lines[0].message())
}

/// Words that call a failure fatal or say that what failed ends.
const ENDING: [&str; 22] = [
    "fatal",
    "failed to start",
    "failed to initialize",
    "failed to initialise",
    "failed to launch",
    "failed to boot",
    "startup failed",
    "start-up failed",
    "initialization failed",
    "will be stopped",
    "will be killed",
    "will be terminated",
    "will exit",
    "will terminate",
    "will now exit",
    "shutting down",
    "terminating",
    "exiting",
    "aborting",
    "giving up",
    // The handler of sglang's scheduler (`Scheduler hit an exception:`)
    // and of vLLM's worker loop (`WorkerProc hit an exception.`): the
    // scheduler then ends the server; the worker hands the error to the
    // engine core, which ends.
    "hit an exception",
    // gunicorn's worker (`arbiter.py`, spawn_worker) logs this, then exits.
    "exception in worker process",
];

/// Do these words call a failure fatal, or say that what failed ends or
/// could not start (see [`announced_as_fatal`])?
/// Every error record asks, so one automaton, ASCII case-insensitive,
/// and no copy of the message.
pub(super) fn says_it_ends(announcement: &str) -> bool {
    static WORDS: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    let words = WORDS.get_or_init(|| {
        aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(ENDING)
            .expect("a few plain words make an automaton")
    });
    // `Non-fatal error in session processor` (InvokeAI) says the opposite.
    let negated = |start: usize| {
        let before = announcement.get(start.saturating_sub(4)..start).unwrap_or("");
        before.eq_ignore_ascii_case("non-") || before.eq_ignore_ascii_case("not ")
    };
    words
        .find_overlapping_iter(announcement)
        .any(|m| ENDING[m.pattern().as_usize()] != "fatal" || !negated(m.start()))
}

fn logged(level: Option<Level>) -> bool {
    level.is_some_and(Level::is_trouble)
}

fn cut_traceback_of(event: &Event) -> CutTraceback {
    let frame = event.lines.iter().rev().find(|l| l.role == LineRole::Frame);
    let innermost = frame
        .and_then(|f| crate::events::traceback::parse_frame(f.message().trim()))
        .map(|f| frame_place(f.file, f.line, f.function));
    CutTraceback {
        first_line: event.first_line(),
        last_line: event.last_line(),
        pid: event.stream.pid,
        identifier: event.identifier().map(str::to_string),
        innermost,
    }
}

/// A frame in Python's standard library (`/usr/lib/python3.12/subprocess.py`).
fn is_stdlib_frame(message: &str) -> bool {
    let Some(frame) = crate::events::traceback::parse_frame(message.trim()) else {
        return false;
    };
    let file = frame.file;
    file.contains("/lib/python3") && !file.contains("-packages/")
}

/// `flashinfer/sampling.py:54 in get_sampling_module`: the path from the
/// package down (after site-packages/dist-packages) keeps it readable.
fn frame_place(file: &str, line: u32, function: &str) -> String {
    format!("{}:{line} in {function}", in_package(file).unwrap_or(file))
}

/// A file's path from its installed package down (`…/site-packages/vllm/
/// worker.py` → `vllm/worker.py`), when it is in one.
fn in_package(file: &str) -> Option<&str> {
    ["site-packages/", "dist-packages/"]
        .iter()
        .find_map(|marker| file.rsplit_once(marker).map(|(_, rest)| rest))
}

fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut: String = text.chars().take(max).collect();
    format!("{cut}…")
}

#[cfg(test)]
mod tests;
