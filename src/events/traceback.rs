//! The grammar of Python tracebacks and faulthandler dumps, line by line.
//!
//! CPython 3.8–3.13 and faulthandler: `Traceback (most recent call last):`, frames
//! `  File "p", line N, in f` (faulthandler: `line N in f`, no comma), source
//! lines indented four spaces, 3.11+ caret lines, chained blocks joined by
//! "The above exception was the direct cause…" / "During handling of the
//! above exception…", exception groups drawn with `|` and `+-`, and the
//! closing `Type: message` line whose message may run over several lines.

/// What one line is, as part of a traceback.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// `Traceback (most recent call last):`, possibly after other text on
    /// the same line (`Scheduler hit an exception: Traceback …`).
    Header,
    /// A faulthandler block header: `Thread 0x… (most recent call first):`,
    /// `Current thread …`, `Stack (most recent call first):`.
    DumpHeader,
    /// `File "…", line N, in f` or faulthandler's `File "…", line N in f`.
    Frame,
    /// An indented source line, a caret line, `[Previous line repeated…]`.
    Source,
    /// "The above exception was the direct cause…" or "During handling…".
    Chain,
    /// An empty or all-blank line.
    Blank,
    /// `Type: message` or a bare `Type` whose name reads as an exception.
    Exception,
    /// A line from a C++ stack inside an exception message (`frame #3: …`,
    /// `Exception raised from … (most recent call first):`).
    NativeFrame,
    /// Anything else.
    Other,
}

/// Removes exception-group drawing (`  | `, `  + `, `+-+----`) from a line.
pub fn strip_group_drawing(message: &str) -> &str {
    let trimmed = message.trim_start();
    if let Some(rest) = trimmed.strip_prefix("| ").or_else(|| trimmed.strip_prefix("+ ")) {
        return rest;
    }
    if trimmed == "|" {
        return "";
    }
    message
}

/// Where a line is being classified.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// Outside any traceback: only a `name: text` line whose name reads as
    /// an exception's (`…Error`, `…Exception`, a dotted path) is one.
    Outside,
    /// Inside a traceback, after its frames: any `name: text` line is the
    /// exception line.
    InTraceback,
}

/// Openings of lines that start with a letter but are not read by their
/// name: a frame, a chain separator, a native frame.
const OTHER_OPENINGS: [&str; 4] = ["File \"", "The above exception", "During handling", "frame #"];

/// The bytes of a dotted name: ASCII letters, digits, `_` and `.`.
const NAME_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric() || c == b'_' || c == b'.';
        b += 1;
    }
    table
};

/// Classifies a message as a traceback line, as it reads at `place`.
pub fn classify(message: &str, place: Place) -> LineKind {
    // Most lines start with a letter or digit and end (before any ASCII
    // spaces) in a visible ASCII character other than `:`; of the kinds
    // below, such a line can only be an exception line (or other), unless
    // it opens like a frame or a chain separator.
    let bytes = message.as_bytes();
    if let Some(&first) = bytes.first() {
        if first.is_ascii_digit() && is_numbered_native_frame(message) {
            return LineKind::NativeFrame;
        }
        let opens_otherwise = matches!(first, b'F' | b'T' | b'D' | b'f')
            && OTHER_OPENINGS.iter().any(|opening| message.starts_with(opening));
        if first.is_ascii_alphanumeric() && !opens_otherwise && ends_plainly(message) {
            return match exception_name(message, place) {
                Some(_) => LineKind::Exception,
                None => LineKind::Other,
            };
        }
    }
    let message = strip_group_drawing(message);
    let trimmed = message.trim();
    if trimmed.is_empty() {
        return LineKind::Blank;
    }
    if trimmed.ends_with("Traceback (most recent call last):") {
        return LineKind::Header;
    }
    // An exception group's drawing between its sub-exceptions (Python
    // 3.11+): `+-+---------------- 1 ----------------`, `+------------`.
    if trimmed.starts_with("+-")
        && trimmed.bytes().all(|b| matches!(b, b'+' | b'-' | b' ' | b'.') || b.is_ascii_digit())
    {
        return LineKind::Chain;
    }
    if trimmed.ends_with("(most recent call first):")
        && (trimmed.starts_with("Thread 0x")
            || trimmed.starts_with("Current thread")
            || trimmed.starts_with("Stack"))
    {
        return LineKind::DumpHeader;
    }
    if trimmed.starts_with("File \"") && parse_frame(trimmed).is_some() {
        return LineKind::Frame;
    }
    if trimmed.starts_with("The above exception was the direct cause of the following exception")
        || trimmed.starts_with("During handling of the above exception, another exception occurred")
    {
        return LineKind::Chain;
    }
    if trimmed.starts_with("frame #")
        || (trimmed.starts_with("Exception raised from ") && trimmed.ends_with("):"))
    {
        return LineKind::NativeFrame;
    }
    let indented = message.starts_with("    ") || message.starts_with('\t');
    if indented || is_caret_line(trimmed) || trimmed.starts_with("[Previous line repeated") {
        return LineKind::Source;
    }
    if !message.starts_with(' ') && exception_name(message, place).is_some() {
        return LineKind::Exception;
    }
    LineKind::Other
}

