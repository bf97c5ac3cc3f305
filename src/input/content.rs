//! Whether a file holds a log: its first bytes, once decompressed, tell
//! an image, a document, an archive or a program from text. A file named
//! on the command line that is not a log is refused with one line; one
//! found in a directory is left out with a note.
//!
//! NUL bytes alone do not make a file binary, as they do for ripgrep: a
//! log of a machine that lost power often holds a run of them where the
//! file system had allocated blocks that were never written.

use std::io::BufRead;

use super::head::with_head;
use super::{open_part, Found, InputError, OpenPart, Skipped, Source};

/// How much of a file's start is looked at.
const HEAD_BYTES: usize = 8 * 1024;

/// Below this many bytes that are not NUL, a file is too short to judge
/// by its share of control bytes.
const MIN_JUDGED_BYTES: usize = 64;

/// What a file's first bytes say it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Content {
    /// Text, something that may be read as text, or nothing at all (an
    /// empty log is said so by the report).
    Text,
    /// Not a log: what it is instead.
    NotALog(&'static str),
}

/// Signatures of formats that are never logs, at the start of a file.
const SIGNATURES: &[(&[u8], &str)] = &[
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"%PDF-", "a PDF document"),
    (b"PK\x03\x04", "a zip archive"),
    (b"PK\x05\x06", "a zip archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-zip archive"),
    (b"\xfd7zXZ\x00", "xz-compressed (logdiag reads gzip and zstd: pipe it in with xz -dc)"),
    (b"\x7fELF", "an ELF program, library or core dump"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"LPKSHHRH", "a binary systemd journal (read it with journalctl --file)"),
    (b"\x93NUMPY", "a NumPy array"),
];

/// Judges a file's first bytes (decompressed).
pub fn sniff_content(head: &[u8]) -> Content {
    if let Some((_, what)) = SIGNATURES.iter().find(|(magic, _)| head.starts_with(magic)) {
        return Content::NotALog(what);
    }
    if head.len() > 262 && &head[257..262] == b"ustar" {
        return Content::NotALog("a tar archive");
    }
    if head.starts_with(b"BZh") && head.get(4..10) == Some(b"1AY&SY") {
        return Content::NotALog("bzip2-compressed (logdiag reads gzip and zstd: pipe it in with bzip2 -dc)");
    }
    if head.starts_with(b"__CURSOR=") {
        // `journalctl -o export`: binary fields are part of the format.
        return Content::Text;
    }
    if mostly_control_bytes(head) {
        return Content::NotALog("binary data");
    }
    Content::Text
}

/// Text holds almost no control bytes but the usual whitespace, escape
/// sequences and backspaces; random or compressed bytes hold about one in
/// ten. NUL bytes are not counted either way (see the module doc).
fn mostly_control_bytes(head: &[u8]) -> bool {
    let counted = head.iter().filter(|&&b| b != 0).count();
    let control = head
        .iter()
        .filter(|&&b| {
            (b < 0x20 && b != 0 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0b | 0x0c | 0x1b | 0x08))
                || b == 0x7f
        })
        .count();
    counted >= MIN_JUDGED_BYTES && control * 20 > counted
}

/// Opens every part of a source that holds a log (decompressing as
/// [`super::open_part`] does). A part found in a directory that is not a log
/// is left out and said so; one named on the command line is an error.
pub fn open_logs(source: &Source) -> Result<(Vec<OpenPart>, Vec<Skipped>), InputError> {
    let mut parts = Vec::new();
    let mut skipped = Vec::new();
    for part in &source.parts {
        let reader = open_part(part)?;
        let (head, reader) = with_head(reader, HEAD_BYTES);
        match sniff_content(&head) {
            Content::NotALog(what) if source.found == Found::Walked => {
                skipped.push(Skipped { path: part.name.clone(), why: format!("{what}, not a log") });
            }
            Content::NotALog(what) => {
                let problem = format!("does not look like a log: {what}");
                return Err(InputError { path: part.name.clone(), problem });
            }
            Content::Text => {
                let reader: Box<dyn BufRead + Send> = Box::new(reader);
                parts.push((part.name.clone(), reader));
            }
        }
    }
    Ok((parts, skipped))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes that look random (a linear congruential generator).
    fn noise(len: usize) -> Vec<u8> {
        let mut state: u32 = 12345;
        (0..len)
            .map(|_| {
                state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
                (state >> 16) as u8
            })
            .collect()
    }

    #[test]
    fn images_archives_and_noise_are_not_logs() {
        assert_eq!(sniff_content(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"), Content::NotALog("a PNG image"));
        assert_eq!(sniff_content(b"%PDF-1.7\n"), Content::NotALog("a PDF document"));
        assert_eq!(sniff_content(&noise(4096)), Content::NotALog("binary data"));
    }

    #[test]
    fn damaged_and_coloured_logs_are_text() {
        let mut log = b"\x1b[32mINFO\x1b[0m server started\r\n".repeat(20);
        log.extend(vec![0u8; 4096]);
        log.extend(b"caf\xe9 latin-1 text\n".repeat(10));
        assert_eq!(sniff_content(&log), Content::Text);
        assert_eq!(sniff_content(&vec![0u8; 8192]), Content::Text, "a file of NUL bytes is a damaged log");
        assert_eq!(sniff_content(b""), Content::Text, "an empty log is said so by the report");
        let mut export = b"__CURSOR=s=1\nMESSAGE\n".to_vec();
        export.extend(noise(2048));
        assert_eq!(sniff_content(&export), Content::Text, "journal export with a binary field");
    }
}
