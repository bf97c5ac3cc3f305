//! What a run's progress lines said, kept in bounded memory while the log
//! is read: counts, extremes, and an evenly thinned sample of the lines
//! that measure generation speed (for medians and the series).

use super::clock::Stamp;
use super::progress::{Figures, ProgressKind};

/// Most samples kept per run: beyond it, every other one is dropped and
/// only every 2nd, 4th, … later line is taken, so the sample stays spread
/// evenly over the whole run.
const MAX_SAMPLES: usize = 2048;
/// Most example lines kept per run (thinned the same way).
const MAX_EXEMPLARS: usize = 32;

/// One line that measured generation speed while requests ran.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// Its stream line number.
    pub line: u64,
    /// When it was written, if the line says.
    pub at: Option<Stamp>,
    /// Generated tokens per second.
    pub generation: f64,
    /// Requests running.
    pub running: u64,
}

impl Sample {
    /// Tokens per second per running request.
    pub fn per_request(&self) -> f64 {
        self.generation / self.running.max(1) as f64
    }
}

/// A progress line kept whole, to show as evidence.
#[derive(Debug, Clone, PartialEq)]
pub struct Exemplar {
    /// Its stream line number.
    pub line: u64,
    /// The line as printed (its start, for an absurdly long one).
    pub text: String,
    /// Its tokens per second per running request.
    pub per_request: f64,
}

/// A progress line's place and time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Moment {
    /// Its stream line number.
    pub line: u64,
    /// When it was written, if the line says.
    pub at: Option<Stamp>,
}

/// Keeps every [`Self::stride`]th offered item, at most `cap` of them.
#[derive(Debug, Clone)]
struct Thinned<T> {
    items: Vec<T>,
    cap: usize,
    stride: u64,
    offered: u64,
}

impl<T> Thinned<T> {
    fn new(cap: usize) -> Self {
        Thinned { items: Vec::new(), cap, stride: 1, offered: 0 }
    }

    /// Offers the next item; `make` builds it only when it is kept.
    fn offer(&mut self, make: impl FnOnce() -> T) {
        let keep = self.offered % self.stride == 0;
        self.offered += 1;
        if !keep {
            return;
        }
        if self.items.len() == self.cap {
            let mut index = 0;
            self.items.retain(|_| {
                index += 1;
                index % 2 == 1
            });
            self.stride *= 2;
            // The offered item counts as the first of the new stride only
            // if it falls on it.
            if (self.offered - 1) % self.stride != 0 {
                return;
            }
        }
        self.items.push(make());
    }
}

/// The vital signs of one run, as read so far.
#[derive(Debug, Clone)]
pub struct Recorder {
    /// Progress lines read.
    pub lines: u64,
    /// The first progress line.
    pub first: Option<Moment>,
    /// The last progress line.
    pub last: Option<Moment>,
    /// The last progress line showed requests running or waiting.
    pub last_pending: bool,
    /// The earliest and latest stamps of progress lines.
    pub first_at: Option<Stamp>,
    /// See [`Self::first_at`].
    pub last_at: Option<Stamp>,
    samples: Thinned<Sample>,
    exemplars: Thinned<Exemplar>,
    /// Nothing ran at some point since the last line that measured speed
    /// (a line said no request was running), or no such line came yet: the
    /// next one's average reaches back over idle time. (A long pause
    /// between lines that both count running requests is not idle: a slow
    /// server writes its batch lines far apart.)
    idle_since_sample: bool,
    /// Highest generation speed of a line with requests running.
    pub max_generation: Option<f64>,
    /// Most requests running.
    pub max_running: Option<u64>,
    /// Highest share of the KV cache in use.
    pub max_usage: Option<f64>,
    /// Longest queue, and the queue of the first and last lines that said.
    pub max_queue: Option<u64>,
    /// See [`Self::max_queue`].
    pub first_queue: Option<u64>,
    /// See [`Self::max_queue`].
    pub last_queue: Option<u64>,
    /// Decode lines that said whether they ran as a CUDA graph.
    pub graph_lines: u64,
    /// Of those, the ones that did not.
    pub graph_off: u64,
    /// Requests pushed out of the KV cache (sglang retractions, vLLM
    /// preemptions).
    pub preemptions: u64,
}

