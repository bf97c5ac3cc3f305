//! Structured journal input: the shapes of `journalctl -o json` and
//! friends, and `-o export`.

use std::io::{self, BufRead};

use super::{next_line, next_line_or_stop, wait_for_line, without_escapes, Feeder, Next, ReadSummary};
use crate::framing::journal::JournalEntry;
use crate::framing::json_line::{read_json_line, JsonLine, JsonRecord};
use crate::framing::{frame_line, Format, FormatSet};
use crate::input::export::{looks_like_export, ExportReader};
use crate::input::LineReader;

/// How a structured journal is laid out over several lines. (One JSON
/// object per line, as `json`, `json-seq` and `json-sse` write, is read
/// line by line with text: see [`crate::framing::json_line`].)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// `json-pretty`: objects spread over lines, `{` and `}` alone.
    JsonPretty,
    /// `export`.
    Export,
    /// `verbose`: a header line per entry, then `    FIELD=value` lines.
    Verbose,
}

/// Recognises a structured journal from its first bytes.
pub fn sniff(head: &[u8]) -> Option<Shape> {
    if looks_like_export(head) {
        return Some(Shape::Export);
    }
    let first_line = head.split(|&b| b == b'\n').next().unwrap_or(head);
    let first_line = first_line.strip_suffix(b"\r").unwrap_or(first_line);
    if first_line == b"{" {
        return Some(Shape::JsonPretty);
    }
    is_verbose_header(&String::from_utf8_lossy(first_line)).then_some(Shape::Verbose)
}

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
            Ok(Some(e)) => feeder.push_entry(e.line, e.offset, &e.entry, Format::JournalExport)?,
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

/// Reads `json-pretty`: objects spread over lines, `{` and `}` alone. A
/// line outside an object (an error journalctl wrote to the same stream)
/// is read as text.
fn read_json_pretty<R: BufRead>(
    reader: R,
    first: u64,
    on_line: &mut impl FnMut(u64, FormatSet),
    feeder: &mut Feeder<'_>,
) -> io::Result<ReadSummary> {
    let mut lines = LineReader::new(reader).starting_at(first);
    let mut summary = ReadSummary::default();
    // The object being gathered, and where its MESSAGE is. An object read
    // in part when the input goes idle waits for its end.
    let mut pending: Option<(u64, u64, String)> = None;
    while let Some(line) = next_line(&mut lines, &mut summary, feeder)? {
        let text = line.text.as_ref();
        if text == "{" {
            pending = Some((line.number, line.offset, String::from("{")));
            on_line(line.number, FormatSet::of(Format::JournalJson));
            continue;
        }
        let Some((number, offset, gathered)) = pending.as_mut() else {
            let text = without_escapes(text);
            let framed = frame_line(&text);
            on_line(line.number, framed.first.formats);
            feeder.push(line.number, line.offset, &text, &framed)?;
            continue;
        };
        on_line(line.number, FormatSet::of(Format::JournalJson));
        // The evidence points at the MESSAGE field's line.
        if text.trim_start().starts_with("\"MESSAGE\"") {
            (*number, *offset) = (line.number, line.offset);
        }
        gathered.push_str(text);
        gathered.push('\n');
        if text != "}" {
            continue;
        }
        let Some((number, offset, json)) = pending.take() else { continue };
        // A damaged object (a lone surrogate escape) is read as far as it
        // goes, as a damaged JSON line is.
        match read_json_line(&json) {
            Some(JsonLine { record: JsonRecord::Journal(entry), damaged }) => {
                feeder.damaged += u64::from(damaged);
                feeder.push_entry(number, offset, &entry, Format::JournalJson)?;
            }
            _ => feeder.damaged += 1,
        }
    }
    summary.cut_lines = lines.cut_lines();
    Ok(summary)
}

/// `Sun 2025-05-25 20:17:52.000000 UTC [s=…;i=1;b=…;m=…;t=…;x=…]`.
pub(super) fn is_verbose_header(line: &str) -> bool {
    let Some((stamp, cursor)) = line.split_once(" [s=") else { return false };
    cursor.ends_with(']')
        && ["Mon ", "Tue ", "Wed ", "Thu ", "Fri ", "Sat ", "Sun "].iter().any(|d| stamp.starts_with(d))
        && stamp.len() > 20
}

