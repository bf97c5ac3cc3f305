//! Framing checked against real lines, from the public reports behind
//! fixtures/ and from the programs' own log formats.

use super::*;

fn first(line: &str) -> Record<'_> {
    frame_line(line).first
}

#[test]
fn journal_short_with_sglang_header() {
    let r = first("May 25 20:27:22 dflash-train python[71283]: [2026-05-25 20:27:22 TP2] Scheduler hit an exception: Traceback (most recent call last):");
    assert_eq!(r.time, Some("May 25 20:27:22"));
    assert_eq!(r.host, Some("dflash-train"));
    assert_eq!(r.identifier, Some("python"));
    assert_eq!(r.pid, Some(71283));
    assert_eq!(r.ranks, Some("TP2"));
    assert!(r.app_header);
    assert_eq!(r.message, "Scheduler hit an exception: Traceback (most recent call last):");
    assert!(r.formats.contains(Format::JournalShort) && r.formats.contains(Format::Sglang));
}

#[test]
fn journal_continuation_of_a_traceback_keeps_indentation() {
    let r = first("May 25 20:27:22 dflash-train python[71283]:   File \"/x/flashinfer/sampling.py\", line 54, in get_sampling_module");
    assert_eq!(r.message, "  File \"/x/flashinfer/sampling.py\", line 54, in get_sampling_module");
    assert!(!r.app_header);
}

#[test]
fn journal_systemd_line_and_kernel_line_without_host() {
    let r = first("May 25 20:27:23 dflash-train systemd[1]: sglang-k26.service: Main process exited, code=killed, status=9/KILL");
    assert_eq!((r.identifier, r.pid), (Some("systemd"), Some(1)));
    assert_eq!(r.message, "sglang-k26.service: Main process exited, code=killed, status=9/KILL");
    let k = first("aug 16 23:01:35 kernel: NVRM: Xid (PCI:0000:01:00): 8, pid=709378, name=llama-server, channel 0x00000027");
    assert_eq!((k.host, k.identifier, k.pid), (None, Some("kernel"), None));
    assert!(k.message.starts_with("NVRM: Xid"));
}

#[test]
fn syslog_padded_day_and_localized_month() {
    let r = first("May  8 14:05:27 doris-03 kernel: Killed process 18177 (palo_be), UID 0");
    assert!(r.formats.contains(Format::Syslog));
    assert_eq!((r.host, r.identifier), (Some("doris-03"), Some("kernel")));
    let c = first("2月 21 13:31:11 tc ollama[285585]: CUDA driver version: 12.3");
    assert_eq!((c.host, c.identifier, c.pid), (Some("tc"), Some("ollama"), Some(285585)));
    assert_eq!(c.message, "CUDA driver version: 12.3");
}

#[test]
fn journal_iso_full_unix_monotonic_precise() {
    let iso = first("2026-08-04T04:33:51+00:00 research systemd[1153]: gbrain-embedding.service: Main process exited, code=killed, status=9/KILL");
    assert!(iso.formats.contains(Format::JournalShortIso));
    assert_eq!(iso.pid, Some(1153));
    let iso_old = first("2025-05-25T20:27:22.123456+0000 gpu01 python3[4242]: hello");
    assert!(iso_old.formats.contains(Format::JournalShortIsoPrecise));
    assert_eq!(iso_old.message, "hello");
    let full = first("Sun 2025-05-25 20:27:22 UTC gpu01 python3[4242]: hello");
    assert!(full.formats.contains(Format::JournalShortFull));
    assert_eq!((full.host, full.message), (Some("gpu01"), "hello"));
    let unix = first("1748204842.123456 gpu01 python3[4242]: hello");
    assert!(unix.formats.contains(Format::JournalShortUnix));
    let mono =
        first("[ 1234.567890] gpu01 kernel: NVRM: Xid (PCI:0000:2b:00): 79, GPU has fallen off the bus.");
    assert!(mono.formats.contains(Format::JournalShortMonotonic));
    assert_eq!(mono.identifier, Some("kernel"));
    let delta = first("[ 1234.567890 <    0.000123 >] gpu01 python3[4242]: hello");
    assert_eq!(delta.message, "hello");
    let precise = first("May 25 20:27:22.123456 gpu01 python3[4242]: hello");
    assert!(precise.formats.contains(Format::JournalShortPrecise));
}

