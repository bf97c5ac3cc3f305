//! The log's own time: a printed time stamp read as seconds, so that the
//! active period of a run, idle gaps, rates per minute and how long a run
//! made no progress are measured by the log, not by the reader's clock.
//!
//! Stamps are compared only with stamps of the same [`Clock`]: a journal
//! stamp without a year can be compared with another from the same journal,
//! never with a kernel's seconds since boot.

use crate::framing::printed_time::{self, PrintedTime};

/// What a stamp counts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clock {
    /// A calendar date with its year (`2026-05-26 09:06:09`, RFC 3339,
    /// microseconds since the epoch).
    Calendar,
    /// A date without its year (`May 26 09:06:09`, vLLM's `05-26 09:06:09`):
    /// comparable within a log that does not span a new year.
    YearLess,
    /// Seconds since boot (`[  518.050606]`).
    SinceBoot,
}

/// A moment as the log printed it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stamp {
    /// What the seconds count from.
    pub clock: Clock,
    /// Seconds since the clock's origin.
    pub seconds: f64,
}

impl Stamp {
    /// Seconds from `earlier` to this moment, when both are on one clock.
    pub fn since(self, earlier: Stamp) -> Option<f64> {
        (self.clock == earlier.clock).then_some(self.seconds - earlier.seconds)
    }
}

/// A stamp as printed, kept without reading it: a run sees every one of
/// its lines' stamps and needs few of them (its last, those of the lines
/// it keeps), read only when they are needed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrintedStamp {
    bytes: [u8; LAST_STAMP_BYTES],
    len: u8,
}

/// Longest stamp kept (an RFC 3339 stamp with nanoseconds and a zone is 35).
const LAST_STAMP_BYTES: usize = 40;

impl Default for PrintedStamp {
    fn default() -> Self {
        PrintedStamp { bytes: [0; LAST_STAMP_BYTES], len: 0 }
    }
}

impl PrintedStamp {
    /// The stamp printed as `printed` (a longer one is not a stamp this
    /// module reads, and is kept as none).
    pub fn of(printed: Option<&str>) -> Self {
        let mut kept = PrintedStamp::default();
        if let Some(printed) = printed {
            kept.set(printed);
        }
        kept
    }

    /// Remembers `printed` as the stamp (a longer one is not a stamp this
    /// module reads, and is forgotten).
    pub fn set(&mut self, printed: &str) {
        let len = printed.len();
        if len > LAST_STAMP_BYTES {
            self.len = 0;
            return;
        }
        self.bytes[..len].copy_from_slice(printed.as_bytes());
        self.len = len as u8;
    }

    /// The stamp, read.
    pub fn stamp(&self) -> Option<Stamp> {
        std::str::from_utf8(&self.bytes[..self.len as usize]).ok().and_then(parse)
    }
}

/// The year given to dates printed without one.
const NO_YEAR: i64 = 2000;

/// Reads a stamp as framing found it (see `Record::time`), or `None` for a
/// shape that does not say when (llama.cpp's elapsed time) or that is not
/// understood (see [`printed_time::read`]).
pub fn parse(text: &str) -> Option<Stamp> {
    Some(match printed_time::read(text)? {
        PrintedTime::EpochMicros(micros) => Stamp { clock: Clock::Calendar, seconds: micros as f64 / 1e6 },
        PrintedTime::SinceBoot(seconds) => Stamp { clock: Clock::SinceBoot, seconds },
        PrintedTime::Dated(date) => {
            let days = date.days_since_epoch(NO_YEAR)? as f64;
            let clock = if date.year.is_some() { Clock::Calendar } else { Clock::YearLess };
            Stamp { clock, seconds: days * 86_400.0 + date.seconds_of_day - date.offset }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seconds(text: &str) -> f64 {
        parse(text).unwrap_or_else(|| panic!("not read: {text}")).seconds
    }

    #[test]
    fn every_printed_shape_reads_as_the_same_moment() {
        let sglang = seconds("2026-05-26 09:06:09");
        assert_eq!(seconds("2026-05-26T09:06:09Z"), sglang);
        assert_eq!(seconds("2026-05-26T10:06:09+01:00"), sglang);
        assert_eq!(seconds("2026-05-26T11:06:09+0200"), sglang);
        assert_eq!(seconds("2026-05-26 09:06:09,500"), sglang + 0.5);
        assert_eq!(seconds("2026-05-26T09:06:09.250000000Z"), sglang + 0.25);
        // The journal's microseconds since the epoch.
        assert_eq!(seconds("1779786369000000"), sglang);
        assert_eq!(seconds("[Tue May 26 09:06:09 2026]"), sglang);
        // Without a year, only the distance between two stamps means anything.
        assert_eq!(seconds("May 26 09:16:09") - seconds("May 26 09:06:09"), 600.0);
        assert_eq!(seconds("May  6 09:06:09.500000") - seconds("May  6 09:06:09"), 0.5);
        assert_eq!(seconds("05-27 00:00:10") - seconds("05-26 23:59:50"), 20.0);
        assert_eq!(seconds("Mar  1 00:00:00") - seconds("Feb 29 23:00:00"), 3600.0);
        assert_eq!(seconds("[  518.050606]"), 518.050606);
    }

    #[test]
    fn clocks_are_kept_apart() {
        let boot = parse("[  518.050606]").unwrap();
        let calendar = parse("2026-05-26 09:06:09").unwrap();
        let year_less = parse("May 26 09:06:09").unwrap();
        assert_eq!(calendar.since(boot), None);
        assert_eq!(year_less.since(calendar), None);
        assert_eq!(parse("May 26 09:06:19").unwrap().since(year_less), Some(10.0));
    }

    #[test]
    fn other_shapes_are_not_read() {
        for text in
            ["", "0.00.025.467", "2026-13-01 00:00:00", "Foo 26 09:06:09", "12345", "May 26", "2026-05-26"]
        {
            assert_eq!(parse(text), None, "{text}");
        }
    }
}
