//! The part loop: how every reader — batch judging, `logdiag watch`,
//! `logdiag events`, rule samples — reads the parts of a stream. For each
//! part: announce it, look at its head for its shape, put a newest-first
//! part (`journalctl -r`) back in time order and say so, read it through
//! the session, and note what cut it short. [`read_parts`] is the loop
//! over the files of a stream; [`Intake`] reads one part at a time, for a
//! followed input whose parts come as its path changes.

use std::io::{self, BufRead, BufReader, Read};

use super::session::{Framing, Session};
use super::summary::ReadSummary;
use super::{reversed, Part, Sink, SNIFF_BYTES};
use crate::framing::journal::layout;
use crate::input::follow::Change;
use crate::input::{sniff_wide, with_head, with_head_until, Reversal, Transcoder};
use crate::notice::{Notice, Which};

/// Bytes read from a followed input at a time.
const BUFFER: usize = 64 * 1024;

/// How much of a newest-first part of a followed input is held to put it
/// in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Held {
    /// What a file holds when it is first read to its end.
    UntilIdle,
    /// All of a stream, until it closes.
    UntilEnd,
}

/// What reading the parts of one stream came to.
#[derive(Debug, Default)]
pub struct PartsRead {
    /// The stream's last line number (0: nothing was read).
    pub last_line: u64,
    /// The last read error; what was read before it was handed on.
    pub error: Option<io::Error>,
}

/// Reads the parts of one stream (rotated files, oldest first) and hands
/// its news to `sink` in order: tracebacks continue across parts, line
/// numbers run on from part to part. `name` is the stream's name; notices
/// about one file of several name that file. A part that cannot be read,
/// or is cut short, is noticed and reading goes on with the next.
pub fn read_parts<R: BufRead + Send>(
    name: &str,
    parts: Vec<(String, R)>,
    sink: &mut dyn Sink,
    framing: Framing,
) -> io::Result<PartsRead> {
    let mut intake = Intake::new(sink, framing);
    let mut error = None;
    for (part, reader) in parts {
        let which = if part == name { Which::Whole } else { Which::Part(part.clone()) };
        let (notice, failed) = match intake.read_part(&part, &which, reader) {
            Ok(ReadSummary { error: None, .. }) => continue,
            Ok(ReadSummary { error: Some(e), .. }) => {
                (Notice::ReadingStopped { which, error: e.to_string() }, e)
            }
            Err(e) => (Notice::ReadingFailed { which, error: e.to_string() }, e),
        };
        intake.sink().notice(notice)?;
        error = Some(failed);
    }
    let last_line = intake.last_line();
    intake.finish(error.is_some())?;
    Ok(PartsRead { last_line, error })
}

/// Reads a stream a part at a time through one session.
pub struct Intake<'s> {
    session: Session<'s>,
    framing: Framing,
    /// Lines longer than the cap, in the parts read so far.
    cut_lines: u64,
}

impl<'s> Intake<'s> {
    /// Reads a stream whose parts are read whole (files, a pipe read to
    /// its end), framing large ones as `framing` says.
    pub fn new(sink: &'s mut dyn Sink, framing: Framing) -> Self {
        Intake { session: Session::new(sink), framing, cut_lines: 0 }
    }

    /// Reads an input that grows (`logdiag watch`): see
    /// [`Session::following`].
    pub fn following(sink: &'s mut dyn Sink) -> Self {
        Intake { session: Session::following(sink), framing: Framing::ReadingThread, cut_lines: 0 }
    }

    /// The number of the last line read so far.
    pub fn last_line(&self) -> u64 {
        self.session.last_line()
    }

    /// The sink the intake hands its news to.
    pub fn sink(&mut self) -> &mut dyn Sink {
        self.session.sink()
    }

    /// Reads one part to its end. The summary's error is a read error
    /// that cut it short; an `Err` is one that kept it from being read.
    pub fn read_part<R: BufRead + Send>(
        &mut self,
        name: &str,
        which: &Which,
        reader: R,
    ) -> io::Result<ReadSummary> {
        let first_line = self.begin(name, None)?;
        let (head, reader) = with_head(reader, SNIFF_BYTES);
        let shape = layout::sniff(&head);
        // All of a part that fits in its head is too little to be worth a
        // thread (a directory of many small logs would start one for each).
        let framing = if head.len() < SNIFF_BYTES { Framing::ReadingThread } else { self.framing };
        let summary = if reversed::looks_reversed(&head) {
            let reordered = reversed::reorder(reader, shape)?;
            self.reordered(name, which, first_line, reordered.reversal)?;
            let summary = self.session.read_framed(reordered.reader, shape, framing)?;
            ReadSummary { error: reordered.error, ..summary }
        } else {
            self.session.read_framed(reader, shape, framing)?
        };
        self.cut_lines += summary.cut_lines;
        Ok(summary)
    }

