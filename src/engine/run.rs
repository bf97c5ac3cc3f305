//! What the engine remembers about one run while it reads: bounded state
//! (capped finding lists, a few line numbers), never the run's lines.

use super::diagnosis::phase::{LISTENING, READY, SERVING};
use super::diagnosis::MAX_EXCERPT_BYTES;
use super::fingerprint;
use super::subject::Subject;
use crate::events::{EventLine, LineAt};
use crate::rules::{Category, MarkerKind, Role, Stage};
use crate::vitals::args::LaunchArgs;
use crate::vitals::clock::PrintedStamp;
use crate::vitals::Recorder;

/// Most findings kept per run and role; later ones are counted, not kept.
pub(super) const MAX_FINDINGS: usize = 64;

/// Most process ids remembered per run.
const MAX_PIDS: usize = 64;

/// The start of `text` kept as evidence (at most [`MAX_EXCERPT_BYTES`],
/// cut at a character boundary), and how many bytes were left out.
pub(super) fn excerpt(text: &str) -> (String, u64) {
    if text.len() <= MAX_EXCERPT_BYTES {
        return (text.to_string(), 0);
    }
    let mut end = MAX_EXCERPT_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (text[..end].to_string(), (text.len() - end) as u64)
}

/// Lines after a death within which an error is taken for its reason.
const TOLD_AFTER_DEATH: u64 = 3;

/// A line of evidence: number and text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct EvidenceLine {
    /// 1-based line number.
    pub line: u64,
    /// The line as printed, or its start ([`excerpt`]).
    pub text: String,
    /// Bytes of the line left out of `text`.
    pub cut: u64,
}

impl EvidenceLine {
    /// Evidence of line `line`, whose text is `text`.
    pub(super) fn new(line: u64, text: &str) -> Self {
        let (text, cut) = excerpt(text);
        EvidenceLine { line, text, cut }
    }

    /// Evidence of a line of an event.
    pub(super) fn of(line: &EventLine) -> Self {
        EvidenceLine::new(line.number, &line.text)
    }
}

/// A rule matched an event.
#[derive(Debug, Clone)]
pub(super) struct Finding {
    /// Rule index in the rule set.
    pub rule: usize,
    /// The role the match had (a fate line's is a cause's or a symptom's).
    pub role: Role,
    /// The category the match named.
    pub category: Option<Category>,
    /// The decisive line.
    pub line: u64,
    /// Its ordinal among the lines the program wrote ([`LineAt::ordinal`]):
    /// how near it is to others is measured in these.
    pub ordinal: u64,
    /// The decisive line's text, or its start ([`excerpt`]).
    pub text: String,
    /// Bytes of the decisive line left out of `text`.
    pub cut: u64,
    /// Where the decisive line's message starts in `text`.
    pub message_at: u32,
    /// A hash of the decisive line's message with numbers blanked
    /// ([`message_key`]): repeats of the same message from other ranks,
    /// threads or times count once.
    pub key: u64,
    /// Last line of the event it was found in.
    pub event_last: u64,
    /// That line's ordinal.
    pub event_last_ordinal: u64,
    /// Rendered title.
    pub title: String,
    /// The rule's hint filled from this line's captures, when the hint
    /// names any (`coredumpctl info {pid}`); otherwise the rule's own.
    pub hint: Option<String>,
    /// Lines that support it (the decisive line first).
    pub evidence: Vec<EvidenceLine>,
    /// Process id the line is about: a `pid` capture, or its writer's pid
    /// (unless the writer is a service manager or the kernel).
    pub pid: Option<u32>,
    /// The systemd unit the line is about, if it names one.
    pub unit: Option<String>,
    /// How many times the same rule matched the same text in this run.
    pub count: u32,
    /// For benign findings: the rule it silenced on the same line.
    pub silenced: Option<usize>,
    /// The line is part of a `systemctl status` block: a summary of how
    /// the unit ended, written after the journal lines printed below it.
    /// It never makes a run begin or count as substantive, progress below
    /// it does not outlive it, and any other cause is preferred to it.
    pub summary: bool,
    /// The line is a warning (`WARNING` level, `Warning: …`, Python's
    /// `…Warning:`): it never decides a crash by itself.
    pub warning: bool,
    /// Who wrote it ([`Writer::key`](super::writer::Writer::key)), for an error its writer may
    /// outlive; `None` for a line that records a death, and for benign
    /// lines and confirmations.
    pub writer: Option<u64>,
    /// The first ordinary line its writer wrote after its event.
    pub outlived: Option<u64>,
    /// It is in a traceback that code caught and logged (not one that
    /// reached the program's top level).
    pub caught: bool,
    /// The code that caught it announced it in words of its own (an
    /// error record then the traceback), not calling it fatal.
    pub announced: bool,
    /// The first request the server answered after its event, when it
    /// was caught (see [`RunState::note_answered`]).
    pub answered_after: Option<u64>,
}

