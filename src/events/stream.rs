//! Who wrote an event: the stream fields of its first record, and the
//! key that tells streams apart while grouping.

use super::Event;
use crate::framing::Record;

crate::framing::writer_fields! {
    /// Who wrote an event: the fields of its first record. Read the names
    /// with [`Event::host`] and its siblings: they are kept as ranges into the
    /// event's first line when they are part of it (copying them for every
    /// line would cost more than the rest of grouping).
    #[derive(Debug, Clone, Default, PartialEq, Eq)]
    pub struct Stream {
        /// The names that are not part of the first line (the fields of a
        /// structured journal entry).
        elsewhere: String,
    }
    writer fields [all]: text as Field, pid as pub Option<u32>
}

impl Stream {
    /// Sets the fields of `record`, framed from `line` (the event's first
    /// line, whose text the event keeps).
    pub(super) fn fill(&mut self, record: &Record<'_>, line: &str) {
        let elsewhere = &mut self.elsewhere;
        elsewhere.clear();
        self.pid = record.pid;
        self.host = Field::locate(record.host, line, elsewhere);
        self.identifier = Field::locate(record.identifier, line, elsewhere);
        self.process = Field::locate(record.process, line, elsewhere);
        self.ranks = Field::locate(record.ranks, line, elsewhere);
        self.time = Field::locate(record.time, line, elsewhere);
        self.unit = Field::locate(record.unit, line, elsewhere);
    }
}

/// Where a stream's name is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Field {
    #[default]
    Absent,
    /// This byte range of the event's first line.
    InLine(u32, u32),
    /// This byte range of [`Stream::elsewhere`].
    Elsewhere(u32, u32),
}

impl Field {
    /// Where `value` is: in `line` if it is a part of it, else copied to
    /// the end of `elsewhere`.
    fn locate(value: Option<&str>, line: &str, elsewhere: &mut String) -> Field {
        let Some(value) = value else {
            return Field::Absent;
        };
        let at = (value.as_ptr() as usize).wrapping_sub(line.as_ptr() as usize);
        if at <= line.len() && value.len() <= line.len() - at {
            Field::InLine(at as u32, (at + value.len()) as u32)
        } else {
            let start = elsewhere.len() as u32;
            elsewhere.push_str(value);
            Field::Elsewhere(start, elsewhere.len() as u32)
        }
    }
}

impl Event {
    /// Host name (journal, syslog, NCCL).
    pub fn host(&self) -> Option<&str> {
        self.field(self.stream.host)
    }

    /// Journal identifier or compose service.
    pub fn identifier(&self) -> Option<&str> {
        self.field(self.stream.identifier)
    }

    /// Process tag (`EngineCore_DP0`, `rank3`).
    pub fn process(&self) -> Option<&str> {
        self.field(self.stream.process)
    }

    /// sglang rank tags (`DP0 TP3`).
    pub fn ranks(&self) -> Option<&str> {
        self.field(self.stream.ranks)
    }

    /// Timestamp of the first record, as printed.
    pub fn time(&self) -> Option<&str> {
        self.field(self.stream.time)
    }

    /// systemd unit, when the input says (structured journals).
    pub fn unit(&self) -> Option<&str> {
        self.field(self.stream.unit)
    }

    fn field(&self, field: Field) -> Option<&str> {
        match field {
            Field::Absent => None,
            Field::InLine(start, end) => self.lines.first()?.text.get(start as usize..end as usize),
            Field::Elsewhere(start, end) => self.stream.elsewhere.get(start as usize..end as usize),
        }
    }
}

/// A stream's identity as a hash of the fields that name its writer, and
/// what carried it (one pass over the names: it is computed for every
/// line).
pub(super) fn identity(record: &Record<'_>) -> (u64, Carrier) {
    let mut h = StreamHash(0);
    h.name(record.host);
    h.name(record.identifier);
    // A journal or syslog names the process; under a container's or a
    // pod's prefix, or behind a process tag, a pid is the program's.
    let carried = record.process.is_none() && record.formats.intersects(crate::framing::PID_CARRIERS);
    let carrier = Carrier { names: h.finish(), pid: record.pid.filter(|_| carried) };
    if !record.has_stream() {
        return (0, carrier);
    }
    h.word(record.pid.map_or(u64::MAX, u64::from));
    h.name(record.process);
    // Never 0: 0 is the stream of input with no prefixes at all.
    (h.finish() | 1, carrier)
}

/// What carried a record: the hash of its host and identifier (a
/// journal's prefix or fields, a pod's or service's tag), and the pid the
/// carrier gives, when it gives one and no tag of the program's own put
/// its pid there instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Carrier {
    names: u64,
    pid: Option<u32>,
}

impl Carrier {
    /// Whether `self` may carry the same writer as `other`: the same names,
    /// and pids that do not differ where both are known.
    pub(super) fn same_as(self, other: Carrier) -> bool {
        self.names == other.names && (self.pid.is_none() || other.pid.is_none() || self.pid == other.pid)
    }
}

/// A fast hash for stream keys, computed for every line: eight bytes at a
/// time (a collision could only merge two streams' events).
struct StreamHash(u64);

impl StreamHash {
    fn word(&mut self, word: u64) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(K);
    }

    /// A name; its last bytes are padded into one word whose top byte
    /// holds how many there were, so every name ends in a distinct word.
    fn name(&mut self, name: Option<&str>) {
        let Some(name) = name else {
            self.word(u64::MAX - 1);
            return;
        };
        let mut chunks = name.as_bytes().chunks_exact(8);
        for chunk in &mut chunks {
            self.word(u64::from_le_bytes(chunk.try_into().expect("eight bytes")));
        }
        // Gathered by shifts: copying them into a padded array and reading
        // that back as a word stalls on the store.
        let rest = chunks.remainder();
        let tail = rest.iter().rev().fold(0u64, |word, &b| (word << 8) | u64::from(b));
        self.word(tail | (rest.len() as u64) << 56);
    }

    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 31)
    }
}