#[test]
fn dmesg_stamps_are_not_journal_lines() {
    let r = first("[    2.829492] nvidia: loading out-of-tree module taints kernel.");
    assert!(r.formats.contains(Format::Dmesg));
    assert_eq!(r.identifier, None);
    assert_eq!(r.message, "nvidia: loading out-of-tree module taints kernel.");
    let vga = first("[    2.962598] nvidia 0000:01:00.0: vgaarb: changed VGA decodes");
    assert!(vga.formats.contains(Format::Dmesg));
    let console =
        first("[  716.365836] systemd[1]: run-r6e2.service: State 'stop-sigterm' timed out. Killing.");
    assert_eq!((console.identifier, console.pid, console.host), (Some("systemd"), Some(1), None));
    for line in [
        "[  100.000001] rcu: INFO: rcu_sched self-detected stall on CPU",
        "[  100.000001] Internal error: Oops: 96000004 [#1] SMP",
    ] {
        let r = first(line);
        assert!(r.formats.contains(Format::Dmesg) && r.identifier.is_none(), "{line}");
    }
    let ctime = first("[Wed Sep 29 07:12:20 2021] python3 invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0");
    assert!(ctime.formats.contains(Format::DmesgCtime));
    assert!(ctime.message.starts_with("python3 invoked oom-killer"));
}

#[test]
fn journal_separators() {
    assert_eq!(first("-- Boot 0123456789abcdef0123456789abcdef --").separator, Some(Separator::Boot));
    assert_eq!(first("-- Reboot --").separator, Some(Separator::Boot));
    assert_eq!(first("-- Logs begin at Thu 2023-11-16 11:05:42 CST. --").separator, Some(Separator::Other));
    assert_eq!(first("-- No entries --").separator, Some(Separator::Other));
}

#[test]
fn sglang_header_versions() {
    let dp = first("[2025-12-11 03:56:16 DP2 TP2 EP2] Capture cuda graph begin.");
    assert_eq!(dp.ranks, Some("DP2 TP2 EP2"));
    let old = first("[20:27:22 TP0] Decode batch.");
    assert_eq!((old.ranks, old.message), (Some("TP0"), "Decode batch."));
    let ms = first("[2025-12-01 10:00:00.123 TP0] hello");
    assert_eq!(ms.message, "hello");
    let none = first("[2025-08-04 10:10:06] The server is fired up and ready to roll!");
    assert_eq!((none.ranks, none.message), (None, "The server is fired up and ready to roll!"));
    let short = first("[12-16 14:27:08] Rank 0 scheduler is dead. Please check if there are relevant logs.");
    assert!(short.app_header);
    let gpu = first("[gpu_id=0] Prefill batch. #new-seq: 1");
    assert_eq!(gpu.message, "Prefill batch. #new-seq: 1");
    let uvicorn = first(
        "[2025-02-09 10:14:11] INFO:     10.39.13.144:48590 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK",
    );
    assert_eq!(uvicorn.level, Some(Level::Info));
    assert!(uvicorn.message.starts_with("10.39.13.144:48590"));
}

