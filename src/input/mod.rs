//! Input: which sources to read and how to get their bytes as lines.
//!
//! A source is one file, standard input, or the rotated files of one log
//! (`x.log.2.gz`, `x.log.1`, `x.log`), read oldest first as one stream.
//! Directories are walked ([`walk`]); each log in them becomes a source, in
//! a stable order (by path). Compressed input (gzip, zstd) is recognised by
//! its magic bytes, never by its name, and what a file holds once
//! decompressed decides whether it is a log ([`content`]).
//! Nothing here interprets the text: that starts in [`crate::framing`].

mod carriage;
pub mod content;
pub mod follow;
mod head;
pub mod lines;
mod reversal;
mod rotation;
mod salvage;
pub mod walk;
mod wide;
mod zstd_stream;

use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::PathBuf;

pub use content::open_logs;
pub use head::{with_head, with_head_until, Deferred};
pub use lines::{Line, LineReader, Rest, StopAt, MAX_LINE_BYTES};
pub use reversal::Reversal;
pub use walk::{collect_sources, Collected, Symlinks};
pub use wide::{sniff_wide, Transcoder, Wide};

/// Where a source's bytes come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A regular file.
    File(PathBuf),
    /// The process's standard input.
    Stdin,
}

/// One input to diagnose, with the name reports use for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The name shown in reports: the path as the user gave it, or `-`;
    /// for rotated files, the current log's path.
    pub name: String,
    /// The files to read, oldest first (one, unless rotated files were
    /// found in a directory).
    pub parts: Vec<Part>,
    /// Whether the user named it or a directory walk found it.
    pub found: Found,
}

/// How a source was found: a file that is not a log is an error when the
/// user named it, and is left out when a walk came across it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// Named on the command line (a file, or `-`).
    Named,
    /// Found by walking a directory named on the command line.
    Walked,
}

/// A file a walk did not read, and why (shown with `-v`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The file, as the walk found it.
    pub path: String,
    /// Why it is not read, lowercase.
    pub why: String,
}

impl fmt::Display for Skipped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: skipped: {}", self.path, self.why)
    }
}

/// One file of a source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// The name reports give its lines.
    pub name: String,
    /// Where to read it from.
    pub origin: Origin,
}

impl Source {
    fn single(name: String, origin: Origin, found: Found) -> Self {
        Source { parts: vec![Part { name: name.clone(), origin }], name, found }
    }
}

/// A problem with an input path, reported as `PATH: problem`.
#[derive(Debug)]
pub struct InputError {
    /// The path as the user gave it (or `-`).
    pub path: String,
    /// What went wrong, lowercase, without a trailing period.
    pub problem: String,
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.problem)
    }
}

impl std::error::Error for InputError {}

impl InputError {
    fn io(path: &str, err: &io::Error) -> Self {
        let problem = match err.kind() {
            io::ErrorKind::NotFound => "no such file or directory".to_string(),
            io::ErrorKind::PermissionDenied => "permission denied".to_string(),
            _ => lowercase_first(&err.to_string()),
        };
        InputError { path: path.to_string(), problem }
    }
}

fn lowercase_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// How a source's bytes are encoded on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Plain bytes.
    None,
    /// gzip (RFC 1952), possibly several members.
    Gzip,
    /// Zstandard (RFC 8878), possibly several frames.
    Zstd,
}

/// How many leading bytes tell the compression apart.
const MAGIC_BYTES: usize = 4;

/// Recognises compression from the first bytes of a stream.
pub fn sniff_compression(head: &[u8]) -> Compression {
    if head.starts_with(&[0x1f, 0x8b]) {
        Compression::Gzip
    } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) || is_skippable_zstd_frame(head) {
        Compression::Zstd
    } else {
        Compression::None
    }
}

/// A zstd skippable frame (RFC 8878, 3.1.2: magic 0x184D2A50 to
/// 0x184D2A5F), which may open a zstd stream: pzstd writes one in front of
/// its frames, and `zstd -d` reads past it.
fn is_skippable_zstd_frame(head: &[u8]) -> bool {
    head.len() >= 4 && head[0] & 0xf0 == 0x50 && head[1..4] == [0x2a, 0x4d, 0x18]
}

