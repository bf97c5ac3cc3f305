//! What a run's progress lines said, kept in bounded memory and little
//! time while the log is read: counts, extremes, and an evenly spaced
//! sample of the lines that measure generation speed (for medians and the
//! series).
//!
//! Progress lines are the bulk of a serving log (an sglang server writes a
//! batch line every 40 decode steps of every data-parallel rank, a million
//! lines in a few weeks), so a batch line is read in full only when it is
//! sampled: every line up to [`MAX_SAMPLES`] sampled lines, then every
//! 2nd, 4th, … line, the sample thinned to match. The extremes, the queue
//! and the CUDA graph share are those of the lines read; the last line is
//! always read. vLLM's stats lines (one every few seconds) are all read.

use super::clock::{PrintedStamp, Stamp};
use super::progress::{figures, Figures, ProgressKind};

/// Most samples kept per run: beyond it, every other one is dropped and
/// only every 2nd, 4th, … later line is read, so the sample stays spread
/// evenly over the whole run.
pub(super) const MAX_SAMPLES: usize = 2048;
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
    /// Its stamp as printed.
    pub stamp: PrintedStamp,
}

impl Moment {
    /// When it was written, if the line says.
    pub fn at(&self) -> Option<Stamp> {
        self.stamp.stamp()
    }
}

/// A progress line kept whole: its place and text, and its figures once
/// read.
#[derive(Debug, Clone, PartialEq)]
pub struct KeptLine {
    /// Where and when.
    pub moment: Moment,
    /// The line as printed (its start, for an absurdly long one).
    pub text: String,
    /// Where its message starts in `text`.
    message_at: usize,
    /// Which progress line.
    kind: ProgressKind,
    /// What it said, when it was read.
    read: Option<Figures>,
}

impl KeptLine {
    fn overwrite(&mut self, line: &Line<'_>, read: Option<Figures>) {
        self.moment.line = line.line;
        self.moment.stamp.set(line.time.unwrap_or(""));
        self.text.clear();
        self.text.push_str(start_of(line.text));
        self.message_at = line.message_at;
        self.kind = line.kind;
        self.read = read;
    }

    /// What it said (read now if it was not).
    pub fn figures(&self) -> Option<Figures> {
        self.read.or_else(|| figures(self.text.get(self.message_at..)?))
    }
}

/// A progress line as the engine hands it over.
#[derive(Debug, Clone, Copy)]
pub struct Line<'a> {
    /// Which progress line its message opens like.
    pub kind: ProgressKind,
    /// Its stream line number.
    pub line: u64,
    /// Its stamp as printed.
    pub time: Option<&'a str>,
    /// The line as printed.
    pub text: &'a str,
    /// Where its message starts in `text`.
    pub message_at: usize,
}

impl Line<'_> {
    fn figures(&self) -> Option<Figures> {
        figures(self.text.get(self.message_at..)?)
    }

    fn moment(&self) -> Moment {
        Moment { line: self.line, stamp: PrintedStamp::of(self.time) }
    }
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
            halve(&mut self.items);
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

/// Keeps every other item, the first included.
fn halve<T>(items: &mut Vec<T>) {
    let mut index = 0;
    items.retain(|_| {
        index += 1;
        index % 2 == 1
    });
}

/// The vital signs of one run, as read so far.
#[derive(Debug, Clone)]
pub struct Recorder {
    /// Progress lines seen.
    pub lines: u64,
    /// The first progress line.
    pub first: Option<Moment>,
    /// The last progress line.
    latest: Option<KeptLine>,
    /// The last progress line that showed work advancing, when it is not
    /// the latest (a vLLM stats line counts requests that generate
    /// nothing).
    earlier_advance: Option<KeptLine>,
    latest_advances: bool,
    /// Every line since the last that advanced (the lines that did not
    /// advance, all read) showed requests running or waiting.
    pending_since_advance: bool,
    /// A line that measures generation speed was read.
    measured: bool,
    /// Read every `stride`th line: 1 until the sample is full, then 2, 4, …
    stride: u64,
    /// Lines to skip before the next one read.
    until_read: u64,
    samples: Vec<Sample>,
    exemplars: Thinned<Exemplar>,
    /// Most requests running on a line read.
    pub max_running: Option<u64>,
    /// Highest share of the KV cache in use on a line read.
    pub max_usage: Option<f64>,
    /// Longest queue on a line read, and the queue of the first line.
    pub max_queue: Option<u64>,
    /// See [`Self::max_queue`].
    pub first_queue: Option<u64>,
    /// Decode lines read that said whether they ran as a CUDA graph.
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
            latest: None,
            earlier_advance: None,
            latest_advances: false,
            pending_since_advance: false,
            measured: false,
            stride: 1,
            until_read: 0,
            samples: Vec::new(),
            exemplars: Thinned::new(MAX_EXEMPLARS),
            max_running: None,
            max_usage: None,
            max_queue: None,
            first_queue: None,
            graph_lines: 0,
            graph_off: 0,
            preemptions: 0,
        }
    }
}

