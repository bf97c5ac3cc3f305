//! What a rule regex's syntax tree tells before the regex is compiled:
//! the literals every match contains (for the prefilter), whether its
//! verdict ignores which digits a message holds (for the shape memo), and
//! whether it names captures.
//!
//! These are functions of the pattern's text alone. Parsing the built-in
//! rules' few hundred patterns costs about as much as the rest of loading
//! them, so the build script computes their facts with this same module
//! (`build.rs` includes this file) and the binary looks them up by pattern
//! ([`RegexFacts::of`]); a user's pattern is parsed when loaded.
//!
//! This file uses nothing of the crate but `regex_syntax`: the build
//! script compiles it on its own.

use regex_syntax::hir::{Class, Hir, HirKind};

/// Shortest literal worth searching for; shorter ones match too often.
pub(super) const MIN_LITERAL: usize = 3;
/// Most literals one regex may contribute (large alternations give up).
pub(super) const MAX_LITERALS: usize = 64;

/// What the syntax tree of one regex tells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct RegexFacts {
    /// A set of literals every match contains at least one of (see
    /// [`required_literals`]); `None` when there is no such set.
    pub literals: Option<Vec<Vec<u8>>>,
    /// See [`digit_blind`].
    pub digit_blind: bool,
    /// Whether the regex names a capture group.
    pub named_captures: bool,
}

/// The facts of a built-in rule's regex, as the build script stores them.
#[derive(Debug)]
pub(super) struct StoredFacts {
    /// See [`RegexFacts::literals`].
    pub literals: Option<&'static [&'static [u8]]>,
    /// See [`RegexFacts::digit_blind`].
    pub digit_blind: bool,
    /// See [`RegexFacts::named_captures`].
    pub named_captures: bool,
}

impl RegexFacts {
    /// The facts of `pattern`: looked up in `stored` (sorted by pattern),
    /// or else parsed; `None` if it does not parse.
    pub(super) fn of(pattern: &str, stored: &[(&str, StoredFacts)]) -> Option<Self> {
        let Ok(found) = stored.binary_search_by(|(key, _)| (*key).cmp(pattern)) else {
            return Self::parse(pattern);
        };
        let facts = &stored[found].1;
        Some(RegexFacts {
            literals: facts.literals.map(|set| set.iter().map(|literal| literal.to_vec()).collect()),
            digit_blind: facts.digit_blind,
            named_captures: facts.named_captures,
        })
    }

    /// Parses `pattern` and reads its facts; `None` if it does not parse.
    pub(super) fn parse(pattern: &str) -> Option<Self> {
        let hir = regex_syntax::ParserBuilder::new().build().parse(pattern).ok()?;
        Some(RegexFacts {
            literals: required_literals(&hir),
            digit_blind: digit_blind(&hir),
            named_captures: named_captures(&hir),
        })
    }
}

/// Whether a regex gives the same verdict on any two texts that differ
/// only in which ASCII digits they hold: no literal has a digit, and every
/// class holds all ten digits or none. Its verdict on one message then
/// holds for every message of the same shape.
pub(super) fn digit_blind(hir: &Hir) -> bool {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => true,
        HirKind::Literal(literal) => !literal.0.iter().any(u8::is_ascii_digit),
        HirKind::Class(Class::Unicode(class)) => {
            let held = |d: char| class.iter().any(|r| r.start() <= d && d <= r.end());
            ('0'..='9').all(held) || !('0'..='9').any(held)
        }
        HirKind::Class(Class::Bytes(class)) => {
            let held = |d: u8| class.iter().any(|r| r.start() <= d && d <= r.end());
            (b'0'..=b'9').all(held) || !(b'0'..=b'9').any(held)
        }
        HirKind::Repetition(repetition) => digit_blind(&repetition.sub),
        HirKind::Capture(capture) => digit_blind(&capture.sub),
        HirKind::Concat(items) | HirKind::Alternation(items) => items.iter().all(digit_blind),
    }
}

