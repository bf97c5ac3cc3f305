//! Properties that must hold for every input, checked on generated ones:
//! no panic whatever the bytes; the same diagnosis however the reads are
//! split, and whenever a followed input goes idle; harmless noise never
//! turns a healthy log into a crash.

use std::io::{self, BufRead, BufReader, Read};

use logdiag::diagnose::feed_source;
use logdiag::engine::{Diagnosis, Engine, JudgeOptions};
use logdiag::events::Event;
use logdiag::framing::journal::layout;
use logdiag::framing::FormatSet;
use logdiag::input::follow::{Chunks, Growing, Records};
use logdiag::pipeline::{Session, Sink};
use logdiag::report::{write_json, write_text, Color, EvidenceLines, Terminal, TextOptions};
use logdiag::rules::RuleSet;
use proptest::prelude::*;

use crate::util::fixture;

fn rules() -> &'static RuleSet {
    static RULES: std::sync::OnceLock<RuleSet> = std::sync::OnceLock::new();
    RULES.get_or_init(|| RuleSet::builtin().expect("built-in rules"))
}

fn diagnose(reader: impl BufRead + Send) -> Diagnosis {
    let mut engine = Engine::new(rules());
    let _ = feed_source(&mut engine, "input.log", reader);
    engine.diagnose(&JudgeOptions::default())
}

/// A reader that hands out its bytes in chunks of the given sizes.
struct Chunked {
    bytes: Vec<u8>,
    at: usize,
    sizes: Vec<usize>,
    next: usize,
}

impl Read for Chunked {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let size = self.sizes.get(self.next % self.sizes.len().max(1)).copied().unwrap_or(1).max(1);
        self.next += 1;
        let n = size.min(buf.len()).min(self.bytes.len() - self.at);
        buf[..n].copy_from_slice(&self.bytes[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// Pieces of real log lines, so generated input reaches deep into framing
/// and grouping rather than being rejected at the first byte.
const PIECES: &[&str] = &[
    "May 25 20:27:22 gpu01 python[71283]: ",
    "[2026-05-25 20:27:22 TP2] ",
    "(EngineCore_DP0 pid=42) ERROR 05-25 20:27:22 [core.py:708] ",
    "Scheduler hit an exception: Traceback (most recent call last):",
    "  File \"/v/site-packages/flashinfer/jit/core.py\", line 96, in check_cuda_arch",
    "    raise RuntimeError(",
    "RuntimeError: FlashInfer requires GPUs with sm75 or higher",
    "Received sigquit from a child process. It usually means the child failed.",
    "systemd[1]: x.service: Main process exited, code=killed, status=9/KILL",
    "Fatal Python error: Segmentation fault",
    "[    2.829492] ",
    "-- Boot 0123456789abcdef0123456789abcdef --",
    "{\"MESSAGE\":\"x\",\"_PID\":\"1\"}",
    "__CURSOR=s=1\nMESSAGE\n",
    "Decode batch. #running-req: 1, #token: 1, token usage: 0.01, gen throughput (token/s): 1.0, #queue-req: 0",
    "\u{1b}[31m", "\r", "\n", "\n\n", "\t", "█", "é", "\u{0}", "%|",
];

fn log_bytes() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        3 => proptest::sample::select(PIECES).prop_map(|p| p.as_bytes().to_vec()),
        1 => proptest::collection::vec(any::<u8>(), 0..12),
    ];
    proptest::collection::vec(piece, 0..120).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn no_panic_whatever_the_bytes(bytes in log_bytes()) {
        let diagnosis = diagnose(&bytes[..]);
        let mut out = Vec::new();
        write_json(&mut out, &diagnosis).unwrap();
        prop_assert!(std::str::from_utf8(&out).is_ok());
        write_text(&mut out, &diagnosis, &TextOptions { verbose: true, ..TextOptions::default() }).unwrap();
        // Laid out for a narrow colour terminal: wrapped and cut, never a panic.
        let narrow = Terminal { width: Some(24), color: Color::On, evidence: EvidenceLines::CutToWidth };
        write_text(&mut out, &diagnosis, &TextOptions { verbose: true, terminal: narrow }).unwrap();
        prop_assert!(matches!(diagnosis.exit().code(), 0 | 1 | 3));
    }

    #[test]
    fn a_follower_sees_what_batch_mode_sees_of_the_lines_so_far(
        bytes in log_bytes(),
        pauses in proptest::collection::vec(0usize..4096, 0..12),
    ) {
        let (seen, last) = follow(&bytes, pauses.into_iter().map(|p| p % (bytes.len() + 1)).collect::<std::collections::BTreeSet<_>>().into_iter().collect());
        let lines: Vec<&[u8]> = bytes.split_inclusive(|&b| b == b'\n').collect();
        // An export stream, opening the input or after lines of text.
        let export = lines.iter().any(|l| l.starts_with(b"__CURSOR=") || l.starts_with(b"__REALTIME_TIMESTAMP="));
        for (count, diagnosis) in seen {
            // The export format is read as bytes, not lines: its prefixes are
            // whole entries, which line counts do not tell apart.
            if export {
                continue;
            }
            let prefix = lines[..(count as usize).min(lines.len())].concat();
            let batch = diagnose(&prefix[..]);
            if !newest_first(&batch) {
                prop_assert_eq!(&diagnosis.runs, &batch.runs, "after line {}", count);
            }
        }
        let batch = diagnose(&bytes[..]);
        if !newest_first(&batch) {
            prop_assert_eq!(last.runs, batch.runs);
        }
    }

    #[test]
    fn the_diagnosis_does_not_depend_on_how_reads_are_split(
        bytes in log_bytes(),
        sizes in proptest::collection::vec(1usize..64, 1..8),
    ) {
        let whole = diagnose(&bytes[..]);
        let reader = BufReader::with_capacity(7, Chunked { bytes: bytes.clone(), at: 0, sizes, next: 0 });
        let split = diagnose(reader);
        prop_assert_eq!(whole, split);
    }
}

/// A growing input that goes idle at the given byte offsets.
struct Pauses {
    bytes: Vec<u8>,
    at: usize,
    pauses: Vec<usize>,
    idle_due: bool,
}

impl Chunks for Pauses {
    fn next_chunk(&mut self, buf: &mut [u8], wait: bool) -> io::Result<Option<usize>> {
        if std::mem::take(&mut self.idle_due) && !wait {
            return Ok(None);
        }
        let next = self.pauses.iter().copied().find(|&p| p > self.at).unwrap_or(self.bytes.len());
        let n = (next - self.at).min(buf.len());
        buf[..n].copy_from_slice(&self.bytes[self.at..self.at + n]);
        self.at += n;
        self.idle_due = self.at == next && n > 0;
        Ok(Some(n))
    }
}

/// What a follower of `bytes` sees: at each idle moment, the lines read so
/// far and the diagnosis of them with the events still open; at the end,
/// the final diagnosis.
fn follow(bytes: &[u8], pauses: Vec<usize>) -> (Vec<(u64, Diagnosis)>, Diagnosis) {
    struct Judge<'r> {
        engine: Engine<'r>,
        lines: u64,
        seen: Vec<(u64, Diagnosis)>,
    }
    impl Sink for Judge<'_> {
        fn take(&mut self, event: Box<Event>) -> io::Result<()> {
            self.engine.take(event)
        }
        fn lines(&mut self, last: u64, formats: FormatSet) -> io::Result<()> {
            self.lines = last;
            self.engine.lines(last, formats)?;
            Ok(())
        }
        fn idle(&mut self, pending: Vec<Box<Event>>) -> io::Result<()> {
            self.seen.push((self.lines, self.engine.diagnose_with(&pending, &JudgeOptions::default())));
            Ok(())
        }
    }
    let mut engine = Engine::new(rules());
    engine.begin_source("input.log");
    let mut judge = Judge { engine, lines: 0, seen: Vec::new() };
    let mut part =
        Growing::new(Pauses { bytes: bytes.to_vec(), at: 0, pauses, idle_due: false }, |_| Records::Lines);
    let mut session = Session::following(&mut judge);
    let _ = session.read(BufReader::with_capacity(7, &mut part), layout::sniff(bytes));
    session.finish().unwrap();
    let last = judge.engine.diagnose(&JudgeOptions::default());
    (judge.seen, last)
}

