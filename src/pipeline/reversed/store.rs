//! Holding an input to be read back from its end: in memory while it is
//! small, else in a temporary file that has no name (it is unlinked as
//! soon as it is open, so nothing is left behind, whatever happens).

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::sync::atomic::{AtomicU64, Ordering};

/// How much of a stored input is looked at at once when reading it back.
pub(super) const WINDOW_BYTES: usize = 1 << 20;

/// An input being stored.
pub(super) struct Store {
    memory: Vec<u8>,
    file: Option<File>,
    hold: usize,
    len: u64,
}

impl Store {
    /// A store that keeps up to `hold` bytes in memory.
    pub(super) fn new(hold: usize) -> Self {
        Store { memory: Vec::new(), file: None, hold, len: 0 }
    }

    /// Bytes stored so far.
    pub(super) fn len(&self) -> u64 {
        self.len
    }

    /// Stores the next bytes of the input.
    pub(super) fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.len += bytes.len() as u64;
        if self.file.is_none() && self.memory.len() + bytes.len() <= self.hold {
            self.memory.extend_from_slice(bytes);
            return Ok(());
        }
        if self.file.is_none() {
            let mut file = unnamed_file()?;
            file.write_all(&std::mem::take(&mut self.memory)).map_err(spill_failed)?;
            self.file = Some(file);
        }
        self.file.as_mut().map_or(Ok(()), |file| file.write_all(bytes).map_err(spill_failed))
    }

    /// The stored input, ready to be read at any offset.
    pub(super) fn finish(self) -> io::Result<Stored> {
        Ok(match self.file {
            Some(file) => Stored::File(file),
            None => Stored::Memory(self.memory),
        })
    }
}

/// A failed write to the temporary file, said as what it is: the
/// temporary directory's fault (full, most often), not the input's.
fn spill_failed(e: io::Error) -> io::Error {
    io::Error::new(
        e.kind(),
        format!(
            "cannot put a newest-first input back in order: writing its temporary file in {} failed ({e}); \
             set TMPDIR to a directory with room",
            std::env::temp_dir().display()
        ),
    )
}

/// A temporary file, already unlinked.
fn unnamed_file() -> io::Result<File> {
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir();
    let name = format!("logdiag-{}-{}.reorder", std::process::id(), COUNT.fetch_add(1, Ordering::Relaxed));
    let path = dir.join(name);
    let file = OpenOptions::new().read(true).write(true).create_new(true).open(&path).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!(
                "cannot put a newest-first input back in order: no temporary file in {} ({e})",
                dir.display()
            ),
        )
    })?;
    std::fs::remove_file(&path)?;
    Ok(file)
}

/// A stored input.
pub(crate) enum Stored {
    /// Small enough to hold.
    Memory(Vec<u8>),
    /// In an unnamed temporary file.
    File(File),
}

impl Stored {
    /// Fills `buf` from offset `at` (the caller stays within the input).
    fn read_at(&mut self, at: u64, buf: &mut [u8]) -> io::Result<()> {
        match self {
            Stored::Memory(bytes) => {
                let at = at as usize;
                buf.copy_from_slice(&bytes[at..at + buf.len()]);
                Ok(())
            }
            Stored::File(file) => {
                file.seek(SeekFrom::Start(at))?;
                file.read_exact(buf)
            }
        }
    }

    fn len(&mut self) -> io::Result<u64> {
        match self {
            Stored::Memory(bytes) => Ok(bytes.len() as u64),
            Stored::File(file) => file.seek(SeekFrom::End(0)),
        }
    }
}

/// A stored input read from its end: each entry (a line, or a run of
/// lines that [`Backward::new`] was told start entries) is handed out
/// whole, in order, the last entry first. Every entry ends with a newline.
pub(crate) struct Backward {
    stored: Stored,
    /// Entry starts (byte offsets, ascending), or `None`: one per line.
    entries: Option<Vec<u64>>,
    /// The input not yet handed out: `[0, rest)`.
    rest: u64,
    /// A window of the input, and its offset.
    window: Vec<u8>,
    window_at: u64,
    /// The entry being handed out: `[from, to)`, then a newline if it
    /// lacks one.
    piece: Piece,
}

