//! `logdiag [PATH]...`: diagnose files, directories or stdin.

use std::io::{self, IsTerminal, Write};

use super::{load_rules, write_line, DiagnoseArgs, ReportFormat};
use crate::diagnose::{read_sources, Gathered};
use crate::engine::diagnosis::Diagnosis;
use crate::engine::{Engine, JudgeOptions, UnitFilter};
use crate::error::{is_closed_pipe, Error};
use crate::exit::Exit;
use crate::input::{collect_sources, Skipped};
use crate::report::escape::for_terminal_lines;
use crate::report::{write_json, write_markdown, write_text, MarkdownOptions, Terminal, TextOptions};
use crate::rules::RuleSet;

pub(super) fn run(args: &DiagnoseArgs, out: &mut dyn Write) -> Result<Exit, Error> {
    let rules = load_rules(&args.rules)?;
    let paths = if args.paths.is_empty() {
        if io::stdin().is_terminal() {
            return Err(Error::Usage(
                "no input: give a PATH, or pipe a log in (journalctl -u sglang.service | logdiag -)"
                    .to_string(),
            ));
        }
        vec!["-".to_string()]
    } else {
        args.paths.clone()
    };
    let engine = read_inputs(args, &paths, &rules)?;
    let hang_after = match &args.hang_after {
        Some(text) => super::parse_duration(text).map_err(Error::Usage)?.as_secs_f64(),
        None => crate::engine::HANG_AFTER_SECONDS,
    };
    let diagnosis = engine.diagnose(&JudgeOptions {
        latest: args.last.then_some(1),
        units: UnitFilter::new(&args.units),
        any_launch: args.any_launch,
        degraded_below: args.degraded_below,
        hang_after_seconds: hang_after,
    });
    selected_something(args, &diagnosis)?;
    let code = diagnosis.exit();
    if args.format == ReportFormat::Text && nothing_read(&diagnosis) {
        return write_empty(out, &diagnosis).map(|()| code);
    }
    let written = match args.format {
        ReportFormat::Json => write_json(out, &diagnosis),
        ReportFormat::Text => {
            let terminal = Terminal::detect(args.color.into());
            write_text(out, &diagnosis, &TextOptions { verbose: args.verbose, terminal })
        }
        ReportFormat::Markdown => write_markdown(out, &diagnosis, &MarkdownOptions { verbose: args.verbose }),
    };
    match written {
        Ok(()) => Ok(code),
        Err(e) if is_closed_pipe(&e) => Ok(code),
        Err(e) => Err(Error::Output(e)),
    }
}

/// A selection that matches nothing is a usage error, so that a monitor
/// with a typo in `--unit` does not stay green: it says what there is.
fn selected_something(args: &DiagnoseArgs, diagnosis: &Diagnosis) -> Result<(), Error> {
    if !diagnosis.runs.is_empty() {
        return Ok(());
    }
    if !args.units.is_empty() {
        let notices = diagnosis.inputs.iter().flat_map(|i| i.notices.iter().map(move |n| (i, n)));
        let said: Vec<String> = notices
            .filter(|(_, n)| n.starts_with("--unit "))
            .map(|(input, notice)| format!("{}: {notice}", input.name))
            .collect();
        return Err(Error::Usage(for_terminal_lines(&said.join("; ")).into_owned()));
    }
    if args.last {
        return Err(Error::Usage("--last: the input holds no launch to judge".to_string()));
    }
    Ok(())
}

/// Reads the logs the paths name. A directory walk's warnings (a link
/// loop) go to stderr and the rest is read; with `-v`, so do the files it
/// left out as not logs. A path without any log is an error.
fn read_inputs<'r>(args: &DiagnoseArgs, paths: &[String], rules: &'r RuleSet) -> Result<Engine<'r>, Error> {
    let collected = collect_sources(paths, args.symlinks()).map_err(|e| Error::Input(e.to_string()))?;
    for warning in &collected.warnings {
        eprintln!("logdiag: warning: {}", for_terminal_lines(&warning.to_string()));
    }
    // A directory without logs is an error, said after what was left out.
    let gathered = if collected.without_logs.is_empty() {
        read_sources(rules, &collected.sources, args.threads.map(usize::from))?
    } else {
        Gathered::default()
    };
    if args.verbose {
        // Left out by name while walking, or by content when opened: in
        // path order alike.
        let mut skipped: Vec<&Skipped> = collected.skipped.iter().chain(&gathered.skipped).collect();
        skipped.sort_by(|a, b| a.path.cmp(&b.path));
        for skipped in skipped {
            eprintln!("logdiag: {}", for_terminal_lines(&skipped.to_string()));
        }
    }
    if let Some(e) = collected.without_logs.first() {
        return Err(Error::Input(e.to_string()));
    }
    gathered.engine.ok_or_else(|| {
        Error::Input(format!(
            "no logs to judge: the {} file(s) found do not look like logs (-v lists them)",
            gathered.skipped.len()
        ))
    })
}

/// Every input was empty: there is nothing to report but that.
fn nothing_read(diagnosis: &Diagnosis) -> bool {
    diagnosis.runs.is_empty() && diagnosis.inputs.iter().all(|input| input.lines == 0)
}

/// One line per empty input. Its exit code is the diagnosis's, 0: the
/// input was read, and nothing in it crashed or hung (an error, 2, is for
/// input that cannot be read).
fn write_empty(out: &mut dyn Write, diagnosis: &Diagnosis) -> Result<(), Error> {
    for input in &diagnosis.inputs {
        write_line(out, &format!("{}: the log is empty, nothing to judge", input.name))?;
    }
    Ok(())
}
