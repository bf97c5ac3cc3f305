//! Making log text safe for a terminal.
//!
//! Log lines can hold escape sequences, carriage returns, NULs and other
//! control characters, and invisible ones (bidirectional overrides,
//! zero-width characters, tag characters) that make text read other than
//! it is. Printed raw they can recolour or rewrite the user's terminal, so
//! text output shows every control and format character (Unicode general
//! categories Cc, Cf, Zl, Zp) escaped (`\x1b`, `\r`, `\u{200b}`). The same
//! goes for names (paths, rule files, test cases): they come from the same
//! untrusted places. JSON output needs no such step: it is for programs,
//! and serde_json escapes control characters.

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

/// Escapes as [`for_terminal`] does, but keeps line breaks: for text of
/// several lines (a table, a rule's description).
pub fn for_terminal_lines(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c != '\n' && is_control(c)) {
        return Cow::Borrowed(text);
    }
    let lines: Vec<Cow<'_, str>> = text.split('\n').map(for_terminal).collect();
    Cow::Owned(lines.join("\n"))
}

/// Control characters (Cc), format characters (Cf), the line and
/// paragraph separators (Zl, Zp), as of Unicode 16, and the letters and
/// marks that Unicode says to render as nothing (default-ignorable): the
/// Hangul fillers, the combining grapheme joiner, Khmer's inherent vowels
/// and Mongolian's variation selectors. A filler makes a name look empty or
/// two names alike. (The emoji variation selectors stay: logs use them.)
fn is_control(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{ad}'
                | '\u{34f}'
                | '\u{115f}'..='\u{1160}'
                | '\u{17b4}'..='\u{17b5}'
                | '\u{180b}'..='\u{180d}'
                | '\u{180f}'
                | '\u{3164}'
                | '\u{ffa0}'
                | '\u{600}'..='\u{605}'
                | '\u{61c}'
                | '\u{6dd}'
                | '\u{70f}'
                | '\u{890}'..='\u{891}'
                | '\u{8e2}'
                | '\u{180e}'
                | '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{206f}'
                | '\u{feff}'
                | '\u{fff9}'..='\u{fffb}'
                | '\u{110bd}'
                | '\u{110cd}'
                | '\u{13430}'..='\u{1343f}'
                | '\u{1bca0}'..='\u{1bca3}'
                | '\u{1d173}'..='\u{1d17a}'
                | '\u{e0001}'
                | '\u{e0020}'..='\u{e007f}'
        )
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
    fn invisible_characters_are_shown() {
        for c in [
            '\u{200e}',
            '\u{200f}',
            '\u{61c}',
            '\u{200b}',
            '\u{200d}',
            '\u{2060}',
            '\u{2064}',
            '\u{feff}',
            '\u{e0001}',
            '\u{e0041}',
            '\u{e007f}',
            '\u{2028}',
            '\u{2029}',
            '\u{ad}',
            '\u{206a}',
            '\u{206f}',
            // Letters that render as nothing: Hangul's fillers.
            '\u{3164}',
            '\u{115f}',
            '\u{1160}',
            '\u{ffa0}',
            '\u{34f}',
        ] {
            let text = format!("a{c}b");
            assert_eq!(for_terminal(&text), format!("a\\u{{{:x}}}b", c as u32), "U+{:04X}", c as u32);
        }
        // Letters, marks and symbols of every script stay as they are.
        assert_eq!(for_terminal("é ü 日本 ✓ 🙂 ا"), "é ü 日本 ✓ 🙂 ا");
        assert_eq!(for_terminal_lines("a\u{200b}\nb\x1b"), "a\\u{200b}\nb\\x1b");
    }
}