#[test]
fn vllm_headers_and_process_tags() {
    let r = first("(EngineCore_DP0 pid=223840) ERROR 10-25 13:08:43 [core.py:708]   File \"/x/kv_cache_utils.py\", line 699, in check_enough_kv_cache_memory");
    assert_eq!((r.process, r.pid), (Some("EngineCore_DP0"), Some(223840)));
    assert_eq!(r.level, Some(Level::Error));
    assert_eq!(r.origin, Some("core.py:708"));
    assert!(r.message.starts_with("  File \""));
    let old = first("ERROR 11-15 01:06:40 worker_base.py:464] RuntimeError: CUDA error: no kernel image is available for execution on the device");
    assert_eq!(old.origin, Some("worker_base.py:464"));
    assert!(old.message.starts_with("RuntimeError"));
    let empty = first("ERROR 11-15 01:06:40 worker_base.py:464]");
    assert_eq!(empty.message, "");
    let worker = first("(VllmWorker rank=1 pid=115) ERROR 07-27 23:31:27 [multiproc_executor.py:522] RuntimeError: CUDA error: device-side assert triggered");
    assert_eq!(worker.process, Some("VllmWorker rank=1"));
    let ray = first(
        "(RayWorkerWrapper pid=394715, ip=10.65.144.3) DEBUG 02-05 09:08:18 shm_broadcast.py:282] Connecting",
    );
    assert_eq!((ray.pid, ray.message), (Some(394715), "Connecting"));
    let ctrl_c = first("^C(EngineCore pid=3946143) INFO 05-26 19:19:56 [core.py:1155] [shutdown] EngineCore: trigger received signal=SIGINT");
    assert_eq!(ctrl_c.message, "[shutdown] EngineCore: trigger received signal=SIGINT");
}

#[test]
fn torch_c10_and_rank_prefix() {
    let r = first("[rank4]:[E210 02:06:33.321131395 ProcessGroupNCCL.cpp:616] [Rank 4] Watchdog caught collective operation timeout");
    assert_eq!(r.process, Some("rank4"));
    assert_eq!(r.level, Some(Level::Error));
    assert_eq!(r.message, "[Rank 4] Watchdog caught collective operation timeout");
    let old = first("[E ProcessGroupNCCL.cpp:458] [Rank 0] Watchdog caught collective operation timeout");
    assert_eq!(old.message, "[Rank 0] Watchdog caught collective operation timeout");
}

#[test]
fn glog_and_klog_prefix() {
    let triton = first("E1103 02:59:01.152656 81041 backend_model.cc:553] ERROR: Failed to create instance");
    assert_eq!((triton.level, triton.origin), (Some(Level::Error), Some("backend_model.cc:553")));
    assert_eq!(triton.message, "Failed to create instance");
    let klog = first("I0620 19:14:08.935267       1 manager.go:146] Starting plugin");
    assert_eq!((klog.level, klog.message), (Some(Level::Info), "Starting plugin"));
    assert!(klog.formats.contains(Format::Glog));
    // A word that happens to start like a level letter and digits is no prefix.
    let word = first("E1103 12:00:00.5 is when it stopped");
    assert!(!word.formats.contains(Format::Glog));
    assert_eq!(word.message, "E1103 12:00:00.5 is when it stopped");
}

#[test]
fn deepspeed_logger_prefix() {
    let r = first("[2023-04-07 13:09:33,220] [ERROR] [launch.py:324:sigkill_handler] ['python3', 'run.py'] exits with return code = -9");
    assert_eq!((r.level, r.origin), (Some(Level::Error), Some("launch.py:324:sigkill_handler")));
    assert_eq!(r.message, "['python3', 'run.py'] exits with return code = -9");
    assert!(r.formats.contains(Format::Deepspeed));
    // The stamp and level alone are some other program's format.
    assert!(!first("[2023-04-07 13:09:33,220] [ERROR] something failed").formats.contains(Format::Deepspeed));
}

#[test]
fn a_pasted_colour_after_a_wrapper_is_stepped_over() {
    // vllm-project/vllm-omni#3683 (2026-05): escape bytes lost in the paste.
    let compose = first(
        "sglang-1  | [0;36m(APIServer pid=561117)[0;0m ERROR 05-19 12:40:41 [api_server.py:999] Chat failed",
    );
    assert_eq!(
        (compose.pid, compose.level, compose.message),
        (Some(561117), Some(Level::Error), "Chat failed")
    );
    let caret = first("2026-05-25T20:10:00.505456789Z ^[[1;36m(EngineCore_DP0 pid=43065)^[[0;0m ERROR 01-04 04:31:09 [core.py:844] x");
    assert_eq!((caret.pid, caret.message), (Some(43065), "x"));
    // Text that only looks like one stays.
    assert_eq!(first("sglang-1  | [5m] timeout").message, "[5m] timeout");
}

