//! A line that holds a JSON object. Inputs mix shapes (`journalctl -o json
//! 2>&1` puts journalctl's own errors between entries; a launcher logs one
//! JSON line before the server's text), so the shape is decided line by
//! line: a journal entry (`-o json`, `json-seq`, `json-sse`) or a record of
//! Docker's `json-file` log driver is read as such; any other object (an
//! application's own JSON log) is text like the lines around it.
//!
//! A record that is not valid JSON (cut before its `}` by a line cap or a
//! crash, or holding a lone surrogate escape) is read as far as it goes and
//! marked damaged, so it is kept, and counted, rather than dropped.

use serde_json::{Map, Value};

use super::{value_text, JournalEntry, JournalFields};

/// What a JSON line holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JsonRecord {
    /// A journal entry.
    Journal(JournalEntry),
    /// A record of Docker's json-file log driver: `{"log":…,"stream":…,
    /// "time":…}`. `partial` when its text does not end a line (Docker
    /// splits lines over 16 KiB into several records).
    Docker {
        /// The text (without its newline) and the record's time.
        entry: JournalEntry,
        /// The line goes on in the next record.
        partial: bool,
    },
    /// A line of Loki's `logcli query -o jsonl`: `{"labels":{…},"line":…,
    /// "timestamp":…}`. Its label set names the unit.
    Loki(JournalEntry),
}

/// A JSON line read as a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonLine {
    /// What it holds.
    pub record: JsonRecord,
    /// It was not valid JSON and was read only as far as it could be.
    pub damaged: bool,
}

/// Whether a line may hold a JSON record (cheap: looks at its first bytes).
pub fn may_be_json(line: &str) -> bool {
    matches!(line.as_bytes().first(), Some(b'{' | 0x1e | b'd')) && object_text(line).is_some()
}

/// The object of a line: the line itself, or after json-seq's record
/// separator or json-sse's `data: `.
fn object_text(line: &str) -> Option<&str> {
    let body = line.strip_prefix('\x1e').or_else(|| line.strip_prefix("data: ")).unwrap_or(line);
    body.starts_with('{').then_some(body)
}

/// Reads a line as a journal entry or a Docker record; `None` when it is
/// text (not an object, or an object of some other kind).
pub fn read_json_line(line: &str) -> Option<JsonLine> {
    let body = object_text(line)?;
    match serde_json::from_str::<Map<String, Value>>(body) {
        Ok(object) if is_loki(&object) => {
            let get = |name: &str| object.get(name).and_then(value_text);
            let labels = object.get("labels").and_then(Value::as_object).map(label_set);
            Some(JsonLine { record: loki_record(get("line")?, get("timestamp"), labels), damaged: false })
        }
        Ok(object) => {
            let journal = JOURNAL_FIELDS.iter().any(|f| object.contains_key(*f));
            let record = record_from(journal, |name| object.get(name).and_then(value_text))?;
            Some(JsonLine { record, damaged: false })
        }
        Err(_) => {
            let fields = salvage(body);
            let get = |name: &str| fields.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
            let journal = JOURNAL_FIELDS.iter().any(|f| get(f).is_some());
            if !journal && get("log").is_none() && body.contains("\"labels\"") {
                // A cut Loki line: its labels are an object salvage skips.
                let record = loki_record(get("line")?, get("timestamp"), None);
                return Some(JsonLine { record, damaged: true });
            }
            let record = record_from(journal, get)?;
            Some(JsonLine { record, damaged: true })
        }
    }
}

/// Is this object a line of `logcli -o jsonl` (`labels`, `line`,
/// `timestamp`; `--no-labels` leaves the labels out)?
fn is_loki(object: &Map<String, Value>) -> bool {
    let known = object.keys().all(|k| matches!(k.as_str(), "labels" | "line" | "timestamp"));
    known && object.get("line").is_some_and(Value::is_string) && object.contains_key("timestamp")
}

/// Labels that say how a line was logged rather than who logged it: a
/// container's stdout and stderr, or a level, are one unit.
const LINE_LABELS: [&str; 5] = ["stream", "level", "detected_level", "severity", "service_name"];

/// The unit a Loki label set names: `{host="gpu1", job="sglang"}` (sorted,
/// as logcli prints label sets), without the labels of the line itself.
fn label_set(labels: &Map<String, Value>) -> String {
    let mut pairs: Vec<String> = labels
        .iter()
        .filter(|(name, _)| !LINE_LABELS.contains(&name.as_str()))
        .map(|(name, value)| format!("{name}={}", Value::String(value_text(value).unwrap_or_default())))
        .collect();
    pairs.sort();
    format!("{{{}}}", pairs.join(", "))
}

