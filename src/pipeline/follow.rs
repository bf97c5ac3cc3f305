//! Following a growing input (`logdiag watch`): a thread reads it through
//! the same code as batch mode (shape sniffing, every journal format, the
//! line cap, framing, grouping) and hands events over a bounded channel in
//! batches, so it never runs ahead of the judge by more than
//! `IN_FLIGHT` batches of `BATCH` events. A batch goes out when it is
//! full, and whenever the input goes idle or other news must follow it.
//!
//! Line numbers are the file's own: each file the path had (after a
//! truncation, after a rotation) is a part of one stream, announced before
//! its lines ([`Fed::Part`]), exactly as rotated files are in batch mode.
#![allow(clippy::vec_box)] // Boxed events: see the events module.

use std::cell::RefCell;
use std::io::{self, Read, Seek};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::mpsc::{self, Receiver, SyncSender};

use super::{Held, Intake, Part, Sink};
use crate::events::Event;
use crate::framing::journal::layout;
use crate::framing::FormatSet;
use crate::input::follow::{Change, FollowedFile, Growing, Records, StreamChunks};
use crate::input::{sniff_compression, Compression};
use crate::notice::Notice;

/// Messages in flight from the reading thread.
const IN_FLIGHT: usize = 16;
/// Most events in one message.
const BATCH: usize = 256;

/// What the reading thread hands over, in input order: a [`Sink`]'s
/// news, owned, to cross to the judge's thread ([`Fed::deliver`]).
#[derive(Debug)]
pub enum Fed {
    /// The next events, in order.
    Events(Vec<Box<Event>>),
    /// The input has nothing more for now.
    Idle {
        /// Copies of the events still open (see [`Sink::idle`]).
        pending: Vec<Box<Event>>,
        /// The last line number read.
        lines: u64,
        /// The prefix formats seen so far.
        formats: FormatSet,
    },
    /// A file begins (see [`Part`]): the first one, or the one after a
    /// truncation or a rotation; a newest-first one is announced again
    /// once it is known how it was put in time order.
    Part(Part),
    /// Something the report should say about the input.
    Notice(Notice),
    /// A file was rotated away and has a new name.
    Renamed {
        /// The stream line its lines begin at.
        first_line: u64,
        /// Its new name.
        name: String,
    },
    /// The followed path does not exist (yet).
    Waiting,
    /// The input ended (a stream closed); every event came before.
    Ended {
        /// The last line number read.
        lines: u64,
        /// The prefix formats seen.
        formats: FormatSet,
    },
    /// Reading failed; nothing more comes.
    Failed(io::Error),
}

/// The receiving end: what the reading thread hands over, and a way back
/// for used events.
pub struct Followed {
    /// News from the input, in order.
    pub news: Receiver<Fed>,
    used: SyncSender<Vec<Box<Event>>>,
}

impl Followed {
    /// Hands back used events so their buffers are reused.
    pub fn recycle(&self, events: Vec<Box<Event>>) {
        let _ = self.used.try_send(events);
    }
}

/// Follows the file at `path` (named `name` in reports).
pub fn follow_file(path: PathBuf, name: String) -> Followed {
    spawn(move |reader| reader.follow_file(path, name))
}

/// Follows a stream (standard input) until it closes.
pub fn follow_stream(stream: Box<dyn Read + Send>) -> Followed {
    spawn(move |reader| reader.follow_stream(stream, "-"))
}

fn spawn(read: impl FnOnce(&mut Reader) -> io::Result<()> + Send + 'static) -> Followed {
    let (tx, news) = mpsc::sync_channel(IN_FLIGHT);
    let (used, used_rx) = mpsc::sync_channel(IN_FLIGHT);
    std::thread::spawn(move || {
        let outbox = Rc::new(Outbox { tx, batch: RefCell::default() });
        let mut reader = Reader { outbox, used: Some(used_rx) };
        // A bug here must end the watch as an error, not as the input's end.
        let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| read(&mut reader)));
        let failure = match read {
            Ok(Ok(())) => None,
            Ok(Err(e)) => Some(e),
            Err(_) => Some(io::Error::other("internal error while reading (please report it)")),
        };
        if let Some(e) = failure {
            // A closed channel means the judge has gone: nothing to tell.
            let _ = reader.send(Fed::Failed(e));
        }
    });
    Followed { news, used }
}

/// Where news leaves the reading thread: events wait in a batch, which
/// goes out before any other news, so everything arrives in order.
struct Outbox {
    tx: SyncSender<Fed>,
    batch: RefCell<Vec<Box<Event>>>,
}

impl Outbox {
    fn send(&self, fed: Fed) -> io::Result<()> {
        self.flush()?;
        self.tx.send(fed).map_err(|_| io::ErrorKind::BrokenPipe.into())
    }

    fn push(&self, event: Box<Event>) -> io::Result<()> {
        let full = {
            let mut batch = self.batch.borrow_mut();
            batch.push(event);
            batch.len() >= BATCH
        };
        if full {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&self) -> io::Result<()> {
        let batch = std::mem::take(&mut *self.batch.borrow_mut());
        if batch.is_empty() {
            return Ok(());
        }
        self.tx.send(Fed::Events(batch)).map_err(|_| io::ErrorKind::BrokenPipe.into())
    }
}

struct Reader {
    outbox: Rc<Outbox>,
    used: Option<Receiver<Vec<Box<Event>>>>,
}

impl Reader {
    fn send(&self, fed: Fed) -> io::Result<()> {
        self.outbox.send(fed)
    }

    fn forward(&mut self) -> Forward {
        Forward {
            outbox: self.outbox.clone(),
            used: self.used.take(),
            spares: Vec::new(),
            seen: (0, FormatSet::default()),
        }
    }

