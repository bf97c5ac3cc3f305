//! Terminal escape sequences in log lines (colours, cursor moves, window
//! titles) are removed before framing, so prefixes and messages are matched
//! as the user reads them.

use std::borrow::Cow;

/// Removes terminal escape sequences (colours, cursor moves, window
/// titles) so prefixes and messages are matched as the user reads them.
pub fn without_escapes(text: &str) -> Cow<'_, str> {
    if memchr::memchr(0x1b, text.as_bytes()).is_none() {
        return Cow::Borrowed(text);
    }
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
    Cow::Owned(out)
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
}
