//! `systemctl status` pastes and bare systemd messages.
//!
//! `systemctl status NAME` prints a status block, then the unit's last
//! journal lines:
//!
//! ```text
//! × sglang.service - SGLang server
//!      Loaded: loaded (/etc/systemd/system/sglang.service; enabled; preset: enabled)
//!      Active: failed (Result: oom-kill) since Mon 2026-05-25 20:11:05 UTC; 2h ago
//!    Main PID: 70112 (code=killed, signal=KILL)
//!         CPU: 3h 12min 41.207s
//! ```
//!
//! The header names the unit (after a state glyph: `●` `×` `○` `↻`, or
//! their ASCII stand-ins, or none when a user copied without it). Key
//! lines are right-aligned on their colon (two columns less before v245);
//! the `CGroup:` tree follows. Users also paste systemd's messages with
//! the journal prefix stripped (`sglang.service: Main process exited, …`):
//! such a line is read as systemd's message about that unit.

use super::{Format, Record};

/// Keys of the status block.
const KEYS: [&str; 23] = [
    "Loaded",
    "Active",
    "Main PID",
    "Process",
    "Tasks",
    "Memory",
    "CPU",
    "CGroup",
    "Docs",
    "Drop-In",
    "TriggeredBy",
    "Triggers",
    "Status",
    "Error",
    "IP",
    "IO",
    "Duration",
    "Invocation",
    "Mem peak",
    "Cntrl PID",
    "Transient",
    "Listen",
    "Accepted",
];

/// Unit types whose names systemd prints.
const UNIT_SUFFIXES: [&str; 7] = [".service", ".scope", ".socket", ".mount", ".timer", ".slice", ".target"];

/// The state glyphs of the header (UTF-8, then the ASCII fallbacks).
const GLYPHS: [&str; 6] = ["● ", "× ", "○ ", "↻ ", "* ", "x "];

/// Frames a line with no transport prefix as a status-block line or a
/// bare systemd message; returns where its message starts.
pub(super) fn parse<'a>(line: &'a str, record: &mut Record<'a>) -> Option<usize> {
    let first = *line.as_bytes().first()?;
    if first == b' ' {
        return block_line(line, record);
    }
    let (glyph, rest) =
        GLYPHS.iter().find_map(|g| line.strip_prefix(g).map(|rest| (g.len(), rest))).unwrap_or((0, line));
    let unit = unit_at(rest)?;
    let after = &rest[unit.len()..];
    if after.starts_with(": ") && glyph == 0 {
        // `sglang.service: Main process exited, code=killed, status=9/KILL`
        record.identifier = Some("systemd");
        record.formats.insert(Format::SystemdMessage);
        return Some(0);
    }
    // The header: `● sglang.service - SGLang server`, or the name alone.
    if after.starts_with(" - ") || (glyph > 0 && after.trim_end().is_empty()) {
        record.unit = Some(unit);
        record.formats.insert(Format::SystemctlStatus);
        return Some(glyph);
    }
    None
}

/// `     Active: failed (Result: oom-kill) since …`, or a `CGroup:` tree
/// line (`             └─1104 /usr/bin/python3 …`).
fn block_line<'a>(line: &'a str, record: &mut Record<'a>) -> Option<usize> {
    let at = line.len() - line.trim_start_matches(' ').len();
    let rest = &line[at..];
    let tree = is_tree_branch(rest);
    let keyed = KEYS
        .iter()
        .any(|key| rest.strip_prefix(key).is_some_and(|after| after.starts_with(": ") || after == ":"));
    // The block's keys end near column 12; a deeper indent is a frame or
    // a message's continuation.
    let aligned = keyed && at + rest.find(':').unwrap_or(0) <= 12;
    if !(aligned || (tree && at >= 8)) {
        return None;
    }
    record.formats.insert(Format::SystemctlStatus);
    Some(at)
}

/// A branch of the `CGroup:` tree: `├─`, `└─`, under any number of the
/// `│` of branches above (`│ └─5678 …`). loguru's drawing under a
/// traceback's source line (`│    └ {'model': …}`) is not one.
fn is_tree_branch(text: &str) -> bool {
    let mut rest = text;
    loop {
        if rest.starts_with("├─") || rest.starts_with("└─") {
            return true;
        }
        match rest.strip_prefix('│') {
            Some(after) => rest = after.trim_start_matches(' '),
            None => return false,
        }
    }
}

/// The unit name that `text` starts with (`sglang.service`).
fn unit_at(text: &str) -> Option<&str> {
    let end = text.find([' ', ':']).unwrap_or(text.len());
    let name = &text[..end];
    let valid = name.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.@\\:".contains(&b));
    (valid && UNIT_SUFFIXES.iter().any(|s| name.len() > s.len() && name.ends_with(s))).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(line: &str) -> Option<(Record<'_>, &str)> {
        let mut record = Record::default();
        let at = parse(line, &mut record)?;
        Some((record, &line[at..]))
    }

    #[test]
    fn status_block_lines() {
        let (header, message) = framed("× sglang.service - SGLang server").unwrap();
        assert_eq!(header.unit, Some("sglang.service"));
        assert_eq!(message, "sglang.service - SGLang server");
        let (bare_header, _) = framed("sglang.service - SGLang server").unwrap();
        assert_eq!(bare_header.unit, Some("sglang.service"));
        assert_eq!(framed("● ksushy.service").unwrap().0.unit, Some("ksushy.service"));
        for line in [
            "     Active: failed (Result: oom-kill) since Mon 2026-05-25 20:11:05 UTC; 2h ago",
            "   Main PID: 70112 (code=killed, signal=KILL)",
            "    Process: 3742 ExecStart=/usr/bin/x start (code=exited, status=203/EXEC)",
            "   Active: failed (Result: exit-code) since Tue 2018-03-13 10:00:00 UTC; 5s ago",
            " Main PID: 745 (code=exited, status=1/FAILURE)",
            "             └─1104 /usr/bin/python3 -m sglang.launch_server",
            "             │ └─1187 /usr/bin/python3 -c from multiprocessing.spawn import spawn_main",
            " Invocation: e8fe30f2fef24f63829eff1819cd191c",
        ] {
            let (record, message) = framed(line).unwrap_or_else(|| panic!("{line}"));
            assert!(record.formats.contains(Format::SystemctlStatus), "{line}");
            assert_eq!(message, line.trim_start(), "{line}");
        }
    }

    #[test]
    fn bare_systemd_messages() {
        let (record, message) =
            framed("sglang.service: Main process exited, code=killed, status=9/KILL").unwrap();
        assert_eq!(record.identifier, Some("systemd"));
        assert_eq!(message, "sglang.service: Main process exited, code=killed, status=9/KILL");
    }

    #[test]
    fn other_lines_are_not_status_lines() {
        for line in [
            "  File \"/x.py\", line 3, in f",
            // loguru's drawing of the values under a traceback's source line.
            "                    │              └ {'model_size_or_path': 'base'}",
            "                Status: 200 OK",
            "Status: ok",
            "[2026-05-25 20:11:05] Decode batch. #running-req: 1",
            "INFO 05-25 20:11:05 [engine.py:1] x.service - y",
            "my.service",
            "RuntimeError: boom",
        ] {
            assert!(framed(line).is_none(), "{line}");
        }
    }
}
