//! Journals laid out over several lines per entry: `-o json-pretty`
//! (objects with `{` and `}` alone on their lines), `-o verbose` (a header
//! line, then indented `FIELD=value` lines) and `-o export` (read by
//! [`super::export`]). Each is recognised from its first bytes, and its
//! lines are gathered here into [`PlacedEntry`]s.

use super::json_line::{read_json_line, JsonLine, JsonRecord};
use super::{looks_like_export, JournalEntry};
use crate::input::StopAt;

/// How a structured journal is laid out over several lines. (One JSON
/// object per line, as `json`, `json-seq` and `json-sse` write, is read
/// line by line with text: see [`super::json_line`].)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// `json-pretty`: objects spread over lines, `{` and `}` alone.
    JsonPretty,
    /// `export`.
    Export,
    /// `verbose`: a header line per entry, then `    FIELD=value` lines.
    Verbose,
}

/// One entry with where it sits in the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlacedEntry {
    /// The line of its MESSAGE field (or its first line), 1-based: the
    /// line its evidence points at.
    pub line: u64,
    /// Byte offset of that line.
    pub offset: u64,
    /// The entry.
    pub entry: JournalEntry,
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

/// The lines that open a structured journal after lines of text (a
/// `Hint:` that journalctl wrote to the same terminal, another log
/// concatenated in front): a text's reader ends its part before one, and
/// the rest is read in the journal's own shape.
pub const OPENS_A_DUMP: StopAt = StopAt { first_bytes: b"_{MTWFS", opens: opens_dump };

/// Whether `line` opens a structured journal, given the bytes after it.
fn opens_dump(line: &[u8], after: &[u8]) -> Option<bool> {
    match line {
        [b'_', ..] => Some(looks_like_export(line)),
        // `json-pretty`: `{` alone, then the entry's first field, a
        // journal field (`"__CURSOR" : …`), not any pretty-printed object.
        b"{" => {
            let next = match memchr::memchr(b'\n', after) {
                Some(end) => &after[..end],
                None if after.len() < 16 => return None,
                None => after,
            };
            Some(next.trim_ascii_start().starts_with(b"\"__"))
        }
        // Most lines that start with a weekday's letter end otherwise.
        [.., b']'] => Some(std::str::from_utf8(line).is_ok_and(is_verbose_header)),
        _ => Some(false),
    }
}

/// `Sun 2025-05-25 20:17:52.000000 UTC [s=…;i=1;b=…;m=…;t=…;x=…]`: the
/// line that opens a `-o verbose` entry.
pub fn is_verbose_header(line: &str) -> bool {
    let Some((stamp, cursor)) = line.split_once(" [s=") else { return false };
    cursor.ends_with(']')
        && ["Mon ", "Tue ", "Wed ", "Thu ", "Fri ", "Sat ", "Sun "].iter().any(|d| stamp.starts_with(d))
        && stamp.len() > 20
}

/// Gathers `-o verbose` entries from their lines.
#[derive(Debug, Default)]
pub struct VerboseEntries {
    current: Option<VerboseEntry>,
}

#[derive(Debug)]
struct VerboseEntry {
    first: (u64, u64),
    message_at: Option<(u64, u64)>,
    fields: Vec<(String, String)>,
}

/// What one line of a `-o verbose` journal was.
#[derive(Debug)]
pub enum VerboseLine {
    /// A header that completed the entry before it.
    Done(PlacedEntry),
    /// Part of an entry (or a header of the first one, or a blank line).
    Part,
    /// A line of text that is no part of an entry: it completed the entry
    /// before it, if there was one.
    Text(Option<PlacedEntry>),
}

