//! The pipeline driver: reads a source, frames and groups it, and hands
//! its events to a sink ([`EventSink`]) in input order. Batch mode, follow
//! mode, `logdiag events` and rule samples ([`events_of`]) share it;
//! `crate::diagnose` connects it to the engine.
//!
//! A source is text (journal short modes, server logs, dmesg…) or a
//! structured journal (`-o json`, `json-pretty`, `json-seq`, `json-sse`,
//! `export`), recognised by its first bytes. Structured entries become the
//! same records as text lines, with the journal fields as the transport
//! layer; their MESSAGE is what reports show.
//!
//! In batch mode text is framed a batch of lines at a time (for a large
//! source on a thread of its own, [`framer`], while this one groups lines
//! into events and hands them on). Most lines of a serving log are an event
//! of one record by themselves: the framer marks them, and they reach the
//! sink as records ([`EventSink::take_record`]) without being grouped. A
//! followed input (`logdiag watch`) is read a line at a time on a thread of
//! its own ([`follow`]), its events handed on as they come. Lines are
//! framed by their likeness to earlier lines where they can be
//! ([`crate::framing::Templates`]).

mod escapes;
pub mod follow;
mod framer;
mod reversed;
mod sink;
mod structured;

use std::io::{self, BufRead};

use crate::events::traceback::{classify, Place};
use crate::events::{self, Event, Grouper, LineAt, LineKind};
use crate::framing::journal::layout::{self, Shape};
use crate::framing::journal::{JournalEntry, JournalFields};
use crate::framing::json_line::{self, JsonLine, JsonRecord};
use crate::framing::{frame_message, Format, FormatSet, Framed, Record, Separator, Templates};
use crate::input::Reversal;
use crate::input::{with_head, Line, LineReader, Rest, MAX_LINE_BYTES};

pub use escapes::without_escapes;
pub use sink::{Borrowing, EventSink, Spares};

/// What reading a source met along the way.
#[derive(Debug, Default)]
pub struct ReadSummary {
    /// Lines longer than the cap, cut.
    pub cut_lines: u64,
    /// The read error that stopped reading early, if any.
    pub error: Option<io::Error>,
}

/// A text read to its end, or up to a structured journal after it in the
/// same stream (see [`layout::OPENS_A_DUMP`]).
pub struct TextRead<R> {
    summary: ReadSummary,
    /// The journal that follows the text.
    journal: Option<JournalAfter<R>>,
}

/// A structured journal after text, in the same part.
struct JournalAfter<R> {
    /// Its bytes, from its first line on.
    rest: Rest<R>,
    /// The number of the text's last line.
    text_ends: u64,
    /// The byte offset of its first line in the source.
    offset: u64,
}

impl<R: io::Read> TextRead<R> {
    /// What `lines` read, and what follows if they stopped at a journal.
    fn after(summary: ReadSummary, lines: LineReader<R>) -> Self {
        let journal = lines.stopped().then(|| JournalAfter {
            text_ends: lines.last_number(),
            offset: lines.next_offset(),
            rest: lines.into_rest(),
        });
        TextRead { summary, journal }
    }
}

/// Reads `reader`, frames and groups it, and hands every event to
/// `on_event` in input order. `on_line` sees each line's number and the
/// formats framing recognised. Stops early if `on_event` fails.
pub fn read_events<R: BufRead>(
    reader: R,
    mut on_line: impl FnMut(u64, FormatSet),
    on_event: impl FnMut(&Event) -> io::Result<()>,
) -> io::Result<ReadSummary> {
    let mut sink = Borrowing::new(on_event);
    let mut session = Session::new(&mut sink);
    let (head, reader) = with_head(reader, SNIFF_BYTES);
    let summary = session.read(reader, layout::sniff(&head), &mut on_line)?;
    session.finish()?;
    Ok(summary)
}

