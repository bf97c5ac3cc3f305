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
pub(super) struct RuleFile {
    /// Rule id; defaults to `<area>.<file stem>`.
    pub id: Option<Spanned<String>>,
    /// `cause`, `symptom`, `confirm`, `benign` or `marker`.
    pub role: Spanned<String>,
    /// A category name (required for cause, confirm, symptom).
    pub category: Option<Spanned<String>>,
    /// One-line title; `{name}` is replaced by the named capture `name`.
    pub title: Spanned<String>,
    /// What the user should do next (required for cause and confirm);
    /// `{name}` is replaced as in the title.
    pub hint: Option<Spanned<String>>,
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
pub(super) struct MatchSpec {
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
pub(super) struct TestSpec {
    /// Log excerpts the rule must match (at least one).
    pub samples: Vec<Spanned<String>>,
    /// Log excerpts the rule must not match.
    #[serde(default)]
    pub counter_samples: Vec<Spanned<String>>,
}

/// The keys of a rule file, by section (`""` for the top level), and
/// whether each is required: the fields of the types above (a test checks
/// that the two agree).
const SECTIONS: &[(&str, &[(&str, bool)])] = &[
    (
        "",
        &[
            ("id", false),
            ("role", true),
            ("category", false),
            ("title", true),
            ("hint", false),
            ("why", false),
            ("priority", false),
            ("terminal", false),
            ("counts_after_stop", false),
            ("announces", false),
            ("summary", false),
            ("explains", false),
            ("confirms", false),
            ("marker", false),
            ("stage", false),
            ("phase", false),
            ("match", true),
            ("test", true),
        ],
    ),
    (
        "match",
        &[
            ("message", true),
            ("not", false),
            ("exception", false),
            ("frame", false),
            ("identifier", false),
            ("level", false),
            ("format", false),
            ("not_format", false),
        ],
    ),
    ("test", &[("samples", true), ("counter_samples", false)]),
];

/// A key that a rule file has and may not have, or lacks and must have.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum KeyFault {
    /// `section.key` (or `key` at the top) is not a field.
    Unknown { section: &'static str, key: String },
    /// A required field is missing.
    Missing { section: &'static str, key: &'static str },
}

/// Every unknown and missing key of a rule file that is valid TOML, so a
/// file with several slips gets them all named at once (serde stops at the
/// first).
pub(super) fn key_faults(table: &toml::Table) -> Vec<KeyFault> {
    let mut faults = Vec::new();
    for (section, keys) in SECTIONS {
        let held =
            if section.is_empty() { Some(table) } else { table.get(*section).and_then(|v| v.as_table()) };
        let Some(held) = held else {
            continue;
        };
        for key in held.keys() {
            if !keys.iter().any(|(name, _)| name == key) {
                faults.push(KeyFault::Unknown { section, key: key.clone() });
            }
        }
        for (name, required) in keys.iter() {
            if *required && !held.contains_key(*name) {
                faults.push(KeyFault::Missing { section, key: name });
            }
        }
    }
    faults
}

/// The known keys of a section, for "did you mean".
pub(super) fn keys_of(section: &str) -> impl Iterator<Item = &'static str> + use<'_> {
    SECTIONS
        .iter()
        .filter(move |(name, _)| *name == section)
        .flat_map(|(_, keys)| keys.iter().map(|(k, _)| *k))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The key list and the types above agree: a file with every listed
    /// key (each of its type) is a rule file, and no built-in rule has a
    /// key the list lacks.
    #[test]
    fn the_key_list_names_the_fields_of_the_types() {
        let value = |key: &str| match key {
            "priority" | "stage" => "1".to_string(),
            "terminal" | "counts_after_stop" | "announces" | "summary" => "true".to_string(),
            "explains" | "confirms" | "level" | "format" | "not_format" | "samples" | "counter_samples" => {
                "['x']".to_string()
            }
            _ => "'x'".to_string(),
        };
        let mut text = String::new();
        for (section, keys) in SECTIONS {
            if !section.is_empty() {
                text.push_str(&format!("[{section}]\n"));
            }
            for (key, _) in keys.iter().filter(|(key, _)| !["match", "test"].contains(key)) {
                text.push_str(&format!("{key} = {}\n", value(key)));
            }
        }
        toml::from_str::<RuleFile>(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let rules = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rules");
        for entry in walkdir::WalkDir::new(rules).into_iter().filter_map(Result::ok) {
            if entry.path().extension().is_some_and(|e| e == "toml") {
                let table: toml::Table = std::fs::read_to_string(entry.path()).unwrap().parse().unwrap();
                assert_eq!(key_faults(&table), [], "{}", entry.path().display());
            }
        }
    }
}
