//! Rule self-tests: does a rule match its samples and not its
//! counter-samples? Samples are read by the same path as a log file
//! ([`events_of`]), so a sample may be a journal line, a traceback, several
//! lines of context, or a line with colour codes.

use super::RuleSet;
use crate::pipeline::events_of;

/// True if rule `rule` of `set` matches some line of `sample`.
pub fn matches(set: &RuleSet, rule: usize, sample: &str) -> bool {
    let mut found = Vec::new();
    for event in events_of(sample) {
        set.match_event_with(rule, &event, &mut found);
        if !found.is_empty() {
            return true;
        }
    }
    false
}
