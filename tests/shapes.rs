//! Inputs whose shape changes from line to line: JSON records among text,
//! text among JSON records, damaged records, Docker's json-file logs. The
//! same incident must give the same diagnosis in every shape, and no line
//! may vanish without a notice.

use crate::util::*;

const SEED: &str = "seed-k26-flashinfer-journal";
/// The seed's decisive line.
const CAUSE_LINE: u64 = 34;

/// The seed's lines as (identifier, pid, message).
fn seed_entries() -> Vec<(String, String, String)> {
    let text = std::fs::read_to_string(fixture(SEED)).unwrap();
    text.lines()
        .map(|line| {
            let (head, message) = line.split_once("]: ").unwrap();
            let (rest, pid) = head.rsplit_once('[').unwrap();
            let identifier = rest.rsplit(' ').next().unwrap();
            (identifier.to_string(), pid.to_string(), message.to_string())
        })
        .collect()
}

/// One `journalctl -o json` line for the `i`th entry, its fields in the
/// order journald gives an entry from a service's stdout (`_PID` after
/// `MESSAGE`).
fn journal_json(i: usize, identifier: &str, pid: &str, message: &str) -> String {
    let quote = |s: &str| serde_json::to_string(s).unwrap();
    format!(
        "{{\"__CURSOR\":\"s=ab;i={i}\",\"__REALTIME_TIMESTAMP\":\"{}\",\"SYSLOG_IDENTIFIER\":{},\"MESSAGE\":{},\"_PID\":{},\"_SYSTEMD_UNIT\":\"sglang-k26.service\"}}",
        1_748_204_272_000_000u64 + i as u64 * 1000,
        quote(identifier),
        quote(message),
        quote(pid),
    )
}

fn diagnose(name: &str, bytes: &[u8]) -> (Option<i32>, serde_json::Value) {
    let dir = TempDir::new("shapes");
    let path = dir.write(name, bytes);
    let out = run(&["--format", "json", path.to_str().unwrap()]);
    (out.status.code(), json(&out))
}