/// Batch mode took the input for a newest-first journal and reordered it
/// (the follower is the session alone, which reads lines as they come).
fn newest_first(diagnosis: &Diagnosis) -> bool {
    diagnosis.inputs.iter().flat_map(|i| &i.notices).any(|n| n.contains("newest first"))
}

/// Scary-looking lines that are harmless: noise on a healthy server. (No
/// throughput line: its rate is a measurement, and a low one dropped
/// among fast ones is a collapse, rightly judged degraded.)
const NOISE: &[&str] = &[
    "[AutoTuner]: OOM detected, falling back to default tactic",
    "[AutoTuner]: Skipping tactic 3 CutlassFusedMoeRunner, due to failure while profiling: CUDA out of memory. Tried to allocate 1.50 GiB.",
    "[2026-07-21 15:00:13 TP0] Decode out of memory happened. #retracted_reqs: 3, #new_token_ratio: 0.4000 -> 0.5000",
    "[2026-07-21 15:00:13 TP0] KV cache pool is full. Retract requests. #retracted_reqs: 2, #new_tokens_gained: 512",
    "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
    "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
    "[    2.829501] nvidia: module license 'NVIDIA' taints kernel.",
    "[2026-07-21 15:00:14] INFO:     127.0.0.1:43514 - \"POST /generate HTTP/1.1\" 200 OK",
    "Capturing batches (bs=1024 avail_mem=6.90 GB): 100%|██████████| 52/52 [01:12<00:00,  1.39s/it]",
    "WARNING 05-26 19:10:00 [x.py:1] Failed to import from vllm._C with ModuleNotFoundError(\"No module named 'vllm._C'\")",
    "[W1127 10:00:00.000000000 ProcessGroupNCCL.cpp:1250] Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL.",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn benign_noise_never_turns_a_healthy_log_into_a_crash(
        case in proptest::sample::select(&["sgl-kernel-npu-608", "seed-glm5-autotune-running", "vllm-1935", "k8s-device-plugin-480", "sglang-29595"][..]),
        inserts in proptest::collection::vec((0usize..100_000, proptest::sample::select(NOISE)), 0..12),
    ) {
        let text = std::fs::read_to_string(fixture(case)).unwrap();
        let mut lines: Vec<&str> = text.lines().collect();
        prop_assume!(diagnose(text.as_bytes()).exit().code() == 0);
        for (at, noise) in inserts {
            let at = at % (lines.len() + 1);
            lines.insert(at, noise);
        }
        let noisy = lines.join("\n") + "\n";
        let diagnosis = diagnose(noisy.as_bytes());
        prop_assert_eq!(diagnosis.exit().code(), 0, "{}", noisy);
    }
}
