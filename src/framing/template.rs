//! Line templates: framing a line by its likeness to lines framed before.
//!
//! A server writes a few kinds of lines millions of times (batch
//! statistics, access lines), each under the same prefixes with only the
//! clock moving. Two lines framed alike whose prefixes (and the first
//! [`HEAD_OF_MESSAGE`] bytes of their messages) differ only in digits
//! make a template: a later line with the same bytes everywhere but at the
//! template's digits, and any digits there, frames the same way, its
//! fields at the same places. Digits that name the writer (in its host,
//! identifier, process or rank fields, or its pid as printed) are not
//! free. [`Templates::frame`] frames a line that fits a template by
//! comparing bytes, and any other with [`frame_line`], learning from it.
//!
//! The parsers that framing runs read a line from its start and decide on
//! what they see up to a little way into the message, and none of them
//! reads the value of a digit but in a pid: so a line that fits a
//! template gives the framing of the template's own line, moved to it. A
//! debug build checks every line framed this way against [`frame_line`].

use super::{digit_bytes, frame_line, Format, Framed, Record};

/// How far into the message the parsers may look (uvicorn's `CRITICAL:`
/// after an sglang header is the longest look): this much of it belongs
/// to the template.
const HEAD_OF_MESSAGE: usize = 16;
/// Templates kept; the one used least recently gives way.
const MAX_TEMPLATES: usize = 8;
/// Lines framed in full that are kept to pair with the next ones.
const MAX_RECENT: usize = 8;

/// A field of a record, as a byte range of its line.
type Place = Option<(u32, u32)>;

crate::framing::writer_fields! {
    /// Where a framed line's fields are, and what else framing found: all but
    /// the clock and the message is the same on every line of a template.
    /// (A record with a unit is never a template's: only structured journal
    /// input names one.)
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct Layout {
        message_at: usize,
        origin: Place,
        level: Option<super::Level>,
        formats: super::FormatSet,
        app_header: bool,
    }
    writer fields [time, host, identifier, process, ranks, pid]: text as Place, pid as Option<u32>
}

/// Did a level prefix of its own end the record's header (uvicorn's
/// `INFO:     `, Python logging's `INFO:name:`)? Then the message after
/// it is read no further.
fn read_a_level_prefix(record: &Record<'_>) -> bool {
    record.formats.contains(super::Format::Uvicorn) || record.formats.contains(super::Format::PythonLogging)
}

/// Does the message open with a date, a time or a bracket: where a
/// header parser may read further than the template holds?
fn opens_with_a_stamp(message: &str) -> bool {
    message.starts_with(|c: char| c.is_ascii_digit() || c == '[')
}

/// Does the message open with a word of fields parted by colons (NCCL's
/// `host:pid:tid`, pdsh's `host:`): a process tag whose parser reads on to
/// the line's end before it takes it (`[rank] … NCCL `), so one line not
/// read as a tag says nothing of the next?
fn opens_with_colon_fields(message: &str) -> bool {
    let word = message.split(' ').next().unwrap_or("");
    word.contains(':') && word.ends_with(|c: char| c.is_ascii_digit() || c == ':')
}

/// Does one of the message's first words name a level (`INFO`,
/// `detector.onnx_0   WARNING :`)? Where no level was read, a header
/// parser that reads on past the template's share (Rust tracing's
/// `LEVEL target: `, a padded logger name and level) failed on this line
/// and may not on the next, so it says nothing of the next.
fn names_a_level_early(message: &str) -> bool {
    message.split([' ', ':']).filter(|word| !word.is_empty()).take(3).any(|word| {
        matches!(
            word,
            "TRACE" | "DEBUG" | "INFO" | "NOTICE" | "WARN" | "WARNING" | "ERROR" | "CRITICAL" | "FATAL"
        )
    })
}

/// Is a padded logger name and level after a header (`detector.onnx_0
/// INFO    : `) left undecided by the head of `message`: the name, the
/// spaces after it, or a capital word after them reach past it? Then one
/// line where it did not parse says nothing of the next.
fn padded_level_undecided(message: &[u8]) -> bool {
    let head = &message[..message.len().min(HEAD_OF_MESSAGE)];
    let name =
        head.iter().take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-')).count();
    if name == 0 {
        return false;
    }
    let spaces = head[name..].iter().take_while(|b| **b == b' ').count();
    if name + spaces == head.len() {
        return true;
    }
    spaces > 0 && head[name + spaces].is_ascii_uppercase()
}

