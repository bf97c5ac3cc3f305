//! The five founding incidents (the crashes that started the project), as
//! fixtures: what a user running logdiag at 3 a.m. must be told.

use crate::util::*;

fn texts(items: &serde_json::Value) -> Vec<String> {
    items.as_array().unwrap().iter().map(|i| i["text"].as_str().unwrap().to_string()).collect()
}

/// A self-inflicted SIGKILL after a FlashInfer arch rejection: the cause is
/// the arch check; 9/KILL, the failed result and the sigquit are symptoms.
fn assert_k26_diagnosis(out: &std::process::Output) {
    assert_eq!(out.status.code(), Some(1), "{}", stderr(out));
    let report = json(out);
    assert_eq!(report["verdict"], "crash");
    let cause = &report["root_cause"];
    assert_eq!(cause["category"], "flashinfer-unsupported-arch");
    assert_eq!(cause["confidence"], "high");
    let evidence = texts(&cause["evidence"]);
    assert!(
        evidence[0].ends_with("RuntimeError: FlashInfer requires GPUs with sm75 or higher"),
        "{evidence:?}"
    );
    let run = &report["runs"][0];
    let symptoms = texts(&run["symptoms"]);
    for consequence in
        ["status=9/KILL", "Failed with result 'signal'", "Received sigquit from a child process"]
    {
        assert!(
            symptoms.iter().any(|s| s.contains(consequence)),
            "{consequence} not a symptom: {symptoms:?}"
        );
        assert!(!evidence.iter().any(|e| e.contains(consequence)), "{consequence} used as evidence");
    }
    let why = run["symptoms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["text"].as_str().unwrap().contains("9/KILL"))
        .unwrap();
    assert!(why["why"].as_str().unwrap().contains("flashinfer.arch-check"), "{why}");
}

#[test]
fn k26_flashinfer_journal_is_an_arch_rejection_not_an_oom_kill() {
    let path = fixture("seed-k26-flashinfer-journal");
    assert_k26_diagnosis(&run(&["--format", "json", path.to_str().unwrap()]));
}

#[test]
fn k26_flashinfer_journal_through_stdin() {
    let bytes = std::fs::read(fixture("seed-k26-flashinfer-journal")).unwrap();
    assert_k26_diagnosis(&run_stdin(&["--format", "json", "-"], &bytes));
    // With no PATH and a non-terminal stdin, logdiag reads stdin too.
    assert_k26_diagnosis(&run_stdin(&["--format", "json"], &bytes));
}

#[test]
fn k26_text_report_marks_the_decisive_line_and_explains_the_kill() {
    let out = run(&[fixture("seed-k26-flashinfer-journal").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let decisive = text.lines().find(|l| l.trim_start().starts_with("> ")).expect("a marked decisive line");
    assert!(
        decisive.contains("34 │") && decisive.contains("RuntimeError: FlashInfer requires GPUs with sm75"),
        "{decisive}"
    );
    assert!(text.contains("Hint: "));
    assert!(
        text.contains("status=9/KILL") && text.contains("explained by flashinfer.arch-check (line 34)"),
        "{text}"
    );
}

#[test]
fn eagle3_journal_is_a_host_oom_kill() {
    let out = run(&["--format", "json", fixture("seed-eagle3-oom-journal").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let report = json(&out);
    assert_eq!(report["root_cause"]["category"], "host-oom-kill");
    let evidence = texts(&report["root_cause"]["evidence"]);
    assert!(evidence.iter().any(|e| e.contains("A process of this unit has been killed by the OOM killer")));
}

#[test]
fn appended_server_log_has_an_old_crash_and_a_healthy_current_run() {
    let path = fixture("seed-glm5-appended-server-log");
    let out = run(&["--format", "json", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "the current launch is healthy");
    let report = json(&out);
    assert_eq!(report["verdict"], "no-crash");
    assert!(report["root_cause"].is_null());
    let runs = report["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!((runs[0]["history"].as_bool(), runs[1]["history"].as_bool()), (Some(true), Some(false)));
    // Forensics: any launch decides.
    let any = run(&["--any-launch", "--format", "json", path.to_str().unwrap()]);
    assert_eq!(any.status.code(), Some(1));
    assert_eq!(json(&any)["root_cause"]["category"], "flashinfer-unsupported-arch");
    assert_eq!(runs[0]["outcome"], "crash");
    assert_eq!(runs[0]["root_cause"]["category"], "flashinfer-unsupported-arch");
    assert_eq!(runs[1]["outcome"], "healthy");
    assert!(runs[1]["first_line"].as_u64().unwrap() > runs[0]["last_line"].as_u64().unwrap() - 1);

    let last = run(&["--format", "json", "--last", path.to_str().unwrap()]);
    assert_eq!(last.status.code(), Some(0), "the current launch is healthy");
    let report = json(&last);
    assert_eq!(report["verdict"], "no-crash");
    assert_eq!(report["runs"].as_array().unwrap().len(), 1);
    assert_eq!(report["runs"][0]["outcome"], "healthy");
    assert!(report["root_cause"].is_null());
}

#[test]
fn autotune_in_progress_is_starting_and_its_oom_lines_are_benign() {
    let out = run(&["--format", "json", fixture("seed-glm5-autotune-running").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let report = json(&out);
    assert_eq!(report["verdict"], "no-crash");
    let run = &report["runs"][0];
    assert_eq!(run["outcome"], "starting");
    assert_eq!(run["phase"], "autotuning");
    let benign = texts(&run["benign"]);
    assert!(benign.iter().any(|b| b.contains("OOM detected, falling back to default tactic")), "{benign:?}");
    assert!(
        benign.iter().any(|b| b.contains("CUDA out of memory. Tried to allocate 1.50 GiB")),
        "{benign:?}"
    );

    let verbose = stdout(&run_args_verbose("seed-glm5-autotune-running"));
    assert!(verbose.contains("Benign") && verbose.contains("falls back"), "{verbose}");
}

fn run_args_verbose(case: &str) -> std::process::Output {
    run(&["-v", fixture(case).to_str().unwrap()])
}

#[test]
fn journal_tail_cut_inside_a_traceback_says_what_is_missing() {
    let path = fixture("seed-k26-flashinfer-tail");
    let out = run(&["--format", "json", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3), "crash with no identified cause");
    let report = json(&out);
    assert_eq!(report["verdict"], "crash");
    assert_eq!(report["root_cause"]["confidence"], "low");
    assert!(report["root_cause"]["hint"].as_str().unwrap().contains("flashinfer"), "names the suspect");
    let notice = report["runs"][0]["notices"][0].as_str().unwrap();
    assert!(
        notice.contains("ends inside a traceback") && notice.contains("before its exception line"),
        "{notice}"
    );
    assert!(notice.contains("journalctl _PID="), "says how to fetch more: {notice}");

    let text = stdout(&run(&[path.to_str().unwrap()]));
    assert!(text.contains("cut before its exception line") && text.contains("journalctl _PID="), "{text}");
}
