//! Units within a source: which unit, pod or container each event belongs
//! to, so that a journal of many services is split and judged per unit.
//!
//! A structured journal names the unit of every entry (`_SYSTEMD_UNIT`, or
//! `UNIT` for systemd's messages about one); kubectl's `--prefix`, docker
//! compose and Loki name the pod, container or label set. A short-mode
//! journal names only the writer (`python3[1104]`), so a process is bound
//! to a unit when it first writes: to a unit whose start job came just
//! before and whose name matches the writer, to the unit an earlier
//! process of the same writer belonged to, or to the latest unit started
//! and still waiting for its process. systemd's own messages name their
//! unit (`sglang.service: Main process exited…`). Kernel, systemd-oomd and
//! systemd-coredump messages belong to the boot, unless they name a
//! process (`Killed process 1104`, `python3[1104]: segfault at…`, `Xid …,
//! pid=1104`, `Process 1104 (python3) … dumped core`) or a cgroup
//! (`task_memcg=/system.slice/sglang.service`): then they belong to that
//! process's unit.
//!
//! Everything not claimed by a unit goes to the *home* unit, the first
//! one. A log that names no unit at all (an sglang log file) is one
//! unnamed unit, and a `journalctl -u NAME` excerpt that starts mid-run
//! names its home unit when systemd first speaks about it.

use crate::notice::Notice;
use std::cell::Cell;
use std::collections::{HashMap, VecDeque};

use super::int_map::IntMap;
use super::run::RunState;
use super::subject::{self, Subject};
use crate::events::Event;
pub use filter::UnitFilter;
use guess::{Check, Guess};
use messages::{cgroup_unit, is_end_job, is_last_word, is_start_job, killing_pid, named_pid, names_match};

mod filter;
mod guess;
mod messages;
mod runs;

pub use runs::RunCaps;

/// Most units kept per source; beyond it, units with nothing notable are
/// forgotten to make room (a boot of cron jobs and sessions can name
/// thousands).
pub(super) const MAX_UNITS: usize = 1024;
/// Most process bindings remembered per source (oldest forgotten first).
const MAX_BINDINGS: usize = 8192;
/// Most started units waiting for their first process.
const MAX_AWAITING: usize = 32;
/// A unit started more than this many lines before a new process wrote is
/// no longer taken to be that process's unit unless its name matches.
const AWAIT_LINES: u64 = 2000;

/// The runs of one unit.
#[derive(Clone, Default)]
pub(super) struct UnitRuns {
    /// The unit's name (`sglang.service`, `pod/llm-0/server`), or `None`
    /// for a log that names none.
    pub name: Option<String>,
    /// Its runs, in input order.
    pub runs: Vec<RunState>,
    /// Earlier runs not kept (see [`RunCaps`]).
    pub dropped_runs: u64,
    /// A boot separator came since its last run began.
    pub boot_pending: bool,
    /// The programs that wrote the unclaimed lines it holds (for the home
    /// unit: may it take a name?). Kernel lines do not count: a unit's
    /// journal excerpt can hold the kernel's report about its process.
    writers: Writers,
    /// Its identity while units come and go (indices change when one is
    /// forgotten).
    id: UnitId,
    /// It holds kernel lines that name no process: the home unit holds a
    /// boot's, and takes no unit's name.
    boot_lines: bool,
    /// It is a process no unit claimed (`python3[5555]`), not a unit.
    process_group: bool,
    /// It holds only the kernel's lines that name no process, in a journal
    /// whose home unit is a unit of its own (`cron.service`'s lines came
    /// first).
    the_boot: bool,
}

impl UnitRuns {
    /// It holds a boot's lines that no unit claims: the kernel's and a
    /// program's or several (a journal of a whole boot, not a kernel log
    /// alone). A kernel line there that names no process is the boot's,
    /// not any one process's.
    pub(super) fn holds_a_boot(&self) -> bool {
        self.the_boot || (self.name.is_none() && self.boot_lines && self.writers != Writers::None)
    }

    /// Does the unit claim its processes: a named unit, pod or container,
    /// or the one unit of a log (not the boot's lines, nor a process no
    /// unit claimed)?
    pub(super) fn is_claimed(&self) -> bool {
        !self.process_group && !(self.name.is_none() && (self.boot_lines || self.writers == Writers::Many))
    }
}

/// A unit's identity, never reused within a source.
type UnitId = u64;

/// The home unit's identity.
const HOME: UnitId = 0;