impl Recorder {
    /// Records a progress line.
    pub fn record(&mut self, line: Line<'_>) {
        self.lines += 1;
        if self.first.is_none() {
            self.first = Some(line.moment());
        }
        let due = self.until_read == 0;
        self.until_read = if due { self.stride - 1 } else { self.until_read - 1 };
        let read = if due || line.kind == ProgressKind::Stats { line.figures() } else { None };
        if let Some(figures) = read.filter(|_| due) {
            // The first line of a run that measures speed averages over
            // the time since the server started; a line after one that
            // said nothing ran, over idle time.
            let first = !self.measured;
            self.measured |= figures.generation.is_some() && figures.kind != ProgressKind::Prefill;
            let after_idle = first
                || self
                    .latest
                    .as_ref()
                    .is_none_or(|before| before.figures().is_none_or(|f| f.running.unwrap_or(0) == 0));
            self.tally(&figures, &line, after_idle);
        }
        self.keep_latest(&line, read);
    }

    /// Adds a line read to the extremes and the sample.
    fn tally(&mut self, figures: &Figures, line: &Line<'_>, after_idle: bool) {
        let max = |kept: &mut Option<f64>, value: Option<f64>| {
            if let Some(v) = value {
                *kept = Some(kept.map_or(v, |k| k.max(v)));
            }
        };
        max(&mut self.max_usage, figures.usage);
        if let Some(queued) = figures.queued {
            self.max_queue = Some(self.max_queue.map_or(queued, |q| q.max(queued)));
            self.first_queue.get_or_insert(queued);
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
        let generation = figures.generation.filter(|_| figures.kind != ProgressKind::Prefill);
        let Some(generation) = generation.filter(|_| running > 0 && !after_idle) else { return };
        if self.samples.len() == MAX_SAMPLES {
            halve(&mut self.samples);
            self.stride *= 2;
            self.until_read = self.stride - 1;
        }
        let sample =
            Sample { line: line.line, at: line.time.and_then(super::clock::parse), generation, running };
        self.samples.push(sample);
        self.exemplars.offer(|| Exemplar {
            line: line.line,
            text: start_of(line.text).to_string(),
            per_request: sample.per_request(),
        });
    }

    /// Keeps the line as the latest, and the latest that advanced until
    /// one replaces it (each line is copied once: the buffers swap).
    fn keep_latest(&mut self, line: &Line<'_>, read: Option<Figures>) {
        let advances = match line.kind {
            ProgressKind::Prefill | ProgressKind::Decode => true,
            ProgressKind::Stats => read.is_some_and(|f| f.advances()),
        };
        if !advances {
            // Lines that do not advance are stats lines: all read.
            let pending = read.is_some_and(|f| f.work_pending());
            let before = match (&self.latest, self.latest_advances) {
                (Some(advance), true) => advance.figures().is_some_and(|f| f.work_pending()),
                _ => self.pending_since_advance,
            };
            self.pending_since_advance = pending && before;
            if self.latest_advances {
                std::mem::swap(&mut self.latest, &mut self.earlier_advance);
            }
        }
        match self.latest.as_mut() {
            Some(kept) => kept.overwrite(line, read),
            None => {
                let mut kept = KeptLine {
                    moment: line.moment(),
                    text: String::new(),
                    message_at: 0,
                    kind: line.kind,
                    read: None,
                };
                kept.overwrite(line, read);
                self.latest = Some(kept);
            }
        }
        self.latest_advances = advances;
    }

    /// The last progress line.
    pub fn latest(&self) -> Option<&KeptLine> {
        self.latest.as_ref()
    }

    /// The last progress line that showed work advancing.
    pub fn last_advance(&self) -> Option<&KeptLine> {
        if self.latest_advances {
            self.latest.as_ref()
        } else {
            self.earlier_advance.as_ref()
        }
    }

    /// The stamps of the first and the last progress lines.
    pub fn active_period(&self) -> (Option<Stamp>, Option<Stamp>) {
        (self.first.and_then(|m| m.at()), self.latest().and_then(|l| l.moment.at()))
    }

    /// Work was pending at the last line that advanced and at every
    /// progress line since: if no more come, the server is stuck on it.
    pub fn stuck_with_work(&self) -> bool {
        let Some(advance) = self.last_advance() else { return false };
        if self.latest_advances {
            advance.figures().is_some_and(|f| f.work_pending())
        } else {
            self.pending_since_advance
        }
    }

    /// Counts a request pushed out of the KV cache.
    pub fn note_preemption(&mut self) {
        self.preemptions += 1;
    }

    /// The lines that measured generation speed while requests ran, in
    /// line order (all of them, or an even sample of a long run).
    pub fn samples(&self) -> &[Sample] {
        &self.samples
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
