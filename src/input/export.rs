//! `journalctl -o export`: entries of `FIELD=value` lines separated by an
//! empty line; a value that is not printable text is written as `FIELD`,
//! a newline, its length as 8 bytes little-endian, the raw bytes and a
//! newline (formats.md §1.5). Binary values can hold newlines, so this
//! format is read from bytes, not split into lines first.

use std::io::{self, BufRead, Read};

use super::lines::MAX_LINE_BYTES;
use crate::framing::journal::JournalEntry;

/// One entry with where it sits in the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportEntry {
    /// The line of its MESSAGE field (or its first line), 1-based.
    pub line: u64,
    /// Byte offset of that line.
    pub offset: u64,
    /// The entry.
    pub entry: JournalEntry,
}

/// Reads export-format entries.
pub struct ExportReader<R> {
    inner: R,
    line: u64,
    offset: u64,
    buf: Vec<u8>,
}

/// True if a stream starts like export output.
pub fn looks_like_export(head: &[u8]) -> bool {
    head.starts_with(b"__CURSOR=") || head.starts_with(b"__REALTIME_TIMESTAMP=")
}

impl<R: BufRead> ExportReader<R> {
    /// Wraps a reader positioned at the start of the export stream.
    pub fn new(inner: R) -> Self {
        ExportReader { inner, line: 0, offset: 0, buf: Vec::new() }
    }

    /// Numbers lines from `first` on (see [`super::LineReader::starting_at`]).
    pub fn starting_at(mut self, first: u64) -> Self {
        self.line = first.saturating_sub(1);
        self
    }

    /// The number of the last line read.
    pub fn lines(&self) -> u64 {
        self.line
    }

    /// The next entry, or `None` at the end of input.
    pub fn next_entry(&mut self) -> io::Result<Option<ExportEntry>> {
        let mut fields: Vec<(String, Vec<u8>)> = Vec::new();
        let mut first = None;
        let mut message_at = None;
        loop {
            let start = (self.line + 1, self.offset);
            if !self.read_line()? {
                break;
            }
            if self.buf.is_empty() {
                if fields.is_empty() {
                    continue;
                }
                break;
            }
            first.get_or_insert(start);
            match self.buf.iter().position(|&b| b == b'=') {
                Some(eq) => {
                    let name = String::from_utf8_lossy(&self.buf[..eq]).into_owned();
                    let value = self.buf[eq + 1..].to_vec();
                    if name == "MESSAGE" {
                        message_at = Some(start);
                    }
                    fields.push((name, value));
                }
                None => {
                    let name = String::from_utf8_lossy(&self.buf).into_owned();
                    let value = self.read_binary()?;
                    if name == "MESSAGE" {
                        message_at = Some(start);
                    }
                    fields.push((name, value));
                }
            }
        }
        let Some(first) = first else { return Ok(None) };
        let (line, offset) = message_at.unwrap_or(first);
        let entry = JournalEntry::from_pairs(fields.iter().map(|(n, v)| (n.as_str(), v.as_slice())));
        Ok(Some(ExportEntry { line, offset, entry }))
    }

    /// Reads one `\n`-terminated line into `buf` (capped); false at EOF.
    fn read_line(&mut self) -> io::Result<bool> {
        self.buf.clear();
        let mut consumed = 0u64;
        loop {
            let chunk = match self.inner.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                break;
            }
            let (take, found) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (chunk.len(), false),
            };
            let body = if found { &chunk[..take - 1] } else { chunk };
            let room = MAX_LINE_BYTES.saturating_sub(self.buf.len());
            self.buf.extend_from_slice(&body[..body.len().min(room)]);
            self.inner.consume(take);
            consumed += take as u64;
            if found {
                break;
            }
        }
        if consumed == 0 {
            return Ok(false);
        }
        self.line += 1;
        self.offset += consumed;
        Ok(true)
    }

    /// Reads a binary value: 8-byte little-endian length, bytes, newline.
    fn read_binary(&mut self) -> io::Result<Vec<u8>> {
        let mut size = [0u8; 8];
        self.inner.read_exact(&mut size)?;
        let len = u64::from_le_bytes(size);
        let keep = len.min(MAX_LINE_BYTES as u64);
        let mut value = vec![0u8; keep as usize];
        self.inner.read_exact(&mut value)?;
        io::copy(&mut (&mut self.inner).take(len - keep), &mut io::sink())?;
        let mut newline = [0u8; 1];
        self.inner.read_exact(&mut newline)?;
        self.offset += 8 + len + 1;
        self.line += value.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
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
