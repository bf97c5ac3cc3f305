//! Python logging's formats as servers and libraries set them up: loguru's,
//! the cookbook's dashed one, InvokeAI's, DeepSpeed's, gunicorn's and
//! rich's console handler.

use crate::framing::scan::{Fraction, Scan};
use crate::framing::{Format, Level, Record};

/// loguru's default format: `{time} | {level: <8} | {name}:{function}:{line} - `
/// (`SUCCESS` is its level between INFO and WARNING), and Python logging's
/// `{time} | {level} | {name} | `.
pub(super) fn loguru<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    let mut s = Scan::at(line, pos);
    // A wrapper may have read the stamp as its own (a collector's
    // `2024-03-22 02:41:50 `): the columns then open the rest.
    let time = if s.lit("| ") && line[..pos].trim_end().ends_with(|c: char| c.is_ascii_digit()) {
        None
    } else {
        s = Scan::at(line, pos);
        if !(s.date() && s.byte(b' ') && s.clock(Fraction::Optional) && s.lit(" | ")) {
            return None;
        }
        Some(&line[pos..s.pos - 3])
    };
    let level_at = s.pos;
    let word = s.take_while(|b| b.is_ascii_uppercase());
    let level = match &line[level_at..level_at + word] {
        "SUCCESS" => Level::Info,
        other => Level::parse(other)?,
    };
    s.spaces();
    if !s.lit("| ") {
        return None;
    }
    let origin_at = s.pos;
    s.take_while(|b| b != b' ');
    let origin_end = s.pos;
    let format = if s.lit(" - ") && line[origin_at..origin_end].ends_with(|c: char| c.is_ascii_digit()) {
        Format::Loguru
    } else if origin_end > origin_at && s.lit(" | ") {
        // The same columns written by Python's logging: `%(asctime)s |
        // %(levelname)s | %(name)s | %(message)s` (FastChat's build_logger,
        // which also logs its process's stderr as `| ERROR | stderr | `).
        Format::PythonLogging
    } else {
        return None;
    };
    record.origin = Some(&line[origin_at..origin_end]);
    record.level = Some(level);
    if let Some(time) = time {
        record.time.get_or_insert(time);
    }
    record.formats.insert(format);
    Some(s.pos)
}

/// Python logging's cookbook format: `2025-08-12 19:40:24,526 - app -
/// ERROR - ` (`%(asctime)s - %(name)s - %(levelname)s - `), or without
/// the logger's name; the stamp may be ISO 8601's, with a `T` and a zone
/// (`2025-10-27T10:23:08+08:00`, `2025-10-27 10:23:04.709724+08:00`).
pub(super) fn python_dashed<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    let mut s = Scan::at(line, pos);
    if !(s.date() && (s.byte(b' ') || s.byte(b'T')) && s.clock(Fraction::Never)) {
        return None;
    }
    if s.byte(b',') || s.byte(b'.') {
        s.digits(1, 9)?;
    }
    if !s.byte(b'Z') && (s.byte(b'+') || s.byte(b'-')) {
        s.digits(2, 2)?;
        s.byte(b':');
        s.digits(2, 2)?;
    }
    let stamp_end = s.pos;
    if !s.lit(" - ") {
        return None;
    }
    let level_after = |s: &mut Scan<'a>| {
        let at = s.pos;
        let word = s.take_while(|b| b.is_ascii_uppercase());
        let level = Level::parse(&line[at..at + word]).filter(|_| word >= 4)?;
        s.lit(" - ").then_some(level)
    };
    let save = s;
    let level = match level_after(&mut s) {
        Some(level) => level,
        None => {
            s = save;
            let name = s.take_while(|b| b != b' ');
            if name == 0 || !s.lit(" - ") {
                return None;
            }
            level_after(&mut s)?
        }
    };
    record.level = Some(level);
    record.time.get_or_insert(&line[pos..stamp_end]);
    record.formats.insert(Format::PythonLogging);
    Some(s.pos)
}

/// InvokeAI's logging format: `[2025-06-16 11:36:11,273]::[InvokeAI]::ERROR
/// --> ` (a time stamp and a logger name in brackets, the level, an arrow).
pub(super) fn python_bracketed<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    let mut s = Scan::at(line, pos);
    if !(s.byte(b'[') && s.date() && s.byte(b' ') && s.clock(Fraction::Never)) {
        return None;
    }
    if s.byte(b',') || s.byte(b'.') {
        s.digits(1, 9)?;
    }
    let stamp_end = s.pos;
    if !s.lit("]::[") || s.take_while(|b| b != b']') == 0 || !s.lit("]::") {
        return None;
    }
    let at = s.pos;
    let word = s.take_while(|b| b.is_ascii_uppercase());
    let level = Level::parse(&line[at..at + word])?;
    if !s.lit(" --> ") {
        return None;
    }
    record.level = Some(level);
    record.time.get_or_insert(&line[pos + 1..stamp_end]);
    record.formats.insert(Format::PythonLogging);
    Some(s.pos)
}

