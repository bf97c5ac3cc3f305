//! Diagnosing a source: the layer that connects the pipeline (bytes to
//! news) with the engine (news to a diagnosis). The pipeline knows nothing
//! of judging and the engine nothing of reading; the engine is the
//! pipeline's sink, so each event is judged as it is grouped, and what
//! reading found (parts, formats, cut or unreadable input) reaches it in
//! input order beside the events.

use std::io::{self, BufRead};

use crate::engine::Engine;
use crate::pipeline::{read_parts, Framing, Sink};

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
    engine.begin_source(name);
    read_into(engine, name, parts, framing)
}

/// Reads the parts into `sink`; the error only if nothing could be read.
fn read_into<R: BufRead + Send>(
    sink: &mut dyn Sink,
    name: &str,
    parts: Vec<(String, R)>,
    framing: Framing,
) -> io::Result<()> {
    let read = read_parts(name, parts, sink, framing)?;
    match read.error {
        Some(e) if read.last_line == 0 => Err(e),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::JudgeOptions;
    use crate::events::{Event, LineAt};
    use crate::framing::{FormatSet, Record};
    use crate::notice::Notice;
    use crate::pipeline::Part;
    use crate::rules::RuleSet;

    /// The engine judging every line from an event, even one the pipeline
    /// hands over as a record it could judge without one.
    struct AsEvents<'e, 'r>(&'e mut Engine<'r>);

    impl Sink for AsEvents<'_, '_> {
        fn part(&mut self, part: &Part) -> io::Result<()> {
            self.0.part(part)
        }
        fn take(&mut self, event: Box<Event>) -> io::Result<()> {
            self.0.take(event)
        }
        fn take_record(&mut self, at: LineAt, text: &str, record: &Record<'_>) -> io::Result<()> {
            let mut event = self.spare().unwrap_or_else(Event::empty);
            event.set_record(at, text, record);
            self.take(event)
        }
        fn spare(&mut self) -> Option<Box<Event>> {
            self.0.spare()
        }
        fn lines(&mut self, last: u64, formats: FormatSet) -> io::Result<()> {
            self.0.lines(last, formats)
        }
        fn notice(&mut self, notice: Notice) -> io::Result<()> {
            self.0.notice(notice)
        }
    }

    fn diagnosis(rules: &RuleSet, log: &[u8], as_events: bool) -> String {
        let mut engine = Engine::new(rules);
        let parts = vec![("input.log".to_string(), log)];
        match as_events {
            false => feed_parts(&mut engine, "input.log", parts, Framing::OwnThread).unwrap(),
            true => {
                engine.begin_source("input.log");
                read_into(&mut AsEvents(&mut engine), "input.log", parts, Framing::OwnThread).unwrap();
            }
        }
        format!("{:?}", engine.diagnose(&JudgeOptions::default()))
    }

    #[test]
    fn a_line_judged_without_an_event_is_judged_as_its_event() {
        let rules = RuleSet::builtin().unwrap();
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let mut compared = 0;
        for case in std::fs::read_dir(fixtures).unwrap() {
            let Ok(log) = std::fs::read(case.unwrap().path().join("input.log")) else { continue };
            let without = diagnosis(&rules, &log, false);
            assert_eq!(without, diagnosis(&rules, &log, true));
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
        let without = diagnosis(&rules, log.as_bytes(), false);
        assert_eq!(without, diagnosis(&rules, log.as_bytes(), true));
        assert!(without.contains("\"cuda.illegal-memory-access\""), "{without}");
    }
}
