//! Following a growing input: a file, like `tail -F` (it may not exist
//! yet, may be truncated, or may be rotated away and replaced), or a
//! stream such as standard input.
//!
//! A followed input is read as a sequence of parts ([`Growing`] readers):
//! one per file that had the path, and one more each time the file is
//! truncated. A part's read blocks while the input is quiet, so the batch
//! reading code reads it unchanged; it ends (`Ok(0)`) when its file was
//! replaced or truncated, or when the stream closed.
//!
//! Bytes are handed out whole records at a time: lines, or paragraphs
//! ending with an empty line when the caller's sniffer says the part is
//! laid out so (the journal export format). Once the input has been read to its end, a
//! read fails once with [`io::ErrorKind::WouldBlock`]: the reader is
//! caught up and, since it sits on a line boundary, nothing it holds is
//! half a line. The pipeline takes that as the moment to show what it has
//! (see `pipeline::Session::following`).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::time::Duration;

use super::lines::MAX_LINE_BYTES;

/// What a part's bytes are handed out in whole units of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Records {
    /// Lines.
    Lines,
    /// Paragraphs that end with an empty line: the input is idle only
    /// between them.
    Paragraphs,
}

/// Tells from a part's first bytes (at least its first line) what its
/// records are.
pub type RecordSniffer = fn(&[u8]) -> Records;

/// How often a quiet file is looked at again.
pub const POLL: Duration = Duration::from_millis(100);

/// Bytes read from the input at a time.
const CHUNK: usize = 64 * 1024;

/// What ended a part of a followed file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// The file got shorter, or what was read of it was written over
    /// (truncated, then written past its old size before it was looked
    /// at): it is read from its start.
    Truncated,
    /// Another file now has the path (rotation): the old one was read to
    /// its end and the new one is read from its start.
    Replaced,
}

/// Where a followed input's bytes come from.
pub trait Chunks {
    /// Reads what the input holds now into `buf`: `Some(n)` with `n > 0`
    /// bytes, `Some(0)` when the part has ended, `None` when nothing is
    /// there yet. With `wait`, blocks until there is something (never
    /// `None`).
    fn next_chunk(&mut self, buf: &mut [u8], wait: bool) -> io::Result<Option<usize>>;
}

/// One part of a followed input, read as it grows (see the module doc).
pub struct Growing<C> {
    chunks: C,
    /// Whole lines read and not yet handed out, from `at`.
    ready: Vec<u8>,
    at: usize,
    /// The unterminated end of what was read.
    tail: Vec<u8>,
    /// What was handed out last ends inside a line (an over-long line is
    /// handed out before its end, to be cut by the line reader).
    mid_line: bool,
    /// A whole line has been handed out: the head the reader sniffs the
    /// part's shape from is not empty.
    started: bool,
    /// What the part's records are, once its first line told the sniffer.
    records: Option<Records>,
    sniff: RecordSniffer,
    /// The reader was told the input is idle, and nothing came since.
    told_idle: bool,
    ended: bool,
    chunk: Box<[u8]>,
}

impl<C: Chunks> Growing<C> {
    /// A part reading from `chunks`, its records told by `sniff`.
    pub fn new(chunks: C, sniff: RecordSniffer) -> Self {
        Growing {
            chunks,
            ready: Vec::new(),
            at: 0,
            tail: Vec::new(),
            mid_line: false,
            started: false,
            records: None,
            sniff,
            told_idle: false,
            ended: false,
            chunk: vec![0; CHUNK].into_boxed_slice(),
        }
    }

    /// The source of the part's bytes.
    pub fn chunks(&self) -> &C {
        &self.chunks
    }

    /// Forgets the bytes of `ready` already handed out, once all are.
    fn drop_handed_out(&mut self) {
        if self.at == self.ready.len() {
            self.ready.clear();
            self.at = 0;
        }
    }

    /// Moves what is whole in `tail` to `ready`; the bytes from `new` on
    /// were just read (only they are searched).
    fn settle(&mut self, new: usize) {
        if self.records.is_none() {
            // Decided on the part's first line (nothing has left `tail` yet).
            if !self.tail.contains(&b'\n') && self.tail.len() <= MAX_LINE_BYTES {
                return;
            }
            self.records = Some((self.sniff)(&self.tail));
        }
        let whole = match self.records {
            Some(Records::Paragraphs) => {
                let from = new.saturating_sub(1);
                memchr::memmem::rfind(&self.tail[from..], b"\n\n").map(|i| from + i + 2)
            }
            _ => memchr::memrchr(b'\n', &self.tail[new..]).map(|i| new + i + 1),
        };
        let take = match whole {
            Some(end) => end,
            // Too long to wait for its end: the line reader cuts it.
            None if self.tail.len() > MAX_LINE_BYTES => self.tail.len(),
            None => return,
        };
        self.drop_handed_out();
        self.ready.extend(self.tail.drain(..take));
        self.mid_line = self.ready.last() != Some(&b'\n');
    }
}

