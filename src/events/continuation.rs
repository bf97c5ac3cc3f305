//! Whether a line continues the open event of its stream: the [`State`]
//! an event is in (a record, a traceback's frames or exception message, a
//! dump, a panic) and the role each line it takes plays there.

use super::traceback::{self, LineKind, Place};
use super::{LineRole, Open};
use crate::framing::{Format, Level, Record};

/// Most lines of an exception message joined to its exception line.
const MAX_EXCEPTION_TEXT: usize = 200;
/// Lines of a Rust panic's message kept before its backtrace.
const MAX_PANIC_MESSAGE: usize = 20;

/// Where an open event is: what kind of line it may take next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum State {
    /// A single record; takes indented bare lines and native stack lines.
    Single,
    /// A traceback before its exception line.
    Frames,
    /// After an exception line: its message may continue (the number of
    /// its lines so far). With `paragraphs`, the exception line ended with
    /// a colon and what it announces follows across blank lines
    /// (sgl_kernel's `ImportError:`, then its report of every place it
    /// looked); else a blank line ends the message.
    ExceptionText { lines: usize, paragraphs: bool },
    /// After a blank line that followed an exception.
    AfterBlank,
    /// After a chain separator, waiting for the next `Traceback` header.
    AfterChain,
    /// A faulthandler dump.
    Dump,
    /// A Rust panic whose message follows its `panicked at …:` line; the
    /// number of message lines so far.
    PanicMessage(usize),
    /// A Rust panic's notes and backtrace.
    PanicTrace,
}

/// Decides whether `record` continues the open event; returns the new state
/// and the line's role if it does. `kind` is the message's class outside a
/// traceback.
pub(super) fn continuation(
    open: &Open,
    record: &Record<'_>,
    message: &str,
    kind: LineKind,
) -> Option<(State, LineRole)> {
    let in_traceback =
        !matches!(open.state, State::Single | State::Dump | State::PanicMessage(_) | State::PanicTrace);
    if is_another_write(open, record, in_traceback) {
        return None;
    }
    let kind = if in_traceback { traceback::classify(message, Place::InTraceback) } else { kind };
    match open.state {
        State::Single => continues_record(open, record, message, kind),
        State::PanicMessage(n) => match panic_continuation(message) {
            Some(role) => Some((State::PanicTrace, role)),
            None if kind == LineKind::Blank || n >= MAX_PANIC_MESSAGE => None,
            None => Some((State::PanicMessage(n + 1), LineRole::ExceptionText)),
        },
        State::PanicTrace => panic_continuation(message).map(|role| (State::PanicTrace, role)),
        State::Dump => continues_dump(message, kind),
        State::Frames => continues_frames(open, record, message, kind),
        State::ExceptionText { lines, paragraphs } => {
            continues_exception_text(record, message, kind, lines, paragraphs)
        }
        State::AfterBlank => match kind {
            LineKind::Blank => Some((State::AfterBlank, LineRole::Blank)),
            LineKind::Chain => Some((State::AfterChain, LineRole::Chain)),
            LineKind::NativeFrame => {
                Some((State::ExceptionText { lines: 1, paragraphs: false }, LineRole::ExceptionText))
            }
            _ => None,
        },
        State::AfterChain => match kind {
            LineKind::Blank => Some((State::AfterChain, LineRole::Blank)),
            LineKind::Header => Some((State::Frames, LineRole::TracebackHeader)),
            _ => None,
        },
    }
}

