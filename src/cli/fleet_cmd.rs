//! `logdiag fleet PATH...`: many hosts' logs judged in one run.

use std::io::Write;
use std::path::Path;

use super::{load_rules, ReportFormat, RuleArgs};
use crate::diagnose::read_sources;
use crate::engine::JudgeOptions;
use crate::error::Error;
use crate::exit::Exit;
use crate::fleet::summarize;
use crate::input::{collect_sources, Symlinks};
use crate::report::fleet::{write_fleet_json, write_fleet_markdown, write_fleet_text};

pub(super) fn run(
    paths: &[String],
    format: ReportFormat,
    degraded_below: f64,
    threads: Option<usize>,
    rules: &RuleArgs,
    out: &mut dyn Write,
) -> Result<Exit, Error> {
    let rules = load_rules(rules)?;
    let collected = collect_sources(paths, Symlinks::Skip).map_err(|e| Error::Input(e.to_string()))?;
    if let Some(e) = collected.without_logs.first() {
        return Err(Error::Input(e.to_string()));
    }
    let gathered = read_sources(&rules, &collected.sources, threads)?;
    let engine = gathered.engine.ok_or_else(|| Error::Input("no logs to judge in the fleet".to_string()))?;
    let diagnosis = engine.diagnose(&JudgeOptions::default());
    let fleet = summarize(&diagnosis, |source| host_of(paths, source), degraded_below);
    match format {
        ReportFormat::Text => write_fleet_text(out, &fleet)?,
        ReportFormat::Markdown => write_fleet_markdown(out, &fleet)?,
        ReportFormat::Json => write_fleet_json(out, &fleet)?,
    }
    Ok(diagnosis.exit())
}

/// The host a source's log is from: the file or folder just under the
/// folder given (`fleet/node-07.log`, `fleet/node-07/sglang.log`:
/// `node-07`), or the file given; without the extensions logs carry.
fn host_of(paths: &[String], source: &str) -> String {
    let under = paths.iter().find_map(|root| {
        let rest = source.strip_prefix(root.trim_end_matches('/'))?.strip_prefix('/')?;
        rest.split('/').next()
    });
    let name =
        under.unwrap_or_else(|| Path::new(source).file_name().and_then(|n| n.to_str()).unwrap_or(source));
    let mut host = name;
    while let Some((stem, extension)) = host.rsplit_once('.') {
        let log_like = ["log", "gz", "zst", "txt", "journal", "json", "jsonl", "out", "1", "2", "3"];
        if stem.is_empty() || !log_like.contains(&extension) {
            break;
        }
        host = stem;
    }
    host.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_is_named_by_its_file_or_its_folder() {
        let paths = ["fleet".to_string(), "one.log.gz".to_string()];
        assert_eq!(host_of(&paths, "fleet/node-07.log"), "node-07");
        assert_eq!(host_of(&paths, "fleet/node-07/sglang.log"), "node-07");
        assert_eq!(host_of(&paths, "fleet/gpu.node-3.log.1.gz"), "gpu.node-3");
        assert_eq!(host_of(&paths, "one.log.gz"), "one");
    }
}