impl<C: Chunks> Read for Growing<C> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.at < self.ready.len() {
                let n = buf.len().min(self.ready.len() - self.at);
                buf[..n].copy_from_slice(&self.ready[self.at..self.at + n]);
                self.at += n;
                self.started = true;
                return Ok(n);
            }
            if self.ended {
                return Ok(0);
            }
            let may_idle = self.started && !self.mid_line && !self.told_idle;
            match self.chunks.next_chunk(&mut self.chunk, !may_idle)? {
                None => {
                    self.told_idle = true;
                    return Err(io::ErrorKind::WouldBlock.into());
                }
                Some(0) => {
                    // The part is over: what it did not end is its last line.
                    self.ended = true;
                    self.drop_handed_out();
                    self.ready.append(&mut self.tail);
                }
                Some(n) => {
                    self.told_idle = false;
                    let new = if self.records.is_none() { 0 } else { self.tail.len() };
                    self.tail.extend_from_slice(&self.chunk[..n]);
                    self.settle(new);
                }
            }
        }
    }
}

/// A file followed by its path across truncation and rotation.
pub struct FollowedFile {
    path: PathBuf,
    /// The file read last, and how far.
    current: Option<FileChunks>,
    sniff: RecordSniffer,
}

impl FollowedFile {
    /// Follows `path` (which need not exist yet); each part's records are
    /// told by `sniff`.
    pub fn new(path: &Path, sniff: RecordSniffer) -> Self {
        FollowedFile { path: path.to_path_buf(), current: None, sniff }
    }

