//! Application headers: the first thing a program's logger prints.
//!
//! - sglang (its `configure_logger`): `[2025-12-11 03:56:16[.123] DP2 TP2 EP2] `,
//!   `[20:27:22 TP0] `, `[12-16 14:27:08] `, old `[gpu_id=0] `; rank tags
//!   in any order, or none;
//! - vLLM: `ERROR 05-25 20:27:22 [core.py:1161] ` and the older
//!   `ERROR 11-15 01:06:40 worker_base.py:464] `;
//! - torch c10: `[E210 02:06:33.321131395 ProcessGroupNCCL.cpp:616] `,
//!   `[E ProcessGroupNCCL.cpp:458] `;
//! - glog and Kubernetes' klog (Triton, TensorFlow, XLA, Go components):
//!   `E1103 02:59:01.152656 81041 backend_model.cc:553] `, the thread id
//!   padded with spaces;
//! - Ray core (`logging.cc`): `[2024-02-27 16:09:19,106 E 19394 19394] `;
//! - Rust `tracing` (TGI): ` INFO text_generation_launcher: `;
//! - llama.cpp's logger with time stamps, `0.00.025.467 I `, and
//!   llama-box's `[2025-05-29 12:00:35.235796] E `;
//! - uvicorn's level prefix `INFO:     `, alone or after an sglang header;
//! - Python logging's default format (`basicConfig()`):
//!   `WARNING:xformers:`, `INFO:root:`;
//! - loguru's default format (Open WebUI, many Python servers):
//!   `2025-06-02 19:01:50.302 | ERROR    | module:function:870 - `.
//! - Python logging's cookbook format, `%(asctime)s - %(name)s -
//!   %(levelname)s - %(message)s` (with or without the name):
//!   `2025-08-12 19:40:24,526 - app - ERROR - `;
//! - InvokeAI's Python logging format, `[%(asctime)s]::[%(name)s]::%(levelname)s
//!   --> %(message)s`: `[2025-06-16 11:36:11,273]::[InvokeAI]::ERROR --> `;
//! - DeepSpeed's logger: `[2023-04-07 13:09:33,220] [ERROR]
//!   [launch.py:324:sigkill_handler] ` (time, level, file, line and
//!   function, each in brackets);
//! - gunicorn's: `[2025-12-06 10:47:28 +0000] [9] [ERROR] ` (time with
//!   its zone, pid, level);
//! - rich's console handler (`RichHandler`, immich and other Python
//!   servers): `[12/06/25 10:47:23] ERROR    ` (the locale's date and
//!   time, the level padded to eight);
//! - TensorRT-LLM: its Python logger's `[06/21/2025-01:30:42] [TRT-LLM]
//!   [RANK 0] [E] ` and its C++ logger's `[TensorRT-LLM][ERROR] `;
//! - Go loggers' logfmt and logrus formats ([`super::go_log`]).

use super::scan::{Fraction, Scan};
use super::{Format, Level, Record};

/// Parses an application header at `pos`; returns the message position.
pub fn parse<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> usize {
    let header_end = sglang(line, pos, record)
        .or_else(|| vllm(line, pos, record))
        .or_else(|| c10(line, pos, record))
        .or_else(|| glog(line, pos, record))
        .or_else(|| ray_core(line, pos, record))
        .or_else(|| rust_tracing(line, pos, record))
        .or_else(|| llama_cpp(line, pos, record))
        .or_else(|| loguru(line, pos, record))
        .or_else(|| tensorrt_llm(line, pos, record))
        .or_else(|| python_dashed(line, pos, record))
        .or_else(|| python_bracketed(line, pos, record))
        .or_else(|| deepspeed(line, pos, record))
        .or_else(|| gunicorn(line, pos, record))
        .or_else(|| rich_console(line, pos, record))
        .or_else(|| super::go_log::parse(line, pos, record));
    let pos = match header_end {
        Some(end) => {
            record.app_header = true;
            padded_name_level(line, end, record).unwrap_or(end)
        }
        None => pos,
    };
    if let Some(end) = uvicorn_level(line, pos, record).or_else(|| python_logging(line, pos, record)) {
        return end;
    }
    if record.level.is_none() {
        record.level = leading_level_word(&line[pos..]).or_else(|| json_level(&line[pos..]));
    }
    pos
}