/// The events of a text held in memory (a rule's sample, a test's log),
/// read by the same path as a file holding that text: colour codes and
/// syslog's `#012` escapes removed, structured journals recognised, lines
/// framed and grouped.
pub fn events_of(text: &str) -> Vec<Event> {
    let mut events = Vec::new();
    // Reading from memory cannot fail, and the callback never does.
    let _ = read_events(
        text.as_bytes(),
        |_, _| {},
        |event| {
            events.push(event.clone());
            Ok(())
        },
    );
    events
}

/// How much of a part is looked at to recognise its shape.
const SNIFF_BYTES: usize = 64 * 1024;

/// Reading one stream that may come in several parts (rotated files, oldest
/// first): line numbers and open events continue from part to part.
pub struct Session<'f> {
    feeder: Feeder<'f>,
    last_line: u64,
    /// Text followed by a structured journal in one part: the text's first
    /// and last lines, and the journal's shape.
    shape_changes: Vec<(u64, u64, Shape)>,
}

impl<'f> Session<'f> {
    /// A session handing events to `sink`.
    pub fn new(sink: &'f mut dyn EventSink) -> Self {
        Session {
            feeder: Feeder {
                grouper: Grouper::new(),
                sink,
                boot: None,
                following: false,
                partial: None,
                damaged: 0,
                blobs: 0,
                outside_entries: 0,
                after_event_stream: false,
                ordinals: Ordinals::default(),
            },
            last_line: 0,
            shape_changes: Vec::new(),
        }
    }

    /// A session reading inputs that grow (`logdiag watch`): a read that
    /// fails with [`io::ErrorKind::WouldBlock`] means the input is idle for
    /// now (see [`crate::input::follow`]). The sink is then shown the
    /// events still open ([`EventSink::idle`]) and reading goes on.
    pub fn following(sink: &'f mut dyn EventSink) -> Self {
        let mut session = Session::new(sink);
        session.feeder.following = true;
        session
    }

    /// The number of the last line read so far.
    pub fn last_line(&self) -> u64 {
        self.last_line
    }

    /// What the report should say of what was read so far: damaged JSON
    /// records, binary messages journalctl did not show.
    pub fn notices(&self) -> Vec<String> {
        let mut notices = Vec::new();
        if self.feeder.damaged > 0 {
            notices.push(damaged_records_notice(self.feeder.damaged));
        }
        for &(first, last, shape) in &self.shape_changes {
            notices.push(shape_change_notice(first, last, shape));
        }
        if self.feeder.outside_entries > 0 {
            notices.push(format!(
                "{} line(s) among a structured journal's entries were not journal fields: read as text",
                self.feeder.outside_entries
            ));
        }
        if self.feeder.blobs > 0 {
            notices.push(format!(
                "{} message(s) were binary and journalctl showed only `[… blob data]`: run journalctl with --all to include them",
                self.feeder.blobs
            ));
        }
        notices
    }

    /// Reads one part of shape `shape` (a structured journal, or text if
    /// `None`: its head was sniffed by the caller, once); its first line
    /// follows the last line of the part before it.
    pub fn read<R: BufRead>(
        &mut self,
        reader: R,
        shape: Option<Shape>,
        on_line: &mut impl FnMut(u64, FormatSet),
    ) -> io::Result<ReadSummary> {
        self.read_with(reader, shape, on_line, |reader, first, mut on_line, feeder| {
            read_text(reader, first, &mut on_line, feeder)
        })
    }

    /// Like [`Session::read`], but with [`Framing::OwnThread`] text is read
    /// and framed on a thread of its own while this one groups (batch mode,
    /// where the reader can be sent to another thread).
    pub fn read_framed<R: BufRead + Send>(
        &mut self,
        reader: R,
        shape: Option<Shape>,
        framing: Framing,
        on_line: &mut impl FnMut(u64, FormatSet),
    ) -> io::Result<ReadSummary> {
        if framing == Framing::ReadingThread {
            return self.read(reader, shape, on_line);
        }
        self.read_with(reader, shape, on_line, |reader, first, mut on_line, feeder| {
            read_text_split(reader, first, &mut on_line, feeder)
        })
    }

