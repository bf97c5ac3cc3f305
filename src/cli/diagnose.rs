//! `logdiag [PATH]...`: diagnose files, directories or stdin.

use std::io::{self, IsTerminal, Write};

use super::{load_rules, DiagnoseArgs, Failure, OutputFormat};
use crate::engine::{Engine, JudgeOptions};
use crate::input::{collect_sources, open};
use crate::pipeline::feed_parts;
use crate::report::{write_json, write_text, TextOptions};

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
    let mut engine = Engine::new(&rules);
    for source in &sources {
        let parts = open(source).map_err(|e| Failure::Message(e.to_string()))?;
        // A read error part-way (a cut gzip stream, a device error) is noted
        // in the report and what was read is still diagnosed; a source of
        // which nothing could be read is an error.
        feed_parts(&mut engine, &source.name, parts)
            .map_err(|e| Failure::Message(format!("{}: cannot be read: {e}", source.name)))?;
    }
    let diagnosis = engine.diagnose(JudgeOptions { last_only: args.last });
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
