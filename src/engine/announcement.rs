//! What announces a traceback that is not grouped with it: the latest
//! harmless announcement (`Exception occurred during processing of
//! request from …`) and the latest error record, of the same writer a
//! line or two above it (`logger.exception` prints message, then
//! traceback).

use super::handling::says_it_ends;
use super::run::EvidenceLine;
use crate::events::{Event, EventKind, LineRole};
use crate::framing::Level;

/// A record that may announce the traceback of its writer that follows
/// it, and how many lines that writer wrote since. Nearness is counted in
/// the writer's own lines, not in lines of the input: a structured journal
/// spreads one line over many, and other writers' lines between do not
/// part the two.
#[derive(Debug, Clone, Copy)]
pub(super) struct Announcement {
    writer: u64,
    pub(super) lines_since: u64,
}

impl Announcement {
    pub(super) fn new(writer: u64) -> Self {
        Announcement { writer, lines_since: 0 }
    }

    /// Counts the lines of an event (or record) of `writer` read after it.
    pub(super) fn count(&mut self, writer: u64, lines: usize) {
        if writer == self.writer {
            self.lines_since += lines as u64;
        }
    }

    /// Whether a traceback of `writer` opening now follows it with at most
    /// `gap` of the writer's lines between.
    pub(super) fn within(&self, writer: u64, gap: u64) -> bool {
        writer == self.writer && self.lines_since <= gap
    }
}

/// An error record that may announce the traceback after it although the
/// two are not one event: the record's message went on for a line or two
/// without a header (httpx's `… For more information check: …`), and the
/// traceback came next (`logger.exception` prints message, then
/// traceback).
#[derive(Clone)]
pub(super) struct ErrorRecord {
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
pub(super) struct Announcer {
    /// The record's first line.
    pub(super) said: EvidenceLine,
    /// Code caught the exception and logged it: the record announced it.
    pub(super) caught: bool,
}

/// How many lines of message may stand between an error record and the
/// traceback it announces.
const ANNOUNCEMENT_GAP: u64 = 2;

/// How many lines of its writer may stand between a harmless announcement
/// (`Exception occurred during processing of request from …`) and the
/// traceback it announces.
pub(super) const HARMLESS_ANNOUNCEMENT_GAP: u64 = 1;

/// Tells whether `event`, a traceback opened by its header, is announced
/// by an error record a line or two above it, of the same writer (see
/// [`ErrorRecord`]), and remembers what the event leaves for the next one.
/// Returns the announcing record's first line.
pub(super) fn note_error_record(
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
            let said = EvidenceLine::of(opening);
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
pub(super) fn note_record(
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