fn notices(report: &serde_json::Value) -> String {
    report["inputs"][0]["notices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_string() + "\n")
        .collect()
}

fn assert_seed_cause(report: &serde_json::Value, line: u64) {
    assert_eq!(report["root_cause"]["category"], "flashinfer-unsupported-arch", "{report:#}");
    assert_eq!(report["root_cause"]["evidence"][0]["line"], line, "{report:#}");
}

#[test]
fn one_json_line_before_text_does_not_swallow_the_text() {
    let mut log = String::from("{\"level\":\"info\",\"msg\":\"launcher starting\"}\n");
    for (_, _, message) in seed_entries() {
        log += &message;
        log.push('\n');
    }
    let (code, report) = diagnose("launcher.log", log.as_bytes());
    assert_eq!(code, Some(1));
    assert_seed_cause(&report, CAUSE_LINE + 1);
}

#[test]
fn text_and_damaged_records_inside_a_json_journal_are_kept() {
    let entries = seed_entries();
    let mut lines: Vec<String> =
        entries.iter().enumerate().map(|(i, (id, pid, msg))| journal_json(i, id, pid, msg)).collect();
    // journalctl's own complaint, written to the same stream (`2>&1`).
    lines.insert(
        2,
        "Warning: journal file /var/log/journal/x/system.journal is truncated, ignoring file.".into(),
    );
    // The frame before the decisive record with a lone surrogate escape;
    // the record after it cut before its end.
    let cause = CAUSE_LINE as usize; // its index, after the inserted line
    lines[cause - 1] = lines[cause - 1].replacen("raise", "raise \\ud800", 1);
    let cut_at = lines[cause + 1].find("the child").unwrap();
    lines[cause + 1].truncate(cut_at);
    let (code, report) = diagnose("journal.json", (lines.join("\n") + "\n").as_bytes());
    assert_eq!(code, Some(1), "{report:#}");
    assert_seed_cause(&report, CAUSE_LINE + 1);
    let notices = notices(&report);
    assert!(notices.contains("2 JSON record(s) were not valid JSON"), "{notices}");
    let formats = report["inputs"][0]["formats"].to_string();
    assert!(formats.contains("journal-json"), "{formats}");
}

#[test]
fn docker_json_file_logs_are_read() {
    let mut lines = Vec::new();
    for (i, (_, _, message)) in seed_entries().iter().enumerate() {
        let time = format!("2026-05-25T20:27:{:02}.000000000Z", i);
        let record =
            |log: &str| serde_json::json!({"log": log, "stream": "stderr", "time": time}).to_string();
        if i + 1 == CAUSE_LINE as usize {
            // Docker splits a long line into records without a newline.
            let (a, b) = message.split_at(20);
            lines.push(record(a));
            lines.push(record(&format!("{b}\n")));
        } else {
            lines.push(record(&format!("{message}\n")));
        }
    }
    let (code, report) = diagnose("container-json.log", (lines.join("\n") + "\n").as_bytes());
    assert_eq!(code, Some(1), "{report:#}");
    assert_seed_cause(&report, CAUSE_LINE);
    assert_eq!(
        report["root_cause"]["evidence"][0]["text"],
        "RuntimeError: FlashInfer requires GPUs with sm75 or higher"
    );
    assert!(report["inputs"][0]["formats"].to_string().contains("docker-json"));
    // Newest first (as `tac` leaves it), spaced as Python's json.dumps
    // writes: put back in order by the records' times.
    let spaced: Vec<String> =
        lines.iter().rev().map(|l| l.replace("\":", "\": ").replace(",\"", ", \"")).collect();
    let (code, report) = diagnose("reversed-json.log", (spaced.join("\n") + "\n").as_bytes());
    assert_eq!(code, Some(1), "{report:#}");
    assert_eq!(report["root_cause"]["category"], "flashinfer-unsupported-arch", "{report:#}");
    let line = report["root_cause"]["evidence"][0]["line"].as_u64().unwrap() as usize;
    assert!(spaced[line - 1].contains("RuntimeError: FlashI"), "line {line}: {}", spaced[line - 1]);
}

#[test]
fn a_json_record_over_the_line_cap_is_cut_not_dropped() {
    let entries = seed_entries();
    let mut lines: Vec<String> =
        entries.iter().enumerate().map(|(i, (id, pid, msg))| journal_json(i, id, pid, msg)).collect();
    let index = CAUSE_LINE as usize - 1;
    let (id, pid, msg) = &entries[index];
    lines[index] = journal_json(index, id, pid, &format!("{msg} {}", "x".repeat(1536 * 1024)));
    let (code, report) = diagnose("big.json", (lines.join("\n") + "\n").as_bytes());
    assert_eq!(code, Some(1), "{report:#}");
    assert_eq!(report["root_cause"]["category"], "flashinfer-unsupported-arch", "{report:#}");
    // The cut took the fields after MESSAGE (its _PID): the line stands
    // alone, out of its traceback, but it is there.
    let evidence = report["root_cause"]["evidence"].as_array().unwrap();
    let kept = evidence.iter().find(|e| e["line"] == CAUSE_LINE).expect("the cut line is evidence");
    assert!(kept["text"]
        .as_str()
        .unwrap()
        .starts_with("RuntimeError: FlashInfer requires GPUs with sm75 or higher x"));
    // The report keeps 4 KiB of it, and says how much it left out.
    assert_eq!(kept["text"].as_str().unwrap().len(), 4096);
    assert!(kept["cut_bytes"].as_u64().is_some_and(|cut| cut > 1_000_000), "{kept}");
    let notices = notices(&report);
    assert!(notices.contains("longer than 1 MiB were cut"), "{notices}");
}

#[test]
fn a_damaged_json_pretty_object_is_kept() {
    let mut pretty = String::new();
    for (i, (id, pid, message)) in seed_entries().iter().enumerate() {
        let quote = |s: &str| serde_json::to_string(s).unwrap();
        let mut message = quote(message);
        // The innermost frame, which is evidence.
        if i + 3 == CAUSE_LINE as usize {
            message = message.replacen("in check_cuda_arch", "in check_cuda_arch \\ud800", 1);
        }
        pretty += &format!(
            "{{\n\t\"__CURSOR\" : \"s=ab;i={i}\",\n\t\"SYSLOG_IDENTIFIER\" : {},\n\t\"MESSAGE\" : {message},\n\t\"_PID\" : {}\n}}\n",
            quote(id),
            quote(pid)
        );
    }
    let (code, report) = diagnose("pretty.json", pretty.as_bytes());
    assert_eq!(code, Some(1), "{report:#}");
    assert_eq!(report["root_cause"]["category"], "flashinfer-unsupported-arch");
    let frame = report["root_cause"]["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["text"].as_str().unwrap().ends_with("in check_cuda_arch \u{fffd}"));
    assert!(frame, "the damaged object's frame is evidence: {report:#}");
    assert!(notices(&report).contains("1 JSON record(s) were not valid JSON"), "{}", notices(&report));
}

#[test]
fn a_binary_message_shown_as_blob_data_is_counted_not_read() {
    let seed = std::fs::read_to_string(fixture(SEED)).unwrap();
    let mut log = String::new();
    for (i, line) in seed.lines().enumerate() {
        if i == 20 {
            log += "May 25 20:27:22 gpu-node-1 python[71283]: [1.2K blob data]\n";
        }
        log += line;
        log.push('\n');
    }
    let (code, report) = diagnose("blob.log", log.as_bytes());
    assert_eq!(code, Some(1));
    assert_seed_cause(&report, CAUSE_LINE + 1);
    let notices = notices(&report);
    assert!(notices.contains("1 message(s) were binary") && notices.contains("--all"), "{notices}");
}
