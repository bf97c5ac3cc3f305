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
    Reordered {
        /// The part.
        which: Which,
    },
    /// Reading a part stopped early (a cut gzip stream); what was read
    /// before is judged.
    ReadingStopped {
        /// The part.
        which: Which,
        /// The read error, as the system says it.
        error: String,
    },
    /// A part could not be read at all.
    ReadingFailed {
        /// The part.
        which: Which,
        /// The read error, as the system says it.
        error: String,
    },
    /// The input held no line.
    Empty,
    /// Lines longer than the line cap were cut.
    LongLinesCut {
        /// How many.
        count: u64,
    },
    /// JSON records that were not valid JSON were read as far as they
    /// went.
    DamagedRecords {
        /// How many.
        count: u64,
    },
    /// Text came first, then a structured journal in the same part.
    TextBeforeJournal {
        /// The text's first line.
        first: u64,
        /// The text's last line.
        last: u64,
        /// The journal's shape.
        shape: Shape,
    },
    /// Lines among a structured journal's entries were no part of an
    /// entry.
    OutsideEntries {
        /// How many.
        count: u64,
    },
    /// Messages were binary, shown by journalctl only as
    /// `[… blob data]`.
    BinaryMessages {
        /// How many.
        count: u64,
    },
    /// journalctl said `-- No entries --`.
    NoEntries,
    /// Lines end in `…`: a terminal cut them.
    CutByTerminal {
        /// How many.
        count: u64,
        /// The first of them.
        first: u64,
        /// The source's unit, for the commands that print them whole.
        unit: Option<String>,
    },
    /// Earlier runs that recorded no failure were dropped.
    RunsNotKept {
        /// How many.
        count: u64,
    },
    /// Older units were dropped.
    UnitsNotKept {
        /// How many.
        count: u64,
        /// How many units a source keeps.
        kept: usize,
    },
    /// `--unit` names none of the input's units.
    NoUnitMatches {
        /// The patterns given.
        patterns: Vec<String>,
        /// The units the input names.
        seen: Vec<String>,
    },
    /// Processes started together were given to units by order alone.
    GuessStands {
        /// The units started together.
        units: Vec<String>,
        /// Each unit, with the processes (`writer[pid]`) given to it.
        given: Vec<(String, Vec<String>)>,
    },
    /// A process was first taken for one unit's, but wrote after that
    /// unit ended: it is the other's.
    GuessCorrected {
        /// The process, `writer[pid]`.
        process: String,
        /// The unit it was first taken for.
        wrong: String,
        /// The unit it is.
        unit: String,
        /// Where it wrote after `wrong` ended.
        line: u64,
    },
    /// The input ends inside a traceback, before its exception line.
    TracebackCut {
        /// The file it is in.
        source: String,
        /// Its first line there.
        first: u64,
        /// Its last line there.
        last: u64,
        /// The writer's pid, when a journal names it (its next lines can
        /// be fetched by pid).
        pid: Option<u32>,
    },
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
            Notice::NoEntries => f.write_str(
                "journalctl found no entries: check the unit name (-u) and the time range (-b, --since)",
            ),
            Notice::CutByTerminal { count, first, unit } => {
                let unit = unit.as_deref().unwrap_or("UNIT");
                write!(
                    f,
                    "{count} line(s) end in `…` (the first at line {first}): a terminal cut them to its width, so their ends, perhaps the error itself, are missing. Print them whole: `systemctl status -l --no-pager {unit}` or `journalctl -u {unit} -n 200 --no-pager` (`kubectl logs` and `docker logs` never cut)"
                )
            }
            Notice::RunsNotKept { count } => write!(
                f,
                "{count} earlier run(s) that recorded no failure were not kept (too many launches); the latest runs and every run that failed are judged"
            ),
            Notice::UnitsNotKept { count, kept } => write!(
                f,
                "{count} older units with findings were not kept (a source keeps at most {kept} units): the latest are judged"
            ),
            Notice::NoUnitMatches { patterns, seen } => no_unit_matches(f, patterns, seen),
            Notice::GuessStands { units, given } => {
                let given: Vec<String> =
                    given.iter().map(|(unit, processes)| format!("{} to {unit}", processes.join(" and "))).collect();
                write!(
                    f,
                    "{} were started together and no line says which process is whose: {} by order alone (the unit \
started last); `journalctl -o with-unit` or `-o json` names each line's unit",
                    units.join(" and "),
                    given.join(", ")
                )
            }
            Notice::GuessCorrected { process, wrong, unit, line } => write!(
                f,
                "{process} was first taken for {wrong}'s process (started with {unit} at the same time), but it wrote at line {line} \
after that unit ended: its lines are {unit}'s"
            ),
            Notice::TracebackCut { source, first, last, pid } => {
                write!(
                    f,
                    "the input ends inside a traceback (lines {first}–{last}) before its exception line: the error itself is missing. "
                )?;
                match pid {
                    Some(pid) => write!(
                        f,
                        "Fetch the lines that follow from the journal: `journalctl _PID={pid} --no-pager | grep -A 80 Traceback`, or rerun your `journalctl … | tail` with a larger -n."
                    ),
                    None if source == "-" => {
                        f.write_str("Feed logdiag more of the log: the lines after the last one it read.")
                    }
                    None => write!(
                        f,
                        "Read the lines after line {last} of {source} (the file may have been cut or is still being written)."
                    ),
                }
            }
        }
    }
}

/// `--unit PATTERNS` matched nothing: what the input names instead.
fn no_unit_matches(f: &mut fmt::Formatter<'_>, patterns: &[String], seen: &[String]) -> fmt::Result {
    const SHOWN: usize = 12;
    let wanted = patterns.join(", ");
    if seen.is_empty() {
        return write!(f, "--unit {wanted}: this input names no units, so nothing in it was judged");
    }
    let mut shown = seen.iter().take(SHOWN).map(String::as_str).collect::<Vec<_>>().join(", ");
    if seen.len() > SHOWN {
        shown.push_str(&format!(" and {} more", seen.len() - SHOWN));
    }
    write!(
        f,
        "--unit {wanted}: no unit of this input matches, so nothing in it was judged (units seen: {shown})"
    )
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
