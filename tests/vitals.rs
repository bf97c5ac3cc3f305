//! Run vitals with the real binary: a collapse against the previous launch
//! and within one, load that is not a collapse, hangs (then a stop, then a
//! resume), idle servers that are not hung, and the flags.
//!
//! Apart from the founding incident (a fixture), the logs are built here
//! from the servers' own line formats (sglang `scheduler_metrics_mixin.py`,
//! vLLM V1 `loggers.py`, systemd's stop-timeout messages): no public
//! report holds a hang of ten minutes or a launch whose CUDA graphs were
//! switched off mid-run, and these are the cases to pin down.

use crate::util::*;

/// An sglang decode line (late-2025 format) at `clock` (`HH:MM:SS`).
fn decode(clock: &str, running: u64, tok_s: f64, graph: bool, queued: u64) -> String {
    let graph = if graph { "True" } else { "False" };
    format!(
        "[2026-11-30 {clock} TP0] Decode batch, #running-req: {running}, #token: {}, token usage: 0.41, cuda graph: {graph}, gen throughput (token/s): {tok_s:.2}, #queue-req: {queued}, ",
        running * 900
    )
}

/// `HH:MM:SS` for `seconds` after 10:00:00.
fn clock(seconds: u64) -> String {
    let s = 36_000 + seconds;
    format!("{:02}:{:02}:{:02}", s / 3600, s % 3600 / 60, s % 60)
}

/// One sglang launch: its arguments, a warm-up, then `lines` decode lines
/// ten seconds apart from `start` seconds after 10:00.
fn launch(start: u64, args: &str, lines: &[(u64, f64, bool)]) -> String {
    let mut log = format!(
        "[2026-11-30 {}] server_args=ServerArgs(model_path='/models/m', tp_size=8, {args}, random_seed={start})\n",
        clock(start)
    );
    log += &format!("[2026-11-30 {}] The server is fired up and ready to roll!\n", clock(start + 1));
    log += &format!(
        "[2026-11-30 {} TP0] Prefill batch, #new-seq: 64, #new-token: 8192, #cached-token: 0, token usage: 0.01, #running-req: 0, #queue-req: 0, \n",
        clock(start + 2)
    );
    for (i, (running, tok_s, graph)) in lines.iter().enumerate() {
        log += &decode(&clock(start + 10 + 10 * i as u64), *running, *tok_s, *graph, 0);
        log.push('\n');
    }
    log
}

fn runs(report: &serde_json::Value) -> &Vec<serde_json::Value> {
    report["runs"].as_array().expect("runs")
}

fn diagnose(log: &str, extra: &[&str]) -> (Option<i32>, serde_json::Value) {
    let mut args = vec!["--format", "json"];
    args.extend_from_slice(extra);
    args.push("-");
    let out = run_stdin(&args, log.as_bytes());
    (out.status.code(), json(&out))
}

#[test]
fn the_founding_collapse_is_shown_with_what_changed() {
    let path = fixture("seed-glm5-throughput-collapse");
    let path = path.to_str().unwrap();
    let out = run(&["--format", "json", path]);
    assert_eq!(out.status.code(), Some(6), "a collapse fails with its own code");
    let report = json(&out);
    assert_eq!(report["verdict"], "degraded");
    assert!(report["root_cause"].is_null(), "a collapse is not a crash");
    let runs = runs(&report);
    assert!(runs[0]["degraded"].is_null());
    let degraded = &runs[1]["degraded"];
    assert_eq!(degraded["vs_run"], 1);
    assert_eq!(degraded["metric"], "generation tok/s per running request");
    assert!(degraded["change"].as_f64().unwrap() < -0.9, "{degraded}");
    assert_eq!(degraded["changed_args"][0]["name"], "enable_flashinfer_allreduce_fusion");
    assert_eq!(
        (&degraded["changed_args"][0]["before"], &degraded["changed_args"][0]["after"]),
        (&serde_json::json!("False"), &serde_json::json!("True"))
    );
    assert_eq!(degraded["changed_args"].as_array().unwrap().len(), 1, "the drawn seed is not a change");
    let evidence: Vec<&str> =
        degraded["evidence"].as_array().unwrap().iter().map(|e| e["text"].as_str().unwrap()).collect();
    assert!(
        evidence[0].contains("gen throughput (token/s): 3")
            && evidence[1].contains("gen throughput (token/s): 2")
    );
    // Each run's series, at most 100 points, with the run's speeds.
    for run in runs {
        let series = run["vitals"]["series"].as_array().unwrap();
        assert!(!series.is_empty() && series.len() <= 100);
    }
    let text = stdout(&run(&[path]));
    assert!(text.contains("  DEGRADED  ") && text.contains("; 94% slower per request than run 1"), "{text}");
    assert!(text.contains("enable_flashinfer_allreduce_fusion: False → True"), "{text}");
    let sparks: Vec<&str> =
        text.lines().filter(|l| l.starts_with("  run ") && l.contains(" tok/s")).collect();
    assert_eq!(sparks.len(), 2, "{text}");
    assert!(sparks[0].contains('█') && sparks[1].contains('▁') && !sparks[1].contains('█'), "{text}");
    assert!(sparks[0].contains("mean 3,7") && sparks[1].contains("median 23"), "{text}");
}

