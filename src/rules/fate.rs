//! Fate: what a line says about how a process ended.
//!
//! Supervisors, launchers and shells tell that something ended in a few
//! common ways: a subject (a process, worker, job, container, unit, rank),
//! a verb (exited, terminated, died, failed, was killed) and how (an exit
//! status, a signal, "not expected"). Rules of role `fate` (`rules/fate/`)
//! find such statements and capture how; this module reads the captures:
//! the [`Ending`], and what it means for the run ([`Fate`]). A clean end
//! (status 0, a stop signal) is no death. A signal or an exit status names
//! a category by itself: SIGSEGV, -11 or 139 a segfault, SIGABRT, -6 or
//! 134 an abort, SIGILL an illegal instruction, SIGKILL, -9 or 137 a kill
//! whose sender the log must show elsewhere. Anything else is a death whose
//! cause the writer's own last lines must tell.
//!
//! Capture names a fate rule may use (a name may end in digits, so that
//! alternatives of one regex can each have their own): `signal…` (a name,
//! number or the shell's words: `SIGILL`, `11`, `aborted`, `Segmentation
//! fault`), `status…` (an exit status or code, negative for a signal,
//! `0xC0000005` on Windows), `unexpected…` (present when the line says the
//! end was not expected: then even status 0 is a death) and `subject…`
//! (what ended, for the title).

use super::{Category, Role};

/// How a process ended, as a fate line tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// Exit status 0.
    Clean,
    /// Killed by this signal (a number, 1–64).
    Signal(u8),
    /// Exited with this status, not 0 and not a signal's code.
    Status(i64),
    /// It ended, and the line does not say how (died, crashed, failed).
    Unspecified,
}

/// What a fate line means for its run: a finding of this role and
/// category, its title's ending and a hint for the category.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fate {
    /// `Cause` when the ending names a cause by itself (a segfault, a
    /// memory kill), else `Symptom`: a death whose cause is elsewhere.
    pub role: Role,
    /// The category the ending names (or the rule's own, when it has one).
    pub category: Category,
    /// How it ended.
    pub ending: Ending,
}

/// Reads a fate match: `None` when the line tells of a clean end (status 0
/// or a stop signal, and not "not expected"), which is no death.
/// `rule_category` is the fate rule's category: one other than `unknown`
/// says what the statement means whatever the status (a kill for memory, a
/// failed liveness probe).
pub fn read(captures: &[(String, String)], rule_category: Option<Category>) -> Option<Fate> {
    let value = |prefix: &str| {
        captures.iter().find(|(name, value)| name.starts_with(prefix) && !value.is_empty()).map(|(_, v)| v)
    };
    let unexpected = value("unexpected").is_some();
    // "by signal 0" says that no signal ended the process.
    let no_signal = value("signal").is_some_and(|s| s.trim() == "0");
    let ending = match (value("signal").and_then(|s| signal_of(s)), value("status")) {
        (Some(signal), _) => Ending::Signal(signal),
        (None, Some(status)) => ending_of_status(status),
        (None, None) if no_signal => Ending::Clean,
        (None, None) => Ending::Unspecified,
    };
    let stopped = match ending {
        Ending::Clean => true,
        Ending::Signal(signal) => STOP_SIGNALS.contains(&signal),
        _ => false,
    };
    if stopped && !unexpected {
        return None;
    }
    // A signal that does not end a process (SIGUSR1, SIGCHLD, SIGWINCH…)
    // is no death however it is reported.
    if matches!(ending, Ending::Signal(signal) if !STOP_SIGNALS.contains(&signal) && !DEADLY_SIGNALS.contains(&signal))
    {
        return None;
    }
    let category = match (rule_category.filter(|&c| c != Category::Unknown), ending) {
        (Some(category), _) => category,
        (None, Ending::Signal(signal)) => category_of_signal(signal),
        (None, Ending::Status(status)) if is_windows_loader_failure(status) => Category::ImportError,
        (None, _) => Category::Unknown,
    };
    let stands_in =
        matches!(category, Category::Unknown | Category::SigkillUnattributed | Category::PeerFailure);
    let role = if stands_in { Role::Symptom } else { Role::Cause };
    Some(Fate { role, category, ending })
}

impl Ending {
    /// The ending in words, for a title: `SIGSEGV (segmentation fault)`,
    /// `exit status 1`.
    pub fn describe(self) -> String {
        match self {
            Ending::Clean => "exit status 0, not expected".to_string(),
            Ending::Signal(signal) => match signal_name(signal) {
                Some((name, words)) => format!("{name} ({words})"),
                None => format!("signal {signal}"),
            },
            Ending::Status(status) if status > 0xffff => format!("exit status {status:#X}"),
            Ending::Status(status) => format!("exit status {status}"),
            Ending::Unspecified => "no exit status given".to_string(),
        }
    }
}

