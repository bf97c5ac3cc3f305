//! Diagnosing a source: the layer that connects the pipeline (bytes to
//! news) with the engine (news to a diagnosis). The pipeline knows nothing
//! of judging and the engine nothing of reading; the engine is the
//! pipeline's sink, so each event is judged as it is grouped, and what
//! reading found (parts, formats, cut or unreadable input) reaches it in
//! input order beside the events.

use std::io::{self, BufRead};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::engine::Engine;
use crate::error::Error;
use crate::input::{open_logs, Origin, Part, Skipped, Source};
use crate::pipeline::{read_parts, Framing, Sink};
use crate::rules::RuleSet;

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

/// What reading sources came to: what the engine made of them (none when
/// no file held a log), and the files left out as not logs.
#[derive(Default)]
pub struct Gathered<'r> {
    /// What the engine made of the sources.
    pub engine: Option<Engine<'r>>,
    /// The files left out as not logs when opened.
    pub skipped: Vec<Skipped>,
}

/// The most sources read at once, whatever the number of cores: each
/// costs its buffers, its batches in flight, the memo of its message
/// shapes and its threads while it is read, so a directory stays under 32
/// MiB on any machine (measured on 8 files of 32 MiB with 16 threads
/// allowed: 24.8 MiB, against 41.0 MiB for 8 at once before the cap and
/// the smaller batches). A source read while cores are left over gets a
/// framing thread of its own, so 4 sources keep up to 8 cores busy.
pub const MOST_READERS: usize = 4;

/// Reads every source, several at once when there are several (one per
/// core, or at most `threads`, and at most [`MOST_READERS`]), and joins them in their given order, so
/// the report does not depend on which finished first.
pub fn read_sources<'r>(
    rules: &'r RuleSet,
    sources: &[Source],
    threads: Option<usize>,
) -> Result<Gathered<'r>, Error> {
    let cores = threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let workers = cores.min(sources.len()).clamp(1, MOST_READERS);
    let framings = framings(cores, workers, &sources.iter().map(bytes_of).collect::<Vec<_>>());
    let next = AtomicUsize::new(0);
    let mut done: Vec<Option<Result<Gathered<'r>, Error>>> = (0..sources.len()).map(|_| None).collect();
    let slots = Mutex::new(&mut done);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(source) = sources.get(index) else { break };
                let framing = framings[index];
                let read = read_one(rules, source, framing);
                slots.lock().unwrap_or_else(|poisoned| poisoned.into_inner())[index] = Some(read);
            });
        }
    });
    let mut engine: Option<Engine<'r>> = None;
    let mut skipped = Vec::new();
    for read in done.into_iter().flatten() {
        let read = read?;
        skipped.extend(read.skipped);
        if let Some(read) = read.engine {
            engine.get_or_insert_with(|| Engine::new(rules)).append(read);
        }
    }
    Ok(Gathered { engine, skipped })
}

/// How each source (of these sizes, read in this order by `readers`
/// threads on `cores` cores) is framed. A source gets a framing thread of
/// its own when a core is left for it: each reading thread has two, or
/// the sources still to start hold no more bytes than it (the other
/// readers will be done while it is read).
fn framings(cores: usize, readers: usize, bytes: &[u64]) -> Vec<Framing> {
    let mut after = 0;
    let mut framings: Vec<Framing> = bytes
        .iter()
        .rev()
        .map(|&own| {
            let spare = cores >= 2 * readers || (cores >= 2 && own >= after);
            after += own;
            if spare {
                Framing::OwnThread
            } else {
                Framing::ReadingThread
            }
        })
        .collect();
    framings.reverse();
    framings
}

/// The bytes of a source's files as stored (compressed ones included; 0
/// for standard input).
fn bytes_of(source: &Source) -> u64 {
    let size = |part: &Part| match &part.origin {
        Origin::File(path) => std::fs::metadata(path).map_or(0, |m| m.len()),
        Origin::Stdin => 0,
    };
    source.parts.iter().map(size).sum()
}

fn read_one<'r>(rules: &'r RuleSet, source: &Source, framing: Framing) -> Result<Gathered<'r>, Error> {
    let mut engine = Engine::new(rules);
    let (parts, skipped) = open_logs(source).map_err(|e| Error::Input(e.to_string()))?;
    if parts.is_empty() {
        return Ok(Gathered { engine: None, skipped });
    }
    // A read error part-way (a cut gzip stream, a device error) is noted in
    // the report and what was read is still diagnosed; a source of which
    // nothing could be read is an error.
    feed_parts(&mut engine, &source.name, parts, framing)
        .map_err(|e| Error::Input(format!("{}: cannot be read: {e}", source.name)))?;
    engine.done_reading();
    Ok(Gathered { engine: Some(engine), skipped })
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
    use Framing::{OwnThread as Own, ReadingThread as Reading};

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

    #[test]
    fn a_file_is_framed_on_a_thread_of_its_own_only_when_a_core_is_left_for_it() {
        // One core: never. One file on two cores: always.
        assert_eq!(framings(1, 1, &[256 << 20]), [Reading]);
        assert_eq!(framings(2, 1, &[256 << 20]), [Own]);
        // Eight like files on two cores: both cores read files until the
        // last two, which have the core the other leaves.
        let like = [32 << 20; 8];
        assert_eq!(framings(2, 2, &like), [Reading, Reading, Reading, Reading, Reading, Reading, Own, Own]);
        // On sixteen cores each of the eight has two.
        assert_eq!(framings(16, 8, &like), [Own; 8]);
        // A large file before small ones: the small ones are read on the
        // other core meanwhile.
        let small = 1 << 20;
        assert_eq!(framings(2, 2, &[1 << 30, small, small, small]), [Own, Reading, Own, Own]);
    }
}
