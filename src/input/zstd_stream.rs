//! Reading zstd without losing the data before a damaged checksum.
//!
//! A zstd frame may end with a checksum of its content. When it does not
//! match, the decoder reports the error in the same call that hands out
//! the frame's last block, and that block (the end of the log: where the
//! crash is) would be lost. This reader gives the decoder one block at a
//! time (as much input as it asks for), so the last block is handed out
//! before the checksum is read; then the error is reported, as a gzip
//! reader reports a bad CRC after the data. `zstd -d` keeps the data too.

use std::io::{self, BufRead, Read};

use zstd::zstd_safe::{get_error_name, DCtx, InBuffer, OutBuffer};

/// What the decoder needs to start a frame: its magic number and first
/// header byte.
const FRAME_START: usize = 5;

/// A zstd stream (one or more frames), decoded.
pub(super) struct ZstdReader<R> {
    inner: R,
    decoder: DCtx<'static>,
    out: Vec<u8>,
    /// Decoded bytes not yet handed out: `out[start..end]`.
    start: usize,
    end: usize,
    /// How much input the decoder asked for next (0: between frames).
    wanted: usize,
    /// The output buffer was filled: the decoder may hold more to flush.
    full: bool,
    /// An error to report once the data before it is handed out.
    error: Option<io::Error>,
    done: bool,
}

impl<R: BufRead> ZstdReader<R> {
    /// Decodes the zstd stream `inner`.
    pub(super) fn new(inner: R) -> io::Result<Self> {
        let mut decoder = DCtx::create();
        decoder.init().map_err(zstd_error)?;
        Ok(ZstdReader {
            inner,
            decoder,
            out: vec![0; DCtx::out_size()],
            start: 0,
            end: 0,
            wanted: 0,
            full: false,
            error: None,
            done: false,
        })
    }

    /// Decodes the next piece into `out`.
    fn decode(&mut self) -> io::Result<()> {
        let input = self.inner.fill_buf()?;
        if input.is_empty() && !self.full {
            self.done = true;
            if self.wanted != 0 {
                self.error =
                    Some(io::Error::new(io::ErrorKind::UnexpectedEof, "the zstd stream ends mid-frame"));
            }
            return Ok(());
        }
        // While output is pending, no new input: the decoder flushes first.
        let give = if self.full { 0 } else { input.len().min(self.wanted.max(FRAME_START)) };
        let mut source = InBuffer::around(&input[..give]);
        let mut target = OutBuffer::around(&mut self.out[..]);
        let result = self.decoder.decompress_stream(&mut target, &mut source);
        let (read, written) = (source.pos(), target.pos());
        self.inner.consume(read);
        (self.start, self.end) = (0, written);
        self.full = written == self.out.len();
        match result {
            Ok(hint) => self.wanted = hint,
            Err(code) => {
                self.error = Some(zstd_error(code));
                self.done = true;
            }
        }
        Ok(())
    }
}

fn zstd_error(code: usize) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, get_error_name(code))
}

impl<R: BufRead> Read for ZstdReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.start < self.end {
                let n = buf.len().min(self.end - self.start);
                buf[..n].copy_from_slice(&self.out[self.start..self.start + n]);
                self.start += n;
                return Ok(n);
            }
            if self.done {
                return self.error.take().map_or(Ok(0), Err);
            }
            self.decode()?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(bytes: &[u8]) -> (Vec<u8>, Option<String>) {
        let mut reader = ZstdReader::new(bytes).unwrap();
        let mut out = Vec::new();
        let mut chunk = [0u8; 4096];
        loop {
            match reader.read(&mut chunk) {
                Ok(0) => return (out, None),
                Ok(n) => out.extend_from_slice(&chunk[..n]),
                Err(e) => return (out, Some(e.to_string())),
            }
        }
    }

    fn sample(lines: usize) -> Vec<u8> {
        (0..lines).map(|i| format!("line {i} {}\n", i * 7919 % 1000)).collect::<String>().into_bytes()
    }

    fn with_checksum(data: &[u8]) -> Vec<u8> {
        let mut encoder = zstd::stream::write::Encoder::new(Vec::new(), 3).unwrap();
        encoder.include_checksum(true).unwrap();
        io::Write::write_all(&mut encoder, data).unwrap();
        encoder.finish().unwrap()
    }

    #[test]
    fn frames_decode_whole() {
        let data = sample(50_000);
        let mut two = with_checksum(&data);
        two.extend(zstd::encode_all(&b"second frame\n"[..], 1).unwrap());
        let (out, error) = decode_all(&two);
        assert_eq!(error, None);
        assert_eq!(out, [&data[..], b"second frame\n"].concat());
    }

    #[test]
    fn a_damaged_checksum_keeps_all_the_data_then_says_so() {
        for lines in [10, 50_000] {
            let data = sample(lines);
            let mut damaged = with_checksum(&data);
            *damaged.last_mut().unwrap() ^= 0xff;
            let (out, error) = decode_all(&damaged);
            assert_eq!(out.len(), data.len(), "{lines} lines");
            assert_eq!(out, data);
            assert!(error.is_some_and(|e| e.contains("checksum")), "{lines} lines");
        }
    }

    #[test]
    fn a_cut_stream_keeps_what_it_has_and_says_so() {
        let data = sample(50_000);
        let whole = with_checksum(&data);
        let (out, error) = decode_all(&whole[..whole.len() / 2]);
        assert!(!out.is_empty() && data.starts_with(&out));
        assert!(error.is_some());
    }
}
