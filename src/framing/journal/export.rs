//! `journalctl -o export`: entries of `FIELD=value` lines separated by an
//! empty line; a value that is not printable text is written as `FIELD`,
//! a newline, its length as 8 bytes little-endian, the raw bytes and a
//! newline (journalctl's export format). Binary values can hold newlines, so this
//! format is read from bytes, not split into lines first.

use std::io::{self, BufRead};

use super::layout::PlacedEntry;
use super::JournalEntry;
use crate::input::LineReader;

/// Reads export-format entries.
pub struct ExportReader<R> {
    lines: LineReader<R>,
}

/// True if a stream starts like export output.
pub fn looks_like_export(head: &[u8]) -> bool {
    head.starts_with(b"__CURSOR=") || head.starts_with(b"__REALTIME_TIMESTAMP=")
}

impl<R: BufRead> ExportReader<R> {
    /// Wraps a reader positioned at the start of the export stream.
    pub fn new(inner: R) -> Self {
        ExportReader { lines: LineReader::new(inner) }
    }

    /// Numbers lines from `first` on (see [`LineReader::starting_at`]).
    pub fn starting_at(self, first: u64) -> Self {
        ExportReader { lines: self.lines.starting_at(first) }
    }

    /// The number of the last line read.
    pub fn lines(&self) -> u64 {
        self.lines.last_number()
    }

    /// The next entry, or `None` at the end of input.
    pub fn next_entry(&mut self) -> io::Result<Option<PlacedEntry>> {
        let mut fields: Vec<(String, Vec<u8>)> = Vec::new();
        let mut first = None;
        let mut message_at = None;
        while let Some(raw) = self.lines.next_raw()? {
            let (at, line) = ((raw.number, raw.offset), raw.bytes);
            if line.is_empty() {
                if fields.is_empty() {
                    continue;
                }
                break;
            }
            first.get_or_insert(at);
            let (name, value) = match line.iter().position(|&b| b == b'=') {
                Some(eq) => (String::from_utf8_lossy(&line[..eq]).into_owned(), line[eq + 1..].to_vec()),
                None => {
                    let name = String::from_utf8_lossy(line).into_owned();
                    (name, self.read_binary()?)
                }
            };
            if name == "MESSAGE" {
                message_at = Some(at);
            }
            fields.push((name, value));
        }
        let Some(first) = first else { return Ok(None) };
        let (line, offset) = message_at.unwrap_or(first);
        let entry = JournalEntry::from_pairs(fields.iter().map(|(n, v)| (n.as_str(), v.as_slice())));
        Ok(Some(PlacedEntry { line, offset, entry }))
    }

    /// A binary value: 8-byte little-endian length, the bytes, a newline.
    fn read_binary(&mut self) -> io::Result<Vec<u8>> {
        let size = self.lines.read_bytes(8)?;
        let len = u64::from_le_bytes(size.try_into().map_err(|_| io::ErrorKind::UnexpectedEof)?);
        let value = self.lines.read_bytes(len)?;
        // The newline after the value ends its (last) line.
        self.lines.read_bytes(1)?;
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_binary_fields() {
        let mut bytes = b"__CURSOR=s=1\n_PID=4242\nSYSLOG_IDENTIFIER=python3\nMESSAGE=hello\n\n".to_vec();
        bytes.extend_from_slice(b"__CURSOR=s=2\n_PID=4243\nMESSAGE\n");
        let message = b"line one\nline \x1b[31mtwo";
        bytes.extend_from_slice(&(message.len() as u64).to_le_bytes());
        bytes.extend_from_slice(message);
        bytes.extend_from_slice(b"\n_BOOT_ID=b1\n\n");
        let mut reader = ExportReader::new(io::Cursor::new(bytes));
        let first = reader.next_entry().unwrap().unwrap();
        assert_eq!((first.line, first.entry.message.as_deref()), (4, Some("hello")));
        assert_eq!(first.entry.fields.pid, Some(4242));
        let second = reader.next_entry().unwrap().unwrap();
        assert_eq!(second.entry.message.as_deref(), Some("line one\nline \u{1b}[31mtwo"));
        assert_eq!(second.entry.fields.boot_id.as_deref(), Some("b1"));
        assert_eq!(second.line, 8);
        assert!(reader.next_entry().unwrap().is_none());
    }

    #[test]
    fn a_cut_binary_field_is_an_error_not_a_panic() {
        let bytes = b"__CURSOR=s=1\nMESSAGE\n\xff\xff\xff\xff\xff\xff\xff\x7fabc".to_vec();
        let mut reader = ExportReader::new(io::Cursor::new(bytes));
        assert!(reader.next_entry().is_err());
    }
}
