//! Where grouped events go: a callback that looks at each in turn. Used
//! events come back so the grouper can reuse their buffers instead of
//! allocating for every line.
#![allow(clippy::vec_box)] // Boxed events: see the events module.

use std::io;

use crate::events::{Event, LineAt};
use crate::framing::Record;

/// Takes events in input order.
pub trait EventSink {
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

    /// A followed input has nothing more for now. `pending` are copies of
    /// the events not handed out yet (a traceback whose end may still
    /// come), closed as if the input ended here: what a diagnosis of the
    /// input so far would see. The real events come later, as usual.
    fn idle(&mut self, pending: Vec<Box<Event>>) -> io::Result<()> {
        let _ = pending;
        Ok(())
    }
}

/// Used events kept for the grouper to reuse, up to [`SPARE_EVENTS`].
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

/// A callback that looks at each event in turn.
pub struct Borrowing<F> {
    on_event: F,
    used: Spares,
}

impl<F: FnMut(&Event) -> io::Result<()>> Borrowing<F> {
    /// Calls `on_event` with each event.
    pub fn new(on_event: F) -> Self {
        Borrowing { on_event, used: Spares::default() }
    }
}

impl<F: FnMut(&Event) -> io::Result<()>> EventSink for Borrowing<F> {
    fn take(&mut self, event: Box<Event>) -> io::Result<()> {
        (self.on_event)(&event)?;
        self.used.keep(event);
        Ok(())
    }

    fn spare(&mut self) -> Option<Box<Event>> {
        self.used.take()
    }
}

/// Used events kept for reuse.
const SPARE_EVENTS: usize = 64;
