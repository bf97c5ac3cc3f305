//! `logdiag watch` driven for real: a writer appends to a log in parts
//! while the watcher follows it. The writer never orders itself against
//! the watcher with a sleep: before it writes the next part it waits for
//! the watcher's own state line (NDJSON). The only time limits are safety
//! nets far above any real latency, so the tests pass however busy the
//! machine is (benches/watch_latency.sh measures the latency).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use logdiag::diagnose::feed_source;
use logdiag::engine::{Engine, JudgeOptions};
use logdiag::rules::RuleSet;
use serde_json::Value;

use crate::util::*;

/// Far above any decision latency: reached only when something is wrong.
const SAFETY: Duration = Duration::from_secs(120);

/// A running `logdiag watch --format json`.
struct Watch {
    child: Child,
    records: Receiver<Value>,
    seen: Vec<Value>,
    stderr: Receiver<String>,
    reader: Option<JoinHandle<()>>,
}

impl Watch {
    fn start(args: &[&str]) -> Watch {
        Watch::spawn(args, Stdio::null()).0
    }

    fn start_stdin(args: &[&str]) -> (Watch, ChildStdin) {
        let (watch, stdin) = Watch::spawn(args, Stdio::piped());
        (watch, stdin.unwrap())
    }

    fn spawn(args: &[&str], stdin: Stdio) -> (Watch, Option<ChildStdin>) {
        let mut child = Command::new(BIN)
            .arg("watch")
            .args(args)
            .args(["--format", "json"])
            .args(if args.contains(&"--timeout") { &[][..] } else { &["--timeout", "600s"][..] })
            .stdin(stdin)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start logdiag watch");
        let (tx, records) = mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let line = line.expect("watch output is UTF-8");
                let record = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
                if tx.send(record).is_err() {
                    return;
                }
            }
        });
        let stderr_pipe = child.stderr.take().unwrap();
        let (tx, stderr) = mpsc::channel();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stderr_pipe).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        let stdin = child.stdin.take();
        (Watch { child, records, seen: Vec::new(), stderr, reader: Some(reader) }, stdin)
    }

    /// Waits for a record that `wanted` accepts, and returns it.
    fn wait_record(&mut self, what: &str, wanted: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + SAFETY;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.records.recv_timeout(left) {
                Ok(record) => {
                    self.seen.push(record.clone());
                    if wanted(&record) {
                        return record;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!("no {what} after {SAFETY:?}; seen: {:#?}", self.seen)
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("watch ended before {what}; seen: {:#?}", self.seen)
                }
            }
        }
    }

    /// Waits for a state record that `wanted` accepts, and returns it.
    fn wait_for(&mut self, what: &str, wanted: impl Fn(&Value) -> bool) -> Value {
        self.wait_record(what, |r| r["event"] == "state" && wanted(r))
    }

    /// Waits for a line on stderr that contains `text`.
    fn wait_stderr(&mut self, text: &str) -> String {
        loop {
            match self.stderr.recv_timeout(SAFETY) {
                Ok(line) if line.contains(text) => return line,
                Ok(_) => {}
                Err(e) => panic!("no {text:?} on stderr ({e})"),
            }
        }
    }

    /// Waits for the state `name` of the current launch.
    fn wait_state(&mut self, name: &str) -> Value {
        self.wait_for(name, |r| r["state"] == name && r["history"] == false)
    }

    /// Waits for the watcher to end: its exit code, every record, stderr.
    fn finish(mut self) -> (i32, Vec<Value>, String) {
        let deadline = Instant::now() + SAFETY;
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "watch did not end; seen: {:#?}", self.seen);
            std::thread::sleep(Duration::from_millis(20));
        };
        self.seen.extend(self.records.iter());
        self.reader.take().unwrap().join().unwrap();
        let stderr: Vec<String> = self.stderr.try_iter().collect();
        (status.code().unwrap_or(-1), std::mem::take(&mut self.seen), stderr.join("\n"))
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn append(path: &Path, text: &str) {
    let mut file = std::fs::OpenOptions::new().create(true).append(true).open(path).unwrap();
    file.write_all(text.as_bytes()).unwrap();
}

fn lines_of(text: &str, range: std::ops::Range<usize>) -> String {
    text.lines().skip(range.start).take(range.len()).map(|l| format!("{l}\n")).collect()
}

