//! Judging a run: outcome, root cause, symptoms, benign lines, confidence.
//!
//! Causal selection, in order:
//!
//! 1. **Liveness**: a crash-looking finding after which the run kept making
//!    progress (batches, requests, start-up phases, ready) that no death
//!    line interrupted is not a crash; it is listed as benign.
//! 2. **Orderly stop**: findings after an operator stop are consequences of
//!    the stop; a run with a stop and no cause is `stopped`.
//! 3. **Root cause**: the earliest active `cause` finding, or `confirm`
//!    finding whose symptom is present (same pid when both name one).
//!    Everything else that failed in the run is a symptom pointing at it.
//! 4. **Fallback**: with no cause, the earliest unexplained symptom that
//!    stands for a cause the log cannot show (a SIGKILL with no record of
//!    who sent it, a peer that died) or the earliest unrecognised failure
//!    (an uncaught traceback): category `unknown`, low confidence.
//! 5. Otherwise the markers decide: `healthy`, `starting`, `stopped` or
//!    `unknown`.

use super::diagnosis::{
    Benign, Confidence, Diagnosis, Evidence, InputSummary, Outcome, RootCause, Run, Symptom,
    Verdict, SCHEMA,
};
use super::run::{EvidenceLine, Finding, RunState};
use super::{JudgeOptions, SourceState};
use crate::rules::{category, Role, RuleSet};

/// Supporting findings of the root cause's category added to its evidence.
const MAX_CORROBORATING: usize = 3;

pub(super) fn diagnose(
    rules: &RuleSet,
    sources: &[SourceState],
    options: JudgeOptions,
) -> Diagnosis {
    let mut runs = Vec::new();
    let mut inputs = Vec::new();
    for source in sources {
        inputs.push(InputSummary {
            name: source.name.clone(),
            lines: source.lines,
            formats: source
                .formats
                .iter()
                .map(|f| f.name().to_string())
                .collect(),
            notices: source
                .notices
                .iter()
                .cloned()
                .chain((source.dropped_runs > 0).then(|| {
                    format!("{} earlier run(s) were not kept (too many launches); only the latest are judged", source.dropped_runs)
                }))
                .collect(),
        });
        let skip = if options.last_only {
            source.runs.len().saturating_sub(1)
        } else {
            0
        };
        for state in &source.runs[skip..] {
            runs.push(judge_run(rules, &source.name, state));
        }
    }
    let crashed: Vec<&Run> = runs
        .iter()
        .filter(|r| r.outcome == Outcome::Crash)
        .collect();
    Diagnosis {
        schema: SCHEMA,
        verdict: if crashed.is_empty() {
            Verdict::NoCrash
        } else {
            Verdict::Crash
        },
        root_cause: crashed.last().and_then(|r| r.root_cause.clone()),
        inputs,
        runs,
    }
}

/// Where a crash-looking finding stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Standing {
    /// It counts.
    Active,
    /// The run made progress after it: not a crash.
    Survived(u64),
    /// It came after an operator stop at this line.
    AfterStop(u64),
}

fn standing(run: &RunState, finding: &Finding) -> Standing {
    if let Some(stop) = run.stop_line.filter(|&s| finding.line > s) {
        return Standing::AfterStop(stop);
    }
    match survived(run, finding.event_last) {
        Some(progress) => Standing::Survived(progress),
        None => Standing::Active,
    }
}

/// Did the run outlive a failure that ended at line `event_last`? It did
/// if it made progress afterwards and either never died after its last
/// progress, or died of a new failure logged after that progress. Returns
/// the last progress line. Progress alone is not enough: another rank can
/// log a batch between a failure and the kill it causes.
fn survived(run: &RunState, event_last: u64) -> Option<u64> {
    let progress = run.last_progress.filter(|&p| p > event_last)?;
    let before_stop = |t: u64| run.stop_line.is_none_or(|s| t < s);
    let Some(death) = run.terminal_after_progress.filter(|&t| before_stop(t)) else {
        return Some(progress);
    };
    let new_failure = run.findings.iter().any(|f| {
        matches!(f.role, Role::Cause | Role::Confirm) && f.line > progress && f.line <= death
    }) || run
        .failures
        .iter()
        .any(|f| f.first_line > progress && f.first_line <= death);
    new_failure.then_some(progress)
}

