//! The headers of native loggers: torch's c10, glog and klog, Ray's core
//! (`logging.cc`), Rust's `tracing` and llama.cpp's.

use crate::framing::scan::{Fraction, Scan};
use crate::framing::{Format, Level, Record};

pub(super) fn c10<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    let mut s = Scan::at(line, pos);
    if !s.byte(b'[') {
        return None;
    }
    let level = severity_letter(&mut s)?;
    let stamp_at = s.pos;
    // `MMDD` (month unpadded: `E210` is February 10th) and a clock.
    if s.digits(3, 4).is_some() && !(s.byte(b' ') && s.clock(Fraction::Optional)) {
        return None;
    }
    let stamp_end = s.pos;
    if !s.byte(b' ') {
        return None;
    }
    s.spaces();
    let origin = source_place(line, &mut s)?;
    s.byte(b' ');
    record.level = Some(level);
    if stamp_end > stamp_at {
        record.time.get_or_insert(&line[stamp_at..stamp_end]);
    }
    record.origin = Some(origin);
    record.formats.insert(Format::TorchC10);
    Some(s.pos)
}

/// glog's prefix, `Lmmdd hh:mm:ss.uuuuuu threadid file:line] `: the
/// level letter, the date with no year, the clock, the thread id and the
/// source place. Unlike c10's, it has no opening bracket, so every part is
/// required before a line is read as one.
pub(super) fn glog<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    let mut s = Scan::at(line, pos);
    let level = severity_letter(&mut s)?;
    let stamp_at = s.pos;
    if s.digits(4, 4).is_none() || !s.byte(b' ') || !s.clock(Fraction::Optional) {
        return None;
    }
    let stamp_end = s.pos;
    if !s.byte(b' ') {
        return None;
    }
    s.spaces();
    s.digits(1, 10)?;
    if !s.byte(b' ') {
        return None;
    }
    let origin = source_place(line, &mut s)?;
    s.byte(b' ');
    record.level = Some(level);
    record.time.get_or_insert(&line[stamp_at..stamp_end]);
    record.origin = Some(origin);
    record.formats.insert(Format::Glog);
    Some(s.pos)
}

/// The severity letter glog and c10 start with: `E`, `W`, `I`, `F`.
fn severity_letter(s: &mut Scan<'_>) -> Option<Level> {
    let level = match s.peek()? {
        b'E' => Level::Error,
        b'W' => Level::Warning,
        b'I' => Level::Info,
        b'F' => Level::Fatal,
        _ => return None,
    };
    s.pos += 1;
    Some(level)
}

/// The `file:line]` glog and c10 end with: the origin, without the bracket.
fn source_place<'a>(line: &'a str, s: &mut Scan<'_>) -> Option<&'a str> {
    let origin_at = s.pos;
    let name = s.take_while(|b| !matches!(b, b' ' | b':' | b']'));
    if name == 0 || !s.byte(b':') || s.digits(1, 6).is_none() || !s.byte(b']') {
        return None;
    }
    Some(&line[origin_at..s.pos - 1])
}

pub(super) fn ray_core<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    let mut s = Scan::at(line, pos);
    if !(s.byte(b'[') && s.date() && s.byte(b' ') && s.clock(Fraction::Never)) {
        return None;
    }
    if !(s.byte(b',') && s.digits(3, 3).is_some() && s.byte(b' ')) {
        return None;
    }
    let level_at = s.pos;
    s.take_while(|b| b.is_ascii_uppercase());
    // Ray prints its FATAL level (which aborts the process) as `C`.
    let level = match &line[level_at..s.pos] {
        "C" => Level::Fatal,
        word => Level::parse(word)?,
    };
    if !(s.byte(b' ')
        && s.digits(1, 10).is_some()
        && s.byte(b' ')
        && s.digits(1, 10).is_some()
        && s.byte(b']'))
    {
        return None;
    }
    s.byte(b' ');
    let origin_at = s.pos;
    let name = s.take_while(|b| !matches!(b, b' ' | b':'));
    if name > 0 && s.byte(b':') && s.digits(1, 6).is_some() && s.byte(b':') {
        record.origin = Some(&line[origin_at..s.pos - 1]);
        s.byte(b' ');
    } else {
        s.pos = origin_at;
    }
    record.level = Some(level);
    record.time.get_or_insert(&line[pos + 1..pos + 20]);
    record.formats.insert(Format::RayCore);
    Some(s.pos)
}

/// `tracing`'s default format after a stamp: ` INFO target::path: msg`.
pub(super) fn rust_tracing<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    if !record.formats.contains(Format::ContainerTimestamp) {
        return None;
    }
    let mut s = Scan::at(line, pos);
    s.spaces();
    let level_at = s.pos;
    s.take_while(|b| b.is_ascii_uppercase());
    let level = Level::parse(&line[level_at..s.pos])?;
    if !s.byte(b' ') {
        return None;
    }
    let target = s.take_while(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b':');
    if target == 0 || line.as_bytes().get(s.pos - 1) != Some(&b':') || !s.byte(b' ') {
        return None;
    }
    record.level = Some(level);
    record.formats.insert(Format::RustTracing);
    Some(s.pos)
}

/// llama.cpp's `common/log.cpp` with time stamps: `0.00.025.467 I msg`,
/// `24.15.113.123 E msg` (minutes.seconds.milliseconds.microseconds, level);
/// llama-box (GPUStack's llama.cpp server) stamps the same logger with the
/// date and time in brackets: `[2025-05-29 12:00:35.235796] E msg`.
pub(super) fn llama_cpp<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    let mut s = Scan::at(line, pos);
    let elapsed = |s: &mut Scan<'_>| {
        s.digits(1, 6).is_some()
            && s.byte(b'.')
            && s.digits(2, 2).is_some()
            && s.byte(b'.')
            && s.digits(3, 3).is_some()
            && s.byte(b'.')
            && s.digits(3, 3).is_some()
    };
    let dated = |s: &mut Scan<'_>| {
        s.byte(b'[') && s.date() && s.byte(b' ') && s.clock(Fraction::Optional) && s.byte(b']')
    };
    let stamp = if line.as_bytes().get(pos) == Some(&b'[') { dated(&mut s) } else { elapsed(&mut s) };
    if !stamp || !s.byte(b' ') {
        return None;
    }
    let level = match s.peek()? {
        b'D' => Level::Debug,
        b'I' => Level::Info,
        b'W' => Level::Warning,
        b'E' => Level::Error,
        _ => return None,
    };
    s.pos += 1;
    if !s.byte(b' ') {
        return None;
    }
    record.level = Some(level);
    let stamp = &line[pos..s.pos - 3];
    record.time.get_or_insert(stamp.trim_start_matches('[').trim_end_matches(']'));
    Some(s.pos)
}
