//! Judging, checked on small logs: each test is one rule of causal
//! selection from judge/.

use super::diagnosis::{Confidence, Outcome, Verdict};
use super::*;
use crate::pipeline::events_of;
use crate::rules::Category;

fn diagnose(log: &str) -> Diagnosis {
    diagnose_sources(&[("t.log", log)])
}

fn diagnose_sources(sources: &[(&str, &str)]) -> Diagnosis {
    let rules = RuleSet::builtin().expect("built-in rules");
    let mut engine = Engine::new(&rules);
    for (name, log) in sources {
        engine.begin_source(name);
        for event in events_of(log) {
            engine.feed(&event);
        }
    }
    engine.diagnose(&JudgeOptions::default())
}

const BATCH: &str = "[2026-06-02 14:41:14 TP0] Decode batch. #running-req: 8, #token: 100, token usage: 0.01, gen throughput (token/s): 236.41, #queue-req: 0";

#[test]
fn a_failure_followed_by_progress_is_not_a_crash() {
    let log = format!(
        "[2026-06-02 14:41:10 TP0] Scheduler hit an exception: Traceback (most recent call last):\n  File \"/a.py\", line 1, in f\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n{BATCH}\n{BATCH}\n"
    );
    let d = diagnose(&log);
    assert_eq!(d.verdict, Verdict::NoCrash);
    assert_eq!(d.runs[0].outcome, Outcome::Healthy);
    assert!(d.runs[0].benign[0].why.contains("kept making progress"), "{:?}", d.runs[0].benign);
}

#[test]
fn progress_from_another_rank_before_the_kill_does_not_hide_the_crash() {
    let log = format!(
        "RuntimeError: CUDA error: an illegal memory access was encountered\n{BATCH}\n[2026-06-02 14:41:15] Received sigquit from a child process. It usually means the child failed.\n"
    );
    let d = diagnose(&log);
    assert_eq!(d.verdict, Verdict::Crash);
    let cause = d.root_cause.unwrap();
    assert_eq!(cause.category, Category::CudaIllegalAccess);
    assert_eq!(cause.confidence, Confidence::High, "the sigquit shows the process died");
}

#[test]
fn a_cause_without_any_sign_of_death_has_medium_confidence() {
    let d = diagnose("RuntimeError: CUDA error: no kernel image is available for execution on the device\n");
    assert_eq!(d.root_cause.unwrap().confidence, Confidence::Medium);
}

#[test]
fn sigkill_without_an_oom_record_is_never_called_an_oom_kill() {
    let d = diagnose(
        "May 25 20:27:23 h systemd[1]: x.service: Main process exited, code=killed, status=9/KILL\n",
    );
    let cause = d.root_cause.unwrap();
    assert_eq!(cause.category, Category::SigkillUnattributed);
    assert_eq!(cause.confidence, Confidence::Low);
    assert_eq!(d.runs[0].outcome, Outcome::Crash);
    assert_eq!(
        Diagnosis { root_cause: Some(cause), ..d }.exit(),
        crate::exit::Exit::CrashedUnexplained,
        "a stand-in symptom is not an identified cause"
    );
}

#[test]
fn a_confirm_record_turns_the_same_pids_sigkill_into_an_oom_kill() {
    let log = "[12-16 14:27:10] Exit code: -9\n[ 1234.567890] oom_reaper: reaped process 4242 (python3), now anon-rss:0kB\n";
    let d = diagnose(log);
    let cause = d.root_cause.unwrap();
    assert_eq!(cause.category, Category::HostOomKill);
    assert_eq!(cause.evidence.len(), 2, "the reaper line and the SIGKILL it explains");
}

