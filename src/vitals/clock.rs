//! The log's own time: a printed time stamp read as seconds, so that the
//! active period of a run, idle gaps, rates per minute and how long a run
//! made no progress are measured by the log, not by the reader's clock.
//!
//! Stamps are compared only with stamps of the same [`Clock`]: a journal
//! stamp without a year can be compared with another from the same journal,
//! never with a kernel's seconds since boot.

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

const MONTHS: [&str; 12] =
    ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/// The year given to dates printed without one.
const NO_YEAR: i64 = 2000;

/// Reads a stamp as framing found it (see `Record::time`), or `None` for a
/// shape that does not say when (llama.cpp's elapsed time) or that is not
/// understood.
pub fn parse(text: &str) -> Option<Stamp> {
    let text = text.trim_matches(|c: char| c == '[' || c == ']' || c == ' ');
    let bytes = text.as_bytes();
    if bytes.len() >= 12 && bytes.iter().all(u8::is_ascii_digit) {
        // A structured journal's `__REALTIME_TIMESTAMP`: microseconds.
        let micros: u64 = text.parse().ok()?;
        return Some(Stamp { clock: Clock::Calendar, seconds: micros as f64 / 1e6 });
    }
    let mut s = Cursor { bytes, at: 0 };
    if let Some(year) = s.number(4, 4) {
        // 2026-05-26 09:06:09[,.]frac, or RFC 3339 with a zone.
        let (month, day) =
            (s.then(b'-').and_then(|_| s.number(2, 2))?, s.then(b'-').and_then(|_| s.number(2, 2))?);
        if !(s.then(b' ').is_some() || s.then(b'T').is_some()) {
            return None;
        }
        let time = s.time_of_day()?;
        let offset = s.zone();
        let seconds = days_from_civil(year, month, day)? as f64 * 86_400.0 + time - offset;
        return Some(Stamp { clock: Clock::Calendar, seconds });
    }
    let mut s = Cursor { bytes, at: 0 };
    if let Some(month) = s.number(2, 2) {
        if s.then(b'-').is_some() {
            // vLLM: 05-26 09:06:09
            let day = s.number(2, 2)?;
            s.then(b' ')?;
            let seconds = days_from_civil(NO_YEAR, month, day)? as f64 * 86_400.0 + s.time_of_day()?;
            return Some(Stamp { clock: Clock::YearLess, seconds });
        }
    }
    let mut s = Cursor { bytes, at: 0 };
    if s.number(1, 12).is_some() && s.then(b'.').is_some() && s.number(1, 9).is_some() && s.at == bytes.len()
    {
        let seconds: f64 = text.parse().ok()?;
        return Some(Stamp { clock: Clock::SinceBoot, seconds });
    }
    // `May 26 09:06:09[.123456]`, or dmesg -T's `Sun Mar 30 08:24:00 2025`.
    let words: Vec<&str> = text.split_ascii_whitespace().collect();
    let (month_word, rest) = match words.as_slice() {
        [weekday, month, rest @ ..] if weekday.len() == 3 && rest.len() == 3 => (*month, rest),
        [month, rest @ ..] => (*month, rest),
        [] => return None,
    };
    let month = MONTHS.iter().position(|m| *m == month_word)? as i64 + 1;
    let [day, clock, year @ ..] = rest else { return None };
    let day: i64 = day.parse().ok()?;
    let year = match year {
        [year] => Some(year.parse::<i64>().ok()?),
        [] => None,
        _ => return None,
    };
    let mut s = Cursor { bytes: clock.as_bytes(), at: 0 };
    let time = s.time_of_day()?;
    let days = days_from_civil(year.unwrap_or(NO_YEAR), month, day)? as f64;
    let clock = if year.is_some() { Clock::Calendar } else { Clock::YearLess };
    Some(Stamp { clock, seconds: days * 86_400.0 + time })
}

/// Days from 1970-01-01 to a date of the proleptic Gregorian calendar
/// (the era-based method: 400-year eras of 146,097 days).
fn days_from_civil(year: i64, month: i64, day: i64) -> Option<i64> {
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_from_march = (month + 9) % 12;
    let day_of_year = (153 * month_from_march + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    Some(era * 146_097 + day_of_era - 719_468)
}

/// A position in a stamp being read.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    /// A number of `min` to `max` digits.
    fn number(&mut self, min: usize, max: usize) -> Option<i64> {
        let mut value = 0i64;
        let mut digits = 0;
        while let Some(b) = self.bytes.get(self.at + digits).filter(|b| b.is_ascii_digit() && digits < max) {
            value = value * 10 + i64::from(b - b'0');
            digits += 1;
        }
        if digits < min {
            return None;
        }
        self.at += digits;
        Some(value)
    }

    fn then(&mut self, byte: u8) -> Option<()> {
        (self.bytes.get(self.at) == Some(&byte)).then(|| self.at += 1)
    }

    /// `hh:mm:ss`, with a fraction after `.` or `,`: seconds into the day.
    fn time_of_day(&mut self) -> Option<f64> {
        let hours = self.number(1, 2)?;
        self.then(b':')?;
        let minutes = self.number(2, 2)?;
        self.then(b':')?;
        let seconds = self.number(2, 2)?;
        let mut time = (hours * 3600 + minutes * 60 + seconds) as f64;
        if self.then(b'.').is_some() || self.then(b',').is_some() {
            let start = self.at;
            let fraction = self.number(0, 9).unwrap_or(0);
            let digits = self.at - start;
            // Digits beyond nanoseconds say nothing more.
            while self.bytes.get(self.at).is_some_and(u8::is_ascii_digit) {
                self.at += 1;
            }
            time += fraction as f64 / 10f64.powi(digits as i32);
        }
        Some(time)
    }

    /// A zone after the time (`Z`, `+01:00`, `+0100`): its offset from UTC
    /// in seconds (0 when there is none).
    fn zone(&mut self) -> f64 {
        let sign = match self.bytes.get(self.at) {
            Some(b'+') => 1.0,
            Some(b'-') => -1.0,
            _ => return 0.0,
        };
        self.at += 1;
        let Some(hours) = self.number(2, 2) else { return 0.0 };
        self.then(b':');
        let minutes = self.number(2, 2).unwrap_or(0);
        sign * (hours * 3600 + minutes * 60) as f64
    }
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
