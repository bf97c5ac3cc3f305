//! The Markdown report (`--format markdown`): the diagnosis as a text to
//! paste into a GitHub issue. A line per run, the summary as a table, and
//! for each run worth a closer look its root cause, evidence lines in a
//! fenced block (with their line numbers, the decisive one marked `>`), the
//! hint, and symptoms (every symptom and the benign lines with `-v`), as
//! the text report shows them.
//!
//! Nothing is cut: an issue is read in a browser, not on an 80-column
//! terminal. Text from logs stays verbatim inside fences; a fence is longer
//! than any run of backticks in what it holds, so no log line can close it.
//! Names and prose outside fences are code spans or escaped Markdown. As
//! the report may go to a terminal, control characters are escaped
//! everywhere (`\x1b`), as in the text report.

use std::fmt::Write as _;

use super::escape::for_terminal;
use super::text::Layout;
use super::vitals::{duration, figure};
use super::SYMPTOMS_SHOWN;
use crate::engine::diagnosis::{line_span, Diagnosis, Outcome, Run, Verdict, WENT_ON};

/// What the Markdown report shows.
#[derive(Debug, Clone, Default)]
pub struct MarkdownOptions {
    /// Also show benign lines, every symptom, and every unit's runs.
    pub verbose: bool,
}

/// Renders the whole report.
pub(super) fn render(diagnosis: &Diagnosis, options: &MarkdownOptions) -> String {
    let layout = Layout::of(diagnosis, !options.verbose);
    let shown: Vec<&Run> = layout.shown.iter().map(|&i| &diagnosis.runs[i]).collect();
    let mut out = format!("## logdiag: {}\n\n", verdict_name(diagnosis.verdict));
    for run in shown.iter().filter(|r| !r.history) {
        let _ = writeln!(out, "- {}", headline(run));
        if let Some(crash_loop) = super::history::crash_loop(&shown, run) {
            let _ = writeln!(out, "  - {}", prose(&crash_loop));
        }
    }
    let history: Vec<&Run> = shown.iter().copied().filter(|r| r.history).collect();
    if !history.is_empty() {
        out.push_str("- Earlier launches (history; `--any-launch` lets them decide):\n");
        for entry in super::history::entries(&history) {
            let _ = writeln!(out, "  - {}", prose(&entry));
        }
    }
    for (source, units) in &layout.folded {
        let names: Vec<String> =
            units.iter().map(|u| u.map_or_else(|| "(no unit)".to_string(), code)).collect();
        let _ = writeln!(out, "- {}: nothing notable in {}", code(source), names.join(", "));
    }
    if diagnosis.runs.is_empty() {
        out.push_str("- no lines to judge\n");
    }
    let tabled: Vec<&Run> = shown.iter().copied().filter(|r| options.verbose || !r.history).collect();
    if !tabled.is_empty() {
        out.push('\n');
        summary_table(&mut out, &tabled);
    }
    if !diagnosis.recurring.is_empty() {
        out.push('\n');
        for recurring in &diagnosis.recurring {
            let _ = writeln!(out, "- {}", prose(&recurring.describe()));
        }
    }
    for run in &shown {
        if super::worth_details(run, options.verbose) && (!run.history || options.verbose) {
            out.push('\n');
            run_details(&mut out, run.number, run, options);
        }
    }
    for input in &diagnosis.inputs {
        for notice in &input.notices {
            let _ = writeln!(out, "\n**Note:** {}: {}", code(&input.name), prose(notice));
        }
    }
    let _ = writeln!(out, "\n**Verdict:** {} (exit {})", verdict_name(diagnosis.verdict), diagnosis.exit());
    out
}

fn verdict_name(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Crash => "crash",
        Verdict::Hung => "hung",
        Verdict::Degraded => "degraded",
        Verdict::NoCrash => "no crash",
    }
}

/// `source:first-last`, with the unit when the log names one.
fn place(run: &Run) -> String {
    let lines = line_span(run.first_line, run.last_line, run.last_source.as_deref(), str::to_string);
    let place = code(&format!("{}:{lines}", run.source));
    match &run.unit {
        Some(unit) => format!("{place} ({})", code(unit)),
        None => place,
    }
}

