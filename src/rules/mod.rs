//! Rules: what logdiag knows, as data.
//!
//! One TOML file per phenomenon (`rules/<area>/<id>.toml`, documented in
//! `rules/README.md`). Built-in rules are embedded in the binary and loaded
//! by the same code as `--rules DIR` ([`load`]). A rule has a role:
//!
//! - `cause`: can be a root cause;
//! - `symptom`: a consequence; alone it never names a cause;
//! - `confirm`: evidence that turns a symptom into a cause;
//! - `benign`: scary but harmless; silences other rules on the same line;
//! - `marker`: lifecycle (start, ready, progress, stop, exit);
//! - `fate`: a statement that a process ended, in any supervisor's words;
//!   how it ended decides what it means ([`fate`]).
//!
//! [`RuleSet::match_event`] finds every line of an event that a rule
//! matches, each match with the role and category it has on that line;
//! judging those matches is the engine's job.

pub mod category;
pub mod check;
mod error;
pub mod fate;
mod lazy;
pub mod load;
mod match_spec;
mod prefilter;
mod refusal;
mod regex_facts;
mod schema;
pub mod wording;

use crate::events::Event;
use crate::framing::{Format, FormatSet, Level, Record};

pub use category::Category;
pub use lazy::LazyRegex;
pub use load::{LoadOptions, RuleError};
pub use refusal::Refusal;

/// The literals every match of `pattern` contains one of, as the
/// prefilter finds them; `None` when there is no such set (or the pattern
/// does not parse).
pub fn required_literals(pattern: &str) -> Option<Vec<Vec<u8>>> {
    regex_facts::RegexFacts::parse(pattern)?.literals
}
use prefilter::Candidate;
use regex_facts::RegexFacts;

crate::named_enum! {
    /// What a rule's finding means.
    #[derive(PartialOrd, Ord)]
    pub enum Role {
        /// Can be a root cause.
        Cause = "cause",
        /// Evidence that turns a symptom into a cause.
        Confirm = "confirm",
        /// A consequence of a failure.
        Symptom = "symptom",
        /// Scary but harmless.
        Benign = "benign",
        /// A lifecycle event.
        Marker = "marker",
        /// A process ended: a cause or a symptom by how it ended. A match
        /// never keeps this role ([`LineMatch::role`]).
        Fate = "fate",
    }
}

crate::named_enum! {
    /// The lifecycle event a marker rule records.
    pub enum MarkerKind {
        /// A launch begins (a new run may start here).
        Start = "start",
        /// The server is ready to serve.
        Ready = "ready",
        /// Work is getting done: start-up phases, batches, requests.
        Progress = "progress",
        /// An operator asked the program to stop.
        Stop = "stop",
        /// The program or unit ended (cleanly or not).
        Exit = "exit",
    }
}

/// How far a launch has got when a start marker is seen, in order: a
/// start marker at a stage this run has already reached begins a new run
/// (a relaunch). Rule files give it as its number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    /// 0: systemd is starting the unit.
    UnitStarting,
    /// 1: systemd started the unit.
    UnitStarted,
    /// 2: the program itself launches (its banner, its arguments).
    Launch,
}

impl Stage {
    /// The stage numbered `number` in rule files.
    pub fn from_number(number: u8) -> Option<Stage> {
        [Stage::UnitStarting, Stage::UnitStarted, Stage::Launch].get(usize::from(number)).copied()
    }
}

/// The compiled match conditions of a rule.
#[derive(Debug, Clone)]
pub struct Matcher {
    /// Regex on a line's message.
    pub message: LazyRegex,
    /// Regex the message must not match.
    pub not: Option<LazyRegex>,
    /// Anchored regex on the exception type (whole or last dotted part).
    pub exception: Option<LazyRegex>,
    /// Regex on some frame line of the event.
    pub frame: Option<LazyRegex>,
    /// Anchored regex on the stream's identifier.
    pub identifier: Option<LazyRegex>,
    /// Levels the line must carry; empty means any.
    pub levels: Vec<Level>,
    /// Prefix formats the line must carry one of; empty means any.
    pub formats: Vec<Format>,
    /// Prefix formats the line must not carry.
    pub not_formats: Vec<Format>,
}

