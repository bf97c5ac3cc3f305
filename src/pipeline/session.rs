//! One stream read part after part ([`Session`]): line numbers and open
//! events continue from one part to the next, a structured journal that
//! follows text in the same part is read in its own shape, and what the
//! reading met (damaged records, binary messages) is told at the end.

use std::io::{self, BufRead};

use super::feeder::Feeder;
use super::summary::{ReadSummary, TextRead};
use super::text::{read_text, read_text_split};
use super::{structured, Sink, SNIFF_BYTES};
use crate::framing::journal::layout::{self, Shape};
use crate::input::with_head;
use crate::notice::Notice;

/// Whether a large part is framed on a thread of its own while its lines
/// are grouped on the reading thread: worth it only on a core that would
/// otherwise be idle (handing lines over cost about 7% more CPU time on a
/// 256 MiB log: median of 15 alternating runs against one thread).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// On a thread of its own, when a part is larger than its head.
    OwnThread,
    /// On the reading thread (one core, or every core reading a file).
    ReadingThread,
}

/// Reading one stream that may come in several parts (rotated files, oldest
/// first): line numbers and open events continue from part to part.
pub struct Session<'f> {
    feeder: Feeder<'f>,
    /// Text followed by a structured journal in one part: the text's first
    /// and last lines, and the journal's shape.
    shape_changes: Vec<(u64, u64, Shape)>,
}

impl<'f> Session<'f> {
    /// A session handing events to `sink`.
    pub fn new(sink: &'f mut dyn Sink) -> Self {
        Session { feeder: Feeder::new(sink, false), shape_changes: Vec::new() }
    }

    /// A session reading inputs that grow (`logdiag watch`): a read that
    /// fails with [`io::ErrorKind::WouldBlock`] means the input is idle for
    /// now (see [`crate::input::follow`]). The sink is then shown the
    /// events still open ([`Sink::idle`]) and reading goes on.
    pub fn following(sink: &'f mut dyn Sink) -> Self {
        Session { feeder: Feeder::new(sink, true), shape_changes: Vec::new() }
    }

    /// Whether the session reads an input that grows.
    pub fn is_following(&self) -> bool {
        self.feeder.following
    }

    /// The number of the last line read so far.
    pub fn last_line(&self) -> u64 {
        self.feeder.seen.0
    }

    /// The sink the session hands its news to.
    pub fn sink(&mut self) -> &mut dyn Sink {
        self.feeder.sink
    }

    /// Reads one part of shape `shape` (a structured journal, or text if
    /// `None`: its head was sniffed by the caller, once); its first line
    /// follows the last line of the part before it.
    pub fn read<R: BufRead>(&mut self, reader: R, shape: Option<Shape>) -> io::Result<ReadSummary> {
        self.read_with(reader, shape, read_text)
    }

    /// Like [`Session::read`], but with [`Framing::OwnThread`] text is read
    /// and framed on a thread of its own while this one groups (batch mode,
    /// where the reader can be sent to another thread).
    pub fn read_framed<R: BufRead + Send>(
        &mut self,
        reader: R,
        shape: Option<Shape>,
        framing: Framing,
    ) -> io::Result<ReadSummary> {
        if framing == Framing::ReadingThread || self.feeder.following {
            return self.read(reader, shape);
        }
        self.read_with(reader, shape, read_text_split)
    }

    /// Reads a structured journal here, and text with `read_text`; a
    /// structured journal after the text is read here in its own shape.
    fn read_with<R: BufRead>(
        &mut self,
        reader: R,
        shape: Option<Shape>,
        read_text: impl FnOnce(R, u64, &mut Feeder<'f>) -> io::Result<TextRead<R>>,
    ) -> io::Result<ReadSummary> {
        let first = self.last_line() + 1;
        if let Some(shape) = shape {
            return structured::read(reader, shape, (first, 0), &mut self.feeder);
        }
        let text = read_text(reader, first, &mut self.feeder)?;
        let Some(journal) = text.journal else { return Ok(text.summary) };
        let start = (journal.text_ends + 1, journal.offset);
        let (head, rest) = with_head(journal.rest, SNIFF_BYTES);
        // The text ended where a journal opened: its head says which (read
        // as json-pretty, lines outside an object are text, if it should
        // not).
        let shape = layout::sniff(&head).unwrap_or(Shape::JsonPretty);
        self.shape_changes.push((first, journal.text_ends, shape));
        let after = structured::read(rest, shape, start, &mut self.feeder)?;
        Ok(ReadSummary {
            cut_lines: text.summary.cut_lines + after.cut_lines,
            error: text.summary.error.or(after.error),
        })
    }

    /// Ends the stream: open events are closed and handed out, then what
    /// the reading met is told, then the lines read.
    pub fn finish(&mut self) -> io::Result<()> {
        self.flush()?;
        for notice in self.notices() {
            self.feeder.sink.notice(notice)?;
        }
        let (last, formats) = self.feeder.seen;
        self.feeder.sink.lines(last, formats)
    }

    /// What the report should say of what was read: damaged JSON records,
    /// text before a journal, binary messages journalctl did not show.
    fn notices(&self) -> Vec<Notice> {
        let feeder = &self.feeder;
        let mut notices = Vec::new();
        if feeder.damaged > 0 {
            notices.push(Notice::DamagedRecords { count: feeder.damaged });
        }
        for &(first, last, shape) in &self.shape_changes {
            notices.push(Notice::TextBeforeJournal { first, last, shape });
        }
        if feeder.outside_entries > 0 {
            notices.push(Notice::OutsideEntries { count: feeder.outside_entries });
        }
        if feeder.blobs > 0 {
            notices.push(Notice::BinaryMessages { count: feeder.blobs });
        }
        notices
    }

    /// In a following session, shows the sink what is pending, as when
    /// the input goes idle (after a part read at once, such as a journal
    /// put back in time order).
    pub fn idle(&mut self) -> io::Result<()> {
        self.feeder.idle()
    }

    /// Closes every open event and hands it out: after a quiet period in a
    /// followed stream, a traceback is complete.
    pub fn flush(&mut self) -> io::Result<()> {
        self.feeder.flush()
    }
}
