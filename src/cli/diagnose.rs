//! `logdiag [PATH]...`: diagnose files, directories or stdin.

use std::io::{self, IsTerminal, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use super::{load_rules, write_line, DiagnoseArgs, Failure, ReportFormat};
use crate::diagnose::feed_parts;
use crate::engine::diagnosis::Diagnosis;
use crate::engine::{Engine, JudgeOptions, UnitFilter};
use crate::input::{collect_sources, open_logs, Origin, Part, Skipped, Source};
use crate::pipeline::Framing;
use crate::report::escape::for_terminal_lines;
use crate::report::{write_json, write_markdown, write_text, MarkdownOptions, Terminal, TextOptions};
use crate::rules::RuleSet;

pub(super) fn run(args: &DiagnoseArgs, out: &mut dyn Write) -> Result<i32, Failure> {
    let rules = load_rules(&args.rules)?;
    let paths = if args.paths.is_empty() {
        if io::stdin().is_terminal() {
            return Err(Failure::Message(
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
        Some(text) => super::parse_duration(text).map_err(Failure::Message)?.as_secs_f64(),
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
    let code = diagnosis.exit_code();
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
        Err(e) if super::is_closed_pipe(&e) => Ok(code),
        Err(e) => Err(Failure::Io(e)),
    }
}

/// A selection that matches nothing is a usage error, so that a monitor
/// with a typo in `--unit` does not stay green: it says what there is.
fn selected_something(args: &DiagnoseArgs, diagnosis: &Diagnosis) -> Result<(), Failure> {
    if !diagnosis.runs.is_empty() {
        return Ok(());
    }
    if !args.units.is_empty() {
        let notices = diagnosis.inputs.iter().flat_map(|i| i.notices.iter().map(move |n| (i, n)));
        let said: Vec<String> = notices
            .filter(|(_, n)| n.starts_with("--unit "))
            .map(|(input, notice)| format!("{}: {notice}", input.name))
            .collect();
        return Err(Failure::Message(for_terminal_lines(&said.join("; ")).into_owned()));
    }
    if args.last {
        return Err(Failure::Message("--last: the input holds no launch to judge".to_string()));
    }
    Ok(())
}

/// Reads the logs the paths name. A directory walk's warnings (a link
/// loop) go to stderr and the rest is read; with `-v`, so do the files it
/// left out as not logs. A path without any log is an error.
fn read_inputs<'r>(args: &DiagnoseArgs, paths: &[String], rules: &'r RuleSet) -> Result<Engine<'r>, Failure> {
    let collected = collect_sources(paths, args.symlinks()).map_err(|e| Failure::Message(e.to_string()))?;
    for warning in &collected.warnings {
        eprintln!("logdiag: warning: {}", for_terminal_lines(&warning.to_string()));
    }
    // A directory without logs is an error, said after what was left out.
    let gathered = if collected.without_logs.is_empty() {
        read_all(rules, &collected.sources)?
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
        return Err(Failure::Message(e.to_string()));
    }
    gathered.engine.ok_or_else(|| {
        Failure::Message(format!(
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
fn write_empty(out: &mut dyn Write, diagnosis: &Diagnosis) -> Result<(), Failure> {
    for input in &diagnosis.inputs {
        write_line(out, &format!("{}: the log is empty, nothing to judge", input.name))?;
    }
    Ok(())
}

/// What reading sources came to: what the engine made of them (none when
/// no file held a log), and the files left out as not logs.
#[derive(Default)]
struct Gathered<'r> {
    engine: Option<Engine<'r>>,
    skipped: Vec<Skipped>,
}

/// Reads every source, several at once when there are several (one per
/// core), and joins them in their given order, so the report does not
/// depend on which finished first.
fn read_all<'r>(rules: &'r RuleSet, sources: &[Source]) -> Result<Gathered<'r>, Failure> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let workers = cores.min(sources.len()).max(1);
    let framings = framings(cores, workers, &sources.iter().map(bytes_of).collect::<Vec<_>>());
    let next = AtomicUsize::new(0);
    let mut done: Vec<Option<Result<Gathered<'r>, Failure>>> = (0..sources.len()).map(|_| None).collect();
    let slots = Mutex::new(&mut done);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(source) = sources.get(index) else { break };
                let framing = framings[index];
                let read = read_one(rules, source, framing);
                slots.lock().unwrap_or_else(|poisoned| poisoned.into_inner())[index] = Some(read);
            });
        }
    });
    let mut engine: Option<Engine<'r>> = None;
    let mut skipped = Vec::new();
    for read in done.into_iter().flatten() {
        let read = read?;
        skipped.extend(read.skipped);
        if let Some(read) = read.engine {
            engine.get_or_insert_with(|| Engine::new(rules)).append(read);
        }
    }
    Ok(Gathered { engine, skipped })
}

