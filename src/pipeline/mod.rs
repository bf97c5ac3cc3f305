//! The pipeline driver: reads a source, frames and groups it, and hands
//! its news to a [`Sink`] in input order. Batch mode, follow mode,
//! `logdiag events` and rule samples ([`events_of`]) all read through
//! one part loop ([`intake`]); `crate::diagnose` connects it to the
//! engine.
//!
//! A source is text (journal short modes, server logs, dmesg…) or a
//! structured journal (`-o json`, `json-pretty`, `json-seq`, `json-sse`,
//! `export`), recognised by its first bytes. Structured entries become the
//! same records as text lines, with the journal fields as the transport
//! layer; their MESSAGE is what reports show.
//!
//! The rooms, in the order a line passes them: [`intake`] (the part loop:
//! shape, newest-first order, notices), [`session`] (a stream read part
//! after part), `text` and `structured` (the reading strategies),
//! `shapes` (lines read apart from framing), `feeder` (records into the
//! grouper, events out to the sink). In batch mode text is framed a batch
//! of lines at a time (for a large source on a thread of its own,
//! `framer`, while this one groups lines into events and hands them
//! on). Most lines of a serving log are an event of one record by
//! themselves: the framer marks them, and they reach the sink as records
//! ([`Sink::take_record`]) without being grouped. A followed input
//! (`logdiag watch`) is read a line at a time on a thread of its own
//! ([`follow`]), its news handed on as it comes. Lines are framed by
//! their likeness to earlier lines where they can be
//! ([`crate::framing::Templates`]).

mod escapes;
mod feeder;
pub mod follow;
mod framer;
pub mod intake;
mod part;
mod reversed;
pub mod session;
mod shapes;
mod sink;
mod structured;
mod summary;
mod text;

use crate::events::Event;

pub use escapes::without_escapes;
pub use intake::{read_parts, Held, Intake, PartsRead};
pub use part::{Part, Parts};
pub use session::{Framing, Session};
pub use sink::{Borrowing, Sink, Spares};
pub use summary::ReadSummary;

/// The events of a text held in memory (a rule's sample, a test's log),
/// read by the same path as a file holding that text: colour codes and
/// syslog's `#012` escapes removed, structured journals recognised, a
/// newest-first excerpt put in time order, lines framed and grouped.
pub fn events_of(text: &str) -> Vec<Event> {
    let mut events = Vec::new();
    let mut sink = Borrowing::new(|_: &Parts, event: &Event| {
        events.push(event.clone());
        Ok(())
    });
    // Reading from memory cannot fail, and the callback never does.
    let _ = read_parts("-", vec![("-".to_string(), text.as_bytes())], &mut sink, Framing::ReadingThread);
    events
}

/// How much of a part is looked at to recognise its shape.
const SNIFF_BYTES: usize = 64 * 1024;

#[cfg(test)]
mod tests {
    use super::shapes::{is_blob_placeholder, unescape_syslog};
    use super::*;
    use crate::framing::journal::layout;

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
        let mut sink = Borrowing::new(|_: &Parts, event: &Event| {
            events.push(event.clone());
            Ok(())
        });
        let mut session = Session::following(&mut sink);
        session.read(text.as_bytes(), layout::sniff(text.as_bytes())).unwrap();
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
        let events = events_of(line);
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].lines.len(), 3);
        assert_eq!(events[0].lines[2].message(), "RuntimeError: CUDA error: out of memory");
        assert!(events[0].lines.iter().all(|l| l.number == 1));
    }
}
