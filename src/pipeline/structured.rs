//! Drives the structured journal readers of [`crate::framing::journal`]
//! (`json-pretty`, `verbose`, `export`) and hands their entries to the
//! feeder; what the layouts are is known there, not here.

use std::io::{self, BufRead};

use super::{next_line, next_line_or_stop, wait_for_line, without_escapes, Feeder, Next, ReadSummary};
use crate::framing::journal::export::ExportReader;
use crate::framing::journal::layout::{PlacedEntry, PrettyEntries, PrettyLine, Shape, VerboseEntries};
use crate::framing::{frame_line, Format, FormatSet};
use crate::input::LineReader;

/// Reads a structured journal of `shape` into the feeder.
pub fn read<R: BufRead>(
    reader: R,
    shape: Shape,
    first: u64,
    on_line: &mut impl FnMut(u64, FormatSet),
    feeder: &mut Feeder<'_>,
) -> io::Result<ReadSummary> {
    match shape {
        Shape::Export => read_export(reader, first, on_line, feeder),
        Shape::Verbose => read_verbose(reader, first, on_line, feeder),
        Shape::JsonPretty => read_json_pretty(reader, first, on_line, feeder),
    }
}

fn read_export<R: BufRead>(
    reader: R,
    first: u64,
    on_line: &mut impl FnMut(u64, FormatSet),
    feeder: &mut Feeder<'_>,
) -> io::Result<ReadSummary> {
    let mut entries = ExportReader::new(reader).starting_at(first);
    let mut summary = ReadSummary::default();
    loop {
        // A followed export stream is idle only between entries.
        match entries.next_entry() {
            Err(e) if feeder.following && e.kind() == io::ErrorKind::WouldBlock => {
                on_line(entries.lines(), FormatSet::of(Format::JournalExport));
                feeder.idle()?;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Ok(Some(e)) => push(feeder, e, Format::JournalExport)?,
            Ok(None) => break,
            Err(e) => {
                summary.error = Some(e);
                break;
            }
        }
    }
    on_line(entries.lines(), FormatSet::of(Format::JournalExport));
    Ok(summary)
}

/// Reads `json-pretty`; a line outside an object is read as text.
fn read_json_pretty<R: BufRead>(
    reader: R,
    first: u64,
    on_line: &mut impl FnMut(u64, FormatSet),
    feeder: &mut Feeder<'_>,
) -> io::Result<ReadSummary> {
    let mut lines = LineReader::new(reader).starting_at(first);
    let mut summary = ReadSummary::default();
    let mut entries = PrettyEntries::default();
    while let Some(line) = next_line(&mut lines, &mut summary, feeder)? {
        let read = entries.line(line.number, line.offset, line.text.as_ref());
        if let PrettyLine::Text = read {
            let text = without_escapes(line.text.as_ref());
            let framed = frame_line(&text);
            on_line(line.number, framed.first.formats);
            feeder.push(line.number, line.offset, &text, &framed)?;
            continue;
        }
        on_line(line.number, FormatSet::of(Format::JournalJson));
        match read {
            PrettyLine::Entry { entry, damaged } => {
                feeder.damaged += u64::from(damaged);
                push(feeder, entry, Format::JournalJson)?;
            }
            PrettyLine::Unreadable => feeder.damaged += 1,
            PrettyLine::Text | PrettyLine::Part => {}
        }
    }
    summary.cut_lines = lines.cut_lines();
    Ok(summary)
}

fn read_verbose<R: BufRead>(
    reader: R,
    first: u64,
    on_line: &mut impl FnMut(u64, FormatSet),
    feeder: &mut Feeder<'_>,
) -> io::Result<ReadSummary> {
    let mut lines = LineReader::new(reader).starting_at(first);
    let mut summary = ReadSummary::default();
    let mut entries = VerboseEntries::default();
    loop {
        match wait_for_line(&mut lines, &mut summary, feeder.following) {
            Next::Line => {}
            Next::Idle => {
                // journalctl writes whole entries: the last one is complete.
                if let Some(done) = entries.finish() {
                    push(feeder, done, Format::JournalVerbose)?;
                }
                feeder.idle()?;
                continue;
            }
            Next::End => break,
        }
        let Some(line) = next_line_or_stop(&mut lines, &mut summary) else { break };
        on_line(line.number, FormatSet::of(Format::JournalVerbose));
        if let Some(done) = entries.line(line.number, line.offset, line.text.as_ref()) {
            push(feeder, done, Format::JournalVerbose)?;
        }
    }
    if let Some(done) = entries.finish() {
        push(feeder, done, Format::JournalVerbose)?;
    }
    summary.cut_lines = lines.cut_lines();
    Ok(summary)
}

fn push(feeder: &mut Feeder<'_>, placed: PlacedEntry, format: Format) -> io::Result<()> {
    feeder.push_entry(placed.line, placed.offset, &placed.entry, format)
}
