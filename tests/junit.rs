//! `logdiag test DIR --junit FILE`: a JUnit XML report for CI systems.

use crate::util::{root, run, stdout, TempDir};

/// Copies a fixture's case folder (labels, input, blessed report) to `dir/name`.
fn copy_case(dir: &TempDir, fixture: &str, name: &str) {
    for file in ["case.json", "input.log", "expected.json"] {
        let bytes = std::fs::read(root().join("fixtures").join(fixture).join(file)).unwrap();
        dir.write(&format!("cases/{name}/{file}"), &bytes);
    }
}

#[test]
fn each_case_is_a_testcase_and_a_broken_label_a_failure() {
    let dir = TempDir::new("junit");
    copy_case(&dir, "seed-k26-flashinfer-journal", "k26");
    // A name that needs escaping, and a label the diagnosis does not meet.
    let broken = "fi <2800> & \"co\"";
    copy_case(&dir, "flashinfer-2800", broken);
    let labels = dir.path().join("cases").join(broken).join("case.json");
    let relabelled = std::fs::read_to_string(&labels)
        .unwrap()
        .replace("\"accept\": [\n    \"cuda-illegal-access\"\n  ]", "\"accept\": [\"cuda-oom\"]");
    std::fs::write(&labels, relabelled).unwrap();
    let xml_path = dir.path().join("report.xml");
    let cases = dir.path().join("cases");

    let out = run(&["test", cases.to_str().unwrap(), "--junit", xml_path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(stdout(&out).contains("2 cases: 1 passed, 1 failed"), "{}", stdout(&out));

    let xml = std::fs::read_to_string(&xml_path).unwrap();
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "), "{xml}");
    assert!(xml.contains(r#"<testsuite name="cases" tests="2" failures="1" errors="0""#), "{xml}");
    assert_eq!(xml.matches("<testcase ").count(), 2, "{xml}");
    assert!(xml.contains(r#"<testcase classname="cases" name="k26" time=""#), "{xml}");
    let failing = r#"<testcase classname="cases" name="fi &lt;2800&gt; &amp; &quot;co&quot;" time=""#;
    let at = xml.find(failing).unwrap_or_else(|| panic!("no escaped failing case:\n{xml}"));
    let element = &xml[at..xml[at..].find("</failure>").map_or(xml.len(), |end| at + end)];
    let failure = element.lines().nth(1).unwrap().trim();
    assert_eq!(
        failure,
        r#"<failure message="wrong cause (got cuda-illegal-access)" type="wrong-cause">wrong cause (got cuda-illegal-access)"#
    );
    // The body explains, as `logdiag test` does on the terminal.
    assert!(element.contains("\nexpected: crash, cause one of cuda-oom"), "{element}");
    assert!(element.contains("\ngot:      crash, cause cuda-illegal-access"), "{element}");
    assert_eq!(xml.matches("<failure ").count(), 1, "{xml}");
    assert!(xml.trim_end().ends_with("</testsuites>"), "{xml}");
}

#[test]
fn an_unwritable_junit_file_is_an_error() {
    let dir = TempDir::new("junit-unwritable");
    copy_case(&dir, "seed-k26-flashinfer-journal", "k26");
    let xml_path = dir.path().join("no-such-dir").join("report.xml");
    let out =
        run(&["test", dir.path().join("cases").to_str().unwrap(), "--junit", xml_path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(crate::util::stderr(&out).contains("cannot write the JUnit report"));
}
