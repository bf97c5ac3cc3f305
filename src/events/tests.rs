//! Grouping checked on real shapes: journal tracebacks, interleaved vLLM
//! ranks, chained exceptions, faulthandler dumps, cut input.

use super::*;

fn group(text: &str) -> Vec<Event> {
    crate::pipeline::events_of(text)
}

fn roles(event: &Event) -> Vec<LineRole> {
    event.lines.iter().map(|l| l.role).collect()
}

#[test]
fn journal_traceback_is_one_event_and_the_sigquit_is_another() {
    let log = "\
May 25 20:27:22 h python[71283]: [2026-05-25 20:27:22 TP2] Scheduler hit an exception: Traceback (most recent call last):
May 25 20:27:22 h python[71283]:   File \"/v/flashinfer/jit/core.py\", line 96, in check_cuda_arch
May 25 20:27:22 h python[71283]:     raise RuntimeError(\"FlashInfer requires GPUs with sm75 or higher\")
May 25 20:27:22 h python[71283]: RuntimeError: FlashInfer requires GPUs with sm75 or higher
May 25 20:27:22 h python[71283]: [2026-05-25 20:27:22] Received sigquit from a child process. It usually means the child failed.
May 25 20:27:23 h systemd[1]: sglang-k26.service: Main process exited, code=killed, status=9/KILL";
    let events = group(log);
    assert_eq!(events.len(), 3);
    assert_eq!(events[0].kind, EventKind::Traceback);
    assert_eq!(
        roles(&events[0]),
        vec![LineRole::TracebackHeader, LineRole::Frame, LineRole::Source, LineRole::Exception]
    );
    assert_eq!(events[0].ranks(), Some("TP2"));
    assert!(!events[0].missing_exception && !events[0].cut_by_end);
    assert_eq!(events[0].exception_type_at(3), Some("RuntimeError"));
    assert_eq!(events[1].first_line(), 5);
    assert_eq!(events[2].identifier(), Some("systemd"));
}

#[test]
fn traceback_cut_by_the_end_of_input() {
    let log = "\
May 25 20:27:22 h python[71283]:   File \"/v/flashinfer/sampling.py\", line 1558, in top_k_top_p_sampling_from_probs
May 25 20:27:22 h python[71283]:     return get_sampling_module().top_k_top_p_sampling_from_probs(
May 25 20:27:22 h python[71283]:            ^^^^^^^^^^^^^^^^^^^^^
May 25 20:27:22 h python[71283]:   File \"/v/flashinfer/sampling.py\", line 54, in g...";
    let events = group(log);
    assert_eq!(events.len(), 1);
    assert!(events[0].missing_exception && events[0].cut_by_end);
}

#[test]
fn interleaved_vllm_workers_give_separate_tracebacks_in_input_order() {
    let log = "\
(Worker_TP0 pid=10) ERROR 07-27 23:31:27 [multiproc_executor.py:522] Traceback (most recent call last):
(Worker_TP1 pid=11) ERROR 07-27 23:31:27 [multiproc_executor.py:522] Traceback (most recent call last):
(Worker_TP0 pid=10) ERROR 07-27 23:31:27 [multiproc_executor.py:522]   File \"/a.py\", line 1, in f
(Worker_TP1 pid=11) ERROR 07-27 23:31:27 [multiproc_executor.py:522]   File \"/b.py\", line 2, in g
(Worker_TP0 pid=10) ERROR 07-27 23:31:27 [multiproc_executor.py:522] RuntimeError: CUDA error: an illegal memory access was encountered
(Worker_TP1 pid=11) ERROR 07-27 23:31:27 [multiproc_executor.py:522] RuntimeError: CUDA error: an illegal memory access was encountered
(Worker_TP0 pid=10) INFO 07-27 23:31:28 [core.py:1] next record";
    let events = group(log);
    assert_eq!(events.len(), 3);
    assert_eq!(events[0].lines.iter().map(|l| l.number).collect::<Vec<_>>(), vec![1, 3, 5]);
    assert_eq!(events[1].lines.iter().map(|l| l.number).collect::<Vec<_>>(), vec![2, 4, 6]);
    assert_eq!(events[2].first_line(), 7);
}

#[test]
fn chained_exceptions_with_vllm_prefixes_stay_together() {
    let log = "\
ERROR 11-15 01:06:40 worker_base.py:464] Traceback (most recent call last):
ERROR 11-15 01:06:40 worker_base.py:464]   File \"/l.py\", line 135, in apply
ERROR 11-15 01:06:40 worker_base.py:464] RuntimeError: CUDA error: no kernel image is available for execution on the device
ERROR 11-15 01:06:40 worker_base.py:464] For debugging consider passing CUDA_LAUNCH_BLOCKING=1
ERROR 11-15 01:06:40 worker_base.py:464]
ERROR 11-15 01:06:40 worker_base.py:464] The above exception was the direct cause of the following exception:
ERROR 11-15 01:06:40 worker_base.py:464]
ERROR 11-15 01:06:40 worker_base.py:464] Traceback (most recent call last):
ERROR 11-15 01:06:40 worker_base.py:464]   File \"/w.py\", line 1, in f
ERROR 11-15 01:06:40 worker_base.py:464] RuntimeError: Error in model execution
INFO 11-15 01:06:41 engine.py:1] after";
    let events = group(log);
    assert_eq!(events.len(), 2);
    assert_eq!(events[0].lines.len(), 10);
    assert_eq!(events[0].exception_lines().count(), 2);
    assert_eq!(events[0].lines[3].role, LineRole::ExceptionText);
}