fn the_exit(records: &[Value]) -> &Value {
    records.iter().rev().find(|r| r["event"] == "exit").expect("an exit record")
}

/// The decisive line of a state record's crash, or its proof of readiness.
fn decisive_line(record: &Value) -> Option<u64> {
    record["run"]["root_cause"]["evidence"][0]["line"]
        .as_u64()
        .or_else(|| record["run"]["ready"]["line"].as_u64())
}

#[test]
fn a_launch_that_crashed_before_watch_began_is_decided_at_once() {
    let dir = TempDir::new("watch-crashed");
    let log = dir.path().join("x.log");
    std::fs::copy(fixture("seed-k26-flashinfer-journal"), &log).unwrap();
    let (code, records, stderr) = Watch::start(&[log.to_str().unwrap(), "--until", "ready"]).finish();
    assert_eq!(code, 1, "{records:#?}\n{stderr}");
    let crash = records.iter().find(|r| r["state"] == "crashed").unwrap();
    assert_eq!(crash["run"]["root_cause"]["category"], "flashinfer-unsupported-arch");
    assert_eq!(decisive_line(crash), Some(34), "the file's own line number, as batch mode gives it");
    assert_eq!(crash["evidence"]["line"], 34);
    assert_eq!(the_exit(&records)["reason"], "decided");
}

#[test]
fn an_earlier_crash_is_history_and_a_ready_launch_after_it_exits_0() {
    let dir = TempDir::new("watch-history");
    let log = dir.path().join("sglang-server.log");
    std::fs::copy(fixture("seed-glm5-appended-server-log"), &log).unwrap();
    let (code, records, _) = Watch::start(&[log.to_str().unwrap(), "--until", "ready"]).finish();
    assert_eq!(code, 0, "{records:#?}");
    let history = records.iter().find(|r| r["history"] == true).expect("the earlier launch, as history");
    assert_eq!(
        (history["state"].as_str(), history["run"]["first_line"].as_u64()),
        (Some("crashed"), Some(1))
    );
    let current = records.iter().rev().find(|r| r["event"] == "state").unwrap();
    assert_eq!(current["run"]["first_line"], 25);
    assert_eq!(current["evidence"]["line"], 50, "the line that proved readiness");
}

#[test]
fn the_founding_incident_replayed_is_a_crash_not_ready() {
    // uvicorn up, GET /v1/models 200, POST /v1/chat/completions 200 … then
    // FlashInfer's arch check kills the server on the first sampled request.
    let text = std::fs::read_to_string(fixture("seed-k26-flashinfer-journal")).unwrap();
    let dir = TempDir::new("watch-k26");
    let log = dir.path().join("journal.log");
    let mut watch = Watch::start(&[log.to_str().unwrap(), "--until", "ready"]);
    append(&log, &lines_of(&text, 0..12));
    let listening = watch.wait_state("listening");
    assert!(listening["run"]["ready"].is_null());
    append(&log, &lines_of(&text, 12..14));
    append(&log, &lines_of(&text, 14..38));
    let (code, records, _) = watch.finish();
    assert_eq!(code, 1, "a 200 is not readiness: {records:#?}");
    assert!(!records.iter().any(|r| r["state"] == "ready" || r["state"] == "serving"), "{records:#?}");
    let crash = records.iter().find(|r| r["state"] == "crashed").unwrap();
    assert_eq!(crash["run"]["root_cause"]["category"], "flashinfer-unsupported-arch");
    assert_eq!(decisive_line(crash), Some(34));
}

/// The state the batch diagnosis gives the latest run of `text`, with its
/// first line, and (for the final state) its category and decisive line.
fn batch_state(rules: &RuleSet, text: &str) -> Option<(String, u64, bool)> {
    let mut engine = Engine::new(rules);
    feed_source(&mut engine, "input.log", text.as_bytes()).unwrap();
    let diagnosis = engine.diagnose(&JudgeOptions { latest: Some(1), ..JudgeOptions::default() });
    let run = diagnosis.runs.last()?;
    let sure =
        run.root_cause.as_ref().is_none_or(|c| c.confidence == logdiag::engine::diagnosis::Confidence::High);
    Some((logdiag::watch::state_of(run).name().to_string(), run.first_line, sure))
}