#[test]
fn with_last_the_compared_run_keeps_its_number() {
    let seed = fixture("seed-glm5-throughput-collapse");
    let seed = seed.to_str().unwrap();
    let report = json(&run(&["--format", "json", "--last", seed]));
    let runs = runs(&report);
    assert_eq!(runs.len(), 1);
    let degraded = &runs[0]["degraded"];
    assert_eq!(degraded["vs_run"], 1, "run 1 keeps its number, though not in the report: {degraded}");
    assert_eq!(runs[0]["number"], 2);
    assert_eq!(degraded["evidence"][0]["line"], 66, "the earlier run's line says where it is");
    let text = stdout(&run(&["--last", seed]));
    assert!(text.contains("slower per request than run 1"), "{text}");
}

#[test]
fn less_load_is_not_a_collapse_and_more_load_only_if_the_total_fell() {
    let busy: Vec<(u64, f64, bool)> = (0..12).map(|i| (1024, 3700.0 + i as f64, true)).collect();
    let light: Vec<(u64, f64, bool)> = (0..12).map(|i| (8, 224.0 + i as f64, true)).collect();
    let crawling: Vec<(u64, f64, bool)> = (0..12).map(|i| (8, 8.0 + i as f64 / 10.0, true)).collect();
    for (first, second, collapsed) in
        [(&busy, &light, false), (&light, &busy, false), (&busy, &crawling, true)]
    {
        let log = launch(0, "enable_x=False", first) + &launch(600, "enable_x=True", second);
        let (code, report) = diagnose(&log, &[]);
        assert_eq!(code, Some(if collapsed { 6 } else { 0 }));
        let runs = runs(&report);
        assert_eq!(runs.len(), 2);
        assert_eq!(!runs[1]["degraded"].is_null(), collapsed, "{}", runs[1]["degraded"]);
        assert!(runs[0]["degraded"].is_null());
    }
}

#[test]
fn cuda_graphs_switched_off_once_the_batch_outgrew_them_is_a_collapse_within_the_launch() {
    let mut lines: Vec<(u64, f64, bool)> = (0..40).map(|i| (256, 2000.0 + (i % 7) as f64, true)).collect();
    lines.extend((0..20).map(|i| (600, 400.0 + (i % 5) as f64, false)));
    let (code, report) = diagnose(&launch(0, "cuda_graph_max_bs=512", &lines), &[]);
    assert_eq!(code, Some(6));
    let run = &runs(&report)[0];
    let degraded = &run["degraded"];
    assert_eq!(degraded["vs_run"], 1, "against itself: {degraded}");
    assert_eq!(
        (degraded["running"]["before"].as_f64(), degraded["running"]["after"].as_f64()),
        (Some(256.0), Some(600.0))
    );
    assert!(degraded["changed_args"].as_array().unwrap().is_empty());
    let off = run["vitals"]["cuda_graph_off"].as_f64().unwrap();
    assert!((off - 20.0 / 60.0).abs() < 1e-3, "{off}");
    // The same launch, its batch kept within the graphs: healthy.
    let steady: Vec<(u64, f64, bool)> = (0..60).map(|i| (256, 2000.0 + (i % 7) as f64, true)).collect();
    let (_, report) = diagnose(&launch(0, "cuda_graph_max_bs=512", &steady), &[]);
    assert!(runs(&report)[0]["degraded"].is_null());
}

