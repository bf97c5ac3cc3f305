//! What a server's progress line says: how many requests run and wait,
//! and how fast tokens come.
//!
//! sglang's scheduler lines (`Decode batch. #running-req: 8, #token: …,
//! gen throughput (token/s): 183.54, #queue-req: 0`) and vLLM's stats
//! lines (`Engine 000: Avg prompt throughput: 0.0 tokens/s, …, Running: 18
//! reqs, Waiting: 43 reqs, …`) are a header and a list of `key: value`
//! fields. The field order, the separator after the header and the set of
//! optional fields change from release to release (sglang
//! `scheduler_metrics_mixin.py`, vLLM `v1/metrics/loggers.py` and V0
//! `engine/metrics.py`), so the header's shapes are read as a small
//! grammar (nom), the list is split into its fields, and fields are found
//! by their whole key, wherever they stand.

use nom::branch::alt;
use nom::bytes::complete::tag;
use nom::character::complete::{char, digit1, space0};
use nom::combinator::opt;
use nom::number::complete::double;
use nom::sequence::{delimited, terminated};
use nom::{IResult, Parser};

/// Which progress line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProgressKind {
    /// sglang `Prefill batch`: new requests are being prefilled.
    Prefill,
    /// sglang `Decode batch`: running requests are generating.
    Decode,
    /// vLLM's periodic stats line.
    Stats,
}

/// The figures of one progress line; `None` where the line does not say.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figures {
    /// Which line it is.
    pub kind: ProgressKind,
    /// Requests running.
    pub running: Option<u64>,
    /// Requests waiting (sglang `#queue-req`, vLLM `Waiting`/`Pending`).
    pub queued: Option<u64>,
    /// Generated tokens per second.
    pub generation: Option<f64>,
    /// Prompt tokens processed per second (vLLM).
    pub prompt: Option<f64>,
    /// Share of the KV cache (token pool) in use, 0 to 1: sglang `token
    /// usage` (`full token usage` with sliding-window layers), vLLM `GPU KV
    /// cache usage` (a percentage).
    pub usage: Option<f64>,
    /// Whether the batch ran as a captured CUDA (or NPU) graph: sglang
    /// `cuda graph: True`.
    pub graph: Option<bool>,
}

impl Figures {
    /// Requests were running or waiting when the line was written.
    pub fn work_pending(&self) -> bool {
        self.running.unwrap_or(0) + self.queued.unwrap_or(0) > 0
    }

    /// The line shows work advancing: an sglang batch line (it is written
    /// after a batch ran), or a vLLM stats line with tokens processed or
    /// generated (vLLM writes its stats line on a timer, also when the
    /// engine is stuck).
    pub fn advances(&self) -> bool {
        match self.kind {
            ProgressKind::Prefill | ProgressKind::Decode => true,
            ProgressKind::Stats => self.generation.unwrap_or(0.0) > 0.0 || self.prompt.unwrap_or(0.0) > 0.0,
        }
    }
}

/// Which progress line `message` opens like, if any (cheap: [`figures`]
/// reads it).
pub fn kind_of(message: &str) -> Option<ProgressKind> {
    if message.starts_with("Decode batch") {
        return Some(ProgressKind::Decode);
    }
    if message.starts_with("Prefill batch") {
        return Some(ProgressKind::Prefill);
    }
    // vLLM's field comes first, or after `Engine 000: ` / `2 Engines
    // Aggregated: `; other lines (HTTP access lines) are not searched.
    let opening =
        message.as_bytes().first().is_some_and(u8::is_ascii_digit) || message.starts_with("Engine ");
    // Access lines open with a digit too, and a serving log holds many:
    // the searcher is built once.
    static FIELD: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(VLLM_FIRST_FIELD));
    let vllm = message.starts_with(VLLM_FIRST_FIELD) || (opening && FIELD.find(message.as_bytes()).is_some());
    vllm.then_some(ProgressKind::Stats)
}

/// Whether `message` opens like a progress line (see [`kind_of`]).
pub fn is_progress_line(message: &str) -> bool {
    kind_of(message).is_some()
}

/// The figures of a progress line, or `None` if `message` is not one.
pub fn figures(message: &str) -> Option<Figures> {
    let (fields, kind) = header(message.trim_end())?;
    let mut figures = Figures {
        kind,
        running: None,
        queued: None,
        generation: None,
        prompt: None,
        usage: None,
        graph: None,
    };
    let mut any = false;
    for (key, value) in Fields::of(fields) {
        any = true;
        figures.take(key, value);
    }
    any.then_some(figures)
}

/// The `key: value` fields of a list separated by `, `, in order. A part
/// that does not read as `key: value` ends the list (a later release's
/// field of another shape); a trailing `, ` or `.` is no field.
///
/// Progress lines are the bulk of a serving log, so the list is split in
/// one pass over its bytes (its fields are short: a vectorised search
/// costs more to start than it saves).
struct Fields<'a> {
    bytes: &'a [u8],
    /// Where the next key starts.
    at: usize,
}

