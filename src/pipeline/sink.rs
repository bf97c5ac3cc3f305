//! Where reading's news goes: one trait, [`Sink`], takes everything a
//! source yields in input order: parts, events, the lines counted,
//! notices, renames, and in a followed input its idle moments and its
//! end. Batch judging, `logdiag watch`, `logdiag events` and rule samples
//! all read through it. Used events come back so the grouper can reuse
//! their buffers instead of allocating for every line.
#![allow(clippy::vec_box)] // Boxed events: see the events module.

use std::io;

use super::part::{Part, Parts};
use crate::events::{Event, LineAt};
use crate::framing::{FormatSet, Record};
use crate::notice::Notice;

/// Takes a source's news in input order. Only [`Sink::take`] must be
/// written; a sink ignores by default what it has no use for.
pub trait Sink {
    /// A part begins; its lines follow (an empty file is a part too).
    fn part(&mut self, part: &Part) -> io::Result<()> {
        let _ = part;
        Ok(())
    }

    /// Takes the next event.
    fn take(&mut self, event: Box<Event>) -> io::Result<()>;

    /// Takes the next event when it is the one-line record `record` of
    /// line `number` (full text `text`): a sink that can judge such a
    /// line without an event (the engine) saves making one.
    fn take_record(&mut self, at: LineAt, text: &str, record: &Record<'_>) -> io::Result<()> {
        let mut event = self.spare().unwrap_or_else(Event::empty);
        event.set_record(at, text, record);
        self.take(event)
    }

    /// A used event whose buffers may be reused, if one is ready.
    fn spare(&mut self) -> Option<Box<Event>> {
        None
    }

    /// The lines read so far: the last one's number, and every format
    /// framing recognised on them. Comes before an idle moment and at the
    /// end.
    fn lines(&mut self, last: u64, formats: FormatSet) -> io::Result<()> {
        let _ = (last, formats);
        Ok(())
    }

    /// Something the report should say about the input.
    fn notice(&mut self, notice: Notice) -> io::Result<()> {
        let _ = notice;
        Ok(())
    }

    /// The file whose lines begin at stream line `first_line` was rotated
    /// away and now has the name `name`.
    fn renamed(&mut self, first_line: u64, name: &str) -> io::Result<()> {
        let _ = (first_line, name);
        Ok(())
    }

    /// A followed input has nothing more for now. `pending` are copies of
    /// the events not handed out yet (a traceback whose end may still
    /// come), closed as if the input ended here: what a diagnosis of the
    /// input so far would see. The real events come later, as usual.
    fn idle(&mut self, pending: Vec<Box<Event>>) -> io::Result<()> {
        let _ = pending;
        Ok(())
    }

    /// A followed path does not exist (yet).
    fn waiting(&mut self) -> io::Result<()> {
        Ok(())
    }

    /// The stream ended; everything it held came before.
    fn end(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Used events kept for the grouper to reuse, up to `SPARE_EVENTS`.
#[derive(Default)]
pub struct Spares(Vec<Box<Event>>);

impl Spares {
    /// Keeps a used event, if there is room.
    pub fn keep(&mut self, event: Box<Event>) {
        if self.0.len() < SPARE_EVENTS {
            self.0.push(event);
        }
    }

    /// A kept event, if there is one.
    pub fn take(&mut self) -> Option<Box<Event>> {
        self.0.pop()
    }
}

/// A callback that looks at each event in turn, with the stream's parts
/// so far (to name its lines by their files).
pub struct Borrowing<F> {
    on_event: F,
    parts: Parts,
    used: Spares,
}

impl<F: FnMut(&Parts, &Event) -> io::Result<()>> Borrowing<F> {
    /// Calls `on_event` with the parts read so far and each event.
    pub fn new(on_event: F) -> Self {
        Borrowing { on_event, parts: Parts::default(), used: Spares::default() }
    }
}

impl<F: FnMut(&Parts, &Event) -> io::Result<()>> Sink for Borrowing<F> {
    fn part(&mut self, part: &Part) -> io::Result<()> {
        self.parts.note(part.clone());
        Ok(())
    }

    fn take(&mut self, event: Box<Event>) -> io::Result<()> {
        (self.on_event)(&self.parts, &event)?;
        self.used.keep(event);
        Ok(())
    }

    fn spare(&mut self) -> Option<Box<Event>> {
        self.used.take()
    }
}

/// Used events kept for reuse.
const SPARE_EVENTS: usize = 64;
