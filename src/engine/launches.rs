//! Which launch of a unit decides its verdict: the current one.
//!
//! A log that holds several launches of one program (an appended server
//! log, a journal across restarts) tells the truth about the latest one
//! that has decided anything: it crashed, hung, collapsed, or proved
//! itself (ready, or ready and then stopped). Launches before it are
//! history: reported, each with its outcome, but they do not decide the
//! verdict. A launch still starting after a crash is a restart in
//! progress, not a recovery, so the crash stays current; so does a launch
//! stopped before it was ready. A launch whose lines overlap the current
//! one's (a `systemctl` error printed before the journal lines it
//! summarises) is not before it, and stays current too.

use super::diagnosis::{Outcome, Run};

/// Marks the runs of one unit (in input order) that are history.
pub(super) fn mark_history(runs: &mut [Run]) {
    let Some(current) = runs.iter().rposition(decides) else { return };
    let (earlier, rest) = runs.split_at_mut(current);
    let current = &rest[0];
    for run in earlier {
        let before = run.source != current.source || run.stream_last_line < current.stream_first_line;
        run.history = before;
    }
}

/// Whether a run has decided something about its launch: it crashed,
/// hung or collapsed, or it proved itself (ready, or ready and stopped).
fn decides(run: &Run) -> bool {
    match run.outcome {
        Outcome::Crash | Outcome::Hung | Outcome::Degraded | Outcome::Healthy => true,
        Outcome::Stopped => run.ready.is_some(),
        Outcome::Starting | Outcome::Unknown => false,
    }
}
