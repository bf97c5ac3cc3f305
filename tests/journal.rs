//! The seed incident as the real journalctl prints it. The fixture's lines
//! become export-format entries, `systemd-journal-remote` writes them to a
//! journal file, and `journalctl --file … -o MODE` renders it in every
//! output mode, so the tests read what journalctl really prints.
//!
//! Needs Debian's systemd-journal-remote (`.ci/run` installs it and sets
//! LOGDIAG_REQUIRE_JOURNAL=1, so CI fails rather than skips without it).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::util::*;

pub const REMOTE: &str = "/lib/systemd/systemd-journal-remote";

/// The tools, or `None` (the test is skipped) when they are missing and
/// not required.
pub fn tools() -> Option<()> {
    let present = Path::new(REMOTE).exists()
        && Command::new("journalctl").arg("--version").stdout(Stdio::null()).status().is_ok();
    if !present && std::env::var_os("LOGDIAG_REQUIRE_JOURNAL").is_some() {
        panic!("{REMOTE} or journalctl is missing (apt-get install systemd-journal-remote)");
    }
    if !present {
        eprintln!("skipped: {REMOTE} and journalctl are needed");
    }
    present.then_some(())
}

/// The fixture's journal lines as export-format entries, one second apart.
pub fn export_entries(fixture: &Path) -> String {
    let text = std::fs::read_to_string(fixture).unwrap();
    let shape = regex::Regex::new(r"^\w+ +\d+ [\d:]+ (\S+) ([^\[:]+)(?:\[(\d+)\])?: (.*)$").unwrap();
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        let caps = shape.captures(line).expect("a journal short line");
        let (host, ident, message) = (&caps[1], &caps[2], &caps[4]);
        let pid = caps.get(3).map_or("1", |p| p.as_str());
        let usec = 1_748_204_272_000_000u64 + i as u64 * 1_000_000;
        out.push_str(&format!(
            "__CURSOR=s=0123456789abcdef0123456789abcdef;i={n:x};b=0123456789abcdef0123456789abcdef;m={n:x};t={usec:x};x=1\n\
             __REALTIME_TIMESTAMP={usec}\n__MONOTONIC_TIMESTAMP={mono}\n_BOOT_ID=0123456789abcdef0123456789abcdef\n\
             _HOSTNAME={host}\nSYSLOG_IDENTIFIER={ident}\nPRIORITY=6\n_PID={pid}\nMESSAGE={message}\n",
            n = i + 1,
            mono = 1_000_000 + i as u64 * 1_000_000,
        ));
        if ident == "python" {
            out.push_str("_SYSTEMD_UNIT=sglang-k26.service\n");
        }
        out.push('\n');
    }
    out
}

/// Writes the seed incident to a journal file in `dir`.
fn build_journal(dir: &TempDir) -> PathBuf {
    write_journal(dir, "k26.journal", &export_entries(&fixture("seed-k26-flashinfer-journal")))
}

/// Writes export-format entries to the journal file `name` in `dir`, with
/// the real systemd-journal-remote.
pub fn write_journal(dir: &TempDir, name: &str, export: &str) -> PathBuf {
    let journal = dir.path().join(name);
    let mut child = Command::new(REMOTE)
        .arg("-o")
        .arg(&journal)
        .arg("-")
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start systemd-journal-remote");
    use std::io::Write;
    child.stdin.take().unwrap().write_all(export.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success() && journal.exists(), "{}", String::from_utf8_lossy(&out.stderr));
    journal
}

