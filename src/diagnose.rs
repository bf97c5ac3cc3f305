//! Diagnosing a source: the layer that connects the pipeline (bytes to
//! events) with the engine (events to a diagnosis). The pipeline knows
//! nothing of judging and the engine nothing of reading; here each event
//! is judged as it is grouped, and what reading found (parts, formats,
//! cut or unreadable input) is recorded beside the source's findings.

use std::io::{self, BufRead};

use crate::engine::Engine;
use crate::events::Event;
use crate::pipeline::{read_parts, Borrowing};

/// Reads all of `reader` as source `name` into `engine`. A read error
/// part-way (a cut gzip stream) is noted in the diagnosis, and what was
/// read before it is judged; the error is returned only if no line at all
/// could be read, for then the source is unreadable.
pub fn feed_source<R: BufRead + Send>(engine: &mut Engine<'_>, name: &str, reader: R) -> io::Result<()> {
    feed_parts(engine, name, vec![(name.to_string(), reader)])
}

/// Reads the parts of one stream (rotated files, oldest first) as source
/// `name`: runs and tracebacks continue across parts, and every line keeps
/// the name of its own file.
pub fn feed_parts<R: BufRead + Send>(
    engine: &mut Engine<'_>,
    name: &str,
    parts: Vec<(String, R)>,
) -> io::Result<()> {
    engine.begin_source(name);
    let judged = &mut *engine;
    let mut judge = Borrowing::new(|event: &Event| {
        judged.feed(event);
        Ok(())
    });
    let read = read_parts(name, parts, &mut judge)?;
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