fn loki_record(line: String, timestamp: Option<String>, labels: Option<String>) -> JsonRecord {
    let text = line.strip_suffix('\n').unwrap_or(&line);
    let text = text.strip_suffix('\r').unwrap_or(text).to_string();
    let labels = labels.filter(|l| l != "{}");
    let fields = JournalFields {
        time: timestamp,
        unit: labels.clone(),
        identifier: labels,
        ..JournalFields::default()
    };
    JsonRecord::Loki(JournalEntry { message: Some(text), fields })
}

/// Fields only a journal entry has (MESSAGE may be `null`: 4 KiB or more).
const JOURNAL_FIELDS: [&str; 3] = ["MESSAGE", "__CURSOR", "__REALTIME_TIMESTAMP"];

/// The record the fields make, if they make one: a journal entry when
/// `journal` (it has a journal field), else a Docker record or nothing.
fn record_from(journal: bool, get: impl Fn(&str) -> Option<String>) -> Option<JsonRecord> {
    if journal {
        return Some(JsonRecord::Journal(JournalEntry::from_lookup(get)));
    }
    let log = get("log")?;
    if get("stream").is_none() && get("time").is_none() {
        return None;
    }
    let partial = !log.ends_with('\n');
    let text = log.strip_suffix('\n').unwrap_or(&log);
    let text = text.strip_suffix('\r').unwrap_or(text);
    let fields = JournalFields { time: get("time"), ..JournalFields::default() };
    Some(JsonRecord::Docker { entry: JournalEntry { message: Some(text.to_string()), fields }, partial })
}

/// Reads the `"name": value` pairs of an object that is not valid JSON,
/// in order, up to where it stops making sense. A string cut by the end of
/// the line keeps what it has; a lone surrogate escape becomes U+FFFD; an
/// array of byte numbers (journald's form of binary values) is decoded.
fn salvage(body: &str) -> Vec<(String, String)> {
    let mut scan = Scan { bytes: body.as_bytes(), text: body, at: 1 };
    let mut fields = Vec::new();
    loop {
        scan.skip_space();
        if !scan.eat(b'"') {
            return fields;
        }
        let (name, closed) = scan.string();
        scan.skip_space();
        if !closed || !scan.eat(b':') {
            return fields;
        }
        scan.skip_space();
        let (value, complete) = match scan.peek() {
            Some(b'"') => {
                scan.at += 1;
                let (value, closed) = scan.string();
                (Some(value), closed)
            }
            Some(b'[') => (scan.array(), true),
            Some(_) => (scan.bare(), true),
            None => return fields,
        };
        if let Some(value) = value {
            fields.push((name, value));
        }
        if !complete {
            return fields;
        }
        scan.skip_space();
        if !scan.eat(b',') {
            return fields;
        }
    }
}

/// A cursor over a damaged JSON object.
struct Scan<'a> {
    bytes: &'a [u8],
    text: &'a str,
    at: usize,
}

impl Scan<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn eat(&mut self, byte: u8) -> bool {
        let found = self.peek() == Some(byte);
        self.at += usize::from(found);
        found
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    /// The rest of a string whose opening quote was read, and whether its
    /// closing quote was found.
    fn string(&mut self) -> (String, bool) {
        let mut out = String::new();
        loop {
            let rest = &self.text[self.at..];
            let Some(stop) = rest.find(['"', '\\']) else {
                out.push_str(rest);
                self.at = self.bytes.len();
                return (out, false);
            };
            out.push_str(&rest[..stop]);
            self.at += stop;
            if self.eat(b'"') {
                return (out, true);
            }
            self.at += 1;
            match self.escape() {
                Some(c) => out.push(c),
                None => return (out, false),
            }
        }
    }

