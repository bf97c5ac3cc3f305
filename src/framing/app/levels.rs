//! A record's level where no header of the table gives it, or beside one:
//! the level prefixes that follow a header or stand alone (uvicorn's,
//! Python logging's default, a logger's name and padded level), and the
//! level a message opens with (a level word, a JSON line's level key).

use crate::framing::scan::Scan;
use crate::framing::{Format, Level, Record};

/// After a bracketed time stamp, a logger's name and level padded with
/// spaces, then a colon: Frigate's `[%(asctime)s] %(name)-30s
/// %(levelname)-8s: ` (`[2023-10-11 16:22:06] frigate.detectors.plugins.tensorrt
/// ERROR   : `).
pub(super) fn padded_name_level<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    let mut s = Scan::at(line, pos);
    if s.take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-')) == 0 || s.spaces() == 0
    {
        return None;
    }
    let at = s.pos;
    let word = s.take_while(|b| b.is_ascii_uppercase());
    let level = Level::parse(&line[at..at + word]).filter(|_| word >= 4)?;
    s.spaces();
    if !s.lit(": ") {
        return None;
    }
    record.level = Some(level);
    record.formats.insert(Format::PythonLogging);
    Some(s.pos)
}

/// uvicorn's padded level prefix: `INFO:     `, `ERROR:    `.
pub(super) fn uvicorn_level<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    let mut s = Scan::at(line, pos);
    let word = s.take_while(|b| b.is_ascii_uppercase());
    if word < 4 || !s.byte(b':') {
        return None;
    }
    let level = Level::parse(&line[pos..pos + word])?;
    if s.spaces() == 0 {
        return None;
    }
    record.level = Some(level);
    record.formats.insert(Format::Uvicorn);
    Some(s.pos)
}

/// Python logging's default format, `%(levelname)s:%(name)s:%(message)s`:
/// `INFO:torch.nn.parallel.distributed:Reducer buckets have been rebuilt`.
pub(super) fn python_logging<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    const LEVELS: [&str; 5] = ["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"];
    let mut s = Scan::at(line, pos);
    let word = s.take_while(|b| b.is_ascii_uppercase());
    let level_word = &line[pos..pos + word];
    if !LEVELS.contains(&level_word) || !s.byte(b':') {
        return None;
    }
    let name = s.take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
    if name == 0 || !s.byte(b':') {
        return None;
    }
    record.level = Level::parse(level_word);
    record.formats.insert(Format::PythonLogging);
    Some(s.pos)
}

/// The level of an application's own JSON log line (`{"function":
/// "load_model","level":"ERR",…,"msg":"unable to load model"}`, llama.cpp's
/// server; zap's and slog's `"level":"error"`): the line stays the message.
pub(super) fn json_level(message: &str) -> Option<Level> {
    if !message.starts_with('{') {
        return None;
    }
    ["\"level\":\"", "\"severity\":\"", "\"lvl\":\""].iter().find_map(|key| {
        let at = message.find(key)? + key.len();
        let word = &message[at..];
        Level::parse(&word[..word.find('"')?])
    })
}

/// The level of a message that opens with one in capitals and a space
/// (`ERROR xinference.core.worker pid:41 … Failed to load model`, a vLLM
/// record whose date was cut: `ERROR [hermes_tool_parser.py:110] …`):
/// the word stays in the message, as no header format is known.
pub(super) fn leading_level_word(message: &str) -> Option<Level> {
    const WORDS: [&str; 8] = ["DEBUG", "INFO", "NOTICE", "WARNING", "WARN", "ERROR", "CRITICAL", "FATAL"];
    // After a time of day, zerolog's console abbreviations too.
    const ABBREVIATIONS: [(&str, Level); 7] = [
        ("TRC", Level::Debug),
        ("DBG", Level::Debug),
        ("INF", Level::Info),
        ("WRN", Level::Warning),
        ("ERR", Level::Error),
        ("FTL", Level::Fatal),
        ("PNC", Level::Fatal),
    ];
    let after_clock = after_time_of_day(message);
    let text = after_clock.unwrap_or(message);
    let word = text.bytes().take_while(u8::is_ascii_uppercase).count();
    let rest = text.get(word..)?;
    let spaced = rest.starts_with([' ', '\t']) && !rest.trim_start().is_empty();
    let name = &text[..word];
    if spaced && WORDS.contains(&name) {
        return Level::parse(name);
    }
    let abbreviation = ABBREVIATIONS.iter().find(|(short, _)| *short == name);
    if let Some(&(_, level)) = abbreviation.filter(|_| spaced && after_clock.is_some()) {
        return Some(level);
    }
    // After a time stamp, a level word may follow the logger's name and
    // the process id (`2025-05-14 20:27:38,150 xinference.core.model 633
    // ERROR    …`): the next two words are looked at, whole words only.
    // Those words must look like a name or a number, not like prose.
    let name_like = |t: &str| t.bytes().all(|b| b.is_ascii_digit()) || t.contains(['.', '_', ':', '[', '(']);
    let mut tokens = text.split([' ', '\t']).filter(|t| !t.is_empty());
    let mut level = None;
    for token in tokens.by_ref().take(3) {
        if WORDS.contains(&token) {
            level = Level::parse(token);
            break;
        }
        if !name_like(token) {
            return None;
        }
    }
    let followed = tokens.next().is_some();
    level.filter(|_| followed && after_clock.is_some())
}

/// The text after a leading time of day (and a date before it) and its
/// spaces: `01:29:35-222345 ` (text-generation-webui), `2025-05-14
/// 20:27:38,150 `, `3:00PM ` (zerolog's console).
fn after_time_of_day(message: &str) -> Option<&str> {
    // A date before it: `2025-05-14 `, `2025/05/14 `.
    let dated = message.get(..11).is_some_and(|d| {
        let b = d.as_bytes();
        b[..4].iter().all(u8::is_ascii_digit) && matches!(b[4], b'-' | b'/') && b[10] == b' '
    });
    let message = if dated { &message[11..] } else { message };
    let token_end = message.find([' ', '\t'])?;
    let token = &message[..token_end];
    let digits = token.trim_end_matches(['A', 'P', 'M']);
    let shape = digits.bytes().all(|b| b.is_ascii_digit() || matches!(b, b':' | b'.' | b',' | b'-'));
    let clock = digits.contains(':') && digits.starts_with(|c: char| c.is_ascii_digit());
    (shape && clock).then(|| message[token_end..].trim_start_matches([' ', '\t']))
}
