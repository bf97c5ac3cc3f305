//! Every golden incident in fixtures/, each its own test: its labels
//! (verdict, category in `accept`, evidence) and its blessed report
//! (expected.json).

use std::sync::OnceLock;

use logdiag::corpus::{check_case, find_cases, Mode};
use logdiag::rules::RuleSet;

use crate::util::*;

/// The built-in rules, loaded once for all the fixture tests.
fn rules() -> &'static RuleSet {
    static RULES: OnceLock<RuleSet> = OnceLock::new();
    RULES.get_or_init(|| RuleSet::builtin().expect("built-in rules load"))
}

/// Checks the golden incident in `fixtures/<case>`.
fn check_fixture(case: &str) {
    let result = check_case(rules(), &root().join("fixtures").join(case), Mode::Check);
    assert!(result.status.is_ok(), "{}: {}", result.name, result.status);
}

/// One test per fixture, listed by build.rs.
macro_rules! fixture_tests {
    ($($test:ident => $case:literal),* $(,)?) => {
        $(
            #[test]
            fn $test() {
                check_fixture($case);
            }
        )*

        /// Every folder of fixtures/ has its test.
        const LISTED: &[&str] = &[$($case),*];
    };
}

include!(concat!(env!("OUT_DIR"), "/fixture_cases.rs"));

#[test]
fn every_fixture_folder_has_its_own_test() {
    let found = find_cases(&root().join("fixtures")).unwrap();
    let mut names: Vec<String> =
        found.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
    names.sort();
    assert_eq!(names, LISTED, "fixtures/ changed since the build; rebuild the tests");
    assert!(LISTED.len() >= 15, "only {} fixtures", LISTED.len());
}

#[test]
fn every_fixture_has_its_text_golden_and_the_founding_ones_show_the_decisive_words() {
    for name in LISTED {
        let case = root().join("fixtures").join(name);
        assert!(
            case.join("expected.txt").is_file(),
            "{name}: no expected.txt (run logdiag test fixtures --bless)"
        );
        if name.starts_with("seed-") {
            assert!(case.join("expected.md").is_file(), "{name}: no expected.md");
        }
    }
    let golden = |name: &str| {
        std::fs::read_to_string(root().join("fixtures").join(name).join("expected.txt")).unwrap()
    };
    let k26 = golden("seed-k26-flashinfer-journal");
    assert!(k26.contains("RuntimeError: FlashInfer requires GPUs with sm75 or higher\n"), "{k26}");
    let collapse = golden("seed-glm5-throughput-collapse");
    assert!(collapse.contains("gen throughput (token/s): 230.09"), "{collapse}");
    for text in [&k26, &collapse] {
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
    }
}

