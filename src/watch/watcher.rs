//! The watcher: the current launch's state, judged from one diagnosis to
//! the next, and when to stop. Pure: diagnoses and times in, changes and
//! decisions out (see the module above for the rules it keeps).

use std::time::{Duration, Instant};

use crate::engine::diagnosis::{phase, Confidence, Evidence, Outcome, Run};
use crate::engine::Diagnosis;
use crate::exit::Exit;

/// How long a crash without evidence of death waits for signs of life.
pub const CRASH_GRACE: Duration = Duration::from_secs(5);

/// Where the current launch stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    /// Started; no start-up phase seen yet.
    Starting,
    /// A start-up phase (`loading-weights`, `allocating-kv-cache`,
    /// `capturing-cuda-graphs`, `autotuning`).
    Phase(String),
    /// Up (its HTTP server listens, it may answer requests), but no
    /// generation proven yet.
    Listening,
    /// A line proved that a generation completed.
    Ready,
    /// Ready, and working on.
    Serving,
    /// Work was pending and no progress came for the hang time.
    Hung,
    /// Ready, but its generation speed collapsed (against an earlier
    /// launch, or within this one).
    Degraded,
    /// Stopped in an orderly way.
    Stopped,
    /// Crashed.
    Crashed,
}

impl State {
    /// The state's name in reports.
    pub fn name(&self) -> &str {
        match self {
            State::Starting => "starting",
            State::Phase(phase) => phase,
            State::Listening => phase::LISTENING,
            State::Ready => phase::READY,
            State::Serving => phase::SERVING,
            State::Hung => "hung",
            State::Degraded => "degraded",
            State::Stopped => "stopped",
            State::Crashed => "crashed",
        }
    }

    /// The run is over.
    pub fn is_end(&self) -> bool {
        matches!(self, State::Stopped | State::Crashed)
    }
}

/// The state of a judged run, leaving hangs aside (they take a clock).
pub fn state_of(run: &Run) -> State {
    match run.outcome {
        Outcome::Crash => State::Crashed,
        Outcome::Stopped => State::Stopped,
        Outcome::Hung => State::Hung,
        Outcome::Degraded => State::Degraded,
        Outcome::Healthy | Outcome::Starting | Outcome::Unknown => phase_state(run),
    }
}

/// The state a run's phase gives (a run that did not end).
fn phase_state(run: &Run) -> State {
    match run.phase.as_deref() {
        None => State::Starting,
        Some(phase::LISTENING) => State::Listening,
        Some(phase::READY) => State::Ready,
        Some(phase::SERVING) => State::Serving,
        Some(phase) => State::Phase(phase.to_string()),
    }
}

/// What to watch for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Until {
    /// Report changes until the input ends.
    Never,
    /// Stop when the launch's story ends: it crashes (1 or 3), hangs (5)
    /// or stops (0); the input ending first is no failure (0). What a
    /// watch without `--until` waits for.
    StoryEnd,
    /// Stop when the launch is ready (0), crashes (1 or 3) or hangs (5).
    Ready,
    /// Stop when the launch crashes (1 or 3) or hangs (5).
    Crash,
    /// Stop when the launch ends: crash (1 or 3), hang (5) or stop (0).
    Exit,
}

/// A reported change of state.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// The run, as judged when its state changed.
    pub run: Run,
    /// Its new state.
    pub state: State,
    /// The run is history: an earlier launch than the current one.
    pub history: bool,
    /// The line that decided the state: the proof of readiness (`ready`,
    /// `serving`), the last progress line (`hung`), the decisive line
    /// (`crashed`), the slow progress line (`degraded`).
    pub evidence: Option<Evidence>,
    /// The log already held it when watching began: written before, not
    /// seen happen.
    pub before_watch: bool,
    /// Not a change but a note on the same state: the launch has been in
    /// this start-up phase for so long (past `--hang-after`).
    pub lasting: Option<Duration>,
}

/// How the watch is set up.
#[derive(Debug, Clone, Copy)]
pub struct WatchOptions {
    /// What to stop at.
    pub until: Until,
    /// How long pending work may go without progress before the launch
    /// counts as hung.
    pub hang_after: Duration,
    /// The runs that begin at or before this stream line are history.
    pub after_line: Option<u64>,
}

/// Follows the states of the current launch across diagnoses.
#[derive(Debug)]
pub struct Watcher {
    options: WatchOptions,
    /// Stream line of the run being watched, and its last state.
    current: Option<(u64, State)>,
    /// The history run was reported.
    history_told: bool,
    /// A crash not yet decided: its run, and since when it has looked so.
    pending_crash: Option<(u64, Instant)>,
    /// The current run's last work line, and when it was written (at the
    /// latest).
    work_seen: Option<(u64, Instant)>,
    /// When the lines read so far were written, at the latest: the moment
    /// watching began for what the log already held, then each update.
    written: Option<Instant>,
    /// The first diagnosis was taken.
    started: bool,
    /// Where the log ended when watching began (source, line): what a
    /// change's evidence at or before it was written before watching.
    backlog_end: Option<(String, u64)>,
    /// The input has ended: nothing waits for signs of life any more.
    input_ended: bool,
    /// The diagnosis being taken is of what the log held when watching
    /// began ([`Watcher::start`]).
    catching_up: bool,
    /// The current run's start-up phase, since when it was seen, and
    /// whether its length was noted.
    phase_seen: Option<(u64, State, Instant, bool)>,
}

