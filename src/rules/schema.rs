//! The rule file as written: the serde shape of `rules/<area>/<id>.toml`.
//!
//! Kept apart from the compiled [`super::Rule`]: this type only mirrors the
//! TOML (with source spans for error messages); validation and regex
//! compilation happen in [`super::load`]. `rules/README.md` documents every
//! field for rule authors.

use serde::Deserialize;
use toml::Spanned;

/// One rule file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleFile {
    /// Rule id; defaults to `<area>.<file stem>`.
    pub id: Option<Spanned<String>>,
    /// `cause`, `symptom`, `confirm`, `benign` or `marker`.
    pub role: Spanned<String>,
    /// A category name (required for cause, confirm, symptom).
    pub category: Option<Spanned<String>>,
    /// One-line title; `{name}` is replaced by the named capture `name`.
    pub title: Spanned<String>,
    /// What the user should do next (required for cause and confirm).
    pub hint: Option<String>,
    /// For symptoms and benign lines: what the line means when something
    /// else explains it.
    pub why: Option<String>,
    /// Breaks ties between rules that match the same event (higher wins).
    #[serde(default)]
    pub priority: i32,
    /// The matched line itself records that a process died.
    #[serde(default)]
    pub terminal: bool,
    /// The failure counts even after an orderly stop (a stop that timed
    /// out, a start that hit the start limit).
    #[serde(default)]
    pub counts_after_stop: bool,
    /// The line is a handler's announcement of an error it caught (`!!!
    /// Exception during processing !!!`): the traceback after it is caught.
    #[serde(default)]
    pub announces: bool,
    /// The line summarises how something ended (a pod table's
    /// `CrashLoopBackOff`): it stands in only when nothing else tells.
    #[serde(default)]
    pub summary: bool,
    /// Ids of symptom rules this rule's finding explains.
    #[serde(default)]
    pub explains: Vec<Spanned<String>>,
    /// For `confirm` rules: ids of the symptoms this evidence confirms.
    #[serde(default)]
    pub confirms: Vec<Spanned<String>>,
    /// For `marker` rules: `start`, `ready`, `progress`, `stop` or `exit`.
    pub marker: Option<Spanned<String>>,
    /// For start markers: 0 unit starting, 1 unit started, 2 program launch.
    pub stage: Option<Spanned<u8>>,
    /// For progress markers: the start-up phase (`loading-weights`…).
    pub phase: Option<String>,
    /// The match conditions.
    #[serde(rename = "match")]
    pub matcher: MatchSpec,
    /// Lines that must and must not match.
    pub test: TestSpec,
}

/// Match conditions; all given ones must hold.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatchSpec {
    /// Regex on one line's message (prefixes removed).
    pub message: Spanned<String>,
    /// Regex the message must not match.
    pub not: Option<Spanned<String>>,
    /// Exception type (whole name or last dotted part) the line belongs to.
    pub exception: Option<Spanned<String>>,
    /// Regex on some frame line of the same traceback.
    pub frame: Option<Spanned<String>>,
    /// Regex on the journal/syslog identifier (whole identifier).
    pub identifier: Option<Spanned<String>>,
    /// Levels the line must carry (`error`, `warning`…).
    #[serde(default)]
    pub level: Vec<Spanned<String>>,
    /// Prefix formats the line must carry one of (`sglang`, `vllm`…).
    #[serde(default)]
    pub format: Vec<Spanned<String>>,
    /// Prefix formats the line must not carry.
    #[serde(default)]
    pub not_format: Vec<Spanned<String>>,
}

/// Self-tests of a rule.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestSpec {
    /// Log excerpts the rule must match (at least one).
    pub samples: Vec<Spanned<String>>,
    /// Log excerpts the rule must not match.
    #[serde(default)]
    pub counter_samples: Vec<Spanned<String>>,
}
