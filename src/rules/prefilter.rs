//! The literal prefilter: most log lines match no rule, so each line is
//! first searched once for the literals the rules require, and only the
//! rules whose literals occur run their regex.
//!
//! Each rule's message regex comes with a set of literals such that every
//! match contains at least one of them (`Received sigquit`,
//! `status=9/KILL`…; see [`required_literals`]). One Aho-Corasick automaton
//! holds all of them (ASCII case-insensitive, so `(?i)` patterns fit). A
//! rule whose regex has no such literals is a candidate on every line.
//!
//! [`required_literals`]: super::regex_facts::required_literals

use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, BuildError, MatchKind};

use crate::framing::digit_bytes;

/// Searches a reader makes before the prefilter builds its faster
/// automaton (text whose lines rarely repeat a shape).
const SEARCHES_BEFORE_DFA: u32 = 4096;

/// Finds the rules that may match a line.
#[derive(Debug, Clone)]
pub(super) struct Prefilter {
    /// The shaped literals, in an automaton that is quick to build.
    automaton: AhoCorasick,
    /// The same as a DFA: about twice as fast to search, but it takes
    /// 15 ms and 4 MiB to build, so it is built only for a reader that
    /// keeps meeting new shapes (varied text, where the memo helps little).
    dfa: OnceLock<AhoCorasick>,
    literals: Vec<Vec<u8>>,
    /// For each automaton pattern, the rules that require it.
    owners: Vec<Vec<usize>>,
    /// Rules with no required literals, as a bit set: candidates on every
    /// line.
    always: Vec<u64>,
    unfiltered: usize,
}

/// Stands for a digit in a message's shape (never part of UTF-8 text).
const DIGIT: u8 = 0xff;
/// Shapes remembered per reader (a power of two).
const MEMO_SLOTS: usize = 4096;
/// Longer messages are not remembered (rarely repeated, costly to compare).
const MEMO_MAX_SHAPE: usize = 512;

/// A rule that may match a message, and what is already known of its
/// regexes' verdicts on messages of the same shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Candidate {
    /// Index of the rule.
    pub rule: usize,
    /// What is known of its message regex on this shape.
    pub message: Known,
    /// What is known of its `not` regex on this shape.
    pub not: Known,
}

impl Candidate {
    /// A candidate of which nothing is known yet.
    pub(super) fn of(rule: usize) -> Self {
        Candidate { rule, message: Known::Nothing, not: Known::Nothing }
    }
}

/// What is known of a regex's verdict on the messages of one shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Known {
    /// Nothing yet.
    Nothing,
    /// The verdict on every message of the shape (the regex is
    /// [`digit_blind`](super::regex_facts::digit_blind)).
    Verdict(bool),
    /// The regex matched these bytes of the shape's reference message
    /// (see [`Shaped::reference`]): it matches every message of the shape
    /// that holds the same bytes there. A match depends on the bytes it spans
    /// and, through its assertions (`^`, `$`, `\b`), on where they lie and
    /// on the kind of character around them, which a shape keeps.
    MatchedAt(u32, u32),
}

/// The candidates of a message, and the message of its shape to which
/// [`Known::MatchedAt`] refers.
pub(super) struct Shaped<'s> {
    /// The rules that may match, in rule order.
    pub candidates: &'s mut [Candidate],
    /// The message of the shape whose bytes a [`Known::MatchedAt`] names:
    /// kept when the first match is recorded (empty until then: most
    /// shapes never need it).
    pub reference: &'s mut Vec<u8>,
}

/// Working memory for [`Prefilter::candidates`], one per reader. It
/// remembers the candidates of recent message shapes: a server repeats a
/// few line templates millions of times with only the numbers changing.
#[derive(Debug, Default, Clone)]
pub(super) struct CandidateScratch {
    shape: Vec<u64>,
    bytes: Vec<u8>,
    bits: Vec<u64>,
    out: Vec<Candidate>,
    /// The reference of a message too long to remember (never reused).
    unkept: Vec<u8>,
    memo: Vec<MemoSlot>,
    /// Literal searches made so far (memo misses).
    searches: u32,
}

#[derive(Debug, Clone)]
struct MemoSlot {
    /// The shape's hash.
    hash: u64,
    /// The shape's length in bytes; `usize::MAX` for an empty slot.
    len: usize,
    shape: Vec<u64>,
    candidates: Vec<Candidate>,
    /// See [`Shaped::reference`].
    reference: Vec<u8>,
}

impl Default for MemoSlot {
    fn default() -> Self {
        MemoSlot {
            hash: 0,
            len: usize::MAX,
            shape: Vec::new(),
            candidates: Vec::new(),
            reference: Vec::new(),
        }
    }
}

