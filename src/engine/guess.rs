//! Bindings made by order alone, checked by the units' fates.
//!
//! In a short-mode journal a process is bound to a unit when it first
//! writes (see `units`). When several units were started together and
//! none's name matches the writer (`sglang.service` and `trainer.service`
//! started in the same second, then `python3[5000]` and `torchrun[5001]`
//! write), the binding is a guess: the unit started last. A guess is kept
//! open while it can be proven wrong: the lines routed to the units it
//! chose among are held, with those units' state from before it. When a
//! process bound by guess writes after its unit ended (systemd said
//! `Failed with result …` or `Deactivated successfully`: no process of the
//! unit is left), it was another unit's: the units are put back as they
//! were and the held lines are routed again with the corrected bindings.
//! A guess that nothing proves wrong stands, and the report says the
//! attribution was by order.

use super::units::{UnitId, UnitRuns};
use crate::events::Event;

/// Most lines held for an open guess; beyond it the guess stands.
const MAX_HELD: usize = 20_000;

/// An open guess.
#[derive(Clone)]
pub struct Guess {
    /// The units that were waiting for a process when it was made.
    pub candidates: Vec<UnitId>,
    /// The processes bound by order, their writer, and their unit.
    pub bound: Vec<(u32, String, UnitId)>,
    /// The candidates as they were before the first guessed line.
    pub before: Vec<UnitRuns>,
    /// The lines routed to a candidate since, in order.
    pub held: Vec<Event>,
    /// Candidates systemd said ended, with the line that said so.
    pub ended: Vec<(UnitId, u64)>,
}

/// What a process writing shows of an open guess.
pub enum Check {
    /// Nothing against it.
    Holds,
    /// The process bound to a unit by guess wrote after that unit ended:
    /// it is this other candidate's.
    Wrong { pid: u32, unit: UnitId },
}

impl Guess {
    /// A guess among `candidates`, whose state is `before`, binding `pid`
    /// (writer `identifier`) to `unit`.
    pub fn new(
        candidates: Vec<UnitId>,
        before: Vec<UnitRuns>,
        pid: u32,
        identifier: &str,
        unit: UnitId,
    ) -> Self {
        Guess {
            candidates,
            bound: vec![(pid, identifier.to_string(), unit)],
            before,
            held: Vec::new(),
            ended: Vec::new(),
        }
    }

    /// Is unit `unit` one the guess chose among?
    pub fn concerns(&self, unit: UnitId) -> bool {
        self.candidates.contains(&unit)
    }

    /// Holds a line routed to a candidate; false when the guess has held
    /// all it may and should stand as it is.
    pub fn hold(&mut self, event: &Event) -> bool {
        if self.held.len() >= MAX_HELD {
            return false;
        }
        self.held.push(event.clone());
        true
    }

    /// Process `pid` writes at `line`: was its guessed unit already over?
    /// Then it belongs to the one candidate that was not.
    pub fn check(&self, pid: u32, line: u64) -> Check {
        let Some(&(_, _, unit)) = self.bound.iter().find(|(p, _, _)| *p == pid) else {
            return Check::Holds;
        };
        if !self.ended.iter().any(|&(u, ended)| u == unit && ended < line) {
            return Check::Holds;
        }
        let mut others =
            self.candidates.iter().filter(|&&c| c != unit && !self.ended.iter().any(|&(u, _)| u == c));
        match (others.next(), others.next()) {
            (Some(&other), None) => Check::Wrong { pid, unit: other },
            _ => Check::Holds,
        }
    }

    /// Is every candidate over (nothing left to prove the guess wrong)?
    pub fn settled(&self) -> bool {
        self.candidates.iter().all(|c| self.ended.iter().any(|(u, _)| u == c))
    }
}
