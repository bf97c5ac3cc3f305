//! `journalctl -r` prints the newest entry first. Causes come before their
//! consequences only in time order, so a newest-first input is recognised
//! from its time stamps (in every journal mode) and read oldest first;
//! reports still give every line its number in the file.
//!
//! Reordering holds at most [`HOLD_BYTES`] in memory: a larger input is
//! spilled to an unnamed temporary file and read back from its end, a
//! window at a time, so memory stays bounded whatever the input's size
//! (`sort` does the same for what does not fit). Entries of several lines
//! (`json-pretty`, `export`, `verbose`) keep their lines in order; only the
//! entries are reversed.

mod stamps;
mod store;

use std::io::{self, BufRead, Read};

pub(super) use stamps::{looks_reversed, too_few_stamps};
use store::{Backward, Store};

use crate::framing::journal::layout::{is_verbose_header, Shape};
use crate::input::Reversal;

/// Most of a newest-first input held in memory to reorder it; beyond
/// this, it goes to a temporary file.
pub(super) const HOLD_BYTES: usize = 8 << 20;

/// A newest-first input, stored, and read back oldest first.
pub(super) struct Reordered {
    /// Where each stream line of the reordered input is in the file.
    pub reversal: Reversal,
    /// The input's entries, oldest first.
    pub reader: io::BufReader<Backward>,
    /// The read error that stopped reading the input early, if any: what
    /// was read before it is reordered.
    pub error: Option<io::Error>,
}

/// Reads all of `reader` (in memory up to [`HOLD_BYTES`], else in a
/// temporary file), noting where its entries start, and gives it back
/// with its entries in reverse order. `shape` is the structured journal
/// shape (entries of several lines), or `None` for one entry per line.
pub(super) fn reorder(reader: impl BufRead, shape: Option<Shape>) -> io::Result<Reordered> {
    reorder_holding(reader, shape, HOLD_BYTES)
}

/// [`reorder`], holding at most `hold` bytes in memory.
fn reorder_holding(reader: impl BufRead, shape: Option<Shape>, hold: usize) -> io::Result<Reordered> {
    let mut store = Store::new(hold);
    let mut entries = EntryStarts::new(shape);
    let mut reader = reader;
    let mut error = None;
    loop {
        let chunk = match reader.fill_buf() {
            Ok([]) => break,
            Ok(chunk) => chunk,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                error = Some(e);
                break;
            }
        };
        entries.scan(chunk, store.len());
        store.write(chunk)?;
        let n = chunk.len();
        reader.consume(n);
    }
    let lines = entries.finish();
    let starts = entries.starts.take();
    let backward = Backward::new(store.finish()?, starts.as_ref().map(|s| s.offsets.clone()))?;
    let reversal = Reversal { lines, entry_lines: starts.map(|s| s.lines).unwrap_or_default() };
    Ok(Reordered { reversal, reader: io::BufReader::with_capacity(256 * 1024, backward), error })
}

/// Where the entries of a stored input start (for shapes whose entries
/// span lines), found while it is stored.
struct EntryStarts {
    shape: Option<Shape>,
    /// Lines seen so far, and whether the last one ended.
    lines: u64,
    open_line: bool,
    /// The start of the line being read (its first bytes).
    prefix: Vec<u8>,
    line_offset: u64,
    previous_empty: bool,
    starts: Option<Starts>,
}

/// Entry starts: line index (from 0) and byte offset of each, ascending.
#[derive(Default)]
struct Starts {
    lines: Vec<u64>,
    offsets: Vec<u64>,
}

/// How much of a line is looked at to tell whether it starts an entry.
const PREFIX_BYTES: usize = 160;

impl EntryStarts {
    fn new(shape: Option<Shape>) -> Self {
        EntryStarts {
            shape,
            lines: 0,
            open_line: false,
            prefix: Vec::new(),
            line_offset: 0,
            previous_empty: true,
            starts: shape.map(|_| Starts::default()),
        }
    }