/// Does the template's share of the message decide the record's header?
/// Some header parsers read further than the share, and a line where one
/// failed (a header cut or garbled) says nothing of the next, where it may
/// not: no template is learnt from it. They are those whose message, with
/// no header read before it, opens with a date or a bracket (loguru's and
/// Python's stamps, TensorRT-LLM's `[06/21/2025-01:30:42] [TRT-LLM]`),
/// with colon fields, or names a level in its first words (Rust tracing's
/// `LEVEL target: `, vLLM's `LEVEL MM-DD HH:MM:SS [file:line] ` after a
/// process tag); and, after a header that read no level, a padded logger
/// name and level the share leaves undecided. All but the first kind were
/// found by fuzzing.
fn header_decided_within_share(record: &Record<'_>) -> bool {
    let message = record.message;
    let level_early = names_a_level_early(message);
    if !(record.app_header || read_a_level_prefix(record))
        && (opens_with_a_stamp(message) || opens_with_colon_fields(message) || level_early)
    {
        return false;
    }
    record.level.is_some()
        || !(level_early || (record.app_header && padded_level_undecided(message.as_bytes())))
}

impl Layout {
    /// The layout of `framed`, if a template can hold it: one record that
    /// starts the line, every field a part of it, and more message than the
    /// template's share.
    fn of(line: &str, framed: &Framed<'_>) -> Option<Layout> {
        let record = &framed.first;
        let simple = framed.embedded.is_none()
            && record.start == 0
            && record.separator.is_none()
            && record.unit.is_none()
            && !record.formats.is_empty()
            && record.message_at + HEAD_OF_MESSAGE < line.len()
            && record.message.len() == line.len() - record.message_at
            && line.as_bytes().first().is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'[')
            && header_decided_within_share(record);
        if !simple {
            return None;
        }
        let place = |field: Option<&str>| -> Result<Place, ()> {
            let Some(value) = field else { return Ok(None) };
            let at = (value.as_ptr() as usize).wrapping_sub(line.as_ptr() as usize);
            if at <= line.len() && value.len() <= line.len() - at {
                Ok(Some((at as u32, (at + value.len()) as u32)))
            } else {
                Err(())
            }
        };
        Some(Layout {
            message_at: record.message_at,
            time: place(record.time).ok()?,
            host: place(record.host).ok()?,
            identifier: place(record.identifier).ok()?,
            process: place(record.process).ok()?,
            ranks: place(record.ranks).ok()?,
            origin: place(record.origin).ok()?,
            pid: record.pid,
            level: record.level,
            formats: record.formats,
            app_header: record.app_header,
        })
    }

    /// How many bytes of a line the template holds.
    fn end(&self) -> usize {
        self.message_at + HEAD_OF_MESSAGE
    }

    /// The opening of the message of `line`, a line its template fitted:
    /// the part of the message that the template holds (cut back to a
    /// character boundary). Every line of the template has these bytes
    /// there, but for digits, and more message after them.
    pub fn opening<'a>(&self, line: &'a str) -> &'a str {
        let mut end = self.end().min(line.len());
        while !line.is_char_boundary(end) {
            end -= 1;
        }
        &line[self.message_at.min(end)..end]
    }

    /// The record of `line`, whose fields are where this layout says (a
    /// line its template fitted).
    #[inline(always)]
    pub fn record<'a>(&self, line: &'a str) -> Record<'a> {
        let field = |place: Place| place.map(|(start, end)| &line[start as usize..end as usize]);
        Record {
            start: 0,
            message_at: self.message_at,
            message: &line[self.message_at..],
            time: field(self.time),
            host: field(self.host),
            identifier: field(self.identifier),
            unit: None,
            pid: self.pid,
            process: field(self.process),
            ranks: field(self.ranks),
            level: self.level,
            origin: field(self.origin),
            formats: self.formats,
            app_header: self.app_header,
            separator: None,
        }
    }

    /// For each byte of the template's share of `line`, whether a digit
    /// there names the writer: it lies in a field that names it, or in
    /// its pid as printed in the prefix.
    fn fixed_digits(&self, line: &[u8]) -> Vec<bool> {
        let mut fixed = vec![false; self.end()];
        for (start, end) in
            [self.host, self.identifier, self.process, self.ranks, self.origin].into_iter().flatten()
        {
            let end = (end as usize).min(fixed.len());
            fixed[(start as usize).min(end)..end].iter_mut().for_each(|f| *f = true);
        }
        if let Some(pid) = self.pid {
            let pid = pid.to_string();
            for at in memchr::memmem::find_iter(&line[..self.message_at], pid.as_bytes()) {
                fixed[at..at + pid.len()].iter_mut().for_each(|f| *f = true);
            }
        }
        fixed
    }
}