/// Writes fixture `case` into a file in parts while watch follows it. A
/// part ends where the batch diagnosis of what was written so far changes
/// state (a crash that waits for signs of life aside); the writer waits for
/// the watcher to report that state before it goes on. The watcher's last
/// state must be the batch diagnosis of the whole file: same state, cause
/// and decisive line.
fn replay(case: &str) {
    let rules = RuleSet::builtin().unwrap();
    let text = std::fs::read_to_string(fixture(case)).unwrap();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let export = text.starts_with("__CURSOR=");
    let dir = TempDir::new(&format!("replay-{case}"));
    let log = dir.path().join("input.log");
    std::fs::write(&log, "").unwrap();
    let mut watch = Watch::start(&[log.to_str().unwrap(), "--keep-watching"]);
    let mut written = 0;
    let mut last_state = None;
    let mut last_record = Value::Null;
    for end in 1..=lines.len() {
        // An export entry is whole only after its empty line.
        if export && lines[end - 1] != "\n" && end < lines.len() {
            continue;
        }
        let prefix: String = lines[..end].concat();
        let Some(state) = batch_state(&rules, &prefix) else { continue };
        if last_state.as_ref() == Some(&state) || !state.2 {
            continue;
        }
        append(&log, &lines[written..end].concat());
        written = end;
        let (name, first_line, _) = state.clone();
        last_record = watch
            .wait_for(&format!("{name} of the run at line {first_line} after line {end}"), |r| {
                r["state"] == name.as_str() && r["run"]["first_line"] == first_line
            });
        last_state = Some(state);
    }
    append(&log, &lines[written..].concat());
    let out = run(&["--format", "json", "--last", log.to_str().unwrap()]);
    let batch = &json(&out)["runs"][0];
    let state = batch_state(&rules, &text).unwrap();
    let (name, first_line, _) = state.clone();
    // The last part may not change the state: then the last one seen stands.
    let last = if last_state == Some(state) {
        last_record
    } else {
        watch.wait_for(&format!("the final state {name}"), |r| {
            r["state"] == name.as_str() && r["run"]["first_line"] == first_line
        })
    };
    let run = &last["run"];
    assert_eq!(run["outcome"], batch["outcome"], "{case}");
    assert_eq!(run["root_cause"]["category"], batch["root_cause"]["category"], "{case}");
    assert_eq!(run["ready"], batch["ready"], "{case}");
    assert_eq!(decisive_line(&last), decisive_line(&serde_json::json!({ "run": batch })), "{case}");
}

#[test]
fn replay_seed_k26_flashinfer_journal() {
    replay("seed-k26-flashinfer-journal");
}

#[test]
fn replay_seed_k26_flashinfer_journal_json() {
    replay("seed-k26-flashinfer-journal-json");
}

#[test]
fn replay_seed_k26_flashinfer_tail() {
    replay("seed-k26-flashinfer-tail");
}

#[test]
fn replay_seed_eagle3_oom_journal() {
    replay("seed-eagle3-oom-journal");
}

#[test]
fn replay_seed_eagle3_oom_journal_export() {
    replay("seed-eagle3-oom-journal-export");
}

#[test]
fn replay_seed_glm5_appended_server_log() {
    replay("seed-glm5-appended-server-log");
}

#[test]
fn replay_seed_glm5_throughput_collapse() {
    replay("seed-glm5-throughput-collapse");
}

#[test]
fn a_collapsed_launch_ends_until_ready_with_the_degraded_code() {
    let dir = TempDir::new("watch-degraded");
    let log = dir.path().join("sglang-server.log");
    std::fs::copy(fixture("seed-glm5-throughput-collapse"), &log).unwrap();
    let (code, records, stderr) = Watch::start(&[log.to_str().unwrap(), "--until", "ready"]).finish();
    assert_eq!(code, 6, "{records:#?}\n{stderr}");
    let degraded = records.iter().find(|r| r["state"] == "degraded").expect("a degraded state");
    assert_eq!(degraded["run"]["first_line"], 99);
    assert_eq!(degraded["run"]["degraded"]["vs_run"], 1);
    assert_eq!(degraded["before_watch"], true, "the file held it when watch began");
}

#[test]
fn replay_seed_glm5_autotune_running() {
    replay("seed-glm5-autotune-running");
}