/// Whether a regex names a capture group.
pub(super) fn named_captures(hir: &Hir) -> bool {
    match hir.kind() {
        HirKind::Capture(capture) => capture.name.is_some() || named_captures(&capture.sub),
        HirKind::Repetition(repetition) => named_captures(&repetition.sub),
        HirKind::Concat(items) | HirKind::Alternation(items) => items.iter().any(named_captures),
        _ => false,
    }
}

/// A set of literals every match of `hir` contains at least one of, each
/// at least [`MIN_LITERAL`] bytes; `None` when there is no such set.
pub(super) fn required_literals(hir: &Hir) -> Option<Vec<Vec<u8>>> {
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
            // Counted range by range: a class such as `\S` spans a million
            // characters.
            let ascii_count = class
                .iter()
                .filter(|r| r.start().is_ascii())
                .map(|r| r.end().min('\x7f') as usize - r.start() as usize + 1)
                .sum::<usize>();
            (one_letter && ascii_count <= 2 && first.is_ascii_alphanumeric())
                .then(|| vec![first.to_ascii_lowercase() as u8])
        }
        // What `(?i-u)` makes of a letter: its two ASCII cases as bytes.
        HirKind::Class(Class::Bytes(class)) => {
            let bytes: Vec<u8> = class.iter().flat_map(|r| r.start()..=r.end()).take(3).collect();
            let one_letter = match bytes[..] {
                [only] => only.is_ascii_alphanumeric(),
                [a, b] => a.is_ascii_alphabetic() && a.eq_ignore_ascii_case(&b) && a != b,
                _ => false,
            };
            one_letter.then(|| vec![bytes[0].to_ascii_lowercase()])
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn literals(pattern: &str) -> Option<Vec<String>> {
        let facts = RegexFacts::parse(pattern).expect("the pattern parses");
        facts.literals.map(|set| set.into_iter().map(|l| String::from_utf8(l).unwrap()).collect())
    }

    fn blind(pattern: &str) -> bool {
        RegexFacts::parse(pattern).is_some_and(|facts| facts.digit_blind)
    }

    #[test]
    fn ascii_case_insensitive_letters_are_literals_too() {
        assert_eq!(literals(r"(?i-u)\bWORKER TIMEOUT \(pid"), Some(vec!["worker timeout (pid".into()]));
        assert_eq!(
            literals(r"(?i-u)segmentation fault|bus error"),
            Some(vec!["segmentation fault".into(), "bus error".into()])
        );
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
    fn blind_regexes_cannot_tell_digits_apart() {
        assert!(blind(r"^(?:Decode|Prefill) batch[.,\[ ]"));
        assert!(blind(r"took \d+(\.\d+)? ?s\b"));
        assert!(blind(r"HTTP/[0-9.]+ \S+ \w+"));
        assert!(!blind(r"status=9/KILL"), "a digit in a literal");
        assert!(!blind(r#"" 2\d\d"#), "a digit in a literal");
        assert!(!blind(r"sm[5-7]\d"), "a class holding some digits");
        assert!(!blind(r"(unclosed"));
    }

    #[test]
    fn captures_are_named_or_not() {
        let named = |pattern: &str| RegexFacts::parse(pattern).unwrap().named_captures;
        assert!(named(r"^(?P<unit>\S+): Main process exited"));
        assert!(named(r"(?:a|b(?<gpu>\d+))+"));
        assert!(!named(r"(\d+) GiB"));
    }

    #[test]
    fn stored_facts_are_used_and_other_patterns_parsed() {
        // A stored entry is taken as it is, even where parsing would differ:
        // the lookup is by the pattern's text.
        let stored = [
            ("a+", StoredFacts { literals: Some(&[b"xyz"]), digit_blind: false, named_captures: true }),
            ("zz(", StoredFacts { literals: None, digit_blind: true, named_captures: false }),
        ];
        let facts = RegexFacts::of("a+", &stored).unwrap();
        assert_eq!(facts.literals, Some(vec![b"xyz".to_vec()]));
        assert!(facts.named_captures && !facts.digit_blind);
        assert_eq!(RegexFacts::of("zz(", &stored).map(|f| f.literals), Some(None));
        assert_eq!(RegexFacts::of("status=9/KILL", &stored), RegexFacts::parse("status=9/KILL"));
        assert_eq!(RegexFacts::of("(unclosed", &stored), None);
    }
}
