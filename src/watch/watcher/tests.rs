use super::*;
use crate::diagnose::feed_source;
use crate::engine::{Engine, JudgeOptions};
use crate::rules::RuleSet;

fn rules() -> &'static RuleSet {
    static RULES: std::sync::OnceLock<RuleSet> = std::sync::OnceLock::new();
    RULES.get_or_init(|| RuleSet::builtin().expect("built-in rules"))
}

/// The diagnosis a watcher sees of `log`, read by the real pipeline.
fn diagnose(log: &str) -> Diagnosis {
    let mut engine = Engine::new(rules());
    feed_source(&mut engine, "w.log", log.as_bytes()).unwrap();
    engine.diagnose(&JudgeOptions { latest: Some(2), ..JudgeOptions::default() })
}

fn watcher(until: Until) -> Watcher {
    Watcher::new(WatchOptions { until, hang_after: Duration::from_secs(600), after_line: None })
}

fn states(changes: &[Change]) -> Vec<(&str, bool)> {
    changes.iter().map(|c| (c.state.name(), c.history)).collect()
}

const OLD_CRASH: &str = "[2026-06-02 14:02:11] server_args=ServerArgs(model_path='/m')\nRuntimeError: No supported CUDA architectures found for major versions [9, 10].\nKilled\n";
const RELAUNCH: &str = "[2026-06-02 14:31:40] server_args=ServerArgs(model_path='/m')\n[2026-06-02 14:32:14 TP0] Load weight begin. avail mem=93.88 GB\n";
const LISTENING: &str = "[2026-06-02 14:39:21] INFO:     Application startup complete.\n[2026-06-02 14:39:22] INFO:     127.0.0.1:38222 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK\n";
const READY: &str = "[2026-06-02 14:39:29] The server is fired up and ready to roll!\n";
const DECODE: &str = "[2026-06-02 14:41:14 TP0] Decode batch. #running-req: 64, #token: 1288192, token usage: 0.58, cuda graph: True, gen throughput (token/s): 236.41, #queue-req: 3\n";
const SIGQUIT: &str =
    "[2026-06-02 14:33:00] Received sigquit from a child process. It usually means the child failed.\n";

#[test]
fn a_launch_that_crashed_before_watching_began_is_decided_at_once() {
    let now = Instant::now();
    let mut w = watcher(Until::Ready);
    let (changes, code) = w.start(&diagnose(OLD_CRASH), now, now);
    assert_eq!((states(&changes), code), (vec![("crashed", false)], Some(Exit::Crashed)));
}

#[test]
fn an_earlier_crash_is_history_and_the_current_launch_is_judged() {
    let now = Instant::now();
    let mut w = watcher(Until::Ready);
    let (changes, code) = w.start(&diagnose(&format!("{OLD_CRASH}{RELAUNCH}")), now, now);
    assert_eq!((states(&changes), code), (vec![("crashed", true), ("loading-weights", false)], None));
    let log = format!("{OLD_CRASH}{RELAUNCH}{READY}");
    let (changes, code) = w.update(&diagnose(&log), now);
    assert_eq!((states(&changes), code), (vec![("ready", false)], Some(Exit::Healthy)));
    assert_eq!(changes[0].evidence.as_ref().map(|e| e.line), Some(6), "the line that proved it");
}

#[test]
fn listening_and_answering_requests_is_not_ready() {
    let now = Instant::now();
    let mut w = watcher(Until::Ready);
    let log = format!("{RELAUNCH}{LISTENING}");
    let (changes, code) = w.start(&diagnose(&log), now, now);
    assert_eq!((states(&changes), code), (vec![("listening", false)], None));
    // A decode batch with generated tokens proves it; the next one is serving.
    let (changes, code) = w.update(&diagnose(&format!("{log}{DECODE}")), now);
    assert_eq!((states(&changes), code), (vec![("ready", false)], Some(Exit::Healthy)));
    let mut w = watcher(Until::Crash);
    w.start(&diagnose(&format!("{log}{DECODE}")), now, now);
    let (changes, _) = w.update(&diagnose(&format!("{log}{DECODE}{DECODE}")), now);
    assert_eq!(states(&changes), vec![("serving", false)]);
}

#[test]
fn with_after_line_an_ended_launch_before_it_is_only_history() {
    let now = Instant::now();
    let lines = OLD_CRASH.lines().count() as u64;
    let mut w = Watcher::new(WatchOptions {
        until: Until::Ready,
        hang_after: Duration::from_secs(600),
        after_line: Some(lines),
    });
    let (changes, code) = w.start(&diagnose(OLD_CRASH), now, now);
    assert_eq!((states(&changes), code), (vec![("crashed", true)], None), "no current launch yet");
    let (changes, code) = w.update(&diagnose(&format!("{OLD_CRASH}{RELAUNCH}")), now);
    assert_eq!((states(&changes), code), (vec![("loading-weights", false)], None));
}