    /// Reads a structured journal here, and text with `read_text`; a
    /// structured journal after the text is read here in its own shape.
    fn read_with<R: BufRead>(
        &mut self,
        reader: R,
        shape: Option<Shape>,
        on_line: &mut impl FnMut(u64, FormatSet),
        read_text: impl FnOnce(R, u64, &mut dyn FnMut(u64, FormatSet), &mut Feeder<'f>) -> io::Result<TextRead<R>>,
    ) -> io::Result<ReadSummary> {
        let first = self.last_line + 1;
        let mut last = self.last_line;
        let mut counting = |number: u64, formats: FormatSet| {
            last = last.max(number);
            on_line(number, formats);
        };
        let summary = match shape {
            Some(shape) => structured::read(reader, shape, (first, 0), &mut counting, &mut self.feeder)?,
            None => {
                let text = read_text(reader, first, &mut counting, &mut self.feeder)?;
                match text.journal {
                    Some(journal) => {
                        let start = (journal.text_ends + 1, journal.offset);
                        let (head, rest) = with_head(journal.rest, SNIFF_BYTES);
                        // The text ended where a journal opened: its head
                        // says which (read as json-pretty, lines outside
                        // an object are text, if it should not).
                        let shape = layout::sniff(&head).unwrap_or(Shape::JsonPretty);
                        self.shape_changes.push((first, journal.text_ends, shape));
                        let after = structured::read(rest, shape, start, &mut counting, &mut self.feeder)?;
                        ReadSummary {
                            cut_lines: text.summary.cut_lines + after.cut_lines,
                            error: text.summary.error.or(after.error),
                        }
                    }
                    None => text.summary,
                }
            }
        };
        self.last_line = last;
        Ok(summary)
    }

    /// Ends the stream: open events are closed and handed out.
    pub fn finish(mut self) -> io::Result<()> {
        self.flush()
    }

    /// In a following session, shows the sink what is pending, as when
    /// the input goes idle (after a part read at once, such as a journal
    /// put back in time order).
    pub fn idle(&mut self) -> io::Result<()> {
        self.feeder.idle()
    }

    /// Closes every open event and hands it out: after a quiet period in a
    /// followed stream, a traceback is complete.
    pub fn flush(&mut self) -> io::Result<()> {
        self.feeder.flush()
    }
}

/// Reads text: a batch of lines at a time, framed and then grouped on
/// this thread, or in a followed input a line at a time (its lines are
/// grouped as they come).
fn read_text<R: BufRead>(
    reader: R,
    first: u64,
    on_line: &mut impl FnMut(u64, FormatSet),
    feeder: &mut Feeder<'_>,
) -> io::Result<TextRead<R>> {
    if feeder.following {
        return read_text_lines(reader, first, on_line, feeder);
    }
    let mut grouped = Ok(());
    let read = framer::frame_batches(reader, first, |batch| {
        grouped = group_batch(batch, on_line, feeder);
        batch.clear();
        grouped.is_ok()
    });
    grouped.map(|()| read)
}

/// Groups a batch of framed lines.
fn group_batch(
    batch: &framer::FramedBatch,
    on_line: &mut impl FnMut(u64, FormatSet),
    feeder: &mut Feeder<'_>,
) -> io::Result<()> {
    batch.for_each(|number, offset, text, framed, kinds| {
        push_framed(number, offset, text, framed, Some(kinds), on_line, feeder)
    })
}

/// Reads a followed text a line at a time.
fn read_text_lines<R: BufRead>(
    reader: R,
    first: u64,
    on_line: &mut impl FnMut(u64, FormatSet),
    feeder: &mut Feeder<'_>,
) -> io::Result<TextRead<R>> {
    let mut lines = LineReader::new(reader).starting_at(first).stopping_at(layout::OPENS_A_DUMP);
    let mut summary = ReadSummary::default();
    let mut templates = Templates::default();
    while let Some(line) = next_line(&mut lines, &mut summary, feeder)? {
        let text = without_escapes(&line.text);
        push_framed(line.number, line.offset, &text, &templates.frame(&text), None, on_line, feeder)?;
    }
    summary.cut_lines = lines.cut_lines();
    Ok(TextRead::after(summary, lines))
}

/// Like [`read_text`], with reading and framing on a thread of their own
/// (see [`framer`]).
fn read_text_split<R: BufRead + Send>(
    reader: R,
    first: u64,
    on_line: &mut impl FnMut(u64, FormatSet),
    feeder: &mut Feeder<'_>,
) -> io::Result<TextRead<R>> {
    let (framer, framings) = framer::channel();
    std::thread::scope(|scope| {
        let framing = scope.spawn(move || framer.run(reader, first));
        let mut grouped = Ok(());
        for batch in framings.batches.iter() {
            grouped = group_batch(&batch, on_line, feeder);
            if grouped.is_err() {
                break;
            }
            let _ = framings.used.send(batch);
        }
        // The framing thread stops when its batches have nowhere to go.
        drop(framings);
        let read = framing.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        grouped.map(|()| read)
    })
}

/// Hands one framed line to the grouper (with its records' classes, if
/// the framing thread found them).
fn push_framed(
    number: u64,
    offset: u64,
    text: &str,
    framed: &Framed<'_>,
    kinds: Option<framer::Kinds>,
    on_line: &mut impl FnMut(u64, FormatSet),
    feeder: &mut Feeder<'_>,
) -> io::Result<()> {
    if json_line::may_be_json(text) {
        if let Some(json) = json_line::read_json_line(text) {
            feeder.after_event_stream = text.starts_with("data: ");
            return feeder.push_json(number, offset, json, on_line);
        }
    }
    // `json-sse` ends each event with an empty line: not a line of text.
    if std::mem::take(&mut feeder.after_event_stream) && text.is_empty() {
        on_line(number, FormatSet::of(Format::JournalJson));
        return Ok(());
    }
    feeder.end_partial()?;
    on_line(number, framed.first.formats);
    let whole = kinds.is_some_and(|k| {
        k.whole
            && feeder.grouper.holds_only_records()
            && !feeder.grouper.continues_open(&framed.first, k.first)
    });
    if whole {
        return feeder.push_whole_record(number, offset, text, &framed.first);
    }
    // journalctl prints a binary message as `[1.2K blob data]` (without
    // `--all`): there is no text to read, only a line to count.
    if is_blob_placeholder(framed.first.message) {
        feeder.blobs += 1;
        return Ok(());
    }
    // rsyslog writes a multi-line message on one line, its newlines
    // escaped as `#012`: read it as the entry it was.
    if framed.first.has_stream() && has_syslog_newline(framed.first.message) {
        let entry = syslog_entry(&framed.first);
        return feeder.push_entry(number, offset, &entry, Format::Syslog);
    }
    match kinds {
        Some(kinds) => feeder.push_classified(number, offset, text, framed, kinds),
        None => feeder.push(number, offset, text, framed),
    }
}

/// Whether a framed line is text of one record that may make a one-line
/// event ([`events::opens_record`]), and whether it ends the one-line
/// event of the line before it ([`events::ends_record`]; `after_announcer`:
/// that line takes bare lines: an asyncio report's announcement, a
/// stamped write). A line read some other way (a
/// JSON record, a blob placeholder, a syslog record with escaped
/// newlines) is neither.
fn lone_record(text: &str, framed: &Framed<'_>, kind: LineKind, after_announcer: bool) -> (bool, bool) {
    let record = &framed.first;
    let other_reading = json_line::may_be_json(text)
        || is_blob_placeholder(record.message)
        || (record.has_stream() && has_syslog_newline(record.message));
    if other_reading {
        return (false, false);
    }
    let lone = framed.embedded.is_none() && events::opens_record(record, kind);
    (lone, events::ends_record(record, kind, after_announcer))
}

/// journalctl's stand-in for a binary message: `[512B blob data]`,
/// `[1.2K blob data]`.
fn is_blob_placeholder(message: &str) -> bool {
    let Some(size) = message.strip_prefix('[').and_then(|m| m.strip_suffix(" blob data]")) else {
        return false;
    };
    let number = size.trim_end_matches(['B', 'K', 'M', 'G', 'T', 'P', 'E']);
    !number.is_empty()
        && number.len() + 1 >= size.len()
        && number.bytes().all(|b| b.is_ascii_digit() || b == b'.')
}

/// Whether a message holds rsyslog's escaped newline `#012` (checked on
/// every journal line, most of which have a few `#`).
fn has_syslog_newline(message: &str) -> bool {
    static NEWLINE: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"#012"));
    NEWLINE.find(message.as_bytes()).is_some()
}

