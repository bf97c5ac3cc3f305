//! What a crashed run died of: causal selection among the findings that
//! count (a cause, a confirmed symptom, a stand-in symptom, a memory kill
//! recorded elsewhere, an unrecognised failure), and the root cause the
//! report gives for it.

use super::{category_of, evidence_of, hint_of, KillRecord, Setting, MAX_CORROBORATING};
use crate::engine::diagnosis::{Confidence, Evidence, Hundredths, Inferred, RootCause};
use crate::engine::fingerprint::Fingerprint;
use crate::engine::handling::says_it_ends;
use crate::engine::place::{evidence_at, Places};
use crate::engine::run::{CutTraceback, EvidenceLine, Failure, Finding, RunState};
use crate::engine::SourceState;
use crate::rules::{fate, Category, Role, RuleSet};

/// What a crashed run died of.
pub(super) enum Root<'a> {
    /// A cause rule's finding, or a confirm finding with the symptom it
    /// confirms.
    Cause(&'a Finding, Option<&'a Finding>),
    /// A symptom standing in for a cause the log does not show.
    StandIn(&'a Finding),
    /// An uncaught failure no rule recognises.
    Failure(&'a Failure),
    /// A memory kill recorded in another source or unit, for this run's
    /// SIGKILL; `true` when it names the run's process or unit, `false`
    /// when it only came just before.
    Elsewhere(KillRecord<'a>, &'a Finding, bool),
}

/// Lines within which an error after frames that lack their exception line
/// is taken to be that exception, split off by a paste.
const SPLIT_LINES: u64 = 3;

/// How many lines after a death's telling a launcher may tell it again,
/// with how it ended.
const RETOLD_LINES: u64 = 6;

/// Causal selection: the earliest cause; with none (and no orderly stop),
/// the earliest of an unexplained stand-in symptom and an unrecognised
/// failure. `None` means the run did not crash.
pub(super) fn choose_root<'a>(
    rules: &RuleSet,
    setting: &Setting<'a>,
    run: &'a RunState,
    active: &[&'a Finding],
    failures: &[&'a Failure],
) -> Option<Root<'a>> {
    if let Some((cause, confirmed)) = select_cause(rules, run, active) {
        return Some(Root::Cause(cause, confirmed));
    }
    // After an orderly stop, only failures that count despite the stop (a
    // stop that timed out) make the run a crash.
    let before_stop = |line: u64| run.stop_line.is_none_or(|stop| line < stop);
    let active: Vec<&Finding> = active
        .iter()
        .copied()
        .filter(|f| before_stop(f.line) || rules.rule(f.rule).counts_after_stop)
        .collect();
    let explained = |f: &Finding| {
        active
            .iter()
            .any(|other| !std::ptr::eq(*other, f) && rules.rule(other.rule).explains.contains(&f.rule))
    };
    let unexplained = |f: &&Finding| f.role == Role::Symptom && !explained(f);
    let stand_in = active.iter().copied().filter(unexplained).min_by_key(|f| (f.summary, f.line));
    // A death told twice, first without how (`the job has been aborted`),
    // then with it (`… exited on signal 9 (Killed)`): the telling that
    // names how is the evidence.
    let fate = |f: &Finding| rules.rule(f.rule).role == Role::Fate;
    let told_how = |s: &Finding, o: &&Finding| {
        fate(o)
            && o.line > s.line
            && o.ordinal <= s.event_last_ordinal + RETOLD_LINES
            && o.category.is_some_and(|c| c != Category::Unknown)
    };
    let stand_in = stand_in.map(|s| match s.category {
        Some(Category::Unknown) | None if fate(s) => {
            active.iter().copied().filter(unexplained).find(|o| !o.summary && told_how(s, o)).unwrap_or(s)
        }
        _ => s,
    });
    // A writer's error, then its fatal one by the same rule (`slurmd:
    // error: Waiting for …`, then `slurmd: fatal: can't stat …`): the
    // fatal one is what ended it.
    let stand_in = stand_in.map(|s| {
        if s.summary || s.writer.is_none() || says_it_ends(&s.text) {
            return s;
        }
        let ended_it = |o: &&Finding| {
            o.rule == s.rule && o.line > s.line && o.writer == s.writer && says_it_ends(&o.text)
        };
        active.iter().copied().filter(unexplained).find(ended_it).unwrap_or(s)
    });
    // Frames with no exception line, right before a line that names an
    // error: the paste split one traceback, and that line is decisive.
    let split_off = |f: &Failure| {
        let next = |ordinal: u64| ordinal > f.last_ordinal && ordinal <= f.last_ordinal + SPLIT_LINES;
        f.headless
            && (active.iter().any(|a| next(a.ordinal)) || failures.iter().any(|o| next(o.first_ordinal)))
    };
    // A traceback whose own lines hold the stop (an uncaught
    // KeyboardInterrupt) is the stop, not a failure before it.
    let is_the_stop = |f: &Failure| run.stop_line.is_some_and(|s| (f.first_line..=f.last_line).contains(&s));
    let failure =
        failures.iter().copied().find(|f| before_stop(f.first_line) && !split_off(f) && !is_the_stop(f));
    match (stand_in, failure) {
        (Some(s), Some(f)) if s.summary || f.first_line <= s.line => Some(Root::Failure(f)),
        (Some(s), _) => Some(match kill_record_for(setting, run, s) {
            Some((record, named)) => Root::Elsewhere(record, s, named),
            None => Root::StandIn(s),
        }),
        (None, Some(f)) => Some(Root::Failure(f)),
        (None, None) => None,
    }
}

/// A memory kill recorded elsewhere that explains a SIGKILL stand-in, and
/// whether it names one of the run's processes or its unit (else it is a
/// kill of a process nobody owns, just before).
fn kill_record_for<'a>(
    setting: &Setting<'a>,
    run: &RunState,
    stand_in: &Finding,
) -> Option<(KillRecord<'a>, bool)> {
    if !stand_in.category.is_some_and(Category::is_unattributed_kill) {
        return None;
    }
    let unit = setting.unit.or(run.unit.as_deref());
    let names = |record: &KillRecord<'_>| {
        let pid = record.finding.pid.is_some_and(|p| run.pids.contains(&p) || stand_in.pid == Some(p));
        pid || record.finding.unit.as_deref().is_some_and(|u| Some(u) == unit)
    };
    let elsewhere = setting.kills.iter().copied().filter(|r| !std::ptr::eq(r.run, run));
    let named = elsewhere.clone().find(|r| names(r)).map(|r| (r, true));
    let source = setting.source;
    named.or_else(|| {
        let near = elsewhere.filter(|r| just_before(source, run, stand_in, r));
        let record = near.max_by_key(|r| r.finding.line)?;
        // A failure of a process no unit claims, between the kill and the
        // SIGKILL, may be what the unit died of (sglang kills its own
        // process tree after a child fails): then nobody can tell.
        let between =
            |&&(s, line): &&(usize, u64)| s == source && line > record.finding.line && line < stand_in.line;
        setting.loose.iter().find(between).is_none().then_some((record, false))
    })
}

