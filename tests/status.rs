//! `systemctl status` pastes: the status block, the journal lines under
//! it, hard-wrapped lines and bare systemd messages, in either order.
//! The layouts are systemctl's (systemctl-show.c); the 203/EXEC paste is
//! karmab/kcli#663 as posted.

use crate::util::*;

/// A unit killed by the OOM killer: status block, then its journal lines.
const OOM_KILL: &str = r#"× sglang-eagle3.service - SGLang K2.6 with EAGLE-3 speculative decoding
     Loaded: loaded (/etc/systemd/system/sglang-eagle3.service; enabled; preset: enabled)
     Active: failed (Result: oom-kill) since Mon 2026-05-25 20:11:05 UTC; 7h ago
   Duration: 13min 3.012s
    Process: 70112 ExecStart=/opt/sglang/venv/bin/python -m sglang.launch_server --model-path /models/Kimi-K2.6 --tp 8 (code=killed, signal=KILL)
   Main PID: 70112 (code=killed, signal=KILL)
        CPU: 3h 12min 41.207s

May 25 20:10:58 gpu-node-1 python[70112]: [2026-05-25 20:10:58 TP0] Decode batch. #running-req: 128, #token: 262144, token usage: 0.64, accept len: 3.05, gen throughput (token/s): 2980.77, #queue-req: 71
May 25 20:11:03 gpu-node-1 systemd[1]: sglang-eagle3.service: A process of this unit has been killed by the OOM killer.
May 25 20:11:05 gpu-node-1 systemd[1]: sglang-eagle3.service: Main process exited, code=killed, status=9/KILL
May 25 20:11:05 gpu-node-1 systemd[1]: sglang-eagle3.service: Failed with result 'oom-kill'.
May 25 20:11:05 gpu-node-1 systemd[1]: sglang-eagle3.service: Consumed 3h 12min 41.207s CPU time, 1.3T memory peak.
"#;

/// kcli#663: ExecStart= names a program that does not exist.
const EXEC_FAILED: &str = r#"× ksushy.service - Ksushy emulator service
     Loaded: loaded (/lib/systemd/system/ksushy.service; enabled; vendor preset: enabled)
     Active: failed (Result: exit-code) since Thu 2024-04-11 08:04:26 UTC; 2min 3s ago
   Main PID: 98303 (code=exited, status=203/EXEC)
        CPU: 602us

Apr 11 08:04:26 swx-forge08 systemd[1]: Started Ksushy emulator service.
Apr 11 08:04:26 swx-forge08 systemd[98303]: ksushy.service: Failed to locate executable /usr/bin/ksushy: No such file or directory
Apr 11 08:04:26 swx-forge08 systemd[98303]: ksushy.service: Failed at step EXEC spawning /usr/bin/ksushy: No such file or directory
Apr 11 08:04:26 swx-forge08 systemd[1]: ksushy.service: Main process exited, code=exited, status=203/EXEC
Apr 11 08:04:26 swx-forge08 systemd[1]: ksushy.service: Failed with result 'exit-code'.
"#;

/// The port is taken; systemd restarts the unit until the start limit.
const PORT_THEN_START_LIMIT: &str = r#"× sglang.service - SGLang server
     Loaded: loaded (/etc/systemd/system/sglang.service; enabled; preset: enabled)
     Active: failed (Result: start-limit-hit) since Tue 2026-11-24 09:12:44 UTC; 3min ago
   Duration: 8.120s
    Process: 41877 ExecStart=/opt/sglang/venv/bin/python -m sglang.launch_server --model-path /models/Qwen3-8B --port 30000 (code=exited, status=1/FAILURE)
   Main PID: 41877 (code=exited, status=1/FAILURE)
        CPU: 9.870s

Nov 24 09:12:40 gpu-node-3 python[41877]: ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 30000): address already in use
Nov 24 09:12:41 gpu-node-3 systemd[1]: sglang.service: Main process exited, code=exited, status=1/FAILURE
Nov 24 09:12:41 gpu-node-3 systemd[1]: sglang.service: Failed with result 'exit-code'.
Nov 24 09:12:44 gpu-node-3 systemd[1]: sglang.service: Scheduled restart job, restart counter is at 5.
Nov 24 09:12:44 gpu-node-3 systemd[1]: sglang.service: Start request repeated too quickly.
Nov 24 09:12:44 gpu-node-3 systemd[1]: sglang.service: Failed with result 'start-limit-hit'.
Nov 24 09:12:44 gpu-node-3 systemd[1]: Failed to start sglang.service - SGLang server.
"#;