/// The level of an application's own JSON log line (`{"function":
/// "load_model","level":"ERR",…,"msg":"unable to load model"}`, llama.cpp's
/// server; zap's and slog's `"level":"error"`): the line stays the message.
fn json_level(message: &str) -> Option<Level> {
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
fn leading_level_word(message: &str) -> Option<Level> {
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

/// True if an application header that starts a new record begins at `pos`
/// (used to split a line after a progress bar).
pub fn starts_record(line: &str, pos: usize) -> bool {
    let mut scratch = Record::default();
    sglang(line, pos, &mut scratch).is_some()
        || c10(line, pos, &mut scratch).is_some()
        || glog(line, pos, &mut scratch).is_some()
        || vllm(line, pos, &mut scratch).is_some()
}

fn sglang<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    let mut s = Scan::at(line, pos);
    if !s.byte(b'[') {
        return None;
    }
    if s.lit("gpu_id=") || s.lit("gpu=") {
        s.digits(1, 4)?;
        if !(s.byte(b']') && s.byte(b' ')) {
            return None;
        }
        record.ranks = Some(&line[pos + 1..s.pos - 2]);
        record.formats.insert(Format::Sglang);
        return Some(s.pos);
    }
    let stamp_at = s.pos;
    // `YYYY-MM-DD `, `MM-DD ` or nothing before the clock.
    let save = s;
    if !(s.date() && s.byte(b' ')) {
        s = save;
        let short_date = s.digits(2, 2).is_some() && s.byte(b'-') && s.digits(2, 2).is_some() && s.byte(b' ');
        if !short_date {
            s = save;
        }
    }
    if !s.clock(Fraction::Never) {
        return None;
    }
    let before_ms = s;
    if !(s.byte(b'.') && s.digits(3, 3).is_some()) {
        s = before_ms;
    }
    let stamp_end = s.pos;
    let ranks_at = s.pos;
    while s.byte(b' ') {
        let word = s.take_while(|b| b.is_ascii_uppercase() || b == b'_');
        if word == 0 || s.digits(1, 5).is_none() {
            return None;
        }
    }
    let ranks_end = s.pos;
    if !s.byte(b']') {
        return None;
    }
    if !(s.byte(b' ') || s.at_end()) {
        return None;
    }
    record.time.get_or_insert(&line[stamp_at..stamp_end]);
    if ranks_end > ranks_at {
        record.ranks = Some(&line[ranks_at + 1..ranks_end]);
    }
    record.formats.insert(Format::Sglang);
    Some(s.pos)
}

fn vllm<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    let mut s = Scan::at(line, pos);
    let word = s.take_while(|b| b.is_ascii_uppercase());
    if word < 4 {
        return None;
    }
    let level = Level::parse(&line[pos..pos + word])?;
    if !s.byte(b' ') {
        return None;
    }
    let stamp_at = s.pos;
    let date = s.digits(2, 2).is_some() && s.byte(b'-') && s.digits(2, 2).is_some() && s.byte(b' ');
    if !date || !s.clock(Fraction::Optional) || !s.byte(b' ') {
        return None;
    }
    let stamp_end = s.pos - 1;
    let origin_at = s.pos;
    let bracketed = s.byte(b'[');
    let name = s.take_while(|b| !matches!(b, b' ' | b':' | b']'));
    if name == 0 || !s.byte(b':') || s.digits(1, 6).is_none() || !s.byte(b']') {
        return None;
    }
    let origin = &line[origin_at + usize::from(bracketed)..s.pos - 1];
    if !(s.byte(b' ') || s.at_end()) {
        return None;
    }
    record.level = Some(level);
    record.time.get_or_insert(&line[stamp_at..stamp_end]);
    record.origin = Some(origin);
    record.formats.insert(Format::Vllm);
    Some(s.pos)
}

