//! The diagnosis: what the engine concludes, in the shape of the JSON
//! contract (its version is [`SCHEMA`]: see the README). The text report
//! renders the same data.
//!
//! Keys are stable and output is deterministic: no absolute paths, no
//! wall-clock time, vectors in input order.

use serde::Serialize;

use super::fingerprint::Fingerprint;
use crate::exit::Exit;
use crate::rules::Category;
use crate::vitals::args::{ChangedArg, LaunchArgs};
use crate::vitals::Vitals;

/// The JSON schema version.
pub const SCHEMA: u32 = 4;

/// Most of a line kept as evidence: the report shows a few KiB of a line
/// at most, so a run's memory does not grow with the length of its lines.
pub const MAX_EXCERPT_BYTES: usize = 4096;

/// The phases a run reaches once its server is up (`runs[].phase`);
/// before that, a start-up phase (`loading-weights`, …) named by a rule.
pub mod phase {
    /// Up (its HTTP side listens, it may answer requests), but no
    /// generation proven yet.
    pub const LISTENING: &str = "listening";
    /// A line proved that a generation completed.
    pub const READY: &str = "ready";
    /// Proven ready, and working on.
    pub const SERVING: &str = "serving";
}

/// Did anything crash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Some judged run crashed.
    Crash,
    /// No judged run crashed, and one hung.
    Hung,
    /// No judged run crashed or hung, and one's speed collapsed.
    Degraded,
    /// No judged run crashed, hung or collapsed.
    NoCrash,
}

crate::named_enum! {
    /// How a run ended, or where it stands.
    pub enum Outcome {
        /// It died of a failure.
        Crash = "crash",
        /// It became ready or is serving, and nothing fatal happened.
        Healthy = "healthy",
        /// It is starting up: not ready yet, nothing fatal.
        Starting = "starting",
        /// An operator stopped it.
        Stopped = "stopped",
        /// Its last progress line showed work pending, and the log went on
        /// without progress for the hang time (whether or not an operator then
        /// stopped it).
        Hung = "hung",
        /// It became ready and nothing fatal happened, but its generation
        /// speed collapsed (`degraded` says against what).
        Degraded = "degraded",
        /// Nothing tells.
        Unknown = "unknown",
    }
}

crate::named_enum! {
    /// How sure the diagnosis is.
    #[derive(PartialOrd, Ord)]
    pub enum Confidence {
        /// Only symptoms, or a traceback cut before its exception line.
        Low = "low",
        /// A cause, but the log ends before any sign of the process dying.
        Medium = "medium",
        /// A cause and evidence that the process died of it.
        High = "high",
    }
}

/// A line that proves something, pointing back to the input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Evidence {
    /// Source name.
    pub source: String,
    /// 1-based line number.
    pub line: u64,
    /// The line as the user reads it in the input, or its first
    /// [`MAX_EXCERPT_BYTES`] when longer.
    pub text: String,
    /// Bytes of the line left out of `text` (absent when none were).
    #[serde(skip_serializing_if = "is_zero")]
    pub cut_bytes: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The root cause of a crashed run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RootCause {
    /// Id of the rule that identified it; null when no rule did.
    pub rule: Option<String>,
    /// Category.
    pub category: Category,
    /// One-line title.
    pub title: String,
    /// How sure.
    pub confidence: Confidence,
    /// What to do next.
    pub hint: Option<String>,
    /// The decisive line first, then supporting lines.
    pub evidence: Vec<Evidence>,
    /// True when a cause rule named it; false for `unknown` and for a
    /// symptom standing in for a cause the log does not show (a SIGKILL
    /// with no record of who sent it). Decides exit code 1 versus 3.
    #[serde(skip)]
    pub identified: bool,
    /// When no rule named the category and it was inferred from the
    /// decisive line's wording (`rules::wording`): what decided it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inferred: Option<Inferred>,
    /// When no rule named the category: what stays the same when the same
    /// failure happens again (in another run, file or host).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<Fingerprint>,
}

/// A category inferred from a failure's wording: the words that weighed
/// most for it and its share of the evidence (0 to 1, in hundredths).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Inferred {
    /// The deciding words, strongest first.
    pub words: Vec<String>,
    /// Its share of the evidence.
    pub score: Hundredths,
}

impl Inferred {
    /// What the report says of it: `category inferred from its wording
    /// (out of, memory, allocate; score 0.93)`.
    pub fn describe(&self) -> String {
        format!("category inferred from its wording ({}; score {})", self.words.join(", "), self.score)
    }
}

