//! Colour in the text report: ANSI SGR codes around what the eye looks for
//! first (the verdict, each run's outcome, the decisive evidence line, rule
//! ids), and nothing else, so the colour means something.
//!
//! Text is escaped for the terminal before it is painted (log text can
//! never carry a code of its own), and every painted span ends with a
//! reset, so a span cut or wrapped never colours what follows.

use super::terminal::Color;
use crate::engine::diagnosis::{Outcome, Verdict};

/// An SGR parameter list: what a span looks like.
#[derive(Debug, Clone, Copy)]
struct Sgr(&'static str);

const BOLD_RED: Sgr = Sgr("1;31");
const BOLD_YELLOW: Sgr = Sgr("1;33");
const BOLD_GREEN: Sgr = Sgr("1;32");
const GREEN: Sgr = Sgr("32");
const CYAN: Sgr = Sgr("36");
const MAGENTA: Sgr = Sgr("35");
const BOLD: Sgr = Sgr("1");

/// Paints spans of the report, or leaves them plain.
#[derive(Debug, Clone, Copy)]
pub(super) struct Paint(pub Color);

impl Paint {
    fn span(self, sgr: Sgr, text: &str) -> String {
        match self.0 {
            Color::On => format!("\x1b[{}m{text}\x1b[0m", sgr.0),
            Color::Off => text.to_string(),
        }
    }

    /// The report's last line: a crash in red, a hang or a collapse in
    /// yellow, no crash in green.
    pub(super) fn verdict(self, verdict: Verdict, text: &str) -> String {
        let sgr = match verdict {
            Verdict::Crash => BOLD_RED,
            Verdict::Hung | Verdict::Degraded => BOLD_YELLOW,
            Verdict::NoCrash => BOLD_GREEN,
        };
        self.span(sgr, text)
    }

    /// A run's outcome: what went wrong in bold red or yellow, a healthy
    /// run in green, a run on its way up or down in cyan, unknown plain.
    pub(super) fn outcome(self, outcome: Outcome, text: &str) -> String {
        match outcome {
            Outcome::Crash => self.span(BOLD_RED, text),
            Outcome::Hung | Outcome::Degraded => self.span(BOLD_YELLOW, text),
            Outcome::Healthy => self.span(GREEN, text),
            Outcome::Starting | Outcome::Stopped => self.span(CYAN, text),
            Outcome::Unknown => text.to_string(),
        }
    }

    /// A collapse (`DEGRADED`): as loud as a hang.
    pub(super) fn degraded(self, text: &str) -> String {
        self.span(BOLD_YELLOW, text)
    }

    /// The `>` that marks the decisive line, with its number.
    pub(super) fn decisive_mark(self, text: &str) -> String {
        self.span(BOLD_RED, text)
    }

    /// The decisive line's text.
    pub(super) fn decisive_text(self, text: &str) -> String {
        self.span(BOLD, text)
    }

    /// A rule id.
    pub(super) fn rule(self, id: &str) -> String {
        self.span(MAGENTA, id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_stays_plain_and_colour_always_resets() {
        assert_eq!(Paint(Color::Off).verdict(Verdict::Crash, "crash"), "crash");
        assert_eq!(Paint(Color::On).verdict(Verdict::Crash, "crash"), "\x1b[1;31mcrash\x1b[0m");
        assert_eq!(Paint(Color::On).rule("a.b"), "\x1b[35ma.b\x1b[0m");
        assert_eq!(Paint(Color::On).outcome(Outcome::Unknown, "unknown"), "unknown");
    }
}
