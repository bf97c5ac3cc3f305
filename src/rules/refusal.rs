//! Why a rule refuses a line: its conditions, tested in the order they
//! are cheapest (the message regex last), and the verdicts of its regexes
//! that the prefilter remembers for other messages of the same shape.

use super::prefilter::{Candidate, Known};
use super::{LineFacts, RuleSet};
use crate::events::{Event, LineRole};

/// A rule condition that refused a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The `not` regex matches the message.
    Not,
    /// The line's level is not one of `level`.
    Level,
    /// The line carries none of `format`.
    Format,
    /// The line carries a format of `not_format`.
    NotFormat,
    /// `exception` is set and the line is no traceback's exception line.
    NoException,
    /// The line's exception type does not match `exception`.
    Exception,
    /// The writer's identifier does not match `identifier`.
    Identifier,
    /// No frame of the line's traceback matches `frame`.
    Frame,
    /// The message regex does not match.
    Message,
}

impl RuleSet {
    /// The first of a candidate rule's conditions that refuses a line, in
    /// the order they are cheapest to test (the message regex last), or
    /// `None` if every one holds.
    pub(super) fn refusal(
        &self,
        candidate: &mut Candidate,
        reference: &mut Vec<u8>,
        facts: &LineFacts<'_>,
    ) -> Option<Refusal> {
        let rule_index = candidate.rule;
        let (message_blind, not_blind) = self.blind[rule_index];
        let m = &self.rules[rule_index].matcher;
        let message = facts.message;
        if let Some(not) = &m.not {
            if verdict(&mut candidate.not, not_blind, not.get(), message, reference) {
                return Some(Refusal::Not);
            }
        }
        if !m.levels.is_empty() && !facts.level.is_some_and(|l| m.levels.contains(&l)) {
            return Some(Refusal::Level);
        }
        if !m.formats.is_empty() && !m.formats.iter().any(|f| facts.formats.contains(*f)) {
            return Some(Refusal::Format);
        }
        if m.not_formats.iter().any(|f| facts.formats.contains(*f)) {
            return Some(Refusal::NotFormat);
        }
        if let Some(exception) = &m.exception {
            // Only a traceback's lines name an exception.
            let Some(event) = facts.event else {
                return Some(Refusal::NoException);
            };
            if !matches!(event.lines[facts.index].role, LineRole::Exception | LineRole::ExceptionText) {
                return Some(Refusal::NoException);
            }
            let Some(name) = event.exception_type_at(facts.index) else {
                return Some(Refusal::NoException);
            };
            let last = name.rsplit('.').next().unwrap_or(name);
            if !(exception.is_match(name) || exception.is_match(last)) {
                return Some(Refusal::Exception);
            }
        }
        if let Some(identifier) = &m.identifier {
            if !facts.identifier.is_some_and(|i| identifier.is_match(i)) {
                return Some(Refusal::Identifier);
            }
        }
        if let Some(frame) = &m.frame {
            let any = facts.event.is_some_and(|event| {
                event.lines.iter().any(|l| l.role == LineRole::Frame && frame.is_match(l.message()))
            });
            if !any {
                return Some(Refusal::Frame);
            }
        }
        if !verdict(&mut candidate.message, message_blind, m.message.get(), message, reference) {
            return Some(Refusal::Message);
        }
        None
    }

    /// Which condition of rule `rule` refuses line `index` of `event`, if
    /// any (for `rules check` to say why a sample does not match).
    pub fn refusal_of(&self, rule: usize, event: &Event, index: usize) -> Option<Refusal> {
        self.refusal(&mut Candidate::of(rule), &mut Vec::new(), &LineFacts::of(event, index))
    }
}

/// Whether `regex` matches `message`: known from an earlier message of the
/// same shape, or found now, and then recorded in `known` if it tells of
/// other messages of the shape: any verdict of a `blind` regex; a match,
/// by the bytes it spans in the shape's `reference` message (this one, if
/// none is kept yet), when this message holds the same bytes there.
pub(super) fn verdict(
    known: &mut Known,
    blind: bool,
    regex: &regex::Regex,
    message: &str,
    reference: &mut Vec<u8>,
) -> bool {
    match *known {
        Known::Verdict(verdict) => return verdict,
        Known::MatchedAt(start, end) => {
            let span = start as usize..end as usize;
            if message.as_bytes().get(span.clone()) == reference.get(span) {
                return true;
            }
        }
        Known::Nothing => {}
    }
    if blind {
        let verdict = regex.is_match(message);
        *known = Known::Verdict(verdict);
        return verdict;
    }
    // Where a match lies costs a second search: only for a match.
    if !regex.is_match(message) {
        return false;
    }
    if *known == Known::Nothing {
        if reference.is_empty() {
            reference.extend_from_slice(message.as_bytes());
        }
        if let Some(found) =
            regex.find(message).filter(|f| reference.get(f.range()) == Some(f.as_str().as_bytes()))
        {
            *known = Known::MatchedAt(found.start() as u32, found.end() as u32);
        }
    }
    true
}
