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

use std::cell::Cell;
use std::collections::{HashMap, VecDeque};

use super::int_map::IntMap;
use super::run::RunState;
use super::subject::{self, Subject};
use crate::events::Event;
use guess::{Check, Guess};

mod guess;

/// Most units kept per source; beyond it, units with nothing notable are
/// forgotten to make room (a boot of cron jobs and sessions can name
/// thousands).
pub const MAX_UNITS: usize = 1024;
/// Most runs kept per unit; older ones are dropped (a restart loop can log
/// thousands) and the report says how many.
const MAX_RUNS: usize = 1000;
/// Most runs kept per source, over all its units: beyond it, the oldest
/// run of the unit with the most is dropped.
const MAX_SOURCE_RUNS: usize = 4096;
/// Most process bindings remembered per source (oldest forgotten first).
const MAX_BINDINGS: usize = 8192;
/// Most started units waiting for their first process.
const MAX_AWAITING: usize = 32;
/// A unit started more than this many lines before a new process wrote is
/// no longer taken to be that process's unit unless its name matches.
const AWAIT_LINES: u64 = 2000;

/// The runs of one unit.
#[derive(Clone, Default)]
pub struct UnitRuns {
    /// The unit's name (`sglang.service`, `pod/llm-0/server`), or `None`
    /// for a log that names none.
    pub name: Option<String>,
    /// Its runs, in input order.
    pub runs: Vec<RunState>,
    /// Earlier runs not kept (see `MAX_RUNS`).
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
    pub fn forces_new_run(&self, launch_after: Option<u64>, run: &RunState, first_line: u64) -> bool {
        self.boot_pending || launch_after.is_some_and(|n| first_line > n && run.first_line <= n)
    }

    /// Does the unit claim its processes: a named unit, pod or container,
    /// or the one unit of a log (not the boot's lines, nor a process no
    /// unit claimed)?
    /// It holds a boot's lines that no unit claims: the kernel's and a
    /// program's or several (a journal of a whole boot, not a kernel log
    /// alone). A kernel line there that names no process is the boot's,
    /// not any one process's.
    pub fn holds_a_boot(&self) -> bool {
        self.the_boot || (self.name.is_none() && self.boot_lines && self.writers != Writers::None)
    }

    pub fn is_claimed(&self) -> bool {
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
pub struct Units {
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
    notices: Vec<String>,
    /// Units with findings forgotten to stay under [`MAX_UNITS`].
    pub dropped_units: u64,
    /// Runs kept, over all units.
    runs_kept: usize,
}

impl Default for Units {
    fn default() -> Self {
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
        }
    }
}

impl Units {
    /// A boot separator: every unit's next event starts a new run.
    pub fn boot(&mut self) {
        for unit in &mut self.list {
            unit.boot_pending = true;
        }
        self.let_guess_stand();
    }

    /// Starts a run of unit `index` at stream line `first`, dropping an
    /// old run of the unit (at [`MAX_RUNS`]) or of the source's largest
    /// unit (at [`MAX_SOURCE_RUNS`]): the oldest that recorded no failure,
    /// so a crash among a thousand launches is kept (the oldest run when
    /// every one failed).
    pub fn start_run(&mut self, index: usize, first: u64) {
        let unit = &mut self.list[index];
        if unit.runs.len() == MAX_RUNS {
            unit.drop_old_run();
        } else if self.runs_kept == MAX_SOURCE_RUNS {
            self.list.iter_mut().max_by_key(|u| u.runs.len()).expect("a unit").drop_old_run();
        } else {
            self.runs_kept += 1;
        }
        let unit = &mut self.list[index];
        unit.runs.push(RunState::new(first));
        unit.boot_pending = false;
    }