/// A loaded, compiled rule.
#[derive(Debug, Clone)]
pub struct Rule {
    /// Unique id, `area.name`.
    pub id: String,
    /// The file it came from (`rules/flashinfer/arch-check.toml`).
    pub file: String,
    /// Its role.
    pub role: Role,
    /// Its category, if any.
    pub category: Option<Category>,
    /// Title template (`{name}` → named capture).
    pub title: String,
    /// What to do next.
    pub hint: Option<String>,
    /// What the line means when something else explains it.
    pub why: Option<String>,
    /// Tie-breaker among rules matching one event.
    pub priority: i32,
    /// The matched line records a death.
    pub terminal: bool,
    /// The failure counts even after an orderly stop.
    pub counts_after_stop: bool,
    /// The line is a handler's announcement of an error it caught: the
    /// traceback right after it is that error's, and was caught.
    pub announces: bool,
    /// The line summarises how something ended: any other finding or
    /// failure tells more.
    pub summary: bool,
    /// Indices of rules whose findings this rule's finding explains.
    pub explains: Vec<usize>,
    /// For confirm rules: indices of the symptoms it confirms.
    pub confirms: Vec<usize>,
    /// For marker rules: the kind.
    pub marker: Option<MarkerKind>,
    /// For start markers: the launch stage.
    pub stage: Stage,
    /// For progress markers: the start-up phase.
    pub phase: Option<String>,
    /// Match conditions.
    pub matcher: Matcher,
    /// Excerpts that must match.
    pub samples: Vec<String>,
    /// Excerpts that must not match.
    pub counter_samples: Vec<String>,
}

impl Rule {
    /// The title with `{name}` placeholders filled from `captures`.
    pub fn render_title(&self, captures: &[(String, String)]) -> String {
        fill_placeholders(&self.title, captures)
    }

    /// The hint with `{name}` placeholders filled from `captures`, when it
    /// has any (`coredumpctl info {pid}`); `None` when the hint is the
    /// rule's text as written.
    pub fn render_hint(&self, captures: &[(String, String)]) -> Option<String> {
        let hint = self.hint.as_deref()?;
        placeholders(hint).next().is_some().then(|| fill_placeholders(hint, captures))
    }
}

/// The `{name}` placeholders of a title or hint: a name of letters, digits
/// and `_` between braces. Other braces (`{{.State.OOMKilled}}`, a shell's
/// `${VAR}`) are text. Yields each name with the byte range of its braces.
pub fn placeholders(template: &str) -> impl Iterator<Item = (&str, std::ops::Range<usize>)> {
    let bytes = template.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        while let Some(found) = template[at..].find('{') {
            let open = at + found;
            at = open + 1;
            let name_len =
                bytes[open + 1..].iter().take_while(|b| b.is_ascii_alphanumeric() || **b == b'_').count();
            let close = open + 1 + name_len;
            let doubled = open > 0 && matches!(bytes[open - 1], b'{' | b'$');
            if name_len > 0
                && bytes.get(close) == Some(&b'}')
                && !doubled
                && !bytes[open + 1].is_ascii_digit()
            {
                at = close + 1;
                return Some((&template[open + 1..close], open..close + 1));
            }
        }
        None
    })
}