    /// The next part: the file when it first appears (`waiting` is called
    /// once if it does not exist yet), the same file from its start after
    /// a truncation, or the file that replaced it. Blocks until there is
    /// one.
    pub fn next_part(&mut self, waiting: &mut dyn FnMut()) -> io::Result<Growing<FileChunks>> {
        if let Some(mut chunks) = self.current.take() {
            if chunks.change == Some(Change::Truncated) {
                chunks.file.seek(SeekFrom::Start(0))?;
                chunks.position = 0;
                chunks.change = None;
                chunks.last_read.clear();
                chunks.idle = false;
                return Ok(Growing::new(chunks, self.sniff));
            }
        }
        let mut told = false;
        loop {
            match File::open(&self.path) {
                Ok(file) => {
                    let meta = file.metadata()?;
                    let chunks = FileChunks {
                        path: self.path.clone(),
                        file,
                        id: (meta.dev(), meta.ino()),
                        position: 0,
                        change: None,
                        last_read: Vec::new(),
                        idle: false,
                    };
                    return Ok(Growing::new(chunks, self.sniff));
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    if !told {
                        told = true;
                        waiting();
                    }
                    std::thread::sleep(POLL);
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Takes back a part that ended, to continue after it.
    pub fn part_ended(&mut self, part: Growing<FileChunks>) {
        self.current = Some(part.chunks);
    }
}

/// The bytes of one file as it grows.
pub struct FileChunks {
    path: PathBuf,
    file: File,
    id: (u64, u64),
    position: u64,
    change: Option<Change>,
    /// The last bytes read, up to [`LAST_READ_BYTES`]: still there, the
    /// file was not written over.
    last_read: Vec<u8>,
    /// The end of the file was reached, and it may have changed since.
    idle: bool,
}

/// How many of the last bytes read are kept to tell that a file was
/// written over.
const LAST_READ_BYTES: usize = 64;

impl FileChunks {
    /// Why the part ended, once it has.
    pub fn change(&self) -> Option<Change> {
        self.change
    }

    /// The name the file now has, if it was renamed within its folder
    /// (rotated to `x.log.1`): found by its identity.
    pub fn renamed_to(&self) -> Option<PathBuf> {
        let folder = match self.path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::fs::read_dir(&folder).ok()?.flatten().find_map(|entry| {
            let meta = entry.metadata().ok()?;
            let same = (meta.dev(), meta.ino()) == self.id && entry.file_name() != *self.path.file_name()?;
            same.then(|| match self.path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.join(entry.file_name()),
                _ => PathBuf::from(entry.file_name()),
            })
        })
    }

    fn read_some(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match self.file.read(buf) {
                Ok(n) => {
                    self.position += n as u64;
                    self.last_read.extend_from_slice(&buf[n.saturating_sub(LAST_READ_BYTES)..n]);
                    let extra = self.last_read.len().saturating_sub(LAST_READ_BYTES);
                    self.last_read.drain(..extra);
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }
}

impl FileChunks {
    /// Whether the bytes last read are no longer where they were: the file
    /// was truncated and written again, past its old size, between two
    /// looks (its size alone does not tell).
    fn written_over(&self) -> io::Result<bool> {
        use std::os::unix::fs::FileExt;
        if self.last_read.is_empty() {
            return Ok(false);
        }
        let mut now = [0; LAST_READ_BYTES];
        let now = &mut now[..self.last_read.len()];
        match self.file.read_exact_at(now, self.position - self.last_read.len() as u64) {
            Ok(()) => Ok(*now != *self.last_read),
            // Shorter than what was read: truncated (told by its size).
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(false),
            Err(e) => Err(e),
        }
    }
}

impl Chunks for FileChunks {
    fn next_chunk(&mut self, buf: &mut [u8], wait: bool) -> io::Result<Option<usize>> {
        loop {
            // Before reading what was added after a quiet spell: were the
            // bytes already read written over?
            if std::mem::take(&mut self.idle) && self.written_over()? {
                self.change = Some(Change::Truncated);
                return Ok(Some(0));
            }
            let n = self.read_some(buf)?;
            if n > 0 {
                return Ok(Some(n));
            }
            self.idle = true;
            // At the end of what the file holds: has the path moved on?
            match std::fs::metadata(&self.path) {
                Ok(meta) if (meta.dev(), meta.ino()) != self.id => {
                    // Replaced; what the old file got meanwhile is read first.
                    let n = self.read_some(buf)?;
                    if n > 0 {
                        return Ok(Some(n));
                    }
                    self.change = Some(Change::Replaced);
                    return Ok(Some(0));
                }
                Ok(meta) if meta.len() < self.position => {
                    self.change = Some(Change::Truncated);
                    return Ok(Some(0));
                }
                // Gone or unchanged: a renamed file may still be written.
                _ => {}
            }
            if !wait {
                return Ok(None);
            }
            std::thread::sleep(POLL);
        }
    }
}

/// A stream (standard input) read by a thread of its own, so that a
/// quiet stream can be told from a closed one.
pub struct StreamChunks {
    chunks: Receiver<io::Result<Vec<u8>>>,
    current: Vec<u8>,
    at: usize,
    failed: Option<io::Error>,
}

impl StreamChunks {
    /// Reads `stream` on a new thread, decompressed if it is gzip or zstd
    /// (recognised by its magic bytes). At most a few chunks wait between
    /// the two threads: a stream that is not read is not read ahead.
    pub fn spawn(stream: Box<dyn Read + Send>) -> Self {
        let (tx, rx) = mpsc::sync_channel(4);
        std::thread::spawn(move || {
            let mut stream = match super::decompress(stream) {
                Ok(stream) => stream,
                Err(e) => {
                    let _ = tx.send(Err(e));
                    return;
                }
            };
            let mut buf = vec![0u8; CHUNK];
            loop {
                let chunk = match stream.read(&mut buf) {
                    Ok(0) => return,
                    Ok(n) => Ok(buf[..n].to_vec()),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => Err(e),
                };
                let failed = chunk.is_err();
                if tx.send(chunk).is_err() || failed {
                    return;
                }
            }
        });
        StreamChunks { chunks: rx, current: Vec::new(), at: 0, failed: None }
    }
}

impl Chunks for StreamChunks {
    fn next_chunk(&mut self, buf: &mut [u8], wait: bool) -> io::Result<Option<usize>> {
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        if self.at == self.current.len() {
            let next = if wait {
                self.chunks.recv().map_err(|_| TryRecvError::Disconnected)
            } else {
                self.chunks.try_recv()
            };
            match next {
                Ok(Ok(chunk)) => (self.current, self.at) = (chunk, 0),
                Ok(Err(e)) => return Err(e),
                Err(TryRecvError::Empty) => return Ok(None),
                Err(TryRecvError::Disconnected) => return Ok(Some(0)),
            }
        }
        let n = buf.len().min(self.current.len() - self.at);
        buf[..n].copy_from_slice(&self.current[self.at..self.at + n]);
        self.at += n;
        Ok(Some(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;
    use std::io::Write;

    /// Chunks given in advance; `None` stands for a quiet moment.
    struct Script(VecDeque<Option<&'static [u8]>>);

    impl Chunks for Script {
        fn next_chunk(&mut self, buf: &mut [u8], wait: bool) -> io::Result<Option<usize>> {
            loop {
                match self.0.pop_front() {
                    None => return Ok(Some(0)),
                    Some(None) if wait => continue,
                    Some(None) => return Ok(None),
                    Some(Some(bytes)) => {
                        let n = bytes.len().min(buf.len());
                        buf[..n].copy_from_slice(&bytes[..n]);
                        if n < bytes.len() {
                            self.0.push_front(Some(&bytes[n..]));
                        }
                        return Ok(Some(n));
                    }
                }
            }
        }
    }

    /// Records that are paragraphs when the first line says `PARAGRAPHS`.
    fn sniff(head: &[u8]) -> Records {
        if head.starts_with(b"PARAGRAPHS") {
            Records::Paragraphs
        } else {
            Records::Lines
        }
    }

    /// Reads a part to its end: what each read gave, `|` for an idle signal.
    fn read_part(script: &[Option<&'static [u8]>]) -> String {
        let mut part = Growing::new(Script(script.iter().copied().collect()), sniff);
        let mut seen = String::new();
        let mut buf = [0u8; 1024];
        loop {
            match part.read(&mut buf) {
                Ok(0) => return seen,
                Ok(n) => seen.push_str(std::str::from_utf8(&buf[..n]).unwrap()),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => seen.push('|'),
                Err(e) => panic!("{e}"),
            }
        }
    }

    #[test]
    fn whole_lines_then_one_idle_signal() {
        assert_eq!(read_part(&[Some(b"one\ntw"), None, Some(b"o\n"), None, None]), "one\n|two\n|");
        // Nothing is idle before the first line: the head is never empty.
        assert_eq!(read_part(&[None, Some(b"x"), None, Some(b"\n")]), "x\n");
        // The end of a part ends its last line.
        assert_eq!(read_part(&[Some(b"a\nb")]), "a\nb");
    }

    #[test]
    fn paragraphs_are_whole_before_idle() {
        let script = [Some(&b"PARAGRAPHS=1\nMESSAGE=a\n\nX=2\n"[..]), None, Some(b"MESSAGE=b\n\n"), None];
        assert_eq!(read_part(&script), "PARAGRAPHS=1\nMESSAGE=a\n\n|X=2\nMESSAGE=b\n\n|");
        let lines = [Some(&b"a\n\nb\n"[..]), None, Some(b"c\n"), None];
        assert_eq!(read_part(&lines), "a\n\nb\n|c\n|");
    }

    #[test]
    fn an_over_long_line_is_handed_out_before_its_end() {
        static LONG: std::sync::LazyLock<Vec<u8>> =
            std::sync::LazyLock::new(|| vec![b'x'; MAX_LINE_BYTES + 1]);
        let mut part =
            Growing::new(Script(VecDeque::from([Some(&LONG[..]), None, Some(&b"y\n"[..])])), sniff);
        let mut all = Vec::new();
        part.read_to_end(&mut all).unwrap();
        assert_eq!(all.len(), MAX_LINE_BYTES + 3, "no idle signal inside the line");
    }

    #[test]
    fn a_file_appears_grows_truncates_and_rotates() {
        let dir = std::env::temp_dir().join(format!("logdiag-follow-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("server.log");
        let mut followed = FollowedFile::new(&path, sniff);
        let mut waited = 0;
        let writer = {
            let path = path.clone();
            std::thread::spawn(move || {
                std::thread::sleep(POLL * 2);
                std::fs::write(&path, "one\ntw").unwrap();
            })
        };
        let mut part = followed.next_part(&mut || waited += 1).unwrap();
        writer.join().unwrap();
        assert_eq!(waited, 1);
        let mut buf = [0u8; 64];
        assert_eq!(part.read(&mut buf).unwrap(), 4);
        assert_eq!(part.read(&mut buf).unwrap_err().kind(), io::ErrorKind::WouldBlock);

        let mut file = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(b"o\nthree\n").unwrap();
        let n = part.read(&mut buf).unwrap();
        assert_eq!(&buf[..n], b"two\nthree\n");

        std::fs::write(&path, "new\n").unwrap();
        assert_eq!(part.read(&mut buf).unwrap(), 0, "truncated");
        assert_eq!(part.chunks().change(), Some(Change::Truncated));
        followed.part_ended(part);
        let mut part = followed.next_part(&mut || panic!("the file exists")).unwrap();
        let n = part.read(&mut buf).unwrap();
        assert_eq!(&buf[..n], b"new\n");

        std::fs::rename(&path, dir.join("server.log.1")).unwrap();
        let mut old = std::fs::OpenOptions::new().append(true).open(dir.join("server.log.1")).unwrap();
        old.write_all(b"last of old").unwrap();
        std::fs::write(&path, "first of new\n").unwrap();
        let mut rest = Vec::new();
        part.read_to_end(&mut rest).unwrap();
        assert_eq!(rest, b"last of old");
        assert_eq!(part.chunks().change(), Some(Change::Replaced));
        assert_eq!(part.chunks().renamed_to(), Some(dir.join("server.log.1")));
        followed.part_ended(part);
        let mut part = followed.next_part(&mut || panic!("the file exists")).unwrap();
        let n = part.read(&mut buf).unwrap();
        assert_eq!(&buf[..n], b"first of new\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
