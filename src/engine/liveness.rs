//! Liveness by writer: which lines show that their writer goes on, and
//! which are warnings.
//!
//! A failure no rule knows ends its writer unless the writer goes on
//! writing ordinary lines: a served request, an INFO record, progress. A
//! line about its own end (shutting down, exiting, cleaning up) or about
//! another failure is not ordinary, nor is a warning or an error. A
//! warning never decides a crash by itself.

use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickKind};

use crate::framing::Level;

/// Words of lines about an end or a failure (lowercase), or of the usage
/// text a program prints as it refuses its arguments (which also opens
/// with `usage:`): such a line does not show that its writer goes on with
/// its work.
const NOT_ORDINARY: [&str; 33] = [
    "complete usage",
    "shut",
    "exit",
    "terminat",
    "stopp",
    "kill",
    "abort",
    "clean",
    "destroy",
    "teardown",
    "tear down",
    "finished server process",
    "waiting for",
    "closing",
    "closed",
    "goodbye",
    "dying",
    "died",
    "dead",
    "crash",
    "traceback",
    "error",
    "exception",
    "fail",
    "fatal",
    "core dump",
    "signal",
    "interrupt",
    "cancel",
    "timed out",
    "unhealthy",
    "warn",
    "panic",
];

/// Does a line of this level and message show that its writer goes on
/// with its work? An INFO (or unlabelled) line with some words in it that
/// speaks of neither an end nor a failure.
pub(super) fn is_ordinary(level: Option<Level>, message: &str) -> bool {
    if level.is_some_and(Level::is_trouble) {
        return false;
    }
    let letters = message.bytes().filter(u8::is_ascii_alphabetic).count();
    if letters < 3 || is_cascade(message) {
        return false;
    }
    !not_ordinary().is_match(message)
}

/// One automaton for [`NOT_ORDINARY`], ASCII case-insensitive.
fn not_ordinary() -> &'static AhoCorasick {
    static WORDS: OnceLock<AhoCorasick> = OnceLock::new();
    WORDS.get_or_init(|| {
        AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .kind(Some(AhoCorasickKind::DFA))
            .build(NOT_ORDINARY)
            .expect("a few plain words make an automaton")
    })
}

/// Lines a failure prints after its first in native code, at no level or
/// at INFO: an indented line, a stack frame (`frame #3:`, `#3 0x…`, `at
/// …`), a goroutine's header, an address, NCCL's return-code trail
/// (`init.cc:300 -> 2`), a header that announces more (`…:`), the option
/// list of a usage text (`--port …`), the runtime's version that Node.js
/// signs its report of an uncaught error with (`Node.js v20.12.2`), a
/// crash handler's banner (glog's `*** Check failure stack trace: ***`,
/// Ray's `*** StackTrace Information ***`, absl's `*** SIGSEGV received
/// at time=…`).
fn is_cascade(message: &str) -> bool {
    let trimmed = message.trim_end();
    let frame = ["frame #", "#", "at ", "goroutine ", "0x", "File \"", "--", "Node.js v", "*** "]
        .iter()
        .any(|p| trimmed.starts_with(p))
        || trimmed.get(..6).is_some_and(|head| head.eq_ignore_ascii_case("usage:"));
    let returns = trimmed.rsplit_once(" -> ").is_some_and(|(_, code)| {
        code.split(' ').next().is_some_and(|c| !c.is_empty() && c.bytes().all(|b| b.is_ascii_digit()))
    });
    let addresses = trimmed.contains("(0x") || trimmed.contains("+0x") || register_dump(trimmed);
    let source = trimmed.contains(" in function ") || names_source_line(trimmed);
    message.starts_with([' ', '\t']) || frame || returns || addresses || source || trimmed.ends_with(':')
}

/// A crash handler's register dump (`RAX 0000000000000320 RBX …`): two
/// or more words of at least eight hex digits.
fn register_dump(line: &str) -> bool {
    let hex = |word: &&str| word.len() >= 8 && word.bytes().all(|b| b.is_ascii_hexdigit());
    line.split_ascii_whitespace().filter(hex).nth(1).is_some()
}

/// Does the writer report that a request failed (`Sent to request: Kobold
/// generation 503aa… aborted`, `request 17 failed`)? Then it handled the
/// error in that request and goes on: the line shows it alive, whatever
/// its level.
pub(super) fn is_handled_request(message: &str) -> bool {
    let lower = message.to_ascii_lowercase();
    let Some(at) = lower.find("request") else {
        return false;
    };
    let after = &lower[at..];
    ["aborted", "failed", "cancelled", "canceled"].iter().any(|verb| after.contains(verb))
}