/// Whether `record`'s prefix shows it is another write than the open
/// event, whatever the event's state (`in_traceback`: the event is a
/// traceback, not a record, a dump or a panic).
fn is_another_write(open: &Open, record: &Record<'_>, in_traceback: bool) -> bool {
    // A new application header starts a new record, unless it repeats the
    // header of this event (vLLM prefixes every line of a multi-line record).
    if record.app_header && (open.origin.is_none() || record.origin != open.origin.as_deref()) {
        return true;
    }
    // The terminal's echo of Ctrl-C (`^CTraceback …`) opens what the
    // interrupt made the program print: nothing written before it goes on.
    if record.formats.contains(Format::TerminalInterrupt) {
        return true;
    }
    // A writer that stamps each write (`2025-06-26T20:41:22.706770 - `)
    // stamps a traceback's first line only: a stamped line is its next write.
    if in_traceback && record.formats.contains(Format::WriteStamp) {
        return true;
    }
    // Under a header that repeats on every line of a record (vLLM's
    // `ERROR … [registry.py:272] `), a bare line is another write (the
    // interpreter's own report of the exception that reached the top).
    let repeats_header = open.origin.is_some() && open.event.lines[0].formats.contains(Format::Vllm);
    in_traceback && repeats_header && record.is_text_of_stream()
}

