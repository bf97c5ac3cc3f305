//! What the stack survives: scary lines printed by work that carries on
//! are not causes, and the same lines followed by a death do not hide its
//! cause. (Issue 15's families; the rest of its catalogue comes with its
//! own fixtures.)

use crate::util::*;

/// torch.compile's max-autotune rejecting a Triton candidate, as a
/// sglang server with `--enable-torch-compile` logged it (the MinerU
/// deployment notes quote these lines, 2025-07-05).
const AUTOTUNE_REJECTED: &str = "[2025-07-05 15:48:20] Capture cuda graph begin. This can take up to several minutes. avail mem=10.12 GB
Runtime error during autotuning: 
[rank0]:E0705 15:48:23.150000 434379 torch/_inductor/select_algorithm.py:2100] [8/6] No valid triton configs. OutOfResources: out of resource: shared memory, Required: 110592, Hardware limit: 101376. Reducing block sizes or `num_stages` may help.. 
Ignoring this choice.
";

#[test]
fn an_autotune_candidate_that_does_not_fit_is_survived() {
    let log = format!(
        "{AUTOTUNE_REJECTED}[2025-07-05 15:49:02] Capture cuda graph end. Time elapsed: 42.10 s. mem usage=1.02 GB. avail mem=9.10 GB.
[2025-07-05 15:49:05] The server is fired up and ready to roll!
[2025-07-05 15:49:20 TP0] Decode batch. #running-req: 1, #token: 512, token usage: 0.01, gen throughput (token/s): 61.20, #queue-req: 0
"
    );
    let out = run_stdin(&["--format", "json", "-"], log.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let report = json(&out);
    assert_eq!(report["runs"][0]["outcome"], "healthy");
    let benign: Vec<&str> =
        report["runs"][0]["benign"].as_array().unwrap().iter().map(|b| b["rule"].as_str().unwrap()).collect();
    assert!(benign.contains(&"torch.inductor-autotune-rejected"), "{benign:?}");
    // Alone, with nothing after it, it is no crash either.
    let out = run_stdin(&["--format", "json", "-"], AUTOTUNE_REJECTED.as_bytes());
    assert_eq!(json(&out)["verdict"], "no-crash");
}

#[test]
fn the_same_lines_before_a_death_leave_the_cause_to_the_death() {
    let log = format!(
        "{AUTOTUNE_REJECTED}[2025-07-05 15:48:40] Traceback (most recent call last):
  File \"/opt/venv/lib/python3.12/site-packages/sglang/srt/model_executor/cuda_graph_runner.py\", line 310, in capture
    self.capture_one_batch_size(bs, forward)
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.55 GiB of which 1.10 GiB is free.
[2025-07-05 15:48:41] Received sigquit from a child process. It usually means the child failed.
"
    );
    let out = run_stdin(&["--format", "json", "-"], log.as_bytes());
    let report = json(&out);
    assert_eq!(report["verdict"], "crash");
    let cause = &report["root_cause"];
    assert_eq!(cause["category"], "cuda-oom", "{cause}");
    assert!(cause["evidence"][0]["text"].as_str().unwrap().contains("CUDA out of memory"));
}

/// An illegal memory access poisons the process's CUDA context: a tuning
/// pass that goes on printing afterwards (each tactic now failing the same
/// way) does not make it survived. Lines from flashinfer-ai/flashinfer#2800.
#[test]
fn a_sticky_gpu_fault_is_not_outlived_by_later_progress() {
    let log = "\
(Worker pid=4178717) ERROR 03-13 12:01:42 [multiproc_executor.py:932] WorkerProc hit an exception.
(Worker pid=4178717) ERROR 03-13 12:01:42 [multiproc_executor.py:932] Traceback (most recent call last):
(Worker pid=4178717) ERROR 03-13 12:01:42 [multiproc_executor.py:932]   File \"/opt/vllm/v1/worker/gpu_worker.py\", line 594, in compile_or_warm_up_model
(Worker pid=4178717) ERROR 03-13 12:01:42 [multiproc_executor.py:932] torch.AcceleratorError: CUDA error: an illegal memory access was encountered
(Worker pid=4178717) INFO 03-13 12:01:43 [autotuner.py:256] flashinfer.jit: [Autotuner]: Autotuning process starts ...
";
    let out = run_stdin(&["--format", "json", "-"], log.as_bytes());
    let report = json(&out);
    assert_eq!(report["verdict"], "crash", "{report}");
    assert_eq!(report["root_cause"]["category"], "cuda-illegal-access");
}

/// A named error its writer went on from only to shut down explains the
/// unexplained end that follows (tritonserver unloads its other models
/// after one failed to load, then gives up); without that end it was
/// outlived.
#[test]
fn an_error_outlived_only_to_shut_down_explains_the_end() {
    let failed = "E0506 10:59:05.932885 1 model_repository_manager.cc:1234] failed to load 'densenet_onnx' version 1: Internal: CUDA failure 35: CUDA driver version is insufficient for CUDA runtime version\n\
I0506 10:59:06.100000 1 model_lifecycle.cc:459] loading: resnet50:1\n";
    let ended = format!("{failed}error: creating server: Internal - failed to load all models\n");
    let report = json(&run_stdin(&["--format", "json", "-"], ended.as_bytes()));
    assert_eq!(report["verdict"], "crash", "{report}");
    assert_eq!(report["root_cause"]["category"], "cuda-driver-mismatch");
    assert_eq!(report["root_cause"]["evidence"][0]["line"], 1);
    let report = json(&run_stdin(&["--format", "json", "-"], failed.as_bytes()));
    assert_ne!(report["verdict"], "crash", "{report}");
}

/// A traceback cut before its exception line names nothing: a named
/// error before it, whose writer went on only to log more start-up lines,
/// is the cause (vllm-project/vllm#20226's shape); when the exception line
/// is there, it names the failure itself.
#[test]
fn an_error_outlived_explains_a_traceback_cut_before_its_exception() {
    let tag = "(VllmWorker rank=1 pid=2699412) ERROR 08-11 10:45:36 [multiproc_executor.py:511]";
    let log = format!(
        "server:2699411:2699411 [0] init.cc:416 NCCL WARN Cuda failure 'operation not supported'\n\
server:2699411:2699411 [0] NCCL INFO comm 0x5581 rank 0 nranks 2 - Init START\n\
{tag} WorkerProc failed to start.\n\
{tag} Traceback (most recent call last):\n\
{tag}   File \"/venv/vllm/v1/executor/multiproc_executor.py\", line 485, in worker_main\n\
{tag}     worker = WorkerProc(*args, **kwargs)\n"
    );
    let report = json(&run_stdin(&["--format", "json", "-"], log.as_bytes()));
    assert_eq!(report["verdict"], "crash", "{report}");
    assert_eq!(report["root_cause"]["category"], "nccl-error", "{report}");
    assert_eq!(report["root_cause"]["evidence"][0]["line"], 1);
    let told = format!("{log}{tag} ValueError: bad config\n");
    let report = json(&run_stdin(&["--format", "json", "-"], told.as_bytes()));
    assert_eq!(report["root_cause"]["category"], "unknown", "{report}");
    assert_eq!(report["root_cause"]["title"], "Unrecognised failure: ValueError: bad config", "{report}");
}

/// An uncaught KeyboardInterrupt's traceback is the stop itself, whatever
/// comes after it (PyInstaller's "Failed to execute script").
#[test]
fn an_interrupted_program_s_traceback_is_its_stop() {
    let log = "Traceback (most recent call last):
  File \"koboldcpp.py\", line 11673, in <module>
    main(launch_args=parser.parse_args())
  File \"koboldcpp.py\", line 7120, in RunServerMultiThreaded
    exitcounter = 999
KeyboardInterrupt
[PYI-70387:ERROR] Failed to execute script 'koboldcpp' due to unhandled exception!
";
    let report = json(&run_stdin(&["--format", "json", "-"], log.as_bytes()));
    assert_eq!(report["verdict"], "no-crash", "{report}");
    assert_eq!(report["runs"][0]["outcome"], "stopped");
}

/// DeepSpeed's launcher kills its workers when one of them ends with a
/// failure, then exits: with nothing else after it, that is the run's end;
/// after a Ctrl-C it is the operator's stop.
#[test]
fn deepspeeds_launcher_killing_its_workers_ends_the_run_unless_interrupted() {
    let start = "[2024-01-22 16:50:40,315] [INFO] [launch.py:146:main] WORLD INFO DICT: {'localhost': [0]}\n\
[2024-01-22 16:50:44,316] [INFO] [utils.py:799:see_memory_usage] CPU Virtual Memory: used = 26.4 GB, percent = 84.6%\n";
    let kill =
        "[2024-01-22 16:50:49,553] [INFO] [launch.py:315:sigkill_handler] Killing subprocess 1080504\n";
    let report = json(&run_stdin(&["--format", "json", "-"], format!("{start}{kill}").as_bytes()));
    assert_eq!(report["verdict"], "crash", "{report}");
    assert_eq!(report["root_cause"]["rule"], "deepspeed.launcher-kills-workers");
    assert_eq!(report["root_cause"]["evidence"][0]["line"], 3);
    let interrupted = format!(
        "{start}^CTraceback (most recent call last):\n  File \"train.py\", line 10, in <module>\n    main()\nKeyboardInterrupt\n{kill}"
    );
    let report = json(&run_stdin(&["--format", "json", "-"], interrupted.as_bytes()));
    assert_eq!(report["verdict"], "no-crash", "{report}");
    assert_eq!(report["runs"][0]["outcome"], "stopped");
}
