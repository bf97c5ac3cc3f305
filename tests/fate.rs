//! The process's fate decides: every supervisor's way of saying that a
//! process ended, read by the general layer alone (`rules/fate/`, no other
//! rule loaded); an error a process went on from is survived, and the same
//! error followed by its writer's end is a crash; a warning before a
//! launch's start marker decides nothing.

use crate::util::*;

/// Diagnoses each of `logs` as a file of its own, in one run with only the
/// fate rules (what the general layer alone makes of them): each log's
/// verdict (`crash` when its run crashed) and category.
fn with_fate_rules_only(logs: &[&str]) -> Vec<(String, String)> {
    let dir = TempDir::new("fate-only");
    let paths: Vec<String> = logs
        .iter()
        .enumerate()
        .map(|(i, log)| {
            dir.write(&format!("{i:02}.log"), format!("{log}\n").as_bytes()).display().to_string()
        })
        .collect();
    let fate = root().join("rules/fate");
    let mut args = vec!["--format", "json", "--no-default-rules", "--rules", fate.to_str().unwrap()];
    args.extend(paths.iter().map(String::as_str));
    let report = json(&run(&args));
    let runs = report["runs"].as_array().unwrap();
    paths
        .iter()
        .map(|path| {
            let name = std::path::Path::new(path).file_name().unwrap().to_str().unwrap();
            let crashed = runs
                .iter()
                .find(|r| r["source"].as_str().is_some_and(|s| s.ends_with(name)) && r["outcome"] == "crash");
            match crashed {
                Some(run) => {
                    ("crash".to_string(), run["root_cause"]["category"].as_str().unwrap_or("").to_string())
                }
                None => ("no-crash".to_string(), String::new()),
            }
        })
        .collect()
}

