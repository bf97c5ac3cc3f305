//! Where the text report goes: how wide it may be, whether it is coloured,
//! and whether evidence lines may be cut to fit.
//!
//! These are facts about stdout and the environment, read once by
//! [`Terminal::detect`] and decided by [`Terminal::decide`], which is pure
//! so it can be tested. The report itself never asks the environment.

use std::io::{self, IsTerminal};

/// When to colour the report (`--color`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ColorChoice {
    /// Only when stdout is a terminal and `NO_COLOR` is unset or empty.
    #[default]
    Auto,
    /// Even in a pipe, and whatever `NO_COLOR` says.
    Always,
    /// Never.
    Never,
}

/// Whether the report carries colour codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Color {
    /// Plain text.
    #[default]
    Off,
    /// ANSI SGR codes around the verdict, outcomes, the decisive line and
    /// rule ids.
    On,
}

/// What to do with an evidence line longer than the width.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EvidenceLines {
    /// Print it whole: a pipe gets the full line, so scripts can grep it.
    #[default]
    Whole,
    /// Cut it to the width, marking the cut with `…` (on a terminal).
    CutToWidth,
}

/// Longest evidence line on a terminal whose width cannot be read.
const UNKNOWN_TERMINAL_WIDTH: usize = 240;

/// Narrowest width the layout honours: below it, lines are laid out as if
/// the terminal were this wide.
pub(super) const MIN_WIDTH: usize = 20;

/// How the text report is laid out. The default is a pipe's: no width
/// limit, no colour, whole lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Terminal {
    /// Columns a line may take (display width); `None`: no limit.
    pub width: Option<usize>,
    /// Colour codes or plain text.
    pub color: Color,
    /// Evidence lines cut to the width or whole.
    pub evidence: EvidenceLines,
}

/// What [`Terminal::decide`] decides from: the environment and stdout.
#[derive(Debug, Clone, Default)]
pub struct Surroundings {
    /// Is stdout a terminal.
    pub stdout_is_terminal: bool,
    /// The terminal's width in columns, when stdout is one and it says.
    pub terminal_width: Option<usize>,
    /// `COLUMNS`, as set.
    pub columns: Option<String>,
    /// `NO_COLOR`, as set.
    pub no_color: Option<String>,
}

impl Surroundings {
    /// Reads stdout and the environment.
    pub fn read() -> Self {
        let stdout_is_terminal = io::stdout().is_terminal();
        let terminal_width = stdout_is_terminal
            .then(terminal_size::terminal_size)
            .flatten()
            .map(|(width, _)| usize::from(width.0));
        Surroundings {
            stdout_is_terminal,
            terminal_width,
            columns: std::env::var("COLUMNS").ok(),
            no_color: std::env::var("NO_COLOR").ok(),
        }
    }
}

impl Terminal {
    /// The layout for stdout as it is now.
    pub fn detect(choice: ColorChoice) -> Self {
        Self::decide(choice, &Surroundings::read())
    }

    /// The layout for `surroundings`: the width is `COLUMNS` when it holds
    /// a positive number, else the terminal's; colour as `choice` says;
    /// evidence lines are cut only on a terminal.
    pub fn decide(choice: ColorChoice, surroundings: &Surroundings) -> Self {
        let columns = surroundings.columns.as_deref().and_then(|c| c.trim().parse::<usize>().ok());
        let width = columns.filter(|&c| c > 0).or(surroundings.terminal_width.filter(|&w| w > 0));
        let no_color = surroundings.no_color.as_deref().is_some_and(|v| !v.is_empty());
        let color = match choice {
            ColorChoice::Always => Color::On,
            ColorChoice::Auto if surroundings.stdout_is_terminal && !no_color => Color::On,
            ColorChoice::Auto | ColorChoice::Never => Color::Off,
        };
        let (width, evidence) = match (surroundings.stdout_is_terminal, width) {
            (true, Some(width)) => (Some(width), EvidenceLines::CutToWidth),
            // A terminal that does not say how wide it is.
            (true, None) => (None, EvidenceLines::CutToWidth),
            // COLUMNS in a pipe lays the report out, but a pipe gets whole
            // evidence lines.
            (false, width) => (width, EvidenceLines::Whole),
        };
        Terminal { width: width.map(|w| w.max(MIN_WIDTH)), color, evidence }
    }

