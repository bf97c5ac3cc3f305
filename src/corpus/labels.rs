//! A case's labels (`case.json`) and their schema: every key and value is
//! checked before the labels are used, so a misspelt `evidense` or an
//! `accept` of `cuda-oon` is named as such instead of showing up later as
//! a misleading "wrong cause".

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use crate::rules::Category;

/// The labels of a case (`case.json`).
#[derive(Debug, Clone, Deserialize)]
pub struct Labels {
    /// `crash` or `no-crash` (or `hung`, `degraded`).
    pub verdict: String,
    /// The labelled category.
    pub root_cause: Option<String>,
    /// Every category a careful diagnosis may give.
    #[serde(default)]
    pub accept: Vec<String>,
    /// Substrings of the decisive lines.
    #[serde(default)]
    pub evidence: Vec<String>,
    /// `verdict-only` when the decisive line is not in the log.
    pub scorable: Option<String>,
    /// For a log of several units: each unit's outcome, `crash` (one of
    /// its runs crashed) or `healthy` (it has runs, none crashed).
    #[serde(default)]
    pub units: BTreeMap<String, String>,
    /// Which runs (1-based, in report order) collapsed or hung.
    pub vitals: Option<VitalsLabels>,
    /// A crash in a launch before the latest one (history, whatever the
    /// verdict): some crashed run names an accepted category with one of
    /// these evidence lines.
    pub earlier: Option<EarlierLabels>,
    /// Why the tool does not meet these labels yet, for a case kept as a
    /// known miss.
    pub known_miss: Option<String>,
}

/// The `vitals` labels of a case.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct VitalsLabels {
    /// Runs that are `degraded`.
    #[serde(default)]
    pub degraded: Vec<usize>,
    /// Runs that must not be `degraded`.
    #[serde(default)]
    pub not_degraded: Vec<usize>,
    /// Runs whose outcome is `hung` (every other run listed anywhere here
    /// must not be).
    #[serde(default)]
    pub hung: Vec<usize>,
}

/// The `earlier` labels of a case: the crash of an earlier launch.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct EarlierLabels {
    /// Every category a careful diagnosis may give it.
    #[serde(default)]
    pub accept: Vec<String>,
    /// Substrings of its decisive lines.
    #[serde(default)]
    pub evidence: Vec<String>,
}

/// What a key of `case.json` may hold.
#[derive(Clone, Copy)]
enum Shape {
    /// Free text, or anything: provenance and notes the check does not read.
    Any,
    /// One of a closed list of words.
    Word(&'static [&'static str]),
    /// A category name.
    Category,
    /// A list of category names.
    Categories,
    /// A list of strings.
    Texts,
    /// A string.
    Text,
    /// Unit name to `crash` or `healthy`.
    Units,
    /// An object with these keys, each a list of run numbers.
    RunLists(&'static [&'static str]),
    /// The `earlier` object.
    Earlier,
}

const VERDICTS: &[&str] = &["crash", "no-crash", "hung", "degraded"];
const UNIT_OUTCOMES: &[&str] = &["crash", "healthy"];

/// Every key a case may have, and what it holds.
const KEYS: &[(&str, Shape)] = &[
    ("verdict", Shape::Word(VERDICTS)),
    ("root_cause", Shape::Category),
    ("accept", Shape::Categories),
    ("evidence", Shape::Texts),
    ("benign", Shape::Texts),
    ("scorable", Shape::Word(&["verdict-only"])),
    ("units", Shape::Units),
    ("vitals", Shape::RunLists(&["degraded", "not_degraded", "hung"])),
    ("earlier", Shape::Earlier),
    ("known_miss", Shape::Text),
    ("source", Shape::Any),
    ("url", Shape::Any),
    ("format", Shape::Any),
    ("confidence", Shape::Any),
    ("notes", Shape::Any),
    ("collected", Shape::Any),
    ("first_sight", Shape::Any),
    ("fixture", Shape::Any),
    ("relabelled", Shape::Any),
];

/// Reads `case.json`'s text: the schema first, every fault of it named
/// (one per line), then the labels.
pub(super) fn parse(text: &str) -> Result<Labels, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("case.json is not JSON: {e}"))?;
    let faults = schema_faults(&value);
    if !faults.is_empty() {
        return Err(faults.join("; "));
    }
    serde_json::from_value(value).map_err(|e| format!("case.json: {e}"))
}

/// What in a case's JSON does not fit the schema, in words.
fn schema_faults(value: &Value) -> Vec<String> {
    let Some(object) = value.as_object() else {
        return vec!["case.json: the labels must be a JSON object".into()];
    };
    let mut faults = Vec::new();
    if !object.contains_key("verdict") {
        faults.push("case.json: no \"verdict\" (crash or no-crash)".into());
    }
    for (key, held) in object {
        match KEYS.iter().find(|(name, _)| name == key) {
            Some((_, shape)) => check_shape(key, *shape, held, &mut faults),
            None => faults.push(format!(
                "case.json: unknown key \"{key}\"{}",
                nearest(key, KEYS.iter().map(|(name, _)| *name))
            )),
        }
    }
    faults
}

