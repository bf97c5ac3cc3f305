//! Text in UTF-16 or UTF-32 (PowerShell's `>` and `Out-File`, `iconv -t
//! utf-16`), with or without a byte-order mark, little- or big-endian: told
//! by its first bytes and turned into UTF-8 as it is read, so everything
//! after this reads UTF-8 only. A code unit that is no character (a lone
//! surrogate, a value past U+10FFFF, a cut unit at the end) becomes U+FFFD.

use std::io::{self, Read};

/// A text encoding wider than a byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wide {
    /// UTF-16, little-endian (what Windows tools write).
    Utf16Le,
    /// UTF-16, big-endian.
    Utf16Be,
    /// UTF-32, little-endian.
    Utf32Le,
    /// UTF-32, big-endian.
    Utf32Be,
}

impl Wide {
    fn unit(self) -> usize {
        match self {
            Wide::Utf16Le | Wide::Utf16Be => 2,
            Wide::Utf32Le | Wide::Utf32Be => 4,
        }
    }

    /// The name `iconv` knows it by.
    pub fn name(self) -> &'static str {
        match self {
            Wide::Utf16Le => "UTF-16LE",
            Wide::Utf16Be => "UTF-16BE",
            Wide::Utf32Le => "UTF-32LE",
            Wide::Utf32Be => "UTF-32BE",
        }
    }
}

/// Bytes enough to tell a wide encoding without a byte-order mark.
pub(super) const LOOKED_AT: usize = 4096;

/// Below this many code units, text without a byte-order mark is too short
/// to tell.
const MIN_UNITS: usize = 8;

/// The wide encoding `head` is in, if it is in one: by its byte-order mark,
/// or by where its zero bytes are. UTF-8 text has none; ASCII and Latin-1
/// in UTF-16 have a zero high byte in each code unit and almost never a
/// zero low byte (a log is mostly ASCII, even with a progress bar's blocks
/// or CJK text among it); in UTF-32 the top byte is always zero and the
/// next almost always. A run of NUL bytes (a log cut by a power loss) has
/// zeros everywhere, and is no wide text.
pub fn sniff_wide(head: &[u8]) -> Option<Wide> {
    const MARKS: [(&[u8], Wide); 4] = [
        (b"\xff\xfe\0\0", Wide::Utf32Le),
        (b"\0\0\xfe\xff", Wide::Utf32Be),
        (b"\xff\xfe", Wide::Utf16Le),
        (b"\xfe\xff", Wide::Utf16Be),
    ];
    if let Some(&(_, wide)) = MARKS.iter().find(|(mark, _)| head.starts_with(mark)) {
        return Some(wide);
    }
    let head = &head[..head.len().min(LOOKED_AT)];
    [Wide::Utf32Le, Wide::Utf32Be, Wide::Utf16Le, Wide::Utf16Be].into_iter().find(|&wide| {
        // Each code unit's bytes, from the most significant.
        let units: Vec<Vec<u8>> = head
            .chunks_exact(wide.unit())
            .map(|unit| match wide {
                Wide::Utf16Le | Wide::Utf32Le => unit.iter().rev().copied().collect(),
                Wide::Utf16Be | Wide::Utf32Be => unit.to_vec(),
            })
            .collect();
        let count = |test: &dyn Fn(&[u8]) -> bool| units.iter().filter(|u| test(u)).count();
        let characters = count(&|u| u.iter().any(|&b| b != 0));
        let told = units.len() >= MIN_UNITS && characters * 10 >= units.len() * 9;
        match wide {
            Wide::Utf32Le | Wide::Utf32Be => {
                told && count(&|u| u[0] == 0) == units.len() && count(&|u| u[1] == 0) * 10 >= units.len() * 9
            }
            Wide::Utf16Le | Wide::Utf16Be => {
                let narrow = count(&|u| u[0] == 0 && u[1] != 0);
                let zero_low = count(&|u| u[1] == 0 && u[0] != 0);
                told && narrow * 10 >= units.len() * 3 && zero_low * 10 <= narrow
            }
        }
    })
}

/// Reads text in a wide encoding as UTF-8.
pub struct Transcoder<R> {
    inner: R,
    wide: Wide,
    /// Bytes read but not decoded yet: a cut code unit, or a UTF-16 high
    /// surrogate waiting for its pair.
    raw: Vec<u8>,
    /// Decoded text not handed out yet, from `at` on.
    out: Vec<u8>,
    at: usize,
    /// The first character is still to come (a byte-order mark there is
    /// dropped).
    first: bool,
    ended: bool,
}

impl<R: Read> Transcoder<R> {
    /// Reads `inner`, which is in `wide`.
    pub fn new(inner: R, wide: Wide) -> Self {
        Transcoder { inner, wide, raw: Vec::new(), out: Vec::new(), at: 0, first: true, ended: false }
    }

