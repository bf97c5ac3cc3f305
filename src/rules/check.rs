//! Rule self-tests: does a rule match its samples and not its
//! counter-samples? Samples are read by the same path as a log file
//! ([`events_of`]), so a sample may be a journal line, a traceback, several
//! lines of context, or a line with colour codes. When a sample fails,
//! [`why_not`] says what the rule saw and which condition refused it.

use super::{Refusal, RuleSet};
use crate::events::Event;
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

/// Why rule `rule_index` does not match `sample`: the message it saw (after the
/// line's prefixes and level were read off), with its level and formats,
/// and the first of the rule's conditions that refused it. The line shown
/// is the one the message regex matches, if any, else the sample's first.
pub fn why_not(set: &RuleSet, rule_index: usize, sample: &str) -> String {
    let rule = set.rule(rule_index);
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
    format!("{seen}: {}", refusal(set, rule_index, event, index))
}

/// Why the first condition of rule `rule` that refuses line `index` of
/// `event` refuses it, in words.
fn refusal(set: &RuleSet, rule: usize, event: &Event, index: usize) -> String {
    let m = &set.rule(rule).matcher;
    let line = &event.lines[index];
    let names = |items: &mut dyn Iterator<Item = &'static str>| items.collect::<Vec<_>>().join(", ");
    match set.refusal_of(rule, event, index) {
        Some(Refusal::Message) => {
            let prefix = &line.text[..line.message_span.0 as usize];
            if prefix.is_empty() || !m.message.is_match(&line.text) {
                return "the message regex does not match it".into();
            }
            format!(
                "the message regex matches the whole line but not the message; \"{}\" was read as the line's prefix{} (require it with `level` or `format`, not in the regex)",
                for_terminal(prefix.trim_end()),
                line.level.map_or(String::new(), |l| format!(" and its level {}", l.name()))
            )
        }
        Some(Refusal::Not) => "the `not` regex matches it".into(),
        Some(Refusal::Level) => {
            format!("its level is not one of {}", names(&mut m.levels.iter().map(|l| l.name())))
        }
        Some(Refusal::Format) => {
            format!("it carries none of the formats {}", names(&mut m.formats.iter().map(|f| f.name())))
        }
        Some(Refusal::NotFormat) => {
            format!("it carries a format that `not_format` refuses ({})", names(&mut m.not_formats.iter().map(|f| f.name())))
        }
        Some(Refusal::NoException) => {
            "`exception` asks for a traceback's exception line, and this line is not one".into()
        }
        Some(Refusal::Exception) => format!(
            "its exception is {}, which the `exception` regex does not match",
            event.exception_type_at(index).unwrap_or("none")
        ),
        Some(Refusal::Identifier) => format!(
            "its writer's identifier is {}, which the `identifier` regex does not match",
            event.identifier().unwrap_or("none")
        ),
        Some(Refusal::Frame) => "no frame of its traceback matches the `frame` regex".into(),
        None => "it matches every condition alone; the rule is refused where the whole log is judged (a fate's ending or subject)".into(),
    }
}
