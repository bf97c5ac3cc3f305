//! Structured journal input, all of it: `journalctl -o json` (and
//! `json-seq`, `json-sse`, read a line at a time by [`json_line`]),
//! `-o json-pretty`, `-o verbose` and `-o export` ([`layout`], [`export`]),
//! turned into entries: a message and the fields that frame it
//! ([`json_line`] reads Docker's json-file and Loki's records into entries
//! too). The pipeline only drives these readers and hands their entries
//! on.
//!
//! Every value is a string in journald's JSON, except that a value holding
//! control characters or invalid UTF-8 is an array of byte numbers, a
//! repeated field is an array of values, and a value of 4 KiB or more is
//! `null`. The evidence a report shows for such input is the MESSAGE.

pub mod export;
pub mod json_line;
pub mod layout;

use serde_json::Value;

use super::Level;

/// True if a stream starts like export output (read by [`export`];
/// [`layout`] tells it from the other shapes by it).
pub fn looks_like_export(head: &[u8]) -> bool {
    head.starts_with(b"__CURSOR=") || head.starts_with(b"__REALTIME_TIMESTAMP=")
}

crate::framing::writer_fields! {
    /// The fields of a journal entry that frame its message. The writer
    /// fields are read from the entry's (see `fields_from`): `time` from
    /// `__REALTIME_TIMESTAMP` (µs since the epoch) as text, or the time as
    /// printed by a text mode; `host` from `_HOSTNAME`; `identifier` from
    /// `SYSLOG_IDENTIFIER`, else `_COMM`; `pid` from `_PID`, else
    /// `SYSLOG_PID`; `unit` is the unit the entry is about (`UNIT`,
    /// `USER_UNIT`) or comes from (`_SYSTEMD_UNIT`, `_SYSTEMD_USER_UNIT`,
    /// except PID 1's `init.scope`).
    #[derive(Debug, Clone, Default, PartialEq, Eq)]
    pub struct JournalFields {
        /// From `PRIORITY`, when it says trouble (warning or worse): journald
        /// gives every line a service writes `info` unless told otherwise, and
        /// the short modes, which print no priority, must judge alike.
        pub level: Option<Level>,
        /// `_BOOT_ID`: a new one is a reboot.
        pub boot_id: Option<String>,
    }
    writer fields [time, host, identifier, pid, unit]: text as pub Option<String>, pid as pub Option<u32>
}

/// One journal entry: its message and fields.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JournalEntry {
    /// MESSAGE, decoded (lossy UTF-8). `None` when the entry has none or
    /// journald left it out (`null`: 4 KiB or more).
    pub message: Option<String>,
    /// The framing fields.
    pub fields: JournalFields,
}

impl JournalEntry {
    /// Builds an entry from `(name, value bytes)` pairs, as the export
    /// format gives them.
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> Self {
        let mut get = std::collections::HashMap::new();
        for (name, value) in pairs {
            get.entry(name).or_insert_with(|| String::from_utf8_lossy(value).into_owned());
        }
        JournalEntry::from_lookup(|name| get.get(name).cloned())
    }

    /// Builds an entry from a lookup of its fields' text by name.
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Self {
        JournalEntry { message: get("MESSAGE"), fields: fields_from(get) }
    }
}

fn fields_from(get: impl Fn(&str) -> Option<String>) -> JournalFields {
    let pid = get("_PID").or_else(|| get("SYSLOG_PID")).and_then(|p| p.trim().parse().ok());
    let own_unit = get("_SYSTEMD_UNIT").or_else(|| get("_SYSTEMD_USER_UNIT")).filter(|u| u != "init.scope");
    JournalFields {
        time: get("__REALTIME_TIMESTAMP"),
        host: get("_HOSTNAME"),
        identifier: get("SYSLOG_IDENTIFIER").or_else(|| get("_COMM")),
        pid,
        unit: get("UNIT").or_else(|| get("USER_UNIT")).or(own_unit),
        level: get("PRIORITY").and_then(|p| priority_level(p.trim())).filter(|l| l.is_trouble()),
        boot_id: get("_BOOT_ID"),
    }
}

