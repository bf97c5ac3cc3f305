//! The inference servers' own headers: sglang's, vLLM's and
//! TensorRT-LLM's (its Python logger's and its C++ logger's).

use crate::framing::scan::{Fraction, Scan};
use crate::framing::{Format, Level, Record};

pub(super) fn sglang<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
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

pub(super) fn vllm<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
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

/// TensorRT-LLM's loggers: the Python one's `[06/21/2025-01:30:42]
/// [TRT-LLM] [RANK 0] [E] ` (a level letter: V, I, W, E or F) and the C++
/// one's `[TensorRT-LLM][ERROR] `, `[TensorRT-LLM][RANK 0][INFO] `.
pub(super) fn tensorrt_llm<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
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
