//! The same incident gives the same diagnosis whatever wraps it: every
//! fixture, transformed as a user's tooling would (a byte-order mark or a
//! blank line in front), keeps its verdict, its root cause's category and
//! its decisive line (moved by the lines put in front).

use logdiag::corpus::find_cases;
use logdiag::diagnose::feed_source;
use logdiag::engine::{Diagnosis, Engine, JudgeOptions};
use logdiag::framing::journal::layout;
use logdiag::rules::RuleSet;

use crate::util::root;

fn rules() -> &'static RuleSet {
    static RULES: std::sync::OnceLock<RuleSet> = std::sync::OnceLock::new();
    RULES.get_or_init(|| RuleSet::builtin().expect("built-in rules"))
}

fn diagnose(bytes: &[u8]) -> Diagnosis {
    let mut engine = Engine::new(rules());
    let _ = feed_source(&mut engine, "input.log", bytes);
    engine.diagnose(&JudgeOptions::default())
}

/// What must not change: verdict, category, decisive line.
fn outcome(diagnosis: &Diagnosis) -> (String, Option<String>, Option<u64>) {
    let cause = diagnosis.root_cause.as_ref();
    (
        format!("{:?}", diagnosis.verdict),
        cause.map(|c| c.category.to_string()),
        cause.and_then(|c| c.evidence.first()).map(|e| e.line),
    )
}

/// Every fixture with `front` before it: the ones that changed.
/// `structured`: also the journal dumps (export, verbose, JSON pretty),
/// which are recognised only when they open the input (issue 32's first
/// item, not built yet).
fn changed_by(front: &[u8], shift: u64, structured: bool) -> Vec<String> {
    let cases = find_cases(&root().join("fixtures")).unwrap();
    assert!(cases.len() > 100, "only {} fixtures", cases.len());
    let mut changed = Vec::new();
    for case in &cases {
        let text = std::fs::read(case.join("input.log")).unwrap();
        if !structured && layout::sniff(&text).is_some() {
            continue;
        }
        let mut fronted = front.to_vec();
        fronted.extend_from_slice(&text);
        let plain = outcome(&diagnose(&text));
        let (verdict, category, line) = outcome(&diagnose(&fronted));
        let moved_back = (verdict, category, line.map(|l| l - shift));
        if plain != moved_back {
            changed.push(format!("{}: {plain:?} -> {moved_back:?}", case.display()));
        }
    }
    changed
}

#[test]
fn a_byte_order_mark_changes_no_diagnosis() {
    let changed = changed_by(b"\xef\xbb\xbf", 0, true);
    assert!(changed.is_empty(), "{} fixtures changed:\n{}", changed.len(), changed.join("\n"));
}

#[test]
fn a_blank_first_line_changes_no_diagnosis() {
    let changed = changed_by(b"\n", 1, false);
    assert!(changed.is_empty(), "{} fixtures changed:\n{}", changed.len(), changed.join("\n"));
}
