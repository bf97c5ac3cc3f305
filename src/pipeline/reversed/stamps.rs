//! Telling a newest-first input from its time stamps, in every journal
//! mode: the transport stamp of the short modes and syslog, the seconds
//! since boot of `short-monotonic` and `short-delta`, `__REALTIME_TIMESTAMP`
//! in `json*` and `export`, the header of `verbose`, and the `time` of
//! Docker's json-file records. Application stamps inside messages do not
//! count: processes interleave, and their clocks need not agree. Where the
//! stamps tie (a traceback is written within one second), the order of a
//! Python traceback's own lines tells.

use crate::events::traceback::parse_frame;
use crate::framing::printed_time::month_number;
use crate::framing::{frame_line, Format};

/// Does this head of an input read newest first? Reversed when its stamps
/// only go back in time (at least two stamped lines), or go back far
/// more often than forward; or, when they never go forward, when its
/// tracebacks read backwards (see [`traceback_order`]).
pub(crate) fn looks_reversed(head: &[u8]) -> bool {
    let keys = stamp_keys(head);
    if keys.len() < 2 {
        return false;
    }
    let (mut forward, mut back) = (0usize, 0usize);
    for pair in keys.windows(2) {
        match pair[0].cmp(&pair[1]) {
            std::cmp::Ordering::Less => forward += 1,
            std::cmp::Ordering::Greater => back += 1,
            std::cmp::Ordering::Equal => {}
        }
    }
    if forward == 0 {
        if back >= 1 {
            return true;
        }
        let (forward, backward) = traceback_order(head);
        return backward > forward;
    }
    back >= 10 && back > 5 * forward
}

/// How the Python tracebacks of a journal head read: how many headers
/// (`Traceback (most recent call last):`) are followed by a frame, as
/// written, and how many come right after a frame with none after them,
/// as a newest-first journal shows them.
fn traceback_order(head: &[u8]) -> (usize, usize) {
    let text = String::from_utf8_lossy(head);
    let messages: Vec<&str> = text.lines().map(|l| frame_line(l).first.message).collect();
    let is_frame = |i: usize| messages.get(i).is_some_and(|m| parse_frame(m.trim_start()).is_some());
    let (mut forward, mut backward) = (0, 0);
    for (i, message) in messages.iter().enumerate() {
        if !message.trim_end().ends_with("Traceback (most recent call last):") {
            continue;
        }
        if is_frame(i + 1) {
            forward += 1;
        } else if i > 0 && is_frame(i - 1) {
            backward += 1;
        }
    }
    (forward, backward)
}

/// Does this head show too few time stamps to tell their order: one or
/// two so far, or none yet where stamps are expected (`stamped`: a
/// structured journal, whose first entry may not have reached its stamp)?
pub(crate) fn too_few_stamps(head: &[u8], stamped: bool) -> bool {
    let keys = stamp_keys(head).len();
    keys < 3 && (keys > 0 || stamped)
}

/// The time keys of the whole lines of a head, in order.
fn stamp_keys(head: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(head);
    let mut lines: Vec<&str> = text.split('\n').collect();
    if !head.ends_with(b"\n") {
        lines.pop();
    }
    lines.iter().filter_map(|l| time_key(l)).collect()
}

