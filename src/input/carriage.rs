//! Text whose lines end with a carriage return alone (classic Mac OS, some
//! serial consoles and Windows tools' exports): told by its head holding
//! carriage returns and no line feed, and read with each one as a line's
//! end, so its lines are numbered as an editor shows them.

use std::io::{self, Read};

/// Whether `head` ends its lines with a carriage return alone: it holds
/// two or more and no line feed (a progress bar's redraws end with a line
/// feed somewhere in a log's first kilobytes).
pub(super) fn ends_lines_with_cr(head: &[u8]) -> bool {
    !head.contains(&b'\n') && head.iter().filter(|&&b| b == b'\r').count() >= 2
}

/// Reads text with `\r` line ends as text with `\n` ones (a `\r\n` pair,
/// should one come later, stays one line end).
pub(super) struct CrLines<R> {
    inner: R,
    after_cr: bool,
}

impl<R: Read> CrLines<R> {
    pub(super) fn new(inner: R) -> Self {
        CrLines { inner, after_cr: false }
    }
}

impl<R: Read> Read for CrLines<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let n = self.inner.read(buf)?;
            if n == 0 {
                return Ok(0);
            }
            let mut kept = 0;
            for i in 0..n {
                let byte = buf[i];
                if byte == b'\n' && self.after_cr {
                    self.after_cr = false;
                    continue;
                }
                self.after_cr = byte == b'\r';
                buf[kept] = if self.after_cr { b'\n' } else { byte };
                kept += 1;
            }
            if kept > 0 {
                return Ok(kept);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn carriage_returns_end_lines_and_a_pair_ends_one() {
        assert!(ends_lines_with_cr(b"one\rtwo\rthree"));
        assert!(!ends_lines_with_cr(b"one\r\ntwo\r\n"), "CRLF");
        assert!(!ends_lines_with_cr(b"50%|#####\r60%|######"), "one redraw is no line structure");
        let mut text = String::new();
        CrLines::new(&b"one\rtwo\r\nthree\r"[..]).read_to_string(&mut text).unwrap();
        assert_eq!(text, "one\ntwo\nthree\n");
    }
}