/// A syslog record with `#ooo`-escaped control characters, as an entry
/// whose message has them back.
fn syslog_entry(record: &Record<'_>) -> JournalEntry {
    let fields = JournalFields {
        time: record.time.map(str::to_string),
        host: record.host.map(str::to_string),
        identifier: record.identifier.map(str::to_string),
        pid: record.pid,
        unit: None,
        level: record.level,
        boot_id: None,
    };
    JournalEntry { message: Some(unescape_syslog(record.message)), fields }
}

/// rsyslog's control-character escapes: `#012` is a newline, `#011` a tab.
fn unescape_syslog(message: &str) -> String {
    let bytes = message.as_bytes();
    let mut out = String::with_capacity(message.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes
            .get(i + 1..i + 4)
            .filter(|d| bytes[i] == b'#' && d.iter().all(|b| (b'0'..=b'7').contains(b)));
        match octal.map(|d| (d[0] - b'0') * 64 + (d[1] - b'0') * 8 + (d[2] - b'0')) {
            Some(code) if code < 32 => {
                out.push(char::from(code));
                i += 4;
            }
            _ => {
                let ch = message[i..].chars().next().unwrap_or('\u{fffd}');
                out.push(ch);
                i += ch.len_utf8();
            }
        }
    }
    out
}

