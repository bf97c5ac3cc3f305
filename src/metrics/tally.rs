//! What a watch has seen, per unit, as metrics: the current launch's
//! state, the crashes counted by category (each run once), when the last
//! one was seen, the generation speed of the current launch and the one
//! before it, and whether the current launch is degraded or hung.

use std::collections::BTreeMap;

use super::exposition::{Exposition, Kind};
use crate::engine::diagnosis::{Diagnosis, Run};
use crate::watch::{Record, State};

/// The states a launch's gauge always lists, so a query for one finds a
/// 0 rather than nothing; a phase a rule file adds is listed while it is
/// the current state.
const STATES: &[&str] = &[
    "starting",
    "loading-weights",
    "allocating-kv-cache",
    "autotuning",
    "capturing-cuda-graphs",
    "listening",
    "ready",
    "serving",
    "degraded",
    "hung",
    "stopped",
    "crashed",
];

/// Most units tallied; a journal of more keeps the first ones.
const MAX_UNITS: usize = 256;
/// Crashed runs remembered per unit, so that each is counted once.
const COUNTED_RUNS: usize = 16;

/// What the metrics say, per unit.
#[derive(Debug)]
pub struct Tally {
    /// The unit label of a run no unit names: the followed input's name.
    source: String,
    units: BTreeMap<String, UnitTally>,
}

#[derive(Debug, Default)]
struct UnitTally {
    /// The current launch's state.
    state: Option<String>,
    /// The current launch (its first stream line).
    current: Option<u64>,
    /// Crashes by category.
    crashes: BTreeMap<String, u64>,
    /// The crashed runs counted (their first stream lines), latest last.
    counted: Vec<u64>,
    /// When the last crash was seen, in seconds since the epoch.
    last_crash: Option<f64>,
    /// Median generated tokens per second: the current launch's.
    throughput: Option<f64>,
    /// The same, of the launch before it.
    previous_throughput: Option<f64>,
    degraded: bool,
    hung: bool,
}

impl Tally {
    /// A tally of the watch of `source`.
    pub fn new(source: &str) -> Self {
        Tally { source: source.to_string(), units: BTreeMap::new() }
    }

    /// Takes a watch record seen at `now` (seconds since the epoch).
    pub fn observe(&mut self, record: &Record<'_>, now: f64) {
        match record {
            Record::State(change) if change.lasting.is_none() => {
                let Some(unit) = self.unit(&change.run) else { return };
                if change.state == State::Crashed {
                    unit.count_crash(&change.run, now);
                }
                if !change.history {
                    unit.set_current(change.run.stream_first_line);
                    unit.state = Some(change.state.name().to_string());
                    unit.hung = change.state == State::Hung;
                    unit.degraded = change.state == State::Degraded;
                }
            }
            Record::Judged(diagnosis) => self.judged(diagnosis),
            _ => {}
        }
    }

    /// Takes a diagnosis of the log so far: the speeds of the current
    /// launches and of the ones before them.
    fn judged(&mut self, diagnosis: &Diagnosis) {
        for run in &diagnosis.runs {
            let Some(unit) = self.unit(run) else { continue };
            let speed = run.vitals.as_ref().and_then(|v| v.generation_tok_s.as_ref()).map(|s| s.median);
            match unit.current {
                Some(current) if current == run.stream_first_line => {
                    unit.throughput = speed;
                    // Collapsed, whether or not the state says so (a launch
                    // both collapsed and hung is in state hung).
                    unit.degraded = run.degraded.is_some() || unit.state.as_deref() == Some("degraded");
                }
                Some(current) if run.stream_first_line < current && speed.is_some() => {
                    unit.previous_throughput = speed;
                }
                _ => {}
            }
        }
    }

    /// The tally of `run`'s unit, begun if there is room.
    fn unit(&mut self, run: &Run) -> Option<&mut UnitTally> {
        let name = run.unit.clone().unwrap_or_else(|| self.source.clone());
        if !self.units.contains_key(&name) && self.units.len() >= MAX_UNITS {
            return None;
        }
        Some(self.units.entry(name).or_default())
    }

