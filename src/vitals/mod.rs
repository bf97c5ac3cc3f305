//! Run vitals: what a server's own progress lines say about its work, and
//! what follows from them.
//!
//! Servers print their vital signs all the time: sglang's `Decode batch` /
//! `Prefill batch` lines, vLLM's periodic stats line, sglang's `Retract
//! requests` and vLLM's preemption warnings. This module owns
//!
//! - reading them ([`progress`]: the `key: value` list after the header)
//!   and the log's own time ([`clock`]);
//! - what a run's lines add up to ([`Recorder`], bounded memory), summed
//!   up for the report ([`Vitals`]);
//! - the launch arguments a server prints at start ([`args`]), to say what
//!   changed between two launches;
//! - the judgement of a collapse ([`collapse`]).
//!
//! The engine routes each progress line to its run's [`Recorder`] as the
//! pipeline hands it events, and asks this module to judge when it judges
//! the run; the report draws the result.

pub mod args;
pub mod clock;
pub mod collapse;
pub mod progress;
mod recorder;
mod summary;

pub use recorder::{Exemplar, KeptLine, Line, Moment, Recorder, Sample};
pub use summary::{median, round, Active, Point, Queue, Running, Spread, Vitals, MAX_SERIES_POINTS};

/// Whether `message` says requests were pushed out of the KV cache: sglang
/// `KV cache pool is full. Retract requests.` (2024: `Decode out of memory
/// happened. #retracted_reqs: …`), vLLM V0 `Sequence group N is preempted
/// by PreemptionMode.RECOMPUTE mode …` (or `SWAP`).
pub fn is_preemption(message: &str) -> bool {
    message.starts_with("KV cache pool is full. Retract requests.")
        || message.starts_with("Decode out of memory happened.")
        || (message.starts_with("Sequence group ") && message.contains(" is preempted by PreemptionMode."))
}

#[cfg(test)]
mod tests {
    use super::is_preemption;

    #[test]
    fn retractions_and_preemptions_of_every_release() {
        for message in [
            "KV cache pool is full. Retract requests. #retracted_reqs: 1, #new_token_ratio: 0.5907 -> 1.0000",
            "Decode out of memory happened. #retracted_reqs: 3, #new_token_ratio: 0.7000 -> 1.0000",
            "Sequence group 147 is preempted by PreemptionMode.RECOMPUTE mode because there is not enough KV cache space. This can affect the end-to-end performance. Increase gpu_memory_utilization or tensor_parallel_size to provide more KV cache memory. total_num_cumulative_preemption=1",
        ] {
            assert!(is_preemption(message), "{message}");
        }
        assert!(!is_preemption("Sequence group 3 finished"));
        assert!(!is_preemption("Decode batch. #running-req: 1"));
    }
}
