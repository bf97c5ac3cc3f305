//! Transport prefixes: the journalctl short family, syslog files, dmesg
//! stamps, and a journal viewer's tab-separated export.
//!
//! Grammar (journalctl's short modes, syslog and dmesg):
//! `{stamp}[ {host}] {identifier}[[{pid}]]: {message}`, where the stamp is
//! one of `short` (`May 25 20:27:22`, locale month names, space-padded syslog
//! days), `short-precise`, `short-iso`, `short-iso-precise`, `short-full`,
//! `short-monotonic` (`[ 1234.567890]`) and `short-unix`. A dmesg stamp has
//! the monotonic shape but no identifier after it.

use super::scan::{Fraction, Scan};
use super::{Format, Record, Separator};

const WEEKDAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

/// Header fields of a catalog entry as old `journalctl -x` printed them.
const CATALOG_FIELDS: [&str; 4] = ["-- Subject: ", "-- Defined-By: ", "-- Support: ", "-- Documentation: "];

/// Recognises journalctl's `-- … --` separator and header lines, and the
/// catalog lines `journalctl -x` adds (`░░ …`; `-- …` before v246).
pub(super) fn separator(line: &str) -> Option<Separator> {
    if line.starts_with("░░") {
        return Some(Separator::Catalog);
    }
    if CATALOG_FIELDS.iter().any(|f| line.starts_with(f)) {
        return Some(Separator::Catalog);
    }
    let separator = separator_line(line);
    if separator.is_none() && is_catalog_body(line) {
        return Some(Separator::Catalog);
    }
    separator
}

fn separator_line(line: &str) -> Option<Separator> {
    let inner = line.strip_prefix("-- ")?.strip_suffix(" --").or_else(|| {
        // `-- Logs begin at …, end at … --` is one line; tolerate a cut end.
        line.strip_prefix("-- ")
            .filter(|l| l.starts_with("Logs begin at") || l.starts_with("Journal begins at"))
    })?;
    if inner == "Reboot" || is_boot_id(inner) {
        Some(Separator::Boot)
    } else if inner.starts_with("Logs begin at")
        || inner.starts_with("Journal begins at")
        || inner == "No entries"
        || inner.starts_with("cursor:")
    {
        Some(Separator::Other)
    } else {
        None
    }
}

/// The body of an old-style catalog entry: `-- ` and text, not closed by
/// ` --` as separators are.
fn is_catalog_body(line: &str) -> bool {
    line.starts_with("-- ") && !line.ends_with(" --")
}

fn is_boot_id(inner: &str) -> bool {
    inner.strip_prefix("Boot ").is_some_and(|id| id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Parses a transport prefix at `pos`; returns the position after it (or
/// `pos` when there is none).
pub(super) fn parse<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> usize {
    let first = match line.as_bytes().get(pos) {
        Some(&b) => b,
        None => return pos,
    };
    if first == b'[' {
        return bracketed(line, pos, record);
    }
    if first.is_ascii_digit() {
        if let Some(end) = iso_stamp(line, pos, record) {
            return end;
        }
        if let Some(end) = unix_stamp(line, pos, record) {
            return end;
        }
        if let Some(end) = viewer_tsv(line, pos, record) {
            return end;
        }
    }
    if let Some(end) = full_stamp(line, pos, record) {
        return end;
    }
    if let Some(end) = month_stamp(line, pos, record) {
        return end;
    }
    pos
}

/// `short`/`short-precise` and syslog: `{month} {day} HH:MM:SS[.ffffff] `.
/// The month is whatever the locale printed (`May`, `aug`, `2月`).
fn month_stamp<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    let mut s = Scan::at(line, pos);
    let month_len = s.take_while(|b| b != b' ');
    if !(2..=12).contains(&month_len) {
        return None;
    }
    let month = &line[pos..pos + month_len];
    if !month.chars().any(|c| c.is_alphabetic()) {
        return None;
    }
    let padded = s.spaces() == 2;
    s.digits(1, 2)?;
    if !s.byte(b' ') {
        return None;
    }
    if !s.clock(Fraction::Never) {
        return None;
    }
    let precise = s.byte(b'.') && s.digits(6, 6).is_some();
    let stamp_end = s.pos;
    if !s.byte(b' ') {
        return None;
    }
    let end = identity(line, s.pos, record)?;
    record.time = Some(&line[pos..stamp_end]);
    record.formats.insert(if padded {
        Format::Syslog
    } else if precise {
        Format::JournalShortPrecise
    } else {
        Format::JournalShort
    });
    Some(end)
}

/// `short-iso`/`short-iso-precise` (`2025-05-25T20:27:22[.ffffff]+00:00`),
/// RFC 3339 syslog, and dmesg's `--time-format iso` (comma before the
/// fraction, no identifier). A `Z` zone is a container stamp, handled by
/// the wrapper layer.
fn iso_stamp<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    let mut s = Scan::at(line, pos);
    if !(s.date() && s.byte(b'T') && s.clock(Fraction::Never)) {
        return None;
    }
    let mut precise = false;
    let mut comma = false;
    if s.byte(b'.') {
        s.digits(1, 9)?;
        precise = true;
    } else if s.byte(b',') {
        s.digits(1, 9)?;
        comma = true;
    }
    if !(s.byte(b'+') || s.byte(b'-')) {
        return None;
    }
    s.digits(2, 2)?;
    s.byte(b':');
    s.digits(2, 2)?;
    let stamp_end = s.pos;
    if !s.byte(b' ') {
        return None;
    }
    record.time = Some(&line[pos..stamp_end]);
    if comma {
        record.formats.insert(Format::Dmesg);
        return Some(s.pos);
    }
    let end = identity(line, s.pos, record)?;
    record.formats.insert(if precise { Format::JournalShortIsoPrecise } else { Format::JournalShortIso });
    Some(end)
}

/// `short-unix`: `1748204842.123456 host ident[pid]: `.
fn unix_stamp<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    let mut s = Scan::at(line, pos);
    s.digits(9, 11)?;
    if !(s.byte(b'.') && s.digits(6, 6).is_some()) {
        return None;
    }
    let stamp_end = s.pos;
    if !s.byte(b' ') {
        return None;
    }
    let end = identity(line, s.pos, record)?;
    record.time = Some(&line[pos..stamp_end]);
    record.formats.insert(Format::JournalShortUnix);
    Some(end)
}