pub fn render(journal: &Path, args: &[&str], into: &Path) {
    let out =
        Command::new("journalctl").arg("--file").arg(journal).args(args).arg("--no-pager").output().unwrap();
    assert!(out.status.success(), "journalctl {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    std::fs::write(into, &out.stdout).unwrap();
}

/// Every `journalctl -o` mode.
const MODES: [&str; 16] = [
    "short",
    "short-precise",
    "short-iso",
    "short-iso-precise",
    "short-full",
    "short-monotonic",
    "short-unix",
    "short-delta",
    "with-unit",
    "cat",
    "verbose",
    "json",
    "json-pretty",
    "json-seq",
    "json-sse",
    "export",
];

/// Renders the journal with `args` and checks that batch mode and `logdiag
/// watch` find the cause, with the evidence line pointing at it in the
/// rendered file.
fn check_rendering(dir: &TempDir, journal: &Path, args: &[&str]) {
    check_rendered_after(dir, journal, args, b"")
}

/// Like [`check_rendering`], with `front` before what journalctl printed
/// (its `Hint:` captured with `2>&1`, another log concatenated in front).
fn check_rendered_after(dir: &TempDir, journal: &Path, args: &[&str], front: &[u8]) {
    let label = format!("{}{}", args.join(" "), if front.is_empty() { "" } else { " after other lines" });
    let rendered = dir.path().join(format!("k26{}", label.replace(' ', "")));
    render(journal, args, &rendered);
    let mut fronted = front.to_vec();
    fronted.extend_from_slice(&std::fs::read(&rendered).unwrap());
    std::fs::write(&rendered, fronted).unwrap();
    let out = run(&["--format", "json", rendered.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{label}: {}", stderr(&out));
    let report = json(&out);
    assert_eq!(report["root_cause"]["category"], "flashinfer-unsupported-arch", "{label}");
    let evidence = &report["root_cause"]["evidence"][0];
    assert!(
        evidence["text"]
            .as_str()
            .unwrap()
            .ends_with("RuntimeError: FlashInfer requires GPUs with sm75 or higher"),
        "{label}: {evidence}"
    );
    // The evidence line number points at that text in the rendered file.
    let line = evidence["line"].as_u64().unwrap() as usize;
    let rendered_text = std::fs::read(&rendered).unwrap();
    let shown = String::from_utf8_lossy(&rendered_text).lines().nth(line - 1).unwrap_or_default().to_string();
    assert!(
        shown.contains("FlashInfer requires GPUs with sm75 or higher"),
        "{label}: line {line} is {shown:?}"
    );
    if !args.contains(&"cat") {
        // Lines in front may be a run of their own.
        let crashed = report["runs"].as_array().unwrap().iter().find(|r| r["outcome"] == "crash");
        assert_eq!(crashed.map(|r| &r["unit"]), Some(&"sglang-k26.service".into()), "{label}");
    }
    // `--last` judges the same launch.
    let last = run(&["--last", rendered.to_str().unwrap()]);
    assert_eq!(last.status.code(), Some(1), "{label} --last: {}", stdout(&last));
    // `logdiag watch` reads the same stream to the same answer.
    let input = std::fs::read(&rendered).unwrap();
    let watched = run_stdin(&["watch", "-", "--until", "exit", "--format", "json"], &input);
    assert_eq!(watched.status.code(), Some(1), "watch {label}: {}", stdout(&watched));
    let records: Vec<serde_json::Value> =
        stdout(&watched).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let crash = records.iter().find(|r| r["state"] == "crashed").expect("a crashed state");
    let decisive = &crash["run"]["root_cause"]["evidence"][0];
    assert_eq!(crash["run"]["root_cause"]["category"], "flashinfer-unsupported-arch", "watch {label}");
    assert_eq!(decisive["line"], evidence["line"], "watch {label}");
}

#[test]
fn every_journalctl_output_mode_gives_the_same_diagnosis() {
    let Some(()) = tools() else { return };
    let dir = TempDir::new("journal-modes");
    let journal = build_journal(&dir);
    for mode in MODES {
        check_rendering(&dir, &journal, &["-o", mode]);
    }
}

/// What journalctl writes to the terminal before its output for a user
/// outside the journal's groups.
const HINT: &[u8] = b"Hint: You are currently not seeing messages from other users and the system.
      Users in groups 'adm', 'systemd-journal' can see all messages.
      Pass -q to turn off this notice.
";

#[test]
fn a_structured_journal_after_other_lines_is_read_in_its_shape() {
    let Some(()) = tools() else { return };
    let dir = TempDir::new("journal-after-lines");
    let journal = build_journal(&dir);
    let other_log = b"[2026-05-25 08:00:01] server_args=ServerArgs(model_path='m', tp_size=1)
[2026-05-25 08:00:09] Load weight begin. avail mem=78.50 GB
";
    for mode in ["export", "verbose", "json-pretty"] {
        for front in [HINT, b"\n", other_log] {
            check_rendered_after(&dir, &journal, &["-o", mode], front);
        }
    }
}

#[test]
fn every_newest_first_output_mode_is_put_back_in_time_order() {
    let Some(()) = tools() else { return };
    let dir = TempDir::new("journal-reverse-modes");
    let journal = build_journal(&dir);
    // `-o cat` prints no time: its order cannot be told.
    for mode in MODES.iter().filter(|m| **m != "cat") {
        check_rendering(&dir, &journal, &["-r", "-o", mode]);
    }
}

#[test]
fn a_newest_first_journal_is_judged_in_time_order() {
    let Some(()) = tools() else { return };
    let dir = TempDir::new("journal-reverse");
    let journal = build_journal(&dir);
    let rendered = dir.path().join("k26.reverse");
    render(&journal, &["-r", "-o", "short"], &rendered);
    let out = run(&["--format", "json", rendered.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let report = json(&out);
    assert_eq!(report["root_cause"]["category"], "flashinfer-unsupported-arch");
    // 38 lines newest first: the RuntimeError (34th in time) is line 5.
    assert_eq!(report["root_cause"]["evidence"][0]["line"], 5);
    let symptoms: Vec<&str> = report["runs"][0]["symptoms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["text"].as_str().unwrap())
        .collect();
    assert!(symptoms.iter().any(|s| s.contains("status=9/KILL")), "{symptoms:?}");
    assert!(report["inputs"][0]["notices"][0].as_str().unwrap().contains("newest first"));
    // `logdiag watch` puts it in order too, on stdin and in a file.
    let input = std::fs::read(&rendered).unwrap();
    let piped = run_stdin(&["watch", "-", "--until", "exit", "--format", "json"], &input);
    let followed = run(&["watch", rendered.to_str().unwrap(), "--until", "exit", "--format", "json"]);
    for (how, out) in [("stdin", piped), ("file", followed)] {
        assert_eq!(out.status.code(), Some(1), "watch {how}: {}", stdout(&out));
        let crash: serde_json::Value = stdout(&out)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .find(|r: &serde_json::Value| r["state"] == "crashed")
            .unwrap();
        assert_eq!(crash["run"]["root_cause"]["evidence"][0]["line"], 5, "watch {how}");
    }
}
