//! Framing: peeling the stacked prefixes off a line to find its message.
//!
//! A line carries prefixes, outermost first:
//!
//! 1. **transport**: a journalctl short-family stamp with host and
//!    identifier, a syslog stamp, a dmesg stamp (`transport`);
//! 2. **wrappers**: container and collector stamps, docker compose's
//!    `service  | ` (`wrapper`);
//! 3. **process tags**: vLLM/Ray `(Name pid=N)`, torch's `[rankN]:`, NCCL's
//!    `host:pid:tid [dev]` (`wrapper`);
//! 4. **application header**: sglang `[ts TP0]`, vLLM `LEVEL MM-DD hh:mm:ss
//!    [file:line]`, torch c10 `[E… file:line]`, uvicorn `INFO:` (`app`).
//!
//! Each layer fills fields of a [`Record`]; detection is per line because
//! inputs mix formats. A record can also start in the middle of a line, after
//! a progress bar that did not end with a newline: [`frame_line`] splits the
//! line there and returns both records.

mod app;
mod go_log;
pub mod journal;
pub mod printed_time;
mod scan;
pub mod spans;
mod status;
mod template;
mod transport;
mod wrapper;
mod writer;

pub use journal::{json_line, JournalFields};
pub(crate) use scan::digit_bytes;
pub use template::{Layout, Templates};
pub(crate) use writer::{writer_field, writer_fields};

use std::fmt;

/// Severity as printed by the application, when it prints one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// DEBUG, TRACE.
    Debug,
    /// INFO.
    Info,
    /// NOTICE.
    Notice,
    /// WARNING, WARN, `[W…]`.
    Warning,
    /// ERROR, `[E…]`.
    Error,
    /// CRITICAL, CRIT.
    Critical,
    /// FATAL, `[F…]`, zerolog's `FTL`: by the logging convention, the
    /// program gives up after it (Go's `log.Fatal`, glog's `LOG(FATAL)`).
    Fatal,
}

impl Level {
    /// Reads a level word as loggers print it (`INFO`, `WARN`, `E`…).
    pub fn parse(word: &str) -> Option<Level> {
        const WORDS: [(&str, Level); 16] = [
            ("INFO", Level::Info),
            ("I", Level::Info),
            ("WARNING", Level::Warning),
            ("WARN", Level::Warning),
            ("W", Level::Warning),
            ("ERROR", Level::Error),
            ("ERR", Level::Error),
            ("E", Level::Error),
            ("DEBUG", Level::Debug),
            ("TRACE", Level::Debug),
            ("D", Level::Debug),
            ("NOTICE", Level::Notice),
            ("CRITICAL", Level::Critical),
            ("FATAL", Level::Fatal),
            ("F", Level::Fatal),
            ("CRIT", Level::Critical),
        ];
        WORDS.iter().find(|(name, _)| name.eq_ignore_ascii_case(word)).map(|&(_, level)| level)
    }

    /// A warning or worse: what a logger prints of something going wrong.
    pub fn is_trouble(self) -> bool {
        self >= Level::Warning
    }