#[test]
fn container_wrappers_stack() {
    let compose = first("sglang-1  | [2025-10-29 11:25:58 TP3] Watchdog timeout (self.watchdog_timeout=300)");
    assert_eq!(compose.identifier, Some("sglang-1"));
    assert_eq!(compose.unit, Some("sglang-1"));
    assert_eq!(compose.message, "Watchdog timeout (self.watchdog_timeout=300)");
    let pod = first("[pod/llm-0/server] 2025-05-01T10:00:00.123456789Z [2025-05-01 10:00:00 TP0] Load weight begin. avail mem=78.50 GB");
    assert_eq!(pod.unit, Some("pod/llm-0/server"));
    assert!(pod.formats.contains(Format::KubectlPrefix) && pod.formats.contains(Format::ContainerTimestamp));
    assert_eq!(pod.message, "Load weight begin. avail mem=78.50 GB");
    assert_eq!(first("[pod/a b/c] x").unit, None);
    let docker = first(
        "2023-12-28T13:17:07.318739139Z terminate called after throwing an instance of 'std::runtime_error'",
    );
    assert!(docker.formats.contains(Format::ContainerTimestamp));
    assert_eq!(docker.message, "terminate called after throwing an instance of 'std::runtime_error'");
    let collector = first("[2025-11-06T02:10:00.703Z] [2025-11-06 02:10:00] Received sigquit from a child process. It usually means the child failed.");
    assert!(collector.message.starts_with("Received sigquit"));
    let desktop =
        first("2025-03-06 23:36:39 llama_model_load: error loading model: unable to allocate CUDA0 buffer");
    assert!(desktop.message.starts_with("llama_model_load"));
    // blakeblackshear/frigate#8196 (2023-10): s6-overlay's stamp, then the
    // program's line whole, its indentation kept (a traceback's frames).
    let s6 = first("2023-10-17 10:59:55.751797243    File \"/usr/lib/python3.9/multiprocessing/process.py\", line 315, in _bootstrap");
    assert!(s6.formats.contains(Format::ContainerTimestamp));
    assert!(s6.message.starts_with("  File \""), "{:?}", s6.message);
    let tgi = first("2023-07-07T17:55:43.805488Z ERROR text_generation_launcher: Webserver Crashed");
    assert_eq!((tgi.level, tgi.message), (Some(Level::Error), "Webserver Crashed"));
    let tsv = first("24/09/2025 22:45\tollama\t#5  0x00007f599032a763 in ggml_abort () from /usr/lib/ollama/libggml-base.so");
    assert_eq!(tsv.identifier, Some("ollama"));
    assert!(tsv.message.starts_with("#5"));
}

#[test]
fn ray_dedup_suffix_and_mpirun_tags() {
    let ray = first("(RayWorkerWrapper pid=394715, ip=10.65.144.3) DEBUG 02-05 09:08:18 shm_broadcast.py:282] Connecting to tcp://127.0.0.1:49717 [repeated 23x across cluster]");
    assert_eq!(ray.message, "Connecting to tcp://127.0.0.1:49717");
    let mpi = first("[1,3]<stderr>:RuntimeError: CUDA error: out of memory");
    assert_eq!((mpi.process, mpi.message), (Some("1,3"), "RuntimeError: CUDA error: out of memory"));
}

