//! What a report says about its input besides the findings: a part cut or
//! unreadable, a journal put back in time order, records read only in
//! part. Every notice is a [`Notice`], and its wording is written here
//! and nowhere else; the JSON report carries each as the sentence its
//! [`Display`](fmt::Display) gives.

use std::fmt;

use crate::framing::journal::layout::Shape;
use crate::input::MAX_LINE_BYTES;

/// Which file of a stream a notice is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Which {
    /// The stream itself (a single file, standard input): "it".
    Whole,
    /// One file of several (a rotated one), by name.
    Part(String),
}

impl fmt::Display for Which {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Which::Whole => f.write_str("it"),
            Which::Part(name) => f.write_str(name),
        }
    }
}

/// Something the report says about the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// A part was written newest first (`journalctl -r`) and was judged
    /// oldest first.
    Reordered { which: Which },
    /// Reading a part stopped early with `error` (a cut gzip stream); what
    /// was read before is judged.
    ReadingStopped { which: Which, error: String },
    /// A part could not be read at all.
    ReadingFailed { which: Which, error: String },
    /// The input held no line.
    Empty,
    /// `count` lines were longer than the line cap and cut.
    LongLinesCut { count: u64 },
    /// `count` JSON records were not valid JSON, read as far as they went.
    DamagedRecords { count: u64 },
    /// Lines `first` to `last` were text, and a structured journal of
    /// `shape` followed them in the same part.
    TextBeforeJournal { first: u64, last: u64, shape: Shape },
    /// `count` lines among a structured journal's entries were no part of
    /// an entry.
    OutsideEntries { count: u64 },
    /// `count` messages were binary, shown by journalctl only as
    /// `[… blob data]`.
    BinaryMessages { count: u64 },
}

impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Notice::Reordered { which } => write!(
                f,
                "{which} reads newest first (journalctl -r): judged oldest first; line numbers are the file's"
            ),
            Notice::ReadingStopped { which, error } => write!(
                f,
                "the input was cut: reading {which} stopped early ({error}); the diagnosis covers what was read"
            ),
            Notice::ReadingFailed { which, error } => write!(f, "reading {which} failed: {error}"),
            Notice::Empty => f.write_str("no lines were read: the input is empty"),
            Notice::LongLinesCut { count } => write!(
                f,
                "{count} line(s) longer than {} MiB were cut; the rest of each was skipped",
                MAX_LINE_BYTES >> 20
            ),
            Notice::DamagedRecords { count } => write!(
                f,
                "{count} JSON record(s) were not valid JSON (cut, or with invalid escapes): read as far as they went"
            ),
            Notice::TextBeforeJournal { first, last, shape } => {
                let journal = match shape {
                    Shape::Export => "a journal export (-o export)",
                    Shape::Verbose => "a verbose journal (-o verbose)",
                    Shape::JsonPretty => "a journal in -o json-pretty",
                };
                match first == last {
                    true => write!(f, "line {first} was read as text")?,
                    false => write!(f, "lines {first}-{last} were read as text")?,
                }
                write!(f, "; {journal} starts at line {}", last + 1)
            }
            Notice::OutsideEntries { count } => write!(
                f,
                "{count} line(s) among a structured journal's entries were not journal fields: read as text"
            ),
            Notice::BinaryMessages { count } => write!(
                f,
                "{count} message(s) were binary and journalctl showed only `[… blob data]`: run journalctl with --all to include them"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notice_names_the_file_it_is_about() {
        let whole = Notice::Reordered { which: Which::Whole };
        assert!(whole.to_string().starts_with("it reads newest first"), "{whole}");
        let part =
            Notice::ReadingFailed { which: Which::Part("sglang.log.1".into()), error: "denied".into() };
        assert_eq!(part.to_string(), "reading sglang.log.1 failed: denied");
    }

    #[test]
    fn text_before_a_journal_says_where_each_begins() {
        let one = Notice::TextBeforeJournal { first: 3, last: 3, shape: Shape::Export };
        assert_eq!(one.to_string(), "line 3 was read as text; a journal export (-o export) starts at line 4");
        let many = Notice::TextBeforeJournal { first: 1, last: 9, shape: Shape::JsonPretty };
        assert_eq!(
            many.to_string(),
            "lines 1-9 were read as text; a journal in -o json-pretty starts at line 10"
        );
    }
}
