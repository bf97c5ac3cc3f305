//! `journalctl -o export`: entries of `FIELD=value` lines separated by an
//! empty line; a value that is not printable text is written as `FIELD`,
//! a newline, its length as 8 bytes little-endian, the raw bytes and a
//! newline (journalctl's export format). Binary values can hold newlines, so this
//! format is read from bytes, not split into lines first.

use std::io::{self, BufRead};

use super::layout::{is_field_name, PlacedEntry};
use super::JournalEntry;
use crate::input::{LineReader, MAX_LINE_BYTES};

/// A binary value's length is below this (4 GiB: journald keeps no bigger
/// field), so a length whose upper bytes are not zero is text.
const MAX_BINARY_VALUE: u64 = 1 << 32;

/// Reads export-format entries.
pub struct ExportReader<R> {
    lines: LineReader<R>,
    /// The entry being read: kept when a followed input goes quiet in the
    /// middle of it, so reading goes on where it stopped.
    entry: EntryRead,
    /// A line of text that ended the entry before it, handed out next.
    held_text: Option<TextLine>,
}

/// An entry read so far.
#[derive(Default)]
struct EntryRead {
    fields: Vec<(String, Vec<u8>)>,
    /// Where its first field and its MESSAGE are (line, offset).
    first: Option<(u64, u64)>,
    message_at: Option<(u64, u64)>,
    /// A binary field's name, read, and where it is: its value comes next.
    binary: Option<(String, (u64, u64))>,
}

impl EntryRead {
    fn add(&mut self, name: String, value: Vec<u8>, at: (u64, u64)) {
        self.first.get_or_insert(at);
        if name == "MESSAGE" {
            self.message_at = Some(at);
        }
        self.fields.push((name, value));
    }
}

/// What an export stream holds next.
#[derive(Debug)]
pub enum ExportItem {
    /// An entry.
    Entry(PlacedEntry),
    /// A line that is no field (another log concatenated after the
    /// journal), to be read as text.
    Text(TextLine),
}

/// A line of text among export entries.
#[derive(Debug)]
pub struct TextLine {
    /// Its number, 1-based.
    pub number: u64,
    /// Its byte offset.
    pub offset: u64,
    /// The line (lossy UTF-8).
    pub text: String,
}

impl<R: BufRead> ExportReader<R> {
    /// Reads the lines of a reader positioned at the start of the export
    /// stream.
    pub fn new(lines: LineReader<R>) -> Self {
        ExportReader { lines, entry: EntryRead::default(), held_text: None }
    }

    /// The number of the last line read.
    pub fn lines(&self) -> u64 {
        self.lines.last_number()
    }

    /// The next entry or line of text, or `None` at the end of input. A
    /// followed input that goes quiet fails with
    /// [`io::ErrorKind::WouldBlock`]; the next call goes on from there.
    pub fn next_entry(&mut self) -> io::Result<Option<ExportItem>> {
        if let Some(text) = self.held_text.take() {
            return Ok(Some(ExportItem::Text(text)));
        }
        loop {
            if let Some((name, at)) = self.entry.binary.take() {
                match self.binary_value() {
                    Ok(Some(value)) => self.entry.add(name, value, at),
                    // A word alone on its line, in text after the journal.
                    Ok(None) => {
                        return Ok(self.text_after_entry(TextLine { number: at.0, offset: at.1, text: name }))
                    }
                    Err(e) => {
                        self.entry.binary = Some((name, at));
                        return Err(e);
                    }
                }
            }
            let Some(raw) = self.lines.next_raw()? else { break };
            let (at, line) = ((raw.number, raw.offset), raw.bytes);
            if line.is_empty() {
                if self.entry.fields.is_empty() {
                    continue;
                }
                break;
            }
            let eq = line.iter().position(|&b| b == b'=');
            let name =
                std::str::from_utf8(&line[..eq.unwrap_or(line.len())]).ok().filter(|n| is_field_name(n));
            let Some(name) = name.map(str::to_string) else {
                // Not a field: text, after the entry it ends.
                let text =
                    TextLine { number: at.0, offset: at.1, text: String::from_utf8_lossy(line).into_owned() };
                return Ok(self.text_after_entry(text));
            };
            match eq {
                Some(eq) => {
                    let value = line[eq + 1..].to_vec();
                    self.entry.add(name, value, at);
                }
                None => self.entry.binary = Some((name, at)),
            }
        }
        Ok(self.finish_entry().map(ExportItem::Entry))
    }

    /// `text` ends the entry being read: the entry comes first, if there
    /// is one, and the text after it.
    fn text_after_entry(&mut self, text: TextLine) -> Option<ExportItem> {
        match self.finish_entry() {
            Some(entry) => {
                self.held_text = Some(text);
                Some(ExportItem::Entry(entry))
            }
            None => Some(ExportItem::Text(text)),
        }
    }

    fn finish_entry(&mut self) -> Option<PlacedEntry> {
        let read = std::mem::take(&mut self.entry);
        let (line, offset) = read.message_at.or(read.first)?;
        let entry = JournalEntry::from_pairs(read.fields.iter().map(|(n, v)| (n.as_str(), v.as_slice())));
        Some(PlacedEntry { line, offset, entry })
    }