fn read_verbose<R: BufRead>(
    reader: R,
    first: u64,
    on_line: &mut impl FnMut(u64, FormatSet),
    feeder: &mut Feeder<'_>,
) -> io::Result<ReadSummary> {
    let mut lines = LineReader::new(reader).starting_at(first);
    let mut summary = ReadSummary::default();
    // The entry being gathered: its first line, its MESSAGE line, its fields.
    let mut entry: Option<VerboseEntry> = None;
    loop {
        match wait_for_line(&mut lines, &mut summary, feeder.following) {
            Next::Line => {}
            Next::Idle => {
                // journalctl writes whole entries: the last one is complete.
                if let Some(done) = entry.take() {
                    done.push(feeder)?;
                }
                feeder.idle()?;
                continue;
            }
            Next::End => break,
        }
        let Some(line) = next_line_or_stop(&mut lines, &mut summary) else { break };
        on_line(line.number, FormatSet::of(Format::JournalVerbose));
        let text = line.text.as_ref();
        if is_verbose_header(text) {
            if let Some(done) = entry.take() {
                done.push(feeder)?;
            }
            entry = Some(VerboseEntry {
                first: (line.number, line.offset),
                message_at: None,
                fields: Vec::new(),
            });
            continue;
        }
        let Some(current) = entry.as_mut() else { continue };
        let Some(body) = text.strip_prefix("    ") else { continue };
        let field = body.split_once('=').filter(|(name, _)| is_field_name(name));
        match field {
            Some((name, value)) => {
                if name == "MESSAGE" {
                    current.message_at = Some((line.number, line.offset));
                }
                current.fields.push((name.to_string(), value.to_string()));
            }
            // A multi-line value continues indented under its field.
            None => {
                if let Some((_, value)) = current.fields.last_mut() {
                    value.push('\n');
                    value.push_str(body.trim_start());
                }
            }
        }
    }
    if let Some(done) = entry.take() {
        done.push(feeder)?;
    }
    summary.cut_lines = lines.cut_lines();
    Ok(summary)
}

struct VerboseEntry {
    first: (u64, u64),
    message_at: Option<(u64, u64)>,
    fields: Vec<(String, String)>,
}

impl VerboseEntry {
    fn push(self, feeder: &mut Feeder<'_>) -> io::Result<()> {
        let (number, offset) = self.message_at.unwrap_or(self.first);
        let entry = JournalEntry::from_pairs(self.fields.iter().map(|(n, v)| (n.as_str(), v.as_bytes())));
        feeder.push_entry(number, offset, &entry, Format::JournalVerbose)
    }
}

/// Journal field names: upper-case letters, digits and `_`.
fn is_field_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_are_recognised_by_their_first_bytes() {
        assert_eq!(
            sniff(b"{\"__CURSOR\":\"s=1\",\"MESSAGE\":\"x\"}\n"),
            None,
            "JSON lines are read line by line"
        );
        assert_eq!(sniff(b"{\n\t\"__CURSOR\" : \"s=1\",\n"), Some(Shape::JsonPretty));
        assert_eq!(sniff(b"__CURSOR=s=1;i=2\n__REALTIME_TIMESTAMP=1\n"), Some(Shape::Export));
        assert_eq!(sniff(b"May 25 20:27:22 h python[1]: {\"a\":1}\n"), None);
        assert_eq!(sniff(b"[2026-01-01 10:00:00] x\n"), None);
        assert_eq!(
            sniff(
                b"Sun 2025-05-25 20:17:52.000000 UTC [s=ac48;i=1;b=0123;m=f4240;t=635f;x=8e10]\n    _PID=1\n"
            ),
            Some(Shape::Verbose)
        );
        assert_eq!(sniff(b"Sun 2025-05-25 20:27:22 UTC gpu01 python3[4242]: hello\n"), None);
    }
}
