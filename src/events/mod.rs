//! Events: a record together with its continuation lines.
//!
//! A Python traceback, a faulthandler dump, a journal entry that spans
//! several lines, a kernel message with indented continuation lines: each is
//! one event. Continuation lines join the event that opened them *in the
//! same stream* (host + identifier + pid + process tag), so interleaved
//! ranks give separate tracebacks. A bare line (no prefix at all) belongs to
//! the stream that wrote the line before it.
//!
//! The [`Grouper`] holds at most one open event per stream and hands closed
//! events out in the order of their first line, so the engine sees the
//! input in order even when tracebacks interleave.
//!
//! Events are boxed: one moves through several queues per line, and moving
//! a box copies a pointer rather than the whole event.
#![allow(clippy::vec_box)]

mod continuation;
mod stream;
pub mod traceback;

use std::collections::VecDeque;

use crate::framing::{FormatSet, Level, Record, Separator};
use continuation::{after_exception, continuation, State};
pub use stream::Stream;
pub use traceback::LineKind;
use traceback::Place;

/// What an event is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// One log record, possibly with indented continuation lines.
    Record,
    /// A Python traceback (possibly chained, possibly without its header).
    Traceback,
    /// A faulthandler dump (`Fatal Python error: …` and thread stacks).
    FaultDump,
    /// A journal separator such as `-- Boot … --`.
    Separator(Separator),
}

/// The role of one line inside its event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineRole {
    /// The line that opened the event, or plain text inside it.
    Text,
    /// `Traceback (most recent call last):` (possibly after other text).
    TracebackHeader,
    /// A stack frame (`File "…", line N, in f`).
    Frame,
    /// A source, caret or repetition line under a frame.
    Source,
    /// The `Type: message` line of an exception.
    Exception,
    /// A further line of an exception's message.
    ExceptionText,
    /// A chain separator between two tracebacks.
    Chain,
    /// An empty line inside the event.
    Blank,
}

/// Where a record is: its line in the source, the line's byte offset,
/// and its ordinal among the lines the program wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineAt {
    /// 1-based line number in the source.
    pub number: u64,
    /// Byte offset of the line in the source.
    pub offset: u64,
    /// The line's ordinal among the lines the program wrote: its number,
    /// except after a journal dump that spreads an entry over lines of
    /// fields (`export`, `verbose`, `json-pretty`), where each line of a
    /// message counts one. Nearness ("an error a few lines after a
    /// death") is measured in ordinals, so it is the same whatever the
    /// journal's mode.
    pub ordinal: u64,
}

impl LineAt {
    /// Line `number` at byte `offset`, its ordinal its number.
    pub fn line(number: u64, offset: u64) -> Self {
        LineAt { number, offset, ordinal: number }
    }
}

/// One line of an event, owned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventLine {
    /// 1-based line number in the source.
    pub number: u64,
    /// Its ordinal among the lines the program wrote ([`LineAt::ordinal`]).
    pub ordinal: u64,
    /// Byte offset of the line in the source.
    pub offset: u64,
    /// The whole line, as the user reads it.
    pub text: String,
    /// Where the message starts and ends in `text`.
    pub message_span: (u32, u32),
    /// The line's role in the event.
    pub role: LineRole,
    /// Level printed on this line, if any.
    pub level: Option<Level>,
    /// The prefix formats recognised on this line.
    pub formats: FormatSet,
}

impl EventLine {
    /// Where the line is.
    pub fn at(&self) -> LineAt {
        LineAt { number: self.number, offset: self.offset, ordinal: self.ordinal }
    }

    /// The message part of the line (prefixes removed).
    pub fn message(&self) -> &str {
        let (start, end) = self.message_span;
        self.text.get(start as usize..end as usize).unwrap_or("")
    }
}

/// A record with its continuation lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// What kind of event this is.
    pub kind: EventKind,
    /// Who wrote it.
    pub stream: Stream,
    /// Its lines, in input order.
    pub lines: Vec<EventLine>,
    /// For a traceback: the input ended while it was still open.
    pub cut_by_end: bool,
    /// For a traceback: it has frames but no exception line.
    pub missing_exception: bool,
}