#[test]
fn plain_sglang_traceback_ends_at_the_blank_line() {
    let log = "\
[2026-06-02 14:05:09 TP6] Scheduler hit an exception: Traceback (most recent call last):
  File \"/c.py\", line 66, in get_nvcc_flags_list
    raise RuntimeError(
RuntimeError: No supported CUDA architectures found for major versions [9, 10].

[2026-06-02 14:05:09] Received sigquit from a child process. It usually means the child failed.
Killed";
    let events = group(log);
    assert_eq!(events.len(), 3);
    assert_eq!(events[0].lines.len(), 4);
    assert_eq!(events[2].lines[0].message(), "Killed");
}

#[test]
fn faulthandler_dump_is_one_event() {
    let log = "\
LLVM ERROR: Cannot select: intrinsic %llvm.nvvm.tcgen05.wait.st
Fatal Python error: Aborted

Thread 0x0000fe47c000f100 (most recent call first):
  File \"/usr/lib/python3.12/threading.py\", line 359 in wait

Current thread 0x0000fe47c000f200 (most recent call first):
  File \"/x.py\", line 1 in f";
    let events = group(log);
    assert_eq!(events.len(), 2);
    assert_eq!(events[1].kind, EventKind::FaultDump);
    assert_eq!(events[1].lines.len(), 7);
}

#[test]
fn an_error_record_over_a_native_backtrace_is_a_dump() {
    // NVIDIA/TensorRT-LLM#5389 (2025-06): the executor's error, then the
    // C++ backtrace TensorRT-LLM prints under it.
    let log = "\
[06/21/2025-01:30:42] [TRT-LLM] [RANK 0] [I] [Autotuner]: Autotuning process ends
[06/21/2025-01:30:42] [TRT-LLM] [RANK 0] [E] Failed to initialize executor on rank 0: Assertion failed
1       0x7fac7ac778fd tensorrt_llm::common::throwRuntimeError(char const*, int, char const*) + 97
2       0x7fac7ac7f699 /usr/local/lib/python3.12/dist-packages/tensorrt_llm/libs/libtensorrt_llm.so(+0x1d5e699) [0x7fac7ac7f699]";
    let events = group(log);
    assert_eq!(events.len(), 2);
    assert_eq!(events[1].kind, EventKind::FaultDump);
    assert_eq!(events[1].lines.len(), 3);
    // Under an INFO record the same lines are only its continuation.
    let events = group(&log.replace("[E] Failed", "[I] Failed"));
    assert_eq!(events[1].kind, EventKind::Record);
}

#[test]
fn a_loggers_record_after_an_exception_is_the_next_event() {
    // xorbitsai/inference#5302 (2026-08): the API's access record right
    // after the traceback its worker logged.
    let log = "\
Traceback (most recent call last):
  File \"/x.py\", line 1, in wait_for_load
RuntimeError: Engine core initialization failed. See root cause above.
INFO uvicorn.access pid:1 10.0.0.1:34608 - \"POST /v1/models HTTP/1.1\" 503";
    let events = group(log);
    assert_eq!(events.len(), 2);
    assert_eq!(events[1].kind, EventKind::Record);
}

#[test]
fn kernel_message_with_indented_continuation_lines() {
    let log = "\
[ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0
               NVRM: (PCI ID: 10de:26b5) installed in this system has
               NVRM: fallen off the bus and is not responding to commands.
[ 1843.439662] NVRM: The NVIDIA probe routine failed for 1 device(s).";
    let events = group(log);
    assert_eq!(events.len(), 2);
    assert_eq!(events[0].lines.len(), 3);
}

#[test]
fn journal_separator_is_its_own_event() {
    let events = group(
        "May 25 20:27:22 h a[1]: x\n-- Boot 0123456789abcdef0123456789abcdef --\nMay 25 20:28:22 h a[2]: y",
    );
    assert_eq!(events.len(), 3);
    assert_eq!(events[1].kind, EventKind::Separator(Separator::Boot));
}

#[test]
fn stream_names_come_from_the_line_or_from_elsewhere() {
    let line = "May 25 08:00:00 gpu-node-07 python[71283]: [2026-05-25 08:00:00 TP3] Load weight begin.";
    let events = crate::pipeline::events_of(line);
    assert_eq!(events[0].host(), Some("gpu-node-07"));
    assert_eq!(events[0].identifier(), Some("python"));
    assert_eq!(events[0].stream.pid, Some(71283));
    assert_eq!(events[0].ranks(), Some("TP3"));
    assert_eq!(events[0].time(), Some("May 25 08:00:00"));
    assert_eq!(events[0].unit(), None);

    // A structured entry's fields are not part of its text.
    let fields = crate::framing::journal::JournalFields {
        identifier: Some("python3".to_string()),
        unit: Some("sglang.service".to_string()),
        ..Default::default()
    };
    let text = "Scheduler hit an exception:";
    let framed = crate::framing::frame_message(text, &fields, crate::framing::Format::JournalJson);
    let mut grouper = Grouper::new();
    grouper.push(1, 0, text, &framed.first);
    let event = grouper.finish().pop().unwrap();
    assert_eq!(
        (event.identifier(), event.unit(), event.host()),
        (Some("python3"), Some("sglang.service"), None)
    );
}

#[test]
fn rust_panic_keeps_its_message_and_backtrace() {
    // sgl-project/sglang#7901: the router's panic (Rust 1.73+ layout).
    let log = "\
thread '<unnamed>' panicked at /root/.cargo/registry/src/tokio-1.46.1/src/runtime/blocking/shutdown.rs:51:21:
Cannot drop a runtime in a context where blocking is not allowed.
stack backtrace:
   0:     0x7fb73afbb082 - std::backtrace_rs::backtrace::libunwind::trace::h74680e970b6e0712
                               at /rustc/6b00bc38/library/std/src/../../backtrace/src/backtrace/libunwind.rs:117:9
[2025-07-09 10:00:00] Shutting down";
    let events = group(log);
    assert_eq!(events.len(), 2);
    assert_eq!(events[0].kind, EventKind::FaultDump);
    assert_eq!(events[0].lines.len(), 5);
    assert_eq!(events[0].lines[1].role, LineRole::ExceptionText);
    assert_eq!(events[1].lines[0].message(), "Shutting down");
}

#[test]
fn rust_panic_of_older_releases_ends_at_its_note() {
    let log = "\
thread 'main' panicked at 'called `Option::unwrap()` on a `None` value', src/main.rs:12:5
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace
Error: Webserver Crashed";
    let events = group(log);
    assert_eq!(events.len(), 2);
    assert_eq!(events[0].kind, EventKind::FaultDump);
    assert_eq!(events[0].lines.len(), 2);
    assert_eq!(events[1].lines[0].message(), "Error: Webserver Crashed");
}

#[test]
fn asyncio_handler_report_is_one_event_with_its_traceback() {
    // sgl-project/sglang#17031: one record of asyncio's exception handler.
    let log = "\
[2026-01-12 21:03:30] Task exception was never retrieved
future: <Task finished name='Task-993871' coro=<<async_generator_asend without __name__>()> exception=ValueError('x')>
Traceback (most recent call last):
  File \"/usr/lib/python3.12/asyncio/locks.py\", line 212, in wait
    await fut
asyncio.exceptions.CancelledError
[2026-01-12 21:03:31] INFO:     127.0.0.1:5000 - \"POST /generate HTTP/1.1\" 200 OK";
    let events = group(log);
    assert_eq!(events.len(), 2);
    assert_eq!(events[0].kind, EventKind::Traceback);
    assert_eq!(events[0].lines[0].message(), "Task exception was never retrieved");
    assert_eq!(events[0].lines.len(), 6);

    // Other bare lines after a record stay their own events.
    let events = group("[2026-01-12 21:03:30] Task exception was never retrieved\nsomething else");
    assert_eq!(events.len(), 2);
}

#[test]
fn logged_exception_takes_its_bare_traceback() {
    // huggingface/text-generation-inference#1695: `logger.exception` under
    // the launcher's one-line header, the traceback without prefixes.
    let log = "\
2024-04-02T17:31:23.524470Z ERROR text_generation_launcher: Decode cuda graph warmup failed
Traceback (most recent call last):
  File \"/opt/conda/bin/text-generation-server\", line 8, in <module>
    sys.exit(app())
torch.OutOfMemoryError: CUDA out of memory.";
    let events = group(log);
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].kind, EventKind::Traceback);
    assert_eq!(events[0].lines[0].message(), "Decode cuda graph warmup failed");

    // An INFO record before an uncaught traceback does not announce it.
    let log = "\
2024-04-02T17:31:23.524470Z  INFO text_generation_launcher: Loading weights
Traceback (most recent call last):
  File \"/opt/conda/bin/text-generation-server\", line 8, in <module>
