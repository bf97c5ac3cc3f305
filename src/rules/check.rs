//! Rule self-tests: does a rule match its samples and not its
//! counter-samples? Samples are read by the same path as a log file
//! ([`events_of`]), so a sample may be a journal line, a traceback, several
//! lines of context, or a line with colour codes. When a sample fails,
//! [`why_not`] says what the rule saw and which condition refused it.

use super::{Rule, RuleSet};
use crate::events::{Event, LineRole};
use crate::pipeline::events_of;
use crate::report::escape::for_terminal;

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

/// Why rule `rule` does not match `sample`: the message it saw (after the
/// line's prefixes and level were read off), with its level and formats,
/// and the first of the rule's conditions that refused it. The line shown
/// is the one the message regex matches, if any, else the sample's first.
pub fn why_not(set: &RuleSet, rule: usize, sample: &str) -> String {
    let rule = set.rule(rule);
    let events = events_of(sample);
    let lines = events.iter().flat_map(|e| (0..e.lines.len()).map(move |i| (e, i)));
    let candidates: Vec<(&Event, usize)> = lines.filter(|(e, i)| !e.lines[*i].message().is_empty()).collect();
    let chosen = candidates
        .iter()
        .find(|(e, i)| rule.matcher.message.is_match(e.lines[*i].message()))
        .or(candidates.first());
    let Some(&(event, index)) = chosen else {
        return "the sample has no line with a message".into();
    };
    let line = &event.lines[index];
    let level = line.level.map_or("none", |l| l.name());
    let formats: Vec<&str> = line.formats.iter().map(|f| f.name()).collect();
    let formats = if formats.is_empty() { "none".to_string() } else { formats.join(", ") };
    let seen = format!(
        "the rule sees the message \"{}\" (level {level}; formats {formats})",
        for_terminal(line.message())
    );
    format!("{seen}: {}", refusal(rule, event, index))
}

/// The first condition of `rule` that refuses line `index` of `event`.
fn refusal(rule: &Rule, event: &Event, index: usize) -> String {
    let m = &rule.matcher;
    let line = &event.lines[index];
    let message = line.message();
    if !m.message.is_match(message) {
        let prefix = &line.text[..line.message_span.0 as usize];
        if !prefix.is_empty() && m.message.is_match(&line.text) {
            return format!(
                "the message regex matches the whole line but not the message; \"{}\" was read as the line's prefix{} (require it with `level` or `format`, not in the regex)",
                for_terminal(prefix.trim_end()),
                line.level.map_or(String::new(), |l| format!(" and its level {}", l.name()))
            );
        }
        return "the message regex does not match it".into();
    }
    if m.not.as_ref().is_some_and(|not| not.is_match(message)) {
        return "the `not` regex matches it".into();
    }
    if !m.levels.is_empty() && !line.level.is_some_and(|l| m.levels.contains(&l)) {
        let wanted: Vec<&str> = m.levels.iter().map(|l| l.name()).collect();
        return format!("its level is not one of {}", wanted.join(", "));
    }
    if !m.formats.is_empty() && !m.formats.iter().any(|f| line.formats.contains(*f)) {
        let wanted: Vec<&str> = m.formats.iter().map(|f| f.name()).collect();
        return format!("it carries none of the formats {}", wanted.join(", "));
    }
    if let Some(refused) = m.not_formats.iter().find(|f| line.formats.contains(**f)) {
        return format!("it carries the format {}, which `not_format` refuses", refused.name());
    }
    if m.exception.is_some() {
        if !matches!(line.role, LineRole::Exception | LineRole::ExceptionText) {
            return "`exception` asks for a traceback's exception line, and this line is not one".into();
        }
        let name = event.exception_type_at(index).unwrap_or("none");
        return format!("its exception is {name}, which the `exception` regex does not match");
    }
    if m.identifier.is_some() {
        let identifier = event.identifier().unwrap_or("none");
        return format!(
            "its writer's identifier is {identifier}, which the `identifier` regex does not match"
        );
    }
    if m.frame.is_some() {
        return "no frame of its traceback matches the `frame` regex".into();
    }
    "it matches every condition alone; the rule is refused where the whole log is judged (a fate's ending or subject)".into()
}
