//! Journals of many units, as the real journalctl prints them: a boot's
//! journal with a serving unit, a crashing unit, the kernel and a few
//! system services interleaved, rendered in the modes users pipe in.

use std::path::{Path, PathBuf};

use crate::journal::{render, tools, write_journal};
use crate::util::*;

/// Who wrote an entry.
#[derive(Clone, Copy)]
enum Writer<'a> {
    /// The kernel.
    Kernel,
    /// systemd (PID 1) about a unit.
    Manager(&'a str),
    /// A unit's process: identifier, pid, unit.
    Process(&'a str, u32, &'a str),
}

/// One journal entry: seconds after the first, writer, message.
type Entry<'a> = (u64, Writer<'a>, &'a str);

/// The entries in journal export format.
fn export(entries: &[Entry<'_>]) -> String {
    let mut out = String::new();
    for (n, (second, writer, message)) in entries.iter().enumerate() {
        let usec = 1_764_496_800_000_000u64 + second * 1_000_000 + n as u64;
        out.push_str(&format!(
            "__CURSOR=s=0123456789abcdef0123456789abcdef;i={i:x};b=fedcba9876543210fedcba9876543210;m={usec:x};t={usec:x};x=1\n\
             __REALTIME_TIMESTAMP={usec}\n__MONOTONIC_TIMESTAMP={mono}\n_BOOT_ID=fedcba9876543210fedcba9876543210\n\
             _HOSTNAME=gpu-node-7\nPRIORITY=6\nMESSAGE={message}\n",
            i = n + 1,
            mono = 5_000_000 + second * 1_000_000 + n as u64,
        ));
        match writer {
            Writer::Kernel => out.push_str("SYSLOG_IDENTIFIER=kernel\n_TRANSPORT=kernel\n"),
            Writer::Manager(unit) => out.push_str(&format!(
                "SYSLOG_IDENTIFIER=systemd\n_PID=1\n_TRANSPORT=journal\n_SYSTEMD_UNIT=init.scope\nUNIT={unit}\n"
            )),
            Writer::Process(identifier, pid, unit) => out.push_str(&format!(
                "SYSLOG_IDENTIFIER={identifier}\n_PID={pid}\n_TRANSPORT=stdout\n_SYSTEMD_UNIT={unit}\n"
            )),
        }
        out.push('\n');
    }
    out
}

const SGLANG: Writer<'static> = Writer::Process("python3", 1104, "sglang.service");
const TRAINER: Writer<'static> = Writer::Process("python3", 2201, "trainer.service");

/// The start of a boot: the kernel, cron and ssh, then sglang.service.
const BOOT: [Entry<'static>; 9] = [
    (0, Writer::Kernel, "Linux version 6.8.0-49-generic (buildd@lcy02-amd64-103) (x86_64-linux-gnu-gcc-13 (Ubuntu 13.2.0-23ubuntu4) 13.2.0) #49-Ubuntu SMP PREEMPT_DYNAMIC"),
    (1, Writer::Kernel, "nvidia: module license 'NVIDIA' taints kernel."),
    (2, Writer::Manager("cron.service"), "Started cron.service - Regular background program processing daemon."),
    (2, Writer::Process("cron", 812, "cron.service"), "(CRON) INFO (Running @reboot jobs)"),
    (3, Writer::Manager("ssh.service"), "Started ssh.service - OpenBSD Secure Shell server."),
    (3, Writer::Process("sshd", 820, "ssh.service"), "Server listening on 0.0.0.0 port 22."),
    (5, Writer::Manager("sglang.service"), "Started sglang.service - SGLang server."),
    (7, SGLANG, "[2026-11-30 10:00:07] server_args=ServerArgs(model_path='/models/Qwen3-8B', tp_size=1, port=30000)"),
    (9, SGLANG, "[2026-11-30 10:00:09] Load weight begin. avail mem=78.50 GB"),
];

/// sglang serves the whole time; trainer.service dies of CUDA OOM.
fn two_services() -> Vec<Entry<'static>> {
    let mut entries = BOOT.to_vec();
    entries.extend([
        (10, Writer::Manager("trainer.service"), "Started trainer.service - Fine-tuning job."),
        (11, TRAINER, "Epoch 0: loading dataset /data/train.jsonl"),
        (40, SGLANG, "[2026-11-30 10:00:40] The server is fired up and ready to roll!"),
        (41, SGLANG, "[2026-11-30 10:00:41 TP0] Decode batch. #running-req: 4, #token: 2048, token usage: 0.01, cuda graph: True, gen throughput (token/s): 512.33, #queue-req: 0"),
        (60, TRAINER, "Traceback (most recent call last):"),
        (60, TRAINER, "  File \"/opt/train/train.py\", line 88, in <module>"),
        (60, TRAINER, "    loss.backward()"),
        (60, TRAINER, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB. GPU 1 has a total capacity of 79.19 GiB of which 3.06 GiB is free. Including non-PyTorch memory, this process has 76.12 GiB memory in use."),
        (61, Writer::Manager("trainer.service"), "trainer.service: Main process exited, code=exited, status=1/FAILURE"),
        (61, Writer::Manager("trainer.service"), "trainer.service: Failed with result 'exit-code'."),
        (70, Writer::Process("sshd", 3001, "ssh.service"), "Accepted publickey for ops from 10.0.0.5 port 52000 ssh2: ED25519 SHA256:4fJq"),
        (90, SGLANG, "[2026-11-30 10:01:30 TP0] Decode batch. #running-req: 6, #token: 3072, token usage: 0.02, cuda graph: True, gen throughput (token/s): 701.10, #queue-req: 0"),
        (95, Writer::Process("CRON", 3100, "cron.service"), "(root) CMD (command -v debian-sa1 > /dev/null && debian-sa1 1 1)"),
        (99, SGLANG, "[2026-11-30 10:01:39] INFO:     127.0.0.1:40312 - \"POST /generate HTTP/1.1\" 200 OK"),
    ]);
    entries
}

/// The kernel's OOM killer kills sglang's process; systemd then says only
/// that the unit's main process died of SIGKILL.
fn kernel_oom_kill() -> Vec<Entry<'static>> {
    let mut entries = BOOT.to_vec();
    entries.extend([
        (40, SGLANG, "[2026-11-30 10:00:40] The server is fired up and ready to roll!"),
        (41, SGLANG, "[2026-11-30 10:00:41 TP0] Decode batch. #running-req: 4, #token: 2048, token usage: 0.01, cuda graph: True, gen throughput (token/s): 512.33, #queue-req: 0"),
        (70, Writer::Process("sshd", 3001, "ssh.service"), "Accepted publickey for ops from 10.0.0.5 port 52000 ssh2: ED25519 SHA256:4fJq"),
        (300, Writer::Kernel, "python3 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0"),
        (300, Writer::Kernel, "Mem-Info:"),
        (300, Writer::Kernel, "Out of memory: Killed process 1104 (python3) total-vm:301234567kB, anon-rss:1009876543kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:2001234kB oom_score_adj:0"),
        (301, Writer::Kernel, "oom_reaper: reaped process 1104 (python3), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB"),
        (302, Writer::Manager("sglang.service"), "sglang.service: Main process exited, code=killed, status=9/KILL"),
        (302, Writer::Manager("sglang.service"), "sglang.service: Failed with result 'signal'."),
    ]);
    entries
}