/// An opened part of a source: its name and its bytes.
pub type OpenPart = (String, Box<dyn BufRead + Send>);

/// Opens one file (or stdin) as a buffered byte stream.
pub fn open_part(part: &Part) -> Result<Box<dyn BufRead + Send>, InputError> {
    let raw: Box<dyn Read + Send> = match &part.origin {
        Origin::Stdin => Box::new(io::stdin()),
        Origin::File(path) => {
            // A named pipe is read as `cat` reads it: opening waits for a writer.
            Box::new(File::open(path).map_err(|e| InputError::io(&part.name, &e))?)
        }
    };
    decode(raw).map_err(|e| InputError::io(&part.name, &e))
}

/// Wraps a byte stream in a buffered reader, decompressing by magic bytes,
/// reading UTF-16 or UTF-32 text as UTF-8 (see `wide`) and lines ended
/// by a carriage return alone as lines (see `carriage`).
pub fn decode(raw: Box<dyn Read + Send>) -> io::Result<Box<dyn BufRead + Send>> {
    let decompressed = decompress(raw)?;
    let (head, reader) = with_head(decompressed, wide::LOOKED_AT);
    let text: Box<dyn BufRead + Send> = match sniff_wide(&head) {
        Some(wide) => Box::new(BufReader::with_capacity(256 * 1024, Transcoder::new(reader, wide))),
        None => Box::new(reader),
    };
    // Lines ended by a carriage return alone (the bytes tell, in UTF-16 too).
    Ok(match carriage::ends_lines_with_cr(&head) {
        true => Box::new(BufReader::with_capacity(256 * 1024, carriage::CrLines::new(text))),
        false => text,
    })
}

/// Wraps a byte stream in a buffered reader, decompressing by magic bytes
/// (a followed stream, whose encoding is told by what comes first: see
/// [`decode`]).
pub fn decompress(raw: Box<dyn Read + Send>) -> io::Result<Box<dyn BufRead + Send>> {
    const BUFFER: usize = 256 * 1024;
    // The magic bytes are read whole, however the first reads are split.
    let mut magic = Vec::with_capacity(MAGIC_BYTES);
    let mut raw = raw;
    while magic.len() < MAGIC_BYTES {
        let mut byte = [0u8; MAGIC_BYTES];
        match raw.read(&mut byte[..MAGIC_BYTES - magic.len()]) {
            Ok(0) => break,
            Ok(n) => magic.extend_from_slice(&byte[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    let compression = sniff_compression(&magic);
    let reader = BufReader::with_capacity(BUFFER, io::Cursor::new(magic).chain(raw));
    Ok(match compression {
        Compression::None => Box::new(reader),
        Compression::Gzip => {
            Box::new(BufReader::with_capacity(BUFFER, flate2::bufread::MultiGzDecoder::new(reader)))
        }
        Compression::Zstd => {
            Box::new(BufReader::with_capacity(BUFFER, zstd_stream::ZstdReader::new(reader)?))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn gzip_is_recognised_by_magic_bytes() {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(b"one\ntwo\n").unwrap();
        let bytes = gz.finish().unwrap();
        assert_eq!(sniff_compression(&bytes), Compression::Gzip);
        let mut text = String::new();
        decode(Box::new(io::Cursor::new(bytes))).unwrap().read_to_string(&mut text).unwrap();
        assert_eq!(text, "one\ntwo\n");
    }

    #[test]
    fn a_zstd_stream_that_opens_with_a_skippable_frame_is_zstd() {
        // What pzstd writes: a skippable frame (magic, length, content),
        // then the frames of the data.
        let mut bytes = vec![0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 1, 2, 3, 4];
        bytes.extend(zstd::encode_all(&b"one\ntwo\n"[..], 3).unwrap());
        assert_eq!(sniff_compression(&bytes), Compression::Zstd);
        let mut text = String::new();
        decode(Box::new(io::Cursor::new(bytes))).unwrap().read_to_string(&mut text).unwrap();
        assert_eq!(text, "one\ntwo\n");
    }
}