impl Prefilter {
    /// Builds the prefilter for the rules' message regexes, in rule order,
    /// from each one's required literals (`None` if it has none or does
    /// not parse: such a rule is a candidate on every line).
    pub(super) fn new<'a>(required: impl IntoIterator<Item = Option<&'a [Vec<u8>]>>) -> Self {
        let mut literals: Vec<Vec<u8>> = Vec::new();
        let mut owners: Vec<Vec<usize>> = Vec::new();
        let mut always = Vec::new();
        let mut unfiltered = 0;
        for (rule, set) in required.into_iter().enumerate() {
            if always.len() <= rule / 64 {
                always.push(0u64);
            }
            match set {
                Some(set) => {
                    for literal in set {
                        let shaped = shape_literal(literal);
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
        let automaton = automaton(&literals, None).expect("literal patterns always build");
        Prefilter { automaton, dfa: OnceLock::new(), literals, owners, always, unfiltered }
    }

    /// The rules that may match `message`, in rule order.
    ///
    /// The literals are searched in the message's shape, where each ASCII
    /// digit is one [`DIGIT`] byte (the literals are shaped the same way),
    /// so lines that differ only in their numbers have the same candidates
    /// and the search runs once per shape. A literal found in a message is
    /// found in its shape, so no rule is lost; a few more may be tried.
    /// The candidates are remembered with their shape, so what is known
    /// of their regexes' verdicts ([`Known`]) holds for later messages.
    pub(super) fn candidates<'s>(&self, message: &str, scratch: &'s mut CandidateScratch) -> Shaped<'s> {
        let CandidateScratch { shape, bytes, bits, out, unkept, memo, searches } = scratch;
        let len = message.len();
        let hash = shape_words(message.as_bytes(), shape);
        if len > MEMO_MAX_SHAPE {
            self.search(shape_bytes(shape, len, bytes), searches, bits, out);
            unkept.clear();
            return Shaped { candidates: out, reference: unkept };
        }
        if memo.is_empty() {
            memo.resize(MEMO_SLOTS, MemoSlot::default());
        }
        let slot = &mut memo[hash as usize & (MEMO_SLOTS - 1)];
        let same = slot.hash == hash && slot.len == len && slot.shape[..] == shape[..];
        if !same {
            self.search(shape_bytes(shape, len, bytes), searches, bits, &mut slot.candidates);
            slot.hash = hash;
            slot.len = len;
            slot.shape.clear();
            slot.shape.extend_from_slice(shape);
            slot.reference.clear();
        }
        Shaped { candidates: &mut slot.candidates, reference: &mut slot.reference }
    }

    fn search(&self, shape: &[u8], searches: &mut u32, bits: &mut Vec<u64>, out: &mut Vec<Candidate>) {
        *searches = searches.saturating_add(1);
        let automaton = if *searches > SEARCHES_BEFORE_DFA {
            self.dfa.get_or_init(|| {
                automaton(&self.literals, Some(AhoCorasickKind::DFA))
                    .unwrap_or_else(|_| self.automaton.clone())
            })
        } else {
            &self.automaton
        };
        bits.clear();
        bits.extend_from_slice(&self.always);
        for found in automaton.find_overlapping_iter(shape) {
            for &rule in &self.owners[found.pattern().as_usize()] {
                bits[rule / 64] |= 1 << (rule % 64);
            }
        }
        out.clear();
        for (word_index, &word) in bits.iter().enumerate() {
            let mut word = word;
            while word != 0 {
                let rule = word_index * 64 + word.trailing_zeros() as usize;
                out.push(Candidate::of(rule));
                word &= word - 1;
            }
        }
    }

    /// How many rules run on every line (no required literal).
    pub(super) fn unfiltered(&self) -> usize {
        self.unfiltered
    }
}

/// The shaped literals as one automaton (ASCII case-insensitive, so `(?i)`
/// patterns fit) of `kind` (the builder's choice if `None`).
fn automaton(literals: &[Vec<u8>], kind: Option<AhoCorasickKind>) -> Result<AhoCorasick, BuildError> {
    AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::Standard)
        .kind(kind)
        .build(literals)
}

/// Writes the shape of `bytes` as little-endian words and returns its
/// hash. The last word is padded with zeros; shapes of different lengths
/// are told apart by their length. Eight bytes at a time, no branches; the
/// words are mixed by a rotation only (a multiplication per word would be
/// a chain of slow steps) and the sum once at the end.
fn shape_words(bytes: &[u8], shape: &mut Vec<u64>) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let chunks = bytes.chunks_exact(8);
    let rest = chunks.remainder();
    shape.clear();
    shape.extend(chunks.map(|chunk| shape_word(u64::from_le_bytes(chunk.try_into().expect("eight bytes")))));
    if !rest.is_empty() {
        // Gathered by shifts (a padded copy read back as a word stalls).
        let last = rest.iter().rev().fold(0u64, |word, &b| (word << 8) | u64::from(b));
        shape.push(shape_word(last));
    }
    let sum = shape.iter().fold(bytes.len() as u64, |sum, &word| sum.rotate_left(23) ^ word);
    let hash = sum.wrapping_mul(K);
    hash ^ (hash >> 31)
}

/// The bytes of a shape written by [`shape_words`], for the literal search.
fn shape_bytes<'b>(shape: &[u64], len: usize, bytes: &'b mut Vec<u8>) -> &'b [u8] {
    bytes.clear();
    bytes.extend(shape.iter().flat_map(|w| w.to_le_bytes()));
    bytes.truncate(len);
    bytes
}

