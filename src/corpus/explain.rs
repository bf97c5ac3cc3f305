//! Why a case failed, in lines a person can act on: what the labels expect
//! beside what the tool said, and the changes from the blessed report as a
//! unified diff.

use similar::TextDiff;

use super::labels::Labels;
use crate::engine::Diagnosis;
use crate::report::escape::for_terminal;

/// At most this many lines of a report's diff are shown; the rest is
/// counted.
const DIFF_LINES: usize = 80;

/// At most this many evidence lines of what the tool said.
const EVIDENCE_SHOWN: usize = 3;

/// An evidence line is cut to this many characters.
const EVIDENCE_CHARS: usize = 160;

/// `expected:` and `got:` lines for a case whose labels fail.
pub(super) fn labels_against_report(labels: &Labels, diagnosis: &Diagnosis) -> Vec<String> {
    let mut lines = vec![format!("expected: {}", expected(labels))];
    let causes = super::reported_causes(diagnosis);
    let mut got = super::verdict_word(diagnosis.verdict).to_string();
    let mut categories: Vec<&str> = causes.iter().map(|c| c.category.name()).collect();
    categories.dedup();
    if !categories.is_empty() {
        got.push_str(&format!(", cause {}", categories.join(", ")));
    }
    lines.push(format!("got:      {got}"));
    let mut shown = 0;
    for cause in &causes {
        for evidence in &cause.evidence {
            if shown == EVIDENCE_SHOWN {
                break;
            }
            lines.push(format!("  {}:{}: {}", evidence.source, evidence.line, shorten(&evidence.text)));
            shown += 1;
        }
    }
    lines
}

fn expected(labels: &Labels) -> String {
    let mut text = labels.verdict.clone();
    if labels.verdict != "crash" {
        return text;
    }
    let accept = super::accepted(labels);
    if labels.scorable.as_deref() == Some("verdict-only") {
        text.push_str(" (verdict only)");
        return text;
    }
    if !accept.is_empty() {
        text.push_str(&format!(", cause one of {}", accept.join(", ")));
    }
    if !labels.evidence.is_empty() {
        let quoted: Vec<String> = labels.evidence.iter().map(|e| format!("\"{}\"", shorten(e))).collect();
        text.push_str(&format!(", evidence containing {}", quoted.join(" or ")));
    }
    text
}

fn shorten(text: &str) -> String {
    let escaped = for_terminal(text);
    match escaped.char_indices().nth(EVIDENCE_CHARS) {
        Some((cut, _)) => format!("{}…", &escaped[..cut]),
        None => escaped.into_owned(),
    }
}

/// A unified diff from the blessed report in `file` to the new one, at
/// most `DIFF_LINES` lines of it.
pub(super) fn report_diff(file: &str, blessed: &str, report: &str) -> Vec<String> {
    let diff = TextDiff::from_lines(blessed, report);
    let blessed_name = format!("{file} (blessed)");
    let text = diff.unified_diff().context_radius(2).header(&blessed_name, "report now").to_string();
    let mut lines: Vec<String> = text.lines().map(|l| for_terminal(l).into_owned()).collect();
    if lines.len() > DIFF_LINES {
        let more = lines.len() - DIFF_LINES;
        lines.truncate(DIFF_LINES);
        lines.push(format!("… {more} more lines of diff"));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_diff_shows_the_changed_line_with_context() {
        let blessed = "{\n  \"verdict\": \"crash\",\n  \"line\": 4\n}\n";
        let now = "{\n  \"verdict\": \"crash\",\n  \"line\": 5\n}\n";
        let lines = report_diff("expected.json", blessed, now);
        assert!(lines.iter().any(|l| l == "-  \"line\": 4"), "{lines:?}");
        assert!(lines.iter().any(|l| l == "+  \"line\": 5"), "{lines:?}");
        assert!(lines.iter().any(|l| l.starts_with("--- expected.json")), "{lines:?}");
    }
}
