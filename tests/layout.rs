//! The text report fits where it goes: on 80 columns nothing but evidence
//! lines is wider, a terminal gets colour and evidence cut with `…`, and a
//! pipe gets whole lines and no colour unless `--color always` asks.

use std::io::Read;
use std::os::fd::{FromRawFd, OwnedFd};
use std::process::{Command, Stdio};

use crate::util::*;

/// Every founding incident's log.
fn seed_logs() -> Vec<String> {
    let mut logs: Vec<String> = std::fs::read_dir(root().join("fixtures"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.starts_with("seed-"))
        .map(|name| format!("fixtures/{name}/input.log"))
        .collect();
    logs.sort();
    assert!(logs.len() >= 8, "{logs:?}");
    logs
}

/// The environment a test controls: none of the user's own.
fn command(args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut command = Command::new(BIN);
    command.args(args).current_dir(root()).env_remove("COLUMNS").env_remove("NO_COLOR");
    for (key, value) in env {
        command.env(key, value);
    }
    command
}

/// Runs logdiag with its stdout in a pipe.
fn in_pipe(args: &[&str], env: &[(&str, &str)]) -> String {
    let out = command(args, env).stdin(Stdio::null()).output().expect("run logdiag");
    assert!(matches!(out.status.code(), Some(0 | 1 | 3 | 5 | 6)), "{args:?}: {}", stderr(&out));
    stdout(&out)
}

/// Runs logdiag with its stdout on a pseudo-terminal `columns` wide, and
/// returns what it wrote (line ends as `\n`).
fn on_terminal(args: &[&str], env: &[(&str, &str)], columns: u16) -> String {
    let (mut master, mut slave) = (0, 0);
    let size = libc::winsize { ws_row: 50, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0 };
    // SAFETY: openpty writes two descriptors, which are then owned here.
    let opened =
        unsafe { libc::openpty(&mut master, &mut slave, std::ptr::null_mut(), std::ptr::null(), &size) };
    assert_eq!(opened, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors were just opened and nothing else owns them.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    let mut child = {
        let mut command = command(args, env);
        command.stdin(Stdio::null()).stdout(Stdio::from(slave)).stderr(Stdio::piped());
        command.spawn().expect("spawn logdiag")
        // The command, and with it our end of the terminal, is dropped
        // here: reading the master ends when the child has closed it.
    };
    let mut master = std::fs::File::from(master);
    let mut written = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        match master.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => written.extend_from_slice(&chunk[..n]),
            // Linux reports the other end closed as EIO.
            Err(e) if e.raw_os_error() == Some(libc::EIO) => break,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => panic!("reading the terminal: {e}"),
        }
    }
    let status = child.wait().expect("wait logdiag");
    assert!(matches!(status.code(), Some(0 | 1 | 3 | 5 | 6)), "{args:?}: {status}");
    String::from_utf8_lossy(&written).replace("\r\n", "\n")
}

/// `text` without SGR colour codes.
fn plain(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("\x1b[") {
        out.push_str(&rest[..at]);
        let code = &rest[at + 2..];
        let end = code.find('m').expect("an SGR code ends with m");
        rest = &code[end + 1..];
    }
    out.push_str(rest);
    out
}

/// `  >     34 │ …` or `        13 │ …`: a line of the log quoted as it is.
fn is_evidence(line: &str) -> bool {
    let Some(rest) = line.strip_prefix("  ").and_then(|r| r.strip_prefix(['>', ' '])) else {
        return false;
    };
    let rest = rest.trim_start_matches(' ');
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    digits > 0 && rest[digits..].starts_with(" │ ")
}

/// The lines of `report` wider than `width` that are not evidence lines.
fn too_wide(report: &str, width: usize) -> Vec<String> {
    plain(report)
        .lines()
        .filter(|line| !is_evidence(line) && line.chars().count() > width)
        .map(str::to_string)
        .collect()
}

#[test]
fn on_80_columns_nothing_but_evidence_is_wider_for_every_seed() {
    let mut evidence_seen = 0;
    let mut wide_without_columns = 0;
    for log in seed_logs() {
        for verbose in [&[][..], &["-v"][..]] {
            let args: Vec<&str> = verbose.iter().copied().chain([log.as_str()]).collect();
            let report = in_pipe(&args, &[("COLUMNS", "80")]);
            assert!(report.contains("\nverdict: "), "{log}: {report}");
            let wide = too_wide(&report, 80);
            assert!(wide.is_empty(), "{args:?} with COLUMNS=80: lines over 80 columns:\n{}", wide.join("\n"));
            evidence_seen += report.lines().filter(|l| is_evidence(l)).count();
            // The same report in a bare pipe is not laid out.
            wide_without_columns += too_wide(&in_pipe(&args, &[]), 80).len();
        }
    }
    assert!(evidence_seen > 0, "no evidence line recognised");
    assert!(wide_without_columns > 0, "no seed report is wider than 80 columns without COLUMNS");
}

