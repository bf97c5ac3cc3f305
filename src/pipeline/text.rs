//! Reading text: a batch of lines at a time, framed and then grouped (on
//! this thread, or framed on a thread of its own while this one groups),
//! or a line at a time in a followed input; and handing each framed line
//! to the feeder by its shape (a JSON record, a blob placeholder, a
//! syslog record with escaped newlines, a one-line record, any other).

use std::io::{self, BufRead};

use super::feeder::Feeder;
use super::shapes::{has_syslog_newline, is_blob_placeholder, syslog_entry};
use super::summary::{ReadSummary, TextRead};
use super::{framer, without_escapes};
use crate::framing::journal::layout;
use crate::framing::json_line;
use crate::framing::{Format, FormatSet, Framed, Templates};
use crate::input::{Line, LineReader};

/// Reads text: a batch of lines at a time, framed and then grouped on
/// this thread, or in a followed input a line at a time (its lines are
/// grouped as they come).
pub(super) fn read_text<R: BufRead>(
    reader: R,
    first: u64,
    feeder: &mut Feeder<'_>,
) -> io::Result<TextRead<R>> {
    if feeder.following {
        return read_text_lines(reader, first, feeder);
    }
    let mut grouped = Ok(());
    let read = framer::frame_batches(reader, first, |batch| {
        grouped = group_batch(batch, feeder);
        batch.clear();
        grouped.is_ok()
    });
    grouped.map(|()| read)
}

/// Groups a batch of framed lines.
fn group_batch(batch: &framer::FramedBatch, feeder: &mut Feeder<'_>) -> io::Result<()> {
    if cfg!(feature = "framing-floor") {
        return walk_batch(batch);
    }
    batch.for_each(|number, offset, text, framed, kinds| {
        push_framed(number, offset, text, framed, Some(kinds), feeder)
    })
}

/// What `benches/throughput.sh` times beside logdiag (a build with the
/// `framing-floor` feature): each line's records built where the grouper
/// would take them, and nothing handed on. Such a build judges no text
/// read in batches (the benchmark's logs): it measures what reading and
/// framing them cost by themselves. Structured journals and followed
/// input take other paths and are still judged.
fn walk_batch(batch: &framer::FramedBatch) -> io::Result<()> {
    batch.for_each(|number, offset, text, framed, kinds| {
        std::hint::black_box((number, offset, text, framed, kinds));
        Ok(())
    })
}

/// Reads a followed text a line at a time.
pub(super) fn read_text_lines<R: BufRead>(
    reader: R,
    first: u64,
    feeder: &mut Feeder<'_>,
) -> io::Result<TextRead<R>> {
    let mut lines = LineReader::new(reader).starting_at(first).stopping_at(layout::OPENS_A_DUMP);
    let mut summary = ReadSummary::default();
    let mut templates = Templates::default();
    while let Some(line) = next_line(&mut lines, &mut summary, feeder)? {
        let text = without_escapes(&line.text);
        push_framed(line.number, line.offset, &text, &templates.frame(&text), None, feeder)?;
    }
    summary.cut_lines = lines.cut_lines();
    Ok(TextRead::after(summary, lines))
}

/// Like [`read_text`], with reading and framing on a thread of their own
/// (see [`framer`]).
pub(super) fn read_text_split<R: BufRead + Send>(
    reader: R,
    first: u64,
    feeder: &mut Feeder<'_>,
) -> io::Result<TextRead<R>> {
    let (framer, framings) = framer::channel();
    std::thread::scope(|scope| {
        let framing = scope.spawn(move || framer.run(reader, first));
        let mut grouped = Ok(());
        for batch in framings.batches.iter() {
            grouped = group_batch(&batch, feeder);
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
    feeder: &mut Feeder<'_>,
) -> io::Result<()> {
    if json_line::may_be_json(text) {
        if let Some(json) = json_line::read_json_line(text) {
            feeder.after_event_stream = text.starts_with("data: ");
            return feeder.push_json(number, offset, json);
        }
    }
    // `json-sse` ends each event with an empty line: not a line of text.
    if std::mem::take(&mut feeder.after_event_stream) && text.is_empty() {
        feeder.saw(number, FormatSet::of(Format::JournalJson));
        return Ok(());
    }
    feeder.end_partial()?;
    feeder.saw(number, framed.first.formats);
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

/// What waiting for the next line of a source gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Next {
    /// A line can be read.
    Line,
    /// A followed input has nothing more for now (see
    /// [`Session::following`]): show what is pending, then wait again.
    Idle,
    /// The end of the input, or a read error (kept in the summary).
    End,
}

/// Waits until `lines` has a line to give (see [`Next`]).
pub(super) fn wait_for_line<R: BufRead>(
    lines: &mut LineReader<R>,
    summary: &mut ReadSummary,
    following: bool,
) -> Next {
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
pub(super) fn next_line<'a, R: BufRead>(
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
pub(super) fn next_line_or_stop<'a, R: BufRead>(
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