#[test]
fn an_orderly_stop_is_not_a_crash() {
    let log = "\
Oct 24 06:17:09 h systemd[1]: Stopping traccar...
Oct 24 06:17:10 h systemd[1]: traccar.service: Main process exited, code=exited, status=143/n/a
Oct 24 06:17:10 h systemd[1]: traccar.service: Failed with result 'exit-code'.
Oct 24 06:17:10 h systemd[1]: Stopped traccar.
";
    let d = diagnose(log);
    assert_eq!(d.verdict, Verdict::NoCrash);
    assert_eq!(d.runs[0].outcome, Outcome::Stopped);
    assert_eq!(d.runs[0].unit.as_deref(), Some("traccar.service"));
}

#[test]
fn a_relaunch_starts_a_new_run_and_a_boot_ends_every_run() {
    let log = "\
[2026-06-02 14:02:11] server_args=ServerArgs(model_path='/m', port=30000)
RuntimeError: No supported CUDA architectures found for major versions [9, 10].
[2026-06-02 14:31:40] server_args=ServerArgs(model_path='/m', port=30000)
[2026-06-02 14:39:29] The server is fired up and ready to roll!
-- Boot 0123456789abcdef0123456789abcdef --
[2026-06-02 15:00:00 TP0] Load weight begin. avail mem=93.88 GB
";
    let d = diagnose(log);
    let outcomes: Vec<Outcome> = d.runs.iter().map(|r| r.outcome).collect();
    assert_eq!(outcomes, vec![Outcome::Crash, Outcome::Healthy, Outcome::Starting]);
    assert_eq!(d.runs[2].first_line, 6);
}

#[test]
fn systemd_starting_then_started_then_launch_is_one_run() {
    let log = "\
May 25 20:17:50 h systemd[1]: Starting sglang.service - SGLang...
May 25 20:17:52 h systemd[1]: Started sglang.service - SGLang.
May 25 20:17:58 h python[7]: [2026-05-25 20:17:58] server_args=ServerArgs(model_path='/m')
May 25 20:27:22 h python[7]: [2026-05-25 20:27:22] The server is fired up and ready to roll!
";
    let d = diagnose(log);
    assert_eq!(d.runs.len(), 1);
    assert_eq!(d.runs[0].outcome, Outcome::Healthy);
}

#[test]
fn the_earliest_cause_wins_and_later_failures_are_its_symptoms() {
    let log = "\
[2025-01-01 00:00:00 TP0] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600022 milliseconds before timing out.
terminate called after throwing an instance of 'c10::DistBackendError'
Fatal Python error: Aborted
";
    let d = diagnose(log);
    let cause = d.root_cause.unwrap();
    assert_eq!(cause.category, Category::NcclError);
    assert_eq!(cause.confidence, Confidence::High);
    let symptoms: Vec<&str> = d.runs[0].symptoms.iter().map(|s| s.rule.as_str()).collect();
    assert_eq!(symptoms, vec!["process.abort", "process.abort"]);
}

#[test]
fn an_unrecognised_uncaught_exception_is_unknown_with_its_lines() {
    let log = "Traceback (most recent call last):\n  File \"/a.py\", line 1, in <module>\nZeroDivisionError: division by zero\nKilled\n";
    let d = diagnose(log);
    let cause = d.root_cause.unwrap();
    assert_eq!((cause.category, cause.rule.as_deref()), (Category::Unknown, None));
    assert_eq!(cause.evidence[0].line, 3);
    assert_eq!(d.runs[0].symptoms[0].rule, "shell.killed", "Killed is the consequence");
}

#[test]
fn benign_rules_silence_causes_on_the_same_line() {
    let d = diagnose("[AutoTuner]: Skipping tactic 14 CutlassFusedMoeRunner, due to failure while profiling: CUDA out of memory. Tried to allocate 1.50 GiB.\n");
    assert_eq!(d.verdict, Verdict::NoCrash);
    assert_eq!(d.runs[0].benign[0].rule, "flashinfer.autotuner-oom-fallback");
    assert!(d.runs[0].benign[0].why.contains("not cuda.out-of-memory"));
}

