//! Lines a terminal cut: `systemctl status`, `journalctl` on a terminal,
//! `kubectl` and `docker` shorten a line to the terminal's width and end
//! it with `…`. A paste of that output has lost the end of those lines,
//! often the error itself, and the report should say so and give the
//! command that prints them whole.
//!
//! A line that ends in `…` is not always cut (`Loading weights…`). Cut
//! lines are told apart by what cut them: a status block's lines, or
//! several lines of one width (the terminal's).

use crate::notice::Notice;

/// At most this many widths are counted (a terminal has one).
const WIDTHS: usize = 8;

/// The lines of a source that end in `…`.
#[derive(Debug, Clone, Default)]
pub(super) struct Ellipsized {
    /// By width in characters: (width, lines).
    widths: Vec<(usize, u64)>,
    /// Any within a `systemctl status` block.
    in_status: bool,
    /// All of them: (lines, first line).
    all: (u64, u64),
}

impl Ellipsized {
    /// Counts line `number` if it ends in `…`.
    pub(super) fn note(&mut self, number: u64, text: &str, in_status: bool) {
        let text = text.trim_end_matches(['\r', '\n']);
        if !text.ends_with('…') {
            return;
        }
        self.in_status |= in_status;
        self.all.0 += 1;
        if self.all.1 == 0 {
            self.all.1 = number;
        }
        let width = text.chars().count();
        if let Some((_, lines)) = self.widths.iter_mut().find(|(w, _)| *w == width) {
            *lines += 1;
        } else if self.widths.len() < WIDTHS {
            self.widths.push((width, 1));
        }
    }

    /// The lines a terminal cut, and the first of them: every line that
    /// ends in `…`, once a status block's line or several of one width
    /// show that a terminal cut lines here.
    fn cut(&self) -> Option<(u64, u64)> {
        let one_width = self.widths.iter().any(|(_, lines)| *lines >= 2);
        (self.in_status || one_width).then_some(self.all)
    }

    /// What the report says of the cut lines, naming the commands that
    /// print them whole for `unit` (the source's unit, if it names one).
    pub(super) fn notice(&self, unit: Option<&str>) -> Option<Notice> {
        let (count, first) = self.cut()?;
        Some(Notice::CutByTerminal { count, first, unit: unit.map(str::to_string) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_lines_are_told_from_lines_that_end_in_an_ellipsis() {
        let mut own_words = Ellipsized::default();
        own_words.note(1, "Loading safetensors checkpoint shards…", false);
        own_words.note(2, "Capturing CUDA graphs…", false);
        assert_eq!(own_words.notice(None), None);
        let mut cut = Ellipsized::default();
        cut.note(
            7,
            "May 25 20:27:22 gpu-node-1 python[71283]: RuntimeError: FlashInfer requires GPUs w…",
            false,
        );
        cut.note(
            9,
            "May 25 20:27:23 gpu-node-1 systemd[1]: sglang.service: Main process exited, code=e…",
            false,
        );
        let notice = cut.notice(Some("sglang.service")).unwrap().to_string();
        assert!(notice.starts_with("2 line(s) end in `…` (the first at line 7)"), "{notice}");
        assert!(notice.contains("`systemctl status -l --no-pager sglang.service`"), "{notice}");
        let mut status = Ellipsized::default();
        status.note(
            4,
            "    Process: 71283 ExecStart=/root/venv/bin/python -m sglang.launch_server --model-p…",
            true,
        );
        assert!(status.notice(None).unwrap().to_string().contains("journalctl -u UNIT -n 200"));
    }
}
