//! The follower: runs a watch. News from the reading thread
//! ([`crate::pipeline::follow`]) goes into the engine in input order; the
//! log is judged once the reader has caught up with what it held, then as
//! lines come (at most every [`THROTTLE`]), or when time alone can decide
//! (a crash's grace, a hang, the timeout); each change is handed out as a
//! [`Record`] for the caller to print.
#![allow(clippy::vec_box)] // Boxed events: see the events module.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{RecvTimeoutError, TryRecvError};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use super::watchers::Watchers;
use super::{Change, WatchOptions};
use crate::engine::{Diagnosis, Engine, JudgeOptions, RunCaps, UnitFilter};
use crate::error::Error;
use crate::events::Event;
use crate::exit::Exit;
use crate::input::follow::Change as PathChange;
use crate::pipeline::follow::{Fed, Followed};
use crate::pipeline::Part;
use crate::rules::RuleSet;

/// The longest wait for news before the loop looks at the clock and the
/// stop signal again (so a SIGTERM ends the watch well within a second).
const LOOK_AGAIN: Duration = Duration::from_millis(200);
/// Judged at most this often while lines keep coming.
const THROTTLE: Duration = Duration::from_millis(100);
/// Most messages (each up to a batch of events) taken from the reader
/// between two looks at the clock.
const MAX_BATCH: usize = 64;

/// What a watch has to say.
#[derive(Debug)]
pub enum Record<'a> {
    /// The current launch (or the one before it, as history) changed
    /// state.
    State(&'a Change),
    /// The log was judged (after the changes that judgement found): what
    /// it says of every run so far, for a reader of more than changes
    /// (the metrics' speeds).
    Judged(&'a Diagnosis),
    /// The followed file changed.
    File(FileChange),
    /// The watch ends.
    End {
        /// Its exit.
        exit: Exit,
        /// Why it ends.
        reason: EndReason,
    },
}

/// What happened to a followed file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileChange {
    /// It did not exist when watching began, and now does.
    Appeared,
    /// It got shorter, or was written over: read from its start.
    Truncated,
    /// Another file took its path (a rotation).
    Replaced,
}

impl FileChange {
    /// Its name in JSON records.
    pub fn name(self) -> &'static str {
        match self {
            FileChange::Appeared => "appeared",
            FileChange::Truncated => "truncated",
            FileChange::Replaced => "replaced",
        }
    }
}

/// Why a watch ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndReason {
    /// The awaited state was reached (or the launch's story ended).
    Decided,
    /// The input ended first.
    InputEnded,
    /// `--timeout` passed first.
    Timeout,
    /// A signal (SIGTERM, SIGINT) asked it to end.
    Terminated,
}

impl EndReason {
    /// Its name in JSON records.
    pub fn name(self) -> &'static str {
        match self {
            EndReason::Decided => "decided",
            EndReason::InputEnded => "input ended",
            EndReason::Timeout => "timeout",
            EndReason::Terminated => "terminated",
        }
    }
}

/// The latest runs judged: the current launch, and the one before it
/// (reported once as history).
const JUDGED_RUNS: usize = 2;

/// What the follower needs besides the news.
pub struct Following<'r> {
    /// The engine, its source begun (and `--after-line` told).
    pub engine: Engine<'r>,
    /// How the log is judged: the latest runs of the units followed.
    pub judging: JudgeOptions,
    /// The watchers of the current launch (of each unit's, for an agent).
    watchers: Watchers,
    /// The followed input's name.
    pub source: String,
    /// The followed file (not for a stream).
    pub path: Option<PathBuf>,
    /// When the watch gives up.
    pub timeout: Option<Duration>,
    /// Set (by a signal) when the watch is to end now.
    pub stop: Option<Arc<AtomicBool>>,
}

impl<'r> Following<'r> {
    /// A watch of the input named `source` (the file at `path`, or a
    /// stream) with `rules`, of the units `units` name (all if none);
    /// `each_unit`: each unit's launches watched on their own (an agent).
    pub fn new(
        rules: &'r RuleSet,
        source: String,
        path: Option<PathBuf>,
        (units, each_unit): (&[String], bool),
        options: WatchOptions,
        timeout: Option<Duration>,
    ) -> Self {
        // An agent runs for weeks: it keeps only the latest launches.
        let caps = if each_unit { RunCaps::AGENT } else { RunCaps::WHOLE_LOG };
        let mut engine = Engine::new(rules).keeping(caps);
        engine.begin_source(&source);
        if let Some(line) = options.after_line {
            engine.launch_after(line);
        }
        let judging = JudgeOptions {
            latest: Some(JUDGED_RUNS),
            units: UnitFilter::new(units),
            hang_after_seconds: options.hang_after.as_secs_f64(),
            ..JudgeOptions::default()
        };
        let watchers = Watchers::new(options, each_unit);
        Following { engine, judging, watchers, source, path, timeout, stop: None }
    }
}

/// Runs a watch over `followed` until it decides, its input ends or its
/// timeout passes; hands each record to `report` with the seconds since
/// watching began. `waiting` is called once if the path does not exist
/// yet.
pub fn follow(
    following: Following<'_>,
    followed: &Followed,
    report: &mut dyn FnMut(&Record<'_>, f64) -> std::io::Result<()>,
    waiting: &mut dyn FnMut(),
) -> Result<Exit, Error> {
    let started_at = Instant::now();
    let mut follower = Follower {
        deadline: following.timeout.map(|t| started_at + t),
        following,
        started_at,
        caught_up: false,
        snapshot: Vec::new(),
        since_snapshot: false,
        dirty: false,
        last_judged: started_at,
        wake: None,
        waited: false,
        report,
        waiting,
    };
    follower.run(followed)
}

/// The judging side: news from the reader in, state changes out.
struct Follower<'f, 'r> {
    following: Following<'r>,
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
    report: &'f mut dyn FnMut(&Record<'_>, f64) -> std::io::Result<()>,
    waiting: &'f mut dyn FnMut(),
}