impl Watcher {
    /// A watcher set up as `options` says.
    pub fn new(options: WatchOptions) -> Self {
        Watcher {
            options,
            current: None,
            history_told: false,
            pending_crash: None,
            work_seen: None,
            written: None,
            started: false,
            backlog_end: None,
            input_ended: false,
            catching_up: false,
            phase_seen: None,
        }
    }

    /// The first diagnosis was taken ([`Watcher::start`]).
    pub fn has_started(&self) -> bool {
        self.started
    }

    /// Takes the diagnosis of what the log held when watching began.
    /// `written` is when those lines were last written (a file's
    /// modification time), so that a crash or a silence that began before
    /// watching counts from then.
    pub fn start(
        &mut self,
        diagnosis: &Diagnosis,
        now: Instant,
        written: Instant,
    ) -> (Vec<Change>, Option<Exit>) {
        self.written = Some(written.min(now));
        self.started = true;
        self.backlog_end = diagnosis.runs.last().map(|r| (r.source.clone(), r.last_line));
        let mut changes = Vec::new();
        if !self.history_told {
            if let Some(run) = self.history(diagnosis) {
                self.history_told = true;
                changes.push(self.change(run, state_of(run), true));
            }
        }
        self.catching_up = true;
        let (more, code) = self.update(diagnosis, now);
        self.catching_up = false;
        changes.extend(more);
        (changes, code)
    }

    /// Takes a new diagnosis of the log so far: the changes to report, and
    /// an exit code when the awaited state was reached.
    pub fn update(&mut self, diagnosis: &Diagnosis, now: Instant) -> (Vec<Change>, Option<Exit>) {
        let written = self.written.take().unwrap_or(now);
        let Some(run) = self.current_run(diagnosis) else { return (Vec::new(), None) };
        if self.current.as_ref().is_some_and(|(line, _)| *line != run.stream_first_line) {
            // A new launch: nothing of the last one carries over.
            self.pending_crash = None;
            self.work_seen = None;
        }
        let mut state = state_of(run);
        // Past what the log held when watching began, a hang is decided
        // by wall time without progress (`is_hung` below): the printed
        // clock the diagnosis goes by may jump (daylight saving, an NTP
        // step) where no time passed.
        if state == State::Hung && !self.catching_up {
            state = phase_state(run);
        }
        if state == State::Crashed {
            let sure = run.root_cause.as_ref().is_some_and(|c| c.confidence == Confidence::High);
            let since = match self.pending_crash {
                Some((line, since)) if line == run.stream_first_line => since,
                _ => written,
            };
            if !sure && !self.input_ended && now.duration_since(since) < CRASH_GRACE {
                self.pending_crash = Some((run.stream_first_line, since));
                return (Vec::new(), None);
            }
        }
        self.pending_crash = None;
        if let Some(work) = &run.work {
            if self.work_seen.is_none_or(|(line, _)| line != work.stream_line) {
                self.work_seen = Some((work.stream_line, written));
            }
        }
        if self.is_hung(run, now) {
            state = State::Hung;
        }
        let mut changes = Vec::new();
        if self.current.as_ref() != Some(&(run.stream_first_line, state.clone())) {
            self.current = Some((run.stream_first_line, state.clone()));
            changes.push(self.change(run, state.clone(), false));
        }
        changes.extend(self.lasting_phase(run, &state, written, now));
        let code = match (&state, self.options.until) {
            (_, Until::Never) => None,
            (State::Crashed, _) => Some(crash_code(run)),
            (State::Hung, _) => Some(Exit::Hung),
            (State::Degraded, Until::Ready) => Some(Exit::Degraded),
            (State::Ready | State::Serving, Until::Ready) => Some(Exit::Healthy),
            (State::Stopped, Until::Exit | Until::StoryEnd) => Some(Exit::Healthy),
            (State::Stopped, Until::Ready) => Some(Exit::EndedFirst),
            _ => None,
        };
        (changes, code)
    }

    /// A note when the current run has stayed in one start-up phase
    /// (`loading-weights`…) for longer than `--hang-after`: a start-up that
    /// long is stuck or much slower than it should be, though no work is
    /// pending that could make it hung. Once per phase of a run.
    fn lasting_phase(&mut self, run: &Run, state: &State, written: Instant, now: Instant) -> Option<Change> {
        if !matches!(state, State::Phase(_) | State::Starting) {
            self.phase_seen = None;
            return None;
        }
        let same =
            |(line, seen, ..): &(u64, State, Instant, bool)| *line == run.stream_first_line && seen == state;
        if !self.phase_seen.as_ref().is_some_and(same) {
            self.phase_seen = Some((run.stream_first_line, state.clone(), written, false));
        }
        let (_, _, since, noted) = self.phase_seen.as_mut()?;
        let lasted = now.duration_since(*since);
        if *noted || lasted < self.options.hang_after || self.input_ended {
            return None;
        }
        *noted = true;
        Some(Change { lasting: Some(lasted), ..self.change(run, state.clone(), false) })
    }

