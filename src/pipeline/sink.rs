//! Where grouped events go: a callback on this thread, or a relay to the
//! engine on another thread. Either way, used events come back so the
//! grouper can reuse their buffers instead of allocating for every line.
#![allow(clippy::vec_box)] // Boxed events: see the events module.

use std::io;
use std::sync::mpsc::{self, Receiver, SyncSender};

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

/// Events per batch sent between threads (one send per batch keeps the
/// channel's cost per event small).
const BATCH: usize = 512;
/// Batches in flight: bounds memory when the engine falls behind.
const BATCHES_IN_FLIGHT: usize = 4;
/// Used events kept for reuse.
const SPARE_EVENTS: usize = 2 * BATCH;

/// Sends events in batches to a consumer on another thread, which sends the
/// batches back once used. Reading and framing on one core, judging on
/// another: the two halves of the pipeline cost about the same.
pub struct Relay {
    batch: Vec<Box<Event>>,
    to_consumer: Option<SyncSender<Vec<Box<Event>>>>,
    used: Receiver<Vec<Box<Event>>>,
    spare: Vec<Box<Event>>,
}

/// The consumer's end of a [`Relay`].
pub struct RelayEnd {
    batches: Receiver<Vec<Box<Event>>>,
    back: mpsc::Sender<Vec<Box<Event>>>,
}

impl Relay {
    /// A relay and the end to hand to the consuming thread.
    pub fn new() -> (Relay, RelayEnd) {
        let (to_consumer, batches) = mpsc::sync_channel(BATCHES_IN_FLIGHT);
        let (back, used) = mpsc::channel();
        let relay = Relay {
            batch: Vec::with_capacity(BATCH),
            to_consumer: Some(to_consumer),
            used,
            spare: Vec::new(),
        };
        (relay, RelayEnd { batches, back })
    }

    /// Sends what is left and tells the consumer there is no more.
    pub fn close(&mut self) -> io::Result<()> {
        self.send()?;
        self.to_consumer = None;
        Ok(())
    }

    fn send(&mut self) -> io::Result<()> {
        if self.batch.is_empty() {
            return Ok(());
        }
        let batch = std::mem::replace(&mut self.batch, Vec::with_capacity(BATCH));
        match &self.to_consumer {
            Some(to) => to.send(batch).map_err(|_| io::Error::other("the judging thread stopped")),
            None => Err(io::Error::other("the relay is closed")),
        }
    }
}

impl EventSink for Relay {
    fn take(&mut self, event: Box<Event>) -> io::Result<()> {
        self.batch.push(event);
        if self.batch.len() >= BATCH {
            self.send()?;
        }
        Ok(())
    }

    fn spare(&mut self) -> Option<Box<Event>> {
        if self.spare.is_empty() {
            if let Ok(batch) = self.used.try_recv() {
                self.spare = batch;
                self.spare.truncate(SPARE_EVENTS);
            }
        }
        self.spare.pop()
    }
}

impl RelayEnd {
    /// Calls `consume` with every event, in order, until the relay closes.
    pub fn consume(self, mut consume: impl FnMut(&Event)) {
        for batch in self.batches {
            for event in &batch {
                consume(event);
            }
            // The reader may have finished: then the batch is just dropped.
            let _ = self.back.send(batch);
        }
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        let _ = self.close();
    }
}