/// Lines framed alike, and where they may differ. The head of a line is
/// compared eight bytes at a time: in each word, the bytes a line must
/// share with the template, and the places where it holds any digit.
#[derive(Debug)]
struct Template {
    layout: Layout,
    /// The template's head, eight bytes at a time (see [`Word`]).
    words: Vec<Word>,
    /// How many bytes the template holds.
    len: usize,
    /// Names it among the templates of its input.
    serial: u64,
}

/// Eight bytes of a template's head.
#[derive(Debug, Clone, Copy)]
struct Word {
    /// The template's bytes (the last word padded with zeros).
    bytes: u64,
    /// 0xff in the bytes a line must hold as they are.
    same: u64,
    /// 0x80 in the bytes where a line holds a digit.
    digits: u64,
}

impl Word {
    /// Whether the eight bytes `held` of a line fit: the same bytes where
    /// they must be, digits where digits are free.
    fn fits(self, held: u64) -> bool {
        self.misfit(held) == 0
    }

    /// Bits set where the eight bytes `held` of a line do not fit.
    fn misfit(self, held: u64) -> u64 {
        (held ^ self.bytes) & self.same | (digit_bytes(held) & self.digits) ^ self.digits
    }
}

impl Template {
    /// The template of two lines framed alike (`layout`), if they differ
    /// only in digits, outside the fields that name their writer. Every
    /// digit of the line outside those fields (and its pid) may differ in
    /// a line that fits: a clock that did not move between the two lines
    /// moves later.
    fn of(layout: Layout, earlier: &[u8], line: &[u8]) -> Option<Template> {
        let end = layout.end();
        if earlier.len() < end || line.len() < end {
            return None;
        }
        let fixed = layout.fixed_digits(line);
        let words = end.div_ceil(8);
        let (mut same, mut digits) = (vec![0u64; words], vec![0u64; words]);
        for at in 0..end {
            let shift = (at % 8) * 8;
            let both_digits = earlier[at].is_ascii_digit() && line[at].is_ascii_digit();
            if both_digits && !fixed[at] {
                digits[at / 8] |= 0x80 << shift;
            } else if earlier[at] == line[at] {
                same[at / 8] |= 0xff << shift;
            } else {
                return None;
            }
        }
        let words = (0..words)
            .map(|i| Word { bytes: word_at(line, i * 8, end), same: same[i], digits: digits[i] })
            .collect();
        Some(Template { layout, words, len: end, serial: 0 })
    }

    /// Whether `line` is framed as this template's lines are (`unmarked`:
    /// it is known to hold no `%` and no carriage return).
    fn fits(&self, line: &[u8], unmarked: bool) -> bool {
        if line.len() <= self.len {
            return false;
        }
        // Last word first: the head of the message tells most kinds of
        // line apart, while their prefixes differ only in the clock.
        // Bytes past the template's share are masked out, so a whole word
        // of the (longer) line may be read.
        let Some((last, before)) = self.words.split_last() else { return false };
        if !last.fits(word_at(line, before.len() * 8, line.len())) {
            return false;
        }
        // The words before it (whole words of the line, which is longer):
        // all are compared, with no branch per word.
        let words =
            line.chunks_exact(8).map(|chunk| u64::from_le_bytes(chunk.try_into().expect("eight bytes")));
        if before.iter().zip(words).fold(0, |misfit, (word, held)| misfit | word.misfit(held)) != 0 {
            return false;
        }
        let message = &line[self.layout.message_at..];
        let logfmt = self.layout.formats.contains(Format::Logfmt);
        !(if unmarked { ends_specially(message, logfmt) } else { needs_whole_framing(message, logfmt) })
    }
}