/// What waiting for the next line of a source gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Next {
    /// A line can be read.
    Line,
    /// A followed input has nothing more for now (see
    /// [`Session::following`]): show what is pending, then wait again.
    Idle,
    /// The end of the input, or a read error (kept in the summary).
    End,
}

/// Waits until `lines` has a line to give (see [`Next`]).
fn wait_for_line<R: BufRead>(lines: &mut LineReader<R>, summary: &mut ReadSummary, following: bool) -> Next {
    loop {
        match lines.has_more() {
            Ok(true) => return Next::Line,
            Ok(false) => return Next::End,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) if following && e.kind() == io::ErrorKind::WouldBlock => return Next::Idle,
            Err(e) => {
                summary.error = Some(e);
                return Next::End;
            }
        }
    }
}

/// The next line of a source, or `None` at its end or at a read error
/// (kept in `summary`). In a following session, each time the input goes
/// idle first, the sink is shown what is pending.
fn next_line<'a, R: BufRead>(
    lines: &'a mut LineReader<R>,
    summary: &mut ReadSummary,
    feeder: &mut Feeder<'_>,
) -> io::Result<Option<Line<'a>>> {
    loop {
        match wait_for_line(lines, summary, feeder.following) {
            Next::Line => return Ok(next_line_or_stop(lines, summary)),
            Next::Idle => feeder.idle()?,
            Next::End => return Ok(None),
        }
    }
}

/// The next line, or `None` at the end of input or at a read error, which
/// is kept in `summary` (what was read before it is still diagnosed).
fn next_line_or_stop<'a, R: BufRead>(
    lines: &'a mut LineReader<R>,
    summary: &mut ReadSummary,
) -> Option<Line<'a>> {
    match lines.next_line() {
        Ok(line) => line,
        Err(e) => {
            summary.error = Some(e);
            None
        }
    }
}