/// Who wrote the unclaimed lines of the home unit.
#[derive(Clone, Default, PartialEq, Eq)]
enum Writers {
    /// Nobody yet.
    #[default]
    None,
    /// One program (`python3`), under one or more pids.
    One(String),
    /// Several programs: the lines of a whole boot.
    Many,
}

/// How a message names its unit.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Claim {
    /// systemd's start job for it (`Started sglang.service`): its process
    /// is about to write.
    Start,
    /// Any other message naming it.
    Named,
}

/// The units of one source, and how lines are routed to them.
#[derive(Clone)]
pub(super) struct Units {
    /// The units, the home unit first.
    pub list: Vec<UnitRuns>,
    /// Where each unit is in `list`.
    slots: IntMap<UnitId, usize>,
    /// The unit of each name.
    by_name: HashMap<String, UnitId>,
    next_id: UnitId,
    /// The unit of each process id seen, with the order they were bound in
    /// (to forget the oldest). A binding to a forgotten unit is stale.
    bindings: IntMap<u32, UnitId>,
    /// The process last looked up in `bindings` and the index of its unit:
    /// a process writes many lines in a row. Cleared when a binding or an
    /// index changes.
    last_bound: Cell<Option<(u32, usize)>>,
    bound_order: VecDeque<u32>,
    /// The unit each writer's latest process was bound to.
    writers: HashMap<String, UnitId>,
    /// For each writer no unit's name matched: the first unit made after
    /// that was found (only later units can match it).
    name_scans: HashMap<String, UnitId>,
    /// Units whose start job was seen and that have no process yet, with
    /// the stream line of the start job.
    awaiting: Vec<(UnitId, u64)>,
    /// Processes bound by order among units started together, open to
    /// correction by the units' fates (see `guess`).
    guess: Option<Guess>,
    /// Lines to route again, a wrong guess corrected: taken by the engine.
    replay: Option<Vec<Event>>,
    /// What the report should say about how lines were attributed.
    notices: Vec<Notice>,
    /// Units with findings forgotten to stay under [`MAX_UNITS`].
    pub dropped_units: u64,
    /// Runs kept, over all units.
    runs_kept: usize,
    /// How many runs are kept.
    caps: RunCaps,
}

impl Default for Units {
    fn default() -> Self {
        Units::keeping(RunCaps::WHOLE_LOG)
    }
}

impl Units {
    /// The units of a source that keeps runs as `caps` says.
    pub(crate) fn keeping(caps: RunCaps) -> Self {
        Units {
            list: vec![UnitRuns::default()],
            slots: IntMap::from_iter([(HOME, 0)]),
            by_name: HashMap::new(),
            next_id: HOME + 1,
            bindings: IntMap::default(),
            last_bound: Cell::new(None),
            bound_order: VecDeque::new(),
            writers: HashMap::new(),
            name_scans: HashMap::new(),
            awaiting: Vec::new(),
            guess: None,
            replay: None,
            notices: Vec::new(),
            dropped_units: 0,
            runs_kept: 0,
            caps,
        }
    }
}

impl Units {
    /// A boot separator: every unit's next event starts a new run.
    pub(super) fn boot(&mut self) {
        for unit in &mut self.list {
            unit.boot_pending = true;
        }
        self.let_guess_stand();
    }

    /// The index of the unit `event` belongs to.
    pub(super) fn route(&mut self, event: &Event) -> usize {
        let identifier = event.identifier();
        let pid = event.stream.pid;
        if is_boot_writer(identifier) {
            return self.route_boot_message(event);
        }
        if let Some(unit) = event.unit() {
            // A structured journal's unit, a pod or a compose service.
            let start = subject::is_manager(identifier) && is_start_job(event);
            let index = self.named(unit, if start { Claim::Start } else { Claim::Named }, event.first_line());
            if let Some(pid) = pid.filter(|_| !subject::is_manager(identifier)) {
                self.bind(pid, index);
                self.found_process(index);
            }
            return index;
        }
        if identifier == Some("systemd") {
            return self.route_manager(event);
        }
        self.route_writer(identifier, pid, event.first_line())
    }

    /// The index of the unit of a record, from line `line`, that names no
    /// unit and whose writer is not systemd or the kernel (see
    /// [`routes_by_writer`]): the unit its writer belongs to.
    pub(super) fn route_writer(&mut self, identifier: Option<&str>, pid: Option<u32>, line: u64) -> usize {
        match identifier {
            None if pid.is_none() => self.home_line(None),
            // `-o with-unit` prints the unit in place of the writer.
            Some(name) if subject::is_unit_name(name) => {
                let index = self.named(name, Claim::Named, line);
                if let Some(pid) = pid {
                    self.bind(pid, index);
                    self.found_process(index);
                }
                index
            }
            _ => match pid {
                Some(pid) => self.route_process(identifier.unwrap_or(""), pid, line),
                None => self.home_line(identifier),
            },
        }
    }

