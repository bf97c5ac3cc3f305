//! The literal prefilter: most log lines match no rule, so each line is
//! first searched once for the literals the rules require, and only the
//! rules whose literals occur run their regex.
//!
//! For each rule's message regex, [`required_literals`] walks its syntax
//! tree and finds a set of literals such that every match contains at
//! least one of them (`Received sigquit`, `status=9/KILL`…). One
//! Aho-Corasick automaton holds all of them (ASCII case-insensitive, so
//! `(?i)` patterns fit). A rule whose regex has no such literals of at
//! least [`MIN_LITERAL`] bytes is a candidate on every line.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use regex_syntax::hir::{Class, Hir, HirKind};

/// Shortest literal worth searching for; shorter ones match too often.
const MIN_LITERAL: usize = 3;
/// Most literals one rule may contribute (large alternations give up).
const MAX_LITERALS: usize = 64;

/// Finds the rules that may match a line.
#[derive(Debug, Clone)]
pub struct Prefilter {
    automaton: AhoCorasick,
    /// For each automaton pattern, the rules that require it.
    owners: Vec<Vec<usize>>,
    /// Rules with no required literals, as a bit set: candidates on every
    /// line.
    always: Vec<u64>,
    unfiltered: usize,
}

/// Stands for a run of digits in a shape (never part of UTF-8 text).
const DIGITS: u8 = 0xff;
/// Shapes remembered per reader (a power of two).
const MEMO_SLOTS: usize = 1024;
/// Longer messages are not remembered (rarely repeated, costly to compare).
const MEMO_MAX_SHAPE: usize = 512;

/// Working memory for [`Prefilter::candidates`], one per reader. It
/// remembers the candidates of recent message shapes: a server repeats a
/// few line templates millions of times with only the numbers changing.
#[derive(Debug, Default, Clone)]
pub struct CandidateScratch {
    shape: Vec<u8>,
    bits: Vec<u64>,
    out: Vec<usize>,
    memo: Vec<MemoSlot>,
}

#[derive(Debug, Default, Clone)]
struct MemoSlot {
    shape: Vec<u8>,
    candidates: Vec<usize>,
}

impl Prefilter {
    /// Builds the prefilter for the rules' message regexes, in rule order.
    pub fn new<'a>(patterns: impl IntoIterator<Item = &'a str>) -> Self {
        let mut literals: Vec<Vec<u8>> = Vec::new();
        let mut owners: Vec<Vec<usize>> = Vec::new();
        let mut always = Vec::new();
        let mut unfiltered = 0;
        for (rule, pattern) in patterns.into_iter().enumerate() {
            if always.len() <= rule / 64 {
                always.push(0u64);
            }
            let hir = regex_syntax::ParserBuilder::new().build().parse(pattern).ok();
            match hir.as_ref().and_then(required_literals) {
                Some(set) => {
                    for literal in set {
                        let mut shaped = Vec::with_capacity(literal.len());
                        shape_into(&literal, &mut shaped);
                        match literals.iter().position(|l| *l == shaped) {
                            Some(i) => owners[i].push(rule),
                            None => {
                                literals.push(shaped);
                                owners.push(vec![rule]);
                            }
                        }
                    }
                }
                None => {
                    always[rule / 64] |= 1 << (rule % 64);
                    unfiltered += 1;
                }
            }
        }
        let automaton = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(&literals)
            .expect("literal patterns always build");
        Prefilter { automaton, owners, always, unfiltered }
    }

    /// The rules that may match `message`, in rule order.
    ///
    /// The literals are searched in the message's shape, where each run of
    /// digits is one [`DIGITS`] byte (the literals are shaped the same way),
    /// so lines that differ only in their numbers have the same candidates
    /// and the search runs once per shape. A literal found in a message is
    /// found in its shape, so no rule is lost; a few more may be tried.
    pub fn candidates<'s>(&self, message: &str, scratch: &'s mut CandidateScratch) -> &'s [usize] {
        let CandidateScratch { shape, bits, out, memo } = scratch;
        shape.clear();
        shape_into(message.as_bytes(), shape);
        if shape.len() > MEMO_MAX_SHAPE {
            self.search(shape, bits, out);
            return out;
        }
        if memo.is_empty() {
            memo.resize(MEMO_SLOTS, MemoSlot::default());
        }
        let slot = &mut memo[hash(shape) as usize & (MEMO_SLOTS - 1)];
        if slot.shape != *shape || slot.shape.is_empty() {
            self.search(shape, bits, &mut slot.candidates);
            slot.shape.clear();
            slot.shape.extend_from_slice(shape);
        }
        &slot.candidates
    }

    fn search(&self, shape: &[u8], bits: &mut Vec<u64>, out: &mut Vec<usize>) {
        bits.clear();
        bits.extend_from_slice(&self.always);
        for found in self.automaton.find_overlapping_iter(shape) {
            for &rule in &self.owners[found.pattern().as_usize()] {
                bits[rule / 64] |= 1 << (rule % 64);
            }
        }
        out.clear();
        for (word_index, &word) in bits.iter().enumerate() {
            let mut word = word;
            while word != 0 {
                out.push(word_index * 64 + word.trailing_zeros() as usize);
                word &= word - 1;
            }
        }
    }

    /// How many rules run on every line (no required literal).
    pub fn unfiltered(&self) -> usize {
        self.unfiltered
    }
}