    /// The character an escape stands for (its `\` read); `None` at the end.
    fn escape(&mut self) -> Option<char> {
        let code = self.peek()?;
        self.at += 1;
        Some(match code {
            b'n' => '\n',
            b't' => '\t',
            b'r' => '\r',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'u' => {
                let high = self.hex4()?;
                if !(0xD800..0xDC00).contains(&high) {
                    return Some(char::from_u32(high).unwrap_or('\u{fffd}'));
                }
                let save = self.at;
                let low = if self.bytes[self.at..].starts_with(b"\\u") {
                    self.at += 2;
                    self.hex4()
                } else {
                    None
                };
                match low.filter(|l| (0xDC00..0xE000).contains(l)) {
                    Some(low) => char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))?,
                    None => {
                        self.at = save;
                        '\u{fffd}'
                    }
                }
            }
            // `\"`, `\\`, `\/`, and anything else taken as itself (all of
            // it, if it is a character of several bytes).
            _ => {
                let c = self.text[self.at - 1..].chars().next().unwrap_or('\u{fffd}');
                self.at += c.len_utf8() - 1;
                c
            }
        })
    }

    fn hex4(&mut self) -> Option<u32> {
        let Some(digits) = self.text.get(self.at..self.at + 4) else {
            self.at = self.bytes.len();
            return Some(0xFFFD);
        };
        let value = u32::from_str_radix(digits, 16).ok();
        self.at += 4;
        value.or(Some(0xFFFD))
    }

    /// An array: byte numbers are decoded as text, else its first string.
    fn array(&mut self) -> Option<String> {
        self.at += 1;
        let mut bytes = Vec::new();
        let mut first: Option<String> = None;
        loop {
            self.skip_space();
            match self.peek()? {
                b']' => {
                    self.at += 1;
                    break;
                }
                b'"' => {
                    self.at += 1;
                    let (text, closed) = self.string();
                    first.get_or_insert(text);
                    if !closed {
                        break;
                    }
                }
                _ => {
                    let token = self.bare()?;
                    if let Ok(byte) = token.parse::<u64>() {
                        bytes.push(byte.min(255) as u8);
                    }
                }
            }
            self.skip_space();
            if !self.eat(b',') {
                self.eat(b']');
                break;
            }
        }
        first.or_else(|| (!bytes.is_empty()).then(|| String::from_utf8_lossy(&bytes).into_owned()))
    }

    /// A number, `true`, `false` or `null` (`None` for null).
    fn bare(&mut self) -> Option<String> {
        let rest = &self.text[self.at..];
        let end = rest.find([',', '}', ']', ' ', '\t', '\n']).unwrap_or(rest.len());
        self.at += end;
        let token = &rest[..end];
        (token != "null" && !token.is_empty()).then(|| token.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn journal(line: &str) -> (JournalEntry, bool) {
        match read_json_line(line) {
            Some(JsonLine { record: JsonRecord::Journal(entry), damaged }) => (entry, damaged),
            other => panic!("not a journal entry: {other:?}"),
        }
    }

    #[test]
    fn journal_entries_in_every_json_mode() {
        for line in [
            r#"{"__CURSOR":"s=1","MESSAGE":"hello","_PID":"7"}"#,
            "\x1e{\"MESSAGE\":\"hello\",\"_PID\":\"7\"}",
            r#"data: {"MESSAGE":"hello","_PID":"7"}"#,
        ] {
            let (entry, damaged) = journal(line);
            assert_eq!(
                (entry.message.as_deref(), entry.fields.pid, damaged),
                (Some("hello"), Some(7), false)
            );
        }
    }

    #[test]
    fn application_json_and_plain_text_are_text() {
        assert_eq!(read_json_line(r#"{"level":"info","msg":"launcher starting"}"#), None);
        assert_eq!(read_json_line("[2026-05-25 20:17:58] server_args=ServerArgs()"), None);
        assert_eq!(read_json_line("data: x"), None);
        assert!(!may_be_json("dmesg"));
        assert!(may_be_json("{\"a\":1}"));
    }

    #[test]
    fn docker_json_file_records() {
        let line = r#"{"log":"RuntimeError: CUDA error: out of memory\n","stream":"stderr","time":"2026-05-25T20:27:22.1Z"}"#;
        let Some(JsonLine { record: JsonRecord::Docker { entry, partial }, damaged: false }) =
            read_json_line(line)
        else {
            panic!("not a docker record")
        };
        assert_eq!(entry.message.as_deref(), Some("RuntimeError: CUDA error: out of memory"));
        assert_eq!(entry.fields.time.as_deref(), Some("2026-05-25T20:27:22.1Z"));
        assert!(!partial);
        let split = r#"{"log":"first half","stream":"stdout","time":"t"}"#;
        assert!(matches!(read_json_line(split).unwrap().record, JsonRecord::Docker { partial: true, .. }));
    }

    #[test]
    fn a_record_cut_before_its_end_keeps_what_it_has() {
        let (entry, damaged) =
            journal(r#"{"__CURSOR":"s=1","_PID":"42","MESSAGE":"RuntimeError: CUDA error: an illegal mem"#);
        assert!(damaged);
        assert_eq!(entry.message.as_deref(), Some("RuntimeError: CUDA error: an illegal mem"));
        assert_eq!(entry.fields.pid, Some(42));
        let (entry, _) = journal(r#"{"MESSAGE":[72,105,33],"_PID":"#);
        assert_eq!(entry.message.as_deref(), Some("Hi!"));
    }

    #[test]
    fn lone_surrogates_and_odd_escapes_do_not_lose_the_record() {
        let (entry, damaged) =
            journal(r#"{"MESSAGE":"bad \ud800 then \ud83d\ude00 and \u00e9 \"q\" \/ caf\é","_PID":"1"}"#);
        assert!(damaged);
        assert_eq!(entry.message.as_deref(), Some("bad \u{fffd} then 😀 and é \"q\" / café"));
        assert_eq!(entry.fields.pid, Some(1));
        let (entry, _) = journal(r#"{"MESSAGE":"end \u12"#);
        assert_eq!(entry.message.as_deref(), Some("end \u{fffd}"));
    }
}
