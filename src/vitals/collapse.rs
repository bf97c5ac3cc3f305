//! A collapse: generation speed per running request fell below a share of
//! what the same server did before, at comparable load.
//!
//! Speed per request is what a user of the server sees, and it falls
//! naturally as more requests share the GPUs: 8 requests at 28 tok/s each
//! is as healthy as 1024 at 3.6 each. So when the later stretch ran more
//! requests than the earlier one, the earlier one's speed per request is
//! scaled down by the load ratio (what perfect batching would keep, the
//! total), and only a fall below that counts. A stretch with less load is
//! compared as it is: fewer requests never make each one slower.

use super::recorder::Sample;
use super::summary::median;

/// Fewest lines that measured speed for a run to be judged (a slow server
/// writes few: 40 decode steps at 0.2 tok/s each take minutes).
pub const MIN_LINES: usize = 3;
/// Within one run, the last stretch judged is this share of its lines…
const WINDOWS_PER_RUN: usize = 8;
/// …and at least this many lines.
const MIN_WINDOW_LINES: usize = 3;

/// A stretch of a run, by the medians of its lines.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Level {
    /// Median generated tokens per second per running request.
    pub per_request: f64,
    /// Median generated tokens per second.
    pub generation: f64,
    /// Median requests running.
    pub running: f64,
    /// Its first line.
    pub first_line: u64,
    /// Its last line.
    pub last_line: u64,
}

/// The level of `samples`, or `None` when they are too few to judge.
pub fn level(samples: &[Sample]) -> Option<Level> {
    level_of_at_least(samples, MIN_LINES)
}

fn level_of_at_least(samples: &[Sample], fewest: usize) -> Option<Level> {
    if samples.len() < fewest {
        return None;
    }
    let per_request = median(samples.iter().map(Sample::per_request).collect())?;
    Some(Level {
        per_request,
        generation: median(samples.iter().map(|s| s.generation).collect())?,
        running: median(samples.iter().map(|s| s.running as f64).collect())?,
        first_line: samples.first()?.line,
        last_line: samples.last()?.line,
    })
}

/// How much of `before`'s speed `after` kept, at comparable load (see the
/// module's doc): 1 kept all, 0.06 kept 6%.
pub fn kept(before: &Level, after: &Level) -> Option<f64> {
    if before.per_request <= 0.0 || before.running <= 0.0 {
        return None;
    }
    let load = after.running / before.running;
    Some(after.per_request / before.per_request * load.max(1.0))
}

/// A collapse within one run: its last stretch against the earlier
/// stretch it fell furthest from, when it kept less than `below` of it.
/// Returns `(before, after)`.
pub fn within(samples: &[Sample], below: f64) -> Option<(Level, Level)> {
    let window = (samples.len() / WINDOWS_PER_RUN).max(MIN_WINDOW_LINES);
    let earlier_end = samples.len().checked_sub(window)?;
    let after = level_of_at_least(&samples[earlier_end..], MIN_WINDOW_LINES)?;
    samples[..earlier_end]
        .chunks(window)
        .filter_map(|chunk| level_of_at_least(chunk, MIN_WINDOW_LINES))
        .filter_map(|before| Some((kept(&before, &after)?, before)))
        .filter(|(kept, _)| *kept < below)
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, before)| (before, after))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stretch(first_line: u64, lines: usize, running: u64, generation: f64) -> Vec<Sample> {
        (0..lines as u64).map(|i| Sample { line: first_line + i, at: None, generation, running }).collect()
    }

    fn kept_between(a: &[Sample], b: &[Sample]) -> f64 {
        kept(&level(a).unwrap(), &level(b).unwrap()).unwrap()
    }

    #[test]
    fn less_or_more_load_is_not_a_collapse() {
        let busy = stretch(1, 10, 1024, 3686.0);
        let light = stretch(100, 10, 8, 224.0);
        // 8 requests at 28 tok/s each, after 1024 at 3.6 each, and back.
        assert!(kept_between(&busy, &light) > 1.0);
        assert!(kept_between(&light, &busy) > 1.0);
        // Twice the load at the same total: each request at half speed.
        assert!(
            (kept_between(&stretch(1, 10, 512, 2000.0), &stretch(100, 10, 1024, 2000.0)) - 1.0).abs() < 1e-9
        );
    }

    #[test]
    fn the_same_load_at_a_fifteenth_of_the_speed_is() {
        let before = stretch(1, 27, 1024, 3740.0);
        let after = stretch(100, 27, 1024, 236.0);
        assert!(kept_between(&before, &after) < 0.07);
        // Fewer requests, each slower: a collapse too.
        assert!(kept_between(&before, &stretch(100, 10, 8, 8.0)) < 0.5);
    }

    #[test]
    fn a_run_that_slows_down_at_its_end() {
        let mut run = stretch(1, 40, 256, 2000.0);
        run.extend(stretch(41, 10, 600, 400.0));
        let (before, after) = within(&run, 0.5).expect("a collapse");
        assert_eq!((before.running, after.running), (256.0, 600.0));
        assert_eq!(after.last_line, 50);
        // Steady, or slower only for a stretch that ended: none.
        assert_eq!(within(&stretch(1, 50, 256, 2000.0), 0.5), None);
        let mut recovered = run.clone();
        recovered.extend(stretch(51, 20, 256, 2000.0));
        assert_eq!(within(&recovered, 0.5), None);
        assert_eq!(within(&stretch(1, 6, 256, 2000.0), 0.5), None);
    }
}
