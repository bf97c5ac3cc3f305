//! Metrics for the fleet's monitoring: what `logdiag watch` judges, in
//! Prometheus' text format, written whole to a file for node_exporter's
//! textfile collector (`--metrics-file`). Names follow Prometheus'
//! conventions: `logdiag_` first, base units in the name (`_seconds`,
//! `_tokens_per_second`), `_total` on counters, and labels of closed sets
//! only (unit, state, category, launch): no free text, no evidence.

mod exposition;
mod tally;

use std::io::{self, Write};
use std::path::Path;

pub use tally::Tally;

/// Writes `text` to `path` at once, as the textfile collector needs: to a
/// temporary file beside it (a name the collector skips, not ending in
/// `.prom`), then renamed over it, so a scrape never reads half of it.
pub fn write_atomically(path: &Path, text: &str) -> io::Result<()> {
    let name = path.file_name().ok_or_else(|| io::Error::other("the metrics file needs a name"))?;
    let mut temporary = name.to_os_string();
    temporary.push(format!(".{}.tmp", std::process::id()));
    let temporary = path.with_file_name(temporary);
    let written = std::fs::File::create(&temporary).and_then(|mut file| {
        file.write_all(text.as_bytes())?;
        file.sync_all()
    });
    match written.and_then(|()| std::fs::rename(&temporary, path)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = std::fs::remove_file(&temporary);
            Err(e)
        }
    }
}