/// systemd's watchdog aborts a server that stopped sending keep-alives.
const WATCHDOG: &str = r#"● sglang.service - SGLang server
     Loaded: loaded (/etc/systemd/system/sglang.service; enabled; vendor preset: enabled)
     Active: failed (Result: watchdog) since Tue 2026-11-24 10:03:02 UTC; 40s ago
   Main PID: 52001 (code=dumped, signal=ABRT)
        CPU: 2h 1min 3.331s

Nov 24 10:00:00 gpu-node-3 python[52001]: [2026-11-24 10:00:00 TP0] Decode batch. #running-req: 12, #token: 24576, token usage: 0.06, cuda graph: True, gen throughput (token/s): 812.40, #queue-req: 0
Nov 24 10:03:00 gpu-node-3 systemd[1]: sglang.service: Watchdog timeout (limit 3min)!
Nov 24 10:03:00 gpu-node-3 systemd[1]: sglang.service: Killing process 52001 (python) with signal SIGABRT.
Nov 24 10:03:02 gpu-node-3 systemd[1]: sglang.service: Main process exited, code=dumped, status=6/ABRT
Nov 24 10:03:02 gpu-node-3 systemd[1]: sglang.service: Failed with result 'watchdog'.
"#;

fn diagnose(paste: &str) -> (Option<i32>, serde_json::Value) {
    let out = run_stdin(&["--format", "json", "-"], paste.as_bytes());
    (out.status.code(), json(&out))
}

/// The decisive line's number and text, and the cause's category.
fn cause(report: &serde_json::Value) -> (String, u64, String) {
    let cause = &report["root_cause"];
    let decisive = &cause["evidence"][0];
    (
        cause["category"].as_str().unwrap_or_default().to_string(),
        decisive["line"].as_u64().unwrap_or_default(),
        decisive["text"].as_str().unwrap_or_default().to_string(),
    )
}