/// How each source (of these sizes, read in this order by `readers`
/// threads on `cores` cores) is framed. A source gets a framing thread of
/// its own when a core is left for it: each reading thread has two, or
/// the sources still to start hold no more bytes than it (the other
/// readers will be done while it is read).
fn framings(cores: usize, readers: usize, bytes: &[u64]) -> Vec<Framing> {
    let mut after = 0;
    let mut framings: Vec<Framing> = bytes
        .iter()
        .rev()
        .map(|&own| {
            let spare = cores >= 2 * readers || (cores >= 2 && own >= after);
            after += own;
            if spare {
                Framing::OwnThread
            } else {
                Framing::ReadingThread
            }
        })
        .collect();
    framings.reverse();
    framings
}

/// The bytes of a source's files as stored (compressed ones included; 0
/// for standard input).
fn bytes_of(source: &Source) -> u64 {
    let size = |part: &Part| match &part.origin {
        Origin::File(path) => std::fs::metadata(path).map_or(0, |m| m.len()),
        Origin::Stdin => 0,
    };
    source.parts.iter().map(size).sum()
}

fn read_one<'r>(rules: &'r RuleSet, source: &Source, framing: Framing) -> Result<Gathered<'r>, Failure> {
    let mut engine = Engine::new(rules);
    let (parts, skipped) = open_logs(source).map_err(|e| Failure::Message(e.to_string()))?;
    if parts.is_empty() {
        return Ok(Gathered { engine: None, skipped });
    }
    // A read error part-way (a cut gzip stream, a device error) is noted in
    // the report and what was read is still diagnosed; a source of which
    // nothing could be read is an error.
    feed_parts(&mut engine, &source.name, parts, framing)
        .map_err(|e| Failure::Message(format!("{}: cannot be read: {e}", source.name)))?;
    engine.done_reading();
    Ok(Gathered { engine: Some(engine), skipped })
}

#[cfg(test)]
mod tests {
    use super::*;
    use Framing::{OwnThread as Own, ReadingThread as Reading};

    #[test]
    fn a_file_is_framed_on_a_thread_of_its_own_only_when_a_core_is_left_for_it() {
        // One core: never. One file on two cores: always.
        assert_eq!(framings(1, 1, &[256 << 20]), [Reading]);
        assert_eq!(framings(2, 1, &[256 << 20]), [Own]);
        // Eight like files on two cores: both cores read files until the
        // last two, which have the core the other leaves.
        let like = [32 << 20; 8];
        assert_eq!(framings(2, 2, &like), [Reading, Reading, Reading, Reading, Reading, Reading, Own, Own]);
        // On sixteen cores each of the eight has two.
        assert_eq!(framings(16, 8, &like), [Own; 8]);
        // A large file before small ones: the small ones are read on the
        // other core meanwhile.
        let small = 1 << 20;
        assert_eq!(framings(2, 2, &[1 << 30, small, small, small]), [Own, Reading, Own, Own]);
    }
}
