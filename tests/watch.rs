//! `logdiag watch` driven for real: a writer appends to a log line by line
//! while the watcher follows it. Decisions must come promptly after the
//! deciding line (the bound asserted here is loose so a busy machine does
//! not fail the test; benches/watch_latency.sh measures the latency).

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use crate::util::*;

/// Far above the expected decision latency (a few hundred ms), far below
/// the watch timeout: the watcher decided on the line, not on a timeout.
const PROMPT: Duration = Duration::from_secs(5);

fn spawn_watch(args: &[&str]) -> Child {
    Command::new(BIN)
        .arg("watch")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start logdiag watch")
}

fn append(path: &Path, lines: &[&str]) {
    let mut file = std::fs::OpenOptions::new().create(true).append(true).open(path).unwrap();
    for line in lines {
        writeln!(file, "{line}").unwrap();
        file.flush().unwrap();
        sleep(Duration::from_millis(20));
    }
}

/// Waits for the watcher; returns its exit code, output, and when it ended.
fn finish(mut child: Child) -> (i32, String, Instant) {
    let status = child.wait().unwrap();
    let ended = Instant::now();
    let mut out = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert!(err.is_empty(), "stderr: {err}");
    (status.code().unwrap_or(-1), out, ended)
}

const OLD_LAUNCH_CRASH: &[&str] = &[
    "[2026-06-02 14:02:11] server_args=ServerArgs(model_path='/models/GLM-5', tp_size=8, port=30000)",
    "[2026-06-02 14:02:45 TP0] Load weight begin. avail mem=93.88 GB",
    "[2026-06-02 14:05:09 TP6] Scheduler hit an exception: Traceback (most recent call last):",
    "  File \"/v/site-packages/flashinfer/compilation_context.py\", line 66, in get_nvcc_flags_list",
    "    raise RuntimeError(",
    "RuntimeError: No supported CUDA architectures found for major versions [9, 10].",
    "",
    "[2026-06-02 14:05:09] Received sigquit from a child process. It usually means the child failed.",
    "Killed",
];

const NEW_LAUNCH: &[&str] = &[
    "[2026-06-02 14:31:40] server_args=ServerArgs(model_path='/models/GLM-5', tp_size=8, port=30000)",
    "[2026-06-02 14:32:14 TP0] Load weight begin. avail mem=93.88 GB",
    "[2026-06-02 14:34:30 TP0] Load weight end. type=GlmMoeForCausalLM, dtype=torch.bfloat16, avail mem=49.20 GB, mem usage=44.68 GB.",
    "[2026-06-02 14:38:02 TP0] Capture cuda graph begin. This can take up to several minutes. avail mem=6.91 GB",
    "[2026-06-02 14:39:15 TP0] Capture cuda graph end. Time elapsed: 72.84 s. mem usage=2.33 GB. avail mem=4.58 GB.",
    "[2026-06-02 14:39:21] INFO:     Application startup complete.",
];

const READY: &str = "[2026-06-02 14:39:29] The server is fired up and ready to roll!";

#[test]
fn an_earlier_crash_is_history_and_the_new_launch_becomes_ready() {
    let dir = TempDir::new("watch-ready");
    let log = dir.path().join("sglang-server.log");
    append(&log, OLD_LAUNCH_CRASH);
    let child = spawn_watch(&[log.to_str().unwrap(), "--until", "ready", "--timeout", "60s"]);
    sleep(Duration::from_millis(600));
    append(&log, NEW_LAUNCH);
    sleep(Duration::from_millis(600));
    append(&log, &[READY]);
    let written = Instant::now();
    let (code, out, ended) = finish(child);
    assert_eq!(code, 0, "{out}");
    assert!(ended - written < PROMPT, "decided {:?} after the ready line", ended - written);
    assert!(out.contains("earlier run, crashed"), "{out}");
    assert!(out.contains("warming-up") && out.contains(": ready"), "{out}");
    assert!(
        !out.contains("application startup")
            && !out.lines().any(|l| l.ends_with(": ready") && l.contains("14:39:21"))
    );
}

