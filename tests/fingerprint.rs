//! A failure no rule names carries a fingerprint that stays the same when
//! it happens again (other numbers, paths, hosts), reports group the runs
//! it ended, and `rules draft` turns it into a rule.

use crate::util::*;

/// One start of a trainer unit on `host` that dies of an exception no rule
/// knows, raised in `function`; `shard` and `home` change between runs.
fn crashed_start(host: &str, pid: u32, shard: u32, home: &str, function: &str, hour: u32) -> String {
    let p = format!("Jan 01 {hour:02}:00:01 {host} python3[{pid}]: ");
    [
        format!("Jan 01 {hour:02}:00:00 {host} systemd[1]: Started trainer.service - Trainer."),
        format!("{p}Traceback (most recent call last):"),
        format!("{p}  File \"{home}/train.py\", line 88, in <module>"),
        format!("{p}    main()"),
        format!("{p}  File \"{home}/venv/lib/python3.11/site-packages/shardio/reader.py\", line {}, in {function}", 400 + hour),
        format!("{p}    raise ShardError(name)"),
        format!("{p}shardio.errors.ShardError: shard {shard} of {home}/data/part-{shard:05}.bin has a bad header (crc 0x{pid:08x})"),
        format!("Jan 01 {hour:02}:00:02 {host} systemd[1]: trainer.service: Main process exited, code=exited, status=1/FAILURE"),
        format!("Jan 01 {hour:02}:00:02 {host} systemd[1]: trainer.service: Failed with result 'exit-code'."),
    ]
    .join("\n")
        + "\n"
}

fn fingerprint_of(run: &serde_json::Value) -> &str {
    run["root_cause"]["fingerprint"]["id"].as_str().expect("a fingerprint")
}