    /// Lowercase name used in JSON and rule files.
    pub fn name(self) -> &'static str {
        match self {
            Level::Debug => "debug",
            Level::Info => "info",
            Level::Notice => "notice",
            Level::Warning => "warning",
            Level::Error => "error",
            Level::Critical => "critical",
            Level::Fatal => "fatal",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

crate::named_enum! {
    /// A recognised prefix format; sources report which ones they contained.
    #[derive(PartialOrd, Ord)]
    #[repr(u8)]
    // Each format is known by its name, which the README's table of
    // formats describes.
    #[allow(missing_docs)]
    pub enum Format {
        JournalShort = "journal-short",
        JournalShortPrecise = "journal-short-precise",
        JournalShortIso = "journal-short-iso",
        JournalShortIsoPrecise = "journal-short-iso-precise",
        JournalShortFull = "journal-short-full",
        JournalShortMonotonic = "journal-short-monotonic",
        JournalShortUnix = "journal-short-unix",
        JournalSeparator = "journal-separator",
        Syslog = "syslog",
        Dmesg = "dmesg",
        DmesgCtime = "dmesg-ctime",
        JournalExportTsv = "journal-viewer-tsv",
        ContainerTimestamp = "container-timestamp",
        CollectorTimestamp = "collector-timestamp",
        WriteStamp = "write-stamp",
        Compose = "compose",
        ProcessTag = "process-tag",
        RankTag = "rank-tag",
        Nccl = "nccl",
        Sglang = "sglang",
        Vllm = "vllm",
        Uvicorn = "uvicorn",
        PythonLogging = "python-logging",
        Loguru = "loguru",
        TensorrtLlm = "tensorrt-llm",
        TorchC10 = "torch-c10",
        Glog = "glog",
        Deepspeed = "deepspeed",
        RayCore = "ray-core",
        RustTracing = "rust-tracing",
        Logfmt = "logfmt",
        Logrus = "logrus",
        JournalJson = "journal-json",
        JournalExport = "journal-export",
        JournalVerbose = "journal-verbose",
        JournalCatalog = "journal-catalog",
        DockerJson = "docker-json",
        SystemctlStatus = "systemctl-status",
        SystemdMessage = "systemd-message",
        KubectlPrefix = "kubectl-prefix",
        LokiJson = "loki-jsonl",
        /// A terminal's echo of Ctrl-C (`^C`) before the line: the
        /// operator interrupted the program.
        TerminalInterrupt = "terminal-interrupt",
    }
}

/// Carriers that name the writing process by its pid: the journal, in
/// every mode, and syslog.
pub const PID_CARRIERS: FormatSet = FormatSet::of_all(&[
    Format::JournalShort,
    Format::JournalShortPrecise,
    Format::JournalShortIso,
    Format::JournalShortIsoPrecise,
    Format::JournalShortFull,
    Format::JournalShortMonotonic,
    Format::JournalShortUnix,
    Format::Syslog,
    Format::JournalJson,
    Format::JournalExport,
    Format::JournalVerbose,
]);

/// What carries a program's lines without being the program's own (see
/// [`Record::is_carried_text`]): the carriers that name a pid, and those
/// of containers, pods and log stores.
const CARRIERS: FormatSet = PID_CARRIERS.with(FormatSet::of_all(&[
    Format::ContainerTimestamp,
    Format::CollectorTimestamp,
    Format::Compose,
    Format::KubectlPrefix,
    Format::DockerJson,
    Format::LokiJson,
]));

/// A set of [`Format`]s, as a bit set.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FormatSet(u64);

impl FormatSet {
    /// The set of one format.
    pub fn of(format: Format) -> Self {
        let mut set = FormatSet::default();
        set.insert(format);
        set
    }

    /// The set of `formats`.
    pub const fn of_all(formats: &[Format]) -> Self {
        let (mut bits, mut i) = (0u64, 0);
        while i < formats.len() {
            bits |= 1u64 << formats[i] as u8;
            i += 1;
        }
        FormatSet(bits)
    }

    /// This set and every format of `other`.
    pub const fn with(self, other: FormatSet) -> Self {
        FormatSet(self.0 | other.0)
    }

    /// Adds one format.
    pub fn insert(&mut self, format: Format) {
        self.0 |= 1u64 << format as u8;
    }

    /// Adds every format of `other`.
    pub fn extend(&mut self, other: FormatSet) {
        self.0 |= other.0;
    }

    /// True if `format` is in the set.
    pub fn contains(self, format: Format) -> bool {
        self.0 & (1u64 << format as u8) != 0
    }

    /// True if the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// True if this set and `other` share a format.
    pub fn intersects(self, other: FormatSet) -> bool {
        self.0 & other.0 != 0
    }

    /// True if every format of this set is in `other`.
    pub fn is_within(self, other: FormatSet) -> bool {
        self.0 & !other.0 == 0
    }

    /// The formats in the set, in declaration order.
    pub fn iter(self) -> impl Iterator<Item = Format> {
        Format::ALL.iter().copied().filter(move |f| self.contains(*f))
    }
}

/// A journal separator line (`-- Boot … --`, `-- Logs begin at … --`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Separator {
    /// `-- Reboot --` or `-- Boot <id> --`: a new boot starts.
    Boot,
    /// Any other `-- … --` header or `-- No entries --`.
    Other,
    /// A `journalctl -x` catalog line (`░░ Subject: …`, old `-- Subject: …`):
    /// explanation text written by journalctl, not by the program.
    Catalog,
}

crate::framing::writer_fields! {
    /// One line's prefix fields and message. Borrowed from the line's text.
    #[derive(Debug, Clone, Default, PartialEq, Eq)]
    pub struct Record<'a> {
        /// Where the record starts in the line (0 unless split mid-line).
        pub start: usize,
        /// Byte offset of the message in the line.
        pub message_at: usize,
        /// The message: what is left after every recognised prefix.
        pub message: &'a str,
        /// Level from an application header.
        pub level: Option<Level>,
        /// For headers that repeat on every line of a multi-line message (vLLM's
        /// `[file:line]`, a c10 `file:line`): that origin, to join lines.
        pub origin: Option<&'a str>,
        /// The prefix layers recognised on this line.
        pub formats: FormatSet,
        /// True when an application header was found (a new log record begins).
        pub app_header: bool,
        /// A journal separator line.
        pub separator: Option<Separator>,
    }
    writer fields [all]:
        text as pub Option<&'a str>, pid as pub Option<u32>
}

