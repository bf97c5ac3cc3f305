//! The pipeline driver: reads a source, frames and groups it, and hands
//! events to the engine. Batch mode and any follow mode share it.
//!
//! A source is text (journal short modes, server logs, dmesg…) or a
//! structured journal (`-o json`, `json-pretty`, `json-seq`, `json-sse`,
//! `export`), recognised by its first bytes. Structured entries become the
//! same records as text lines, with the journal fields as the transport
//! layer; their MESSAGE is what reports show.

mod escapes;
mod structured;

use std::io::{self, BufRead};

use crate::engine::Engine;
use crate::events::{Event, Grouper};
use crate::framing::journal::JournalEntry;
use crate::framing::{frame_line, frame_message, Format, FormatSet, Framed, Record, Separator};
use crate::input::{LineReader, MAX_LINE_BYTES};

pub use escapes::without_escapes;

/// What reading a source met along the way.
#[derive(Debug, Default)]
pub struct ReadSummary {
    /// Lines longer than the cap, cut.
    pub cut_lines: u64,
    /// The read error that stopped reading early, if any.
    pub error: Option<io::Error>,
}

/// Reads `reader`, frames and groups it, and hands every event to
/// `on_event` in input order. `on_line` sees each line's number and the
/// formats framing recognised. Stops early if `on_event` fails.
pub fn read_events<R: BufRead>(
    mut reader: R,
    mut on_line: impl FnMut(u64, FormatSet),
    mut on_event: impl FnMut(&Event) -> io::Result<()>,
) -> io::Result<ReadSummary> {
    let head = loop {
        match reader.fill_buf() {
            Ok(head) => break head,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    };
    let mut feeder = Feeder {
        grouper: Grouper::new(),
        on_event: &mut on_event,
        boot: None,
    };
    let summary = match structured::sniff(head) {
        Some(shape) => structured::read(reader, shape, &mut on_line, &mut feeder)?,
        None => read_text(reader, &mut on_line, &mut feeder)?,
    };
    feeder.finish()?;
    Ok(summary)
}

fn read_text<R: BufRead>(
    reader: R,
    on_line: &mut impl FnMut(u64, FormatSet),
    feeder: &mut Feeder<'_>,
) -> io::Result<ReadSummary> {
    let mut lines = LineReader::new(reader);
    let mut summary = ReadSummary::default();
    loop {
        let line = match lines.next_line() {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(e) => {
                summary.error = Some(e);
                break;
            }
        };
        let text = without_escapes(&line.text);
        let framed = frame_line(&text);
        on_line(line.number, framed.first.formats);
        feeder.push(line.number, line.offset, &text, &framed)?;
    }
    summary.cut_lines = lines.cut_lines();
    Ok(summary)
}

/// Pushes records into the grouper and events out of it.
struct Feeder<'f> {
    grouper: Grouper,
    on_event: &'f mut dyn FnMut(&Event) -> io::Result<()>,
    /// The boot id of the last structured entry.
    boot: Option<String>,
}

impl Feeder<'_> {
    fn push(
        &mut self,
        number: u64,
        offset: u64,
        text: &str,
        framed: &Framed<'_>,
    ) -> io::Result<()> {
        self.grouper.push(number, offset, text, &framed.first);
        if let Some(inner) = &framed.embedded {
            self.grouper.push(number, offset, text, inner);
        }
        while let Some(event) = self.grouper.pop() {
            (self.on_event)(&event)?;
        }
        Ok(())
    }

    /// Pushes a structured entry: a boot separator when its boot id changes,
    /// then each line of its MESSAGE, all under the entry's line number.
    fn push_entry(
        &mut self,
        number: u64,
        offset: u64,
        entry: &JournalEntry,
        format: Format,
    ) -> io::Result<()> {
        if let Some(boot) = &entry.fields.boot_id {
            if self.boot.as_ref().is_some_and(|b| b != boot) {
                let text = format!("-- Boot {boot} --");
                let record = Record {
                    separator: Some(Separator::Boot),
                    message: &text,
                    ..Record::default()
                };
                self.push(
                    number,
                    offset,
                    &text,
                    &Framed {
                        first: record,
                        embedded: None,
                    },
                )?;
            }
            self.boot = Some(boot.clone());
        }
        let Some(message) = &entry.message else {
            return Ok(());
        };
        for line in message.split('\n') {
            let line = line.strip_suffix('\r').unwrap_or(line);
            let text = without_escapes(line);
            let framed = frame_message(&text, &entry.fields, format);
            self.push(number, offset, &text, &framed)?;
        }
        Ok(())
    }

    fn finish(self) -> io::Result<()> {
        let Feeder {
            mut grouper,
            on_event,
            ..
        } = self;
        for event in grouper.finish() {
            on_event(&event)?;
        }
        Ok(())
    }
}

/// Reads all of `reader` as source `name` into `engine`. A read error
/// part-way (a cut gzip stream) is noted in the diagnosis and returned;
/// what was read before it is still in the engine.
pub fn feed_source<R: BufRead>(engine: &mut Engine<'_>, name: &str, reader: R) -> io::Result<()> {
    engine.begin_source(name);
    let mut last_line = 0;
    let mut formats = FormatSet::default();
    let summary = read_events(
        reader,
        |number, seen| {
            last_line = number;
            formats.extend(seen);
        },
        |event| {
            engine.feed(event);
            Ok(())
        },
    )?;
    engine.note_line(last_line, formats);
    if summary.cut_lines > 0 {
        engine.note_input_problem(format!(
            "{} line(s) longer than {} MiB were cut; the rest of each was skipped",
            summary.cut_lines,
            MAX_LINE_BYTES >> 20
        ));
    }
    match summary.error {
        Some(e) => {
            engine.note_input_problem(format!(
                "reading stopped early: {e}; the diagnosis covers what was read"
            ));
            Err(e)
        }
        None => Ok(()),
    }
}