/// syslog priorities: 0–2 critical, 3 error, 4 warning, 5 notice, 6 info,
/// 7 debug.
fn priority_level(priority: &str) -> Option<Level> {
    Some(match priority {
        "0" | "1" | "2" => Level::Critical,
        "3" => Level::Error,
        "4" => Level::Warning,
        "5" => Level::Notice,
        "6" => Level::Info,
        "7" => Level::Debug,
        _ => return None,
    })
}

/// A field's text: a string, an array of byte numbers (non-printable
/// values), or the first of repeated values.
pub(super) fn value_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Array(items) if !items.is_empty() && items.iter().all(Value::is_u64) => {
            let bytes: Vec<u8> = items.iter().filter_map(Value::as_u64).map(|b| b.min(255) as u8).collect();
            Some(String::from_utf8_lossy(&bytes).into_owned())
        }
        Value::Array(items) => items.first().and_then(value_text),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::json_line::{read_json_line, JsonRecord};
    use super::*;

    /// A `journalctl -o json` line read as the pipeline reads it.
    fn parse_json_entry(line: &str) -> Option<JournalEntry> {
        match read_json_line(line)?.record {
            JsonRecord::Journal(entry) => Some(entry),
            JsonRecord::Docker { .. } | JsonRecord::Loki(_) => None,
        }
    }

    #[test]
    fn string_fields_and_priorities() {
        let e = parse_json_entry(r#"{"__REALTIME_TIMESTAMP":"1748204842123456","_HOSTNAME":"gpu01","SYSLOG_IDENTIFIER":"python3","_PID":"4242","_SYSTEMD_UNIT":"sglang.service","PRIORITY":"6","MESSAGE":"[2026-05-25 20:27:22 TP2] Scheduler hit an exception: Traceback (most recent call last):","_BOOT_ID":"abc"}"#).unwrap();
        assert_eq!(
            e.message.as_deref(),
            Some("[2026-05-25 20:27:22 TP2] Scheduler hit an exception: Traceback (most recent call last):")
        );
        assert_eq!(e.fields.identifier.as_deref(), Some("python3"));
        assert_eq!(e.fields.pid, Some(4242));
        assert_eq!(e.fields.unit.as_deref(), Some("sglang.service"));
        assert_eq!(e.fields.level, None, "info is every line's priority: it says nothing");
        assert_eq!(e.fields.boot_id.as_deref(), Some("abc"));
        let e = parse_json_entry(r#"{"PRIORITY":"3","MESSAGE":"x"}"#).unwrap();
        assert_eq!(e.fields.level, Some(Level::Error));
    }

    #[test]
    fn byte_array_messages_null_and_repeated_fields() {
        let e = parse_json_entry(
            r#"{"MESSAGE":[27,91,51,50,109,73,78,70,79,27,91,48,109,32,104,105],"_PID":["1","2"]}"#,
        )
        .unwrap();
        assert_eq!(e.message.as_deref(), Some("\u{1b}[32mINFO\u{1b}[0m hi"));
        assert_eq!(e.fields.pid, Some(1));
        let null = parse_json_entry(r#"{"MESSAGE":null,"SYSLOG_IDENTIFIER":"x"}"#).unwrap();
        assert_eq!(null.message, None);
        assert!(parse_json_entry("not json").is_none());
    }

    #[test]
    fn pid1_messages_are_about_their_unit() {
        let e = parse_json_entry(r#"{"SYSLOG_IDENTIFIER":"systemd","_PID":"1","_SYSTEMD_UNIT":"init.scope","UNIT":"sglang.service","MESSAGE":"sglang.service: Failed with result 'signal'."}"#).unwrap();
        assert_eq!(e.fields.unit.as_deref(), Some("sglang.service"));
    }
}
