//! The pipeline driver: reads a source line by line and pushes it through
//! framing and grouping into the engine. Batch mode and any follow mode
//! share it.

use std::borrow::Cow;
use std::io::{self, BufRead};

use crate::engine::Engine;
use crate::events::{Event, Grouper};
use crate::framing::{frame_line, FormatSet};
use crate::input::{LineReader, MAX_LINE_BYTES};

/// What reading a source met along the way.
#[derive(Debug, Default)]
pub struct ReadSummary {
    /// Lines longer than the cap, cut.
    pub cut_lines: u64,
    /// The read error that stopped reading early, if any.
    pub error: Option<io::Error>,
}

/// Reads `reader` line by line, frames and groups it, and hands every
/// event to `on_event` in input order. `on_line` sees each line's number
/// and the formats framing recognised. Stops early if `on_event` fails.
pub fn read_events<R: BufRead>(
    reader: R,
    mut on_line: impl FnMut(u64, FormatSet),
    mut on_event: impl FnMut(&Event) -> io::Result<()>,
) -> io::Result<ReadSummary> {
    let mut lines = LineReader::new(reader);
    let mut grouper = Grouper::new();
    let mut summary = ReadSummary::default();
    loop {
        let line = match lines.next_line() {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(e) => {
                summary.error = Some(e);
                break;
            }
        };
        let text = without_escapes(&line.text);
        let framed = frame_line(&text);
        on_line(line.number, framed.first.formats);
        grouper.push(line.number, line.offset, &text, &framed.first);
        if let Some(inner) = &framed.embedded {
            grouper.push(line.number, line.offset, &text, inner);
        }
        while let Some(event) = grouper.pop() {
            on_event(&event)?;
        }
    }
    for event in grouper.finish() {
        on_event(&event)?;
    }
    summary.cut_lines = lines.cut_lines();
    Ok(summary)
}

/// Reads all of `reader` as source `name` into `engine`. A read error
/// part-way (a cut gzip stream) is noted in the diagnosis and returned;
/// what was read before it is still in the engine.
pub fn feed_source<R: BufRead>(engine: &mut Engine<'_>, name: &str, reader: R) -> io::Result<()> {
    engine.begin_source(name);
    let mut last_line = 0;
    let mut formats = FormatSet::default();
    let summary = read_events(
        reader,
        |number, seen| {
            last_line = number;
            formats.extend(seen);
        },
        |event| {
            engine.feed(event);
            Ok(())
        },
    )?;
    engine.note_line(last_line, formats);
    if summary.cut_lines > 0 {
        engine.note_input_problem(format!(
            "{} line(s) longer than {} MiB were cut; the rest of each was skipped",
            summary.cut_lines,
            MAX_LINE_BYTES >> 20
        ));
    }
    match summary.error {
        Some(e) => {
            engine.note_input_problem(format!(
                "reading stopped early: {e}; the diagnosis covers what was read"
            ));
            Err(e)
        }
        None => Ok(()),
    }
}

/// Removes terminal escape sequences (colours, cursor moves, window
/// titles) so prefixes and messages are matched as the user reads them.
pub fn without_escapes(text: &str) -> Cow<'_, str> {
    if !text.contains('\x1b') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\x1b' {
            out.push(c);
            continue;
        }
        match chars.peek() {
            Some('[') => {
                chars.next();
                // CSI: parameters and intermediates, then one final byte.
                for c in chars.by_ref() {
                    if ('\x40'..='\x7e').contains(&c) {
                        break;
                    }
                }
            }
            Some(']') => {
                chars.next();
                // OSC: until BEL or ESC \.
                while let Some(c) = chars.next() {
                    if c == '\x07' {
                        break;
                    }
                    if c == '\x1b' {
                        chars.next_if_eq(&'\\');
                        break;
                    }
                }
            }
            Some(_) => {
                chars.next();
            }
            None => {}
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_and_title_sequences_are_removed() {
        assert_eq!(
            without_escapes("\x1b[32mINFO\x1b[0m 05-25 x"),
            "INFO 05-25 x"
        );
        assert_eq!(without_escapes("a\x1b]0;title\x07b"), "ab");
        assert_eq!(without_escapes("a\x1b]0;title\x1b\\b"), "ab");
        assert_eq!(without_escapes("plain"), "plain");
    }
}