    /// Reads one part of a followed input, as far as it goes while it is
    /// followed; it is announced before anything is read (an empty file
    /// is a part too, and a new part's first read waits for its first
    /// bytes). UTF-16 or UTF-32 text is read as UTF-8 from its first
    /// bytes on. A newest-first part is put in time order with what it
    /// holds when first idle (`held`: a file), or all of it (a stream:
    /// journalctl cannot follow in reverse, so a newest-first stream ends,
    /// however slowly it comes); what comes after is read as it comes.
    /// `after` says what became of the path before this file. A read
    /// error is the summary's.
    pub fn read_growing_part(
        &mut self,
        name: &str,
        part: impl Read,
        held: Held,
        after: Option<Change>,
    ) -> io::Result<ReadSummary> {
        let first_line = self.begin(name, after)?;
        let (head, reader) = with_head_until(BufReader::with_capacity(BUFFER, part), SNIFF_BYTES, |_| false);
        let summary = match sniff_wide(&head) {
            Some(wide) => {
                let text = BufReader::with_capacity(BUFFER, Transcoder::new(reader, wide));
                self.read_growing_text(name, first_line, text, held)?
            }
            None => {
                self.read_growing_text(name, first_line, BufReader::with_capacity(BUFFER, reader), held)?
            }
        };
        // A followed input may never end: its cut lines are told part by
        // part.
        if summary.cut_lines > 0 {
            self.session.sink().notice(Notice::LongLinesCut { count: summary.cut_lines })?;
        }
        Ok(summary)
    }

    /// Reads the UTF-8 text of a followed part (see
    /// [`Intake::read_growing_part`]).
    fn read_growing_text<R: BufRead>(
        &mut self,
        name: &str,
        first_line: u64,
        reader: R,
        held: Held,
    ) -> io::Result<ReadSummary> {
        // A stream whose first quiet moment comes before three journal
        // stamps (one or two entries, or a structured entry not yet at its
        // stamp) is read on until its order can be told: newest first, it
        // must be held whole before anything is judged.
        let wants_more = |head: &[u8]| {
            held == Held::UntilEnd && reversed::too_few_stamps(head, layout::sniff(head).is_some())
        };
        let (head, mut reader) = with_head_until(reader, SNIFF_BYTES, wants_more);
        let shape = layout::sniff(&head);
        if !reversed::looks_reversed(&head) {
            return self.session.read(reader, shape);
        }
        let reordered = match held {
            Held::UntilIdle => reversed::reorder(BufReader::new(UntilIdle(&mut reader)), shape)?,
            Held::UntilEnd => reversed::reorder(BufReader::new(UntilEnd(&mut reader)), shape)?,
        };
        if let Some(e) = reordered.error {
            return Err(e);
        }
        self.reordered(name, &Which::Whole, first_line, reordered.reversal)?;
        self.session.read(reordered.reader, shape)?;
        self.session.idle()?;
        // Whatever comes after is read as it comes.
        self.begin(name, None)?;
        self.session.read(reader, shape)
    }

    /// Ends the stream: what is open is handed out, what reading met is
    /// told (an input that held nothing, the lines cut by the cap) and
    /// the sink hears of the end. `failed`: a part could not be read
    /// whole (an input that failed is not called empty).
    pub fn finish(mut self, failed: bool) -> io::Result<()> {
        self.session.finish()?;
        let empty = self.session.last_line() == 0;
        let sink = self.session.sink();
        if empty && !failed {
            sink.notice(Notice::Empty)?;
        }
        if self.cut_lines > 0 {
            sink.notice(Notice::LongLinesCut { count: self.cut_lines })?;
        }
        sink.end()
    }

    /// Announces a part beginning after the last line read; returns its
    /// first line's number.
    fn begin(&mut self, name: &str, after: Option<Change>) -> io::Result<u64> {
        let first_line = self.session.last_line() + 1;
        let part = Part { name: name.to_string(), first_line, reversed: None, after };
        self.session.sink().part(&part)?;
        Ok(first_line)
    }

    /// Announces again the part at `first_line`, now that it is known how
    /// it was put in time order, and says so.
    fn reordered(
        &mut self,
        name: &str,
        which: &Which,
        first_line: u64,
        reversal: Reversal,
    ) -> io::Result<()> {
        let part = Part { name: name.to_string(), first_line, reversed: Some(reversal), after: None };
        let sink = self.session.sink();
        sink.part(&part)?;
        sink.notice(Notice::Reordered { which: which.clone() })
    }
}

/// A followed input read to its end: idle signals are waited out.
struct UntilEnd<R>(R);

impl<R: Read> Read for UntilEnd<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match self.0.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                other => return other,
            }
        }
    }
}

/// A followed input read only as far as it goes now: its idle signal is
/// its end.
struct UntilIdle<R>(R);

impl<R: Read> Read for UntilIdle<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.0.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(0),
            other => other,
        }
    }
}
