//! Following a growing input (`logdiag watch`): a thread reads it through
//! the same code as batch mode (shape sniffing, every journal format, the
//! line cap, framing, grouping) and hands events over a bounded channel in
//! batches, so it never runs ahead of the judge by more than
//! [`IN_FLIGHT`] batches of [`BATCH`] events. A batch goes out when it is
//! full, and whenever the input goes idle or other news must follow it.
//!
//! Line numbers are the file's own: each file the path had (after a
//! truncation, after a rotation) is a part of one stream, announced before
//! its lines ([`Fed::Part`]), exactly as rotated files are in batch mode.
#![allow(clippy::vec_box)] // Boxed events: see the events module.

use std::cell::{Cell, RefCell};
use std::io::{self, BufReader, Read, Seek};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::mpsc::{self, Receiver, SyncSender};

use super::{cut_lines_notice, reversed, EventSink, ReadSummary, Session, SNIFF_BYTES};
use crate::events::Event;
use crate::framing::journal::layout;
use crate::framing::FormatSet;
use crate::input::follow::{Change, FollowedFile, Growing, Records, StreamChunks};
use crate::input::Reversal;
use crate::input::{sniff_compression, sniff_wide, with_head_until, Compression, Transcoder};

/// Messages in flight from the reading thread.
const IN_FLIGHT: usize = 16;
/// Most events in one message.
const BATCH: usize = 256;
/// Bytes read from a followed input at a time.
const BUFFER: usize = 64 * 1024;

/// What the reading thread hands over, in input order.
#[derive(Debug)]
pub enum Fed {
    /// The next events, in order.
    Events(Vec<Box<Event>>),
    /// The input has nothing more for now. `pending` are copies of the
    /// events still open (see [`EventSink::idle`]); `lines` is the last
    /// line number read and `formats` the prefix formats seen so far.
    Idle { pending: Vec<Box<Event>>, lines: u64, formats: FormatSet },
    /// A file begins at stream line `first_line`: the first one, or the
    /// one after a truncation (`Change::Truncated`) or a rotation
    /// (`Change::Replaced`). `reversed` is how it was put in time order when it was read
    /// bottom-up (a newest-first journal): the part is then announced again,
    /// once that is known.
    Part { name: String, first_line: u64, after: Option<Change>, reversed: Option<Reversal> },
    /// Something the report should say about the input.
    Notice(String),
    /// The file whose lines begin at stream line `first_line` was rotated
    /// away and now has the name `name`.
    Renamed { first_line: u64, name: String },
    /// The followed path does not exist (yet).
    Waiting,
    /// The input ended (a stream closed); every event came before.
    Ended { lines: u64, formats: FormatSet },
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
        let mut reader = Reader { outbox, used: Some(used_rx), read: Rc::default() };
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

/// The lines read so far and the formats seen.
type Seen = Rc<Cell<(u64, FormatSet)>>;

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
    read: Seen,
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
            read: self.read.clone(),
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
        let mut session = Session::following(&mut sink);
        let mut after = None;
        loop {
            let mut part = followed.next_part(&mut || {
                let _ = self.outbox.send(Fed::Waiting);
            })?;
            let first_line = session.last_line() + 1;
            let summary = self.read_part(&mut session, &mut part, &name, after, Held::UntilIdle)?;
            self.part_read(summary)?;
            after = part.chunks().change();
            if after == Some(Change::Replaced) {
                if let Some(renamed) = part.chunks().renamed_to() {
                    self.send(Fed::Renamed { first_line, name: renamed.display().to_string() })?;
                }
            }
            followed.part_ended(part);
        }
    }

    fn follow_stream(&mut self, stream: Box<dyn Read + Send>, name: &str) -> io::Result<()> {
        let mut part = Growing::new(StreamChunks::spawn(stream), records_of);
        let mut sink = self.forward();
        let mut session = Session::following(&mut sink);
        let summary = self.read_part(&mut session, &mut part, name, None, Held::UntilEnd)?;
        session.finish()?;
        self.part_read(summary)?;
        let (lines, formats) = self.read.get();
        self.send(Fed::Ended { lines, formats })
    }
}