/// A unit's journal: a burst of decode lines with work pending, then what
/// `after` adds (`HH:MM:SS` stamps from 10:00).
fn journal(decode_lines: u64, after: &[(u64, &str)]) -> String {
    let mut log =
        String::from("Nov 30 09:59:00 gpu-node-1 systemd[1]: Started sglang.service - SGLang server.\n");
    log += "Nov 30 09:59:50 gpu-node-1 python3[4242]: [2026-11-30 09:59:50] The server is fired up and ready to roll!\n";
    for i in 0..decode_lines {
        let at = clock(10 * i);
        log += &format!(
            "Nov 30 {at} gpu-node-1 python3[4242]: {}\n",
            decode(&at, 8, 230.0 + (i % 5) as f64, true, 3)
        );
    }
    for (seconds, line) in after {
        log += &format!("Nov 30 {} gpu-node-1 {line}\n", clock(*seconds));
    }
    log
}

#[test]
fn a_hang_then_an_operator_stop_is_hung_not_a_crash() {
    // The last batch at 10:04:50 with 8 running and 3 waiting; the operator
    // stops the unit 20 minutes later and systemd has to kill it.
    let log = journal(
        30,
        &[
            (1500, "systemd[1]: Stopping sglang.service - SGLang server..."),
            (1590, "systemd[1]: sglang.service: State 'stop-sigterm' timed out. Killing."),
            (1590, "systemd[1]: sglang.service: Killing process 4242 (python3) with signal SIGKILL."),
            (1591, "systemd[1]: sglang.service: Main process exited, code=killed, status=9/KILL"),
            (1591, "systemd[1]: sglang.service: Failed with result 'timeout'."),
        ],
    );
    let (code, report) = diagnose(&log, &[]);
    assert_eq!(code, Some(5), "{report}");
    assert_eq!(report["verdict"], "hung");
    let run = &runs(&report)[0];
    assert_eq!(run["outcome"], "hung");
    let hang = &run["hang"];
    assert_eq!(hang["last_progress"]["line"], 32);
    assert_eq!((hang["running"].as_u64(), hang["queued"].as_u64()), (Some(8), Some(3)));
    assert_eq!(hang["silent_seconds"], 1591 - 290);
    let text = stdout(&run_stdin(&["-"], log.as_bytes()));
    assert!(text.contains("HUNG  work pending at line 32 and no progress for 21m 41s after it"), "{text}");
    assert!(text.contains("verdict: hung (exit 5)"), "{text}");
    // Given longer to hang, it is what it was before vitals: a stop that
    // systemd had to end by force.
    let (code, report) = diagnose(&log, &["--hang-after", "30m"]);
    assert_eq!((code, &report["root_cause"]["category"]), (Some(1), &serde_json::json!("service-timeout")));
}

#[test]
fn a_hang_that_resumes_is_not_hung() {
    let stalled = |resumes: bool| {
        let mut after =
            vec![(1200, "python3[4242]: [2026-11-30 10:20:00] WARNING: slow request rid=7f3a took 900 s")];
        let resumed = decode(&clock(1300), 8, 231.0, true, 0);
        let resumed = format!("python3[4242]: {resumed}");
        if resumes {
            after.push((1300, resumed.as_str()));
        }
        let (code, report) = diagnose(&journal(30, &after), &[]);
        (code, runs(&report)[0]["outcome"].clone())
    };
    assert_eq!(stalled(false), (Some(5), serde_json::json!("hung")));
    assert_eq!(stalled(true), (Some(0), serde_json::json!("healthy")));
}