impl<'a> Fields<'a> {
    fn of(list: &'a str) -> Self {
        Fields { bytes: list.as_bytes(), at: 0 }
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = (&'a [u8], &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        let bytes = self.bytes;
        let at = self.at;
        let followed_by_space = |i: usize| bytes.get(i + 1) == Some(&b' ');
        // The key ends at the first `:` or `,`, which must be `: `.
        let colon = at + bytes.get(at..)?.iter().position(|&b| b == b':' || b == b',')?;
        if colon == at || bytes[colon] != b':' || !followed_by_space(colon) {
            self.at = bytes.len();
            return None;
        }
        let key = &bytes[at..colon];
        let value_at = colon + 2;
        // The value ends at the next `, ` (a `:` or a lone `,` is part of it).
        let end = (value_at..bytes.len()).find(|&i| bytes[i] == b',' && followed_by_space(i));
        let mut value = &bytes[value_at..end.unwrap_or(bytes.len())];
        match end {
            Some(comma) => self.at = comma + 2,
            None => {
                self.at = bytes.len();
                // The last value: without the `,`, ` ` or `.` that may close the list.
                while let [head @ .., b',' | b' ' | b'.'] = value {
                    value = head;
                }
            }
        }
        Some((key, value))
    }
}

impl Figures {
    /// Reads one field, if it is one of those kept. Keys are whole:
    /// `#token` is not `#new-token`, `token usage` not `swa token usage`.
    fn take(&mut self, key: &[u8], value: &[u8]) {
        let sglang = self.kind != ProgressKind::Stats;
        let count = || leading_count(value);
        // The shortest key kept has 7 bytes; most fields are not kept.
        if key.len() < 7 {
            return;
        }
        match (sglang, key) {
            (true, b"#running-req") | (false, b"Running") => self.running = count(),
            (true, b"#queue-req") | (false, b"Waiting" | b"Pending") => self.queued = count(),
            (true, b"gen throughput (token/s)") | (false, b"Avg generation throughput") => {
                self.generation = leading_number(value)
            }
            (false, b"Avg prompt throughput") => self.prompt = leading_number(value),
            (false, b"GPU KV cache usage" | b"KV cache usage") => {
                self.usage = leading_number(value).map(|percent| percent / 100.0)
            }
            (true, b"token usage" | b"full token usage") => self.usage = leading_number(value),
            (true, b"cuda graph" | b"npu graph") => {
                self.graph = match value {
                    b"True" => Some(true),
                    b"False" => Some(false),
                    _ => None,
                }
            }
            _ => {}
        }
    }
}

/// The header, up to the field list: sglang `Decode batch.`, `Decode
/// batch,`, `Decode batch [812],`, `Prefill batch(mixed #running-req:
/// 3).`; for vLLM, whatever comes before `Avg prompt throughput` (`Engine
/// 000: `, `2 Engines Aggregated: `, nothing in V0), which is its first
/// field.
fn header(input: &str) -> Option<(&str, ProgressKind)> {
    let mut sglang = terminated(
        alt((
            tag("Prefill batch").map(|_| ProgressKind::Prefill),
            tag("Decode batch").map(|_| ProgressKind::Decode),
        )),
        (
            opt(delimited(tag("(mixed #running-req: "), digit1, char(')'))),
            opt(delimited(tag(" ["), digit1, char(']'))),
            alt((char('.'), char(','))),
            space0,
        ),
    );
    let parsed: IResult<&str, ProgressKind> = sglang.parse(input);
    match parsed {
        Ok((rest, kind)) => Some((rest, kind)),
        Err(_) => input.find(VLLM_FIRST_FIELD).map(|at| (&input[at..], ProgressKind::Stats)),
    }
}

/// The field vLLM's stats lines open with, in every version.
const VLLM_FIRST_FIELD: &str = "Avg prompt throughput: ";

/// The number a value starts with (`1055.3 tokens/s`, `95.9%`).
fn leading_number(value: &[u8]) -> Option<f64> {
    plain_decimal(value).or_else(|| {
        let text = std::str::from_utf8(value).ok()?;
        double::<&str, nom::error::Error<&str>>(text).ok().map(|(_, n)| n).filter(|n| n.is_finite())
    })
}

/// The count a value starts with (`18 reqs`, `1024`).
fn leading_count(value: &[u8]) -> Option<u64> {
    let digits = value.iter().take(19).take_while(|b| b.is_ascii_digit()).count();
    (digits > 0).then(|| value[..digits].iter().fold(0u64, |n, &b| n * 10 + u64::from(b - b'0')))
}

/// `digits[.digits]` read exactly the way a full parser would (an integer
/// of at most 15 digits divided by a power of ten is rounded once), or
/// `None` for any other shape (an exponent, a sign, more digits).
fn plain_decimal(bytes: &[u8]) -> Option<f64> {
    let mut mantissa: u64 = 0;
    let mut digits = 0;
    let mut scale = 0;
    let mut seen_point = false;
    for &b in bytes {
        match b {
            b'0'..=b'9' => {
                mantissa = mantissa * 10 + u64::from(b - b'0');
                digits += 1;
                scale += usize::from(seen_point);
            }
            b'.' if !seen_point => seen_point = true,
            b'e' | b'E' => return None,
            _ => break,
        }
        if digits > 15 {
            return None;
        }
    }
    const POWERS: [f64; 16] =
        [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];
    (digits > 0).then(|| mantissa as f64 / POWERS[scale])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(message: &str) -> (ProgressKind, Option<u64>, Option<u64>, Option<f64>) {
        let f = figures(message).unwrap_or_else(|| panic!("not read: {message}"));
        (f.kind, f.running, f.queued, f.generation)
    }

    #[test]
    fn sglang_lines_of_every_era() {
        use ProgressKind::*;
        // 2024 (sglang issue #1612), 2025 with a trailing separator, 2026 with a comma header.
        assert_eq!(
            read("Prefill batch. #new-seq: 4, #new-token: 8192, #cached-token: 291, cache hit rate: 2.76%, token usage: 0.04, #running-req: 1, #queue-req: 38"),
            (Prefill, Some(1), Some(38), None)
        );
        assert_eq!(
            read("Prefill batch. #new-seq: 1, #new-token: 6, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0, "),
            (Prefill, Some(0), Some(0), None)
        );
        assert_eq!(
            read("Decode batch. #running-req: 8, #token: 67724, token usage: 0.13, gen throughput (token/s): 183.54, #queue-req: 0"),
            (Decode, Some(8), Some(0), Some(183.54))
        );
        assert_eq!(
            read("Decode batch, #running-req: 3, #token: 266624, token usage: 0.43, accept len: 1.67, accept rate: 0.13, pre-allocated usage: 0.22, #prealloc-req: 0, #transfer-req: 1, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 183.10, #queue-req: 0"),
            (Decode, Some(3), Some(0), Some(183.10))
        );
        assert_eq!(
            read("Decode batch [812], #running-req: 24, #token: 233600, token usage: 0.66, npu graph: True, gen throughput (token/s): 239.06, #queue-req: 2"),
            (Decode, Some(24), Some(2), Some(239.06))
        );
        assert_eq!(
            read("Prefill batch(mixed #running-req: 3). #new-seq: 1, #new-token: 24, #cached-token: 0, token usage: 0.01, #running-req: 3, #queue-req: 0"),
            (Prefill, Some(3), Some(0), None)
        );
        // Keys are whole: `#token` is not `#new-token`, `token usage` not `full token usage`.
        let f = figures("Prefill batch, #new-seq: 1, #new-token: 8192, #cached-token: 0, full token usage: 0.01, swa token usage: 0.01, #running-req: 0, #queue-req: 1, #pending-token: 46401, cuda graph: False, input throughput (token/s): 8072.80").unwrap();
        assert_eq!((f.running, f.queued), (Some(0), Some(1)));
        assert!(f.work_pending());
    }

    #[test]
    fn vllm_lines_of_every_era() {
        use ProgressKind::Stats;
        assert_eq!(
            read("Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 1055.3 tokens/s, Running: 18 reqs, Waiting: 43 reqs, GPU KV cache usage: 95.9%, Prefix cache hit rate: 0.0%"),
            (Stats, Some(18), Some(43), Some(1055.3))
        );
        assert_eq!(
            read("2 Engines Aggregated: Avg prompt throughput: 24.2 tokens/s, Avg generation throughput: 0.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.1%, Prefix cache hit rate: 0.0%"),
            (Stats, Some(1), Some(0), Some(0.0))
        );
        // V0, with and without its final period.
        assert_eq!(
            read("Avg prompt throughput: 522.1 tokens/s, Avg generation throughput: 263.1 tokens/s, Running: 106 reqs, Swapped: 0 reqs, Pending: 176 reqs, GPU KV cache usage: 98.9%, CPU KV cache usage: 0.0%."),
            (Stats, Some(106), Some(176), Some(263.1))
        );
        assert_eq!(
            read("Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 0.0 tokens/s, Running: 0 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 0.0%, CPU KV cache usage: 0.0%"),
            (Stats, Some(0), Some(0), Some(0.0))
        );
    }

    #[test]
    fn other_lines_are_not_progress() {
        for message in [
            "Decode batchless",
            "Load weight begin. avail mem=93.88 GB",
            "Avg prompt throughput",
            "Decode batch. ",
            "",
        ] {
            assert_eq!(figures(message), None, "{message}");
        }
        assert!(is_progress_line("Decode batch. #running-req: 1"));
    }

    #[test]
    fn numbers_read_as_a_full_parser_reads_them() {
        for text in
            ["3670.44", "0.229", "1055.3 tokens/s", "95.9%", "18 reqs", "0", "183.54", "123456789012.345"]
        {
            let full: f64 =
                text.split(|c: char| !(c.is_ascii_digit() || c == '.')).next().unwrap().parse().unwrap();
            assert_eq!(leading_number(text.as_bytes()), Some(full), "{text}");
        }
        assert_eq!(leading_number(b"1e3"), Some(1000.0));
        assert_eq!(leading_number(b"-"), None);
        assert_eq!(leading_count(b"18 reqs"), Some(18));
        assert_eq!(leading_count(b"reqs"), None);
        assert!(!is_progress_line("KV cache pool is full. Retract requests."));
    }
}
