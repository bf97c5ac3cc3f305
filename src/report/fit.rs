//! Fitting text to a width: prose wrapped at word boundaries under a
//! hanging indent, evidence cut with `…`.
//!
//! Widths are display widths (a CJK character takes two columns, a
//! box-drawing character one); colour codes take none. With no width
//! (a pipe), text is left as it is: a script gets whole lines.

use std::borrow::Cow;
use std::fmt::Write as _;

use textwrap::{WordSeparator, WordSplitter, WrapAlgorithm};
use unicode_width::UnicodeWidthChar;

/// The display width of `text` (colour codes take no columns).
pub(super) fn width_of(text: &str) -> usize {
    textwrap::core::display_width(text)
}

/// Appends `text` as lines of at most `width` columns: the first after
/// `first`, the others after `rest` (a hanging indent). Words longer than
/// a line are broken; with no width, `text` stays one line.
pub(super) fn push_wrapped(out: &mut String, width: Option<usize>, first: &str, rest: &str, text: &str) {
    let Some(width) = width else {
        let _ = writeln!(out, "{first}{text}");
        return;
    };
    let options = textwrap::Options::new(width)
        .initial_indent(first)
        .subsequent_indent(rest)
        .word_separator(WordSeparator::AsciiSpace)
        .word_splitter(WordSplitter::NoHyphenation)
        .wrap_algorithm(WrapAlgorithm::FirstFit)
        .break_words(true);
    for line in textwrap::wrap(text, &options) {
        out.push_str(&line);
        out.push('\n');
    }
}

/// `text` cut to at most `room` columns, the cut marked with `…` (which
/// takes the last column); `None`: whole.
pub(super) fn cut(text: &str, room: Option<usize>) -> Cow<'_, str> {
    let Some(room) = room else { return Cow::Borrowed(text) };
    if width_of(text) <= room {
        return Cow::Borrowed(text);
    }
    let mut used = 0;
    let mut end = 0;
    for (at, c) in text.char_indices() {
        let w = c.width().unwrap_or(0);
        if used + w > room.saturating_sub(1) {
            break;
        }
        used += w;
        end = at + c.len_utf8();
    }
    Cow::Owned(format!("{}…", &text[..end]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wrapped(width: Option<usize>, first: &str, rest: &str, text: &str) -> String {
        let mut out = String::new();
        push_wrapped(&mut out, width, first, rest, text);
        out
    }

    #[test]
    fn prose_wraps_at_words_under_a_hanging_indent() {
        let text = "FlashInfer's JIT arch check found no target architecture it supports.";
        assert_eq!(
            wrapped(Some(34), "  Hint: ", "        ", text),
            "  Hint: FlashInfer's JIT arch\n        check found no target\n        architecture it supports.\n"
        );
        assert_eq!(wrapped(None, "  Hint: ", "        ", text), format!("  Hint: {text}\n"));
    }

    #[test]
    fn every_wrapped_line_fits_even_with_long_words_and_colour() {
        let text = "a/very/long/path/that/cannot/fit/on/one/line/of/this/width \x1b[35mrule.id\x1b[0m 日本語のテキスト";
        let out = wrapped(Some(20), "", "  ", text);
        for line in out.lines() {
            assert!(width_of(line) <= 20, "{line:?} in {out}");
        }
        assert!(out.contains("\x1b[35mrule.id\x1b[0m"), "{out}");
    }

    #[test]
    fn evidence_is_cut_by_display_width() {
        assert_eq!(cut("abcdef", Some(4)), "abc…");
        assert_eq!(cut("abcd", Some(4)), "abcd");
        assert_eq!(cut("日本語のテキスト", Some(5)), "日本…");
        assert_eq!(cut("│││││", Some(3)), "││…");
        assert_eq!(cut("abcdef", None), "abcdef");
    }
}