#[test]
fn vllm_stats_lines_that_count_stuck_requests_are_a_hang() {
    // vLLM writes its stats line every 10 s, also when nothing moves.
    let line = |seconds: u64, generation: f64| {
        let at = clock(seconds);
        format!(
            "(APIServer pid=1) INFO 11-30 {at} [loggers.py:123] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: {generation:.1} tokens/s, Running: 3 reqs, Waiting: 2 reqs, GPU KV cache usage: 4.1%, Prefix cache hit rate: 0.0%\n"
        )
    };
    let mut log: String = (0..6).map(|i| line(10 * i, 120.0 + i as f64)).collect();
    log += &(6..80).map(|i| line(10 * i, 0.0)).collect::<String>();
    let (code, report) = diagnose(&log, &[]);
    assert_eq!(code, Some(5), "{report}");
    let hang = &runs(&report)[0]["hang"];
    assert_eq!(hang["last_progress"]["line"], 6, "the last line that generated");
    assert_eq!(hang["silent_seconds"], 790 - 50);
    // Answered requests in between: the server may be idle, not stuck.
    let answered = log.replace(
        &line(400, 0.0),
        &format!("{}INFO:     10.0.0.5:40112 - \"POST /v1/completions HTTP/1.1\" 200 OK\n", line(400, 0.0)),
    );
    let (code, report) = diagnose(&answered, &[]);
    assert_ne!(code, Some(5), "{report}");
    assert_ne!(runs(&report)[0]["outcome"], "hung");
}

#[test]
fn an_idle_server_scraped_for_metrics_is_not_hung() {
    // The last batch of a burst still counts the requests it finishes.
    let mut log =
        launch(0, "tp_size=8", &[(3, 180.0, true), (3, 181.0, true), (2, 150.0, true), (1, 90.0, true)]);
    for i in 0..120 {
        log += &format!(
            "[2026-11-30 {}] INFO:     10.0.0.9:5{i:04} - \"GET /metrics HTTP/1.1\" 200 OK\n",
            clock(60 + 15 * i)
        );
    }
    let (code, report) = diagnose(&log, &[]);
    assert_eq!((code, &runs(&report)[0]["outcome"]), (Some(0), &serde_json::json!("healthy")));
}

#[test]
fn idle_gaps_are_not_a_collapse() {
    // Bursts with idle gaps between them: the first decode line after each
    // gap averages over the gap, and is left out.
    let mut log = String::new();
    for burst in 0..3u64 {
        let start = burst * 1800;
        log += &format!(
            "[2026-11-30 {} TP0] Prefill batch, #new-seq: 8, #new-token: 4096, #cached-token: 0, token usage: 0.01, #running-req: 0, #queue-req: 0, \n",
            clock(start)
        );
        log += &decode(&clock(start + 5), 8, 3.0, true, 0);
        log.push('\n');
        for i in 1..8 {
            log += &decode(&clock(start + 5 + 5 * i), 8, 240.0 + i as f64, true, 0);
            log.push('\n');
        }
    }
    let (_, report) = diagnose(&log, &[]);
    let run = &runs(&report)[0];
    assert!(run["degraded"].is_null(), "{}", run["degraded"]);
    let speed = &run["vitals"]["generation_tok_s"];
    assert!(speed["p10"].as_f64().unwrap() >= 240.0, "the line after a gap is left out: {speed}");
    assert_eq!(run["vitals"]["progress_lines"], 27);
}

#[test]
fn a_long_run_keeps_a_bounded_series_and_counts_every_line() {
    let lines: Vec<(u64, f64, bool)> = (0..20_000).map(|i| (64, 1500.0 + (i % 100) as f64, true)).collect();
    let (_, report) = diagnose(&launch(0, "tp_size=8", &lines), &[]);
    let vitals = &runs(&report)[0]["vitals"];
    assert_eq!(vitals["progress_lines"], 20_001);
    let series = vitals["series"].as_array().unwrap();
    assert!((50..=100).contains(&series.len()), "{}", series.len());
    let median = vitals["generation_tok_s"]["median"].as_f64().unwrap();
    assert!((1540.0..=1560.0).contains(&median), "{median}");
}

#[test]
fn launches_without_progress_lines_have_no_vitals_and_flags_are_checked() {
    let (_, report) = diagnose("[2026-11-30 10:00:00] server_args=ServerArgs(tp_size=8)\n", &[]);
    assert!(runs(&report)[0]["vitals"].is_null());
    let seed = fixture("seed-glm5-throughput-collapse");
    let seed = seed.to_str().unwrap();
    // A threshold below what run 2 kept (6%): not degraded.
    let report = json(&run(&["--format", "json", "--degraded-below", "0.05", seed]));
    assert!(runs(&report)[1]["degraded"].is_null());
    for bad in [["--degraded-below", "2"], ["--hang-after", "soon"]] {
        let out = run(&[bad[0], bad[1], seed]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    }
}