/// A sortable key for the time a journal line or entry was logged.
fn time_key(line: &str) -> Option<String> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    if let Some(stamp) = realtime_field(line) {
        return Some(format!("{stamp:>24}"));
    }
    if let Some(time) = docker_time(line) {
        return Some(format!("{time:>40}"));
    }
    if let Some(time) = loki_time(line) {
        return Some(rfc3339_key(time));
    }
    if crate::framing::journal::layout::is_verbose_header(line) {
        // `Sun 2025-05-25 20:17:52.000000 UTC [s=…]`, without the weekday.
        let stamp = line.split_once(" [s=")?.0;
        return Some(format!("{:>40}", stamp.get(4..)?));
    }
    let framed = frame_line(line);
    let record = framed.first;
    let time = record.time?;
    if record.formats.contains(Format::JournalShortMonotonic) {
        // `[  123.456789]`, or `[  123.456789 <    0.000010>]` (short-delta).
        let seconds = time.trim_matches(|c| c == '[' || c == ']').split_whitespace().next()?;
        let (whole, fraction) = seconds.split_once('.').unwrap_or((seconds, ""));
        return Some(format!("{whole:>20}.{fraction:<9}"));
    }
    let journal = [
        Format::JournalShort,
        Format::JournalShortPrecise,
        Format::JournalShortIso,
        Format::JournalShortIsoPrecise,
        Format::JournalShortFull,
        Format::JournalShortUnix,
        Format::Syslog,
    ];
    if !journal.iter().any(|f| record.formats.contains(*f)) {
        return None;
    }
    let mut parts = time.split_whitespace();
    let first = parts.next()?;
    Some(match month_number(first) {
        Some(month) => {
            let day: u32 = parts.next()?.parse().ok()?;
            format!("{month:02}-{day:02} {}", parts.next()?)
        }
        // ISO stamps, `Sun 2025-05-25 …` and epoch seconds sort as text once
        // padded.
        None => format!("{:>40}", time),
    })
}

/// The value of `__REALTIME_TIMESTAMP` in an `export` line, a `json` line
/// or a `json-pretty` field line.
fn realtime_field(line: &str) -> Option<&str> {
    if let Some(value) = line.strip_prefix("__REALTIME_TIMESTAMP=") {
        return digits(value);
    }
    digits(json_string_field(line, "__REALTIME_TIMESTAMP")?)
}

fn digits(value: &str) -> Option<&str> {
    let end = value.find(|c: char| !c.is_ascii_digit()).unwrap_or(value.len());
    (end > 0).then(|| &value[..end])
}

/// The `time` of a Docker json-file record (RFC 3339, UTC).
fn docker_time(line: &str) -> Option<&str> {
    if !line.starts_with('{') || json_string_field(line, "log").is_none() {
        return None;
    }
    json_string_field(line, "time")
}

/// The `timestamp` of a line of Loki's `logcli -o jsonl` (RFC 3339 with
/// trailing zeros of the fraction cut, in logcli's `--timezone`).
fn loki_time(line: &str) -> Option<&str> {
    if !line.starts_with('{') || json_string_field(line, "line").is_none() {
        return None;
    }
    json_string_field(line, "timestamp")
}

/// A key that sorts RFC 3339 stamps of one zone whose fractions differ in
/// length (`10:00:00Z`, `10:00:00.5Z`, `10:00:00.123Z`).
fn rfc3339_key(time: &str) -> String {
    let seconds_end = time.find(['.', 'Z', '+']).or_else(|| time.rfind('-').filter(|&i| i > 10));
    let (whole, rest) = time.split_at(seconds_end.unwrap_or(time.len()));
    let fraction =
        rest.strip_prefix('.').map_or("", |r| &r[..r.find(|c: char| !c.is_ascii_digit()).unwrap_or(r.len())]);
    format!("{whole:>30}.{fraction:0<9}")
}