impl<'a> Record<'a> {
    /// True when no prefix at all was recognised: the line is bare text and
    /// belongs to whatever stream wrote the line before it.
    pub fn is_bare(&self) -> bool {
        self.formats.is_empty() && self.separator.is_none()
    }

    /// True when only what carried the line was recognised on it (a
    /// journal's prefix or fields, syslog's, a container's or collector's
    /// stamp, Docker's json-file, compose's or kubectl's tag, Loki's
    /// record): no header, level or tag of the program's own. Within its
    /// stream it is bare text, and is grouped as a bare line would be.
    pub fn is_carried_text(&self) -> bool {
        !self.formats.is_empty()
            && self.formats.is_within(CARRIERS)
            && !self.app_header
            && self.level.is_none()
            && self.process.is_none()
            && self.ranks.is_none()
            && self.origin.is_none()
            && self.separator.is_none()
    }

    /// True when nothing but what carried the line, if anything, was
    /// recognised on it: bare text within its stream (see
    /// [`Record::is_bare`], [`Record::is_carried_text`]).
    pub fn is_text_of_stream(&self) -> bool {
        self.is_bare() || self.is_carried_text()
    }

    /// True when a transport or process layer names the writer.
    pub fn has_stream(&self) -> bool {
        self.host.is_some() || self.identifier.is_some() || self.pid.is_some() || self.process.is_some()
    }
}

/// The records of one line: usually one, two when a record starts mid-line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Framed<'a> {
    /// The record that starts the line.
    pub first: Record<'a>,
    /// A record that starts in the middle of the line, after a progress bar.
    pub embedded: Option<Record<'a>>,
}

/// Frames one line (without its terminator).
pub fn frame_line(line: &str) -> Framed<'_> {
    // Filled in place by every layer, not passed through them by value: a
    // record is some 150 bytes, and each move copies it.
    let mut framed = Framed { first: Record::default(), embedded: None };
    let record = &mut framed.first;
    if let Some(sep) = transport::separator(line) {
        record.separator = Some(sep);
        record.formats.insert(if sep == Separator::Catalog {
            Format::JournalCatalog
        } else {
            Format::JournalSeparator
        });
        record.message = line;
        return framed;
    }
    let pos = transport::parse(line, 0, record);
    if pos == 0 {
        if let Some(at) = status::parse(line, record) {
            record.message_at = at;
            record.message = &line[at..];
            return framed;
        }
    }
    frame_rest(line, pos, &mut framed);
    framed
}

/// The line as the program wrote it: without what carried it (a
/// journal's or syslog's prefix, a container's or collector's stamp,
/// compose's or kubectl's tag). The program's own header stays.
pub fn program_text(line: &str) -> &str {
    let mut record = Record::default();
    let pos = transport::parse(line, 0, &mut record);
    let pos = wrapper::parse_wrappers(line, pos, &mut record);
    line.get(pos..).unwrap_or(line)
}