#[test]
fn the_same_error_from_several_ranks_counts_once() {
    let line = "CUDA Error: no kernel image is available for execution on the device (209) /x/sampling.cuh: line 544 at function cudaFuncSetAttribute(kernel)";
    let d = diagnose(&format!("{line}\n{line}\n{line}\n"));
    assert!(d.runs[0].symptoms.is_empty(), "{:?}", d.runs[0].symptoms);
}

#[test]
fn a_survived_sigquit_is_not_merged_with_the_fatal_one() {
    let sigquit =
        "[2026-05-25 08:00:00] Received sigquit from a child process. It usually means the child failed.";
    let log = format!("{sigquit}\n{BATCH}\n{BATCH}\nRuntimeError: FlashInfer requires GPUs with sm75 or higher\n{sigquit}\n");
    let d = diagnose(&log);
    let run = &d.runs[0];
    assert_eq!(run.outcome, Outcome::Crash);
    assert_eq!(run.benign.len(), 1, "{:?}", run.benign);
    assert_eq!(run.benign[0].line, 1);
    assert_eq!(run.symptoms.len(), 1, "{:?}", run.symptoms);
    assert_eq!(run.symptoms[0].line, 5);
}

#[test]
fn batches_logged_between_a_failure_and_the_kill_it_causes_do_not_hide_it() {
    let log = format!(
        "RuntimeError: FlashInfer requires GPUs with sm75 or higher\n{BATCH}\n{BATCH}\nMay 25 20:27:23 h systemd[1]: x.service: Main process exited, code=killed, status=9/KILL\n"
    );
    let d = diagnose(&log);
    assert_eq!(d.verdict, Verdict::Crash);
    assert_eq!(d.root_cause.unwrap().category, Category::FlashinferUnsupportedArch);
}

const KILLED_UNIT: &str = "\
May 25 20:18:20 h python[71283]: [2026-05-25 20:18:20 TP0] Load weight begin. avail mem=93.12 GB
May 25 20:27:23 h systemd[1]: sglang.service: Main process exited, code=killed, status=9/KILL
";

#[test]
fn a_kernel_oom_record_in_another_file_explains_the_units_sigkill() {
    let dmesg = "[ 5000.123456] Out of memory: Killed process 71283 (python3) total-vm:1kB, anon-rss:1kB, file-rss:0kB, shmem-rss:0kB\n";
    let d = diagnose_sources(&[("journal.txt", KILLED_UNIT), ("dmesg.txt", dmesg)]);
    let journal_run = &d.runs[0];
    let cause = journal_run.root_cause.as_ref().unwrap();
    assert_eq!(cause.category, Category::HostOomKill);
    assert_eq!(cause.confidence, Confidence::High);
    assert_eq!((cause.evidence[0].source.as_str(), cause.evidence[0].line), ("dmesg.txt", 1));
    assert_eq!((cause.evidence[1].source.as_str(), cause.evidence[1].line), ("journal.txt", 2));
}

#[test]
fn an_oom_kill_of_another_process_does_not_explain_the_sigkill() {
    let dmesg = "[ 5000.123456] Out of memory: Killed process 999 (java) total-vm:1kB, anon-rss:1kB, file-rss:0kB, shmem-rss:0kB\n";
    let d = diagnose_sources(&[("journal.txt", KILLED_UNIT), ("dmesg.txt", dmesg)]);
    assert_eq!(d.runs[0].root_cause.as_ref().unwrap().category, Category::SigkillUnattributed);
}

#[test]
fn an_unrelated_oom_kill_in_the_same_journal_does_not_hide_the_real_cause() {
    let log = "\
May 25 20:10:00 h kernel: Out of memory: Killed process 999 (java) total-vm:1kB, anon-rss:1kB, file-rss:0kB, shmem-rss:0kB
May 25 20:18:20 h python[71283]: [2026-05-25 20:18:20 TP0] Load weight begin. avail mem=93.12 GB
May 25 20:27:22 h python[71283]: RuntimeError: FlashInfer requires GPUs with sm75 or higher
May 25 20:27:23 h systemd[1]: sglang.service: Main process exited, code=killed, status=9/KILL
";
    let d = diagnose(log);
    assert_eq!(d.root_cause.unwrap().category, Category::FlashinferUnsupportedArch);
}