/// Whether a line continues an event of one record (`State::Single`).
fn continues_record(
    open: &Open,
    record: &Record<'_>,
    message: &str,
    kind: LineKind,
) -> Option<(State, LineRole)> {
    // A terminal that hard-wrapped a journal line after its prefix
    // (`… systemd[1]:`, then the message on the next line): the bare
    // line is the record's message.
    if record.is_bare()
        && open.event.lines.len() == 1
        && open.event.lines[0].message().is_empty()
        // A blank line has no prefix: it wrapped nothing.
        && !open.event.lines[0].text.trim().is_empty()
    {
        return match kind {
            LineKind::Header => Some((State::Frames, LineRole::TracebackHeader)),
            _ => Some((State::Single, LineRole::Text)),
        };
    }
    match kind {
        LineKind::NativeFrame => Some((State::Single, LineRole::Text)),
        // What follows a write's stamp up to the next one is that write
        // (a message of several lines), unless a traceback opens.
        LineKind::Source | LineKind::Other | LineKind::Blank
            if record.is_text_of_stream() && open.event.lines[0].formats.contains(Format::WriteStamp) =>
        {
            Some((State::Single, LineRole::Text))
        }
        // `logger.exception("…")` under a repeating header (vLLM): the
        // record announces the traceback that follows it.
        LineKind::Header if record.origin.is_some() && record.origin == open.origin.as_deref() => {
            Some((State::Frames, LineRole::TracebackHeader))
        }
        LineKind::Source | LineKind::Other
            if record.is_text_of_stream() && message.starts_with([' ', '\t']) =>
        {
            Some((State::Single, LineRole::Text))
        }
        // `logger.exception("…")` (or `exc_info=True`) under a one-line
        // header: the error record, then its traceback without the
        // header (bare, or under the stream's own tag: Ray's
        // `(ServeController pid=36912) `).
        LineKind::Header
            if (record.is_bare() || (!record.app_header && record.level.is_none()))
                && open.event.lines.len() == 1
                && open.event.lines[0].level.is_some_and(Level::is_trouble) =>
        {
            Some((State::Frames, LineRole::TracebackHeader))
        }
        // asyncio's exception handler logs one record of several lines:
        // `Task exception was never retrieved`, `future: <Task …>`, then
        // the traceback of the task's exception.
        _ if record.is_text_of_stream()
            && traceback::announces_asyncio_traceback(open.event.lines[0].message()) =>
        {
            match kind {
                LineKind::Header => Some((State::Frames, LineRole::TracebackHeader)),
                _ if traceback::is_asyncio_context(message) => Some((State::Single, LineRole::Text)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether a line continues a faulthandler dump.
fn continues_dump(message: &str, kind: LineKind) -> Option<(State, LineRole)> {
    match kind {
        LineKind::Blank => Some((State::Dump, LineRole::Blank)),
        LineKind::DumpHeader => Some((State::Dump, LineRole::Text)),
        LineKind::Frame => Some((State::Dump, LineRole::Frame)),
        LineKind::Source => Some((State::Dump, LineRole::Source)),
        _ if message.starts_with("Extension modules:") => Some((State::Dump, LineRole::Text)),
        _ => None,
    }
}

/// Whether a line continues a traceback's frames (before its exception line).
fn continues_frames(
    open: &Open,
    record: &Record<'_>,
    message: &str,
    kind: LineKind,
) -> Option<(State, LineRole)> {
    match kind {
        LineKind::Frame => Some((State::Frames, LineRole::Frame)),
        // loguru's and TGI's tracebacks leave a blank line under the
        // header and after each frame; one the traceback does not go on
        // after is the gap after it (see `finish_event`).
        LineKind::Blank => Some((State::Frames, LineRole::Blank)),
        LineKind::Source => Some((State::Frames, LineRole::Source)),
        // Under a repeating header (vLLM's `ERROR … [core.py:702]`) a
        // paste may have lost the indentation: the line under a frame
        // is its source, and a line of carets marks it.
        LineKind::Other
            if record.origin.is_some()
                && record.origin == open.origin.as_deref()
                && (open.event.lines.last().is_some_and(|l| l.role == LineRole::Frame)
                    || is_caret_line(message)) =>
        {
            Some((State::Frames, LineRole::Source))
        }
        LineKind::Exception => Some((after_exception(message), LineRole::Exception)),
        LineKind::Header if open.event.lines.len() == 1 => Some((State::Frames, LineRole::TracebackHeader)),
        _ => None,
    }
}

/// Whether a line continues the message of an exception, `lines` long so
/// far (`paragraphs`: across blank lines).
fn continues_exception_text(
    record: &Record<'_>,
    message: &str,
    kind: LineKind,
    lines: usize,
    paragraphs: bool,
) -> Option<(State, LineRole)> {
    match kind {
        LineKind::Blank if paragraphs => Some((State::ExceptionText { lines, paragraphs }, LineRole::Blank)),
        LineKind::Blank => Some((State::AfterBlank, LineRole::Blank)),
        LineKind::Chain => Some((State::AfterChain, LineRole::Chain)),
        LineKind::Frame => Some((State::Frames, LineRole::Frame)),
        LineKind::Header => None,
        // libstdc++'s report of an uncaught C++ exception is the
        // runtime's own write, whatever warning came before it.
        _ if message.starts_with("terminate called ") => None,
        // A record of a logger's own (`INFO:     … "POST /v1/models
        // HTTP/1.1" 503`) is the next record, not more of the message.
        _ if record.level.is_some() && !record.app_header => None,
        _ if lines < MAX_EXCEPTION_TEXT => {
            Some((State::ExceptionText { lines: lines + 1, paragraphs }, LineRole::ExceptionText))
        }
        _ => None,
    }
}

/// The state after an exception line: its message continues on the lines
/// after it, or, when the line ends with a colon, what it announces follows
/// over lines and paragraphs: all of the message after its type alone
/// (`ImportError:`), or a list or table (Ray's `… The top 5 memory
/// consumers are:`).
pub(super) fn after_exception(message: &str) -> State {
    State::ExceptionText { lines: 0, paragraphs: message.trim_end().ends_with(':') }
}

/// A line of carets (and tildes) that marks the failing part of the
/// source line above it (Python 3.11+).
fn is_caret_line(message: &str) -> bool {
    let marks = message.trim();
    marks.contains('^') && marks.bytes().all(|b| matches!(b, b'^' | b'~' | b' '))
}

/// The role of a line that continues a Rust panic after its message: the
/// `note: run with RUST_BACKTRACE=1 …` advice, `stack backtrace:` and the
/// indented frames (`  12: 0x7f… - sym`, `at src/x.rs:3:9`).
fn panic_continuation(message: &str) -> Option<LineRole> {
    if message.starts_with("note: ") || message == "stack backtrace:" {
        Some(LineRole::Text)
    } else if message.starts_with(' ') && !message.trim().is_empty() {
        Some(LineRole::Source)
    } else {
        None
    }
}