/// A failure no cause rule recognised: an uncaught traceback or a fatal
/// error dump. The `unknown` fallback uses it.
#[derive(Debug, Clone)]
pub(super) struct Failure {
    /// Title for the report (`Uncaught KeyError: 'x'`).
    pub title: String,
    /// Decisive line first (the exception line), then context.
    pub evidence: Vec<EvidenceLine>,
    /// First line of the event.
    pub first_line: u64,
    /// Last line of the event.
    pub last_line: u64,
    /// The ordinals of its first and last lines ([`LineAt::ordinal`]).
    pub first_ordinal: u64,
    pub last_ordinal: u64,
    /// Who wrote it ([`Writer::key`](super::writer::Writer::key)); `None` for the kernel or a service
    /// manager, whose going on says nothing of the failed process.
    pub writer: Option<u64>,
    /// The first ordinary line its writer wrote after it: the writer went
    /// on, so the failure did not end it.
    pub outlived: Option<u64>,
    /// It was logged as a warning: it never decides a crash by itself.
    pub warning: bool,
    /// Code caught it and logged it (`logger.exception`: an error record
    /// opens the traceback, or its header carries a logger's level), it
    /// never reached the program's top level, and the catcher did not
    /// call it fatal.
    pub caught: bool,
    /// Code caught it and announced it with words of its own (an error
    /// record then its traceback), and they do not call it fatal.
    pub announced: bool,
    /// The line of the run's last progress before it, when the run was
    /// already serving (listening, ready or serving requests).
    pub serving_since: Option<u64>,
    /// The first request the server answered after it (an HTTP access
    /// line, from any of the run's writers), when code caught it.
    pub answered_after: Option<u64>,
    /// What its exception line says of a process's end (a child killed by
    /// a signal, a task killed for memory), when a fate rule read it:
    /// the category and whether it names a cause by itself.
    pub fate: Option<(Category, bool)>,
    /// A traceback with frames and no exception line: its decisive line
    /// is elsewhere (a paste that split it from its frames).
    pub headless: bool,
    /// A record at a fatal level (Go's `log.Fatal`, logrus's
    /// `level=fatal`, glog's `F`) of a writer no pid names: by the logging
    /// convention its program exits after it, so a later line of the same
    /// name is a new process's (a restart), not this one going on.
    pub ends_its_writer: bool,
    /// A traceback whose top was cut off: frames (or only its exception)
    /// with no `Traceback (most recent call last):` header above them.
    pub topless: bool,
    /// Raised in a thread other than the main one: it ends the process
    /// only when a death comes after it.
    pub in_thread: bool,
    /// What its fingerprint is taken from (see [`fingerprint`]).
    pub fingerprint: fingerprint::Parts,
}

/// A traceback that the end of the input cut before its exception line.
#[derive(Debug, Clone)]
pub(super) struct CutTraceback {
    /// First line of the traceback.
    pub first_line: u64,
    /// Last line read.
    pub last_line: u64,
    /// The writer's pid, for a `journalctl _PID=` hint.
    pub pid: Option<u32>,
    /// The journal identifier, if any.
    pub identifier: Option<String>,
    /// The innermost frame seen (`file:line in function`).
    pub innermost: Option<String>,
}