    /// When to judge again even if no line comes: a crash waiting out its
    /// grace, or pending work that will count as hung.
    pub fn next_deadline(&self, diagnosis: &Diagnosis) -> Option<Instant> {
        let grace = self.pending_crash.map(|(_, since)| since + CRASH_GRACE);
        let hang = self.current_run(diagnosis).and_then(|run| {
            let work = run.work.as_ref().filter(|w| w.pending)?;
            let (_, since) = self.work_seen.filter(|(line, _)| *line == work.stream_line)?;
            let hung = self.current.as_ref().is_some_and(|(_, state)| *state == State::Hung);
            (!state_of(run).is_end() && !hung).then(|| since + self.options.hang_after)
        });
        let phase = match &self.phase_seen {
            Some((_, _, since, false)) => Some(*since + self.options.hang_after),
            _ => None,
        };
        [grace, hang, phase].into_iter().flatten().min()
    }

    /// Takes the diagnosis of the whole input, once it has ended: a crash
    /// still waiting for signs of life is decided (none can come), and the
    /// last state of the current launch gives the exit code.
    pub fn end(&mut self, diagnosis: &Diagnosis, now: Instant) -> (Vec<Change>, Exit) {
        self.input_ended = true;
        let (changes, code) =
            if self.started { self.update(diagnosis, now) } else { self.start(diagnosis, now, now) };
        (changes, code.unwrap_or_else(|| self.ended(diagnosis)))
    }

    /// The exit code when the input ends: the last state of the current
    /// launch decides.
    fn ended(&self, diagnosis: &Diagnosis) -> Exit {
        let Some(run) = self.current_run(diagnosis) else { return self.no_launch_code() };
        let state = match &self.current {
            Some((line, State::Hung)) if *line == run.stream_first_line => State::Hung,
            _ => state_of(run),
        };
        match (self.options.until, state) {
            (_, State::Crashed) => crash_code(run),
            (_, State::Hung) => Exit::Hung,
            (_, State::Degraded) => Exit::Degraded,
            (Until::Never | Until::StoryEnd, _) => Exit::Healthy,
            (Until::Exit, State::Stopped) => Exit::Healthy,
            (Until::Ready, State::Ready | State::Serving) => Exit::Healthy,
            _ => Exit::EndedFirst,
        }
    }

    fn no_launch_code(&self) -> Exit {
        if matches!(self.options.until, Until::Never | Until::StoryEnd) {
            Exit::Healthy
        } else {
            Exit::EndedFirst
        }
    }

    fn is_hung(&self, run: &Run, now: Instant) -> bool {
        let Some(work) = run.work.as_ref().filter(|w| w.pending) else { return false };
        let Some((line, since)) = self.work_seen else { return false };
        !state_of(run).is_end()
            && line == work.stream_line
            && now.duration_since(since) >= self.options.hang_after
    }

    /// The current launch: the latest run, unless it is history.
    fn current_run<'d>(&self, diagnosis: &'d Diagnosis) -> Option<&'d Run> {
        let run = diagnosis.runs.last()?;
        let history = self.options.after_line.is_some_and(|n| run.stream_first_line <= n);
        (!history).then_some(run)
    }

    /// The run just before the current launch, if any.
    fn history<'d>(&self, diagnosis: &'d Diagnosis) -> Option<&'d Run> {
        match self.current_run(diagnosis) {
            Some(_) => diagnosis.runs.iter().rev().nth(1),
            None => diagnosis.runs.last(),
        }
    }

    fn change(&self, run: &Run, state: State, history: bool) -> Change {
        let evidence = match state {
            State::Ready | State::Serving => run.ready.clone(),
            State::Hung => run.work.as_ref().map(|w| w.evidence.clone()),
            State::Degraded => run.degraded.as_ref().and_then(|d| d.evidence.last().cloned()),
            State::Crashed => run.root_cause.as_ref().and_then(|c| c.evidence.first().cloned()),
            _ => None,
        };
        let before_watch = match (&evidence, &self.backlog_end) {
            (Some(e), Some((source, last))) => e.source == *source && e.line <= *last,
            _ => false,
        };
        Change { run: run.clone(), state, history, evidence, before_watch, lasting: None }
    }
}

/// The exit of a crashed run: whether its cause is identified.
fn crash_code(run: &Run) -> Exit {
    Exit::of_crash(run.root_cause.as_ref().is_some_and(|cause| cause.identified))
}

#[cfg(test)]
mod tests;
