//! Records stored as byte ranges into a shared text buffer.
//!
//! A [`Record`] borrows from its line. To frame lines on one thread and
//! group them on another, a batch keeps the lines' text in one buffer and
//! each record as [`RecordSpans`]: the same fields, as ranges into that
//! buffer. [`RecordSpans::load`] gives the record back, borrowing from the
//! buffer.

use super::{FormatSet, Level, Record, Separator};

/// A byte range in a text buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    start: u32,
    end: u32,
}

impl Span {
    /// Stands for a field that is absent (no range starts there).
    const ABSENT: Span = Span { start: u32::MAX, end: u32::MAX };

    /// The text of the range (empty if it is not one of `text`'s).
    pub fn of(self, text: &str) -> &str {
        text.get(self.start as usize..self.end as usize).unwrap_or("")
    }

    fn of_present(self, text: &str) -> Option<&str> {
        (self != Span::ABSENT).then(|| self.of(text))
    }
}

crate::framing::writer_fields! {
    /// A [`Record`] whose text fields are ranges into a text buffer (absent
    /// fields are `Span::ABSENT`: a batch holds thousands of these, so they
    /// are kept small).
    #[derive(Debug, Clone, Copy)]
    pub struct RecordSpans {
        start: u32,
        message_at: u32,
        message: Span,
        origin: Span,
        formats: FormatSet,
        level: Option<Level>,
        separator: Option<Separator>,
        app_header: bool,
    }
    writer fields [all]: text as Span, pid as Option<u32>
}

/// Appends `line` to `text` and returns its range there; records framed
/// from `line` are then stored with [`RecordSpans::store`].
pub fn store_line(line: &str, text: &mut String) -> Span {
    let start = text.len();
    text.push_str(line);
    Span { start: start as u32, end: text.len() as u32 }
}

impl RecordSpans {
    /// Stores `record`, framed from the line stored at `stored`. A field
    /// that is not part of the line (a name framing supplied) is appended
    /// to `text`.
    pub fn store(record: &Record<'_>, line: &str, stored: Span, text: &mut String) -> Self {
        let mut span = |field: Option<&str>| -> Span {
            let Some(field) = field else {
                return Span::ABSENT;
            };
            let at = (field.as_ptr() as usize).wrapping_sub(line.as_ptr() as usize);
            if at <= line.len() && field.len() <= line.len() - at {
                let start = stored.start + at as u32;
                Span { start, end: start + field.len() as u32 }
            } else {
                store_line(field, text)
            }
        };
        RecordSpans {
            start: record.start as u32,
            message_at: record.message_at as u32,
            message: span(Some(record.message)),
            time: span(record.time),
            host: span(record.host),
            identifier: span(record.identifier),
            unit: span(record.unit),
            process: span(record.process),
            ranks: span(record.ranks),
            origin: span(record.origin),
            pid: record.pid,
            formats: record.formats,
            level: record.level,
            separator: record.separator,
            app_header: record.app_header,
        }
    }

    /// The record, borrowing from `text` (the buffer it was stored in).
    pub fn load(self, text: &str) -> Record<'_> {
        Record {
            start: self.start as usize,
            message_at: self.message_at as usize,
            message: self.message.of(text),
            time: self.time.of_present(text),
            host: self.host.of_present(text),
            identifier: self.identifier.of_present(text),
            unit: self.unit.of_present(text),
            pid: self.pid,
            process: self.process.of_present(text),
            ranks: self.ranks.of_present(text),
            level: self.level,
            origin: self.origin.of_present(text),
            formats: self.formats,
            app_header: self.app_header,
            separator: self.separator,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framing::frame_line;

    #[test]
    fn a_stored_record_loads_as_it_was_framed() {
        let lines = [
            "May 25 08:00:00 gpu-node-07 python[71283]: [2026-05-25 08:00:00 TP3] Load weight begin.",
            "(EngineCore_DP0 pid=3031437) ERROR 05-25 20:27:22 [core.py:1161] EngineCore failed",
            "(pid=42) a process tag whose name framing supplies",
            "-- Boot 0123456789abcdef --",
            "Capturing batches (bs=8): 100%|██████████| 52/52 [2026-05-25 08:00:01 TP0] Init done",
            "",
        ];
        let mut text = String::from("something stored before");
        for line in lines {
            let framed = frame_line(line);
            let stored = store_line(line, &mut text);
            let first = RecordSpans::store(&framed.first, line, stored, &mut text);
            let embedded = framed.embedded.as_ref().map(|r| RecordSpans::store(r, line, stored, &mut text));
            assert_eq!(stored.of(&text), line);
            assert_eq!(first.load(&text), framed.first, "{line}");
            assert_eq!(embedded.map(|r| r.load(&text)), framed.embedded, "{line}");
        }
    }
}