/// Whether a message ends (before any ASCII spaces) in a visible ASCII
/// character other than `:`.
pub fn ends_plainly(message: &str) -> bool {
    message.as_bytes().trim_ascii_end().last().is_some_and(|&last| last.is_ascii_graphic() && last != b':')
}

/// What [`classify`] makes, outside a traceback, of every message that
/// [`ends_plainly`], holds more than `opening` and opens with its bytes,
/// but for digits (any digit where it holds one): `None` when the opening
/// does not decide it. Lines framed by one template share such an
/// opening, so their class is found once per template.
///
/// The opening decides when every comparison [`classify`] makes with the
/// line's start ends inside it: the openings of other kinds of line (none
/// holds a digit) and the name that starts the line, with the `: ` after
/// it. Whether the name reads as an exception's depends on its bytes
/// other than digits, and on where a digit is, not on which.
pub fn class_of_opening(opening: &str) -> Option<LineKind> {
    let bytes = opening.as_bytes();
    let first = *bytes.first()?;
    // Whether the message starts with `other` is known when `other` fits
    // in the opening, or differs from it within it.
    let known = |other: &&str| other.len() <= bytes.len() || !other.as_bytes().starts_with(bytes);
    if !first.is_ascii_alphanumeric() || !OTHER_OPENINGS.iter().all(known) {
        return None;
    }
    // Digits then a space may open a numbered native frame.
    let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits > 0 && bytes.get(digits).is_none_or(|&b| b == b' ') {
        return None;
    }
    if matches!(first, b'F' | b'T' | b'D' | b'f')
        && OTHER_OPENINGS.iter().any(|other| opening.starts_with(other))
    {
        return None;
    }
    if first.is_ascii_alphabetic() || first == b'_' {
        // The name must end inside the opening, and the message's next two
        // bytes (`: ` or not) must be known: the message goes on after it.
        let end = bytes.iter().position(|&b| !NAME_BYTES[usize::from(b)])?;
        if end + 1 == bytes.len() && bytes[end] == b':' {
            return None;
        }
        // A name in parentheses may follow (Ray's `RayTaskError(Inner): `):
        // such lines are classified one by one.
        if bytes[end] == b'(' {
            return None;
        }
    }
    Some(match exception_name(opening, Place::Outside) {
        Some(_) => LineKind::Exception,
        None => LineKind::Other,
    })
}