impl Default for Recorder {
    fn default() -> Self {
        Recorder {
            lines: 0,
            first: None,
            last: None,
            last_pending: false,
            first_at: None,
            last_at: None,
            samples: Thinned::new(MAX_SAMPLES),
            exemplars: Thinned::new(MAX_EXEMPLARS),
            idle_since_sample: true,
            max_generation: None,
            max_running: None,
            max_usage: None,
            max_queue: None,
            first_queue: None,
            last_queue: None,
            graph_lines: 0,
            graph_off: 0,
            preemptions: 0,
        }
    }
}

impl Recorder {
    /// Records progress line `line` (its text, for evidence) with its
    /// figures and stamp.
    pub fn record(&mut self, figures: &Figures, line: u64, at: Option<Stamp>, text: &str) {
        self.lines += 1;
        let moment = Moment { line, at };
        self.first.get_or_insert(moment);
        self.last = Some(moment);
        self.last_pending = figures.work_pending();
        if let Some(at) = at {
            self.first_at.get_or_insert(at);
            self.last_at = Some(at);
        }
        let max = |kept: &mut Option<f64>, value: Option<f64>| {
            if let Some(v) = value {
                *kept = Some(kept.map_or(v, |k| k.max(v)));
            }
        };
        max(&mut self.max_usage, figures.usage);
        if let Some(queued) = figures.queued {
            self.max_queue = Some(self.max_queue.map_or(queued, |q| q.max(queued)));
            self.first_queue.get_or_insert(queued);
            self.last_queue = Some(queued);
        }
        if let Some(running) = figures.running {
            self.max_running = Some(self.max_running.map_or(running, |r| r.max(running)));
        }
        if figures.kind == ProgressKind::Decode {
            if let Some(graph) = figures.graph {
                self.graph_lines += 1;
                self.graph_off += u64::from(!graph);
            }
        }
        let running = figures.running.unwrap_or(0);
        if running == 0 {
            self.idle_since_sample = true;
            return;
        }
        let Some(generation) = figures.generation.filter(|_| figures.kind != ProgressKind::Prefill) else {
            return;
        };
        if std::mem::take(&mut self.idle_since_sample) {
            // Its average reaches back over the idle time.
            return;
        }
        max(&mut self.max_generation, Some(generation));
        let sample = Sample { line, at, generation, running };
        self.samples.offer(|| sample);
        self.exemplars.offer(|| Exemplar {
            line,
            text: start_of(text).to_string(),
            per_request: sample.per_request(),
        });
    }

    /// Counts a request pushed out of the KV cache.
    pub fn note_preemption(&mut self) {
        self.preemptions += 1;
    }

    /// The lines that measured generation speed while requests ran, in
    /// line order (all of them, or an even sample of a long run).
    pub fn samples(&self) -> &[Sample] {
        &self.samples.items
    }

    /// Example lines, in line order, evenly spread like the samples.
    pub fn exemplars(&self) -> &[Exemplar] {
        &self.exemplars.items
    }

    /// The example line of lines `first..=last` whose speed per request is
    /// nearest `per_request` (or of the whole run when none is in range).
    pub fn exemplar_near(&self, first: u64, last: u64, per_request: f64) -> Option<&Exemplar> {
        let distance = |e: &&Exemplar| (e.per_request - per_request).abs();
        let in_range = self.exemplars().iter().filter(|e| (first..=last).contains(&e.line));
        in_range
            .min_by(|a, b| distance(a).total_cmp(&distance(b)))
            .or_else(|| self.exemplars().iter().min_by(|a, b| distance(a).total_cmp(&distance(b))))
    }
}

/// Most of a line kept as an example: a progress line is short.
const MAX_EXEMPLAR_BYTES: usize = 1024;

fn start_of(text: &str) -> &str {
    let mut end = text.len().min(MAX_EXEMPLAR_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_run_is_sampled_evenly_in_bounded_memory() {
        let mut thinned = Thinned::new(8);
        for i in 0..1000u64 {
            thinned.offer(|| i);
        }
        assert!(thinned.items.len() <= 8);
        let steps: Vec<u64> = thinned.items.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(steps.iter().all(|&s| s == thinned.stride), "{:?} stride {}", thinned.items, thinned.stride);
        assert!(*thinned.items.last().unwrap() >= 1000 - thinned.stride);
    }
}