/// The bytes of `bytes` from `at` (up to `end`) as a little-endian word,
/// padded with zeros.
fn word_at(bytes: &[u8], at: usize, end: usize) -> u64 {
    match bytes.get(at..at + 8).filter(|_| at + 8 <= end) {
        Some(word) => u64::from_le_bytes(word.try_into().expect("eight bytes")),
        None => bytes[at..end.min(bytes.len())].iter().rev().fold(0, |word, &b| (word << 8) | u64::from(b)),
    }
}

/// Whether a message holds what framing looks for beyond the head of a
/// message: a record starting mid-line (after a progress bar or a carriage
/// return), or an ending framing cuts off (see [`ends_specially`]).
fn needs_whole_framing(message: &[u8], logfmt: bool) -> bool {
    memchr::memchr2(b'%', b'\r', message).is_some() || ends_specially(message, logfmt)
}

/// Whether a message ends in what framing cuts off it: Ray's
/// deduplication suffix, a pasted carriage return (`^M`), or in a logfmt
/// line the quote that closes `msg` (a line of the same layout may lack
/// it: a message cut short).
fn ends_specially(message: &[u8], logfmt: bool) -> bool {
    match message.last() {
        Some(b']') => message.ends_with(b"x across cluster]"),
        Some(b'M') => message.ends_with(b"^M"),
        Some(b'"') => logfmt,
        _ => false,
    }
}

/// The templates of one input, learnt as it is read.
#[derive(Debug, Default)]
pub struct Templates {
    /// The templates, the one used last first: a server's lines come in
    /// runs of a few kinds, and the one used least lately gives way.
    /// Boxed: one moves to the front whenever the kind of line changes,
    /// and moving a pointer is cheaper than moving a template.
    #[allow(clippy::vec_box)]
    templates: Vec<Box<Template>>,
    /// Lines framed in full lately, with their layouts (the head of each).
    recent: Vec<(Layout, Vec<u8>)>,
    /// Whether the first template framed the last line.
    last_framed: bool,
    /// Templates made so far (their serial numbers).
    made: u64,
}