/// A numbered frame of a native backtrace as TensorRT(-LLM) and glibc's
/// `backtrace_symbols` users print it: `1       0x7fac7ac778fd
/// tensorrt_llm::common::throwRuntimeError(…) + 97` (a number, spaces, an
/// address of at least eight hex digits, a space).
pub fn is_numbered_native_frame(message: &str) -> bool {
    let bytes = message.as_bytes();
    let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
    let spaces = bytes[digits..].iter().take_while(|&&b| b == b' ').count();
    let address = &bytes[digits + spaces..];
    let hex = address.get(2..).map_or(0, |rest| rest.iter().take_while(|b| b.is_ascii_hexdigit()).count());
    (1..=3).contains(&digits)
        && spaces > 0
        && address.starts_with(b"0x")
        && hex >= 8
        && address.get(2 + hex).is_some_and(|&b| b == b' ')
}

fn is_caret_line(trimmed: &str) -> bool {
    trimmed.bytes().all(|b| matches!(b, b'^' | b'~' | b' '))
}

/// A parsed frame line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame<'a> {
    /// The file path as printed.
    pub file: &'a str,
    /// Line number in that file.
    pub line: u32,
    /// Function name.
    pub function: &'a str,
}

/// Parses `File "p", line N, in f` and faulthandler's `File "p", line N in f`.
pub fn parse_frame(trimmed: &str) -> Option<Frame<'_>> {
    let rest = trimmed.strip_prefix("File \"")?;
    let (file, rest) = rest.split_once("\", line ")?;
    let digits_end = rest.bytes().position(|b| !b.is_ascii_digit()).unwrap_or(rest.len());
    let line = rest[..digits_end].parse().ok()?;
    let rest = &rest[digits_end..];
    let function = rest.strip_prefix(", in ").or_else(|| rest.strip_prefix(" in "))?;
    Some(Frame { file, line, function: function.trim_end() })
}