/// One line per run: where, the outcome in bold, and what decided it.
fn headline(run: &Run) -> String {
    let outcome = run.outcome.name().to_uppercase();
    let said = match (&run.root_cause, &run.hang, &run.ready) {
        (Some(cause), _, _) => format!(
            "{} — {}, {} confidence",
            prose(&cause.title),
            code(cause.category.name()),
            cause.confidence.name()
        ),
        (None, Some(hang), _) => format!(
            "no progress for {} after line {}",
            duration(hang.silent_seconds),
            hang.last_progress.line
        ),
        (None, None, Some(ready)) => format!("a generation completed at line {}", ready.line),
        (None, None, None) => {
            run.phase.as_deref().map(|p| format!("reached {}", code(p))).unwrap_or_default()
        }
    };
    let degraded = run
        .degraded
        .as_ref()
        .map(|d| match run.outcome {
            Outcome::Degraded => format!("; {:.0}% slower per request", -d.change * 100.0),
            _ => format!("; **DEGRADED** ({:.0}% slower per request)", -d.change * 100.0),
        })
        .unwrap_or_default();
    let survived =
        run.benign.iter().find(|b| b.why.starts_with(WENT_ON)).filter(|_| run.root_cause.is_none());
    let said = match survived {
        Some(b) if said.is_empty() => format!("survived the error at line {}: the process went on", b.line),
        Some(b) => format!("{said}; survived the error at line {}: the process went on", b.line),
        None => said,
    };
    let said = if said.is_empty() { String::new() } else { format!(": {said}") };
    format!("{} **{outcome}**{said}{degraded}", place(run))
}

fn summary_table(out: &mut String, runs: &[&Run]) {
    out.push_str("| source | run | lines | unit | outcome | root cause | confidence |\n");
    out.push_str("| --- | ---: | --- | --- | --- | --- | --- |\n");
    for run in runs {
        let (category, confidence) = match &run.root_cause {
            Some(cause) => (code(cause.category.name()), cause.confidence.name()),
            None => ("-".to_string(), "-"),
        };
        let cells = [
            code(&run.source),
            run.number.to_string(),
            line_span(run.first_line, run.last_line, run.last_source.as_deref(), code),
            run.unit.as_deref().map_or_else(|| "-".to_string(), code),
            run.outcome.name().to_string(),
            category,
            confidence.to_string(),
        ];
        let cells: Vec<String> = cells.iter().map(|c| table_cell(c)).collect();
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
}

/// The details of one run, as the text report gives them.
fn run_details(out: &mut String, number: usize, run: &Run, options: &MarkdownOptions) {
    let _ = writeln!(out, "### Run {number}: {}: {}\n", place(run), run.outcome.name());
    if let Some(hang) = &run.hang {
        let _ = writeln!(
            out,
            "**Hung:** work pending at line {} and no progress for {} after it, up to line {}.\n",
            hang.last_progress.line,
            duration(hang.silent_seconds),
            hang.last_line
        );
        fenced(out, [(hang.last_progress.line, Mark::Decisive, hang.last_progress.text.as_str(), None)]);
    }
    if let Some(collapse) = &run.degraded {
        let _ = writeln!(
            out,
            "**Collapse:** {} {} against {} in {} ({:+.0}%), generation {} tok/s against {}.\n",
            figure(collapse.after),
            prose(&collapse.metric),
            figure(collapse.before),
            collapse.vs_run.map_or_else(|| "an earlier run".to_string(), |n| format!("run {n}")),
            collapse.change * 100.0,
            figure(collapse.generation_tok_s.after),
            figure(collapse.generation_tok_s.before)
        );
        for arg in &collapse.changed_args {
            let value = |v: &Option<String>| v.as_deref().map_or_else(|| "(not printed)".to_string(), code);
            let _ = writeln!(out, "- {}: {} → {}", code(&arg.name), value(&arg.before), value(&arg.after));
        }
        if !collapse.changed_args.is_empty() {
            out.push('\n');
        }
        fenced(out, collapse.evidence.iter().map(|e| (e.line, Mark::Plain, e.text.as_str(), None)));
    }
    if let Some(cause) = &run.root_cause {
        let rule = cause.rule.as_deref().map_or_else(|| "no rule".to_string(), code);
        let _ = writeln!(
            out,
            "**Root cause:** {} ({rule}, {}, {} confidence)\n",
            prose(&cause.title),
            code(cause.category.name()),
            cause.confidence.name()
        );
        if let Some(inferred) = &cause.inferred {
            let _ = writeln!(out, "{}\n", prose(&inferred.describe()));
        }
        if let Some(fingerprint) = &cause.fingerprint {
            let _ = writeln!(out, "{}\n", prose(&fingerprint.describe()));
        }
        let decisive = cause.evidence.first().map(|e| e.line);
        let mut lines: Vec<_> = cause.evidence.iter().collect();
        lines.sort_by_key(|e| e.line);
        lines.dedup_by_key(|e| e.line);
        out.push_str("Evidence (the decisive line marked `>`):\n\n");
        fenced(
            out,
            lines.iter().map(|e| {
                let mark = if Some(e.line) == decisive { Mark::Decisive } else { Mark::Plain };
                (e.line, mark, e.text.as_str(), None)
            }),
        );
        if let Some(hint) = &cause.hint {
            let _ = writeln!(out, "**Hint:** {}\n", prose(hint));
        }
    }
    if !run.symptoms.is_empty() {
        let limit = if options.verbose { usize::MAX } else { SYMPTOMS_SHOWN };
        out.push_str("Symptoms (consequences, not the cause):\n\n");
        fenced(
            out,
            run.symptoms
                .iter()
                .take(limit)
                .map(|s| (s.line, Mark::Plain, s.text.as_str(), Some((&s.rule, &s.why)))),
        );
        if run.symptoms.len() > limit {
            let _ = writeln!(out, "… {} more (`-v` shows all)\n", run.symptoms.len() - limit);
        }
    }
    if options.verbose && !run.benign.is_empty() {
        out.push_str("Benign (scary but harmless):\n\n");
        fenced(
            out,
            run.benign.iter().map(|b| (b.line, Mark::Plain, b.text.as_str(), Some((&b.rule, &b.why)))),
        );
    }
    for notice in &run.notices {
        let _ = writeln!(out, "**Notice:** {}\n", prose(notice));
    }
    // One blank line between blocks is enough.
    while out.ends_with("\n\n") {
        out.pop();
    }
}

/// How a line in a fence is marked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    /// The line that decided the outcome: `>`.
    Decisive,
    /// Any other line.
    Plain,
}

