//! Looking at the start of a stream before reading it: the first bytes
//! decide its shape (text, journal JSON, export…), and they must be the
//! same however a pipe happens to split its reads.

use std::io::{self, BufRead, Read};

/// Reads the first `size` bytes of `reader` (fewer at its end) and gives
/// them back with a reader that still starts at the beginning. Looking at a
/// head read this way, rather than at whatever the first read returned,
/// makes the decision the same however a pipe splits the bytes. A read
/// error is kept for after the head, so what was read is still judged.
pub fn with_head<R: BufRead>(reader: R, size: usize) -> (Vec<u8>, WithHead<R>) {
    with_head_until(reader, size, |_| false)
}

/// Like [`with_head`], for a followed input whose reads fail with
/// [`io::ErrorKind::WouldBlock`] when it is quiet (see
/// [`crate::input::follow`]): the head is what came before the first quiet
/// moment, unless `wants_more` says it is too little to decide on, in which
/// case reading waits for more. The quiet signal that ends the head is
/// kept for after it, like an error.
pub fn with_head_until<R: BufRead>(
    mut reader: R,
    size: usize,
    wants_more: impl Fn(&[u8]) -> bool,
) -> (Vec<u8>, WithHead<R>) {
    let mut head = Vec::with_capacity(size.min(64 * 1024));
    let mut limited = (&mut reader).take(size as u64);
    let pending = loop {
        match limited.read_to_end(&mut head) {
            Ok(_) => break None,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock && wants_more(&head) => continue,
            Err(e) => break Some(e),
        }
    };
    // What decides the shape is the text after a byte-order mark (the
    // line reader drops it too).
    let looked_at = head.strip_prefix(super::lines::BOM).unwrap_or(&head).to_vec();
    (looked_at, io::Cursor::new(head).chain(Deferred { pending, inner: reader }))
}

/// A part's reader after [`with_head`]: its head again, then the rest.
pub(super) type WithHead<R> = io::Chain<io::Cursor<Vec<u8>>, Deferred<R>>;

/// A reader whose first read reports an error met earlier.
pub struct Deferred<R> {
    pending: Option<io::Error>,
    inner: R,
}

impl<R> Deferred<R> {
    /// `inner`, whose first read reports `pending` if there is one.
    pub fn new(pending: Option<io::Error>, inner: R) -> Self {
        Deferred { pending, inner }
    }
}

impl<R: Read> Read for Deferred<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.pending.take() {
            Some(e) => Err(e),
            None => self.inner.read(buf),
        }
    }
}

impl<R: BufRead> BufRead for Deferred<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        match self.pending.take() {
            Some(e) => Err(e),
            None => self.inner.fill_buf(),
        }
    }

    fn consume(&mut self, amount: usize) {
        self.inner.consume(amount)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hands out one byte per read, then fails.
    struct Trickle(Vec<u8>, usize);

    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            match self.0.get(self.1) {
                Some(&b) if !buf.is_empty() => {
                    buf[0] = b;
                    self.1 += 1;
                    Ok(1)
                }
                _ => Err(io::Error::other("device gone")),
            }
        }
    }

    #[test]
    fn the_head_is_whole_and_an_error_comes_after_it() {
        let reader = io::BufReader::with_capacity(1, Trickle(b"__CURSOR=s=1\nMESSAGE=x\n".to_vec(), 0));
        let (head, mut rest) = with_head(reader, 8);
        assert_eq!(head, b"__CURSOR");
        let mut all = Vec::new();
        let error = rest.read_to_end(&mut all).unwrap_err();
        assert_eq!(all, b"__CURSOR=s=1\nMESSAGE=x\n");
        assert_eq!(error.to_string(), "device gone");

        let (head, mut rest) = with_head(io::BufReader::new(Trickle(b"ab".to_vec(), 0)), 8);
        assert_eq!(head, b"ab", "what was read before the error");
        let mut all = Vec::new();
        assert!(rest.read_to_end(&mut all).is_err());
        assert_eq!(all, b"ab");
    }
}
