//! Printed time: a time stamp as a log printed it (framing keeps it as
//! [`Record::time`](super::Record)), read into a [`PrintedTime`]: a date
//! and time of day, seconds since boot, or microseconds since the epoch.
//! The one reader of a stamp's value: the vitals measure time with it, and
//! the order of a journal's lines is told with its month names.

/// English month abbreviations, as the journal and syslog print them.
const MONTHS: [&str; 12] =
    ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/// A time stamp, read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PrintedTime {
    /// Microseconds since the epoch (a structured journal's
    /// `__REALTIME_TIMESTAMP`).
    EpochMicros(u64),
    /// A date and a time of day.
    Dated(DateAndTime),
    /// Seconds since boot (`[  518.050606]`).
    SinceBoot(f64),
}

/// A date as printed (with or without its year) and a time of day.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DateAndTime {
    /// The year, when printed (`May 26 09:06:09` and vLLM's `05-26
    /// 09:06:09` print none).
    pub year: Option<i64>,
    /// The month, 1 to 12.
    pub month: i64,
    /// The day of the month, 1 to 31.
    pub day: i64,
    /// Seconds into the day, with the printed fraction.
    pub seconds_of_day: f64,
    /// The zone's offset from UTC in seconds (0 when none is printed).
    pub offset: f64,
}

impl DateAndTime {
    /// Days from 1970-01-01 to the date, in `year_if_none` when no year was
    /// printed (`None` if the month or day is out of range).
    pub fn days_since_epoch(&self, year_if_none: i64) -> Option<i64> {
        days_from_civil(self.year.unwrap_or(year_if_none), self.month, self.day)
    }

    /// Whether the month and day are in range (as [`days_from_civil`]
    /// asks, whatever the year).
    fn is_a_date(&self) -> bool {
        (1..=12).contains(&self.month) && (1..=31).contains(&self.day)
    }
}

/// The month a word names, 1 to 12: an English abbreviation or a word it
/// begins (`May`, `aug`, `SEPT`), in any case.
pub fn month_number(word: &str) -> Option<u32> {
    let opening = word.as_bytes().get(..3)?;
    MONTHS.iter().position(|m| opening.eq_ignore_ascii_case(m.as_bytes())).map(|i| i as u32 + 1)
}

/// Reads a stamp as framing found it (see `Record::time`), or `None` for a
/// shape that does not say when (llama.cpp's elapsed time) or that is not
/// understood: `2026-05-26 09:06:09[,.]frac` or RFC 3339 with a zone, the
/// journal's microseconds, vLLM's `05-26 09:06:09`, seconds since boot,
/// `May 26 09:06:09[.123456]` and dmesg -T's `Sun Mar 30 08:24:00 2025`
/// (brackets and spaces around it are left out).
pub fn read(text: &str) -> Option<PrintedTime> {
    let text = text.trim_matches(|c: char| c == '[' || c == ']' || c == ' ');
    let bytes = text.as_bytes();
    if bytes.len() >= 12 && bytes.iter().all(u8::is_ascii_digit) {
        return Some(PrintedTime::EpochMicros(text.parse().ok()?));
    }
    let dated = |year, month, day, seconds_of_day, offset| {
        let date = DateAndTime { year, month, day, seconds_of_day, offset };
        date.is_a_date().then_some(PrintedTime::Dated(date))
    };
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
        return dated(Some(year), month, day, time, offset);
    }
    let mut s = Cursor { bytes, at: 0 };
    if let Some(month) = s.number(2, 2) {
        if s.then(b'-').is_some() {
            // vLLM: 05-26 09:06:09
            let day = s.number(2, 2)?;
            s.then(b' ')?;
            return dated(None, month, day, s.time_of_day()?, 0.0);
        }
    }
    let mut s = Cursor { bytes, at: 0 };
    if s.number(1, 12).is_some() && s.then(b'.').is_some() && s.number(1, 9).is_some() && s.at == bytes.len()
    {
        return Some(PrintedTime::SinceBoot(text.parse().ok()?));
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
    dated(year, month, day, time, 0.0)
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

    #[test]
    fn every_shape_is_read_into_its_parts() {
        let dated = |text| match read(text) {
            Some(PrintedTime::Dated(date)) => {
                (date.year, date.month, date.day, date.seconds_of_day, date.offset)
            }
            other => panic!("{text}: {other:?}"),
        };
        assert_eq!(dated("2026-05-26T10:06:09.5+01:00"), (Some(2026), 5, 26, 36_369.5, 3600.0));
        assert_eq!(dated("05-26 09:06:09"), (None, 5, 26, 32_769.0, 0.0));
        assert_eq!(dated("[Tue May 26 09:06:09 2026]"), (Some(2026), 5, 26, 32_769.0, 0.0));
        assert_eq!(dated("May  6 09:06:09.250000"), (None, 5, 6, 32_769.25, 0.0));
        assert_eq!(read("1779786369000000"), Some(PrintedTime::EpochMicros(1_779_786_369_000_000)));
        assert_eq!(read("[  518.050606]"), Some(PrintedTime::SinceBoot(518.050606)));
        assert_eq!(read("2026-13-01 00:00:00"), None);
    }

    #[test]
    fn month_words_in_any_case() {
        assert_eq!(month_number("May"), Some(5));
        assert_eq!(month_number("aug"), Some(8));
        assert_eq!(month_number("SEPT"), Some(9));
        assert_eq!(month_number("Ma"), None);
        assert_eq!(month_number("2月"), None);
    }
}