impl Event {
    /// Line number of the first line.
    pub fn first_line(&self) -> u64 {
        self.lines.first().map_or(0, |l| l.number)
    }

    /// Line number of the last line.
    pub fn last_line(&self) -> u64 {
        self.lines.last().map_or(0, |l| l.number)
    }

    /// Ordinal of the first line ([`LineAt::ordinal`]).
    pub fn first_ordinal(&self) -> u64 {
        self.lines.first().map_or(0, |l| l.ordinal)
    }

    /// Ordinal of the last line.
    pub fn last_ordinal(&self) -> u64 {
        self.lines.last().map_or(0, |l| l.ordinal)
    }

    /// The exception lines of a traceback, first (root) block first.
    pub fn exception_lines(&self) -> impl Iterator<Item = &EventLine> {
        self.lines.iter().filter(|l| l.role == LineRole::Exception)
    }

    /// The exception type named on line `index` (an `Exception` or
    /// `ExceptionText` line): the nearest exception line at or before it.
    pub fn exception_type_at(&self, index: usize) -> Option<&str> {
        let exception_line = self.lines[..=index].iter().rev().find(|l| l.role == LineRole::Exception)?;
        let message = traceback::strip_group_drawing(exception_line.message());
        traceback::exception_name(message, Place::InTraceback)
    }
}

/// Most lines an event keeps; a longer event is closed and the rest of its
/// lines start a new one.
const MAX_EVENT_LINES: usize = 4000;
/// An open event that has not grown for this many input lines is closed.
const MAX_IDLE_LINES: u64 = 5000;
/// Most streams with an open event at once.
const MAX_OPEN_STREAMS: usize = 256;
/// Used events kept for their buffers.
const MAX_SPARE_EVENTS: usize = 16;

#[derive(Clone)]
struct Open {
    key: u64,
    event: Box<Event>,
    state: State,
    /// The header origin (vLLM `[file:line]`) lines of this event repeat.
    origin: Option<String>,
    last_touched: u64,
}

/// Groups framed records into events, one open event per stream.
#[derive(Default)]
pub struct Grouper {
    open: Vec<Open>,
    closed: VecDeque<Box<Event>>,
    last_key: Option<u64>,
    /// What carried the last record.
    last_carrier: Option<stream::Carrier>,
    lines_seen: u64,
    /// Events handed back after use: new events reuse their buffers, so a
    /// long log of one-line records does not allocate for every line.
    spare: Vec<Box<Event>>,
}

impl Grouper {
    /// A grouper with nothing open.
    pub fn new() -> Self {
        Grouper::default()
    }

    /// Adds one record of line `number` (at byte `offset`, full text `text`).
    pub fn push(&mut self, number: u64, offset: u64, text: &str, record: &Record<'_>) {
        let kind = traceback::classify(record.message, Place::Outside);
        self.push_classified(LineAt::line(number, offset), text, record, kind);
    }

    /// Like [`Grouper::push`], with the record's message already
    /// classified (`traceback::classify(message, Place::Outside)`, which another
    /// thread may have done).
    pub fn push_classified(&mut self, at: LineAt, text: &str, record: &Record<'_>, kind: LineKind) {
        self.lines_seen = at.ordinal;
        if let Some(sep) = record.separator {
            self.close_all();
            self.insert_closed(Box::new(Event {
                kind: EventKind::Separator(sep),
                stream: Stream::default(),
                lines: vec![owned_line(at, text, record, LineRole::Text)],
                cut_by_end: false,
                missing_exception: false,
            }));
            return;
        }
        let (key, carrier) = self.key_of(record);
        if Some(key) != self.last_key && !record.is_bare() {
            self.close_single_records(Some(key));
        }
        self.last_key = Some(key);
        self.last_carrier = carrier;

        let message = record.message;
        if let Some(i) = self.open.iter().position(|o| o.key == key) {
            let open = &mut self.open[i];
            if let Some((state, role)) = continuation(open, record, message, kind) {
                if role == LineRole::TracebackHeader {
                    open.event.kind = EventKind::Traceback;
                }
                // An error record under which a native backtrace is printed
                // (TensorRT-LLM's `[E] …` then `1       0x7fac… f() + 97`)
                // is a dump of a native failure, like faulthandler's.
                let error_record =
                    matches!(open.event.lines[0].level, Some(Level::Error | Level::Critical | Level::Fatal));
                if open.event.kind == EventKind::Record
                    && error_record
                    && kind == LineKind::NativeFrame
                    && traceback::is_numbered_native_frame(message)
                {
                    open.event.kind = EventKind::FaultDump;
                }
                open.state = state;
                open.last_touched = at.ordinal;
                open.event.lines.push(owned_line(at, text, record, role));
                if open.event.lines.len() >= MAX_EVENT_LINES {
                    let done = self.open.swap_remove(i);
                    self.finish_open(done, false);
                }
                return;
            }
            // The stream's next record: its event takes the open one's
            // place (most lines go this way).
            let (event, state) = self.new_event(at, text, record, kind);
            let open = &mut self.open[i];
            let done = std::mem::replace(&mut open.event, event);
            let done_state = std::mem::replace(&mut open.state, state);
            set_origin(&mut open.origin, record.origin);
            open.last_touched = at.ordinal;
            self.finish_event(done, done_state, false);
        } else {
            self.start(key, at, text, record, kind);
        }
        self.close_idle();
    }

