//! Watching a log: the state of the current run, reported as it changes,
//! and when to stop (`logdiag watch --until …`). Pure: diagnoses in,
//! changes and decisions out; the command line does the following and the
//! printing.
//!
//! Lines already in the log when watching starts establish the current
//! state. If the latest run there has already ended (crashed or stopped) it
//! is history: it is reported once, and the watch waits for the next run.
//!
//! A crash with evidence of death (high confidence: a cause and then a
//! kill, an exit, a sigquit) is decided at once. A weaker one (a failure
//! with no sign yet that the process died, a lone symptom) waits
//! [`CRASH_GRACE`]: if the run makes progress meanwhile, it survived.

use std::time::{Duration, Instant};

use crate::engine::diagnosis::{Confidence, Diagnosis, Outcome, Run};

/// How long a crash without evidence of death waits for signs of life.
pub const CRASH_GRACE: Duration = Duration::from_secs(5);

/// Where the current run stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    /// Started; no start-up phase seen yet.
    Starting,
    /// A start-up phase (`loading-weights`, `allocating-kv-cache`,
    /// `capturing-cuda-graphs`, `autotuning`).
    Phase(String),
    /// Ready to serve.
    Ready,
    /// Serving (batches or requests seen).
    Serving,
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
            State::Ready => "ready",
            State::Serving => "serving",
            State::Stopped => "stopped",
            State::Crashed => "crashed",
        }
    }

    /// The run is over.
    pub fn is_end(&self) -> bool {
        matches!(self, State::Stopped | State::Crashed)
    }
}

/// The state of a judged run.
pub fn state_of(run: &Run) -> State {
    match run.outcome {
        Outcome::Crash => State::Crashed,
        Outcome::Stopped => State::Stopped,
        Outcome::Healthy if run.phase.as_deref() == Some("serving") => State::Serving,
        Outcome::Healthy => State::Ready,
        Outcome::Starting | Outcome::Unknown => match run.phase.as_deref() {
            Some(phase) if phase != "ready" && phase != "serving" => State::Phase(phase.to_string()),
            _ => State::Starting,
        },
    }
}

/// What to watch for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Until {
    /// Report changes until the input ends.
    Never,
    /// Stop when the run is ready (0) or crashes (1 or 3).
    Ready,
    /// Stop when the run crashes (1 or 3).
    Crash,
    /// Stop when the run ends: crash (1 or 3) or stop (0).
    Exit,
}

/// Exit code when the input ended, or the run stopped, before the awaited
/// state.
pub const EXIT_ENDED_FIRST: i32 = 4;

/// A reported change of state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The run, as judged when its state changed.
    pub run: Run,
    /// Its new state.
    pub state: State,
    /// The run is history: it had already ended when watching started.
    pub history: bool,
}

/// Follows the states of the latest run across diagnoses.
#[derive(Debug)]
pub struct Watcher {
    until: Until,
    /// Stream line of the run being watched, and its last state.
    current: Option<(u64, State)>,
    /// Stream line of a run that had ended before watching started.
    history: Option<u64>,
    started: bool,
    /// A crash not yet decided: its run, and since when it has looked so.
    pending: Option<(u64, Instant)>,
}

impl Watcher {
    /// A watcher that stops as `until` says.
    pub fn new(until: Until) -> Self {
        Watcher { until, current: None, history: None, started: false, pending: None }
    }

    /// True while a crash waits out [`CRASH_GRACE`]: judge again even
    /// without new lines.
    pub fn is_pending(&self) -> bool {
        self.pending.is_some()
    }

    /// Takes the diagnosis of what the log held when watching started.
    pub fn start(&mut self, diagnosis: &Diagnosis) -> (Vec<Change>, Option<i32>) {
        self.started = false;
        self.update_at(diagnosis, Instant::now())
    }

    /// Takes a new diagnosis: the changes to report, and an exit code when
    /// the awaited state was reached.
    pub fn update(&mut self, diagnosis: &Diagnosis) -> (Vec<Change>, Option<i32>) {
        self.update_at(diagnosis, Instant::now())
    }

    /// [`Watcher::update`] at a given time (tests).
    pub fn update_at(&mut self, diagnosis: &Diagnosis, now: Instant) -> (Vec<Change>, Option<i32>) {
        if !self.started {
            self.started = true;
            if let Some(run) = diagnosis.runs.last().filter(|r| state_of(r).is_end()) {
                self.history = Some(run.stream_first_line);
                return (vec![Change { run: run.clone(), state: state_of(run), history: true }], None);
            }
        }
        let Some(run) = diagnosis.runs.last() else { return (Vec::new(), None) };
        if Some(run.stream_first_line) == self.history {
            return (Vec::new(), None);
        }
        let state = state_of(run);
        if state == State::Crashed {
            let sure = run.root_cause.as_ref().is_some_and(|c| c.confidence == Confidence::High);
            let since = match self.pending {
                Some((line, since)) if line == run.stream_first_line => since,
                _ => now,
            };
            if !sure && now.duration_since(since) < CRASH_GRACE {
                self.pending = Some((run.stream_first_line, since));
                return (Vec::new(), None);
            }
        }
        self.pending = None;
        let changed = self.current.as_ref() != Some(&(run.stream_first_line, state.clone()));
        let mut changes = Vec::new();
        if changed {
            self.current = Some((run.stream_first_line, state.clone()));
            changes.push(Change { run: run.clone(), state: state.clone(), history: false });
        }
        let code = match (&state, self.until) {
            (State::Crashed, Until::Ready | Until::Crash | Until::Exit) => Some(diagnosis.exit_code()),
            (State::Ready | State::Serving, Until::Ready) => Some(0),
            (State::Stopped, Until::Exit) => Some(0),
            (State::Stopped, Until::Ready) => Some(EXIT_ENDED_FIRST),
            _ => None,
        };
        (changes, code)
    }