/// Pushes records into the grouper and events out of it.
struct Feeder<'f> {
    grouper: Grouper,
    sink: &'f mut dyn EventSink,
    /// The boot id of the last structured entry.
    boot: Option<String>,
    /// The input grows while it is read (see [`Session::following`]).
    following: bool,
    /// A Docker json-file line whose records have not all come yet.
    partial: Option<HeldEntry>,
    /// JSON records that were not valid JSON, read as far as they went.
    damaged: u64,
    /// Messages journalctl showed only as `[N blob data]`.
    blobs: u64,
    /// Lines of a structured journal that were not part of an entry.
    outside_entries: u64,
    /// The last line was a `json-sse` event (`data: {…}`).
    after_event_stream: bool,
    /// The places of the lines pushed ([`LineAt::ordinal`]).
    ordinals: Ordinals,
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

impl Feeder<'_> {
    /// The input is idle: hands out what is settled, and shows the sink
    /// the events still open.
    fn idle(&mut self) -> io::Result<()> {
        self.end_partial()?;
        while let Some(event) = self.grouper.pop() {
            self.sink.take(event)?;
        }
        self.sink.idle(self.grouper.pending())
    }

    /// Pushes a line read as a JSON record: a journal entry, or a Docker
    /// record, held while the line it belongs to goes on.
    fn push_json(
        &mut self,
        number: u64,
        offset: u64,
        json: JsonLine,
        on_line: &mut impl FnMut(u64, FormatSet),
    ) -> io::Result<()> {
        self.damaged += u64::from(json.damaged);
        match json.record {
            JsonRecord::Journal(entry) => {
                self.end_partial()?;
                on_line(number, FormatSet::of(Format::JournalJson));
                self.push_entry(number, offset, &entry, Format::JournalJson)
            }
            JsonRecord::Loki(entry) => {
                self.end_partial()?;
                on_line(number, FormatSet::of(Format::LokiJson));
                self.push_entry(number, offset, &entry, Format::LokiJson)
            }
            JsonRecord::Docker { entry, partial } => {
                on_line(number, FormatSet::of(Format::DockerJson));
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
    fn end_partial(&mut self) -> io::Result<()> {
        match self.partial.take() {
            Some(held) => self.push_entry(held.number, held.offset, &held.entry, Format::DockerJson),
            None => Ok(()),
        }
    }

    /// Hands on a line that is an event of one record by itself: the
    /// records still open end here, as they would if it were grouped.
    fn push_whole_record(
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
    fn push(&mut self, number: u64, offset: u64, text: &str, framed: &Framed<'_>) -> io::Result<()> {
        let at = self.ordinals.text(number, offset);
        self.push_at(at, text, framed)
    }

    fn push_at(&mut self, at: LineAt, text: &str, framed: &Framed<'_>) -> io::Result<()> {
        let kinds = framer::Kinds {
            first: classify(framed.first.message, Place::Outside),
            embedded: framed.embedded.as_ref().map(|r| classify(r.message, Place::Outside)),
            whole: false,
        };
        self.push_classified_at(at, text, framed, kinds)
    }

    /// Pushes a line of text whose records' classes are known.
    fn push_classified(
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

    fn push_classified_at(
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

    fn flush(&mut self) -> io::Result<()> {
        self.end_partial()?;
        for event in self.grouper.finish() {
            self.sink.take(event)?;
        }
        Ok(())
    }
}

/// What reading the parts of one stream found besides its events.
#[derive(Debug, Default)]
pub struct PartsRead {
    /// Each part's name, its first line in the stream and, for a file
    /// written newest first, how it was put back in order.
    pub parts: Vec<(String, u64, Option<Reversal>)>,
    /// The formats framing recognised on any line.
    pub formats: FormatSet,
    /// The stream's last line number (0: nothing was read).
    pub last_line: u64,
    /// What the report should say about the input: a part cut or
    /// unreadable, reordered, damaged records, overlong lines.
    pub notices: Vec<String>,
    /// The last read error; what was read before it was handed on.
    pub error: Option<io::Error>,
}

/// Whether a large part is framed on a thread of its own while its lines
/// are grouped on the reading thread: worth it only on a core that would
/// otherwise be idle (handing lines over cost about 7% more CPU time on a
/// 256 MiB log: median of 15 alternating runs against one thread).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// On a thread of its own, when a part is larger than its head.
    OwnThread,
    /// On the reading thread (one core, or every core reading a file).
    ReadingThread,
}

/// Reads the parts of one stream (rotated files, oldest first) and hands
/// its events to `sink` in order: tracebacks continue across parts, line
/// numbers run on from part to part. `name` is the stream's name; notes
/// about one file of several name that file.
pub fn read_parts<R: BufRead + Send>(
    name: &str,
    parts: Vec<(String, R)>,
    sink: &mut dyn EventSink,
    framing: Framing,
) -> io::Result<PartsRead> {
    let mut read = PartsRead::default();
    let mut cut_lines = 0;
    let mut session = Session::new(sink);
    for (part, reader) in parts {
        let first = session.last_line() + 1;
        let which = if part == name { "it".to_string() } else { part.clone() };
        let (head, reader) = with_head(reader, SNIFF_BYTES);
        let shape = layout::sniff(&head);
        let formats = &mut read.formats;
        let mut seen = |_, seen| formats.extend(seen);
        // All of a part that fits in its head is too little to be worth a
        // thread (a directory of many small logs would start one for each).
        let framing = if head.len() < SNIFF_BYTES { Framing::ReadingThread } else { framing };
        let result = if reversed::looks_reversed(&head) {
            match reversed::reorder(reader, shape) {
                Ok(reordered) => {
                    read.parts.push((part.clone(), first, Some(reordered.reversal)));
                    read.notices.push(reversed::reordered_notice(&which));
                    let summary = session.read_framed(reordered.reader, shape, framing, &mut seen);
                    summary.map(|summary| ReadSummary { error: reordered.error, ..summary })
                }
                Err(e) => Err(e),
            }
        } else {
            read.parts.push((part.clone(), first, None));
            session.read_framed(reader, shape, framing, &mut seen)
        };
        match result {
            Ok(summary) => {
                cut_lines += summary.cut_lines;
                if let Some(e) = summary.error {
                    read.notices.push(format!(
                        "the input was cut: reading {which} stopped early ({e}); the diagnosis covers what was read"
                    ));
                    read.error = Some(e);
                }
            }
            Err(e) => {
                read.notices.push(format!("reading {which} failed: {e}"));
                read.error = Some(e);
            }
        }
    }
    read.last_line = session.last_line();
    read.notices.extend(session.notices());
    session.finish()?;
    if read.last_line == 0 && read.error.is_none() {
        read.notices.push("no lines were read: the input is empty".to_string());
    }
    if cut_lines > 0 {
        read.notices.push(cut_lines_notice(cut_lines));
    }
    Ok(read)
}

/// The largest index at most `at` that starts a character of `text`.
fn floor_char_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// What the report says of text (lines `first` to `last`) followed by a
/// structured journal of `shape` in the same part.
fn shape_change_notice(first: u64, last: u64, shape: Shape) -> String {
    let journal = match shape {
        Shape::Export => "a journal export (-o export)",
        Shape::Verbose => "a verbose journal (-o verbose)",
        Shape::JsonPretty => "a journal in -o json-pretty",
    };
    let text = match first == last {
        true => format!("line {first} was read as text"),
        false => format!("lines {first}-{last} were read as text"),
    };
    format!("{text}; {journal} starts at line {}", last + 1)
}

/// What the report says when `count` JSON records were damaged.
fn damaged_records_notice(count: u64) -> String {
    format!(
        "{count} JSON record(s) were not valid JSON (cut, or with invalid escapes): read as far as they went"
    )
}

/// What the report says when `count` lines were longer than the cap.
fn cut_lines_notice(count: u64) -> String {
    format!("{count} line(s) longer than {} MiB were cut; the rest of each was skipped", MAX_LINE_BYTES >> 20)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn journal_blob_placeholders() {
        assert!(is_blob_placeholder("[1.2K blob data]"));
        assert!(is_blob_placeholder("[512B blob data]"));
        assert!(!is_blob_placeholder("[the blob data]"));
        assert!(!is_blob_placeholder("[1.2KK blob data]"));
        assert!(!is_blob_placeholder("uploading [1.2K blob data] now"));
    }

    #[test]
    fn syslog_escapes_become_lines() {
        assert_eq!(
            unescape_syslog("Traceback:#012  File \"a.py\"#011x #1 #0x"),
            "Traceback:\n  File \"a.py\"\tx #1 #0x"
        );
        assert_eq!(unescape_syslog("café #012"), "café \n");
    }

    /// The events of `text` read a line at a time, as a followed input is
    /// (every line grouped).
    fn events_line_by_line(text: &str) -> Vec<Event> {
        let mut events = Vec::new();
        let mut sink = Borrowing::new(|event: &Event| {
            events.push(event.clone());
            Ok(())
        });
        let mut session = Session::following(&mut sink);
        session.read(text.as_bytes(), layout::sniff(text.as_bytes()), &mut |_, _| {}).unwrap();
        session.finish().unwrap();
        events
    }

    #[test]
    fn lines_handed_on_without_grouping_make_the_events_grouping_makes() {
        let log = "\
[2026-05-25 08:10:00 TP0] Decode batch. #running-req: 1, #token: 1, #queue-req: 0
Future exception was never retrieved
future: <Future finished exception=RuntimeError('engine died')>
[2026-05-25 08:10:00 TP0] Decode batch. #running-req: 1, #token: 3, #queue-req: 0
Task exception was never retrieved
future: <Task finished name='Task-3' coro=<serve() done>>
Traceback (most recent call last):
  File \"/a.py\", line 3, in serve
RuntimeError: CUDA error: an illegal memory access was encountered
[2026-05-25 08:10:01 TP0] Decode batch. #running-req: 1, #token: 2, #queue-req: 0
a bare line of text
    an indented bare line
\tand a tabbed one
May 25 08:10:02 gpu01 python3[12]: RuntimeError: NCCL error: unhandled system error
frame #3: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout() + 0x1f
May 25 08:10:03 gpu01 python3[12]: some line
bare after a journal line
May 25 08:10:03 gpu01 python3[12]: another line
  File \"/c.py\", line 1, in f
[2026-05-25 08:10:04 TP0] WARNING: the scheduler failed
Traceback (most recent call last):
  File \"/b.py\", line 9, in run
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB
[2026-05-25 08:10:05 TP0] ERROR:    Exception in ASGI application
";
        let batched = events_of(log);
        assert_eq!(batched, events_line_by_line(log));
        // The asyncio report is one event: announcement, context, traceback.
        let report =
            batched.iter().find(|e| e.lines[0].message() == "Task exception was never retrieved").unwrap();
        assert_eq!(report.lines.len(), 5);
        let future =
            batched.iter().find(|e| e.lines[0].message() == "Future exception was never retrieved").unwrap();
        assert_eq!(future.lines.len(), 2);
    }

    #[test]
    fn a_syslog_traceback_on_one_line_is_one_event() {
        let line = "May  5 10:00:00 gpu01 python3[42]: Traceback (most recent call last):#012  File \"/a.py\", line 1, in f#012RuntimeError: CUDA error: out of memory\n";
        let mut events = Vec::new();
        read_events(
            line.as_bytes(),
            |_, _| {},
            |e| {
                events.push(e.clone());
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].lines.len(), 3);
        assert_eq!(events[0].lines[2].message(), "RuntimeError: CUDA error: out of memory");
        assert!(events[0].lines.iter().all(|l| l.number == 1));
    }
}
