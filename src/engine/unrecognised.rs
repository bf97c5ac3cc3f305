//! A failure no rule recognises, as the `unknown` fallback keeps it: an
//! uncaught traceback, a fatal error record or a native dump, with its
//! title, evidence and fingerprint; and a traceback the end of the input
//! cut before its exception line.

use super::handling::{raised_in_a_thread, reaches_top_level, Handling};
use super::run::{CutTraceback, EvidenceLine, Failure};
use super::{fingerprint, in_package, liveness, shorten};
use crate::events::{Event, EventKind, EventLine, LineRole};
use crate::framing::Level;
use crate::rules::Category;

/// An unrecognised traceback or fatal-error dump, for the `unknown`
/// fallback: the root exception of the chain is the decisive line.
pub(super) fn failure_of(
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
        evidence.push(EvidenceLine::of(root));
        if let Some(last) = exceptions.last().filter(|l| l.number != root.number) {
            evidence.push(EvidenceLine::of(last));
        }
        let named = fate.is_some_and(|(category, _)| category != Category::Unknown);
        match named {
            // A fate line read it: its own words say what it was.
            true => shorten(root.message().trim(), 160),
            false => format!("Unrecognised failure: {}", shorten(root.message().trim(), 120)),
        }
    } else if event.kind == EventKind::Record {
        evidence.push(EvidenceLine::of(first));
        format!("Unrecognised fatal error: {}", shorten(first.message().trim(), 120))
    } else if event.kind == EventKind::FaultDump {
        evidence.push(EvidenceLine::of(first));
        match event.lines.iter().find(|l| l.role == LineRole::ExceptionText) {
            // A Rust panic: where, then what.
            Some(message) => {
                evidence.push(EvidenceLine::of(message));
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
        evidence.extend(raised.map(EvidenceLine::of));
        let frame = event.lines.iter().rev().find(|l| l.role == LineRole::Frame);
        evidence.extend(frame.map(EvidenceLine::of));
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
        evidence.push(EvidenceLine::of(first));
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
pub(super) fn raises_with_message(source: &str) -> bool {
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

pub(super) fn cut_traceback_of(event: &Event) -> CutTraceback {
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

/// `flashinfer/sampling.py:54 in get_sampling_module`: the path from the
/// package down (after site-packages/dist-packages) keeps it readable.
fn frame_place(file: &str, line: u32, function: &str) -> String {
    format!("{}:{line} in {function}", in_package(file).unwrap_or(file))
}