/// One run's state.
#[derive(Debug, Clone)]
pub(super) struct RunState {
    /// First line.
    pub first_line: u64,
    /// Last line seen.
    pub last_line: u64,
    /// systemd unit named by its lines.
    pub unit: Option<String>,
    /// What systemd's start job for this run was about.
    pub subject: Option<Subject>,
    /// Process ids of the programs that wrote this run's lines.
    pub pids: Vec<u32>,
    /// Highest start stage seen, if any start marker was.
    pub max_stage: Option<Stage>,
    /// An exit marker or a terminal finding was seen.
    pub ended: bool,
    /// The run holds findings or markers (not only noise).
    pub substantive: bool,
    /// The first line that proved a generation completed (a ready marker).
    pub ready: Option<EvidenceLine>,
    /// Last progress or ready marker.
    pub last_progress: Option<u64>,
    /// The first line where systemd said the unit's process ended (`Main
    /// process exited…`, `Failed with result…`).
    pub unit_exit: Option<u64>,
    /// Last progress or ready marker before [`RunState::unit_exit`]: no
    /// later progress can be the ended process's (it is a paste in
    /// reverse order, or a new process whose start was not logged).
    pub progress_before_exit: Option<u64>,
    /// The last progress or ready marker on a line that is not a server's
    /// progress line (an answered request, a start-up phase).
    pub last_plain_progress: Option<u64>,
    /// First operator stop marker.
    pub stop_line: Option<u64>,
    /// Last line that recorded a death (an exit marker or a terminal
    /// finding).
    pub last_terminal: Option<u64>,
    /// Its ordinal ([`LineAt::ordinal`]).
    pub last_terminal_ordinal: Option<u64>,
    /// First death line after the last progress marker: what ended the run
    /// after it last made progress (liveness needs it).
    pub terminal_after_progress: Option<u64>,
    /// Latest start-up phase.
    pub phase: Option<String>,
    /// Cause, confirm, symptom and benign findings, in line order.
    pub findings: Vec<Finding>,
    /// Findings not kept because of [`MAX_FINDINGS`].
    pub dropped: u64,
    /// Unrecognised failures, in line order (capped).
    pub failures: Vec<Failure>,
    /// A traceback cut by the end of input.
    pub cut_traceback: Option<CutTraceback>,
    /// The writers of the errors not yet outlived ([`Writer::key`](super::writer::Writer::key)): a
    /// line of one of them is checked for being ordinary.
    pub awaited_writers: Vec<u64>,
    /// How many caught errors may still wait for a request answered after
    /// them (at least that many: it is counted again when one comes).
    answers_awaited: usize,
    /// What its progress lines said (none until one came).
    pub vitals: Option<Box<Recorder>>,
    /// The arguments it was launched with, when it printed them.
    pub args: Option<Box<LaunchArgs>>,
    /// The stamp of its latest line that is not a progress line (those
    /// keep their own), and that line.
    pub last_stamp: PrintedStamp,
    /// See [`Self::last_stamp`].
    pub last_stamp_line: u64,
}

impl RunState {
    /// A run starting at `line`.
    /// Whether it recorded a failure of any kind (a cause, a symptom, an
    /// unrecognised failure, a cut traceback): a run to keep when old runs
    /// are dropped.
    pub(super) fn recorded_a_failure(&self) -> bool {
        !self.failures.is_empty()
            || self.cut_traceback.is_some()
            || self.findings.iter().any(|f| matches!(f.role, Role::Cause | Role::Symptom | Role::Confirm))
    }

