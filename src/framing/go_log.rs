//! Go loggers' line formats, which many of the GPU stack's Go programs
//! print (dcgm-exporter and containerd through logrus, ollama's server
//! through slog's text handler):
//!
//! - logfmt, logrus's text formatter when not on a terminal and go-kit's:
//!   `time="2023-01-05T16:23:09Z" level=fatal msg="Failed to watch metrics"`
//!   (the message is the `msg` value, and any fields after it stay in it);
//! - logrus's terminal format: a four-letter level and the time or the
//!   seconds since start in brackets, `ERRO[0000] msg`,
//!   `INFO[2024-01-02T03:04:05Z] msg`.
//!
//! `panic` is logrus's level above `fatal`: both end the program.

use super::scan::Scan;
use super::{Format, Level, Record};

/// A logfmt message without the quote that closed its `msg` value, when
/// no field follows it (`Failed to watch metrics"`).
pub(super) fn without_closing_quote(message: &str) -> &str {
    match message.strip_suffix('"') {
        Some(text) if !text.contains('"') => text,
        _ => message,
    }
}

/// `[time=… ]level=… [field=… ]msg="…"`: the keys before `msg` are read
/// for the time and level; a line with no `level` key is not logfmt.
pub(super) fn logfmt<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    let rest = &line[pos..];
    if !(rest.starts_with("time=") || rest.starts_with("ts=") || rest.starts_with("level=")) {
        return None;
    }
    let mut s = Scan::at(line, pos);
    let mut level = None;
    let mut time = None;
    loop {
        let key_at = s.pos;
        s.take_while(|b| b.is_ascii_alphanumeric() || b == b'_');
        let key = &line[key_at..s.pos];
        if key.is_empty() || !s.byte(b'=') {
            return None;
        }
        if key == "msg" {
            s.byte(b'"');
            break;
        }
        let value = value(line, &mut s);
        match key {
            "level" | "lvl" => level = Some(go_level(value)?),
            "time" | "ts" => time = Some(value),
            _ => {}
        }
        if s.spaces() == 0 || s.at_end() {
            // The fields ended with no `msg`: the line is all fields.
            break;
        }
    }
    record.level = Some(level?);
    if let Some(time) = time {
        record.time.get_or_insert(time);
    }
    record.formats.insert(Format::Logfmt);
    Some(s.pos)
}

/// A logfmt value at the scan position: quoted (with `\"` escapes) or up
/// to the next space. The quotes are not part of it.
fn value<'a>(line: &'a str, s: &mut Scan<'a>) -> &'a str {
    if s.byte(b'"') {
        let start = s.pos;
        let bytes = line.as_bytes();
        let mut at = start;
        while at < bytes.len() && bytes[at] != b'"' {
            at += if bytes[at] == b'\\' { 2 } else { 1 };
        }
        let end = at.min(bytes.len());
        *s = Scan::at(line, (end + 1).min(bytes.len()));
        &line[start..end]
    } else {
        let start = s.pos;
        s.take_while(|b| b != b' ');
        &line[start..s.pos]
    }
}

/// `ERRO[0000] ` or `WARN[2024-01-02T03:04:05Z] `, then the message.
pub(super) fn logrus_terminal<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    let mut s = Scan::at(line, pos);
    let word = s.take_while(|b| b.is_ascii_uppercase());
    if word != 4 || !s.byte(b'[') {
        return None;
    }
    let level = go_level(&line[pos..pos + 4])?;
    let time_at = s.pos;
    s.take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b':' | b'-' | b'.' | b'+'));
    let time_end = s.pos;
    if time_end == time_at || !s.byte(b']') || s.spaces() == 0 {
        return None;
    }
    record.level = Some(level);
    record.time.get_or_insert(&line[time_at..time_end]);
    record.formats.insert(Format::Logrus);
    Some(s.pos)
}

/// A Go logger's level name, in full (`warning`, `fatal`) or as logrus's
/// four letters (`WARN`, `ERRO`, `FATA`, `PANI`).
fn go_level(word: &str) -> Option<Level> {
    const SHORT: [(&str, Level); 7] = [
        ("TRAC", Level::Debug),
        ("DEBU", Level::Debug),
        ("INFO", Level::Info),
        ("WARN", Level::Warning),
        ("ERRO", Level::Error),
        ("FATA", Level::Fatal),
        ("PANI", Level::Fatal),
    ];
    if let Some(&(_, level)) = SHORT.iter().find(|(short, _)| short.eq_ignore_ascii_case(word)) {
        return Some(level);
    }
    match word {
        "panic" | "PANIC" | "dpanic" => Some(Level::Fatal),
        _ => Level::parse(word).filter(|_| word.len() > 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(line: &str) -> Option<(Option<Level>, Option<&str>, &str)> {
        let mut record = Record::default();
        let at = logfmt(line, 0, &mut record).or_else(|| logrus_terminal(line, 0, &mut record))?;
        Some((record.level, record.time, &line[at..]))
    }

    #[test]
    fn logfmt_gives_its_level_time_and_message() {
        // dcgm-exporter (NVIDIA/dcgm-exporter#126).
        let line =
            r#"time="2023-01-05T16:23:09Z" level=fatal msg="Failed to watch metrics: Error watching fields""#;
        let (level, time, message) = framed(line).unwrap();
        assert_eq!(level, Some(Level::Fatal));
        assert_eq!(time, Some("2023-01-05T16:23:09Z"));
        assert!(message.starts_with("Failed to watch metrics"), "{message}");
        assert_eq!(without_closing_quote(message), "Failed to watch metrics: Error watching fields");
        // Escaped quotes in a value do not end it; fields before msg are skipped.
        let line = r#"ts=2024-01-02T03:04:05Z level=warn caller="x.go:1 \"y\"" msg=starting"#;
        assert_eq!(framed(line).map(|(l, _, m)| (l, m)), Some((Some(Level::Warning), "starting")));
        // No msg: the fields are the message.
        assert_eq!(framed("level=error err=boom").map(|f| f.0), Some(Some(Level::Error)));
    }

    #[test]
    fn logrus_terminal_format() {
        let (level, time, message) = framed("ERRO[0000] error running exporter: no GPU").unwrap();
        assert_eq!(
            (level, time, message),
            (Some(Level::Error), Some("0000"), "error running exporter: no GPU")
        );
        assert_eq!(framed("PANI[2024-01-02T03:04:05Z] boom").unwrap().0, Some(Level::Fatal));
    }

    #[test]
    fn prose_is_not_a_go_header() {
        for line in [
            "level of detail: high",
            "time=now but no level",
            "NOTE[1] see below",
            "INFO[] empty",
            "ERRO[0000]glued",
            r#"time="unterminated level=info"#,
        ] {
            assert_eq!(framed(line).map(|f| f.0), None, "{line}");
        }
    }
}
