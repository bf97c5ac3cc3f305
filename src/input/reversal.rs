//! How a file read newest first was put back in time order, so that a
//! report can still name each line by its number in the file.

/// A part that was read newest first and put in time order: its entries
/// (lines, or runs of lines for journal modes whose entries span lines)
/// came in reverse order, each entry's own lines in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reversal {
    /// The part's line count.
    pub lines: u64,
    /// The first line (from 0, in file order) of each entry, ascending;
    /// empty when every line is an entry.
    pub entry_lines: Vec<u64>,
}

impl Reversal {
    /// The file line (from 1) of the line `index` lines into the
    /// reordered part.
    pub fn file_line(&self, index: u64) -> u64 {
        let total = self.lines;
        let index = index.min(total.saturating_sub(1));
        if self.entry_lines.is_empty() {
            return total - index;
        }
        // The entry holding it ends, in the file, at or after line
        // `total - index`, and starts before it.
        let beyond = total - index;
        let k = self.entry_lines.partition_point(|&start| start < beyond).saturating_sub(1);
        let start = self.entry_lines[k];
        let end = self.entry_lines.get(k + 1).copied().unwrap_or(total);
        let stream_start = total - end;
        start + (index - stream_start) + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_of_several_lines_keep_their_order() {
        // File: entry A = lines 1-3, B = 4-5, C = 6-9; read as C, B, A.
        let reversal = Reversal { lines: 9, entry_lines: vec![0, 3, 5] };
        let read: Vec<u64> = (0..9).map(|i| reversal.file_line(i)).collect();
        assert_eq!(read, vec![6, 7, 8, 9, 4, 5, 1, 2, 3]);
    }
}