    fn follow_file(&mut self, path: PathBuf, name: String) -> io::Result<()> {
        if let Some(file) = compressed(&path)? {
            // A gzip or zstd file is a finished one (a rotated log): read
            // it whole, as batch mode does.
            return self.follow_stream(Box::new(file), &name);
        }
        // A named pipe or `<(journalctl -f …)` is a stream, read until its
        // writer closes it, like standard input: it has no size to shrink
        // and cannot be read again from its start.
        if std::fs::metadata(&path).is_ok_and(|meta| !meta.file_type().is_file()) {
            return self.follow_stream(Box::new(std::fs::File::open(&path)?), &name);
        }
        let mut followed = FollowedFile::new(&path, records_of);
        let mut sink = self.forward();
        let mut intake = Intake::following(&mut sink);
        let mut after = None;
        loop {
            let mut part = followed.next_part(&mut || {
                let _ = intake.sink().waiting();
            })?;
            let first_line = intake.last_line() + 1;
            read_part(&mut intake, &mut part, &name, Held::UntilIdle, after)?;
            after = part.chunks().change();
            if after == Some(Change::Replaced) {
                if let Some(renamed) = part.chunks().renamed_to() {
                    intake.sink().renamed(first_line, &renamed.display().to_string())?;
                }
            }
            followed.part_ended(part);
        }
    }

    fn follow_stream(&mut self, stream: Box<dyn Read + Send>, name: &str) -> io::Result<()> {
        let mut part = Growing::new(StreamChunks::spawn(stream), records_of);
        let mut sink = self.forward();
        let mut intake = Intake::following(&mut sink);
        read_part(&mut intake, &mut part, name, Held::UntilEnd, None)?;
        intake.finish(false)
    }
}

/// Reads one part of a followed input through the part loop
/// ([`Intake::read_growing_part`]). A read error ends the watch.
fn read_part(
    intake: &mut Intake<'_>,
    part: impl Read,
    name: &str,
    held: Held,
    after: Option<Change>,
) -> io::Result<()> {
    match intake.read_growing_part(name, part, held, after)?.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The file at `path`, rewound, if it is compressed.
fn compressed(path: &std::path::Path) -> io::Result<Option<std::fs::File>> {
    let mut file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut magic = Vec::with_capacity(4);
    (&mut file).take(4).read_to_end(&mut magic)?;
    if sniff_compression(&magic) == Compression::None {
        return Ok(None);
    }
    file.seek(io::SeekFrom::Start(0))?;
    Ok(Some(file))
}

/// A journal in the export format is idle only between entries, which
/// end with an empty line; everything else between lines.
fn records_of(head: &[u8]) -> Records {
    match layout::sniff(head) {
        Some(layout::Shape::Export) => Records::Paragraphs,
        _ => Records::Lines,
    }
}

/// Hands news to the judge's thread.
struct Forward {
    outbox: Rc<Outbox>,
    used: Option<Receiver<Vec<Box<Event>>>>,
    /// Used events come back in batches; taken one at a time.
    spares: Vec<Box<Event>>,
    /// The lines read so far and the formats seen.
    seen: (u64, FormatSet),
}

impl Sink for Forward {
    fn part(&mut self, part: &Part) -> io::Result<()> {
        self.outbox.send(Fed::Part(part.clone()))
    }

    fn take(&mut self, event: Box<Event>) -> io::Result<()> {
        self.outbox.push(event)
    }

    fn spare(&mut self) -> Option<Box<Event>> {
        if self.spares.is_empty() {
            self.spares = self.used.as_ref()?.try_recv().ok()?;
        }
        self.spares.pop()
    }

    fn lines(&mut self, last: u64, formats: FormatSet) -> io::Result<()> {
        self.seen = (last, formats);
        Ok(())
    }

    fn notice(&mut self, notice: Notice) -> io::Result<()> {
        self.outbox.send(Fed::Notice(notice))
    }

    fn renamed(&mut self, first_line: u64, name: &str) -> io::Result<()> {
        self.outbox.send(Fed::Renamed { first_line, name: name.to_string() })
    }

    fn idle(&mut self, pending: Vec<Box<Event>>) -> io::Result<()> {
        let (lines, formats) = self.seen;
        self.outbox.send(Fed::Idle { pending, lines, formats })
    }

    fn waiting(&mut self) -> io::Result<()> {
        self.outbox.send(Fed::Waiting)
    }

    fn end(&mut self) -> io::Result<()> {
        let (lines, formats) = self.seen;
        self.outbox.send(Fed::Ended { lines, formats })
    }
}

impl Fed {
    /// Delivers this news to `sink`, as the reading thread's session
    /// handed it out. Used events go back to the reader through
    /// `recycle`. Idle moments, the end, a wait and a failure are the
    /// judge's own business: they are given back (the lines read by an
    /// idle moment or the end are delivered first).
    pub fn deliver(
        self,
        sink: &mut dyn Sink,
        recycle: impl FnOnce(Vec<Box<Event>>),
    ) -> io::Result<Option<Fed>> {
        match self {
            Fed::Events(events) => {
                let mut used = Vec::with_capacity(events.len());
                for event in events {
                    sink.take(event)?;
                    used.extend(sink.spare());
                }
                recycle(used);
            }
            Fed::Part(part) => sink.part(&part)?,
            Fed::Notice(notice) => sink.notice(notice)?,
            Fed::Renamed { first_line, name } => sink.renamed(first_line, &name)?,
            Fed::Idle { lines, formats, .. } | Fed::Ended { lines, formats } => {
                sink.lines(lines, formats)?;
                return Ok(Some(self));
            }
            Fed::Waiting | Fed::Failed(_) => return Ok(Some(self)),
        }
        Ok(None)
    }
}