    /// The exit code when the input ends: the final state of the latest
    /// run decides (a crash reported as history counts too, since nothing
    /// more will come).
    pub fn ended(&self, diagnosis: &Diagnosis) -> i32 {
        let state = diagnosis.runs.last().map(state_of);
        match (self.until, state) {
            (Until::Never, _) => diagnosis.exit_code(),
            (_, Some(State::Crashed)) => diagnosis.exit_code(),
            (Until::Exit, Some(State::Stopped)) => 0,
            (Until::Ready, Some(State::Ready | State::Serving)) => 0,
            _ => EXIT_ENDED_FIRST,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Engine, JudgeOptions};
    use crate::events::parse_text;
    use crate::rules::RuleSet;

    fn diagnose(rules: &RuleSet, log: &str) -> Diagnosis {
        let mut engine = Engine::new(rules);
        engine.begin_source("w.log");
        for event in parse_text(log) {
            engine.feed(&event);
        }
        engine.diagnose(JudgeOptions { last_only: true })
    }

    const OLD_CRASH: &str = "[2026-06-02 14:02:11] server_args=ServerArgs(model_path='/m')\nRuntimeError: No supported CUDA architectures found for major versions [9, 10].\nKilled\n";
    const RELAUNCH: &str = "[2026-06-02 14:31:40] server_args=ServerArgs(model_path='/m')\n[2026-06-02 14:32:14 TP0] Load weight begin. avail mem=93.88 GB\n";
    const READY: &str = "[2026-06-02 14:39:29] The server is fired up and ready to roll!\n";

    #[test]
    fn an_earlier_crash_is_history_and_the_next_run_is_watched() {
        let rules = RuleSet::builtin().unwrap();
        let mut w = Watcher::new(Until::Ready);
        let (changes, code) = w.start(&diagnose(&rules, OLD_CRASH));
        assert_eq!((changes.len(), changes[0].history, code), (1, true, None));
        let (changes, code) = w.update(&diagnose(&rules, OLD_CRASH));
        assert!(changes.is_empty() && code.is_none(), "history is not reported twice");
        let log = format!("{OLD_CRASH}{RELAUNCH}");
        let (changes, code) = w.update(&diagnose(&rules, &log));
        assert_eq!((changes[0].state.clone(), code), (State::Phase("loading-weights".into()), None));
        let log = format!("{OLD_CRASH}{RELAUNCH}{READY}");
        let (changes, code) = w.update(&diagnose(&rules, &log));
        assert_eq!((changes[0].state.clone(), code), (State::Ready, Some(0)));
    }

    #[test]
    fn a_crash_of_the_watched_run_ends_the_watch_with_its_exit_code() {
        let rules = RuleSet::builtin().unwrap();
        let mut w = Watcher::new(Until::Ready);
        w.start(&diagnose(&rules, RELAUNCH));
        let log = format!(
            "{RELAUNCH}RuntimeError: FlashInfer requires GPUs with sm75 or higher\n[2026-06-02 14:33:00] Received sigquit from a child process. It usually means the child failed.\n"
        );
        let (changes, code) = w.update(&diagnose(&rules, &log));
        assert_eq!((changes[0].state.clone(), code), (State::Crashed, Some(1)));
    }

    #[test]
    fn a_crash_without_evidence_of_death_waits_for_signs_of_life() {
        let rules = RuleSet::builtin().unwrap();
        let mut w = Watcher::new(Until::Crash);
        let t0 = Instant::now();
        w.update_at(&diagnose(&rules, RELAUNCH), t0);
        let sigquit = "[2026-06-02 14:33:00] Received sigquit from a child process. It usually means the child failed.\n";
        let log = format!("{RELAUNCH}{sigquit}");
        assert_eq!(
            w.update_at(&diagnose(&rules, &log), t0),
            (Vec::new(), None),
            "a lone symptom is not decided yet"
        );
        assert!(w.is_pending());
        // The run goes on: it survived.
        let log = format!(
            "{RELAUNCH}{sigquit}[2026-06-02 14:34:30 TP0] Load weight end. avail mem=49.20 GB\n{READY}"
        );
        let (changes, code) = w.update_at(&diagnose(&rules, &log), t0 + CRASH_GRACE * 2);
        assert_eq!((changes[0].state.clone(), code), (State::Ready, None));
        assert!(!w.is_pending());
        // Had it gone quiet instead, the crash is decided after the grace.
        let mut w = Watcher::new(Until::Crash);
        w.update_at(&diagnose(&rules, RELAUNCH), t0);
        let log = format!("{RELAUNCH}{sigquit}");
        w.update_at(&diagnose(&rules, &log), t0);
        let (changes, code) = w.update_at(&diagnose(&rules, &log), t0 + CRASH_GRACE);
        assert_eq!((changes[0].state.clone(), code), (State::Crashed, Some(3)));
    }

    #[test]
    fn until_crash_keeps_watching_a_ready_server() {
        let rules = RuleSet::builtin().unwrap();
        let mut w = Watcher::new(Until::Crash);
        let (changes, code) = w.start(&diagnose(&rules, &format!("{RELAUNCH}{READY}")));
        assert_eq!((changes[0].state.clone(), code), (State::Ready, None));
    }
}
