//! The watchers of one watch: a single [`Watcher`] of the current launch
//! of any unit (the latest run in the log), or, for an agent over a
//! journal of several units (`--each-unit`), one per unit, each following
//! that unit's own launches.

use std::time::Instant;

use super::{Change, WatchOptions, Watcher};
use crate::engine::diagnosis::Run;
use crate::engine::Diagnosis;
use crate::exit::Exit;

/// Most units watched at once; a journal of more watches the first ones.
const MAX_UNITS: usize = 256;

/// One watcher, or one per unit.
#[derive(Debug)]
pub(crate) struct Watchers {
    options: WatchOptions,
    each_unit: bool,
    /// Each unit's watcher (`None`: the runs no unit names; the only key
    /// when not watching each unit).
    watchers: Vec<(Option<String>, Watcher)>,
}

impl Watchers {
    /// The watchers of a watch with `options`; `each_unit`: one per unit.
    pub(crate) fn new(options: WatchOptions, each_unit: bool) -> Self {
        Watchers { options, each_unit, watchers: Vec::new() }
    }

    /// Takes a diagnosis of the log so far; returns the changes and, for a
    /// single watcher, the exit once the awaited state is reached (an
    /// agent watching each unit decides nothing: it goes on).
    /// `written`: when the log was last written, for a watcher's start.
    pub(crate) fn judge(
        &mut self,
        diagnosis: &Diagnosis,
        now: Instant,
        written: &dyn Fn() -> Instant,
    ) -> (Vec<Change>, Option<Exit>) {
        let judge = |watcher: &mut Watcher, view: &Diagnosis| match watcher.has_started() {
            true => watcher.update(view, now),
            false => watcher.start(view, now, written()),
        };
        if !self.each_unit {
            return judge(self.watcher(), diagnosis);
        }
        let mut changes = Vec::new();
        for (unit, view) in self.views(diagnosis) {
            if let Some(watcher) = self.unit_watcher(unit) {
                changes.extend(judge(watcher, &view).0);
            }
        }
        (changes, None)
    }

    /// When time alone may change a state next.
    pub(crate) fn next_deadline(&self, diagnosis: &Diagnosis) -> Option<Instant> {
        if !self.each_unit {
            return self.watchers.first()?.1.next_deadline(diagnosis);
        }
        let deadline = |(unit, view): &(Option<String>, Diagnosis)| {
            let (_, watcher) = self.watchers.iter().find(|(u, _)| u == unit)?;
            watcher.next_deadline(view)
        };
        self.views(diagnosis).iter().filter_map(deadline).min()
    }

    /// Takes the diagnosis of the whole input once it has ended: the
    /// changes, and the exit. Watching each unit, the exit is the gravest
    /// of the units' (a crash, a hang, a collapse, in that order).
    pub(crate) fn end(&mut self, diagnosis: &Diagnosis, now: Instant) -> (Vec<Change>, Exit) {
        if !self.each_unit {
            return self.watcher().end(diagnosis, now);
        }
        let mut changes = Vec::new();
        let mut exits = Vec::new();
        for (unit, view) in self.views(diagnosis) {
            if let Some(watcher) = self.unit_watcher(unit) {
                let (more, exit) = watcher.end(&view, now);
                changes.extend(more);
                exits.push(exit);
            }
        }
        let gravest = [Exit::Crashed, Exit::CrashedUnexplained, Exit::Hung, Exit::Degraded]
            .into_iter()
            .find(|grave| exits.contains(grave));
        (changes, gravest.unwrap_or(Exit::Healthy))
    }

    /// The diagnosis as each unit's watcher sees it: that unit's runs.
    fn views(&self, diagnosis: &Diagnosis) -> Vec<(Option<String>, Diagnosis)> {
        let mut units: Vec<Option<&str>> = Vec::new();
        for run in &diagnosis.runs {
            if !units.contains(&run.unit.as_deref()) {
                units.push(run.unit.as_deref());
            }
        }
        let runs_of = |unit: Option<&str>| -> Vec<Run> {
            diagnosis.runs.iter().filter(|r| r.unit.as_deref() == unit).cloned().collect()
        };
        let view = |unit: Option<&str>| Diagnosis {
            schema: diagnosis.schema,
            verdict: diagnosis.verdict,
            root_cause: None,
            inputs: Vec::new(),
            runs: runs_of(unit),
            recurring: Vec::new(),
        };
        units.into_iter().map(|unit| (unit.map(str::to_string), view(unit))).collect()
    }

    /// The single watcher.
    fn watcher(&mut self) -> &mut Watcher {
        if self.watchers.is_empty() {
            self.watchers.push((None, Watcher::new(self.options)));
        }
        &mut self.watchers[0].1
    }

    /// The watcher of `unit`, begun if there is room.
    fn unit_watcher(&mut self, key: Option<String>) -> Option<&mut Watcher> {
        let at = match self.watchers.iter().position(|(u, _)| *u == key) {
            Some(at) => at,
            None if self.watchers.len() < MAX_UNITS => {
                self.watchers.push((key, Watcher::new(self.options)));
                self.watchers.len() - 1
            }
            None => return None,
        };
        Some(&mut self.watchers[at].1)
    }
}