    /// systemd's message about a unit goes to that unit.
    fn route_manager(&mut self, event: &Event) -> usize {
        match subject::subject_of(event) {
            Some(Subject::Unit(unit)) => {
                let claim = if is_start_job(event) { Claim::Start } else { Claim::Named };
                let index = self.named(&unit, claim, event.first_line());
                if let Some(pid) = killing_pid(subject::first_message(event)) {
                    self.bind(pid, index);
                }
                // A unit that ended waits for no process (a timer's
                // logrotate.service that ran before the excerpt's python).
                if is_end_job(event) {
                    self.found_process(index);
                    if is_last_word(event) {
                        self.note_unit_over(index, event.first_line());
                    }
                }
                index
            }
            // A job named by its description only (`Started SGLang
            // server.`): a journal printed that way names no units, and
            // has one home.
            _ => 0,
        }
    }

    /// A kernel or systemd-oomd message: the unit of the process or cgroup
    /// it names, else the home unit (the boot's). It never makes a unit: a
    /// kernel log alone stays one.
    fn route_boot_message(&mut self, event: &Event) -> usize {
        let message = subject::first_message(event);
        let pid = named_pid(message);
        let cgroup = cgroup_unit(message);
        let mut by_cgroup = cgroup.and_then(|unit| self.find(unit));
        // A journal excerpt that starts after the unit's start: the kernel
        // names the unit before systemd does. The process's group takes
        // the unit's name, lines and all; else, in a journal of several
        // writers, the cgroup makes the unit, and the process it kills is
        // that unit's from now on (a kernel log alone stays one unit).
        if let Some(unit) = cgroup.filter(|unit| by_cgroup.is_none() && subject::is_unit_name(unit)) {
            let group = pid.and_then(|p| self.bound(p)).filter(|&i| self.list[i].process_group);
            by_cgroup = match group {
                Some(index) => Some(self.rename(index, unit)),
                None if self.list[0].writers != Writers::None => {
                    Some(self.named(unit, Claim::Named, event.first_line()))
                }
                None => None,
            };
        }
        if let Some(index) = by_cgroup.or_else(|| pid.and_then(|p| self.bound(p))) {
            if let Some(pid) = pid {
                self.bind(pid, index);
            }
            return index;
        }
        // The home unit took a unit's name and other units came: it is
        // that unit's, not the boot's.
        if self.list[0].name.is_some() && self.list.len() > 1 {
            return self.the_boot();
        }
        self.list[0].boot_lines = true;
        0
    }

    /// The unit of the boot's lines that name no process, made if new.
    fn the_boot(&mut self) -> usize {
        if let Some(index) = self.list.iter().position(|u| u.the_boot) {
            return index;
        }
        let id = self.next_id;
        self.next_id += 1;
        self.list.push(UnitRuns { id, the_boot: true, boot_lines: true, ..UnitRuns::default() });
        self.slots.insert(id, self.list.len() - 1);
        self.list.len() - 1
    }

    /// The index of unit `id`, unless it was forgotten.
    fn index(&self, id: UnitId) -> Option<usize> {
        self.slots.get(&id).copied()
    }

