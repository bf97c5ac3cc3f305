//! Every golden incident in fixtures/: its labels (verdict, category in
//! `accept`, evidence) and its blessed report (expected.json).

use logdiag::corpus::{check_case, find_cases, Status};
use logdiag::rules::RuleSet;

use crate::util::*;

#[test]
fn every_fixture_passes_its_labels_and_blessed_report() {
    let rules = RuleSet::builtin().expect("built-in rules load");
    let cases = find_cases(&root().join("fixtures")).unwrap();
    assert!(cases.len() >= 15, "only {} fixtures", cases.len());
    let failures: Vec<String> = cases
        .iter()
        .map(|case| check_case(&rules, case, false))
        .filter(|r| r.status != Status::Passed)
        .map(|r| format!("{}: {}", r.name, r.status))
        .collect();
    assert!(failures.is_empty(), "failing fixtures:\n{}", failures.join("\n"));
}

#[test]
fn the_test_command_runs_the_same_check() {
    let out = run(&["test", "fixtures"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains("0 failed"));
}

#[test]
fn the_test_command_reports_a_wrong_cause_and_a_false_crash() {
    let dir = TempDir::new("corpus");
    let crash = b"RuntimeError: CUDA error: an illegal memory access was encountered\n";
    dir.write("wrong-cause/input.log", crash);
    dir.write(
        "wrong-cause/case.json",
        br#"{"verdict": "crash", "root_cause": "cuda-oom", "accept": ["cuda-oom"], "evidence": ["illegal memory access"]}"#,
    );
    dir.write("false-crash/input.log", crash);
    dir.write(
        "false-crash/case.json",
        br#"{"verdict": "no-crash", "root_cause": "healthy", "evidence": []}"#,
    );
    let out = run(&["test", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(text.contains("wrong-cause") && text.contains("wrong cause (got cuda-illegal-access)"), "{text}");
    assert!(text.contains("false-crash") && text.contains("false crash"), "{text}");
}
