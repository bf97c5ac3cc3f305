//! `logdiag [PATH]...`: diagnose files, directories or stdin.

use std::io::{self, IsTerminal, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use super::{load_rules, DiagnoseArgs, Failure, OutputFormat};
use crate::engine::{Engine, JudgeOptions, UnitFilter};
use crate::input::{collect_sources, open, Source};
use crate::pipeline::feed_parts;
use crate::report::{write_json, write_text, TextOptions};
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
    let sources = collect_sources(&paths).map_err(|e| Failure::Message(e.to_string()))?;
    let engine = read_all(&rules, &sources)?;
    let hang_after = match &args.hang_after {
        Some(text) => super::parse_duration(text).map_err(Failure::Message)?.as_secs_f64(),
        None => crate::engine::HANG_AFTER_SECONDS,
    };
    let diagnosis = engine.diagnose(&JudgeOptions {
        latest: args.last.then_some(1),
        units: UnitFilter::new(&args.units),
        degraded_below: args.degraded_below,
        hang_after_seconds: hang_after,
    });
    let code = diagnosis.exit_code();
    let written = match args.format {
        OutputFormat::Json => write_json(out, &diagnosis),
        OutputFormat::Text => write_text(out, &diagnosis, &TextOptions { verbose: args.verbose }),
    };
    match written {
        Ok(()) => Ok(code),
        Err(e) if super::is_closed_pipe(&e) => Ok(code),
        Err(e) => Err(Failure::Io(e)),
    }
}

/// Reads every source, several at once when there are several (one per
/// core), and joins them in their given order, so the report does not
/// depend on which finished first.
fn read_all<'r>(rules: &'r RuleSet, sources: &[Source]) -> Result<Engine<'r>, Failure> {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(sources.len()).max(1);
    let next = AtomicUsize::new(0);
    let mut done: Vec<Option<Result<Engine<'r>, Failure>>> = (0..sources.len()).map(|_| None).collect();
    let slots = Mutex::new(&mut done);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(source) = sources.get(index) else { break };
                let read = read_one(rules, source);
                slots.lock().unwrap_or_else(|poisoned| poisoned.into_inner())[index] = Some(read);
            });
        }
    });
    let mut engine = Engine::new(rules);
    for read in done.into_iter().flatten() {
        engine.append(read?);
    }
    Ok(engine)
}

fn read_one<'r>(rules: &'r RuleSet, source: &Source) -> Result<Engine<'r>, Failure> {
    let mut engine = Engine::new(rules);
    let parts = open(source).map_err(|e| Failure::Message(e.to_string()))?;
    // A read error part-way (a cut gzip stream, a device error) is noted in
    // the report and what was read is still diagnosed; a source of which
    // nothing could be read is an error.
    feed_parts(&mut engine, &source.name, parts)
        .map_err(|e| Failure::Message(format!("{}: cannot be read: {e}", source.name)))?;
    engine.done_reading();
    Ok(engine)
}
