//! A mistyped subcommand: "did you mean watch?" when no file of that name
//! exists, a diagnosis as usual when one does; a subcommand named after an
//! option, which clap reads as a PATH, is said so.

use std::process::{Command, Output, Stdio};

use crate::util::{fixture, stderr, stdout, TempDir, BIN};

fn run_in(dir: &TempDir, args: &[&str]) -> Output {
    Command::new(BIN).args(args).current_dir(dir.path()).stdin(Stdio::null()).output().expect("run logdiag")
}

#[test]
fn a_mistyped_subcommand_is_suggested_on_one_line() {
    let dir = TempDir::new("typo");
    let out = run_in(&dir, &["wacth", "x.log"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stdout(&out), "");
    let said = stderr(&out);
    assert_eq!(said.lines().count(), 1, "{said}");
    assert!(said.contains("did you mean watch?"), "{said}");
}

#[test]
fn a_file_spelt_like_a_subcommand_is_diagnosed() {
    let dir = TempDir::new("typo-file");
    dir.write("wacth", &std::fs::read(fixture("seed-k26-flashinfer-journal")).unwrap());
    let out = run_in(&dir, &["wacth"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("wacth:1-38 (sglang-k26.service)  CRASH"), "{}", stdout(&out));
}

#[test]
fn a_missing_file_unlike_any_subcommand_is_still_a_missing_file() {
    let dir = TempDir::new("typo-far");
    let out = run_in(&dir, &["sglang-server.log"]);
    assert_eq!(out.status.code(), Some(2));
    let said = stderr(&out);
    assert!(said.contains("sglang-server.log") && !said.contains("did you mean"), "{said}");
}

#[test]
fn an_option_before_a_subcommand_is_said_on_one_line() {
    let dir = TempDir::new("option-first");
    let out = run_in(&dir, &["--format", "json", "rules", "list"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stdout(&out), "");
    let said = stderr(&out);
    assert_eq!(said.lines().count(), 1, "{said}");
    assert!(said.contains("'rules' is a command, but an option came before it"), "{said}");
    // Files named like commands are still diagnosed when they are all there.
    dir.write("watch", &std::fs::read(fixture("seed-k26-flashinfer-journal")).unwrap());
    let out = run_in(&dir, &["-v", "watch"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
}
