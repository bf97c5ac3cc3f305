//! `journalctl -r` prints the newest entry first. Causes come before their
//! consequences only in time order, so a reversed journal is detected from
//! its time stamps and read oldest first; reports still give every line its
//! number in the file.

use std::io::{self, BufRead, Read};

use crate::framing::{frame_line, Format};

/// Largest reversed input that is reordered in memory; a larger one is read
/// as it is, and the report says so.
pub const MAX_REORDER_BYTES: usize = 64 << 20;

/// Does this head of an input read newest first? Looks at the journal and
/// syslog stamps of its lines: reversed when stamps only go back in time
/// (at least three stamped lines), or go back far more often than forward.
pub fn looks_reversed(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(head);
    let mut lines: Vec<&str> = text.split('\n').collect();
    if !head.ends_with(b"\n") {
        lines.pop();
    }
    let keys: Vec<String> = lines.iter().filter_map(|l| time_key(l)).collect();
    if keys.len() < 3 {
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
    (back >= 1 && forward == 0) || (back >= 10 && back > 5 * forward)
}

/// A sortable key for the transport stamp of a journal or syslog line.
fn time_key(line: &str) -> Option<String> {
    let framed = frame_line(line);
    let record = framed.first;
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
    let time = record.time?;
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

fn month_number(token: &str) -> Option<u32> {
    const MONTHS: [&str; 12] =
        ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
    let lower = token.to_ascii_lowercase();
    MONTHS.iter().position(|m| lower.starts_with(m)).map(|i| i as u32 + 1)
}

/// What the report says of a newest-first part (`which`: "it", or the
/// file's name) that was put in time order.
pub fn reordered_notice(which: &str) -> String {
    format!("{which} reads newest first (journalctl -r): judged oldest first; line numbers are the file's")
}

/// What the report says of a newest-first part too large to reorder.
pub fn too_large_notice(which: &str) -> String {
    format!(
        "{which} reads newest first (journalctl -r) and is too large to reorder: judged as written, so causes may look like consequences"
    )
}

/// What reading a newest-first input for reordering gave.
pub enum Reordered {
    /// Its lines, oldest first, and how many there are.
    Lines(Vec<u8>, u64),
    /// It is larger than [`MAX_REORDER_BYTES`]: the bytes read so far, to be
    /// read again before the rest.
    TooLarge(Vec<u8>),
}

/// Reads all of `reader` (at most [`MAX_REORDER_BYTES`]) and returns its
/// lines in reverse order.
pub fn reverse_lines(reader: &mut impl BufRead) -> io::Result<Reordered> {
    let mut all = Vec::new();
    let read = reader.take(MAX_REORDER_BYTES as u64 + 1).read_to_end(&mut all)?;
    if read > MAX_REORDER_BYTES {
        return Ok(Reordered::TooLarge(all));
    }
    if all.last() == Some(&b'\n') {
        all.pop();
    }
    let lines: Vec<&[u8]> = all.split(|&b| b == b'\n').collect();
    let count = lines.len() as u64;
    let mut reversed = Vec::with_capacity(all.len() + 1);
    for line in lines.iter().rev() {
        reversed.extend_from_slice(line);
        reversed.push(b'\n');
    }
    Ok(Reordered::Lines(reversed, count))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newest_first_journals_are_recognised() {
        let reversed = b"Oct 24 06:17:10 h systemd[1]: Stopped traccar.\nOct 24 06:17:10 h systemd[1]: traccar.service: Failed with result 'exit-code'.\nOct 24 06:17:10 h systemd[1]: traccar.service: Main process exited, code=exited, status=143/n/a\nOct 24 06:17:09 h systemd[1]: Stopping traccar...\n";
        assert!(looks_reversed(reversed));
        let forward = b"Oct 24 06:17:09 h systemd[1]: Stopping traccar...\nOct 24 06:17:10 h systemd[1]: a\nOct 24 06:17:10 h systemd[1]: b\n";
        assert!(!looks_reversed(forward));
        let plain = b"[2026-01-01 10:00:02] b\n[2026-01-01 10:00:01] a\n[2026-01-01 10:00:00] c\n";
        assert!(!looks_reversed(plain), "only journal and syslog stamps count");
    }

    #[test]
    fn lines_come_back_in_reverse() {
        let Reordered::Lines(bytes, count) = reverse_lines(&mut &b"a\nb\nc\n"[..]).unwrap() else { panic!() };
        assert_eq!((bytes.as_slice(), count), (&b"c\nb\na\n"[..], 3));
    }
}
