//! `logdiag watch [PATH|-]`: follow a growing log (or a stream) and report
//! each state change of the current launch; with `--until`, stop when it
//! is ready, crashes, hangs or ends. The watch itself is the library's
//! ([`crate::watch::follow`]); here are its arguments and where its
//! records go.

use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::{load_rules, parse_duration, OutputFormat, WatchArgs};
use crate::error::Error;
use crate::exit::Exit;
use crate::metrics::{write_atomically, Tally};
use crate::pipeline::follow::{follow_file, follow_stream};
use crate::report::escape::for_terminal;
use crate::report::watch::{write_record, WatchForm};
use crate::watch::{follow, Following, Record, Until, WatchOptions};

/// The default of `--hang-after`.
pub(super) const DEFAULT_HANG_AFTER: Duration = Duration::from_secs(600);

pub(super) fn run(args: &WatchArgs, out: &mut dyn Write) -> Result<Exit, Error> {
    let rules = load_rules(&args.rules)?;
    let duration =
        |text: &Option<String>| text.as_deref().map(parse_duration).transpose().map_err(Error::Usage);
    let timeout = duration(&args.timeout)?;
    let hang_after = duration(&args.hang_after)?.unwrap_or(DEFAULT_HANG_AFTER);
    let until = match args.until {
        // Without --until, a watch ends with the launch's story.
        None if args.keep_watching || args.each_unit => Until::Never,
        None => Until::StoryEnd,
        Some(super::UntilArg::Ready) => Until::Ready,
        Some(super::UntilArg::Crash) => Until::Crash,
        Some(super::UntilArg::Exit) => Until::Exit,
    };
    let mut journalctl = None;
    let (source, path, followed) = match args.path.as_deref() {
        _ if args.journal => {
            let mut child =
                journalctl_command(args).spawn().map_err(|e| Error::Input(format!("journalctl: {e}")))?;
            let stdout = child.stdout.take().expect("journalctl's output is piped");
            journalctl = Some(KillOnDrop(child));
            ("journal".to_string(), None, follow_stream(Box::new(stdout)))
        }
        None | Some("-") => {
            if io::stdin().is_terminal() {
                return Err(Error::Usage("watch: give a PATH, or pipe a log in (journalctl -fu sglang.service -o json | logdiag watch -)".into()));
            }
            ("-".to_string(), None, follow_stream(Box::new(io::stdin())))
        }
        Some(name) => {
            let path = PathBuf::from(name);
            if path.is_dir() {
                return Err(Error::Usage(format!("{name}: is a directory; watch follows one log")));
            }
            (name.to_string(), Some(path.clone()), follow_file(path, name.to_string()))
        }
    };
    let options = WatchOptions { until, hang_after, after_line: args.after_line };
    let form = match args.format {
        OutputFormat::Text => WatchForm::Text,
        OutputFormat::Json => WatchForm::Json,
    };
    let name = source.clone();
    let mut following = Following::new(&rules, source, path, (&args.units, args.each_unit), options, timeout);
    if args.each_unit {
        // An agent is stopped with SIGTERM (systemctl stop): it ends its
        // records and exits 0, as a service that stopped cleanly.
        let stop = Arc::new(AtomicBool::new(false));
        signal_hook::flag::register(signal_hook::consts::SIGTERM, Arc::clone(&stop))
            .map_err(Error::Output)?;
        following.stop = Some(stop);
    }
    let mut metrics =
        args.metrics_file.as_ref().map(|path| Metrics { path, tally: Tally::new(&name), written: None });
    let mut report = |record: &Record<'_>, elapsed| {
        if let Some(metrics) = metrics.as_mut() {
            metrics.observe(record)?;
        }
        write_record(out, form, &name, elapsed, record)
    };
    let mut waiting = || eprintln!("logdiag: waiting for {} to appear", for_terminal(&name));
    let exit = follow(following, &followed, &mut report, &mut waiting);
    drop(journalctl);
    exit
}

/// The journalctl that `--journal` reads: the current boot's entries (or
/// a journal file's), then each new one, in the export format, of the
/// units `--unit` names.
fn journalctl_command(args: &WatchArgs) -> Command {
    let mut command = Command::new("journalctl");
    command.args(["--follow", "--lines=all", "--output=export", "--no-pager"]);
    match &args.journal_file {
        Some(file) => command.arg("--file").arg(file),
        None => command.arg("--boot"),
    };
    for unit in &args.units {
        command.arg(format!("--unit={unit}"));
    }
    command.stdin(Stdio::null()).stdout(Stdio::piped());
    command
}

/// A child process ended with its reader: journalctl follows forever.
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The metrics file and what it says.
struct Metrics<'p> {
    path: &'p Path,
    tally: Tally,
    /// What the file holds now.
    written: Option<String>,
}

impl Metrics<'_> {
    /// Takes a record; writes the file again when the metrics changed.
    fn observe(&mut self, record: &Record<'_>) -> io::Result<()> {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64());
        self.tally.observe(record, now);
        let text = self.tally.render();
        if self.written.as_ref() != Some(&text) {
            write_atomically(self.path, &text).map_err(|e| {
                io::Error::new(e.kind(), format!("{}: cannot write the metrics: {e}", self.path.display()))
            })?;
            self.written = Some(text);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("90"), Ok(Duration::from_secs(90)));
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("5x").is_err());
        assert!(parse_duration("1e400").is_err());
        assert!(parse_duration("99999999999999999999h").is_err());
        // Several units, as systemd and Go write them.
        assert_eq!(parse_duration("1h30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_duration("2m 30s"), Ok(Duration::from_secs(150)));
        assert_eq!(parse_duration("1d"), Ok(Duration::from_secs(86_400)));
        for bad in ["", "1h30", "h", "1h-30m", "30 s s"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }
}