/// The lines of the failures (causes other than memory kills, and
/// unrecognised failures) in runs that no unit claims, per source.
pub(super) fn loose_failures(sources: &[SourceState]) -> Vec<(usize, u64)> {
    let mut lines = Vec::new();
    for (index, source) in sources.iter().enumerate() {
        for run in source.units.list.iter().filter(|u| !u.is_claimed()).flat_map(|u| &u.runs) {
            let causes = run
                .findings
                .iter()
                .filter(|f| f.role == Role::Cause && !f.category.is_some_and(Category::confirms_a_kill));
            lines.extend(causes.map(|f| (index, f.line)));
            lines.extend(run.failures.iter().map(|f| (index, f.first_line)));
        }
    }
    lines
}

/// Lines within which a kill record of a process nobody is known to own
/// can explain the SIGKILL that follows it.
const NEAR_LINES: u64 = 32;

/// Is `record` a kill of a process no unit is known to own (a child that
/// never wrote to the journal, a process the journal names only by pid,
/// a process whose unit a short-mode journal does not say), in the same
/// source, just before the SIGKILL of a run whose processes are unknown?
/// systemd-oomd and the kernel name the pid they kill; systemd then names
/// only the unit whose process died.
fn just_before(source: usize, run: &RunState, stand_in: &Finding, record: &KillRecord<'_>) -> bool {
    let same_source = record.source == source;
    let orphan = !record.claimed || record.finding.pid.is_none_or(|p| !record.run.pids.contains(&p));
    let before = record.finding.line < stand_in.line
        && stand_in.ordinal.saturating_sub(record.finding.ordinal) <= NEAR_LINES;
    same_source && orphan && before && run.pids.is_empty() && stand_in.pid.is_none()
}

