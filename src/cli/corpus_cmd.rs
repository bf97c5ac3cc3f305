//! `logdiag test DIR [--bless] [--junit FILE]`: run a corpus of golden
//! cases, print one line per case, and optionally write the results as
//! JUnit XML for a CI system.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use super::junit::{self, CaseReport};
use super::{load_rules, write_line, RuleArgs};
use crate::corpus::{check_case, find_cases, Mode, Status};
use crate::error::Error;
use crate::exit::Exit;

pub(super) fn run(
    dir: &Path,
    mode: Mode,
    junit_path: Option<&Path>,
    args: &RuleArgs,
    out: &mut dyn Write,
) -> Result<Exit, Error> {
    let rules = load_rules(args)?;
    let cases = find_cases(dir).map_err(|e| Error::Input(format!("{}: {e}", dir.display())))?;
    if cases.is_empty() {
        return Err(Error::Input(format!(
            "{}: no cases (folders with input.log and case.json)",
            dir.display()
        )));
    }
    let mut reports = Vec::with_capacity(cases.len());
    for case in &cases {
        let started = Instant::now();
        let result = check_case(&rules, case, mode);
        write_line(out, &format!("{:<40} {}", result.name, result.status))?;
        for line in &result.explanation {
            write_line(out, &format!("    {line}"))?;
        }
        reports.push(CaseReport {
            suite: junit::suite_name(case),
            result,
            seconds: started.elapsed().as_secs_f64(),
        });
    }
    let failed = reports.iter().filter(|r| !r.result.status.is_ok()).count();
    let missed = reports.iter().filter(|r| matches!(r.result.status, Status::KnownMiss(_))).count();
    let verb = match mode {
        Mode::Check => "passed",
        Mode::Bless => "blessed",
    };
    let known = if missed > 0 { format!(" ({missed} known misses)") } else { String::new() };
    write_line(
        out,
        &format!("\n{} cases: {} {verb}{known}, {failed} failed", cases.len(), cases.len() - failed),
    )?;
    if let Some(path) = junit_path {
        std::fs::write(path, junit::render(&reports)).map_err(|error| Error::Written {
            path: path.to_path_buf(),
            what: "the JUnit report",
            error,
        })?;
    }
    Ok(if failed == 0 { Exit::Healthy } else { Exit::CasesFailed })
}
