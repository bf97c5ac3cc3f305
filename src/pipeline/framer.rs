//! Framing text a batch of lines at a time, for batch mode: on the
//! reading thread for a small source, on a thread of its own for a large
//! one (reading, framing and classifying a line cost about as much as
//! grouping it and judging its event). Lines are handed over in
//! [`FramedBatch`]es: their text in one buffer, each record as
//! [`RecordSpans`] into it, with its class and whether it is an event of
//! one record by itself. Used batches come back, so their buffers are
//! reused and memory stays bounded.

use std::io::{self, BufRead};
use std::sync::mpsc::{self, Receiver, SyncSender};

use super::{without_escapes, ReadSummary};
use crate::events::traceback::{announces_asyncio_traceback, classify, Place};
use crate::events::LineKind;
use crate::framing::spans::{store_line, RecordSpans, Span};
use crate::framing::{Framed, Templates};
use crate::input::LineReader;

/// Lines per batch.
const BATCH_LINES: usize = 1024;
/// Text per batch (a batch also ends at this size).
const BATCH_TEXT: usize = 256 * 1024;
/// Batches in flight: bounds memory when grouping falls behind.
const BATCHES_IN_FLIGHT: usize = 8;

/// Framed lines and the text they borrow from.
#[derive(Default)]
pub struct FramedBatch {
    text: String,
    lines: Vec<FramedLine>,
    /// The records that start mid-line (rare), by line index.
    embedded: Vec<(usize, RecordSpans, LineKind)>,
}

struct FramedLine {
    number: u64,
    offset: u64,
    text: Span,
    record: RecordSpans,
    /// The message's class, for grouping (found here, where there is time).
    kind: LineKind,
    /// The line is one record that may make a one-line event.
    lone: bool,
    /// The line announces an asyncio report (it takes bare lines).
    announces: bool,
    /// The line is a one-line event: it is [`FramedLine::lone`] and the
    /// next line cannot continue it (see [`super::lone_record`]).
    whole: bool,
}

impl FramedBatch {
    fn push(&mut self, number: u64, offset: u64, line: &str, framed: &Framed<'_>) {
        let text = store_line(line, &mut self.text);
        let record = RecordSpans::store(&framed.first, line, text, &mut self.text);
        if let Some(embedded) = &framed.embedded {
            let kind = classify(embedded.message, Place::Outside);
            let embedded = RecordSpans::store(embedded, line, text, &mut self.text);
            self.embedded.push((self.lines.len(), embedded, kind));
        }
        let kind = classify(framed.first.message, Place::Outside);
        let after_announcer = self.lines.last().is_some_and(|l| l.announces);
        let (lone, ends) = super::lone_record(line, framed, kind, after_announcer);
        if let Some(before) = self.lines.last_mut() {
            before.whole = before.lone && ends;
        }
        let announces = lone && announces_asyncio_traceback(framed.first.message);
        self.lines.push(FramedLine { number, offset, text, record, kind, lone, announces, whole: false });
    }

    /// Empties the batch, keeping its buffers.
    pub fn clear(&mut self) {
        self.text.clear();
        self.lines.clear();
        self.embedded.clear();
    }

    fn is_full(&self) -> bool {
        self.lines.len() >= BATCH_LINES || self.text.len() >= BATCH_TEXT
    }

    /// Calls `each` with every line (number, byte offset, text, records,
    /// the records' classes) in order; stops at the first error.
    pub fn for_each(
        &self,
        mut each: impl FnMut(u64, u64, &str, &Framed<'_>, Kinds) -> io::Result<()>,
    ) -> io::Result<()> {
        let mut embedded = self.embedded.iter().peekable();
        for (index, line) in self.lines.iter().enumerate() {
            let inner = embedded.next_if(|(at, _, _)| *at == index);
            let framed = Framed {
                first: line.record.load(&self.text),
                embedded: inner.map(|(_, record, _)| record.load(&self.text)),
            };
            let kinds =
                Kinds { first: line.kind, embedded: inner.map(|&(_, _, kind)| kind), whole: line.whole };
            each(line.number, line.offset, line.text.of(&self.text), &framed, kinds)?;
        }
        Ok(())
    }
}

/// The classes of a framed line's records (see [`classify`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kinds {
    /// The class of the record that starts the line.
    pub first: LineKind,
    /// The class of the record that starts mid-line, if there is one.
    pub embedded: Option<LineKind>,
    /// The line is a one-line event whatever the grouper holds open (it
    /// was framed with the line after it).
    pub whole: bool,
}