    /// Closes every open event (end of input) and returns all events not yet
    /// taken, in order of their first line.
    pub fn finish(&mut self) -> Vec<Box<Event>> {
        let mut open = std::mem::take(&mut self.open);
        open.sort_by_key(|o| o.event.first_line());
        for o in open {
            self.finish_open(o, true);
        }
        self.closed.drain(..).collect()
    }

    /// Copies of the events not taken yet, closed as [`Grouper::finish`]
    /// would close them: what the input so far holds, while the real
    /// events stay open for lines still to come.
    pub fn pending(&self) -> Vec<Box<Event>> {
        let mut copy = Grouper { open: self.open.clone(), closed: self.closed.clone(), ..Grouper::default() };
        copy.finish()
    }

    /// Takes the next event whose place in the input order is settled.
    pub fn pop(&mut self) -> Option<Box<Event>> {
        let front = self.closed.front()?;
        let min_open = self.open.iter().map(|o| o.event.first_line()).min().unwrap_or(u64::MAX);
        if front.first_line() < min_open {
            self.closed.pop_front()
        } else {
            None
        }
    }

    /// Whether every open event is a one-record event (no traceback, dump
    /// or panic is open): then a record that [`opens_record`] and is
    /// complete ([`ends_record`] of the line after it) needs no grouping.
    pub fn holds_only_records(&self) -> bool {
        self.open.iter().all(|o| o.state == State::Single)
    }

    /// Whether `record` (of class `kind`), pushed now, would continue an
    /// open event.
    pub fn continues_open(&self, record: &Record<'_>, kind: LineKind) -> bool {
        if self.open.is_empty() {
            return false;
        }
        let key = self.key_of(record).0;
        self.open
            .iter()
            .find(|o| o.key == key)
            .is_some_and(|open| continuation(open, record, record.message, kind).is_some())
    }

    /// Takes line `number`, a record that is an event by itself and is
    /// handed on without being grouped: the open one-record events end
    /// (they can then be taken with [`Grouper::pop`]), and the stream of a
    /// bare line after it is this record's, as if it had been pushed.
    pub fn pass_record(&mut self, number: u64, record: &Record<'_>) {
        self.close_single_records(None);
        let (key, carrier) = self.key_of(record);
        self.last_key = Some(key);
        self.last_carrier = carrier;
        self.lines_seen = number;
    }

    /// The stream a record belongs to, and what carried it (a bare line
    /// keeps the last one's). A bare line belongs to the stream of the line
    /// before it; so does a line that only its carrier names (a journal's
    /// prefix, a pod's) after a line of the same carrier, as it would
    /// without the carrier.
    fn key_of(&self, record: &Record<'_>) -> (u64, Option<stream::Carrier>) {
        if record.is_bare() {
            return (self.last_key.unwrap_or(0), self.last_carrier);
        }
        let (key, carrier) = stream::identity(record);
        let carried = record.is_carried_text() && self.last_carrier.is_some_and(|c| c.same_as(carrier));
        (if carried { self.last_key.unwrap_or(0) } else { key }, Some(carrier))
    }

