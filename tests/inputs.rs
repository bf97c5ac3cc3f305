//! What logdiag reads: directories walked as ripgrep walks them (links,
//! loops, files that are not logs), empty input, and files that are not
//! logs named on the command line.

use std::io::Write;

use crate::util::*;

fn seed() -> Vec<u8> {
    std::fs::read(fixture("seed-k26-flashinfer-journal")).unwrap()
}

/// Bytes that look random (xorshift), as compressed or image data do.
fn noise(len: usize) -> Vec<u8> {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// A PNG: its signature, then image data.
fn png() -> Vec<u8> {
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    png.extend(noise(2048));
    png
}

/// The names of the inputs a JSON report read, relative to `dir`.
fn inputs_read(report: &serde_json::Value, dir: &TempDir) -> Vec<String> {
    let root = format!("{}/", dir.path().display());
    report["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap().trim_start_matches(&root).to_string())
        .collect()
}

/// A folder holding a log beside what is not one: a README, a PNG, random
/// bytes under a log-like name, a link to the log and a link loop.
fn mixed_folder() -> TempDir {
    let dir = TempDir::new("mixed");
    dir.write("server.log", &seed());
    dir.write("README.md", b"# Logs of the k26 node\n\nserver.log is sglang's output.\n");
    dir.write("plot.png", &png());
    dir.write("dump.txt", &noise(4096));
    std::os::unix::fs::symlink("server.log", dir.path().join("link.log")).unwrap();
    std::fs::create_dir_all(dir.path().join("sub")).unwrap();
    std::os::unix::fs::symlink("..", dir.path().join("sub/up")).unwrap();
    dir
}

#[test]
fn a_walk_reads_only_logs_and_says_what_it_left_out_with_v() {
    let dir = mixed_folder();
    let path = dir.path().to_str().unwrap();
    let out = run(&["--format", "json", path]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report = json(&out);
    assert_eq!(inputs_read(&report, &dir), ["server.log"], "links are not followed without -L");
    assert_eq!(report["root_cause"]["category"], "flashinfer-unsupported-arch");
    assert_eq!(stderr(&out), "", "nothing to say without -v");

    let out = run(&["-v", path]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    let said: Vec<&str> = err.lines().collect();
    assert_eq!(said.len(), 5, "{err}");
    for (name, why) in [
        ("README.md", "documentation"),
        ("dump.txt", "binary data"),
        ("link.log", "symbolic link"),
        ("plot.png", "an image"),
        ("sub/up", "symbolic link"),
    ] {
        assert!(
            said.iter().any(|l| l.contains(&format!("/{name}: skipped: ")) && l.contains(why)),
            "{name}: {err}"
        );
    }
}

#[test]
fn with_follow_a_link_loop_is_a_warning_and_the_rest_is_diagnosed() {
    let dir = mixed_folder();
    let out = run(&["-L", "--format", "json", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("warning") && err.contains("sub/up") && err.contains("loop"), "{err}");
    let report = json(&out);
    assert_eq!(inputs_read(&report, &dir), ["link.log", "server.log"]);
    assert!(report["runs"].as_array().unwrap().iter().all(|r| r["outcome"] == "crash"));
}

#[test]
fn compressed_logs_in_a_walk_are_read_whatever_their_name() {
    let dir = TempDir::new("compressed-walk");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&seed()).unwrap();
    dir.write("a/k26.gz", &gz.finish().unwrap());
    dir.write("b/k26.zst", &zstd::encode_all(&seed()[..], 3).unwrap());
    dir.write("c/notes.md", b"not a log\n");
    let out = run(&["-v", "--format", "json", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report = json(&out);
    assert_eq!(inputs_read(&report, &dir), ["a/k26.gz", "b/k26.zst"]);
    let causes: Vec<&str> = report["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["root_cause"]["category"].as_str().unwrap())
        .collect();
    assert_eq!(causes, ["flashinfer-unsupported-arch"; 2]);
    assert_eq!(stderr(&out).lines().count(), 1, "only the markdown file is left out");
}

#[test]
fn a_folder_of_no_logs_is_one_line_and_exit_2() {
    let dir = TempDir::new("no-logs");
    dir.write("README.md", b"# nothing here\n");
    dir.write("plot.png", &png());
    let out = run(&[dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("no logs") && err.contains("2 file(s)"), "{err}");
}

#[test]
fn an_empty_file_says_it_is_empty_in_one_line() {
    let dir = TempDir::new("empty");
    let empty = dir.write("server.log", b"");
    let out = run(&[empty.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "read, and nothing in it crashed");
    assert_eq!(stdout(&out), format!("{}: the log is empty, nothing to judge\n", empty.display()));
    assert_eq!(stderr(&out), "");

    let out = run_stdin(&["-"], b"");
    assert_eq!(
        (out.status.code(), stdout(&out).as_str()),
        (Some(0), "-: the log is empty, nothing to judge\n")
    );

    // Empty once decompressed is empty too.
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default()).finish().unwrap();
    let empty_gz = dir.write("server.log.gz", &gz);
    let out = run(&[empty_gz.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout(&out).ends_with("server.log.gz: the log is empty, nothing to judge\n"),
        "{}",
        stdout(&out)
    );

    // Scripts get the report, whose input read no line.
    let out = run(&["--format", "json", empty.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let report = json(&out);
    assert_eq!((&report["verdict"], &report["inputs"][0]["lines"]), (&"no-crash".into(), &0.into()));
    assert!(report["inputs"][0]["notices"][0].as_str().unwrap().contains("empty"));

    // Beside a log, an empty file is a note of the report, not all of it.
    let out = run(&[fixture("seed-k26-flashinfer-journal").to_str().unwrap(), empty.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("CRASH") && stdout(&out).contains("the input is empty"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_binary_file_named_does_not_look_like_a_log() {
    let dir = TempDir::new("binary");
    for (name, bytes, what) in [
        ("plot.png", png(), "a PNG image"),
        ("server.log", noise(8192), "binary data"),
        ("core", b"\x7fELF\x02\x01\x01\0".iter().copied().chain(noise(512)).collect(), "ELF"),
    ] {
        let path = dir.write(name, &bytes);
        let out = run(&[path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        assert_eq!(stdout(&out), "", "{name}: no report");
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains(name) && err.contains("does not look like a log") && err.contains(what),
            "{err}"
        );
    }
    let out = run_stdin(&["-"], &png());
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("-: does not look like a log: a PNG image"), "{}", stderr(&out));
}

#[test]
fn a_log_that_ends_in_nul_bytes_is_still_a_log() {
    // A machine that lost power: blocks allocated, never written.
    let mut log = seed();
    log.extend(vec![0u8; 64 * 1024]);
    let mut padded_first = vec![0u8; 16 * 1024];
    padded_first.extend(seed());
    let dir = TempDir::new("nul");
    for (name, bytes) in [("tail.log", log), ("head.log", padded_first)] {
        let path = dir.write(name, &bytes);
        let out = run(&["--format", "json", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1), "{name}: {}", stderr(&out));
        assert_eq!(json(&out)["root_cause"]["category"], "flashinfer-unsupported-arch", "{name}");
    }
}

#[test]
fn utf16_and_utf32_logs_are_diagnosed_as_their_utf8_text() {
    let text = String::from_utf8(seed()).unwrap();
    let dir = TempDir::new("wide");
    for encoding in WIDE_ENCODINGS {
        for mark in [true, false] {
            let label = format!("{encoding}, mark {mark}");
            let bytes = widened(&text, encoding, mark);
            let file = dir.write(&format!("{encoding}-{mark}/k26.log"), &bytes);
            let folder = file.parent().unwrap().to_str().unwrap().to_string();
            let file = file.to_str().unwrap().to_string();
            // A file, a directory holding it, standard input, and watch.
            for (how, out) in [
                ("file", run(&["--format", "json", &file])),
                ("directory", run(&["--format", "json", &folder])),
                ("stdin", run_stdin(&["--format", "json", "-"], &bytes)),
            ] {
                assert_eq!(out.status.code(), Some(1), "{label} {how}: {}", stdout(&out));
                let report = json(&out);
                assert_eq!(report["root_cause"]["category"], "flashinfer-unsupported-arch", "{label} {how}");
                assert_eq!(report["root_cause"]["evidence"][0]["line"], 34, "{label} {how}");
            }
            let watched = run_stdin(&["watch", "-", "--until", "exit"], &bytes);
            assert_eq!(watched.status.code(), Some(1), "{label} watch: {}", stdout(&watched));
            let followed = run(&["watch", &file, "--until", "exit"]);
            assert_eq!(followed.status.code(), Some(1), "{label} watch file: {}", stdout(&followed));
        }
    }
}

#[test]
fn lines_ended_by_a_carriage_return_alone_are_lines() {
    let cr: Vec<u8> = seed().into_iter().map(|b| if b == b'\n' { b'\r' } else { b }).collect();
    let out = run_stdin(&["--format", "json", "-"], &cr);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let report = json(&out);
    assert_eq!(report["root_cause"]["category"], "flashinfer-unsupported-arch");
    assert_eq!(report["root_cause"]["evidence"][0]["line"], 34, "numbered as an editor shows them");
    assert_eq!(report["inputs"][0]["lines"], 38);
}

#[test]
fn an_empty_unit_name_is_a_usage_error() {
    let out = run(&["--unit", "", fixture("seed-k26-flashinfer-journal").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("an empty unit name matches no unit"), "{}", stderr(&out));
}
