//! Splitting a byte stream into numbered lines: the one line splitter of
//! every path (batch, follow, structured journals, the export format).
//!
//! Lines end at `\n`; a `\r` right before the `\n` (or at the end of
//! input) is dropped, and so is a UTF-8 byte-order mark that opens the
//! input. Invalid UTF-8 is replaced with U+FFFD. A line longer
//! than the cap keeps its first [`MAX_LINE_BYTES`] bytes, the rest is
//! skipped and the line is marked as cut, so one runaway line cannot
//! exhaust memory.
//!
//! The reader reads a block of bytes at a time into a buffer of its own
//! and checks the block as UTF-8 at once (a check per line costs more than
//! the rest of splitting); a line is then a slice of the block, neither
//! copied nor checked again. Only the start of a line that the block cut
//! off is carried over to the next block. A block is read until it is
//! full, so the buffer keeps its size and is not cleared before a read
//! (it is cut to what it holds only after a short block: the input's end,
//! a failed read, and then grown again).

use std::borrow::Cow;
use std::io::{self, Read};

use super::salvage::MessageSalvage;

/// UTF-8's byte-order mark.
pub const BOM: &[u8] = b"\xef\xbb\xbf";

/// Longest line kept in full; the rest of a longer line is skipped.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Bytes asked of the reader at a time: as much as a file's buffered
/// reader holds, so that it hands them over without a copy of its own.
const BLOCK_BYTES: usize = 256 * 1024;

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
    /// The line holds one of the bytes the reader watches for (see
    /// [`LineReader::watching`]).
    pub watched: bool,
}

/// One line of input as bytes, borrowed from the reader until the next
/// call (see [`LineReader::next_raw`]).
#[derive(Debug)]
pub struct RawLine<'a> {
    /// 1-based line number in its source.
    pub number: u64,
    /// Byte offset of the line's first byte in the (decompressed) source.
    pub offset: u64,
    /// The line without its terminator (and, unless cut, without a final
    /// `\r`).
    pub bytes: &'a [u8],
    /// The line was longer than [`MAX_LINE_BYTES`] and was cut.
    pub cut: bool,
}

/// Whole lines read at once: checked as UTF-8 text, or kept as bytes when
/// the check failed (each line is then read on its own, lossily).
#[derive(Debug)]
enum Block {
    Text(String),
    Bytes(Vec<u8>),
}

impl Block {
    fn bytes(&self) -> &[u8] {
        match self {
            Block::Text(text) => text.as_bytes(),
            Block::Bytes(bytes) => bytes,
        }
    }

    fn into_bytes(self) -> Vec<u8> {
        match self {
            Block::Text(text) => text.into_bytes(),
            Block::Bytes(bytes) => bytes,
        }
    }
}

/// Reads numbered lines from any reader.
pub struct LineReader<R> {
    inner: R,
    /// The buffer, holding the block read up to [`Self::filled`].
    block: Block,
    /// Where the next line starts in the block.
    at: usize,
    /// Where the block's whole lines end (the input's last line counts as
    /// whole once the reader has ended).
    whole: usize,
    /// Where what was read ends: after `whole` is the start of a line that
    /// the next block finishes.
    filled: usize,
    /// Bytes skipped from the block's first line, which was cut.
    first_cut: Option<u64>,
    /// The message of a runaway JSON record, looked for in what is cut.
    salvage: MessageSalvage,
    /// The reader has said there is no more.
    ended: bool,
    /// A read that failed after whole lines came: reported at the next
    /// read, once those lines are handed out.
    deferred: Option<io::Error>,
    /// The number of the line last handed out.
    number: u64,
    /// The offset of the line last handed out.
    last_offset: u64,
    /// The offset of the next line.
    offset: u64,
    cut_lines: u64,
    /// Bytes to tell the lines that hold them (see [`Self::watching`]).
    watch: Option<[u8; 3]>,
    /// Where the first watched byte at or after [`Self::at`] lies in the
    /// block ([`Self::whole`] if none does); `None` until it is sought.
    next_watched: Option<usize>,
    /// Lines that end this reader's part of the stream (see
    /// [`Self::stopping_at`]).
    stop: Option<StopAt>,
    /// `stop`'s first bytes, one bit each: asked of every line.
    stop_first: [u64; 4],
    /// The reader stopped before a line that `stop` named.
    stopped: bool,
}