    /// Whether the grouper has no used event to reuse.
    pub fn wants_spare(&self) -> bool {
        self.spare.is_empty()
    }

    /// Hands back an event taken with [`Grouper::pop`] or
    /// [`Grouper::finish`] once it has been used.
    pub fn recycle(&mut self, event: Box<Event>) {
        // A long traceback's buffers are let go rather than kept.
        if self.spare.len() < MAX_SPARE_EVENTS && event.lines.capacity() <= 4 {
            self.spare.push(event);
        }
    }

    /// Opens an event for a stream that has none open.
    fn start(&mut self, key: u64, at: LineAt, text: &str, record: &Record<'_>, kind: LineKind) {
        if self.open.len() >= MAX_OPEN_STREAMS {
            let oldest = (0..self.open.len()).min_by_key(|&i| self.open[i].last_touched).unwrap_or(0);
            let done = self.open.swap_remove(oldest);
            self.finish_open(done, false);
        }
        let (event, state) = self.new_event(at, text, record, kind);
        self.open.push(Open { key, event, state, origin: None, last_touched: at.ordinal });
        if let Some(open) = self.open.last_mut() {
            set_origin(&mut open.origin, record.origin);
        }
    }

    /// An event whose first line is `record` (reusing a spare one's
    /// buffers), and the state it opens in.
    fn new_event(
        &mut self,
        at: LineAt,
        text: &str,
        record: &Record<'_>,
        kind: LineKind,
    ) -> (Box<Event>, State) {
        let message = record.message;
        let (event_kind, state, role) = match kind {
            LineKind::Header => (EventKind::Traceback, State::Frames, LineRole::TracebackHeader),
            LineKind::Frame => (EventKind::Traceback, State::Frames, LineRole::Frame),
            LineKind::Exception => (EventKind::Traceback, after_exception(message), LineRole::Exception),
            _ if message.starts_with("Fatal Python error:") => {
                (EventKind::FaultDump, State::Dump, LineRole::Text)
            }
            _ => match traceback::panic_header(message) {
                Some(traceback::PanicHeader::MessageFollows) => {
                    (EventKind::FaultDump, State::PanicMessage(0), LineRole::Text)
                }
                Some(traceback::PanicHeader::MessageOnLine) => {
                    (EventKind::FaultDump, State::PanicTrace, LineRole::Text)
                }
                None => (EventKind::Record, State::Single, LineRole::Text),
            },
        };
        let mut event = self.spare.pop().unwrap_or_else(Event::empty);
        event.open(event_kind, at, text, record, role);
        (event, state)
    }

    fn finish_open(&mut self, open: Open, at_end: bool) {
        self.finish_event(open.event, open.state, at_end);
    }

    /// Closes an event that was open in `state`.
    fn finish_event(&mut self, mut event: Box<Event>, state: State, at_end: bool) {
        if event.kind == EventKind::Traceback {
            event.missing_exception = !event.lines.iter().any(|l| l.role == LineRole::Exception);
            event.cut_by_end = at_end && state == State::Frames;
            // Blank lines after the exception belong to the gap, not the event.
            while event.lines.len() > 1 && event.lines.last().is_some_and(|l| l.role == LineRole::Blank) {
                event.lines.pop();
            }
        }
        self.insert_closed(event);
    }

    /// Queues a closed event, keeping the queue sorted by first line (events
    /// close out of order when streams interleave).
    fn insert_closed(&mut self, event: Box<Event>) {
        let first = event.first_line();
        let mut at = self.closed.len();
        while at > 0 && self.closed[at - 1].first_line() > first {
            at -= 1;
        }
        self.closed.insert(at, event);
    }

    /// Closes the open one-record events, but that of stream `except`.
    fn close_single_records(&mut self, except: Option<u64>) {
        let mut i = 0;
        while i < self.open.len() {
            if Some(self.open[i].key) != except && self.open[i].state == State::Single {
                let done = self.open.swap_remove(i);
                self.finish_open(done, false);
            } else {
                i += 1;
            }
        }
    }

