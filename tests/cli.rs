//! The command line as scripts and people use it.

use std::io::Write;

use crate::util::*;

const CRASH_LINES: &str = "\
[2026-06-02 14:05:09 TP6] Scheduler hit an exception: Traceback (most recent call last):
  File \"/v/site-packages/flashinfer/compilation_context.py\", line 66, in get_nvcc_flags_list
    raise RuntimeError(
RuntimeError: No supported CUDA architectures found for major versions [9, 10].

[2026-06-02 14:05:09] Received sigquit from a child process. It usually means the child failed.
";

#[test]
fn exit_codes_no_crash_crash_unknown() {
    let dir = TempDir::new("codes");
    let healthy =
        dir.write("healthy.log", b"[2026-06-02 14:39:29] The server is fired up and ready to roll!\n");
    let crash = dir.write("crash.log", CRASH_LINES.as_bytes());
    let unknown = dir.write(
        "unknown.log",
        b"Traceback (most recent call last):\n  File \"/a.py\", line 1, in <module>\nZeroDivisionError: division by zero\n",
    );
    for (path, code) in [(&healthy, 0), (&crash, 1), (&unknown, 3)] {
        let text = run(&[path.to_str().unwrap()]);
        let json_out = run(&["--format", "json", path.to_str().unwrap()]);
        assert_eq!(text.status.code(), Some(code), "{}", path.display());
        assert_eq!(json_out.status.code(), Some(code), "same code in JSON mode");
    }
}

#[test]
fn gzip_input_is_recognised_by_its_bytes_not_its_name() {
    let dir = TempDir::new("gzip");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(CRASH_LINES.as_bytes()).unwrap();
    let path = dir.write("server.log", &gz.finish().unwrap());
    let out = run(&["--format", "json", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json(&out)["root_cause"]["category"], "flashinfer-unsupported-arch");
}

/// The seed incident compressed, and split over rotated files (oldest
/// compressed, as logrotate leaves them): the same diagnosis every time.
#[test]
fn compressed_and_rotated_input_give_the_same_diagnosis() {
    let original = std::fs::read(fixture("seed-k26-flashinfer-journal")).unwrap();
    let dir = TempDir::new("rotated");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&original).unwrap();
    let gz_path = dir.write("k26.log.gz", &gz.finish().unwrap());
    let zst_path = dir.write("k26.log.zst", &zstd::encode_all(&original[..], 3).unwrap());
    let lines: Vec<&[u8]> = original.split_inclusive(|&b| b == b'\n').collect();
    let (oldest, rest) = lines.split_at(20);
    let (middle, newest) = rest.split_at(10);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&oldest.concat()).unwrap();
    dir.write("logs/sglang.log.2.gz", &gz.finish().unwrap());
    dir.write("logs/sglang.log.1", &zstd::encode_all(&middle.concat()[..], 3).unwrap());
    dir.write("logs/sglang.log", &newest.concat());
    let logs = dir.path().join("logs");
    for path in [&gz_path, &zst_path, &logs] {
        let out = run(&["--format", "json", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1), "{}", path.display());
        let report = json(&out);
        assert_eq!(report["root_cause"]["category"], "flashinfer-unsupported-arch", "{}", path.display());
        assert_eq!(report["runs"].as_array().unwrap().len(), 1, "one run across the rotation");
    }
    // Across rotated files every line names its own file: the RuntimeError
    // is line 34 of the stream, line 4 of the newest file; the traceback
    // began in the oldest.
    let report = json(&run(&["--format", "json", logs.to_str().unwrap()]));
    let evidence = &report["root_cause"]["evidence"];
    assert!(evidence[0]["source"].as_str().unwrap().ends_with("logs/sglang.log"));
    assert_eq!(evidence[0]["line"], 4);
    let header = evidence
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["text"].as_str().unwrap().contains("Scheduler hit an exception"))
        .unwrap();
    assert!(header["source"].as_str().unwrap().ends_with("sglang.log.2.gz"));
    assert_eq!(header["line"], 15);
    assert!(report["inputs"][0]["name"].as_str().unwrap().ends_with("logs/sglang.log"));
    // The run begins in the oldest file and ends in the newest: each end
    // is named by its own file.
    let run0 = &report["runs"][0];
    assert!(run0["source"].as_str().unwrap().ends_with("sglang.log.2.gz"), "{run0:#}");
    assert_eq!(run0["first_line"], 1);
    assert!(run0["last_source"].as_str().unwrap().ends_with("logs/sglang.log"), "{run0:#}");
    assert_eq!(run0["last_line"], newest.len());
    let text = stdout(&run(&[logs.to_str().unwrap()]));
    let label = format!("sglang.log.2.gz:1-{}:{}", logs.join("sglang.log").display(), newest.len());
    assert!(text.contains(&label), "{label} in {text}");
}