    /// The metrics, in Prometheus' text format.
    pub fn render(&self) -> String {
        let mut out = Exposition::default();
        self.render_states(&mut out);
        let name = "logdiag_crashes_total";
        out.family(
            name,
            Kind::Counter,
            "Crashes of the unit's launches seen by this logdiag, by root-cause category.",
        );
        for (unit, tally) in &self.units {
            for (category, count) in &tally.crashes {
                out.sample(name, &[("unit", unit), ("category", category)], *count as f64);
            }
        }
        let name = "logdiag_last_crash_timestamp_seconds";
        out.family(
            name,
            Kind::Gauge,
            "When this logdiag saw the unit's last crash, in seconds since the epoch.",
        );
        for (unit, tally) in &self.units {
            if let Some(at) = tally.last_crash {
                out.sample(name, &[("unit", unit)], at);
            }
        }
        let name = "logdiag_generation_throughput_tokens_per_second";
        out.family(
            name,
            Kind::Gauge,
            "Median generated tokens per second of the current launch and the one before it.",
        );
        for (unit, tally) in &self.units {
            for (launch, speed) in [("current", tally.throughput), ("previous", tally.previous_throughput)] {
                if let Some(speed) = speed {
                    out.sample(name, &[("unit", unit), ("launch", launch)], speed);
                }
            }
        }
        for (name, help, flag) in [
            (
                "logdiag_degraded",
                "Whether the current launch's speed collapsed (1) or not (0).",
                UnitTally::degraded as fn(&UnitTally) -> bool,
            ),
            (
                "logdiag_hung",
                "Whether the current launch hung: work pending, no progress (1) or not (0).",
                UnitTally::hung,
            ),
        ] {
            out.family(name, Kind::Gauge, help);
            for (unit, tally) in &self.units {
                out.sample(name, &[("unit", unit)], f64::from(u8::from(flag(tally))));
            }
        }
        out.family("logdiag_build_info", Kind::Gauge, "The logdiag that judged, by version.");
        out.sample("logdiag_build_info", &[("version", env!("CARGO_PKG_VERSION"))], 1.0);
        out.into_text()
    }

    /// One series per state per unit: 1 for the current launch's.
    fn render_states(&self, out: &mut Exposition) {
        let name = "logdiag_launch_state";
        out.family(name, Kind::Gauge, "The state of the unit's current launch (1 for the state it is in).");
        for (unit, tally) in &self.units {
            let current = tally.state.as_deref();
            let extra = current.filter(|s| !STATES.contains(s));
            for state in STATES.iter().copied().chain(extra) {
                out.sample(
                    name,
                    &[("unit", unit), ("state", state)],
                    f64::from(u8::from(current == Some(state))),
                );
            }
        }
    }
}

impl UnitTally {
    fn degraded(&self) -> bool {
        self.degraded
    }

    fn hung(&self) -> bool {
        self.hung
    }

    /// A new current launch: the one before it gives its speed as the
    /// previous one's.
    fn set_current(&mut self, first_line: u64) {
        if self.current != Some(first_line) {
            if self.current.is_some() && self.throughput.is_some() {
                self.previous_throughput = self.throughput.take();
            }
            self.throughput = None;
            self.current = Some(first_line);
        }
    }

    /// Counts `run`'s crash by its category, once.
    fn count_crash(&mut self, run: &Run, now: f64) {
        if self.counted.contains(&run.stream_first_line) {
            return;
        }
        if self.counted.len() >= COUNTED_RUNS {
            self.counted.remove(0);
        }
        self.counted.push(run.stream_first_line);
        let category = run.root_cause.as_ref().map_or("unknown", |c| c.category.name());
        *self.crashes.entry(category.to_string()).or_default() += 1;
        self.last_crash = Some(now);
    }
}
