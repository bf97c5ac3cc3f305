//! The details of one run in the text report: how it hung or collapsed,
//! its root cause with the evidence (the decisive line marked `>`), the
//! hint, the symptoms with what explains them, benign lines and notices.
//!
//! Prose wraps under a hanging indent. An evidence line is one line in a
//! pipe; on a terminal, one too long for the width keeps its message whole,
//! wrapped under the line's cut prefix.

use std::fmt::Write as _;

use super::escape::for_terminal;
use super::fit::{cut, push_wrapped, width_of};
use super::paint::Paint;
use super::terminal::Terminal;
use super::vitals::{degraded_details, hang_details};
use super::{place, TextOptions, SYMPTOMS_SHOWN};
use crate::engine::diagnosis::{Outcome, Run};

/// How an evidence line is marked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    /// The line that decided the diagnosis: `>`, in colour.
    Decisive,
    /// Any other line.
    Plain,
}

/// At most this many lines of a long evidence line's message are shown
/// under its prefix; the last ends with `…` if more is left.
const MESSAGE_LINES: usize = 6;

/// Appends one evidence line: `  >     34 │ text`. A line too long for
/// the width keeps its message whole: what carried it (a journal's
/// time, host and writer; the server's own time and rank) stays on the
/// numbered line, cut if need be, and the message is wrapped under it.
fn push_evidence(out: &mut String, terminal: &Terminal, mark: Mark, line: u64, text: &str) {
    let paint = Paint(terminal.color);
    let number = format!("{line:>6}");
    let prefix = match mark {
        Mark::Decisive => format!("> {number}"),
        Mark::Plain => format!("  {number}"),
    };
    let shown_mark = match mark {
        Mark::Decisive => paint.decisive_mark(&prefix),
        Mark::Plain => prefix.clone(),
    };
    let paint_text = |text: &str| match mark {
        Mark::Decisive => paint.decisive_text(text),
        Mark::Plain => text.to_string(),
    };
    let room = terminal.evidence_room(width_of(&prefix) + 5);
    let escaped = for_terminal(text);
    let Some(room) = room.filter(|&room| width_of(&escaped) > room) else {
        let _ = writeln!(out, "  {shown_mark} │ {}", paint_text(&escaped));
        return;
    };
    let at = crate::framing::frame_line(text).first.message_at;
    let (head, message) = match (text.get(..at), text.get(at..)) {
        (Some(head), Some(message)) if at > 0 && !message.trim().is_empty() => (head.trim_end(), message),
        _ => ("", text),
    };
    let under = format!("  {} │   ", " ".repeat(width_of(&prefix)));
    let mut pieces = wrapped(&for_terminal(message.trim_start()), room.saturating_sub(2).max(1));
    if head.is_empty() {
        let first = pieces.remove(0);
        let _ = writeln!(out, "  {shown_mark} │ {}", paint_text(&first));
    } else {
        let _ = writeln!(out, "  {shown_mark} │ {}", cut(&for_terminal(head), Some(room)));
    }
    let more = pieces.len() > MESSAGE_LINES;
    pieces.truncate(MESSAGE_LINES);
    let last = pieces.len().saturating_sub(1);
    for (index, piece) in pieces.iter().enumerate() {
        let piece = if more && index == last {
            cut(&format!("{piece}…"), Some(room - 2)).into_owned()
        } else {
            piece.clone()
        };
        let _ = writeln!(out, "{under}{}", paint_text(&piece));
    }
}

/// `text` broken into lines of at most `width` columns, at spaces where it
/// can be, within words where it must.
fn wrapped(text: &str, width: usize) -> Vec<String> {
    let mut lines = String::new();
    push_wrapped(&mut lines, Some(width), "", "", text);
    let pieces: Vec<String> = lines.lines().map(str::to_string).collect();
    if pieces.is_empty() {
        vec![String::new()]
    } else {
        pieces
    }
}

/// Appends what explains an evidence line: `└ rule.id: why`.
fn push_why(out: &mut String, terminal: &Terminal, rule: &str, why: &str) {
    let paint = Paint(terminal.color);
    let text = format!("{}: {}", paint.rule(&for_terminal(rule)), for_terminal(why));
    push_wrapped(out, terminal.width, "           └ ", "             ", &text);
}