/// Lines that open another part of a stream (such as a structured journal
/// dump after lines of text): a reader told of them ends before one.
#[derive(Clone, Copy)]
pub struct StopAt {
    /// The first bytes such a line may have: only lines that start with
    /// one are tested, so most lines cost one look-up.
    pub first_bytes: &'static [u8],
    /// Whether a line (without its terminator) opens the next part, given
    /// the bytes read after it; `None` when more bytes must be read to tell.
    pub opens: fn(line: &[u8], after: &[u8]) -> Option<bool>,
}

/// What a stopped [`LineReader`] had not handed out, then its reader (and
/// an error met while reading ahead, if one was).
pub type Rest<R> = io::Chain<io::Cursor<Vec<u8>>, super::Deferred<R>>;

impl<R: Read> LineReader<R> {
    /// Wraps a reader; the first line read is line 1 at offset 0.
    pub fn new(inner: R) -> Self {
        LineReader {
            inner,
            block: Block::Bytes(Vec::new()),
            at: 0,
            whole: 0,
            filled: 0,
            first_cut: None,
            salvage: MessageSalvage::default(),
            ended: false,
            deferred: None,
            number: 0,
            last_offset: 0,
            offset: 0,
            cut_lines: 0,
            watch: None,
            next_watched: None,
            stop: None,
            stop_first: [0; 4],
            stopped: false,
        }
    }

    /// Ends the lines before the first one that `stop` says opens another
    /// part of the stream (never the first line: its part was told by
    /// its head). [`Self::stopped`] then says so, and [`Self::into_rest`]
    /// gives that line and all after it.
    pub fn stopping_at(mut self, stop: StopAt) -> Self {
        self.stop = Some(stop);
        for &b in stop.first_bytes {
            self.stop_first[usize::from(b / 64)] |= 1 << (b % 64);
        }
        self
    }

    /// Whether the lines ended at a line that opens another part.
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// The byte offset of the next line in the source.
    pub fn next_offset(&self) -> u64 {
        self.offset
    }

    /// Continues the byte offsets of a part read before it in the same
    /// source (see [`Self::into_rest`]).
    pub fn at_offset(mut self, offset: u64) -> Self {
        self.offset = offset;
        self
    }

    /// What was not handed out yet (after a stop, the line that opened the
    /// next part), then the rest of the reader.
    pub fn into_rest(self) -> Rest<R> {
        let held = self.block.bytes()[self.at..self.filled].to_vec();
        io::Cursor::new(held).chain(super::Deferred::new(self.deferred, self.inner))
    }

    /// Tells each line whether it holds one of `bytes` ([`Line::watched`]),
    /// found by one search through the block that stops only where they
    /// are: cheaper than a search of each line when they are rare.
    pub fn watching(mut self, bytes: [u8; 3]) -> Self {
        self.watch = Some(bytes);
        self
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
        Ok(self.at < self.whole || self.refill()?)
    }