impl Templates {
    /// Frames `line`: by a template it fits, or in full (and then it may
    /// make a template with a line framed before it).
    pub fn frame<'a>(&mut self, line: &'a str) -> Framed<'a> {
        self.frame_marked_or_not(line, false)
    }

    /// Frames `line`, which its reader found to hold no `%` and no
    /// carriage return (so it is not searched for them again).
    pub fn frame_unmarked<'a>(&mut self, line: &'a str) -> Framed<'a> {
        debug_assert!(memchr::memchr2(b'%', b'\r', line.as_bytes()).is_none());
        self.frame_marked_or_not(line, true)
    }

    /// The layout of the template that framed the last line, and its
    /// serial number (unique among this input's templates), if one did.
    pub fn last_layout(&self) -> Option<(u64, &Layout)> {
        let template = self.templates.first().filter(|_| self.last_framed)?;
        Some((template.serial, &template.layout))
    }

    fn frame_marked_or_not<'a>(&mut self, line: &'a str, unmarked: bool) -> Framed<'a> {
        self.last_framed = false;
        let bytes = line.as_bytes();
        if let Some(at) = self.templates.iter().position(|t| t.fits(bytes, unmarked)) {
            self.templates[..=at].rotate_right(1);
            self.last_framed = true;
            let framed = Framed { first: self.templates[0].layout.record(line), embedded: None };
            debug_assert_eq!(framed, frame_line(line), "framed by a template: {line:?}");
            return framed;
        }
        let framed = frame_line(line);
        if let Some(layout) = Layout::of(line, &framed) {
            self.learn(layout, bytes);
        }
        framed
    }

    /// Pairs a line framed in full with a recent one of the same layout.
    fn learn(&mut self, layout: Layout, line: &[u8]) {
        let head = &line[..layout.end()];
        let earlier = self.recent.iter().position(|(kept, _)| *kept == layout);
        if let Some(template) = earlier.and_then(|i| Template::of(layout.clone(), &self.recent[i].1, head)) {
            let mut template = template;
            self.made += 1;
            template.serial = self.made;
            if self.templates.len() == MAX_TEMPLATES {
                self.templates.pop();
            }
            self.templates.insert(0, Box::new(template));
        }
        match earlier {
            Some(i) => {
                let kept = &mut self.recent[i].1;
                kept.clear();
                kept.extend_from_slice(head);
            }
            None => {
                if self.recent.len() == MAX_RECENT {
                    self.recent.remove(0);
                }
                self.recent.push((layout, head.to_vec()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Frames `lines` with templates and in full; returns how many were
    /// framed by a template (each must agree with the full framing).
    fn by_templates(lines: &[&str]) -> usize {
        let mut templates = Templates::default();
        let mut fitted = 0;
        for line in lines {
            fitted += usize::from(templates.templates.iter().any(|t| t.fits(line.as_bytes(), false)));
            assert_eq!(templates.frame(line), frame_line(line), "{line}");
        }
        fitted
    }

    #[test]
    fn lines_that_differ_in_their_clocks_share_a_template() {
        let lines = [
            "[2026-05-25 08:10:00 TP0] Decode batch. #running-req: 1024, #token: 1546240, token usage: 0.60",
            "[2026-05-25 08:10:01 TP0] Decode batch. #running-req: 1024, #token: 1735680, token usage: 0.57",
            "[2026-05-25 08:10:02 TP0] Decode batch. #running-req: 24, #token: 1390592, token usage: 0.75",
            "[2026-05-25 08:10:03 TP0] Decode batch. #running-req: 1, #token: 1, token usage: 0.01",
        ];
        assert_eq!(by_templates(&lines), 2);
    }

    /// Framing cuts some endings off a message; a template learnt from
    /// lines without them must not frame a line with one (found by
    /// fuzzing: a logfmt `msg` cut short made a template, and the next
    /// line's closing quote stayed in its message).
    #[test]
    fn a_line_with_an_ending_framing_cuts_off_is_framed_in_full() {
        let cut = |n: u32| {
            format!("time=\"2022-04-15T00:36:52Z\" level=warning msg=\"Skipping line {n} ('DCGM_FI_PROF_PCIE_TX_BYTES'): DCP metric")
        };
        let whole = "time=\"2022-04-15T00:36:52Z\" level=warning msg=\"Skipping line 64 ('DCGM_FI_PROF_PCIE_RX_BYTES'): DCP metrics not enabled\"";
        by_templates(&[&cut(62), &cut(63), whole]);
        let pasted =
            |n: u32| format!("[2026-05-25 08:10:0{n} TP0] Decode batch. #running-req: 1{n}, #token: 4096");
        by_templates(&[&pasted(1), &pasted(2), &format!("{}^M", pasted(3))]);
    }

    /// A header whose parser reads past the template's share: lines where
    /// it did not parse (a garbled target) make no template for the lines
    /// where it does (found by fuzzing, on text-generation-inference's
    /// tracing lines).
    #[test]
    fn a_header_that_did_not_parse_makes_no_template_for_one_that_does() {
        let garbled = |n: u32| {
            format!("2024-02-09T09:28:5{n}.243826Z  INFO text_generation_route\u{2}\u{2}r: router/src/main.rs:316: Setting max batch total tokens to 8240")
        };
        let whole =
            "2024-02-09T09:28:53.243856Z  INFO text_generation_router: router/src/main.rs:317: Connected";
        by_templates(&[&garbled(1), &garbled(2), whole]);
        let frigate = "2024-12-29 04:23:00.625393137  [2024-12-28 21:23:00] detector.onnx_1";
        let garbled = [
            format!("{frigate}   tion fault"),
            format!("{frigate}      =10.0.0.1) Fatal Python error: Aborted"),
        ];
        let whole = "2024-12-29 04:23:00.617286543  [2024-12-28 21:23:00] detector.onnx_0                INFO    : Starting detection process: 457";
        by_templates(&[&garbled[0], &garbled[1], whole]);
        // vLLM's `LEVEL MM-DD HH:MM:SS [file:line] ` after a process tag,
        // whose level the tag's parser read.
        let vllm = |n: u32, header: &str| {
            format!("2025-10-15T00:02:5{n}.756533023Z (APIServer pid=1) INFO 10-14 17:02:5{n}{header}] Engine 000: Avg prompt throughput: 1386.0 tokens/s")
        };
        by_templates(&[
            &vllm(6, "\u{fffd}ggers.py:123"),
            &vllm(7, "\u{fffd}ggers.py:123"),
            &vllm(8, " [loggers.py:123"),
        ]);
    }

    /// Templates learnt from framing `lines`.
    fn learnt_from(lines: &[&str]) -> Templates {
        let mut templates = Templates::default();
        for line in lines {
            templates.frame(line);
        }
        templates
    }

    /// A journal line of sglang's decode statistics.
    fn decode_line(time: &str, pid: u32, rank: u8, running: u32) -> String {
        format!("May 25 {time} gpu01 python3[{pid}]: [2026-05-25 {time} TP{rank}] Decode batch. #running-req: {running}")
    }

    #[test]
    fn a_clock_that_stood_still_while_learning_may_move() {
        let (a, b) = (decode_line("08:10:00", 1234, 0, 1), decode_line("08:10:00", 1234, 0, 2));
        let later = decode_line("09:59:59", 1234, 0, 3);
        let mut templates = learnt_from(&[&a, &b]);
        assert!(templates.templates[0].fits(later.as_bytes(), false));
        assert_eq!(templates.frame(&later), frame_line(&later));
    }

    #[test]
    fn a_line_from_another_writer_is_framed_in_full() {
        let (a, b) = (decode_line("08:10:00", 1234, 0, 1), decode_line("08:10:01", 1234, 0, 2));
        let other_pid = decode_line("08:10:02", 1235, 0, 3);
        let other_rank = decode_line("08:10:02", 1234, 1, 3);
        let same = decode_line("08:10:03", 1234, 0, 4);
        let mut templates = learnt_from(&[&a, &b]);
        assert_eq!(templates.templates.len(), 1);
        for line in [&other_pid, &other_rank] {
            assert!(!templates.templates[0].fits(line.as_bytes(), false), "{line}");
            assert_eq!(templates.frame(line), frame_line(line));
        }
        assert!(templates.templates.iter().any(|t| t.fits(same.as_bytes(), false)));
        assert_eq!(templates.frame(&same), frame_line(&same));
    }

    #[test]
    fn what_framing_reads_past_the_head_of_a_message_is_framed_in_full() {
        let mut templates = learnt_from(&[
            "[2026-05-25 08:10:00 TP0] Capturing batches (bs=8 avail_mem=20.1 GB)",
            "[2026-05-25 08:10:01 TP0] Capturing batches (bs=4 avail_mem=20.2 GB)",
        ]);
        assert_eq!(templates.templates.len(), 1);
        for line in [
            "[2026-05-25 08:10:02 TP0] Capturing batches (bs=2 avail_mem=20.3 GB): 50%|█| 1/2 [2026-05-25 08:10:02 TP1] Init",
            "[2026-05-25 08:10:02 TP0] Capturing batches (bs=2 avail_mem=20.3 GB)\r[2026-05-25 08:10:02 TP1] Init",
            "[2026-05-25 08:10:02 TP0] Capturing batches (bs=2 avail_mem=20.3 GB) [repeated 3x across cluster]",
            "[2026-05-25 08:10:02 TP0] Capturing batc",
        ] {
            assert!(!templates.templates[0].fits(line.as_bytes(), false), "{line}");
            assert_eq!(templates.frame(line), frame_line(line));
        }
    }

    #[test]
    fn a_message_that_may_open_with_a_process_tag_makes_no_template() {
        // Under `docker logs -t`: NCCL's `host:pid:tid [rank]` tag is read
        // only when a rank of up to three digits and `NCCL ` follow, so a
        // line not read as one says nothing of the next.
        let mut templates = learnt_from(&[
            "2026-05-25T20:10:00.006456789Z host:390729:391702 [32499] NCCL INFO [Service thread] Connection closed",
            "2026-05-25T20:10:00.008456789Z host:390729:391702 [32499] NCCL INFO [Service thread] Connection closed",
        ]);
        assert!(templates.templates.is_empty());
        let tagged = "2026-05-25T20:10:00.010456789Z host:390727:390727 [0] init.cc:303 NCCL WARN Attempt to use communicator";
        assert_eq!(templates.frame(tagged), frame_line(tagged));
        assert_eq!(frame_line(tagged).first.pid, Some(390727));
    }
}