/// The exception type at the start of an exception line, if it is one:
/// `torch.OutOfMemoryError: CUDA out of memory…` → `torch.OutOfMemoryError`.
/// Outside a traceback the name must read as an exception (`…Error`,
/// `…Exception`, `…Interrupt`, `…Exit`); inside one any dotted name
/// followed by `:` counts.
pub fn exception_name(message: &str, place: Place) -> Option<&str> {
    // A name starts with a letter or `_` (most lines that start otherwise
    // are not scanned).
    let first = *message.as_bytes().first()?;
    if !(first.is_ascii_alphabetic() || first == b'_') {
        return None;
    }
    let end = message.bytes().position(|b| !NAME_BYTES[usize::from(b)]).unwrap_or(message.len());
    let outer = &message[..end];
    if outer.ends_with('.') {
        return None;
    }
    // Ray's wrapped exceptions name the cause's type in parentheses:
    // `ray.exceptions.RayTaskError(OutOfMemoryError): ray::Actor.f() …`.
    let end = match message[end..].strip_prefix('(') {
        Some(inner) => {
            let inner_end = inner.bytes().position(|b| !NAME_BYTES[usize::from(b)]).unwrap_or(inner.len());
            match inner[inner_end..].starts_with(')') && inner_end > 0 {
                true => end + 1 + inner_end + 1,
                false => end,
            }
        }
        None => end,
    };
    let name = &message[..end];
    let after = &message[end..];
    let followed_by_colon = after.starts_with(": ") || after == ":";
    if !(followed_by_colon || after.is_empty()) {
        return None;
    }
    let last = outer.rsplit('.').next().unwrap_or(outer);
    let looks_like_exception = ["Error", "Exception", "Interrupt", "Exit", "Iteration", "Warning", "Failure"]
        .iter()
        .any(|suffix| last.ends_with(suffix))
        && last.as_bytes()[0].is_ascii_uppercase();
    if looks_like_exception || (place == Place::InTraceback && followed_by_colon && !name.contains(' ')) {
        Some(name)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_of_both_shapes() {
        let f = parse_frame("File \"/x/flashinfer/jit/core.py\", line 96, in check_cuda_arch").unwrap();
        assert_eq!((f.file, f.line, f.function), ("/x/flashinfer/jit/core.py", 96, "check_cuda_arch"));
        let fault = parse_frame("File \"/usr/lib/python3.12/threading.py\", line 359 in wait").unwrap();
        assert_eq!(fault.function, "wait");
    }

    #[test]
    fn an_opening_decides_the_class_of_the_lines_that_share_it() {
        let messages = [
            "Decode batch. #running-req: 12, #token: 3456",
            "RuntimeError: FlashInfer requires sm75+",
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
            "ValueError: x",
            "KeyboardInterrupt",
            "Error1: not an exception name",
            "File \"/a.py\", line 3, in f",
            "The above exception was the direct cause of the following exception: x",
            "During handling of the above exception, another exception occurred: x",
            "frame #3: 0x7f (libc10.so)",
            "127.0.0.1:5000 - \"POST /generate HTTP/1.1\" 200 OK",
            "TP0 ready: 8 GPUs",
            "a_b.c_d: e",
            "SomeName:x and more",
            "Exception in callback Loop.run()",
            "ray.exceptions.RayTaskError(OutOfMemoryError): ray::MegatronTrainRayActor.train() (pid=2025282)",
            "café: 3",
        ];
        let mut decided = 0;
        for message in messages {
            for len in (1..=16).filter(|&len| len < message.len() && message.is_char_boundary(len)) {
                let Some(class) = class_of_opening(&message[..len]) else { continue };
                decided += 1;
                // Lines that share the opening but for its digits, and go on
                // in any way that ends plainly, are all of its class.
                for digit in ['0', '7'] {
                    let opening: String =
                        message[..len].chars().map(|c| if c.is_ascii_digit() { digit } else { c }).collect();
                    for rest in [&message[len..], ": x", " x", ":", "x.", ": 3"] {
                        let line = format!("{opening}{rest}");
                        if ends_plainly(&line) {
                            assert_eq!(
                                classify(&line, Place::Outside),
                                class,
                                "{line:?}, opening of {len} bytes"
                            );
                        }
                    }
                }
            }
        }
        assert!(decided > 60, "only {decided} openings decided");
        assert_eq!(class_of_opening("The above except"), None, "the chain separator is longer");
        assert_eq!(class_of_opening("ValueError:"), None, "`: ` or `:` and more");
        assert_eq!(class_of_opening("torch.cuda.OutOf"), None, "the name goes on");
        assert_eq!(class_of_opening("ValueError: x"), Some(LineKind::Exception));
        assert_eq!(class_of_opening("Decode batch. #r"), Some(LineKind::Other));
    }

    #[test]
    fn line_kinds() {
        assert_eq!(
            classify("Scheduler hit an exception: Traceback (most recent call last):", Place::Outside),
            LineKind::Header
        );
        assert_eq!(classify("  File \"/a.py\", line 3, in <module>", Place::Outside), LineKind::Frame);
        assert_eq!(classify("File \"/a.py\", line 3, in load_cuda_ops", Place::Outside), LineKind::Frame);
        assert_eq!(classify("    check_cuda_arch()", Place::InTraceback), LineKind::Source);
        assert_eq!(classify("           ^^^^^^^^^^^^^", Place::InTraceback), LineKind::Source);
        assert_eq!(classify("RuntimeError: FlashInfer requires sm75+", Place::Outside), LineKind::Exception);
        assert_eq!(classify("KeyError: 'lm_head.weight'", Place::Outside), LineKind::Exception);
        assert_eq!(classify("KeyboardInterrupt", Place::Outside), LineKind::Exception);
        assert_eq!(classify("tvm.error.InternalError: Check failed", Place::Outside), LineKind::Exception);
        assert_eq!(classify("Killed", Place::InTraceback), LineKind::Other);
        assert_eq!(
            classify("CUDA kernel errors might be asynchronously reported", Place::InTraceback),
            LineKind::Other
        );
        assert_eq!(
            classify("frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96", Place::Outside),
            LineKind::NativeFrame
        );
        assert_eq!(
            classify("Thread 0x00007fbc4bfff640 (most recent call first):", Place::Outside),
            LineKind::DumpHeader
        );
        assert_eq!(
            classify("The above exception was the direct cause of the following exception:", Place::Outside),
            LineKind::Chain
        );
        assert_eq!(classify("    | ValueError: bad 0", Place::InTraceback), LineKind::Exception);
        assert_eq!(
            classify("Decode batch. #running-req: 413, #queue-req: 0, ", Place::Outside),
            LineKind::Other
        );
        assert_eq!(classify("File \"/a.py\", line 3, in f", Place::Outside), LineKind::Frame);
        assert_eq!(
            classify("During handling of the above exception, another exception occurred", Place::Outside),
            LineKind::Chain
        );
        assert_eq!(
            classify("frame #3: c10::Error::Error() + 0x96 (0x7f in libc10.so)", Place::Outside),
            LineKind::NativeFrame
        );
        assert_eq!(classify("ValueError: bad value \t ", Place::Outside), LineKind::Exception);
        // NVIDIA/TensorRT-LLM#5389: the C++ backtrace under an executor's error.
        assert_eq!(
            classify("1       0x7fac7ac778fd tensorrt_llm::common::throwRuntimeError(char const*, int, char const*) + 97", Place::Outside),
            LineKind::NativeFrame
        );
        assert_eq!(classify("12 0x7fac7ac778fd x", Place::Outside), LineKind::NativeFrame);
        assert_eq!(classify("1 0x7f is the address", Place::Outside), LineKind::Other);
        assert_eq!(classify("2 files changed", Place::Outside), LineKind::Other);
        assert_eq!(classify("Traceback (most recent call last):  ", Place::Outside), LineKind::Header);
        assert_eq!(classify("Stack (most recent call first): ", Place::Outside), LineKind::DumpHeader);
    }

    #[test]
    fn exception_names_outside_a_traceback_must_look_like_exceptions() {
        assert_eq!(exception_name("INFO: started", Place::Outside), None);
        assert_eq!(exception_name("Note: something", Place::Outside), None);
        assert_eq!(exception_name("Note: something", Place::InTraceback), Some("Note"));
        assert_eq!(
            exception_name("subprocess.CalledProcessError: Command", Place::Outside),
            Some("subprocess.CalledProcessError")
        );
    }
}

/// How a Rust panic's first line carries its message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PanicHeader {
    /// `thread 'main' panicked at src/main.rs:2:5:` (Rust 1.73 and later):
    /// the message is on the next lines.
    MessageFollows,
    /// `thread 'main' panicked at 'boom', src/main.rs:2:5` (older).
    MessageOnLine,
}