/// The root cause of a crashed run, and the (stream) lines its evidence
/// shows, which are then not listed again as symptoms.
pub(super) fn root_cause(
    rules: &RuleSet,
    run: &RunState,
    places: Places<'_>,
    root: &Root<'_>,
    active: &[&Finding],
) -> (RootCause, Vec<u64>) {
    let mut shown = Shown { places, lines: Vec::new() };
    let mut evidence = |lines: &[EvidenceLine]| shown.evidence(lines);
    let cause = match root {
        Root::Cause(cause, confirmed) => {
            let rule = rules.rule(cause.rule);
            let mut lines = cause.evidence.clone();
            lines.extend(confirmed.map(evidence_of));
            // Other causes of the same category back it up (the OOM
            // record, then the unit's oom-kill result).
            let corroborating = active
                .iter()
                .filter(|f| matches!(f.role, Role::Cause | Role::Confirm) && !std::ptr::eq(**f, *cause))
                .filter(|f| f.category == cause.category)
                .take(MAX_CORROBORATING);
            lines.extend(corroborating.map(|f| evidence_of(f)));
            let died = cause.summary || run.last_terminal.is_some_and(|t| t >= cause.line);
            RootCause {
                rule: Some(rule.id.clone()),
                category: category_of(cause),
                title: cause.title.clone(),
                confidence: if died { Confidence::High } else { Confidence::Medium },
                hint: hint_of(rules, cause),
                evidence: evidence(&lines),
                identified: true,
                inferred: None,
                fingerprint: None,
            }
        }
        Root::StandIn(symptom) => {
            let rule = rules.rule(symptom.rule);
            RootCause {
                rule: Some(rule.id.clone()),
                category: category_of(symptom),
                title: symptom.title.clone(),
                confidence: Confidence::Low,
                hint: hint_of(rules, symptom).or_else(|| rule.why.clone()),
                evidence: evidence(&symptom.evidence),
                identified: false,
                inferred: None,
                fingerprint: None,
            }
        }
        Root::Elsewhere(record, symptom, named) => {
            let rule = rules.rule(record.finding.rule);
            let mut lines =
                vec![evidence_at(record.places, record.finding.line, &evidence_of(record.finding))];
            lines.extend(evidence(&[evidence_of(symptom)]));
            RootCause {
                rule: Some(rule.id.clone()),
                category: category_of(record.finding),
                title: record.finding.title.clone(),
                confidence: if *named { Confidence::High } else { Confidence::Medium },
                hint: rule.hint.clone(),
                evidence: lines,
                identified: true,
                inferred: None,
                fingerprint: None,
            }
        }
        Root::Failure(failure) => failure_cause(run, failure, evidence(&failure.evidence)),
    };
    (with_inferred_category(rules, root, with_fingerprint(rules, root, cause)), shown.lines)
}

/// The evidence lines a root cause shows, each once.
struct Shown<'p> {
    places: Places<'p>,
    /// The stream lines shown so far.
    lines: Vec<u64>,
}

impl Shown<'_> {
    /// Evidence for those of `lines` not shown yet.
    fn evidence(&mut self, lines: &[EvidenceLine]) -> Vec<Evidence> {
        let mut out: Vec<Evidence> = Vec::with_capacity(lines.len());
        for l in lines {
            if !self.lines.contains(&l.line) {
                self.lines.push(l.line);
                let (source, line) = self.places.locate(l.line);
                out.push(Evidence {
                    source: source.to_string(),
                    line,
                    text: l.text.clone(),
                    cut_bytes: l.cut,
                });
            }
        }
        out
    }
}

/// The root cause of a run that died of a failure no rule recognises,
/// shown by `evidence`.
fn failure_cause(run: &RunState, failure: &Failure, evidence: Vec<Evidence>) -> RootCause {
    // A fate line in its exception may say what it was.
    let (category, names_cause) = failure.fate.unwrap_or((Category::Unknown, false));
    let hint = match &run.cut_traceback {
        Some(cut) if cut.first_line == failure.first_line => cut_hint(cut),
        _ if category != Category::Unknown => fate::hint(category).to_string(),
        _ => UNRECOGNISED_HINT.to_string(),
    };
    RootCause {
        rule: None,
        category,
        title: failure.title.clone(),
        confidence: if names_cause { Confidence::Medium } else { Confidence::Low },
        hint: Some(hint),
        evidence,
        identified: names_cause,
        inferred: None,
        fingerprint: None,
    }
}

/// A root cause whose category no rule named carries the fingerprint of
/// its failure: the failure's own, or for a symptom standing in, the
/// rule that read it and its masked message.
fn with_fingerprint(rules: &RuleSet, root: &Root<'_>, mut cause: RootCause) -> RootCause {
    if cause.category != Category::Unknown {
        return cause;
    }
    cause.fingerprint = match root {
        Root::Failure(failure) => Some(failure.fingerprint.fingerprint()),
        Root::StandIn(symptom) => {
            let message = symptom.text.get(symptom.message_at as usize..).unwrap_or(&symptom.text);
            Some(Fingerprint::new(&rules.rule(symptom.rule).id, message, []))
        }
        Root::Cause(..) | Root::Elsewhere(..) => None,
    };
    cause
}