    pub(super) fn new(line: u64) -> Self {
        RunState {
            first_line: line,
            last_line: line,
            unit: None,
            subject: None,
            pids: Vec::new(),
            max_stage: None,
            ended: false,
            substantive: false,
            ready: None,
            last_progress: None,
            unit_exit: None,
            progress_before_exit: None,
            last_plain_progress: None,
            stop_line: None,
            last_terminal: None,
            last_terminal_ordinal: None,
            terminal_after_progress: None,
            phase: None,
            findings: Vec::new(),
            dropped: 0,
            failures: Vec::new(),
            cut_traceback: None,
            awaited_writers: Vec::new(),
            answers_awaited: 0,
            vitals: None,
            args: None,
            last_stamp: PrintedStamp::default(),
            last_stamp_line: 0,
        }
    }

    /// Is its server up: a generation proven, or a start-up past its last
    /// phase (listening, ready, serving)?
    pub(super) fn is_up(&self) -> bool {
        self.ready.is_some() || matches!(self.phase.as_deref(), Some(LISTENING | READY | SERVING))
    }

    /// Remembers a process id that wrote one of the run's lines.
    pub(super) fn note_pid(&mut self, pid: u32) {
        if self.pids.len() < MAX_PIDS && !self.pids.contains(&pid) {
            self.pids.push(pid);
        }
    }

    /// Does a record about process `pid` concern this run? Unknown pids,
    /// and runs whose processes are unknown, are taken to.
    pub(super) fn owns_pid(&self, pid: Option<u32>) -> bool {
        match pid {
            Some(pid) => self.pids.is_empty() || self.pids.contains(&pid),
            None => true,
        }
    }

    /// Records a marker on line `line` (number and text).
    ///
    /// The phase follows the markers, with one rule: readiness is proven,
    /// never assumed. Until a ready marker (a line showing a generation
    /// completed) the server is at most `listening`, however many requests
    /// it answers; a marker of the `serving` phase before that proof means
    /// `listening`, and after it `serving`.
    pub(super) fn add_marker(
        &mut self,
        kind: MarkerKind,
        (at, text): (LineAt, &str),
        stage: Stage,
        phase: Option<&str>,
    ) {
        let number = at.number;
        self.substantive = true;
        let mut phase = phase;
        match kind {
            MarkerKind::Start => self.max_stage = Some(self.max_stage.map_or(stage, |s| s.max(stage))),
            MarkerKind::Ready => {
                if self.ready.is_none() {
                    self.ready = Some(EvidenceLine::new(number, text));
                    phase = Some(READY);
                } else {
                    phase = Some(SERVING);
                }
                self.note_progress(number);
            }
            MarkerKind::Progress => self.note_progress(number),
            MarkerKind::Stop => {
                self.stop_line.get_or_insert(number);
            }
            MarkerKind::Exit => self.note_terminal(at),
        }
        let phase = match phase {
            Some(SERVING) if self.ready.is_none() => Some(LISTENING),
            // A proven server that logs its listening line again still serves.
            Some(LISTENING) if self.ready.is_some() => Some(SERVING),
            // The line that proves readiness may also be counted as work.
            Some(SERVING)
                if self.phase.as_deref() == Some(READY)
                    && self.ready.as_ref().is_some_and(|r| r.line == number) =>
            {
                Some(READY)
            }
            other => other,
        };
        if let Some(phase) = phase {
            if self.phase.as_deref() != Some(phase) {
                self.phase = Some(phase.to_string());
            }
        }
    }

    /// Records that systemd said the unit's process ended at `line`.
    pub(super) fn note_unit_exit(&mut self, line: u64) {
        self.unit_exit.get_or_insert(line);
    }

    /// The stamp of the run's latest line that had one.
    pub(super) fn last_seen(&self) -> Option<crate::vitals::clock::Stamp> {
        let progress = self.vitals.as_deref().and_then(|v| v.latest()).map(|l| &l.moment);
        match progress {
            Some(moment) if moment.line > self.last_stamp_line || self.last_stamp.stamp().is_none() => {
                moment.at().or_else(|| self.last_stamp.stamp())
            }
            _ => self.last_stamp.stamp(),
        }
    }

