//! JUnit XML for `logdiag test DIR --junit FILE`: one `<testcase>` per
//! golden case (classname: the folder holding the cases; name: the case),
//! with a `<failure>` naming what went wrong, or an `<error>` when the case
//! could not be run. Everything from a case (names, reasons) is escaped for
//! XML, and characters XML 1.0 cannot carry at all are written as `\x1b`.

use std::fmt::Write as _;
use std::path::Path;

use crate::corpus::{CaseResult, Status};

/// One case as the JUnit report shows it.
pub(super) struct CaseReport {
    /// The name of the folder that holds the case (the test suite).
    pub suite: String,
    /// What checking it found.
    pub result: CaseResult,
    /// How long checking it took.
    pub seconds: f64,
}

/// The suite a case belongs to: the name of the folder holding it.
pub(super) fn suite_name(case: &Path) -> String {
    let holder = case.parent().unwrap_or(case);
    let named = std::fs::canonicalize(holder).unwrap_or_else(|_| holder.to_path_buf());
    named.file_name().map_or_else(|| named.display().to_string(), |n| n.to_string_lossy().into_owned())
}

/// The whole document: one `<testsuite>` per folder, in the cases' order.
pub(super) fn render(cases: &[CaseReport]) -> String {
    let mut suites: Vec<(&str, Vec<&CaseReport>)> = Vec::new();
    for case in cases {
        match suites.iter_mut().find(|(name, _)| *name == case.suite) {
            Some((_, members)) => members.push(case),
            None => suites.push((&case.suite, vec![case])),
        }
    }
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let totals = Counts::of(cases.iter());
    let _ = writeln!(
        xml,
        "<testsuites name=\"logdiag test\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{:.3}\">",
        totals.tests, totals.failures, totals.errors, totals.seconds
    );
    for (name, members) in &suites {
        let counts = Counts::of(members.iter().copied());
        let _ = writeln!(
            xml,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{:.3}\">",
            escape(name),
            counts.tests,
            counts.failures,
            counts.errors,
            counts.seconds
        );
        for case in members {
            testcase(&mut xml, case);
        }
        xml.push_str("  </testsuite>\n");
    }
    xml.push_str("</testsuites>\n");
    xml
}

fn testcase(xml: &mut String, case: &CaseReport) {
    let _ = write!(
        xml,
        "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\"",
        escape(&case.suite),
        escape(&case.result.name),
        case.seconds
    );
    let status = &case.result.status;
    let element = match status {
        Status::Passed => {
            xml.push_str("/>\n");
            return;
        }
        Status::KnownMiss(_) => "skipped",
        Status::Error(_) => "error",
        _ => "failure",
    };
    let reason = escape(&status.to_string());
    let mut body = reason.clone();
    for line in &case.result.explanation {
        body.push('\n');
        body.push_str(&escape(line));
    }
    let _ = writeln!(
        xml,
        ">\n      <{element} message=\"{reason}\" type=\"{}\">{body}</{element}>\n    </testcase>",
        status.kind()
    );
}

/// Tests, failures and errors of some cases, and their time.
struct Counts {
    tests: usize,
    failures: usize,
    errors: usize,
    seconds: f64,
}

impl Counts {
    fn of<'a>(cases: impl Iterator<Item = &'a CaseReport>) -> Self {
        let mut counts = Counts { tests: 0, failures: 0, errors: 0, seconds: 0.0 };
        for case in cases {
            counts.tests += 1;
            counts.seconds += case.seconds;
            match case.result.status {
                Status::Passed | Status::KnownMiss(_) => {}
                Status::Error(_) => counts.errors += 1,
                _ => counts.failures += 1,
            }
        }
        counts
    }
}

/// Escapes text for an XML attribute or element: the five markup
/// characters as entities, line breaks and tabs as character references
/// (so an attribute keeps them), and the characters XML 1.0 forbids even
/// as references (other C0 controls, U+FFFE, U+FFFF) as `\x..` text.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            '\u{fffe}' | '\u{ffff}' => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_forbidden_characters_are_escaped() {
        assert_eq!(escape(r#"a<b>&"c"'d'"#), "a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;");
        assert_eq!(escape("x\ny\tz\u{1b}[31m\u{fffe}"), "x&#10;y&#9;z\\x1b[31m\\u{fffe}");
        assert_eq!(escape("plain é"), "plain é");
    }
}
