//! Splitting a byte stream into numbered lines.
//!
//! The reader never holds more than one line (capped at [`MAX_LINE_BYTES`])
//! plus the underlying reader's buffer. Lines end at `\n`; a `\r` right
//! before the `\n` (or at the end of input) is dropped. Invalid UTF-8 is
//! replaced with U+FFFD. A line longer than the cap keeps its first
//! [`MAX_LINE_BYTES`] bytes, the rest is skipped and the line is marked as
//! cut, so one runaway line cannot exhaust memory.

use std::borrow::Cow;
use std::io::{self, BufRead, Read};

/// Longest line kept in full; the rest of a longer line is skipped.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// One line of input, borrowed from the reader until the next call.
#[derive(Debug)]
pub struct Line<'a> {
    /// 1-based line number in its source.
    pub number: u64,
    /// Byte offset of the line's first byte in the (decompressed) source.
    pub offset: u64,
    /// The line without its terminator, as UTF-8 (lossy).
    pub text: Cow<'a, str>,
    /// The line was longer than [`MAX_LINE_BYTES`] and was cut.
    pub cut: bool,
}

/// Reads numbered lines from any buffered reader.
pub struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
    number: u64,
    offset: u64,
    cut_lines: u64,
}

impl<R: BufRead> LineReader<R> {
    /// Wraps a reader; the first line read is line 1 at offset 0.
    pub fn new(inner: R) -> Self {
        LineReader { inner, buf: Vec::with_capacity(256), number: 0, offset: 0, cut_lines: 0 }
    }

    /// Numbers lines from `first` on (the lines before it were read from
    /// an earlier part of the same stream, such as an older rotated file).
    pub fn starting_at(mut self, first: u64) -> Self {
        self.number = first.saturating_sub(1);
        self
    }

    /// The number of the last line read (0 before the first).
    pub fn last_number(&self) -> u64 {
        self.number
    }

    /// How many lines were longer than the cap so far.
    pub fn cut_lines(&self) -> u64 {
        self.cut_lines
    }

    /// Whether there is more to read, waiting for it if the reader blocks.
    /// Fails as the reader does (a followed input that is idle fails with
    /// [`io::ErrorKind::WouldBlock`], and nothing is lost).
    pub fn has_more(&mut self) -> io::Result<bool> {
        Ok(!self.inner.fill_buf()?.is_empty())
    }

