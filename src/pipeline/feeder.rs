//! The feeder: pushes framed records into the grouper and hands the
//! events it closes to the sink, giving each line its place
//! ([`LineAt`]): JSON records (a Docker line held until its last record),
//! structured entries with their boot separators, and one-line records
//! that skip grouping.

use std::io;

use super::framer;
use super::shapes::floor_char_boundary;
use super::{without_escapes, Sink};
use crate::events::traceback::{classify, Place};
use crate::events::{Grouper, LineAt};
use crate::framing::journal::JournalEntry;
use crate::framing::json_line::{JsonLine, JsonRecord};
use crate::framing::{frame_message, Format, FormatSet, Framed, Record, Separator};
use crate::input::MAX_LINE_BYTES;

/// Pushes records into the grouper and events out of it.
pub(super) struct Feeder<'f> {
    pub(super) grouper: Grouper,
    pub(super) sink: &'f mut dyn Sink,
    /// The boot id of the last structured entry.
    boot: Option<String>,
    /// The input grows while it is read (see [`Session::following`]).
    pub(super) following: bool,
    /// A Docker json-file line whose records have not all come yet.
    partial: Option<HeldEntry>,
    /// JSON records that were not valid JSON, read as far as they went.
    pub(super) damaged: u64,
    /// Messages journalctl showed only as `[N blob data]`.
    pub(super) blobs: u64,
    /// Lines of a structured journal that were not part of an entry.
    pub(super) outside_entries: u64,
    /// The last line was a `json-sse` event (`data: {…}`).
    pub(super) after_event_stream: bool,
    /// The places of the lines pushed ([`LineAt::ordinal`]).
    ordinals: Ordinals,
    /// The last line's number and the formats framing saw on every line.
    pub(super) seen: (u64, FormatSet),
}

/// Gives each line pushed its ordinal among the lines the program wrote:
/// a line of text counts as its number, shifted by what the entries
/// before it took less (or more) than their lines; each line of an
/// entry's message counts one after the last.
#[derive(Debug, Default)]
struct Ordinals {
    last: u64,
    /// What a text line's number is shifted by.
    shift: i64,
    /// The last line pushed was an entry's.
    after_entries: bool,
}

impl Ordinals {
    fn text(&mut self, number: u64, offset: u64) -> LineAt {
        if std::mem::take(&mut self.after_entries) {
            self.shift = (self.last + 1) as i64 - number as i64;
        }
        self.last = number.saturating_add_signed(self.shift);
        LineAt { number, offset, ordinal: self.last }
    }

    fn entry(&mut self, number: u64, offset: u64) -> LineAt {
        self.after_entries = true;
        self.last += 1;
        LineAt { number, offset, ordinal: self.last }
    }
}

/// An entry held until the rest of it comes.
struct HeldEntry {
    number: u64,
    offset: u64,
    entry: JournalEntry,
}

impl<'f> Feeder<'f> {
    pub(super) fn new(sink: &'f mut dyn Sink, following: bool) -> Self {
        Feeder {
            grouper: Grouper::new(),
            sink,
            boot: None,
            following,
            partial: None,
            damaged: 0,
            blobs: 0,
            outside_entries: 0,
            after_event_stream: false,
            ordinals: Ordinals::default(),
            seen: (0, FormatSet::default()),
        }
    }

    /// Counts line `number`, on which framing saw `formats`.
    pub(super) fn saw(&mut self, number: u64, formats: FormatSet) {
        self.seen.0 = self.seen.0.max(number);
        self.seen.1.extend(formats);
    }

    /// The input is idle: hands out what is settled, and shows the sink
    /// the events still open.
    pub(super) fn idle(&mut self) -> io::Result<()> {
        self.end_partial()?;
        while let Some(event) = self.grouper.pop() {
            self.sink.take(event)?;
        }
        let (last, formats) = self.seen;
        self.sink.lines(last, formats)?;
        self.sink.idle(self.grouper.pending())
    }