/// Does the writer say it tries again (`…, retrying... (attempt 9/60)`,
/// `will retry in 5s`)? Then the error it reports is one it goes on from,
/// unless the same words say it stops trying.
pub(super) fn says_it_retries(message: &str) -> bool {
    const AGAIN: [&str; 3] = ["retrying", "will retry", "retry in "];
    const STOPS: [&str; 5] = ["not retrying", "stop retrying", "giving up", "gave up", "no more retr"];
    let lower = message.to_ascii_lowercase();
    AGAIN.iter().any(|w| lower.contains(w)) && !STOPS.iter().any(|w| lower.contains(w))
}

/// Is the line a server's access record of a request it answered, with
/// the status it sent: the common log format's `"POST /v1/models
/// HTTP/1.1" 503` (uvicorn, gunicorn, werkzeug, aiohttp, nginx) or gin's
/// `[GIN] … | 200 | … | POST "/api/chat"`? Whatever the status, the
/// server was there to send it.
pub(super) fn is_answered_request(message: &str) -> bool {
    const METHODS: [&str; 7] = ["GET /", "POST /", "PUT /", "DELETE /", "PATCH /", "HEAD /", "OPTIONS /"];
    let status = |text: &str| {
        let text = text.trim_start();
        let code = text.get(..3).is_some_and(|code| code.bytes().all(|b| b.is_ascii_digit()));
        code && text.get(3..).is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '-']))
    };
    if let Some(at) = message.find(" HTTP/") {
        let method = METHODS.iter().any(|m| message[..at].contains(m));
        let after_quote = message[at..].split_once("\" ").map(|(_, rest)| rest);
        return method && after_quote.is_some_and(status);
    }
    let gin = message.trim_start().starts_with("[GIN]");
    gin && message.split('|').nth(1).is_some_and(status)
}

/// Does the line name a place in native or Python source (`ggml-cuda.cu:534`,
/// `init.cc:300`, `server.go:627`)? A failure's trail does.
fn names_source_line(line: &str) -> bool {
    const EXTENSIONS: [&[u8]; 9] = [b".c", b".cc", b".cpp", b".cu", b".h", b".hpp", b".go", b".rs", b".py"];
    let bytes = line.as_bytes();
    memchr::memchr_iter(b':', bytes).any(|colon| {
        let digit = bytes.get(colon + 1).is_some_and(u8::is_ascii_digit);
        digit && EXTENSIONS.iter().any(|extension| bytes[..colon].ends_with(extension))
    })
}

/// Is a line of this level and message a warning: `WARNING` level, a
/// message that begins `Warning:`, or Python's `file.py:12: UserWarning: …`?
pub(super) fn is_warning(level: Option<Level>, message: &str) -> bool {
    if level == Some(Level::Warning) {
        return true;
    }
    let message = message.trim_start();
    let starts = message.get(..8).is_some_and(|head| head.eq_ignore_ascii_case("warning:"));
    starts || python_warning(message)
}