    /// Reads the next line, or `None` at the end of input.
    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        let Some((offset, cut)) = self.next_raw()? else { return Ok(None) };
        // Validation alone is much faster than the lossy conversion, and
        // almost every line is valid.
        let text = match std::str::from_utf8(&self.buf) {
            Ok(text) => Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(&self.buf),
        };
        Ok(Some(Line { number: self.number, offset, text, cut }))
    }

    /// Reads the next line as bytes (see [`LineReader::raw`]); returns its
    /// offset and whether it was cut, or `None` at the end of input.
    pub fn next_raw(&mut self) -> io::Result<Option<(u64, bool)>> {
        self.buf.clear();
        let start = self.offset;
        let mut consumed: u64 = 0;
        let mut cut = false;
        loop {
            let chunk = match self.inner.fill_buf() {
                Ok(chunk) => chunk,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                break;
            }
            let (take, found) = match memchr_newline(chunk) {
                Some(i) => (i + 1, true),
                None => (chunk.len(), false),
            };
            let body = if found { &chunk[..take - 1] } else { &chunk[..take] };
            let room = MAX_LINE_BYTES.saturating_sub(self.buf.len());
            if body.len() > room {
                cut = true;
            }
            self.buf.extend_from_slice(&body[..body.len().min(room)]);
            self.inner.consume(take);
            consumed += take as u64;
            if found {
                break;
            }
        }
        if consumed == 0 {
            return Ok(None);
        }
        if !cut && self.buf.last() == Some(&b'\r') {
            self.buf.pop();
        }
        if cut {
            self.cut_lines += 1;
        }
        self.number += 1;
        self.offset += consumed;
        Ok(Some((start, cut)))
    }

    /// Calls `each` with every remaining line, in order, until it returns
    /// false. Lines are the same as [`LineReader::next_line`] gives, but a
    /// whole buffer of them is split at once: a line inside the buffer is
    /// neither copied nor read through the reader again, which matters
    /// when there are millions.
    pub fn for_each_line(&mut self, mut each: impl FnMut(Line<'_>) -> bool) -> io::Result<()> {
        let LineReader { inner, buf, number, offset, cut_lines } = self;
        // A line the last buffer did not end is gathered in `buf`;
        // `pending` counts its bytes read so far (kept or not).
        let mut pending: u64 = 0;
        let mut stopped = false;
        while !stopped {
            let chunk = match inner.fill_buf() {
                Ok(chunk) => chunk,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                break;
            }
            // The whole lines of the buffer are checked for UTF-8 at once
            // (much faster than line by line); then each is a slice.
            let whole_from =
                if pending == 0 { 0 } else { memchr::memchr(b'\n', chunk).map_or(chunk.len(), |i| i + 1) };
            let whole_to = memchr::memrchr(b'\n', chunk).unwrap_or(0).max(whole_from);
            let whole = std::str::from_utf8(&chunk[whole_from..whole_to]).ok();
            let mut start = 0;
            for end in memchr::memchr_iter(b'\n', chunk) {
                let body = &chunk[start..end];
                let consumed = pending + (end + 1 - start) as u64;
                *number += 1;
                let line = match whole {
                    Some(whole) if pending == 0 && body.len() <= MAX_LINE_BYTES => {
                        let text = &whole[start - whole_from..end - whole_from];
                        let text = text.strip_suffix('\r').unwrap_or(text);
                        Line { number: *number, offset: *offset, text: Cow::Borrowed(text), cut: false }
                    }
                    _ if pending == 0 => {
                        let cut = body.len() > MAX_LINE_BYTES;
                        line_of(&body[..body.len().min(MAX_LINE_BYTES)], *number, *offset, cut)
                    }
                    _ => {
                        keep_capped(buf, body);
                        let cut = pending + body.len() as u64 > buf.len() as u64;
                        line_of(buf, *number, *offset, cut)
                    }
                };
                *cut_lines += u64::from(line.cut);
                let go_on = each(line);
                *offset += consumed;
                buf.clear();
                pending = 0;
                start = end + 1;
                if !go_on {
                    stopped = true;
                    break;
                }
            }
            if !stopped {
                let rest = &chunk[start..];
                keep_capped(buf, rest);
                pending += rest.len() as u64;
                start = chunk.len();
            }
            inner.consume(start);
        }
        if pending > 0 && !stopped {
            let cut = pending > buf.len() as u64;
            *number += 1;
            *cut_lines += u64::from(cut);
            each(line_of(buf, *number, *offset, cut));
            *offset += pending;
            buf.clear();
        }
        Ok(())
    }

    /// The bytes of the line last read by [`LineReader::next_raw`].
    pub fn raw(&self) -> &[u8] {
        &self.buf
    }

    /// Reads `len` bytes that are not lines (a binary field of the journal
    /// export format); keeps at most [`MAX_LINE_BYTES`] of them. Line
    /// numbers count the newlines inside, so later lines keep their numbers.
    pub fn read_bytes(&mut self, len: u64) -> io::Result<Vec<u8>> {
        let keep = len.min(MAX_LINE_BYTES as u64);
        let mut value = vec![0u8; keep as usize];
        self.inner.read_exact(&mut value)?;
        io::copy(&mut (&mut self.inner).take(len - keep), &mut io::sink())?;
        self.offset += len;
        self.number += value.iter().filter(|&&b| b == b'\n').count() as u64;
        Ok(value)
    }
}

/// Appends to a line being gathered, up to [`MAX_LINE_BYTES`].
fn keep_capped(line: &mut Vec<u8>, more: &[u8]) {
    let room = MAX_LINE_BYTES.saturating_sub(line.len());
    line.extend_from_slice(&more[..more.len().min(room)]);
}

/// A line from its bytes: a final `\r` is dropped (unless the line was
/// cut), and invalid UTF-8 is replaced.
fn line_of(bytes: &[u8], number: u64, offset: u64, cut: bool) -> Line<'_> {
    let bytes = if cut { bytes } else { bytes.strip_suffix(b"\r").unwrap_or(bytes) };
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    };
    Line { number, offset, text, cut }
}

fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    memchr::memchr(b'\n', bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(bytes: &[u8]) -> Vec<(u64, u64, String, bool)> {
        let mut reader = LineReader::new(io::BufReader::with_capacity(7, bytes));
        let mut out = Vec::new();
        while let Some(line) = reader.next_line().unwrap() {
            out.push((line.number, line.offset, line.text.into_owned(), line.cut));
        }
        out
    }

    /// The same lines, read a buffer at a time.
    fn read_each(bytes: &[u8], capacity: usize) -> (Vec<(u64, u64, String, bool)>, u64) {
        let mut reader = LineReader::new(io::BufReader::with_capacity(capacity, bytes)).starting_at(5);
        let mut out = Vec::new();
        reader
            .for_each_line(|line| {
                out.push((line.number - 4, line.offset, line.text.into_owned(), line.cut));
                true
            })
            .unwrap();
        (out, reader.cut_lines())
    }

    #[test]
    fn a_buffer_at_a_time_gives_the_same_lines() {
        let mut long = vec![b'y'; MAX_LINE_BYTES];
        long.extend_from_slice(b"\r\n\nz\r\n");
        long.extend_from_slice(&[b'w'; MAX_LINE_BYTES + 3]);
        let inputs: [&[u8]; 8] = [
            b"first\r\nsecond\n\nlast-no-newline",
            "café\nnaïve ✓\r\n…\n".as_bytes(),
            b"a\xff\x00b\n\xe2\x82",
            b"\n\n\r\n",
            b"ends with CR\r",
            b"",
            &long,
            b"x",
        ];
        for input in inputs {
            let mut reader = LineReader::new(io::BufReader::with_capacity(7, input));
            let mut expected = Vec::new();
            while let Some(line) = reader.next_line().unwrap() {
                expected.push((line.number, line.offset, line.text.into_owned(), line.cut));
            }
            for capacity in [1, 2, 7, 64, 1 << 20, 4 << 20] {
                let (lines, cut_lines) = read_each(input, capacity);
                assert_eq!(lines, expected, "capacity {capacity}");
                assert_eq!(cut_lines, reader.cut_lines(), "capacity {capacity}");
            }
        }
    }

    #[test]
    fn reading_each_line_stops_when_asked() {
        let mut reader = LineReader::new(io::BufReader::new(&b"one\ntwo\nthree\n"[..]));
        let mut seen = Vec::new();
        reader
            .for_each_line(|line| {
                seen.push(line.text.into_owned());
                seen.len() < 2
            })
            .unwrap();
        assert_eq!(seen, ["one", "two"]);
        assert_eq!(reader.next_line().unwrap().unwrap().text, "three");
    }

    #[test]
    fn numbers_offsets_and_crlf() {
        let lines = read_all(b"first\r\nsecond\n\nlast-no-newline");
        assert_eq!(
            lines,
            vec![
                (1, 0, "first".to_string(), false),
                (2, 7, "second".to_string(), false),
                (3, 14, String::new(), false),
                (4, 15, "last-no-newline".to_string(), false),
            ]
        );
    }

    #[test]
    fn invalid_utf8_and_nul_are_kept_readable() {
        let lines = read_all(b"a\xff\x00b\n");
        assert_eq!(lines[0].2, "a\u{fffd}\u{0}b");
    }

    #[test]
    fn overlong_line_is_cut_and_the_next_line_survives() {
        let mut input = vec![b'x'; MAX_LINE_BYTES + 10];
        input.extend_from_slice(b"\nnext\n");
        let mut reader = LineReader::new(io::BufReader::new(&input[..]));
        let first = reader.next_line().unwrap().unwrap();
        assert!(first.cut);
        assert_eq!(first.text.len(), MAX_LINE_BYTES);
        let second = reader.next_line().unwrap().unwrap();
        assert_eq!((second.number, second.text.as_ref()), (2, "next"));
        assert_eq!(second.offset, MAX_LINE_BYTES as u64 + 11);
        assert_eq!(reader.cut_lines(), 1);
    }
}
