//! The files of a stream: each [`Part`] begins at a stream line, and
//! [`Parts`] names any stream line by its file and its number there (in a
//! file read newest first, through how it was put in time order).

use crate::input::follow::Change;
use crate::input::Reversal;

/// A file of the stream (the first one, a rotated one, the file a
/// followed path has after a truncation or a rotation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// Its name in reports.
    pub name: String,
    /// The stream line its first line is.
    pub first_line: u64,
    /// How it was put in time order, when it was written newest first. A
    /// part read that way is announced again once this is known.
    pub reversed: Option<Reversal>,
    /// What happened to a followed path before this file: it was
    /// truncated, or another file took its name.
    pub after: Option<Change>,
}

/// The parts of a stream, in stream order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parts(Vec<Part>);

impl Parts {
    /// The parts of a stream named `name` before its files are known: one,
    /// from its first line.
    pub fn starting(name: &str) -> Self {
        Parts(vec![Part { name: name.to_string(), first_line: 1, reversed: None, after: None }])
    }

    /// Records a part; one announced again (at the same first line)
    /// replaces what was known of it.
    pub fn note(&mut self, part: Part) {
        match self.0.iter_mut().find(|p| p.first_line == part.first_line) {
            Some(same) => *same = part,
            None => self.0.push(part),
        }
    }

    /// Gives the part that begins at stream line `first_line` (a followed
    /// file rotated away) its new name.
    pub fn rename(&mut self, first_line: u64, name: &str) {
        if let Some(part) = self.0.iter_mut().find(|p| p.first_line == first_line.max(1)) {
            part.name = name.to_string();
        }
    }

    /// How many files the stream has had.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether no part was recorded.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The file holding stream line `line`, and the line's number there.
    pub fn locate(&self, line: u64) -> (&str, u64) {
        let part = self.0.iter().rev().find(|p| p.first_line <= line).or(self.0.first());
        let Some(part) = part else { return ("", line) };
        let offset = line.saturating_sub(part.first_line);
        let local = match &part.reversed {
            Some(reversal) => reversal.file_line(offset),
            None => offset + 1,
        };
        (part.name.as_str(), local)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(name: &str, first_line: u64, reversed: Option<Reversal>) -> Part {
        Part { name: name.to_string(), first_line, reversed, after: None }
    }

    #[test]
    fn a_line_is_named_by_its_file_and_its_number_there() {
        let mut parts = Parts::default();
        parts.note(part("a.log.1", 1, None));
        parts.note(part("a.log", 11, None));
        assert_eq!(parts.locate(3), ("a.log.1", 3));
        assert_eq!(parts.locate(12), ("a.log", 2));
        // A part announced again once it is known to be newest first.
        parts.note(part("a.log", 11, Some(Reversal { lines: 5, entry_lines: Vec::new() })));
        assert_eq!(parts.locate(11), ("a.log", 5));
        assert_eq!(parts.locate(15), ("a.log", 1));
    }
}
