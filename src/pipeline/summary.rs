//! What reading a part came to: the summary every reading strategy
//! returns, and text that stopped where a structured journal began in
//! the same part.

use std::io;

use crate::input::{LineReader, Rest};

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
pub(super) struct TextRead<R> {
    pub(super) summary: ReadSummary,
    /// The journal that follows the text.
    pub(super) journal: Option<JournalAfter<R>>,
}

/// A structured journal after text, in the same part.
pub(super) struct JournalAfter<R> {
    /// Its bytes, from its first line on.
    pub(super) rest: Rest<R>,
    /// The number of the text's last line.
    pub(super) text_ends: u64,
    /// The byte offset of its first line in the source.
    pub(super) offset: u64,
}

impl<R: io::Read> TextRead<R> {
    /// What `lines` read, and what follows if they stopped at a journal.
    pub(super) fn after(summary: ReadSummary, lines: LineReader<R>) -> Self {
        let journal = lines.stopped().then(|| JournalAfter {
            text_ends: lines.last_number(),
            offset: lines.next_offset(),
            rest: lines.into_rest(),
        });
        TextRead { summary, journal }
    }
}
