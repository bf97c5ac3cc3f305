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
    /// Rules with no required literals: candidates on every line.
    always: Vec<usize>,
    rules: usize,
}

impl Prefilter {
    /// Builds the prefilter for the rules' message regexes, in rule order.
    pub fn new<'a>(patterns: impl IntoIterator<Item = &'a str>) -> Self {
        let mut literals: Vec<Vec<u8>> = Vec::new();
        let mut owners: Vec<Vec<usize>> = Vec::new();
        let mut always = Vec::new();
        let mut rules = 0;
        for (rule, pattern) in patterns.into_iter().enumerate() {
            rules += 1;
            let hir = regex_syntax::ParserBuilder::new().build().parse(pattern).ok();
            match hir.as_ref().and_then(required_literals) {
                Some(set) => {
                    for literal in set {
                        let literal = literal.to_ascii_lowercase();
                        match literals.iter().position(|l| *l == literal) {
                            Some(i) => owners[i].push(rule),
                            None => {
                                literals.push(literal);
                                owners.push(vec![rule]);
                            }
                        }
                    }
                }
                None => always.push(rule),
            }
        }
        let automaton = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(&literals)
            .expect("literal patterns always build");
        Prefilter { automaton, owners, always, rules }
    }

    /// The rules that may match `message`, in rule order, into `out`
    /// (cleared first). `seen` is scratch space reused between calls.
    pub fn candidates(&self, message: &str, out: &mut Vec<usize>, seen: &mut Vec<bool>) {
        out.clear();
        seen.clear();
        seen.resize(self.rules, false);
        for rule in &self.always {
            seen[*rule] = true;
        }
        for found in self.automaton.find_overlapping_iter(message) {
            for &rule in &self.owners[found.pattern().as_usize()] {
                seen[rule] = true;
            }
        }
        out.extend(seen.iter().enumerate().filter(|(_, s)| **s).map(|(i, _)| i));
    }

    /// How many rules run on every line (no required literal).
    pub fn unfiltered(&self) -> usize {
        self.always.len()
    }
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
    fn candidates_include_unfiltered_rules() {
        let filter = Prefilter::new([r"status=9/KILL", r"\d+", r"(?i)out of memory"]);
        assert_eq!(filter.unfiltered(), 1);
        let (mut out, mut seen) = (Vec::new(), Vec::new());
        filter.candidates("x.service: Main process exited, code=killed, status=9/KILL", &mut out, &mut seen);
        assert_eq!(out, vec![0, 1]);
        filter.candidates("CUDA OUT OF MEMORY", &mut out, &mut seen);
        assert_eq!(out, vec![1, 2]);
    }
}
