//! The engine's one door: it takes a source's news as a pipeline
//! [`Sink`], in input order, whether batch reading hands it over on the
//! spot or `logdiag watch` replays it from its reading thread. Parts,
//! events, one-line records, lines counted, notices and renames each go
//! to what the engine keeps of them; idle moments and the end are the
//! watcher's business.

use std::io;

use super::Engine;
use crate::events::{Event, LineAt};
use crate::framing::{FormatSet, Record};
use crate::notice::Notice;
use crate::pipeline::{Part, Sink};

impl Sink for Engine<'_> {
    /// Records a part of the current source (a rotated file, a newest-first
    /// journal put in time order): announced again, the later record
    /// stands.
    fn part(&mut self, part: &Part) -> io::Result<()> {
        if let Some(source) = self.sources.last_mut() {
            source.parts.note(part.clone());
        }
        Ok(())
    }

    fn take(&mut self, event: Box<Event>) -> io::Result<()> {
        self.feed(&event);
        self.spares.keep(event);
        Ok(())
    }

    fn take_record(&mut self, at: LineAt, text: &str, record: &Record<'_>) -> io::Result<()> {
        self.feed_record(at, text, record);
        Ok(())
    }

    fn spare(&mut self) -> Option<Box<Event>> {
        self.spares.take()
    }

    fn lines(&mut self, last: u64, formats: FormatSet) -> io::Result<()> {
        if let Some(source) = self.sources.last_mut() {
            source.lines = source.lines.max(last);
            source.formats.extend(formats);
        }
        Ok(())
    }

    fn notice(&mut self, notice: Notice) -> io::Result<()> {
        if let Some(source) = self.sources.last_mut() {
            source.notices.push(notice);
        }
        Ok(())
    }

    fn renamed(&mut self, first_line: u64, name: &str) -> io::Result<()> {
        if let Some(source) = self.sources.last_mut() {
            source.parts.rename(first_line, name);
        }
        Ok(())
    }
}