#[test]
fn the_run_table_names_each_runs_outcome_unit_and_file() {
    let dir = TempDir::new("table");
    let crash = dir.write("a.log", CRASH_LINES.as_bytes());
    let healthy = dir.write("b.log", b"[2026-06-02 14:39:29] The server is fired up and ready to roll!\n");
    let text = stdout(&run(&[crash.to_str().unwrap(), healthy.to_str().unwrap()]));
    let header = text.lines().find(|l| l.contains("decided at")).unwrap_or_else(|| panic!("{text}"));
    let columns: Vec<&str> = header.split("  ").map(str::trim).filter(|c| !c.is_empty()).collect();
    assert_eq!(columns[..4], ["run", "outcome", "file", "lines"], "{text}");
    let row = |n: &str| text.lines().find(|l| l.trim_start().starts_with(&format!("{n} "))).unwrap();
    assert!(row("1").contains("crash") && row("1").contains("a.log"), "{text}");
    assert!(row("2").contains("healthy") && row("2").contains("b.log"), "{text}");
    // A journal of several units: their names, and no file column for
    // one file.
    let journal = root().join("fixtures/DCGM-155/input.log");
    let text = stdout(&run(&[journal.to_str().unwrap()]));
    let header = text.lines().find(|l| l.contains("decided at")).unwrap_or_else(|| panic!("{text}"));
    assert!(header.contains(" unit ") && !header.contains(" file "), "{text}");
}