#[test]
fn the_same_unknown_failure_in_two_runs_shares_a_fingerprint_and_is_grouped() {
    let log = crashed_start("gpu1", 1234, 3, "/home/alice/job", "open_shard", 1)
        + &crashed_start("gpu1", 5678, 17, "/home/alice/job", "open_shard", 2)
        + &crashed_start("gpu1", 9012, 4, "/home/alice/job", "check_header", 3);
    let out = run_stdin(&["--format", "json", "-"], log.as_bytes());
    assert_eq!(out.status.code(), Some(3), "{}", stdout(&out));
    let report = json(&out);
    let runs = report["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 3);
    let fingerprint = &runs[0]["root_cause"]["fingerprint"];
    assert_eq!(fingerprint["kind"], "shardio.errors.ShardError");
    assert_eq!(
        fingerprint["message"],
        "shardio.errors.ShardError: shard <n> of <path> has a bad header (crc <hex>)"
    );
    assert_eq!(
        fingerprint["frames"],
        serde_json::json!(["job/train.py in <module>", "shardio/reader.py in open_shard"])
    );
    assert_eq!(fingerprint_of(&runs[0]), fingerprint_of(&runs[1]));
    // Raised by another function: another failure.
    assert_ne!(fingerprint_of(&runs[0]), fingerprint_of(&runs[2]));
    assert_eq!(
        report["recurring"],
        serde_json::json!([{ "fingerprint": fingerprint_of(&runs[0]), "title": runs[0]["root_cause"]["title"], "runs": [1, 2] }])
    );
    let text = stdout(&run_stdin(&["-"], log.as_bytes()));
    let grouped = format!(
        "the same unrecognised failure ended runs 1 and 2 (fingerprint {})",
        fingerprint_of(&runs[0])
    );
    assert!(text.contains(&grouped), "{text}");
    // Runs 1 and 2 are history: one line for both, and their details with -v.
    assert!(text.contains("runs 1–2 trainer.service (-:1-18): crashed the same way 2 times"), "{text}");
    let text = stdout(&run_stdin(&["-v", "-"], log.as_bytes()));
    assert!(
        text.contains(&format!(
            "fingerprint {} (shardio.errors.ShardError: shard <n>",
            fingerprint_of(&runs[0])
        )),
        "{text}"
    );
}

#[test]
fn two_hosts_with_the_same_failure_in_other_paths_share_it() {
    let dir = TempDir::new("fingerprint-hosts");
    dir.write(
        "gpu1/journal.log",
        crashed_start("gpu1", 1234, 3, "/home/alice/job", "open_shard", 1).as_bytes(),
    );
    dir.write("gpu2/journal.log", crashed_start("gpu2", 77, 41, "/srv/bob/job", "open_shard", 5).as_bytes());
    let out = run(&["--format", "json", dir.path().to_str().unwrap()]);
    let report = json(&out);
    let runs = report["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2, "{report}");
    assert_eq!(fingerprint_of(&runs[0]), fingerprint_of(&runs[1]));
    assert_eq!(report["recurring"][0]["runs"], serde_json::json!([1, 2]));
}

#[test]
fn a_named_cause_has_no_fingerprint_and_nothing_is_grouped() {
    let out = run(&["--format", "json", fixture("seed-eagle3-oom-journal").to_str().unwrap()]);
    let report = json(&out);
    assert!(report["root_cause"]["rule"].is_string(), "{report}");
    assert!(report["root_cause"].get("fingerprint").is_none());
    assert!(report.get("recurring").is_none());
}

/// Writes the draft of `log`'s unknown failure into a new rules folder.
fn drafted(name: &str, log: &str) -> (TempDir, String, std::path::PathBuf) {
    let dir = TempDir::new(name);
    let path = dir.write("incident.log", log.as_bytes());
    let out = run(&["rules", "draft", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let rule = stdout(&out);
    dir.write("rules/drafted.toml", rule.as_bytes());
    (dir, rule, path)
}

#[test]
fn a_drafted_rule_passes_rules_check_and_names_the_failure_in_its_log() {
    let log = crashed_start("gpu1", 1234, 3, "/home/alice/job", "open_shard", 1)
        + &crashed_start("gpu1", 5678, 17, "/home/alice/job", "open_shard", 2);
    let (dir, rule, path) = drafted("draft-unknown", &log);
    assert!(rule.contains("id = \"local.shard-error\""), "{rule}");
    // The masked parts are captures the title names.
    assert!(
        rule.contains("(?P<n1>\\d+)")
            && rule.contains("title = \"shardio.errors.ShardError: shard {n1} of {path1}"),
        "{rule}"
    );
    assert!(
        rule.contains("# The prefilter requires one of: \"shardio.errors.ShardError: shard \""),
        "{rule}"
    );
    let rules = dir.path().join("rules");
    let check = run(&["rules", "check", rules.to_str().unwrap()]);
    assert_eq!(check.status.code(), Some(0), "{}{}", stdout(&check), rule);
    let out = run(&["--rules", rules.to_str().unwrap(), "--format", "json", path.to_str().unwrap()]);
    for run in json(&out)["runs"].as_array().unwrap() {
        assert_eq!(run["root_cause"]["rule"], "local.shard-error", "{run}");
    }
}

#[test]
fn a_draft_takes_the_inferred_category_and_makes_a_cause() {
    let log = "Traceback (most recent call last):\n  File \"/app/train.py\", line 88, in <module>\n    state = step(state)\njaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 1073741824 bytes.\n";
    let (dir, rule, path) = drafted("draft-inferred", log);
    assert!(rule.contains("role = \"cause\"\n") && rule.contains("category = \"cuda-oom\"\n"), "{rule}");
    let rules = dir.path().join("rules");
    let out = run(&["--rules", rules.to_str().unwrap(), "--format", "json", path.to_str().unwrap()]);
    // Named by a rule now: exit 1, no longer inferred.
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let cause = &json(&out)["root_cause"];
    assert_eq!(
        (cause["rule"].as_str(), cause["category"].as_str()),
        (Some("local.xla-runtime-error"), Some("cuda-oom"))
    );
    assert!(cause.get("inferred").is_none() && cause.get("fingerprint").is_none(), "{cause}");
}

#[test]
fn nothing_to_draft_is_an_error_that_says_why() {
    let out = run(&["rules", "draft", fixture("seed-eagle3-oom-journal").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no failure that no rule names"), "{}", stderr(&out));
    assert!(stdout(&out).is_empty());
}
