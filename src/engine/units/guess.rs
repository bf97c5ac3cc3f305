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

use super::{UnitId, UnitRuns, Units};
use crate::events::Event;
use crate::notice::Notice;

/// Most lines held for an open guess; beyond it the guess stands.
const MAX_HELD: usize = 20_000;

/// An open guess.
#[derive(Clone)]
pub(super) struct Guess {
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
pub(super) enum Check {
    /// Nothing against it.
    Holds,
    /// The process bound to a unit by guess wrote after that unit ended:
    /// it is this other candidate's.
    Wrong { pid: u32, unit: UnitId },
}

impl Guess {
    /// A guess among `candidates`, whose state is `before`, binding `pid`
    /// (writer `identifier`) to `unit`.
    pub(super) fn new(
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
    pub(super) fn concerns(&self, unit: UnitId) -> bool {
        self.candidates.contains(&unit)
    }

    /// Holds a line routed to a candidate; false when the guess has held
    /// all it may and should stand as it is.
    pub(super) fn hold(&mut self, event: &Event) -> bool {
        if self.held.len() >= MAX_HELD {
            return false;
        }
        self.held.push(event.clone());
        true
    }

    /// Process `pid` writes at `line`: was its guessed unit already over?
    /// Then it belongs to the one candidate that was not.
    pub(super) fn check(&self, pid: u32, line: u64) -> Check {
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
    pub(super) fn settled(&self) -> bool {
        self.candidates.iter().all(|c| self.ended.iter().any(|(u, _)| u == c))
    }
}

impl Units {
    /// Holds `event`, routed to unit `index`, while a guess among units
    /// that include it is open.
    pub(crate) fn hold(&mut self, index: usize, event: &Event) {
        let id = self.list[index].id;
        let Some(guess) = self.guess.as_mut().filter(|g| g.concerns(id)) else { return };
        if !guess.hold(event) {
            self.let_guess_stand();
        }
    }

    /// Is a guess open among units that include unit `index`?
    pub(crate) fn holding(&self, index: usize) -> bool {
        self.guess.as_ref().is_some_and(|g| g.concerns(self.list[index].id))
    }

    /// The lines to route again after a wrong guess was corrected.
    pub(crate) fn take_replay(&mut self) -> Option<Vec<Event>> {
        self.replay.take()
    }

    /// Whether lines wait to be routed again.
    pub(crate) fn has_replay(&self) -> bool {
        self.replay.is_some()
    }

    /// What the report should say about attribution: corrected guesses,
    /// and guesses that stand.
    pub(crate) fn notices(&self) -> Vec<Notice> {
        let mut notices = self.notices.clone();
        notices.extend(self.guess.as_ref().map(|g| self.standing_guess_notice(g)));
        notices
    }

    /// Process `pid` (writer `identifier`) was bound by order to unit
    /// `index`, one of several waiting.
    pub(super) fn note_guess(&mut self, pid: u32, identifier: &str, index: usize) {
        let unit = self.list[index].id;
        let waiting: Vec<UnitId> = self.awaiting.iter().map(|&(id, _)| id).collect();
        match self.guess.as_mut() {
            Some(guess) => {
                guess.bound.push((pid, identifier.to_string(), unit));
                for id in waiting {
                    if guess.candidates.contains(&id) {
                        continue;
                    }
                    if let Some(&i) = self.slots.get(&id) {
                        guess.candidates.push(id);
                        guess.before.push(self.list[i].clone());
                    }
                }
            }
            None => {
                let before = waiting
                    .iter()
                    .filter_map(|id| self.slots.get(id))
                    .map(|&i| self.list[i].clone())
                    .collect();
                self.guess = Some(Guess::new(waiting, before, pid, identifier, unit));
            }
        }
    }

    /// systemd said unit `index` is over at `line`: none of its processes
    /// is left.
    pub(super) fn note_unit_over(&mut self, index: usize, line: u64) {
        let id = self.list[index].id;
        let Some(guess) = self.guess.as_mut().filter(|g| g.concerns(id)) else { return };
        guess.ended.push((id, line));
        if guess.settled() {
            self.let_guess_stand();
        }
    }

    /// The open guess, if any, is kept as it is.
    pub(super) fn let_guess_stand(&mut self) {
        if let Some(guess) = self.guess.take() {
            let notice = self.standing_guess_notice(&guess);
            self.notices.push(notice);
        }
    }

    /// A guess bound process `pid` to a unit that was over when it wrote
    /// at `line`: it is unit `unit`'s. The units are put back as they were
    /// before the guess, and the lines held since are routed again.
    pub(super) fn correct_guess(&mut self, pid: u32, unit: UnitId, line: u64) -> usize {
        let guess = self.guess.take().expect("an open guess");
        for before in guess.before {
            if let Some(&i) = self.slots.get(&before.id) {
                self.list[i] = before;
            }
        }
        self.runs_kept = self.list.iter().map(|u| u.runs.len()).sum();
        let index = self.index(unit).unwrap_or(0);
        self.bind(pid, index);
        let writer =
            guess.bound.iter().find(|(p, _, _)| *p == pid).map(|(_, w, _)| w.clone()).unwrap_or_default();
        self.writers.insert(writer.clone(), unit);
        let wrong = guess.bound.iter().find(|(p, _, _)| *p == pid).and_then(|&(_, _, u)| self.index(u));
        self.notices.push(Notice::GuessCorrected {
            process: format!("{writer}[{pid}]"),
            wrong: wrong.and_then(|i| self.list[i].name.clone()).unwrap_or_default(),
            unit: self.list[index].name.clone().unwrap_or_default(),
            line,
        });
        self.replay = Some(guess.held);
        index
    }

    /// What to say of a guess nothing proved wrong.
    fn standing_guess_notice(&self, guess: &Guess) -> Notice {
        let name = |id: UnitId| self.index(id).and_then(|i| self.list[i].name.clone()).unwrap_or_default();
        let units: Vec<String> = guess.candidates.iter().map(|&c| name(c)).collect();
        let mut given: Vec<(String, Vec<String>)> = Vec::new();
        for &(_, _, unit) in &guess.bound {
            let to = name(unit);
            if given.iter().any(|(given_to, _)| *given_to == to) {
                continue;
            }
            let processes: Vec<String> =
                guess.bound.iter().filter(|b| b.2 == unit).map(|(pid, w, _)| format!("{w}[{pid}]")).collect();
            given.push((to, processes));
        }
        Notice::GuessStands { units, given }
    }
}
