//! `logdiag watch [PATH|-]`: follow a growing log (or a stream) and report
//! each state change of the current run; with `--until`, stop when the run
//! is ready, crashes, or ends.
//!
//! Exit codes: 0 the awaited state (ready, or an orderly end with `--until
//! exit`), 1 crashed with an identified cause, 3 crashed without one, 4 the
//! input ended (or the run stopped) before the awaited state, 124 the
//! `--timeout` passed, 2 an error.

use std::io::{self, BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::thread;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::{load_rules, Failure, OutputFormat, WatchArgs};
use crate::engine::diagnosis::Run;
use crate::engine::{Engine, JudgeOptions};
use crate::events::Event;
use crate::input::follow::{Change as FileChange, FileFollower};
use crate::pipeline::{Borrowing, Session};
use crate::report::{escape::for_terminal, render_run, TextOptions};
use crate::watch::{Change, State, Until, Watcher};

/// Exit code when `--timeout` passes first.
pub const EXIT_TIMEOUT: i32 = 124;
/// A followed file is polled this often.
const POLL: Duration = Duration::from_millis(100);
/// After this long without new lines, an open event (a traceback) is judged
/// complete.
const QUIET: Duration = Duration::from_millis(250);
/// Lines in flight between the reader and the judge (back-pressure keeps
/// memory flat when the log grows faster than it is judged).
const CHANNEL: usize = 16 * 1024;

enum Input {
    Line(Vec<u8>),
    /// Everything the file held when watching started has been sent.
    CaughtUp,
    /// The followed file was truncated or replaced.
    File(FileChange),
    /// The stream ended (stdin closed).
    End,
    /// Reading failed.
    Failed(String),
}

pub(super) fn run(args: &WatchArgs, out: &mut dyn Write) -> Result<i32, Failure> {
    let rules = load_rules(&args.rules)?;
    let timeout = args.timeout.as_deref().map(parse_duration).transpose().map_err(Failure::Message)?;
    let source = match args.path.as_deref() {
        None | Some("-") => {
            if io::stdin().is_terminal() {
                return Err(Failure::Message("watch: give a PATH, or pipe a log in (journalctl -fu sglang.service -o json | logdiag watch -)".into()));
            }
            "-".to_string()
        }
        Some(path) => path.to_string(),
    };
    let (tx, rx) = mpsc::sync_channel(CHANNEL);
    if source == "-" {
        thread::spawn(move || read_stdin(&tx));
    } else {
        let path = PathBuf::from(&source);
        if path.is_dir() {
            return Err(Failure::Message(format!("{source}: is a directory; watch follows one log")));
        }
        thread::spawn(move || follow_file(&path, &tx));
    }
    let until = match args.until {
        None => Until::Never,
        Some(super::UntilArg::Ready) => Until::Ready,
        Some(super::UntilArg::Crash) => Until::Crash,
        Some(super::UntilArg::Exit) => Until::Exit,
    };
    let mut judge = Judge::new(&rules, &source, until, args.format, timeout);
    judge.run(&rx, out)
}

/// The judging side: lines in, state changes out.
struct Judge<'r> {
    engine: Engine<'r>,
    watcher: Watcher,
    source: String,
    format: OutputFormat,
    started_at: Instant,
    deadline: Option<Instant>,
}

impl<'r> Judge<'r> {
    fn new(
        rules: &'r crate::rules::RuleSet,
        source: &str,
        until: Until,
        format: OutputFormat,
        timeout: Option<Duration>,
    ) -> Self {
        let mut engine = Engine::new(rules);
        engine.begin_source(source);
        let started_at = Instant::now();
        Judge {
            engine,
            watcher: Watcher::new(until),
            source: source.to_string(),
            format,
            started_at,
            deadline: timeout.map(|t| started_at + t),
        }
    }