    /// The last progress that the run's process itself could have made:
    /// none after systemd said it ended.
    pub(super) fn own_progress(&self) -> Option<u64> {
        match self.unit_exit {
            Some(_) => self.progress_before_exit,
            None => self.last_progress,
        }
    }

    fn note_progress(&mut self, line: u64) {
        if self.unit_exit.is_none() {
            self.progress_before_exit = Some(self.progress_before_exit.map_or(line, |p| p.max(line)));
        }
        self.last_progress = Some(self.last_progress.map_or(line, |p| p.max(line)));
        self.terminal_after_progress = None;
    }

    fn note_terminal(&mut self, at: LineAt) {
        let line = at.number;
        self.ended = true;
        self.last_terminal = Some(self.last_terminal.map_or(line, |t| t.max(line)));
        self.last_terminal_ordinal =
            Some(self.last_terminal_ordinal.map_or(at.ordinal, |t| t.max(at.ordinal)));
        if self.last_progress.is_none_or(|p| line > p) && self.terminal_after_progress.is_none() {
            self.terminal_after_progress = Some(line);
        }
    }

    /// Adds a finding, merging it with an earlier one of the same rule and
    /// message (the same error printed by several ranks counts once) unless
    /// the run made progress in between: then it is a new occurrence.
    pub(super) fn add_finding(&mut self, finding: Finding, terminal: bool) {
        self.substantive |= !finding.summary;
        if terminal {
            self.note_terminal(LineAt { number: finding.line, offset: 0, ordinal: finding.ordinal });
        }
        // A repeat after progress, or after its writer went on, is a new
        // occurrence.
        let progress = self.last_progress;
        self.await_writer(finding.writer);
        if let Some(same) = self.findings.iter_mut().find(|f| {
            f.rule == finding.rule
                && f.key == finding.key
                && progress.is_none_or(|p| p < f.line)
                && f.outlived.is_none()
        }) {
            same.count += 1;
            return;
        }
        if self.findings.iter().filter(|f| f.role == finding.role).count() >= MAX_FINDINGS {
            self.dropped += 1;
            return;
        }
        self.answers_awaited += usize::from(finding.caught);
        let at = self.findings.partition_point(|f| f.line <= finding.line);
        self.findings.insert(at, finding);
    }

    /// Adds an unrecognised failure (the first few and the latest are kept).
    pub(super) fn add_failure(&mut self, failure: Failure) {
        self.substantive = true;
        if self.failures.len() >= MAX_FINDINGS {
            self.failures.pop();
        }
        self.await_writer(failure.writer);
        self.answers_awaited += usize::from(failure.caught);
        let serving_since = self.last_progress.filter(|&p| self.is_up() && p < failure.first_line);
        self.failures.push(Failure { serving_since, ..failure });
    }

    /// Records that `writer` wrote an ordinary line (`line`): the errors
    /// it wrote before (failures, and findings that record no death) have
    /// not ended it.
    ///
    /// A death logged between the error and this line (a fate line, an
    /// exit) means this line is not the failed process's going on.
    pub(super) fn note_alive(&mut self, writer: u64, line: u64) {
        let died_after = |last: u64| self.last_terminal.is_some_and(|t| t > last);
        let outlivable = |f: &Failure| f.outlived.is_none() && f.writer == Some(writer) && !f.ends_its_writer;
        for failure in self.failures.iter_mut().filter(|f| outlivable(f)) {
            if died_after(failure.last_line) {
                failure.writer = None;
            } else if failure.last_line < line {
                failure.outlived = Some(line);
            }
        }
        // The reason for a death told just after it (llama.cpp's
        // asynchronous logger prints `CUDA error: …` after ggml's abort
        // line): the death's telling, not an error anyone outlived.
        let told_after_death = |first: u64| {
            self.last_terminal_ordinal.is_some_and(|t| t < first && first <= t + TOLD_AFTER_DEATH)
        };
        for finding in self.findings.iter_mut().filter(|f| f.outlived.is_none() && f.writer == Some(writer)) {
            if died_after(finding.event_last) || told_after_death(finding.ordinal) {
                finding.writer = None;
            } else if finding.event_last < line {
                finding.outlived = Some(line);
            }
        }
        let still = |outlived: Option<u64>, of: Option<u64>| outlived.is_none() && of == Some(writer);
        let awaited =
            self.failures.iter().any(outlivable) || self.findings.iter().any(|f| still(f.outlived, f.writer));
        if !awaited {
            self.awaited_writers.retain(|&w| w != writer);
        }
    }