    /// The index of the unit named `name`, if there is one.
    fn find(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).and_then(|&id| self.index(id))
    }

    /// The index of the unit process `pid` is bound to.
    fn bound(&self, pid: u32) -> Option<usize> {
        if let Some((last, index)) = self.last_bound.get().filter(|&(last, _)| last == pid) {
            debug_assert_eq!(Some(index), self.bindings.get(&last).and_then(|&id| self.index(id)));
            return Some(index);
        }
        let index = self.bindings.get(&pid).and_then(|&id| self.index(id))?;
        self.last_bound.set(Some((pid, index)));
        Some(index)
    }

    /// A line written by process `pid` of `identifier`.
    fn route_process(&mut self, identifier: &str, pid: u32, line: u64) -> usize {
        if let Some(index) = self.bound(pid) {
            if let Some(Check::Wrong { pid, unit }) = self.guess.as_ref().map(|g| g.check(pid, line)) {
                return self.correct_guess(pid, unit, line);
            }
            return index;
        }
        let index = self.choose_unit(identifier, pid, line);
        if index == 0 {
            self.home_line(Some(identifier));
        }
        self.bind(pid, index);
        self.writers.insert(identifier.to_string(), self.list[index].id);
        index
    }

    /// The unit of a process seen for the first time: a unit waiting for
    /// its process whose name matches the writer's; the unit an earlier
    /// process of the writer was bound to by name; any unit of the
    /// writer's name (`CRON` jobs of `cron.service`); the latest unit started
    /// (recently) and still waiting; the unit of the writer's earlier
    /// process; else, in a boot's journal, a group of its own
    /// (`python3[5555]`), or the home unit.
    fn choose_unit(&mut self, identifier: &str, pid: u32, line: u64) -> usize {
        self.awaiting.retain(|&(id, _)| self.slots.contains_key(&id));
        let named = |units: &Units, index: usize| {
            units.list[index].name.as_deref().is_some_and(|n| names_match(n, identifier))
        };
        let waiting =
            self.awaiting.iter().position(|&(id, _)| self.index(id).is_some_and(|i| named(self, i)));
        if let Some(at) = waiting {
            let (id, _) = self.awaiting.remove(at);
            return self.index(id).unwrap_or(0);
        }
        let earlier = self.writers.get(identifier).and_then(|&id| self.index(id));
        if let Some(index) = earlier.filter(|&i| named(self, i)) {
            return index;
        }
        // Units made since this writer was last looked for by name.
        let since = self.name_scans.get(identifier).copied().unwrap_or(HOME);
        if let Some(index) = (1..self.list.len()).find(|&i| self.list[i].id >= since && named(self, i)) {
            return index;
        }
        if self.name_scans.len() >= MAX_BINDINGS {
            self.name_scans.clear();
        }
        self.name_scans.insert(identifier.to_string(), self.next_id);
        // Without a name to go by, the unit started last: it stays waiting,
        // as the process bound to it may be another program's (a helper
        // that logs first), until one matches its name or time passes.
        self.awaiting.retain(|&(_, started)| line.saturating_sub(started) <= AWAIT_LINES);
        if let Some(index) = self.awaiting.last().and_then(|&(id, _)| self.index(id)) {
            if self.awaiting.len() > 1 {
                self.note_guess(pid, identifier, index);
            }
            return index;
        }
        if let Some(index) = earlier {
            return index;
        }
        // In a boot's journal (several programs no unit claims), or in a
        // journal of several units where another program already holds
        // the unclaimed lines, a process no unit claims is a group of its
        // own, named by its writer and pid, until a unit claims it.
        let another_holds_home =
            self.list.len() > 1 && matches!(&self.list[0].writers, Writers::One(w) if w != identifier);
        if self.list[0].writers == Writers::Many || another_holds_home {
            let index = self.add(&format!("{identifier}[{pid}]"));
            self.list[index].process_group = true;
            return index;
        }
        0
    }

    /// Notes an unclaimed line of the home unit.
    fn home_line(&mut self, identifier: Option<&str>) -> usize {
        let home = &mut self.list[0];
        match (&home.writers, identifier) {
            (Writers::None, Some(name)) => home.writers = Writers::One(name.to_string()),
            (Writers::One(one), Some(name)) if one != name => home.writers = Writers::Many,
            _ => {}
        }
        0
    }

    /// The index of the unit named `name`, made if new. The home unit
    /// takes the name when all it holds so far is nothing notable and no
    /// kernel lines, or one program's lines (a `journalctl -u` excerpt that
    /// starts mid-run, with the kernel's report about it perhaps) and the
    /// message is not a start job (which announces a process yet to
    /// write).
    fn named(&mut self, name: &str, claim: Claim, line: u64) -> usize {
        let index = match self.find(name) {
            Some(index) => index,
            None => {
                let home = &self.list[0];
                let adoptable = home.name.is_none()
                    && match &home.writers {
                        Writers::None => {
                            !home.boot_lines
                                && (claim == Claim::Named || home.runs.iter().all(|r| !r.substantive))
                        }
                        Writers::One(_) => claim == Claim::Named,
                        Writers::Many => false,
                    };
                if adoptable {
                    self.list[0].name = Some(name.to_string());
                    self.by_name.insert(name.to_string(), HOME);
                    0
                } else {
                    self.add(name)
                }
            }
        };
        if claim == Claim::Start {
            let id = self.list[index].id;
            self.awaiting.retain(|&(unit, _)| unit != id);
            if self.awaiting.len() == MAX_AWAITING {
                self.awaiting.remove(0);
            }
            self.awaiting.push((id, line));
        }
        index
    }

    /// Process group `index` is unit `name`'s process: the group takes the
    /// unit's name.
    fn rename(&mut self, index: usize, name: &str) -> usize {
        let unit = &mut self.list[index];
        if let Some(old) = unit.name.replace(name.to_string()) {
            self.by_name.remove(&old);
        }
        unit.process_group = false;
        self.by_name.insert(name.to_string(), unit.id);
        index
    }

    /// A new unit named `name`; at the cap, one with nothing notable (no
    /// finding, no failure) is forgotten first, else the oldest, and
    /// counted.
    fn add(&mut self, name: &str) -> usize {
        if self.list.len() >= MAX_UNITS {
            let quiet = (1..self.list.len())
                .find(|&i| self.list[i].runs.iter().all(|r| r.findings.is_empty() && r.failures.is_empty()));
            if quiet.is_none() {
                self.dropped_units += 1;
            }
            self.forget(quiet.unwrap_or(1));
        }
        let id = self.next_id;
        self.next_id += 1;
        self.list.push(UnitRuns { name: Some(name.to_string()), id, ..UnitRuns::default() });
        self.slots.insert(id, self.list.len() - 1);
        self.by_name.insert(name.to_string(), id);
        self.list.len() - 1
    }

    /// Forgets unit `index` (the last unit takes its place); bindings to it
    /// go stale, and its processes are bound again when they next write.
    fn forget(&mut self, index: usize) {
        self.last_bound.set(None);
        let gone = self.list.swap_remove(index);
        self.runs_kept -= gone.runs.len();
        self.slots.remove(&gone.id);
        if let Some(name) = &gone.name {
            self.by_name.remove(name);
        }
        if let Some(moved) = self.list.get(index) {
            self.slots.insert(moved.id, index);
        }
    }

    /// Binds process `pid` to unit `index`.
    fn bind(&mut self, pid: u32, index: usize) {
        self.last_bound.set(None);
        let id = self.list[index].id;
        if self.bindings.insert(pid, id).is_none() {
            if self.bound_order.len() == MAX_BINDINGS {
                if let Some(old) = self.bound_order.pop_front() {
                    self.bindings.remove(&old);
                }
            }
            self.bound_order.push_back(pid);
        }
    }

    /// Unit `index` has its process: it waits no more.
    fn found_process(&mut self, index: usize) {
        let id = self.list[index].id;
        self.awaiting.retain(|&(unit, _)| unit != id);
    }
}

