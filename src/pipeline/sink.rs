//! Where grouped events go: a callback that looks at each in turn. Used
//! events come back so the grouper can reuse their buffers instead of
//! allocating for every line.
#![allow(clippy::vec_box)] // Boxed events: see the events module.

use std::io;

use crate::events::Event;

/// Takes events in input order.
pub trait EventSink {
    /// Takes the next event.
    fn take(&mut self, event: Box<Event>) -> io::Result<()>;

    /// A used event whose buffers may be reused, if one is ready.
    fn spare(&mut self) -> Option<Box<Event>> {
        None
    }
}

/// A callback that looks at each event in turn.
pub struct Borrowing<F> {
    on_event: F,
    used: Vec<Box<Event>>,
}

impl<F: FnMut(&Event) -> io::Result<()>> Borrowing<F> {
    /// Calls `on_event` with each event.
    pub fn new(on_event: F) -> Self {
        Borrowing { on_event, used: Vec::new() }
    }
}

impl<F: FnMut(&Event) -> io::Result<()>> EventSink for Borrowing<F> {
    fn take(&mut self, event: Box<Event>) -> io::Result<()> {
        (self.on_event)(&event)?;
        if self.used.len() < SPARE_EVENTS {
            self.used.push(event);
        }
        Ok(())
    }

    fn spare(&mut self) -> Option<Box<Event>> {
        self.used.pop()
    }
}

/// Used events kept for reuse.
const SPARE_EVENTS: usize = 64;