/// Reads the first line of a Rust panic: `thread '<name>' panicked at …`,
/// also with the thread id newer releases print (`thread 'main' (12)
/// panicked at …`).
pub fn panic_header(message: &str) -> Option<PanicHeader> {
    let rest = message.strip_prefix("thread '")?;
    let (_, after) = rest.split_once("panicked at ")?;
    if after.is_empty() {
        return None;
    }
    Some(if after.trim_end().ends_with(':') {
        PanicHeader::MessageFollows
    } else {
        PanicHeader::MessageOnLine
    })
}

/// Whether a record opens the report of asyncio's exception handler, whose
/// context lines and traceback follow as one record (`Task exception was
/// never retrieved`, `Future exception was never retrieved`, `Exception in
/// callback …`).
pub fn announces_asyncio_traceback(message: &str) -> bool {
    // Asked of most lines: the first byte rules out nearly all of them
    // before the end is trimmed.
    if !matches!(message.as_bytes().first(), Some(b'T' | b'F' | b'E')) {
        return false;
    }
    let message = message.trim_end();
    message == "Task exception was never retrieved"
        || message == "Future exception was never retrieved"
        || message.starts_with("Exception in callback ")
}

/// A context line of asyncio's exception handler report (`future: <Task
/// finished …>`, `handle: <Handle …>`).
pub fn is_asyncio_context(message: &str) -> bool {
    ["future: <", "task: <", "handle: <", "transport: <", "protocol: <"]
        .iter()
        .any(|field| message.starts_with(field))
}
