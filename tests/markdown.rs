//! `--format markdown`: a report to paste into a GitHub issue.

use crate::util::{fixture, run, stdout, TempDir};

/// The lines of each fenced block, checking that every fence opened is
/// closed by the same fence and that no line inside could close it.
fn fenced_blocks(markdown: &str) -> Vec<Vec<String>> {
    let mut blocks = Vec::new();
    let mut open: Option<(String, Vec<String>)> = None;
    for line in markdown.lines() {
        match &mut open {
            None if line.starts_with("```") => {
                let fence: String = line.chars().take_while(|&c| c == '`').collect();
                assert_eq!(&line[fence.len()..], "text", "fence without its info string: {line:?}");
                open = Some((fence, Vec::new()));
            }
            None => {}
            Some((fence, _)) if line == fence => blocks.push(open.take().unwrap().1),
            Some((fence, lines)) => {
                assert!(!line.trim_start().starts_with(fence.as_str()), "{line:?} would close {fence}");
                lines.push(line.to_string());
            }
        }
    }
    assert!(open.is_none(), "a fence is never closed:\n{markdown}");
    blocks
}

#[test]
fn a_crash_reads_as_headline_table_evidence_and_hint() {
    let out = run(&["--format", "markdown", "fixtures/seed-k26-flashinfer-journal/input.log"]);
    assert_eq!(out.status.code(), Some(1), "the same exit code as the text report");
    let md = stdout(&out);
    let lines: Vec<&str> = md.lines().collect();
    assert_eq!(lines[0], "## logdiag: crash");
    assert!(
        lines[2].starts_with("- `fixtures/seed-k26-flashinfer-journal/input.log:1-38` (`sglang-k26.service`) **CRASH**: FlashInfer's JIT found no build target at sm75"),
        "{}",
        lines[2]
    );
    let header = lines
        .iter()
        .position(|l| *l == "| source | run | lines | unit | outcome | root cause | confidence |");
    let header = header.unwrap_or_else(|| panic!("no table header:\n{md}"));
    assert_eq!(lines[header + 1], "| --- | ---: | --- | --- | --- | --- | --- |");
    assert_eq!(
        lines[header + 2],
        "| `fixtures/seed-k26-flashinfer-journal/input.log` | 1 | 1-38 | `sglang-k26.service` | crash | `flashinfer-unsupported-arch` | high |"
    );
    let blocks = fenced_blocks(&md);
    assert_eq!(blocks.len(), 2, "evidence and symptoms:\n{md}");
    let evidence = &blocks[0];
    assert_eq!(evidence.len(), 3, "{evidence:?}");
    assert_eq!(
        evidence[2],
        ">     34 │ May 25 20:27:22 gpu-node-1 python[71283]: RuntimeError: FlashInfer requires GPUs with sm75 or higher"
    );
    assert!(evidence[0].starts_with("      15 │ "), "{evidence:?}");
    assert!(blocks[1].iter().any(|l| l.contains("└ systemd.killed-by-sigkill: ")), "{:?}", blocks[1]);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("**Hint:** FlashInfer's JIT arch check found no target architecture")),
        "{md}"
    );
    assert!(!md.contains("Benign"), "benign lines only with -v");
    assert_eq!(lines.last(), Some(&"**Verdict:** crash (exit 1)"));
}

#[test]
fn benign_lines_are_shown_with_verbose() {
    let path = fixture("flashinfer-2800");
    let quiet = stdout(&run(&["--format", "markdown", path.to_str().unwrap()]));
    assert!(!quiet.contains("Benign"));
    let verbose = stdout(&run(&["--format", "markdown", "-v", path.to_str().unwrap()]));
    let blocks = fenced_blocks(&verbose);
    let benign = blocks.last().unwrap();
    assert!(verbose.contains("Benign (scary but harmless):"), "{verbose}");
    assert!(benign.iter().any(|l| l.contains("Search for `cudaErrorIllegalAddress'")), "{benign:?}");
    assert!(benign.iter().any(|l| l.contains("└ cuda.debugging-advice: ")), "{benign:?}");
}

#[test]
fn no_log_line_can_close_the_fence_or_reach_the_terminal_raw() {
    let dir = TempDir::new("markdown-fence");
    let seed = std::fs::read_to_string(fixture("seed-k26-flashinfer-journal")).unwrap();
    let hostile = seed.replace(
        "RuntimeError: FlashInfer requires GPUs with sm75 or higher",
        "RuntimeError: FlashInfer requires GPUs with sm75 or higher ````` \u{7}bell",
    );
    assert_ne!(hostile, seed);
    let path = dir.write("hostile.log", hostile.as_bytes());
    let out = run(&["--format", "markdown", path.to_str().unwrap()]);
    let md = stdout(&out);
    assert!(!md.contains('\u{7}'), "a raw control character reached the output");
    let evidence = &fenced_blocks(&md)[0];
    assert!(
        evidence.iter().any(|l| l.ends_with("sm75 or higher ````` \\x07bell")),
        "the line is kept whole, backticks and all:\n{md}"
    );
    assert!(md.contains("\n``````text\n"), "the fence is longer than the line's backticks:\n{md}");
}

#[test]
fn a_healthy_log_has_a_table_and_no_details() {
    let out =
        run(&["--format", "markdown", "--last", fixture("seed-glm5-appended-server-log").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let md = stdout(&out);
    assert!(md.starts_with("## logdiag: no crash\n"), "{md}");
    assert!(md.contains("**HEALTHY**: a generation completed at line 50"), "{md}");
    assert!(!md.contains("### Run"), "{md}");
    assert!(md.ends_with("**Verdict:** no crash (exit 0)\n"), "{md}");
}

#[test]
fn an_earlier_launch_is_one_line_of_history_and_a_collapse_is_the_verdict() {
    let appended = fixture("seed-glm5-appended-server-log");
    let out = run(&["--format", "markdown", appended.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert!(text.starts_with("## logdiag: no crash"), "{text}");
    assert!(text.contains("\n  - run 1 (") && text.contains("crashed: FlashInfer"), "{text}");
    assert!(fenced_blocks(&text).is_empty(), "history has no evidence block without -v: {text}");
    let collapse = fixture("seed-glm5-throughput-collapse");
    let out = run(&["--format", "markdown", collapse.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(6));
    assert!(stdout(&out).starts_with("## logdiag: degraded"), "{}", stdout(&out));
}
