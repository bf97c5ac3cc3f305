//! `logdiag fleet`: a folder of hosts' logs, each with its verdict, the
//! hosts grouped by what happened to them.

use crate::util::*;

/// A healthy sglang server's log generating at `tok_s`.
fn serving(tok_s: u32) -> String {
    let mut log = String::from("[2026-05-25 08:00:00] The server is fired up and ready to roll!\n");
    for second in 1..30 {
        log.push_str(&format!("[2026-05-25 08:00:{second:02} TP0] Decode batch. #running-req: 32, #token: 4096, token usage: 0.30, cuda graph: True, gen throughput (token/s): {tok_s}.00, #queue-req: 0\n"));
    }
    log
}

/// A crash no rule names, at `minute` past two.
fn unrecognised(minute: u32) -> String {
    format!(
        "{}May 25 02:{minute:02}:00 node python3[71]: Traceback (most recent call last):\n\
May 25 02:{minute:02}:00 node python3[71]:   File \"/srv/frob.py\", line 7, in spin\n\
May 25 02:{minute:02}:00 node python3[71]: RuntimeError: frobnicator lost its balance at stage 7\n\
May 25 02:{minute:02}:01 node systemd[1]: sglang.service: Main process exited, code=exited, status=1/FAILURE\n",
        "May 25 01:00:00 node systemd[1]: Started sglang.service - SGLang.\n"
    )
}

#[test]
fn hosts_are_grouped_by_what_happened_to_them() {
    let dir = TempDir::new("fleet");
    let k26 = std::fs::read(fixture("seed-k26-flashinfer-journal")).unwrap();
    for host in ["node-02", "node-05", "node-09"] {
        dir.write(&format!("fleet/{host}.log"), &k26);
    }
    dir.write("fleet/node-04/sglang.log", unrecognised(41).as_bytes());
    dir.write("fleet/node-07.log", unrecognised(14).as_bytes());
    for (host, tok_s) in [("node-01", 2100), ("node-03", 1980), ("node-06", 2050), ("node-08", 240)] {
        dir.write(&format!("fleet/{host}.log"), serving(tok_s).as_bytes());
    }
    let fleet = dir.path().join("fleet");
    let out = run(&["fleet", "--format", "json", fleet.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "crashes in the fleet: {}", stderr(&out));
    let report = json(&out);
    let hosts = report["hosts"].as_array().unwrap();
    assert_eq!(hosts.len(), 9, "{report:#}");
    let groups = report["groups"].as_array().unwrap();
    let group = |category: &str| {
        groups.iter().find(|g| g["category"] == category).unwrap_or_else(|| panic!("{report:#}"))
    };
    let arch = group("flashinfer-unsupported-arch");
    assert_eq!(arch["hosts"], serde_json::json!(["node-02", "node-05", "node-09"]));
    // The same unrecognised failure on two hosts is one group, by its
    // fingerprint, in the order the logs' clocks say it struck.
    let unknown = group("unknown");
    assert!(unknown["fingerprint"].is_string(), "{unknown:#}");
    assert_eq!(unknown["hosts"], serde_json::json!(["node-07", "node-04"]));
    assert_eq!((&unknown["first"]["host"], &unknown["last"]["host"]), (&"node-07".into(), &"node-04".into()));
    let healthy = groups.last().unwrap();
    assert_eq!((&healthy["verdict"], healthy["hosts"].as_array().unwrap().len()), (&"healthy".into(), 4));
    assert_eq!(report["slow"], serde_json::json!(["node-08"]), "{report:#}");
    let text = stdout(&run(&["fleet", fleet.to_str().unwrap()]));
    assert!(text.starts_with("fleet: 9 hosts\n"), "{text}");
    assert!(text.contains("flashinfer-unsupported-arch on 3 of 9 hosts"), "{text}");
    assert!(text.contains("(first node-07 at May 25 02:14:00, last node-04 at May 25 02:41:00)"), "{text}");
    assert!(text.contains("4 healthy") && text.contains("slow: node-08 (240 tok/s"), "{text}");
    let markdown = stdout(&run(&["fleet", "--format", "markdown", fleet.to_str().unwrap()]));
    assert!(markdown.contains("| node-04 | crash | unknown |"), "{markdown}");
}

/// The lines of a host that crashed with a CUDA OOM at 02:`minute`.
fn oom(minute: u32) -> Vec<String> {
    vec![
        format!("[2026-06-01 02:{minute:02}:04] The server is fired up and ready to roll!"),
        format!("[2026-06-01 02:{minute:02}:05 TP0] Scheduler hit an exception: Traceback (most recent call last):"),
        "  File \"/srv/sched.py\", line 9, in run".to_string(),
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.".to_string(),
        format!("[2026-06-01 02:{minute:02}:06] Received sigquit from a child process. It usually means the child failed."),
    ]
}

#[test]
fn one_stream_of_many_hosts_is_split_into_its_hosts() {
    let dir = TempDir::new("fleet-streams");
    // logcli query … -o jsonl: each host's lines under its label set.
    let mut loki = Vec::new();
    let mut kubectl = String::new();
    for (host, minute) in [("node-04", 14), ("node-05", 41)] {
        for line in oom(minute) {
            let record = serde_json::json!({"labels": {"host": host, "job": "sglang"}, "line": line, "timestamp": format!("2026-06-01T02:{minute:02}:05Z")});
            loki.push(record.to_string());
        }
    }
    for host in ["node-01", "node-02", "node-03"] {
        for line in serving(2000).lines() {
            let record = serde_json::json!({"labels": {"host": host, "job": "sglang"}, "line": line, "timestamp": "2026-05-25T08:00:00Z"});
            loki.push(record.to_string());
        }
    }
    let loki = dir.write("loki.jsonl", (loki.join("\n") + "\n").as_bytes());
    let report = json(&run(&["fleet", "--format", "json", loki.to_str().unwrap()]));
    let names: Vec<&str> =
        report["hosts"].as_array().unwrap().iter().map(|h| h["host"].as_str().unwrap()).collect();
    assert_eq!(names, ["node-01", "node-02", "node-03", "node-04", "node-05"], "{report:#}");
    let oom_group = &report["groups"][0];
    assert_eq!(
        (&oom_group["category"], &oom_group["hosts"]),
        (&"cuda-oom".into(), &serde_json::json!(["node-04", "node-05"]))
    );
    // kubectl logs --prefix: each pod's lines under its prefix.
    for line in oom(14) {
        kubectl.push_str(&format!("[pod/llm-3/server] {line}\n"));
    }
    for pod in ["llm-0", "llm-1"] {
        for line in serving(2000).lines() {
            kubectl.push_str(&format!("[pod/{pod}/server] {line}\n"));
        }
    }
    let kubectl = dir.write("pods.log", kubectl.as_bytes());
    let text = stdout(&run(&["fleet", kubectl.to_str().unwrap()]));
    assert!(text.starts_with("fleet: 3 hosts\ncuda-oom on 1 of 3 hosts (llm-3 at"), "{text}");
    assert!(text.contains("2 healthy"), "{text}");
}