#[test]
fn a_terminal_is_laid_out_to_its_width_with_evidence_cut() {
    for log in seed_logs() {
        let report = on_terminal(&["-v", &log], &[], 80);
        assert!(report.contains("\nverdict: "), "{log}: {report}");
        let wide: Vec<&str> = report.lines().filter(|line| plain(line).chars().count() > 80).collect();
        assert!(wide.is_empty(), "{log} on an 80-column terminal:\n{}", wide.join("\n"));
    }
    // On 80 columns the decisive words are whole: the journal's and the
    // server's prefix on the numbered line, the message wrapped under it.
    let k26 = plain(&on_terminal(&["fixtures/seed-k26-flashinfer-journal/input.log"], &[], 80));
    assert!(
        k26.contains("\n           │   RuntimeError: FlashInfer requires GPUs with sm75 or higher\n"),
        "{k26}"
    );
    assert!(k26.contains("\n  >     34 │ May 25 20:27:22 gpu-node-1 python[71283]:\n"), "{k26}");
    let collapse = plain(&on_terminal(&["fixtures/seed-glm5-throughput-collapse/input.log"], &[], 80));
    assert!(collapse.contains("gen throughput (token/s): 230.09"), "{collapse}");
    // Where even the prefix is too wide, it is cut, marked with `…`.
    let report = plain(&on_terminal(&["fixtures/seed-k26-flashinfer-journal/input.log"], &[], 60));
    let cut: Vec<&str> = report.lines().filter(|l| is_evidence(l) && l.ends_with('…')).collect();
    assert!(!cut.is_empty(), "no evidence line cut on 60 columns:\n{report}");
    assert!(cut.iter().all(|l| l.chars().count() == 60), "{cut:?}");
    // COLUMNS overrides the terminal's own width.
    let report = on_terminal(&["fixtures/seed-k26-flashinfer-journal/input.log"], &[("COLUMNS", "60")], 120);
    assert!(plain(&report).lines().all(|l| l.chars().count() <= 60), "{report}");
}

#[test]
fn color_always_colours_the_verdict_and_never_no_color_and_pipes_do_not() {
    let log = "fixtures/seed-k26-flashinfer-journal/input.log";
    let verdict_line = |report: &str| report.lines().last().unwrap_or_default().to_string();

    let always = in_pipe(&["--color", "always", log], &[]);
    assert_eq!(verdict_line(&always), "verdict: \x1b[1;31mcrash\x1b[0m (exit 1)");
    assert!(always.contains("\x1b[1;31mCRASH\x1b[0m"), "outcome: {always}");
    assert!(always.contains("\x1b[35mflashinfer.arch-check\x1b[0m"), "rule id: {always}");
    let decisive = always.lines().find(|l| l.contains("FlashInfer requires GPUs")).unwrap();
    assert!(decisive.starts_with("  \x1b[1;31m>     34\x1b[0m │ \x1b[1m"), "decisive line: {decisive:?}");
    assert_eq!(plain(&always), in_pipe(&[log], &[]), "colour changes nothing but colour");
    let always_no_color = in_pipe(&["--color", "always", log], &[("NO_COLOR", "1")]);
    assert!(verdict_line(&always_no_color).contains("\x1b["), "--color always overrides NO_COLOR");

    for (args, env) in [
        (vec![log], vec![]),
        (vec!["--color", "auto", log], vec![]),
        (vec!["--color", "never", log], vec![]),
        (vec!["--color", "never", "-v", log], vec![("COLUMNS", "80")]),
    ] {
        let report = in_pipe(&args, &env);
        assert!(!report.contains('\x1b'), "{args:?} {env:?} coloured a pipe: {report:?}");
    }

    let healthy = "fixtures/seed-glm5-autotune-running/input.log";
    let tty = on_terminal(&[healthy], &[], 100);
    assert_eq!(verdict_line(&tty), "verdict: \x1b[1;32mno crash\x1b[0m (exit 0)", "{tty}");
    for (args, env) in [(vec![healthy], vec![("NO_COLOR", "1")]), (vec!["--color", "never", healthy], vec![])]
    {
        let report = on_terminal(&args, &env, 100);
        assert!(!report.contains('\x1b'), "{args:?} {env:?} coloured: {report:?}");
    }
}

#[test]
fn evidence_lines_are_never_cut_in_a_pipe() {
    let long_tail = "x".repeat(1500);
    let log = format!("RuntimeError: FlashInfer requires GPUs with sm75 or higher {long_tail}\n");
    for env in [vec![], vec![("COLUMNS", "80")]] {
        let out = command(&["-"], &env).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn();
        let mut child = out.expect("spawn logdiag");
        use std::io::Write;
        child.stdin.take().unwrap().write_all(log.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        let report = stdout(&out);
        let decisive = report.lines().find(|l| l.starts_with("  >")).expect("a decisive line");
        assert!(decisive.ends_with(&long_tail), "{env:?}: cut in a pipe: {decisive}");
        assert!(!report.contains('…'), "{env:?}: {report}");
    }
    // Every seed's evidence, as JSON has it, is in the laid-out text whole.
    for seed in seed_logs() {
        let report = in_pipe(&[&seed], &[("COLUMNS", "80")]);
        let json = json(&command(&["--format", "json", &seed], &[]).output().unwrap());
        // History runs are one line each; their evidence is in `-v`.
        for run in json["runs"].as_array().unwrap().iter().filter(|r| r["history"] == false) {
            for evidence in run["root_cause"]["evidence"].as_array().into_iter().flatten() {
                let text = evidence["text"].as_str().unwrap();
                assert!(report.contains(text), "{seed}: {text:?} not whole in:\n{report}");
            }
        }
    }
    // The terminal gets the same line wrapped to its width, its words
    // whole, and a message of more than six lines cut at the sixth.
    let dir = TempDir::new("long-evidence");
    let path = dir.write("long.log", log.as_bytes());
    let report = plain(&on_terminal(&[path.to_str().unwrap()], &[], 80));
    let at = report.find("\n  >").expect("a decisive line") + 1;
    let block: Vec<&str> =
        report[at..].lines().take_while(|l| l.starts_with("  >") || l.starts_with("           │")).collect();
    assert!(block[0].contains("RuntimeError: FlashInfer requires GPUs with sm75 or higher"), "{block:?}");
    assert_eq!(block.len(), 7, "{block:?}");
    let last = block[block.len() - 1];
    assert!(last.ends_with('…') && block.iter().all(|l| l.chars().count() <= 80), "{block:?}");
}
