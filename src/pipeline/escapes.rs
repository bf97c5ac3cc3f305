//! Terminal escape sequences in log lines (colours, cursor moves, window
//! titles) are removed before framing, so prefixes and messages are matched
//! as the user reads them. So are the colour codes of a pasted line that
//! opens with one whose escape byte was shown as `^[` (`cat -v`, vim) or
//! lost on the way (`[0;36m(APIServer pid=1)[0;0m INFO …`), and then a
//! carriage return shown as `^M` at its end.

use std::borrow::Cow;

/// Removes terminal escape sequences (colours, cursor moves, window
/// titles) so prefixes and messages are matched as the user reads them.
pub fn without_escapes(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let pasted = opens_with_pasted_colour(text);
    if !pasted && memchr::memchr(0x1b, bytes).is_none() {
        return Cow::Borrowed(text);
    }
    if pasted {
        if let Some(restored) = with_escape_bytes(text) {
            return Cow::Owned(without_real_escapes(&restored));
        }
        if memchr::memchr(0x1b, bytes).is_none() {
            return Cow::Borrowed(text);
        }
    }
    Cow::Owned(without_real_escapes(text))
}

/// Whether a line opens with a colour code of a paste: its escape byte
/// shown as `^[`, or lost. Only such lines are searched for more (vLLM's
/// process tag is coloured at the start of every line).
#[inline]
pub(super) fn opens_with_pasted_colour(text: &str) -> bool {
    let bytes = text.as_bytes();
    match bytes.first() {
        Some(b'^') => bytes.get(1) == Some(&b'[') && control_sequence_len(&bytes[2..]).is_some(),
        // Most lines that open with `[` open with a year (`[2026-`).
        Some(b'[') => {
            let year = bytes.get(1..5).is_some_and(|y| y.iter().all(u8::is_ascii_digit));
            !year && starts_with_bare_colour(bytes)
        }
        _ => false,
    }
}

/// The length of a colour code's body at the start of `bytes` (`[0;36m`
/// without its escape byte), if one is there.
fn bare_colour_len(bytes: &[u8]) -> Option<usize> {
    let rest = bytes.strip_prefix(b"[")?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit() || **b == b';').count();
    (digits > 0 && digits <= 16 && rest.get(digits) == Some(&b'm')).then_some(digits + 2)
}

/// A line that opens with a colour code whose escape byte was lost, and
/// has another later (a colour is set, then reset): `[5m] timeout` is
/// text.
fn starts_with_bare_colour(bytes: &[u8]) -> bool {
    // A colour code's first parameter has one to three digits, then `;`
    // or `m`: a line's own brackets (`[12/06/25 …]`) are told at once.
    let digit = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_digit);
    if bytes.first() != Some(&b'[') || !digit(1) {
        return false;
    }
    let mut i = 2;
    while i < 4 && digit(i) {
        i += 1;
    }
    if !matches!(bytes.get(i), Some(b';' | b'm')) {
        return false;
    }
    let Some(first) = bare_colour_len(bytes) else {
        return false;
    };
    memchr::memchr_iter(b'[', &bytes[first..]).any(|at| bare_colour_len(&bytes[first + at..]).is_some())
}

/// `text` with the escape bytes a paste showed as `^[` (before a colour
/// code or another control sequence) or lost (every colour code, when
/// one opens the line) put back, and a `^M` at its end removed; `None`
/// when there is nothing of that.
fn with_escape_bytes(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let lost = starts_with_bare_colour(bytes);
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'^'
            && bytes.get(i + 1) == Some(&b'[')
            && control_sequence_len(&bytes[i + 2..]).is_some()
        {
            out.push('\x1b');
            i += 2;
            changed = true;
            continue;
        }
        if lost && bytes[i] == b'[' && (i == 0 || bytes[i - 1] != 0x1b) {
            if let Some(len) = bare_colour_len(&bytes[i..]) {
                out.push('\x1b');
                out.push_str(&text[i..i + len]);
                i += len;
                changed = true;
                continue;
            }
        }
        let next = (i + 1..bytes.len()).find(|&j| matches!(bytes[j], b'^' | b'[')).unwrap_or(bytes.len());
        out.push_str(&text[i..next]);
        i = next;
    }
    if out.ends_with("^M") {
        out.truncate(out.len() - 2);
        changed = true;
    }
    changed.then_some(out)
}

/// The length of a control sequence's body at the start of `bytes`
/// (`[1;36m`, `[K`): a `[`, parameters, a final letter.
fn control_sequence_len(bytes: &[u8]) -> Option<usize> {
    let rest = bytes.strip_prefix(b"[")?;
    let params = rest.iter().take_while(|b| b.is_ascii_digit() || **b == b';').count();
    (params <= 16 && rest.get(params).is_some_and(u8::is_ascii_alphabetic)).then_some(params + 2)
}

/// Removes real escape sequences (the escape byte present).
fn without_real_escapes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\x1b' {
            out.push(c);
            continue;
        }
        match chars.peek() {
            Some('[') => {
                chars.next();
                // CSI: parameters and intermediates, then one final byte.
                for c in chars.by_ref() {
                    if ('\x40'..='\x7e').contains(&c) {
                        break;
                    }
                }
            }
            Some(']') => {
                chars.next();
                // OSC: until BEL or ESC \.
                while let Some(c) = chars.next() {
                    if c == '\x07' {
                        break;
                    }
                    if c == '\x1b' {
                        chars.next_if_eq(&'\\');
                        break;
                    }
                }
            }
            Some(_) => {
                chars.next();
            }
            None => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_and_title_sequences_are_removed() {
        assert_eq!(without_escapes("\x1b[32mINFO\x1b[0m 05-25 x"), "INFO 05-25 x");
        assert_eq!(without_escapes("a\x1b]0;title\x07b"), "ab");
        assert_eq!(without_escapes("a\x1b]0;title\x1b\\b"), "ab");
        assert_eq!(without_escapes("plain"), "plain");
    }

    #[test]
    fn colour_codes_of_a_paste_are_removed() {
        // `cat -v`'s caret notation, with a carriage return at the end.
        let caret = "^[[1;36m(EngineCore_DP0 pid=43065)^[[0;0m ERROR 01-04 04:31:09 [core.py:844] x^M";
        assert_eq!(without_escapes(caret), "(EngineCore_DP0 pid=43065) ERROR 01-04 04:31:09 [core.py:844] x");
        // The escape bytes lost: only when a colour code opens the line
        // and another follows.
        let lost = "[0;36m(APIServer pid=561117)[0;0m ERROR 05-19 12:40:41 [api_server.py:999] y";
        assert_eq!(
            without_escapes(lost),
            "(APIServer pid=561117) ERROR 05-19 12:40:41 [api_server.py:999] y"
        );
        // Text that only looks like them stays.
        for text in ["match ^[0-9]+$ in [1m] rows", "[5m] timeout", "x ^M y", "a^[b", "^[0-9] x^M"] {
            assert_eq!(without_escapes(text), text);
        }
    }
}
