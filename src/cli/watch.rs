//! `logdiag watch [PATH|-]`: follow a growing log (or a stream) and report
//! each state change of the current launch; with `--until`, stop when it
//! is ready, crashes, hangs or ends.
//!
//! The log is read from its start (what it already holds is part of the
//! current launch), by the same reading code as batch mode, on a thread
//! of its own ([`crate::pipeline::follow`]); this thread judges and
//! prints. A diagnosis is made when the reader has caught up with the log
//! and then as lines come (at most every [`THROTTLE`]), or when time alone
//! can decide (a crash's grace, a hang, `--timeout`).

#![allow(clippy::vec_box)] // Boxed events: see the events module.

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::mpsc::{RecvTimeoutError, TryRecvError};
use std::time::{Duration, Instant, SystemTime};

use serde::Serialize;

use super::{load_rules, parse_duration, Failure, OutputFormat, WatchArgs};
use crate::engine::diagnosis::{Evidence, Run};
use crate::engine::{Engine, JudgeOptions, UnitFilter};
use crate::events::Event;
use crate::input::follow::Change as FileChange;
use crate::pipeline::follow::{follow_file, follow_stream, Fed, Followed};
use crate::pipeline::Part;
use crate::report::{escape::for_terminal, render_run, ColorChoice, Terminal, TextOptions};
use crate::watch::{Change, State, Until, WatchOptions, Watcher, EXIT_ENDED_FIRST, EXIT_HUNG};

/// Exit code when `--timeout` passes first.
pub const EXIT_TIMEOUT: i32 = 124;
/// The default of `--hang-after`.
pub const DEFAULT_HANG_AFTER: Duration = Duration::from_secs(600);
/// Judged at most this often while lines keep coming.
const THROTTLE: Duration = Duration::from_millis(100);
/// Most messages (each up to a batch of events) taken from the reader
/// between two looks at the clock.
const MAX_BATCH: usize = 64;
/// The latest runs judged: the current launch, and the one before it
/// (reported once as history).
const JUDGED_RUNS: usize = 2;

pub(super) fn run(args: &WatchArgs, out: &mut dyn Write) -> Result<i32, Failure> {
    let rules = load_rules(&args.rules)?;
    let duration =
        |text: &Option<String>| text.as_deref().map(parse_duration).transpose().map_err(Failure::Message);
    let timeout = duration(&args.timeout)?;
    let hang_after = duration(&args.hang_after)?.unwrap_or(DEFAULT_HANG_AFTER);
    let until = match args.until {
        // Without --until, a watch ends with the launch's story.
        None if args.keep_watching => Until::Never,
        None => Until::StoryEnd,
        Some(super::UntilArg::Ready) => Until::Ready,
        Some(super::UntilArg::Crash) => Until::Crash,
        Some(super::UntilArg::Exit) => Until::Exit,
    };
    let (source, path, followed) = match args.path.as_deref() {
        None | Some("-") => {
            if io::stdin().is_terminal() {
                return Err(Failure::Message("watch: give a PATH, or pipe a log in (journalctl -fu sglang.service -o json | logdiag watch -)".into()));
            }
            ("-".to_string(), None, follow_stream(Box::new(io::stdin())))
        }
        Some(name) => {
            let path = PathBuf::from(name);
            if path.is_dir() {
                return Err(Failure::Message(format!("{name}: is a directory; watch follows one log")));
            }
            (name.to_string(), Some(path.clone()), follow_file(path, name.to_string()))
        }
    };
    let options = WatchOptions { until, hang_after, after_line: args.after_line };
    let mut engine = Engine::new(&rules);
    engine.begin_source(&source);
    if let Some(line) = args.after_line {
        engine.launch_after(line);
    }
    let started_at = Instant::now();
    let mut judge = Judge {
        engine,
        judging: JudgeOptions {
            latest: Some(JUDGED_RUNS),
            units: UnitFilter::new(&args.units),
            hang_after_seconds: hang_after.as_secs_f64(),
            ..JudgeOptions::default()
        },
        watcher: Watcher::new(options),
        source,
        path,
        format: args.format,
        started_at,
        deadline: timeout.map(|t| started_at + t),
        caught_up: false,
        snapshot: Vec::new(),
        since_snapshot: false,
        dirty: false,
        last_judged: started_at,
        wake: None,
        waited: false,
    };
    judge.run(&followed, out)
}

/// The judging side: news from the reader in, state changes out.
struct Judge<'r> {
    engine: Engine<'r>,
    /// How the log is judged: the latest runs of the units followed.
    judging: JudgeOptions,
    watcher: Watcher,
    source: String,
    /// The followed file (not for a stream).
    path: Option<PathBuf>,
    format: OutputFormat,
    started_at: Instant,
    deadline: Option<Instant>,
    /// The reader has read everything the input held when watching began.
    caught_up: bool,
    /// The events still open at the reader's last idle moment.
    snapshot: Vec<Box<Event>>,
    /// Events came after that moment (the snapshot is stale).
    since_snapshot: bool,
    /// Events came since the last diagnosis.
    dirty: bool,
    last_judged: Instant,
    /// When time alone may change the state.
    wake: Option<Instant>,
    /// The path did not exist when watching began.
    waited: bool,
}

