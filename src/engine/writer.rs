//! Who wrote a line, told apart by the fields of its prefixes: a failure's
//! writer that goes on writing ordinary lines has outlived it.

crate::framing::writer_fields! {
    /// Who wrote a line: the writer fields that tell writers apart (not
    /// the time, nor the unit, which a writer keeps). A log without them
    /// has one writer.
    #[derive(Debug, Clone, Copy, Default)]
    pub(super) struct Writer<'a> {}
    writer fields [host, identifier, pid, process, ranks]: text as pub Option<&'a str>, pid as pub Option<u32>
}

impl Writer<'_> {
    /// A hash that tells writers apart.
    ///
    /// Computed for every line while some failure's writer is awaited, so
    /// it is a few multiplications, not a general-purpose hasher.
    pub(super) fn key(&self) -> u64 {
        let mut key = Mixer(0x9e37_79b9_7f4a_7c15);
        for field in [self.host, self.identifier, self.process, self.ranks] {
            match field {
                Some(text) => text.bytes().for_each(|b| key.mix(u64::from(b))),
                None => key.mix(0x100),
            }
            key.mix(0x101);
        }
        key.mix(self.pid.map_or(u64::MAX, u64::from));
        key.0
    }
}

/// A running hash of small words.
struct Mixer(u64);

impl Mixer {
    fn mix(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}