/// A share from 0 to 1, kept in hundredths (so that a diagnosis compares
/// exactly) and written as a number (`0.93`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hundredths(pub u8);

impl Serialize for Hundredths {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_f64(f64::from(self.0) / 100.0)
    }
}

impl std::fmt::Display for Hundredths {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{:02}", self.0 / 100, self.0 % 100)
    }
}

/// A consequence of the root cause.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Symptom {
    /// Rule id.
    pub rule: String,
    /// The file of the line.
    pub source: String,
    /// Rule category.
    pub category: Category,
    /// Line number.
    pub line: u64,
    /// The line as printed (or its start: see [`Evidence::text`]).
    pub text: String,
    /// Bytes of the line left out of `text` (absent when none were).
    #[serde(skip_serializing_if = "is_zero")]
    pub cut_bytes: u64,
    /// What explains it.
    pub why: String,
}

/// How the `why` of a benign line begins when its writer went on after
/// it: an error the run survived (the report's headline says so).
pub const WENT_ON: &str = "the process went on";

/// A scary line that is not a failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Benign {
    /// Rule id.
    pub rule: String,
    /// The file of the line.
    pub source: String,
    /// Line number.
    pub line: u64,
    /// The line as printed (or its start: see [`Evidence::text`]).
    pub text: String,
    /// Bytes of the line left out of `text` (absent when none were).
    #[serde(skip_serializing_if = "is_zero")]
    pub cut_bytes: u64,
    /// Why it is harmless.
    pub why: String,
}

/// `first-last`, or `first-FILE:last` when the run ends in another file
/// than the one it began in (`name` writes the file's name).
pub fn line_span(first: u64, last: u64, last_source: Option<&str>, name: impl Fn(&str) -> String) -> String {
    match last_source {
        Some(file) => format!("{first}-{}:{last}", name(file)),
        None => format!("{first}-{last}"),
    }
}

/// One launch of the program, judged.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Run {
    /// Its number: its 1-based place in `runs` of the report that leaves
    /// no run out. `--last` and `--unit` leave runs out and keep the
    /// numbers of the runs they show, so a run is called the same in every
    /// report.
    pub number: usize,
    /// Source name.
    pub source: String,
    /// First line of the run.
    pub first_line: u64,
    /// Last line of the run.
    pub last_line: u64,
    /// The file its last line is in, when it is not `source` (a run that
    /// goes on in the next of a rotated log's files); left out otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_source: Option<String>,
    /// systemd unit, when the log names one.
    pub unit: Option<String>,
    /// How it ended or where it stands.
    pub outcome: Outcome,
    /// A launch before its unit's current one (the latest launch that
    /// decided anything: see `engine::launches`): reported, but its
    /// outcome does not decide the verdict (unless `--any-launch`).
    pub history: bool,
    /// The phase it reached last, if any: a start-up phase, `listening`
    /// (up, no generation proven), `ready` or `serving`.
    pub phase: Option<String>,
    /// The line that proved a generation completed (what makes a run
    /// ready), or null.
    pub ready: Option<Evidence>,
    /// Why it crashed.
    pub root_cause: Option<RootCause>,
    /// Consequences of the root cause.
    pub symptoms: Vec<Symptom>,
    /// Scary lines that are not failures.
    pub benign: Vec<Benign>,
    /// What the input lacks and how to get it.
    pub notices: Vec<String>,
    /// The run's first line in the stream (across rotated or truncated
    /// files): its identity while following a log.
    #[serde(skip)]
    pub stream_first_line: u64,
    /// The run's last line in the stream: runs are ordered by stream
    /// lines, which keep time order in a file read newest first or
    /// rotated.
    #[serde(skip)]
    pub stream_last_line: u64,
    /// What its progress lines said; null when it wrote none.
    pub vitals: Option<Vitals>,
    /// Its generation speed collapsed; null when it did not.
    pub degraded: Option<Degraded>,
    /// How it hung, when its outcome is `hung`.
    pub hang: Option<Hang>,
    /// The last progress line that reports the server's work (for hang
    /// detection while following a log).
    #[serde(skip)]
    pub work: Option<Work>,
    /// The arguments it was launched with, when it printed them (to
    /// compare hosts that run the same configuration).
    #[serde(skip)]
    pub launch_args: Option<Box<LaunchArgs>>,
}