    fn close_idle(&mut self) {
        let now = self.lines_seen;
        let mut i = 0;
        while i < self.open.len() {
            if now.saturating_sub(self.open[i].last_touched) > MAX_IDLE_LINES {
                let done = self.open.swap_remove(i);
                self.finish_open(done, false);
            } else {
                i += 1;
            }
        }
    }

    fn close_all(&mut self) {
        for o in std::mem::take(&mut self.open) {
            self.finish_open(o, false);
        }
    }
}

/// Whether `record` (of class `kind`) opens an event of one record: a
/// record that no traceback, dump or panic starts from.
pub fn opens_record(record: &Record<'_>, kind: LineKind) -> bool {
    kind == LineKind::Other
        && record.separator.is_none()
        && !record.message.starts_with("Fatal Python error:")
        && traceback::panic_header(record.message).is_none()
}

/// Whether `record` (of class `kind`), coming right after a record that
/// [`opens_record`], cannot continue its event: so that event is one line,
/// complete. `after_announcer`: that record announces an asyncio report
/// ([`traceback::announces_asyncio_traceback`]), which takes bare lines.
pub fn ends_record(record: &Record<'_>, kind: LineKind, after_announcer: bool) -> bool {
    // See `continuation`: a record in `State::Single` takes native stack
    // lines, a traceback header (under its origin, or bare after a
    // warning), and bare lines that are indented or follow an announcer.
    if record.separator.is_some() || matches!(kind, LineKind::NativeFrame | LineKind::Header) {
        return false;
    }
    !record.is_text_of_stream()
        || (!after_announcer && kind != LineKind::Source && !record.message.starts_with([' ', '\t']))
}

impl Event {
    /// Makes this event the one-line record `record` of line `number`
    /// (at byte `offset`, full text `text`), as the grouper would make it
    /// from a record that [`opens_record`]; its buffers are reused.
    pub fn set_record(&mut self, at: LineAt, text: &str, record: &Record<'_>) {
        self.open(EventKind::Record, at, text, record, LineRole::Text);
    }

    /// Makes this event one of `kind` whose first line is `record` in
    /// `role`, reusing its buffers.
    fn open(&mut self, kind: EventKind, at: LineAt, text: &str, record: &Record<'_>, role: LineRole) {
        self.stream.fill(record, text);
        let buffer = self.lines.first_mut().map(|l| std::mem::take(&mut l.text)).unwrap_or_default();
        self.lines.clear();
        self.lines.push(line_into(buffer, at, text, record, role));
        self.kind = kind;
        self.cut_by_end = false;
        self.missing_exception = role != LineRole::Exception && kind == EventKind::Traceback;
    }

    /// An empty record, to be filled with [`Event::set_record`].
    pub fn empty() -> Box<Event> {
        Box::new(Event {
            kind: EventKind::Record,
            stream: Stream::default(),
            lines: Vec::with_capacity(1),
            cut_by_end: false,
            missing_exception: false,
        })
    }
}

fn owned_line(at: LineAt, text: &str, record: &Record<'_>, role: LineRole) -> EventLine {
    line_into(String::new(), at, text, record, role)
}

/// Sets an open event's origin, reusing its buffer.
fn set_origin(slot: &mut Option<String>, origin: Option<&str>) {
    match (slot.as_mut(), origin) {
        (Some(buffer), Some(origin)) => {
            buffer.clear();
            buffer.push_str(origin);
        }
        (None, Some(origin)) => *slot = Some(origin.to_string()),
        (_, None) => *slot = None,
    }
}

/// An event line whose text is copied into `buffer`.
fn line_into(mut buffer: String, at: LineAt, text: &str, record: &Record<'_>, role: LineRole) -> EventLine {
    buffer.clear();
    buffer.push_str(text);
    let start = record.message_at as u32;
    let end = start + record.message.len() as u32;
    let role = if role == LineRole::Text && record.message.trim().is_empty() && record.separator.is_none() {
        LineRole::Blank
    } else {
        role
    };
    EventLine {
        number: at.number,
        offset: at.offset,
        ordinal: at.ordinal,
        text: buffer,
        message_span: (start, end),
        role,
        level: record.level,
        formats: record.formats,
    }
}

#[cfg(test)]
mod tests;