KeyError: 'x'";
    assert_eq!(group(log).len(), 2);
}

#[test]
fn an_exception_with_its_type_alone_takes_the_paragraphs_after_it() {
    // sgl-project/sglang#29646: sgl_kernel raises ImportError with a report
    // of several paragraphs; the next logger record ends it.
    let log = "\
Traceback (most recent call last):
  File \"/x/a.py\", line 1, in <module>
ImportError:
[sgl_kernel] CRITICAL: Could not load any common_ops library!

Attempted locations:
1. /x/sgl_kernel/sm100/common_ops.*

Error details from previous import attempts:
- ImportError: libnvrtc.so.12: cannot open shared object file: No such file or directory
[2026-05-25 08:00:01] INFO next record";
    let events = group(log);
    assert_eq!(events.len(), 2, "{events:#?}");
    assert_eq!(events[0].kind, EventKind::Traceback);
    assert_eq!(
        events[0].lines.last().unwrap().message(),
        "- ImportError: libnvrtc.so.12: cannot open shared object file: No such file or directory"
    );
    // A message on the exception's own line ends at a blank line, as before.
    let events = group("ValueError: bad value\n\nnext line");
    assert_eq!(events.len(), 2, "{events:#?}");
}

#[test]
fn an_exception_that_announces_a_table_takes_it() {
    // ray-project/ray#4877: Ray's memory monitor lists the top consumers.
    let log = "\
ray.memory_monitor.RayOutOfMemoryError: More than 95% of the memory on node Local is used (15.98 / 16.82 GB). The top 5 memory consumers are:

PID\tMEM\tCOMMAND
4758\t7.3GB\tray_ImpalaTrainer:train()

In addition, ~4.24 GB of shared memory is currently being used by the Ray object store.";
    let events = group(log);
    assert_eq!(events.len(), 1, "{events:#?}");
}