/// A run whose generation speed per running request fell below a share
/// (`--degraded-below`) of what the same server did before at comparable
/// load.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Degraded {
    /// What fell.
    pub metric: String,
    /// Its median before.
    pub before: f64,
    /// Its median after.
    pub after: f64,
    /// `after / before - 1` (-0.94: 94% slower).
    pub change: f64,
    /// The number of the run it is compared with ([`Run::number`]; this
    /// run's own when it slowed down within itself), whether or not that
    /// run is in the report (`--last` may leave it out).
    pub vs_run: Option<usize>,
    /// Median requests running, before and after.
    pub running: Compared,
    /// Median generated tokens per second, before and after.
    pub generation_tok_s: Compared,
    /// A typical progress line before, then one after.
    pub evidence: Vec<Evidence>,
    /// The launch arguments that differ from the earlier run's (none within
    /// one run).
    pub changed_args: Vec<ChangedArg>,
    /// The stream line where the compared run starts (to find `vs_run`).
    #[serde(skip)]
    pub vs_stream_line: u64,
}

/// A figure before and after.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Compared {
    /// Before.
    pub before: f64,
    /// After.
    pub after: f64,
}

/// How a run hung.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Hang {
    /// The last progress line: work was pending.
    pub last_progress: Evidence,
    /// Requests running then.
    pub running: Option<u64>,
    /// Requests waiting then.
    pub queued: Option<u64>,
    /// Seconds from it to the run's last line, by the log's stamps.
    pub silent_seconds: u64,
    /// The run's last line.
    pub last_line: u64,
}

/// The last progress line that reports requests running and waiting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Work {
    /// The line.
    pub evidence: Evidence,
    /// Its stream line number (the same line across rotated files).
    pub stream_line: u64,
    /// Requests were running or waiting when it was written.
    pub pending: bool,
}

/// One source read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InputSummary {
    /// Source name.
    pub name: String,
    /// Lines read.
    pub lines: u64,
    /// Prefix formats seen.
    pub formats: Vec<String>,
    /// Problems reading it (cut lines, cut input).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<String>,
}

/// The whole diagnosis.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diagnosis {
    /// Always [`SCHEMA`].
    pub schema: u32,
    /// Did anything crash.
    pub verdict: Verdict,
    /// The root cause of the latest crashed run.
    pub root_cause: Option<RootCause>,
    /// The sources read.
    pub inputs: Vec<InputSummary>,
    /// The runs judged, in input order.
    pub runs: Vec<Run>,
    /// Failures no rule names that ended more than one run: the same
    /// fingerprint, and the runs it ended.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub recurring: Vec<Recurring>,
}

/// A failure no rule names that ended several runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Recurring {
    /// Its fingerprint's id ([`Fingerprint::id`]).
    pub fingerprint: String,
    /// The root cause's title in the first run it ended.
    pub title: String,
    /// The runs it ended ([`Run::number`]), in input order.
    pub runs: Vec<usize>,
}

impl Recurring {
    /// The groups of crashed runs whose root causes share a fingerprint,
    /// in the order of the first run of each.
    pub fn among(runs: &[Run]) -> Vec<Recurring> {
        let mut groups: Vec<Recurring> = Vec::new();
        for run in runs {
            let Some(cause) = run.root_cause.as_ref() else { continue };
            let Some(fingerprint) = cause.fingerprint.as_ref() else { continue };
            match groups.iter_mut().find(|g| g.fingerprint == fingerprint.id) {
                Some(group) => group.runs.push(run.number),
                None => groups.push(Recurring {
                    fingerprint: fingerprint.id.clone(),
                    title: cause.title.clone(),
                    runs: vec![run.number],
                }),
            }
        }
        groups.retain(|g| g.runs.len() > 1);
        groups
    }

    /// What a report says of it: `the same unknown failure ended runs 2, 5
    /// and 9 (fingerprint …): <title>`.
    pub fn describe(&self) -> String {
        let numbers: Vec<String> = self.runs.iter().map(usize::to_string).collect();
        let (last, rest) = numbers.split_last().expect("a group has runs");
        format!(
            "the same unrecognised failure ended runs {} and {last} (fingerprint {}): {}",
            rest.join(", "),
            self.fingerprint,
            self.title
        )
    }
}

impl Diagnosis {
    /// How the process ends: a crash (its cause identified or not), a
    /// hang, a collapse, or healthy.
    pub fn exit(&self) -> Exit {
        match (self.verdict, &self.root_cause) {
            (Verdict::NoCrash, _) => Exit::Healthy,
            (Verdict::Hung, _) => Exit::Hung,
            (Verdict::Degraded, _) => Exit::Degraded,
            (Verdict::Crash, cause) => Exit::of_crash(cause.as_ref().is_some_and(|c| c.identified)),
        }
    }
}