/// The modes this journal is rendered in.
const MODES: [&str; 6] = ["short", "short-precise", "with-unit", "json", "export", "verbose"];

fn rendered(dir: &TempDir, entries: &[Entry<'_>], name: &str) -> Vec<(String, PathBuf)> {
    let journal = write_journal(dir, &format!("{name}.journal"), &export(entries));
    MODES
        .iter()
        .map(|mode| {
            let path = dir.path().join(format!("{name}.{mode}"));
            render(&journal, &["-o", mode], &path);
            (mode.to_string(), path)
        })
        .collect()
}

fn runs_of<'a>(report: &'a serde_json::Value, unit: &str) -> Vec<&'a serde_json::Value> {
    report["runs"].as_array().unwrap().iter().filter(|r| r["unit"] == unit).collect()
}

fn line_of(path: &Path, line: &serde_json::Value) -> String {
    let text = String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned();
    text.lines().nth(line.as_u64().unwrap() as usize - 1).unwrap_or_default().to_string()
}

#[test]
fn a_boot_journal_judges_each_unit_on_its_own() {
    let Some(()) = tools() else { return };
    let dir = TempDir::new("units-two-services");
    for (mode, path) in rendered(&dir, &two_services(), "boot") {
        let path_str = path.to_str().unwrap();
        let out = run(&["--format", "json", path_str]);
        assert_eq!(out.status.code(), Some(1), "{mode}: {}", stdout(&out));
        let report = json(&out);
        let trainer = runs_of(&report, "trainer.service");
        assert_eq!(trainer.len(), 1, "{mode}: {report}");
        let cause = &trainer[0]["root_cause"];
        assert_eq!(cause["category"], "cuda-oom", "{mode}: {cause}");
        let decisive = line_of(&path, &cause["evidence"][0]["line"]);
        assert!(decisive.contains("torch.OutOfMemoryError: CUDA out of memory"), "{mode}: {decisive}");
        let sglang = runs_of(&report, "sglang.service");
        assert_eq!(sglang.len(), 1, "{mode}: {report}");
        assert_eq!(sglang[0]["outcome"], "healthy", "{mode}: {}", sglang[0]);
        assert_eq!(report["root_cause"]["category"], "cuda-oom", "{mode}");

        // --unit narrows the verdict: the serving unit alone is healthy.
        let serving = run(&["--format", "json", "--unit", "sglang", path_str]);
        assert_eq!(serving.status.code(), Some(0), "{mode}: {}", stdout(&serving));
        let serving = json(&serving);
        assert!(serving["runs"].as_array().unwrap().iter().all(|r| r["unit"] == "sglang.service"), "{mode}");
        let crashing = run(&["--unit", "trainer.service", "--unit", "nope", path_str]);
        assert_eq!(crashing.status.code(), Some(1), "{mode}: {}", stdout(&crashing));
        let globbed = run(&["--unit", "train*", path_str]);
        assert_eq!(globbed.status.code(), Some(1), "{mode}");

        // The text report puts the crashed unit first and folds the quiet ones.
        let text = stdout(&run(&[path_str]));
        let first = text.lines().next().unwrap();
        assert!(first.contains("(trainer.service)  CRASH") && first.contains("CUDA"), "{mode}: {text}");
        assert!(
            text.contains("2 other units with nothing notable: cron.service, ssh.service"),
            "{mode}: {text}"
        );
        // -v shows every unit's runs.
        let all = stdout(&run(&["-v", path_str]));
        assert!(all.contains("(cron.service)") && !all.contains("nothing notable"), "{mode}: {all}");
    }
}