const LAUNCH: &str =
    "[2026-06-02 14:31:40] server_args=ServerArgs(model_path='/models/GLM-5', tp_size=8, port=30000)\n\
[2026-06-02 14:32:14 TP0] Load weight begin. avail mem=93.88 GB\n\
[2026-06-02 14:39:21] INFO:     Application startup complete.\n\
[2026-06-02 14:39:29] The server is fired up and ready to roll!\n";
const DECODE: &str = "[2026-06-02 14:41:14 TP0] Decode batch. #running-req: 64, #token: 131072, token usage: 0.32, cuda graph: True, gen throughput (token/s): 2211.40, #queue-req: 12\n";

#[test]
fn pending_work_without_progress_is_hung_and_progress_retracts_it() {
    let dir = TempDir::new("watch-hang");
    let log = dir.path().join("sglang-server.log");
    append(&log, LAUNCH);
    let hang = Duration::from_secs(2);
    let mut watch = Watch::start(&[log.to_str().unwrap(), "--hang-after", "2s", "--keep-watching"]);
    watch.wait_state("ready");
    let written = Instant::now();
    append(&log, DECODE);
    watch.wait_state("serving");
    let hung = watch.wait_state("hung");
    let silence = written.elapsed();
    assert!(silence >= hang, "hung after {silence:?}, before --hang-after");
    assert_eq!(hung["evidence"]["line"], 5, "the last progress line");
    // Progress resumes: serving again.
    append(&log, DECODE);
    watch.wait_state("serving");

    // With --until crash, a hang ends the watch with exit 5.
    let mut watch = Watch::start(&[log.to_str().unwrap(), "--hang-after", "2s", "--until", "crash"]);
    watch.wait_state("serving");
    let (code, records, _) = watch.finish();
    assert_eq!(code, 5, "{records:#?}");
    assert_eq!(records.iter().rev().find(|r| r["event"] == "state").unwrap()["state"], "hung");
}

#[test]
fn a_start_up_phase_that_lasts_past_the_hang_time_is_noted_once() {
    let dir = TempDir::new("watch-phase");
    let log = dir.path().join("sglang-server.log");
    let loading = lines_of(LAUNCH, 0..2);
    let mut watch = Watch::start(&[log.to_str().unwrap(), "--hang-after", "2s", "--keep-watching"]);
    // Taken before the lines are written: the phase counts from then at
    // the earliest.
    let written = Instant::now();
    append(&log, &loading);
    watch.wait_state("loading-weights");
    let note = watch.wait_record("a note on the lasting phase", |r| r["event"] == "lasting");
    // The phase counts from the file's modification time, which the kernel
    // keeps by a coarse clock (a few milliseconds behind).
    let lasted = written.elapsed() + Duration::from_millis(50);
    assert!(lasted >= Duration::from_secs(2), "noted before --hang-after: {lasted:?}");
    assert_eq!(note["state"], "loading-weights");
    assert!(note["lasting_seconds"].as_u64().unwrap() >= 2, "{note}");
    // The phase ends: the launch goes on to be ready, and no second note.
    append(&log, &lines_of(LAUNCH, 2..4));
    watch.wait_state("ready");
    assert_eq!(watch.seen.iter().filter(|r| r["event"] == "lasting").count(), 1, "{:#?}", watch.seen);
}

#[test]
fn after_line_makes_what_the_log_held_history() {
    // A launch script that appends: the old launch's crash must not be
    // taken for the new launch's.
    let dir = TempDir::new("watch-after-line");
    let log = dir.path().join("sglang-server.log");
    let old = std::fs::read_to_string(fixture("seed-glm5-appended-server-log")).unwrap();
    let old = lines_of(&old, 0..24);
    append(&log, &old);
    let mut watch = Watch::start(&[log.to_str().unwrap(), "--after-line", "24", "--until", "ready"]);
    let history = watch.wait_for("the old launch as history", |r| r["history"] == true);
    assert_eq!(history["state"], "crashed");
    // The new launch writes a line that is no start marker, then its start.
    append(&log, "WARNING: the new launch's first line\n");
    append(&log, LAUNCH);
    let (code, records, _) = watch.finish();
    assert_eq!(code, 0, "{records:#?}");
    let ready = records.iter().find(|r| r["state"] == "ready").unwrap();
    assert_eq!(ready["run"]["first_line"], 25);
    assert_eq!(ready["evidence"]["line"], 29);
}

