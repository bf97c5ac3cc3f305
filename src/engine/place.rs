//! Where a line is. The engine numbers the lines of a source as one
//! stream, even when the source was read from several rotated files; a
//! report names each line by its own file and its number there.

use super::diagnosis::Evidence;
use super::run::EvidenceLine;
use super::SourceState;
use crate::pipeline::Parts;

/// Maps a source's stream line numbers to (file, line in that file).
#[derive(Debug, Clone, Copy)]
pub(super) struct Places<'a> {
    parts: &'a Parts,
}

impl<'a> Places<'a> {
    /// The places of a source's lines.
    pub(super) fn of(source: &'a SourceState) -> Self {
        Places { parts: &source.parts }
    }

    /// The file holding stream line `line`, and the line's number there.
    pub(super) fn locate(&self, line: u64) -> (&'a str, u64) {
        self.parts.locate(line)
    }

    /// `line 34`, or `line 34 of x.log.1` when the source has several files.
    pub(super) fn cite(&self, line: u64) -> String {
        let (name, local) = self.locate(line);
        if self.parts.len() > 1 {
            format!("line {local} of {name}")
        } else {
            format!("line {local}")
        }
    }
}

/// Evidence for stream line `line`, named by its own file and number.
pub(super) fn evidence_at(places: Places<'_>, line: u64, kept: &EvidenceLine) -> Evidence {
    let (source, number) = places.locate(line);
    Evidence { source: source.to_string(), line: number, text: kept.text.clone(), cut_bytes: kept.cut }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Reversal;
    use crate::pipeline::Part;

    fn parts_of(list: Vec<(&str, u64, Option<Reversal>)>) -> Parts {
        let mut parts = Parts::default();
        for (name, first_line, reversed) in list {
            parts.note(Part { name: name.to_string(), first_line, reversed, after: None });
        }
        parts
    }

    #[test]
    fn lines_map_to_their_own_file() {
        let parts = parts_of(vec![("x.log.2.gz", 1, None), ("x.log.1", 101, None), ("x.log", 151, None)]);
        let places = Places { parts: &parts };
        assert_eq!(places.locate(1), ("x.log.2.gz", 1));
        assert_eq!(places.locate(100), ("x.log.2.gz", 100));
        assert_eq!(places.locate(101), ("x.log.1", 1));
        assert_eq!(places.locate(160), ("x.log", 10));
        assert_eq!(places.cite(160), "line 10 of x.log");
        let single = parts_of(vec![("a.log", 1, None)]);
        assert_eq!(Places { parts: &single }.cite(7), "line 7");
        let lines = Reversal { lines: 4, entry_lines: Vec::new() };
        let reversed = parts_of(vec![("r.log", 1, Some(lines))]);
        let places = Places { parts: &reversed };
        assert_eq!((places.locate(1), places.locate(4)), (("r.log", 4), ("r.log", 1)));
    }
}