impl VerboseEntries {
    /// Reads the line `number` at `offset`: a header line, or a line not
    /// indented as a field is, completes the entry before it.
    pub fn line(&mut self, number: u64, offset: u64, text: &str) -> VerboseLine {
        if is_verbose_header(text) {
            let done = self.finish();
            self.current =
                Some(VerboseEntry { first: (number, offset), message_at: None, fields: Vec::new() });
            return done.map_or(VerboseLine::Part, VerboseLine::Done);
        }
        if text.trim().is_empty() {
            return VerboseLine::Part;
        }
        let (Some(current), Some(body)) = (self.current.as_mut(), text.strip_prefix("    ")) else {
            return VerboseLine::Text(self.finish());
        };
        match body.split_once('=').filter(|(name, _)| is_field_name(name)) {
            Some((name, value)) => {
                if name == "MESSAGE" {
                    current.message_at = Some((number, offset));
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
        VerboseLine::Part
    }

    /// The entry being gathered, as it is: at the end of the input, or when
    /// it goes quiet (journalctl writes whole entries).
    pub fn finish(&mut self) -> Option<PlacedEntry> {
        let done = self.current.take()?;
        let (line, offset) = done.message_at.unwrap_or(done.first);
        let entry = JournalEntry::from_pairs(done.fields.iter().map(|(n, v)| (n.as_str(), v.as_bytes())));
        Some(PlacedEntry { line, offset, entry })
    }
}

/// Journal field names: upper-case letters, digits and `_`.
pub(super) fn is_field_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

/// Gathers `-o json-pretty` objects from their lines.
#[derive(Debug, Default)]
pub struct PrettyEntries {
    /// The object being gathered, and where its MESSAGE is. An object read
    /// in part when the input goes idle waits for its end.
    pending: Option<(u64, u64, String)>,
}

/// What one line of `json-pretty` input is.
#[derive(Debug)]
pub enum PrettyLine {
    /// A line outside any object (an error journalctl wrote to the same
    /// stream): it is read as text.
    Text,
    /// A line of an object not yet complete.
    Part,
    /// The last line of an object, and the entry it held.
    Entry {
        /// The entry.
        entry: PlacedEntry,
        /// It was read only as far as it goes (a lone surrogate escape).
        damaged: bool,
    },
    /// The last line of an object that is not a journal entry.
    Unreadable,
}

/// A `json-pretty` field line longer than this that is not the message
/// is not read.
const LONG_FIELD_BYTES: usize = 64 << 10;

impl PrettyEntries {
    /// Reads the line `number` at `offset`.
    pub fn line(&mut self, number: u64, offset: u64, text: &str) -> PrettyLine {
        if text == "{" {
            self.pending = Some((number, offset, String::from("{")));
            return PrettyLine::Part;
        }
        let Some((message_line, message_offset, gathered)) = self.pending.as_mut() else {
            return PrettyLine::Text;
        };
        // The evidence points at the MESSAGE field's line.
        let message = text.trim_start().starts_with("\"MESSAGE\"");
        if message {
            (*message_line, *message_offset) = (number, offset);
        }
        // A long field other than the message (a core dump, an
        // environment) is left out: what is read of an entry stays small,
        // and a field cut at the line cap cannot swallow the fields after
        // it.
        if text.len() > LONG_FIELD_BYTES && !message {
            return PrettyLine::Part;
        }
        gathered.push_str(text);
        gathered.push('\n');
        if text != "}" {
            return PrettyLine::Part;
        }
        let Some((line, offset, json)) = self.pending.take() else { return PrettyLine::Part };
        match read_json_line(&json) {
            Some(JsonLine { record: JsonRecord::Journal(entry), damaged }) => {
                PrettyLine::Entry { entry: PlacedEntry { line, offset, entry }, damaged }
            }
            _ => PrettyLine::Unreadable,
        }
    }
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

    #[test]
    fn verbose_entries_point_at_their_message_and_keep_multi_line_values() {
        let mut entries = VerboseEntries::default();
        let header = "Sun 2025-05-25 20:17:52.000000 UTC [s=ac48;i=1;b=0123;m=f4240;t=635f;x=8e10]";
        assert!(matches!(entries.line(1, 0, "stray line"), VerboseLine::Text(None)));
        assert!(matches!(entries.line(2, 11, header), VerboseLine::Part));
        assert!(matches!(entries.line(3, 90, "    _PID=7"), VerboseLine::Part));
        assert!(matches!(entries.line(4, 101, "    MESSAGE=first"), VerboseLine::Part));
        assert!(matches!(entries.line(5, 119, "        second"), VerboseLine::Part));
        let VerboseLine::Done(done) = entries.line(6, 134, header) else {
            panic!("a header completes the entry before it")
        };
        assert_eq!((done.line, done.offset), (4, 101));
        assert_eq!(done.entry.message.as_deref(), Some("first\nsecond"));
        assert_eq!(done.entry.fields.pid, Some(7));
        let VerboseLine::Text(Some(last)) = entries.line(7, 200, "[2026-05-25 20:18:00] a log after it")
        else {
            panic!("a line of text completes the entry before it")
        };
        assert_eq!((last.line, last.entry.message), (6, None));
        assert!(entries.finish().is_none());
    }

    #[test]
    fn pretty_objects_are_entries_and_stray_lines_text() {
        let mut entries = PrettyEntries::default();
        assert!(matches!(entries.line(1, 0, "journalctl: error"), PrettyLine::Text));
        assert!(matches!(entries.line(2, 18, "{"), PrettyLine::Part));
        assert!(matches!(entries.line(3, 20, "\t\"_PID\" : \"9\","), PrettyLine::Part));
        assert!(matches!(entries.line(4, 35, "\t\"MESSAGE\" : \"hi\""), PrettyLine::Part));
        match entries.line(5, 52, "}") {
            PrettyLine::Entry { entry, damaged } => {
                assert_eq!((entry.line, entry.offset, damaged), (4, 35, false));
                assert_eq!(entry.entry.message.as_deref(), Some("hi"));
            }
            other => panic!("expected an entry, got {other:?}"),
        }
        assert!(matches!(entries.line(6, 54, "{"), PrettyLine::Part));
        assert!(matches!(entries.line(7, 56, "[1,"), PrettyLine::Part));
        assert!(matches!(entries.line(8, 60, "}"), PrettyLine::Unreadable));
    }
}
