//! Drives the structured journal readers of [`crate::framing::journal`]
//! (`json-pretty`, `verbose`, `export`) and hands their entries to the
//! feeder; what the layouts are is known there, not here. A line among
//! the entries that is no part of one (another log concatenated after the
//! journal) is read as text.

use std::io::{self, BufRead};

use super::feeder::Feeder;
use super::summary::ReadSummary;
use super::text::{next_line, next_line_or_stop, wait_for_line, Next};
use super::without_escapes;
use crate::framing::journal::export::{ExportItem, ExportReader};
use crate::framing::journal::layout::{
    PlacedEntry, PrettyEntries, PrettyLine, Shape, VerboseEntries, VerboseLine,
};
use crate::framing::{frame_line, Format, FormatSet};
use crate::input::LineReader;

/// Reads a structured journal of `shape` into the feeder; `first` is the
/// number and byte offset of its first line.
pub(super) fn read<R: BufRead>(
    reader: R,
    shape: Shape,
    first: (u64, u64),
    feeder: &mut Feeder<'_>,
) -> io::Result<ReadSummary> {
    match shape {
        Shape::Export => read_export(reader, first, feeder),
        Shape::Verbose => read_verbose(reader, first, feeder),
        Shape::JsonPretty => read_json_pretty(reader, first, feeder),
    }
}

fn read_export<R: BufRead>(
    reader: R,
    (first, offset): (u64, u64),
    feeder: &mut Feeder<'_>,
) -> io::Result<ReadSummary> {
    let mut entries = ExportReader::new(LineReader::new(reader).starting_at(first).at_offset(offset));
    let mut summary = ReadSummary::default();
    loop {
        // A followed export stream is idle only between entries.
        match entries.next_entry() {
            Err(e) if feeder.following && e.kind() == io::ErrorKind::WouldBlock => {
                feeder.saw(entries.lines(), FormatSet::of(Format::JournalExport));
                feeder.idle()?;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Ok(Some(ExportItem::Entry(e))) => push(feeder, e, Format::JournalExport)?,
            Ok(Some(ExportItem::Text(line))) => {
                feeder.outside_entries += 1;
                push_text(feeder, line.number, line.offset, &line.text)?;
            }
            Ok(None) => break,
            Err(e) => {
                summary.error = Some(e);
                break;
            }
        }
    }
    feeder.saw(entries.lines(), FormatSet::of(Format::JournalExport));
    Ok(summary)
}

/// Reads `json-pretty`; a line outside an object is read as text.
fn read_json_pretty<R: BufRead>(
    reader: R,
    (first, offset): (u64, u64),
    feeder: &mut Feeder<'_>,
) -> io::Result<ReadSummary> {
    let mut lines = LineReader::new(reader).starting_at(first).at_offset(offset);
    let mut summary = ReadSummary::default();
    let mut entries = PrettyEntries::default();
    while let Some(line) = next_line(&mut lines, &mut summary, feeder)? {
        let read = entries.line(line.number, line.offset, line.text.as_ref());
        if let PrettyLine::Text = read {
            feeder.outside_entries += u64::from(!line.text.trim().is_empty());
            push_text(feeder, line.number, line.offset, &line.text)?;
            continue;
        }
        feeder.saw(line.number, FormatSet::of(Format::JournalJson));
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
    (first, offset): (u64, u64),
    feeder: &mut Feeder<'_>,
) -> io::Result<ReadSummary> {
    let mut lines = LineReader::new(reader).starting_at(first).at_offset(offset);
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
        match entries.line(line.number, line.offset, line.text.as_ref()) {
            VerboseLine::Done(done) => push(feeder, done, Format::JournalVerbose)?,
            VerboseLine::Part => {}
            VerboseLine::Text(done) => {
                if let Some(done) = done {
                    push(feeder, done, Format::JournalVerbose)?;
                }
                feeder.outside_entries += u64::from(!line.text.trim().is_empty());
                push_text(feeder, line.number, line.offset, &line.text)?;
                continue;
            }
        }
        feeder.saw(line.number, FormatSet::of(Format::JournalVerbose));
    }
    if let Some(done) = entries.finish() {
        push(feeder, done, Format::JournalVerbose)?;
    }
    summary.cut_lines = lines.cut_lines();
    Ok(summary)
}

/// Hands on a line that is no part of an entry, framed as text.
fn push_text(feeder: &mut Feeder<'_>, number: u64, offset: u64, line: &str) -> io::Result<()> {
    let text = without_escapes(line);
    let framed = frame_line(&text);
    feeder.saw(number, framed.first.formats);
    feeder.push(number, offset, &text, &framed)
}

fn push(feeder: &mut Feeder<'_>, placed: PlacedEntry, format: Format) -> io::Result<()> {
    feeder.push_entry(placed.line, placed.offset, &placed.entry, format)
}