/// What a piece of news was.
enum Taken {
    Event,
    Idle,
    Ended,
}

impl Follower<'_, '_> {
    fn run(&mut self, followed: &Followed) -> Result<Exit, Error> {
        loop {
            let (idle, ended) = self.take_news(followed)?;
            if ended {
                let exit = self.judge_end()?;
                return self.end(exit, EndReason::InputEnded);
            }
            if self.following.stop.as_ref().is_some_and(|stop| stop.load(Ordering::Relaxed)) {
                return self.end(Exit::Healthy, EndReason::Terminated);
            }
            let now = Instant::now();
            if self.deadline.is_some_and(|d| now >= d) {
                return self.end(Exit::Timeout, EndReason::Timeout);
            }
            let due = idle
                || (self.dirty && now >= self.last_judged + THROTTLE)
                || self.wake.is_some_and(|w| now >= w);
            if self.caught_up && due {
                if let Some(exit) = self.judge()? {
                    return self.end(exit, EndReason::Decided);
                }
            }
        }
    }

    /// Takes the news that has come, waiting at most until the next time
    /// something is due; says whether the input went idle, or ended.
    fn take_news(&mut self, followed: &Followed) -> Result<(bool, bool), Error> {
        let now = Instant::now();
        let mut wake = now + LOOK_AGAIN;
        let due = [self.deadline, self.wake, self.dirty.then_some(self.last_judged + THROTTLE)];
        for at in due.into_iter().flatten() {
            wake = wake.min(at);
        }
        let mut news = Some(followed.news.recv_timeout(wake.saturating_duration_since(now)));
        let mut taken = 0;
        let (mut idle, mut ended) = (false, false);
        while let Some(next) = news.take() {
            match next {
                Ok(fed) => match self.take(fed, followed)? {
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
        Ok((idle, ended))
    }

    /// Takes one piece of news from the reader: the engine takes what is
    /// news of the log; idle moments, the end, a wait and a failure are
    /// this loop's.
    fn take(&mut self, fed: Fed, followed: &Followed) -> Result<Taken, Error> {
        match &fed {
            Fed::Part(part) => self.note_part(part)?,
            Fed::Events(_) => {
                self.dirty = true;
                self.since_snapshot = true;
            }
            _ => {}
        }
        let own = fed.deliver(&mut self.following.engine, |used| followed.recycle(used))?;
        match own {
            Some(Fed::Idle { pending, .. }) => {
                self.snapshot = pending;
                self.since_snapshot = false;
                self.caught_up = true;
                return Ok(Taken::Idle);
            }
            Some(Fed::Waiting) => {
                self.waited = true;
                (self.waiting)();
            }
            Some(Fed::Ended { .. }) => {
                self.snapshot.clear();
                self.caught_up = true;
                return Ok(Taken::Ended);
            }
            Some(Fed::Failed(e)) => return Err(Error::Input(format!("{}: {e}", self.following.source))),
            Some(_) | None => {}
        }
        Ok(Taken::Event)
    }

    /// Says when the followed path's file changed: truncated, replaced,
    /// or there at last.
    fn note_part(&mut self, part: &Part) -> Result<(), Error> {
        let change = match part.after {
            Some(PathChange::Truncated) => FileChange::Truncated,
            Some(PathChange::Replaced) => FileChange::Replaced,
            None if self.waited => FileChange::Appeared,
            None => return Ok(()),
        };
        self.record(&Record::File(change))
    }

    /// Judges the log so far and reports what changed; returns the exit
    /// once the awaited state is reached.
    fn judge(&mut self) -> Result<Option<Exit>, Error> {
        let following = &mut self.following;
        let diagnosis = if self.since_snapshot {
            following.engine.diagnose(&following.judging)
        } else {
            following.engine.diagnose_with(&self.snapshot, &following.judging)
        };
        let now = Instant::now();
        let path = following.path.as_deref();
        let written = || last_written(path, now);
        let (changes, exit) = following.watchers.judge(&diagnosis, now, &written);
        for change in &changes {
            self.record(&Record::State(change))?;
        }
        self.record(&Record::Judged(&diagnosis))?;
        self.dirty = false;
        self.last_judged = now;
        self.wake = self.following.watchers.next_deadline(&diagnosis);
        Ok(exit)
    }

    /// Judges the whole input once it has ended; returns the exit.
    fn judge_end(&mut self) -> Result<Exit, Error> {
        let diagnosis = self.following.engine.diagnose(&self.following.judging);
        let (changes, exit) = self.following.watchers.end(&diagnosis, Instant::now());
        for change in &changes {
            self.record(&Record::State(change))?;
        }
        self.record(&Record::Judged(&diagnosis))?;
        Ok(exit)
    }

    fn record(&mut self, record: &Record<'_>) -> Result<(), Error> {
        let elapsed = self.started_at.elapsed().as_secs_f64();
        (self.report)(record, elapsed).map_err(Error::Output)
    }

    fn end(&mut self, exit: Exit, reason: EndReason) -> Result<Exit, Error> {
        self.record(&Record::End { exit, reason })?;
        Ok(exit)
    }
}

/// When the log at `path` was last written, at the latest: the file's
/// modification time, or `now` for a stream.
fn last_written(path: Option<&std::path::Path>, now: Instant) -> Instant {
    let modified = path.and_then(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok());
    match modified.and_then(|m| SystemTime::now().duration_since(m).ok()) {
        Some(ago) => now.checked_sub(ago).unwrap_or(now),
        None => now,
    }
}