/// The details of one run (root cause, evidence, hint, symptoms, notices),
/// as the full report shows them.
pub fn render_run(run: &Run, options: &TextOptions) -> String {
    let mut out = String::new();
    run_details(&mut out, run.number, run, None, options);
    out
}

/// `vs_number`: the number of the run a collapse is compared with.
pub(super) fn run_details(
    out: &mut String,
    number: usize,
    run: &Run,
    vs_number: Option<usize>,
    options: &TextOptions,
) {
    let terminal = &options.terminal;
    let width = terminal.width;
    let paint = Paint(terminal.color);
    let unit = run.unit.as_deref().map(|u| format!(" ({})", for_terminal(u))).unwrap_or_default();
    // A run that crashed or hung after its speed collapsed says both.
    let degraded = if run.degraded.is_some() && run.outcome != Outcome::Degraded {
        format!(", {}", paint.degraded("degraded"))
    } else {
        String::new()
    };
    let outcome = paint.outcome(run.outcome, run.outcome.name());
    push_wrapped(out, width, "", "  ", &format!("Run {number}: {}{unit}: {outcome}{degraded}", place(run)));
    if let Some(hang) = &run.hang {
        hang_details(out, hang, terminal);
        push_evidence(out, terminal, Mark::Decisive, hang.last_progress.line, &hang.last_progress.text);
    }
    if let Some(collapse) = &run.degraded {
        degraded_details(out, collapse, vs_number, options.verbose, terminal);
        out.push_str("  Evidence:\n");
        for e in &collapse.evidence {
            push_evidence(out, terminal, Mark::Plain, e.line, &e.text);
        }
    }
    if let Some(cause) = &run.root_cause {
        push_wrapped(out, width, "  Root cause: ", "              ", &for_terminal(&cause.title));
        let rule = match cause.rule.as_deref() {
            Some(rule) => paint.rule(&for_terminal(rule)),
            None => "no rule".to_string(),
        };
        let identity = format!("{rule} · {} · {} confidence", cause.category, cause.confidence.name());
        push_wrapped(out, width, "              ", "              ", &identity);
        if let Some(inferred) = &cause.inferred {
            push_wrapped(out, width, "              ", "              ", &for_terminal(&inferred.describe()));
        }
        if let Some(fingerprint) = &cause.fingerprint {
            push_wrapped(
                out,
                width,
                "              ",
                "              ",
                &for_terminal(&fingerprint.describe()),
            );
        }
        out.push_str("  Evidence:\n");
        let decisive = cause.evidence.first().map(|e| e.line);
        let mut lines: Vec<_> = cause.evidence.iter().collect();
        lines.sort_by_key(|e| e.line);
        lines.dedup_by_key(|e| e.line);
        for e in lines {
            let mark = if Some(e.line) == decisive { Mark::Decisive } else { Mark::Plain };
            push_evidence(out, terminal, mark, e.line, &e.text);
        }
        if let Some(hint) = &cause.hint {
            push_wrapped(out, width, "  Hint: ", "        ", &for_terminal(hint));
        }
    }
    if !run.symptoms.is_empty() {
        out.push_str("  Symptoms (consequences, not the cause):\n");
        let limit = if options.verbose { usize::MAX } else { SYMPTOMS_SHOWN };
        for s in run.symptoms.iter().take(limit) {
            push_evidence(out, terminal, Mark::Plain, s.line, &s.text);
            push_why(out, terminal, &s.rule, &s.why);
        }
        if run.symptoms.len() > limit {
            let _ = writeln!(out, "    … {} more (-v shows all)", run.symptoms.len() - limit);
        }
    }
    if options.verbose && !run.benign.is_empty() {
        out.push_str("  Benign (scary but harmless):\n");
        for b in &run.benign {
            push_evidence(out, terminal, Mark::Plain, b.line, &b.text);
            push_why(out, terminal, &b.rule, &b.why);
        }
    }
    for notice in &run.notices {
        push_wrapped(out, width, "  Notice: ", "          ", &for_terminal(notice));
    }
}