/// DeepSpeed's logger (`deepspeed/utils/logging.py`): `[%(asctime)s]
/// [%(levelname)s] [%(filename)s:%(lineno)d:%(funcName)s] `, as in
/// `[2023-04-07 13:09:33,220] [ERROR] [launch.py:324:sigkill_handler] `.
pub(super) fn deepspeed<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    let mut s = Scan::at(line, pos);
    if !(s.byte(b'[') && s.date() && s.byte(b' ') && s.clock(Fraction::Never)) {
        return None;
    }
    if s.byte(b',') || s.byte(b'.') {
        s.digits(1, 9)?;
    }
    let stamp_end = s.pos;
    if !s.lit("] [") {
        return None;
    }
    let at = s.pos;
    let word = s.take_while(|b| b.is_ascii_uppercase());
    let level = Level::parse(&line[at..at + word]).filter(|_| word >= 4)?;
    if !s.lit("] [") {
        return None;
    }
    let origin_at = s.pos;
    let file = s.take_while(|b| !matches!(b, b' ' | b':' | b']'));
    if file == 0 || !s.byte(b':') || s.digits(1, 6).is_none() || !s.byte(b':') {
        return None;
    }
    if s.take_while(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'<' || b == b'>') == 0
        || !s.byte(b']')
    {
        return None;
    }
    let origin = &line[origin_at..s.pos - 1];
    s.byte(b' ');
    record.level = Some(level);
    record.time.get_or_insert(&line[pos + 1..stamp_end]);
    record.origin = Some(origin);
    record.formats.insert(Format::Deepspeed);
    Some(s.pos)
}

/// gunicorn's log format (`[%(asctime)s] [%(process)d] [%(levelname)s]
/// `, its stamp `%Y-%m-%d %H:%M:%S %z`): `[2025-12-06 10:47:28 +0000] [9]
/// [ERROR] `.
pub(super) fn gunicorn<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    let mut s = Scan::at(line, pos);
    if !(s.byte(b'[') && s.date() && s.byte(b' ') && s.clock(Fraction::Never) && s.byte(b' ')) {
        return None;
    }
    if !(s.byte(b'+') || s.byte(b'-')) {
        return None;
    }
    s.digits(4, 4)?;
    let stamp_end = s.pos;
    if !s.lit("] [") {
        return None;
    }
    // The pid is not taken for the writer's: the arbiter reports its
    // workers' deaths and starts new ones, and a worker killed is the
    // server's failure, though the arbiter goes on.
    s.digits(1, 10)?;
    if !s.lit("] [") {
        return None;
    }
    let at = s.pos;
    let word = s.take_while(|b| b.is_ascii_uppercase());
    let level = Level::parse(&line[at..at + word])?;
    if !s.lit("] ") {
        return None;
    }
    record.level = Some(level);
    record.time.get_or_insert(&line[pos + 1..stamp_end]);
    record.formats.insert(Format::PythonLogging);
    Some(s.pos)
}

/// rich's console handler (`RichHandler`): the time in brackets as the
/// locale writes it (`[12/06/25 10:47:23]`, `[10:47:23]`), then the level
/// padded to eight: `[12/06/25 10:47:23] ERROR    `.
pub(super) fn rich_console<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    let mut s = Scan::at(line, pos);
    if !s.byte(b'[') {
        return None;
    }
    // The date is the locale's, and may be left out.
    let save = s;
    let dated = s.digits(2, 2).is_some()
        && s.byte(b'/')
        && s.digits(2, 2).is_some()
        && s.byte(b'/')
        && s.digits(2, 4).is_some()
        && s.byte(b' ');
    if !dated {
        s = save;
    }
    if !(s.clock(Fraction::Never) && s.lit("] ")) {
        return None;
    }
    let stamp_end = s.pos - 2;
    let at = s.pos;
    let word = s.take_while(|b| b.is_ascii_uppercase());
    let level = Level::parse(&line[at..at + word]).filter(|_| word >= 4)?;
    // Padded to eight, then a space: `ERROR    `, `CRITICAL `.
    let padding = s.spaces();
    if padding == 0 || word + padding < 9 {
        return None;
    }
    record.level = Some(level);
    record.time.get_or_insert(&line[pos + 1..stamp_end]);
    record.formats.insert(Format::PythonLogging);
    Some(s.pos)
}