#[test]
fn a_kernel_oom_kill_names_the_unit_by_its_pid() {
    let Some(()) = tools() else { return };
    let dir = TempDir::new("units-kernel-oom");
    for (mode, path) in rendered(&dir, &kernel_oom_kill(), "oom") {
        let out = run(&["--format", "json", "--unit", "sglang.service", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1), "{mode}: {}", stdout(&out));
        let report = json(&out);
        let cause = &report["root_cause"];
        assert_eq!(cause["category"], "host-oom-kill", "{mode}: {report}");
        let evidence: Vec<String> =
            cause["evidence"].as_array().unwrap().iter().map(|e| line_of(&path, &e["line"])).collect();
        assert!(evidence[0].contains("Out of memory: Killed process 1104 (python3)"), "{mode}: {evidence:?}");
        // The unit's SIGKILL is what the kill explains.
        let sglang = runs_of(&report, "sglang.service");
        let killed = sglang[0]["symptoms"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["rule"] == "systemd.killed-by-sigkill");
        let killed = killed.unwrap_or_else(|| panic!("{mode}: {report}"));
        assert!(line_of(&path, &killed["line"]).contains("status=9/KILL"), "{mode}");
        assert!(killed["why"].as_str().unwrap().contains("kernel.oom-killed-process"), "{mode}: {killed}");
    }
}