#[test]
fn llama_cpp_log_lines() {
    let r = first("24.15.113.123 E CUDA error: the launch timed out and was terminated");
    assert_eq!(
        (r.level, r.message),
        (Some(Level::Error), "CUDA error: the launch timed out and was terminated")
    );
    // llama-box's wall-clock stamp (gpustack/gpustack#1547).
    let r = first("[2025-05-29 12:00:35.235796] E ROCm error: out of memory");
    assert_eq!(
        (r.level, r.time, r.message),
        (Some(Level::Error), Some("2025-05-29 12:00:35.235796"), "ROCm error: out of memory")
    );
    // A bracketed date before prose is not a level letter.
    assert_eq!(first("[2025-05-29 12:00:35] Every model loaded").level, None);
}

#[test]
fn nccl_debug_lines() {
    let r = first("72bf7b08-26f3-4ebc-8b9d-85df3e4414c0:76786:77145 [3] misc/ibvwrap.cc:284 NCCL WARN Call to ibv_modify_qp failed with error No such device");
    assert_eq!(r.pid, Some(76786));
    // The thread id tells a proxy thread's lines from the rank's.
    assert_eq!(r.process, Some("77145"));
    assert_eq!(
        r.message,
        "misc/ibvwrap.cc:284 NCCL WARN Call to ibv_modify_qp failed with error No such device"
    );
}

#[test]
fn nccl_lines_behind_pdsh_host_names_name_their_process() {
    // NVIDIA/nccl#1029: DeepSpeed's pdsh launcher names the host first.
    let r = first("host-1: host-1:2918:4483 [4] init.cc:263 NCCL WARN Cuda failure 'initialization error'");
    assert_eq!((r.pid, r.host), (Some(2918), Some("host-1")));
    assert_eq!(r.message, "init.cc:263 NCCL WARN Cuda failure 'initialization error'");
    // A word and a colon before another host's tag, or before prose, stay the message.
    for line in ["main: node2:1:1 [0] NCCL INFO x", "worker-1: loading model"] {
        assert_eq!(first(line).pid, None, "{line}");
        assert_eq!(first(line).message, line);
    }
}

#[test]
fn record_after_a_progress_bar_is_split_mid_line() {
    let line = "Epoch 0:   6%|██   | 32040/500150 [6:28:43<94:39:17,  1.37it/s, loss=2.6][E ProcessGroupNCCL.cpp:458] [Rank 0] Watchdog caught collective operation timeout";
    let framed = frame_line(line);
    let inner = framed.embedded.expect("split");
    assert_eq!(inner.message, "[Rank 0] Watchdog caught collective operation timeout");
    assert!(framed.first.message.starts_with("Epoch 0:"));
    assert!(!framed.first.message.contains("Watchdog"));
    let cr = "Loading: 100%|██| 4/4 [00:01<00:00]\r[2026-01-01 10:00:00 TP1] Scheduler hit an exception: Traceback (most recent call last):";
    let framed = frame_line(cr);
    assert_eq!(framed.embedded.unwrap().ranks, Some("TP1"));
}

#[test]
fn text_glued_to_a_progress_bar_is_the_next_record() {
    // huggingface/trl#1995: a CUDA assert printed while tqdm's line was open.
    let line = "  6%|\u{258b}         | 89/1398 [1:32:11<25:28:13, 70.05s/it]../aten/src/ATen/native/cuda/Indexing.cu:1284: indexSelectLargeIndex: block: [134,0,0], thread: [0,0,0] Assertion `srcIndex < srcSelectDimSize` failed.";
    let framed = frame_line(line);
    assert!(framed
        .embedded
        .expect("split")
        .message
        .starts_with("../aten/src/ATen/native/cuda/Indexing.cu:1284"));
    // A bar alone, or followed by a space, stays whole.
    for line in [
        "  6%|\u{258b}         | 89/1398 [1:32:11<25:28:13, 70.05s/it]",
        " 50%|##   | 1/2 [00:01<00:01, 1.0it/s] done",
    ] {
        assert!(frame_line(line).embedded.is_none(), "{line}");
    }
}