fn c10<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
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
fn glog<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
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

fn ray_core<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
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
fn rust_tracing<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
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
fn llama_cpp<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
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

/// uvicorn's padded level prefix: `INFO:     `, `ERROR:    `.
fn uvicorn_level<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
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
fn python_logging<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
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

/// loguru's default format: `{time} | {level: <8} | {name}:{function}:{line} - `
/// (`SUCCESS` is its level between INFO and WARNING), and Python logging's
/// `{time} | {level} | {name} | `.
fn loguru<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
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

/// TensorRT-LLM's loggers: the Python one's `[06/21/2025-01:30:42]
/// [TRT-LLM] [RANK 0] [E] ` (a level letter: V, I, W, E or F) and the C++
/// one's `[TensorRT-LLM][ERROR] `, `[TensorRT-LLM][RANK 0][INFO] `.
fn tensorrt_llm<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    let mut s = Scan::at(line, pos);
    let mut time = None;
    if !s.lit("[TensorRT-LLM]") {
        // The Python logger: a stamp, then its tag.
        let stamp = s.byte(b'[')
            && s.digits(2, 2).is_some()
            && s.byte(b'/')
            && s.digits(2, 2).is_some()
            && s.byte(b'/')
            && s.digits(4, 4).is_some()
            && s.byte(b'-')
            && s.clock(Fraction::Optional)
            && s.byte(b']');
        if !(stamp && s.lit(" [TRT-LLM]")) {
            return None;
        }
        time = Some(&line[pos + 1..s.pos - 11]);
    }
    s.spaces();
    let mut ranks = None;
    if s.lit("[RANK ") {
        let at = s.pos - 5;
        s.digits(1, 5)?;
        if !s.byte(b']') {
            return None;
        }
        ranks = Some(&line[at..s.pos - 1]);
        s.spaces();
    }
    if !s.byte(b'[') {
        return None;
    }
    let word_at = s.pos;
    let word = s.take_while(|b| b.is_ascii_uppercase());
    let level = match &line[word_at..word_at + word] {
        "V" | "VERBOSE" => Level::Debug,
        other => Level::parse(other)?,
    };
    if !s.byte(b']') {
        return None;
    }
    s.spaces();
    record.level = Some(level);
    if let Some(ranks) = ranks {
        record.ranks = Some(ranks);
    }
    if let Some(time) = time {
        record.time.get_or_insert(time);
    }
    record.formats.insert(Format::TensorrtLlm);
    Some(s.pos)
}

/// Python logging's cookbook format: `2025-08-12 19:40:24,526 - app -
/// ERROR - ` (`%(asctime)s - %(name)s - %(levelname)s - `), or without
/// the logger's name; the stamp may be ISO 8601's, with a `T` and a zone
/// (`2025-10-27T10:23:08+08:00`, `2025-10-27 10:23:04.709724+08:00`).
fn python_dashed<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
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
fn python_bracketed<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
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

/// After a bracketed time stamp, a logger's name and level padded with
/// spaces, then a colon: Frigate's `[%(asctime)s] %(name)-30s
/// %(levelname)-8s: ` (`[2023-10-11 16:22:06] frigate.detectors.plugins.tensorrt
/// ERROR   : `).
fn padded_name_level<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
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

/// gunicorn's log format (`[%(asctime)s] [%(process)d] [%(levelname)s]
/// `, its stamp `%Y-%m-%d %H:%M:%S %z`): `[2025-12-06 10:47:28 +0000] [9]
/// [ERROR] `.
fn gunicorn<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
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
fn rich_console<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
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

/// DeepSpeed's logger (`deepspeed/utils/logging.py`): `[%(asctime)s]
/// [%(levelname)s] [%(filename)s:%(lineno)d:%(funcName)s] `, as in
/// `[2023-04-07 13:09:33,220] [ERROR] [launch.py:324:sigkill_handler] `.
fn deepspeed<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
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