#[derive(Default)]
struct Piece {
    from: u64,
    to: u64,
    newline: bool,
}

impl Backward {
    /// Reads `stored` back entry by entry; `entries` are the offsets where
    /// entries start, when an entry spans lines.
    pub(crate) fn new(mut stored: Stored, entries: Option<Vec<u64>>) -> io::Result<Self> {
        let rest = stored.len()?;
        Ok(Backward { stored, entries, rest, window: Vec::new(), window_at: 0, piece: Piece::default() })
    }

    /// Hands out the next bytes of the reversed input.
    pub(crate) fn read_reversed(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            if self.piece.from < self.piece.to {
                return self.copy_piece(buf);
            }
            if self.piece.newline {
                self.piece.newline = false;
                buf[0] = b'\n';
                return Ok(1);
            }
            if self.rest == 0 {
                return Ok(0);
            }
            self.piece = self.next_piece()?;
        }
    }

    /// Copies the next bytes of the entry being handed out.
    fn copy_piece(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min((self.piece.to - self.piece.from) as usize);
        let from = self.piece.from;
        let window_end = self.window_at + self.window.len() as u64;
        if from >= self.window_at && from + n as u64 <= window_end {
            let at = (from - self.window_at) as usize;
            buf[..n].copy_from_slice(&self.window[at..at + n]);
        } else {
            self.stored.read_at(from, &mut buf[..n])?;
        }
        self.piece.from += n as u64;
        Ok(n)
    }

    /// The last entry of what is left, which is then left out.
    fn next_piece(&mut self) -> io::Result<Piece> {
        let ends_line = self.byte_at(self.rest - 1)? == b'\n';
        let (from, to) = match self.entries.as_mut() {
            Some(starts) => {
                let from = starts.pop().unwrap_or(0);
                (from, self.rest)
            }
            None => {
                let end = if ends_line { self.rest - 1 } else { self.rest };
                let from = self.last_newline_before(end)?.map_or(0, |at| at + 1);
                (from, end)
            }
        };
        self.rest = from;
        let newline = self.entries.is_none() || !ends_line;
        Ok(Piece { from, to, newline })
    }

    fn byte_at(&mut self, at: u64) -> io::Result<u8> {
        self.load_window(at + 1)?;
        Ok(self.window[(at - self.window_at) as usize])
    }

    /// Makes the window cover the bytes just before `end`.
    fn load_window(&mut self, end: u64) -> io::Result<()> {
        let window_end = self.window_at + self.window.len() as u64;
        if self.window_at < end && end <= window_end {
            return Ok(());
        }
        let start = end.saturating_sub(WINDOW_BYTES as u64);
        self.window.resize((end - start) as usize, 0);
        self.window_at = start;
        self.stored.read_at(start, &mut self.window)
    }

    /// Where the last newline before `end` is.
    fn last_newline_before(&mut self, end: u64) -> io::Result<Option<u64>> {
        let mut end = end;
        while end > 0 {
            self.load_window(end)?;
            let seen = &self.window[..(end - self.window_at) as usize];
            if let Some(i) = memchr::memrchr(b'\n', seen) {
                return Ok(Some(self.window_at + i as u64));
            }
            end = self.window_at;
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_temporary_directory_is_named_as_the_cause() {
        // Writes to /dev/full fail as a full disk does.
        let Ok(full) = OpenOptions::new().write(true).open("/dev/full") else { return };
        let mut store = Store { memory: Vec::new(), file: Some(full), hold: 0, len: 0 };
        let error = store.write(b"a line\n").unwrap_err();
        let message = error.to_string();
        assert!(message.contains("temporary file") && message.contains("TMPDIR"), "{message}");
        assert!(message.contains(&std::env::temp_dir().display().to_string()), "{message}");
    }
}