/// `kubectl logs -l app=llm --all-containers --prefix --timestamps`: two
/// pods interleaved, one dies of CUDA OOM while loading, one serves.
fn two_pods() -> String {
    let lines = [
        ("llm-0", "[2026-11-30 10:00:00] server_args=ServerArgs(model_path='/models/Qwen3-32B', tp_size=2, port=30000)"),
        ("llm-1", "[2026-11-30 10:00:00] server_args=ServerArgs(model_path='/models/Qwen3-32B', tp_size=2, port=30000)"),
        ("llm-0", "[2026-11-30 10:00:09 TP0] Load weight begin. avail mem=78.50 GB"),
        ("llm-1", "[2026-11-30 10:00:09 TP0] Load weight begin. avail mem=78.50 GB"),
        ("llm-0", "[2026-11-30 10:00:31 TP1] Scheduler hit an exception: Traceback (most recent call last):"),
        ("llm-0", "  File \"/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py\", line 2410, in run_scheduler_process"),
        ("llm-1", "[2026-11-30 10:00:31] The server is fired up and ready to roll!"),
        ("llm-0", "    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, moe_ep_rank, pp_rank, dp_rank)"),
        ("llm-0", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 1 has a total capacity of 79.19 GiB of which 312.00 MiB is free."),
        ("llm-0", "[2026-11-30 10:00:31] Received sigquit from a child process. It usually means the child failed."),
        ("llm-1", "[2026-11-30 10:00:40 TP0] Decode batch. #running-req: 4, #token: 2048, token usage: 0.01, cuda graph: True, gen throughput (token/s): 512.33, #queue-req: 0"),
    ];
    lines
        .iter()
        .enumerate()
        .map(|(i, (pod, line))| format!("[pod/{pod}/server] 2026-11-30T10:00:{i:02}.123456789Z {line}\n"))
        .collect()
}

#[test]
fn each_pod_and_each_compose_service_is_judged_on_its_own() {
    let pods = two_pods();
    // docker compose prints the same as `service-1  | line`.
    let compose: String = pods
        .lines()
        .map(|l| {
            let (prefix, rest) = l.split_once("] ").unwrap();
            let name = if prefix.contains("llm-0") { "sglang-1" } else { "sglang-2" };
            format!("{name}  | {}\n", rest.split_once(' ').unwrap().1)
        })
        .collect();
    for (input, crashed, serving) in
        [(pods.as_str(), "pod/llm-0/server", "pod/llm-1/server"), (compose.as_str(), "sglang-1", "sglang-2")]
    {
        let out = run_stdin(&["--format", "json", "-"], input.as_bytes());
        assert_eq!(out.status.code(), Some(1), "{input}");
        let report = json(&out);
        let dead = runs_of(&report, crashed);
        assert_eq!(dead.len(), 1, "{report}");
        assert_eq!(dead[0]["root_cause"]["category"], "cuda-oom", "{}", dead[0]);
        let evidence = dead[0]["root_cause"]["evidence"][0]["text"].as_str().unwrap();
        assert!(evidence.contains("torch.OutOfMemoryError"), "{evidence}");
        let live = runs_of(&report, serving);
        assert_eq!(live.len(), 1, "{report}");
        assert_eq!(live[0]["outcome"], "healthy", "{}", live[0]);
        let pattern = if serving.starts_with("pod/") { "llm-1" } else { "sglang-2" };
        let only = run_stdin(&["--unit", pattern, "-"], input.as_bytes());
        assert_eq!(only.status.code(), Some(0), "{}", stdout(&only));
    }
}

/// The same two pods as Loki's `logcli query '{app="llm"}' -o jsonl`
/// prints them: newest first by default, oldest first with `--forward`.
#[test]
fn loki_label_sets_are_units_in_either_order() {
    let pods = two_pods();
    let mut forward = String::new();
    for line in pods.lines() {
        let (prefix, rest) = line.split_once("] ").unwrap();
        let pod = prefix.trim_start_matches("[pod/").split('/').next().unwrap();
        let (stamp, text) = rest.split_once(' ').unwrap();
        // logcli cuts trailing zeros of the fraction.
        let stamp = stamp.replace(".123456789Z", ".1234567Z");
        let record = serde_json::json!({
            "labels": {"app": "llm", "container": "server", "pod": pod, "stream": "stderr"},
            "line": text,
            "timestamp": stamp,
        });
        forward.push_str(&format!("{record}\n"));
    }
    let newest_first: String = forward.lines().rev().map(|l| format!("{l}\n")).collect();
    for input in [forward, newest_first] {
        let out = run_stdin(&["--format", "json", "-"], input.as_bytes());
        assert_eq!(out.status.code(), Some(1), "{input}");
        let report = json(&out);
        let dead = runs_of(&report, r#"{app="llm", container="server", pod="llm-0"}"#);
        assert_eq!(dead.len(), 1, "{report}");
        assert_eq!(dead[0]["root_cause"]["category"], "cuda-oom", "{}", dead[0]);
        let line = dead[0]["root_cause"]["evidence"][0]["line"].as_u64().unwrap() as usize;
        assert!(input.lines().nth(line - 1).unwrap().contains("torch.OutOfMemoryError"), "{line}");
        let live = runs_of(&report, r#"{app="llm", container="server", pod="llm-1"}"#);
        assert_eq!(live.len(), 1, "{report}");
        assert_eq!(live[0]["outcome"], "healthy", "{}", live[0]);
        assert!(report["inputs"][0]["formats"].as_array().unwrap().iter().any(|f| f == "loki-jsonl"));
    }
}

/// The kernel's segfault and Xid lines name the process: they are the
/// cause of that process's unit, not of the boot or of another unit.
#[test]
fn segfault_and_xid_lines_go_to_the_unit_of_their_pid() {
    let journal = "\
Nov 30 10:00:05 gpu-node-7 systemd[1]: Started sglang.service - SGLang server.
Nov 30 10:00:07 gpu-node-7 python3[1104]: [2026-11-30 10:00:07] server_args=ServerArgs(model_path='/models/Qwen3-8B', tp_size=1, port=30000)
Nov 30 10:00:10 gpu-node-7 systemd[1]: Started trainer.service - Fine-tuning job.
Nov 30 10:00:11 gpu-node-7 python3[2201]: Epoch 0: loading dataset /data/train.jsonl
Nov 30 10:00:40 gpu-node-7 python3[1104]: [2026-11-30 10:00:40] The server is fired up and ready to roll!
Nov 30 10:01:00 gpu-node-7 kernel: NVRM: Xid (PCI:0000:3b:00): 31, pid=2201, name=python3, Ch 00000010, intr 10000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f29_5b8c9000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ
Nov 30 10:01:00 gpu-node-7 kernel: python3[2201]: segfault at 0 ip 00007f1c2a89eb2c sp 00007ffd1e0c1a40 error 4 in libcuda.so.550.127.05[7f1c2a828000+195000] likely on CPU 3 (core 3, socket 0)
Nov 30 10:01:01 gpu-node-7 systemd-coredump[5000]: Process 2201 (python3) of user 0 dumped core.
Nov 30 10:01:01 gpu-node-7 systemd[1]: trainer.service: Main process exited, code=dumped, status=11/SEGV
Nov 30 10:01:01 gpu-node-7 systemd[1]: trainer.service: Failed with result 'core-dump'.
Nov 30 10:01:30 gpu-node-7 python3[1104]: [2026-11-30 10:01:30 TP0] Decode batch. #running-req: 6, #token: 3072, token usage: 0.02, cuda graph: True, gen throughput (token/s): 701.10, #queue-req: 0
";
    let out = run_stdin(&["--format", "json", "-"], journal.as_bytes());
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let report = json(&out);
    let trainer = runs_of(&report, "trainer.service");
    assert_eq!(trainer.len(), 1, "{report}");
    let evidence = &trainer[0]["root_cause"]["evidence"][0];
    assert!(
        evidence["text"].as_str().unwrap().contains("NVRM: Xid (PCI:0000:3b:00): 31, pid=2201"),
        "{evidence}"
    );
    let lines = |run: &serde_json::Value| -> Vec<u64> {
        let cause = run["root_cause"]["evidence"].as_array().into_iter().flatten();
        let symptoms = run["symptoms"].as_array().into_iter().flatten();
        cause.chain(symptoms).map(|e| e["line"].as_u64().unwrap()).collect()
    };
    assert!(lines(trainer[0]).contains(&8), "the core dump of pid 2201: {}", trainer[0]);
    let sglang = runs_of(&report, "sglang.service");
    assert_eq!(sglang.len(), 1, "{report}");
    assert_eq!(sglang[0]["outcome"], "healthy", "{}", sglang[0]);
    assert!(sglang[0]["symptoms"].as_array().unwrap().is_empty(), "{}", sglang[0]);
    let quiet = run_stdin(&["--unit", "sglang.service", "-"], journal.as_bytes());
    assert_eq!(quiet.status.code(), Some(0), "{}", stdout(&quiet));
}

/// `logdiag watch --unit` follows one unit of a journal of several.
#[test]
fn watch_follows_the_unit_it_is_given() {
    let Some(()) = tools() else { return };
    let dir = TempDir::new("units-watch");
    let (_, short) = rendered(&dir, &two_services(), "watch").into_iter().next().unwrap();
    let short = short.to_str().unwrap();
    let ready = run(&["watch", "--until", "ready", "--timeout", "60s", "--unit", "sglang", short]);
    assert_eq!(ready.status.code(), Some(0), "{}", stdout(&ready));
    let crashed = run(&["watch", "--until", "exit", "--timeout", "60s", "--unit", "trainer", short]);
    assert_eq!(crashed.status.code(), Some(1), "{}", stdout(&crashed));
    assert!(stdout(&crashed).contains("trainer.service"), "{}", stdout(&crashed));
}

/// In a short-mode boot journal, another program may write between a
/// unit's start and its process's first line; the kernel's lines stay the
/// boot's, never the first unit's.
#[test]
fn a_helper_writing_first_does_not_take_the_units_process_away() {
    let journal = "\
Nov 30 10:00:00 gpu-node-7 kernel: Linux version 6.8.0-49-generic (buildd@lcy02-amd64-103) #49-Ubuntu SMP PREEMPT_DYNAMIC
Nov 30 10:00:02 gpu-node-7 systemd[1]: Started cron.service - Regular background program processing daemon.
Nov 30 10:00:05 gpu-node-7 systemd[1]: Started sglang.service - SGLang server.
Nov 30 10:00:05 gpu-node-7 nvidia-persistenced[900]: Started (900)
Nov 30 10:00:07 gpu-node-7 python3[1104]: [2026-11-30 10:00:07] server_args=ServerArgs(model_path='/models/Qwen3-8B', tp_size=1, port=30000)
Nov 30 10:00:40 gpu-node-7 python3[1104]: [2026-11-30 10:00:40] The server is fired up and ready to roll!
Nov 30 10:05:00 gpu-node-7 kernel: Out of memory: Killed process 1104 (python3) total-vm:301234567kB, anon-rss:1009876543kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:2001234kB oom_score_adj:0
Nov 30 10:05:02 gpu-node-7 systemd[1]: sglang.service: Main process exited, code=killed, status=9/KILL
Nov 30 10:05:02 gpu-node-7 systemd[1]: sglang.service: Failed with result 'signal'.
";
    let out = run_stdin(&["--format", "json", "-"], journal.as_bytes());
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let report = json(&out);
    let sglang = runs_of(&report, "sglang.service");
    assert_eq!(sglang.len(), 1, "{report}");
    assert_eq!(sglang[0]["root_cause"]["category"], "host-oom-kill", "{}", sglang[0]);
    assert_eq!(sglang[0]["first_line"], 3, "{}", sglang[0]);
    assert!(runs_of(&report, "cron.service").iter().all(|r| r["first_line"] != 1), "{report}");
}

/// Two units started in the same second whose writers match neither
/// name (issue 31): a short-mode journal binds both processes to the unit
/// started last, and the trainer's end shows that the one serving after it
/// was the other unit's.
fn started_together() -> Vec<Entry<'static>> {
    let sglang = Writer::Process("python3", 5000, "sglang.service");
    let trainer = Writer::Process("torchrun", 5001, "trainer.service");
    vec![
        (0, Writer::Manager("sglang.service"), "Started sglang.service - SGLang server (Qwen3-8B)."),
        (0, Writer::Manager("trainer.service"), "Started trainer.service - torchrun fine-tuning job."),
        (3, sglang, "[2026-06-02 10:00:03] server_args=ServerArgs(model_path='/models/Qwen3-8B', tp_size=1, port=30000)"),
        (4, trainer, "W0602 10:00:04.123000 5001 torch/distributed/run.py:793] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded."),
        (21, sglang, "[2026-06-02 10:00:21] The server is fired up and ready to roll!"),
        (40, sglang, "[2026-06-02 10:00:40 TP0] Decode batch. #running-req: 8, #token: 4096, token usage: 0.05, gen throughput (token/s): 812.40, #queue-req: 0"),
        (41, trainer, "[rank0]: Traceback (most recent call last):"),
        (41, trainer, "[rank0]:   File \"/srv/train.py\", line 88, in <module>"),
        (41, trainer, "[rank0]:     loss.backward()"),
        (41, trainer, "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB of which 1.20 GiB is free."),
        (43, Writer::Manager("trainer.service"), "trainer.service: Main process exited, code=exited, status=1/FAILURE"),
        (43, Writer::Manager("trainer.service"), "trainer.service: Failed with result 'exit-code'."),
        (60, sglang, "[2026-06-02 10:01:00 TP0] Decode batch. #running-req: 8, #token: 4608, token usage: 0.06, gen throughput (token/s): 806.10, #queue-req: 0"),
        (80, sglang, "[2026-06-02 10:01:20 TP0] Decode batch. #running-req: 8, #token: 5120, token usage: 0.07, gen throughput (token/s): 809.70, #queue-req: 0"),
    ]
}

#[test]
fn units_started_together_are_told_apart_by_their_fates() {
    let Some(()) = tools() else { return };
    let dir = TempDir::new("units-together");
    for (mode, path) in rendered(&dir, &started_together(), "together") {
        let report = json(&run(&["--format", "json", path.to_str().unwrap()]));
        let trainer = runs_of(&report, "trainer.service");
        assert_eq!(trainer.len(), 1, "{mode}: {report}");
        assert_eq!(trainer[0]["root_cause"]["category"], "cuda-oom", "{mode}: {report}");
        assert!(trainer[0]["vitals"].is_null(), "{mode}: the trainer drew sglang's speed: {report}");
        let sglang = runs_of(&report, "sglang.service");
        assert_eq!(sglang.len(), 1, "{mode}: {report}");
        assert_eq!(sglang[0]["outcome"], "healthy", "{mode}: {report}");
        assert!(!sglang[0]["vitals"].is_null(), "{mode}: {report}");
        // Where the journal does not name each line's unit, the report
        // says how the lines were attributed.
        let notices = report["inputs"][0]["notices"].to_string();
        let short = mode.starts_with("short");
        assert_eq!(
            notices.contains("python3[5000] was first taken for trainer.service"),
            short,
            "{mode}: {notices}"
        );
    }
}

#[test]
fn a_guess_nothing_disproves_is_reported_as_a_guess() {
    let Some(()) = tools() else { return };
    let dir = TempDir::new("units-together-cut");
    let entries = started_together();
    let cut = &entries[..entries.len() - 2];
    let (_, short) = rendered(&dir, cut, "cut").into_iter().find(|(mode, _)| mode == "short").unwrap();
    let text = stdout(&run(&[short.to_str().unwrap()]));
    assert!(
        text.contains("sglang.service and trainer.service were started together")
            && text.contains("python3[5000] and torchrun[5001] to trainer.service by order alone"),
        "{text}"
    );
}

/// A journal excerpt that starts after boot (`journalctl --since`): a
/// timer's unit ran just before, and the kernel names the killed process's
/// unit before systemd does.
fn oom_after_boot() -> Vec<Entry<'static>> {
    let sglang = Writer::Process("python", 70112, "sglang.service");
    vec![
        (0, Writer::Process("CRON", 81201, "cron.service"), "(root) CMD (test -x /usr/sbin/anacron || { cd / && run-parts --report /etc/cron.hourly; })"),
        (299, Writer::Manager("logrotate.service"), "Starting logrotate.service - Rotate log files..."),
        (299, Writer::Manager("logrotate.service"), "logrotate.service: Deactivated successfully."),
        (299, Writer::Manager("logrotate.service"), "Finished logrotate.service - Rotate log files."),
        (580, sglang, "[2026-05-25 20:09:41 TP0] Decode batch. #running-req: 64, #token: 131072, token usage: 0.32, gen throughput (token/s): 2211.40, #queue-req: 0"),
        (660, Writer::Kernel, "python invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0"),
        (660, Writer::Kernel, "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/system.slice/sglang.service,task=python,pid=70112,uid=0"),
        (660, Writer::Kernel, "Out of memory: Killed process 70112 (python) total-vm:1293932328kB, anon-rss:1120543212kB, file-rss:204800kB, shmem-rss:0kB, UID:0 pgtables:2238980kB oom_score_adj:0"),
        (662, Writer::Manager("sglang.service"), "sglang.service: A process of this unit has been killed by the OOM killer."),
        (664, Writer::Manager("sglang.service"), "sglang.service: Main process exited, code=killed, status=9/KILL"),
    ]
}

#[test]
fn a_kernel_oom_kill_goes_to_the_unit_of_the_process_it_killed() {
    let Some(()) = tools() else { return };
    let dir = TempDir::new("units-oom-after-boot");
    for (mode, path) in rendered(&dir, &oom_after_boot(), "after-boot") {
        let path = path.to_str().unwrap();
        let report = json(&run(&["--format", "json", path]));
        let crashed: Vec<&serde_json::Value> =
            report["runs"].as_array().unwrap().iter().filter(|r| r["outcome"] == "crash").collect();
        assert_eq!(crashed.len(), 1, "{mode}: {report}");
        assert_eq!(crashed[0]["unit"], "sglang.service", "{mode}: {report}");
        assert_eq!(crashed[0]["root_cause"]["category"], "host-oom-kill", "{mode}: {report}");
        // The unit that started last did not die of it.
        let logrotate = run(&["--unit", "logrotate*", path]);
        assert_eq!(logrotate.status.code(), Some(0), "{mode}: {}", stdout(&logrotate));
    }
}

/// Ten restarts that crash the same way, then systemd's start limit.
fn restart_loop() -> Vec<Entry<'static>> {
    const PIDS: [u32; 10] = [6000, 6007, 6014, 6021, 6028, 6035, 6042, 6049, 6056, 6063];
    let mut entries = Vec::new();
    for (i, &pid) in PIDS.iter().enumerate() {
        let at = i as u64 * 12;
        let server = Writer::Process("python3", pid, "sglang.service");
        entries.extend([
            (at, Writer::Manager("sglang.service"), "Started sglang.service - SGLang server."),
            (at + 2, server, "[2026-06-02 10:00:02] server_args=ServerArgs(model_path='/models/Qwen3-8B', tp_size=1, port=30000)"),
            (at + 5, server, "Traceback (most recent call last):"),
            (at + 5, server, "  File \"/usr/lib/python3/dist-packages/sglang/launch_server.py\", line 11, in <module>"),
            (at + 5, server, "    launch_server(server_args)"),
            (at + 5, server, "OSError: [Errno 98] error while attempting to bind on address ('0.0.0.0', 30000): address already in use"),
            (at + 6, Writer::Manager("sglang.service"), "sglang.service: Main process exited, code=exited, status=1/FAILURE"),
            (at + 6, Writer::Manager("sglang.service"), "sglang.service: Failed with result 'exit-code'."),
        ]);
    }
    entries.extend([
        (121, Writer::Manager("sglang.service"), "sglang.service: Start request repeated too quickly."),
        (121, Writer::Manager("sglang.service"), "sglang.service: Failed with result 'start-limit-hit'."),
    ]);
    entries
}

#[test]
fn a_restart_loop_is_one_entry_named_as_a_loop() {
    let Some(()) = tools() else { return };
    let dir = TempDir::new("units-restart-loop");
    for (mode, path) in rendered(&dir, &restart_loop(), "loop") {
        let out = run(&[path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1), "{mode}");
        let text = stdout(&out);
        assert!(
            text.contains("crash loop: the same crash in 10 launches in a row (runs 1–10)"),
            "{mode}: {text}"
        );
        assert!(text.contains("systemd stopped restarting it (start-limit-hit)"), "{mode}: {text}");
        assert_eq!(text.matches("crashed the same way 9 times").count(), 1, "{mode}: {text}");
        // The details are the current launch's, once.
        assert_eq!(text.matches("Root cause:").count(), 1, "{mode}: {text}");
        assert!(text.lines().count() < 60, "{mode}: {} lines: {text}", text.lines().count());
    }
}