fn judge_run(rules: &RuleSet, source: &str, run: &RunState) -> Run {
    let mut result = Run {
        source: source.to_string(),
        first_line: run.first_line,
        last_line: run.last_line,
        unit: run.unit.clone(),
        outcome: Outcome::Unknown,
        phase: run.phase.clone(),
        root_cause: None,
        symptoms: Vec::new(),
        benign: Vec::new(),
        notices: Vec::new(),
    };
    let evidence = |lines: &[EvidenceLine]| -> Vec<Evidence> {
        lines
            .iter()
            .map(|e| Evidence {
                source: source.to_string(),
                line: e.line,
                text: e.text.clone(),
            })
            .collect()
    };

    let mut active: Vec<&Finding> = Vec::new();
    for f in &run.findings {
        if f.role == Role::Benign {
            let rule = rules.rule(f.rule);
            let why = match f.silenced {
                Some(other) => format!(
                    "{} (not {})",
                    rule.why.as_deref().unwrap_or(""),
                    rules.rule(other).id
                ),
                None => rule.why.clone().unwrap_or_default(),
            };
            result.benign.push(benign(rules, f, why));
            continue;
        }
        match standing(run, f) {
            Standing::Active => active.push(f),
            Standing::Survived(line) => {
                let why = format!(
                    "the run kept making progress after it (line {line}), so it was not fatal"
                );
                result.benign.push(benign(rules, f, why));
            }
            Standing::AfterStop(line) => {
                let why = format!("a consequence of the orderly stop seen at line {line}");
                result.benign.push(benign(rules, f, why));
            }
        }
    }
    let failures: Vec<_> = run
        .failures
        .iter()
        .filter(|f| {
            let after_stop = run.stop_line.is_some_and(|s| f.first_line > s);
            !after_stop && survived(run, f.last_line).is_none()
        })
        .collect();

    if let Some(cut) = &run.cut_traceback {
        result.notices.push(cut_notice(source, cut));
    }

    let root = select_root(rules, &active);
    if let Some((root, confirmed)) = root {
        let rule = rules.rule(root.rule);
        let died = run.last_terminal.is_some_and(|t| t >= root.line);
        let mut lines = root.evidence.clone();
        if let Some(symptom) = confirmed {
            lines.push(EvidenceLine {
                line: symptom.line,
                text: symptom.text.clone(),
            });
        }
        let corroborating = active
            .iter()
            .filter(|f| matches!(f.role, Role::Cause | Role::Confirm))
            .filter(|f| !std::ptr::eq(**f, root) && rules.rule(f.rule).category == rule.category)
            .filter(|f| !lines.iter().any(|l| l.line == f.line))
            .take(MAX_CORROBORATING);
        let corroborating: Vec<_> = corroborating
            .map(|f| EvidenceLine {
                line: f.line,
                text: f.text.clone(),
            })
            .collect();
        lines.extend(corroborating);
        result.root_cause = Some(RootCause {
            rule: Some(rule.id.clone()),
            category: rule
                .category
                .clone()
                .unwrap_or_else(|| category::UNKNOWN.to_string()),
            title: root.title.clone(),
            confidence: if died {
                Confidence::High
            } else {
                Confidence::Medium
            },
            hint: rule.hint.clone(),
            evidence: evidence(&lines),
            identified: true,
        });
        result.outcome = Outcome::Crash;
        let label = format!("{} (line {})", rule.id, root.line);
        let in_evidence = |f: &Finding| lines.iter().any(|l| l.line == f.line);
        for f in active
            .iter()
            .filter(|f| !std::ptr::eq(**f, root) && !in_evidence(f))
        {
            result.symptoms.push(symptom(rules, f, &label));
        }
        return result;
    }

    if let Some(stop) = run.stop_line {
        result.outcome = Outcome::Stopped;
        for f in &active {
            let why = format!("a consequence of the orderly stop seen at line {stop}");
            result.benign.push(benign(rules, f, why));
        }
        return result;
    }

    // Fallback: the earliest unexplained symptom or unrecognised failure.
    let explained = |f: &Finding| {
        active.iter().any(|other| {
            !std::ptr::eq(*other, f) && rules.rule(other.rule).explains.contains(&f.rule)
        })
    };
    let symptom_candidate = active
        .iter()
        .copied()
        .find(|f| f.role == Role::Symptom && !explained(f));
    let failure_candidate = failures.first().copied();
    let use_failure = match (symptom_candidate, failure_candidate) {
        (Some(s), Some(f)) => f.first_line <= s.line,
        (None, Some(_)) => true,
        _ => false,
    };
    if use_failure {
        let failure = failure_candidate.expect("checked above");
        let hint = match &run.cut_traceback {
            Some(cut) if cut.first_line == failure.first_line => cut_hint(cut),
            _ => "No rule recognises this failure. Read the evidence lines (the first exception of a chain is the root); \
                  if it is a known problem, add a rule for it (rules/README.md)."
                .to_string(),
        };
        result.root_cause = Some(RootCause {
            rule: None,
            category: category::UNKNOWN.to_string(),
            title: failure.title.clone(),
            confidence: Confidence::Low,
            hint: Some(hint),
            evidence: evidence(&failure.evidence),
            identified: false,
        });
        result.outcome = Outcome::Crash;
        let label = format!("the failure at line {}", failure.first_line);
        for f in &active {
            result.symptoms.push(symptom(rules, f, &label));
        }
        return result;
    }
    if let Some(root) = symptom_candidate {
        let rule = rules.rule(root.rule);
        result.root_cause = Some(RootCause {
            rule: Some(rule.id.clone()),
            category: rule
                .category
                .clone()
                .unwrap_or_else(|| category::UNKNOWN.to_string()),
            title: root.title.clone(),
            confidence: Confidence::Low,
            hint: rule.hint.clone().or_else(|| rule.why.clone()),
            evidence: evidence(&root.evidence),
            identified: false,
        });
        result.outcome = Outcome::Crash;
        let label = format!("{} (line {})", rule.id, root.line);
        for f in active.iter().filter(|f| !std::ptr::eq(**f, root)) {
            result.symptoms.push(symptom(rules, f, &label));
        }
        return result;
    }

    result.outcome = if run.ready_line.is_some() || run.serving {
        Outcome::Healthy
    } else if run.ended {
        Outcome::Stopped
    } else if run.max_stage.is_some() || run.last_progress.is_some() {
        Outcome::Starting
    } else {
        Outcome::Unknown
    };
    result
}