    /// Does a caught failure wait for a sign that the server went on?
    pub(super) fn awaits_an_answer(&self) -> bool {
        self.answers_awaited > 0
    }

    /// Records a request the server answered (`line`, an HTTP access
    /// line): the failures code caught and logged before it, in whichever
    /// of its processes, did not end the service, unless a death was
    /// logged between them (then the answer is a survivor's).
    pub(super) fn note_answered(&mut self, line: u64) {
        let last_terminal = self.last_terminal;
        for failure in self.failures.iter_mut().filter(|f| f.caught && f.answered_after.is_none()) {
            let died_after = last_terminal.is_some_and(|t| t > failure.last_line);
            if failure.last_line < line && !died_after {
                failure.answered_after = Some(line);
            }
        }
        for finding in self.findings.iter_mut().filter(|f| f.caught && f.answered_after.is_none()) {
            let died_after = last_terminal.is_some_and(|t| t > finding.event_last);
            if finding.event_last < line && !died_after {
                finding.answered_after = Some(line);
            }
        }
        // Those a death came after wait for nothing more.
        let waits =
            |answered: Option<u64>, last: u64| answered.is_none() && last_terminal.is_none_or(|t| t <= last);
        self.answers_awaited =
            self.failures.iter().filter(|f| f.caught && waits(f.answered_after, f.last_line)).count()
                + self.findings.iter().filter(|f| f.caught && waits(f.answered_after, f.event_last)).count();
    }

    /// Is `writer` the writer of an error not yet outlived?
    pub(super) fn awaits(&self, writer: u64) -> bool {
        self.awaited_writers.contains(&writer)
    }

    fn await_writer(&mut self, writer: Option<u64>) {
        if let Some(writer) = writer.filter(|w| !self.awaited_writers.contains(w)) {
            self.awaited_writers.push(writer);
        }
    }
}

/// The hash of a message's [`message_key`] (of its first
/// [`MAX_EXCERPT_BYTES`]), which is all a finding keeps of it.
pub(super) fn message_hash(message: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    message_key(&excerpt(message).0).hash(&mut hasher);
    hasher.finish()
}

/// A message with its numbers blanked, so the same error printed by eight
/// ranks or GPU threads (`[Rank 3]`, `thread: [24,0,0]`, `0x7f5e…`) gives
/// one key.
pub(super) fn message_key(message: &str) -> String {
    let mut key = String::with_capacity(message.len());
    let mut chars = message.trim().chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            if c == '0' && chars.peek() == Some(&'x') {
                chars.next();
                while chars.next_if(|c| c.is_ascii_hexdigit()).is_some() {}
            } else {
                while chars.next_if(|c| c.is_ascii_digit()).is_some() {}
            }
            key.push('#');
        } else {
            key.push(c);
        }
    }
    key
}

#[cfg(test)]
mod tests {
    use super::message_key;

    #[test]
    fn numbers_do_not_make_a_message_new() {
        assert_eq!(
            message_key("Indexing.cu:1284: indexSelectLargeIndex: block: [0,0,0], thread: [24,0,0] Assertion `srcIndex < srcSelectDimSize` failed."),
            message_key("Indexing.cu:1284: indexSelectLargeIndex: block: [0,0,0], thread: [31,0,0] Assertion `srcIndex < srcSelectDimSize` failed.")
        );
        assert_eq!(message_key("[Rank 3] at 0x7f5e41af06c0"), "[Rank #] at #");
        assert_ne!(message_key("Xid 79"), message_key("Xid 79, GPU has fallen off the bus"));
    }
}
