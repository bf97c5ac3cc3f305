//! Line shapes the pipeline treats apart from framing: journalctl's
//! placeholder for a binary message, rsyslog's escaped newlines, and a
//! line that is a one-line record by itself (which skips grouping).

use crate::events::{self, LineKind};
use crate::framing::journal::{JournalEntry, JournalFields};
use crate::framing::json_line;
use crate::framing::{Framed, Record};

/// Whether a framed line is text of one record that may make a one-line
/// event ([`events::opens_record`]), and whether it ends the one-line
/// event of the line before it ([`events::ends_record`]; `after_announcer`:
/// that line takes bare lines: an asyncio report's announcement, a
/// stamped write). A line read some other way (a
/// JSON record, a blob placeholder, a syslog record with escaped
/// newlines) is neither.
pub(super) fn lone_record(
    text: &str,
    framed: &Framed<'_>,
    kind: LineKind,
    after_announcer: bool,
) -> (bool, bool) {
    let record = &framed.first;
    let other_reading = json_line::may_be_json(text)
        || is_blob_placeholder(record.message)
        || (record.has_stream() && has_syslog_newline(record.message));
    if other_reading {
        return (false, false);
    }
    let lone = framed.embedded.is_none() && events::opens_record(record, kind);
    (lone, events::ends_record(record, kind, after_announcer))
}

/// journalctl's stand-in for a binary message: `[512B blob data]`,
/// `[1.2K blob data]`.
pub(super) fn is_blob_placeholder(message: &str) -> bool {
    let Some(size) = message.strip_prefix('[').and_then(|m| m.strip_suffix(" blob data]")) else {
        return false;
    };
    let number = size.trim_end_matches(['B', 'K', 'M', 'G', 'T', 'P', 'E']);
    !number.is_empty()
        && number.len() + 1 >= size.len()
        && number.bytes().all(|b| b.is_ascii_digit() || b == b'.')
}

/// Whether a message holds rsyslog's escaped newline `#012` (checked on
/// every journal line, most of which have a few `#`).
pub(super) fn has_syslog_newline(message: &str) -> bool {
    static NEWLINE: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"#012"));
    NEWLINE.find(message.as_bytes()).is_some()
}

/// A syslog record with `#ooo`-escaped control characters, as an entry
/// whose message has them back.
pub(super) fn syslog_entry(record: &Record<'_>) -> JournalEntry {
    let fields = JournalFields {
        time: record.time.map(str::to_string),
        host: record.host.map(str::to_string),
        identifier: record.identifier.map(str::to_string),
        pid: record.pid,
        unit: None,
        level: record.level,
        boot_id: None,
    };
    JournalEntry { message: Some(unescape_syslog(record.message)), fields }
}

/// rsyslog's control-character escapes: `#012` is a newline, `#011` a tab.
pub(super) fn unescape_syslog(message: &str) -> String {
    let bytes = message.as_bytes();
    let mut out = String::with_capacity(message.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes
            .get(i + 1..i + 4)
            .filter(|d| bytes[i] == b'#' && d.iter().all(|b| (b'0'..=b'7').contains(b)));
        match octal.map(|d| (d[0] - b'0') * 64 + (d[1] - b'0') * 8 + (d[2] - b'0')) {
            Some(code) if code < 32 => {
                out.push(char::from(code));
                i += 4;
            }
            _ => {
                let ch = message[i..].chars().next().unwrap_or('\u{fffd}');
                out.push(ch);
                i += ch.len_utf8();
            }
        }
    }
    out
}

/// The largest index at most `at` that starts a character of `text`.
pub(super) fn floor_char_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}