    fn run(&mut self, rx: &Receiver<Input>, out: &mut dyn Write) -> Result<i32, Failure> {
        let (event_tx, event_rx) = mpsc::channel::<Event>();
        let mut send = move |event: &Event| {
            let _ = event_tx.send(event.clone());
            Ok(())
        };
        let mut sink = Borrowing::new(&mut send);
        let mut session = Session::new(&mut sink);
        let mut started = false;
        loop {
            let wait = match self.deadline {
                Some(deadline) => QUIET.min(deadline.saturating_duration_since(Instant::now())),
                None => QUIET,
            };
            let first = rx.recv_timeout(wait);
            let mut ended = false;
            let mut quiet = false;
            let mut caught_up = false;
            let mut next = Some(first);
            // Take every line already waiting, then judge once.
            while let Some(message) = next.take() {
                match message {
                    Ok(Input::Line(bytes)) => session.push_line(&bytes)?,
                    Ok(Input::CaughtUp) => caught_up = true,
                    Ok(Input::File(change)) => {
                        self.engine.begin_part(&self.source, session.last_line() + 1, None);
                        self.note(out, change)?;
                    }
                    Ok(Input::End) | Err(RecvTimeoutError::Disconnected) => ended = true,
                    Ok(Input::Failed(problem)) => {
                        return Err(Failure::Message(format!("{}: {problem}", self.source)))
                    }
                    Err(RecvTimeoutError::Timeout) => quiet = true,
                }
                if !ended && !quiet {
                    next = rx.try_recv().ok().map(Ok);
                }
            }
            if quiet || ended || caught_up {
                session.flush()?;
            }
            let mut fed = false;
            for event in event_rx.try_iter() {
                self.engine.feed(&event);
                fed = true;
            }
            let starting = !started && (caught_up || quiet || ended);
            if (fed && started) || starting || (started && self.watcher.is_pending()) {
                let diagnosis = self.engine.diagnose(JudgeOptions { last_only: true });
                let (changes, code) =
                    if starting { self.watcher.start(&diagnosis) } else { self.watcher.update(&diagnosis) };
                started = true;
                for change in &changes {
                    self.print(out, change)?;
                }
                if let Some(code) = code {
                    return self.finish(out, code, "decided");
                }
                if ended {
                    let code = self.watcher.ended(&diagnosis);
                    return self.finish(out, code, "input ended");
                }
            } else if ended {
                return self.finish(out, crate::watch::EXIT_ENDED_FIRST, "input ended");
            }
            if self.deadline.is_some_and(|d| Instant::now() >= d) {
                return self.finish(out, EXIT_TIMEOUT, "timeout");
            }
        }
    }

    fn elapsed(&self) -> f64 {
        self.started_at.elapsed().as_secs_f64()
    }

