//! Following a growing log, like `tail -F`: the file may not exist yet, may
//! be truncated, or may be rotated away and replaced by a new one. Only
//! complete lines are handed out; the unterminated end of the file waits
//! for its newline (or for [`FileFollower::take_partial`]).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::lines::MAX_LINE_BYTES;

/// What happened to the followed file during a poll.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// The file appeared (or was opened for the first time).
    Opened,
    /// The file got shorter: it was truncated and is read from its start.
    Truncated,
    /// Another file now has the path (rotation): the old one was read to
    /// its end and the new one is read from its start.
    Replaced,
}

/// Reads the new lines of a file as it grows.
pub struct FileFollower {
    path: PathBuf,
    file: Option<(File, (u64, u64))>,
    position: u64,
    pending: Vec<u8>,
    /// The current line is longer than the cap: skip to its newline.
    skipping: bool,
}

impl FileFollower {
    /// Follows `path` (which need not exist yet).
    pub fn new(path: &Path) -> Self {
        FileFollower {
            path: path.to_path_buf(),
            file: None,
            position: 0,
            pending: Vec::new(),
            skipping: false,
        }
    }

    /// Reads everything new, calling `line` for each complete line (without
    /// its newline); returns what happened to the file.
    pub fn poll(&mut self, line: &mut dyn FnMut(&[u8])) -> io::Result<Vec<Change>> {
        let mut changes = Vec::new();
        let on_disk = std::fs::metadata(&self.path).ok().map(|m| ((m.dev(), m.ino()), m.len()));
        let open_id = self.file.as_ref().map(|(_, id)| *id);
        match (open_id, on_disk) {
            (None, Some(_)) if self.open()? => changes.push(Change::Opened),
            (Some(id), Some((disk_id, _))) if id != disk_id => {
                // Rotated: finish the old file, then start on the new one.
                self.drain(line)?;
                self.flush_partial(line);
                if self.open()? {
                    changes.push(Change::Replaced);
                }
            }
            (Some(_), Some((_, len))) if len < self.position => {
                self.pending.clear();
                self.skipping = false;
                self.position = 0;
                if let Some((file, _)) = self.file.as_mut() {
                    file.seek(SeekFrom::Start(0))?;
                }
                changes.push(Change::Truncated);
            }
            _ => {}
        }
        self.drain(line)?;
        Ok(changes)
    }

    /// The unterminated end of the file read so far, if any (once the
    /// writer has been quiet long enough to count it as a line).
    pub fn take_partial(&mut self) -> Option<Vec<u8>> {
        (!self.pending.is_empty()).then(|| std::mem::take(&mut self.pending))
    }

    fn open(&mut self) -> io::Result<bool> {
        match File::open(&self.path) {
            Ok(file) => {
                let meta = file.metadata()?;
                self.file = Some((file, (meta.dev(), meta.ino())));
                self.position = 0;
                self.pending.clear();
                self.skipping = false;
                Ok(true)
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                self.file = None;
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }

    fn flush_partial(&mut self, line: &mut dyn FnMut(&[u8])) {
        if let Some(partial) = self.take_partial() {
            line(&partial);
        }
    }

    /// Reads to the current end of the open file.
    fn drain(&mut self, line: &mut dyn FnMut(&[u8])) -> io::Result<()> {
        let Some((file, _)) = self.file.as_mut() else { return Ok(()) };
        let mut chunk = [0u8; 64 * 1024];
        loop {
            let n = match file.read(&mut chunk) {
                Ok(0) => return Ok(()),
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            self.position += n as u64;
            let mut rest = &chunk[..n];
            while let Some(at) = rest.iter().position(|&b| b == b'\n') {
                if self.skipping {
                    self.skipping = false;
                } else {
                    self.pending.extend_from_slice(&rest[..at]);
                    line(&self.pending);
                }
                self.pending.clear();
                rest = &rest[at + 1..];
            }
            if !self.skipping {
                let room = MAX_LINE_BYTES.saturating_sub(self.pending.len());
                self.pending.extend_from_slice(&rest[..rest.len().min(room)]);
                if rest.len() > room {
                    // An over-long line: hand out its head, skip the rest.
                    line(&self.pending);
                    self.pending.clear();
                    self.skipping = true;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn poll(f: &mut FileFollower) -> (Vec<String>, Vec<Change>) {
        let mut lines = Vec::new();
        let changes = f.poll(&mut |l| lines.push(String::from_utf8_lossy(l).into_owned())).unwrap();
        (lines, changes)
    }

    #[test]
    fn appears_grows_truncates_and_rotates() {
        let dir = std::env::temp_dir().join(format!("logdiag-follow-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("server.log");
        let mut f = FileFollower::new(&path);
        assert_eq!(poll(&mut f), (vec![], vec![]));

        std::fs::write(&path, "one\ntw").unwrap();
        assert_eq!(poll(&mut f), (vec!["one".to_string()], vec![Change::Opened]));
        let mut file = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(b"o\nthree\n").unwrap();
        assert_eq!(poll(&mut f).0, vec!["two".to_string(), "three".to_string()]);

        std::fs::write(&path, "new\n").unwrap();
        assert_eq!(poll(&mut f), (vec!["new".to_string()], vec![Change::Truncated]));

        std::fs::rename(&path, dir.join("server.log.1")).unwrap();
        let mut old = std::fs::OpenOptions::new().append(true).open(dir.join("server.log.1")).unwrap();
        old.write_all(b"last of old\n").unwrap();
        std::fs::write(&path, "first of new\n").unwrap();
        assert_eq!(
            poll(&mut f),
            (vec!["last of old".to_string(), "first of new".to_string()], vec![Change::Replaced])
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