    /// The index of the unit `event` belongs to.
    pub fn route(&mut self, event: &Event) -> usize {
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
    pub fn route_writer(&mut self, identifier: Option<&str>, pid: Option<u32>, line: u64) -> usize {
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
pub fn routes_by_writer(identifier: Option<&str>) -> bool {
    !is_boot_writer(identifier) && identifier != Some("systemd")
}

/// The units `--unit` names: globs as journalctl's `-u` takes them
/// (`sglang`, `sglang*`, `trainer@*.service`). A pattern without a dot or
/// a slash names a service (`sglang` is `sglang.service`); a pod is named
/// whole (`pod/llm-0/server`), by its pod (`llm-0`, `pod/llm-0`) or by a
/// glob of those.
#[derive(Debug, Clone, Default)]
pub struct UnitFilter {
    patterns: Vec<String>,
}

impl UnitFilter {
    /// A filter of these patterns (empty: every unit).
    pub fn new(patterns: &[String]) -> Self {
        UnitFilter { patterns: patterns.to_vec() }
    }

    /// No pattern given: every unit is judged.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    /// Does some pattern name unit `name` (a log that names no unit is
    /// never named)?
    pub fn matches(&self, name: Option<&str>) -> bool {
        let Some(name) = name else { return false };
        self.patterns.iter().any(|pattern| {
            let names = unit_aliases(name);
            let service =
                (!pattern.contains(['.', '/']) && !is_glob(pattern)).then(|| format!("{pattern}.service"));
            names.iter().any(|n| glob(pattern, n) || service.as_deref() == Some(*n))
        })
    }

    /// The notice for a source none of whose units the patterns name.
    pub fn no_match_notice(&self, named: &[&str]) -> String {
        const SHOWN: usize = 12;
        let wanted = self.patterns.join(", ");
        if named.is_empty() {
            return format!("--unit {wanted}: this input names no units, so nothing in it was judged");
        }
        let mut seen = named.iter().take(SHOWN).copied().collect::<Vec<_>>().join(", ");
        if named.len() > SHOWN {
            seen.push_str(&format!(" and {} more", named.len() - SHOWN));
        }
        format!("--unit {wanted}: no unit of this input matches, so nothing in it was judged (units seen: {seen})")
    }
}

/// The names a unit answers to: itself, and for a pod's container
/// (`pod/llm-0/server`) its pod (`pod/llm-0`, `llm-0`) and `llm-0/server`.
fn unit_aliases(name: &str) -> Vec<&str> {
    let mut names = vec![name];
    if let Some(rest) = name.strip_prefix("pod/") {
        names.push(rest);
        if let Some((pod, _)) = rest.split_once('/') {
            names.push(pod);
            names.push(&name[..4 + pod.len()]);
        }
    }
    names
}

fn is_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?', '['])
}

/// fnmatch-style matching of `*`, `?` and `[…]` (with `!` or `^` to
/// negate) against the whole of `text`.
fn glob(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    // Backtracking over the last `*` only: linear enough for unit names.
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        let step = match p.get(pi) {
            Some('*') => {
                star = Some((pi, ti));
                pi += 1;
                continue;
            }
            Some('?') => Some(pi + 1),
            Some('[') => class(&p, pi, t[ti]),
            Some(&c) if c == t[ti] => Some(pi + 1),
            _ => None,
        };
        match (step, star) {
            (Some(next), _) => {
                pi = next;
                ti += 1;
            }
            (None, Some((star_pi, star_ti))) => {
                pi = star_pi + 1;
                ti = star_ti + 1;
                star = Some((star_pi, star_ti + 1));
            }
            (None, None) => return false,
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// Matches `c` against the class opening at `p[at]`; the position after
/// it when it matches.
fn class(p: &[char], at: usize, c: char) -> Option<usize> {
    let mut i = at + 1;
    let negate = matches!(p.get(i), Some('!' | '^'));
    if negate {
        i += 1;
    }
    let mut found = false;
    let mut first = true;
    while let Some(&x) = p.get(i) {
        if x == ']' && !first {
            return (found != negate).then_some(i + 1);
        }
        first = false;
        if p.get(i + 1) == Some(&'-') && p.get(i + 2).is_some_and(|&e| e != ']') {
            found |= x <= c && c <= p[i + 2];
            i += 3;
        } else {
            found |= x == c;
            i += 1;
        }
    }
    // No closing bracket: a literal `[`.
    (c == '[').then_some(at + 1)
}

/// Is this systemd's start job for a unit (`Starting …`, `Started …`)?
fn is_start_job(event: &Event) -> bool {
    let message = subject::first_message(event);
    message.starts_with("Started ") || message.starts_with("Starting ")
}

/// Does systemd say a unit's process ended (`X.service: Deactivated
/// successfully.`, `Main process exited, …`, `Failed with result …`,
/// `Finished X.service`, `Stopped X.service`)?
fn is_end_job(event: &Event) -> bool {
    let message = subject::first_message(event);
    if ["Finished ", "Stopped ", "Failed to start "].iter().any(|verb| message.starts_with(verb)) {
        return true;
    }
    let Some((_, said)) = message.split_once(": ") else {
        return false;
    };
    ["Deactivated successfully", "Succeeded.", "Main process exited", "Failed with result"]
        .iter()
        .any(|end| said.starts_with(end))
}

/// Does systemd say a unit is over, none of its processes left
/// (`Deactivated successfully`, `Failed with result …`, `Finished`,
/// `Stopped`), rather than only that its main process exited?
fn is_last_word(event: &Event) -> bool {
    !subject::first_message(event)
        .split_once(": ")
        .is_some_and(|(_, said)| said.starts_with("Main process exited"))
}

/// Does unit `name` look like the unit of program `identifier`
/// (`cron.service` and `CRON`, `ssh.service` and `sshd`,
/// `sglang-k26.service` and `sglang`)?
fn names_match(name: &str, identifier: &str) -> bool {
    let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
    let stem = stem.split('@').next().unwrap_or(stem);
    let (short, long) = if stem.len() <= identifier.len() { (stem, identifier) } else { (identifier, stem) };
    short.len() >= 3 && long.as_bytes().windows(short.len()).any(|w| w.eq_ignore_ascii_case(short.as_bytes()))
}

/// The process a kernel or systemd-oomd message names: `Killed process
/// 1104 (python3)`, `Kill process 1104`, `reaped process 1104`,
/// `…,pid=1104,…`, `python3[1104]: segfault at …`, `Xid (…): 31,
/// pid=1104, …`.
pub fn named_pid(message: &str) -> Option<u32> {
    // systemd-coredump: `Process 1104 (python3) of user 0 dumped core.`
    if let Some(rest) = message.strip_prefix("Process ") {
        return leading_number(rest)
            .filter(|_| message.contains(" dumped core") || message.contains(" terminated abnormally"));
    }
    for marker in ["Killed process ", "Kill process ", "reaped process "] {
        if let Some(at) = message.find(marker) {
            return leading_number(&message[at + marker.len()..]);
        }
    }
    if let Some(at) = message.find("pid=") {
        let before = message[..at].chars().next_back();
        if before.is_none_or(|c| c == ',' || c == ' ') {
            return leading_number(&message[at + 4..]);
        }
    }
    if let Some(at) = message.find("]: segfault at ") {
        let open = message[..at].rfind('[')?;
        return message[open + 1..at].parse().ok();
    }
    None
}

/// The process systemd says it is killing: `Killing process 1104
/// (python3) with signal SIGKILL.`
fn killing_pid(message: &str) -> Option<u32> {
    let at = message.find(": Killing process ")?;
    leading_number(&message[at + ": Killing process ".len()..])
}

fn leading_number(text: &str) -> Option<u32> {
    let end = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    text[..end].parse().ok()
}

/// The service or scope a kernel OOM report or systemd-oomd names by its
/// cgroup (`task_memcg=/system.slice/sglang.service`, `Killed
/// /system.slice/x.service due to memory pressure`), the innermost unit on
/// the path that is not a slice.
pub fn cgroup_unit(message: &str) -> Option<&str> {
    let path = if let Some(at) = message.find("task_memcg=") {
        let rest = &message[at + "task_memcg=".len()..];
        &rest[..rest.find(',').unwrap_or(rest.len())]
    } else {
        let rest = message.strip_prefix("Killed ")?;
        rest.split_whitespace().next().filter(|p| p.starts_with('/'))?
    };
    path.rsplit('/')
        .find(|part| subject::is_unit_name(part) && (part.ends_with(".service") || part.ends_with(".scope")))
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

    #[test]
    fn kernel_messages_name_the_process() {
        let cases = [
            ("Out of memory: Killed process 1104 (python3) total-vm:1kB, anon-rss:2kB", Some(1104)),
            ("Memory cgroup out of memory: Kill process 24984 (palo_be) score 968 or sacrifice child", Some(24984)),
            ("oom_reaper: reaped process 1104 (python3), now anon-rss:0kB", Some(1104)),
            ("oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,task_memcg=/system.slice/sglang.service,task=python3,pid=1104,uid=0", Some(1104)),
            ("python3[2536443]: segfault at 7f79 ip 00007f7c sp 00007f7c error 4 in libnccl.so.2[7f7c+d3]", Some(2536443)),
            ("NVRM: Xid (PCI:0000:3b:00): 31, pid=1104, name=python3, Ch 00000010, intr 10000000", Some(1104)),
            ("NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.", None),
            ("NVRM: Xid (PCI:0000:3b:00): 13, pid='<unknown>', name=<unknown>, Graphics Exception", None),
            ("usb 1-1: new high-speed USB device number 2 using xhci_hcd", None),
            ("Process 1104 (python3) of user 0 dumped core.", Some(1104)),
            ("Process 1104 (python3) of user 0 terminated abnormally with signal 6/ABRT, processing...", Some(1104)),
        ];
        for (message, pid) in cases {
            assert_eq!(named_pid(message), pid, "{message}");
        }
        assert_eq!(
            killing_pid("sglang.service: Killing process 1104 (python3) with signal SIGKILL."),
            Some(1104)
        );
    }

    #[test]
    fn cgroups_name_the_unit() {
        assert_eq!(
            cgroup_unit("oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,oom_memcg=/system.slice/sglang.service,task_memcg=/system.slice/sglang.service,task=python3,pid=1104,uid=0"),
            Some("sglang.service")
        );
        assert_eq!(
            cgroup_unit("Killed /testsuite.slice/testsuite-55.slice/testsuite-55-workload.slice/testsuite-55-testbloat.service due to memory pressure for /testsuite.slice"),
            Some("testsuite-55-testbloat.service")
        );
        assert_eq!(
            cgroup_unit("oom-kill:constraint=CONSTRAINT_NONE,task_memcg=/user.slice,task=x,pid=1"),
            None
        );
        assert_eq!(cgroup_unit("Killed process 1104 (python3)"), None);
    }

    #[test]
    fn unit_patterns_work_like_journalctl() {
        let filter = |p: &[&str]| UnitFilter::new(&p.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        let sglang = filter(&["sglang"]);
        assert!(sglang.matches(Some("sglang.service")));
        assert!(!sglang.matches(Some("sglang-k26.service")));
        assert!(!sglang.matches(None));
        assert!(filter(&["sglang*"]).matches(Some("sglang-k26.service")));
        assert!(filter(&["trainer@*.service"]).matches(Some("trainer@3.service")));
        assert!(filter(&["tr[a-c]iner.service"]).matches(Some("trainer.service")));
        assert!(!filter(&["tr[!a]iner.service"]).matches(Some("trainer.service")));
        assert!(filter(&["x", "trainer.service"]).matches(Some("trainer.service")));
        let pods = filter(&["llm-0"]);
        assert!(pods.matches(Some("pod/llm-0/server")));
        assert!(!pods.matches(Some("pod/llm-01/server")));
        assert!(filter(&["pod/llm-*"]).matches(Some("pod/llm-1/server")));
        assert!(filter(&["sglang-1"]).matches(Some("sglang-1")));
        assert!(glob("a*b*c", "aXbYbZc") && !glob("a*b*c", "aXbY") && glob("[", "["));
    }

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
        assert_eq!(kept, MAX_SOURCE_RUNS);
        assert_eq!(kept as u64 + dropped, 6000);
        // Each unit keeps its latest run.
        assert!(units.list[1..].iter().all(|u| u.runs.last().is_some_and(|r| r.first_line >= 5995)));
        let mut one = Units::default();
        for line in 0..1500u64 {
            one.start_run(0, line);
        }
        assert_eq!((one.list[0].runs.len(), one.list[0].dropped_runs), (MAX_RUNS, 500));
    }

    #[test]
    fn writers_match_their_units_by_name() {
        assert!(names_match("cron.service", "CRON"));
        assert!(names_match("ssh.service", "sshd"));
        assert!(names_match("sglang-k26.service", "sglang"));
        assert!(names_match("getty@tty1.service", "agetty") || !names_match("getty@tty1.service", "python3"));
        assert!(!names_match("sglang.service", "python3"));
        assert!(!names_match("a.service", "ab"));
    }
}