/// `template` with each placeholder replaced by its capture, or `?` for a
/// group that took no part in the match.
fn fill_placeholders(template: &str, captures: &[(String, String)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut copied = 0;
    for (name, braces) in placeholders(template) {
        out.push_str(&template[copied..braces.start]);
        match captures.iter().find(|(n, _)| n == name) {
            Some((_, value)) => out.push_str(value),
            None => out.push('?'),
        }
        copied = braces.end;
    }
    out.push_str(&template[copied..]);
    out
}

/// One rule matching one line of an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineMatch {
    /// Index of the rule in its [`RuleSet`].
    pub rule: usize,
    /// Index of the line in the event.
    pub line: usize,
    /// Named captures of the message regex (for a fate rule, also
    /// `ending` and `subject`: [`fate::title_captures`]).
    pub captures: Captures,
    /// The role the match has: the rule's, or for a fate rule the one its
    /// ending gives ([`fate::read`]).
    pub role: Role,
    /// The category the match names: the rule's, or the one a fate line's
    /// ending gives.
    pub category: Option<Category>,
}

/// The named captures of a match, name and value. Most matches have none:
/// then they take one word, and a line's matches move as small values.
// Boxed for its size: one word, where a `Vec` takes three in every match.
#[allow(clippy::box_collection)]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Captures(Option<Box<Vec<(String, String)>>>);

impl Captures {
    /// Adds a capture.
    pub fn push(&mut self, name: String, value: String) {
        self.0.get_or_insert_with(Box::default).push((name, value));
    }

    /// Sets a capture: replaces the value of the one of that name, or adds it.
    pub fn set(&mut self, name: &str, value: String) {
        let list = self.0.get_or_insert_with(Box::default);
        match list.iter_mut().find(|(n, _)| n == name) {
            Some((_, old)) => *old = value,
            None => list.push((name.to_string(), value)),
        }
    }
}

impl std::ops::Deref for Captures {
    type Target = [(String, String)];

    fn deref(&self) -> &Self::Target {
        self.0.as_deref().map_or(&[], Vec::as_slice)
    }
}

/// A set of compiled rules with a prefilter over their message regexes.
#[derive(Debug)]
pub struct RuleSet {
    rules: Vec<Rule>,
    prefilter: prefilter::Prefilter,
    /// For each rule: whether its message and `not` regexes are
    /// [`regex_facts::digit_blind`], so their verdicts can be remembered.
    blind: Vec<(bool, bool)>,
    /// For each rule: whether its message regex names captures.
    captures: Vec<bool>,
    /// The built-in rules are loaded, so what their words teach
    /// ([`wording::WordingModel::builtin`]) may name a failure's category.
    builtin_wording: bool,
}

/// Reusable working memory for [`RuleSet::match_event`], one per reader.
#[derive(Debug, Default)]
pub struct MatchScratch {
    candidates: prefilter::CandidateScratch,
    /// The run being read has proven it is ready: `ready` markers (a
    /// decode batch with generated tokens, on every such line) need not be
    /// matched again.
    pub skip_ready: bool,
}

impl RuleSet {
    /// Builds a set from compiled rules (ids already checked unique).
    pub fn new(rules: Vec<Rule>) -> Self {
        let facts = |pattern: &LazyRegex| RegexFacts::of(pattern.as_str(), load::BUILTIN_REGEX_FACTS);
        let messages: Vec<Option<RegexFacts>> = rules.iter().map(|r| facts(&r.matcher.message)).collect();
        let prefilter = prefilter::Prefilter::new(
            messages.iter().map(|m| m.as_ref().and_then(|m| m.literals.as_deref())),
        );
        let blind = rules
            .iter()
            .zip(&messages)
            .map(|(rule, message)| {
                let not = rule.matcher.not.as_ref().map(facts);
                let not_blind = not.is_none_or(|not| not.is_some_and(|not| not.digit_blind));
                (message.as_ref().is_some_and(|m| m.digit_blind), not_blind)
            })
            .collect();
        let captures = messages.iter().map(|m| m.as_ref().is_some_and(|m| m.named_captures)).collect();
        RuleSet { rules, prefilter, blind, captures, builtin_wording: false }
    }

