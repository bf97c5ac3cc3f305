//! The same incident gives the same diagnosis whatever wraps it: every
//! fixture, transformed as a user's tooling would (a byte-order mark in
//! front), keeps its verdict, its root cause's category and its decisive
//! line.

use logdiag::corpus::find_cases;
use logdiag::diagnose::feed_source;
use logdiag::engine::{Diagnosis, Engine, JudgeOptions};
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

#[test]
fn a_byte_order_mark_changes_no_diagnosis() {
    let cases = find_cases(&root().join("fixtures")).unwrap();
    assert!(cases.len() > 100, "only {} fixtures", cases.len());
    let mut changed = Vec::new();
    for case in &cases {
        let text = std::fs::read(case.join("input.log")).unwrap();
        let mut marked = b"\xef\xbb\xbf".to_vec();
        marked.extend_from_slice(&text);
        let (plain, with_mark) = (outcome(&diagnose(&text)), outcome(&diagnose(&marked)));
        if plain != with_mark {
            changed.push(format!("{}: {plain:?} -> {with_mark:?}", case.display()));
        }
    }
    assert!(changed.is_empty(), "{} fixtures changed:\n{}", changed.len(), changed.join("\n"));
}