#[test]
fn a_changed_text_report_is_shown_as_a_diff_of_its_golden() {
    let dir = TempDir::new("changed-text");
    let labels = br#"{"verdict": "crash", "root_cause": "cuda-illegal-access", "accept": ["cuda-illegal-access"], "evidence": ["illegal memory access"]}"#;
    dir.write("case/case.json", labels);
    dir.write("case/input.log", b"RuntimeError: CUDA error: an illegal memory access was encountered\n");
    let path = dir.path().to_str().unwrap();
    assert_eq!(run(&["test", path, "--bless"]).status.code(), Some(0));
    let golden = dir.path().join("case/expected.txt");
    let blessed = std::fs::read_to_string(&golden).unwrap();
    assert!(blessed.contains("verdict: crash"), "{blessed}");
    std::fs::write(&golden, blessed.replace("verdict: crash", "verdict: fine")).unwrap();
    let out = run(&["test", path]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let text = stdout(&out);
    assert!(text.contains("--- expected.txt (blessed)"), "{text}");
    assert!(text.contains("-verdict: fine") && text.contains("+verdict: crash"), "{text}");
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
    // Each failure says what the labels expect and what the tool said.
    assert!(
        text.contains(
            "expected: crash, cause one of cuda-oom, evidence containing \"illegal memory access\""
        ),
        "{text}"
    );
    assert!(text.contains("got:      crash, cause cuda-illegal-access"), "{text}");
    assert!(
        text.contains("input.log:1: RuntimeError: CUDA error: an illegal memory access was encountered"),
        "{text}"
    );
    assert!(text.contains("expected: no-crash\n"), "{text}");
}

#[test]
fn a_changed_report_is_shown_as_a_diff_of_the_blessed_one() {
    let dir = TempDir::new("changed-report");
    let labels = br#"{"verdict": "crash", "root_cause": "cuda-illegal-access", "accept": ["cuda-illegal-access"], "evidence": ["illegal memory access"]}"#;
    dir.write("moved/case.json", labels);
    dir.write("moved/input.log", b"RuntimeError: CUDA error: an illegal memory access was encountered\n");
    let path = dir.path().to_str().unwrap();
    assert_eq!(run(&["test", path, "--bless"]).status.code(), Some(0));
    // The same failure, one line later: the labels pass, the report moved.
    dir.write(
        "moved/input.log",
        b"INFO starting\nRuntimeError: CUDA error: an illegal memory access was encountered\n",
    );
    let out = run(&["test", path]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let text = stdout(&out);
    assert!(text.contains("report changed"), "{text}");
    assert!(text.contains("--- expected.json (blessed)") && text.contains("+++ report now"), "{text}");
    let changed = |sign: char, line: &str| {
        text.lines().any(|l| l.trim_start().strip_prefix(sign).is_some_and(|rest| rest.trim() == line))
    };
    assert!(changed('-', "\"line\": 1,") && changed('+', "\"line\": 2,"), "{text}");
}

#[test]
fn a_misspelt_label_is_named_before_any_check() {
    let dir = TempDir::new("misspelt");
    dir.write("typo/input.log", b"RuntimeError: CUDA error: out of memory\n");
    dir.write(
        "typo/case.json",
        br#"{"verdict": "crash", "root_cause": "cuda-oom", "accept": ["cuda-oon"], "evidense": ["out of memory"]}"#,
    );
    let out = run(&["test", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(text.contains("unknown key \"evidense\" (did you mean \"evidence\"?)"), "{text}");
    assert!(text.contains("\"accept\" holds \"cuda-oon\", which is not a category"), "{text}");
    assert!(!text.contains("wrong cause"), "{text}");
}

#[test]
fn a_known_miss_stays_a_case_and_one_that_passes_asks_to_be_unmarked() {
    let dir = TempDir::new("known-miss");
    let crash = b"RuntimeError: CUDA error: an illegal memory access was encountered\n";
    dir.write("still-missed/input.log", crash);
    dir.write(
        "still-missed/case.json",
        br#"{"verdict": "no-crash", "root_cause": "healthy", "evidence": [], "known_miss": "the thread says the server went on; the log does not show it"}"#,
    );
    let path = dir.path().to_str().unwrap();
    let blessed = run(&["test", path, "--bless"]);
    assert_eq!(blessed.status.code(), Some(0), "{}", stdout(&blessed));
    let out = run(&["test", path]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let text = stdout(&out);
    assert!(
        text.contains("known miss (false crash)") && text.contains("(1 known misses), 0 failed"),
        "{text}"
    );
    // The same report is still compared with the blessed one.
    dir.write(
        "still-missed/input.log",
        b"RuntimeError: CUDA error: an illegal memory access was encountered!\n",
    );
    assert_eq!(run(&["test", path]).status.code(), Some(1));
    // Once the labels pass, the mark must go.
    dir.write("still-missed/input.log", b"INFO server ready\n");
    let out = run(&["test", path]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(stdout(&out).contains("remove known_miss"), "{}", stdout(&out));
}

#[test]
fn blessing_writes_only_inside_the_corpus() {
    let dir = TempDir::new("bless-links");
    let crash = b"RuntimeError: CUDA error: an illegal memory access was encountered\n";
    let labels = br#"{"verdict": "crash", "root_cause": "cuda-illegal-access", "accept": ["cuda-illegal-access"], "evidence": ["illegal memory access"]}"#;
    // A case whose expected.json links to a file elsewhere.
    let elsewhere = dir.write("elsewhere/notes.txt", b"not a report\n");
    dir.write("corpus/linked-report/input.log", crash);
    dir.write("corpus/linked-report/case.json", labels);
    std::os::unix::fs::symlink(&elsewhere, dir.path().join("corpus/linked-report/expected.json")).unwrap();
    // A case folder that is a link to a folder out of the corpus.
    dir.write("outside/case/input.log", crash);
    dir.write("outside/case/case.json", labels);
    std::os::unix::fs::symlink(dir.path().join("outside/case"), dir.path().join("corpus/linked-case"))
        .unwrap();

    let out = run(&["test", dir.path().join("corpus").to_str().unwrap(), "--bless"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let text = stdout(&out);
    assert!(text.contains("expected.json is a symbolic link: not blessed"), "{text}");
    assert!(text.contains("a symbolic link out of the corpus: not blessed"), "{text}");
    assert_eq!(std::fs::read(&elsewhere).unwrap(), b"not a report\n");
    assert!(!dir.path().join("outside/case/expected.json").exists());
}