    /// The literals the rules' message regexes require, each once (ASCII
    /// case folded), in rule order: a line none of them occurs in (in any
    /// case) is matched by no rule but those without such literals, whose
    /// number is returned beside them.
    pub fn required_literals(&self) -> (Vec<Vec<u8>>, usize) {
        let mut literals: Vec<Vec<u8>> = Vec::new();
        let mut without = 0;
        for rule in &self.rules {
            let facts = RegexFacts::of(rule.matcher.message.as_str(), load::BUILTIN_REGEX_FACTS);
            match facts.and_then(|f| f.literals) {
                Some(set) => {
                    for literal in set {
                        if !literals.iter().any(|l| l.eq_ignore_ascii_case(&literal)) {
                            literals.push(literal);
                        }
                    }
                }
                None => without += 1,
            }
        }
        (literals, without)
    }

    /// The built-in rules. Their samples are checked by `cargo test` and
    /// `rules check`, so failing to load them is a bug, reported as an
    /// error rather than a panic.
    pub fn builtin() -> Result<Self, Vec<RuleError>> {
        load::load(&LoadOptions { builtin: true, ..LoadOptions::default() })
    }

    /// The category a failure's decisive line points to by its words,
    /// when the built-in catalogue is loaded and the words point clearly
    /// enough (see [`wording`]). The model is counted on first use.
    pub fn infer_category(&self, line: &str) -> Option<wording::Inference> {
        self.builtin_wording.then(|| wording::WordingModel::builtin().infer(line)).flatten()
    }

    /// Uses what the built-in rules' words teach (they are loaded).
    pub(crate) fn learn_builtin_wording(&mut self) {
        self.builtin_wording = true;
    }

    /// All rules, in id order.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// The rule at `index`.
    pub fn rule(&self, index: usize) -> &Rule {
        &self.rules[index]
    }

    /// How many rules have no required literal, so run their regex on every
    /// line (a cost worth knowing when writing rules).
    pub fn unfiltered_rules(&self) -> usize {
        self.prefilter.unfiltered()
    }

    /// Finds a rule by id.
    pub fn find(&self, id: &str) -> Option<usize> {
        self.rules.iter().position(|r| r.id == id)
    }

    /// Appends every (rule, line) match in `event` to `out`, in line order.
    pub fn match_event(&self, event: &Event, scratch: &mut MatchScratch, out: &mut Vec<LineMatch>) {
        for index in 0..event.lines.len() {
            self.match_facts(&LineFacts::of(event, index), scratch, out);
        }
    }

    /// Matches the rules against a one-line record event given by its
    /// line: what [`RuleSet::match_event`] finds on the event the grouper
    /// would make of it.
    pub fn match_record(&self, record: &Record<'_>, scratch: &mut MatchScratch, out: &mut Vec<LineMatch>) {
        let facts = LineFacts {
            message: record.message,
            level: record.level,
            formats: record.formats,
            identifier: record.identifier,
            index: 0,
            event: None,
        };
        self.match_facts(&facts, scratch, out);
    }

    fn match_facts(&self, facts: &LineFacts<'_>, scratch: &mut MatchScratch, out: &mut Vec<LineMatch>) {
        if facts.message.is_empty() {
            return;
        }
        let skip_ready = scratch.skip_ready;
        let shaped = self.prefilter.candidates(facts.message, &mut scratch.candidates);
        let first = out.len();
        let mut fate = false;
        for candidate in shaped.candidates {
            if skip_ready && self.rules[candidate.rule].marker == Some(MarkerKind::Ready) {
                continue;
            }
            if let Some(m) = self.match_line(candidate, shaped.reference, facts) {
                fate |= m.role == Role::Fate;
                out.push(m);
            }
        }
        if fate {
            self.read_fates(first, out);
        }
    }

