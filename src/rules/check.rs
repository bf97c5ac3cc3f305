//! Rule self-tests: does a rule match its samples and not its
//! counter-samples? Samples go through the same framing and grouping as
//! real input, so a sample may be a journal line, a traceback, or several
//! lines of context.

use super::RuleSet;
use crate::events::parse_text;

/// True if rule `rule` of `set` matches some line of `sample`.
pub fn matches(set: &RuleSet, rule: usize, sample: &str) -> bool {
    let mut found = Vec::new();
    for event in parse_text(sample) {
        set.match_event_with(rule, &event, &mut found);
        if !found.is_empty() {
            return true;
        }
    }
    false
}