/// One real line per supervisor family, as it was posted, and the category
/// its ending names.
const FAMILIES: [(&str, &str, &str); 20] = [
    // LostRuins/koboldcpp#1609 (2025-06).
    (
        "systemd",
        "Jun 18 10:21:50 gpu-node-1 systemd[1]: koboldai.service: Main process exited, code=dumped, status=11/SEGV",
        "segfault",
    ),
    // Supervisor/supervisor#405.
    ("supervisord", "2014-03-20 12:05:12,836 INFO exited: myprog (exit status 255; not expected)", "unknown"),
    // kmahyyg/ztncui-aio#30 (s6-overlay v3).
    ("s6", "s6-rc: warning: unable to start service entryinit: command exited 111", "unknown"),
    // YanWenKun/ComfyUI-Docker#68 (docker compose).
    ("docker compose", "comfyui-1 exited with code 139", "segfault"),
    // ray-project/kuberay#2735 (kubectl describe pod).
    ("kubelet", "      Reason:       OOMKilled", "host-oom-kill"),
    // verl-project/verl#2950 (Ray's memory monitor).
    ("ray memory monitor", "ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.", "host-oom-kill"),
    // hkust-nlp/simpleRL-reason#98 (ray job submit).
    ("ray job", "Job 'raysubmit_7wNNGHdVi92R8wt2' failed", "unknown"),
    // hiyouga/LlamaFactory#3907 (torch.distributed.elastic).
    (
        "torchrun",
        "E0526 16:36:24.875000 140417675919424 torch/distributed/elastic/multiprocessing/api.py:826] failed (exitcode: -11) local_rank: 0 (pid: 101091) of binary: /home/user/venv/bin/python",
        "segfault",
    ),
    // CPython's concurrent.futures, when a worker of a process pool dies.
    (
        "multiprocessing",
        "concurrent.futures.process.BrokenProcessPool: A process in the process pool was terminated abruptly while the future was running or pending.",
        "unknown",
    ),
    // benoitc/gunicorn#2419.
    ("gunicorn", "[2020-09-12 05:37:52 +0000] [18] [ERROR] Worker (pid:21) was sent SIGKILL! Perhaps out of memory?", "sigkill-unattributed"),
    // epoz/shmarql#21 (uvicorn --workers).
    ("uvicorn", "shmarql_dev  | INFO:     Child process [8] died", "unknown"),
    // Mintplex-Labs/anything-llm#2162 (ollama's server log).
    (
        "ollama runner",
        r#"time=2024-08-22T15:25:14.569-05:00 level=ERROR source=sched.go:451 msg="error loading llama server" error="llama runner process has terminated: signal: aborted (core dumped)""#,
        "abort",
    ),
    // Comfy-Org/ComfyUI#6760 (fish).
    ("shell", "fish: Job 1, 'python main.py' terminated by signal SIGILL (Illegal instruction)", "illegal-instruction"),
    // jhj0517/Whisper-WebUI#294 (bash, Spanish locale).
    ("shell, localised", "Abortado (core generado)", "abort"),
    // benoitc/gunicorn#3136: the arbiter's timeout.
    ("a supervisor's timeout", "[2024-01-09 13:24:39 +0000] [1637] [CRITICAL] WORKER TIMEOUT (pid:7214)", "watchdog-timeout"),
    // An ollama server's log kept in a public repository (2026-01-04): the
    // server gives up waiting for its runner.
    (
        "a launcher's start-up timeout",
        r#"time=2026-01-04T10:23:12.805-06:00 level=INFO source=sched.go:470 msg="Load failed" model=A:\Ollama_Data\blobs\sha256-6a0746a1ec1aef3e7ec53868f220ff6e389f6f8ef87a01d77c96807de94ca2aa error="timed out waiting for llama runner to start - progress 0.82 - ""#,
        "service-timeout",
    ),
    // gpustack/gpustack#861 and triton-inference-server/server#6967: no rule
    // was ever written for these supervisors; they use the common words.
    (
        "never met: gpustack",
        "2024-12-30T22:33:59+08:00 - gpustack.worker.worker_manager - WARNING - RPC server for GPU 0 is not running, pid 3376, restarting.",
        "unknown",
    ),
    ("never met: triton", "Signal (11) received.", "segfault"),
    // NVIDIA/nccl-tests#338 (Open MPI's mpirun, the second line of its banner).
    ("never met: mpirun", "a non-zero exit code. Per user-direction, the job has been aborted.", "unknown"),
    // NVIDIA/TensorRT-LLM#5872 (2025-07): the same words, verb first.
    (
        "never met: TensorRT-LLM's executor",
        "[07/08/2025-19:47:15] [TRT-LLM] [RANK 1] [E] Failed to initialize executor on rank 1: Executor creation failed due to insufficient GPU memory.",
        "unknown",
    ),
];

#[test]
fn every_supervisor_family_is_read_by_the_general_layer_alone() {
    let lines: Vec<&str> = FAMILIES.iter().map(|(_, line, _)| *line).collect();
    for ((family, line, category), (verdict, got)) in FAMILIES.iter().zip(with_fate_rules_only(&lines)) {
        assert_eq!((verdict.as_str(), got.as_str()), ("crash", *category), "{family}: {line}");
    }
}

#[test]
fn a_clean_end_or_a_stop_is_no_crash() {
    let lines = [
        // Supervisor/supervisor#1390: an expected exit and an operator's stop.
        "2020-11-18 18:55:20,882 INFO exited: start (exit status 0; expected)",
        "2020-11-18 18:54:40,936 WARN stopped: supervisor-proc-exit-listener (terminated by SIGTERM)",
        // codalab/codabench#1831 (docker compose).
        "compute_worker exited with code 0",
        "INFO:     Received signal SIGTERM, shutting down",
        // home-assistant/addons#4219: a bashio finish script as s6 stops the service.
        "[09:28:49] INFO: Service exited with code 256 (by signal 15)",
    ];
    for (line, (verdict, _)) in lines.iter().zip(with_fate_rules_only(&lines)) {
        assert_eq!(verdict, "no-crash", "{line}");
    }
}

