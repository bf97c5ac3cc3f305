//! Making log text safe for a terminal.
//!
//! Log lines can hold escape sequences, carriage returns, NULs and other
//! control characters. Printed raw they can recolour or rewrite the user's
//! terminal, so text output shows them escaped (`\x1b`, `\r`, `\u{9b}`).
//! JSON output needs no such step: serde_json escapes control characters.

use std::borrow::Cow;

/// Escapes C0 and C1 control characters (tabs become a space).
pub fn for_terminal(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\t' => out.push(' '),
            '\r' => out.push_str("\\r"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if is_control(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

fn is_control(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Shortens `text` to at most `max` characters, marking the cut with `…`.
pub fn clip(text: &str, max: usize) -> Cow<'_, str> {
    match text.char_indices().nth(max) {
        None => Cow::Borrowed(text),
        Some((at, _)) => Cow::Owned(format!("{}…", &text[..at])),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_never_reach_the_terminal() {
        assert_eq!(for_terminal("a\x1b[31mred\x1b[0m\r\0z"), "a\\x1b[31mred\\x1b[0m\\r\\x00z");
        assert_eq!(for_terminal("c1 \u{9b}31m"), "c1 \\u{9b}31m");
        assert_eq!(for_terminal("plain █ text"), "plain █ text");
        assert_eq!(for_terminal("bidi \u{202e}x"), "bidi \\u{202e}x");
    }

    #[test]
    fn clip_counts_characters() {
        assert_eq!(clip("██████", 3), "███…");
        assert_eq!(clip("abc", 3), "abc");
    }
}