#[test]
fn a_missing_file_is_waited_for_and_said_once() {
    let dir = TempDir::new("watch-appears");
    let log = dir.path().join("later.log");
    let mut watch = Watch::start(&[log.to_str().unwrap(), "--until", "ready"]);
    let said = watch.wait_stderr("waiting for");
    assert!(said.ends_with(&format!("waiting for {} to appear", log.display())), "{said}");
    append(&log, LAUNCH);
    let (code, records, stderr) = watch.finish();
    assert_eq!(code, 0, "{records:#?}");
    assert!(!stderr.contains("waiting for"), "said once: {stderr}");
    assert!(records.iter().any(|r| r["event"] == "file" && r["change"] == "appeared"), "{records:#?}");
}

#[test]
fn line_numbers_are_the_file_s_own_across_rotation_and_truncation() {
    let dir = TempDir::new("watch-rotate");
    let log = dir.path().join("sglang-server.log");
    append(&log, &lines_of(LAUNCH, 0..2));
    let mut watch = Watch::start(&[log.to_str().unwrap(), "--until", "crash"]);
    watch.wait_state("loading-weights");
    // logrotate's create mode: the file is renamed and a new one started.
    std::fs::rename(&log, dir.path().join("sglang-server.log.1")).unwrap();
    append(&log, "[2026-06-02 14:34:30 TP0] Load weight end. avail mem=49.20 GB\n");
    append(&log, "[2026-06-02 14:38:02 TP0] Capture cuda graph begin. This can take up to several minutes. avail mem=6.91 GB\n");
    watch.wait_state("capturing-cuda-graphs");
    // copytruncate mode: emptied in place, then written from the start
    // (once watch has seen it empty; lines written sooner could make the
    // file as long as before, and no follower can see a truncation then).
    std::fs::write(&log, "").unwrap();
    watch.wait_record("the truncation", |r| r["event"] == "file" && r["change"] == "truncated");
    append(&log, "[2026-06-02 14:39:15 TP0] Capture cuda graph end. Time elapsed: 72.84 s.\n");
    append(&log, "RuntimeError: FlashInfer requires GPUs with sm75 or higher\n");
    append(
        &log,
        "[2026-06-02 14:40:00] Received sigquit from a child process. It usually means the child failed.\n",
    );
    let (code, records, _) = watch.finish();
    assert_eq!(code, 1, "{records:#?}");
    let crash = records.iter().find(|r| r["state"] == "crashed").unwrap();
    let decisive = &crash["run"]["root_cause"]["evidence"][0];
    assert_eq!(decisive["line"], 2, "line 2 of the file after its truncation: {crash:#}");
    assert!(decisive["source"].as_str().unwrap().ends_with("sglang-server.log"));
    assert_eq!(crash["run"]["first_line"], 1);
    assert!(crash["run"]["source"].as_str().unwrap().ends_with("sglang-server.log.1"), "{crash:#}");
}

#[test]
fn a_file_written_over_past_its_old_size_is_read_again_from_its_start() {
    let dir = TempDir::new("watch-rewrite");
    let log = dir.path().join("sglang-server.log");
    append(&log, &lines_of(LAUNCH, 0..2));
    let mut watch = Watch::start(&[log.to_str().unwrap(), "--until", "crash"]);
    watch.wait_state("loading-weights");
    // Written over from its start, longer than before, and never shorter
    // than what was read (as a truncation and a rewrite between two looks
    // would leave it): the size alone does not tell.
    let relaunch =
        "[2026-06-02 15:02:40] server_args=ServerArgs(model_path='/models/GLM-5', tp_size=8, port=30001)\n\
[2026-06-02 15:03:10 TP0] Load weight begin. avail mem=93.88 GB\n\
RuntimeError: FlashInfer requires GPUs with sm75 or higher\n\
[2026-06-02 15:03:30] Received sigquit from a child process. It usually means the child failed.\n";
    let mut file = std::fs::OpenOptions::new().write(true).open(&log).unwrap();
    file.write_all(relaunch.as_bytes()).unwrap();
    drop(file);
    let (code, records, _) = watch.finish();
    assert_eq!(code, 1, "{records:#?}");
    assert!(records.iter().any(|r| r["event"] == "file" && r["change"] == "truncated"), "{records:#?}");
    let crash = records.iter().find(|r| r["state"] == "crashed").unwrap();
    let decisive = &crash["run"]["root_cause"]["evidence"][0];
    assert_eq!(decisive["line"], 3, "line 3 of the file as written over: {crash:#}");
    assert_eq!(crash["run"]["root_cause"]["category"], "flashinfer-unsupported-arch", "{crash:#}");
}