#[test]
fn a_kill_by_a_failed_liveness_probe_is_a_cause_of_its_own() {
    // kubectl describe pod, Events (kubelet's Killing event).
    let log = "  Warning  Unhealthy  30s (x3 over 50s)  kubelet  Liveness probe failed: Get \"http://10.0.0.1:30000/health\": context deadline exceeded\n  Normal   Killing    30s                kubelet  Container sglang failed liveness probe, will be restarted\n";
    let report = json(&run_stdin(&["--format", "json", "-"], log.as_bytes()));
    assert_eq!(report["root_cause"]["category"], "liveness-probe-kill", "{report}");
}

#[test]
fn a_ray_actor_death_is_evidenced_by_its_exit_detail() {
    // hkust-nlp/simpleRL-reason#98 (2025-12): the driver's error, then the
    // job's verdict. The detail of the worker's exit says more than the
    // echo of it.
    let report = json(&run(&["--format", "json", fixture("simplerl-reason-98").to_str().unwrap()]));
    assert_eq!(report["verdict"], "crash");
    let decisive = report["root_cause"]["evidence"][0]["text"].as_str().unwrap();
    assert!(decisive.contains("Worker exit detail:"), "{decisive}");
}

/// Comfy-Org/ComfyUI#6176 (2025-01-17): an OOM inside a node is caught,
/// and the server goes on with the next prompt.
const CAUGHT_OOM: &str = "  File \"C:\\ComfyUI_windows_portable\\python_embeded\\Lib\\site-packages\\torch\\nn\\modules\\module.py\", line 1326, in convert
    return t.to(
           ^^^^^
torch.OutOfMemoryError: Allocation on device 

";

#[test]
fn an_error_no_rule_knows_is_survived_when_its_writer_goes_on() {
    let log = format!(
        "{CAUGHT_OOM}2025-01-17T01:27:13.751046 - Got an OOM, unloading all loaded models.
2025-01-17T01:27:13.751046 - Prompt executed in 12.66 seconds
2025-01-17T01:31:45.007202 - got prompt
"
    );
    let out = run_stdin(&["--format", "json", "-"], log.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let report = json(&out);
    let benign = &report["runs"][0]["benign"][0];
    assert_eq!(benign["rule"], "unrecognised");
    assert!(benign["why"].as_str().unwrap().starts_with("the process went on"), "{benign}");
}

#[test]
fn the_same_error_is_a_crash_when_its_writer_ends() {
    // Nothing more from the writer: the input ends right after the error.
    let out = run_stdin(&["--format", "json", "-"], CAUGHT_OOM.as_bytes());
    assert_eq!(out.status.code(), Some(3), "{}", stdout(&out));
    // Its writer says goodbye instead of going on.
    let log = format!("{CAUGHT_OOM}Shutting down\nExiting.\n");
    let report = json(&run_stdin(&["--format", "json", "-"], log.as_bytes()));
    assert_eq!(report["verdict"], "crash");
    assert!(report["root_cause"]["evidence"][0]["text"].as_str().unwrap().contains("OutOfMemoryError"));
}

#[test]
fn a_fatal_record_ends_its_writer_whatever_the_same_name_writes_next() {
    // NVIDIA/dcgm-exporter#232 (2025-05-22): logrus's `level=fatal` exits
    // the exporter; compose restarts it under the same service name.
    let log = r#"dcgm_exporter  | time="2025-05-22T03:57:31Z" level=info msg="Starting dcgm-exporter"
dcgm_exporter  | time="2025-05-22T03:57:31Z" level=info msg="Collecting DCP Metrics"
dcgm_exporter  | time="2025-05-22T03:57:31Z" level=fatal msg="record on line 3: wrong number of fields"
dcgm_exporter  | time="2025-05-22T03:57:32Z" level=info msg="Starting dcgm-exporter"
dcgm_exporter  | time="2025-05-22T03:57:32Z" level=info msg="DCGM successfully initialized!"
"#;
    let out = run_stdin(&["--format", "json", "-"], log.as_bytes());
    assert_eq!(out.status.code(), Some(3), "{}", stdout(&out));
    let evidence = &json(&out)["root_cause"]["evidence"][0];
    assert_eq!(evidence["line"], 3, "{evidence}");
    // At an error level, the same lines after it are its writer going on.
    let survived = log.replace("level=fatal", "level=error");
    let out = run_stdin(&["--format", "json", "-"], survived.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

#[test]
fn warnings_before_the_start_marker_belong_to_the_launch_and_decide_nothing() {
    // Real lines printed before vLLM's banner: kserve/kserve#4515 (PyTorch
    // warns while importing), vllm-project/vllm#28949 (platform
    // detection), noonghunna/club-3090#142 (an argument warning),
    // community-scripts/ProxmoxVED#2047 (a `Warning:` line); then the
    // banner, vllm-project/vllm#28949.
    let log = "/home/lib/python3.12/site-packages/torch/cuda/__init__.py:789: UserWarning: Can't initialize NVML
  warnings.warn(\"Can't initialize NVML\")
INFO 11-18 12:00:47 [importing.py:68] Triton not installed or not compatible; certain GPU-related functions will not be available.
WARNING 05-15 16:01:27 [argparse_utils.py:257] With `vllm serve`, you should provide the model as a positional argument or in a config file instead of via the `--model` option. The `--model` option will be removed in a future version.
Warning: You are sending unauthenticated requests to the HF Hub. Please set a HF_TOKEN to enable higher rate limits and faster downloads.
(APIServer pid=55209) INFO 11-18 12:00:48 [api_server.py:1978] vLLM API server version 0.11.1rc7.dev141+g25ba77c22
";
    let out = run_stdin(&["--format", "json", "-"], log.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let report = json(&out);
    let runs = report["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1, "the lines before the banner are the launch's: {report}");
    assert_eq!((runs[0]["first_line"].as_u64(), runs[0]["outcome"].as_str()), (Some(1), Some("starting")));
}

/// langmanus/langmanus#66 (2025-03-20): uvicorn announces the traceback of
/// a request its application failed, and the paste ends inside it.
const ASGI_FAILURE: &str = "ERROR:    Exception in ASGI application
Traceback (most recent call last):
  File \"/opt/langmanus/.venv/lib/python3.12/site-packages/sse_starlette/sse.py\", line 244, in __call__
    await cancel_on_finish(lambda: self._listen_for_disconnect(receive))
  File \"/opt/langmanus/.venv/lib/python3.12/site-packages/sse_starlette/sse.py\", line 233, in cancel_on_finish
    await coro()
  File \"/opt/langmanus/.venv/lib/python3.12/site-packages/sse_starlette/sse.py\", line 175, in _listen_for_disconnect
    message = await receive()
              ^^^^^^^^^^^^^^^
  File \"/opt/langmanus/.venv/lib/python3.12/site-packages/uvicorn/protocols/http/h11_impl.py\", line 531, in receive
    await self.message_event.wait()
  File \"/root/.local/share/uv/python/cpython-3.12.9-linux-x86_64-gnu/lib/python3.12/asyncio/locks.py\", line 212, in wait
    await fut
asyncio.exceptions.CancelledError: Cancelled by cancel scope 7f6b88c0e120
";

#[test]
fn a_traceback_a_server_framework_announces_as_caught_is_survived() {
    let out = run_stdin(&["--format", "json", "-"], ASGI_FAILURE.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let report = json(&out);
    let benign = &report["runs"][0]["benign"][0];
    assert_eq!(benign["rule"], "python.request-handler-error", "{benign}");
    assert_eq!(benign["line"], 1);
    // Without the line that says a handler caught it, the same traceback
    // ending the input is the last thing its process did.
    let unannounced = ASGI_FAILURE.split_once('\n').unwrap().1;
    let out = run_stdin(&["--format", "json", "-"], unannounced.as_bytes());
    assert_eq!(out.status.code(), Some(3), "{}", stdout(&out));
}

#[test]
fn an_error_caught_and_logged_while_serving_is_a_requests_failure() {
    // MycroftAI/mimic3#32 (2023): the TTS server is listening when one
    // synthesis fails; it logs the error with its traceback, and the paste
    // ends inside that traceback.
    let log = std::fs::read_to_string(fixture("mimic3-32")).unwrap();
    let out = run_stdin(&["--format", "json", "-"], log.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let report = json(&out);
    let why = report["runs"][0]["benign"][0]["why"].as_str().unwrap();
    assert!(why.contains("caught and logged it while serving"), "{why}");
    // Before the server listened, with no handler's words announcing it
    // (the traceback alone), the same error ends the launch.
    let before_listening: String = log
        .lines()
        .filter(|l| !l.contains("Running on") && !l.contains("Error during inference"))
        .map(|l| format!("{l}\n"))
        .collect();
    let out = run_stdin(&["--format", "json", "-"], before_listening.as_bytes());
    assert_eq!(out.status.code(), Some(3), "{}", stdout(&out));
}

#[test]
fn a_server_that_answers_after_a_caught_failure_went_on() {
    // xorbitsai/inference#5302 (2026-08): the worker catches a vLLM engine
    // that failed to start and logs it; the API then answers the launch
    // request (503). The server went on.
    let log = std::fs::read_to_string(fixture("xinference-5302")).unwrap();
    let out = run_stdin(&["--format", "json", "-"], log.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let report = json(&out);
    let why = report["runs"][0]["benign"][0]["why"].as_str().unwrap();
    assert!(why.contains("answered a request after it (line 28)"), "{why}");
    assert_ne!(report["runs"][0]["outcome"], "stopped", "a death the run outlived is no stop");
    // Without the answer, the log ends at the failure: the launch's end.
    let unanswered: String =
        log.lines().filter(|l| !l.contains("uvicorn.access")).map(|l| format!("{l}\n")).collect();
    let out = run_stdin(&["--format", "json", "-"], unanswered.as_bytes());
    assert_eq!(out.status.code(), Some(3), "{}", stdout(&out));
}

#[test]
fn an_error_its_handler_announced_is_not_the_process_end_by_itself() {
    // oobabooga/text-generation-webui#6908 (2025): the web UI's load
    // handler logs `ERROR Failed to load the model.` and the traceback it
    // caught; the UI stays up, and the paste ends there.
    let log = std::fs::read_to_string(fixture("textgen-6908")).unwrap();
    let out = run_stdin(&["--format", "json", "-"], log.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let why = json(&out)["runs"][0]["benign"][0]["why"].as_str().unwrap().to_string();
    assert!(why.contains("caught it and logged what failed"), "{why}");
    // The same traceback with nothing that caught it is the process's end.
    let bare: String =
        log.lines().filter(|l| !l.contains("Failed to load the model")).map(|l| format!("{l}\n")).collect();
    let out = run_stdin(&["--format", "json", "-"], bare.as_bytes());
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert_eq!(json(&out)["root_cause"]["category"], "import-error");
}

#[test]
fn a_record_at_a_fatal_level_ends_its_writer_unless_its_pid_goes_on() {
    // mudler/LocalAI#6954 (2025): zerolog's `FTL` as LocalAI gives up.
    let log = std::fs::read_to_string(fixture("localai-6954")).unwrap();
    let out = run_stdin(&["--format", "json", "-"], log.as_bytes());
    assert_eq!(out.status.code(), Some(3), "{}", stdout(&out));
    let report = json(&out);
    let evidence = report["root_cause"]["evidence"][0]["text"].as_str().unwrap();
    assert!(evidence.contains("FTL Error running the application"), "{evidence}");
    // Lines of the same name after it, with no pid to tell the process:
    // by the convention (zerolog's Fatal exits), a restart's.
    let after = format!("{log}3:00PM INF core/startup process completed!\n");
    let out = run_stdin(&["--format", "json", "-"], after.as_bytes());
    assert_eq!(out.status.code(), Some(3), "{}", stdout(&out));
    // In a journal, the same pid logging on is the same process: its
    // fatal level did not exit, and the error was survived; another pid
    // is a restart.
    let journal = |text: &str, last_pid: u32| -> String {
        let lines: Vec<&str> = text.lines().collect();
        let last = lines.len() - 1;
        lines
            .iter()
            .enumerate()
            .map(|(i, l)| {
                format!("Dec 01 15:00:00 host local-ai[{}]: {l}\n", if i == last { last_pid } else { 4242 })
            })
            .collect()
    };
    let out = run_stdin(&["--format", "json", "-"], journal(&after, 4242).as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let out = run_stdin(&["--format", "json", "-"], journal(&after, 4343).as_bytes());
    assert_eq!(out.status.code(), Some(3), "{}", stdout(&out));
}

#[test]
fn a_message_of_two_lines_still_announces_the_traceback_after_it() {
    // speakr (murtaza-nasir/speakr#65, 2025-08): `logger.exception` with
    // httpx's two-line message; the service goes on to the next recording.
    let log = std::fs::read_to_string(fixture("speakr-65")).unwrap();
    let out = run_stdin(&["--format", "json", "-"], log.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let why = json(&out)["runs"][0]["benign"][0]["why"].as_str().unwrap().to_string();
    assert!(why.contains("caught it and logged what failed"), "{why}");
    // The same traceback without the record above it: nothing caught it.
    let bare: String = log.lines().skip(3).map(|l| format!("{l}\n")).collect();
    let out = run_stdin(&["--format", "json", "-"], bare.as_bytes());
    assert_eq!(out.status.code(), Some(3), "{}", stdout(&out));
}

#[test]
fn an_error_its_writer_says_it_retries_decides_nothing() {
    // THUDM/slime#63 (2025-07): the rollout buffer retries a request the
    // server refused; its last words are a retry, not a parting error.
    let log = std::fs::read_to_string(fixture("slime-pr63")).unwrap();
    let out = run_stdin(&["--format", "json", "-"], log.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    // Without the retry, the same error is the program's parting words.
    let gave_up = log.replace(", retrying... (attempt 10/60)", "");
    let gave_up: String =
        gave_up.lines().filter(|l| !l.contains("RolloutRayActor")).map(|l| format!("{l}\n")).collect();
    let out = run_stdin(&["--format", "json", "-"], gave_up.as_bytes());
    assert_eq!(out.status.code(), Some(3), "{}", stdout(&out));
}

#[test]
fn a_stop_after_a_death_does_not_undo_it() {
    // gensyn-ai/rl-swarm#219 (2025): bash reports the trainer Killed, then
    // the script's trap shuts the rest down and is itself terminated.
    let log = std::fs::read_to_string(fixture("rl-swarm-219")).unwrap();
    let out = run_stdin(&["--format", "json", "-"], log.as_bytes());
    assert_eq!(out.status.code(), Some(3), "{}", stdout(&out));
    let report = json(&out);
    assert_eq!(report["root_cause"]["category"], "sigkill-unattributed");
    // The stop alone, with no death before it, is an orderly one.
    let stopped: String = log.lines().filter(|l| !l.contains(" Killed ")).map(|l| format!("{l}\n")).collect();
    let out = run_stdin(&["--format", "json", "-"], stopped.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

#[test]
fn an_exception_group_is_one_traceback_that_its_announcement_covers() {
    // gpustack/gpustack#846 (2024-12): uvicorn's `Exception in ASGI
    // application` over starlette's exception group; the server goes on.
    let log = std::fs::read_to_string(fixture("gpustack-846")).unwrap();
    let out = run_stdin(&["--format", "json", "-"], log.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    // Its sub-traceback after the group's drawing is part of it, not a
    // traceback of its own that nothing caught.
    let events = run_stdin(&["events", "-"], log.as_bytes());
    let tracebacks = stdout(&events).lines().filter(|l| l.contains("\"kind\":\"traceback\"")).count();
    assert_eq!(tracebacks, 1, "{}", stdout(&events));
}

#[test]
fn an_error_its_logger_calls_non_fatal_is_caught() {
    // invoke-ai/InvokeAI#7950 (2025-06): `[…]::[InvokeAI]::ERROR --> Non-fatal
    // error in session processor …`, then the traceback, cut by the paste.
    let log = std::fs::read_to_string(fixture("invokeai-7950")).unwrap();
    let out = run_stdin(&["--format", "json", "-"], log.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(json(&out)["inputs"][0]["formats"][0], "python-logging");
    // Called fatal, the same error ends the process.
    let fatal = log.replace("Non-fatal error", "Fatal error");
    let out = run_stdin(&["--format", "json", "-"], fatal.as_bytes());
    assert_eq!(out.status.code(), Some(3), "{}", stdout(&out));
}

#[test]
fn a_threads_exception_ends_the_process_only_when_a_death_follows() {
    // AUTOMATIC1111/stable-diffusion-webui#16822 (2025): a model load that
    // fails in a gradio worker thread; the web UI stays up.
    let log = std::fs::read_to_string(fixture("stable-diffusion-webui-16822")).unwrap();
    let out = run_stdin(&["--format", "json", "-"], log.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let benign = json(&out)["runs"][0]["benign"].to_string();
    assert!(benign.contains("raised in a thread"), "{benign}");
    // The same, then the shell reports the process's death.
    let died = format!("{log}Segmentation fault (core dumped)\n");
    let out = run_stdin(&["--format", "json", "-"], died.as_bytes());
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
}

#[test]
fn a_death_told_again_with_its_signal_is_evidenced_by_the_signal() {
    // horovod/horovod#469: Open MPI says the job was aborted, then which
    // rank died and of what.
    let log = std::fs::read_to_string(fixture("horovod-469")).unwrap();
    let report = json(&run_stdin(&["--format", "json", "-"], log.as_bytes()));
    assert_eq!(report["root_cause"]["category"], "sigkill-unattributed");
    let evidence = report["root_cause"]["evidence"][0]["text"].as_str().unwrap();
    assert!(evidence.contains("exited on signal 9 (Killed)"), "{evidence}");
}

#[test]
fn a_servers_own_handler_that_hit_an_exception_ends_it() {
    // vllm-project/vllm-ascend#6611 (2026-02): vLLM's worker loop logs
    // `WorkerProc hit an exception.` and its traceback; the engine ends.
    let log = std::fs::read_to_string(fixture("vllm-ascend-6611")).unwrap();
    let out = run_stdin(&["--format", "json", "-"], log.as_bytes());
    assert_eq!(out.status.code(), Some(3), "{}", stdout(&out));
    let evidence = json(&out)["root_cause"]["evidence"].to_string();
    assert!(evidence.contains("NPU out of memory"), "{evidence}");
}

#[test]
fn a_traceback_under_s6_overlays_stamp_is_one_failure() {
    // blakeblackshear/frigate#8196 (2023-10): the detector process dies on
    // an engine it cannot load; every line carries s6-overlay's stamp.
    let log = std::fs::read_to_string(fixture("frigate-8196")).unwrap();
    let out = run_stdin(&["--format", "json", "-"], log.as_bytes());
    assert_eq!(out.status.code(), Some(3), "{}", stdout(&out));
    let events = run_stdin(&["events", "-"], log.as_bytes());
    let tracebacks = stdout(&events).lines().filter(|l| l.contains("\"kind\":\"traceback\"")).count();
    assert_eq!(tracebacks, 1, "{}", stdout(&events));
}
