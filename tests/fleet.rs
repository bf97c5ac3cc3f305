//! `logdiag fleet`: a folder of hosts' logs, each with its verdict, the
//! hosts grouped by what happened to them.

use crate::util::*;

/// A healthy sglang server's log generating at `tok_s` with 32 requests
/// running.
fn serving(tok_s: u32) -> String {
    launched("", 32, tok_s)
}

/// A healthy sglang server launched with `args` (none printed when
/// empty), generating at `tok_s` with `running` requests running.
fn launched(args: &str, running: u32, tok_s: u32) -> String {
    let mut log = String::new();
    if !args.is_empty() {
        log.push_str(&format!("[2026-05-25 07:59:00] server_args=ServerArgs({args})\n"));
    }
    log.push_str("[2026-05-25 08:00:00] The server is fired up and ready to roll!\n");
    for second in 1..30 {
        log.push_str(&format!("[2026-05-25 08:00:{second:02} TP0] Decode batch. #running-req: {running}, #token: 4096, token usage: 0.30, cuda graph: True, gen throughput (token/s): {tok_s}.00, #queue-req: 0\n"));
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
    // A host's folder of several logs is one host.
    dir.write("fleet/node-04/sglang-earlier.log", serving(2000).as_bytes());
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
    assert_eq!((&healthy["verdict"], healthy["hosts"].as_array().unwrap().len()), (&"healthy".into(), 3));
    // Healthy by its own log, but far slower than its peers.
    let slow = groups.iter().find(|g| g["verdict"] == "slow").unwrap_or_else(|| panic!("{report:#}"));
    assert_eq!(slow["hosts"], serde_json::json!(["node-08"]));
    assert_eq!(report["slow"], serde_json::json!(["node-08"]), "{report:#}");
    let text = stdout(&run(&["fleet", fleet.to_str().unwrap()]));
    assert!(text.starts_with("fleet: 9 hosts\n"), "{text}");
    assert!(text.contains("flashinfer-unsupported-arch on 3 of 9 hosts"), "{text}");
    assert!(text.contains("(first node-07 at May 25 02:14:00, last node-04 at May 25 02:41:00)"), "{text}");
    assert!(text.contains("slow on 1 of 9 hosts\n  kept 12% of configuration 1's speed per request (7.50 tok/s at 32 running against 62.5 at 32)\n  hosts: node-08\n3 healthy"), "{text}");
    let markdown = stdout(&run(&["fleet", "--format", "markdown", fleet.to_str().unwrap()]));
    assert!(markdown.contains("| node-04 | crash | unknown |"), "{markdown}");
}

/// Hosts are compared only with hosts launched the same way, and at
/// comparable load: a smaller configuration's lower speed, or a host with
/// few requests, is not slowness; a host that gives each of as many
/// requests a fraction of its peers' speed is.
#[test]
fn speed_is_compared_between_hosts_launched_the_same_way() {
    let dir = TempDir::new("fleet-configurations");
    let tp8 = |host: &str| {
        format!("model_path='/models/GLM-5', tp_size=8, host='{host}', port=30000, random_seed=1")
    };
    let tp4 = |host: &str| {
        format!("model_path='/models/GLM-5', tp_size=4, host='{host}', port=30000, random_seed=2")
    };
    let hosts = [
        ("node-01", launched(&tp8("10.0.0.1"), 32, 2100)),
        ("node-02", launched(&tp8("10.0.0.2"), 32, 1980)),
        ("node-03", launched(&tp8("10.0.0.3"), 32, 2050)),
        ("node-04", launched(&tp8("10.0.0.4"), 32, 2010)),
        ("node-05", launched(&tp8("10.0.0.5"), 32, 1990)),
        // A quarter of the requests at the same speed each.
        ("node-06", launched(&tp8("10.0.0.6"), 8, 500)),
        // As many requests, each at a fifth of the speed.
        ("node-07", launched(&tp8("10.0.0.7"), 32, 400)),
        // Launched on half the GPUs: slower, but like its own kind.
        ("node-08", launched(&tp4("10.0.0.8"), 32, 900)),
        ("node-09", launched(&tp4("10.0.0.9"), 32, 950)),
        ("node-10", launched(&tp4("10.0.0.10"), 32, 920)),
    ];
    for (host, log) in &hosts {
        dir.write(&format!("fleet/{host}.log"), log.as_bytes());
    }
    let fleet = dir.path().join("fleet");
    let report = json(&run(&["fleet", "--format", "json", fleet.to_str().unwrap()]));
    assert_eq!(report["slow"], serde_json::json!(["node-07"]), "{report:#}");
    let configurations = report["configurations"].as_array().unwrap();
    assert_eq!(configurations.len(), 2, "{report:#}");
    assert_eq!(configurations[0]["hosts"].as_array().unwrap().len(), 7, "{report:#}");
    assert_eq!(configurations[0]["model"], "/models/GLM-5");
    let differs = &configurations[1]["differs"];
    assert_eq!(differs, &serde_json::json!([{"name": "tp_size", "before": "8", "after": "4"}]), "{report:#}");
    let text = stdout(&run(&["fleet", fleet.to_str().unwrap()]));
    assert!(text.contains("launched 2 ways:\n  1. /models/GLM-5 on 7 hosts: median 1990 tok/s"), "{text}");
    assert!(
        text.contains("  2. /models/GLM-5 on 3 hosts: median 920 tok/s")
            && text.contains("against 1: tp_size 8 -> 4"),
        "{text}"
    );
    assert!(text.contains("slow on 1 of 10 hosts\n  kept 20% of configuration 1's speed per request (12.5 tok/s at 32 running against 62.5 at 32)"), "{text}");
    // Against the whole fleet's median speed (what `fleet` did before it
    // read the launch arguments), node-06 and the tp_size=4 hosts would
    // be named slow too: they are each under half of it.
    let mut speeds: Vec<f64> = hosts.iter().map(|(host, _)| speed(&report, host)).collect();
    speeds.sort_by(f64::total_cmp);
    let half_median = speeds[speeds.len() / 2] / 2.0;
    for host in ["node-06", "node-08", "node-09", "node-10"] {
        assert!(speed(&report, host) < half_median, "{host}: {report:#}");
    }
}

/// A host's median generation speed in the fleet's JSON.
fn speed(report: &serde_json::Value, host: &str) -> f64 {
    let hosts = report["hosts"].as_array().unwrap();
    hosts.iter().find(|h| h["host"] == host).and_then(|h| h["tok_s"].as_f64()).unwrap()
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
