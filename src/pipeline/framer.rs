//! Framing on a thread of its own, for text read in batch mode.
//!
//! Reading and framing a line costs about as much as grouping it or judging
//! it, so a file is read and framed on one thread, grouped on a second and
//! judged on a third. The framing thread hands lines over in
//! [`FramedBatch`]es: their text in one buffer, each record as
//! [`RecordSpans`] into it. Used batches come back, so their buffers are
//! reused and memory stays bounded.

use std::io::{self, BufRead};
use std::sync::mpsc::{self, Receiver, SyncSender};

use super::{next_line_or_stop, without_escapes, ReadSummary};
use crate::framing::spans::{store_line, RecordSpans, Span};
use crate::framing::{frame_line, Framed};
use crate::input::LineReader;

/// Lines per batch.
const BATCH_LINES: usize = 1024;
/// Text per batch (a batch also ends at this size).
const BATCH_TEXT: usize = 256 * 1024;
/// Batches in flight: bounds memory when grouping falls behind.
const BATCHES_IN_FLIGHT: usize = 4;

/// Framed lines and the text they borrow from.
#[derive(Default)]
pub struct FramedBatch {
    text: String,
    lines: Vec<FramedLine>,
}

struct FramedLine {
    number: u64,
    offset: u64,
    text: Span,
    first: RecordSpans,
    embedded: Option<RecordSpans>,
}

impl FramedBatch {
    fn push(&mut self, number: u64, offset: u64, line: &str, framed: &Framed<'_>) {
        let text = store_line(line, &mut self.text);
        let first = RecordSpans::store(&framed.first, line, text, &mut self.text);
        let embedded = framed.embedded.as_ref().map(|r| RecordSpans::store(r, line, text, &mut self.text));
        self.lines.push(FramedLine { number, offset, text, first, embedded });
    }

    fn is_full(&self) -> bool {
        self.lines.len() >= BATCH_LINES || self.text.len() >= BATCH_TEXT
    }

    /// Calls `each` with every line (number, byte offset, text, records)
    /// in order; stops at the first error.
    pub fn for_each(
        &self,
        mut each: impl FnMut(u64, u64, &str, &Framed<'_>) -> io::Result<()>,
    ) -> io::Result<()> {
        for line in &self.lines {
            let framed = Framed {
                first: line.first.load(&self.text),
                embedded: line.embedded.map(|r| r.load(&self.text)),
            };
            each(line.number, line.offset, line.text.of(&self.text), &framed)?;
        }
        Ok(())
    }
}

/// The grouping end of a framing thread: batches arrive in order; used
/// ones go back.
pub struct Framings {
    pub batches: Receiver<FramedBatch>,
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
        let mut lines = LineReader::new(reader).starting_at(first);
        let mut summary = ReadSummary::default();
        let mut batch = FramedBatch::default();
        while let Some(line) = next_line_or_stop(&mut lines, &mut summary) {
            let text = without_escapes(&line.text);
            batch.push(line.number, line.offset, &text, &frame_line(&text));
            if batch.is_full() {
                let mut next = self.used.try_recv().unwrap_or_default();
                next.text.clear();
                next.lines.clear();
                if self.to_grouping.send(std::mem::replace(&mut batch, next)).is_err() {
                    break;
                }
            }
        }
        if !batch.lines.is_empty() {
            let _ = self.to_grouping.send(batch);
        }
        summary.cut_lines = lines.cut_lines();
        summary
    }
}