/// The captures a fate rule's title may use besides its own: `{ending}`,
/// and `{subject}` when the rule captured none (`The process`).
pub fn title_captures(captures: &mut super::Captures, ending: Ending) {
    captures.push("ending".to_string(), ending.describe());
    let subject = captures
        .iter()
        .find(|(name, value)| name.starts_with("subject") && !value.trim().is_empty())
        .map(|(_, value)| capitalized(value.trim()));
    captures.set("subject", subject.unwrap_or_else(|| "The process".to_string()));
}

/// The subject as a title's first word: a common noun (`executor`, `model
/// runner`) gets its capital; a name (`comfyui-1`, `sglang.service`) is
/// kept as written.
fn capitalized(subject: &str) -> String {
    if !subject.bytes().all(|b| b.is_ascii_lowercase() || b == b' ') {
        return subject.to_string();
    }
    let mut chars = subject.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// What to do about a death a fate line names, by its category, for a
/// fate rule that gives no hint of its own.
pub fn hint(category: Category) -> &'static str {
    match category {
        Category::Segfault => {
            "The process died of a segmentation fault (SIGSEGV) in native code. The lines its writer printed just \
before name the last thing it did; a faulthandler dump (PYTHONFAULTHANDLER=1) or the core dump (`coredumpctl info`) \
shows the call. Mismatched native builds (a CUDA, PyTorch, driver or extension built for another version) are the usual \
cause: check that the versions fit together."
        }
        Category::Abort => {
            "The process aborted (SIGABRT): a C++ exception nobody caught, a failed assertion, or a runtime that \
gave up. The lines just before the end name what aborted (`terminate called after throwing …`, `Assertion … failed`, \
a CUDA or NCCL error); fix that error."
        }
        Category::IllegalInstruction => {
            "The process died of an illegal instruction (SIGILL): a binary or wheel built for CPU or GPU \
instructions this machine lacks (AVX-512 or AVX2 builds on an older or emulated CPU, a kernel built for another GPU \
arch). Install a build for this machine (check `grep -o 'avx[^ ]*' /proc/cpuinfo | sort -u`), or run on a host with \
those instructions."
        }
        Category::SigkillUnattributed => {
            "The process was killed with SIGKILL, and the log does not show who sent it. Look for the sender: the \
kernel OOM killer (`journalctl -k | grep -iE 'out of memory|killed process'`, `dmesg -T`), systemd-oomd, a container \
memory limit (`OOMKilled` in `kubectl describe pod` or `docker inspect`), a supervisor's timeout, or a parent that \
killed its children after one of them failed (then that child's error is the cause)."
        }
        Category::HostOomKill => {
            "The process was killed for host memory. Give it more memory (a larger memory limit or node), or make \
it use less: fewer workers or processes per node, smaller batches or CPU-side buffers, no CPU offload or swap space \
it cannot afford."
        }
        _ => {
            "The log says the process ended, not why. Its own last lines before this one (a traceback, an error \
it logged) hold the cause; if there are none, fetch its full output (`journalctl _PID=…`, `kubectl logs \
--previous`, `docker logs`, the worker's own log file)."
        }
    }
}

/// Signals that stop a process on request: their end is no crash unless
/// the line says it was not expected.
const STOP_SIGNALS: [u8; 4] = [1, 2, 3, 15];

/// Signals whose default action ends the process with a crash (SIGILL,
/// SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGKILL, SIGSEGV, SIGPIPE, SIGXCPU,
/// SIGXFSZ, SIGSYS).
const DEADLY_SIGNALS: [u8; 11] = [4, 5, 6, 7, 8, 9, 11, 13, 24, 25, 31];

/// Signals, by number: the name and the words shells print.
const SIGNALS: [(u8, &str, &str); 15] = [
    (1, "SIGHUP", "hangup"),
    (2, "SIGINT", "interrupt"),
    (3, "SIGQUIT", "quit"),
    (4, "SIGILL", "illegal instruction"),
    (5, "SIGTRAP", "trace/breakpoint trap"),
    (6, "SIGABRT", "aborted"),
    (7, "SIGBUS", "bus error"),
    (8, "SIGFPE", "floating point exception"),
    (9, "SIGKILL", "killed"),
    (10, "SIGUSR1", "user signal 1"),
    (11, "SIGSEGV", "segmentation fault"),
    (12, "SIGUSR2", "user signal 2"),
    (13, "SIGPIPE", "broken pipe"),
    (14, "SIGALRM", "alarm clock"),
    (15, "SIGTERM", "terminated"),
];