/// The grouping end of a framing thread: batches arrive in order; used
/// ones go back.
pub struct Framings {
    /// Framed lines, in input order.
    pub batches: Receiver<FramedBatch>,
    /// Where used batches go back.
    pub used: mpsc::Sender<FramedBatch>,
}

/// The framing end: where batches go, and where used ones come back from.
pub struct Framer {
    to_grouping: SyncSender<FramedBatch>,
    used: Receiver<FramedBatch>,
}

/// A connected framer and grouping end.
pub fn channel() -> (Framer, Framings) {
    let (to_grouping, batches) = mpsc::sync_channel(BATCHES_IN_FLIGHT);
    let (used_tx, used) = mpsc::channel();
    (Framer { to_grouping, used }, Framings { batches, used: used_tx })
}

impl Framer {
    /// Reads and frames every line of `reader`, numbering from `first`,
    /// and sends them in batches. Stops early, without an error, if the
    /// grouping end has gone away (it failed and reports why).
    pub fn run<R: BufRead>(self, reader: R, first: u64) -> ReadSummary {
        frame_batches(reader, first, |batch| {
            let mut next = self.used.try_recv().unwrap_or_default();
            next.clear();
            // The grouping end has gone away when this fails: stop.
            self.to_grouping.send(std::mem::replace(batch, next)).is_ok()
        })
    }
}

/// Reads and frames every line of `reader`, numbering from `first`, and
/// hands each full batch to `full`, then the last one, which may be
/// short; `full` leaves the batch empty for the lines that follow, or
/// returns false to stop reading.
pub fn frame_batches<R: BufRead>(
    reader: R,
    first: u64,
    mut full: impl FnMut(&mut FramedBatch) -> bool,
) -> ReadSummary {
    let mut lines = LineReader::new(reader).starting_at(first);
    let mut summary = ReadSummary::default();
    let mut batch = FramedBatch::default();
    let mut templates = Templates::default();
    let mut going = true;
    let read = lines.for_each_line(|line| {
        // One search tells most lines apart from those that need more:
        // no escape sequence to strip, no progress bar or carriage return.
        let unmarked = memchr::memchr3(0x1b, b'%', b'\r', line.text.as_bytes()).is_none();
        if unmarked {
            batch.push(line.number, line.offset, &line.text, &templates.frame_unmarked(&line.text));
        } else {
            let text = without_escapes(&line.text);
            batch.push(line.number, line.offset, &text, &templates.frame(&text));
        }
        if batch.is_full() {
            going = full(&mut batch);
        }
        going
    });
    if let Err(e) = read {
        summary.error = Some(e);
    }
    if going && !batch.lines.is_empty() {
        full(&mut batch);
    }
    summary.cut_lines = lines.cut_lines();
    summary
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framing::frame_line;

    #[test]
    fn a_batch_gives_back_each_line_as_it_was_framed() {
        let lines = [
            "[2026-05-25 08:00:00 TP0] Load weight begin.",
            "Capturing batches (bs=8): 100%|██████████| 52/52 [2026-05-25 08:00:01 TP0] Init done",
            "  File \"/a.py\", line 3, in <module>",
            "Loading safetensors: 50% [2026-05-25 08:00:02 TP1] Scheduler hit an exception:",
        ];
        let mut batch = FramedBatch::default();
        for (i, line) in lines.iter().enumerate() {
            batch.push(i as u64 + 1, i as u64 * 100, line, &frame_line(line));
        }
        assert!(lines.iter().any(|l| frame_line(l).embedded.is_some()), "the test needs a record mid-line");
        let mut seen = 0;
        batch
            .for_each(|number, offset, text, framed, kinds| {
                let i = seen;
                seen += 1;
                assert_eq!((number, offset, text), (i as u64 + 1, i as u64 * 100, lines[i]));
                assert_eq!(*framed, frame_line(lines[i]), "{}", lines[i]);
                assert_eq!(kinds.first, classify(framed.first.message, Place::Outside));
                assert_eq!(
                    kinds.embedded,
                    framed.embedded.as_ref().map(|r| classify(r.message, Place::Outside))
                );
                Ok(())
            })
            .unwrap();
        assert_eq!(seen, lines.len());
    }
}