    /// Decodes the whole code units of `raw` (all of it at the end).
    fn decode(&mut self) {
        let unit = self.wide.unit();
        let whole = self.raw.len() / unit * unit;
        let mut used = 0;
        let push = |c: char, out: &mut Vec<u8>, first: &mut bool| {
            if !std::mem::take(first) || c != '\u{feff}' {
                out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
            }
        };
        while used + unit <= whole {
            let bytes = &self.raw[used..used + unit];
            match self.wide {
                Wide::Utf32Le | Wide::Utf32Be => {
                    let value = match self.wide {
                        Wide::Utf32Le => u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]),
                        _ => u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]),
                    };
                    push(char::from_u32(value).unwrap_or('\u{fffd}'), &mut self.out, &mut self.first);
                    used += unit;
                }
                Wide::Utf16Le | Wide::Utf16Be => {
                    let at = |i: usize| match self.wide {
                        Wide::Utf16Le => u16::from_le_bytes([self.raw[i], self.raw[i + 1]]),
                        _ => u16::from_be_bytes([self.raw[i], self.raw[i + 1]]),
                    };
                    let first = at(used);
                    if (0xd800..0xdc00).contains(&first) {
                        if used + 4 > whole && !self.ended {
                            break; // its pair has not been read yet
                        }
                        if used + 4 <= whole && (0xdc00..0xe000).contains(&at(used + 2)) {
                            let pair = [first, at(used + 2)];
                            let c =
                                char::decode_utf16(pair).next().and_then(Result::ok).unwrap_or('\u{fffd}');
                            push(c, &mut self.out, &mut self.first);
                            used += 4;
                            continue;
                        }
                    }
                    let c = char::from_u32(u32::from(first)).unwrap_or('\u{fffd}');
                    push(c, &mut self.out, &mut self.first);
                    used += unit;
                }
            }
        }
        if self.ended && used < self.raw.len() && used == whole {
            // A code unit cut by the end of the input.
            push('\u{fffd}', &mut self.out, &mut self.first);
            used = self.raw.len();
        }
        self.raw.drain(..used);
    }
}

impl<R: Read> Read for Transcoder<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.out.len() {
            if self.ended && self.raw.is_empty() {
                return Ok(0);
            }
            self.out.clear();
            self.at = 0;
            let mut chunk = [0u8; 16 * 1024];
            match self.inner.read(&mut chunk) {
                Ok(0) => self.ended = true,
                Ok(n) => self.raw.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
            self.decode();
        }
        let n = buf.len().min(self.out.len() - self.at);
        buf[..n].copy_from_slice(&self.out[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(text: &str, wide: Wide, mark: bool) -> Vec<u8> {
        let text = if mark { format!("\u{feff}{text}") } else { text.to_string() };
        let mut bytes = Vec::new();
        match wide {
            Wide::Utf16Le => text.encode_utf16().for_each(|u| bytes.extend(u.to_le_bytes())),
            Wide::Utf16Be => text.encode_utf16().for_each(|u| bytes.extend(u.to_be_bytes())),
            Wide::Utf32Le => text.chars().for_each(|c| bytes.extend((c as u32).to_le_bytes())),
            Wide::Utf32Be => text.chars().for_each(|c| bytes.extend((c as u32).to_be_bytes())),
        }
        bytes
    }

    /// Reads all of `bytes` `step` bytes at a time.
    fn read_all(bytes: Vec<u8>, wide: Wide, step: usize) -> String {
        struct Steps(Vec<u8>, usize, usize);
        impl Read for Steps {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = buf.len().min(self.2).min(self.0.len() - self.1);
                buf[..n].copy_from_slice(&self.0[self.1..self.1 + n]);
                self.1 += n;
                Ok(n)
            }
        }
        let mut text = String::new();
        Transcoder::new(Steps(bytes, 0, step), wide).read_to_string(&mut text).unwrap();
        text
    }

    #[test]
    fn every_wide_encoding_is_told_and_read_however_reads_are_split() {
        let log = "[2026-05-25 08:00:01] Load weight begin. avail mem=78.50 GB\nRuntimeError: 🚀 é\n";
        for wide in [Wide::Utf16Le, Wide::Utf16Be, Wide::Utf32Le, Wide::Utf32Be] {
            for mark in [true, false] {
                let bytes = encode(log, wide, mark);
                assert_eq!(sniff_wide(&bytes), Some(wide), "{wide:?}, mark {mark}");
                for step in [1, 3, 7, 4096] {
                    assert_eq!(read_all(bytes.clone(), wide, step), log, "{wide:?} {mark} {step}");
                }
            }
        }
    }

    #[test]
    fn utf8_text_and_nul_runs_are_not_wide() {
        assert_eq!(sniff_wide(b"[2026-05-25 08:00:01] Load weight begin.\n"), None);
        assert_eq!(sniff_wide(&[0u8; 4096]), None);
        assert_eq!(sniff_wide(b"a\0b\0"), None, "too short to tell");
        let cut = [b"[2026-05-25 08:00:01] Load weight begin.\n".as_slice(), &[0u8; 512]].concat();
        assert_eq!(sniff_wide(&cut), None, "a log that ends in NUL bytes");
    }

    #[test]
    fn text_with_progress_bars_or_cjk_is_told_without_a_mark() {
        let log = "Loading checkpoint shards: 100%|██████████████████████████| 4/4 [00:03<00:00]\n模型加载完成 ok\n";
        for wide in [Wide::Utf16Le, Wide::Utf16Be, Wide::Utf32Le, Wide::Utf32Be] {
            assert_eq!(sniff_wide(&encode(log, wide, false)), Some(wide), "{wide:?}");
        }
    }

    #[test]
    fn a_lone_surrogate_and_a_cut_unit_become_replacement_characters() {
        let mut bytes = encode("ok", Wide::Utf16Le, false);
        bytes.extend([0x00, 0xd8, b'x', 0]); // a high surrogate without its pair
        bytes.push(b'y'); // half a unit
        assert_eq!(read_all(bytes, Wide::Utf16Le, 2), "ok\u{fffd}x\u{fffd}");
    }
}