impl Judge<'_> {
    fn run(&mut self, followed: &Followed, out: &mut dyn Write) -> Result<i32, Failure> {
        loop {
            let now = Instant::now();
            let mut wake = now + Duration::from_secs(1);
            for at in [self.deadline, self.wake, self.dirty.then_some(self.last_judged + THROTTLE)]
                .into_iter()
                .flatten()
            {
                wake = wake.min(at);
            }
            let mut news = Some(followed.news.recv_timeout(wake.saturating_duration_since(now)));
            let mut taken = 0;
            let mut idle = false;
            let mut ended = false;
            while let Some(next) = news.take() {
                match next {
                    Ok(fed) => match self.take(fed, followed, out)? {
                        Taken::Event => {}
                        Taken::Idle => idle = true,
                        Taken::Ended => ended = true,
                    },
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => ended = true,
                }
                taken += 1;
                if !ended && !idle && taken < MAX_BATCH {
                    news = match followed.news.try_recv() {
                        Ok(fed) => Some(Ok(fed)),
                        Err(TryRecvError::Empty) => None,
                        Err(TryRecvError::Disconnected) => Some(Err(RecvTimeoutError::Disconnected)),
                    };
                }
            }
            if ended {
                let code = self.judge_end(out)?;
                return self.finish(out, code, "input ended");
            }
            let now = Instant::now();
            if self.deadline.is_some_and(|d| now >= d) {
                return self.finish(out, EXIT_TIMEOUT, "timeout");
            }
            let due = idle
                || (self.dirty && now >= self.last_judged + THROTTLE)
                || self.wake.is_some_and(|w| now >= w);
            if self.caught_up && due {
                if let Some(code) = self.judge(out)? {
                    return self.finish(out, code, "decided");
                }
            }
        }
    }

    /// Takes one piece of news from the reader: the engine takes what is
    /// news of the log; idle moments, the end, a wait and a failure are
    /// this loop's.
    fn take(&mut self, fed: Fed, followed: &Followed, out: &mut dyn Write) -> Result<Taken, Failure> {
        match &fed {
            Fed::Part(part) => self.note_part(part, out)?,
            Fed::Events(_) => {
                self.dirty = true;
                self.since_snapshot = true;
            }
            _ => {}
        }
        let own = fed.deliver(&mut self.engine, |used| followed.recycle(used)).map_err(Failure::Io)?;
        match own {
            None => {}
            Some(Fed::Idle { pending, .. }) => {
                self.snapshot = pending;
                self.since_snapshot = false;
                self.caught_up = true;
                return Ok(Taken::Idle);
            }
            Some(Fed::Waiting) => {
                self.waited = true;
                eprintln!("logdiag: waiting for {} to appear", for_terminal(&self.source));
            }
            Some(Fed::Ended { .. }) => {
                self.snapshot.clear();
                self.caught_up = true;
                return Ok(Taken::Ended);
            }
            Some(Fed::Failed(e)) => return Err(Failure::Message(format!("{}: {e}", self.source))),
            Some(_) => {}
        }
        Ok(Taken::Event)
    }

    /// Says when the followed path's file changed: truncated, replaced,
    /// or there at last.
    fn note_part(&mut self, part: &Part, out: &mut dyn Write) -> Result<(), Failure> {
        let what = match part.after {
            Some(FileChange::Truncated) => Some("truncated"),
            Some(FileChange::Replaced) => Some("replaced"),
            None if self.waited => Some("appeared"),
            None => None,
        };
        match what {
            Some(what) => self.note(out, what),
            None => Ok(()),
        }
    }

    /// Judges the log so far and reports what changed; returns the exit
    /// code once the awaited state is reached.
    fn judge(&mut self, out: &mut dyn Write) -> Result<Option<i32>, Failure> {
        let diagnosis = if self.since_snapshot {
            self.engine.diagnose(&self.judging)
        } else {
            self.engine.diagnose_with(&self.snapshot, &self.judging)
        };
        let now = Instant::now();
        let (changes, code) = if self.watcher.has_started() {
            self.watcher.update(&diagnosis, now)
        } else {
            self.watcher.start(&diagnosis, now, self.last_written(now))
        };
        for change in &changes {
            self.print(out, change)?;
        }
        self.dirty = false;
        self.last_judged = now;
        self.wake = self.watcher.next_deadline(&diagnosis);
        Ok(code)
    }

    /// Judges the whole input once it has ended; returns the exit code.
    fn judge_end(&mut self, out: &mut dyn Write) -> Result<i32, Failure> {
        let diagnosis = self.engine.diagnose(&self.judging);
        let (changes, code) = self.watcher.end(&diagnosis, Instant::now());
        for change in &changes {
            self.print(out, change)?;
        }
        Ok(code)
    }

    /// When the log was last written, at the latest: the file's
    /// modification time, or now for a stream.
    fn last_written(&self, now: Instant) -> Instant {
        let modified = self.path.as_ref().and_then(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok());
        match modified.and_then(|m| SystemTime::now().duration_since(m).ok()) {
            Some(ago) => now.checked_sub(ago).unwrap_or(now),
            None => now,
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
                    elapsed: (self.elapsed() * 1000.0).round() / 1000.0,
                    state: change.state.name(),
                    lasting_seconds: change.lasting.map(|d| d.as_secs()),
                    history: change.history,
                    before_watch: change.before_watch,
                    evidence: change.evidence.as_ref(),
                    run: &change.run,
                };
                serde_json::to_writer(&mut *out, &record).map_err(|e| Failure::Io(e.into()))?;
                out.write_all(b"\n")?;
            }
            OutputFormat::Text => {
                let run = &change.run;
                let earlier = if change.history { "earlier " } else { "" };
                // The deciding line where there is one, as batch places its
                // evidence; the run as batch and JSON number it.
                let (source, line_number) = match &change.evidence {
                    Some(e) => (e.source.as_str(), e.line),
                    None => (run.source.as_str(), run.first_line),
                };
                let unit = run.unit.as_deref().map(|u| format!(" ({})", for_terminal(u))).unwrap_or_default();
                let mut line = format!(
                    "[{:7.1}s] {}:{line_number}{unit}: {earlier}run {}: {}",
                    self.elapsed(),
                    for_terminal(source),
                    run.number,
                    change.state.name()
                );
                line.push_str(&state_detail(change));
                writeln!(out, "{line}")?;
                if change.state == State::Crashed && !change.history {
                    // Laid out for the terminal (evidence cut to its width), or
                    // whole in a pipe; watch has no --color.
                    let terminal = Terminal::detect(ColorChoice::Never);
                    let options = TextOptions { terminal, ..TextOptions::default() };
                    out.write_all(render_run(run, &options).as_bytes())?;
                }
            }
        }
        out.flush()?;
        Ok(())
    }

    /// Reports what happened to the followed file: `appeared`,
    /// `truncated` or `replaced` (rotated).
    fn note(&self, out: &mut dyn Write, change: &str) -> Result<(), Failure> {
        match self.format {
            OutputFormat::Json => {
                let record = serde_json::json!({"event": "file", "elapsed": (self.elapsed() * 1000.0).round() / 1000.0, "file": self.source, "change": change});
                writeln!(out, "{record}")?;
            }
            OutputFormat::Text => {
                let what = match change {
                    "truncated" => "truncated; reading it from the start",
                    "replaced" => "replaced (rotated); reading the new file",
                    other => other,
                };
                writeln!(out, "[{:7.1}s] {}: {what}", self.elapsed(), for_terminal(&self.source))?;
            }
        }
        out.flush()?;
        Ok(())
    }

    fn finish(&self, out: &mut dyn Write, code: i32, reason: &str) -> Result<i32, Failure> {
        match self.format {
            OutputFormat::Json => {
                let record = serde_json::json!({"event": "exit", "elapsed": (self.elapsed() * 1000.0).round() / 1000.0, "code": code, "reason": reason});
                writeln!(out, "{record}")?;
            }
            OutputFormat::Text => {
                // What a decision was, in the words of the state lines.
                let decided = match code {
                    1 | 3 => "crashed",
                    EXIT_HUNG => "hung",
                    EXIT_ENDED_FIRST => "ended before the awaited state",
                    _ => "reached",
                };
                match (code, reason) {
                    (EXIT_TIMEOUT, _) => {
                        writeln!(out, "[{:7.1}s] timeout: no decision in time (exit {code})", self.elapsed())?
                    }
                    (_, "decided") => writeln!(out, "[{:7.1}s] {decided} (exit {code})", self.elapsed())?,
                    _ => writeln!(out, "[{:7.1}s] {reason} (exit {code})", self.elapsed())?,
                }
            }
        }
        out.flush()?;
        Ok(code)
    }
}

/// What a piece of news was.
enum Taken {
    Event,
    Idle,
    Ended,
}

/// What follows a state's name in the text report: the cause, the line
/// that proved readiness, the silence of a hung launch.
/// A duration as a person says it: `45 s`, `14 min`, `2 h 05 min`.
fn minutes(lasted: Duration) -> String {
    let seconds = lasted.as_secs();
    match seconds {
        0..=119 => format!("{seconds} s"),
        120..=7199 => format!("{} min", seconds / 60),
        _ => format!("{} h {:02} min", seconds / 3600, seconds % 3600 / 60),
    }
}

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
        assert!(parse_duration("1e400").is_err());
        assert!(parse_duration("99999999999999999999h").is_err());
        // Several units, as systemd and Go write them.
        assert_eq!(parse_duration("1h30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_duration("2m 30s"), Ok(Duration::from_secs(150)));
        assert_eq!(parse_duration("1d"), Ok(Duration::from_secs(86_400)));
        for bad in ["", "1h30", "h", "1h-30m", "30 s s"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }
}