impl Reader {
    /// After a part: a read error ends the watch; cut lines are noted.
    fn part_read(&self, summary: ReadSummary) -> io::Result<()> {
        if let Some(e) = summary.error {
            return Err(e);
        }
        if summary.cut_lines > 0 {
            self.send(Fed::Notice(cut_lines_notice(summary.cut_lines)))?;
        }
        Ok(())
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

impl Reader {
    /// Reads one part (announcing it first) through the session, as batch
    /// mode reads a file: a newest-first journal (`journalctl -r`) is put
    /// back in time order, with what the part holds when it first goes
    /// idle (a file), or all of it (a stream: journalctl cannot follow in
    /// reverse, so a newest-first stream ends, however slowly it comes).
    fn read_part(
        &self,
        session: &mut Session<'_>,
        part: impl Read,
        name: &str,
        after: Option<Change>,
        held: Held,
    ) -> io::Result<ReadSummary> {
        let first_line = session.last_line() + 1;
        let seen = self.read.clone();
        let count = move |line: u64, formats: FormatSet| {
            let (_, mut all) = seen.get();
            all.extend(formats);
            seen.set((line, all));
        };
        // Announced before its first line: an empty file is a part too.
        self.send(Fed::Part { name: name.to_string(), first_line, after, reversed: None })?;
        // UTF-16 or UTF-32 text is read as UTF-8 from its first bytes on.
        let (head, reader) = with_head_until(BufReader::with_capacity(BUFFER, part), SNIFF_BYTES, |_| false);
        match sniff_wide(&head) {
            Some(wide) => {
                self.read_text_part(session, Transcoder::new(reader, wide), name, first_line, held, count)
            }
            None => self.read_text_part(session, reader, name, first_line, held, count),
        }
    }

    /// Reads one part of UTF-8 text (see [`Reader::read_part`]).
    fn read_text_part(
        &self,
        session: &mut Session<'_>,
        part: impl Read,
        name: &str,
        first_line: u64,
        held: Held,
        mut count: impl FnMut(u64, FormatSet),
    ) -> io::Result<ReadSummary> {
        // A stream whose first quiet moment comes before three journal
        // stamps (one or two entries, or a structured entry not yet at its
        // stamp) is read on until its order can be told: newest first, it
        // must be held whole before anything is judged.
        let wants_more = |head: &[u8]| {
            matches!(held, Held::UntilEnd) && reversed::too_few_stamps(head, layout::sniff(head).is_some())
        };
        let (head, mut reader) =
            with_head_until(BufReader::with_capacity(BUFFER, part), SNIFF_BYTES, wants_more);
        let shape = layout::sniff(&head);
        if !reversed::looks_reversed(&head) {
            return session.read(reader, shape, &mut count);
        }
        let reordered = match held {
            Held::UntilIdle => reversed::reorder(BufReader::new(UntilIdle(&mut reader)), shape)?,
            Held::UntilEnd => reversed::reorder(BufReader::new(UntilEnd(&mut reader)), shape)?,
        };
        if let Some(e) = reordered.error {
            return Err(e);
        }
        self.send(Fed::Part {
            name: name.to_string(),
            first_line,
            after: None,
            reversed: Some(reordered.reversal),
        })?;
        self.send(Fed::Notice(reversed::reordered_notice("it")))?;
        session.read(reordered.reader, shape, &mut count)?;
        session.idle()?;
        // Whatever comes after is read as it comes.
        self.send(Fed::Part {
            name: name.to_string(),
            first_line: session.last_line() + 1,
            after: None,
            reversed: None,
        })?;
        session.read(reader, shape, &mut count)
    }
}

/// A journal in the export format is idle only between entries, which
/// end with an empty line; everything else between lines.
fn records_of(head: &[u8]) -> Records {
    match layout::sniff(head) {
        Some(layout::Shape::Export) => Records::Paragraphs,
        _ => Records::Lines,
    }
}

/// How much of a newest-first part is held to put it in order.
#[derive(Debug, Clone, Copy)]
enum Held {
    /// What a file holds when it is first read to its end.
    UntilIdle,
    /// All of a stream, until it closes.
    UntilEnd,
}

/// A followed input read to its end: idle signals are waited out.
struct UntilEnd<R>(R);

impl<R: Read> Read for UntilEnd<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match self.0.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                other => return other,
            }
        }
    }
}

/// A followed input read only as far as it goes now: its idle signal is
/// its end.
struct UntilIdle<R>(R);

impl<R: Read> Read for UntilIdle<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.0.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(0),
            other => other,
        }
    }
}

/// Hands events to the judge's thread.
struct Forward {
    outbox: Rc<Outbox>,
    used: Option<Receiver<Vec<Box<Event>>>>,
    /// Used events come back in batches; taken one at a time.
    spares: Vec<Box<Event>>,
    read: Seen,
}

impl EventSink for Forward {
    fn take(&mut self, event: Box<Event>) -> io::Result<()> {
        self.outbox.push(event)
    }

    fn spare(&mut self) -> Option<Box<Event>> {
        if self.spares.is_empty() {
            self.spares = self.used.as_ref()?.try_recv().ok()?;
        }
        self.spares.pop()
    }

    fn idle(&mut self, pending: Vec<Box<Event>>) -> io::Result<()> {
        let (lines, formats) = self.read.get();
        self.outbox.send(Fed::Idle { pending, lines, formats })
    }
}
