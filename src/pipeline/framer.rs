//! Framing text a batch of lines at a time, for batch mode: on the
//! reading thread for a small source or when no core is left (see
//! [`super::Framing`]), else on a thread of its own (reading, framing and
//! classifying a line cost about as much as grouping it and judging its
//! event). Lines are handed over in [`FramedBatch`]es: their text in one
//! buffer, each record as [`RecordSpans`] into it or as the layout of the
//! template that framed it, with its class and whether it is an event of
//! one record by itself. Used batches come back, so their buffers are
//! reused and memory stays bounded.

use std::io::{self, BufRead};
use std::sync::mpsc::{self, Receiver, SyncSender};

use super::escapes::opens_with_pasted_colour;
use super::summary::{ReadSummary, TextRead};
use super::without_escapes;
use crate::events::traceback::{
    announces_asyncio_traceback, class_of_opening, classify, ends_plainly, Place,
};
use crate::events::LineKind;
use crate::framing::journal::layout::OPENS_A_DUMP;
use crate::framing::spans::{store_line, RecordSpans, Span};
use crate::framing::{Format, Framed, Layout, Templates};
use crate::input::LineReader;

/// Lines per batch. Batches of 128 to 2,048 lines took the same time on
/// the benchmark log; with the two sizes below, these lowered the peak of
/// one file by 0.3-0.6 MiB against 512 lines, 128 KiB and 8 in flight.
const BATCH_LINES: usize = 256;
/// Text per batch (a batch also ends at this size).
const BATCH_TEXT: usize = 64 * 1024;
/// Batches in flight: bounds memory when grouping falls behind.
const BATCHES_IN_FLIGHT: usize = 4;

/// Framed lines and the text they borrow from.
#[derive(Default)]
pub(super) struct FramedBatch {
    text: String,
    lines: Vec<FramedLine>,
    /// The records that start mid-line (rare), by line index.
    embedded: Vec<(usize, RecordSpans, LineKind)>,
    /// The templates that framed lines of the batch.
    layouts: Vec<LaidBy>,
}

/// A template that framed lines of a batch.
struct LaidBy {
    /// Its serial number.
    serial: u64,
    layout: Layout,
    /// The class of its lines that end plainly, when their opening decides
    /// it (see [`class_of_opening`]).
    class: Option<LineKind>,
}

/// Where a line's record is kept.
enum StoredRecord {
    /// As ranges into the batch's text.
    Spans(RecordSpans),
    /// As the layout of the template that framed the line (an index into
    /// [`FramedBatch::layouts`]): nothing to store per line.
    Laid(usize),
}

struct FramedLine {
    number: u64,
    offset: u64,
    text: Span,
    record: StoredRecord,
    /// The message's class, for grouping (found here, where there is time).
    kind: LineKind,
    /// The line is one record that may make a one-line event.
    lone: bool,
    /// The line takes the bare lines after it: it announces an asyncio
    /// report, or opens a write its writer stamped (`… - `), whose other
    /// lines come bare.
    takes_bare_lines: bool,
    /// The line is a one-line event: it is [`FramedLine::lone`] and the
    /// next line cannot continue it (see `lone_record` in `shapes`).
    whole: bool,
}

impl FramedBatch {
    /// Adds a line, framed as `framed`; `laid`: by the template of that
    /// layout (and serial number), if one framed it.
    fn push(
        &mut self,
        number: u64,
        offset: u64,
        line: &str,
        framed: &Framed<'_>,
        laid: Option<(u64, &Layout)>,
    ) {
        let text = store_line(line, &mut self.text);
        let (record, class) = match laid {
            Some((serial, layout)) => {
                let index =
                    self.layouts.iter().rposition(|kept| kept.serial == serial).unwrap_or_else(|| {
                        let class = class_of_opening(layout.opening(line));
                        self.layouts.push(LaidBy { serial, layout: layout.clone(), class });
                        self.layouts.len() - 1
                    });
                (StoredRecord::Laid(index), self.layouts[index].class)
            }
            None => {
                (StoredRecord::Spans(RecordSpans::store(&framed.first, line, text, &mut self.text)), None)
            }
        };
        if let Some(embedded) = &framed.embedded {
            let kind = classify(embedded.message, Place::Outside);
            let embedded = RecordSpans::store(embedded, line, text, &mut self.text);
            self.embedded.push((self.lines.len(), embedded, kind));
        }
        let message = framed.first.message;
        let kind = match class {
            // Most lines: the template's class, unless the line ends in `:`
            // (it may open a traceback) or in other than visible ASCII.
            Some(class) if ends_plainly(message) => class,
            _ => classify(message, Place::Outside),
        };
        debug_assert_eq!(kind, classify(message, Place::Outside), "{line:?}");
        let after_announcer = self.lines.last().is_some_and(|l| l.takes_bare_lines);
        let (lone, ends) = super::shapes::lone_record(line, framed, kind, after_announcer);
        if let Some(before) = self.lines.last_mut() {
            before.whole = before.lone && ends;
        }
        let takes_bare_lines = lone
            && (announces_asyncio_traceback(framed.first.message)
                || framed.first.formats.contains(Format::WriteStamp));
        self.lines.push(FramedLine {
            number,
            offset,
            text,
            record,
            kind,
            lone,
            takes_bare_lines,
            whole: false,
        });
    }

    /// Empties the batch, keeping its buffers.
    pub(super) fn clear(&mut self) {
        self.text.clear();
        self.lines.clear();
        self.embedded.clear();
        self.layouts.clear();
    }

    fn is_full(&self) -> bool {
        self.lines.len() >= BATCH_LINES || self.text.len() >= BATCH_TEXT
    }