fn check_shape(key: &str, shape: Shape, held: &Value, faults: &mut Vec<String>) {
    let mut fault = |what: String| faults.push(format!("case.json: \"{key}\" {what}"));
    match shape {
        Shape::Any => {}
        Shape::Text => {
            if !held.is_string() {
                fault("must be a string".into());
            }
        }
        Shape::Word(words) => match held.as_str() {
            Some(word) if words.contains(&word) => {}
            Some(word) => fault(format!(
                "is \"{word}\", not one of {}{}",
                words.join(", "),
                nearest(word, words.iter().copied())
            )),
            None => fault(format!("must be one of {}", words.join(", "))),
        },
        Shape::Category => match held.as_str() {
            Some(name) => {
                if let Some(wrong) = category_fault(name) {
                    fault(wrong);
                }
            }
            None => fault("must be a category name".into()),
        },
        Shape::Categories => match held.as_array() {
            Some(items) => {
                for item in items {
                    match item.as_str() {
                        Some(name) => {
                            if let Some(wrong) = category_fault(name) {
                                fault(format!("holds {wrong}"));
                            }
                        }
                        None => fault("must list category names".into()),
                    }
                }
            }
            None => fault("must be a list of category names".into()),
        },
        Shape::Texts => {
            if !held.as_array().is_some_and(|items| items.iter().all(Value::is_string)) {
                fault("must be a list of strings".into());
            }
        }
        Shape::Units => match held.as_object() {
            Some(units) => {
                for (unit, outcome) in units {
                    if !outcome.as_str().is_some_and(|o| UNIT_OUTCOMES.contains(&o)) {
                        fault(format!("gives unit {unit} {outcome}, not \"crash\" or \"healthy\""));
                    }
                }
            }
            None => fault("must map unit names to \"crash\" or \"healthy\"".into()),
        },
        Shape::RunLists(lists) => check_run_lists(held, lists, &mut fault),
        Shape::Earlier => match held.as_object() {
            Some(earlier) => {
                for (inner, value) in earlier {
                    match inner.as_str() {
                        "accept" => check_shape("earlier.accept", Shape::Categories, value, faults),
                        "evidence" => check_shape("earlier.evidence", Shape::Texts, value, faults),
                        other => faults.push(format!(
                            "case.json: unknown key \"earlier.{other}\"{}",
                            nearest(other, ["accept", "evidence"].into_iter())
                        )),
                    }
                }
            }
            None => fault("must be an object with accept and evidence".into()),
        },
    }
}

fn check_run_lists(held: &Value, lists: &[&str], fault: &mut dyn FnMut(String)) {
    let Some(object) = held.as_object() else {
        return fault(format!("must be an object of {}", lists.join(", ")));
    };
    for (inner, value) in object {
        if !lists.contains(&inner.as_str()) {
            fault(format!("has an unknown key \"{inner}\"{}", nearest(inner, lists.iter().copied())));
        } else if !value
            .as_array()
            .is_some_and(|runs| runs.iter().all(|r| r.as_u64().is_some_and(|n| n >= 1)))
        {
            fault(format!("{inner} must list run numbers (1 for the first run)"));
        }
    }
}

/// Outcomes a case may name as its `root_cause` beside the categories: a
/// run that hung or whose speed collapsed has no crash category.
const OUTCOME_NAMES: &[&str] = &["hung", "degraded"];

/// Why `name` is not a category, if it is not one.
fn category_fault(name: &str) -> Option<String> {
    if name.parse::<Category>().is_ok() || OUTCOME_NAMES.contains(&name) {
        return None;
    }
    let names = Category::ALL.iter().map(|c| c.name());
    Some(format!(
        "\"{name}\", which is not a category (`logdiag rules categories` lists them){}",
        nearest(name, names)
    ))
}

/// ` (did you mean "x"?)` for the closest of `known` to `typed`, if it is
/// close enough to be a typing slip.
fn nearest<'a>(typed: &str, known: impl Iterator<Item = &'a str>) -> String {
    crate::named::closest(typed, known)
        .map_or_else(String::new, |name| format!(" (did you mean \"{name}\"?)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fault_is_named_with_the_likely_intent() {
        let text = r#"{"verdict": "crahs", "root_cause": "cuda-oon", "accept": ["cuda-oom", 3],
            "evidense": ["x"], "units": {"a.service": "dead"}, "vitals": {"hung": [0]}}"#;
        let fault = parse(text).unwrap_err();
        for want in [
            "\"verdict\" is \"crahs\", not one of crash, no-crash, hung, degraded (did you mean \"crash\"?)",
            "\"root_cause\" \"cuda-oon\", which is not a category",
            "(did you mean \"cuda-oom\"?)",
            "\"accept\" must list category names",
            "unknown key \"evidense\" (did you mean \"evidence\"?)",
            "gives unit a.service \"dead\"",
            "hung must list run numbers",
        ] {
            assert!(fault.contains(want), "{want:?} not in {fault}");
        }
    }

    #[test]
    fn a_case_with_provenance_keys_and_no_faults_parses() {
        let text = r#"{"source": "x#1", "url": "u", "verdict": "crash", "root_cause": "cuda-oom",
            "accept": ["cuda-oom", "unknown"], "evidence": ["out of memory"], "benign": [],
            "first_sight": {"batch": 1}, "earlier": {"accept": ["abort"], "evidence": []}}"#;
        let labels = parse(text).unwrap();
        assert_eq!(labels.accept, ["cuda-oom", "unknown"]);
        assert!(parse(r#"{"root_cause": "healthy"}"#).unwrap_err().contains("no \"verdict\""));
        assert!(parse("[1]").unwrap_err().contains("must be a JSON object"));
    }
}
