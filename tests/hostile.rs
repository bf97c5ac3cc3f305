//! Hostile input with the real binary: damaged bytes, cut compression,
//! paths that cannot be read, closed pipes, broken rules. Never a panic,
//! never a hang, never a made-up verdict.

use std::io::{Read, Write};
use std::process::{Command, Stdio};

use crate::util::*;

const SEED: &str = "seed-k26-flashinfer-journal";

fn seed() -> Vec<u8> {
    std::fs::read(fixture(SEED)).unwrap()
}

/// The verdict and root cause of a JSON report, for comparing two runs.
fn outcome(report: &serde_json::Value) -> (String, String, usize) {
    (
        report["verdict"].as_str().unwrap_or("").to_string(),
        report["root_cause"]["category"].as_str().unwrap_or("").to_string(),
        report["runs"].as_array().map_or(0, Vec::len),
    )
}

fn notices(report: &serde_json::Value) -> String {
    report["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|i| i["notices"].as_array().unwrap().clone())
        .fold(String::new(), |all, n| all + n.as_str().unwrap() + "\n")
}

#[test]
fn invalid_utf8_nul_bytes_and_crlf_do_not_hide_the_cause() {
    let mut damaged = Vec::new();
    for (i, line) in seed().split(|&b| b == b'\n').enumerate() {
        damaged.extend_from_slice(line);
        match i % 3 {
            0 => damaged.extend_from_slice(b" \xff\xfe\xc3"),
            1 => damaged.extend_from_slice(b"\0\0"),
            _ => {}
        }
        damaged.extend_from_slice(b"\r\n");
    }
    let dir = TempDir::new("damaged");
    let path = dir.write("damaged.log", &damaged);
    let out = run(&["--format", "json", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report = json(&out);
    assert_eq!(report["root_cause"]["category"], "flashinfer-unsupported-arch");
    assert_eq!(report["root_cause"]["evidence"][0]["line"], 34, "line numbers survive CRLF");
    let text = stdout(&run(&[path.to_str().unwrap()]));
    assert!(!text.contains('\0') && !text.contains('\r'), "{text:?}");
}

#[test]
fn an_over_long_line_is_cut_said_so_and_the_rest_is_still_read() {
    let seed = seed();
    let lines: Vec<&[u8]> = seed.split_inclusive(|&b| b == b'\n').collect();
    let mut log = lines[..10].concat();
    log.extend(std::iter::repeat_n(b'x', 5 << 20));
    log.push(b'\n');
    log.extend(lines[10..].concat());
    let dir = TempDir::new("long");
    let path = dir.write("long.log", &log);
    let report = json(&run(&["--format", "json", path.to_str().unwrap()]));
    assert_eq!(report["root_cause"]["category"], "flashinfer-unsupported-arch");
    assert_eq!(report["root_cause"]["evidence"][0]["line"], 35, "the long line counts as one line");
    assert!(notices(&report).contains("1 line(s) longer than 1 MiB were cut"), "{report}");

    // A log that is one 12 MiB line with no newline at all.
    let path = dir.write("one-line.log", &vec![b'a'; 12 << 20]);
    let out = run(&["--format", "json", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(notices(&json(&out)).contains("were cut"));
}

#[test]
fn a_journal_record_whose_big_field_comes_before_its_message_keeps_the_message() {
    // `journalctl -o json` and `-o json-pretty` print an entry's fields in
    // the order it has them: a 3 MiB field (a core dump, an environment)
    // may come before MESSAGE.
    let big = "x".repeat(3 << 20);
    let entry = |message: &str, big: Option<&str>| {
        let mut fields = vec![
            ("__REALTIME_TIMESTAMP", "1748204272600000".to_string()),
            ("_PID", "4242".to_string()),
            ("SYSLOG_IDENTIFIER", "python3".to_string()),
        ];
        if let Some(big) = big {
            fields.push(("COREDUMP_ENVIRON", big.to_string()));
        }
        fields.push(("MESSAGE", message.to_string()));
        fields
    };
    let entries = [
        entry("Load weight begin. avail mem=78.50 GB", None),
        entry("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB", Some(&big)),
    ];
    let json_line = |fields: &[(&str, String)]| {
        let pairs: Vec<String> = fields
            .iter()
            .map(|(k, v)| format!("{}:{}", serde_json::json!(k), serde_json::json!(v)))
            .collect();
        format!("{{{}}}\n", pairs.join(","))
    };
    let pretty = |fields: &[(&str, String)]| {
        let pairs: Vec<String> = fields
            .iter()
            .map(|(k, v)| format!("\t{} : {}", serde_json::json!(k), serde_json::json!(v)))
            .collect();
        format!("{{\n{}\n}}\n", pairs.join(",\n"))
    };
    let dir = TempDir::new("big-field");
    for (name, text) in [
        ("json.log", entries.iter().map(|e| json_line(e)).collect::<String>()),
        ("pretty.log", entries.iter().map(|e| pretty(e)).collect::<String>()),
    ] {
        let path = dir.write(name, text.as_bytes());
        let out = run(&["--format", "json", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1), "{name}: {}", stdout(&out));
        assert_eq!(json(&out)["root_cause"]["category"], "cuda-oom", "{name}");
    }
}

/// What a decoder yields from damaged input before its first error.
fn readable_prefix(mut decoder: impl Read) -> Vec<u8> {
    let mut all = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match decoder.read(&mut buf) {
            Ok(0) | Err(_) => return all,
            Ok(n) => all.extend_from_slice(&buf[..n]),
        }
    }
}

#[test]
fn cut_gzip_and_zstd_are_diagnosed_as_far_as_they_can_be_read() {
    // Many crashed runs, so the first half holds several whole ones, with
    // request lines that do not compress away (zstd must see whole blocks).
    let mut log = Vec::new();
    let mut x: u64 = 0x2545f4914f6cdd1d;
    for _ in 0..120 {
        log.extend(seed());
        for _ in 0..100 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            log.extend(format!("May 25 20:27:23 gpu-node-1 python[71283]: [2026-05-25 20:27:23] INFO:     127.0.0.1:43514 - \"POST /generate HTTP/1.1\" 200 OK rid={x:016x}\n").bytes());
        }
    }
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&log).unwrap();
    let gz = gz.finish().unwrap();
    let zst = zstd::encode_all(&log[..], 3).unwrap();
    let dir = TempDir::new("cut");
    for (name, whole) in [("cut.log.gz", gz), ("cut.log.zst", zst)] {
        let cut = &whole[..whole.len() / 2];
        let path = dir.write(name, cut);
        let prefix = if name.ends_with(".gz") {
            readable_prefix(flate2::read::MultiGzDecoder::new(cut))
        } else {
            readable_prefix(zstd::stream::read::Decoder::new(cut).unwrap())
        };
        assert!(prefix.len() > log.len() / 10, "{name}: the test needs a readable part");
        let plain = dir.write(&format!("{name}.prefix"), &prefix);

        let out = run(&["--format", "json", path.to_str().unwrap()]);
        let expected = run(&["--format", "json", plain.to_str().unwrap()]);
        assert_eq!(out.status.code(), expected.status.code(), "{name}");
        let report = json(&out);
        assert_eq!(outcome(&report), outcome(&json(&expected)), "{name}: the readable part's diagnosis");
        assert!(outcome(&report).2 > 10, "{name}: several runs were read");
        assert!(notices(&report).contains("the input was cut"), "{name}: {report}");
        let text = stdout(&run(&[path.to_str().unwrap()]));
        assert!(text.contains("the input was cut"), "{text}");
    }

    // Cut so early that nothing can be read: an unreadable input.
    let path = dir.write("nothing.log.zst", &zstd::encode_all(&seed()[..], 3).unwrap()[..40]);
    let out = run(&[path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("nothing.log.zst: cannot be read"), "{err}");
}

#[test]
fn an_unreadable_file_is_one_line_and_exit_2() {
    use std::os::unix::fs::PermissionsExt;
    // Opens for anyone, fails on the first read (EIO): an unreadable device.
    let out = run(&["/proc/self/mem"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("/proc/self/mem: input/output error"), "{err}");

    let dir = TempDir::new("perm");
    let path = dir.write("secret.log", &seed());
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::File::open(&path).is_ok() {
        // Running as root: permissions do not stop reading, so a file
        // refused by its mode cannot be made here.
        eprintln!("permission part skipped: permissions are not enforced for this user");
        return;
    }
    for args in [vec![path.to_str().unwrap()], vec![dir.path().to_str().unwrap()]] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2));
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("secret.log") && err.contains("permission denied"), "{err}");
    }
}

