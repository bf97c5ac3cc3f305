//! Diagnosing a source: the layer that connects the pipeline (bytes to
//! events) with the engine (events to a diagnosis). The pipeline knows
//! nothing of judging and the engine nothing of reading; here each event
//! is judged as it is grouped, and what reading found (parts, formats,
//! cut or unreadable input) is recorded beside the source's findings.

use std::io::{self, BufRead};

use crate::engine::Engine;
use crate::events::{Event, LineAt};
use crate::framing::Record;
use crate::pipeline::{read_parts, EventSink, Framing, Spares};

/// Reads all of `reader` as source `name` into `engine`. A read error
/// part-way (a cut gzip stream) is noted in the diagnosis, and what was
/// read before it is judged; the error is returned only if no line at all
/// could be read, for then the source is unreadable.
pub fn feed_source<R: BufRead + Send>(engine: &mut Engine<'_>, name: &str, reader: R) -> io::Result<()> {
    feed_parts(engine, name, vec![(name.to_string(), reader)], Framing::OwnThread)
}

/// Reads the parts of one stream (rotated files, oldest first) as source
/// `name`: runs and tracebacks continue across parts, and every line keeps
/// the name of its own file.
pub fn feed_parts<R: BufRead + Send>(
    engine: &mut Engine<'_>,
    name: &str,
    parts: Vec<(String, R)>,
    framing: Framing,
) -> io::Result<()> {
    feed_parts_by(engine, name, parts, Records::WithoutEvents, framing)
}

/// How the engine judges a line that is an event by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Records {
    /// From its record, without making the event ([`Engine::feed_record`]).
    WithoutEvents,
    /// As an event, like any other (to test that both agree).
    #[cfg(test)]
    AsEvents,
}

fn feed_parts_by<R: BufRead + Send>(
    engine: &mut Engine<'_>,
    name: &str,
    parts: Vec<(String, R)>,
    records: Records,
    framing: Framing,
) -> io::Result<()> {
    engine.begin_source(name);
    let read = read_parts(name, parts, &mut Judging { engine, used: Spares::default(), records }, framing)?;
    for (part, first, reversed) in read.parts {
        engine.begin_part(&part, first, reversed);
    }
    engine.note_line(read.last_line, read.formats);
    if read.last_line == 0 {
        if let Some(e) = read.error {
            return Err(e);
        }
    }
    for notice in read.notices {
        engine.note_input_problem(notice);
    }
    Ok(())
}

/// The engine as the pipeline's sink: each event is judged as it comes,
/// a line that is an event by itself without one being made.
struct Judging<'e, 'r> {
    engine: &'e mut Engine<'r>,
    /// Judged events, kept for the grouper to reuse.
    used: Spares,
    records: Records,
}

impl EventSink for Judging<'_, '_> {
    fn take(&mut self, event: Box<Event>) -> io::Result<()> {
        self.engine.feed(&event);
        self.used.keep(event);
        Ok(())
    }

    fn take_record(&mut self, at: LineAt, text: &str, record: &Record<'_>) -> io::Result<()> {
        match self.records {
            Records::WithoutEvents => self.engine.feed_record(at, text, record),
            #[cfg(test)]
            Records::AsEvents => {
                let mut event = self.spare().unwrap_or_else(Event::empty);
                event.set_record(at, text, record);
                return self.take(event);
            }
        }
        Ok(())
    }

    fn spare(&mut self) -> Option<Box<Event>> {
        self.used.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::JudgeOptions;
    use crate::rules::RuleSet;

    fn diagnosis(rules: &RuleSet, log: &[u8], records: Records) -> String {
        let mut engine = Engine::new(rules);
        feed_parts_by(
            &mut engine,
            "input.log",
            vec![("input.log".to_string(), log)],
            records,
            Framing::OwnThread,
        )
        .unwrap();
        format!("{:?}", engine.diagnose(&JudgeOptions::default()))
    }

    #[test]
    fn a_line_judged_without_an_event_is_judged_as_its_event() {
        let rules = RuleSet::builtin().unwrap();
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let mut compared = 0;
        for case in std::fs::read_dir(fixtures).unwrap() {
            let Ok(log) = std::fs::read(case.unwrap().path().join("input.log")) else { continue };
            let without = diagnosis(&rules, &log, Records::WithoutEvents);
            assert_eq!(without, diagnosis(&rules, &log, Records::AsEvents));
            compared += 1;
        }
        assert!(compared > 100, "only {compared} fixtures read");
    }

    #[test]
    fn lines_that_may_continue_a_record_are_grouped_with_it() {
        // Bare lines after an asyncio announcement, indented bare lines,
        // a native stack line after a record, a bare line after a journal
        // line, and a traceback under a warning: each must reach the judge
        // in the event the grouper makes, with or without events.
        let log = "\
[2026-05-25 08:10:00 TP0] Decode batch. #running-req: 1, #token: 1, gen throughput (token/s): 1.00, #queue-req: 0
Task exception was never retrieved
future: <Task finished name='Task-3' coro=<serve() done>>
Traceback (most recent call last):
  File \"/a.py\", line 3, in serve
RuntimeError: CUDA error: an illegal memory access was encountered
[2026-05-25 08:10:01 TP0] Decode batch. #running-req: 1, #token: 2, gen throughput (token/s): 1.00, #queue-req: 0
a bare line of text
    an indented bare line
May 25 08:10:02 gpu01 python3[12]: RuntimeError: NCCL error: unhandled system error
frame #3: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout() + 0x1f
May 25 08:10:03 gpu01 python3[12]: some line
bare after a journal line
[2026-05-25 08:10:04 TP0] WARNING: the scheduler failed
Traceback (most recent call last):
  File \"/b.py\", line 9, in run
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB
";
        let rules = RuleSet::builtin().unwrap();
        let without = diagnosis(&rules, log.as_bytes(), Records::WithoutEvents);
        assert_eq!(without, diagnosis(&rules, log.as_bytes(), Records::AsEvents));
        assert!(without.contains("\"cuda.illegal-memory-access\""), "{without}");
    }
}