    /// Pushes a line read as a JSON record: a journal entry, or a Docker
    /// record, held while the line it belongs to goes on.
    pub(super) fn push_json(&mut self, number: u64, offset: u64, json: JsonLine) -> io::Result<()> {
        self.damaged += u64::from(json.damaged);
        match json.record {
            JsonRecord::Journal(entry) => {
                self.end_partial()?;
                self.saw(number, FormatSet::of(Format::JournalJson));
                self.push_entry(number, offset, &entry, Format::JournalJson)
            }
            JsonRecord::Loki(entry) => {
                self.end_partial()?;
                self.saw(number, FormatSet::of(Format::LokiJson));
                self.push_entry(number, offset, &entry, Format::LokiJson)
            }
            JsonRecord::Docker { entry, partial } => {
                self.saw(number, FormatSet::of(Format::DockerJson));
                let held = match self.partial.take() {
                    Some(mut held) => {
                        let message = held.entry.message.get_or_insert_with(String::new);
                        let more = entry.message.as_deref().unwrap_or("");
                        let room = MAX_LINE_BYTES.saturating_sub(message.len());
                        message.push_str(&more[..floor_char_boundary(more, room)]);
                        held
                    }
                    None => HeldEntry { number, offset, entry },
                };
                if partial {
                    self.partial = Some(held);
                    return Ok(());
                }
                self.push_entry(held.number, held.offset, &held.entry, Format::DockerJson)
            }
        }
    }

    /// Pushes a held Docker line that no more records will continue.
    pub(super) fn end_partial(&mut self) -> io::Result<()> {
        match self.partial.take() {
            Some(held) => self.push_entry(held.number, held.offset, &held.entry, Format::DockerJson),
            None => Ok(()),
        }
    }

    /// Hands on a line that is an event of one record by itself: the
    /// records still open end here, as they would if it were grouped.
    pub(super) fn push_whole_record(
        &mut self,
        number: u64,
        offset: u64,
        text: &str,
        record: &Record<'_>,
    ) -> io::Result<()> {
        let at = self.ordinals.text(number, offset);
        self.grouper.pass_record(at.ordinal, record);
        while let Some(event) = self.grouper.pop() {
            self.sink.take(event)?;
        }
        self.sink.take_record(at, text, record)
    }

    /// Pushes a line of text.
    pub(super) fn push(
        &mut self,
        number: u64,
        offset: u64,
        text: &str,
        framed: &Framed<'_>,
    ) -> io::Result<()> {
        let at = self.ordinals.text(number, offset);
        self.push_at(at, text, framed)
    }

    pub(super) fn push_at(&mut self, at: LineAt, text: &str, framed: &Framed<'_>) -> io::Result<()> {
        let kinds = framer::Kinds {
            first: classify(framed.first.message, Place::Outside),
            embedded: framed.embedded.as_ref().map(|r| classify(r.message, Place::Outside)),
            whole: false,
        };
        self.push_classified_at(at, text, framed, kinds)
    }

    /// Pushes a line of text whose records' classes are known.
    pub(super) fn push_classified(
        &mut self,
        number: u64,
        offset: u64,
        text: &str,
        framed: &Framed<'_>,
        kinds: framer::Kinds,
    ) -> io::Result<()> {
        let at = self.ordinals.text(number, offset);
        self.push_classified_at(at, text, framed, kinds)
    }

    pub(super) fn push_classified_at(
        &mut self,
        at: LineAt,
        text: &str,
        framed: &Framed<'_>,
        kinds: framer::Kinds,
    ) -> io::Result<()> {
        if self.grouper.wants_spare() {
            if let Some(event) = self.sink.spare() {
                self.grouper.recycle(event);
            }
        }
        self.grouper.push_classified(at, text, &framed.first, kinds.first);
        if let (Some(inner), Some(kind)) = (&framed.embedded, kinds.embedded) {
            self.grouper.push_classified(at, text, inner, kind);
        }
        while let Some(event) = self.grouper.pop() {
            self.sink.take(event)?;
        }
        Ok(())
    }

    /// Pushes a structured entry: a boot separator when its boot id changes,
    /// then each line of its MESSAGE, all under the entry's line number.
    pub(super) fn push_entry(
        &mut self,
        number: u64,
        offset: u64,
        entry: &JournalEntry,
        format: Format,
    ) -> io::Result<()> {
        if let Some(boot) = &entry.fields.boot_id {
            if self.boot.as_ref().is_some_and(|b| b != boot) {
                let text = format!("-- Boot {boot} --");
                let record = Record { separator: Some(Separator::Boot), message: &text, ..Record::default() };
                let at = self.ordinals.entry(number, offset);
                self.push_at(at, &text, &Framed { first: record, embedded: None })?;
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
            let at = self.ordinals.entry(number, offset);
            self.push_at(at, &text, &framed)?;
        }
        Ok(())
    }

    pub(super) fn flush(&mut self) -> io::Result<()> {
        self.end_partial()?;
        for event in self.grouper.finish() {
            self.sink.take(event)?;
        }
        Ok(())
    }
}