#[test]
fn another_units_start_job_does_not_split_the_run() {
    let log = "\
May 25 20:17:52 h systemd[1]: Started sglang.service - SGLang.
May 25 20:17:58 h python[7]: [2026-05-25 20:17:58] server_args=ServerArgs(model_path='/m')
May 25 20:20:00 h systemd[1]: Started logrotate.service - Rotate log files.
May 25 20:27:22 h python[7]: [2026-05-25 20:27:22] The server is fired up and ready to roll!
";
    let d = diagnose(log);
    let sglang: Vec<_> = d.runs.iter().filter(|r| r.unit.as_deref() == Some("sglang.service")).collect();
    assert_eq!(sglang.len(), 1, "{:?}", d.runs);
    assert_eq!(sglang[0].outcome, Outcome::Healthy);
    assert_eq!((sglang[0].first_line, sglang[0].last_line), (1, 4));
}

#[test]
fn a_kill_of_a_process_nobody_owns_does_not_explain_a_sigkill_after_another_failure() {
    // A boot journal in short mode: several programs no unit claims, an
    // unrelated OOM kill, then sglang's own failure and its self-kill.
    let log = "\
May 25 20:10:00 h sshd[5]: Server listening on 0.0.0.0 port 22.
May 25 20:10:01 h cron[6]: (CRON) INFO (Running @reboot jobs)
May 25 20:18:20 h python[71283]: [2026-05-25 20:18:20 TP0] Load weight begin. avail mem=93.12 GB
May 25 20:27:21 h kernel: Out of memory: Killed process 999 (java) total-vm:1kB, anon-rss:1kB, file-rss:0kB, shmem-rss:0kB
May 25 20:27:22 h python[71283]: RuntimeError: FlashInfer requires GPUs with sm75 or higher
May 25 20:27:23 h systemd[1]: sglang.service: Main process exited, code=killed, status=9/KILL
";
    let d = diagnose(log);
    let sglang = d.runs.iter().find(|r| r.unit.as_deref() == Some("sglang.service")).unwrap();
    assert_eq!(sglang.root_cause.as_ref().unwrap().category, Category::SigkillUnattributed, "{:?}", d.runs);
    let python = d.runs.iter().find(|r| r.unit.as_deref() == Some("python[71283]")).unwrap();
    assert_eq!(python.root_cause.as_ref().unwrap().category, Category::FlashinferUnsupportedArch);
    // The diagnosis leads with the named cause, not the unexplained kill.
    assert_eq!(d.root_cause.unwrap().category, Category::FlashinferUnsupportedArch);
}

#[test]
fn a_kill_of_a_process_nobody_owns_just_before_a_sigkill_explains_it_with_medium_confidence() {
    let log = "\
Jan 09 14:32:25 H systemd-oomd[70]: oomd attempting to kill 118 with KILL
Jan 09 14:32:25 H systemd[34]: testsuite-55-testchill.service: Main process exited, code=killed, status=9/KILL
";
    let d = diagnose(log);
    let cause = d.root_cause.unwrap();
    assert_eq!((cause.category, cause.confidence), (Category::HostOomKill, Confidence::Medium));
}

#[test]
fn a_raise_with_its_own_message_names_what_was_raised() {
    use super::unrecognised::raises_with_message;
    assert!(raises_with_message(
        r#"    raise RuntimeError("Cannot find valid samples, check `data/README.md` for the data format.")"#
    ));
    assert!(raises_with_message(r#"raise ValueError(f"bad {x}")"#));
    for line in ["    raise e from None", "    raise Exception(", "raise", "    raise_error()"] {
        assert!(!raises_with_message(line), "{line}");
    }
}
