//! Judging a run by its vitals: did it hang, did its speed collapse.
//!
//! The figures come from [`crate::vitals`]; this is where they meet the
//! run's other state (its last progress marker, its outcome, the runs of
//! the same unit before it) and become the report's `hang` and `degraded`.

use super::diagnosis::{Compared, Degraded, Evidence, Hang, Outcome, Run};
use super::place::{evidence_at, Places};
use super::run::{EvidenceLine, RunState};
use crate::vitals::collapse::{self, Level};
use crate::vitals::{round, Recorder};

/// What the collapse is measured in.
const METRIC: &str = "generation tok/s per running request";

/// How `run` hung: its last progress line that showed work advancing
/// left requests running or waiting, every progress line since still
/// showed them (vLLM writes its stats line on a timer, also when nothing
/// moves), nothing else showed progress after it, and the run's lines went
/// on for `hang_after` seconds or more (by the log's stamps). Lines of
/// other units do not count: an idle server prints nothing, and the last
/// batch line of a finished burst still counts the requests it was
/// finishing.
pub(super) fn hang(places: Places<'_>, run: &RunState, hang_after: f64) -> Option<Hang> {
    let recorder = run.vitals.as_deref()?;
    let advance = recorder.last_advance()?;
    let line = advance.moment.line;
    if !recorder.stuck_with_work() || run.last_plain_progress.is_some_and(|p| p > line) {
        return None;
    }
    // Progress that systemd saw after the process ended is not its own.
    if run.own_progress().is_some_and(|p| p < line) {
        return None;
    }
    let silent = run.last_seen()?.since(advance.moment.at()?)?;
    if silent < hang_after {
        return None;
    }
    let kept = EvidenceLine::new(line, &advance.text);
    let figures = advance.figures()?;
    Some(Hang {
        last_progress: evidence_at(places, line, &kept),
        running: figures.running,
        queued: figures.queued,
        silent_seconds: silent.round() as u64,
        last_line: places.locate(run.last_line).1,
    })
}

/// Marks the runs of one unit whose speed collapsed (`judged[i]` is the
/// judgement of `states[i]`, in order): against the best earlier run that
/// was healthy or stopped and did not collapse itself, or else within the
/// run, its last stretch against an earlier one. A healthy run that
/// collapsed takes the outcome `degraded`.
pub(super) fn judge_collapses(places: Places<'_>, states: &[RunState], judged: &mut [Run], below: f64) {
    for i in 0..states.len().min(judged.len()) {
        let Some(recorder) = states[i].vitals.as_deref() else { continue };
        let Some(after) = collapse::level(recorder.samples()) else { continue };
        let earlier = (0..i)
            .filter(|&j| matches!(judged[j].outcome, Outcome::Healthy | Outcome::Stopped))
            .filter(|&j| judged[j].degraded.is_none())
            .filter_map(|j| {
                let before = collapse::level(states[j].vitals.as_deref()?.samples())?;
                Some((collapse::kept(&before, &after)?, j, before))
            })
            .filter(|(kept, _, _)| *kept < below)
            .min_by(|a, b| a.0.total_cmp(&b.0));
        let degraded = match earlier {
            Some((_, j, before)) => {
                let changed_args = match (states[i].args.as_deref(), states[j].args.as_deref()) {
                    (Some(now), Some(then)) => now.changes_since(then),
                    _ => Vec::new(),
                };
                let from = states[j].vitals.as_deref().expect("compared runs have vitals");
                let mut degraded = described(places, (&before, from), (&after, recorder), changed_args);
                degraded.vs_stream_line = states[j].first_line;
                degraded
            }
            None => {
                let Some((before, after)) = collapse::within(recorder.samples(), below) else { continue };
                let mut degraded = described(places, (&before, recorder), (&after, recorder), Vec::new());
                degraded.vs_stream_line = states[i].first_line;
                degraded
            }
        };
        judged[i].degraded = Some(degraded);
        if judged[i].outcome == Outcome::Healthy {
            judged[i].outcome = Outcome::Degraded;
        }
    }
}

fn described(
    places: Places<'_>,
    (before, from): (&Level, &Recorder),
    (after, now): (&Level, &Recorder),
    changed_args: Vec<crate::vitals::args::ChangedArg>,
) -> Degraded {
    let example = |level: &Level, recorder: &Recorder| -> Option<Evidence> {
        let e = recorder.exemplar_near(level.first_line, level.last_line, level.per_request)?;
        Some(evidence_at(places, e.line, &EvidenceLine::new(e.line, &e.text)))
    };
    Degraded {
        metric: METRIC.to_string(),
        before: round(before.per_request),
        after: round(after.per_request),
        change: round(after.per_request / before.per_request - 1.0),
        vs_run: None,
        running: Compared { before: round(before.running), after: round(after.running) },
        generation_tok_s: Compared { before: round(before.generation), after: round(after.generation) },
        evidence: [example(before, from), example(after, now)].into_iter().flatten().collect(),
        changed_args,
        vs_stream_line: 0,
    }
}