#[test]
fn stdin_is_read_from_its_first_batch_in_every_journal_shape() {
    for case in
        ["seed-eagle3-oom-journal-export", "seed-k26-flashinfer-journal-json", "seed-k26-flashinfer-journal"]
    {
        let input = std::fs::read(fixture(case)).unwrap();
        let batch = json(&run(&["--format", "json", "--last", fixture(case).to_str().unwrap()]));
        let (watch, mut stdin) = Watch::start_stdin(&["-", "--until", "ready"]);
        stdin.write_all(&input).unwrap();
        drop(stdin);
        let (code, records, _) = watch.finish();
        assert_eq!(code, 1, "{case}: {records:#?}");
        let crash = records.iter().find(|r| r["state"] == "crashed").unwrap();
        let (watched, judged) =
            (&crash["run"]["root_cause"]["evidence"][0], &batch["runs"][0]["root_cause"]["evidence"][0]);
        assert_eq!((&watched["line"], &watched["text"]), (&judged["line"], &judged["text"]), "{case}");
    }
    // Compressed, on stdin or as a (finished, rotated) file: read whole.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&std::fs::read(fixture("seed-k26-flashinfer-journal")).unwrap()).unwrap();
    let gz = gz.finish().unwrap();
    let dir = TempDir::new("watch-gz");
    let file = dir.write("k26.log.gz", &gz);
    let (watch, mut stdin) = Watch::start_stdin(&["-", "--until", "ready"]);
    stdin.write_all(&gz).unwrap();
    drop(stdin);
    for (how, (code, records, _)) in [
        ("stdin", watch.finish()),
        ("file", Watch::start(&[file.to_str().unwrap(), "--until", "ready"]).finish()),
    ] {
        assert_eq!(code, 1, "gzip on {how}: {records:#?}");
        let crash = records.iter().find(|r| r["state"] == "crashed").unwrap();
        assert_eq!(decisive_line(crash), Some(34), "gzip on {how}");
    }

    // A stream that ends before the launch is ready: exit 4.
    let (watch, mut stdin) = Watch::start_stdin(&["-", "--until", "ready"]);
    stdin.write_all(&LAUNCH.as_bytes()[..LAUNCH.find("[2026-06-02 14:39:21]").unwrap()]).unwrap();
    drop(stdin);
    let (code, records, _) = watch.finish();
    assert_eq!(code, 4, "{records:#?}");
    assert_eq!(the_exit(&records)["reason"], "input ended");
}

#[test]
fn a_timeout_is_kept_while_a_large_backlog_is_read() {
    let dir = TempDir::new("watch-backlog");
    let log = dir.path().join("empty-lines.log");
    std::fs::write(&log, vec![b'\n'; 64 << 20]).unwrap();
    let started = Instant::now();
    let (code, records, _) =
        Watch::start(&[log.to_str().unwrap(), "--until", "ready", "--timeout", "1s"]).finish();
    assert_eq!(code, 124, "{records:#?}");
    assert!(started.elapsed() < SAFETY / 4, "the timeout waited for the backlog: {:?}", started.elapsed());
}

#[test]
fn an_endless_line_on_stdin_takes_bounded_memory() {
    let (watch, mut stdin) = Watch::start_stdin(&["-", "--until", "exit"]);
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..256 {
        stdin.write_all(&zeros).unwrap();
    }
    let status = std::fs::read_to_string(format!("/proc/{}/status", watch.child.id())).unwrap();
    let peak_kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap();
    assert!(peak_kib < 96 * 1024, "256 MiB without a newline took {peak_kib} KiB");
    drop(stdin);
    let (code, records, _) = watch.finish();
    assert_eq!(code, 4, "{records:#?}");
}

/// A named pipe (or `<(journalctl -f …)`) is followed as a stream until its
/// writer closes it: it has no size, so nothing is taken for a truncation.
#[test]
fn a_named_pipe_is_followed_until_its_writer_closes_it() {
    let dir = TempDir::new("watch-fifo");
    let fifo = dir.path().join("journal.pipe");
    mkfifo(&fifo);
    let mut watch = Watch::start(&[fifo.to_str().unwrap(), "--until", "exit"]);
    // Opening for writing waits for the watcher to open it for reading.
    let mut writer = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    writer
        .write_all(b"May 25 20:11:05 gpu-node systemd[1]: sglang.service: Main process exited, code=killed, status=9/KILL\n")
        .unwrap();
    let crash = watch.wait_for("crashed", |r| r["state"] == "crashed");
    assert_eq!(crash["run"]["first_line"], 1, "{crash}");
    drop(writer);
    let (code, _, stderr) = watch.finish();
    assert_eq!(code, 3, "{stderr}");
    assert!(!stderr.contains("Illegal seek"), "{stderr}");
}