    /// Reads the next line, or `None` at the end of input. Invalid UTF-8
    /// is replaced with U+FFFD.
    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        let Some((start, end, cut)) = self.split()? else { return Ok(None) };
        let (number, offset) = (self.number, self.last_offset);
        let watched = self.watch.is_some_and(|bytes| self.watched(bytes, start, end));
        let text = match &self.block {
            // A slice of checked text, unless bytes that are not lines
            // (`read_bytes`) ended inside a character.
            Block::Text(text) if text.is_char_boundary(start) && text.is_char_boundary(end) => {
                Cow::Borrowed(&text[start..end])
            }
            block => String::from_utf8_lossy(&block.bytes()[start..end]),
        };
        Ok(Some(Line { number, offset, text, cut, watched }))
    }

    /// Whether the line at `start..end` of the block holds one of `bytes`.
    fn watched(&mut self, [a, b, c]: [u8; 3], start: usize, end: usize) -> bool {
        let next = match self.next_watched {
            Some(next) if next >= start => next,
            _ => {
                let rest = &self.block.bytes()[start..self.whole];
                let next = memchr::memchr3(a, b, c, rest).map_or(self.whole, |i| start + i);
                self.next_watched = Some(next);
                next
            }
        };
        next < end
    }

    /// Reads the next line as bytes, or `None` at the end of input.
    pub fn next_raw(&mut self) -> io::Result<Option<RawLine<'_>>> {
        let Some((start, end, cut)) = self.split()? else { return Ok(None) };
        let bytes = &self.block.bytes()[start..end];
        Ok(Some(RawLine { number: self.number, offset: self.last_offset, bytes, cut }))
    }

    /// Finds the next line, reading another block when this one is used
    /// up, and counts it: where it lies in the block (without its
    /// terminator), and whether it was cut.
    fn split(&mut self) -> io::Result<Option<(usize, usize, bool)>> {
        if self.at >= self.whole && !self.refill()? {
            return Ok(None);
        }
        if self.stop.is_some() && self.offset > 0 && self.opens_part()? {
            self.stopped = true;
            return Ok(None);
        }
        let bytes = &self.block.bytes()[..self.whole];
        let start = self.at;
        let (end, next) = match memchr::memchr(b'\n', &bytes[start..]) {
            Some(i) => (start + i, start + i + 1),
            // The last line of the input, without a newline.
            None => (bytes.len(), bytes.len()),
        };
        let skipped = if start == 0 { self.first_cut.take() } else { None };
        let cut = skipped.is_some();
        if cut {
            self.salvage.reset();
        }
        self.at = next;
        self.number += 1;
        self.last_offset = self.offset;
        // A byte-order mark opens the source, not its first line (Windows
        // editors and PowerShell write one).
        let text_start =
            if self.offset == 0 && bytes[start..end].starts_with(BOM) { start + BOM.len() } else { start };
        self.offset += (next - start) as u64 + skipped.unwrap_or(0);
        self.cut_lines += u64::from(cut);
        let end = if !cut && bytes[text_start..end].ends_with(b"\r") { end - 1 } else { end };
        Ok(Some((text_start, end, cut)))
    }

    /// Whether the next line opens another part (see [`Self::stopping_at`]),
    /// reading more once if too few bytes after it were read to tell.
    fn opens_part(&mut self) -> io::Result<bool> {
        let Some(stop) = self.stop else { return Ok(false) };
        let mut may_read = true;
        loop {
            let bytes = &self.block.bytes()[..self.filled];
            let start = self.at;
            let first = bytes[start];
            if self.stop_first[usize::from(first / 64)] & (1 << (first % 64)) == 0 {
                return Ok(false);
            }
            let end = memchr::memchr(b'\n', &bytes[start..self.whole]).map_or(self.whole, |i| start + i);
            let line = &bytes[start..end];
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let after = &bytes[(end + 1).min(self.filled)..];
            match (stop.opens)(line, after) {
                Some(opens) => return Ok(opens),
                None if may_read && !self.ended && self.deferred.is_none() => {
                    may_read = false;
                    self.refill()?;
                }
                None => return Ok(false),
            }
        }
    }

    /// Reads the next block: whole lines, at least one, or the rest of the
    /// input. False at the end of the input. A failed read loses nothing:
    /// what was read is kept for the next try.
    fn refill(&mut self) -> io::Result<bool> {
        if let Some(e) = self.deferred.take() {
            return Err(e);
        }
        self.next_watched = None;
        let mut data = std::mem::replace(&mut self.block, Block::Bytes(Vec::new())).into_bytes();
        // The start of a line the last block cut off moves to the front.
        data.copy_within(self.at..self.filled, 0);
        self.filled -= self.at;
        (self.at, self.whole) = (0, 0);
        let read = self.fill(&mut data);
        let first_end = memchr::memchr(b'\n', &data[..self.filled]).unwrap_or(self.filled);
        if first_end > MAX_LINE_BYTES {
            // A runaway line: only its start is kept.
            self.salvage.before_drop(&mut data, MAX_LINE_BYTES, first_end);
            *self.first_cut.get_or_insert(0) += (first_end - MAX_LINE_BYTES) as u64;
            data.copy_within(first_end..self.filled, MAX_LINE_BYTES);
            self.filled -= first_end - MAX_LINE_BYTES;
        }
        self.whole = match self.ended {
            true => self.filled,
            false => memchr::memrchr(b'\n', &data[..self.filled]).map_or(0, |last| last + 1),
        };
        match read {
            Err(e) if self.whole > 0 => self.deferred = Some(e),
            Err(e) => {
                self.block = Block::Bytes(data);
                return Err(e);
            }
            Ok(()) => {}
        }
        // Only a block cut short (the input's end, a failed read) holds
        // less than its buffer; then the buffer shrinks to what it holds,
        // not to check bytes left from earlier blocks.
        data.truncate(self.filled);
        self.block = match String::from_utf8(data) {
            Ok(text) => Block::Text(text),
            Err(e) => Block::Bytes(e.into_bytes()),
        };
        Ok(self.whole > 0)
    }

    /// Reads into `data`, after the start of a line it holds, until it is
    /// full (a block more than it held, or all it had room for) or the
    /// reader ends or fails. A line that fills it all grows it, and a
    /// runaway line keeps only its start.
    fn fill(&mut self, data: &mut Vec<u8>) -> io::Result<()> {
        let room = data.len().max(self.filled + BLOCK_BYTES);
        if data.len() < room {
            data.resize(room, 0);
        }
        while !self.ended {
            if self.filled == data.len() {
                if memchr::memchr(b'\n', &data[..self.filled]).is_some() {
                    return Ok(());
                }
                if self.filled > MAX_LINE_BYTES {
                    self.salvage.before_drop(data, MAX_LINE_BYTES, self.filled);
                    *self.first_cut.get_or_insert(0) += (self.filled - MAX_LINE_BYTES) as u64;
                    self.filled = MAX_LINE_BYTES;
                } else {
                    data.resize(self.filled + BLOCK_BYTES, 0);
                }
            }
            match self.inner.read(&mut data[self.filled..]) {
                Ok(n) => {
                    self.filled += n;
                    self.ended = n == 0;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// The next `count` bytes (fewer at the input's end), without reading
    /// past them: a binary field's length, looked at before it is trusted.
    pub fn peek_bytes(&mut self, count: usize) -> io::Result<&[u8]> {
        if self.filled - self.at < count && !self.ended {
            // What is held moves to the front and more is read after it,
            // as bytes that are not lines (see `read_bytes`).
            let mut data = std::mem::replace(&mut self.block, Block::Bytes(Vec::new())).into_bytes();
            data.copy_within(self.at..self.filled, 0);
            self.filled -= self.at;
            self.whole = self.whole.saturating_sub(self.at);
            self.at = 0;
            self.next_watched = None;
            if data.len() < count {
                data.resize(count.max(BLOCK_BYTES), 0);
            }
            let mut read = Ok(());
            while self.filled < count && !self.ended {
                match self.inner.read(&mut data[self.filled..]) {
                    Ok(n) => {
                        self.filled += n;
                        self.ended = n == 0;
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        read = Err(e);
                        break;
                    }
                }
            }
            self.block = Block::Bytes(data);
            read?;
        }
        let end = (self.at + count).min(self.filled);
        Ok(&self.block.bytes()[self.at..end])
    }

    /// Reads `len` bytes that are not lines (a binary field of the journal
    /// export format); keeps at most [`MAX_LINE_BYTES`] of them. Line
    /// numbers count the newlines inside, so later lines keep their numbers.
    pub fn read_bytes(&mut self, len: u64) -> io::Result<Vec<u8>> {
        let keep = len.min(MAX_LINE_BYTES as u64) as usize;
        // What was read already, then the reader.
        let held = &self.block.bytes()[self.at..self.filled];
        let from_block = held.len().min(len as usize);
        let mut value = held[..from_block.min(keep)].to_vec();
        self.at += from_block;
        self.whole = self.whole.max(self.at);
        let kept = value.len();
        value.resize(keep, 0);
        self.inner.read_exact(&mut value[kept..])?;
        let skipped = len - from_block as u64 - (keep - kept) as u64;
        io::copy(&mut (&mut self.inner).take(skipped), &mut io::sink())?;
        self.offset += len;
        self.number += value.iter().filter(|&&b| b == b'\n').count() as u64;
        Ok(value)
    }
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

    /// A reader that gives at most `step` bytes a read, as a pipe may.
    struct Trickle<'a> {
        bytes: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(self.step).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    const WATCHED: [u8; 3] = [0x1b, b'%', b'\r'];

    /// A line read: number, offset, text, cut, watched.
    type LineRead = (u64, u64, String, bool, bool);

    /// The lines of `bytes`, read `step` bytes at a time, and whether each
    /// holds a byte of [`WATCHED`].
    fn read_each(bytes: &[u8], step: usize) -> (Vec<LineRead>, u64) {
        let mut reader = LineReader::new(Trickle { bytes, step }).starting_at(5).watching(WATCHED);
        let mut out = Vec::new();
        while let Some(line) = reader.next_line().unwrap() {
            out.push((line.number - 4, line.offset, line.text.into_owned(), line.cut, line.watched));
        }
        (out, reader.cut_lines())
    }

    #[test]
    fn any_size_of_read_gives_the_same_lines() {
        let mut long = vec![b'y'; MAX_LINE_BYTES];
        long.extend_from_slice(b"\r\n\nz\r\n");
        long.extend_from_slice(&[b'w'; MAX_LINE_BYTES + 3]);
        let inputs: [&[u8]; 9] = [
            b"first\r\nsecond\n\nlast-no-newline",
            b"50%|##  | 1/2\r100%|####| 2/2\nplain\r\n\x1b[0mred\nlast %",
            "café\nnaïve ✓\r\n…\n".as_bytes(),
            b"a\xff\x00b\n\xe2\x82",
            b"\n\n\r\n",
            b"ends with CR\r",
            b"",
            &long,
            b"x",
        ];
        for input in inputs {
            // What the lines are, split by hand.
            let mut expected = Vec::new();
            let (mut offset, mut cut_lines) = (0, 0);
            let mut rest = input;
            while !rest.is_empty() {
                let end = rest.iter().position(|&b| b == b'\n');
                let body = &rest[..end.unwrap_or(rest.len())];
                let cut = body.len() > MAX_LINE_BYTES;
                let kept =
                    if cut { &body[..MAX_LINE_BYTES] } else { body.strip_suffix(b"\r").unwrap_or(body) };
                let number = expected.len() as u64 + 1;
                let watched = kept.iter().any(|b| WATCHED.contains(b));
                expected.push((number, offset, String::from_utf8_lossy(kept).into_owned(), cut, watched));
                cut_lines += u64::from(cut);
                let used = end.map_or(rest.len(), |e| e + 1);
                offset += used as u64;
                rest = &rest[used..];
            }
            for step in [1, 2, 7, 64, 100_000, 1 << 20, 4 << 20] {
                let (lines, cut) = read_each(input, step);
                assert_eq!(lines, expected, "reads of {step} bytes");
                assert_eq!(cut, cut_lines, "reads of {step} bytes");
            }
        }
    }

    #[test]
    fn raw_lines_and_bytes_that_are_not_lines_interleave() {
        // The export format's binary field: a line, then counted bytes
        // holding a newline, then lines again.
        let input = b"MESSAGE\n\x05\0\0\0\0\0\0\0a\nbc\nnext\n";
        for capacity in [1, 3, 64] {
            let mut reader = LineReader::new(io::BufReader::with_capacity(capacity, &input[..]));
            assert_eq!(reader.next_raw().unwrap().unwrap().bytes, b"MESSAGE");
            assert_eq!(reader.read_bytes(8).unwrap(), 5u64.to_le_bytes());
            assert_eq!(reader.read_bytes(5).unwrap(), b"a\nbc\n");
            let next = reader.next_raw().unwrap().unwrap();
            // Two newlines inside the field count as lines.
            assert_eq!((next.number, next.offset, next.bytes), (4, 21, &b"next"[..]));
            assert!(reader.next_raw().unwrap().is_none());
        }
    }

    #[test]
    fn a_line_cut_short_by_a_quiet_input_is_finished_when_more_comes() {
        // A reader that goes quiet (WouldBlock) in the middle of a line.
        struct Quiet<'a>(Vec<&'a [u8]>);
        impl Read for Quiet<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                match self.0.first_mut() {
                    None => Ok(0),
                    Some(&mut []) => {
                        self.0.remove(0);
                        Err(io::ErrorKind::WouldBlock.into())
                    }
                    Some(piece) => {
                        let n = piece.len().min(buf.len());
                        buf[..n].copy_from_slice(&piece[..n]);
                        *piece = &piece[n..];
                        if piece.is_empty() {
                            self.0.remove(0);
                        }
                        Ok(n)
                    }
                }
            }
        }
        let quiet = Quiet(vec![b"one\ntw", b"", b"o\nthree"]);
        let mut reader = LineReader::new(io::BufReader::with_capacity(4, quiet));
        assert_eq!(reader.next_line().unwrap().unwrap().text, "one");
        let quiet = reader.next_line().unwrap_err();
        assert_eq!(quiet.kind(), io::ErrorKind::WouldBlock);
        let two = reader.next_line().unwrap().unwrap();
        assert_eq!((two.number, two.offset, two.text.as_ref()), (2, 4, "two"));
        let three = reader.next_line().unwrap().unwrap();
        assert_eq!((three.number, three.offset, three.text.as_ref()), (3, 8, "three"));
        assert!(reader.next_line().unwrap().is_none());
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