/// `/usr/lib/python3/…/x.py:128: UserWarning: …`: what the warnings module
/// prints (a category that ends in `Warning`, after `file:line: `).
fn python_warning(message: &str) -> bool {
    let Some((place, rest)) = message.split_once(": ") else {
        return false;
    };
    let line_number =
        place.rsplit_once(':').is_some_and(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    let category = rest.split_once(": ").map_or("", |(c, _)| c);
    (line_number && is_warning_category(category)) || is_warning_category(place)
}

/// `UserWarning`, `torch.jit.TracerWarning`: a warnings category, which
/// Python names with a `Warning` suffix (its line may come without the
/// `file:line: ` the warnings module puts before it).
fn is_warning_category(name: &str) -> bool {
    name.ends_with("Warning") && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_shows_life_and_an_end_or_a_failure_does_not() {
        // Comfy-Org/ComfyUI#6176: after a caught OOM the server goes on.
        assert!(is_ordinary(None, "Prompt executed in 12.66 seconds"));
        assert!(is_ordinary(Some(Level::Info), "got prompt"));
        assert!(is_ordinary(
            None,
            "[2024-10-01 10:00:01 TP0] Decode batch. #running-req: 1, #token: 512, token usage: 0.01, gen throughput (token/s): 61.20, #queue-req: 0"
        ));
        assert!(!is_ordinary(None, "usage:"));
        // mozilla-ocho/llamafile#703: Cosmopolitan's crash handler.
        assert!(!is_ordinary(None, "RAX 0000000000000320 RBX 0000000081001590 RDI 0000000000000001"));
        assert!(!is_ordinary(None, "to show complete usage, run with -h"));
        assert!(is_ordinary(
            Some(Level::Info),
            "127.0.0.1:40000 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK"
        ));
        assert!(!is_ordinary(Some(Level::Info), "Shutting down"));
        assert!(!is_ordinary(Some(Level::Info), "Waiting for application shutdown."));
        assert!(!is_ordinary(Some(Level::Info), "Finished server process [8]"));
        assert!(!is_ordinary(None, "127.0.0.1 - \"POST /generate HTTP/1.1\" 500 Internal Server Error"));
    }

    #[test]
    fn an_access_record_is_an_answered_request_whatever_its_status() {
        // xorbitsai/inference (uvicorn.access through its own logger).
        assert!(is_answered_request(
            "INFO uvicorn.access pid:1 10.0.0.1:34608 - \"POST /v1/models HTTP/1.1\" 503"
        ));
        assert!(is_answered_request("127.0.0.1 - - [01/Jan/2025 10:00:00] \"GET /health HTTP/1.1\" 200 -"));
        assert!(is_answered_request(
            "[GIN] 2025/07/10 - 19:24:24 | 500 |   12.3s |  127.0.0.1 | POST     \"/api/chat\""
        ));
        assert!(!is_answered_request("Sending \"POST /v1/models HTTP/1.1\" to the upstream"));
        assert!(!is_answered_request("HTTP/1.1 connection reset by peer"));
        assert!(!is_ordinary(Some(Level::Warning), "No available block found in 60 second."));
        assert!(!is_ordinary(None, "^^^^^^^^^^^^"));
        // The failure's own trail, at no level or at INFO.
        assert!(!is_ordinary(None, "goroutine 85 [running]:"));
        assert!(!is_ordinary(Some(Level::Info), "transport/net_ib.cc:395 -> 2"));
        assert!(!is_ordinary(Some(Level::Info), "group.cc:73 -> 2 [Async thread]"));
        assert!(!is_ordinary(
            None,
            "current device: 0, in function ggml_backend_cuda_buffer_type_alloc_buffer at /llama.cpp/ggml/src/ggml-cuda.cu:534"
        ));
        assert!(!is_ordinary(
            None,
            "github.com/ollama/ollama/llama/runner.(*Server).loadModel(0xc000283710, {0x33, 0x0}, ...)"
        ));
        assert!(!is_ordinary(
            None,
            "frame #0: c10::Error::Error(c10::SourceLocation) + 0x80 (0x7f42 in libc10.so)"
        ));
    }

    #[test]
    fn a_request_the_writer_reports_as_failed_shows_it_handled_the_error() {
        // theroyallab/tabbyAPI#333 (2025-05): after the handler's traceback.
        assert!(is_handled_request(
            "Sent to request: Kobold generation 503aa198fbca41258f7fefa6832dc7cc aborted. Please check the server console."
        ));
        // vLLM aborts every request as its engine dies: the abort comes first.
        assert!(!is_handled_request("Aborted request cmpl-3f2a."));
        assert!(!is_handled_request("Engine loop failed"));
    }

    #[test]
    fn a_writer_that_says_it_retries_goes_on() {
        // THUDM/slime#63 (2025-07): the rollout buffer's httpx error.
        assert!(says_it_retries(
            "For more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/422, retrying... (attempt 9/60)"
        ));
        assert!(says_it_retries("Connection refused; will retry in 5 seconds"));
        assert!(!says_it_retries("Max retries exceeded with url: /v1/models"));
        assert!(!says_it_retries("Retrying failed 3 times, giving up"));
    }

    #[test]
    fn warnings_are_known_by_level_and_by_their_words() {
        assert!(is_warning(Some(Level::Warning), "anything"));
        assert!(is_warning(None, "Warning: Error loading shared library libcuda.so.1"));
        assert!(is_warning(
            None,
            "/usr/local/lib/python3.10/site-packages/torch/cuda/__init__.py:128: UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount()"
        ));
        assert!(!is_warning(Some(Level::Error), "RuntimeError: CUDA error: out of memory"));
        assert!(!is_warning(None, "File \"x.py\", line 3, in f: RuntimeWarningNot: x"));
        // RVC-Project/Retrieval-based-Voice-Conversion-WebUI#2656: the
        // category line without the place the warnings module puts first.
        assert!(is_warning(
            None,
            "UserWarning: Grad strides do not match bucket view strides. This may indicate grad was not created according to the gradient layout contract"
        ));
        assert!(!is_warning(None, "ValueError: Warning: not a warning"));
    }
}