    /// The binary value after a field's name: its length (8 bytes,
    /// little-endian), the bytes and a newline. `None` if the bytes cannot
    /// be one: the input ends first, or the length is beyond any
    /// journal's (text after a word alone on its line: eight letters make
    /// a length of petabytes). A value that fits in a line is waited for
    /// whole before any of it is taken, so a quiet input loses nothing.
    fn binary_value(&mut self) -> io::Result<Option<Vec<u8>>> {
        let Ok(length) = <[u8; 8]>::try_from(self.lines.peek_bytes(8)?) else { return Ok(None) };
        let len = u64::from_le_bytes(length);
        if len >= MAX_BINARY_VALUE {
            return Ok(None);
        }
        // A length that does not end where a newline does, or that would
        // swallow the next entry, was damaged: what follows is read again
        // as lines, and the entries after it are kept.
        if len < MAX_LINE_BYTES as u64 {
            let whole = 8 + len as usize + 1;
            let ahead = self.lines.peek_bytes(whole)?;
            if ahead.len() == whole && ahead[whole - 1] != b'\n' {
                return Ok(None);
            }
        } else if holds_entry_start(&self.lines.peek_bytes(8 + MAX_LINE_BYTES)?[8..]) {
            return Ok(None);
        }
        self.lines.read_bytes(8)?;
        let value = self.lines.read_bytes(len)?;
        // The newline after the value ends its (last) line.
        self.lines.read_bytes(1)?;
        Ok(Some(value))
    }
}

/// Whether `bytes` hold the start of an entry: an empty line, then a
/// field's `NAME=`.
fn holds_entry_start(bytes: &[u8]) -> bool {
    memchr::memmem::find_iter(bytes, b"\n\n").any(|at| {
        let rest = &bytes[at + 2..];
        let name =
            rest.iter().take_while(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || **b == b'_').count();
        name > 0 && rest.get(name) == Some(&b'=')
    })
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
        let mut reader = ExportReader::new(LineReader::new(io::Cursor::new(bytes)));
        let mut entry = || match reader.next_entry().unwrap() {
            Some(ExportItem::Entry(entry)) => Some(entry),
            None => None,
            Some(text) => panic!("not an entry: {text:?}"),
        };
        let first = entry().unwrap();
        assert_eq!((first.line, first.entry.message.as_deref()), (4, Some("hello")));
        assert_eq!(first.entry.fields.pid, Some(4242));
        let second = entry().unwrap();
        assert_eq!(second.entry.message.as_deref(), Some("line one\nline \u{1b}[31mtwo"));
        assert_eq!(second.entry.fields.boot_id.as_deref(), Some("b1"));
        assert_eq!(second.line, 8);
        assert!(entry().is_none());
    }

    #[test]
    fn a_line_that_is_no_field_is_text_after_the_entry_it_ends() {
        let bytes = b"__CURSOR=s=1\nMESSAGE=hello\n[2026-05-25 08:00:00] INFO next log\nTraceback (most recent call last):\n";
        let mut reader = ExportReader::new(LineReader::new(io::Cursor::new(bytes.to_vec())));
        assert!(matches!(reader.next_entry().unwrap(), Some(ExportItem::Entry(e)) if e.line == 2));
        for (number, text) in
            [(3, "[2026-05-25 08:00:00] INFO next log"), (4, "Traceback (most recent call last):")]
        {
            match reader.next_entry().unwrap() {
                Some(ExportItem::Text(line)) => assert_eq!((line.number, line.text.as_str()), (number, text)),
                other => panic!("not text: {other:?}"),
            }
        }
        assert!(reader.next_entry().unwrap().is_none());
    }

    #[test]
    fn a_damaged_binary_length_loses_no_later_entry() {
        let next = b"__CURSOR=s=2\n_PID=7\nMESSAGE=RuntimeError: CUDA error: out of memory\n\n";
        for bogus in [1000u64, (MAX_LINE_BYTES as u64) * 3] {
            let mut bytes = b"__CURSOR=s=1\nMESSAGE\n".to_vec();
            bytes.extend_from_slice(&bogus.to_le_bytes());
            bytes.extend_from_slice(b"0123456789\n\n");
            bytes.extend_from_slice(next);
            bytes.extend_from_slice(&vec![b'x'; 2000]);
            bytes.push(b'\n');
            let mut reader = ExportReader::new(LineReader::new(io::Cursor::new(bytes)));
            let mut messages = Vec::new();
            while let Some(item) = reader.next_entry().unwrap() {
                if let ExportItem::Entry(entry) = item {
                    messages.extend(entry.entry.message);
                }
            }
            assert!(
                messages.iter().any(|m| m.contains("CUDA error: out of memory")),
                "{bogus}: {messages:?}"
            );
        }
    }

    #[test]
    fn a_cut_binary_field_is_an_error_not_a_panic() {
        let bytes = b"__CURSOR=s=1\nMESSAGE\n\xff\x00\x00\x00\x00\x00\x00\x00abc".to_vec();
        let mut reader = ExportReader::new(LineReader::new(io::Cursor::new(bytes)));
        assert!(reader.next_entry().is_err());
    }

    #[test]
    fn a_length_no_journal_has_is_text_not_a_binary_field() {
        // `DONE` alone on its line in a log after the journal: the next
        // line's first eight bytes are no length.
        let bytes = b"__CURSOR=s=1\nMESSAGE=hi\n\nDONE\nMay 25 20:27:22 gpu01 python[7]: next\n".to_vec();
        let mut reader = ExportReader::new(LineReader::new(io::Cursor::new(bytes)));
        assert!(matches!(reader.next_entry().unwrap(), Some(ExportItem::Entry(_))));
        for (number, text) in [(4, "DONE"), (5, "May 25 20:27:22 gpu01 python[7]: next")] {
            match reader.next_entry().unwrap() {
                Some(ExportItem::Text(line)) => assert_eq!((line.number, line.text.as_str()), (number, text)),
                other => panic!("not text: {other:?}"),
            }
        }
    }
}