/// Frames one line of a structured journal entry's MESSAGE: the transport
/// fields come from the entry, the inner layers from the text.
pub fn frame_message<'a>(line: &'a str, fields: &'a JournalFields, format: Format) -> Framed<'a> {
    let first = Record {
        time: fields.time.as_deref(),
        host: fields.host.as_deref(),
        identifier: fields.identifier.as_deref(),
        unit: fields.unit.as_deref(),
        pid: fields.pid,
        level: fields.level,
        ..Record::default()
    };
    let mut framed = Framed { first, embedded: None };
    framed.first.formats.insert(format);
    frame_rest(line, 0, &mut framed);
    framed
}

/// The layers inside the transport (framed up to `pos`): wrappers,
/// process tags, application header, and a record starting mid-line.
fn frame_rest<'a>(line: &'a str, pos: usize, framed: &mut Framed<'a>) {
    let record = &mut framed.first;
    let pos = wrapper::parse_wrappers(line, pos, record);
    let pos = wrapper::parse_process_tags(line, pos, record);
    let pos = app::parse(line, pos, record);
    record.message_at = pos;
    // A carriage return a paste shows as `^M` ends no message.
    let rest = &line[pos..];
    record.message = without_ray_repeat(rest.strip_suffix("^M").unwrap_or(rest));
    if record.formats.contains(Format::Logfmt) {
        record.message = go_log::without_closing_quote(record.message);
    }
    let Some(at) = find_embedded_start(line, pos) else { return };
    record.message = &line[pos..at];
    let inner = framed.embedded.insert(Record {
        start: at,
        host: record.host,
        identifier: record.identifier,
        unit: record.unit,
        pid: record.pid,
        process: record.process,
        ..Record::default()
    });
    let mpos = app::parse(line, at, inner);
    inner.message_at = mpos;
    inner.message = &line[mpos..];
}

/// Drops Ray's log-deduplication suffix (` [repeated 23x across cluster]`)
/// so rules see the message as the process printed it.
fn without_ray_repeat(message: &str) -> &str {
    let Some(head) = message.strip_suffix("x across cluster]") else { return message };
    match head.rsplit_once(" [repeated ") {
        Some((text, count)) if count.bytes().all(|b| b.is_ascii_digit()) => text,
        _ => message,
    }
}

/// Finds where a log record starts in the middle of a line: after a
/// carriage return, or after a progress bar (`…%|…| n/N […]`) that was not
/// ended by a newline. Only application headers count, so ordinary text
/// containing brackets is never split.
fn find_embedded_start(line: &str, from: usize) -> Option<usize> {
    let bytes = line.as_bytes();
    let rest = &bytes[from..];
    memchr::memchr2(b'%', b'\r', rest)?;
    let has_bar = memchr::memmem::find(rest, b"%|").is_some();
    let has_cr = memchr::memchr(b'\r', rest).is_some();
    if !has_bar && !has_cr {
        return None;
    }
    // Text glued to a bar's closing `]` is the next write, its newline
    // lost (a CUDA assert printed while tqdm's line was open).
    if let Some(end) = has_bar.then(|| glued_after_bar(line, from)).flatten() {
        return Some(end);
    }
    for i in from + 1..bytes.len() {
        let prev = bytes[i - 1];
        let candidate = (prev == b'\r' && bytes[i] != b'\r')
            || (bytes[i] == b'[' && has_bar && matches!(prev, b']' | b' ' | b'|'));
        if candidate && app::starts_record(line, i) {
            return Some(i);
        }
    }
    None
}

/// Where text starts right after a tqdm bar's closing bracket (`…| 89/1398
/// [1:32:11<25:28:13, 70.05s/it]../aten/…`): the bracket holds its timing
/// (`elapsed<remaining`), and no space separates what follows.
fn glued_after_bar(line: &str, from: usize) -> Option<usize> {
    let bar = from + line[from..].find("%|")?;
    let bar_end = bar + 2 + line[bar + 2..].find('|')?;
    let open = bar_end + line[bar_end..].find(" [")? + 1;
    let close = open + line[open..].find(']')?;
    let timing = &line[open + 1..close];
    let after = *line.as_bytes().get(close + 1)?;
    (timing.contains('<') && !after.is_ascii_whitespace()).then_some(close + 1)
}

#[cfg(test)]
mod tests;