#[test]
fn a_crash_without_evidence_of_death_waits_for_signs_of_life() {
    let t0 = Instant::now();
    let mut w = watcher(Until::Crash);
    w.start(&diagnose(RELAUNCH), t0, t0);
    let log = format!("{RELAUNCH}{SIGQUIT}");
    assert_eq!(w.update(&diagnose(&log), t0), (Vec::new(), None), "a lone symptom is not decided yet");
    assert_eq!(w.next_deadline(&diagnose(&log)), Some(t0 + CRASH_GRACE));
    // The run goes on: it survived.
    let log =
        format!("{RELAUNCH}{SIGQUIT}[2026-06-02 14:34:30 TP0] Load weight end. avail mem=49.20 GB\n{READY}");
    let (changes, code) = w.update(&diagnose(&log), t0 + CRASH_GRACE * 2);
    assert_eq!((states(&changes), code), (vec![("ready", false)], None));
    // Had it gone quiet instead, the crash is decided after the grace.
    let mut w = watcher(Until::Crash);
    w.start(&diagnose(RELAUNCH), t0, t0);
    let log = format!("{RELAUNCH}{SIGQUIT}");
    w.update(&diagnose(&log), t0);
    let (changes, code) = w.update(&diagnose(&log), t0 + CRASH_GRACE);
    assert_eq!((states(&changes), code), (vec![("crashed", false)], Some(Exit::CrashedUnexplained)));
    // A weak crash already in the log, written long before, is decided at once.
    let mut w = watcher(Until::Crash);
    let (changes, code) = w.start(&diagnose(&log), t0 + CRASH_GRACE, t0);
    assert_eq!((states(&changes), code), (vec![("crashed", false)], Some(Exit::CrashedUnexplained)));
}

#[test]
fn pending_work_with_no_progress_is_a_hang_and_progress_retracts_it() {
    let t0 = Instant::now();
    let hang = Duration::from_secs(60);
    let mut w = Watcher::new(WatchOptions { until: Until::Never, hang_after: hang, after_line: None });
    let log = format!("{RELAUNCH}{READY}{DECODE}");
    let (changes, _) = w.start(&diagnose(&log), t0, t0);
    assert_eq!(states(&changes), vec![("serving", false)]);
    assert_eq!(w.next_deadline(&diagnose(&log)), Some(t0 + hang));
    assert!(w.update(&diagnose(&log), t0 + hang - Duration::from_millis(1)).0.is_empty());
    let (changes, code) = w.update(&diagnose(&log), t0 + hang);
    assert_eq!((states(&changes), code), (vec![("hung", false)], None));
    assert_eq!(changes[0].evidence.as_ref().map(|e| e.line), Some(4), "the last progress line");
    assert_eq!(w.ended(&diagnose(&log)), Exit::Hung);
    // Progress resumes: serving again.
    let log = format!("{log}{DECODE}");
    let (changes, _) = w.update(&diagnose(&log), t0 + hang * 2);
    assert_eq!(states(&changes), vec![("serving", false)]);
    // An idle server (nothing running or waiting) never hangs.
    let idle = format!("{RELAUNCH}{READY}[2026-06-02 14:41:14 TP0] Decode batch. #running-req: 0, #token: 0, token usage: 0.00, gen throughput (token/s): 12.00, #queue-req: 0\n");
    let mut w = Watcher::new(WatchOptions { until: Until::Crash, hang_after: hang, after_line: None });
    w.start(&diagnose(&idle), t0, t0);
    assert_eq!(w.update(&diagnose(&idle), t0 + hang * 10), (Vec::new(), None));
}

#[test]
fn a_jump_of_the_printed_clock_is_no_hang() {
    let t0 = Instant::now();
    let hang = Duration::from_secs(600);
    let mut w = Watcher::new(WatchOptions { until: Until::Crash, hang_after: hang, after_line: None });
    let log = format!("{RELAUNCH}{READY}{DECODE}");
    let (changes, _) = w.start(&diagnose(&log), t0, t0);
    assert_eq!(states(&changes), vec![("serving", false)]);
    // Right after a busy batch, the log's clock steps an hour ahead: the
    // diagnosis reads an hour without progress, the watcher a second.
    let stepped = format!("{log}[2026-06-02 15:41:15 TP0] Cache flushed successfully!\n");
    assert_eq!(diagnose(&stepped).runs.last().unwrap().outcome, Outcome::Hung, "the printed clock's reading");
    assert_eq!(w.update(&diagnose(&stepped), t0 + Duration::from_secs(1)), (Vec::new(), None));
    // Wall time without progress is a hang.
    let (changes, code) = w.update(&diagnose(&stepped), t0 + hang);
    assert_eq!((states(&changes), code), (vec![("hung", false)], Some(Exit::Hung)));
}

#[test]
fn a_silence_that_began_before_watching_counts_from_the_last_write() {
    let t0 = Instant::now();
    let hang = Duration::from_secs(60);
    let mut w = Watcher::new(WatchOptions { until: Until::Crash, hang_after: hang, after_line: None });
    let log = format!("{RELAUNCH}{READY}{DECODE}");
    let (changes, code) = w.start(&diagnose(&log), t0 + hang * 2, t0);
    assert_eq!((states(&changes), code), (vec![("hung", false)], Some(Exit::Hung)));
}

#[test]
fn when_the_input_ends_a_crash_waiting_for_signs_of_life_is_decided() {
    let t0 = Instant::now();
    let log = format!("{RELAUNCH}{SIGQUIT}");
    let mut w = watcher(Until::Ready);
    w.start(&diagnose(RELAUNCH), t0, t0);
    assert_eq!(w.update(&diagnose(&log), t0), (Vec::new(), None));
    let (changes, code) = w.end(&diagnose(&log), t0);
    assert_eq!((states(&changes), code), (vec![("crashed", false)], Exit::CrashedUnexplained));
    // A stream that closes before any launch is ready: the input ended first.
    let mut w = watcher(Until::Ready);
    let (changes, code) = w.end(&diagnose(RELAUNCH), t0);
    assert_eq!((states(&changes), code), (vec![("loading-weights", false)], Exit::EndedFirst));
}
