//! The engine: events in, diagnosis out. Pure and incremental.
//!
//! `Engine::feed` takes events one at a time (in input order, as the
//! [`crate::events::Grouper`] hands them out), matches the rules, splits the
//! input into runs at start markers and boot boundaries (`units`), and
//! keeps bounded state per run (`run::RunState`): what each event
//! contributes (`contribution`), its progress lines in a
//! [`crate::vitals::Recorder`]. [`Engine::diagnose`] can be called at any
//! time and judges every run (`judge`): outcome, root cause, symptoms,
//! benign lines, confidence; and by its vitals (`health`): a hang, a
//! collapse against the runs before it.

mod announcement;
mod contribution;
pub mod diagnosis;
mod ellipsized;
pub mod fingerprint;
mod handling;
mod health;
mod int_map;
mod intake;
mod judge;
mod launches;
mod liveness;
mod place;
pub use units::{RunCaps, UnitFilter};

mod run;
mod subject;
mod units;
mod unrecognised;
mod writer;

use crate::events::{Event, EventKind, LineAt};
use crate::framing::{Format, FormatSet, Level, Record, Separator};
use crate::notice::Notice;
use crate::pipeline::{Parts, Spares};
use crate::rules::{LineMatch, MarkerKind, MatchScratch, Role, RuleSet, Stage};
use crate::vitals::{self, args, progress};

use announcement::{note_error_record, note_record, Announcement, ErrorRecord, HARMLESS_ANNOUNCEMENT_GAP};
use contribution::Said;
pub use diagnosis::Diagnosis;
use run::RunState;
use writer::Writer;

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
    parts: Parts,
    lines: u64,
    formats: FormatSet,
    notices: Vec<Notice>,
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
    /// Judged events, kept for the grouper to reuse (see [`intake`]).
    spares: Spares,
    /// How many runs each source keeps.
    caps: RunCaps,
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
            spares: Spares::default(),
            caps: RunCaps::WHOLE_LOG,
        }
    }

    /// The engine keeping runs as `caps` says, in the sources it begins
    /// from now on (an agent keeps few: see [`RunCaps::AGENT`]).
    pub fn keeping(mut self, caps: RunCaps) -> Self {
        self.caps = caps;
        self
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
        self.spares = Spares::default();
    }

    /// Starts a new source; following events belong to it.
    pub fn begin_source(&mut self, name: &str) {
        self.sources.push(SourceState {
            name: name.to_string(),
            parts: Parts::starting(name),
            lines: 0,
            formats: FormatSet::default(),
            notices: Vec::new(),
            units: units::Units::keeping(self.caps),
            launch_after: None,
            ellipsized: ellipsized::Ellipsized::default(),
        });
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

    /// Feeds one event of the current source.
    fn feed(&mut self, event: &Event) {
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
                    source.notices.push(Notice::NoEntries);
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
        self.scratch.skip_ready = unit.is_ready_for(source.launch_after, first);
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

        let said = Said { writer: key, announcer, announced_apart, fatal_record };
        self.announcement = contribution::contribute(rules, event, &mut self.matches, run, said);
    }

    /// Feeds the one-line record event of line `number` (at byte
    /// `offset`, full text `text`), given by its record: a record that
    /// marks at most progress is judged here without making an event
    /// (most lines of a serving log), any other as [`Engine::feed`] judges
    /// the event the grouper makes of it.
    fn feed_record(&mut self, at: LineAt, text: &str, record: &Record<'_>) {
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
            self.scratch.skip_ready = source.units.list[index].is_ready_for(source.launch_after, number);
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
            spares: Spares::default(),
            caps: self.caps,
        };
        for event in pending {
            copy.feed(event);
        }
        copy.diagnose(options)
    }
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