/// Appends the shape of `bytes`: each run of ASCII digits becomes one
/// [`DIGITS`] byte. Eight bytes without a digit are copied at once; the
/// others are shaped without branches (digits and letters alternate too
/// often in log lines for a branch to be predicted).
fn shape_into(bytes: &[u8], shape: &mut Vec<u8>) {
    let start = shape.len();
    shape.resize(start + bytes.len(), 0);
    let out = &mut shape[start..];
    let mut len = 0;
    let mut after_digit = false;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        if !has_digit(word) {
            out[len..len + 8].copy_from_slice(chunk);
            len += 8;
            after_digit = false;
            continue;
        }
        for &b in chunk {
            shape_byte(b, out, &mut len, &mut after_digit);
        }
    }
    for &b in chunks.remainder() {
        shape_byte(b, out, &mut len, &mut after_digit);
    }
    shape.truncate(start + len);
}

/// Writes the shape of one byte at `out[*len]`; the write stays (and `len`
/// grows) unless the byte continues a run of digits.
#[inline(always)]
fn shape_byte(b: u8, out: &mut [u8], len: &mut usize, after_digit: &mut bool) {
    let digit = b.is_ascii_digit();
    out[*len] = if digit { DIGITS } else { b };
    *len += usize::from(!(digit && *after_digit));
    *after_digit = digit;
}

/// Whether any byte of `word` is an ASCII digit (0x30..=0x39).
fn has_digit(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // With each byte's high bit cleared no addition below carries into
    // the next byte; a byte with its high bit set is never a digit.
    let low = word & !HIGHS;
    // The high bit is set by adding 0x50 iff the byte is >= 0x30, and by
    // adding 0x46 iff it is >= 0x3a.
    let at_least_zero = low.wrapping_add(0x50 * ONES);
    let above_nine = low.wrapping_add(0x46 * ONES);
    (at_least_zero & !above_nine & !word & HIGHS) != 0
}

/// A fast, non-cryptographic hash of a shape (eight bytes at a time).
fn hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut h = bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        h = (h.rotate_left(5) ^ word).wrapping_mul(K);
    }
    for &b in chunks.remainder() {
        h = (h.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
    }
    h ^ (h >> 29)
}

/// A set of literals every match of `hir` contains at least one of, each
/// at least [`MIN_LITERAL`] bytes; `None` when there is no such set.
pub fn required_literals(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    match hir.kind() {
        HirKind::Literal(literal) => (literal.0.len() >= MIN_LITERAL).then(|| vec![literal.0.to_vec()]),
        HirKind::Capture(capture) => required_literals(&capture.sub),
        HirKind::Repetition(repetition) if repetition.min >= 1 => required_literals(&repetition.sub),
        HirKind::Alternation(branches) => {
            let mut set = Vec::new();
            for branch in branches {
                set.extend(required_literals(branch)?);
                if set.len() > MAX_LITERALS {
                    return None;
                }
            }
            Some(set)
        }
        HirKind::Concat(items) => best_in_concat(items),
        _ => None,
    }
}