/// Writes log lines in a fenced block: `> 34 │ text`, each optionally
/// followed by `└ rule: why`. The fence is longer than any run of
/// backticks inside it.
fn fenced<'a>(
    out: &mut String,
    lines: impl IntoIterator<Item = (u64, Mark, &'a str, Option<(&'a String, &'a String)>)>,
) {
    let mut body = String::new();
    for (line, mark, text, why) in lines {
        let mark = match mark {
            Mark::Decisive => '>',
            Mark::Plain => ' ',
        };
        let _ = writeln!(body, "{mark} {line:>6} │ {}", for_terminal(text));
        if let Some((rule, why)) = why {
            let _ = writeln!(body, "         └ {}: {}", for_terminal(rule), for_terminal(why));
        }
    }
    let fence = "`".repeat(longest_backtick_run(&body).max(2) + 1);
    let _ = write!(out, "{fence}text\n{body}{fence}\n\n");
}

fn longest_backtick_run(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// `text` as an inline code span (its delimiter longer than any run of
/// backticks inside it), control characters escaped.
fn code(text: &str) -> String {
    let text = for_terminal(text);
    let ticks = "`".repeat(longest_backtick_run(&text) + 1);
    // A span that starts or ends with a backtick needs a space inside its
    // delimiters (which Markdown strips again).
    let pad = if text.starts_with('`') || text.ends_with('`') { " " } else { "" };
    format!("{ticks}{pad}{text}{pad}{ticks}")
}

/// Prose for Markdown: control characters escaped, and the characters
/// that would turn into markup (emphasis, links, HTML, code) escaped with
/// a backslash. An `_` inside a word (`TORCH_CUDA_ARCH_LIST`) is no
/// emphasis in GitHub's Markdown and stays as it is.
fn prose(text: &str) -> String {
    let text = for_terminal(text);
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    for (i, &c) in chars.iter().enumerate() {
        let in_word = |at: Option<&char>| at.is_some_and(|c| c.is_alphanumeric());
        let markup = match c {
            '_' => !(i > 0 && in_word(chars.get(i - 1)) && in_word(chars.get(i + 1))),
            '\\' | '`' | '*' | '[' | ']' | '<' | '>' | '|' | '~' | '&' | '#' => true,
            _ => false,
        };
        if markup {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A table cell: a `|` would end the cell, even inside a code span.
fn table_cell(text: &str) -> String {
    text.replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fence_outlasts_every_backtick_run_in_the_lines() {
        let mut out = String::new();
        fenced(&mut out, [(7, Mark::Decisive, "echo ```` done", None)]);
        assert_eq!(out, "`````text\n>      7 │ echo ```` done\n`````\n\n");
        let mut plain = String::new();
        fenced(&mut plain, [(1, Mark::Plain, "no ticks", None)]);
        assert!(plain.starts_with("```text\n"), "{plain}");
    }

    #[test]
    fn names_and_prose_cannot_become_markup() {
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`x"), "`` `x ``");
        assert_eq!(code("esc\u{1b}[31m"), "`esc\\x1b[31m`");
        assert_eq!(prose("use *this* <b>[x](y)</b>"), "use \\*this\\* \\<b\\>\\[x\\](y)\\</b\\>");
        assert_eq!(table_cell("`a|b`"), "`a\\|b`");
        assert_eq!(prose("TORCH_CUDA_ARCH_LIST and _x_"), "TORCH_CUDA_ARCH_LIST and \\_x\\_");
    }
}
