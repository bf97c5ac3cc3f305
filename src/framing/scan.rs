//! A tiny byte cursor for the hand-written prefix grammars.
//!
//! Every framing parser runs on every line, so they are written as plain
//! byte scans that allocate nothing and give up at the first byte that does
//! not fit.

/// Whether a clock may carry a fraction of a second.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Fraction {
    /// `HH:MM:SS` only.
    Never,
    /// `HH:MM:SS` or `HH:MM:SS.123456`.
    Optional,
}

/// A position in a byte string, advanced by the matching methods. A failed
/// match leaves the position where it was only if the caller restores it;
/// parsers work on a copy and commit by returning the new position.
#[derive(Clone, Copy)]
pub(super) struct Scan<'a> {
    bytes: &'a [u8],
    /// Index of the next unread byte.
    pub pos: usize,
}

impl<'a> Scan<'a> {
    /// Starts at `pos` in `text`.
    pub(super) fn at(text: &'a str, pos: usize) -> Self {
        Scan { bytes: text.as_bytes(), pos }
    }

    /// The next byte, if any.
    pub(super) fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// True when every byte was consumed.
    pub(super) fn at_end(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    /// Consumes `lit` if the input continues with it.
    pub(super) fn lit(&mut self, lit: &str) -> bool {
        if self.bytes[self.pos..].starts_with(lit.as_bytes()) {
            self.pos += lit.len();
            true
        } else {
            false
        }
    }

    /// Consumes one byte equal to `b`.
    pub(super) fn byte(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// Consumes between `min` and `max` ASCII digits; returns their value.
    pub(super) fn digits(&mut self, min: usize, max: usize) -> Option<u64> {
        let start = self.pos;
        let mut value: u64 = 0;
        while self.pos - start < max {
            match self.peek() {
                Some(b @ b'0'..=b'9') => {
                    value = value.saturating_mul(10).saturating_add(u64::from(b - b'0'));
                    self.pos += 1;
                }
                _ => break,
            }
        }
        if self.pos - start >= min {
            Some(value)
        } else {
            self.pos = start;
            None
        }
    }

    /// Consumes bytes while `pred` holds; returns how many.
    pub(super) fn take_while(&mut self, pred: impl Fn(u8) -> bool) -> usize {
        let start = self.pos;
        while let Some(b) = self.peek() {
            if !pred(b) {
                break;
            }
            self.pos += 1;
        }
        self.pos - start
    }

    /// Consumes any number of spaces; returns how many.
    pub(super) fn spaces(&mut self) -> usize {
        self.take_while(|b| b == b' ')
    }

    /// `HH:MM:SS`, followed by a fraction (`.123`) if `fraction` allows one.
    pub(super) fn clock(&mut self, fraction: Fraction) -> bool {
        let save = *self;
        let ok = self.digits(2, 2).is_some()
            && self.byte(b':')
            && self.digits(2, 2).is_some()
            && self.byte(b':')
            && self.digits(2, 2).is_some();
        if !ok {
            *self = save;
            return false;
        }
        if fraction == Fraction::Optional {
            let before = *self;
            if !(self.byte(b'.') && self.digits(1, 9).is_some()) {
                *self = before;
            }
        }
        true
    }

    /// `YYYY-MM-DD`.
    pub(super) fn date(&mut self) -> bool {
        let save = *self;
        let ok = self.digits(4, 4).is_some()
            && self.byte(b'-')
            && self.digits(2, 2).is_some()
            && self.byte(b'-')
            && self.digits(2, 2).is_some();
        if !ok {
            *self = save;
        }
        ok
    }
}

/// 0x80 in each byte of `word` (eight bytes at a time) that is an ASCII
/// digit.
pub(crate) fn digit_bytes(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // With each byte's high bit cleared no addition carries into the next
    // byte: adding 0x50 sets it iff the byte is >= b'0', 0x46 iff > b'9'.
    let low = word & !HIGHS;
    low.wrapping_add(0x50 * ONES) & !low.wrapping_add(0x46 * ONES) & !word & HIGHS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_are_found_in_every_byte_of_a_word() {
        for b in 0..=255u8 {
            let word = u64::from_le_bytes([b'x', b, b'7', 0xff, b, b'/', b':', b]);
            let expected = [
                false,
                b.is_ascii_digit(),
                true,
                false,
                b.is_ascii_digit(),
                false,
                false,
                b.is_ascii_digit(),
            ];
            let found = digit_bytes(word);
            for (i, &digit) in expected.iter().enumerate() {
                assert_eq!(found >> (i * 8) & 0xff == 0x80, digit, "byte {b:#x} at {i}");
            }
        }
    }
}