/// Shapes the bytes of a word: each ASCII digit becomes [`DIGIT`], every
/// other byte stays.
fn shape_word(word: u64) -> u64 {
    word | ((digit_bytes(word) >> 7) * 0xff)
}

/// The shape of a literal (see [`shape_word`]).
fn shape_literal(literal: &[u8]) -> Vec<u8> {
    literal.iter().map(|&b| if b.is_ascii_digit() { DIGIT } else { b }).collect()
}

#[cfg(test)]
mod tests {
    use super::super::regex_facts::RegexFacts;
    use super::*;

    fn filter(patterns: &[&str]) -> Prefilter {
        let facts: Vec<_> = patterns.iter().map(|p| RegexFacts::parse(p)).collect();
        Prefilter::new(facts.iter().map(|f| f.as_ref().and_then(|f| f.literals.as_deref())))
    }

    #[test]
    fn each_digit_becomes_one_shape_byte() {
        for b in 0u8..=255 {
            for at in [0usize, 3, 7] {
                let mut bytes = *b"abcdefgh";
                bytes[at] = b;
                let mut expected = bytes;
                expected[at] = if b.is_ascii_digit() { DIGIT } else { b };
                assert_eq!(shape_word(u64::from_le_bytes(bytes)).to_le_bytes(), expected, "{b:#x} at {at}");
            }
        }
        let message = b"Decode batch. #running-req: 966, usage: 0.11";
        let mut shape = Vec::new();
        shape_words(message, &mut shape);
        let mut bytes = Vec::new();
        assert_eq!(
            shape_bytes(&shape, message.len(), &mut bytes),
            b"Decode batch. #running-req: \xff\xff\xff, usage: \xff.\xff\xff"
        );
    }

    fn rules(shaped: Shaped<'_>) -> Vec<usize> {
        shaped.candidates.iter().map(|c| c.rule).collect()
    }

    #[test]
    fn candidates_include_unfiltered_rules() {
        let filter = filter(&[r"status=9/KILL", r"\d+", r"(?i)out of memory"]);
        assert_eq!(filter.unfiltered(), 1);
        let mut scratch = CandidateScratch::default();
        let line = "x.service: Main process exited, code=killed, status=9/KILL";
        assert_eq!(rules(filter.candidates(line, &mut scratch)), [0, 1]);
        assert_eq!(rules(filter.candidates("CUDA OUT OF MEMORY", &mut scratch)), [1, 2]);
        assert_eq!(rules(filter.candidates(line, &mut scratch)), [0, 1]);
        // The shape keeps the digits' places: a literal's digit matches
        // any digit (one more candidate), and lengths still count.
        assert_eq!(rules(filter.candidates("code=killed, status=6/KILL", &mut scratch)), [0, 1]);
        assert_eq!(rules(filter.candidates("code=killed, status=15/KILL", &mut scratch)), [1]);
        assert_eq!(rules(filter.candidates("", &mut scratch)), [1]);
    }

    #[test]
    fn the_faster_automaton_finds_the_same_rules() {
        let filter = filter(&[r"status=9/KILL", r"\d+", r"(?i)out of memory", r"sm75|sm80"]);
        // Every line a new shape: a word spelt from its number in letters.
        let word = |mut i: u32| {
            let mut w = String::new();
            loop {
                w.push(char::from(b'a' + (i % 26) as u8));
                i /= 26;
                if i == 0 {
                    break w;
                }
            }
        };
        let lines: Vec<String> = (0..SEARCHES_BEFORE_DFA + 50)
            .map(|i| match i % 4 {
                0 => format!("{}.service: code=killed, status=9/KILL", word(i)),
                1 => format!("CUDA OUT OF MEMORY on {}", word(i)),
                2 => format!("needs sm75 or {}", word(i)),
                _ => format!("nothing {}", word(i)),
            })
            .collect();
        let expected = |line: &str| match line {
            l if l.contains("KILL") => vec![0, 1],
            l if l.contains("MEMORY") => vec![1, 2],
            l if l.contains("sm75") => vec![1, 3],
            _ => vec![1],
        };
        let mut scratch = CandidateScratch::default();
        for line in &lines {
            assert_eq!(rules(filter.candidates(line, &mut scratch)), expected(line), "{line}");
        }
        assert!(scratch.searches > SEARCHES_BEFORE_DFA && filter.dfa.get().is_some(), "the DFA was used");
    }

    #[test]
    fn verdicts_are_remembered_with_the_shape() {
        let filter = filter(&[r"batch \d+"]);
        let mut scratch = CandidateScratch::default();
        filter.candidates("batch 12 done", &mut scratch).candidates[0].message = Known::Verdict(true);
        let same = filter.candidates("batch 34 done", &mut scratch);
        assert_eq!(same.candidates[0].message, Known::Verdict(true));
        let other = filter.candidates("batch 345 done", &mut scratch);
        assert_eq!(other.candidates[0].message, Known::Nothing, "another shape");
    }
}
