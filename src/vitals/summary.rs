//! A run's vital signs summed up for the report (`runs[].vitals`).

use serde::Serialize;

use super::recorder::{Recorder, Sample};

/// Most points of a run's throughput series in the JSON report.
pub const MAX_SERIES_POINTS: usize = 100;

/// What a run's progress lines say about its work.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Vitals {
    /// Progress lines read.
    pub progress_lines: u64,
    /// From the first progress line to the last.
    pub active: Active,
    /// Generated tokens per second, over the lines written while requests
    /// ran (leaving out the first line after an idle gap, whose average
    /// reaches back over it).
    pub generation_tok_s: Option<Spread>,
    /// The same, per running request: what a user of the server sees.
    pub tok_s_per_request: Option<Spread>,
    /// Requests running, over the same lines.
    pub running: Option<Running>,
    /// Highest share of the KV cache (token pool) in use, 0 to 1.
    pub max_kv_usage: Option<f64>,
    /// Requests waiting.
    pub queue: Option<Queue>,
    /// Share of decode lines that did not run as a CUDA graph (when they
    /// say).
    pub cuda_graph_off: Option<f64>,
    /// Requests pushed out of the KV cache (sglang `Retract requests`, vLLM
    /// preemptions).
    pub preemptions: u64,
    /// The same per minute of the active period, when its length is known.
    pub preemptions_per_minute: Option<f64>,
    /// Generation speed over the run, in line order (at most
    /// [`MAX_SERIES_POINTS`] points, each the mean of consecutive lines).
    pub series: Vec<Point>,
}

/// The active period.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Active {
    /// First progress line (stream line number in the engine; the report
    /// shows line numbers of the source).
    pub first_line: u64,
    /// Last progress line.
    pub last_line: u64,
    /// Seconds between them, by the log's stamps.
    pub seconds: Option<f64>,
}

/// A measure's spread over the lines.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Spread {
    /// Median.
    pub median: f64,
    /// Mean: for lines that each cover the same time (vLLM's), the rate
    /// over the whole stretch.
    pub mean: f64,
    /// 10th percentile: the slow end.
    pub p10: f64,
    /// Highest.
    pub max: f64,
}

/// Requests running.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Running {
    /// Median over the lines that measured speed.
    pub median: f64,
    /// Most, over all progress lines.
    pub max: u64,
}

/// Requests waiting.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Queue {
    /// Longest.
    pub max: u64,
    /// It was at its longest at the run's last progress line, and longer
    /// than at its first: work was piling up.
    pub grew: bool,
}

/// One point of the series.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Point {
    /// The first line it stands for.
    pub line: u64,
    /// Seconds since the run's first progress line, when the log says.
    pub seconds: Option<f64>,
    /// Mean generated tokens per second.
    pub tok_s: f64,
    /// Mean requests running.
    pub running: f64,
}

/// The `q` quantile (0 to 1) of sorted values, interpolated between ranks.
pub(super) fn quantile(sorted: &[f64], q: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let rank = q.clamp(0.0, 1.0) * last as f64;
    let (low, high) = (rank.floor() as usize, rank.ceil() as usize);
    Some(sorted[low] + (sorted[high] - sorted[low]) * (rank - low as f64))
}

/// The median of `values` (sorted here).
pub fn median(mut values: Vec<f64>) -> Option<f64> {
    values.sort_by(f64::total_cmp);
    quantile(&values, 0.5)
}

fn spread(mut values: Vec<f64>) -> Option<Spread> {
    values.sort_by(f64::total_cmp);
    let mean = values.iter().sum::<f64>() / values.len().max(1) as f64;
    Some(Spread {
        median: round(quantile(&values, 0.5)?),
        mean: round(mean),
        p10: round(quantile(&values, 0.1)?),
        max: round(*values.last()?),
    })
}

/// Three decimals: more than any log prints.
pub fn round(value: f64) -> f64 {
    (value * 1000.0).round() / 1000.0
}

impl Recorder {
    /// The run's vitals; `None` when it wrote no progress line.
    pub fn summary(&self) -> Option<Vitals> {
        let (first, last) = (self.first?, self.latest()?.moment);
        let samples = self.samples();
        let (first_at, last_at) = self.active_period();
        let seconds = match (first_at, last_at) {
            (Some(first), Some(last)) => last.since(first).filter(|s| *s >= 0.0),
            _ => None,
        };
        let per_minute = |count: u64| seconds.filter(|s| *s > 0.0).map(|s| count as f64 * 60.0 / s);
        let queue = self.max_queue.map(|max| {
            let last = self.latest().and_then(|l| l.figures()).and_then(|f| f.queued).unwrap_or(0);
            Queue { max, grew: last > 0 && last >= max && last > self.first_queue.unwrap_or(0) }
        });
        Some(Vitals {
            progress_lines: self.lines,
            active: Active { first_line: first.line, last_line: last.line, seconds },
            generation_tok_s: spread(samples.iter().map(|s| s.generation).collect()),
            tok_s_per_request: spread(samples.iter().map(Sample::per_request).collect()),
            running: median(samples.iter().map(|s| s.running as f64).collect())
                .map(|median| Running { median: round(median), max: self.max_running.unwrap_or(0) }),
            max_kv_usage: self.max_usage.map(round),
            queue,
            cuda_graph_off: (self.graph_lines > 0)
                .then(|| round(self.graph_off as f64 / self.graph_lines as f64)),
            preemptions: self.preemptions,
            preemptions_per_minute: per_minute(self.preemptions).map(round),
            series: self.series(first_at),
        })
    }

    fn series(&self, first_at: Option<crate::vitals::clock::Stamp>) -> Vec<Point> {
        let samples = self.samples();
        let per_point = samples.len().div_ceil(MAX_SERIES_POINTS).max(1);
        samples
            .chunks(per_point)
            .map(|chunk| {
                let n = chunk.len() as f64;
                Point {
                    line: chunk[0].line,
                    seconds: match (chunk[0].at, first_at) {
                        (Some(at), Some(first)) => at.since(first),
                        _ => None,
                    },
                    tok_s: round(chunk.iter().map(|s| s.generation).sum::<f64>() / n),
                    running: round(chunk.iter().map(|s| s.running as f64).sum::<f64>() / n),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_interpolate_between_ranks() {
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0], 0.5), Some(2.5));
        assert_eq!(quantile(&[5.0], 0.1), Some(5.0));
        assert_eq!(quantile(&[], 0.5), None);
        assert_eq!(median(vec![3.0, 1.0, 2.0]), Some(2.0));
    }
}