#[test]
fn a_directory_is_walked_in_a_stable_order_and_each_file_is_a_source() {
    let dir = TempDir::new("walk");
    dir.write("b/late.log", CRASH_LINES.as_bytes());
    dir.write("a.log", b"[2026-06-02 14:39:29] The server is fired up and ready to roll!\n");
    dir.write(".hidden/skip.log", CRASH_LINES.as_bytes());
    let out = run(&["--format", "json", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let report = json(&out);
    let names: Vec<&str> =
        report["inputs"].as_array().unwrap().iter().map(|i| i["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names[0].ends_with("a.log") && names[1].ends_with("b/late.log"), "{names:?}");
    assert_eq!(report["runs"][0]["outcome"], "healthy");
    assert_eq!(report["runs"][1]["outcome"], "crash");
}

#[test]
fn json_output_is_deterministic_and_follows_the_contract() {
    let path = fixture("seed-k26-flashinfer-journal");
    let rel = path.strip_prefix(root()).unwrap().to_str().unwrap().to_string();
    let first = run(&["--format", "json", &rel]);
    let second = run(&["--format", "json", &rel]);
    assert_eq!(first.stdout, second.stdout);
    let report = json(&first);
    assert_eq!(report["schema"], 4);
    assert_eq!(report["inputs"][0]["name"], rel.as_str(), "the name as the user gave it");
    assert!(!stdout(&first).contains(root().to_str().unwrap()), "no absolute paths");
    let run0 = &report["runs"][0];
    for key in [
        "source",
        "first_line",
        "last_line",
        "unit",
        "outcome",
        "root_cause",
        "symptoms",
        "benign",
        "vitals",
        "degraded",
        "hang",
    ] {
        assert!(run0.get(key).is_some(), "run lacks {key}");
    }
    assert_eq!(run0["unit"], "sglang-k26.service");
    for key in ["rule", "category", "title", "confidence", "hint", "evidence"] {
        assert!(report["root_cause"].get(key).is_some(), "root_cause lacks {key}");
    }
    let evidence = &report["root_cause"]["evidence"][0];
    assert_eq!(evidence["source"], rel.as_str());
    assert_eq!(evidence["line"], 34);
    // It listened and answered a chat request, but never proved a generation.
    assert_eq!((&run0["phase"], &run0["ready"]), (&serde_json::json!("listening"), &serde_json::Value::Null));
}

#[test]
fn readiness_needs_a_line_that_proves_a_generation() {
    // The k26 journal up to the 200 of its chat request: listening, not ready.
    let journal = std::fs::read_to_string(fixture("seed-k26-flashinfer-journal")).unwrap();
    let before_crash: String = journal.lines().take(14).map(|l| format!("{l}\n")).collect();
    let out = run_stdin(&["--format", "json", "-"], before_crash.as_bytes());
    let run0 = &json(&out)["runs"][0];
    assert_eq!((run0["outcome"].as_str(), run0["phase"].as_str()), (Some("starting"), Some("listening")));
    assert!(run0["ready"].is_null());
    let text = stdout(&run_stdin(&["-"], before_crash.as_bytes()));
    assert!(text.contains("listening, but no generation proven yet"), "{text}");

    // The relaunch in the appended log proves it with its warm-up request.
    let out = run(&["--format", "json", "--last", "fixtures/seed-glm5-appended-server-log/input.log"]);
    let run0 = &json(&out)["runs"][0];
    assert_eq!((run0["outcome"].as_str(), run0["phase"].as_str()), (Some("healthy"), Some("serving")));
    assert_eq!(run0["ready"]["line"], 50);
    assert!(run0["ready"]["text"].as_str().unwrap().ends_with("The server is fired up and ready to roll!"));
}

#[test]
fn missing_path_is_one_line_and_exit_2() {
    let out = run(&["no/such/file.log"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("no/such/file.log") && err.contains("no such file"), "{err}");
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(run(&["--format", "yaml", "x.log"]).status.code(), Some(2));
    assert_eq!(run(&["--no-such-flag"]).status.code(), Some(2));
    let help = run(&["--help"]);
    assert_eq!(help.status.code(), Some(0));
    assert!(stdout(&help).contains("Exit codes"));
}

#[test]
fn invalid_user_rules_are_exit_2_with_file_and_line() {
    let dir = TempDir::new("badrules");
    dir.write("area/broken.toml", b"role = \"cause\"\ncategory = \"cuda-oom\"\ntitle = \"x\"\nhint = \"y\"\n[match]\nmessage = '(unclosed'\n[test]\nsamples = [\"x\"]\n");
    let log = dir.write("x.log", b"hello\n");
    let out =
        run(&["--rules", dir.path().join("area").parent().unwrap().to_str().unwrap(), log.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("broken.toml:6:11: invalid regex"), "{err}");
    assert!(err.contains("help:"), "{err}");
}

#[test]
fn control_characters_from_logs_never_reach_the_terminal() {
    let dir = TempDir::new("escape");
    let log = dir.write(
        "evil.log",
        b"RuntimeError: CUDA error: an illegal memory access was encountered \x1b]0;pwned\x07\x1b[2J\x9b\r\n",
    );
    let out = run(&[log.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(!text.bytes().any(|b| b == 0x1b || b == b'\r'), "raw escape in output: {text:?}");
    let json_out = run(&["--format", "json", log.to_str().unwrap()]);
    assert!(std::str::from_utf8(&json_out.stdout).is_ok());
    json(&json_out);
}

#[test]
fn arbitrary_bytes_never_panic() {
    // A deterministic mix of binary junk, NULs, invalid UTF-8, long lines,
    // half tracebacks and prefixes cut in the middle.
    let mut bytes = Vec::new();
    let mut x: u64 = 0x9e3779b97f4a7c15;
    let pieces: [&[u8]; 8] = [
        b"May 25 20:27:22 h python[1]: ",
        b"[2026-05-25 20:27:22 TP",
        b"Traceback (most recent call last):\n",
        b"  File \"/a.py\", line ",
        b"\xff\xfe\x00\x1b[",
        b"(EngineCore_DP0 pid=",
        b"\r\n\n",
        b"RuntimeError: ",
    ];
    for _ in 0..20_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if x % 3 == 0 {
            bytes.extend_from_slice(pieces[(x >> 8) as usize % pieces.len()]);
        } else {
            bytes.push((x >> 16) as u8);
        }
    }
    let dir = TempDir::new("junk");
    let path = dir.write("junk.bin", &bytes);
    for args in [vec!["--format", "json"], vec!["-v"]] {
        let mut all = args.clone();
        all.push(path.to_str().unwrap());
        let out = run(&all);
        assert!(
            matches!(out.status.code(), Some(0 | 1 | 3)),
            "exit {:?}: {}",
            out.status.code(),
            stderr(&out)
        );
    }
    let events = run(&["events", path.to_str().unwrap()]);
    assert_eq!(events.status.code(), Some(0), "{}", stderr(&events));
}

#[test]
fn a_closed_output_pipe_ends_quietly() {
    let dir = TempDir::new("pipe");
    let mut big = String::new();
    for i in 0..50_000 {
        big.push_str(&format!("[2026-06-02 14:41:14 TP0] Decode batch. #running-req: {i}, #token: 1, token usage: 0.58, gen throughput (token/s): 236.41, #queue-req: 0\n"));
    }
    let path = dir.write("big.log", big.as_bytes());
    let out = run_into_closed_pipe(&["events", path.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.is_empty(), "quiet: {err}");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn events_are_json_lines_with_frames() {
    let out = run(&["events", fixture("seed-k26-flashinfer-journal").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let events: Vec<serde_json::Value> =
        stdout(&out).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let tb = events.iter().find(|e| e["kind"] == "traceback").expect("a traceback event");
    assert_eq!(tb["line"], 15);
    assert_eq!(tb["last_line"], 34);
    assert_eq!(tb["pid"], 71283);
    assert_eq!(tb["ranks"], "TP2");
    assert_eq!(tb["exception"], "RuntimeError: FlashInfer requires GPUs with sm75 or higher");
    assert_eq!(tb["frames"].as_array().unwrap().last().unwrap()["function"], "check_cuda_arch");
}

#[test]
fn verbose_text_lists_benign_lines_with_reasons() {
    let dir = TempDir::new("verbose");
    let log = dir.write(
        "s.log",
        b"[2026-05-25 20:10:27 TP0] Decode out of memory happened. #retracted_reqs: 3, #new_token_ratio: 0.4000 -> 0.5000\n\
[2026-05-25 20:10:28 TP0] Decode batch. #running-req: 64, #token: 131072, token usage: 0.32, gen throughput (token/s): 2211.40, #queue-req: 12\n",
    );
    let quiet = stdout(&run(&[log.to_str().unwrap()]));
    assert!(!quiet.contains("Decode out of memory happened"), "{quiet}");
    let verbose = stdout(&run(&["-v", log.to_str().unwrap()]));
    assert!(
        verbose.contains("Decode out of memory happened") && verbose.contains("sglang.kv-retraction"),
        "{verbose}"
    );
}

#[test]
fn a_selection_that_matches_nothing_is_a_usage_error_that_says_what_there_is() {
    let journal = "Nov 29 10:00:01 h systemd[1]: Started sglang.service - SGLang.\n\
Nov 29 10:00:02 h python3[12]: [2025-11-29 10:00:02] server_args=ServerArgs(model_path='/m')\n";
    let out = run_stdin(&["--unit", "nosuch", "-"], journal.as_bytes());
    assert_eq!(out.status.code(), Some(2), "a typo must not stay green");
    let said = stderr(&out);
    assert!(said.contains("--unit nosuch") && said.contains("units seen: sglang.service"), "{said}");
    assert_eq!(run_stdin(&["--unit", "sglang", "-"], journal.as_bytes()).status.code(), Some(0));
    let out = run_stdin(&["--last", "-"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--last"), "{}", stderr(&out));
}

#[test]
fn last_keeps_the_number_each_run_has_in_the_whole_report() {
    // The seed incident launched twice in one journal: runs 1 and 2.
    let once = std::fs::read(fixture("seed-k26-flashinfer-journal")).unwrap();
    let dir = TempDir::new("numbers");
    let twice = dir.write("twice.log", &[once.clone(), once].concat());
    let path = twice.to_str().unwrap();

    let all = json(&run(&["--format", "json", path]));
    let runs = all["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!((runs[0]["number"].as_u64(), runs[1]["number"].as_u64()), (Some(1), Some(2)));

    let last = run(&["--format", "json", "--last", path]);
    assert_eq!(last.status.code(), Some(1));
    let report = json(&last);
    assert_eq!(report["runs"].as_array().unwrap().len(), 1);
    assert_eq!(report["runs"][0]["number"], 2);
    assert_eq!(report["runs"][0]["first_line"], runs[1]["first_line"]);

    let text = stdout(&run(&["--last", path]));
    assert!(text.contains("\nRun 2: "), "{text}");
    assert!(!text.contains("Run 1"), "{text}");
    // Without --last, run 1 is history: one line, its details with -v.
    let whole = stdout(&run(&[path]));
    assert!(whole.contains("\n  run 1 sglang-k26.service (") && whole.contains("\nRun 2: "), "{whole}");
    assert!(!whole.contains("\nRun 1: "), "{whole}");
    let verbose = stdout(&run(&["-v", path]));
    assert!(verbose.contains("\nRun 1: ") && verbose.contains("\nRun 2: "), "{verbose}");
}

#[test]
fn events_name_the_rules_that_matched_them_as_the_diagnosis_does() {
    let path = fixture("seed-k26-flashinfer-journal");
    let out = run(&["events", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let events: Vec<serde_json::Value> =
        stdout(&out).lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
    let rules_at = |line: u64| {
        let event = events
            .iter()
            .find(|e| e["line"].as_u64().unwrap() <= line && line <= e["last_line"].as_u64().unwrap());
        let rules =
            event.expect("an event holds the line")["rules"].as_array().expect("a rules list").clone();
        rules.iter().map(|r| r.as_str().unwrap().to_string()).collect::<Vec<_>>()
    };
    // The diagnosis's root cause and symptoms, each found on its line.
    let report = json(&run(&["--format", "json", path.to_str().unwrap()]));
    let cause = report["root_cause"]["rule"].as_str().unwrap();
    assert!(
        rules_at(report["root_cause"]["evidence"][0]["line"].as_u64().unwrap()).contains(&cause.to_string())
    );
    for symptom in report["runs"][0]["symptoms"].as_array().unwrap() {
        let rule = symptom["rule"].as_str().unwrap().to_string();
        assert!(rules_at(symptom["line"].as_u64().unwrap()).contains(&rule), "{rule}");
    }
    assert!(
        events.iter().any(|e| e["rules"].as_array().unwrap().is_empty()),
        "lines no rule knows match none"
    );

    // A user's rule is matched as the diagnosis would match it.
    let dir = TempDir::new("events-rules");
    dir.write(
        "rules/mine.toml",
        br#"role = "cause"
category = "cuda-oom"
title = "the node said hello"
hint = "Say hello back."
priority = 5

[match]
message = 'hello from the node'

[test]
samples = ["hello from the node"]
"#,
    );
    let log = dir.write("x.log", b"boot\nhello from the node\nbye\n");
    let rules_dir = dir.path().join("rules");
    let out =
        run(&["events", "--no-default-rules", "--rules", rules_dir.to_str().unwrap(), log.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let matched: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["rules"].clone())
        .collect();
    assert_eq!(matched, [serde_json::json!([]), serde_json::json!(["mine"]), serde_json::json!([])]);
}

#[test]
fn a_file_name_that_is_not_utf8_is_refused_in_one_line_with_the_way_around() {
    use std::os::unix::ffi::OsStrExt;
    let dir = TempDir::new("non-utf8-name");
    let name = std::ffi::OsStr::from_bytes(b"bad\xffname.log");
    let path = dir.path().join(name);
    std::fs::write(&path, b"RuntimeError: CUDA error: an illegal memory access was encountered\n").unwrap();
    let out = std::process::Command::new(BIN).arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("name is not UTF-8") && err.contains("logdiag - < FILE"), "{err}");
    // The way around works.
    let out = run_stdin(&["-"], &std::fs::read(&path).unwrap());
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
}

#[test]
fn events_group_a_newest_first_excerpt_as_the_diagnosis_does() {
    // `journalctl -r` prints the newest entry first: the traceback's header
    // comes after its exception line in the file.
    let dir = TempDir::new("newest-first");
    let log = dir.write(
        "r.log",
        b"May 25 20:27:25 gpu01 systemd[1]: sglang.service: Failed with result 'exit-code'.\n\
May 25 20:27:25 gpu01 systemd[1]: sglang.service: Main process exited, code=exited, status=1/FAILURE\n\
May 25 20:27:24 gpu01 python3[4711]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n\
May 25 20:27:24 gpu01 python3[4711]:     self.model = load(path)\n\
May 25 20:27:24 gpu01 python3[4711]:   File \"/srv/serve.py\", line 9, in start\n\
May 25 20:27:24 gpu01 python3[4711]: Traceback (most recent call last):\n\
May 25 20:27:20 gpu01 systemd[1]: Started sglang.service - SGLang server.\n",
    );
    let out = run(&["events", log.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let events: Vec<serde_json::Value> =
        stdout(&out).lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
    let tracebacks: Vec<&serde_json::Value> = events.iter().filter(|e| e["kind"] == "traceback").collect();
    assert_eq!(tracebacks.len(), 1, "one traceback, whole: {events:#?}");
    let traceback = tracebacks[0];
    let numbers: Vec<u64> =
        traceback["lines"].as_array().unwrap().iter().map(|l| l["line"].as_u64().unwrap()).collect();
    // In time order, each line named by its number in the file.
    assert_eq!(numbers, [6, 5, 4, 3]);
    assert_eq!(
        traceback["exception"],
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"
    );
    assert!(events.iter().all(|e| e["message"] != "Traceback (most recent call last):" || e == traceback));
    // The diagnosis reads the same event: its cause is on the exception's
    // line, and it names the rule `logdiag events` names there.
    let report = json(&run(&["--format", "json", log.to_str().unwrap()]));
    let cause = &report["root_cause"];
    assert_eq!(cause["category"], "cuda-oom", "{report:#}");
    assert!(cause["evidence"].as_array().unwrap().iter().any(|e| e["line"] == 3), "{cause:#}");
    let rules: Vec<&str> =
        traceback["rules"].as_array().unwrap().iter().map(|r| r.as_str().unwrap()).collect();
    assert!(rules.contains(&cause["rule"].as_str().unwrap()), "{rules:?} against {cause:#}");
}