#[test]
fn a_directory_with_a_symlink_loop_is_still_diagnosed() {
    let dir = TempDir::new("loop");
    dir.write("logs/server.log", &seed());
    std::os::unix::fs::symlink("..", dir.path().join("logs/up")).unwrap();
    let logs = dir.path().join("logs");
    // Links are not followed unless asked: nothing to warn about.
    let out = run(&[logs.to_str().unwrap()]);
    assert_eq!((out.status.code(), stderr(&out).as_str()), (Some(1), ""));
    let out = run(&["--follow", logs.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("warning") && err.contains("logs/up") && err.contains("loop"), "{err}");
}

#[test]
fn a_named_pipe_is_read_until_its_writer_closes_it() {
    let dir = TempDir::new("fifo");
    let fifo = dir.path().join("journal.pipe");
    mkfifo(&fifo);
    let writer_path = fifo.clone();
    let writer = std::thread::spawn(move || {
        let mut pipe = std::fs::OpenOptions::new().write(true).open(writer_path).unwrap();
        for chunk in seed().chunks(100) {
            pipe.write_all(chunk).unwrap();
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    });
    let out = run(&["--format", "json", fifo.to_str().unwrap()]);
    writer.join().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(json(&out)["root_cause"]["category"], "flashinfer-unsupported-arch");
}

#[test]
fn stdin_closed_early_is_judged_as_far_as_it_goes() {
    let out = run(&["-"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "-: the log is empty, nothing to judge\n");

    // The writer stops inside the traceback: no cause can be named, and
    // the report says the input ended there.
    let seed = seed();
    let head: Vec<u8> =
        seed.split_inclusive(|&b| b == b'\n').take(25).flat_map(|l| l.iter().copied()).collect();
    let out = run_stdin(&["--format", "json", "-"], &head);
    assert_eq!(out.status.code(), Some(3), "{}", stdout(&out));
    let report = json(&out);
    assert_eq!(report["root_cause"]["category"], "unknown");
}

#[test]
fn diagnose_into_a_closed_pipe_ends_quietly() {
    let dir = TempDir::new("head");
    for i in 0..200 {
        dir.write(&format!("logs/s{i:03}.log"), &seed());
    }
    let out = run_into_closed_pipe(&[dir.path().join("logs").to_str().unwrap()]);
    assert!(out.stderr.is_empty(), "quiet: {}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "the diagnosis's code, as if read to the end");
}

#[test]
fn an_internal_error_exits_2_with_one_line() {
    let log = fixture(SEED);
    for format in ["text", "json"] {
        let out = Command::new(BIN)
            .args(["--format", format, log.to_str().unwrap()])
            .env("LOGDIAG_TEST_INTERNAL_ERROR", "1")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{format}");
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("logdiag: internal error"), "{err}");
        assert!(out.stdout.is_empty(), "no half report");
    }
}

/// One file per way a rule can be wrong; all are reported at once.
#[test]
fn every_kind_of_rule_mistake_is_located_and_explained() {
    let dir = TempDir::new("rule-mistakes");
    let rule = |extra: &str, message: &str, sample: &str| {
        format!(
            "role = \"cause\"\ncategory = \"cuda-oom\"\ntitle = \"t\"\nhint = \"h\"\n{extra}[match]\nmessage = '{message}'\n[test]\nsamples = ['{sample}']\n"
        )
    };
    dir.write("site/syntax.toml", b"role = [\n");
    dir.write("site/field.toml", rule("colour = \"red\"\n", "x", "x").as_bytes());
    dir.write("site/role.toml", rule("", "x", "x").replace("\"cause\"", "\"villain\"").as_bytes());
    dir.write("site/category.toml", rule("", "x", "x").replace("cuda-oom", "gremlins").as_bytes());
    dir.write("site/regex.toml", rule("", "(x", "x").as_bytes());
    dir.write("site/big.toml", rule("", r"\w{1000}\w{1000}\w{1000}", "x").as_bytes());
    dir.write("site/sample.toml", rule("", "abc", "xyz").as_bytes());
    dir.write("site/copy.toml", rule("id = \"site.sample\"\n", "def", "def").as_bytes());
    let expected = [
        ("syntax.toml:2:1: invalid array; expected `]`", "check the TOML syntax"),
        ("field.toml:5:1: unknown field `colour`", "the fields a rule may have"),
        ("role.toml:1:8: unknown role 'villain'", "use one of: cause, symptom"),
        ("category.toml:2:12: unknown category 'gremlins'", "logdiag rules categories"),
        ("regex.toml:6:11: invalid regex: unclosed group", "escape literal"),
        ("big.toml:6:11: regex is too big", "smaller repetition counts"),
        ("sample.toml:8:12: sample does not match this rule", "fix the sample"),
        ("duplicate rule id 'site.sample'", "another id"),
    ];
    let check = run(&["rules", "check", dir.path().to_str().unwrap()]);
    assert_eq!(check.status.code(), Some(2));
    let report = stdout(&check);
    for (problem, help) in expected {
        let at = report.find(problem).unwrap_or_else(|| panic!("missing {problem:?} in\n{report}"));
        let help_line = report[at..].lines().nth(1).unwrap_or("");
        assert!(
            help_line.trim_start().starts_with("help:") && help_line.contains(help),
            "{problem}: {report}"
        );
    }
    assert!(report.contains("8 problem(s) found"), "one error each, none invented: {report}");

    let log = fixture(SEED);
    let diagnose = run(&["--rules", dir.path().to_str().unwrap(), log.to_str().unwrap()]);
    assert_eq!(diagnose.status.code(), Some(2));
    assert!(diagnose.stdout.is_empty(), "no diagnosis with broken rules");
    assert!(stderr(&diagnose).contains("8 problem(s) in rule files"));
}

/// A pattern that takes exponential time in a backtracking engine, on a
/// line built to trigger it, finishes: matching is linear.
#[test]
fn a_user_rule_cannot_make_matching_explode() {
    let dir = TempDir::new("redos");
    dir.write(
        "site/redos.toml",
        b"role = \"cause\"\ncategory = \"cuda-oom\"\ntitle = \"t\"\nhint = \"h\"\n[match]\nmessage = '^(a+)+$'\n[test]\nsamples = ['aaa']\n",
    );
    let mut log = Vec::new();
    for _ in 0..200 {
        log.extend(std::iter::repeat_n(b'a', 5000));
        log.extend_from_slice(b"b\n");
    }
    let path = dir.write("attack.log", &log);
    let mut child = Command::new(BIN)
        .args(["--rules", dir.path().to_str().unwrap(), path.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // A hang guard, not a timing claim: a backtracking engine would need
    // longer than the age of the universe here.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("matching did not finish");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(0));
}

/// A pattern whose automaton explodes (the lazy DFA would thrash and
/// matching fall back to a slow engine) is refused where it is written.
#[test]
fn a_user_rule_whose_automaton_explodes_is_refused_with_its_place() {
    let dir = TempDir::new("dfa-blowup");
    dir.write(
        "site/slow.toml",
        b"role = \"cause\"\ncategory = \"cuda-oom\"\ntitle = \"t\"\nhint = \"h\"\n[match]\nmessage = '[ab]*a[ab]{60}[ab]*a[ab]{60}X'\n[test]\nsamples = ['ab']\n",
    );
    let rules = dir.path().join("site");
    let out = run(&["--rules", rules.to_str().unwrap(), fixture(SEED).to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("slow.toml:6:11: regex can make matching slow"), "{err}");
    let check = run(&["rules", "check", "--rules", rules.to_str().unwrap()]);
    assert_eq!(check.status.code(), Some(2));
    assert!(stdout(&check).contains("slow.toml:6:11"), "{}", stdout(&check));
}

/// A confirm rule that confirms itself is a mistake shown where it is
/// written, not a rule that proves its own finding.
#[test]
fn a_rule_that_names_itself_is_refused_where_it_does() {
    let dir = TempDir::new("self-confirm");
    dir.write(
        "site/echo.toml",
        b"role = \"confirm\"\ncategory = \"cuda-oom\"\ntitle = \"t\"\nhint = \"h\"\nconfirms = [\"echo\"]\n[match]\nmessage = 'echo'\n[test]\nsamples = ['echo']\n",
    );
    let rules = dir.path().join("site");
    let check = run(&["rules", "check", "--rules", rules.to_str().unwrap()]);
    assert_eq!(check.status.code(), Some(2), "{}", stdout(&check));
    assert!(
        stdout(&check).contains("echo.toml:5:13: `confirms` names the rule itself"),
        "{}",
        stdout(&check)
    );
}

/// A rule file of megabytes is not read whole: it is refused in one
/// line (a 300 MB `hint` cost 867 MiB before).
#[test]
fn a_rule_file_too_large_to_be_one_is_refused() {
    let dir = TempDir::new("huge-rule");
    let mut text = b"role = \"cause\"\ncategory = \"cuda-oom\"\ntitle = \"t\"\nhint = \"\"\"".to_vec();
    text.extend(std::iter::repeat_n(b'a', 2 << 20));
    text.extend(b"\"\"\"\n[match]\nmessage = 'x'\n[test]\nsamples = ['x']\n");
    dir.write("site/huge.toml", &text);
    let rules = dir.path().join("site");
    let out = run(&["--rules", rules.to_str().unwrap(), fixture(SEED).to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("huge.toml: too large for a rule file (over 1024 KiB)"),
        "{}",
        stderr(&out)
    );
}

/// A zstd file whose checksum is damaged keeps all its data (the crash is
/// in its last block), and says the input is damaged, as gzip with a bad
/// CRC does; a file of one block too.
#[test]
fn a_damaged_zstd_checksum_keeps_the_last_block() {
    let dir = TempDir::new("zstd-checksum");
    let mut big = Vec::new();
    // An earlier launch's lines, then the seed incident's.
    for i in 0..20_000 {
        big.extend(
            format!(
                "May 25 20:16:{:02} gpu-node-1 python[71200]: [2026-05-25 20:16:20 TP0] filler {i} {}\n",
                i % 60,
                i * 7919 % 10007
            )
            .bytes(),
        );
    }
    big.extend(seed());
    for (name, log) in [("one-block.log.zst", seed()), ("many-blocks.log.zst", big)] {
        let mut encoder = zstd::stream::write::Encoder::new(Vec::new(), 3).unwrap();
        encoder.include_checksum(true).unwrap();
        encoder.write_all(&log).unwrap();
        let mut bytes = encoder.finish().unwrap();
        *bytes.last_mut().unwrap() ^= 0xff;
        let path = dir.write(name, &bytes);
        let out = run(&["--format", "json", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1), "{name}: {}", stderr(&out));
        let report = json(&out);
        assert_eq!(report["root_cause"]["category"], "flashinfer-unsupported-arch", "{name}");
        let notices = notices(&report);
        assert!(notices.contains("the input was cut") && notices.contains("checksum"), "{name}: {notices}");
    }
}

#[test]
fn a_crash_among_more_launches_than_are_kept_is_kept() {
    // 1,006 launches of a server in one log; the 6th died of CUDA OOM.
    let mut log = String::new();
    for launch in 0..1006 {
        let stamp =
            format!("[2026-05-25 {:02}:{:02}:{:02}]", 8 + launch / 3600, launch / 60 % 60, launch % 60);
        log.push_str(&format!(
            "{stamp} server_args=ServerArgs(model_path='/models/m', tp_size=1, port=30000)\n"
        ));
        log.push_str(&format!("{stamp} Load weight begin. avail mem=78.50 GB\n"));
        if launch == 5 {
            log.push_str(
                "Traceback (most recent call last):\n  File \"/x/launch.py\", line 3, in <module>\n",
            );
            log.push_str("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB.\n");
        }
    }
    let out = run_stdin(&["--format", "json", "--any-launch", "-"], log.as_bytes());
    let report = json(&out);
    let runs = report["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1000, "runs kept");
    let crashed: Vec<_> = runs.iter().filter(|r| r["root_cause"]["category"] == "cuda-oom").collect();
    assert_eq!(crashed.len(), 1, "the 6th launch's crash is kept");
    assert!(
        notices(&report).contains("6 earlier run(s) that recorded no failure were not kept"),
        "{}",
        notices(&report)
    );
    assert_eq!(out.status.code(), Some(1), "with --any-launch, a crash of any launch is the verdict");
}