#[test]
fn a_launch_that_crashes_ends_the_watch_with_the_cause() {
    let dir = TempDir::new("watch-crash");
    let log = dir.path().join("sglang-server.log");
    append(&log, &NEW_LAUNCH[..2]);
    let child =
        spawn_watch(&[log.to_str().unwrap(), "--until", "ready", "--timeout", "60s", "--format", "json"]);
    sleep(Duration::from_millis(600));
    append(&log, &OLD_LAUNCH_CRASH[2..8]);
    let written = Instant::now();
    let (code, out, ended) = finish(child);
    assert_eq!(code, 1, "{out}");
    assert!(ended - written < PROMPT, "decided {:?} after the crash", ended - written);
    let records: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let crash = records.iter().find(|r| r["state"] == "crashed").expect("a crashed state");
    assert_eq!(crash["run"]["root_cause"]["category"], "flashinfer-unsupported-arch");
    assert_eq!(records.last().unwrap()["event"], "exit");
    assert_eq!(records.last().unwrap()["code"], 1);
}

#[test]
fn a_file_that_appears_later_is_followed() {
    let dir = TempDir::new("watch-appears");
    let log = dir.path().join("later.log");
    let child = spawn_watch(&[log.to_str().unwrap(), "--until", "ready", "--timeout", "60s"]);
    sleep(Duration::from_millis(500));
    append(&log, NEW_LAUNCH);
    append(&log, &[READY]);
    let (code, out, _) = finish(child);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn rotation_and_truncation_mid_run() {
    let dir = TempDir::new("watch-rotate");
    let log = dir.path().join("sglang-server.log");
    append(&log, &NEW_LAUNCH[..2]);
    let child = spawn_watch(&[log.to_str().unwrap(), "--until", "ready", "--timeout", "60s"]);
    // The watcher must have opened the file before it is renamed; a debug
    // build on a loaded machine can take most of a second to start.
    sleep(Duration::from_millis(1500));
    // logrotate's create mode: the file is renamed and a new one started.
    std::fs::rename(&log, dir.path().join("sglang-server.log.1")).unwrap();
    append(&log, &NEW_LAUNCH[2..4]);
    sleep(Duration::from_millis(500));
    // copytruncate mode: the file is emptied in place.
    std::fs::write(&log, "").unwrap();
    sleep(Duration::from_millis(500));
    append(&log, &NEW_LAUNCH[4..]);
    append(&log, &[READY]);
    let (code, out, _) = finish(child);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("replaced (rotated)") && out.contains("truncated"), "{out}");
    assert!(out.contains("capturing-cuda-graphs"), "the run continued across both: {out}");
}

/// `logdiag watch -` fed `lines` on stdin, which then closes.
fn watch_stdin(until: &str, lines: impl IntoIterator<Item = String>) -> (i32, String) {
    let mut child = Command::new(BIN)
        .args(["watch", "-", "--until", until, "--timeout", "60s"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for line in lines {
        writeln!(stdin, "{line}").unwrap();
    }
    drop(stdin);
    let (code, out, _) = finish(child);
    (code, out)
}

#[test]
fn stdin_that_closes_ends_the_watch() {
    let (code, out) = watch_stdin("ready", NEW_LAUNCH.iter().map(|l| l.to_string()));
    assert_eq!(code, 4, "the stream ended before the run was ready: {out}");
    assert!(out.contains("input ended"), "{out}");

    // The same stream as journal JSON (`journalctl -f -o json | logdiag watch -`), with a crash.
    let entries = NEW_LAUNCH[..2].iter().chain(&OLD_LAUNCH_CRASH[2..8]).map(|line| {
        serde_json::json!({"MESSAGE": line, "SYSLOG_IDENTIFIER": "python3", "_PID": "4242", "_SYSTEMD_UNIT": "sglang.service"})
            .to_string()
    });
    let (code, out) = watch_stdin("exit", entries);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("crashed") && out.contains("flashinfer-unsupported-arch"), "{out}");
}

#[test]
fn a_timeout_exits_124() {
    let dir = TempDir::new("watch-timeout");
    let log = dir.path().join("slow.log");
    append(&log, &NEW_LAUNCH[..2]);
    let (code, out, _) =
        finish(spawn_watch(&[log.to_str().unwrap(), "--until", "ready", "--timeout", "700ms"]));
    assert_eq!(code, 124, "{out}");
    assert!(out.contains("loading-weights") && out.contains("timeout"), "{out}");
}