#[test]
fn text_names_the_deciding_line_the_unit_and_the_run_and_a_crash_ends_the_watch() {
    // Two launches of one unit, both crashing: the current one is run 2.
    let dir = TempDir::new("watch-text");
    let seed = std::fs::read_to_string(fixture("seed-k26-flashinfer-journal")).unwrap();
    let log = dir.write("journal.log", format!("{seed}{seed}").as_bytes());
    let batch = json(&run(&["--format", "json", log.to_str().unwrap()]));
    let current = &batch["runs"][1];
    assert_eq!(current["number"], 2);
    let line = current["root_cause"]["evidence"][0]["line"].as_u64().unwrap();
    // No --until: the watch ends with the launch's story, well before the
    // timeout (which only stops a regression from hanging the suite).
    let out = run(&["watch", log.to_str().unwrap(), "--timeout", "60s"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let text = stdout(&out);
    let state = format!("{}:{line} (sglang-k26.service): run 2: crashed — ", log.display());
    assert!(text.contains(&state), "{state:?} not in:\n{text}");
    assert!(text.contains("Run 2: "), "the details number the run as batch does:\n{text}");
    assert!(text.trim_end().ends_with("crashed (exit 1)"), "{text}");
    assert!(!text.contains("timeout"), "{text}");
}

#[test]
fn an_agent_watches_each_unit_and_ends_cleanly_on_sigterm() {
    // Two units started together in one journal: each has its own
    // launch and its own state, whichever wrote last.
    let log = fixture("repro-31-same-second-units");
    // (The fixture was written long ago: no hang is judged by its age.)
    let mut watch = Watch::start(&[log.to_str().unwrap(), "--each-unit", "--hang-after", "3650d"]);
    let serving = watch.wait_for("sglang's state", |r| r["run"]["unit"] == "sglang.service");
    assert_eq!(serving["state"], "serving", "{serving:#}");
    let crashed = watch.wait_for("trainer's state", |r| r["run"]["unit"] == "trainer.service");
    assert_eq!(crashed["state"], "crashed", "{crashed:#}");
    assert_eq!(crashed["run"]["root_cause"]["category"], "cuda-oom");
    // The file does not end: an agent goes on until it is stopped.
    let stopped = Command::new("kill").args(["-TERM", &watch.child.id().to_string()]).status().unwrap();
    assert!(stopped.success());
    let (code, records, stderr) = watch.finish();
    assert_eq!(code, 0, "a clean stop: {stderr}");
    let last = records.last().unwrap();
    assert_eq!((&last["event"], &last["reason"]), (&"exit".into(), &"terminated".into()), "{records:#?}");
}

#[test]
fn an_agent_reads_the_journal_itself() {
    if crate::journal::tools().is_none() {
        return;
    }
    // The founding incident in a real journal file, read by the real
    // journalctl that --journal runs (--follow: it never ends by itself).
    let dir = TempDir::new("agent-journal");
    let export = crate::journal::export_entries(&fixture("seed-k26-flashinfer-journal"));
    let journal = crate::journal::write_journal(&dir, "k26.journal", &export);
    let mut watch = Watch::start(&["--journal", "--journal-file", journal.to_str().unwrap(), "--each-unit"]);
    let crashed = watch.wait_for("the crash", |r| r["state"] == "crashed");
    assert_eq!(crashed["run"]["unit"], "sglang-k26.service", "{crashed:#}");
    assert_eq!(crashed["run"]["root_cause"]["category"], "flashinfer-unsupported-arch");
    let stopped = Command::new("kill").args(["-TERM", &watch.child.id().to_string()]).status().unwrap();
    assert!(stopped.success());
    let (code, records, stderr) = watch.finish();
    assert_eq!(code, 0, "a clean stop, journalctl ended with it: {stderr}");
    assert_eq!(records.last().unwrap()["reason"], "terminated", "{records:#?}");
}