/// `short-full`: `Sun 2025-05-25 20:27:22[.ffffff] UTC host ident[pid]: `.
fn full_stamp<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    let rest = &line[pos..];
    if !WEEKDAYS.iter().any(|d| rest.starts_with(d)) {
        return None;
    }
    let mut s = Scan::at(line, pos + 3);
    if !(s.byte(b' ') && s.date() && s.byte(b' ') && s.clock(Fraction::Optional) && s.byte(b' ')) {
        return None;
    }
    let zone = s.take_while(|b| b != b' ');
    if zone == 0 || !s.byte(b' ') {
        return None;
    }
    let stamp_end = s.pos - 1;
    let end = identity(line, s.pos, record)?;
    record.time = Some(&line[pos..stamp_end]);
    record.formats.insert(Format::JournalShortFull);
    Some(end)
}

/// A journal viewer's tab-separated export: `24/09/2025 22:45<TAB>ident<TAB>`.
fn viewer_tsv<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    let mut s = Scan::at(line, pos);
    let ok = s.digits(2, 2).is_some()
        && s.byte(b'/')
        && s.digits(2, 2).is_some()
        && s.byte(b'/')
        && s.digits(4, 4).is_some()
        && s.byte(b' ')
        && s.digits(2, 2).is_some()
        && s.byte(b':')
        && s.digits(2, 2).is_some();
    if !ok {
        return None;
    }
    s.byte(b':').then(|| s.digits(2, 2));
    let stamp_end = s.pos;
    if !s.byte(b'\t') {
        return None;
    }
    let ident_at = s.pos;
    let len = s.take_while(|b| b != b'\t');
    if len == 0 || !s.byte(b'\t') {
        return None;
    }
    record.time = Some(&line[pos..stamp_end]);
    record.identifier = Some(&line[ident_at..ident_at + len]);
    record.formats.insert(Format::JournalExportTsv);
    Some(s.pos)
}