#[test]
fn an_applications_json_line_gives_its_level() {
    // ollama/ollama#4225: llama.cpp's server logs JSON.
    let line =
        r#"{"function":"load_model","level":"ERR","line":410,"msg":"unable to load model","tid":"11992"}"#;
    assert_eq!(first(line).level, Some(Level::Error));
    assert_eq!(first(r#"{"level":"info","msg":"listening"}"#).level, Some(Level::Info));
    assert_eq!(first(r#"{"msg":"no level here"}"#).level, None);
}

#[test]
fn plain_text_is_bare() {
    for line in
        ["Killed", "  File \"/x.py\", line 1, in f", "RuntimeError: boom", "Epoch 0: 1 2", "NOTE:root:x"]
    {
        assert!(first(line).is_bare(), "{line}");
    }
}

#[test]
fn loguru_default_format_gives_the_level_and_the_place() {
    // open-webui/open-webui#14613 (2025-06), under Docker Desktop's time stamp.
    let line = "2025-06-02 23:01:50 2025-06-02 19:01:50.302 | ERROR    | open_webui.routers.openai:generate_chat_completion:870 - 422, message='Unprocessable Entity'";
    let record = first(line);
    assert_eq!(record.level, Some(Level::Error));
    assert_eq!(record.origin, Some("open_webui.routers.openai:generate_chat_completion:870"));
    assert_eq!(record.message, "422, message='Unprocessable Entity'");
    assert!(first("2025-06-02 19:01:50.306 | SUCCESS  | app:main:12 - ready")
        .formats
        .contains(Format::Loguru));
}

#[test]
fn python_loggings_pipe_columns_give_the_level_and_the_logger() {
    // lm-sys/FastChat#3185: its logger, which also logs stderr as `| ERROR | stderr |`.
    let line = "2024-03-22 02:41:50 | ERROR | stderr | ERROR:    [Errno 99] error while attempting to bind";
    let record = first(line);
    assert_eq!(record.level, Some(Level::Error));
    assert_eq!(record.origin, Some("stderr"));
    assert_eq!(record.message, "[Errno 99] error while attempting to bind");
    assert!(record.formats.contains(Format::PythonLogging));
    // Its stderr lines keep the level they print themselves.
    let info = first("2024-03-22 02:41:50 | ERROR | stderr | INFO:     Started server process [3590]");
    assert_eq!(info.level, Some(Level::Info));
    assert_eq!(info.message, "Started server process [3590]");
    assert!(!first("2024-03-22 02:41:50 | ERROR |").formats.contains(Format::PythonLogging));
}

#[test]
fn python_loggings_default_format_gives_the_level() {
    // RVC-Project/Retrieval-based-Voice-Conversion-WebUI#2656 (2025-08).
    let info =
        first("INFO:torch.nn.parallel.distributed:Reducer buckets have been rebuilt in this iteration.");
    assert_eq!(info.level, Some(Level::Info));
    assert_eq!(info.message, "Reducer buckets have been rebuilt in this iteration.");
    assert!(info.formats.contains(Format::PythonLogging));
    // yaoyaoding/MGSV#2: the torchrun agent's error record.
    let error = first(
        "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 0 (pid: 178)",
    );
    assert_eq!(error.level, Some(Level::Error));
    assert!(error.message.starts_with("failed (exitcode: -9)"));
}

#[test]
fn multi_byte_text_where_a_tag_is_looked_for_does_not_panic() {
    let line = format!("({} pid=1) x", "é".repeat(100));
    let _ = frame_line(&line);
    let _ = frame_line("(█ pid=1) █");
}

#[test]
fn tensorrt_llms_loggers_give_the_level_and_the_rank() {
    // NVIDIA/TensorRT-LLM#5389 (2025-06): the Python logger, with a rank.
    let error =
        first("[06/21/2025-01:30:42] [TRT-LLM] [RANK 0] [E] Failed to initialize executor on rank 0: boom");
    assert_eq!(error.level, Some(Level::Error));
    assert_eq!(error.ranks, Some("RANK 0"));
    assert_eq!(error.time, Some("06/21/2025-01:30:42"));
    assert_eq!(error.message, "Failed to initialize executor on rank 0: boom");
    let info = first("[07/24/2025-08:18:47] [TRT-LLM] [I] Compute capability: (9, 0)");
    assert_eq!(info.level, Some(Level::Info));
    assert!(info.formats.contains(Format::TensorrtLlm));
    // The C++ logger.
    let warning = first("[TensorRT-LLM][WARNING] [kv cache manager] Fewer blocks than requested");
    assert_eq!(warning.level, Some(Level::Warning));
    assert_eq!(warning.message, "[kv cache manager] Fewer blocks than requested");
    // Not a tag of its own: a message that quotes one.
    assert_eq!(first("RuntimeError: [TensorRT-LLM][ERROR] Assertion failed").level, None);
}

#[test]
fn python_loggings_cookbook_format_gives_the_level() {
    // murtaza-nasir/speakr#65 (2025-08), under docker compose's prefix.
    let error = first("speakr                  | 2025-08-12 19:40:24,526 - app - ERROR - ASR processing FAILED for recording 2");
    assert_eq!(error.level, Some(Level::Error));
    assert_eq!(error.message, "ASR processing FAILED for recording 2");
    assert_eq!(error.time, Some("2025-08-12 19:40:24,526"));
    let info = first("2025-01-01 10:00:00,417 - INFO - Model loaded");
    assert_eq!(info.level, Some(Level::Info));
    assert_eq!(info.message, "Model loaded");
    // A dash in the message is no header.
    assert_eq!(first("2025-01-01 10:00:00,417 - the server - started").level, None);
    // gpustack/gpustack#3022 (2025-10): ISO 8601 stamps with a zone.
    let critical = first("2025-10-27T10:23:08+08:00 - vox_box.cmd.start - CRITICAL - Faild to load model");
    assert_eq!((critical.level, critical.message), (Some(Level::Critical), "Faild to load model"));
    assert_eq!(critical.time, Some("2025-10-27T10:23:08+08:00"));
    let info = first(
        "2025-10-27 10:23:04.709724+08:00 - gpustack.worker.backends.base - INFO - Model files are ready.",
    );
    assert_eq!(info.level, Some(Level::Info));
}

#[test]
fn gunicorns_and_richs_formats_give_the_level() {
    // benoitc/gunicorn's default: time with its zone, pid, level.
    let error = first("[2025-12-06 10:47:28 +0000] [9] [ERROR] Can't connect to ('::', 3003)");
    assert_eq!((error.level, error.message), (Some(Level::Error), "Can't connect to ('::', 3003)"));
    assert_eq!(error.time, Some("2025-12-06 10:47:28 +0000"));
    // immich-app/immich#24413 (2025-12): rich's console handler.
    let rich = first("[12/06/25 10:47:23] ERROR    connection to ('::', 3003) failed: [Errno 97]      ");
    assert_eq!(rich.level, Some(Level::Error));
    assert!(rich.message.starts_with("connection to"), "{rich:?}");
    assert_eq!(first("[10:47:23] CRITICAL Faild to load").level, Some(Level::Critical));
}

#[test]
fn a_level_word_after_a_time_of_day_is_the_records_level() {
    // oobabooga/text-generation-webui#6908 (2025).
    assert_eq!(first("01:29:35-222345 ERROR    Failed to load the model.").level, Some(Level::Error));
    // mudler/LocalAI#6954 (2025): zerolog's console writer.
    assert_eq!(first("3:00PM FTL Error running the application").level, Some(Level::Fatal));
    assert_eq!(first("3:00PM INF core/startup process completed!").level, Some(Level::Info));
    // xorbitsai/inference#3450 (2025-05): after the logger's name and pid.
    assert_eq!(
        first("2025-05-14 20:27:38,150 xinference.core.model 633 ERROR    [request 8cf9d2ce] Leave chat")
            .level,
        Some(Level::Error)
    );
    // An abbreviation alone is no level; a word of the sentence is none.
    assert_eq!(first("ERR something").level, None);
    assert_eq!(first("12:00 is when ERROR rates peak").level, None);
}