    /// Columns an evidence line's text may take after a prefix of
    /// `prefix` columns, or `None` when it is printed whole.
    pub fn evidence_room(&self, prefix: usize) -> Option<usize> {
        match self.evidence {
            EvidenceLines::Whole => None,
            EvidenceLines::CutToWidth => {
                let width = self.width.unwrap_or(UNKNOWN_TERMINAL_WIDTH + prefix);
                Some(width.saturating_sub(prefix).max(1))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terminal(width: Option<usize>) -> Surroundings {
        Surroundings { stdout_is_terminal: true, terminal_width: width, ..Surroundings::default() }
    }

    #[test]
    fn columns_wins_over_the_terminal_and_lays_out_a_pipe_without_cutting() {
        let mut on_tty = terminal(Some(120));
        on_tty.columns = Some("80".to_string());
        let decided = Terminal::decide(ColorChoice::Auto, &on_tty);
        assert_eq!((decided.width, decided.evidence), (Some(80), EvidenceLines::CutToWidth));
        let pipe = Surroundings { columns: Some("80".to_string()), ..Surroundings::default() };
        let decided = Terminal::decide(ColorChoice::Auto, &pipe);
        assert_eq!((decided.width, decided.evidence), (Some(80), EvidenceLines::Whole));
        assert_eq!(decided.evidence_room(12), None);
    }

    #[test]
    fn an_invalid_columns_falls_back_to_the_terminal_and_a_bare_pipe_has_no_limit() {
        for bad in ["", "0", "wide", "-3"] {
            let mut on_tty = terminal(Some(100));
            on_tty.columns = Some(bad.to_string());
            assert_eq!(Terminal::decide(ColorChoice::Auto, &on_tty).width, Some(100), "{bad:?}");
        }
        assert_eq!(Terminal::decide(ColorChoice::Auto, &Surroundings::default()), Terminal::default());
        assert_eq!(Terminal::decide(ColorChoice::Auto, &terminal(Some(5))).width, Some(MIN_WIDTH));
    }

    #[test]
    fn colour_follows_the_choice_the_terminal_and_no_color() {
        let pipe = Surroundings::default();
        let mut no_color = terminal(Some(80));
        no_color.no_color = Some("1".to_string());
        let mut empty_no_color = terminal(Some(80));
        empty_no_color.no_color = Some(String::new());
        let color = |choice, s: &Surroundings| Terminal::decide(choice, s).color;
        assert_eq!(color(ColorChoice::Auto, &terminal(Some(80))), Color::On);
        assert_eq!(color(ColorChoice::Auto, &pipe), Color::Off);
        assert_eq!(color(ColorChoice::Auto, &no_color), Color::Off);
        assert_eq!(color(ColorChoice::Auto, &empty_no_color), Color::On);
        assert_eq!(color(ColorChoice::Always, &pipe), Color::On);
        assert_eq!(color(ColorChoice::Always, &no_color), Color::On);
        assert_eq!(color(ColorChoice::Never, &terminal(Some(80))), Color::Off);
    }

    #[test]
    fn evidence_is_cut_only_on_a_terminal() {
        assert_eq!(Terminal::decide(ColorChoice::Auto, &terminal(Some(80))).evidence_room(12), Some(68));
        assert_eq!(
            Terminal::decide(ColorChoice::Auto, &terminal(None)).evidence_room(12),
            Some(UNKNOWN_TERMINAL_WIDTH)
        );
    }
}