/// Whether a record from `identifier` is routed by its message (what
/// the kernel and systemd say names the process or unit it concerns).
fn is_boot_writer(identifier: Option<&str>) -> bool {
    matches!(identifier, Some("kernel" | "systemd-oomd" | "systemd-coredump"))
}

/// Whether a record from `identifier` that names no unit goes where its
/// writer goes ([`Units::route_writer`]), its message unread.
pub(super) fn routes_by_writer(identifier: Option<&str>) -> bool {
    !is_boot_writer(identifier) && identifier != Some("systemd")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_follows_its_binding_when_it_moves_or_its_unit_moves() {
        let mut units = Units::default();
        // `-o with-unit` names the unit and binds the process to it; then
        // the process writes under its own name.
        let a = units.route_writer(Some("a.service"), Some(100), 1);
        assert_eq!(units.route_writer(Some("python3"), Some(100), 2), a);
        assert_eq!(units.route_writer(Some("python3"), Some(100), 3), a, "asked again");
        let b = units.route_writer(Some("b.service"), Some(100), 4);
        assert_ne!(a, b);
        assert_eq!(units.route_writer(Some("python3"), Some(100), 5), b, "bound again");
        // Units made up to the cap; then one more: the first quiet unit
        // is forgotten and the last takes its place.
        let mut n = 0;
        while units.list.len() < MAX_UNITS {
            let index = units.route_writer(Some(&format!("u{n}.service")), Some(1000 + n), 6);
            assert_eq!(units.route_writer(Some("python3"), Some(1000 + n), 6), index);
            n += 1;
        }
        let (last, pid) = (units.list.len() - 1, 1000 + n - 1);
        assert_eq!(units.route_writer(Some("python3"), Some(pid), 7), last);
        let moved = units.list[last].name.clone().unwrap();
        units.route_writer(Some("c.service"), None, 8);
        let now = units.find(&moved).expect("the last unit is kept");
        assert_ne!(now, last, "{moved} moved");
        assert_eq!(units.route_writer(Some("python3"), Some(pid), 9), now);
    }
}
