//! Structured journal input: the shapes of `journalctl -o json` and
//! friends, and `-o export`.

use std::io::{self, BufRead};

use super::{Feeder, ReadSummary};
use crate::framing::journal::parse_json_entry;
use crate::framing::{Format, FormatSet};
use crate::input::export::{looks_like_export, ExportReader};
use crate::input::LineReader;

/// How a structured journal is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// One JSON object per line (`json`; also `json-seq` with its `\x1e`,
    /// `json-sse` with its `data: `).
    JsonLines,
    /// `json-pretty`: objects spread over lines, `{` and `}` alone.
    JsonPretty,
    /// `export`.
    Export,
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
    let object = first_line
        .strip_prefix(b"\x1e")
        .or_else(|| first_line.strip_prefix(b"data: "))
        .unwrap_or(first_line);
    (object.starts_with(b"{\"") || object.starts_with(b"{ \"")).then_some(Shape::JsonLines)
}

/// Reads a structured journal of `shape` into the feeder.
pub fn read<R: BufRead>(
    reader: R,
    shape: Shape,
    on_line: &mut impl FnMut(u64, FormatSet),
    feeder: &mut Feeder<'_>,
) -> io::Result<ReadSummary> {
    match shape {
        Shape::Export => read_export(reader, on_line, feeder),
        Shape::JsonLines | Shape::JsonPretty => read_json(reader, shape, on_line, feeder),
    }
}

fn formats(format: Format) -> FormatSet {
    let mut set = FormatSet::default();
    set.insert(format);
    set
}

fn read_export<R: BufRead>(
    reader: R,
    on_line: &mut impl FnMut(u64, FormatSet),
    feeder: &mut Feeder<'_>,
) -> io::Result<ReadSummary> {
    let mut entries = ExportReader::new(reader);
    let mut summary = ReadSummary::default();
    loop {
        match entries.next_entry() {
            Ok(Some(e)) => feeder.push_entry(e.line, e.offset, &e.entry, Format::JournalExport)?,
            Ok(None) => break,
            Err(e) => {
                summary.error = Some(e);
                break;
            }
        }
    }
    on_line(entries.lines(), formats(Format::JournalExport));
    Ok(summary)
}

fn read_json<R: BufRead>(
    reader: R,
    shape: Shape,
    on_line: &mut impl FnMut(u64, FormatSet),
    feeder: &mut Feeder<'_>,
) -> io::Result<ReadSummary> {
    let mut lines = LineReader::new(reader);
    let mut summary = ReadSummary::default();
    // json-pretty: the object being gathered, from its `{` line.
    let mut pending: Option<(u64, u64, String)> = None;
    loop {
        let line = match lines.next_line() {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(e) => {
                summary.error = Some(e);
                break;
            }
        };
        on_line(line.number, formats(Format::JournalJson));
        let text = line.text.as_ref();
        let object = match shape {
            Shape::JsonPretty => {
                if text == "{" {
                    pending = Some((line.number, line.offset, String::from("{")));
                    continue;
                }
                let Some((_, _, gathered)) = pending.as_mut() else {
                    continue;
                };
                gathered.push_str(text);
                gathered.push('\n');
                if text != "}" {
                    continue;
                }
                let (number, offset, gathered) = pending.take().expect("gathering");
                Some((number, offset, gathered))
            }
            _ => {
                let body = text
                    .strip_prefix('\x1e')
                    .or_else(|| text.strip_prefix("data: "))
                    .unwrap_or(text);
                body.starts_with('{')
                    .then(|| (line.number, line.offset, body.to_string()))
            }
        };
        let Some((number, offset, json)) = object else {
            continue;
        };
        if let Some(entry) = parse_json_entry(&json) {
            feeder.push_entry(number, offset, &entry, Format::JournalJson)?;
        }
    }
    summary.cut_lines = lines.cut_lines();
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_are_recognised_by_their_first_bytes() {
        assert_eq!(
            sniff(b"{\"__CURSOR\":\"s=1\",\"MESSAGE\":\"x\"}\n"),
            Some(Shape::JsonLines)
        );
        assert_eq!(
            sniff(b"{ \"__CURSOR\" : \"s=1\" }\n"),
            Some(Shape::JsonLines)
        );
        assert_eq!(sniff(b"\x1e{\"MESSAGE\":\"x\"}\n"), Some(Shape::JsonLines));
        assert_eq!(
            sniff(b"data: {\"MESSAGE\":\"x\"}\n\n"),
            Some(Shape::JsonLines)
        );
        assert_eq!(
            sniff(b"{\n\t\"__CURSOR\" : \"s=1\",\n"),
            Some(Shape::JsonPretty)
        );
        assert_eq!(
            sniff(b"__CURSOR=s=1;i=2\n__REALTIME_TIMESTAMP=1\n"),
            Some(Shape::Export)
        );
        assert_eq!(sniff(b"May 25 20:27:22 h python[1]: {\"a\":1}\n"), None);
        assert_eq!(sniff(b"[2026-01-01 10:00:00] x\n"), None);
    }
}
