//! What is kept of a runaway JSON record: a line longer than the cap
//! keeps only its start, but a journal record (`journalctl -o json`) may
//! put a big field (a core dump, an environment) before its `MESSAGE`.
//! The message is looked for in the bytes the cap drops, and, when found,
//! put at the front of what is kept, so the record is read with it.

/// The field looked for, as JSON writes its name.
const KEY: &[u8] = b"\"MESSAGE\":";

/// Most bytes of a message value kept this way.
const VALUE_BYTES: usize = 256 << 10;

/// The search for the message of the runaway line being read.
#[derive(Debug, Default)]
pub(super) struct MessageSalvage {
    /// The line's kept start already has a message, or one was put there.
    done: bool,
    /// Whether the kept start was searched.
    head_searched: bool,
    /// The last bytes dropped, for a name split between two drops.
    carry: Vec<u8>,
}

impl MessageSalvage {
    /// The next line starts afresh.
    pub(super) fn reset(&mut self) {
        *self = MessageSalvage::default();
    }

    /// `line[drop..end]` of a runaway line (the start, `line[..drop]`, is
    /// kept) is about to be dropped: when the line is a JSON object whose
    /// kept start has no message and the dropped bytes hold one, the start
    /// becomes `{"MESSAGE":…,` and the rest of the old start, cut to fit.
    pub(super) fn before_drop(&mut self, line: &mut [u8], drop: usize, end: usize) {
        if self.done || line.first() != Some(&b'{') {
            return;
        }
        if !self.head_searched {
            self.head_searched = true;
            if memchr::memmem::find(&line[..drop], KEY).is_some() {
                self.done = true;
                return;
            }
        }
        let dropped = &line[drop..end];
        let value_at = self.find_key(dropped).map(|at| drop + at);
        self.carry.clear();
        self.carry.extend_from_slice(&dropped[dropped.len().saturating_sub(KEY.len() - 1)..]);
        let Some(value_at) = value_at else { return };
        self.done = true;
        let value = json_value(&line[value_at..end.min(value_at + VALUE_BYTES)]);
        let mut front = Vec::with_capacity(KEY.len() + value.len() + 3);
        front.push(b'{');
        front.extend_from_slice(KEY);
        front.extend_from_slice(value);
        if value.first() == Some(&b'"') && (value.len() < 2 || !closes_string(value)) {
            front.push(b'"');
        }
        front.push(b',');
        if front.len() >= drop {
            return;
        }
        // The old start moves back to make room (its end is dropped).
        line.copy_within(1..drop - front.len() + 1, front.len());
        line[..front.len()].copy_from_slice(&front);
    }

    /// Where the value after the key starts in `dropped`, the key perhaps
    /// begun in the bytes dropped before.
    fn find_key(&self, dropped: &[u8]) -> Option<usize> {
        if !self.carry.is_empty() {
            let mut seam = self.carry.clone();
            seam.extend_from_slice(&dropped[..dropped.len().min(KEY.len() - 1)]);
            if let Some(at) = memchr::memmem::find(&seam, KEY) {
                return (at + KEY.len()).checked_sub(self.carry.len());
            }
        }
        memchr::memmem::find(dropped, KEY).map(|at| at + KEY.len())
    }
}

/// The JSON value at the start of `bytes` (after spaces): a string to its
/// closing quote, an array to its `]`, anything else to a `,` or `}`; all
/// of `bytes` when it does not end in them.
fn json_value(bytes: &[u8]) -> &[u8] {
    let start = bytes.iter().take_while(|b| b.is_ascii_whitespace()).count();
    let value = &bytes[start..];
    let end = match value.first() {
        Some(b'"') => {
            let mut escaped = false;
            value.iter().enumerate().skip(1).find_map(|(i, &b)| {
                let closes = b == b'"' && !escaped;
                escaped = b == b'\\' && !escaped;
                closes.then_some(i + 1)
            })
        }
        Some(b'[') => memchr::memchr(b']', value).map(|i| i + 1),
        _ => value.iter().position(|&b| b == b',' || b == b'}'),
    };
    &value[..end.unwrap_or(value.len())]
}

/// Whether a string value (its opening quote first) ends with its
/// closing quote.
fn closes_string(value: &[u8]) -> bool {
    let trailing = value[1..value.len() - 1].iter().rev().take_while(|&&b| b == b'\\').count();
    value.ends_with(b"\"") && trailing % 2 == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `line` kept to `keep` bytes, what is dropped coming in pieces
    /// that end at `ends` (as a reader's blocks bring it).
    fn kept(line: &str, keep: usize, ends: &[usize]) -> String {
        let bytes = line.as_bytes();
        let mut salvage = MessageSalvage::default();
        let mut held = bytes[..keep].to_vec();
        let mut from = keep;
        for &end in ends {
            held.truncate(keep);
            held.extend_from_slice(&bytes[from..end]);
            let end = held.len();
            salvage.before_drop(&mut held, keep, end);
            from = end;
        }
        held.truncate(keep);
        String::from_utf8_lossy(&held).into_owned()
    }

    fn big_first() -> String {
        format!(
            "{{\"_BIG\":\"{}\",\"MESSAGE\":\"CUDA out of \\\"memory\\\"\",\"_PID\":\"7\"}}",
            "x".repeat(100)
        )
    }

    #[test]
    fn a_message_after_a_big_field_is_put_first() {
        let line = big_first();
        let kept = kept(&line, 60, &[line.len()]);
        assert!(kept.starts_with("{\"MESSAGE\":\"CUDA out of \\\"memory\\\"\",\"_BIG\":\"xxx"), "{kept}");
        assert_eq!(kept.len(), 60);
    }

    #[test]
    fn a_name_split_between_two_drops_is_found() {
        let line = big_first();
        let at = line.find("MESSAGE").unwrap();
        let kept = kept(&line, 60, &[at + 2, line.len()]);
        assert!(kept.starts_with("{\"MESSAGE\":\"CUDA out of"), "{kept}");
    }

    #[test]
    fn a_line_that_keeps_its_message_or_is_no_object_is_left_alone() {
        let early = format!("{{\"MESSAGE\":\"hi\",\"_BIG\":\"{}\",\"MESSAGE\":\"later\"}}", "x".repeat(100));
        assert_eq!(kept(&early, 40, &[early.len()]), early[..40]);
        let text = format!("plain {} \"MESSAGE\":\"x\"", "y".repeat(100));
        assert_eq!(kept(&text, 40, &[text.len()]), text[..40]);
    }
}