/// In a concatenation: the longest run of consecutive literal characters,
/// or the best literal set of one of its parts.
fn best_in_concat(items: &[Hir]) -> Option<Vec<Vec<u8>>> {
    let mut best: Option<Vec<Vec<u8>>> = None;
    let mut consider = |set: Vec<Vec<u8>>| {
        let score = |s: &Vec<Vec<u8>>| s.iter().map(Vec::len).min().unwrap_or(0);
        if best.as_ref().is_none_or(|b| score(&set) > score(b)) {
            best = Some(set);
        }
    };
    let mut run: Vec<u8> = Vec::new();
    for item in items {
        if let Some(bytes) = literal_bytes(item) {
            run.extend_from_slice(&bytes);
            continue;
        }
        if run.len() >= MIN_LITERAL {
            consider(vec![std::mem::take(&mut run)]);
        }
        run.clear();
        if let Some(set) = required_literals(item) {
            consider(set);
        }
    }
    if run.len() >= MIN_LITERAL {
        consider(vec![run]);
    }
    best
}

/// The bytes an item always matches, if it is a literal or a class that is
/// one ASCII letter in either case (what `(?i)` makes of a letter).
fn literal_bytes(hir: &Hir) -> Option<Vec<u8>> {
    match hir.kind() {
        HirKind::Literal(literal) => Some(literal.0.to_vec()),
        HirKind::Class(Class::Unicode(class)) => {
            let mut letters = class.iter().flat_map(|r| (r.start()..=r.end()).take(4)).filter(char::is_ascii);
            let first = letters.next()?;
            let rest: Vec<char> = letters.collect();
            let one_letter = rest.iter().all(|c| c.eq_ignore_ascii_case(&first)) && rest.len() <= 1;
            let ascii_count =
                class.iter().map(|r| (r.start()..=r.end()).filter(char::is_ascii).count()).sum::<usize>();
            (one_letter && ascii_count <= 2 && first.is_ascii_alphanumeric())
                .then(|| vec![first.to_ascii_lowercase() as u8])
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn literals(pattern: &str) -> Option<Vec<String>> {
        let hir = regex_syntax::ParserBuilder::new().build().parse(pattern).unwrap();
        required_literals(&hir).map(|set| set.into_iter().map(|l| String::from_utf8(l).unwrap()).collect())
    }

    #[test]
    fn literals_that_every_match_contains() {
        assert_eq!(
            literals(r"Received sigquit from a child proc|SIGQUIT received\. signum=\d+"),
            Some(vec!["Received sigquit from a child proc".into(), "SIGQUIT received. signum=".into()])
        );
        assert_eq!(
            literals(r"^(?P<unit>\S+): Main process exited, code=killed, status=9/KILL"),
            Some(vec![": Main process exited, code=killed, status=9/KILL".into()])
        );
        assert_eq!(literals(r"(?i)watchdog timeout"), Some(vec!["watchdog timeout".into()]));
        assert_eq!(literals(r"^Killed(?:\s+.*)?$"), Some(vec!["Killed".into()]));
        assert_eq!(literals(r"\d+:\d+"), None);
        assert_eq!(literals(r"(?:ab)?cd"), None, "optional parts are not required and cd is too short");
    }

    #[test]
    fn digit_runs_become_one_byte() {
        for b in 0u8..=255 {
            for at in [0usize, 3, 7] {
                let mut bytes = *b"abcdefgh";
                bytes[at] = b;
                assert_eq!(has_digit(u64::from_le_bytes(bytes)), b.is_ascii_digit(), "{b:#x} at {at}");
            }
        }
        let mut shape = Vec::new();
        shape_into(b"Decode batch. #running-req: 966, #token: 1912680, usage: 0.11", &mut shape);
        assert_eq!(shape, b"Decode batch. #running-req: \xff, #token: \xff, usage: \xff.\xff".to_vec());
    }

    #[test]
    fn candidates_include_unfiltered_rules() {
        let filter = Prefilter::new([r"status=9/KILL", r"\d+", r"(?i)out of memory"]);
        assert_eq!(filter.unfiltered(), 1);
        let mut scratch = CandidateScratch::default();
        let line = "x.service: Main process exited, code=killed, status=9/KILL";
        assert_eq!(filter.candidates(line, &mut scratch), [0, 1]);
        assert_eq!(filter.candidates("CUDA OUT OF MEMORY", &mut scratch), [1, 2]);
        // Remembered by shape: other numbers, same candidates.
        assert_eq!(filter.candidates(line, &mut scratch), [0, 1]);
        assert_eq!(filter.candidates("x.service: code=killed, status=15/TERM", &mut scratch), [1]);
    }
}