    /// Reads the fate matches among `out[first..]` (one line's): a line a
    /// rule of the catalogue also matches says more through that rule,
    /// unless that rule names no category and the fate line does (a
    /// signal); a clean end is no death. Of the others, the one that says most (a
    /// category of its own, then a signal, then a status) takes the role and
    /// category its ending gives.
    fn read_fates(&self, first: usize, out: &mut Vec<LineMatch>) {
        let line = &out[first..];
        if !line.iter().any(|m| m.role == Role::Fate) {
            return;
        }
        // A rule that names a category, or calls the line harmless, says
        // more than the fate grammar; one that only knows something failed
        // (`unknown`) says less than a signal or a status does.
        let named = line.iter().any(|m| match m.role {
            Role::Fate | Role::Marker => false,
            Role::Benign => true,
            _ => m.category != Some(Category::Unknown),
        });
        let unnamed = line.iter().any(|m| matches!(m.role, Role::Cause | Role::Symptom | Role::Confirm));
        let says_more = |read: &fate::Fate| !(named || (unnamed && read.category == Category::Unknown));
        let mut best: Option<(usize, fate::Fate, u8)> = None;
        for (index, m) in line.iter().enumerate().filter(|(_, m)| m.role == Role::Fate) {
            if let Some(read) = fate::read(&m.captures, m.category).filter(says_more) {
                let says = match read.ending {
                    _ if m.category.is_some_and(|c| c != Category::Unknown) => 3,
                    fate::Ending::Signal(_) => 2,
                    fate::Ending::Status(_) => 1,
                    _ => 0,
                };
                if best.is_none_or(|(_, _, most)| says > most) {
                    best = Some((first + index, read, says));
                }
            }
        }
        if let Some((index, read, _)) = best {
            let m = &mut out[index];
            m.role = read.role;
            m.category = Some(read.category);
            fate::title_captures(&mut m.captures, read.ending);
        }
        let mut position = 0;
        out.retain(|m| {
            let keep = position < first || m.role != Role::Fate;
            position += 1;
            keep
        });
    }

    /// Matches only rule `rule` against `event` (used by rule self-tests):
    /// a fate rule matches a line only where it tells of a death.
    pub fn match_event_with(&self, rule: usize, event: &Event, out: &mut Vec<LineMatch>) {
        for index in 0..event.lines.len() {
            let mut candidate = Candidate::of(rule);
            if let Some(m) = self.match_line(&mut candidate, &mut Vec::new(), &LineFacts::of(event, index)) {
                let first = out.len();
                out.push(m);
                self.read_fates(first, out);
            }
        }
    }

    /// Matches a candidate rule against a line. What its regexes' verdicts
    /// tell of other messages of the same shape is recorded in `candidate`
    /// (and `reference`), which the prefilter remembers.
    fn match_line(
        &self,
        candidate: &mut Candidate,
        reference: &mut Vec<u8>,
        facts: &LineFacts<'_>,
    ) -> Option<LineMatch> {
        if self.refusal(candidate, reference, facts).is_some() {
            return None;
        }
        let rule_index = candidate.rule;
        let rule = &self.rules[rule_index];
        let (regex, message) = (rule.matcher.message.get(), facts.message);
        // Captures only when the rule names some (a slower search).
        let mut captures = Captures::default();
        let (role, category) = (rule.role, rule.category);
        if self.captures[rule_index] {
            if let Some(caps) = regex.captures(message) {
                for name in regex.capture_names().flatten() {
                    if let Some(value) = caps.name(name) {
                        captures.push(name.to_string(), value.as_str().to_string());
                    }
                }
            }
        }
        Some(LineMatch { rule: rule_index, line: facts.index, captures, role, category })
    }
}

/// What a rule looks at on one line.
struct LineFacts<'a> {
    message: &'a str,
    level: Option<Level>,
    formats: FormatSet,
    /// The writer of the line's event.
    identifier: Option<&'a str>,
    /// The line's index in its event.
    index: usize,
    /// The line's event, when it was grouped into one (a one-line record
    /// need not be: it has no frames and no exception).
    event: Option<&'a Event>,
}

impl<'a> LineFacts<'a> {
    fn of(event: &'a Event, index: usize) -> Self {
        let line = &event.lines[index];
        LineFacts {
            message: line.message(),
            level: line.level,
            formats: line.formats,
            identifier: event.identifier(),
            index,
            event: Some(event),
        }
    }
}

#[cfg(test)]
mod tests;
