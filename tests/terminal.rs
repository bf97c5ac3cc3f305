//! What reaches the user's terminal: names (paths, rule files, test cases)
//! and log text are escaped alike, invisible characters included; usage
//! mistakes are usage errors.

use crate::util::*;

/// A name that would retitle the window and clear the screen.
const HOSTILE: &str = "x\x1b]0;PWNED\x07\x1b[2J";

fn assert_escaped(what: &str, text: &str) {
    assert!(!text.contains('\x1b') && !text.contains('\x07'), "{what}: {text:?}");
    assert!(text.contains("\\x1b]0;PWNED\\x07\\x1b[2J"), "{what}: {text:?}");
}

#[test]
fn hostile_names_are_escaped_in_errors_reports_tests_and_rule_problems() {
    let dir = TempDir::new("names");
    // A dangling link in a directory: the error names it.
    let links = dir.path().join("links");
    std::fs::create_dir_all(&links).unwrap();
    std::os::unix::fs::symlink("/nonexistent", links.join(format!("{HOSTILE}.log"))).unwrap();
    let out = run(&["--follow", links.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert_escaped("missing file", &stderr(&out));
    // Not followed, it is left out, and -v says so.
    let out = run(&["-v", links.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert_escaped("link left out", &stderr(&out));
    // A log named so: the report names it.
    let log = dir.write(
        &format!("logs/{HOSTILE}.log"),
        &std::fs::read(fixture("seed-k26-flashinfer-journal")).unwrap(),
    );
    let out = run(&[log.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert_escaped("report", &stdout(&out));
    // A test case so named.
    let case = dir.path().join("cases").join(HOSTILE);
    std::fs::create_dir_all(&case).unwrap();
    std::fs::copy(fixture("seed-k26-flashinfer-journal"), case.join("input.log")).unwrap();
    std::fs::write(
        case.join("case.json"),
        br#"{"verdict":"crash","root_cause":"flashinfer-unsupported-arch"}"#,
    )
    .unwrap();
    let out = run(&["test", dir.path().join("cases").to_str().unwrap()]);
    assert_escaped("test case", &stdout(&out));
    // A broken rule file so named.
    dir.write(&format!("rules/{HOSTILE}.toml"), b"role = \"cause\"\n");
    let out = run(&["--rules", dir.path().join("rules").to_str().unwrap(), log.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert_escaped("rule file", &stderr(&out));
}

#[test]
fn invisible_characters_in_a_log_are_shown_escaped() {
    let invisible = [
        '\u{200e}',
        '\u{200f}',
        '\u{61c}',
        '\u{200b}',
        '\u{2060}',
        '\u{feff}',
        '\u{e0041}',
        '\u{2028}',
        '\u{2029}',
        '\u{ad}',
        '\u{206a}',
    ];
    let hidden: String = invisible.iter().collect();
    let log = format!("RuntimeError: FlashInfer requires GPUs with sm75 or higher {hidden}\n");
    let out = run_stdin(&["-"], log.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    for c in invisible {
        assert!(!text.contains(c), "U+{:04X} reached the terminal: {text}", c as u32);
        assert!(text.contains(&format!("\\u{{{:x}}}", c as u32)), "U+{:04X} not shown: {text}", c as u32);
    }
}

#[test]
fn an_impossible_duration_is_a_usage_error() {
    let out = run(&[
        "watch",
        "--timeout",
        "99999999999999999999h",
        fixture("seed-k26-flashinfer-journal").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("invalid duration") && !err.contains("internal error"), "{err}");
}

#[test]
fn json_reports_name_inputs_as_they_were_given() {
    let seed = fixture("seed-k26-flashinfer-journal");
    let absolute = std::fs::canonicalize(&seed).unwrap();
    let report = json(&run(&["--format", "json", absolute.to_str().unwrap()]));
    assert_eq!(report["inputs"][0]["name"], absolute.to_str().unwrap());
    let given = "fixtures/seed-k26-flashinfer-journal/input.log";
    let relative = json(&run(&["--format", "json", given]));
    assert_eq!(relative["inputs"][0]["name"], given);
}