/// The root cause among active findings: the earliest cause, or confirm
/// whose symptom is present; with the confirmed symptom, if any.
fn select_root<'f>(
    rules: &RuleSet,
    active: &[&'f Finding],
) -> Option<(&'f Finding, Option<&'f Finding>)> {
    let mut best: Option<(&Finding, Option<&Finding>)> = None;
    for f in active {
        let candidate = match f.role {
            Role::Cause => Some((*f, None)),
            Role::Confirm => {
                let confirms = &rules.rule(f.rule).confirms;
                active
                    .iter()
                    .find(|s| {
                        confirms.contains(&s.rule)
                            && (s.pid.is_none() || f.pid.is_none() || s.pid == f.pid)
                    })
                    .map(|s| (*f, Some(*s)))
            }
            _ => None,
        };
        let Some(candidate) = candidate else { continue };
        let better = match best {
            None => true,
            Some((b, _)) => {
                (f.line, -rules.rule(f.rule).priority) < (b.line, -rules.rule(b.rule).priority)
            }
        };
        if better {
            best = Some(candidate);
        }
    }
    best
}

fn symptom(rules: &RuleSet, f: &Finding, explained_by: &str) -> Symptom {
    let rule = rules.rule(f.rule);
    let why = match (&rule.why, rule.role) {
        (Some(why), _) => format!("{why}; explained by {explained_by}"),
        (None, Role::Cause) => format!("a later failure; explained by {explained_by}"),
        (None, _) => format!("explained by {explained_by}"),
    };
    Symptom {
        rule: rule.id.clone(),
        category: rule
            .category
            .clone()
            .unwrap_or_else(|| category::UNKNOWN.to_string()),
        line: f.line,
        text: f.text.clone(),
        why,
    }
}

fn benign(rules: &RuleSet, f: &Finding, why: String) -> Benign {
    Benign {
        rule: rules.rule(f.rule).id.clone(),
        line: f.line,
        text: f.text.clone(),
        why,
    }
}

fn cut_notice(source: &str, cut: &super::run::CutTraceback) -> String {
    format!(
        "the input ends inside a traceback (lines {}–{}) before its exception line: the error itself is missing. {}",
        cut.first_line,
        cut.last_line,
        fetch_more(source, cut)
    )
}

fn cut_hint(cut: &super::run::CutTraceback) -> String {
    let suspect = match &cut.innermost {
        Some(place) => {
            let package = place.split('/').next().unwrap_or(place);
            format!("Suspect: {package} (the innermost frame seen is {place}). ")
        }
        None => String::new(),
    };
    format!("{suspect}The exception line that names the error is missing: fetch more of the log (see the notice).")
}

fn fetch_more(source: &str, cut: &super::run::CutTraceback) -> String {
    match (cut.pid, cut.identifier.as_deref()) {
        (Some(pid), Some(_)) => format!(
            "Fetch the lines that follow from the journal: `journalctl _PID={pid} --no-pager | grep -A 80 Traceback`, or rerun your `journalctl … | tail` with a larger -n."
        ),
        _ if source == "-" => "Feed logdiag more of the log: the lines after the last one it read.".to_string(),
        _ => format!("Read the lines after line {} of {source} (the file may have been cut or is still being written).", cut.last_line),
    }
}
