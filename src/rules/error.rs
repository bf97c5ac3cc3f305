//! A problem in a rule file, and where it is: `file:line:col`, what is
//! wrong and how to put it right.

use std::fmt;
use std::ops::Range;

/// A problem in a rule file, with its position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleError {
    /// The file, as shown to the user.
    pub file: String,
    /// 1-based line (0 when the problem is the file itself).
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub help: Option<String>,
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "{}:{}:{}: {}", self.file, self.line, self.column, self.message)?;
        } else {
            write!(f, "{}: {}", self.file, self.message)?;
        }
        if let Some(help) = &self.help {
            write!(f, "\n  help: {help}")?;
        }
        Ok(())
    }
}

/// Turns byte spans of one file into `line:col` errors.
pub(super) struct Positions<'a> {
    pub(super) file: &'a str,
    pub(super) text: &'a str,
    pub(super) errors: &'a mut Vec<RuleError>,
}

impl Positions<'_> {
    pub(super) fn error(&mut self, span: Range<usize>, message: &str, help: &str) {
        let (line, column) = line_col(self.text, span.start);
        self.errors.push(RuleError {
            file: self.file.to_string(),
            line,
            column,
            message: message.to_string(),
            help: (!help.is_empty()).then(|| help.to_string()),
        });
    }
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rfind('\n').map_or(before.len(), |nl| before.len() - nl - 1) + 1;
    (line, column)
}

/// A problem with a whole file (it cannot be read, it is no directory).
pub(super) fn file_error(file: &str, message: &str, help: Option<&str>) -> RuleError {
    RuleError {
        file: file.to_string(),
        line: 0,
        column: 0,
        message: message.to_string(),
        help: help.map(str::to_string),
    }
}