/// The start of the string value of field `name` in a JSON object's text
/// (`"name": "value…`), however it is spaced; the value runs to the end of
/// the line.
fn json_string_field<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    let key = format!("\"{name}\"");
    let mut from = 0;
    while let Some(at) = memchr::memmem::find(&line.as_bytes()[from..], key.as_bytes()) {
        let after = &line[from + at + key.len()..];
        let value =
            after.trim_start().strip_prefix(':').map(str::trim_start).and_then(|v| v.strip_prefix('"'));
        if let Some(value) = value {
            return Some(value.split('"').next().unwrap_or(value));
        }
        from += at + key.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newest_first_short_journals_are_recognised() {
        let reversed = b"Oct 24 06:17:10 h systemd[1]: Stopped traccar.\nOct 24 06:17:10 h systemd[1]: traccar.service: Failed with result 'exit-code'.\nOct 24 06:17:10 h systemd[1]: traccar.service: Main process exited, code=exited, status=143/n/a\nOct 24 06:17:09 h systemd[1]: Stopping traccar...\n";
        assert!(looks_reversed(reversed));
        let forward = b"Oct 24 06:17:09 h systemd[1]: Stopping traccar...\nOct 24 06:17:10 h systemd[1]: a\nOct 24 06:17:10 h systemd[1]: b\n";
        assert!(!looks_reversed(forward));
        let plain = b"[2026-01-01 10:00:02] b\n[2026-01-01 10:00:01] a\n[2026-01-01 10:00:00] c\n";
        assert!(!looks_reversed(plain), "only journal and syslog stamps count");
    }

    #[test]
    fn two_stamps_going_back_read_newest_first() {
        let reversed = b"Oct 24 06:17:10 h systemd[1]: traccar.service: Failed with result 'exit-code'.\nOct 24 06:17:09 h systemd[1]: traccar.service: Main process exited, code=exited, status=1/FAILURE\n";
        assert!(looks_reversed(reversed));
        let tied = b"Oct 24 06:17:10 h systemd[1]: a\nOct 24 06:17:10 h systemd[1]: b\n";
        assert!(!looks_reversed(tied));
    }

    #[test]
    fn a_traceback_read_backwards_tells_tied_stamps_order() {
        let written = [
            "Task exception was never retrieved",
            "Traceback (most recent call last):",
            "  File \"/usr/lib/python3.12/asyncio/tasks.py\", line 520, in wait_for",
            "    return await fut",
            "asyncio.exceptions.CancelledError",
        ];
        let journal = |lines: &mut dyn Iterator<Item = &&str>| {
            lines.map(|l| format!("Jan 12 21:03:30 host python3[1234]: {l}\n")).collect::<String>()
        };
        assert!(!looks_reversed(journal(&mut written.iter()).as_bytes()));
        assert!(looks_reversed(journal(&mut written.iter().rev()).as_bytes()));
    }

    #[test]
    fn every_journal_mode_has_a_stamp() {
        let keyed = |line: &str| time_key(line).is_some();
        assert!(keyed(r#"{"__CURSOR":"s=1","__REALTIME_TIMESTAMP":"1748204842123456","MESSAGE":"x"}"#));
        assert!(keyed("\t\"__REALTIME_TIMESTAMP\" : \"1748204842123456\","));
        assert!(keyed("__REALTIME_TIMESTAMP=1748204842123456"));
        assert!(keyed("Sun 2025-05-25 20:17:52.000000 UTC [s=ac48;i=1;b=0123;m=f4240;t=635f;x=8e10]"));
        assert!(keyed("[  123.456789] gpu01 python3[42]: x"));
        assert!(keyed("[  123.456789 <    0.000010>] gpu01 python3[42]: x"));
        assert!(keyed(r#"{"log":"x\n","stream":"stderr","time":"2026-05-25T20:27:22.1Z"}"#));
        assert!(keyed(r#"{"log": "x\n", "stream": "stderr", "time": "2026-05-25T20:27:22.1Z"}"#));
        assert!(keyed(r#"{ "__CURSOR" : "s=1", "__REALTIME_TIMESTAMP" : "1748204842123456" }"#));
        assert!(!keyed(r#"{"level":"info","msg":"x"}"#));
        assert!(keyed(r#"{"labels":{"job":"sglang"},"line":"x","timestamp":"2026-11-30T10:00:00.5+01:00"}"#));
        // logcli cuts the fraction's trailing zeros: stamps still sort.
        let loki = |t: &str| time_key(&format!(r#"{{"labels":{{}},"line":"x","timestamp":"{t}"}}"#));
        assert!(loki("2026-11-30T10:00:00Z") < loki("2026-11-30T10:00:00.123Z"));
        assert!(loki("2026-11-30T10:00:00.123Z") < loki("2026-11-30T10:00:00.5Z"));
        assert!(loki("2026-11-30T10:00:00.5Z") < loki("2026-11-30T10:00:01Z"));
        // Seconds since boot sort as numbers, not as text.
        assert!(time_key("[   99.500000] h p[1]: x") < time_key("[  100.250000] h p[1]: x"));
    }
}