/// Other words for signals: short names, other spellings, and the shells'
/// words in the locales seen in real logs.
const SIGNAL_WORDS: [(&str, u8); 20] = [
    ("iot", 6),
    ("abort", 6),
    ("abortado", 6),
    ("abgebrochen", 6),
    ("abandon", 6),
    ("segfault", 11),
    ("segmentation violation", 11),
    ("violación de segmento", 11),
    ("speicherzugriffsfehler", 11),
    ("erreur de segmentation", 11),
    ("errore di segmentazione", 11),
    ("instrucción ilegal", 4),
    ("ungültiger maschinenbefehl", 4),
    ("instruction illégale", 4),
    ("istruzione non consentita", 4),
    ("getötet", 9),
    ("matado", 9),
    ("processus arrêté", 9),
    ("access violation", 11),
    ("illegal", 4),
];

fn signal_name(signal: u8) -> Option<(&'static str, &'static str)> {
    SIGNALS.iter().find(|(n, _, _)| *n == signal).map(|&(_, name, words)| (name, words))
}

/// A signal from how a line names it: `SIGSEGV`, `SEGV`, `11`, `11/SEGV`,
/// `Segmentation fault`, `aborted (core dumped)`.
fn signal_of(text: &str) -> Option<u8> {
    let text = text.trim().trim_matches(|c: char| matches!(c, '[' | ']' | '(' | ')' | ':' | '.' | ','));
    // A Windows exception code where a signal would be (Go's runtime).
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        return i64::from_str_radix(hex, 16).ok().and_then(windows_exception);
    }
    let number: String = text.chars().take_while(char::is_ascii_digit).collect();
    if !number.is_empty() {
        return number.parse().ok().filter(|n| (1..=64).contains(n));
    }
    let upper = text.to_ascii_uppercase();
    let name = upper.strip_prefix("SIG").unwrap_or(&upper);
    let word: String = name.chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
    if let Some(&(n, _, _)) = SIGNALS.iter().find(|(_, sig, _)| sig[3..] == word) {
        return Some(n);
    }
    let lower = text.to_lowercase();
    let starts = |words: &str| lower.starts_with(words);
    if let Some(&(n, _, _)) = SIGNALS.iter().find(|(_, _, words)| starts(words)) {
        return Some(n);
    }
    let word = word.to_lowercase();
    SIGNAL_WORDS
        .iter()
        .find(|(words, _)| starts(words) || *words == word)
        .map(|&(_, n)| n)
        .or_else(|| starts("kill").then_some(9))
}

/// An exit status as printed: `1`, `-9` (a signal, as Python's Popen and
/// torchrun give it), `137` (128 + a signal, as shells and container
/// runtimes give it), `0xC0000005` or `3221225477` (a Windows exception).
fn ending_of_status(text: &str) -> Ending {
    let text = text.trim();
    let parsed = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => i64::from_str_radix(hex, 16).ok(),
        None => text.parse::<i64>().ok(),
    };
    let Some(status) = parsed else {
        return Ending::Unspecified;
    };
    match status {
        0 => Ending::Clean,
        -64..=-1 => Ending::Signal((-status) as u8),
        129..=192 if is_shell_signal_code((status - 128) as u8) => Ending::Signal((status - 128) as u8),
        _ => match windows_exception(status) {
            Some(signal) => Ending::Signal(signal),
            None => Ending::Status(status),
        },
    }
}

/// Shells and container runtimes report a death by signal N as status
/// 128 + N; only the signals that end a process are read so (a program
/// may well exit with 200 of its own accord).
fn is_shell_signal_code(signal: u8) -> bool {
    matches!(signal, 1..=4 | 6..=9 | 11 | 15)
}

/// The signal a Windows exception code stands for (its process ends with
/// the code as its status): an access violation is a segfault, a fast-fail
/// or heap corruption an abort, an illegal instruction the same.
fn windows_exception(status: i64) -> Option<u8> {
    match as_ntstatus(status) {
        0xC000_0005 => Some(11),
        0xC000_0409 | 0xC000_0374 => Some(6),
        0xC000_001D => Some(4),
        _ => None,
    }
}

/// Windows's loader could not start the program: a DLL it needs is
/// missing (STATUS_DLL_NOT_FOUND) or lacks an entry point it imports
/// (STATUS_ENTRYPOINT_NOT_FOUND, a DLL of another version).
fn is_windows_loader_failure(status: i64) -> bool {
    matches!(as_ntstatus(status), 0xC000_0135 | 0xC000_0139)
}

