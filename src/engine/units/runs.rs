//! Run binding: which run of its unit an event joins. A unit's next event
//! starts a new run after a boot or at the launch said to begin after a
//! line, and a start marker starts one when the run already started at that
//! stage or later, ended, or shows an earlier launch; runs are capped per
//! unit and per source, the quiet ones dropped first.

use super::{UnitRuns, Units};
use crate::engine::run::RunState;
use crate::engine::subject::Subject;
use crate::rules::{Role, Stage};

/// How many runs a source keeps: older ones are dropped (a restart loop
/// can log thousands) and the report says how many.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunCaps {
    /// Most runs kept per unit.
    pub per_unit: usize,
    /// Most runs kept per source, over all its units: beyond it, the
    /// oldest run of the unit with the most is dropped.
    pub per_source: usize,
}

impl RunCaps {
    /// What a diagnosis of a whole log keeps: enough to judge every launch
    /// of a long journal.
    pub const WHOLE_LOG: RunCaps = RunCaps { per_unit: 1000, per_source: 4096 };
    /// What an agent keeps, however long it runs: the few latest launches
    /// of each unit, with which the current one is compared.
    pub const AGENT: RunCaps = RunCaps { per_unit: 16, per_source: 256 };
}

impl UnitRuns {
    /// Drops one old run to make room: the oldest that recorded no
    /// failure, or the oldest when every one did.
    fn drop_old_run(&mut self) {
        let quiet = self.runs.iter().position(|run| !run.recorded_a_failure()).unwrap_or(0);
        self.runs.remove(quiet);
        self.dropped_runs += 1;
    }

    /// Does an event at `first_line` begin a new run after `run`, start
    /// marker or not? After a boot, and at the launch said to begin after
    /// line `launch_after` (`logdiag watch --after-line`).
    pub(crate) fn forces_new_run(&self, launch_after: Option<u64>, run: &RunState, first_line: u64) -> bool {
        self.boot_pending || launch_after.is_some_and(|n| first_line > n && run.first_line <= n)
    }

    /// Whether its latest run has proven it is ready and an event from
    /// line `first` does not start a new one: readiness markers need not
    /// be matched again.
    pub(crate) fn is_ready_for(&self, launch_after: Option<u64>, first: u64) -> bool {
        self.runs
            .last()
            .is_some_and(|run| run.ready.is_some() && !self.forces_new_run(launch_after, run, first))
    }
}

impl Units {
    /// Starts a run of unit `index` at stream line `first`, dropping an
    /// old run of the unit (at its cap) or of the source's largest unit
    /// (at the source's; see [`RunCaps`]): the oldest that recorded no failure,
    /// so a crash among a thousand launches is kept (the oldest run when
    /// every one failed).
    pub(crate) fn start_run(&mut self, index: usize, first: u64) {
        let unit = &mut self.list[index];
        if unit.runs.len() >= self.caps.per_unit {
            unit.drop_old_run();
        } else if self.runs_kept >= self.caps.per_source {
            self.list.iter_mut().max_by_key(|u| u.runs.len()).expect("a unit").drop_old_run();
        } else {
            self.runs_kept += 1;
        }
        let unit = &mut self.list[index];
        unit.runs.push(RunState::new(first));
        unit.boot_pending = false;
    }
}

impl RunState {
    /// Does a start marker of `stage` begin a new run here? Yes when this
    /// run already started at that stage or later (a relaunch), when it has
    /// ended, or when, before any start, it shows an earlier launch of its
    /// own: one that served, stopped, or failed (its tail). The lines a
    /// launch prints before its first start marker (platform detection,
    /// import warnings, benign lines, start-up phases) belong to it.
    pub(crate) fn is_split_by_start(&self, stage: Stage) -> bool {
        match self.max_stage {
            Some(seen) => seen >= stage || self.ended,
            None => self.ended || self.shows_an_earlier_launch(),
        }
    }

    fn shows_an_earlier_launch(&self) -> bool {
        let served = self.is_up() || self.vitals.is_some();
        let failed = self.failures.iter().any(|f| !f.warning)
            || self.findings.iter().any(|f| f.role != Role::Benign && !f.warning && !f.summary);
        served || failed || self.stop_line.is_some()
    }

    /// Is a systemd message about `subject` about this run's unit? When
    /// either side is unknown it is taken to be.
    pub(crate) fn concerns(&self, subject: &Subject) -> bool {
        match (subject, &self.unit, &self.subject) {
            (Subject::Unit(u), Some(unit), _) => u == unit,
            (_, _, Some(own)) => own == subject,
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_capped_per_unit_and_per_source() {
        let mut units = Units::default();
        for i in 0..5 {
            units.add(&format!("u{i}.service"));
        }
        for line in 0..6000u64 {
            units.start_run(1 + (line % 5) as usize, line);
        }
        let kept: usize = units.list.iter().map(|u| u.runs.len()).sum();
        let dropped: u64 = units.list.iter().map(|u| u.dropped_runs).sum();
        assert_eq!(kept, RunCaps::WHOLE_LOG.per_source);
        assert_eq!(kept as u64 + dropped, 6000);
        // Each unit keeps its latest run.
        assert!(units.list[1..].iter().all(|u| u.runs.last().is_some_and(|r| r.first_line >= 5995)));
        let mut one = Units::default();
        for line in 0..1500u64 {
            one.start_run(0, line);
        }
        assert_eq!((one.list[0].runs.len(), one.list[0].dropped_runs), (RunCaps::WHOLE_LOG.per_unit, 500));
        // An agent's: the latest few.
        let mut agent = Units::keeping(RunCaps::AGENT);
        for line in 0..1500u64 {
            agent.start_run(0, line);
        }
        let runs = &agent.list[0].runs;
        assert_eq!((runs.len(), runs[0].first_line), (RunCaps::AGENT.per_unit, 1500 - 16));
    }
}