fn symptom_rules(report: &serde_json::Value) -> Vec<String> {
    let runs = report["runs"].as_array().unwrap();
    runs.iter()
        .flat_map(|r| r["symptoms"].as_array().unwrap())
        .map(|s| s["rule"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn status_pastes_are_diagnosed_by_their_decisive_line() {
    let cases = [
        (OOM_KILL, "host-oom-kill", 10, "A process of this unit has been killed by the OOM killer."),
        (EXEC_FAILED, "exec-failure", 8, "Failed to locate executable /usr/bin/ksushy"),
        (PORT_THEN_START_LIMIT, "port-in-use", 9, "address already in use"),
        (WATCHDOG, "watchdog-timeout", 8, "Watchdog timeout (limit 3min)!"),
    ];
    for (paste, category, line, text) in cases {
        let (code, report) = diagnose(paste);
        assert_eq!(code, Some(1), "{category}: {report}");
        let (got, decisive, shown) = cause(&report);
        assert_eq!((got.as_str(), decisive), (category, line), "{report}");
        assert!(shown.contains(text), "{category}: {shown}");
        assert_eq!(report["runs"].as_array().unwrap().len(), 1, "{category}: one launch");
        let unit = report["runs"][0]["unit"].as_str().unwrap();
        assert!(paste.contains(&format!(" {unit} - ")), "{category}: {unit}");
    }
    // The start limit and the exit status are consequences of the port.
    let (_, report) = diagnose(PORT_THEN_START_LIMIT);
    let symptoms = symptom_rules(&report);
    for rule in [
        "systemd.status-start-limit",
        "systemd.start-limit-hit",
        "systemd.status-failed",
        "systemd.process-exited",
    ] {
        assert!(symptoms.iter().any(|s| s == rule), "{rule} not in {symptoms:?}");
    }
}

#[test]
fn the_status_block_alone_still_tells_the_cause() {
    let block: String = OOM_KILL.lines().take(7).map(|l| format!("{l}\n")).collect();
    let (code, report) = diagnose(&block);
    assert_eq!(code, Some(1), "{report}");
    let (category, line, text) = cause(&report);
    assert_eq!((category.as_str(), line), ("host-oom-kill", 3));
    assert!(text.contains("Active: failed (Result: oom-kill)"), "{text}");
}

/// Diagnoses `paste` as an OOM kill and returns the decisive line's text,
/// checking that its line number points at that text in the paste.
fn oom_kill_line_of(paste: &str) -> String {
    let (code, report) = diagnose(paste);
    assert_eq!(code, Some(1), "{report}");
    let (category, line, text) = cause(&report);
    assert_eq!(category, "host-oom-kill");
    assert_eq!(paste.lines().nth(line as usize - 1), Some(text.as_str()));
    text
}

#[test]
fn hard_wrapped_and_bare_lines_in_either_order() {
    let journal = &OOM_KILL.lines().collect::<Vec<_>>()[8..];
    let prefix = regex::Regex::new(r"^(\w+ +\d+ [\d:]+ \S+ [^:]+:) (.*)$").unwrap();
    // A terminal hard-wrapped each line after its prefix.
    let mut wrapped = String::new();
    for line in OOM_KILL.lines() {
        match prefix.captures(line) {
            Some(c) => wrapped.push_str(&format!("{}\n{}\n", &c[1], &c[2])),
            None => wrapped.push_str(&format!("{line}\n")),
        }
    }
    let text = oom_kill_line_of(&wrapped);
    assert!(text.starts_with("sglang-eagle3.service: A process of this unit"), "{text}");

    // The journal lines under the block newest first (`journalctl -r`).
    let lines: Vec<&str> = OOM_KILL.lines().collect();
    let newest_first: String =
        lines[..8].iter().chain(lines[8..].iter().rev()).map(|l| format!("{l}\n")).collect();
    let text = oom_kill_line_of(&newest_first);
    assert!(text.contains("A process of this unit has been killed by the OOM killer"), "{text}");

    // The messages with their prefixes stripped, oldest first or newest first.
    let bare: Vec<String> = journal.iter().map(|l| prefix.captures(l).unwrap()[2].to_string()).collect();
    let newest_first: Vec<String> = bare.iter().rev().cloned().collect();
    for lines in [bare, newest_first] {
        let paste = lines.join("\n") + "\n";
        let (code, report) = diagnose(&paste);
        assert_eq!(code, Some(1), "{paste}\n{report}");
        let (category, _, text) = cause(&report);
        assert_eq!(category, "host-oom-kill", "{paste}");
        assert!(text.contains("killed by the OOM killer") || text.contains("'oom-kill'"), "{text}");
    }
}

#[test]
fn a_bare_sigkill_is_not_called_an_oom_kill() {
    let paste = "sglang.service: Main process exited, code=killed, status=9/KILL\nsglang.service: Failed with result 'signal'.\n";
    let (code, report) = diagnose(paste);
    assert_eq!(code, Some(3), "{report}");
    assert_eq!(cause(&report).0, "sigkill-unattributed");
    // The same with a status block that says only signal=KILL.
    let status = "× sglang.service - SGLang server\n     Active: failed (Result: signal) since Mon 2026-05-25 20:11:05 UTC; 1h ago\n   Main PID: 70112 (code=killed, signal=KILL)\n";
    let (code, report) = diagnose(status);
    assert_eq!(code, Some(3), "{report}");
    assert_eq!(cause(&report).0, "sigkill-unattributed");
}

/// `systemctl status` on a terminal 90 columns wide: the status block,
/// then the journal's last lines, each longer line cut to the width with
/// `…` (systemd's ellipsize_mem), as a user pastes it.
fn ellipsized_status_paste() -> String {
    let journal =
        std::fs::read_to_string(root().join("fixtures/seed-k26-flashinfer-journal/input.log")).unwrap();
    let cut = |line: &str| match line.char_indices().nth(89) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_string(),
    };
    let mut paste = String::from(
        "× sglang-k26.service - SGLang K2.6 server\n     Loaded: loaded (/etc/systemd/system/sglang-k26.service; enabled; preset: enabled)\n     Active: failed (Result: signal) since Mon 2026-05-25 20:27:23 UTC; 2min ago\n   Main PID: 71283 (code=killed, signal=KILL)\n\n",
    );
    for line in journal.lines().skip(28) {
        paste.push_str(&cut(line));
        paste.push('\n');
    }
    paste
}

#[test]
fn a_paste_a_terminal_cut_is_named_with_the_command_that_prints_it_whole() {
    let paste = ellipsized_status_paste();
    let out = run_stdin(&["-", "--format", "json"], paste.as_bytes());
    let report = json(&out);
    let notices: Vec<&str> =
        report["inputs"][0]["notices"].as_array().unwrap().iter().filter_map(|n| n.as_str()).collect();
    let cut = notices.iter().find(|n| n.contains("end in `…`")).unwrap_or_else(|| panic!("{notices:?}"));
    let lines = paste.lines().filter(|l| l.ends_with('…')).count();
    let first = paste.lines().position(|l| l.ends_with('…')).unwrap() + 1;
    assert!(lines >= 5, "{paste}");
    assert!(cut.starts_with(&format!("{lines} line(s) end in `…` (the first at line {first})")), "{cut}");
    assert!(cut.contains("`systemctl status -l --no-pager sglang-k26.service`"), "{cut}");
    assert!(cut.contains("`journalctl -u sglang-k26.service -n 200 --no-pager`"), "{cut}");
    // The same lines whole say nothing of it.
    let whole = run(&["--format", "json", "fixtures/seed-k26-flashinfer-journal/input.log"]);
    assert!(!stdout(&whole).contains("end in `…`"), "{}", stdout(&whole));
}