/// A status as Windows's 32-bit code: printed signed (`-1073741819`), it
/// is the same code as `0xC0000005`.
fn as_ntstatus(status: i64) -> i64 {
    match i32::try_from(status) {
        Ok(negative) if negative < 0 => i64::from(negative as u32),
        _ => status,
    }
}

fn category_of_signal(signal: u8) -> Category {
    match signal {
        4 => Category::IllegalInstruction,
        6 => Category::Abort,
        7 | 11 => Category::Segfault,
        9 => Category::SigkillUnattributed,
        _ => Category::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn captures(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect()
    }

    fn category(pairs: &[(&str, &str)]) -> Option<Category> {
        read(&captures(pairs), None).map(|f| f.category)
    }

    #[test]
    fn a_signal_names_its_category_however_it_is_written() {
        for (how, want) in [
            (&[("signal", "SIGSEGV")][..], Category::Segfault),
            (&[("status", "-11")], Category::Segfault),
            (&[("status", "139")], Category::Segfault),
            (&[("signal", "11/SEGV")], Category::Segfault),
            (&[("signal", "Segmentation fault")], Category::Segfault),
            (&[("signal", "Speicherzugriffsfehler")], Category::Segfault),
            (&[("status", "0xc0000005")], Category::Segfault),
            (&[("signal", "0xc0000005")], Category::Segfault),
            (&[("signal", "aborted")], Category::Abort),
            (&[("status", "-6")], Category::Abort),
            (&[("status", "134")], Category::Abort),
            (&[("signal", "Abortado")], Category::Abort),
            (&[("status", "0xc0000409")], Category::Abort),
            (&[("status", "3221226505")], Category::Abort),
            (&[("signal", "SIGILL")], Category::IllegalInstruction),
            (&[("signal", "4")], Category::IllegalInstruction),
            (&[("signal", "killed")], Category::SigkillUnattributed),
            (&[("status", "-9")], Category::SigkillUnattributed),
            (&[("status", "137")], Category::SigkillUnattributed),
            (&[("signal", "SIGKILL"), ("status", "1")], Category::SigkillUnattributed),
            (&[("status", "1")], Category::Unknown),
            (&[("status", "255")], Category::Unknown),
            (&[], Category::Unknown),
        ] {
            assert_eq!(category(how), Some(want), "{how:?}");
        }
    }

    #[test]
    fn windows_codes_name_their_category_in_every_spelling() {
        for status in ["0xC0000005", "3221225477", "-1073741819"] {
            assert_eq!(category(&[("status", status)]), Some(Category::Segfault), "{status}");
        }
        assert_eq!(category(&[("status", "-1073741795")]), Some(Category::IllegalInstruction));
        assert_eq!(category(&[("status", "-1073740791")]), Some(Category::Abort));
        // The loader could not start it: a DLL or its entry point is missing.
        assert_eq!(category(&[("status", "-1073741511")]), Some(Category::ImportError));
        assert_eq!(category(&[("status", "0xC0000135")]), Some(Category::ImportError));
    }

    #[test]
    fn a_clean_end_or_a_stop_is_no_death_unless_it_was_not_expected() {
        for how in [
            &[("status", "0")][..],
            &[("signal", "SIGTERM")],
            &[("status", "143")],
            &[("signal", "2")],
            &[("signal", "0")],
        ] {
            assert_eq!(category(how), None, "{how:?}");
        }
        assert_eq!(category(&[("status", "0"), ("unexpected", "not expected")]), Some(Category::Unknown));
    }

    #[test]
    fn a_rule_that_names_its_category_keeps_it_and_causes_stand_apart_from_stand_ins() {
        let memory = read(&captures(&[("status", "137")]), Some(Category::HostOomKill)).unwrap();
        assert_eq!((memory.role, memory.category), (Role::Cause, Category::HostOomKill));
        let killed = read(&captures(&[("status", "-9")]), Some(Category::Unknown)).unwrap();
        assert_eq!(killed.role, Role::Symptom);
        assert_eq!(read(&captures(&[("status", "-11")]), None).unwrap().role, Role::Cause);
    }

    #[test]
    fn an_ending_reads_as_a_title_says_it() {
        assert_eq!(Ending::Signal(4).describe(), "SIGILL (illegal instruction)");
        assert_eq!(Ending::Status(2).describe(), "exit status 2");
        let mut caps = super::super::Captures::default();
        caps.push("status".to_string(), "2".to_string());
        title_captures(&mut caps, Ending::Status(2));
        assert!(caps.contains(&("subject".to_string(), "The process".to_string())));
    }
}