    /// Counts the lines of the next `chunk` of input (at `offset`), and
    /// notes the entries that start in it.
    fn scan(&mut self, chunk: &[u8], offset: u64) {
        let Some(shape) = self.shape else {
            // One entry per line: only the count is needed.
            let newlines = memchr::memchr_iter(b'\n', chunk).count() as u64;
            self.lines += newlines;
            self.open_line = chunk.last() != Some(&b'\n');
            return;
        };
        let mut at = 0;
        while at < chunk.len() {
            if !self.open_line {
                self.open_line = true;
                self.prefix.clear();
                self.line_offset = offset + at as u64;
            }
            let end = memchr::memchr(b'\n', &chunk[at..]).map(|i| at + i);
            let piece = &chunk[at..end.unwrap_or(chunk.len())];
            let room = PREFIX_BYTES.saturating_sub(self.prefix.len());
            self.prefix.extend_from_slice(&piece[..piece.len().min(room)]);
            match end {
                Some(i) => {
                    self.end_line(shape);
                    at = i + 1;
                }
                None => break,
            }
        }
    }

    fn end_line(&mut self, shape: Shape) {
        let line = self.prefix.strip_suffix(b"\r").unwrap_or(&self.prefix);
        let starts_entry = match shape {
            Shape::JsonPretty => line == b"{",
            Shape::Verbose => is_verbose_header(&String::from_utf8_lossy(line)),
            Shape::Export => self.previous_empty && !line.is_empty(),
        } || self.lines == 0;
        if let (true, Some(starts)) = (starts_entry, self.starts.as_mut()) {
            starts.lines.push(self.lines);
            starts.offsets.push(self.line_offset);
        }
        self.previous_empty = line.is_empty();
        self.lines += 1;
        self.open_line = false;
    }

    /// The number of lines, counting a last one without its newline.
    fn finish(&mut self) -> u64 {
        if self.open_line {
            match self.shape {
                Some(shape) => self.end_line(shape),
                None => self.lines += 1,
            }
        }
        self.lines
    }
}

/// A stored input read entry by entry from its end (see [`Backward`]).
impl Read for Backward {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.read_reversed(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reordered(input: &[u8], shape: Option<Shape>, hold: usize) -> (String, Reversal) {
        // Fed in small pieces, as a pipe would.
        let mut reordered = reorder_holding(io::BufReader::with_capacity(3, input), shape, hold).unwrap();
        let mut out = String::new();
        reordered.reader.read_to_string(&mut out).unwrap();
        (out, reordered.reversal)
    }

    #[test]
    fn lines_come_back_in_reverse_in_memory_and_from_a_file() {
        for hold in [1 << 20, 4] {
            let (out, reversal) = reordered(b"a\nbb\nccc\n", None, hold);
            assert_eq!((out.as_str(), reversal.lines), ("ccc\nbb\na\n", 3));
            let (out, reversal) = reordered(b"a\n\nlast without newline", None, hold);
            assert_eq!((out.as_str(), reversal.lines), ("last without newline\n\na\n", 3));
        }
    }

    #[test]
    fn multi_line_entries_keep_their_lines_in_order() {
        let pretty = b"{\n\t\"MESSAGE\" : \"new\"\n}\n{\n\t\"MESSAGE\" : \"old\"\n}\n";
        let (out, reversal) = reordered(pretty, Some(Shape::JsonPretty), 5);
        assert_eq!(out, "{\n\t\"MESSAGE\" : \"old\"\n}\n{\n\t\"MESSAGE\" : \"new\"\n}\n");
        assert_eq!((reversal.lines, reversal.entry_lines), (6, vec![0, 3]));
        let export = b"__CURSOR=2\nMESSAGE=new\n\n__CURSOR=1\nMESSAGE=old\n\n";
        let (out, _) = reordered(export, Some(Shape::Export), 1 << 20);
        assert_eq!(out, "__CURSOR=1\nMESSAGE=old\n\n__CURSOR=2\nMESSAGE=new\n\n");
    }

    #[test]
    fn a_line_longer_than_the_window_comes_back_whole() {
        let long = "x".repeat(3 * store::WINDOW_BYTES + 17);
        let input = format!("first\n{long}\nlast\n");
        let (out, _) = reordered(input.as_bytes(), None, 16);
        assert_eq!(out, format!("last\n{long}\nfirst\n"));
    }
}