    fn print(&self, out: &mut dyn Write, change: &Change) -> Result<(), Failure> {
        match self.format {
            OutputFormat::Json => {
                #[derive(Serialize)]
                struct StateJson<'a> {
                    event: &'static str,
                    elapsed: f64,
                    state: &'a str,
                    history: bool,
                    run: &'a Run,
                }
                let record = StateJson {
                    event: "state",
                    elapsed: (self.elapsed() * 1000.0).round() / 1000.0,
                    state: change.state.name(),
                    history: change.history,
                    run: &change.run,
                };
                serde_json::to_writer(&mut *out, &record).map_err(|e| Failure::Io(e.into()))?;
                out.write_all(b"\n")?;
            }
            OutputFormat::Text => {
                let run = &change.run;
                let earlier = if change.history { "earlier run, " } else { "" };
                let mut line = format!(
                    "[{:7.1}s] {}:{}: {earlier}{}",
                    self.elapsed(),
                    for_terminal(&run.source),
                    run.first_line,
                    change.state.name()
                );
                if let Some(cause) = &run.root_cause {
                    line.push_str(&format!(" — {} [{}]", for_terminal(&cause.title), cause.category));
                }
                writeln!(out, "{line}")?;
                if change.state == State::Crashed && !change.history {
                    out.write_all(render_run(run, &TextOptions::default()).as_bytes())?;
                }
            }
        }
        out.flush()?;
        Ok(())
    }

    fn note(&self, out: &mut dyn Write, change: FileChange) -> Result<(), Failure> {
        let what = match change {
            FileChange::Opened => "opened",
            FileChange::Truncated => "truncated; reading it from the start",
            FileChange::Replaced => "replaced (rotated); reading the new file",
        };
        if self.format == OutputFormat::Text {
            writeln!(out, "[{:7.1}s] {}: {what}", self.elapsed(), for_terminal(&self.source))?;
            out.flush()?;
        }
        Ok(())
    }

    fn finish(&self, out: &mut dyn Write, code: i32, reason: &str) -> Result<i32, Failure> {
        match self.format {
            OutputFormat::Json => {
                let record = serde_json::json!({"event": "exit", "elapsed": (self.elapsed() * 1000.0).round() / 1000.0, "code": code, "reason": reason});
                writeln!(out, "{record}")?;
            }
            OutputFormat::Text => {
                if code == EXIT_TIMEOUT {
                    writeln!(out, "[{:7.1}s] timeout: no decision in time (exit {code})", self.elapsed())?;
                } else {
                    writeln!(out, "[{:7.1}s] {reason} (exit {code})", self.elapsed())?;
                }
            }
        }
        out.flush()?;
        Ok(code)
    }
}

fn follow_file(path: &std::path::Path, tx: &SyncSender<Input>) {
    let mut follower = FileFollower::new(path);
    let mut caught_up = false;
    loop {
        let mut failed = false;
        let result = follower.poll(&mut |line| {
            failed |= tx.send(Input::Line(line.to_vec())).is_err();
        });
        match result {
            Ok(changes) => {
                for change in changes.into_iter().filter(|c| *c != FileChange::Opened || caught_up) {
                    failed |= tx.send(Input::File(change)).is_err();
                }
            }
            Err(e) => {
                let _ = tx.send(Input::Failed(e.to_string()));
                return;
            }
        }
        if !caught_up {
            caught_up = true;
            failed |= tx.send(Input::CaughtUp).is_err();
        }
        if failed {
            return;
        }
        thread::sleep(POLL);
    }
}

fn read_stdin(tx: &SyncSender<Input>) {
    let stdin = io::stdin();
    let mut reader = stdin.lock();
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) => {
                let _ = tx.send(Input::End);
                return;
            }
            Ok(_) => {
                if buf.last() == Some(&b'\n') {
                    buf.pop();
                }
                buf.truncate(crate::input::MAX_LINE_BYTES);
                if tx.send(Input::Line(buf.clone())).is_err() {
                    return;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                let _ = tx.send(Input::Failed(e.to_string()));
                return;
            }
        }
    }
}

/// `30s`, `5m`, `1h`, `250ms`, or plain seconds (`90`, `1.5`).
fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (number, unit) = match text.find(|c: char| !(c.is_ascii_digit() || c == '.')) {
        Some(at) => (&text[..at], &text[at..]),
        None => (text, "s"),
    };
    let value: f64 =
        number.parse().map_err(|_| format!("invalid duration '{text}' (use 30s, 5m, 1h, 250ms)"))?;
    let seconds = match unit {
        "ms" => value / 1000.0,
        "s" | "sec" => value,
        "m" | "min" => value * 60.0,
        "h" => value * 3600.0,
        _ => return Err(format!("invalid duration '{text}' (use 30s, 5m, 1h, 250ms)")),
    };
    if !seconds.is_finite() || seconds < 0.0 {
        return Err(format!("invalid duration '{text}'"));
    }
    Ok(Duration::from_secs_f64(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("90"), Ok(Duration::from_secs(90)));
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("5x").is_err());
    }
}