/// Bracketed stamps: journal `short-monotonic` and `short-delta`
/// (`[ 1234.567890] host ident: `), dmesg (`[  518.050606] msg`) and
/// `dmesg -T` (`[Sun Mar 30 08:24:00 2025] msg`).
fn bracketed<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> usize {
    let mut s = Scan::at(line, pos + 1);
    s.spaces();
    if s.digits(1, 12).is_some() && s.byte(b'.') && s.digits(6, 6).is_some() {
        // short-delta adds ` <    0.000123 >` (or 16 spaces) before `]`.
        let before_delta = s.pos;
        s.spaces();
        if s.byte(b'<') {
            s.take_while(|b| b != b'>' && b != b']');
            s.byte(b'>');
        } else {
            s.pos = before_delta;
            s.spaces();
        }
        if !s.byte(b']') {
            return pos;
        }
        let stamp_end = s.pos;
        if !s.byte(b' ') {
            return pos;
        }
        let body = s.pos;
        record.time = Some(&line[pos..stamp_end]);
        if let Some(end) = monotonic_identity(line, body, record) {
            // No host: a process writing to the kernel console, in dmesg.
            let format = if record.host.is_some() { Format::JournalShortMonotonic } else { Format::Dmesg };
            record.formats.insert(format);
            return end;
        }
        record.formats.insert(Format::Dmesg);
        return body;
    }
    let mut s = Scan::at(line, pos + 1);
    let rest = &line[pos + 1..];
    if WEEKDAYS.iter().any(|d| rest.starts_with(d)) {
        s.pos += 3;
        let ok = s.byte(b' ')
            && s.take_while(|b| b.is_ascii_alphabetic()) == 3
            && s.byte(b' ')
            && {
                s.spaces();
                s.digits(1, 2).is_some()
            }
            && s.byte(b' ')
            && s.clock(Fraction::Never)
            && s.byte(b' ')
            && s.digits(4, 4).is_some()
            && s.byte(b']');
        if ok {
            let stamp_end = s.pos;
            s.byte(b' ');
            record.time = Some(&line[pos..stamp_end]);
            record.formats.insert(Format::DmesgCtime);
            return s.pos;
        }
    }
    pos
}

/// `host ident[pid]: ` after a monotonic stamp. dmesg lines have the same
/// stamp and often start with `subsystem: ` words (`rcu: INFO: …`,
/// `Internal error: Oops: …`), so here the identifier must carry a pid or
/// be `kernel`, as journal lines do.
fn monotonic_identity<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    let mut probe = Record::default();
    let with_host = identity_with_host(line, pos, &mut probe)
        .filter(|_| probe.pid.is_some() || probe.identifier == Some("kernel"));
    let end = match with_host {
        Some(end) => end,
        None => {
            // systemd writes to the kernel console without a host
            // (`[  716.3] systemd[1]: …`). The kernel's own `comm[pid]:`
            // lines (`python3[42]: segfault at …`) keep their prefix.
            probe = Record::default();
            let end = identity(line, pos, &mut probe)?;
            let systemd = probe.identifier.is_some_and(|i| i.starts_with("systemd"));
            if probe.host.is_some() || probe.pid.is_none() || !systemd {
                return None;
            }
            end
        }
    };
    record.host = probe.host;
    record.identifier = probe.identifier;
    record.pid = probe.pid;
    Some(end)
}

/// `host ident[pid]: ` or `ident[pid]: ` (no host) after a stamp.
fn identity<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    let first_end = token_end(line, pos);
    let first = &line[pos..first_end];
    if let Some(ident) = first.strip_suffix(':') {
        return finish_identity(line, None, ident, first_end, record);
    }
    after_host(line, pos, first_end, record)
}

/// `host ident[pid]: ` only (the host is required).
fn identity_with_host<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    after_host(line, pos, token_end(line, pos), record)
}

/// `ident[pid]: ` after the host that ends at `host_end`.
fn after_host<'a>(line: &'a str, pos: usize, host_end: usize, record: &mut Record<'a>) -> Option<usize> {
    if host_end == pos || line.as_bytes().get(host_end) != Some(&b' ') {
        return None;
    }
    let host = &line[pos..host_end];
    let ident_at = host_end + 1;
    let ident_end = token_end(line, ident_at);
    let ident = line[ident_at..ident_end].strip_suffix(':')?;
    finish_identity(line, Some(host), ident, ident_end, record)
}

fn finish_identity<'a>(
    line: &'a str,
    host: Option<&'a str>,
    ident: &'a str,
    after_colon: usize,
    record: &mut Record<'a>,
) -> Option<usize> {
    let bracketed =
        ident.strip_suffix(']').and_then(|s| Some((s, s.as_bytes().iter().rposition(|&b| b == b'[')?)));
    let (name, pid) = match bracketed {
        Some((s, open)) => (&s[..open], Some(s[open + 1..].parse::<u32>().ok()?)),
        None => (ident, None),
    };
    let first = name.chars().next()?;
    if !(first.is_alphabetic() || first == '_' || first == '(' || first == '/') {
        return None;
    }
    let end = match line.as_bytes().get(after_colon) {
        None => after_colon,
        Some(b' ') => after_colon + 1,
        Some(_) => return None,
    };
    record.host = host;
    // `-o with-unit` prints the writer's unit in place of its name; PID 1's
    // unit is `init.scope`, and PID 1 is systemd.
    record.identifier = Some(if name == "init.scope" { "systemd" } else { name });
    record.pid = pid;
    Some(end)
}

fn token_end(line: &str, pos: usize) -> usize {
    line.as_bytes()[pos..].iter().position(|&b| b == b' ').map_or(line.len(), |i| pos + i)
}