/// A root cause whose category no rule named takes the one its decisive
/// line's words point to, when they point clearly (`rules::wording`): at
/// low confidence, never identified (exit 3), and saying which words
/// decided. That is a failure no rule matched, or a fate line that says
/// only that something ended; a rule that knows its line and left the
/// category `unknown` (a Rust panic, vLLM's dead engine) meant it. A
/// traceback cut before its exception line has no decisive line.
fn with_inferred_category(rules: &RuleSet, root: &Root<'_>, mut cause: RootCause) -> RootCause {
    let worded = match root {
        Root::Failure(failure) => !failure.headless,
        // An exit status was read for what it says (139 a segfault, 137 a
        // kill); its other words only name what exited (`Service Frigate
        // exited with code 1`).
        Root::StandIn(symptom) => {
            rules.rule(symptom.rule).role == Role::Fate && rules.rule(symptom.rule).id != "fate.exit-status"
        }
        Root::Cause(..) | Root::Elsewhere(..) => false,
    };
    if !worded || cause.category != Category::Unknown {
        return cause;
    }
    // Its words as the program wrote them: a wrapper's (a host, a pod, a
    // service name) would weigh in otherwise.
    let words = |e: &Evidence| rules.infer_category(crate::framing::program_text(&e.text));
    let Some(inference) = cause.evidence.first().and_then(words) else {
        return cause;
    };
    cause.category = inference.category;
    cause.confidence = Confidence::Low;
    cause.inferred = Some(Inferred {
        words: inference.words,
        score: Hundredths((inference.score * 100.0).floor().clamp(0.0, 100.0) as u8),
    });
    cause
}

const UNRECOGNISED_HINT: &str =
    "No rule recognises this failure. Read the evidence lines (the first exception of a chain is \
the root); if it is a known problem, add a rule for it (rules/README.md).";

/// The earliest cause among active findings: the earliest cause, or confirm
/// whose symptom is present; with the confirmed symptom, if any.
fn select_cause<'f>(
    rules: &RuleSet,
    run: &RunState,
    active: &[&'f Finding],
) -> Option<(&'f Finding, Option<&'f Finding>)> {
    let mut candidates: Vec<(&Finding, Option<&Finding>)> = Vec::new();
    for f in active {
        match f.role {
            Role::Cause => candidates.push((*f, None)),
            Role::Confirm => {
                let confirms = &rules.rule(f.rule).confirms;
                // A memory kill record confirms any SIGKILL the log names,
                // in the catalogue's words or a supervisor's.
                let kill = |s: &Finding| {
                    f.category.is_some_and(Category::confirms_a_kill)
                        && s.category.is_some_and(Category::is_unattributed_kill)
                };
                let confirmed = active
                    .iter()
                    .find(|s| (confirms.contains(&s.rule) || kill(s)) && same_process(run, s, f));
                if let Some(symptom) = confirmed {
                    candidates.push((*f, Some(*symptom)));
                }
            }
            _ => {}
        }
    }
    // A kill record about a process that is not one of this run's (another
    // service in the same journal) is the root cause only if nothing else is.
    let owned = |f: &Finding| run.owns_pid(f.pid);
    let pool: Vec<_> = if candidates.iter().any(|(f, _)| owned(f)) {
        candidates.into_iter().filter(|(f, _)| owned(f)).collect()
    } else {
        candidates
    };
    // A `systemctl status` summary says how the unit ended; a cause logged
    // in the journal says why.
    // A warning names a cause only when nothing else does. A cause of the
    // last resort (hitting the start limit) is the cause only when nothing
    // else explains the failed starts, not even the status block's exit
    // status.
    let last_resort = |f: &Finding| f.category.is_some_and(Category::is_last_resort);
    pool.into_iter()
        .min_by_key(|(f, _)| (last_resort(f), f.summary, f.warning, f.line, -rules.rule(f.rule).priority))
}

/// Do a symptom and the record that would confirm it concern the same
/// process? Yes when both name it and agree, or when the record names one
/// of the run's processes and the symptom names none.
fn same_process(run: &RunState, symptom: &Finding, record: &Finding) -> bool {
    match (symptom.pid, record.pid) {
        (Some(a), Some(b)) => a == b,
        (None, record_pid) => run.owns_pid(record_pid),
        (Some(_), None) => true,
    }
}

fn cut_hint(cut: &CutTraceback) -> String {
    let suspect = match &cut.innermost {
        Some(place) => {
            // Below site-packages the place starts with the package; outside
            // it (the user's own script) the place is the whole path.
            let whole_path = place.starts_with('/') || place.contains('\\');
            let suspect = match whole_path {
                true => place.rsplit(['/', '\\']).next().and_then(|f| f.split(':').next()).unwrap_or(place),
                false => place.split('/').next().unwrap_or(place),
            };
            format!("Suspect: {suspect} (the innermost frame seen is {place}). ")
        }
        None => String::new(),
    };
    format!("{suspect}The exception line that names the error is missing: fetch more of the log (see the notice).")
}
