//! What `logdiag watch` prints: one record per change of the current
//! launch's state, of the followed file, and at the end, as a line of
//! text for people or a JSON object per line for scripts.

use std::io::{self, Write};

use serde::Serialize;

use super::escape::for_terminal;
use super::{render_run, ColorChoice, Terminal, TextOptions};
use crate::engine::diagnosis::{Evidence, Run};
use crate::exit::Exit;
use crate::watch::{Change, FileChange, Record, State};

/// How watch records are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatchForm {
    /// A line of text per record, for people.
    Text,
    /// A JSON object per line, for scripts.
    Json,
}

/// Writes watch records as they come; `source` names the followed
/// input, `elapsed` the seconds since watching began.
pub fn write_record(
    out: &mut dyn Write,
    form: WatchForm,
    source: &str,
    elapsed: f64,
    record: &Record<'_>,
) -> io::Result<()> {
    let elapsed_ms = (elapsed * 1000.0).round() / 1000.0;
    match (form, record) {
        // A judgement that changed nothing says nothing.
        (_, Record::Judged(_)) => return Ok(()),
        (WatchForm::Json, Record::State(change)) => write_state_json(out, elapsed_ms, change)?,
        (WatchForm::Text, Record::State(change)) => write_state_text(out, elapsed, change)?,
        (WatchForm::Json, Record::File(change)) => {
            let record = serde_json::json!({"event": "file", "elapsed": elapsed_ms, "file": source, "change": change.name()});
            writeln!(out, "{record}")?;
        }
        (WatchForm::Text, Record::File(change)) => {
            let what = match change {
                FileChange::Truncated => "truncated; reading it from the start",
                FileChange::Replaced => "replaced (rotated); reading the new file",
                FileChange::Appeared => "appeared",
            };
            writeln!(out, "[{elapsed:7.1}s] {}: {what}", for_terminal(source))?;
        }
        (WatchForm::Json, Record::End { exit, reason }) => {
            let record = serde_json::json!({"event": "exit", "elapsed": elapsed_ms, "code": exit.code(), "reason": reason.name()});
            writeln!(out, "{record}")?;
        }
        (WatchForm::Text, Record::End { exit, reason }) => write_end_text(out, elapsed, *exit, *reason)?,
    }
    out.flush()
}

fn write_state_json(out: &mut dyn Write, elapsed: f64, change: &Change) -> io::Result<()> {
    #[derive(Serialize)]
    struct StateJson<'a> {
        event: &'static str,
        elapsed: f64,
        state: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        lasting_seconds: Option<u64>,
        history: bool,
        before_watch: bool,
        evidence: Option<&'a Evidence>,
        run: &'a Run,
    }
    let record = StateJson {
        // A note on a phase that lasts is no change of state.
        event: if change.lasting.is_some() { "lasting" } else { "state" },
        elapsed,
        state: change.state.name(),
        lasting_seconds: change.lasting.map(|d| d.as_secs()),
        history: change.history,
        before_watch: change.before_watch,
        evidence: change.evidence.as_ref(),
        run: &change.run,
    };
    serde_json::to_writer(&mut *out, &record)?;
    out.write_all(b"\n")
}

fn write_state_text(out: &mut dyn Write, elapsed: f64, change: &Change) -> io::Result<()> {
    let run = &change.run;
    let earlier = if change.history { "earlier " } else { "" };
    // The deciding line where there is one, as batch places its evidence;
    // the run as batch and JSON number it.
    let (source, line_number) = match &change.evidence {
        Some(e) => (e.source.as_str(), e.line),
        None => (run.source.as_str(), run.first_line),
    };
    let unit = run.unit.as_deref().map(|u| format!(" ({})", for_terminal(u))).unwrap_or_default();
    let mut line = format!(
        "[{elapsed:7.1}s] {}:{line_number}{unit}: {earlier}run {}: {}",
        for_terminal(source),
        run.number,
        change.state.name()
    );
    line.push_str(&state_detail(change));
    writeln!(out, "{line}")?;
    if change.state == State::Crashed && !change.history {
        // Laid out for the terminal (evidence cut to its width), or whole
        // in a pipe; watch has no --color.
        let terminal = Terminal::detect(ColorChoice::Never);
        let options = TextOptions { terminal, ..TextOptions::default() };
        out.write_all(render_run(run, &options).as_bytes())?;
    }
    Ok(())
}

fn write_end_text(
    out: &mut dyn Write,
    elapsed: f64,
    exit: Exit,
    reason: crate::watch::EndReason,
) -> io::Result<()> {
    use crate::watch::EndReason;
    let code = exit.code();
    // What a decision was, in the words of the state lines.
    let decided = match exit {
        Exit::Crashed | Exit::CrashedUnexplained => "crashed",
        Exit::Hung => "hung",
        Exit::EndedFirst => "ended before the awaited state",
        _ => "reached",
    };
    match reason {
        EndReason::Timeout => writeln!(out, "[{elapsed:7.1}s] timeout: no decision in time (exit {code})"),
        EndReason::Decided => writeln!(out, "[{elapsed:7.1}s] {decided} (exit {code})"),
        EndReason::InputEnded | EndReason::Terminated => {
            writeln!(out, "[{elapsed:7.1}s] {} (exit {code})", reason.name())
        }
    }
}

/// A duration as a person says it: `45 s`, `14 min`, `2 h 05 min`.
fn minutes(lasted: std::time::Duration) -> String {
    let seconds = lasted.as_secs();
    match seconds {
        0..=119 => format!("{seconds} s"),
        120..=7199 => format!("{} min", seconds / 60),
        _ => format!("{} h {:02} min", seconds / 3600, seconds % 3600 / 60),
    }
}

/// What follows a state's name in the text report: the cause, the line
/// that proved readiness, the silence of a hung launch.
fn state_detail(change: &Change) -> String {
    let run = &change.run;
    let at = |e: &Evidence| {
        if e.source == run.source {
            format!("line {}", e.line)
        } else {
            format!("line {} of {}", e.line, for_terminal(&e.source))
        }
    };
    if let Some(lasted) = change.lasting {
        return format!(
            " for {}, past --hang-after: a start-up phase this long is stuck or far slower than it should be; its last lines say what it waits for",
            minutes(lasted)
        );
    }
    let detail = match (&change.state, &change.evidence) {
        (State::Crashed, _) => match &run.root_cause {
            Some(cause) => format!(" — {} [{}]", for_terminal(&cause.title), cause.category),
            None => String::new(),
        },
        (State::Ready, Some(proof)) => {
            format!(" — a generation completed ({}): {}", at(proof), for_terminal(proof.text.trim()))
        }
        (State::Serving, Some(proof)) => format!(" (ready since {})", at(proof)),
        (State::Hung, Some(last)) => format!(
            " — requests were pending and no progress line came after {}: {}",
            at(last),
            for_terminal(last.text.trim())
        ),
        (State::Listening, _) => " — up, but no generation proven yet".to_string(),
        (State::Degraded, Some(slow)) => match &run.degraded {
            Some(d) => format!(
                " — {:.0}% slower per request than {}: {}",
                -d.change * 100.0,
                d.vs_run.map_or_else(|| "earlier in this launch".to_string(), |n| format!("run {n}")),
                for_terminal(slow.text.trim())
            ),
            None => String::new(),
        },
        _ => String::new(),
    };
    // The state line already names the deciding line.
    let decided_before = change.evidence.is_some()
        && change.before_watch
        && matches!(change.state, State::Crashed | State::Hung | State::Degraded);
    if decided_before {
        format!("{detail} (written before watch started)")
    } else {
        detail
    }
}