    /// Calls `each` with every line (number, byte offset, text, records,
    /// the records' classes) in order; stops at the first error.
    pub(super) fn for_each(
        &self,
        mut each: impl FnMut(u64, u64, &str, &Framed<'_>, Kinds) -> io::Result<()>,
    ) -> io::Result<()> {
        let mut embedded = self.embedded.iter().peekable();
        for (index, line) in self.lines.iter().enumerate() {
            let inner = embedded.next_if(|(at, _, _)| *at == index);
            let text = line.text.of(&self.text);
            // Each record is built where it is kept: a record moved into
            // place is a copy of some 150 bytes, and most lines have one.
            let mut framed = match line.record {
                StoredRecord::Spans(record) => Framed { first: record.load(&self.text), embedded: None },
                StoredRecord::Laid(layout) => {
                    Framed { first: self.layouts[layout].layout.record(text), embedded: None }
                }
            };
            if let Some((_, record, _)) = inner {
                framed.embedded = Some(record.load(&self.text));
            }
            let kinds =
                Kinds { first: line.kind, embedded: inner.map(|&(_, _, kind)| kind), whole: line.whole };
            each(line.number, line.offset, text, &framed, kinds)?;
        }
        Ok(())
    }
}

/// The classes of a framed line's records (see [`classify`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Kinds {
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
pub(super) struct Framings {
    /// Framed lines, in input order.
    pub batches: Receiver<FramedBatch>,
    /// Where used batches go back.
    pub used: mpsc::Sender<FramedBatch>,
}

/// The framing end: where batches go, and where used ones come back from.
pub(super) struct Framer {
    to_grouping: SyncSender<FramedBatch>,
    used: Receiver<FramedBatch>,
}

/// A connected framer and grouping end.
pub(super) fn channel() -> (Framer, Framings) {
    let (to_grouping, batches) = mpsc::sync_channel(BATCHES_IN_FLIGHT);
    let (used_tx, used) = mpsc::channel();
    (Framer { to_grouping, used }, Framings { batches, used: used_tx })
}

impl Framer {
    /// Reads and frames every line of `reader`, numbering from `first`,
    /// and sends them in batches. Stops early, without an error, if the
    /// grouping end has gone away (it failed and reports why).
    pub(super) fn run<R: BufRead>(self, reader: R, first: u64) -> TextRead<R> {
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
/// returns false to stop reading. Stops before a structured journal that
/// follows the text, and gives it back.
pub(super) fn frame_batches<R: BufRead>(
    reader: R,
    first: u64,
    mut full: impl FnMut(&mut FramedBatch) -> bool,
) -> TextRead<R> {
    // Most lines have no escape sequence to strip, no progress bar and no
    // carriage return: the reader tells those that may.
    let mut lines =
        LineReader::new(reader).starting_at(first).watching([0x1b, b'%', b'\r']).stopping_at(OPENS_A_DUMP);
    let mut summary = ReadSummary::default();
    let mut batch = FramedBatch::default();
    let mut templates = Templates::default();
    let mut going = true;
    while going {
        let line = match lines.next_line() {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(e) => {
                summary.error = Some(e);
                break;
            }
        };
        if !line.watched && !opens_with_pasted_colour(&line.text) {
            let framed = templates.frame_unmarked(&line.text);
            batch.push(line.number, line.offset, &line.text, &framed, templates.last_layout());
        } else {
            let text = without_escapes(&line.text);
            let framed = templates.frame(&text);
            batch.push(line.number, line.offset, &text, &framed, templates.last_layout());
        }
        if batch.is_full() {
            going = full(&mut batch);
        }
    }
    if going && !batch.lines.is_empty() {
        full(&mut batch);
    }
    summary.cut_lines = lines.cut_lines();
    TextRead::after(summary, lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framing::frame_line;

    #[test]
    fn a_batch_gives_back_each_line_as_it_was_framed() {
        // Lines framed in full and by templates (two of them, taking
        // turns), as the framing thread frames them.
        let lines = [
            "[2026-05-25 08:00:00 TP0] Load weight begin.",
            "Capturing batches (bs=8): 100%|██████████| 52/52 [2026-05-25 08:00:01 TP0] Init done",
            "  File \"/a.py\", line 3, in <module>",
            "Loading safetensors: 50% [2026-05-25 08:00:02 TP1] Scheduler hit an exception:",
            "[2026-05-25 08:00:03 TP0] Decode batch. #running-req: 1, #token: 10, gen throughput (token/s): 1.50",
            "INFO:     127.0.0.1:40418 - \"POST /generate HTTP/1.1\" 200 OK",
            "[2026-05-25 08:00:04 TP0] Decode batch. #running-req: 2, #token: 20, gen throughput (token/s): 2.50",
            "INFO:     127.0.0.1:40419 - \"POST /generate HTTP/1.1\" 200 OK",
            "[2026-05-25 08:00:05 TP0] Decode batch. #running-req: 3, #token: 300, gen throughput (token/s): 3.50",
            "INFO:     127.0.0.1:40520 - \"POST /generate HTTP/1.1\" 200 OK",
            "[2026-05-25 08:00:06 TP0] Decode batch. #running-req: 4, #token: 40, gen throughput (token/s): 4.50",
        ];
        let mut batch = FramedBatch::default();
        let mut templates = Templates::default();
        for (i, line) in lines.iter().enumerate() {
            let framed = templates.frame(line);
            batch.push(i as u64 + 1, i as u64 * 100, line, &framed, templates.last_layout());
        }
        assert!(lines.iter().any(|l| frame_line(l).embedded.is_some()), "the test needs a record mid-line");
        let laid = batch.lines.iter().filter(|l| matches!(l.record, StoredRecord::Laid(_))).count();
        assert_eq!((laid, batch.layouts.len()), (3, 2), "lines framed by templates");
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
